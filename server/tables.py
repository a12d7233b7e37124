"""A table as the server keeps it: the game (a ``Table`` and its log), the seating, the
spectators, and the bots playing there. Creating one writes its log; restoring one resumes
from its log's last checkpoint (``Game.restore`` of the snapshot there, checked against its
hash) and folds only the events after it, so the state is always what is on disk, and a
restart does not take longer the longer the games have gone on.

The log is the one truth for who sits where: every change of a seat is a ``seating`` record
(with the owner's token only as a salted hash, ``server/seats.py``), appended with the batch
that made it and durable before anyone hears of it; a batch whose commit fails is undone,
seats included (``LiveTable.undo_seats``), so a write that fails changes nothing, and a
restart at any moment finds every seat as the last durable record left it.

A finished game never changes again, so a restart need not fold its log: when a game ends the
server writes ``<table>.summary.json`` beside the log (its length, where its last record starts
and that record's CRC, the last event's number, the scores, the seats). A restart trusts a
summary only if the log still has exactly that length and that last record, whole and with that
CRC; the table is then listed from the summary and the log's header, and its log is read only
when someone watches it (and not kept). A summary that is missing, torn or out of step with its
log (a crash between the two writes, a log cut back, logs from before summaries) is ignored:
the table is restored as a live one is (a finished game's log ends with a checkpoint, so
nothing is folded), and the summary written again.

A running server keeps a finished table the same way: once its game has ended and its last
events are durable and sent, the table rests (``LiveTable.rest``): it drops the game, what its
seats were shown, its command ids, its bots and its log writer, and keeps only what the lobby
shows of it. So the server's memory grows with the games being played, not with the games it
has hosted; whatever needs a finished game (a watch, a sync, a resent command, a bug report)
reads it from the log.

The command ids a table's people may send again (``Table.commands``) can go back further than
the last checkpoint (its ``cids_from`` says how far): they are read from the log only when
first needed, when a person's command is checked or before the table's next move
(``LiveTable.read_commands``), so that a restart still reads only the logs' tails.
"""

from __future__ import annotations

import functools
import gc
import json
import random
import secrets
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from starhall.server.durability import READ_ONLY, ReadOnly, StorageError
from starhall.server.fields import RequestError
from starhall.server.seats import SeatRecord, new_token_salt, token_hash
from starhall.server.stores import EmptyLog, FileStore, LogStore
from starhall.server.thinking import Thought
from starhall.shared import protocol
from starhall.shared.bots import Bot, bot_kinds, level_of, make_bot, reads_history
from starhall.shared.engine import Game, Outcome
from starhall.shared.games import get_game
from starhall.shared.logfile import (
    LogError,
    TableLog,
    check_header,
    make_header,
    read_records,
)
from starhall.shared.observation import Observation, SeatMemory
from starhall.shared.options import Options
from starhall.shared.replay import HEAD_BYTES, Recording, load, load_tail
from starhall.shared.seating import BOT, read_seats
from starhall.shared.table import Seating, Table

SUMMARY_FORMAT = 2
"""2: with the seats (``seats``, owners and all); 1 (older servers) without: their seating
file beside the log has them."""
MAX_HEADER_BYTES = 1 << 20
"""A header longer than this: the summary is not used, the log is folded."""
PROGRESS_SECONDS = 1.0
"""How often a long restore says how far it has got."""

T = TypeVar("T")
Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished game as its checked summary and its log's header give it."""

    game: Game[Any]
    players: int
    options: Options
    seq: int
    outcome: Outcome
    to_act: tuple[int, ...]
    name: str | None
    """The table's name in the header."""
    create_key: str | None
    seats: list[SeatRecord]
    """Who sat where as the game ended (an older server's summary: free, its seating file
    has them)."""
    token_salt: str


