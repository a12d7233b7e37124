"""Rebuilding games from their logs, and checking them against their checkpoints."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.engine import Event, Game
from shared.games import UnknownGame, get_game
from shared.logfile import SUFFIX, LogError, scan
from shared.table import state_hash


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
    checkpoints: dict[int, Checkpoint] = field(default_factory=dict)
    torn: bool = False

    @property
    def last_seq(self) -> int:
        return self.events[-1][0] if self.events else 0

    def states(self, upto: int | None = None) -> Iterator[tuple[int, Any]]:
        """The state before any event (seq 0), then after each event up to ``upto``."""
        game = self.game
        state = game.new_state(self.players, self.options)
        yield 0, state
        for seq, event in self.events:
            if upto is not None and seq > upto:
                return
            try:
                state = game.evolve(state, event)
            except Exception as error:  # an engine that cannot fold a recorded event
                raise ReplayError(self.path, seq, f"cannot apply {event.type}: {error}") from error
            yield seq, state

    def state_at(self, upto: int | None = None) -> Any:
        """The state after event ``upto`` (default: the last)."""
        game = self.game
        evolve = game.evolve
        state = game.new_state(self.players, self.options)
        events = self.events if upto is None else self.events[:max(upto, 0)]
        try:
            for _, event in events:
                state = evolve(state, event)
        except Exception:
            return self.state_at_slowly(upto)  # again step by step, to name the event at fault
        return state

    def state_at_slowly(self, upto: int | None) -> Any:
        return list(self.states(upto))[-1][1]


class ReplayError(Exception):
    def __init__(self, path: str, seq: int, problem: str) -> None:
        self.path, self.seq, self.problem = path, seq, problem
        super().__init__(f"{path}: event {seq}: {problem}")


def load(path: str | os.PathLike[str]) -> Recording:
    """Read and check a log's structure: header, then events numbered 1, 2, 3 …"""
    name = str(path)
    found = scan(path)
    header = found.records[0][1]
    try:
        game = get_game(header["game"])
    except (UnknownGame, KeyError, TypeError) as error:
        raise LogError(name, 0, 0, f"unknown game: {error}") from None
    if header.get("rules") != game.rules_version:
        raise LogError(
            name, 0, 0,
            f"recorded with {game.id} rules version {header.get('rules')!r}; "
            f"this engine plays version {game.rules_version}",
        )
    try:
        options = game.make_options(header["players"], header.get("options", {}))
    except (ValueError, KeyError) as error:
        raise LogError(name, 0, 0, f"bad header: {error}") from None
    recording = Recording(name, header, game, header["players"], options, torn=found.torn)
    events = recording.events
    append = events.append
    expected = 1
    for index, (offset, body) in enumerate(found.records[1:], 1):
        kind = body.get("kind")
        if kind == "event":
            try:
                seq, event_type, seat, data = body["seq"], body["type"], body["seat"], body["data"]
            except KeyError as missing:
                raise LogError(name, index, offset, f"an event without {missing}") from None
            if seq != expected or type(seq) is not int:
                raise LogError(name, index, offset,
                               f"event numbered {seq!r} where {expected} was due")
            if type(event_type) is not str or type(data) is not dict or not (
                seat is None or type(seat) is int
            ):
                raise LogError(name, index, offset, "malformed event")
            append((seq, Event(event_type, seat, data)))
            expected += 1
        elif kind == "checkpoint":
            seq, digest, state = body.get("seq"), body.get("hash"), body.get("state")
            if seq != len(events) or not isinstance(digest, str) or not isinstance(state, dict):
                raise LogError(name, index, offset, "malformed checkpoint")
            recording.checkpoints[seq] = Checkpoint(seq, digest, state)
        else:
            raise LogError(name, index, offset, f"unknown record kind {kind!r}")
    return recording


@dataclass(frozen=True, slots=True)
class Mismatch:
    path: str
    seq: int
    recorded_hash: str
    rebuilt_hash: str
    differences: list[str]

    def report(self) -> str:
        lines = [
            f"{self.path}: the rebuilt game differs from the log after event {self.seq}",
            f"  recorded hash {self.recorded_hash}",
            f"  rebuilt hash  {self.rebuilt_hash}",
        ]
        lines += [f"  {line}" for line in self.differences]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Verified:
    path: str
    events: int
    checkpoints: int
    over: bool
    torn: bool


def verify(path: str | os.PathLike[str]) -> Verified | Mismatch:
    """Rebuild a game from its log and compare every checkpoint; stop at the first difference."""
    recording = load(path)
    game = recording.game
    checkpoints = recording.checkpoints
    state: Any = None
    for seq, state in recording.states():  # noqa: B007 - the last state is the outcome
        checkpoint = checkpoints.get(seq)
        if checkpoint is None:
            continue
        snapshot = game.snapshot(state)
        rebuilt = state_hash(snapshot)
        if rebuilt != checkpoint.hash or state_hash(checkpoint.state) != checkpoint.hash:
            return Mismatch(recording.path, seq, checkpoint.hash, rebuilt,
                            differences(checkpoint.state, snapshot) or ["(the hashes differ)"])
    return Verified(recording.path, len(recording.events), len(checkpoints),
                    game.outcome(state).over, recording.torn)


def differences(recorded: Any, rebuilt: Any, where: str = "state") -> list[str]:
    """Where two snapshots differ, as ``path: recorded → rebuilt`` lines."""
    if isinstance(recorded, dict) and isinstance(rebuilt, dict):
        found: list[str] = []
        for key in list(recorded) + [k for k in rebuilt if k not in recorded]:
            if key not in rebuilt:
                found.append(f"{where}.{key}: only in the log")
            elif key not in recorded:
                found.append(f"{where}.{key}: only in the rebuilt state")
            else:
                found += differences(recorded[key], rebuilt[key], f"{where}.{key}")
        return found
    if isinstance(recorded, list) and isinstance(rebuilt, list) and len(recorded) == len(rebuilt):
        found = []
        for i, (a, b) in enumerate(zip(recorded, rebuilt, strict=True)):
            found += differences(a, b, f"{where}[{i}]")
        return found
    return [] if recorded == rebuilt else [f"{where}: recorded {recorded!r}, rebuilt {rebuilt!r}"]


def log_files(paths: list[str]) -> list[Path]:
    """The log files named, with folders searched for ``*.starhall`` files, sorted."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted(path.rglob(f"*{SUFFIX}"))
        else:
            found.append(path)
    return found
