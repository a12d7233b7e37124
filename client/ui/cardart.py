"""Card faces and backs rendered once per size and kept: drawing a card is then one blit.

Faces are drawn at ``SUPERSAMPLE`` times their size and smooth-scaled down, which gives
anti-aliased edges to shapes ``pygame.draw`` fills without anti-aliasing.
"""

from __future__ import annotations

import pygame

from starhall.client.ui import fonts, theme
from starhall.client.ui.faces import Face, face
from starhall.client.ui.symbols import draw_symbol

SUPERSAMPLE = 3

# Where the pips of a number card sit, in the middle area's unit square.
_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1),
        (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _rounded_card(size: tuple[int, int], fill: theme.Colour, edge: theme.Colour,
                  scale: int) -> pygame.Surface:
    surface = pygame.Surface(size, pygame.SRCALPHA)
    rect = surface.get_rect()
    radius = max(2, rect.w // 12)
    pygame.draw.rect(surface, edge, rect, border_radius=radius)
    pygame.draw.rect(surface, fill, rect.inflate(-2 * scale, -2 * scale),
                     border_radius=max(1, radius - scale))
    return surface


def render_face(card: Face, width: int, height: int) -> pygame.Surface:
    s = SUPERSAMPLE
    w, h = width * s, height * s
    surface = _rounded_card((w, h), theme.PAPER, theme.CARD_EDGE, s)
    style = card.suit
    # Corner index: big enough to read on the sliver of a card a fanned hand shows; repeated
    # upside down in the opposite corner.
    index = _corner_index(card, w, h)
    margin = int(w * 0.04)
    surface.blit(index, (margin, margin))
    surface.blit(pygame.transform.rotate(index, 180),
                 (w - margin - index.get_width(), h - margin - index.get_height()))
    middle = pygame.Rect(int(w * 0.39), int(h * 0.17), int(w * 0.22), int(h * 0.66))
    if card.is_joker:
        big = pygame.Rect(0, 0, int(w * 0.6), int(w * 0.6))
        big.center = (w // 2, h // 2)
        draw_symbol(surface, style.shape, big, style.colour)
    elif card.pips:
        _draw_pips(surface, card, middle, w)
    else:
        _draw_court(surface, card, w, h)
    return pygame.transform.smoothscale(surface, (width, height))


def _corner_index(card: Face, w: int, h: int) -> pygame.Surface:
    style = card.suit
    width = int(w * 0.26)
    label = fonts.font(int(w * 0.28)).render(card.rank, True, style.text_colour)
    if label.get_width() > width:
        label = pygame.transform.smoothscale_by(label, width / label.get_width())
    pip = int(w * 0.19)
    index = pygame.Surface((width, label.get_height() + pip + h // 100), pygame.SRCALPHA)
    index.blit(label, label.get_rect(midtop=(width // 2, 0)))
    draw_symbol(index, style.shape, pygame.Rect((width - pip) // 2, index.get_height() - pip,
                                                pip, pip), style.colour)
    return index


def _draw_pips(surface: pygame.Surface, card: Face, middle: pygame.Rect, w: int) -> None:
    style = card.suit
    size = int(w * (0.42 if card.pips == 1 else 0.17))
    for x, y in _PIPS.get(card.pips, [(0.5, 0.5)]):
        rect = pygame.Rect(0, 0, size, size)
        rect.center = (middle.x + x * middle.w, middle.y + y * middle.h)
        draw_symbol(surface, style.shape, rect, style.colour, upside_down=y > 0.55)


def _draw_court(surface: pygame.Surface, card: Face, w: int, h: int) -> None:
    style = card.suit
    frame = pygame.Rect(int(w * 0.32), int(h * 0.12), int(w * 0.36), int(h * 0.76))
    tint = tuple(int(255 - (255 - c) * 0.16) for c in style.colour)
    pygame.draw.rect(surface, tint, frame, border_radius=int(w * 0.04))
    pygame.draw.rect(surface, style.colour, frame, max(2, w // 60), border_radius=int(w * 0.04))
    letter = fonts.font(int(w * 0.30)).render(card.rank, True, style.text_colour)
    surface.blit(letter, letter.get_rect(center=(frame.centerx, frame.y + frame.h * 0.32)))
    symbol = pygame.Rect(0, 0, int(w * 0.26), int(w * 0.26))
    symbol.center = (frame.centerx, int(frame.y + frame.h * 0.70))
    draw_symbol(surface, style.shape, symbol, style.colour)


def lattice_back(w: int, h: int, s: int) -> tuple[pygame.Surface, pygame.Rect]:
    """The table's card back at ``w`` x ``h`` (supersampled ``s`` times): paper with a navy
    panel crossed by a lattice, sized by the card's shorter side so that an upright card and
    a lying one (Stars and Bars) have the same back; and the panel, for a game's emblem."""
    side = min(w, h)
    card = _rounded_card((w, h), theme.PAPER, theme.CARD_EDGE, s)
    inner = card.get_rect().inflate(-int(side * 0.12), -int(side * 0.12))
    pygame.draw.rect(card, theme.BACK, inner, border_radius=max(1, side // 16))
    step = max(4, side // 6)
    clip = card.get_clip()
    card.set_clip(inner)
    for offset in range(-h, w + h, step):
        pygame.draw.line(card, theme.BACK_PATTERN, (inner.x + offset, inner.y),
                         (inner.x + offset + h, inner.y + h), max(1, s))
        pygame.draw.line(card, theme.BACK_PATTERN, (inner.x + offset, inner.y),
                         (inner.x + offset - h, inner.y + h), max(1, s))
    card.set_clip(clip)
    return card, inner


def render_back(width: int, height: int) -> pygame.Surface:
    s = SUPERSAMPLE
    w, h = width * s, height * s
    surface, inner = lattice_back(w, h, s)
    star = pygame.Rect(0, 0, int(w * 0.5), int(w * 0.5))
    star.center = inner.center
    pygame.draw.circle(surface, theme.BACK, star.center, star.w * 0.6)
    draw_symbol(surface, "star", star, theme.GOLD)
    return pygame.transform.smoothscale(surface, (width, height))


def _ready(surface: pygame.Surface) -> pygame.Surface:
    """In the display's pixel format when there is a display: blits are then fastest."""
    return surface.convert_alpha() if pygame.display.get_surface() is not None else surface


class CardArt:
    """Rendered cards by size; one per window, emptied when the window is resized."""

    def __init__(self) -> None:
        self._faces: dict[tuple[str, int, int], pygame.Surface] = {}
        self._backs: dict[tuple[int, int], pygame.Surface] = {}
        self._shades: dict[tuple[int, int, int], pygame.Surface] = {}

    def face(self, code: str, width: int, height: int) -> pygame.Surface:
        key = (code, width, height)
        surface = self._faces.get(key)
        if surface is None:
            surface = self._faces[key] = _ready(self.render_face(code, width, height))
        return surface

    def back(self, width: int, height: int) -> pygame.Surface:
        key = (width, height)
        surface = self._backs.get(key)
        if surface is None:
            surface = self._backs[key] = _ready(self.render_back(width, height))
        return surface

    # A game whose cards look otherwise draws them here; the caching above stays.

    def render_face(self, code: str, width: int, height: int) -> pygame.Surface:
        return render_face(face(code), width, height)

    def render_back(self, width: int, height: int) -> pygame.Surface:
        return render_back(width, height)

    def shade(self, width: int, height: int, alpha: int = 110) -> pygame.Surface:
        """A translucent dark card shape, laid over cards that may not be played now."""
        key = (width, height, alpha)
        surface = self._shades.get(key)
        if surface is None:
            surface = pygame.Surface((width, height), pygame.SRCALPHA)
            pygame.draw.rect(surface, (0, 0, 0, alpha), surface.get_rect(),
                             border_radius=max(2, width // 12))
            self._shades[key] = surface
        return surface