@dataclass(slots=True)
class LiveTable:
    id: str
    name: str
    loaded: Table[Any] | None
    """The game and its log; ``None`` for a finished table not yet read (``finished``)."""
    seats: list[SeatRecord]
    store: LogStore
    """Where its log and seating are kept (``server/stores.py``)."""
    finished: Finished | None = None
    """What a finished table's summary says, until its log is read."""
    read_only: bool = False
    """Nothing may be written: the seating is not changed, the log is not open."""
    _watchers: set[bytes] | None = field(default=None, repr=False)
    """The sessions watching (``watchers``); ``None`` until someone watches, and again when
    a game rests with nobody watching: an empty set weighs as much as a seat's record, and
    most finished tables are never watched."""
    bots: dict[int, Bot] = field(default_factory=dict)
    """The bot objects for the seats whose state is ``bot``."""
    broken: bool = False
    bot_due: float | None = None
    """When the table's bots next act, if they are scheduled."""
    before_batch: tuple[Any, int, Seating | None] | None = None
    """The state, seq and logged seating before the batch being handled changed them: what a
    failed commit goes back to."""
    stalled: str | None = None
    """Why the table's last commit failed, while it waits to write again."""
    create_key: str | None = None
    """The SHA-256 of the ``key`` the ``create`` request carried, if any (kept in the log's
    header as ``create_key_sha256``), so a resent ``create`` finds this table."""
    token_salt: str = ""
    """What its tokens' hashes are salted with (its log's header; ``""`` for a table made
    before salts)."""
    seats_before: list[SeatRecord] | None = field(default=None, repr=False)
    """The seats (and ``bots_before`` the bots) before the batch being handled first changed
    them: what a failed commit goes back to (``undo_seats``)."""
    bots_before: dict[int, Bot] | None = field(default=None, repr=False)
    commands_unread: bool = False
    """Whether the command ids its people may send again are still to be read from its log
    (they were logged before its last checkpoint): when a person's command is checked or
    before its next move (``read_commands``), not while the server starts."""
    think: float | None = None
    """Seconds a bot takes for a move at this table (its ``create``'s ``think``, kept in the
    log's header); ``None``: the server's ``--think``."""
    thought: Thought | None = None
    """The move a searching bot is thinking about in a worker, while it does."""
    memory_unread: bool = False
    """Whether what the seats of its bots were shown (their observations) is still to be read
    from its log: a restored table's, or one whose bot sat down after its first event, read
    before its bots' next move (``read_memory``), not while the server starts."""
    _outcome: tuple[Any, Outcome] | None = field(default=None, repr=False)
    """The last state whose outcome was asked for, and that outcome."""

    @property
    def watchers(self) -> set[bytes]:
        """The sessions watching the table (made when first asked for)."""
        watchers = self._watchers
        if watchers is None:
            watchers = self._watchers = set()
        return watchers

    @property
    def table(self) -> Table[Any]:
        """The game; a finished table's is read from its log each time it is asked for and
        not kept (a watch, a sync, a resent command: rare next to the games it outlives)."""
        loaded = self.loaded
        return loaded if loaded is not None else self._read_finished()

    def _read_finished(self, *, cids: bool = False) -> Table[Any]:
        """A finished table's game from its log's last checkpoint; with ``cids``, from as far
        back as the command ids its people may send again were logged."""
        try:
            recording = load_tail(self.store.source(self.id), cids=cids,
                                  data=self.store.read(self.id))
            state = recording.resume().state
        except Exception as error:  # damaged since its summary was written
            self.broken = True
            print(f"starhall serve: table {self.id}: {error}", file=sys.stderr)
            raise RequestError(protocol.BROKEN, f"the log of table {self.id} cannot be read",
                               table=self.id) from None
        return Table(recording.game, recording.players, recording.options, state,
                     recording.last_seq, None, commands=recording.command_memory())

    @property
    def reads_log(self) -> bool:
        """Whether its next request may read its log back (a finished game, command ids or
        bots' memory still to be read): the server has the store read it off the loop
        first."""
        return self.loaded is None or self.commands_unread or self.memory_unread

    def command_done(self, number: int, cid: int | str) -> int | None:
        """The ``seq`` of seat ``number``'s command ``cid`` if its person made it already
        (a table restored reads its log for this the first time, a finished one each time),
        else ``None``."""
        loaded = self.loaded
        if loaded is None:
            loaded = self._read_finished(cids=has_people(self.seats))
        elif self.commands_unread:
            self.read_commands()
        return loaded.commands.done(number, cid, self.seats[number].since)

    def rest(self) -> bool:
        """A finished game whose log is all durable drops its state, its seats' memory, its
        command ids, its bots and its log writer, and keeps what the lobby shows of it, as a
        restart keeps it from its summary (``finished``): whatever needs the game later reads
        it back from the log. So a server's memory follows the games being played, not how
        many it has hosted. Whether it rested (not a game still on, nor a broken table, nor a
        log with records not yet durable)."""
        loaded = self.loaded
        if loaded is None or self.broken or not self.over:
            return False
        log = loaded.log
        if log is not None:
            if log.appended_length != log.durable_length:
                return False
            log.abandon()  # a finished game is written no more
        self.finished = Finished(loaded.game, loaded.players, shared_options(loaded.options),
                                 loaded.seq, self.outcome,
                                 tuple(loaded.game.to_act(loaded.state)), self.name,
                                 self.create_key, self.seats, self.token_salt)
        for seat in self.seats:  # most are bots of a few kinds: one copy of each name and kind
            if seat.name is not None:
                seat.name = sys.intern(seat.name)
            if seat.bot_kind is not None:
                seat.bot_kind = sys.intern(seat.bot_kind)
        self.loaded = None
        self._outcome = None
        self.before_batch = None
        self.bots.clear()
        if not self._watchers:
            self._watchers = None
        self.commands_unread = self.memory_unread = False
        return True

    def read_commands(self) -> None:
        """Read the command ids its people made from its log, back to its last checkpoint's
        ``cids_from`` (before anything more is written there: a checkpoint says from where
        they are remembered)."""
        try:
            recording = load_tail(self.store.source(self.id), cids=True,
                                  data=self.store.read(self.id))
        except Exception as error:  # damaged since it was restored
            self.broken = True
            print(f"starhall serve: table {self.id}: {error}", file=sys.stderr)
            raise RequestError(protocol.BROKEN, f"the log of table {self.id} cannot be read",
                               table=self.id) from None
        self.table.commands = recording.command_memory()
        self.commands_unread = False

    def read_memory(self) -> bool:
        """What the seats of its bots were shown since the first event, read from the log,
        which holds every event so far; whether it could be: not while records of this batch
        wait to be written (a bot seated just after a move of this batch waits for the commit,
        as its events are not in the log yet)."""
        live = self.table
        log = live.log
        if log is not None and log.appended_length != log.written_length:
            return False
        try:
            recording = load(self.store.source(self.id), data=self.store.read(self.id))
            if recording.last_seq != live.seq:
                raise ValueError(f"the log holds {recording.last_seq} events, the table "
                               f"{live.seq}")
            memory = SeatMemory(live.game, live.players, live.options, self.remembering())
            states = recording.states(strict=False)
            _, before = next(states)
            for (_, event), (_, after) in zip(recording.events, states, strict=True):
                memory.add(before, event)
                before = after
        except Exception as error:  # damaged since it was restored
            self.broken = True
            print(f"starhall serve: table {self.id}: {error}", file=sys.stderr)
            raise RequestError(protocol.BROKEN, f"the log of table {self.id} cannot be read",
                               table=self.id) from None
        live.memory = memory
        self.memory_unread = False
        return True

    def observe(self, number: int) -> Observation:
        """What the bot of seat ``number`` is given to choose its move now (``ValueError`` if
        its memory cannot be read yet: ``read_memory`` says when it can)."""
        bot = self.bots.get(number)
        if bot is not None and not reads_history(bot):
            return self.table.observe(number, history=False)
        if self.memory_unread:
            memory = self.table.memory
            kept = memory is not None and number in memory.seats  # another seat's is unread
            if not kept and not self.read_memory():
                raise ValueError(f"what seat {number} was shown is not in the log yet")
        return self.table.observe(number)

    def remembering(self) -> set[int]:
        """The seats whose bots read what their seat was shown (``reads_history``)."""
        return {number for number, bot in self.bots.items() if reads_history(bot)}

    def keep_memory(self) -> None:
        """Keep what the seats of its bots are shown, and nothing where no bot sits (nor where
        its bot never reads it: ``reads_history``): at a
        table without events yet from its first event on, else read from its log before its
        bots' next move (``read_memory``). After every change of its bots."""
        loaded = self.loaded
        if loaded is None:  # a finished game: nobody moves
            return
        seats = self.remembering()
        if not seats:
            loaded.memory = None
            self.memory_unread = False
            return
        memory = loaded.memory
        if self.memory_unread or (memory is not None and memory.seats >= seats):
            return
        if loaded.seq == 0:
            loaded.remember(seats)
        else:
            self.memory_unread = True

    def forget_memory(self) -> None:
        """The table went back to an earlier event (a batch undone): its bots' memory holds
        events that are no more, so it is read from the log, cut back too, before their next
        move."""
        loaded = self.loaded
        if loaded is not None and loaded.memory is not None:
            loaded.memory = None
            self.memory_unread = True

    def _summary(self) -> Finished:
        """What a table not read yet is known by: its summary (it has one, or it is read)."""
        finished = self.finished
        if finished is None:
            raise AssertionError(f"table {self.id} has neither a game nor a summary")
        return finished

    # The properties below run several times a move: each looks at ``loaded`` once.

    @property
    def game(self) -> Game[Any]:
        loaded = self.loaded
        return loaded.game if loaded is not None else self._summary().game

    @property
    def seq(self) -> int:
        loaded = self.loaded
        return loaded.seq if loaded is not None else self._summary().seq

    @property
    def log(self) -> TableLog | None:
        """The open log, if the table has one (not a finished or read-only one)."""
        loaded = self.loaded
        return loaded.log if loaded is not None else None

    @property
    def outcome(self) -> Outcome:
        """The game's outcome now; worked out once per state (states are immutable), as a
        move asks for it several times."""
        loaded = self.loaded
        if loaded is None:
            return self._summary().outcome
        state = loaded.state
        known = self._outcome
        if known is None or known[0] is not state:
            known = self._outcome = (state, loaded.game.outcome(state))
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
        if self.outcome.over:
            return protocol.OVER
        if self.seq > 0 or self.filled:
            return protocol.PLAYING
        return protocol.WAITING

    def durable_log(self) -> bytes:
        """The log as far as it is on disk for sure: every event anyone was told of (not what
        a commit under way is writing)."""
        data = self.store.read(self.id)
        log = self.log
        return data if log is None else data[:log.durable_length]

    def hash_token(self, token: str) -> str:
        """What the table's seats keep of a token (``SeatRecord.holds`` compares it)."""
        return token_hash(token, self.token_salt)

    # --- changing the seating: in memory, then in the log with the batch ------------------

    def change_seat(self, number: int, change: Callable[[SeatRecord], T]) -> T:
        """Apply ``change`` to seat ``number`` (``ReadOnly`` on a read-only server). The
        master records it in the log with the batch (``record_seating``); should that commit
        fail, ``undo_seats`` puts the seats back as they were before the batch."""
        if self.read_only:
            raise ReadOnly()
        loaded = self.loaded
        if loaded is not None and loaded.log is not None:
            if loaded.seats is None:
                raise RequestError(READ_ONLY, f"the log of table {self.id} is of an older "
                                   "format that cannot record who sits where")
            if self.seats_before is None:
                self.seats_before = [seat.copy() for seat in self.seats]
                self.bots_before = dict(self.bots)
        # (a finished game's log is complete: its seats change in memory alone)
        return change(self.seats[number])

    def undo_seats(self) -> list[tuple[int, SeatRecord]]:
        """Put the seats and their bots back as they were before this batch changed them
        (its commit failed); the seats whose owner or session that changed, as they were
        before the undoing."""
        before, bots = self.seats_before, self.bots_before
        self.seats_before = self.bots_before = None
        if before is None or bots is None:
            return []
        changed = [(number, seat.copy()) for number, (seat, old) in
                   enumerate(zip(self.seats, before, strict=True))
                   if seat.token_sha256 != old.token_sha256 or seat.session != old.session]
        for seat, old in zip(self.seats, before, strict=True):
            seat.assign(old)
        self.bots = bots
        self.keep_memory()
        return changed

    def seat_person(self, number: int, name: str, *, since: int = 0,
                    token: str | None = None, key_salt: str | None = None) -> str:
        """Give a free seat to a person at event ``since``; returns their token (a new one
        unless ``token`` is given, with the ``key_salt`` it was made with if it is keyed)."""
        return self.change_seat(number, lambda seat: seat.seat_person(
            name, since=since, token=token, key_salt=key_salt, salt=self.token_salt))

    def put_bot(self, number: int, kind: str, *, standin: bool) -> None:
        bot = make_bot(self.game, kind, random.Random(secrets.randbits(64)))
        level = level_of(self.game, kind)
        self.change_seat(number, lambda seat: seat.seat_bot(kind, standin=standin, level=level))
        self.bots[number] = bot
        self.keep_memory()

    def end_standin(self, number: int) -> None:
        """The seat's person takes it back from their stand-in bot."""
        self.change_seat(number, SeatRecord.end_standin)
        self.bots.pop(number, None)
        self.keep_memory()

    def free_seat(self, number: int) -> None:
        self.change_seat(number, SeatRecord.free)
        self.bots.pop(number, None)
        self.keep_memory()

    def record_seating(self) -> bool:
        """Append a ``seating`` record for each seat the log does not show as it now is (after
        a change of the seats); whether there was one. None for a log that does not record
        seating (format 1), a game over (its log is complete), a broken or read-only table.
        The records are written with the next commit."""
        loaded = self.loaded
        if (loaded is None or loaded.log is None or loaded.seats is None or self.broken
                or self.read_only or self.over):
            return False
        changed = False
        for number, seat in enumerate(self.seats):
            logged = seat.logged()
            if loaded.seats[number] != logged:
                loaded.reseat(number, logged)
                changed = True
        return changed

    def _start_bot(self, number: int, kind: str) -> None:
        """The bot object of a seat the log gives a bot (nothing is written)."""
        self.bots[number] = make_bot(self.game, kind, random.Random(secrets.randbits(64)))

    # --- the summary of a finished game -------------------------------------------------------

    def write_summary(self) -> None:
        """Write the summary of a finished game (after its last event is on disk). It is not
        synced: a summary lost or torn in a crash is ignored on the next start."""
        log = self.log
        if (not self.store.summaries or self.read_only or log is None or log.last_record is None
                or not self.over):
            return
        if log.durable_length != log.written_length:
            return
        offset, crc = log.last_record
        write_summary(self, log.durable_length, offset, crc)

    def participants(self) -> Iterator[bytes]:
        """Every session that follows the table, once each."""
        seen: set[bytes] = set()
        for seat in self.seats:
            if seat.session is not None and seat.session not in seen:
                seen.add(seat.session)
                yield seat.session
        for watcher in self._watchers or ():
            if watcher not in seen:
                seen.add(watcher)
                yield watcher

    def info(self) -> dict[str, Any]:
        game = self.game
        outcome = self.outcome
        seats = [{"seat": index, **seat.public(),
                  "connected": seat.state == BOT or seat.session is not None}
                 for index, seat in enumerate(self.seats)]
        finished = self.finished if self.loaded is None else None
        if finished is not None:
            players, options, to_act = finished.players, finished.options, finished.to_act
        else:
            players, options = self.table.players, self.table.options
            to_act = game.to_act(self.table.state) if not self.broken else ()
        return {
            "id": self.id, "name": self.name, "game": game.id, "title": game.title,
            "players": players, "options": dict(options),
            "status": self.status, "seq": self.seq, "seats": seats,
            "spectators": len(self._watchers or ()),
            "to_act": list(to_act) if not self.broken else [],
            "scores": list(outcome.scores),
            "winners": None if outcome.winners is None else list(outcome.winners),
        }


