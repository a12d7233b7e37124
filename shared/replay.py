"""Rebuilding games from their logs, and checking them against their checkpoints."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starhall.shared.bugreport import BUG_SUFFIX
from starhall.shared.engine import Event, Game, IllegalCommand
from starhall.shared.games import UnknownGame, get_game
from starhall.shared.logfile import SUFFIX, LogError, scan
from starhall.shared.table import state_hash


@dataclass(frozen=True, slots=True)
class Checkpoint:
    seq: int
    hash: str
    state: dict[str, Any]


@dataclass(slots=True)
class Recording:
    """A log file read into memory: its header, events and checkpoints."""

    path: str
    header: dict[str, Any]
    game: Game[Any]
    players: int
    options: dict[str, Any]
    events: list[tuple[int, Event]] = field(default_factory=list)
    places: list[tuple[int, int]] = field(default_factory=list)
    """Where each event stands in the file: its record number and byte offset."""
    checkpoints: dict[int, Checkpoint] = field(default_factory=dict)
    cids: dict[int, int | str] = field(default_factory=dict)
    """The client command id logged with an event, by the event's ``seq`` (events a
    person's ``act`` caused; a bot's or the host's have none)."""
    torn: bool = False
    source: str = ""
    """What errors name: ``path``, or ``path#log`` for the log inside a bug report."""

    @property
    def last_seq(self) -> int:
        return self.events[-1][0] if self.events else 0

    def states(self, upto: int | None = None, *, strict: bool = True) -> Iterator[tuple[int, Any]]:
        """The state before any event (seq 0), then after each event up to ``upto``.

        Strict (the default) re-decides every event from its command, as the live server
        would have, and raises ``IllegalEvent`` at the first one the rules do not give.
        ``strict=False`` trusts the log: only the server, reopening logs it wrote, uses it."""
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
        if strict:
            state = None
            for _, state in self.states(upto):  # noqa: B007 - the last state is the answer
                pass
            return state
        game = self.game
        evolve = game.evolve
        state = game.new_state(self.players, self.options)
        events = self.events if upto is None else self.events[:max(upto, 0)]
        try:
            for _, event in events:
                state = evolve(state, event)
        except Exception:
            # Again step by step, to name the event at fault.
            return list(self.states(upto, strict=False))[-1][1]
        return state

    def illegal(self, index: int, reason: str) -> IllegalEvent:
        """The error for the event at ``index`` of ``events``."""
        seq, event = self.events[index]
        record, offset = self.places[index]
        return IllegalEvent(self.source or self.path, record, offset, seq, event, reason)


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


def load(path: str | os.PathLike[str]) -> Recording:
    """Read and check a log's structure: header, then events numbered 1, 2, 3 …"""
    found = scan(path)
    source = found.source
    header = found.records[0][1]
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
    recording = Recording(str(path), header, game, header["players"], options,
                          torn=found.torn, source=source)
    events = recording.events
    append = events.append
    place = recording.places.append
    expected = 1
    for index, (offset, body) in enumerate(found.records[1:], 1):
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
            append((seq, Event(event_type, seat, data)))
            place((index, offset))
            expected += 1
        elif kind == "checkpoint":
            seq, digest, state = body.get("seq"), body.get("hash"), body.get("state")
            if seq != len(events) or not isinstance(digest, str) or not isinstance(state, dict):
                raise LogError(source, index, offset, "malformed checkpoint")
            if seq in recording.checkpoints:
                raise LogError(source, index, offset, f"a second checkpoint after event {seq}")
            recording.checkpoints[seq] = Checkpoint(seq, digest, state)
        else:
            raise LogError(source, index, offset, f"unknown record kind {kind!r}")
    return recording


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

    def report(self) -> str:
        lines = [
            f"{self.path}: the rebuilt game differs from the checkpoint after event {self.seq}",
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

    def as_data(self) -> dict[str, Any]:
        return {"path": self.path, "ok": True, "events": self.events,
                "checkpoints": self.checkpoints, "over": self.over, "torn": self.torn}


def verify(path: str | os.PathLike[str]) -> Verified | Mismatch:
    """Rebuild a game from its log, re-deciding every event (``IllegalEvent`` at the first the
    rules refuse), and compare every checkpoint; stop at the first difference."""
    recording = load(path)
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
                    game.outcome(state).over, recording.torn)


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
