"""Rebuilding games from their logs, and checking them against their checkpoints."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starhall.shared.engine import Event, Game, IllegalCommand, SnapshotError
from starhall.shared.games import UnknownGame, get_game
from starhall.shared.logfile import (
    BUG_SUFFIX,
    SUFFIX,
    LogError,
    check_header,
    encode_record,
    log_bytes,
    read_records,
    record_at,
    scan,
    torn_tail,
)
from starhall.shared.seating import SeatMap, older_seats, read_seat, read_seats
from starhall.shared.table import CommandMemory, state_hash


@dataclass(frozen=True, slots=True)
class Checkpoint:
    seq: int
    hash: str
    state: dict[str, Any]
    seats: list[SeatMap] | None = None
    """Who sat where then (``None`` in a log of format 1)."""
    cids_from: int | None = None
    """The first event whose command id a server still remembers here (``None``: a log
    written before checkpoints said so)."""


@dataclass(frozen=True, slots=True)
class Resumed:
    """The state after a log's last event, and how ``Recording.resume`` reached it."""

    state: Any
    since: int
    """The checkpoint it was restored from (the seq of the event before it); 0 when the log
    was folded from its start."""
    problem: str | None = None
    """Why the last checkpoint could not be resumed from, when it could not (the log was
    then folded from its start)."""


