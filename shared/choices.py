"""Legal commands as read-only sequences that cost what is read of them.

Hearts' pass is 3 cards of 13 (286 commands), its exchange up to 4 of 13, The Star's burial 3
of 13: listing every one up front, for a bot that picks one of them at random, costs far more
than the move. ``Choices`` is that list as a read-only sequence: its length is a binomial
coefficient, the command at an index is built from the index alone, in the order
``itertools.combinations`` gives (so a seed picks the same command it always did).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Any

from starhall.shared.cards import CardSet, bits
from starhall.shared.engine import Command, Seat
from starhall.shared.sequences import ReadOnlySequence


class Choices(ReadOnlySequence[Command]):
    """``first`` (commands listed before the choices, as Hearts' decline of the exchange),
    then ``Command(kind, seat, {"cards": [...]})`` for every way of choosing ``count`` of
    ``codes``, in ``itertools.combinations`` order."""

    __slots__ = ("kind", "seat", "codes", "size", "first", "_choices")

    def __init__(self, kind: str, seat: Seat, codes: Sequence[str], count: int,
                 first: Sequence[Command] = ()) -> None:
        self.kind = kind
        self.seat = seat
        self.codes = tuple(codes)
        self.size = count
        """How many cards each command chooses."""
        self.first = tuple(first)
        self._choices = comb(len(self.codes), count) if count >= 0 else 0

    def __len__(self) -> int:
        return len(self.first) + self._choices

    def _at(self, index: int) -> Command:
        if index < len(self.first):
            return self.first[index]
        return self._command(_unrank(len(self.codes), self.size, index - len(self.first)))

    def __iter__(self) -> Iterator[Command]:
        yield from self.first
        codes = self.codes
        for chosen in combinations(range(len(codes)), self.size):
            yield self._command(chosen)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Choices):
            return (self.kind, self.seat, self.codes, self.size, self.first) == (
                other.kind, other.seat, other.codes, other.size, other.first)
        return super().__eq__(other)

    __hash__ = None  # equal to lists, which do not hash (a class defining __eq__ says it again)

    def __repr__(self) -> str:
        return (f"Choices({self.kind!r}, seat {self.seat}, {self.size} of {len(self.codes)}"
                f"{f', after {len(self.first)}' if self.first else ''}: {len(self)} commands)")

    def _command(self, chosen: Sequence[int]) -> Command:
        codes = self.codes
        cards: list[Any] = [codes[i] for i in chosen]
        return Command(self.kind, self.seat, {"cards": cards})


def _unrank(items: int, count: int, index: int) -> tuple[int, ...]:
    """The ``index``-th way (from 0) of choosing ``count`` of ``range(items)``, in
    ``itertools.combinations`` order (the combinatorial number system)."""
    chosen = []
    candidate = 0
    for slot in range(count):
        left = count - slot - 1
        while True:
            starting_here = comb(items - candidate - 1, left)
            if index < starting_here:
                chosen.append(candidate)
                candidate += 1
                break
            index -= starting_here
            candidate += 1
    return tuple(chosen)


class CardCommands(ReadOnlySequence[Command]):
    """The commands of ``row`` (one per card of the deck, indexed by card: a game's
    ``CardPlays.commands[seat]``) for the cards of ``cards``, lowest card first, as
    ``CardPlays.legal`` lists them: a random pick among them costs what ``random_card``
    does, not a list of every playable card."""

    __slots__ = ("row", "cards")

    def __init__(self, row: Sequence[Command], cards: CardSet) -> None:
        self.row = row
        self.cards = cards

    def __len__(self) -> int:
        return self.cards.bit_count()

    def _slice(self, start: int, stop: int, step: int) -> list[Command]:
        return list(self)[start:stop:step]

    def _at(self, index: int) -> Command:
        cards = self.cards
        for _ in range(index):
            cards &= cards - 1  # drop the lowest card until the one asked for is the lowest
        return self.row[(cards & -cards).bit_length() - 1]

    def __iter__(self) -> Iterator[Command]:
        row = self.row
        for card in bits(self.cards):
            yield row[card]

    def __repr__(self) -> str:
        return f"CardCommands({', '.join(str(command.data) for command in self)})"