def shared_options(options: Options) -> Options:
    """Equal options of finished games as one dict (only read once a game is over): most
    tables of a server are played with a few sets of options, and a finished table's record
    is what its memory grows by, game after game."""
    try:
        # Each value's type in the key too: True == 1 == 1.0, but they are different options.
        return _options_like(tuple((name, type(value), value)
                                   for name, value in options.items()))
    except TypeError:  # a value that cannot be hashed: kept as it is
        return options


@functools.lru_cache(maxsize=64)
def _options_like(items: tuple[tuple[str, type, Any], ...]) -> Options:
    return {name: value for name, _, value in items}


def write_summary(live: LiveTable, length: int, last_record: int, crc: int) -> None:
    outcome = live.outcome
    body = {
        "format": SUMMARY_FORMAT, "log_bytes": length, "last_record": last_record,
        "last_crc": crc, "seq": live.seq, "over": outcome.over,
        "scores": list(outcome.scores),
        "winners": None if outcome.winners is None else list(outcome.winners),
        "to_act": list(live.game.to_act(live.table.state)),
        # The seats (owners' token hashes and all): a restart lists the table from here.
        "seats": [seat.logged() for seat in live.seats],
    }
    body["check"] = _summary_check(body)
    try:
        live.store.keep_summary(live.id, json.dumps(body).encode("utf-8"))
    except OSError as error:  # only the next start is slower
        print(f"starhall serve: table {live.id}: writing its summary: {error}", file=sys.stderr)