@dataclass(slots=True)
class Recording:
    """A log file read into memory: its header, events and checkpoints."""

    path: str
    header: dict[str, Any]
    game: Game[Any]
    players: int
    options: dict[str, Any]
    events: list[tuple[int, Event]] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    """Where each event's record starts in the file (its byte offset)."""
    checkpoints: dict[int, Checkpoint] = field(default_factory=dict)
    cids: dict[int, int | str] = field(default_factory=dict)
    """The client command id logged with an event, by the event's ``seq`` (events a
    person's ``act`` caused; a bot's or the host's have none)."""
    torn: bool = False
    good_length: int = 0
    """Bytes up to the end of the last whole record."""
    last_record: int = 0
    """Where the last whole record starts (0: the header is the only one)."""
    start: int = 0
    """The seq of the event before the first one held: 0 for a whole log; for a log read
    from its tail (``load_tail``), the checkpoint it was read from."""
    source: str = ""
    """What errors name: ``path``, or ``path#log`` for the log inside a bug report."""
    format: int = 1
    seating: list[SeatMap | None] = field(default_factory=list)
    """Who sat where at ``start``: the header's seats (or, read from its tail, the first
    checkpoint's); ``None`` for a seat the log does not name (a server's log of format 1)."""
    seat_changes: list[tuple[int, int, SeatMap]] = field(default_factory=list)
    """Each ``seating`` record after ``start``, in order, as ``(seq, seat, seat map)``: the
    seat became that after event ``seq``."""

    @property
    def last_seq(self) -> int:
        return self.events[-1][0] if self.events else self.start

    def seats_at(self, seq: int | None = None) -> list[SeatMap | None]:
        """Who sat where after event ``seq`` (default: the last), changes made right after
        it included; ``None`` for a seat the log does not name."""
        seats = list(self.seating)
        for after, number, seat in self.seat_changes:
            if seq is not None and after > seq:
                break
            seats[number] = seat
        return seats

    def event(self, seq: int) -> Event:
        """The event numbered ``seq`` (one of those held)."""
        return self.events[seq - 1 - self.start][1]

    @property
    def holds_cids(self) -> bool:
        """Whether it holds every event whose command id a server remembers after the last
        event: the whole log, or its tail from the last checkpoint's ``cids_from`` on."""
        if not self.start:
            return True
        last = self.checkpoints[next(reversed(self.checkpoints))]
        return last.cids_from is not None and last.cids_from > self.start

    def command_memory(self) -> CommandMemory:
        """The command ids a server remembers after the last event, from the events held
        (all of them when ``holds_cids``)."""
        memory = CommandMemory(self.players)
        for seq, cid in self.cids.items():  # in order, as the server remembered them
            memory.remember(self.event(seq).seat, cid, seq)
        return memory

    def states(self, upto: int | None = None, *, strict: bool = True) -> Iterator[tuple[int, Any]]:
        """The state before any event (seq 0), then after each event up to ``upto``.

        Strict (the default) re-decides every event from its command, as the live server
        would have, and raises ``IllegalEvent`` at the first one the rules do not give.
        ``strict=False`` trusts the log: only the server, reopening logs it wrote, uses it."""
        if self.start:
            raise ValueError(f"{self.source}: read from its tail, it cannot be folded from "
                             "its start")
        game = self.game
        state = game.new_state(self.players, self.options)
        yield 0, state
        referee = Referee(game) if strict else None
        for index, (seq, event) in enumerate(self.events):
            if upto is not None and seq > upto:
                return
            try:
                state = (referee.apply(state, event) if referee is not None
                         else game.evolve(state, event))
            except IllegalCommand as refusal:
                raise self.illegal(index, refusal.reason) from None
            except Exception as error:  # an engine that fails on a recorded event
                raise self.illegal(index, f"the engine cannot apply it ({error!r})") from None
            yield seq, state
        if referee is not None and referee.pending and (upto is None or upto >= self.last_seq):
            missing = referee.pending[-1]
            raise self.illegal(len(self.events) - 1,
                               f"the log ends before the {missing.type} event that follows it")

    def state_at(self, upto: int | None = None, *, strict: bool = True) -> Any:
        """The state after event ``upto`` (default: the last)."""
        if strict or self.start:
            state = None
            for _, state in self.states(upto):  # noqa: B007 - the last state is the answer
                pass
            return state
        game = self.game
        state = game.new_state(self.players, self.options)
        events = self.events if upto is None else self.events[:max(upto, 0)]
        try:
            for _, event in events:
                state = game.evolve(state, event)
        except Exception:
            # Again step by step, to name the event at fault.
            return list(self.states(upto, strict=False))[-1][1]
        return state

    def resume(self) -> Resumed:
        """The state after the last event, restored from the last checkpoint with only the
        events after it folded, so the time it takes does not grow with the game's length.
        Trusted, as ``strict=False``: only the server, reopening logs it wrote, uses it. A
        checkpoint that cannot be resumed from (written by an engine whose snapshots held less,
        or not matching its hash) is passed over: the whole log is folded from its start."""
        if not self.checkpoints:
            return Resumed(self.state_at(strict=False), 0)
        game = self.game
        seq = next(reversed(self.checkpoints))  # they are read in order: the last is the latest
        checkpoint = self.checkpoints[seq]
        problem = None
        try:
            state = game.restore(checkpoint.state, self.players, self.options)
        except SnapshotError as error:
            problem = f"the checkpoint after event {seq} cannot be resumed from: {error}"
        else:
            if state_hash(game.snapshot(state)) != checkpoint.hash:
                problem = f"the checkpoint after event {seq} does not match its hash"
        if problem is None:
            try:
                for _, event in self.events[seq - self.start:]:
                    state = game.evolve(state, event)
                return Resumed(state, seq)
            except Exception:  # noqa: S110 - folded again from the start, which names the event
                pass
        whole = load(self.path) if self.start else self
        return Resumed(whole.state_at(strict=False), 0, problem)

    def illegal(self, index: int, reason: str) -> IllegalEvent:
        """The error for the event at ``index`` of ``events``."""
        seq, event = self.events[index]
        return IllegalEvent(self.source or self.path, self.record_number(index),
                            self.offsets[index], seq, event, reason)

    def record_number(self, index: int) -> int:
        """The number of the event at ``index`` of ``events`` among the file's records: the
        header, the events before it and the checkpoint and seating records after those come
        first (-1 for a log read from its tail, whose earlier records were not counted)."""
        if self.start:
            return -1
        seq = self.events[index][0]
        return (seq + sum(1 for checkpoint in self.checkpoints if checkpoint < seq)
                + sum(1 for after, _, _ in self.seat_changes if after < seq))


class IllegalEvent(LogError):
    """A logged event that the rules do not give in the state before it."""

    def __init__(self, path: str, record: int, offset: int, seq: int, event: Event,
                 reason: str) -> None:
        self.seq = seq
        self.event = event
        self.reason = reason
        who = "no seat" if event.seat is None else f"seat {event.seat}"
        super().__init__(path, record, offset, f"event {seq} ({event.type}, {who}): {reason}")


