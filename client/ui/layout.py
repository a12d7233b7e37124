"""Where things go on the table, worked out from the window size. Pure geometry.

The table is cut into bands, so that nothing drawn at the same time covers anything else at
any player count and window size (tests/test_trick_table.py checks every rectangle here for
3 to 6 players at three window sizes):

- the bottom band is the user's hand;
- above it, the status band: the user's seat plate on the left, the prompt beside it;
- above that, while the user bids or chooses cards, a row of buttons (the trick is empty then);
- the other seats sit round the remaining area: down the left and right edges and along the
  top, in the order of play (clockwise from the user: left side upwards, top, right side
  downwards), each seat a box of its cards' backs over its name plate;
- the trick lies in the middle, the cards in two rows, each on its player's side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import pygame

from starhall.client.ui import fonts
from starhall.client.ui.theme import CARD_RATIO
from starhall.client.user import settings

PANEL_WIDTH_SHARE = 0.2
"""The score panel's share of the window width."""
CARD_SCALES = {"small": 0.8, "normal": 1.0, "large": 1.25}
"""The settings' card sizes: a share of the window's, never more than fits."""
FIT_SHARES = {"small": 0.8, "normal": 0.9, "large": 1.0}
"""And each setting's share of the largest card that fits: in a window where the cards are as
large as fit (the default window, 1280 x 720, is one), Normal leaves Large room to be
larger, as Small is smaller."""
MARGIN = 12
"""Between the felt's edge and anything on it."""
GAP = 6
"""Between two things that must not touch."""
PLATE_SIZE = (168, 48)
STATUS_HEIGHT = 50
"""The status band: the user's plate and two lines of prompt."""
ACTIONS_HEIGHT = 40
TRICK_STEP = (1.08, 0.55)
"""Trick slots, in card widths across and card heights down from the middle: each card is a
little more than a card's size from its neighbours, so none hides another."""

CORNER = (160, 84)
"""The felt's top-left corner, kept for the buttons every table has there (Rules and
Settings: ``rules_button_rect``, ``settings_button_rect``)."""
CORNER_RIGHT = (214, 48)
"""The top-right corner, kept for a live table's "Save a bug report" button
(``client.screens.bug_report``)."""
RULES_LABEL = "Rules  [F1]"
SETTINGS_LABEL = "Settings  [F2]"
GAME_OVER_PANEL_HEIGHT = 84
"""The room a game's end box leaves for the shared game-over panel (its bottom strip:
``client.screens.table_screen.GameOverPanel``)."""


def rules_button_rect(felt: pygame.Rect) -> pygame.Rect:
    """Where the Rules button is: the table's top-left corner (anything else drawn in that
    corner, such as a banner, goes right of it)."""
    return pygame.Rect(felt.x + 12, felt.y + 12, fonts.font(14).size(RULES_LABEL)[0] + 24, 30)


def settings_button_rect(felt: pygame.Rect) -> pygame.Rect:
    """Where a table's Settings button is: under its Rules button, in the felt's corner."""
    rules = rules_button_rect(felt)
    width = max(rules.w, fonts.font(14).size(SETTINGS_LABEL)[0] + 24)
    return pygame.Rect(rules.x, rules.bottom + 6, width, rules.h)


# Where each other seat's box goes, by player count, in order of play after the user's:
# (fx, fy) in 0..1. A box with fx 0 or 1 stands in the left or right column, fy down the
# column (which starts under the corner's buttons, on both sides alike); any other is in the
# top row, fx across it.
SEAT_SPOTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: (),
    2: ((0.5, 0.0),),
    3: ((0.0, 0.25), (1.0, 0.25)),
    4: ((0.0, 0.25), (0.5, 0.0), (1.0, 0.25)),
    5: ((0.0, 0.95), (0.0, 0.05), (1.0, 0.05), (1.0, 0.95)),
    6: ((0.0, 1.0), (0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (1.0, 1.0)),
}

