"""Reading a snapshot back into a state (``Game.restore``), one field at a time.

A snapshot comes from a log: plain data that may have been damaged or written by someone
else. ``SnapshotReader`` reads each field as the type a state needs and says, in one line,
which field is wrong and why; ``restore_with`` runs an engine's reading and then checks that
the state it made gives exactly that snapshot again, so a snapshot whose fields disagree with
each other (a hand that is not what the tricks left, say) is refused too, not resumed from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from starhall.shared.cards import CardSet, Deck, UnknownCard

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)


class SnapshotError(ValueError):
    """A snapshot that is not a state of its game (``Game.restore``); the message is one line
    naming the field at fault."""


class Snapshotting(Protocol[S_contra]):
    """What ``restore_with`` needs of a game (``engine.Game``, which imports this module): its
    id, for the messages, and the snapshot a state gives."""

    @property
    def id(self) -> str: ...

    def snapshot(self, state: S_contra) -> dict[str, Any]: ...

ENTRY = ""
"""The one field of a reader of a list's entry (``SnapshotReader.entries``)."""


class SnapshotReader:
    """The fields of one snapshot map (or of a map inside it), read as typed values."""

    def __init__(self, game_id: str, data: Mapping[str, Any], where: str = "") -> None:
        self.game_id = game_id
        self.data = data
        self.where = where

    def error(self, key: str, problem: str) -> SnapshotError:
        return SnapshotError(f"{self.game_id} snapshot: {self.where}{key} {problem}")

    def value(self, key: str) -> Any:
        try:
            return self.data[key]
        except KeyError:
            raise self.error(key, "is missing") from None

    def integer(self, key: str) -> int:
        value = self.value(key)
        if type(value) is not int:
            raise self.error(key, f"must be a whole number, not {value!r}")
        return value

    def optional_integer(self, key: str) -> int | None:
        return None if self.value(key) is None else self.integer(key)

    def flag(self, key: str) -> bool:
        value = self.value(key)
        if type(value) is not bool:
            raise self.error(key, f"must be true or false, not {value!r}")
        return value

    def text(self, key: str, choices: tuple[str, ...] | None = None) -> str:
        value = self.value(key)
        if type(value) is not str:
            raise self.error(key, f"must be a string, not {value!r}")
        if choices is not None and value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if self.value(key) is None else self.text(key)

    def items(self, key: str, length: int | None = None) -> list[Any]:
        value = self.value(key)
        if not isinstance(value, list | tuple):
            raise self.error(key, f"must be a list, not {value!r}")
        if length is not None and len(value) != length:
            raise self.error(key, f"must hold {length} entries, not {len(value)}")
        return list(value)

    def integers(self, key: str, length: int | None = None) -> tuple[int, ...]:
        return self._all(key, length, int, "whole numbers")

    def flags(self, key: str, length: int | None = None) -> tuple[bool, ...]:
        return self._all(key, length, bool, "true or false")

    def texts(self, key: str, length: int | None = None) -> tuple[str, ...]:
        return self._all(key, length, str, "strings")

    def _all(self, key: str, length: int | None, kind: type, words: str) -> tuple[Any, ...]:
        """A list whose entries are all exactly of type ``kind`` (``True`` is no number)."""
        values = self.items(key, length)
        if not all(type(value) is kind for value in values):
            raise self.error(key, f"must be a list of {words}, not {values!r}")
        return tuple(values)

    def card_order(self, key: str, deck: Deck) -> tuple[int, ...]:
        """A list of card codes, as card indices in the same order."""
        codes = self.items(key)
        try:
            return tuple(deck.index(code) for code in codes)
        except UnknownCard as error:
            raise self.error(key, f"holds {error}") from None

    def optional_card(self, key: str, deck: Deck, none: int) -> int:
        """A card code or ``None`` (given as ``none``), as a card index."""
        return none if self.value(key) is None else self.card(key, deck)

    def card(self, key: str, deck: Deck) -> int:
        """A card code, as a card index."""
        code = self.value(key)
        try:
            return deck.index(code)
        except UnknownCard as error:
            raise self.error(key, f"holds {error}") from None

    def cards(self, key: str, deck: Deck) -> CardSet:
        """A list of distinct card codes, as a card set."""
        order = self.card_order(key, deck)
        cards = 0
        for index in order:
            cards |= 1 << index
        if cards.bit_count() != len(order):
            raise self.error(key, "names a card twice")
        return cards

    def card_sets(self, key: str, deck: Deck, length: int | None = None
                  ) -> tuple[CardSet, ...]:
        """A list of lists of card codes (one per seat, say), as card sets."""
        return tuple(entry.cards(ENTRY, deck) for entry in self.entries(key, length))

    def plays(self, key: str, deck: Deck, players: int) -> tuple[tuple[int, int], ...]:
        """A list of ``[seat, code]`` plays, as ``(seat, card index)``."""
        plays = []
        for index, play in enumerate(self.items(key)):
            if (not isinstance(play, list | tuple) or len(play) != 2 or type(play[0]) is not int
                    or not 0 <= play[0] < players):
                raise self.error(f"{key}[{index}]", f"must be [seat, card], not {play!r}")
            try:
                plays.append((play[0], deck.index(play[1])))
            except UnknownCard as error:
                raise self.error(f"{key}[{index}]", f"holds {error}") from None
        return tuple(plays)

    def child(self, key: str) -> SnapshotReader:
        """A map inside this one."""
        value = self.value(key)
        if not isinstance(value, Mapping):
            raise self.error(key, f"must be a map, not {value!r}")
        return SnapshotReader(self.game_id, value, f"{self.where}{key}.")

    def optional_child(self, key: str) -> SnapshotReader | None:
        return None if self.value(key) is None else self.child(key)

    def children(self, key: str, length: int | None = None) -> list[SnapshotReader]:
        """A list of maps."""
        found = []
        for index, value in enumerate(self.items(key, length)):
            if not isinstance(value, Mapping):
                raise self.error(f"{key}[{index}]", f"must be a map, not {value!r}")
            found.append(SnapshotReader(self.game_id, value, f"{self.where}{key}[{index}]."))
        return found

    def entries(self, key: str, length: int | None = None) -> list[SnapshotReader]:
        """Each entry of a list, as a reader of its one field ``ENTRY``: entries are read,
        and their errors named (``hands[2] must be …``), like fields."""
        return [SnapshotReader(self.game_id, {ENTRY: value}, f"{self.where}{key}[{index}]")
                for index, value in enumerate(self.items(key, length))]


