"""A table as the server keeps it: the game (a ``Table`` and its log), the seating, the
spectators, and the bots playing there. Creating one writes its log; restoring one folds its
log back into a state, so the state is always the fold of what is on disk."""

from __future__ import annotations

import random
import secrets
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.seats import BOT, SeatRecord, load_seating, save_seating
from shared import protocol
from shared.bots import Bot, bot_kinds, make_bot
from shared.engine import Game, Outcome
from shared.logfile import SUFFIX, LogWriter
from shared.replay import Recording, load
from shared.table import Table

SEATING_SUFFIX = ".seats.json"


@dataclass(slots=True)
class LiveTable:
    id: str
    name: str
    table: Table[Any]
    seats: list[SeatRecord]
    folder: Path
    watchers: set[bytes] = field(default_factory=set)
    bots: dict[int, Bot] = field(default_factory=dict)
    """The bot objects for the seats whose state is ``bot``."""
    broken: bool = False
    bot_due: float | None = None
    """When the table's bots next act, if they are scheduled."""
    create_key: str | None = None
    """The SHA-256 of the ``key`` the ``create`` request carried, if any (kept in the log's
    header as ``create_key_sha256``), so a resent ``create`` finds this table."""
    _outcome: tuple[Any, Outcome] | None = field(default=None, repr=False)
    """The last state whose outcome was asked for, and that outcome."""

    @property
    def game(self) -> Game[Any]:
        return self.table.game

    @property
    def seq(self) -> int:
        return self.table.seq

    @property
    def outcome(self) -> Outcome:
        """The game's outcome now; worked out once per state (states are immutable), as a
        move asks for it several times."""
        state = self.table.state
        known = self._outcome
        if known is None or known[0] is not state:
            known = self._outcome = (state, self.table.game.outcome(state))
        return known[1]

    @property
    def over(self) -> bool:
        return self.outcome.over

    @property
    def filled(self) -> bool:
        return all(seat.state != protocol.FREE for seat in self.seats)

    @property
    def status(self) -> str:
        if self.broken:
            return "broken"
        if self.over:
            return protocol.OVER
        if self.table.seq > 0 or self.filled:
            return protocol.PLAYING
        return protocol.WAITING

    @property
    def seating_path(self) -> Path:
        return self.folder / f"{self.id}{SEATING_SUFFIX}"

    def save_seating(self) -> None:
        save_seating(self.seating_path, self.name, self.seats)

    def put_bot(self, seat: int, kind: str, *, standin: bool) -> None:
        self.seats[seat].seat_bot(kind, standin=standin)
        self.bots[seat] = make_bot(self.game, kind, random.Random(secrets.randbits(64)))

    def remove_bot(self, seat: int) -> None:
        self.bots.pop(seat, None)

    def participants(self) -> Iterator[bytes]:
        """Every session that follows the table, once each."""
        seen: set[bytes] = set()
        for seat in self.seats:
            if seat.session is not None and seat.session not in seen:
                seen.add(seat.session)
                yield seat.session
        for watcher in self.watchers:
            if watcher not in seen:
                seen.add(watcher)
                yield watcher

    def info(self) -> dict[str, Any]:
        game = self.game
        outcome = self.outcome
        seats = []
        for index, seat in enumerate(self.seats):
            connected = seat.state == BOT or seat.session is not None
            seats.append({"seat": index, "state": seat.state, "name": seat.name,
                          "connected": connected, "bot": seat.bot_kind, "standin": seat.standin})
        return {
            "id": self.id, "name": self.name, "game": game.id, "title": game.title,
            "players": self.table.players, "options": dict(self.table.options),
            "status": self.status, "seq": self.table.seq, "seats": seats,
            "spectators": len(self.watchers),
            "to_act": list(game.to_act(self.table.state)) if not self.broken else [],
            "scores": list(outcome.scores),
            "winners": None if outcome.winners is None else list(outcome.winners),
        }


def create_table(folder: Path, table_id: str, name: str, game: Game[Any], players: int,
                 options: Mapping[str, object], **info: Any) -> LiveTable:
    """A new table with its log on disk (``OptionError`` if the game refuses the options);
    ``info`` goes into the log's header too (a fork's ``forked_from``)."""
    path = folder / f"{table_id}{SUFFIX}"
    table = Table.new(game, players, options, path=str(path), table=table_id, name=name,
                      **info)
    live = LiveTable(table_id, name, table, [SeatRecord() for _ in range(players)], folder,
                     create_key=info.get("create_key_sha256"))
    live.save_seating()
    return live


def restore_tables(folder: Path) -> dict[str, LiveTable]:
    """Every table whose log is in ``folder``, rebuilt from the log; a log that cannot be read
    is reported and left alone rather than stopping the server."""
    tables: dict[str, LiveTable] = {}
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        table_id = path.name[: -len(SUFFIX)]
        try:
            live = restore_table(folder, table_id)
        except Exception as error:  # one damaged table must not keep the others down
            print(f"starhall serve: skipping table {table_id}: {error}", file=sys.stderr)
            continue
        tables[table_id] = live
    return tables


def restore_table(folder: Path, table_id: str) -> LiveTable:
    path = folder / f"{table_id}{SUFFIX}"
    writer, _ = LogWriter.reopen(path)  # truncates a torn tail before we read
    try:
        recording = load(path)
        state = recording.state_at(strict=False)  # its own log, CRC-checked: trusted
        table = Table(recording.game, recording.players, recording.options, state,
                      recording.last_seq, writer)
        saved_name, seats = load_seating(folder / f"{table_id}{SEATING_SUFFIX}",
                                         recording.players)
    except BaseException:
        writer.close()
        raise
    name = saved_name or str(recording.header.get("name") or table_id)
    create_key = recording.header.get("create_key_sha256")
    live = LiveTable(table_id, name, table, seats, folder,
                     create_key=create_key if isinstance(create_key, str) else None)
    remember_commands(seats, recording)
    for index, seat in enumerate(seats):
        if seat.state == BOT:
            kind = seat.bot_kind or "random"
            if kind not in bot_kinds(table.game):
                kind = "random"
            live.put_bot(index, kind, standin=seat.standin)
    return live


def remember_commands(seats: list[SeatRecord], recording: Recording) -> None:
    """Each seat's memory of the command ids its person already made, from the ids logged
    with the events (so a command resent after a restart is known as done)."""
    events = recording.events
    for seq, cid in recording.cids.items():  # in order: a command's last event wins
        number = events[seq - 1][1].seat
        if number is not None and 0 <= number < len(seats):
            seat = seats[number]
            if seat.token_sha256 is not None and seq > seat.since:
                seat.remember(cid, seq)


def next_table_id(tables: Mapping[str, LiveTable]) -> str:
    numbers = [int(key) for key in tables if key.isdigit()]
    return f"{max(numbers, default=0) + 1:04d}"
