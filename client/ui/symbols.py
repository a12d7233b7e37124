"""Suit symbols drawn with ``pygame.draw``: every suit a different silhouette.

Shapes are described in a unit square and drawn into any rectangle. Callers draw them large
and scale down (``client.ui.cardart`` renders cards at three times their size) for smooth edges,
since ``pygame.draw`` fills polygons without anti-aliasing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pygame

from starhall.client.ui.theme import Colour

Point = tuple[float, float]
WHITE = (255, 255, 255)


class _Pen:
    """Maps unit-square coordinates into a rectangle."""

    def __init__(self, surface: pygame.Surface, rect: pygame.Rect, colour: Colour) -> None:
        self.surface, self.rect, self.colour = surface, rect, colour

    def p(self, x: float, y: float) -> tuple[float, float]:
        return (self.rect.x + x * self.rect.w, self.rect.y + y * self.rect.h)

    def circle(self, x: float, y: float, r: float, colour: Colour | None = None) -> None:
        pygame.draw.circle(self.surface, colour or self.colour, self.p(x, y), r * self.rect.w)

    def polygon(self, points: Sequence[Point], colour: Colour | None = None) -> None:
        pygame.draw.polygon(self.surface, colour or self.colour, [self.p(x, y) for x, y in points])

    def line(self, a: Point, b: Point, width: float, colour: Colour | None = None) -> None:
        pygame.draw.line(self.surface, colour or self.colour, self.p(*a), self.p(*b),
                         max(1, round(width * self.rect.w)))


def _star_points(cx: float, cy: float, outer: float, inner: float, points: int = 5,
                 turn: float = 0.0) -> list[Point]:
    result = []
    for i in range(points * 2):
        radius = outer if i % 2 == 0 else inner
        angle = -math.pi / 2 + turn + i * math.pi / points
        result.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return result


def _heart(pen: _Pen) -> None:
    pen.circle(0.29, 0.33, 0.25)
    pen.circle(0.71, 0.33, 0.25)
    pen.polygon([(0.05, 0.42), (0.5, 0.30), (0.95, 0.42), (0.5, 0.96)])


def _spade(pen: _Pen) -> None:
    pen.circle(0.29, 0.56, 0.23)
    pen.circle(0.71, 0.56, 0.23)
    pen.polygon([(0.07, 0.50), (0.5, 0.03), (0.93, 0.50), (0.5, 0.66)])
    pen.polygon([(0.5, 0.55), (0.30, 0.98), (0.70, 0.98)])


def _club(pen: _Pen) -> None:
    pen.circle(0.5, 0.27, 0.22)
    pen.circle(0.27, 0.58, 0.22)
    pen.circle(0.73, 0.58, 0.22)
    pen.circle(0.5, 0.52, 0.14)
    pen.polygon([(0.5, 0.50), (0.30, 0.98), (0.70, 0.98)])


def _diamond(pen: _Pen) -> None:
    pen.polygon([(0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5)])


def _star(pen: _Pen) -> None:
    # A dark rim keeps the gold star crisp against white card stock.
    pen.polygon(_star_points(0.5, 0.54, 0.54, 0.24), (120, 80, 0))
    pen.polygon(_star_points(0.5, 0.54, 0.44, 0.19))


def _skull(pen: _Pen) -> None:
    pen.circle(0.5, 0.42, 0.40)
    pen.polygon([(0.24, 0.62), (0.76, 0.62), (0.70, 0.96), (0.30, 0.96)])
    pen.circle(0.33, 0.45, 0.12, WHITE)
    pen.circle(0.67, 0.45, 0.12, WHITE)
    pen.polygon([(0.5, 0.58), (0.43, 0.72), (0.57, 0.72)], WHITE)
    for x in (0.38, 0.5, 0.62):
        pen.line((x, 0.82), (x, 0.96), 0.05, WHITE)


def _shield(pen: _Pen) -> None:
    outline = [(0.08, 0.04), (0.5, 0.12), (0.92, 0.04), (0.92, 0.48)]
    outline += [(0.5 + 0.42 * math.cos(a / 10 * math.pi / 2),
                 0.48 + 0.50 * math.sin(a / 10 * math.pi / 2)) for a in range(1, 10)]
    outline += [(0.5, 0.98)]
    outline += [(0.5 - 0.42 * math.cos(a / 10 * math.pi / 2),
                 0.48 + 0.50 * math.sin(a / 10 * math.pi / 2)) for a in range(9, 0, -1)]
    outline += [(0.08, 0.48)]
    pen.polygon(outline)
    pen.polygon([(0.44, 0.24), (0.56, 0.24), (0.56, 0.80), (0.44, 0.80)], WHITE)
    pen.polygon([(0.22, 0.40), (0.78, 0.40), (0.78, 0.52), (0.22, 0.52)], WHITE)


def _wand(pen: _Pen) -> None:
    pen.polygon([(0.12, 0.92), (0.20, 1.0), (0.66, 0.42), (0.58, 0.34)])
    pen.polygon(_star_points(0.70, 0.30, 0.30, 0.09, points=4))
    pen.circle(0.70, 0.30, 0.07, WHITE)


def _leaf(pen: _Pen) -> None:
    # A pointed oval leaning right, with a white midrib and a stem.
    angle = math.radians(-40)
    cos, sin = math.cos(angle), math.sin(angle)
    upper, lower = [], []
    for i in range(25):
        t = i / 24
        x, half = -0.44 + 0.88 * t, 0.22 * math.sin(math.pi * t)  # tapers to a point at both ends
        upper.append((x, -half))
        lower.append((x, half))
    outline = [(0.52 + x * cos - y * sin, 0.45 + x * sin + y * cos)
               for x, y in upper + lower[::-1]]
    pen.polygon(outline)
    tip = (0.52 + 0.44 * cos, 0.45 + 0.44 * sin)
    base = (0.52 - 0.44 * cos, 0.45 - 0.44 * sin)
    pen.line(base, tip, 0.05, WHITE)
    pen.line(base, (base[0] - 0.06, base[1] + 0.12), 0.07)


def _joker(pen: _Pen) -> None:
    pen.polygon(_star_points(0.5, 0.52, 0.50, 0.22, points=8))
    pen.circle(0.5, 0.52, 0.16, WHITE)


def _unknown(pen: _Pen) -> None:
    pen.circle(0.5, 0.5, 0.4)


SHAPES: dict[str, Callable[[_Pen], None]] = {
    "heart": _heart, "spade": _spade, "club": _club, "diamond": _diamond, "star": _star,
    "skull": _skull, "shield": _shield, "wand": _wand, "leaf": _leaf, "joker": _joker,
    "unknown": _unknown,
}


def draw_symbol(surface: pygame.Surface, shape: str, rect: pygame.Rect, colour: Colour,
                upside_down: bool = False) -> None:
    """Draw a suit's symbol filling ``rect``."""
    if not upside_down:
        SHAPES.get(shape, _unknown)(_Pen(surface, rect, colour))
        return
    layer = pygame.Surface(rect.size, pygame.SRCALPHA)
    SHAPES.get(shape, _unknown)(_Pen(layer, layer.get_rect(), colour))
    surface.blit(pygame.transform.rotate(layer, 180), rect)
