"""The table master: every table of a server and the pipeline a request goes through, with
no transport (``server/service.py`` moves the bytes and keeps the time).

Plain data in: ``handle`` takes one client's frames as the transport received them (the
client's identity and the encoded request), and the loop's turns ask the bots to move
(``bots``) and the clock to tick (``housekeeping``). Frames out: ``commit`` makes what the
turn wrote durable and gives the (identity, frame) pairs to send, in order, the mover's own
update first; a test drives it with no socket at all (``tests/test_master.py``).

Each turn of the loop: read a batch of messages (each handled to the end: authenticate,
check, decide, append, evolve), let due bots move, answer the games' chance requests, then
commit (fsync every log written, together) and only then send what the batch produced. The
events' cuts and the views that updates and snapshots carry are built as each message is sent
(``server/rendering.py``), so the sync does not wait for them and the mover's own update, sent
first, does not wait for everyone else's. One thread owns all state, so no table needs a
lock; the fsyncs of a busy batch run side by side on a small pool. A person's move does not
wait for the end of its batch to be written: its log's sync starts as soon as its events are
appended (``GroupCommit.head_start``, on a thread that needs no GIL), and while the disk works
the loop answers, publishes and builds the batch's first frame (the mover's update); the
commit then only waits, and the other frames are built once that one is sent. A store that
waits for the network (JetStream) is waited for only ``commit_patience``: past that, the
commit's tables wait for it alone, and the loop serves everyone else meanwhile.

Per command: the token names the seat → the client command id (a repeat is acknowledged
again, not applied) → the last-seen sequence number (stale is refused) → the engine decides →
the log gets the events → the state evolves → every participant gets the events as its seat
(or a spectator) may see them.
"""

from __future__ import annotations

import concurrent.futures
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starhall.server import fields
from starhall.server.bot_turns import BotTurns
from starhall.server.config import ServerConfig
from starhall.server.durability import (
    READ_ONLY,
    STORAGE,
    FolderLock,
    ReadOnly,
    StorageError,
    check_writable,
    storage_reason,
)
from starhall.server.fields import RequestError
from starhall.server.games_cli import game_info
from starhall.server.history import HistoryDesk
from starhall.server.leases import Leases, Waiting
from starhall.server.lobby import Lobby
from starhall.server.rendering import Frames, LaterEvents, LaterView, Outgoing, table_of
from starhall.server.reports import ReportDesk, ReportStore
from starhall.server.seating_desk import SeatingDesk
from starhall.server.seats import SeatRecord, token_hash
from starhall.server.sessions import Outbox, Session, Viewer
from starhall.server.stores import Commit, FileStore, LogStore, TableLost
from starhall.server.tables import (
    LiveTable,
    restore_tables,
)
from starhall.shared import protocol
from starhall.shared.engine import Command, Event, IllegalCommand
from starhall.shared.games import GAMES
from starhall.shared.logfile import TableLog
from starhall.shared.shuffle import new_seed, shuffle_command
from starhall.shared.table import Seating

TABLES_FOLDER = "tables"
LOCK_FILE = ".serve.lock"
"""In the tables' folder (hidden: a restore passes it over), the file a running server locks."""
THOUGHT_POLL = 0.01
"""Seconds the loop waits for messages at most while a bot thinks in a worker: how soon after
it answers its move is played."""
COMMIT_POLL = 0.002
"""Seconds the loop waits for messages at most while a commit is under way: how soon after
it ends its replies go out."""
STORE_POLL = 0.01
"""Seconds the loop waits for messages at most while it awaits the store (a table being
created, taken over or read): how soon after that ends its requests are answered."""
Handler = Callable[[Session, dict[str, Any], Any], None]
Deferred = tuple[bytes, dict[str, Any], Any, Handler]
"""A request that waits for its table's commit: who sent it, the request, its rid, its
handler."""


@dataclass(slots=True)
class InFlight:
    """A commit and what waits for it: the logs' tables, and the batch's messages about them
    (the first frame perhaps built already, while the store worked)."""

    commit: Commit
    logs: dict[TableLog, LiveTable]
    tables: list[LiveTable]
    messages: list[Outgoing]
    frames: Frames
    first: bytes | Exception | None
    started: float
    """When the commit was started (``time.monotonic``), for its latency."""