# Trick slots by player count, in order of play from the user's (in TRICK_STEP units): the
# user's card below the middle, the others on their side of the table, two rows at most.
TRICK_SPOTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((0.0, 1.0), (0.0, -1.0)),
    3: ((0.0, 1.0), (-0.5, -1.0), (0.5, -1.0)),
    4: ((0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0)),
    5: ((0.0, 1.0), (-1.0, 1.0), (-0.5, -1.0), (0.5, -1.0), (1.0, 1.0)),
    6: ((0.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (0.0, -1.0), (1.0, -1.0), (1.0, 1.0)),
}


def _spots(table: dict[int, tuple[tuple[float, float], ...]], players: int
           ) -> tuple[tuple[float, float], ...]:
    return table.get(players) or table[max(1, min(6, players))]


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    players: int
    bottom_seat: int
    """The seat drawn at the bottom: the user's, or seat 0 for a spectator."""
    footer: int = 0
    """Pixels kept free at the bottom (the replay viewer's controls)."""

    # --- the window ------------------------------------------------------------------

    @cached_property
    def panel(self) -> pygame.Rect:
        width = max(200, min(300, int(self.width * PANEL_WIDTH_SHARE)))
        return pygame.Rect(self.width - width, 0, width, self.height - self.footer)

    @cached_property
    def table(self) -> pygame.Rect:
        return pygame.Rect(0, 0, self.width - self.panel.w, self.height - self.footer)

    @cached_property
    def card_size(self) -> tuple[int, int]:
        table = self.table
        # The tallest card with which the hand, the status band, a top seat and two rows of
        # trick still fit one above the other.
        fits = (table.h - 2 * MARGIN - STATUS_HEIGHT - PLATE_SIZE[1] - 8 * GAP) / (
            1.32 + 0.5 + 2 * TRICK_STEP[1] + 1.0)
        # And the widest with which a side column's plate still fits beside the trick.
        across = (table.w / 2 - MARGIN - PLATE_SIZE[0] - GAP) / (TRICK_STEP[0] + 0.5)
        chosen = settings.current().card_size
        scale = CARD_SCALES.get(chosen, 1.0)
        share = FIT_SHARES.get(chosen, FIT_SHARES["normal"])
        height = max(56, min(int(table.h * 0.2 * scale), int(table.w * 0.16 * scale),
                             int(share * min(fits, across * CARD_RATIO))))
        return round(height / CARD_RATIO), height

    @cached_property
    def small_card_size(self) -> tuple[int, int]:
        width, height = self.card_size
        return max(24, int(width * 0.5)), max(34, int(height * 0.5))

    def relative(self, seat: int) -> int:
        """0 for the bottom seat, then clockwise (the next seat to its left, and so on)."""
        return (seat - self.bottom_seat) % self.players

    # --- the bands, from the bottom up ----------------------------------------------

    @cached_property
    def hand_area(self) -> pygame.Rect:
        """Where the user's hand may reach, raised cards included."""
        width, height = self.card_size
        top = self.table.bottom - round(height * 1.32)
        return pygame.Rect(self.table.x + MARGIN, top, self.table.w - 2 * MARGIN,
                           self.table.bottom - top)

    @cached_property
    def status_band(self) -> pygame.Rect:
        bottom = self.hand_area.y - GAP
        return pygame.Rect(self.table.x + MARGIN, bottom - STATUS_HEIGHT,
                           self.table.w - 2 * MARGIN, STATUS_HEIGHT)

    @cached_property
    def my_plate(self) -> pygame.Rect:
        """The bottom seat's name plate, at the left of the status band."""
        rect = pygame.Rect(0, 0, *PLATE_SIZE)
        rect.midleft = self.status_band.midleft
        return rect

    @cached_property
    def prompt_area(self) -> pygame.Rect:
        """The status line: right of the user's plate, up to the felt's edge."""
        band = self.status_band
        left = self.my_plate.right + 2 * GAP
        return pygame.Rect(left, band.y, band.right - left, band.h)

    @cached_property
    def actions_row(self) -> pygame.Rect:
        """The buttons for bidding and choosing cards, above the status band."""
        band = self.status_band
        return pygame.Rect(band.x, band.y - GAP - ACTIONS_HEIGHT, band.w, ACTIONS_HEIGHT)

    @property
    def actions_centre(self) -> tuple[int, int]:
        return self.table.centerx, self.actions_row.centery

    # --- the other seats ------------------------------------------------------------

    @cached_property
    def corner(self) -> pygame.Rect:
        """Kept free for the Rules and Settings buttons."""
        return pygame.Rect(self.table.x, self.table.y, *CORNER)

    @cached_property
    def corner_right(self) -> pygame.Rect:
        """Kept free for the bug report button."""
        return pygame.Rect(self.table.right - CORNER_RIGHT[0], self.table.y, *CORNER_RIGHT)

    @cached_property
    def box_area(self) -> pygame.Rect:
        """Where a box over the whole felt goes (the score sheet, the game-over box): below
        the corners' buttons, which stay in view and usable over it."""
        table = self.table
        top = table.y + max(CORNER[1], CORNER_RIGHT[1]) + GAP
        return pygame.Rect(table.x + 2 * MARGIN, top, table.w - 4 * MARGIN,
                           table.bottom - MARGIN - top)

    @cached_property
    def seat_room(self) -> pygame.Rect:
        """Where the other seats' boxes may go: above the status band."""
        top = self.table.y + MARGIN
        return pygame.Rect(self.table.x + MARGIN, top, self.table.w - 2 * MARGIN,
                           self.status_band.y - GAP - top)

    @cached_property
    def box_size(self) -> tuple[int, int]:
        """A seat's box: its cards' backs over its name plate. As wide as the side of the
        table beside the trick allows, so a replay's face-up hand can spread."""
        trick = self.trick_area
        side = min(trick.x - self.seat_room.x, self.seat_room.right - trick.right) - GAP
        width = max(PLATE_SIZE[0], min(side, round(self.table.w * 0.27)))
        return width, self.small_card_size[1] + GAP + PLATE_SIZE[1]

    def seat_box(self, seat: int) -> pygame.Rect:
        """The box of a seat other than the bottom one (the bottom seat's is its plate)."""
        relative = self.relative(seat)
        if relative == 0:
            return pygame.Rect(self.my_plate)
        spots = _spots(SEAT_SPOTS, self.players)
        fx, fy = spots[(relative - 1) % max(1, len(spots))]
        room = self.seat_room
        if fx in (0.0, 1.0):
            top = max(room.y, self.corner.bottom)
            room = pygame.Rect(room.x, top, room.w, room.bottom - top)
        width, height = self.box_size
        return pygame.Rect(round(room.x + fx * (room.w - width)),
                           round(room.y + fy * (room.h - height)), width, height)

    def seat_anchor(self, seat: int) -> tuple[float, float]:
        """The middle of a seat's cards: its backs, over its plate, for another seat; the
        hand for the bottom one."""
        if self.relative(seat) == 0:
            return self.hand_centre
        return self.plate_rect(seat).centerx, self.seat_box(seat).y + self.small_card_size[1] / 2

    def plate_rect(self, seat: int) -> pygame.Rect:
        """A seat's name plate: at the bottom of its box, against the felt's edge for a seat
        in a side column (as the user's is), in the middle for one in the top row."""
        if self.relative(seat) == 0:
            return pygame.Rect(self.my_plate)
        box = self.seat_box(seat)
        rect = pygame.Rect(0, 0, *PLATE_SIZE)
        room = self.seat_room
        if box.x <= room.x:
            rect.bottomleft = box.bottomleft
        elif box.right >= room.right:
            rect.bottomright = box.bottomright
        else:
            rect.midbottom = box.midbottom
        return rect

    def bubble_point(self, seat: int) -> tuple[float, float]:
        """Where what a seat says (a bid, a pass) shows: on its own cards, so it covers
        nothing of anyone else's; the user's on its own plate."""
        if self.relative(seat) == 0:
            return self.my_plate.center
        return self.seat_anchor(seat)

    # --- the middle -----------------------------------------------------------------

    @property
    def centre(self) -> tuple[float, float]:
        """The middle of the trick: halfway between the top seats' boxes and the status band
        (or the buttons above it)."""
        top = self.seat_room.y + self.small_card_size[1] + GAP + PLATE_SIZE[1]
        bottom = self.status_band.y - GAP
        return self.table.centerx, (top + bottom) / 2

    @cached_property
    def trick_area(self) -> pygame.Rect:
        """What the trick may cover, whoever plays it."""
        width, height = self.card_size
        half_w = width * (TRICK_STEP[0] + 0.5)
        half_h = height * (TRICK_STEP[1] + 0.5)
        cx, cy = self.centre
        return pygame.Rect(round(cx - half_w), round(cy - half_h), round(2 * half_w),
                           round(2 * half_h))

    def trick_slot(self, seat: int) -> tuple[float, float]:
        spots = _spots(TRICK_SPOTS, self.players)
        ux, uy = spots[self.relative(seat) % len(spots)]
        width, height = self.card_size
        cx, cy = self.centre
        return cx + ux * width * TRICK_STEP[0], cy + uy * height * TRICK_STEP[1]

    def trick_rect(self, seat: int) -> pygame.Rect:
        width, height = self.card_size
        rect = pygame.Rect(0, 0, width, height)
        rect.center = (round(self.trick_slot(seat)[0]), round(self.trick_slot(seat)[1]))
        return rect

    @property
    def banner_point(self) -> tuple[float, float]:
        """Where a trick's caption ("Star!") shows: on the trick it is about."""
        return self.centre

    def deck_point(self) -> tuple[float, float]:
        return self.centre

    # --- Star piles -----------------------------------------------------------------

    def pile_area(self, seat: int) -> pygame.Rect:
        """Where a seat's Star pile lies, with its label: under the box of a seat at the side,
        right of the box of a seat at the top, above the user's plate. Stars has four
        players, so this is laid out for four."""
        sw, sh = self.small_card_size
        height = sh + 18
        if self.relative(seat) == 0:
            plate = self.my_plate
            return pygame.Rect(plate.x, plate.y - GAP - height, self.box_size[0], height)
        box = self.seat_box(seat)
        if box.right <= self.trick_area.x or box.x >= self.trick_area.right:
            return pygame.Rect(box.x, box.bottom + GAP, box.w, height)  # a side column's
        top = max(box.y, self.corner_right.bottom + GAP)
        return pygame.Rect(box.right + GAP, top, box.w, height)  # the top row's

    def pile_slot(self, seat: int) -> tuple[float, float]:
        """The middle of the cards of a seat's Star pile."""
        area = self.pile_area(seat)
        return area.centerx, area.y + self.small_card_size[1] / 2

    # --- the hand -------------------------------------------------------------------

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

    # --- for the tests --------------------------------------------------------------

    def regions(self, piles: bool = False) -> dict[str, pygame.Rect]:
        """Everything that is drawn at the same time during the play of a trick, by name: no
        two may overlap."""
        found = {"panel": self.panel, "hand": self.hand_area, "prompt": self.prompt_area,
                 "corner": self.corner, "corner right": self.corner_right}
        for seat in range(self.players):
            name = f"seat {self.relative(seat)}"
            found[name] = self.seat_box(seat)
            found[f"trick {self.relative(seat)}"] = self.trick_rect(seat)
            if piles:
                found[f"pile {self.relative(seat)}"] = self.pile_area(seat)
        return found
