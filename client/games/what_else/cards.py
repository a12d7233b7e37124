"""The cards of "A card game – what else?" drawn procedurally: a clear number, and each star
in its colour *and* its own shape and letter, so the five colours are told apart without
seeing colour (red a five-pointed star "R", yellow six points "Y", green four points "G",
blue eight points "B", violet a round seal "V"). A star joker shows all five.

What a code shows (its number and colours) comes from the engine's ``card_face``: shared
data, not a rule worked out here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pygame

from starhall.client.ui import fonts, symbols, theme
from starhall.client.ui.cardart import SUPERSAMPLE, CardArt, _ready, _rounded_card
from starhall.shared.games.what_else.rules import card_face, card_name

Point = tuple[float, float]
TOKEN = "token"
"""The code of a star token drawn as a sprite (see ``client.games.what_else.choreography``)."""
WHITE = (255, 255, 255)
OUTLINE = (40, 36, 48)


@dataclass(frozen=True, slots=True)
class StarStyle:
    key: str
    letter: str
    colour: theme.Colour
    points: int
    """Points of the star; 0 for the round seal."""
    inner: float
    """Inner radius over outer: how deep the points are cut."""
    letter_colour: theme.Colour


STYLES: dict[str, StarStyle] = {
    "r": StarStyle("r", "R", (213, 60, 40), 5, 0.46, WHITE),
    "y": StarStyle("y", "Y", (240, 190, 20), 6, 0.58, OUTLINE),
    "g": StarStyle("g", "G", (0, 150, 95), 4, 0.42, WHITE),
    "b": StarStyle("b", "B", (30, 105, 205), 8, 0.66, WHITE),
    "v": StarStyle("v", "V", (150, 75, 185), 0, 0.86, WHITE),
}
ORDER = "rygbv"


def face_of(code: str) -> tuple[int | None, str]:
    """(number or ``None`` for a joker, the colour letters the card shows); a code the game
    does not know shows nothing rather than breaking the frame."""
    try:
        return card_face(code)
    except ValueError:
        return 0, ""


def card_words(code: str | None) -> str:
    """A card in a sentence: ``"14 red"``, ``"2"``, ``"the star joker"``."""
    if not code:
        return ""
    try:
        name = card_name(code)
    except ValueError:
        return str(code)
    return "the star joker" if name == "star joker" else name


def star_outline(style: StarStyle, cx: float, cy: float, radius: float) -> list[Point]:
    """The star's silhouette: ``points`` points, or a seal of 14 shallow ones."""
    points = style.points or 14
    inner = radius * style.inner
    result = []
    for i in range(points * 2):
        r = radius if i % 2 == 0 else inner
        angle = -math.pi / 2 + i * math.pi / points
        result.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return result


def draw_star(surface: pygame.Surface, key: str, centre: Point, radius: float,
              letter: bool = True) -> None:
    """One star of colour ``key`` (a letter of ``ORDER``) centred on ``centre``: its own
    shape, a dark rim for white card stock, and its letter when there is room."""
    style = STYLES.get(key)
    if style is None or radius < 1:
        return
    cx, cy = centre
    rim = max(1.0, radius * 0.12)
    pygame.draw.polygon(surface, OUTLINE, star_outline(style, cx, cy, radius + rim))
    pygame.draw.polygon(surface, style.colour, star_outline(style, cx, cy, radius))
    if style.points == 0:  # the seal: a ring inside marks it round
        pygame.draw.circle(surface, OUTLINE, (cx, cy), radius * 0.74, max(1, round(rim * 0.6)))
    if letter and radius >= 6:
        size = max(6, round(radius * (0.95 if style.points in (0, 6, 8) else 0.8)))
        image = fonts.font(size).render(style.letter, True, style.letter_colour)
        surface.blit(image, image.get_rect(center=(round(cx), round(cy + radius * 0.04))))


def symbol_name(key: str) -> str:
    """The name a colour's star is known by in ``client.ui.symbols`` (the settings' colour check
    draws its swatches with it)."""
    return f"what_else_star_{key}"


def _symbol(style: StarStyle) -> Callable[[Any], None]:
    """The star of ``style`` as a ``client.ui.symbols`` shape: drawn in whatever colour the
    colour check gives (its colour as some eyes see it), with the card's dark rim."""

    def draw(pen: Any) -> None:
        rim = 0.05
        pen.polygon(star_outline(style, 0.5, 0.5, 0.47), OUTLINE)
        pen.polygon(star_outline(style, 0.5, 0.5, 0.47 - rim))
        if style.points == 0:  # the seal: a ring inside marks it round
            pygame.draw.circle(pen.surface, OUTLINE, pen.p(0.5, 0.5),
                               0.3 * pen.rect.w, max(1, round(0.03 * pen.rect.w)))

    return draw


for _style in STYLES.values():  # the colour check's swatches: each colour's own star
    symbols.SHAPES.setdefault(symbol_name(_style.key), _symbol(_style))


