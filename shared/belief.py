"""What a searching bot believes about the hidden cards, kept between its moves.

A strong bot works out where the unseen cards may be by folding the events its seat was shown
(``Observation.seen``). Folding them all again at every move costs a move more the longer the
game; ``KeptFold`` keeps the fold and hands it, at the next move, only the events since. The
fold is the same as a fresh one over all the events: it is started again whenever the events
it is given do not continue the ones it folded (another seat, another table, a history that
differs), so a bot that keeps one answers exactly as a fresh bot would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, Protocol, TypeVar

from starhall.shared.engine import Event, Seat


class Fold(Protocol):
    def follow(self, event: Event) -> None:
        """Take in the next event the seat was shown."""


F = TypeVar("F", bound=Fold)


class KeptFold(Generic[F]):
    """A fold of one seat's events, kept from move to move."""

    __slots__ = ("fold", "seat", "count", "first", "last")

    def __init__(self) -> None:
        self.fold: F | None = None
        self.seat: Seat | None = None
        self.count = 0
        """Events folded."""
        self.first: Event | None = None
        self.last: Event | None = None

    def update(self, seat: Seat, seen: Sequence[Event], start: Callable[[], F]) -> F:
        """The fold of every event in ``seen`` (``seat``'s, oldest first): the kept one given
        the events after those it holds, or ``start()`` given them all."""
        fold, count = self.fold, self.count
        if (fold is None or seat != self.seat or len(seen) < count
                or (count and (seen[0] != self.first or seen[count - 1] != self.last))):
            fold, count = start(), 0
            self.fold, self.seat = fold, seat
        for event in seen[count:]:
            fold.follow(event)
        self.count = len(seen)
        if seen:
            self.first, self.last = seen[0], seen[-1]
        return fold


def fold_of(seat: Seat, seen: Sequence[Event], start: Callable[[], F],
            kept: KeptFold[F] | None = None) -> F:
    """The fold of every event in ``seen``: ``kept``'s, given only the events since its last
    (``KeptFold.update``), or, without one, a fresh ``start()`` given them all."""
    if kept is not None:
        return kept.update(seat, seen, start)
    fold = start()
    for event in seen:
        fold.follow(event)
    return fold
