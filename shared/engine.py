"""The engine contract every game implements.

A game is a set of pure functions over an immutable state:

* ``chance(state)`` says when the game needs a shuffle; the host answers with a ``shuffle``
  command holding the order it produced, so chance is logged and never re-rolled (every
  game checks it with ``shared.shuffle.shuffle_event``, one rule for all);
* ``to_act(state)`` and ``legal_actions(state, seat)`` say who may do what;
* ``decide(state, command)`` validates a command into events or raises ``IllegalCommand``;
* ``evolve(state, event)`` folds one event into the state; everything that follows from the
  rules (who won a trick, the scores) is computed here, so rebuilding from a log re-checks it;
* ``command_for(event)`` names the command that caused a logged event: a reader re-decides it
  and accepts the event only if ``decide`` gives exactly that event again;
* ``view(state, seat)`` cuts the state to what one seat (or a spectator, ``None``) may see,
  ``event_view`` does the same for one event, and ``snapshot(state)`` is everything;
* ``restore(snapshot, players, options)`` is ``snapshot``'s inverse: where a server resumes.

No engine does I/O, reads a clock, uses global random state or depends on hash order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from types import MappingProxyType
from typing import Any, ClassVar, Final, Generic, TypeVar, final

from mypy_extensions import mypyc_attr

from starhall.shared.options import Options, OptionSpec, normalize_options
from starhall.shared.snapshots import SnapshotError as SnapshotError  # Game.restore raises it
from starhall.shared.snapshots import SnapshotReader, restore_with

Seat = int
Viewer = int | None
"""A seat number, or ``None`` for a spectator who sees only what is public."""

Data = Mapping[str, Any]
_EMPTY: Data = MappingProxyType({})


class Move:
    """What commands and events share: a ``type``, the seat it is by (``None``: the host, or no
    seat) and ``data``. Immutable (``Final`` fields), and equal when of the same class with
    equal fields.

    A plain class rather than a named tuple: mypyc compiles it to a C struct, so making one
    (replaying a log makes one per record, re-checking it one command more) is one
    allocation, where a named tuple's ``__new__`` runs as interpreted Python."""

    __slots__ = ("type", "seat", "data")

    def __init__(self, type: str, seat: Seat | None, data: Data = _EMPTY) -> None:
        self.type: Final = type
        self.seat: Final = seat
        self.data: Final = data

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Move) and type(other) is type(self) and self.type == other.type
                and self.seat == other.seat and self.data == other.data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(type={self.type!r}, seat={self.seat!r}, data={self.data!r})"


@final
class Command(Move):
    """What a seat (or, for ``shuffle``, the host) asks the game to do."""

    __slots__ = ()


@final
class Event(Move):
    """A fact the log records. ``data`` holds only msgpack-able values (cards as codes)."""

    __slots__ = ()