def _summary_check(body: dict[str, Any]) -> int:
    """The CRC-32 of a summary's other fields (so a damaged summary is not believed)."""
    fields = {key: value for key, value in body.items() if key != "check"}
    return zlib.crc32(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode())


def read_summary(store: LogStore, table_id: str) -> Finished | None:
    """The finished game a table's summary describes, if it is a summary of exactly its log as
    the store holds it; else ``None`` (the log must be folded)."""
    try:
        kept = store.summary(table_id)
        if kept is None:
            return None
        summary = json.loads(kept)
    except (OSError, ValueError):
        return None
    source = store.source(table_id)
    try:
        if summary["format"] not in (1, SUMMARY_FORMAT) or summary["over"] is not True:
            return None
        if summary["check"] != _summary_check(summary):
            return None
        length, start, crc, seq = (summary["log_bytes"], summary["last_record"],
                                   summary["last_crc"], summary["seq"])
        scores, winners, to_act = summary["scores"], summary["winners"], summary["to_act"]
        if not all(type(n) is int for n in (length, start, crc, seq, *scores, *to_act)):
            return None
        if winners is not None and (type(winners) is not list
                                    or not all(type(n) is int for n in winners)):
            return None
        if not 0 < start < length:
            return None
        size, head, tail = store.read_ends(table_id, min(start, HEAD_BYTES), start)
        if size != length:
            return None
        records, _ = read_records(head, source, limit=1)
        if not records and start > len(head):  # a long header: read on up to the tail
            head = store.read_range(table_id, 0, min(start, MAX_HEADER_BYTES))
            records, _ = read_records(head, source, limit=1)
        last, good = read_records(tail, source)
        if not records or len(last) != 1 or good != len(tail):
            return None
        if int.from_bytes(tail[-4:], "big") != crc or last[0][1].get("seq") != seq:
            return None
        header = records[0][1]
        check_header(header, source)
        game = get_game(header["game"])
        if header.get("rules") != game.rules_version:
            return None
        players = header["players"]
        options = game.make_options(players, header.get("options", {}))
        if len(scores) != players:
            return None
        seats = [SeatRecord() for _ in range(players)] if summary["format"] == 1 else [
            SeatRecord.from_logged(seat) for seat in read_seats(summary["seats"], players)]
    except (OSError, LogError, KeyError, TypeError, ValueError):
        return None
    outcome = Outcome(True, tuple(scores), None if winners is None else tuple(winners))
    name, key, salt = (header.get("name"), header.get("create_key_sha256"),
                       header.get("token_salt"))
    return Finished(game, players, options, seq, outcome, tuple(to_act),
                    name if isinstance(name, str) else None,
                    key if isinstance(key, str) else None, seats,
                    salt if isinstance(salt, str) else "")


