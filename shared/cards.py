"""Cards, decks and card sets.

A deck fixes an order of its cards; a card's place in that order is its index, and a set of
cards (a hand, a trick pile) is an ``int`` with bit ``index`` set for each card in it, the way
python-chess keeps squares in bitboards. Card sets are therefore immutable, hashable, ordered
the same way on every machine, and cheap to combine. In logs a card is its short ``code``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

CardSet = int
"""A set of cards of one deck: bit ``card.index`` is set for every card in the set."""


class UnknownCard(ValueError):
    """A card code that the deck does not have."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card of a deck. Cards are made once per deck and compared by value."""

    index: int
    code: str
    suit: str
    """Suit id; the empty string for a card of no suit (a Joker)."""
    rank: int
    """Strength within the suit: the higher rank wins."""
    name: str

    @property
    def bit(self) -> CardSet:
        return 1 << self.index

    def __str__(self) -> str:
        return self.code


def bits(cards: CardSet) -> Iterator[int]:
    """The indices of the cards in a set, lowest first."""
    while cards:
        low = cards & -cards
        yield low.bit_length() - 1
        cards ^= low


def lowest(cards: CardSet) -> int:
    """The index of the lowest card in a non-empty set."""
    return (cards & -cards).bit_length() - 1


class Chance(Protocol):
    """Where random numbers come from: a ``random.Random``, or a search's stream that its
    playouts of one world read alike (``search_flat.Replay``)."""

    def random(self) -> float:
        """A number in [0, 1)."""


def random_card(cards: CardSet, rng: Chance) -> int:
    """The index of a card drawn uniformly from a non-empty set (one draw from ``rng``)."""
    for _ in range(int(rng.random() * cards.bit_count())):
        cards &= cards - 1  # drop the lowest card until the chosen one is the lowest
    return (cards & -cards).bit_length() - 1


def random_cards(cards: CardSet, count: int, rng: Chance) -> CardSet:
    """``count`` cards drawn uniformly from ``cards`` without replacement (each subset of that
    size equally likely)."""
    chosen = 0
    for _ in range(count):
        chosen |= 1 << random_card(cards & ~chosen, rng)
    return chosen


class Deck:
    """An ordered collection of distinct cards, with lookups by code and suit."""

    def __init__(self, name: str, cards: Sequence[tuple[str, str, int, str]]) -> None:
        self.name = name
        self.cards: tuple[Card, ...] = tuple(
            Card(index, code, suit, rank, card_name)
            for index, (code, suit, rank, card_name) in enumerate(cards)
        )
        self.by_code: dict[str, Card] = {card.code: card for card in self.cards}
        if len(self.by_code) != len(self.cards):
            raise ValueError(f"deck {name!r} repeats a card code")
        self.suits: tuple[str, ...] = tuple(dict.fromkeys([c.suit for c in self.cards if c.suit]))
        self.suit_mask: dict[str, CardSet] = {suit: 0 for suit in self.suits}
        self.suit_mask[""] = 0
        for card in self.cards:
            self.suit_mask[card.suit] |= card.bit
        self.full: CardSet = (1 << len(self.cards)) - 1
        self.suit_of: tuple[str, ...] = tuple(c.suit for c in self.cards)
        self.suit_cards_of: tuple[CardSet, ...] = tuple(
            self.suit_mask[c.suit] if c.suit else 0 for c in self.cards)
        """Each card's suit, as the cards of that suit (none for a card of no suit): a
        lookup by index, where ``suit_mask[suit_of[card]]`` is two."""
        self.rank_of: tuple[int, ...] = tuple(c.rank for c in self.cards)
        self.code_of: tuple[str, ...] = tuple(c.code for c in self.cards)
        self.index_of: dict[str, int] = {c.code: c.index for c in self.cards}

    def __len__(self) -> int:
        return len(self.cards)

    def card(self, code: str) -> Card:
        try:
            return self.by_code[code]
        except (KeyError, TypeError):
            raise UnknownCard(f"{code!r} is not a card of the {self.name} deck") from None

    def index(self, code: object) -> int:
        try:
            return self.index_of[code]  # type: ignore[index]
        except (KeyError, TypeError):
            raise UnknownCard(f"{code!r} is not a card of the {self.name} deck") from None

    def mask(self, codes: Iterable[str]) -> CardSet:
        mask = 0
        for code in codes:
            mask |= 1 << self.index(code)
        return mask

    def codes(self, cards: CardSet) -> list[str]:
        """The codes of a card set in deck order (a canonical order for logs and views)."""
        code_of = self.code_of
        codes = []
        while cards:  # bits() inlined: views and logs list codes all the time
            low = cards & -cards
            codes.append(code_of[low.bit_length() - 1])
            cards ^= low
        return codes

    def in_set(self, cards: CardSet) -> list[Card]:
        return [self.cards[i] for i in bits(cards)]

