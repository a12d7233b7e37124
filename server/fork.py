"""Forking a recorded game: a new live table in the state after one of its events.

``plan_fork`` checks the request against the recording (strictly: every copied event is
re-decided from its command, as the live server would) and refuses a bad one with a
``ForkError`` before anything is written. ``write_fork`` then creates the table in a server's
data folder under a fresh id, the way the server creates one (``create_table``), and plays the
copied events into it through ``Table.submit``: the same commands, so the same events and
checkpoints, written by the same code. A server that starts on that folder restores the table;
the client sits down in the chosen seat and asks for bots in the others through the protocol.

The new log verifies on its own, and its header's ``forked_from`` names the source log (its
file name and the SHA-256 of its bytes; for a bug report, of the log it holds) and the last
copied event. It names who made the copied events, as the source does (its header's seats are
the source's at the start, and the source's seating records come along, without their owners),
and then frees every seat: the fork's people sit down anew.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starhall.server.seats import SEATING_SUFFIX, known_seating
from starhall.server.service import TABLES_FOLDER
from starhall.server.tables import create_table
from starhall.shared.logfile import BUG_SUFFIX, SUFFIX, log_bytes
from starhall.shared.protocol import FREE
from starhall.shared.replay import Recording, load
from starhall.shared.seating import public_seat, seat_entry


class ForkError(ValueError):
    """A fork that cannot be made from this recording: a bad event number or seat, or a game
    already over there. One line, for people."""


@dataclass(frozen=True, slots=True)
class ForkPlan:
    recording: Recording
    seq: int
    """The last event copied."""
    seat: int
    source_name: str
    """The source log's file name."""
    source_sha256: str

    @property
    def forked_from(self) -> dict[str, Any]:
        return {"log": self.source_name, "sha256": self.source_sha256, "seq": self.seq}

    @property
    def table_name(self) -> str:
        stem = self.source_name
        for suffix in (BUG_SUFFIX, SUFFIX):
            stem = stem.removesuffix(suffix)
        return f"Fork of {stem} at event {self.seq}"


@dataclass(frozen=True, slots=True)
class Forked:
    """A fork written to a data folder, ready for a server to restore."""

    table_id: str
    name: str
    path: Path
    seq: int
    seat: int
    players: int
    game: str


def plan_fork(path: str | Path, at: int | None = None, seat: int = 0,
              recording: Recording | None = None) -> ForkPlan:
    """Check a fork of the log (or bug report) at ``path`` after event ``at`` (default: the
    last), for a person in ``seat``. Raises ``ForkError`` for a request that cannot be met,
    ``LogError`` (``IllegalEvent``) for a log that cannot be read or breaks the rules before
    the fork point."""
    if recording is None:
        recording = load(path)
    last = recording.last_seq
    target = last if at is None else at
    where = Path(path).name
    if not 0 <= target <= last:
        raise ForkError(f"no event {target} to fork from: {where} has events 0 to {last}")
    if not 0 <= seat < recording.players:
        seats = ("only seat 0" if recording.players == 1
                 else f"seats 0 to {recording.players - 1}")
        raise ForkError(f"no seat {seat} to sit in: this {recording.game.id} game has {seats}")
    state = recording.state_at(target)  # strict: every copied event is re-decided
    if recording.game.outcome(state).over:
        raise ForkError(f"the game is over after event {target} of {where}; fork from an "
                        "earlier event")
    _, data = log_bytes(path)
    return ForkPlan(recording, target, seat, where, hashlib.sha256(data).hexdigest())


def fresh_table_id(folder: Path) -> str:
    """The id a server on ``folder`` would give its next table, and no file has yet."""
    numbers = [int(p.name[: -len(SUFFIX)]) for p in folder.glob(f"*{SUFFIX}")
               if p.name[: -len(SUFFIX)].isdigit()]
    number = max(numbers, default=0) + 1
    while ((folder / f"{number:04d}{SUFFIX}").exists()
           or (folder / f"{number:04d}{SEATING_SUFFIX}").exists()):
        number += 1
    return f"{number:04d}"


def write_fork(plan: ForkPlan, data: str | Path) -> Forked:
    """Create the forked table in the data folder ``data`` of a server (its tables go in
    ``data/tables``), every seat free; the events are written, checkpoints and all, by
    ``Table.submit`` as the server writes them."""
    recording = plan.recording
    game = recording.game
    folder = Path(data) / TABLES_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    table_id = fresh_table_id(folder)
    # The source's cast, so that a replay of the fork names who made the copied events.
    cast = known_seating(recording.seats_at(0), recording.path)
    live = create_table(folder, table_id, plan.table_name, game, recording.players,
                        recording.options, forked_from=plan.forked_from,
                        seats=[seat or seat_entry(FREE) for seat in cast])
    table = live.table
    changes = [change for change in recording.seat_changes if 0 < change[0] < plan.seq]
    try:
        while table.seq < plan.seq:
            table.submit(game.command_for(recording.events[table.seq][1]))
            while changes and changes[0][0] <= table.seq:
                _, number, seat = changes.pop(0)
                table.reseat(number, public_seat(seat))  # the source's owners stay there
        if table.seq != plan.seq:  # event SEQ was not the last of its command's events
            raise ForkError(f"event {plan.seq} is in the middle of a move: fork after "
                            f"event {table.seq} instead")
        live.record_seating()  # then the cast leaves: every seat is free
    except BaseException:
        if table.log is not None:
            table.log.close()
        live.table.log = None
        (folder / f"{table_id}{SUFFIX}").unlink(missing_ok=True)
        raise
    assert table.log is not None
    table.log.close()
    return Forked(table_id, plan.table_name, folder / f"{table_id}{SUFFIX}", plan.seq,
                  plan.seat, recording.players, game.id)


def fork(path: str | Path, data: str | Path, at: int | None = None, seat: int = 0) -> Forked:
    """``plan_fork`` then ``write_fork``."""
    return write_fork(plan_fork(path, at, seat), data)
