"""Stars and Bars cards drawn from their codes: landscape cards with one shape each.

A code has four letters, one per attribute (``"SRLF"``: star, red, large, solid). Every
attribute is seen without colour vision too: the four shapes differ in outline, a large shape
fills most of the card and a small one under half of it, a solid shape is filled and a hollow
one only outlined; and each colour carries its own texture (red diagonal hatching, yellow
dots, blue horizontal lines) and its initial in the card's corners.

``BarsArt`` is a ``CardArt``, so ``draw_flights`` draws these cards in flight; it also draws
``label:`` sprites, the points that rise from a placed card.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pygame

from starhall.client.ui import fonts, symbols, theme
from starhall.client.ui.cardart import SUPERSAMPLE, CardArt, _rounded_card, lattice_back
from starhall.shared.games.stars_and_bars.rules import ATTRIBUTE_VALUES, ATTRIBUTES, card_name

Point = tuple[float, float]

INK_OF: dict[str, theme.Colour] = {"R": (200, 40, 44), "Y": (236, 184, 20), "B": (36, 92, 206)}
"""The colour each colour letter is painted in."""
TEXTURE_OF: dict[str, theme.Colour] = {"R": (120, 10, 16), "Y": (120, 84, 0),
                                       "B": (190, 214, 255)}
"""The texture drawn over that colour: dark on red and yellow, light on blue."""
LETTER_OF: dict[str, theme.Colour] = {"R": (170, 24, 30), "Y": (150, 106, 0), "B": (30, 70, 170)}
"""The corner initial, dark enough to read on card stock (yellow turns ochre)."""
EDGE = (40, 36, 40)

LABEL = "label:"
"""A sprite that is words, not a card: ``"label:+5|2 horizontal + 3 diagonal"``."""


def parse(code: str) -> tuple[str, str, str, str] | None:
    """The four attribute letters of a card code, or ``None`` when it is not a card."""
    if len(code) == 4 and all(letter in ATTRIBUTE_VALUES[name]
                              for name, letter in zip(ATTRIBUTES, code, strict=True)):
        return code[0], code[1], code[2], code[3]
    return None


def card_words(code: str) -> str:
    """``"large solid red star"``: the card as people say it (the engine's words)."""
    return card_name(code) if parse(code) is not None else code


def a_card(code: str) -> str:
    return f"a {card_words(code)}"


# --- shapes ----------------------------------------------------------------------------

def _star(cx: float, cy: float, radius: float) -> list[Point]:
    points = []
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.42
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + 0.08 * radius + r * math.sin(angle)))
    return points


def _triangle(cx: float, cy: float, radius: float) -> list[Point]:
    # Equilateral, its centre (where incircle and centroid meet) at the box's centre.
    return [(cx + radius * math.cos(a), cy + 0.12 * radius + radius * math.sin(a))
            for a in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6)]


def _draw_shape(surface: pygame.Surface, shape: str, centre: Point, radius: float,
                colour: tuple[int, int, int, int], width: int = 0) -> None:
    """One shape filled (``width`` 0) or outlined, centred; ``radius`` sets its size."""
    cx, cy = centre
    if shape == "C":
        pygame.draw.circle(surface, colour, (cx, cy), radius * 0.92, width)
    elif shape == "B":
        rect = pygame.Rect(0, 0, round(radius * 2.7), round(radius * 0.95))
        rect.center = (round(cx), round(cy))
        pygame.draw.rect(surface, colour, rect, width, border_radius=round(radius * 0.22))
    else:
        points: Sequence[Point] = (_star(cx, cy, radius * 1.08) if shape == "S"
                                   else _triangle(cx, cy, radius * 1.12))
        pygame.draw.polygon(surface, colour, points, width)