class Referee:
    """Checks logged events one by one against the rules: each event must be exactly what
    ``decide`` gives for its command (``Game.command_for``) in the state before it. A command
    that causes several events is checked against the next events of the log."""

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.pending: list[Event] = []
        """Events the last command still causes, in reverse order."""

    def apply(self, state: Any, event: Event) -> Any:
        game = self.game
        pending = self.pending
        if pending:
            expected = pending.pop()
        else:
            decided = game.decide(state, game.command_for(event))
            if not decided:
                raise IllegalCommand("no_event", "the rules make no event of its command")
            expected = decided[0]
            if len(decided) > 1:
                pending.extend(reversed(decided[1:]))
        if expected != event:
            raise IllegalCommand("not_as_decided", unlike(expected, event))
        return game.evolve(state, expected)


def unlike(expected: Event, recorded: Event) -> str:
    """Why a recorded event is not the one the rules give, in a few words."""
    if expected.type != recorded.type or expected.seat != recorded.seat:
        return (f"the rules give {expected.type} by seat {expected.seat} here, not "
                f"{recorded.type} by seat {recorded.seat}")
    given, held = dict(expected.data), dict(recorded.data)
    parts = []
    for key in list(given) + [k for k in held if k not in given]:
        if key not in held:
            parts.append(f"{key} is missing (the rules give {given[key]!r})")
        elif key not in given:
            parts.append(f"{key} is not part of this event")
        elif given[key] != held[key]:
            parts.append(f"{key} is {held[key]!r} where the rules give {given[key]!r}")
    return "its data is not what the rules give: " + "; ".join(parts)


def load(path: str | os.PathLike[str], data: bytes | None = None) -> Recording:
    """Read and check a log's structure: header, then events numbered 1, 2, 3 … ``data``:
    the log's bytes when they were read from elsewhere (a log store), ``path`` naming them."""
    # Reading a log makes many objects that live on, and no reference cycles: the cyclic
    # collector's passes meanwhile would only go over them again and again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        found = scan(path, data)
        recording = _recording(path, found.records[0][1], found.source)
        recording.torn = found.torn
        recording.good_length = found.good_length
        _add_records(recording, found.records[1:], 1)
    finally:
        if collecting:
            gc.enable()
    return recording


def load_tail(path: str | os.PathLike[str], *, cids: bool = False,
              data: bytes | None = None) -> Recording:
    """A log read from its last checkpoint, so that the time it takes does not grow with the
    log: the header, then the last checkpoint and every record after it, checked as ``load``
    checks a whole log; with ``cids``, from further back when the command ids a server still
    remembers were logged earlier: from the last checkpoint before the last checkpoint's
    ``cids_from`` (``holds_cids``). Its ``start`` is the checkpoint it was read from; only
    ``resume`` can rebuild its state. A log without such a checkpoint (or, with ``cids``, one
    whose last checkpoint does not say ``cids_from``, or says the events before the first
    checkpoint), or whose tail is not as it should be, is read whole by ``load`` (which says
    what is wrong with it). ``data``: the log's bytes, read from elsewhere (a log store)."""
    if data is None:
        data = Path(path).read_bytes()
    try:
        head, header_end = read_records(data[:HEAD_BYTES], path, limit=1)
        if not head:
            head, header_end = read_records(data, path, limit=1)
        if not head:
            return load(path, data)
        check_header(head[0][1], str(path))
    except LogError:
        return load(path, data)  # not a log, a bug report, a damaged header: load says which
    chosen = -1
    needed: int | None = None  # with cids: the first event to read, from the last checkpoint
    found = len(data)
    while True:
        found = data.rfind(CHECKPOINT_MARK, header_end + MARK_OFFSET, found)
        if found < 0:
            return load(path, data)  # no checkpoint, or none before the first event needed
        body = _checkpoint_at(data, found - MARK_OFFSET, path)
        if body is None:
            continue  # the mark inside another record's data
        if chosen < 0 and cids:  # the last checkpoint
            needed = body.get("cids_from")
            if type(needed) is not int:
                return load(path, data)  # written before checkpoints said it: every event
        chosen = found - MARK_OFFSET
        if needed is None or body["seq"] < needed:
            break
    recording = _recording(path, head[0][1], str(path))
    try:
        records, good = read_records(data[chosen:], path)
        recording.start = records[0][1]["seq"]
        _add_records(recording, [(chosen + offset, body) for offset, body in records], None,
                     recording.start + 1)
    except (LogError, KeyError, IndexError, TypeError):
        return load(path, data)
    recording.good_length = chosen + good
    recording.torn = recording.good_length < len(data)
    return recording


