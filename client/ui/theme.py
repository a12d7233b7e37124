"""Colours and proportions shared by every screen, so the look is changed in one place."""

from __future__ import annotations

Colour = tuple[int, int, int]

FELT = (22, 92, 58)
FELT_DARK = (14, 64, 40)
FELT_LIGHT = (34, 118, 76)
INK = (24, 24, 28)
PAPER = (250, 248, 242)
CARD_EDGE = (120, 120, 128)
TEXT = (240, 240, 232)
TEXT_DIM = (180, 200, 186)
GOLD = (242, 196, 64)
HIGHLIGHT = (255, 214, 72)
SELECTED = (80, 170, 255)
ALERT = (228, 84, 64)
PANEL = (10, 40, 26)
PANEL_EDGE = (80, 150, 110)
BUTTON = (40, 120, 84)
BUTTON_HOVER = (56, 150, 104)
BUTTON_DISABLED = (60, 80, 70)
BACK = (38, 58, 120)
BACK_PATTERN = (70, 96, 170)

# One colour per seat for charts and seat labels: the Okabe-Ito palette, safe for colour-blind
# readers; six entries because Hearts seats up to six.
SEAT_COLOURS: tuple[Colour, ...] = (
    (240, 228, 66), (86, 180, 233), (230, 159, 0), (204, 121, 167), (0, 158, 115),
    (213, 94, 0),
)

CARD_RATIO = 1.4
"""Card height over width."""