def _inset(shape: str, radius: float, band: float) -> float:
    """The radius of the inner edge of a hollow shape's band of width ``band``."""
    if shape == "S":
        return max(1.0, radius - band * 2.1)  # a star's narrow points need a wider cut
    if shape == "T":
        return max(1.0, radius - band * 2.0)
    if shape == "B":
        return max(1.0, radius - band * 1.05)
    return max(1.0, radius - band * 1.09)


def _texture(size: tuple[int, int], colour: str, step: int,
             ink_colour: tuple[int, ...] | None = None) -> pygame.Surface:
    """The colour's texture over a whole rectangle (clipped to the shape by its caller), in
    its texture colour unless ``ink_colour`` is given."""
    layer = pygame.Surface(size, pygame.SRCALPHA)
    w, h = size
    ink = (*(ink_colour or TEXTURE_OF[colour]), 255)
    line = max(2, step // 3)
    if colour == "R":  # diagonal hatching
        for offset in range(-h, w + h, step):
            pygame.draw.line(layer, ink, (offset, 0), (offset + h, h), line)
    elif colour == "B":  # horizontal lines
        for y in range(step // 2, h, step):
            pygame.draw.line(layer, ink, (0, y), (w, y), line)
    else:  # dots
        dot = max(2, step // 4)
        for row, y in enumerate(range(step // 2, h, step)):
            shift = step // 2 if row % 2 else 0
            for x in range(step // 2 + shift, w, step):
                pygame.draw.circle(layer, ink, (x, y), dot)
    return layer


def _paint(surface: pygame.Surface, mask: pygame.Surface, colour: str, step: int) -> None:
    """Fills ``mask``'s opaque pixels with ``colour`` and its texture onto ``surface``."""
    paint = pygame.Surface(mask.get_size(), pygame.SRCALPHA)
    paint.fill((*INK_OF[colour], 255))
    paint.blit(_texture(mask.get_size(), colour, step), (0, 0))
    paint.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MULT)
    surface.blit(paint, (0, 0))


def symbol_name(colour: str) -> str:
    """The name a colour's textured swatch is known by in ``client.ui.symbols`` (the settings'
    colour check draws with it)."""
    return f"stars_and_bars_{colour}"


def _symbol(colour: str) -> Callable[[Any], None]:
    """A disc of the colour with its texture, for the colour check: drawn in whatever colour
    the check gives (as some eyes see it), the texture darker or lighter than it as on the
    cards."""
    darker = sum(TEXTURE_OF[colour]) < sum(INK_OF[colour])

    def draw(pen: Any) -> None:
        ink = pen.colour
        texture = tuple(round(c * 0.45) for c in ink) if darker else tuple(
            round(c + (255 - c) * 0.65) for c in ink)
        rect = pen.rect
        layer = pygame.Surface(rect.size, pygame.SRCALPHA)
        mask = pygame.Surface(rect.size, pygame.SRCALPHA)
        pygame.draw.circle(mask, (255, 255, 255, 255), (rect.w / 2, rect.h / 2), rect.w * 0.46)
        layer.fill((*ink, 255))
        layer.blit(_texture(rect.size, colour, max(6, rect.w // 5), texture), (0, 0))
        layer.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MULT)
        pen.surface.blit(layer, rect)
        pygame.draw.circle(pen.surface, EDGE, rect.center, rect.w * 0.46,
                           max(1, rect.w // 30))

    return draw


for _colour in INK_OF:  # the colour check's swatches: each colour with its texture
    symbols.SHAPES.setdefault(symbol_name(_colour), _symbol(_colour))


def render_card(code: str, width: int, height: int) -> pygame.Surface:
    """One face, drawn at ``SUPERSAMPLE`` times the size and scaled down for smooth edges."""
    s = SUPERSAMPLE
    w, h = width * s, height * s
    card = _rounded_card((w, h), theme.PAPER, theme.CARD_EDGE, s)
    parts = parse(code)
    if parts is None:
        label = fonts.font(max(8, h // 3)).render("?", True, theme.INK)
        card.blit(label, label.get_rect(center=(w // 2, h // 2)))
        return pygame.transform.smoothscale(card, (width, height))
    shape, colour, size, fill = parts
    radius = h * (0.36 if size == "L" else 0.17)
    centre = (w / 2, h / 2)
    mask = pygame.Surface((w, h), pygame.SRCALPHA)
    _draw_shape(mask, shape, centre, radius, (255, 255, 255, 255))
    step = max(3 * s, round(h * (0.075 if size == "L" else 0.06)))
    line = max(s, round(h * 0.012))
    if fill == "H":
        band = max(2 * s, radius * 0.2)
        _draw_shape(mask, shape, centre, _inset(shape, radius, band), (0, 0, 0, 0))
        _paint(card, mask, colour, step)
        _draw_shape(card, shape, centre, _inset(shape, radius, band), (*EDGE, 255), line)
    else:
        _paint(card, mask, colour, step)
    _draw_shape(card, shape, centre, radius, (*EDGE, 255), line)
    # The colour's initial in two corners, for anyone who cannot tell the colours apart.
    letter = fonts.font(max(8, round(h * 0.2))).render(colour, True, LETTER_OF[colour])
    margin = round(h * 0.07)
    card.blit(letter, (margin + s, margin - s))
    card.blit(pygame.transform.rotate(letter, 180),
              (w - margin - s - letter.get_width(), h - margin + s - letter.get_height()))
    return pygame.transform.smoothscale(card, (width, height))


def render_back(width: int, height: int) -> pygame.Surface:
    """A face-down card: the table's navy back with a lattice, a star over a bar."""
    s = SUPERSAMPLE
    w, h = width * s, height * s
    card, inner = lattice_back(w, h, s)
    cx, cy = inner.center
    plate = pygame.Rect(0, 0, round(h * 0.95), round(h * 0.5))
    plate.center = (cx, cy)
    pygame.draw.rect(card, theme.BACK, plate, border_radius=plate.h // 2)
    _draw_shape(card, "S", (cx - h * 0.2, cy), h * 0.17, (*theme.GOLD, 255))
    bar = pygame.Rect(0, 0, round(h * 0.28), round(h * 0.1))
    bar.center = (round(cx + h * 0.2), cy)
    pygame.draw.rect(card, theme.GOLD, bar, border_radius=bar.h // 3)
    return pygame.transform.smoothscale(card, (width, height))


def render_label(text: str) -> pygame.Surface:
    """A bubble of words: the first ``|``-separated part large, the rest smaller below."""
    lines = text.split("|")
    images = [fonts.text(lines[0], 30, theme.INK)] + [fonts.text(line, 15, theme.INK)
                                                      for line in lines[1:] if line]
    width = max(image.get_width() for image in images) + 26
    height = sum(image.get_height() for image in images) + 12
    bubble = pygame.Surface((width, height), pygame.SRCALPHA)
    pygame.draw.rect(bubble, (*theme.GOLD, 245), bubble.get_rect(), border_radius=14)
    pygame.draw.rect(bubble, (*theme.INK, 220), bubble.get_rect(), 2, border_radius=14)
    y = 6
    for image in images:
        bubble.blit(image, image.get_rect(midtop=(width // 2, y)))
        y += image.get_height()
    return bubble


class BarsArt(CardArt):
    """Stars and Bars faces, landscape backs and rising labels, each drawn once per size."""

    def face(self, code: str, width: int, height: int) -> pygame.Surface:
        if code.startswith(LABEL):  # words keep their own size whatever the flight's scale
            width = height = 0
        return super().face(code, width, height)

    def render_face(self, code: str, width: int, height: int) -> pygame.Surface:
        if code.startswith(LABEL):
            return render_label(code[len(LABEL):])
        return render_card(code, width, height)

    def render_back(self, width: int, height: int) -> pygame.Surface:
        return render_back(width, height)