class IllegalCommand(Exception):
    """A command the game refuses. ``code`` is stable for programs, ``reason`` is for people."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


class OptionError(ValueError):
    """Table options or a player count that a game does not accept."""


@dataclass(frozen=True, slots=True)
class ChanceRequest:
    """The game waits for the host to shuffle ``items`` (card codes) into an order."""

    items: tuple[str, ...]
    purpose: str = "deal"
    deals: int | None = None
    """When set, the game numbers its deals 1..``deals``: the host folds its seed into them."""
    deal: int | None = None
    """A deal number the table has fixed: the host must shuffle by it."""

    def deal_number(self, seed: int) -> int:
        """The seed the host shuffles by: the fixed deal, or ``seed`` folded into the game's
        deal numbers, or ``seed`` itself."""
        if self.deal is not None:
            return self.deal
        if self.deals is not None and not 1 <= seed <= self.deals:
            return seed % self.deals + 1
        return seed


@dataclass(frozen=True, slots=True)
class Outcome:
    over: bool
    scores: tuple[int, ...]
    """Cumulative scores, one per seat."""
    winners: tuple[Seat, ...] | None
    """The winning seats once the game is over, else ``None``."""


def player_count(least: int, most: int) -> str:
    """How many players a game takes, for people: ``1 player``, ``4 players``,
    ``3 to 6 players``."""
    if least == most:
        return f"{least} player{'s' if least != 1 else ''}"
    return f"{least} to {most} players"


S = TypeVar("S")


@mypyc_attr(allow_interpreted_subclasses=True)  # a new game need not be compiled to run
class Game(ABC, Generic[S]):
    """One game's rules. Subclasses are stateless; all state lives in ``S`` values."""

    id: ClassVar[str]
    title: ClassVar[str]
    rules_version: ClassVar[int]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    event_commands: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """Each event type and the command type that causes it, the event's seat and data being the
    command's: how a reader turns a logged event back into its command to re-decide it."""

    def make_options(self, players: int, raw: Mapping[str, object] | None = None) -> Options:
        """Validate a player count and options (strings from a command line are converted)."""
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise OptionError(
                f"{self.id} is for {player_count(self.min_players, self.max_players)}, "
                f"not {players!r}"
            )
        try:
            options = normalize_options(self.option_specs, raw or {})
        except ValueError as error:
            raise OptionError(f"{self.id}: {error}") from None
        self.check_options(players, options)
        return options

    def check_options(self, players: int, options: Options) -> None:
        """Reject combinations of options that the rules do not allow."""

    @abstractmethod
    def new_state(self, players: int, options: Options) -> S:
        """The state of a table before anything has happened."""

    @abstractmethod
    def chance(self, state: S) -> ChanceRequest | None:
        """The shuffle the game waits for, if it waits for one."""

    @abstractmethod
    def to_act(self, state: S) -> tuple[Seat, ...]:
        """The seats that may act now (several when moves are simultaneous, as in passing)."""

    @abstractmethod
    def legal_actions(self, state: S, seat: Seat) -> Sequence[Command]:
        """Every command the seat may give now; empty when it is not the seat's turn. A
        read-only sequence: a game with many choose-k commands lists them lazily
        (``shared/choices.py``)."""

    @abstractmethod
    def decide(self, state: S, command: Command) -> list[Event]:
        """The events a command causes, or ``IllegalCommand`` saying why it is refused."""

    @abstractmethod
    def evolve(self, state: S, event: Event) -> S:
        """The state after one event. Events come from ``decide`` or a trusted log."""

    @abstractmethod
    def view(self, state: S, viewer: Viewer) -> dict[str, Any]:
        """What one seat, or a spectator (``None``), may see of the state."""

    @abstractmethod
    def snapshot(self, state: S) -> dict[str, Any]:
        """The whole state as plain data, in a canonical order (checkpoints hash it)."""

    def restore(self, snapshot: Mapping[str, Any], players: int, options: Options) -> S:
        """The state ``snapshot`` describes, its exact inverse: ``restore(snapshot(s), ...)``
        equals ``s``, and play goes on from it identically. A server resumes a table from its
        log's last checkpoint this way instead of folding every event since the first, so a
        restart does not grow with a game's length. ``players`` and ``options`` are the
        table's (snapshots leave out what follows from them). ``SnapshotError`` for a
        snapshot that is not a state of the game, or whose fields disagree with each other:
        ``read_snapshot`` reads the fields, and ``restore_with`` checks that the state gives
        the snapshot again."""
        return restore_with(self, snapshot, self.new_state(players, options), self.read_snapshot)

    @abstractmethod
    def read_snapshot(self, read: SnapshotReader, start: S) -> S:
        """The state a snapshot's fields give (``read``), from ``start``: the new state of the
        table's players and options, which holds what snapshots leave out (the rules)."""

    @abstractmethod
    def event_view(self, before: S, event: Event, viewer: Viewer) -> Event | None:
        """An event as one seat or a spectator may see it; ``None`` hides it entirely."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome:
        """Scores so far, and the winners once the game is over."""

    @abstractmethod
    def is_checkpoint(self, state: S) -> bool:
        """Whether a log should record the state's hash here (end of a hand, end of the game)."""

    def command_for(self, event: Event) -> Command:
        """The command that caused ``event``, so that a log can be checked against ``decide``.
        A game whose events do not carry their command's seat and data overrides this."""
        kind = self.event_commands.get(event.type)
        if kind is None:
            raise IllegalCommand("unknown_event", f"{self.id} has no event {event.type!r}")
        return Command(kind, event.seat, event.data)

    def random_action(self, state: S, seat: Seat, rng: Random) -> Command:
        """A uniformly random legal command (games with many choose-k commands sample faster)."""
        actions = self.legal_actions(state, seat)
        if not actions:
            raise IllegalCommand("not_your_turn", f"seat {seat} has nothing to do now")
        return actions[int(rng.random() * len(actions))]

    def random_choice(self, legal: Sequence[Command], rng: Random) -> Command:
        """What a random player picks among a seat's ``legal`` commands (an observation's,
        never empty): uniformly, unless a game says otherwise (as ``random_action`` does)."""
        return legal[int(rng.random() * len(legal))]

    def tally(self, state: S) -> dict[str, list[int]]:
        """Per-seat counters of a finished game that ``starhall sim`` adds up over many games,
        e.g. ``{"contracts made": [1, 0, 2, 0]}``."""
        return {}

    def describe_event(self, event: Event) -> str:
        """One line for people, used by terminal output and the replay viewer."""
        who = "" if event.seat is None else f"seat {event.seat} "
        details = " ".join(f"{k}={v}" for k, v in event.data.items())
        return f"{who}{event.type} {details}".strip()


CARD_GAME_PHASES: dict[str, str] = {
    "deal": "the cards are being dealt",
    "play": "cards are being played",
    "over": "the game is over",
}
"""What is happening in the phases every card game has, for refusals (a game adds its own)."""


def require(condition: bool, code: str, reason: str) -> None:
    """Raise ``IllegalCommand`` unless ``condition`` holds."""
    if not condition:
        raise IllegalCommand(code, reason)
