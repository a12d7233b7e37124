"""Pieces that the games with tables of their own ("what else?", Stars and Bars) draw
alike: the status pill, the side panel's frame and log, the connection notice, and where an
end box leaves room for the shared game-over panel (``client.screens.table_screen.GameOverPanel``).
"""

from __future__ import annotations

import pygame

from starhall.client.games.base import TableHost
from starhall.client.ui import fonts, theme
from starhall.client.ui.fonts import wrap
from starhall.client.ui.layout import GAME_OVER_PANEL_HEIGHT, Layout
from starhall.client.ui.widgets import blit_text

SEAT_NOTE = ("Every seat's colour is a dot beside its player's name, in the side panel and "
             "on the seat's name plate.")
"""How these tables tell the seats apart besides colour (the settings' colour check)."""


def status_pill(surface: pygame.Surface, message: str, centre: tuple[int, int], room: int,
                fill: theme.Colour = theme.PANEL, alpha: int = 225, size: int = 18) -> None:
    """The line that says what to do (or a refusal, a note): a rounded pill round it, no
    wider than ``room``."""
    if not message:
        return
    image = fonts.text(message, size, theme.TEXT)
    box = image.get_rect(center=centre).inflate(28, 10)
    box.w = min(box.w, room)
    box.centerx = centre[0]
    layer = pygame.Surface(box.size, pygame.SRCALPHA)
    pygame.draw.rect(layer, (*fill, alpha), layer.get_rect(), border_radius=box.h // 2)
    surface.blit(layer, box)
    blit_text(surface, message, size, theme.TEXT, "center", box.center, max_width=box.w - 20)


def side_panel(surface: pygame.Surface, layout: Layout) -> pygame.Rect:
    """The side panel's ground and edge; returns its area."""
    area = layout.panel
    pygame.draw.rect(surface, theme.PANEL, area)
    pygame.draw.line(surface, theme.PANEL_EDGE, area.topleft, area.bottomleft, 2)
    return area


def draw_log(surface: pygame.Surface, log: list[str], x: int, y: int, width: int,
             bottom: int, size: int = 12, pitch: int = 15, indent: int = 8) -> None:
    """The newest entries of the table's log that fit whole between ``y`` and ``bottom``,
    an entry's later lines indented."""
    rows = max(0, (bottom - y) // pitch)
    lines: list[tuple[str, bool]] = []
    for entry in reversed(log):
        wrapped = wrap(entry, size, width - indent)
        if len(lines) + len(wrapped) > rows:
            break
        lines[:0] = [(line, index > 0) for index, line in enumerate(wrapped)]
    for line, continued in lines:
        blit_text(surface, line, size, theme.TEXT_DIM, "topleft",
                  (x + (indent if continued else 0), y), max_width=width)
        y += pitch


def pointed_card(rects: list[pygame.Rect], mouse: tuple[int, int] | None,
                 focus: int | None) -> int | None:
    """Which card of a hand laid out in ``rects`` the user points at: the keyboard's focus,
    else the topmost card under the mouse (``None``: the mouse is not looked at)."""
    if focus is not None and 0 <= focus < len(rects):
        return focus
    if mouse is not None:
        for index in range(len(rects) - 1, -1, -1):
            if rects[index].collidepoint(mouse):
                return index
    return None




def offers_panel(screen: TableHost, offered: bool) -> bool:
    """Whether ``screen`` offers the shared game-over panel now (its owner fills it in once
    the game is over); ``offered`` is what the table knew: a change is drawn at once, the
    end box growing to hold the panel."""
    now = screen.game_over is not None
    if now != offered:
        screen.changed()
    return now


def panel_room(offered: bool) -> int:
    """The height an end box adds at its bottom for the shared game-over panel, when the
    screen offers one."""
    return GAME_OVER_PANEL_HEIGHT if offered else 0


def panel_strip(box: pygame.Rect) -> pygame.Rect:
    """Where the shared game-over panel goes in an end box that made room for it."""
    return pygame.Rect(box.x + 16, box.bottom - GAME_OVER_PANEL_HEIGHT, box.w - 32,
                       GAME_OVER_PANEL_HEIGHT - 12)


def end_box_open(screen: TableHost) -> bool:
    """Whether a game's end box is up: the game over, shown, not closed, nothing over it."""
    return (screen.model.over and not screen.ui.dismissed_game_over and not screen.ui.overlay
            and not screen.animator.busy)
