"""A table: one game's state and its log, kept in step.

``submit`` is the one path every command takes, from a person, a bot or the host's shuffle:
decide → append to the log → evolve, with a checkpoint (the state's hash and snapshot) where
the game says one is due. A refused command raises ``IllegalCommand`` and changes nothing.

The log also says who sits where (``shared.seating``): the header as the table began,
``reseat`` a change between two commands, and every checkpoint the seating then.

A person's command comes with the client's command id (``cid``), logged with its events; the
table remembers the last of them for each seat (``CommandMemory``), so that a command sent
again is known as done, and each checkpoint says from which event on the log must be read to
remember them again (``cids_from``): a restart reads no further back than that.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

import msgpack

from starhall.shared.engine import Command, Event, Game, Outcome
from starhall.shared.logfile import LogWriter, TableLog, make_header
from starhall.shared.observation import Observation, SeatMemory, not_kept, observe
from starhall.shared.options import Options
from starhall.shared.seating import SeatMap
from starhall.shared.shuffle import shuffle_command

S = TypeVar("S")
Seating = tuple[SeatMap, ...]
"""Every seat of a table, in seat order."""


def state_hash(snapshot: Mapping[str, Any]) -> str:
    """The hash checkpoints record: BLAKE2b-128 of the msgpack of the snapshot, in hex."""
    packed = msgpack.packb(snapshot, use_bin_type=True)
    return hashlib.blake2b(packed, digest_size=16).hexdigest()


def event_record(seq: int, event: Event, cid: int | str | None = None) -> dict[str, Any]:
    """An event's log record; ``cid``: the client's id of the command that caused it."""
    record: dict[str, Any] = {"kind": "event", "seq": seq, "type": event.type,
                              "seat": event.seat, "data": dict(event.data)}
    if cid is not None:
        record["cid"] = cid
    return record


def checkpoint_record(game: Game[Any], seq: int, state: Any, seats: Seating | None = None,
                      cids_from: int | None = None) -> dict[str, Any]:
    """A checkpoint's log record; ``cids_from``: the first event whose command id is still
    remembered (``CommandMemory.first_needed``)."""
    snapshot = game.snapshot(state)
    record: dict[str, Any] = {"kind": "checkpoint", "seq": seq, "hash": state_hash(snapshot),
                              "state": snapshot}
    if seats is not None:
        record["seats"] = list(seats)
    if cids_from is not None:
        record["cids_from"] = cids_from
    return record


def seating_record(seq: int, number: int, seat: SeatMap) -> dict[str, Any]:
    """The record of seat ``number`` becoming ``seat`` after event ``seq``."""
    return {"kind": "seating", "seq": seq, "seat": number, **seat}


REMEMBERED_COMMANDS = 1024
"""How many command ids a table remembers of each seat (``docs/protocol.md``, ``act``)."""


class CommandMemory:
    """The command ids logged with each seat's events: for each seat the last
    ``REMEMBERED_COMMANDS`` distinct ones, each with the ``seq`` of the last event that carries
    it, oldest first. The same calls of ``remember`` give the same memory, so a restart that
    reads the log's events from ``first_needed`` on remembers exactly what the server did."""

    def __init__(self, players: int) -> None:
        self.seats: list[OrderedDict[int | str, int]] = [OrderedDict() for _ in range(players)]

    def remember(self, seat: int | None, cid: int | str, seq: int) -> None:
        """Event ``seq`` of ``seat`` carries ``cid``."""
        if seat is None or not 0 <= seat < len(self.seats):
            return
        known = self.seats[seat]
        known[cid] = seq
        known.move_to_end(cid)  # in the order of the events, whoever sent the id before
        if len(known) > REMEMBERED_COMMANDS:
            known.popitem(last=False)

    def done(self, seat: int, cid: int | str, after: int = 0) -> int | None:
        """The ``seq`` of the last event of ``seat``'s command ``cid``, if it is remembered and
        came after event ``after`` (when the seat's person took it); else ``None``."""
        seq = self.seats[seat].get(cid)
        return seq if seq is not None and seq > after else None

    def forget_after(self, seq: int) -> None:
        """Forget the command ids of the events after ``seq`` (which were undone)."""
        for known in self.seats:
            for cid in [cid for cid, done in known.items() if done > seq]:
                del known[cid]

    def first_needed(self, seq: int) -> int:
        """The first event whose command id is remembered after event ``seq``: a log read
        from there on remembers them all; ``seq + 1`` when none is."""
        first = seq + 1
        for known in self.seats:
            if known:
                first = min(first, next(iter(known.values())))
        return first


