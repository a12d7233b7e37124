"""What each card code shows, for the browser to draw it as the window does: the window's own
card data (``client.ui.faces``, each game's ``cards``), never a copy of it.

Only the codes a message already holds are described, so a description never tells the
browser of a card it was not shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from starhall.client.games.stars_and_bars import cards as bars_cards
from starhall.client.games.what_else import cards as what_else_cards
from starhall.client.ui import faces, theme
from starhall.shared.games.hearts.rules import CLASSIC, STARDECK
from starhall.shared.games.star_patience.rules import DECK as PATIENCE_DECK
from starhall.shared.games.stars.rules import DECK as STARS_DECK
from starhall.shared.games.stars_and_bars import rules as stars_and_bars
from starhall.shared.games.what_else import rules as what_else

Face = dict[str, Any]
_DECKS = {"hearts": (STARDECK, CLASSIC), "stars": (STARS_DECK,),
          "star_patience": (PATIENCE_DECK,)}


def colour(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


@cache
def face(game: str, code: str) -> Face | None:
    """The face of ``code`` in ``game``, or ``None`` when it is no card of that game."""
    if game in _DECKS:
        if not any(code in deck.by_code for deck in _DECKS[game]):
            return None
        card = faces.face(code)
        return {"kind": "suited", "rank": card.rank, "shape": card.suit.shape,
                "colour": colour(card.suit.colour), "ink": colour(card.suit.text_colour),
                "pips": card.pips, "joker": card.is_joker, "name": faces.card_name(code)}
    if game == "what_else":
        try:
            number, letters = what_else.card_face(code)
        except ValueError:
            return None
        stars = [{"letter": style.letter, "colour": colour(style.colour), "points": style.points,
                  "inner": style.inner, "ink": colour(style.letter_colour)}
                 for style in (what_else_cards.STYLES[letter] for letter in letters)]
        return {"kind": "what_else", "number": number, "stars": stars,
                "name": what_else_cards.card_words(code)}
    if game == "stars_and_bars":
        parts = bars_cards.parse(code)
        if parts is None:
            return None
        shape, ink, size, fill = parts
        names = stars_and_bars.ATTRIBUTE_VALUES
        return {"kind": "bars", "shape": names["shape"][shape], "size": names["size"][size],
                "fill": names["fill"][fill], "colour": colour(bars_cards.INK_OF[ink]),
                "texture": colour(bars_cards.TEXTURE_OF[ink]),
                "letter": ink, "letter_colour": colour(bars_cards.LETTER_OF[ink]),
                "name": stars_and_bars.card_name(code)}
    return None


def strings(value: Any) -> Iterator[str]:
    """Every string in a message, view or event (map keys left out: they are field names)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def faces_in(game: str, values: Iterable[Any]) -> dict[str, Face]:
    """The face of every card code that ``values`` hold."""
    found: dict[str, Face] = {}
    for value in values:
        for text in strings(value):
            if text not in found and len(text) <= 4:
                shown = face(game, text)
                if shown is not None:
                    found[text] = shown
    return found


def seat_colours() -> list[str]:
    """The seats' colours, as the window marks them."""
    return [colour(rgb) for rgb in theme.SEAT_COLOURS]