def draw_token(surface: pygame.Surface, centre: Point, radius: float, filled: bool = True
               ) -> None:
    """A star token: a gold disc with a star, or an empty ring for a token still to win."""
    cx, cy = centre
    if not filled:
        pygame.draw.circle(surface, theme.PANEL_EDGE, (cx, cy), radius, max(1, round(radius / 6)))
        return
    pygame.draw.circle(surface, (120, 80, 0), (cx, cy), radius)
    pygame.draw.circle(surface, theme.GOLD, (cx, cy), radius * 0.88)
    points = []
    for i in range(10):
        r = radius * (0.7 if i % 2 == 0 else 0.3)
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    pygame.draw.polygon(surface, (255, 250, 220), points)


def _corner(code: str, w: int, h: int) -> pygame.Surface:
    """The corner index: the number (``J`` for a joker) over a small star of its colour, to
    read on the strip of a card a fanned pile leaves in view (a joker's strip also shows its
    band of all five colours)."""
    number, colours = face_of(code)
    label = "J" if number is None else str(number)
    width = int(w * 0.3)
    text = fonts.font(int(w * 0.24)).render(label, True, theme.INK)
    if text.get_width() > width:
        text = pygame.transform.smoothscale_by(text, width / text.get_width())
    pip = int(w * 0.1)
    index = pygame.Surface((width, text.get_height() + 2 * pip + 4), pygame.SRCALPHA)
    index.blit(text, text.get_rect(midtop=(width // 2, 0)))
    if number is not None and colours:
        draw_star(index, colours[0], (width / 2, text.get_height() + pip + 1), pip,
                  letter=False)
    return index


def render_face(code: str, width: int, height: int) -> pygame.Surface:
    s = SUPERSAMPLE
    w, h = width * s, height * s
    number, colours = face_of(code)
    surface = _rounded_card((w, h), theme.PAPER, theme.CARD_EDGE, s)
    # A band in the star's colour just inside the edge (all five round a joker's).
    band = max(2, int(w * 0.035))
    inner = surface.get_rect().inflate(-3 * s, -3 * s)
    if colours:
        keys = colours if number is not None else ORDER
        radius = max(1, w // 14)
        if len(keys) == 1:
            pygame.draw.rect(surface, STYLES[keys[0]].colour, inner, band, border_radius=radius)
        else:
            step = inner.h / len(keys)
            clip = surface.get_clip()
            for i, key in enumerate(keys):
                surface.set_clip(pygame.Rect(inner.x, round(inner.y + i * step), inner.w,
                                             math.ceil(step) + 1))
                pygame.draw.rect(surface, STYLES[key].colour, inner, band, border_radius=radius)
            surface.set_clip(clip)
    # The index in the top-left corner only: what a fanned pile leaves in view. The middle
    # holds the number large, and the stars below it.
    index = _corner(code, w, h)
    margin = int(w * 0.07)
    surface.blit(index, (margin, margin))
    cx = w / 2
    if number is None:
        _joker_middle(surface, w, h)
    elif colours:
        big = fonts.font(int(w * 0.36)).render(str(number), True, theme.INK)
        surface.blit(big, big.get_rect(center=(round(cx + w * 0.04), round(h * 0.43))))
        size = w * 0.2
        for i, key in enumerate(colours):
            offset = (i - (len(colours) - 1) / 2) * size * 1.6
            draw_star(surface, key, (cx + offset, h * 0.75), size)
    else:
        big = fonts.font(int(w * 0.46)).render(str(number), True, theme.INK)
        surface.blit(big, big.get_rect(center=(round(cx + w * 0.03), round(h * 0.56))))
    return pygame.transform.smoothscale(surface, (width, height))


def _joker_middle(surface: pygame.Surface, w: int, h: int) -> None:
    title = fonts.font(int(w * 0.13)).render("JOKER", True, theme.INK)
    surface.blit(title, title.get_rect(center=(round(w / 2), round(h * 0.87))))
    cx, cy = w / 2, h * 0.5
    ring = w * 0.25
    radius = w * 0.115
    for i, key in enumerate(ORDER):
        angle = -math.pi / 2 + i * 2 * math.pi / 5
        draw_star(surface, key, (cx + ring * math.cos(angle), cy + ring * math.sin(angle)),
                  radius)


class WhatElseArt(CardArt):
    """``CardArt`` with this game's faces (the backs are every game's), so the shared
    ``draw_flights`` draws its cards in flight."""

    def face(self, code: str, width: int, height: int) -> pygame.Surface:
        key = (code, width, height)
        surface = self._faces.get(key)
        if surface is None:
            render = render_token if code == TOKEN else render_face
            surface = self._faces[key] = _ready(render(code, width, height))
        return surface


def render_token(code: str, width: int, height: int) -> pygame.Surface:
    """A star token, as a sprite in flight: the square in the middle of the card's size."""
    side = max(4, min(width, height))
    s = SUPERSAMPLE
    surface = pygame.Surface((side * s, side * s), pygame.SRCALPHA)
    draw_token(surface, (side * s / 2, side * s / 2), side * s / 2 - 1)
    return pygame.transform.smoothscale(surface, (side, side))