HEAD_BYTES = 4096
"""How much of a log's start is read first for its header (most headers are far shorter)."""


MARK_OFFSET = 2
"""Where ``CHECKPOINT_MARK`` stands in a checkpoint record: after the array's header and the
map's, whose count of keys differs (4, one more with the ``seats`` of a log of format 2, one
more with ``cids_from``)."""


def _mark() -> bytes:
    """The bytes every checkpoint record has from ``MARK_OFFSET`` on, as ``checkpoint_record``
    writes them."""
    packed = encode_record({"kind": "checkpoint", "seq": 0, "hash": "", "state": {}})
    return packed[MARK_OFFSET:packed.index(b"checkpoint") + len(b"checkpoint")]


CHECKPOINT_MARK = _mark()


def _checkpoint_at(data: bytes, offset: int, path: str | os.PathLike[str]
                   ) -> dict[str, Any] | None:
    """The body of the checkpoint record at ``offset``, or ``None`` when no whole, sound
    checkpoint record starts there."""
    found = record_at(data, offset, path, size=1 << 16)
    if found is None:
        return None
    body, _ = found
    seq = body.get("seq")
    return body if body.get("kind") == "checkpoint" and type(seq) is int else None


def _recording(path: str | os.PathLike[str], header: dict[str, Any], source: str
               ) -> Recording:
    """An empty recording of the game a log's header names (``LogError`` if it cannot be
    played here)."""
    try:
        game = get_game(header["game"])
    except (UnknownGame, KeyError, TypeError) as error:
        raise LogError(source, 0, 0, f"unknown game: {error}") from None
    if type(header.get("rules")) is not int or header["rules"] != game.rules_version:
        raise LogError(
            source, 0, 0,
            f"recorded with {game.id} rules version {header.get('rules')!r}; "
            f"this engine plays version {game.rules_version}",
        )
    raw_options = header.get("options", {})
    if not isinstance(raw_options, dict):
        raise LogError(source, 0, 0, f"bad header: options must be a map, not {raw_options!r}")
    try:
        options = game.make_options(header.get("players"), raw_options)  # type: ignore[arg-type]
    except (ValueError, KeyError, TypeError) as error:
        raise LogError(source, 0, 0, f"bad header: {error}") from None
    players = header["players"]
    seating: list[SeatMap | None]
    if header["format"] == 1:
        seating = older_seats(header.get("seats"), players)
    else:
        try:
            seating = list(read_seats(header.get("seats"), players))
        except ValueError as error:
            raise LogError(source, 0, 0, f"bad header: {error}") from None
    return Recording(str(path), header, game, players, options, source=source,
                     format=header["format"], seating=seating)


def _add_records(recording: Recording, records: list[tuple[int, dict[str, Any]]],
                 first: int | None, expected: int = 1) -> None:
    """Check and add a log's records after its header: events numbered on from
    ``expected``, and checkpoints each after the event before it. ``first`` is the number of
    the first record in the file (``None`` when not known: a log read from its tail)."""
    source = recording.source
    events = recording.events
    offsets = recording.offsets
    players = recording.players
    # Who sits where so far (None until a log read from its tail meets its checkpoint).
    seating = list(recording.seating) if first is not None else None
    for index, (offset, body) in enumerate(records, first or 0):
        if first is None:
            index = -1
        kind = body.get("kind")
        if kind == "event":
            try:
                seq, event_type, seat, data = body["seq"], body["type"], body["seat"], body["data"]
            except KeyError as missing:
                raise LogError(source, index, offset, f"an event without {missing}") from None
            if seq != expected or type(seq) is not int:
                raise LogError(source, index, offset,
                               f"event numbered {seq!r} where {expected} was due")
            if type(event_type) is not str or type(data) is not dict or not (
                seat is None or type(seat) is int
            ):
                raise LogError(source, index, offset, "malformed event")
            cid = body.get("cid")
            if cid is not None:
                if type(cid) is not int and type(cid) is not str:
                    raise LogError(source, index, offset, f"malformed command id {cid!r}")
                recording.cids[seq] = cid
            events.append((seq, Event(event_type, seat, data)))
            offsets.append(offset)
            expected += 1
        elif kind == "checkpoint":
            seq, digest, state = body.get("seq"), body.get("hash"), body.get("state")
            if seq != expected - 1 or not isinstance(digest, str) or not isinstance(state, dict):
                raise LogError(source, index, offset, "malformed checkpoint")
            if seq in recording.checkpoints:
                raise LogError(source, index, offset, f"a second checkpoint after event {seq}")
            cids_from = body.get("cids_from")
            if cids_from is not None and (type(cids_from) is not int
                                          or not 1 <= cids_from <= seq + 1):
                raise LogError(source, index, offset,
                               f"malformed checkpoint: cids_from {cids_from!r} is no event "
                               f"from 1 to {seq + 1}")
            seats = _checkpoint_seats(recording, body, seating, index, offset)
            if seating is None:  # the first record of a log read from its tail
                recording.seating = list(seats) if seats is not None else [None] * players
                seating = list(recording.seating)
            recording.checkpoints[seq] = Checkpoint(seq, digest, state, seats, cids_from)
        elif kind == "seating" and recording.format >= 2:
            seq, number = body.get("seq"), body.get("seat")
            if seq != expected - 1 or type(number) is not int or not 0 <= number < players:
                raise LogError(source, index, offset, "malformed seating record")
            try:
                seat = read_seat(body)
            except ValueError as error:
                raise LogError(source, index, offset,
                               f"malformed seating record: {error}") from None
            if seating is None:
                raise LogError(source, index, offset, "a seating record before the checkpoint "
                               "a log's tail starts at")
            seating[number] = seat
            recording.seat_changes.append((seq, number, seat))
        else:
            raise LogError(source, index, offset, f"unknown record kind {kind!r}")
    if records:
        recording.last_record = records[-1][0]


