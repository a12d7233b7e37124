"""Where things go on the table, worked out from the window size. Pure geometry."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import pygame

from client import settings
from client.theme import CARD_RATIO

PANEL_WIDTH_SHARE = 0.2
"""The score panel's share of the window width."""
CARD_SCALES = {"small": 0.8, "normal": 1.0, "large": 1.25}
"""The settings' card sizes: a share of the window's, never more than fits."""


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    players: int
    bottom_seat: int
    """The seat drawn at the bottom: the user's, or seat 0 for a spectator."""
    footer: int = 0
    """Pixels kept free at the bottom (the replay viewer's controls)."""

    @cached_property
    def panel(self) -> pygame.Rect:
        width = max(200, min(300, int(self.width * PANEL_WIDTH_SHARE)))
        return pygame.Rect(self.width - width, 0, width, self.height - self.footer)

    @cached_property
    def table(self) -> pygame.Rect:
        return pygame.Rect(0, 0, self.width - self.panel.w, self.height - self.footer)

    @cached_property
    def card_size(self) -> tuple[int, int]:
        scale = CARD_SCALES.get(settings.current().card_size, 1.0)
        height = max(56, min(int(self.table.h * 0.2 * scale), int(self.table.w * 0.16 * scale)))
        return round(height / CARD_RATIO), height

    @cached_property
    def small_card_size(self) -> tuple[int, int]:
        width, height = self.card_size
        return max(24, int(width * 0.5)), max(34, int(height * 0.5))

    @property
    def centre(self) -> tuple[float, float]:
        return self.table.centerx, self.table.y + self.table.h * 0.42

    def relative(self, seat: int) -> int:
        """0 for the bottom seat, then clockwise (the next seat to its left, and so on)."""
        return (seat - self.bottom_seat) % self.players

    def _angle(self, seat: int) -> float:
        # Screen y grows downwards, so 90° is the bottom; seats follow clockwise round it.
        return math.radians(90 + self.relative(seat) * 360 / self.players)

    def seat_anchor(self, seat: int) -> tuple[float, float]:
        """Where a seat's cards and name sit; the bottom seat's is the middle of the hand."""
        if self.relative(seat) == 0:
            return self.hand_centre
        cx, cy = self.centre
        angle = self._angle(seat)
        rx = self.table.w * 0.5 - self.small_card_size[1] * 1.2
        ry = cy - self.table.y - self.small_card_size[1] * 0.75
        return cx + rx * math.cos(angle), cy + ry * math.sin(angle)

    def trick_slot(self, seat: int) -> tuple[float, float]:
        cx, cy = self.centre
        width, height = self.card_size
        angle = self._angle(seat)
        return cx + width * 0.75 * math.cos(angle), cy + height * 0.42 * math.sin(angle)

    def pile_slot(self, seat: int) -> tuple[float, float]:
        """Where a seat's Star pile (or won cards) lies: between its anchor and the centre."""
        ax, ay = self.seat_anchor(seat)
        cx, cy = self.centre
        if self.relative(seat) == 0:
            return self.table.x + self.card_size[0] * 0.9, self.hand_centre[1] - self.card_size[1]
        return ax + (cx - ax) * 0.32, ay + (cy - ay) * 0.32

    @property
    def hand_centre(self) -> tuple[float, float]:
        return self.table.centerx, self.table.bottom - self.card_size[1] * 0.55

    def hand_rects(self, count: int, raised: set[int] | None = None) -> list[pygame.Rect]:
        """The rectangles of a fanned hand, left to right; ``raised`` ones stand up a little."""
        if count <= 0:
            return []
        width, height = self.card_size
        room = self.table.w - 2 * max(16, width * 0.3) - width
        step = min(width * 0.62, room / max(1, count - 1))
        left = self.table.centerx - (step * (count - 1) + width) / 2
        base = self.table.bottom - height - max(10, height * 0.12)
        rects = []
        for i in range(count):
            # A gentle arc: cards towards the ends sit a little lower.
            offset = (i - (count - 1) / 2) / max(1, (count - 1) / 2)
            y = base + height * 0.06 * offset * offset
            if raised and i in raised:
                y -= height * 0.18
            rects.append(pygame.Rect(round(left + i * step), round(y), width, height))
        return rects

    def deck_point(self) -> tuple[float, float]:
        return self.centre