def restore_with(game: Snapshotting[S], snapshot: Mapping[str, Any], start: S,
                 read: Callable[[SnapshotReader, S], S]) -> S:
    """The state ``read`` makes of ``snapshot`` from ``start`` (the new state of the table's
    players and options, which gives what snapshots leave out: the rules), checked to give
    ``snapshot`` again; ``SnapshotError`` otherwise."""
    if not isinstance(snapshot, Mapping):
        raise SnapshotError(f"{game.id} snapshot: must be a map, not {type(snapshot).__name__}")
    try:
        state = read(SnapshotReader(game.id, snapshot), start)
        again = game.snapshot(state)
    except SnapshotError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
        raise SnapshotError(f"{game.id} snapshot: not a state of the game ({error!r})") from None
    if again != snapshot:
        differing = [key for key in (*snapshot, *again) if snapshot.get(key) != again.get(key)]
        key = differing[0]
        if key not in snapshot:
            raise SnapshotError(f"{game.id} snapshot: {key} is missing")
        if key not in again:
            raise SnapshotError(f"{game.id} snapshot: {key} is not part of a {game.id} state")
        raise SnapshotError(f"{game.id} snapshot: {key} does not follow from the rest "
                            f"(recorded {_short(snapshot.get(key))}, the state it describes "
                            f"gives {_short(again.get(key))})")
    return state


def _short(value: object, most: int = 80) -> str:
    """A value's repr cut to one readable length (a field may hold a whole hand's tricks)."""
    text = repr(value)
    return text if len(text) <= most else text[:most - 1] + "…"