def create_table(where: Path | LogStore, table_id: str, name: str, game: Game[Any],
                 players: int, options: Mapping[str, object], *, log: TableLog | None = None,
                 token_salt: str | None = None, **info: Any) -> LiveTable:
    """A new table with its log in its store (a folder, by default), every seat free:
    ``OptionError`` if the game refuses the options; ``StorageError`` if it could not be
    written, and then nothing is left; ``info`` goes into the log's header too (a fork's
    ``forked_from``). ``log``: its log, made already with the header ``table_header`` gives
    (``LogStore.start_create``), with ``token_salt`` in it."""
    store = as_store(where)
    salt = token_salt or new_token_salt()
    try:
        table = Table.new(game, players, options, table=table_id, name=name, token_salt=salt,
                          open_log=(lambda header: store.create_log(table_id, header))
                          if log is None else (lambda header: log), **info)
    except OSError as error:
        raise StorageError(error) from error
    live = LiveTable(table_id, name, table, [SeatRecord() for _ in range(players)], store,
                     create_key=info.get("create_key_sha256"), think=info.get("think"),
                     token_salt=salt)
    if table.log is not None:
        table.log.spill_bytes = None  # the server's commits alone write
    return live


def table_header(game: Game[Any], players: int, options: Mapping[str, object], table_id: str,
                 name: str, **info: Any) -> dict[str, Any]:
    """The header of a new table's log, as ``create_table`` makes it (``info`` holding its
    ``token_salt``)."""
    return make_header(game.id, game.rules_version, players,
                       game.make_options(players, options), None, table=table_id, name=name,
                       **info)


