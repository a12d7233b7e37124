"""What every game's table draws alike: the felt under it, and the cards and captions an
animation flies over it."""

from __future__ import annotations

import pygame

from starhall.client.ui import fonts, theme
from starhall.client.ui.animation import Animator
from starhall.client.ui.cardart import CardArt
from starhall.client.ui.layout import Layout
from starhall.client.ui.widgets import blit_text


def draw_flights(surface: pygame.Surface, art: CardArt, card_size: tuple[int, int],
                 animator: Animator) -> None:
    """The cards in flight and the captions of an animation, for every game's table."""
    width, height = card_size
    for sprite in animator.sprites():
        pose = sprite.pose
        w, h = max(8, round(width * pose.scale)), max(11, round(height * pose.scale))
        image = art.back(w, h) if sprite.sprite == "back" else art.face(
            sprite.sprite, w, h)
        rect = image.get_rect(center=(round(pose.x), round(pose.y)))
        if sprite.flash > 0:
            glow = rect.inflate(10 + 14 * sprite.flash, 10 + 14 * sprite.flash)
            pygame.draw.rect(surface, theme.GOLD, glow, 0, border_radius=w // 6)
        if pose.alpha < 0.99:
            # The image is the art's cached one: back to fully opaque afterwards with 255,
            # not None, which would also drop its per-pixel alpha (black rounded corners).
            image.set_alpha(round(255 * max(0.0, pose.alpha)))
            surface.blit(image, rect)
            image.set_alpha(255)
        else:
            surface.blit(image, rect)
    for caption in animator.captions():
        pose = caption.pose
        size = round(22 * pose.scale)
        image = fonts.text(caption.text, size, theme.INK)
        bubble = image.get_rect(center=(round(pose.x), round(pose.y))).inflate(26, 14)
        layer = pygame.Surface(bubble.size, pygame.SRCALPHA)
        pygame.draw.rect(layer, (*theme.GOLD, round(240 * pose.alpha)), layer.get_rect(),
                         border_radius=bubble.h // 2)
        pygame.draw.rect(layer, (*theme.INK, round(200 * pose.alpha)), layer.get_rect(), 2,
                         border_radius=bubble.h // 2)
        surface.blit(layer, bubble)
        blit_text(surface, caption.text, size, theme.INK, "center", (pose.x, pose.y))


class Felt:
    """The table's felt for every game, drawn once per window size."""

    def __init__(self) -> None:
        self._drawn: dict[tuple[int, int, int], pygame.Surface] = {}

    def surface(self, layout: Layout) -> pygame.Surface:
        key = (layout.width, layout.height, layout.table.w)
        felt = self._drawn.get(key)
        if felt is not None:
            return felt
        felt = pygame.Surface((layout.width, layout.height))
        felt.fill(theme.FELT_DARK)
        table = layout.table
        # Concentric ellipses, lighter towards the middle: a lamp over green baize.
        steps = 24
        for i in range(steps):
            t = i / (steps - 1)
            colour = [round(a + (b - a) * t) for a, b in zip(theme.FELT_DARK, theme.FELT_LIGHT,
                                                             strict=True)]
            rect = table.inflate(-table.w * 0.7 * t, -table.h * 0.7 * t).move(0, -table.h * 0.05)
            pygame.draw.ellipse(felt, colour, rect.inflate(table.w * 0.25, table.h * 0.25))
        felt = pygame.transform.smoothscale(pygame.transform.smoothscale(
            felt, (max(1, layout.width // 8), max(1, layout.height // 8))), felt.get_size())
        border = pygame.Rect(table).inflate(-16, -16)
        pygame.draw.rect(felt, theme.FELT_LIGHT, border, 2, border_radius=28)
        self._drawn = {key: felt.convert() if pygame.display.get_surface() else felt}
        return self._drawn[key]
