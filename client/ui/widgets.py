"""Small drawing helpers shared by every screen: text, panels, buttons and hit regions.

Screens are drawn immediate-mode: drawing a button also records a ``Hotspot`` so that the
controller can tell what a click or a key meant, from the same rectangles people see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.ui import fonts, theme

if TYPE_CHECKING:
    from starhall.client.net.model import TableModel
    from starhall.client.ui.layout import Layout


@dataclass(frozen=True, slots=True)
class Hotspot:
    rect: pygame.Rect
    action: tuple[Any, ...]
    """What clicking it means, e.g. ``("play", "QS")`` or ``("button", "pass")``."""
    enabled: bool = True


@dataclass(slots=True)
class Hotspots:
    spots: list[Hotspot] = field(default_factory=list)

    def add(self, rect: pygame.Rect, *action: Any, enabled: bool = True) -> None:
        self.spots.append(Hotspot(pygame.Rect(rect), tuple(action), enabled))

    def at(self, point: tuple[int, int]) -> Hotspot | None:
        # Later spots are drawn on top, so they win.
        for spot in reversed(self.spots):
            if spot.rect.collidepoint(point):
                return spot
        return None

    def clear(self) -> None:
        self.spots.clear()


def blit_text(surface: pygame.Surface, message: str, size: int, colour: theme.Colour,
              anchor: str = "topleft", at: tuple[float, float] = (0, 0),
              max_width: int | None = None) -> pygame.Rect:
    """Draw a line of text placed by one of its rectangle's anchors; returns where it went."""
    image = fonts.text(message, size, colour)
    if max_width is not None and image.get_width() > max_width > 0:
        image = pygame.transform.smoothscale_by(image, max_width / image.get_width())
    rect = image.get_rect(**{anchor: (round(at[0]), round(at[1]))})
    surface.blit(image, rect)
    return rect


def panel(surface: pygame.Surface, rect: pygame.Rect, alpha: int = 215,
          colour: theme.Colour = theme.PANEL, radius: int = 12) -> None:
    """A rounded translucent panel with a light edge."""
    layer = pygame.Surface(rect.size, pygame.SRCALPHA)
    pygame.draw.rect(layer, (*colour, alpha), layer.get_rect(), border_radius=radius)
    pygame.draw.rect(layer, (*theme.PANEL_EDGE, 255), layer.get_rect(), 2, border_radius=radius)
    surface.blit(layer, rect)


def fitted(text: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis to ``width`` pixels at ``size`` (never squeezed)."""
    font = fonts.font(size)
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "…")[0] > width:
        text = text[:-1]
    return text.rstrip() + "…"


SHADE_ALPHA = 150
"""How dark the shade under a modal box is: the table stays recognisable, not readable."""


def shade(surface: pygame.Surface, area: pygame.Rect, alpha: int = SHADE_ALPHA) -> None:
    """Darken ``area`` under a modal box, so nothing of the table competes with the box."""
    layer = pygame.Surface(area.size, pygame.SRCALPHA)
    layer.fill((0, 0, 0, alpha))
    surface.blit(layer, area)


def short_path(path: str, size: int, width: int) -> str:
    """``path`` fitting ``width`` pixels at ``size``: whole when it fits, else with its
    middle cut by an ellipsis, keeping as many of its last folders as fit and always the
    file's name ("…/games/2026-11-22/0003.starhall"); a name too long by itself loses its
    own middle. Text is cut rather than shrunk, so it stays readable."""
    measure = fonts.font(size).size
    if measure(path)[0] <= width:
        return path
    separator = "\\" if "\\" in path and "/" not in path else "/"
    parts = [part for part in path.split(separator) if part]
    best = ""
    for keep in range(len(parts) - 1, 0, -1):
        candidate = "…" + separator + separator.join(parts[-keep:])
        if measure(candidate)[0] <= width:
            best = candidate
            break
    if best:
        return best
    name = parts[-1] if parts else path
    head, tail = name[: len(name) // 2], name[len(name) // 2:]
    while head or tail:
        candidate = f"{head}…{tail}"
        if measure(candidate)[0] <= width:
            return candidate
        if len(head) >= len(tail):
            head = head[:-1]
        else:
            tail = tail[1:]
    return "…"


BUTTON_PADDING = 10
"""Room kept clear between a button's label and each of its sides."""
SMALLEST_LABEL = 11


def label_size(label: str, size: int, width: int) -> int:
    """The size a button ``width`` pixels wide draws ``label`` at: ``size``, or smaller (to
    ``SMALLEST_LABEL``) until it fits within the padding; below that it is squeezed."""
    room = width - 2 * BUTTON_PADDING
    while size > SMALLEST_LABEL and fonts.font(size).size(label)[0] > room:
        size -= 1
    return size


def button(surface: pygame.Surface, hotspots: Hotspots, rect: pygame.Rect, label: str,
           *action: Any, enabled: bool = True, hovered: bool = False, size: int = 18) -> None:
    colour = theme.BUTTON_DISABLED if not enabled else (
        theme.BUTTON_HOVER if hovered else theme.BUTTON)
    pygame.draw.rect(surface, colour, rect, border_radius=8)
    pygame.draw.rect(surface, theme.PANEL_EDGE if enabled else theme.BUTTON_DISABLED, rect, 2,
                     border_radius=8)
    blit_text(surface, label, label_size(label, size, rect.w),
              theme.TEXT if enabled else theme.TEXT_DIM, "center", rect.center,
              max_width=rect.w - 2 * BUTTON_PADDING)
    hotspots.add(rect, *action, enabled=enabled)


def row_of_buttons(surface: pygame.Surface, hotspots: Hotspots, centre: tuple[int, int],
                   labels: list[tuple[str, tuple[Any, ...], bool]], hover: tuple[int, int],
                   height: int = 40, size: int = 18) -> pygame.Rect:
    """Buttons side by side, centred on ``centre``; returns the area they cover."""
    widths = [max(90, fonts.font(size).size(label)[0] + 28) for label, _, _ in labels]
    gap = 12
    total = sum(widths) + gap * (len(widths) - 1)
    x = centre[0] - total // 2
    area = pygame.Rect(x, centre[1] - height // 2, total, height)
    for width, (label, action, enabled) in zip(widths, labels, strict=True):
        rect = pygame.Rect(x, area.y, width, height)
        button(surface, hotspots, rect, label, *action, enabled=enabled,
               hovered=rect.collidepoint(hover), size=size)
        x += width + gap
    return area

def draw_connection(surface: pygame.Surface, layout: Layout, model: TableModel) -> None:
    """A red notice at the top of the table while the server cannot be reached."""
    message = {"lost": "Connection lost, re-joining…", "closed": "Disconnected"}.get(
        model.connection, model.connection)
    rect = pygame.Rect(0, 0, 420, 44)
    rect.midtop = (layout.table.centerx, 12)
    pygame.draw.rect(surface, theme.ALERT, rect, border_radius=10)
    blit_text(surface, message, 18, theme.TEXT, "center", rect.center)