class Table(Generic[S]):
    # A plain class rather than a dataclass: mypyc compiles it (it cannot compile generic
    # dataclasses), and submit is the path every move takes.
    def __init__(self, game: Game[S], players: int, options: Options, state: S, seq: int = 0,
                 log: TableLog | None = None, seats: Seating | None = None,
                 commands: CommandMemory | None = None) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.state = state
        self.seq = seq
        """The sequence number of the last event; the first event is 1."""
        self.log = log
        self.seats = seats
        """Who sits where as the log says (what was appended to it); ``None`` for a log of
        format 1, which does not say."""
        self.commands = commands if commands is not None else CommandMemory(players)
        """The command ids of the last commands of each seat (from the log, after a restart)."""
        self.memory: SeatMemory | None = None
        """What the seats its bots play were shown, for their observations: kept only when
        a host gives the table one (``remember``; every event from the first, or the seats'
        memory is wrong), so a table without bots cuts no event for them."""

    @classmethod
    def new(
        cls,
        game: Game[S],
        players: int,
        options: Mapping[str, object] | None = None,
        *,
        path: str | None = None,
        seats: list[dict[str, Any]] | None = None,
        open_log: Callable[[dict[str, Any]], TableLog] | None = None,
        **info: Any,
    ) -> Table[S]:
        """A new game; its log, if any, is a file at ``path`` or what ``open_log`` makes of
        the header (a log store's)."""
        checked = game.make_options(players, options)
        header = make_header(game.id, game.rules_version, players, checked, seats, **info)
        log: TableLog | None = None
        if open_log is not None:
            log = open_log(header)
        elif path is not None:
            log = LogWriter.create(path, header)
        return cls(game, players, checked, game.new_state(players, checked), 0, log,
                   tuple(header["seats"]))

    def submit(self, command: Command, cid: int | str | None = None) -> list[tuple[int, Event]]:
        """Decide, append and evolve; returns the new events with their sequence numbers.
        ``cid``, a client's command id, is logged with each event and remembered (so a server,
        restarted too, knows a resent command as done)."""
        game = self.game
        events = game.decide(self.state, command)
        numbered = []
        memory = self.memory
        for event in events:
            self.seq += 1
            numbered.append((self.seq, event))
            before = self.state
            self.state = game.evolve(before, event)
            if memory is not None:
                memory.add(before, event)
            if cid is not None:
                self.commands.remember(event.seat, cid, self.seq)
            if self.log is not None:
                self.log.append(event_record(self.seq, event, cid))
                if game.is_checkpoint(self.state):
                    self.log.append(checkpoint_record(game, self.seq, self.state, self.seats,
                                                      self.commands.first_needed(self.seq)))
        return numbered

    def remember(self, seats: Iterable[int] | None = None) -> SeatMemory:
        """Keep what ``seats`` (every seat by default) are shown, for their bots' observations
        (``observe``): from the first event, so once there are events only a memory that
        keeps them already will do (``ValueError``); a host that seats a bot later, or
        restores a table, gives it a ``memory`` built from its log."""
        wanted = set(range(self.players) if seats is None else seats)
        memory = self.memory
        if memory is not None and wanted <= memory.seats:
            return memory
        if self.seq:
            raise ValueError("the table has not kept what its seats were shown")
        if memory is not None:
            wanted |= memory.seats
        memory = self.memory = SeatMemory(self.game, self.players, self.options, wanted)
        return memory

    def observe(self, seat: int, history: bool = True) -> Observation:
        """What ``seat``'s bot is given to choose its move now; without ``history`` for a bot
        that never reads what its seat was shown (``shared.bots.reads_history``): its
        ``seen`` then refuses to be read."""
        if not history:
            return observe(self.game, self.players, self.options, seat, self.state,
                           not_kept(seat))
        memory = self.memory
        if memory is None or seat not in memory.seats:
            if self.seq:
                raise ValueError(f"the table has not kept what its seats were shown (seat "
                                 f"{seat})")
            memory = self.remember([seat])
        return memory.observe(self.state, seat)

    def reseat(self, number: int, seat: SeatMap) -> None:
        """Seat ``number`` is now ``seat`` (a map of ``shared.seating``): logged after the last
        event. Only for a log that records seating (``seats`` is known)."""
        seats = self.seats
        if seats is None:
            raise ValueError("this table's log does not record who sits where (format 1)")
        self.seats = (*seats[:number], seat, *seats[number + 1:])
        if self.log is not None:
            self.log.append(seating_record(self.seq, number, seat))

    def shuffle(self, seed: int) -> list[tuple[int, Event]]:
        """Answer the game's pending chance request with the order deal number ``seed`` gives."""
        request = self.game.chance(self.state)
        if request is None:
            raise ValueError("the game is not waiting for a shuffle")
        return self.submit(shuffle_command(request, seed))

    def outcome(self) -> Outcome:
        return self.game.outcome(self.state)
