"""What a seat has seen of its table: all a bot is given to choose a move.

A bot is never handed the table's state, only an ``Observation``: the seat's view now, the
legal commands, and every event of the table so far as this seat was shown it (each cut by
``game.event_view``), from which a searching bot works out what it may assume about the
hidden cards (cards played, voids shown, cards passed and received). So what a bot can know
is what a person in the seat could know, by construction rather than by trust.

An observation costs what its bot reads of it. The view and the legal commands are worked
out the first time they are read (a random bot never reads the view; a bot that reads the
view may never list the legal commands), and a choose-k move's commands are made one by one
as they are read (``shared/choices.py``). The events shown are the seat's memory itself,
shared: ``seen`` is a read-only window on the events kept so far, never a copy, so a long
game's bot moves do not each cost its whole history.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import Any, overload

from starhall.shared.engine import Command, Event, Game, Seat
from starhall.shared.options import Options
from starhall.shared.sequences import ReadOnlySequence


class Observation:
    """One seat's view, legal commands and the events it was shown (``seen``, oldest first,
    events the seat was not shown at all left out), for a bot to read, never to change;
    ``view`` and ``legal`` are worked out on first reading when the observation was made by
    ``observe``. (Not a frozen dataclass: it is made at every bot move, and a frozen one's
    construction costs several times a plain one's.)"""

    __slots__ = ("game", "players", "options", "seat", "seen", "_view", "_legal", "_state")

    game: Game[Any]
    players: int
    options: Options
    seat: Seat
    seen: Sequence[Event]
    """Every event of the table so far, as ``game.event_view`` cut it for this seat (events the
    seat was not shown at all left out), oldest first."""
    _view: dict[str, Any] | None
    _legal: Sequence[Command] | None
    _state: Any
    """The state observed, only until ``view`` and ``legal`` are worked out from it (never
    shown to the bot: what it reads is the seat's view and legal commands)."""

    def __init__(self, game: Game[Any], players: int, options: Options, seat: Seat,
                 view: dict[str, Any] | None, legal: Sequence[Command] | None,
                 seen: Sequence[Event], state: Any = None) -> None:
        """``view`` and ``legal`` as given, or, each given as ``None``, worked out from
        ``state`` the first time it is read."""
        self.game = game
        self.players = players
        self.options = options
        self.seat = seat
        self.seen = seen
        self._view = view
        self._legal = legal
        self._state = state

    @property
    def view(self) -> dict[str, Any]:
        """``game.view(state, seat)`` at the state observed."""
        view = self._view
        if view is None:
            view = self._view = self.game.view(self._state, self.seat)
            if self._legal is not None:
                self._state = None  # both worked out: the state is let go
        return view

    @property
    def legal(self) -> Sequence[Command]:
        """``game.legal_actions(state, seat)`` at the state observed: what the bot may choose
        from (a read-only sequence; a choose-k move's commands are made as they are read)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self.game.legal_actions(self._state, self.seat)
            if self._view is not None:
                self._state = None
        return legal

    def _fields(self) -> tuple[Any, ...]:
        return (self.game, self.players, dict(self.options), self.seat, self.view,
                list(self.legal), list(self.seen))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Observation({self.game.id}, seat {self.seat} of {self.players}, {self.seen!r})"


def observe(game: Game[Any], players: int, options: Options, seat: Seat,
            state: Any, seen: Sequence[Event]) -> Observation:
    """The observation of ``seat`` at ``state``; ``seen`` is what it was shown so far. The
    view and legal commands are worked out only if the bot reads them."""
    return Observation(game, players, options, seat, None, None, seen, state)


class Shown(ReadOnlySequence[Event]):
    """The first ``length`` events of a seat's memory, read-only: the memory only ever grows
    at its end, so this window stays what it was when the observation was made."""

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[Event], length: int) -> None:
        self._events = events
        self._length = length

    def __len__(self) -> int:
        return self._length

    def _at(self, index: int) -> Event:
        return self._events[index]

    def _slice(self, start: int, stop: int, step: int) -> list[Event]:
        return self._events[start:stop:step]

    def __iter__(self) -> Iterator[Event]:
        events = self._events
        for index in range(self._length):
            yield events[index]

    def __repr__(self) -> str:
        return f"Shown({self._length} events)"


class NotKept(Sequence[Event]):
    """``seen`` for a bot that said it never reads it (``shared.bots.reads_history``): its
    table keeps no memory for its seat, and reading this says so."""

    __slots__ = ("seat",)

    def __init__(self, seat: Seat) -> None:
        self.seat = seat

    def _refuse(self) -> ValueError:
        return ValueError(f"the table keeps no memory of what seat {self.seat} was shown: its "
                          "bot says it never reads it (history = False)")

    def __len__(self) -> int:
        raise self._refuse()

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        raise self._refuse()

    def __iter__(self) -> Iterator[Event]:
        raise self._refuse()

    def __repr__(self) -> str:
        return f"NotKept(seat {self.seat})"


@cache
def not_kept(seat: Seat) -> NotKept:
    """The ``NotKept`` of ``seat`` (one for every table: it holds nothing else)."""
    return NotKept(seat)


class SeatMemory:
    """What some seats of one table (a bot's) were shown so far, kept as the events happen: a
    table hands every event to ``add`` with the state before it (``Table.submit`` does, when
    the table has one), so an observation costs one ``event_view`` per kept seat and event,
    never a replay, and seats no bot plays cost nothing."""

    __slots__ = ("game", "players", "options", "seats", "shown", "_kept")

    def __init__(self, game: Game[Any], players: int, options: Options,
                 seats: Iterable[Seat] | None = None) -> None:
        """Keeps ``seats`` (every seat by default)."""
        self.game = game
        self.players = players
        self.options = options
        kept = frozenset(range(players) if seats is None else seats)
        self.seats = kept
        """The seats kept."""
        self.shown: list[list[Event] | None] = [[] if seat in kept else None
                                                 for seat in range(players)]
        """Each seat's events as it was shown them, ``None`` for a seat not kept."""
        self._kept = [(seat, shown) for seat, shown in enumerate(self.shown) if shown is not None]

    def add(self, before: Any, event: Event) -> None:
        """One event, cut for each kept seat by ``event_view`` (``before``: the state it met)."""
        cut = self.game.event_view
        for seat, shown in self._kept:
            seen = cut(before, event, seat)
            if seen is not None:
                shown.append(seen)

    def observe(self, state: Any, seat: Seat) -> Observation:
        """The observation of ``seat`` at ``state``, the state after the last event added;
        ``ValueError`` for a seat not kept."""
        shown = self.shown[seat] if 0 <= seat < self.players else None
        if shown is None:
            raise ValueError(f"the table has not kept what seat {seat} was shown")
        return observe(self.game, self.players, self.options, seat, state,
                       Shown(shown, len(shown)))