def as_store(where: Path | LogStore) -> LogStore:
    """A folder as the ``FileStore`` of its files; a store as it is."""
    return FileStore(where) if isinstance(where, Path) else where


def restore_tables(where: Path | LogStore, *, read_only: bool = False,
                   say: Say | None = None) -> dict[str, LiveTable]:
    """Every table of a store (of this node's, on a store several nodes share): finished ones
    from their summaries, the others rebuilt from their logs; a log that cannot be read is
    reported and left alone rather than stopping the server. ``say`` hears how far it has
    got."""
    # Reading thousands of tables makes many objects and no cycles: the cyclic collector's
    # full passes would only go over them again and again (about a tenth of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _restore_tables(as_store(where), read_only, say)
    finally:
        if collecting:
            gc.enable()


def _restore_tables(store: LogStore, read_only: bool, say: Say | None
                    ) -> dict[str, LiveTable]:
    if not read_only:
        store.tidy()
    table_ids = store.table_ids()
    tables: dict[str, LiveTable] = {}
    if not table_ids:
        return tables
    started = time.monotonic()
    progress = Progress(say)
    progress.line(f"restoring {len(table_ids)} tables from {store.where}…")
    to_rebuild: list[str] = []
    for table_id in table_ids:
        if not read_only and not store.restores_at_start(table_id):  # another node's
            continue
        finished = read_summary(store, table_id)
        if finished is None:
            to_rebuild.append(table_id)
            continue
        try:
            tables[table_id] = _finished_table(store, table_id, finished, read_only)
        except Exception as error:  # a damaged seating file: the table is skipped, as below
            print(f"starhall serve: skipping table {table_id}: {error}", file=sys.stderr)
        progress.step(f"listed {len(tables)} finished tables from their summaries")
    listed = len(tables)
    if to_rebuild and listed:
        progress.line(f"{listed} finished tables listed from their summaries; rebuilding "
                      f"{len(to_rebuild)} from their logs' last checkpoints…")
    events = folded = 0
    for done, table_id in enumerate(to_rebuild, 1):
        try:
            live, resumed = _restore_table(store, table_id, read_only)
        except EmptyLog:
            continue
        except Exception as error:  # one damaged table must not keep the others down
            print(f"starhall serve: skipping table {table_id}: {error}", file=sys.stderr)
            continue
        tables[table_id] = live
        events += live.seq
        folded += live.seq - resumed
        progress.step(f"rebuilt {done} of {len(to_rebuild)} tables from their last checkpoints "
                      f"({events:,} events, {folded:,} of them folded)")
    live_count = sum(1 for table in tables.values() if not table.over)
    progress.line(f"restored {len(tables)} tables from {store.where} ({live_count} live, "
                  f"{listed} from summaries; {events:,} events in the others, {folded:,} "
                  f"folded after their last checkpoints) in {time.monotonic() - started:.1f} s")
    return tables


