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


def wrap(message: str, size: int, width: int) -> list[str]:
    """``message`` in lines no wider than ``width`` pixels at ``size``, broken between words;
    a newline starts a new line, and a word longer than a line is cut with an ellipsis, so
    text is wrapped rather than squeezed and never runs out of its box."""
    return list(_wrapped(message, size, width))


@lru_cache(maxsize=4096)
def _wrapped(message: str, size: int, width: int) -> tuple[str, ...]:
    """Cached: a table's log and panels wrap the same lines every frame, and measuring a
    line's width was a tenth of a frame's time."""
    measure = font(size).size
    lines: list[str] = []
    for paragraph in message.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if measure(candidate)[0] <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
            while measure(line)[0] > width and len(line) > 1:
                line = line[:-2] + "…"
        lines.append(line)  # an empty paragraph keeps its blank line
    return tuple(lines) if message.strip() else ()
