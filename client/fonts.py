"""The bundled font, so every machine shows the same letters."""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path

import pygame

FONT_FILE = "freesansbold.ttf"


def font_path() -> str:
    # Beside this module, in the installed package as in a checkout (package data).
    return str(Path(__file__).with_name("assets") / FONT_FILE)


@cache
def font(size: int) -> pygame.font.Font:
    """The bundled font at ``size`` pixels (cached: loading a font is slow)."""
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(font_path(), max(6, int(size)))


@lru_cache(maxsize=4096)
def text(message: str, size: int, colour: tuple[int, int, int]) -> pygame.Surface:
    """A rendered line of text; cached because the same labels are drawn every frame."""
    return font(size).render(message, True, colour)