class TableMaster:
    def __init__(self, config: ServerConfig, *, store: LogStore | None = None,
                 message_waiting: Callable[[], bool] = lambda: False) -> None:
        """``store``: where the tables are kept, if not where ``config`` says;
        ``message_waiting``: whether a client's message waits (the bots then stop early)."""
        self.config = config
        self.folder = Path(config.data) / TABLES_FOLDER
        self.store: LogStore
        self.folder_lock: FolderLock | None = None
        """Held while the server runs: no other may write its tables meanwhile."""
        if store is not None:
            self.store = store
        elif config.store is None:
            self._check_folder()
            self.folder_lock = None if config.read_only else FolderLock(
                self.folder / LOCK_FILE, f"{self.folder}: another starhall serve runs on it")
            self.store = FileStore(self.folder)
        else:
            from starhall.server.jetstream import JetStreamStore  # only a cluster needs NATS

            self.store = JetStreamStore(config.store, lease_seconds=config.lease_seconds,
                                        stream=config.stream, replicas=config.replicas,
                                        access_file=config.store_access)
        self.message_waiting = message_waiting
        try:
            self.tables: dict[str, LiveTable] = restore_tables(
                self.store, read_only=config.read_only, say=config.say)
            self.reports = ReportStore(Path(config.data), config.max_reports,
                                       config.reports_per_session, read_only=config.read_only)
        except BaseException:
            self.store.close()
            if self.folder_lock is not None:
                self.folder_lock.release()
            raise
        self.stalled: dict[str, float] = {}
        """Tables whose log could not be written, and when they next try."""
        self.sessions: dict[bytes, Session] = {}
        self.outbox = Outbox()
        self.dirty: dict[str, LiveTable] = {}
        """Tables with events not yet fsynced."""
        self.in_flight: list[InFlight] = []
        """Commits the loop went on without, oldest first."""
        self.frozen: dict[str, InFlight] = {}
        """Tables whose commit is under way: nothing is done at them until it ends."""
        self.deferred: dict[str, list[Deferred]] = {}
        """Requests about a frozen or loading table, handled in order once its commit, or
        its load, has ended."""
        self.loading: dict[str, concurrent.futures.Future[Any]] = {}
        """Tables the store is reading or claiming for this node (a takeover, a log read
        back): their requests wait for it, nobody else does."""
        self.awaiting: list[tuple[concurrent.futures.Future[Any], Callable[[Any], None],
                                  str | None]] = []
        """What the loop awaits of the store, with what to do once it is done (on the loop),
        and the table it holds up, if any."""
        self.changed_rosters: dict[str, LiveTable] = {}
        """Tables whose participants should get a fresh ``table`` message."""
        self.created_keys: dict[str, str] = {
            table.create_key: table.id for table in self.tables.values() if table.create_key}
        """Tables made by a keyed ``create``: the key's SHA-256 → the table's id."""
        self.games_info = [game_info(GAMES[game_id]) for game_id in sorted(GAMES)]
        self.moves = 0
        """Game events appended since start (the benchmark and ``/metrics`` read it)."""
        self.commands = 0
        """Commands the rules accepted since start, people's and bots' (``/metrics``)."""
        self.refusals: dict[str, int] = {}
        """Errors sent since start, by code (``/metrics``)."""
        self.commit_timer: Callable[[float], None] | None = None
        """Told each commit's latency, in seconds (``server/figures.py``), when it is watched."""
        self.draining = False
        """Stopping on purpose: no new table is made here (``server/drain.py``)."""
        self.instance = secrets.token_hex(8)
        """Names this run of the server in ``welcome`` and ``pong``: a client that sees it
        change knows the server restarted and forgot its session."""
        self._next_housekeeping = 0.0
        self.leases = Leases(self)
        """Which tables this node serves, of the whole service's."""
        self.bot_turns = BotTurns(self)
        """When each table's bots move, and the workers searching bots think in."""
        self.lobby = Lobby(self)
        self.seating = SeatingDesk(self)
        self.report_desk = ReportDesk(self)
        self.history_desk = HistoryDesk(self)
        self._handlers: dict[str, Handler] = {
            protocol.HELLO: self.lobby.hello, protocol.PING: self.lobby.ping,
            protocol.LIST: self.lobby.list_tables,
            protocol.CREATE: self.lobby.create, protocol.SIT: self.seating.sit,
            protocol.RESUME: self.seating.resume, protocol.LEAVE: self.seating.leave,
            protocol.WATCH: self.seating.watch, protocol.UNWATCH: self.seating.unwatch,
            protocol.BOT: self.seating.bot, protocol.UNBOT: self.seating.unbot,
            protocol.ACT: self._act,
            protocol.SYNC: self.seating.sync, protocol.REPORT: self.report_desk.report,
            protocol.HISTORY: self.history_desk.history,
        }
        for table in self.tables.values():
            self.advance(table)

    def _check_folder(self) -> None:
        """A server must be able to write its data folder (or be told it is read-only)."""
        if self.config.read_only:
            if not self.folder.is_dir():
                raise OSError(f"--read-only: {self.folder} is no folder of tables")
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            check_writable(self.folder)
        except OSError as error:
            why = error.strerror or str(error)
            raise OSError(f"cannot write the data folder {self.folder} ({why}); make room or "
                          "fix its permissions, or serve its tables to watch with --read-only"
                          ) from None

    # --- the loop's turns -------------------------------------------------------------

    def advertise(self, address: str, key: str | None = None) -> None:
        """Where this node's clients reach it (the transport's address) and its public key,
        for the leases and the list of the service's nodes."""
        self.store.advertise(address, key)
        self.leases.describe()

    def bots(self, people_waiting: bool) -> bool:
        """The bots' part of a loop turn: the moves the workers thought of, then the due bots'
        moves; whether they stopped early because a client's message waits."""
        # While people wait for their replies, bots get only a moment before the commit;
        # one who speaks while the bots play is answered in this turn's commit, not
        # after the rest of the bots' turn and its commit.
        budget = self.config.bot_budget
        self.bot_turns.collect_thoughts()
        return self.bot_turns.run(min(budget, self.config.people_wait) if people_waiting
                                  else budget)

    def housekeeping(self) -> None:
        """The clock's part of a loop turn: sessions timed out, leases, stalled tables."""
        self._housekeeping()

    def wait_seconds(self) -> float:
        """How long the loop may wait for a message before the master has work of its own."""
        wait = 0.1  # also how soon a stop request is noticed
        bot_turns = self.bot_turns
        if bot_turns.bot_queue:
            wait = min(wait, bot_turns.bot_queue[0][0] - time.monotonic())
        if bot_turns.thinking:
            wait = min(wait, THOUGHT_POLL)
        if self.in_flight:
            wait = min(wait, COMMIT_POLL)
        if self.awaiting:
            wait = min(wait, STORE_POLL)
        return max(0.0, wait)

    def await_store(self, future: concurrent.futures.Future[Any], then: Callable[[Any], None],
                    table_id: str | None = None) -> None:
        """Have ``then(future)`` run on the loop once ``future`` (the store's work on its own
        thread) is done, the loop serving everyone meanwhile; with ``table_id``, that table's
        requests wait for it. Done already: at once."""
        if future.done() and table_id is None:
            then(future)
            return
        if table_id is not None:
            self.loading[table_id] = future
        self.awaiting.append((future, then, table_id))

    def _finish_awaited(self) -> None:
        """Each piece of the store's work that has ended: what waited for it, then the
        requests its table held up."""
        for entry in [e for e in self.awaiting if e[0].done()]:
            self.awaiting.remove(entry)
            future, then, table_id = entry
            if table_id is not None and self.loading.get(table_id) is future:
                del self.loading[table_id]
            try:
                then(future)
            except Exception:  # a bug must cost one table, never the server
                traceback.print_exc(file=sys.stderr)
            if table_id is not None and table_id not in self.loading \
                    and table_id not in self.frozen:
                for identity, message, rid, handler in self.deferred.pop(table_id, ()):
                    self._dispatch(self._session(identity, time.monotonic()), message, rid,
                                   handler)

    def commit(self) -> Iterator[tuple[bytes, bytes]]:
        """Commit what this turn wrote, then give the frames it produced, in order, for the
        transport to send as they come (the first, the mover's update, at once). A commit the
        store has not ended within ``commit_patience`` keeps its tables' frames for a later
        call, which gives them once it has ended."""
        if self.awaiting:
            self._finish_awaited()
        if self.in_flight:
            yield from self._finish_commits()
        rosters = self.changed_rosters
        for table_id, table in list(rosters.items()):
            if table_id not in self.frozen:  # a frozen table's roster goes after its commit
                self._send_roster(table)
                del rosters[table_id]
        committed = list(self.dirty.values())
        self.dirty.clear()
        messages = self.outbox.drain()
        frames = Frames()
        if not committed:
            if messages:
                yield from self._frames(messages, {}, {}, frames, None)
            return
        logs = {t.log: t for t in committed if t.log is not None}
        first: bytes | Exception | None = None
        if messages and self.store.head_started:
            # The disk works on a person's move: its update is built meanwhile, so it
            # leaves the moment the sync ends (the others are built after it is sent).
            first = frames.build(messages[0][1])
        started = time.monotonic()
        commit = self.store.start_commit(list(logs))
        if first is None and messages and commit.sent():
            # JetStream works on the commit: the mover's update is built meanwhile.
            first = frames.build(messages[0][1])
        flight = InFlight(commit, logs, committed, messages, frames, first, started)
        if commit.wait(self.config.commit_patience):
            yield from self._finish(flight)
            return
        # The store is slow (a NATS node died, say): its tables wait for it, and everything
        # else goes out now; the loop goes on serving pings, the lobby and the other tables.
        for table in committed:
            self.frozen[table.id] = flight
        held = [m for m in messages if table_of(m[1]) in self.frozen]
        now = [m for m in messages if table_of(m[1]) not in self.frozen]
        # (not ``held[0] is messages[0]``: compiled, a tuple taken from a list is a new object)
        first_held = bool(messages) and table_of(messages[0][1]) in self.frozen
        flight.messages, flight.first = held, first if first_held else None
        self.in_flight.append(flight)
        if now:
            yield from self._frames(now, {}, {}, frames, None if first_held else first)

    def _finish_commits(self) -> Iterator[tuple[bytes, bytes]]:
        """Each commit under way that has ended: its replies and updates go out, as they
        would have at once, and its tables take up the requests that waited for them."""
        for flight in [f for f in self.in_flight if f.commit.done()]:
            self.in_flight.remove(flight)
            for table in flight.tables:
                del self.frozen[table.id]
            yield from self._finish(flight)
            for table in flight.tables:
                for identity, message, rid, handler in self.deferred.pop(table.id, ()):
                    self._dispatch(self._session(identity, time.monotonic()), message, rid,
                                   handler)
                if table.stalled is None:  # bots and deals skipped meanwhile go on
                    self.advance(table)

    def _finish(self, flight: InFlight) -> Iterator[tuple[bytes, bytes]]:
        """A commit has ended: undo the batch of each table whose log it could not write,
        then send what the batch produced."""
        if self.commit_timer is not None:
            self.commit_timer(time.monotonic() - flight.started)
        withheld: dict[str, BaseException] = {}
        undone: dict[str, LiveTable] = {}
        for writer, error in flight.commit.failures():
            table = flight.logs[writer]
            if isinstance(error, TableLost):  # another node holds it now
                self.leases.lost_tables.add(table.id)
            if self._undo_batch(table, error):
                undone[table.id] = table
            else:  # not durable, and not cut back: nothing more may be built on it
                withheld[table.id] = error
                self.break_table(table, error)
        try:
            if flight.messages:
                yield from self._frames(flight.messages, withheld, undone, flight.frames,
                                        flight.first)
        finally:  # after the sends, so that none waits for it (a summary is a file written)
            self._after_commit(flight.tables, withheld, undone)

    def _after_commit(self, committed: list[LiveTable], withheld: dict[str, BaseException],
                      undone: dict[str, LiveTable]) -> None:
        """Each table whose batch is on disk: a stall is over, a finished game's summary
        is written and the game rests (``LiveTable.rest``: its last updates are sent)."""
        for table in committed:
            table.before_batch = None
            table.seats_before = table.bots_before = None
            if table.id in undone or table.id in withheld:
                continue
            if table.stalled is not None:
                table.stalled = None
                print(f"starhall serve: table {table.id}: its log is written again",
                      file=sys.stderr)
            if table.over:
                table.write_summary()
                table.rest()  # its last updates are sent: it keeps what the lobby shows

    def _undo_batch(self, table: LiveTable, error: OSError) -> bool:
        """A commit failed (a full disk): cut the log back to the last commit and the table
        back to its state then, as if this batch's moves had never been made; the requests
        that made them get a ``storage`` error, and the table tries again a little later.
        Whether that worked (if the log cannot be cut back, the table must stop)."""
        writer, before = table.log, table.before_batch
        if writer is None or before is None or not self.store.rollback(writer):
            return False
        live = table.table
        live.state, live.seq, live.seats = before
        self._unseat(table, table.undo_seats())  # as the log, cut back, has them
        live.commands.forget_after(live.seq)
        table.forget_memory()
        table.bot_due = None
        if table.stalled is None:
            print(f"starhall serve: table {table.id}: cannot write its log ({error}); its last "
                  f"moves were undone, it tries again every {self.config.stall_retry:g} s",
                  file=sys.stderr)
        table.stalled = storage_reason(error)
        self.stalled[table.id] = time.monotonic() + self.config.stall_retry
        self.changed_rosters[table.id] = table
        return True

    def _unseat(self, table: LiveTable, changed: list[tuple[int, SeatRecord]]) -> None:
        """The sessions follow the seats an undone batch put back: those it bound to a seat
        are no longer there, those it took one from are again (if still connected)."""
        for number, seat in changed:
            session = self.sessions.get(seat.session) if seat.session is not None else None
            if session is not None and table.seats[number].session != session.identity:
                session.seats.discard((table.id, number))
        for number, seat in enumerate(table.seats):
            if seat.session is not None:
                session = self.sessions.get(seat.session)
                if session is None:
                    seat.session = None
                else:
                    session.seats.add((table.id, number))

    def _send_roster(self, table: LiveTable) -> None:
        """A ``table`` message to everyone following the table (it goes out with the batch)."""
        message = {"type": protocol.TABLE, "table": table.info()}
        for identity in table.participants():
            self.outbox.send(identity, message)

    def _frames(self, messages: list[Outgoing], withheld: dict[str, BaseException],
                undone: dict[str, LiveTable], frames: Frames,
                first: bytes | Exception | None) -> Iterator[tuple[bytes, bytes]]:
        """Build and send each frame in turn (the ``first`` may be built already), but
        none about a table whose sync failed or whose view cannot be built: that table stops,
        and a request waiting on it gets a ``broken`` error instead. Of a table whose batch
        was undone (``_undo_batch``) no event is sent, and nothing that shows them. The first
        frame is given as soon as it is built."""
        answered: set[tuple[bytes, Any]] = set()
        for index, (identity, message) in enumerate(messages):
            frame = first if index == 0 else None
            if undone and table_of(message) in undone:
                undone_id = table_of(message) or ""
                kept = _without_undone(message, undone[undone_id], identity, answered,
                                       undone_id in self.leases.lost_tables)
                if kept is None:
                    continue
                message, frame = kept, None
            if withheld and table_of(message) in withheld:
                replacement = _broken_reply(message, identity, answered)
                if replacement is None:
                    continue
                message, frame = replacement, None
            if frame is None:
                frame = frames.build(message)
            if isinstance(frame, Exception):  # a game's bug stops its table, not the server
                error = frame
                table_id = table_of(message)
                table = self.tables.get(table_id) if table_id is not None else None
                if table is None:
                    traceback.print_exception(error, file=sys.stderr)
                    continue
                self.break_table(table, error)
                withheld[table.id] = error
                replacement = _broken_reply(message, identity, answered)
                if replacement is None:
                    continue
                frame = protocol.encode(replacement)
            yield identity, frame

    def close(self) -> None:
        self.bot_turns.thinkers.close()
        self.store.close()  # first: a sync under way in the background ends before its file
        for table in self.tables.values():
            if table.log is not None:
                try:
                    table.log.close()
                except OSError as error:
                    print(f"starhall serve: closing table {table.id}: {error}", file=sys.stderr)
        if self.folder_lock is not None:
            self.folder_lock.release()

    # --- one message ---------------------------------------------------------------------

    def handle(self, identity: bytes, frames: list[bytes]) -> None:
        now = time.monotonic()
        session = self._session(identity, now)
        config = self.config
        if not session.allow(now, config.flood_rate, config.flood_burst):
            if now - session.flood_noticed >= 1.0:
                session.flood_noticed = now
                self.send_error(identity, None, protocol.FLOOD,
                                "too many messages: some were dropped")
            return
        if len(frames) != 1:
            self.send_error(identity, None, protocol.BAD_MESSAGE, "a message is exactly one frame")
            return
        try:
            message = protocol.decode(frames[0])
        except protocol.ProtocolError as bad:
            self.send_error(identity, None, protocol.BAD_MESSAGE, str(bad))
            return
        try:
            rid = fields.request_id(message)
        except RequestError as error:  # no rid to copy: the reply names the field instead
            self.send_error(identity, None, error.code, error.reason, **error.extra)
            return
        handler = self._handlers.get(message["type"])
        if handler is None:
            self.send_error(identity, rid, protocol.UNKNOWN_TYPE,
                        f"no request {message['type'][:40]!r}")
            return
        table_id = message.get("table")
        if type(table_id) is str and (table_id in self.frozen or table_id in self.loading
                                      or self._reads_ahead(table_id, message)):
            # It waits for its table's commit or read, in order; nobody else does.
            self.deferred.setdefault(table_id, []).append((identity, message, rid, handler))
            return
        self._dispatch(session, message, rid, handler)

    def _reads_ahead(self, table_id: str, message: dict[str, Any]) -> bool:
        """Whether a request about a table must wait for its log to be read (a finished
        game's, the command ids or memory still to be read, a history): the store reads it
        off the loop, and the request is handled once it has (``False``: at once)."""
        table = self.tables.get(table_id)
        if table is None or not (table.reads_log or message["type"] == protocol.HISTORY):
            return False
        return self.read_ahead(table)

    def read_ahead(self, table: LiveTable) -> bool:
        """Have the store read a table's log off the loop if it must; whether that is under
        way (the table's requests wait, and its bots are woken once it is done)."""
        if table.id in self.loading:
            return True
        future = self.store.prefetch(table.id)
        if future is None or future.done():
            return False

        def read(_: Any) -> None:
            if self.tables.get(table.id) is table:
                self.advance(table)

        self.await_store(future, read, table.id)
        return True

    def _dispatch(self, session: Session, message: dict[str, Any], rid: Any,
                  handler: Handler) -> None:
        identity = session.identity
        try:
            handler(session, message, rid)
        except RequestError as error:
            self.send_error(identity, rid, error.code, error.reason, **error.extra)
        # Each clause its own name: compiled (mypyc), a name keeps the type of its first use.
        except StorageError as failed:  # nothing was changed
            print(f"starhall serve: {message['type']}: {failed.error}", file=sys.stderr)
            self.send_error(identity, rid, STORAGE, str(failed))
        except ReadOnly as refused:
            self.send_error(identity, rid, READ_ONLY, str(refused))
        except Waiting as waiting:  # its table is being read or taken over: it waits for it
            self.deferred.setdefault(waiting.table_id, []).append(
                (identity, message, rid, handler))
        except Exception:  # a bug must cost one request, never the server
            traceback.print_exc(file=sys.stderr)
            self.send_error(identity, rid, protocol.INTERNAL, "the server failed on this request")

    def _session(self, identity: bytes, now: float) -> Session:
        session = self.sessions.get(identity)
        if session is None:
            if len(self.sessions) >= self.config.max_sessions:
                oldest = min(self.sessions.values(), key=lambda s: s.last_heard)
                if not self._waits_for_commit(oldest):
                    self._disconnect(oldest)
            session = Session(identity, now, self.config.flood_burst, now)
            self.sessions[identity] = session
        session.last_heard = now
        return session

    def reply(self, session: Session, rid: Any, message: dict[str, Any]) -> None:
        if rid is not None:
            message["rid"] = rid
        self.outbox.send(session.identity, message)

    def send_error(self, identity: bytes, rid: Any, code: str, reason: str, **extra: Any) -> None:
        self.refusals[code] = self.refusals.get(code, 0) + 1
        message: dict[str, Any] = {"type": protocol.ERROR, "code": code, "reason": reason}
        message.update(extra)
        if rid is not None:
            message["rid"] = rid
        self.outbox.send(identity, message)

    # --- lobby -----------------------------------------------------------------------------

    # --- seats -------------------------------------------------------------------------------

    def find_table(self, message: dict[str, Any], *, playable: bool = False) -> LiveTable:
        table_id = fields.text(message, "table", max_chars=64)
        table = self.tables.get(table_id)
        if table is None:
            table = self.leases.find(table_id)
        if playable:
            self.check_playable(table)
        return table

    def check_playable(self, table: LiveTable) -> None:
        if table.broken:
            raise RequestError(protocol.BROKEN, "this table was stopped after a server fault",
                               table=table.id)
        if table.over:
            raise RequestError(protocol.TABLE_OVER, "the game at this table has ended",
                               table=table.id)

    def owned_seat(self, table: LiveTable, message: dict[str, Any]) -> int:
        """The seat a token belongs to at this table (a person's, even with a stand-in)."""
        # (token_hash itself, not LiveTable.hash_token: every act passes here)
        hashed = token_hash(fields.text(message, "token", max_chars=128), table.token_salt)
        for number, seat in enumerate(table.seats):
            if seat.holds(hashed):
                return number
        raise RequestError(protocol.BAD_TOKEN, f"that is no seat's token at table {table.id}")

    def send_snapshot(self, session: Session, rid: Any, table: LiveTable, viewer: Viewer) -> None:
        state = table.table.state
        self.reply(session, rid, {
            "type": protocol.SNAPSHOT, "table": table.id, "seq": table.seq, "seat": viewer,
            "view": LaterView(table.game, state, viewer), "info": table.info(),
        })

    # --- moves -------------------------------------------------------------------------------

    def _act(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.find_table(message)
        if table.broken:  # its last moves may not be durable: nothing is acknowledged there
            raise RequestError(protocol.BROKEN, "this table was stopped after a server fault",
                               table=table.id)
        number = self.owned_seat(table, message)
        seat = table.seats[number]
        cid = fields.command_id(message)
        seen = fields.whole(message, "seq")
        command = fields.mapping(message, "command", required=True)
        kind = fields.text(command, "type", max_chars=64)
        data = fields.mapping(command, "data")
        done = table.command_done(number, cid)
        if done is not None:  # made already (even if the game has ended since): say so again
            self.reply(session, rid, {"type": protocol.ACK, "table": table.id, "cid": cid,
                                       "seq": done, "duplicate": True})
            return
        self.check_playable(table)
        if self.config.read_only:
            raise ReadOnly()
        if table.status != protocol.PLAYING:
            raise RequestError(protocol.NOT_STARTED, "the game starts when every seat is filled")
        if seat.standin:
            raise RequestError(protocol.BAD_TOKEN, "a stand-in bot plays this seat: resume first")
        if seen != table.seq:
            raise RequestError(protocol.STALE, f"the table is at event {table.seq}, not {seen}",
                               table=table.id, seq=table.seq, cid=cid)
        try:
            self.submit(table, Command(kind, number, data), cid)
        except IllegalCommand as refusal:
            raise RequestError(refusal.code, refusal.reason, table=table.id, cid=cid) from None
        self.reply(session, rid, {"type": protocol.ACK, "table": table.id, "cid": cid,
                                   "seq": table.seq, "duplicate": False})
        self.advance(table)

    def submit(self, table: LiveTable, command: Command, cid: int | str | None = None) -> None:
        """Decide, append and evolve one command (a person's with its ``cid``, which the log
        keeps), and queue its events for the participants."""
        if table.commands_unread:  # the first move since a restart
            table.read_commands()
        live = table.table
        before_state, before_seq = live.state, live.seq
        try:
            numbered = live.submit(command, cid)
        except IllegalCommand:
            raise
        except Exception as error:
            if live.seq == before_seq and live.state is before_state:
                # The engine choked on odd data before changing anything: a refusal.
                raise IllegalCommand("bad_command", f"the game cannot read that command "
                                     f"({type(error).__name__})") from None
            self.break_table(table, error)
            raise RequestError(protocol.BROKEN, "this table was stopped after a server fault",
                               table=table.id) from None
        if not numbered:
            return
        self.commands += 1
        self.moves += len(numbered)
        if table.id not in self.dirty:
            self._dirty(table, (before_state, before_seq, live.seats))
        if cid is not None and table.log is not None and table.game.chance(live.state) is None:
            # A person waits for this move (and no deal follows it): its sync starts now,
            # while the server goes on with the batch.
            self.store.head_start(table.log)
        self._publish(table, before_state, numbered, command.seat)
        if table.over:
            self.changed_rosters[table.id] = table

    def _dirty(self, table: LiveTable, before: tuple[Any, int, Seating | None] | None = None
               ) -> None:
        """Have the table's log written with this batch's commit, remembering what a failed
        commit goes back to (``before``, if the batch appended to the log already): the state,
        ``seq`` and logged seating before the batch."""
        if table.id in self.dirty or table.log is None:
            return
        live = table.table
        table.before_batch = before or (live.state, live.seq, live.seats)
        self.dirty[table.id] = table

    def reseated(self, table: LiveTable) -> None:
        """After a change of the seats: the log records it with this batch (whose commit makes
        it durable before anyone hears of it), and everyone following the table hears of it."""
        self.changed_rosters[table.id] = table
        if table.log is None:
            return
        live = table.table
        before = (live.state, live.seq, live.seats)
        if table.record_seating():
            self._dirty(table, before)
        elif table.id not in self.dirty:  # nothing to write (a finished game's seats)
            table.seats_before = table.bots_before = None

    def _publish(self, table: LiveTable, before: Any, numbered: list[tuple[int, Event]],
                 actor: Viewer) -> None:
        """Queue events for every participant, each to be cut by the game to what it may see
        when the update is sent, with the view it carries (``server/rendering.py``)."""
        roster = self.changed_rosters.pop(table.id, None)
        if roster is not None:
            # Who sits where changed before these events (the bots that filled the table,
            # say): that goes first, so the events are told with the right names.
            self._send_roster(roster)
        seated = [(number, seat.session) for number, seat in enumerate(table.seats)
                  if seat.session is not None]
        if not seated and not table.watchers:
            return
        if actor is not None:  # whoever moved hears of it first
            seated.sort(key=lambda pair: pair[0] != actor)
        game, state, table_id = table.game, table.table.state, table.id
        befores = [before]
        for _, event in numbered[:-1]:
            befores.append(game.evolve(befores[-1], event))
        after, last = numbered[0][0] - 1, numbered[-1][0]
        queue = self.outbox.events
        for number, identity in seated:
            queue(identity, table_id, number, after, last,
                  LaterEvents(game, numbered, befores, number), LaterView(game, state, number))
        if table.watchers:  # every spectator sees the same
            spectators = LaterEvents(game, numbered, befores, None), LaterView(game, state, None)
            for watcher in table.watchers:
                queue(watcher, table_id, None, after, last, *spectators)

    def advance(self, table: LiveTable) -> None:
        """Answer the game's chance requests, then wake the bots if it is theirs to move."""
        if self.config.read_only:
            return
        self.deal(table)
        self.bot_turns.schedule(table)

    def deal(self, table: LiveTable) -> None:
        """Answer the game's chance requests (the deals) with fresh deal numbers."""
        game = table.game
        while not table.broken and table.status == protocol.PLAYING:
            request = game.chance(table.table.state)
            if request is None:
                return
            self.outbox.seal(table.id)  # the hand's end keeps its own view
            try:
                self.submit(table, shuffle_command(request, new_seed()))
            except (IllegalCommand, RequestError) as error:
                self.break_table(table, error)

    def break_table(self, table: LiveTable, error: BaseException) -> None:
        print(f"starhall serve: table {table.id} stopped: {error!r}", file=sys.stderr)
        if not isinstance(error, IllegalCommand | RequestError):
            traceback.print_exception(error, file=sys.stderr)
        table.broken = True
        table.bot_due = None
        self.changed_rosters[table.id] = table

    # --- liveness ------------------------------------------------------------------------------

    def _housekeeping(self) -> None:
        now = time.monotonic()
        if now < self._next_housekeeping:
            return
        self._next_housekeeping = now + min(0.5, self.config.timeout / 4)
        limit = now - self.config.timeout
        for session in [s for s in self.sessions.values() if s.last_heard < limit
                        and not self._waits_for_commit(s)]:
            self._disconnect(session)
        self.store.tend()
        self.leases.keep(now)
        for table_id in [t for t, due in self.stalled.items()
                         if due <= now and t not in self.frozen]:
            del self.stalled[table_id]
            table = self.tables.get(table_id)
            if table is not None and not table.broken:
                self.advance(table)  # deal and let the bots move again: maybe it writes now

    def _waits_for_commit(self, session: Session) -> bool:
        """Whether a table the session sits at or watches has a commit under way (it is
        forgotten only after that)."""
        frozen = self.frozen
        return bool(frozen) and (any(t in frozen for t, _ in session.seats)
                                 or any(t in frozen for t in session.watching))

    def _disconnect(self, session: Session) -> None:
        """Forget a session: the seats it held at tables that have not started become free;
        elsewhere they stay its person's (the token resumes them) but show disconnected."""
        for table_id, number in session.seats:
            table = self.tables.get(table_id)
            if table is None or table.seats[number].session != session.identity:
                continue
            if table.status == protocol.WAITING:
                # Nobody waits for a person who has gone before the game began.
                try:
                    table.free_seat(number)
                except (RequestError, ReadOnly):
                    # Not to be written, so the seat stays its person's, as after a started
                    # game.
                    table.seats[number].session = None
            else:
                table.seats[number].session = None
            self.reseated(table)
        for table_id in session.watching:
            table = self.tables.get(table_id)
            if table is not None:
                table.watchers.discard(session.identity)
                self.changed_rosters[table.id] = table
        self.sessions.pop(session.identity, None)


SEAT_CHANGES = (protocol.SEATED, protocol.BOTTED, protocol.UNBOTTED, protocol.LEFT)
"""The replies that say a seat changed (or, ``seated`` to a resend, was taken back)."""


def _without_undone(message: dict[str, Any], table: LiveTable, identity: bytes,
                    answered: set[tuple[bytes, Any]], lost: bool) -> dict[str, Any] | None:
    """A message to ``identity`` of a batch whose moves and seat changes at ``table`` were
    undone, as it may still go out: no update (its events never happened), a ``storage``
    error for the ack of an undone move (``elsewhere`` if another node holds the table now:
    ``lost``) and for the reply to an undone change of a seat (a ``sit`` has two replies, a
    snapshot of a seat the receiver no longer holds is one: one error for both), snapshots
    and table messages made again from the table as it now is."""
    kind = message["type"]
    if kind == protocol.UPDATE:
        return None
    seat = message.get("seat")
    if (kind in SEAT_CHANGES and not (kind == protocol.LEFT and message.get("kept"))) or (
            kind == protocol.SNAPSHOT and type(seat) is int
            and table.seats[seat].session != identity):
        rid = message.get("rid")
        if (identity, rid) in answered:
            return None
        answered.add((identity, rid))
        refused: dict[str, Any] = {"type": protocol.ERROR, "code": STORAGE,
                                   "reason": table.stalled, "table": table.id}
        if rid is not None:
            refused["rid"] = rid
        return refused
    if kind == protocol.ACK and not message.get("duplicate"):
        error: dict[str, Any] = {"type": protocol.ERROR, "code": STORAGE,
                                 "reason": table.stalled, "table": table.id,
                                 "cid": message.get("cid")}
        if lost:
            error.update(code=protocol.ELSEWHERE, address=None, reason=(
                f"table {table.id} is served by another node now: ask again"))
        if "rid" in message:
            error["rid"] = message["rid"]
        return error
    if kind == protocol.SNAPSHOT:
        return {**message, "seq": table.seq, "info": table.info(),
                "view": LaterView(table.game, table.table.state, message.get("seat"))}
    if kind == protocol.TABLE:
        return {**message, "table": table.info()}
    return message


def _broken_reply(message: dict[str, Any], identity: bytes,
                  answered: set[tuple[bytes, Any]]) -> dict[str, Any] | None:
    """What a session gets instead of a message about a table that just stopped: a request's
    reply becomes one ``broken`` error (a ``sit`` has two replies); anything else, nothing."""
    rid = message.get("rid")
    if rid is None and message["type"] != protocol.ACK:
        return None
    if rid is not None:
        if (identity, rid) in answered:
            return None
        answered.add((identity, rid))
    error: dict[str, Any] = {"type": protocol.ERROR, "code": protocol.BROKEN,
                             "reason": "this table was stopped after a server fault",
                             "table": table_of(message)}
    if "cid" in message:
        error["cid"] = message["cid"]
    if rid is not None:
        error["rid"] = rid
    return error