def _checkpoint_seats(recording: Recording, body: dict[str, Any],
                      seating: list[SeatMap | None] | None, index: int, offset: int
                      ) -> list[SeatMap] | None:
    """A checkpoint's ``seats``, checked: those of a log of format 2 must be there and be the
    seating its records give (``seating``, unless it is the first record read)."""
    if recording.format < 2:
        return None
    try:
        seats = read_seats(body.get("seats"), recording.players)
    except ValueError as error:
        raise LogError(recording.source, index, offset, f"malformed checkpoint: {error}"
                       ) from None
    if seating is not None and seats != seating:
        number = next(n for n, seat in enumerate(seats) if seat != seating[n])
        raise LogError(recording.source, index, offset,
                       f"the checkpoint's seat {number} is {seats[number]}, where the log's "
                       f"seating records give {seating[number]}")
    return seats


@dataclass(frozen=True, slots=True)
class Difference:
    """One field where a recorded snapshot and a rebuilt one disagree."""

    field: str
    """Where, as ``state.key[index]…``."""
    recorded: Any
    rebuilt: Any
    only_in: str | None = None
    """``"recorded"`` or ``"rebuilt"`` when the field exists on one side only."""

    def line(self) -> str:
        if self.only_in == "recorded":
            return f"{self.field}: only in the log ({self.recorded!r})"
        if self.only_in == "rebuilt":
            return f"{self.field}: only in the rebuilt state ({self.rebuilt!r})"
        return f"{self.field}: recorded {self.recorded!r}, rebuilt {self.rebuilt!r}"

    def as_data(self) -> dict[str, Any]:
        return {"field": self.field, "recorded": self.recorded, "rebuilt": self.rebuilt,
                "only_in": self.only_in}


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A checkpoint the rebuilt game disagrees with: the engine and the log part ways
    somewhere after ``agreed`` (the last checkpoint that agreed, 0 for the start)."""

    path: str
    seq: int
    recorded_hash: str
    rebuilt_hash: str
    agreed: int
    first_suspect: str
    """The first event after ``agreed``, described: where to start looking."""
    differences: list[Difference]

    def line(self) -> str:
        """The report's first line, which says it all in short."""
        return f"{self.path}: the rebuilt game differs from the checkpoint after event {self.seq}"

    def report(self) -> str:
        lines = [
            self.line(),
            f"  the last checkpoint that agrees is after event {self.agreed}; the first event "
            f"after it is {self.agreed + 1}: {self.first_suspect}",
            f"  recorded hash {self.recorded_hash}, rebuilt hash {self.rebuilt_hash}",
        ]
        lines += [f"  {difference.line()}" for difference in self.differences]
        if not self.differences:
            lines.append("  the snapshots are equal: the checkpoint's hash is not its state's")
        return "\n".join(lines)

    def as_data(self) -> dict[str, Any]:
        return {"path": self.path, "ok": False, "problem": "checkpoint", "seq": self.seq,
                "recorded_hash": self.recorded_hash, "rebuilt_hash": self.rebuilt_hash,
                "last_agreeing_checkpoint": self.agreed, "first_suspect_event": self.agreed + 1,
                "first_suspect": self.first_suspect,
                "differences": [difference.as_data() for difference in self.differences]}