class Progress:
    """Says a line at the start and the end, and one a second in between."""

    def __init__(self, say: Say | None) -> None:
        self.say = say
        self.next = time.monotonic() + PROGRESS_SECONDS

    def line(self, text: str) -> None:
        if self.say is not None:
            self.say(text)

    def step(self, text: str) -> None:
        if self.say is not None and time.monotonic() >= self.next:
            self.next = time.monotonic() + PROGRESS_SECONDS
            self.say(text)


def _finished_table(store: LogStore, table_id: str, finished: Finished,
                    read_only: bool) -> LiveTable:
    legacy = store.legacy_seating(table_id, finished.players)
    return LiveTable(table_id, finished.name or table_id, None,
                     finished.seats if legacy is None else legacy, store,
                     finished, read_only, create_key=finished.create_key,
                     token_salt=finished.token_salt)


def restore_table(folder: Path, table_id: str, *, read_only: bool = False) -> LiveTable:
    """A table of a folder rebuilt from its log's last checkpoint and the events after it,
    with its log open for appending (unless ``read_only``); a finished one gets its summary
    written again."""
    return _restore_table(FileStore(folder), table_id, read_only)[0]


def restore_from_store(store: LogStore, table_id: str, *, read_only: bool = False
                       ) -> LiveTable:
    """One table of a store, from its log's last checkpoint (a node taking a table over)."""
    return _restore_table(store, table_id, read_only)[0]


