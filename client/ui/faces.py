"""What a card code looks like: its rank label and suit style. Pure data, no drawing.

Codes are rank + suit: Stardeck Hearts ``"10H"``, ``"A*"`` (``*`` = Stars), ``"JK"`` the
Joker; Stars ``"Kk"`` (ranks C K Q S L 7..2; suits k Skulls, s Shields, w Wands, l Leaves).
Each suit has its own shape *and* colour, so they are told apart without seeing colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from starhall.client.ui.theme import Colour

JOKER = "JK"


@dataclass(frozen=True, slots=True)
class SuitStyle:
    key: str
    name: str
    shape: str
    """Which drawing in ``client.ui.symbols`` shows it."""
    colour: Colour
    text_colour: Colour
    """Darker where the shape's colour is too light for letters on white."""


SUITS: dict[str, SuitStyle] = {
    # Stardeck (Hearts): the four-colour deck's convention, in the Okabe-Ito palette.
    "C": SuitStyle("C", "Clubs", "club", (0, 140, 100), (0, 120, 86)),
    "D": SuitStyle("D", "Diamonds", "diamond", (0, 100, 178), (0, 100, 178)),
    "H": SuitStyle("H", "Hearts", "heart", (213, 70, 0), (200, 60, 0)),
    "S": SuitStyle("S", "Spades", "spade", (30, 30, 36), (30, 30, 36)),
    "*": SuitStyle("*", "Stars", "star", (236, 170, 0), (150, 100, 0)),
    # Stars (the trick game).
    "k": SuitStyle("k", "Skulls", "skull", (34, 34, 40), (34, 34, 40)),
    "s": SuitStyle("s", "Shields", "shield", (0, 100, 178), (0, 100, 178)),
    "w": SuitStyle("w", "Wands", "wand", (213, 70, 0), (200, 60, 0)),
    "l": SuitStyle("l", "Leaves", "leaf", (0, 140, 100), (0, 120, 86)),
}

JOKER_STYLE = SuitStyle("", "Joker", "joker", (140, 60, 160), (120, 40, 140))

COURT_NAMES = {
    "hearts": {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"},
    "stars": {"C": "Champion", "K": "King", "Q": "Queen", "S": "Scribe", "L": "Lady"},
}


@dataclass(frozen=True, slots=True)
class Face:
    code: str
    rank: str
    """The label in the corner: ``"10"``, ``"Q"``, ``"C"`` …"""
    suit: SuitStyle
    pips: int
    """How many suit symbols the middle shows; 0 for a court card or a Joker."""

    @property
    def is_joker(self) -> bool:
        return self.code == JOKER


@cache
def face(code: str) -> Face:
    if code == JOKER:
        return Face(code, "JK", JOKER_STYLE, 0)
    rank, suit = code[:-1], code[-1:]
    style = SUITS.get(suit) or SuitStyle(suit, suit, "unknown", (90, 90, 90), (90, 90, 90))
    if rank.isdigit():
        return Face(code, rank, style, int(rank))
    if rank == "A":
        return Face(code, rank, style, 1)
    return Face(code, rank, style, 0)


def card_name(code: str) -> str:
    """``"Queen of Spades"``, for messages and tooltips."""
    card = face(code)
    if card.is_joker:
        return "Joker"
    names = COURT_NAMES["stars" if card.suit.key in "kswl" else "hearts"]
    return f"{names.get(card.rank, card.rank)} of {card.suit.name}"