@dataclass(frozen=True, slots=True)
class Verified:
    path: str
    events: int
    checkpoints: int
    over: bool
    torn: bool
    seats: list[SeatMap | None] = field(default_factory=list)
    """Who sat where at the end (``None`` for a seat the log does not name)."""
    left_out: str = ""
    """For a torn tail: what it held, in the words the server says when it cuts it off."""

    def line(self) -> str:
        state = "over" if self.over else "in progress"
        return (f"ok {self.path}: {self.events} events, {self.checkpoints} checkpoints, "
                f"game {state}" + (f"; {self.left_out}" if self.left_out else ""))

    def as_data(self) -> dict[str, Any]:
        return {"path": self.path, "ok": True, "events": self.events,
                "checkpoints": self.checkpoints, "over": self.over, "torn": self.torn,
                "left_out": self.left_out or None, "seats": self.seats}


def left_out(recording: Recording, data: bytes | None = None) -> str:
    """What the torn tail of a recording's log held, in one line ("" when it has none)."""
    if not recording.torn:
        return ""
    source, log = log_bytes(recording.path, data)
    tail = torn_tail(log[recording.good_length:], source)
    kept = recording.last_seq
    return (f"left out the last {tail.length:,} bytes after event {kept}: "
            f"{tail.words(kept)}")


def verify(path: str | os.PathLike[str], data: bytes | None = None) -> Verified | Mismatch:
    """Rebuild a game from its log, re-deciding every event (``IllegalEvent`` at the first the
    rules refuse), and compare every checkpoint; stop at the first difference. ``data``: the
    log's bytes, read from elsewhere (a log store), which ``path`` names."""
    recording = load(path, data)
    game = recording.game
    checkpoints = recording.checkpoints
    agreed = 0
    state: Any = None
    for seq, state in recording.states():  # noqa: B007 - the last state is the outcome
        checkpoint = checkpoints.get(seq)
        if checkpoint is None:
            continue
        snapshot = game.snapshot(state)
        rebuilt = state_hash(snapshot)
        if rebuilt != checkpoint.hash or state_hash(checkpoint.state) != checkpoint.hash:
            suspect = (game.describe_event(recording.events[agreed][1])
                       if agreed < len(recording.events) else "none")
            return Mismatch(recording.source, seq, checkpoint.hash, rebuilt, agreed, suspect,
                            differences(checkpoint.state, snapshot))
        agreed = seq
    return Verified(recording.path, len(recording.events), len(checkpoints),
                    game.outcome(state).over, recording.torn, recording.seats_at(),
                    left_out(recording, data))


def differences(recorded: Any, rebuilt: Any, where: str = "state") -> list[Difference]:
    """The fields where two snapshots differ, in the recorded snapshot's order."""
    if isinstance(recorded, dict) and isinstance(rebuilt, dict):
        found: list[Difference] = []
        for key in list(recorded) + [k for k in rebuilt if k not in recorded]:
            if key not in rebuilt:
                found.append(Difference(f"{where}.{key}", recorded[key], None, "recorded"))
            elif key not in recorded:
                found.append(Difference(f"{where}.{key}", None, rebuilt[key], "rebuilt"))
            else:
                found += differences(recorded[key], rebuilt[key], f"{where}.{key}")
        return found
    if isinstance(recorded, list) and isinstance(rebuilt, list) and len(recorded) == len(rebuilt):
        found = []
        for i, (a, b) in enumerate(zip(recorded, rebuilt, strict=True)):
            found += differences(a, b, f"{where}[{i}]")
        return found
    return [] if recorded == rebuilt else [Difference(where, recorded, rebuilt)]


def log_files(paths: list[str]) -> list[Path]:
    """The log files named, with folders searched for logs and bug reports, sorted."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted([*path.rglob(f"*{SUFFIX}"), *path.rglob(f"*{BUG_SUFFIX}")])
        else:
            found.append(path)
    return found