def _restore_table(store: LogStore, table_id: str, read_only: bool) -> tuple[LiveTable, int]:
    """``restore_table``, and the event its state was resumed after (0: folded from the
    start). A finished game is written no more: it gets its summary (where the store keeps
    them) and rests, as the summary will list it next time."""
    recording, writer = store.open_tail(table_id, read_only=read_only)
    live, since = _rebuilt(store, table_id, recording, writer, read_only)
    if live.over:
        if writer is not None:
            if store.summaries:
                crc = int.from_bytes(
                    store.read_range(table_id, recording.good_length - 4, 4), "big")
                write_summary(live, recording.good_length, recording.last_record, crc)
            writer.abandon()
            live.table.log = None
        live.rest()
    return live, since


def _rebuilt(store: LogStore, table_id: str, recording: Recording, writer: TableLog | None,
             read_only: bool) -> tuple[LiveTable, int]:
    """The table a recording read from its last checkpoint resumes, appending to ``writer``
    (closed if this fails), and the event its state was resumed after; its seats as its log
    says, or as an older server's seating file says while there is one (moved into the log
    now: ``_adopt_legacy_seating``)."""
    try:
        legacy = store.legacy_seating(table_id, recording.players)
        seats = legacy if legacy is not None else [
            SeatRecord.from_logged(seat) for seat in recording.seats_at()]
        resumed = recording.resume()  # its own log, CRC-checked: trusted
        if resumed.problem is not None:
            print(f"starhall serve: table {table_id}: {resumed.problem}; folded its whole log "
                  "instead", file=sys.stderr)
        state = resumed.state
        logged = [seat for seat in recording.seats_at() if seat is not None]
        table = Table(recording.game, recording.players, recording.options, state,
                      recording.last_seq, writer,
                      tuple(logged) if len(logged) == recording.players else None,
                      commands=recording.command_memory())
    except BaseException:
        if writer is not None:
            writer.abandon()
        raise
    header = recording.header
    name = str(header.get("name") or table_id)
    create_key, salt = header.get("create_key_sha256"), header.get("token_salt")
    live = LiveTable(table_id, name, table, seats, store, read_only=read_only,
                     create_key=create_key if isinstance(create_key, str) else None,
                     commands_unread=has_people(seats) and not recording.holds_cids,
                     think=_think_of(header), token_salt=salt if isinstance(salt, str) else "")
    for index, seat in enumerate(seats):
        if seat.state == BOT:
            kind = seat.bot_kind or "random"
            if kind not in bot_kinds(table.game):
                kind = "random"
            live._start_bot(index, kind)
    live.keep_memory()  # at any seq, 0 included: its bots' memory is read from its log
    if legacy is not None and writer is not None:
        _adopt_legacy_seating(live, writer)
    return live, resumed.since


def _adopt_legacy_seating(live: LiveTable, writer: TableLog) -> None:
    """Record in a live table's log the seats an older server's seating file gives it (owners
    and all), durably, and only then forget the file: from then on the log is their one
    truth. ``OSError`` if the log cannot be written (the table is skipped this time, its
    file kept for the next start). A log that cannot record seating (format 1) or a finished
    game's keeps its file."""
    store = live.store
    if live.record_seating():
        failed = store.commit([writer])
        if failed:
            store.rollback(writer)
            writer.abandon()
            raise OSError(f"cannot record its seating in its log ({failed[0][1]})")
    loaded = live.loaded
    if loaded is not None and loaded.seats is not None and not live.over:
        store.drop_legacy_seating(live.id)


def _think_of(header: Mapping[str, Any]) -> float | None:
    """The seconds a bot takes for a move at the table a header begins, if it says."""
    think = header.get("think")
    return float(think) if isinstance(think, int | float) and not isinstance(think, bool) \
        else None


def has_people(seats: list[SeatRecord]) -> bool:
    """Whether a person holds a seat (a stand-in bot may play it), who may send a command
    again: only then must the command ids logged before the last checkpoint be read. (At a
    table of bots nobody can; a person who sits there later starts with none, and the ids
    logged before are not theirs.)"""
    return any(seat.token_sha256 is not None for seat in seats)


def next_table_id(tables: Iterable[str]) -> str:
    numbers = [int(key) for key in tables if key.isdigit()]
    return f"{max(numbers, default=0) + 1:04d}"


@dataclass(slots=True)
class Listed:
    """A table another node serves, as its lease describes it (for the lobby)."""

    id: str
    status: str
    described: dict[str, Any]

    def info(self) -> dict[str, Any]:
        return self.described
