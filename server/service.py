"""The game service: one ROUTER socket, every table, one loop.

Each turn of the loop: read a batch of messages (each handled to the end: authenticate,
check, decide, append, evolve), let due bots move, answer the games' chance requests, then
commit (fsync every log written, together) and only then send what the batch produced. The
events' cuts and the views that updates and snapshots carry are built as each message is sent
(``server/rendering.py``), so the sync does not wait for them and the mover's own update, sent
first, does not wait for everyone else's (nor for a core: ``hand_over_core``). One thread
owns all state, so no table needs a lock; the fsyncs of a busy batch run side by side on a
small pool. A person's move does not wait for the end of its batch to be written: its log's
sync starts as soon as its events are appended (``GroupCommit.head_start``, on a thread that
needs no GIL), and while the disk works the loop answers, publishes and builds the batch's
first frame (the mover's update); the commit then only waits, and the other frames are built
once that one is sent.

Per command: the token names the seat → the client command id (a repeat is acknowledged
again, not applied) → the last-seen sequence number (stale is refused) → the engine decides →
the log gets the events → the state evolves → every participant gets the events as its seat
(or a spectator) may see them.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import random
import secrets
import socket as sockets
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from starhall.server import fields
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
from starhall.server.rendering import Frames, LaterEvents, LaterView, Outgoing, table_of
from starhall.server.reports import ReportStore, where
from starhall.server.scheduling import hand_over_core
from starhall.server.seats import distinct_name, keyed_token, new_key_salt, token_hash
from starhall.server.sessions import Outbox, Session, Viewer
from starhall.server.stores import FileStore, LogStore
from starhall.server.tables import (
    LiveTable,
    create_table,
    next_table_id,
    restore_from_store,
    restore_tables,
)
from starhall.server.thinking import Thinkers, Thought, fallback_bot, searches
from starhall.shared import protocol
from starhall.shared.bots import bot_kind
from starhall.shared.bugreport import make_bug_report, versions
from starhall.shared.engine import Command, Event, IllegalCommand, OptionError
from starhall.shared.games import GAMES
from starhall.shared.logfile import BUG_SUFFIX
from starhall.shared.seating import BOT
from starhall.shared.shuffle import new_seed, shuffle_command
from starhall.shared.table import Seating

TABLES_FOLDER = "tables"
LOCK_FILE = ".serve.lock"
"""In the tables' folder (hidden: a restore passes it over), the file a running server locks."""
BURST_FRAMES = 32
"""Frames a batch sends at once after its first (the mover's own update, sent as soon as it
is built). A send to a socket whose I/O thread has gone idle wakes that thread; frames sent
one by one, each after its view is built, wake it for every message, and on a small machine
those wake-ups slow the delivery of the first message (by about 50 us in the loopback bench,
4 updates and an ack per move). A burst wakes it once, and costs the later receivers no more
than the building of a few frames."""
OPEN_STATUSES = (protocol.WAITING, protocol.PLAYING)
THOUGHT_POLL = 0.01
"""Seconds the loop waits for messages at most while a bot thinks in a worker: how soon after
it answers its move is played."""
Handler = Callable[[Session, dict[str, Any], Any], None]


@dataclass(slots=True)
class ServerConfig:
    data: Path = Path("replays")
    bind: str = f"tcp://0.0.0.0:{protocol.DEFAULT_PORT}"
    name: str = field(default_factory=sockets.gethostname)
    think: float = 0.4
    """Seconds a bot waits before it moves, so people can follow."""
    heartbeat: float = protocol.HEARTBEAT_SECONDS
    timeout: float = protocol.TIMEOUT_SECONDS
    flood_rate: float = 200.0
    flood_burst: float = 400.0
    max_open_tables: int = 1000
    max_sessions: int = 4096
    batch_messages: int = 1000
    """Messages read before the loop commits and sends."""
    bot_burst: int = 8
    """With no think delay: moves one table's bots make before another table's turn."""
    bot_budget: float = 0.01
    """Seconds of bot moves per loop turn before the loop commits and sends."""
    people_wait: float = 0.002
    """Seconds of bot moves a person's message may wait behind before it is handled; the
    bots keep enough of a turn to commit many tables at once."""
    read_only: bool = False
    """Serve the tables for watching only: nothing is written, every change is refused."""
    store: str | None = None
    """Where the tables are kept: ``None`` for files in ``data``'s tables folder, or a
    ``nats://HOST:PORT[,HOST:PORT…]`` address of NATS JetStream (``server/jetstream.py``)."""
    lease_seconds: float = 10.0
    """With JetStream: how long a node's hold on a table lasts unless it renews it."""
    stream: str = "STARHALL"
    """With JetStream: the stream of the tables' logs (the seating and leases buckets are
    named after it)."""
    replicas: int = 1
    """With JetStream: the replicas of a stream this server creates (3 on a cluster)."""
    advertise: str | None = None
    """With JetStream: where clients of other nodes reach this one (``tcp://HOST:PORT``),
    which an ``elsewhere`` error names; the bound address if ``None``."""
    say: Callable[[str], None] | None = None
    """Hears what the server does while it restores its tables (``serve`` prints it)."""
    stall_retry: float = 1.0
    """Seconds before a table whose log could not be written tries again."""
    max_reports: int = 500
    """Bug reports (``report``) the server keeps in its data folder at most."""
    reports_per_session: int = 5
    """Bug reports the server keeps from one session at most."""


class Service:
    def __init__(self, config: ServerConfig, context: Any = None) -> None:
        self.config = config
        self.folder = Path(config.data) / TABLES_FOLDER
        self.store: LogStore
        self.folder_lock: FolderLock | None = None
        """Held while the server runs: no other may write its tables meanwhile."""
        if config.store is None:
            self._check_folder()
            self.folder_lock = None if config.read_only else FolderLock(
                self.folder / LOCK_FILE, f"{self.folder}: another starhall serve runs on it")
            self.store = FileStore(self.folder)
        else:
            from starhall.server.jetstream import JetStreamStore  # only a cluster needs NATS

            self.store = JetStreamStore(config.store, lease_seconds=config.lease_seconds,
                                        stream=config.stream, replicas=config.replicas)
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, protocol.MAX_MESSAGE_BYTES)
        self.socket.setsockopt(zmq.RCVHWM, 10_000)
        self.socket.setsockopt(zmq.SNDHWM, 10_000)
        self.receive_timeout = -1
        """The socket's RCVTIMEO in milliseconds (-1: none), which ``_receive_batch`` sets."""
        try:
            check_port(config.bind)  # a port in use stops the server now, not after restoring
            self.tables: dict[str, LiveTable] = restore_tables(
                self.store, read_only=config.read_only, say=config.say)
            self.reports = ReportStore(Path(config.data), config.max_reports,
                                       config.reports_per_session, read_only=config.read_only)
            # Only now: meanwhile a client's connection was refused, and ZeroMQ tries again by
            # itself (a port that accepted and said nothing would look like a server hung).
            self.socket.bind(config.bind)
        except BaseException:
            self.socket.close(0)
            self.store.close()
            if self.folder_lock is not None:
                self.folder_lock.release()
            raise
        self.address: str = self.socket.getsockopt(zmq.LAST_ENDPOINT).decode()
        if hasattr(self.store, "client_address"):
            self.store.client_address = config.advertise or self.address
            self._describe()
        self._versions: dict[str, Any] | None = None
        """What this server runs (``shared.bugreport.versions``), found for the first report."""
        self.stalled: dict[str, float] = {}
        """Tables whose log could not be written, and when they next try."""
        self.sessions: dict[bytes, Session] = {}
        self.outbox = Outbox()
        self.dirty: dict[str, LiveTable] = {}
        """Tables with events not yet fsynced."""
        self.changed_rosters: dict[str, LiveTable] = {}
        """Tables whose participants should get a fresh ``table`` message."""
        self.bot_queue: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self.created_keys: dict[str, str] = {
            table.create_key: table.id for table in self.tables.values() if table.create_key}
        """Tables made by a keyed ``create``: the key's SHA-256 → the table's id."""
        self.thinkers = Thinkers()
        """The worker processes searching bots think in."""
        self.thinking: dict[str, LiveTable] = {}
        """Tables whose searching bot thinks in a worker (``LiveTable.thought``)."""
        self._bot_rng = random.Random(secrets.randbits(64))
        self.games_info = [game_info(GAMES[game_id]) for game_id in sorted(GAMES)]
        self.moves = 0
        """Game events appended since start (the benchmark reads it)."""
        self.instance = secrets.token_hex(8)
        """Names this run of the server in ``welcome`` and ``pong``: a client that sees it
        change knows the server restarted and forgot its session."""
        self._next_housekeeping = 0.0
        self._next_scan = 0.0
        self.lost_tables: set[str] = set()
        """Tables another node holds now (JetStream): given up at the next housekeeping."""
        self._handlers: dict[str, Handler] = {
            protocol.HELLO: self._hello, protocol.PING: self._ping, protocol.LIST: self._list,
            protocol.CREATE: self._create, protocol.SIT: self._sit,
            protocol.RESUME: self._resume, protocol.LEAVE: self._leave,
            protocol.WATCH: self._watch, protocol.UNWATCH: self._unwatch,
            protocol.BOT: self._bot, protocol.UNBOT: self._unbot, protocol.ACT: self._act,
            protocol.SYNC: self._sync, protocol.REPORT: self._report,
        }
        for table in self.tables.values():
            if table.seating_behind:  # restored, but its log could not be given its seats
                self._dirty(table)
            self._advance(table)

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

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

    # --- the loop ----------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        try:
            self._commit_and_send()  # what restoring the tables produced (deals, bots)
            while not stop.is_set():
                people_waiting = self._receive_batch(self._wait_ms())
                # While people wait for their replies, bots get only a moment before the commit;
                # one who speaks while the bots play is answered in this turn's commit, not
                # after the rest of the bots' turn and its commit.
                budget = self.config.bot_budget
                self._collect_thoughts()
                if self._run_bots(min(budget, self.config.people_wait) if people_waiting
                                  else budget):
                    self._receive_batch()
                self._housekeeping()
                self._commit_and_send()
        finally:
            self.close()

    def _wait_ms(self) -> int:
        wait = 0.1  # also how soon a stop request is noticed
        if self.bot_queue:
            wait = min(wait, self.bot_queue[0][0] - time.monotonic())
        if self.thinking:
            wait = min(wait, THOUGHT_POLL)
        return max(0, int(wait * 1000))

    def _receive_batch(self, wait_ms: int = 0) -> bool:
        """Handle the messages that are waiting, the first awaited for up to ``wait_ms``;
        whether there were any."""
        handled = False
        socket = self.socket
        if wait_ms != self.receive_timeout:
            # The first receive waits itself (a poll before it would cost each message a
            # call more).
            socket.setsockopt(zmq.RCVTIMEO, wait_ms)
            self.receive_timeout = wait_ms
        for count in range(self.config.batch_messages):
            # After the first message, asking whether another waits costs less than the error
            # an empty receive raises, which would end every batch.
            if count and not socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
                break
            try:
                frames = socket.recv_multipart(zmq.NOBLOCK if count else 0)
            except zmq.Again:
                break
            self.handle(frames[0], frames[1:])
            handled = True
        return handled

    def _commit_and_send(self) -> None:
        for table in self.changed_rosters.values():
            self._send_roster(table)
        self.changed_rosters.clear()
        withheld: dict[str, BaseException] = {}
        undone: dict[str, LiveTable] = {}
        committed = list(self.dirty.values())
        self.dirty.clear()
        messages = self.outbox.drain()
        frames = Frames()
        first: bytes | Exception | None = None
        if committed:
            logs = {t.log: t for t in committed if t.log is not None}
            if messages and self.store.head_started:
                # The disk works on a person's move: its update is built meanwhile, so it
                # leaves the moment the sync ends (the others are built after it is sent).
                first = frames.build(messages[0][1])
            for writer, error in self.store.commit(list(logs)):
                table = logs[writer]
                if getattr(error, "table_lost", False):  # another node holds it now
                    self.lost_tables.add(table.id)
                if self._undo_batch(table, error):
                    undone[table.id] = table
                else:  # not durable, and not cut back: nothing more may be built on it
                    withheld[table.id] = error
                    self._break(table, error)
        try:
            if messages:
                self._send(messages, withheld, undone, frames, first)
        finally:  # after the sends, so that none waits for it (a summary is a file written)
            self._after_commit(committed, withheld, undone)

    def _after_commit(self, committed: list[LiveTable], withheld: dict[str, BaseException],
                      undone: dict[str, LiveTable]) -> None:
        """Each table whose batch is on disk: a stall is over, a finished game's summary
        is written and the game rests (``LiveTable.rest``: its last updates are sent)."""
        for table in committed:
            table.before_batch = None
            if table.id in undone or table.id in withheld:
                continue
            if table.stalled is not None:
                table.stalled = None
                print(f"starhall serve: table {table.id}: its log is written again",
                      file=sys.stderr)
            if table.over:
                table.write_summary()
                table.rest()

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
        table.seating_behind = True  # the seats changed in this batch are not in the log now
        live.commands.forget_after(live.seq)
        table.bot_due = None
        if table.stalled is None:
            print(f"starhall serve: table {table.id}: cannot write its log ({error}); its last "
                  f"moves were undone, it tries again every {self.config.stall_retry:g} s",
                  file=sys.stderr)
        table.stalled = storage_reason(error)
        self.stalled[table.id] = time.monotonic() + self.config.stall_retry
        self.changed_rosters[table.id] = table
        return True

    def _send_roster(self, table: LiveTable) -> None:
        """A ``table`` message to everyone following the table (it goes out with the batch)."""
        message = {"type": protocol.TABLE, "table": table.info()}
        for identity in table.participants():
            self.outbox.send(identity, message)

    def _send(self, messages: list[Outgoing], withheld: dict[str, BaseException],
              undone: dict[str, LiveTable], frames: Frames,
              first: bytes | Exception | None) -> None:
        """Build and send each frame in turn (the ``first`` may be built already), but
        none about a table whose sync failed or whose view cannot be built: that table stops,
        and a request waiting on it gets a ``broken`` error instead. Of a table whose batch
        was undone (``_undo_batch``) no event is sent, and nothing that shows them. The first
        frame goes as soon as it is built, the others in bursts of ``BURST_FRAMES``."""
        answered: set[tuple[bytes, Any]] = set()
        burst: list[tuple[bytes, bytes]] = []
        sent_any = False
        for index, (identity, message) in enumerate(messages):
            frame = first if index == 0 else None
            if undone and table_of(message) in undone:
                kept = _without_undone(message, undone[table_of(message) or ""])
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
                self._break(table, error)
                withheld[table.id] = error
                replacement = _broken_reply(message, identity, answered)
                if replacement is None:
                    continue
                frame = protocol.encode(replacement)
            burst.append((identity, frame))
            if not sent_any or len(burst) >= BURST_FRAMES:  # the first (the mover's) at once
                self._send_frames(burst)
                burst.clear()
                if not sent_any:
                    hand_over_core()  # the I/O thread takes the mover's update out now
                sent_any = True
        self._send_frames(burst)

    def _send_frames(self, frames: list[tuple[bytes, bytes]]) -> None:
        send = self.socket.send
        for identity, frame in frames:
            try:  # two sends: half the cost of send_multipart, which checks every part's type
                send(identity, zmq.SNDMORE | zmq.NOBLOCK)
                send(frame, zmq.NOBLOCK)
            except zmq.ZMQError:
                pass  # the peer is gone or too slow: it will notice a gap and resync

    def close(self) -> None:
        self.thinkers.close()
        if isinstance(self.store, FileStore):
            self.store.close()  # first: a sync under way in the background ends before its file
        for table in self.tables.values():
            if table.log is not None:
                try:
                    table.log.close()
                except OSError as error:
                    print(f"starhall serve: closing table {table.id}: {error}", file=sys.stderr)
        if not isinstance(self.store, FileStore):
            self.store.close()
        self.socket.close(0)
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
                self._error(identity, None, protocol.FLOOD, "too many messages: some were dropped")
            return
        if len(frames) != 1:
            self._error(identity, None, protocol.BAD_MESSAGE, "a message is exactly one frame")
            return
        try:
            message = protocol.decode(frames[0])
        except protocol.ProtocolError as error:
            self._error(identity, None, protocol.BAD_MESSAGE, str(error))
            return
        try:
            rid = fields.request_id(message)
        except RequestError as error:  # no rid to copy: the reply names the field instead
            self._error(identity, None, error.code, error.reason, **error.extra)
            return
        handler = self._handlers.get(message["type"])
        if handler is None:
            self._error(identity, rid, protocol.UNKNOWN_TYPE,
                        f"no request {message['type'][:40]!r}")
            return
        try:
            handler(session, message, rid)
        except RequestError as error:
            self._error(identity, rid, error.code, error.reason, **error.extra)
        except StorageError as error:  # nothing was changed
            print(f"starhall serve: {message['type']}: {error.error}", file=sys.stderr)
            self._error(identity, rid, STORAGE, str(error))
        except ReadOnly as error:
            self._error(identity, rid, READ_ONLY, str(error))
        except Exception:  # a bug must cost one request, never the server
            traceback.print_exc(file=sys.stderr)
            self._error(identity, rid, protocol.INTERNAL, "the server failed on this request")

    def _session(self, identity: bytes, now: float) -> Session:
        session = self.sessions.get(identity)
        if session is None:
            if len(self.sessions) >= self.config.max_sessions:
                oldest = min(self.sessions.values(), key=lambda s: s.last_heard)
                self._disconnect(oldest)
            session = Session(identity, now, self.config.flood_burst, now)
            self.sessions[identity] = session
        session.last_heard = now
        return session

    def _reply(self, session: Session, rid: Any, message: dict[str, Any]) -> None:
        if rid is not None:
            message["rid"] = rid
        self.outbox.send(session.identity, message)

    def _error(self, identity: bytes, rid: Any, code: str, reason: str, **extra: Any) -> None:
        message: dict[str, Any] = {"type": protocol.ERROR, "code": code, "reason": reason}
        message.update(extra)
        if rid is not None:
            message["rid"] = rid
        self.outbox.send(identity, message)

    # --- lobby -----------------------------------------------------------------------------

    def _hello(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        version = fields.optional_whole(message, "protocol", minimum=fields.SMALLEST_INT)
        if version is not None and version != protocol.PROTOCOL_VERSION:
            raise RequestError(protocol.BAD_PROTOCOL,
                               f"this server speaks protocol {protocol.PROTOCOL_VERSION}")
        session.name = fields.optional_text(message, "name", max_chars=protocol.MAX_NAME_CHARS)
        self._reply(session, rid, {
            "type": protocol.WELCOME, "server": self.config.name,
            "protocol": protocol.PROTOCOL_VERSION, "heartbeat": self.config.heartbeat,
            "timeout": self.config.timeout, "max_message": protocol.MAX_MESSAGE_BYTES,
            "games": self.games_info, "instance": self.instance,
        })

    def _ping(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """A ``pong`` with the ``seq`` of every table the session follows: a client whose
        last update was lost sees that it is behind."""
        followed = {table_id for table_id, number in session.seats
                    if table_id in self.tables
                    and self.tables[table_id].seats[number].session == session.identity}
        followed.update(table_id for table_id in session.watching if table_id in self.tables)
        seqs = {table_id: self.tables[table_id].seq
                for table_id in sorted(followed, key=listing_order)[:protocol.MAX_PONG_TABLES]}
        self._reply(session, rid, {"type": protocol.PONG, "time": time.time(), "seqs": seqs,
                                   "instance": self.instance})

    def _list(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """A page of the tables in the order of their ids, which never changes (a new table
        comes last), so paging by ``cursor`` lists each table once. The cursor is the id of
        the last table a page held: tables are never removed, so one that names no table was
        not given by this server."""
        cursor = fields.optional_text(message, "cursor", max_chars=64)
        offset = fields.optional_whole(message, "offset")
        wanted = fields.optional_choices(message, "status", protocol.STATUSES)
        if cursor is not None and offset is not None:
            raise RequestError(protocol.BAD_FIELD, "give 'cursor' or 'offset', not both",
                               field="offset")
        every = self._every_table()
        if cursor is not None and cursor not in every:
            raise RequestError(protocol.BAD_FIELD, "'cursor' must be one a 'tables' reply of "
                               "this server gave (ask without it for the first page)",
                               field="cursor")
        ranked = sorted((t for t in every.values() if wanted is None or t.status in wanted),
                        key=lambda t: listing_order(t.id))
        start = offset or 0
        if cursor is not None:
            start = bisect.bisect_right(ranked, listing_order(cursor),
                                        key=lambda t: listing_order(t.id))
        listed: list[dict[str, Any]] = []
        size = 0
        budget = protocol.MAX_MESSAGE_BYTES - 4096
        for table in ranked[start:start + protocol.MAX_LIST_TABLES]:
            info = table.info()
            size += len(protocol.encode(info))
            if size > budget and listed:
                break
            listed.append(info)
        more = start + len(listed) < len(ranked)
        self._reply(session, rid, {
            "type": protocol.TABLES, "tables": listed, "total": len(ranked),
            "cursor": listed[-1]["id"] if more else None,
            "next": start + len(listed) if more else None,
        })

    def _every_table(self) -> dict[str, LiveTable | Listed]:
        """The tables of the whole service: this node's, and (with JetStream) those other
        nodes hold, as their leases last described them."""
        every: dict[str, LiveTable | Listed] = dict(self.tables)
        service_tables = getattr(self.store, "service_tables", None)
        if service_tables is not None:
            for table_id, lease in service_tables().items():
                info = lease.get("info")
                if table_id not in every and isinstance(info, dict):
                    every[table_id] = Listed(table_id, str(info.get("status")), info)
        return every

    def _create(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        game_id = fields.text(message, "game", max_chars=64)
        players = fields.whole(message, "players", maximum=1000)
        options = fields.mapping(message, "options")
        name = fields.optional_text(message, "name", max_chars=protocol.MAX_NAME_CHARS)
        key = fields.request_key(message)
        think = message.get("think")
        if think is not None and (isinstance(think, bool) or not isinstance(think, int | float)
                                  or not 0 <= think <= protocol.MAX_THINK_SECONDS):
            raise RequestError(protocol.BAD_FIELD, "'think' must be seconds, 0 to "
                               f"{protocol.MAX_THINK_SECONDS:g}")
        hashed_key = None if key is None else token_hash(key)
        made = self.tables.get(self.created_keys.get(hashed_key or "", ""))
        if made is not None:  # a resend: the table its first sending made
            self._reply(session, rid, {"type": protocol.CREATED, "table": made.info()})
            return
        made_elsewhere = self._made_elsewhere(hashed_key)
        if made_elsewhere is not None:  # a resend to another node of the service
            self._reply(session, rid, {"type": protocol.CREATED, "table": made_elsewhere})
            return
        if self.config.read_only:
            raise ReadOnly()
        game = GAMES.get(game_id)
        if game is None:
            raise RequestError(protocol.UNKNOWN_GAME,
                               f"no game {game_id!r} (games: {', '.join(sorted(GAMES))})")
        open_tables = sum(1 for t in self.tables.values() if t.status in OPEN_STATUSES)
        if open_tables >= self.config.max_open_tables:
            raise RequestError(protocol.SERVER_FULL, "too many open tables; try again later")
        try:
            game.make_options(players, options)
        except OptionError as error:
            raise RequestError(protocol.BAD_OPTIONS, str(error)) from None
        table_id = next_table_id(self._every_table())
        while self.store.exists(table_id):  # a log that failed to load, or another node's
            table_id = f"{int(table_id) + 1:04d}"
        keyed: dict[str, Any] = {} if hashed_key is None else {"create_key_sha256": hashed_key}
        if think is not None:
            keyed["think"] = float(think)
        table = create_table(self.store, table_id, name or f"{game.title} {table_id}", game,
                             players, options, **keyed)
        self.tables[table_id] = table
        if hashed_key is not None:
            self.created_keys[hashed_key] = table_id
        self._describe([table])
        self._reply(session, rid, {"type": protocol.CREATED, "table": table.info()})

    def _made_elsewhere(self, hashed_key: str | None) -> dict[str, Any] | None:
        """The ``TableInfo`` of the table another node made for a keyed ``create``."""
        service_tables = getattr(self.store, "service_tables", None)
        if hashed_key is None or service_tables is None:
            return None
        for lease in service_tables().values():
            if lease.get("create_key") == hashed_key and isinstance(lease.get("info"), dict):
                info: dict[str, Any] = lease["info"]
                return info
        return None

    # --- seats -------------------------------------------------------------------------------

    def _table(self, message: dict[str, Any], *, playable: bool = False) -> LiveTable:
        table_id = fields.text(message, "table", max_chars=64)
        table = self.tables.get(table_id)
        if table is None:
            raise self._not_here(table_id)
        if playable:
            self._playable(table)
        return table

    def _not_here(self, table_id: str) -> RequestError:
        """The error for a table this node does not serve: ``elsewhere`` with the address of
        the node that does, or with none while it is being taken over; else ``no_table``."""
        store = self.store
        holder = getattr(store, "holder", None)
        if holder is not None:
            lease = holder(table_id)
            if lease is not None and lease.get("node") != getattr(store, "node", None):
                address = lease.get("address")
                return RequestError(protocol.ELSEWHERE, f"table {table_id} is served by another "
                                    f"node: ask {address}", table=table_id, address=address)
            if lease is not None or table_id in store.service_tables():  # type: ignore[attr-defined]
                return RequestError(protocol.ELSEWHERE, f"table {table_id} is being taken over "
                                    "by a node: ask again in a moment", table=table_id,
                                    address=None)
        return RequestError(protocol.NO_TABLE, f"no table {table_id!r}", table=table_id)

    def _playable(self, table: LiveTable) -> None:
        if table.broken:
            raise RequestError(protocol.BROKEN, "this table was stopped after a server fault",
                               table=table.id)
        if table.over:
            raise RequestError(protocol.TABLE_OVER, "the game at this table has ended",
                               table=table.id)

    def _seat_number(self, table: LiveTable, message: dict[str, Any]) -> int:
        seat = fields.whole(message, "seat", maximum=10_000)
        if seat >= len(table.seats):
            raise RequestError(protocol.BAD_SEAT,
                               f"table {table.id} has seats 0 to {len(table.seats) - 1}")
        return seat

    def _sit(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message)
        name = fields.optional_text(message, "name", max_chars=protocol.MAX_NAME_CHARS)
        key = fields.request_key(message)
        if key is not None:
            for number, seat in enumerate(table.seats):
                token = keyed_token(key, table.id, number, seat.key_salt)
                if seat.holds(token_hash(token)):  # a resend: the seat its first sending took
                    self._take_back(session, table, number)
                    self._reply(session, rid, {"type": protocol.SEATED, "table": table.id,
                                               "seat": number, "token": token})
                    self._snapshot(session, rid, table, number)
                    return
        self._playable(table)
        if message.get("seat") is None:
            free = [i for i, seat in enumerate(table.seats) if seat.state == protocol.FREE]
            if not free:
                raise RequestError(protocol.TABLE_FULL, f"table {table.id} has no free seat")
            number = free[0]
        else:
            number = self._seat_number(table, message)
            if table.seats[number].state != protocol.FREE:
                raise RequestError(protocol.SEAT_TAKEN, f"seat {number} is not free")
        others = {seat.name for index, seat in enumerate(table.seats)
                  if index != number and seat.name}
        wanted = name or session.name or f"Player {number + 1}"
        salt = None if key is None else new_key_salt()
        token = table.seat_person(
            number, distinct_name(wanted, others), since=table.seq, key_salt=salt,
            token=None if key is None else keyed_token(key, table.id, number, salt))
        self._bind(session, table, number)
        self._reseated(table)
        self._reply(session, rid, {"type": protocol.SEATED, "table": table.id, "seat": number,
                                   "token": token})
        self._snapshot(session, rid, table, number)
        self._advance(table)

    def _owned_seat(self, table: LiveTable, message: dict[str, Any]) -> int:
        """The seat a token belongs to at this table (a person's, even with a stand-in)."""
        hashed = token_hash(fields.text(message, "token", max_chars=128))
        for number, seat in enumerate(table.seats):
            if seat.holds(hashed):
                return number
        raise RequestError(protocol.BAD_TOKEN, f"that is no seat's token at table {table.id}")

    def _resume(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message)
        number = self._seat_number(table, message)
        if self._owned_seat(table, message) != number:
            raise RequestError(protocol.BAD_TOKEN, f"that is not seat {number}'s token")
        self._take_back(session, table, number)
        self._reply(session, rid, {"type": protocol.SEATED, "table": table.id, "seat": number,
                                   "token": message["token"]})
        self._snapshot(session, rid, table, number)

    def _take_back(self, session: Session, table: LiveTable, number: int) -> None:
        """Bind an owned seat to this session, sending a stand-in bot away."""
        seat = table.seats[number]
        if seat.standin:
            table.end_standin(number)
        previous = seat.session
        if previous is not None and previous != session.identity:
            old = self.sessions.get(previous)
            if old is not None:
                old.seats.discard((table.id, number))
        self._bind(session, table, number)
        self._reseated(table)

    def _bind(self, session: Session, table: LiveTable, number: int) -> None:
        table.seats[number].session = session.identity
        session.seats.add((table.id, number))

    def _leave(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """Before the game starts (or with ``give_up``) the seat becomes free and its token
        void; once it has started the seat stays its person's, who comes back with ``resume``,
        and the others see it empty-handed (``connected: false``) until then."""
        table = self._table(message)
        give_up = fields.flag(message, "give_up")
        number = self._owned_seat(table, message)
        seat = table.seats[number]
        holder = seat.session
        kept = not give_up and table.status != protocol.WAITING
        if kept:
            seat.session = None
        else:
            table.free_seat(number)  # written first: if that fails, nothing has changed
        if holder is not None and holder in self.sessions:
            self.sessions[holder].seats.discard((table.id, number))
        self._reseated(table)
        self._reply(session, rid, {"type": protocol.LEFT, "table": table.id, "seat": number,
                                   "kept": kept})

    def _watch(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message)
        self._add_watcher(session, table)
        self._reply(session, rid, {"type": protocol.WATCHING, "table": table.id})
        self._snapshot(session, rid, table, None)

    def _add_watcher(self, session: Session, table: LiveTable) -> None:
        if session.identity not in table.watchers:
            table.watchers.add(session.identity)
            session.watching.add(table.id)
            self.changed_rosters[table.id] = table

    def _unwatch(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message)
        if session.identity in table.watchers:
            table.watchers.discard(session.identity)
            session.watching.discard(table.id)
            self.changed_rosters[table.id] = table
        self._reply(session, rid, {"type": protocol.UNWATCHED, "table": table.id})

    def _sync(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message)
        if message.get("token") is None:
            self._add_watcher(session, table)
            self._snapshot(session, rid, table, None)
            return
        number = self._owned_seat(table, message)
        if table.seats[number].session != session.identity or table.seats[number].standin:
            self._take_back(session, table, number)
        self._snapshot(session, rid, table, number)

    def _bot(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message, playable=True)
        number = self._seat_number(table, message)
        named = fields.text(message, "kind", max_chars=64, default="random")
        try:
            kind = bot_kind(table.game, named)  # a level (easy, normal, strong) or a kind
        except ValueError as error:
            raise RequestError(protocol.UNKNOWN_BOT, str(error)) from None
        seat = table.seats[number]
        if seat.state == protocol.FREE:
            standin = False
        elif seat.state == protocol.PLAYER and seat.session is None:
            if message.get("token") is None:
                raise RequestError(protocol.NOT_SEATED, "only a player at this table can hand "
                                   "a disconnected player's seat to a bot")
            if self._owned_seat(table, message) == number:
                raise RequestError(protocol.BAD_TOKEN, "use resume to come back to your seat")
            standin = True
        else:
            raise RequestError(protocol.SEAT_TAKEN, f"seat {number} holds a connected player "
                               "or a bot")
        table.put_bot(number, kind, standin=standin)
        self._reseated(table)
        self._reply(session, rid, {"type": protocol.BOTTED, "table": table.id, "seat": number,
                                   "kind": kind, "standin": standin})
        self._advance(table)

    def _unbot(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message, playable=True)
        number = self._seat_number(table, message)
        seat = table.seats[number]
        if seat.state != BOT:
            raise RequestError(protocol.BAD_SEAT, f"no bot sits in seat {number}")
        if seat.standin or table.status != protocol.WAITING:
            if message.get("token") is None:
                raise RequestError(protocol.NOT_SEATED,
                                   "only a player at this table can take a bot out now")
            self._owned_seat(table, message)
        if seat.standin:
            table.end_standin(number)
        else:
            table.free_seat(number)
        self._reseated(table)
        self._reply(session, rid, {"type": protocol.UNBOTTED, "table": table.id, "seat": number})

    def _report(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """Keep a player's bug report with the table's log, in the data folder; the reply
        names it and gives nothing of the log (it holds cards the player may not see)."""
        table = self._table(message)
        note = fields.optional_text(message, "note", max_chars=protocol.MAX_NOTE_CHARS) or ""
        seen = fields.optional_whole(message, "seq")
        client_versions = fields.mapping(message, "versions")
        seats = [number for table_id, number in session.seats if table_id == table.id
                 and table.seats[number].session == session.identity]
        if not seats and table.id not in session.watching:
            raise RequestError(protocol.NOT_SEATED, "only someone at this table, seated or "
                               "watching, can send a bug report of it", table=table.id)
        if self.config.read_only:
            raise ReadOnly()
        self.reports.check(session.reports)
        if self._versions is None:
            self._versions = versions()
        now = time.time()
        seat = min(seats) if seats else None
        name = table.seats[seat].name if seat is not None else session.name
        about = {"id": table.id, "name": name, "game": table.game.id,
                 "server": self.config.name, "seat": seat, "event_seq": seen,
                 "view_seq": None, "info": table.info()}
        try:
            log = table.durable_log()
        except OSError as error:
            raise RequestError(STORAGE, f"the server could not read the table's log "
                               f"({error.strerror or error})", table=table.id) from None
        body = make_bug_report(note, about, log, "", [], now, self._versions,
                               client_versions=client_versions)
        path = self.reports.keep(table.id, body, now)
        session.reports += 1
        self._reply(session, rid, {"type": protocol.REPORTED, "table": table.id,
                                   "report": path.name.removesuffix(BUG_SUFFIX),
                                   "path": where(path), "server": self.config.name})

    def _snapshot(self, session: Session, rid: Any, table: LiveTable, viewer: Viewer) -> None:
        state = table.table.state
        self._reply(session, rid, {
            "type": protocol.SNAPSHOT, "table": table.id, "seq": table.seq, "seat": viewer,
            "view": LaterView(table.game, state, viewer), "info": table.info(),
        })

    # --- moves -------------------------------------------------------------------------------

    def _act(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self._table(message)
        if table.broken:  # its last moves may not be durable: nothing is acknowledged there
            raise RequestError(protocol.BROKEN, "this table was stopped after a server fault",
                               table=table.id)
        number = self._owned_seat(table, message)
        seat = table.seats[number]
        cid = fields.command_id(message)
        seen = fields.whole(message, "seq")
        command = fields.mapping(message, "command", required=True)
        kind = fields.text(command, "type", max_chars=64)
        data = fields.mapping(command, "data")
        done = table.command_done(number, cid)
        if done is not None:  # made already (even if the game has ended since): say so again
            self._reply(session, rid, {"type": protocol.ACK, "table": table.id, "cid": cid,
                                       "seq": done, "duplicate": True})
            return
        self._playable(table)
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
            self._submit(table, Command(kind, number, data), cid)
        except IllegalCommand as refusal:
            raise RequestError(refusal.code, refusal.reason, table=table.id, cid=cid) from None
        self._reply(session, rid, {"type": protocol.ACK, "table": table.id, "cid": cid,
                                   "seq": table.seq, "duplicate": False})
        self._advance(table)

    def _submit(self, table: LiveTable, command: Command, cid: int | str | None = None) -> None:
        """Decide, append and evolve one command (a person's with its ``cid``, which the log
        keeps), and queue its events for the participants."""
        if table.commands_unread:  # the first move since a restart
            table.read_commands()
        if table.memory_unread:  # before this move's events follow the log's
            table.read_memory()
        if table.seating_behind:
            self._dirty(table)  # the seats go into the log before the events
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
            self._break(table, error)
            raise RequestError(protocol.BROKEN, "this table was stopped after a server fault",
                               table=table.id) from None
        if not numbered:
            return
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
        if table.seating_behind:
            table.seating_behind = False
            table.record_seating()

    def _reseated(self, table: LiveTable) -> None:
        """After a change of the seats (on disk already in the seating file): the log records
        it with this batch, and everyone following the table hears of it."""
        self.changed_rosters[table.id] = table
        if table.log is None:
            return
        live = table.table
        before = (live.state, live.seq, live.seats)
        if table.record_seating():
            self._dirty(table, before)

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

    def _advance(self, table: LiveTable) -> None:
        """Answer the game's chance requests, then wake the bots if it is theirs to move."""
        if self.config.read_only:
            return
        self._deal(table)
        self._schedule_bots(table)

    def _deal(self, table: LiveTable) -> None:
        """Answer the game's chance requests (the deals) with fresh deal numbers."""
        game = table.game
        while not table.broken and table.status == protocol.PLAYING:
            request = game.chance(table.table.state)
            if request is None:
                return
            self.outbox.seal(table.id)  # the hand's end keeps its own view
            try:
                self._submit(table, shuffle_command(request, new_seed()))
            except (IllegalCommand, RequestError) as error:
                self._break(table, error)

    def _think(self, table: LiveTable) -> float:
        """Seconds a bot takes for a move at ``table``."""
        return self.config.think if table.think is None else table.think

    def _schedule_bots(self, table: LiveTable) -> None:
        if (table.bot_due is not None or table.thought is not None or table.broken
                or table.status != protocol.PLAYING):
            return
        state = table.table.state
        if table.game.chance(state) is not None:
            return
        bots = [table.bots.get(s) for s in table.game.to_act(state)
                if table.seats[s].state == BOT]
        if bots:
            # A searching bot's thinking is its wait; a quick one waits so people can follow.
            wait = 0.0 if any(bot is not None and searches(bot) for bot in bots) \
                else self._think(table)
            table.bot_due = time.monotonic() + wait
            heapq.heappush(self.bot_queue, (table.bot_due, next(self._order), table.id))

    def _run_bots(self, budget: float) -> bool:
        """Let due bots move for about ``budget`` seconds; whether they stopped early, after
        ``people_wait``, because a message is waiting."""
        queue = self.bot_queue
        now = time.monotonic()
        deadline = now + budget
        listen_from = now + self.config.people_wait
        burst = self.config.bot_burst if self.config.think <= 0 else 1
        while queue and queue[0][0] <= now:
            due, _, table_id = heapq.heappop(queue)
            table = self.tables.get(table_id)
            if table is None or table.bot_due != due:
                continue  # rescheduled or gone
            table.bot_due = None
            for _ in range(burst):
                if not self._bot_moves(table):
                    break
                self._deal(table)
            self._schedule_bots(table)
            clock = time.monotonic()
            if clock > deadline:
                return False
            if clock > listen_from and self.socket.get(zmq.EVENTS) & zmq.POLLIN:
                return True
        return False

    def _bot_moves(self, table: LiveTable) -> bool:
        """Every bot whose turn it is makes one move; whether any did."""
        if table.broken or table.status != protocol.PLAYING:
            return False
        game = table.game
        moved = False
        for number in game.to_act(table.table.state):
            bot = table.bots.get(number)
            if bot is None or table.seats[number].state != BOT:
                continue
            try:
                if searches(bot):
                    if table.thought is None:  # one thought at a time per table
                        kind = table.seats[number].bot_kind or "random"
                        table.thought = self.thinkers.ask(
                            kind, table.observe(number), self._think(table), self._bot_rng,
                            table.seq)
                        self.thinking[table.id] = table
                    continue
                command = bot.choose(table.observe(number), self._think(table))
                self._submit(table, command)
            except (IllegalCommand, RequestError) as error:
                self._break(table, error)
                return False
            except Exception as error:  # a bot's bug stops its table, not the server
                self._break(table, error)
                return False
            moved = True
        return moved

    def _collect_thoughts(self) -> None:
        """Play the moves the workers have thought of, and a fallback move for each one
        still thinking past its budget and grace (said on stderr)."""
        now = time.monotonic()
        for table in list(self.thinking.values()):
            thought = table.thought
            if thought is None or table.broken:
                del self.thinking[table.id]
                table.thought = None
                continue
            if not thought.future.done() and now < thought.deadline:
                continue
            del self.thinking[table.id]
            table.thought = None
            seat = table.seats[thought.seat]
            if table.status != protocol.PLAYING or seat.state != BOT \
                    or thought.seat not in table.game.to_act(table.table.state):
                self._schedule_bots(table)  # the seat's bot went, or its turn passed
                continue
            command = self._thought_move(table, thought)
            try:
                self._submit(table, command)
            except (IllegalCommand, RequestError) as error:
                if table.seq == thought.seq:
                    self._break(table, error)
                    continue
                # The table moved on while the bot thought (another seat's pass, say).
            except Exception as error:  # a bot's bug stops its table, not the server
                self._break(table, error)
                continue
            self._deal(table)
            self._schedule_bots(table)

    def _thought_move(self, table: LiveTable, thought: Thought) -> Command:
        """The worker's move, or the fallback bot's when it has none in time."""
        future = thought.future
        why = "did not answer in time"
        if future.done():
            try:
                kind, seat, data = future.result()
                return Command(kind, seat, data)
            except Exception as error:
                why = f"failed ({error!r})"
            future.cancel()
        else:
            future.cancel()
        bot = fallback_bot(table.game, self._bot_rng)
        print(f"starhall serve: table {table.id}: the {table.seats[thought.seat].bot_kind} bot "
              f"of seat {thought.seat} {why}; played a {type(bot).__name__} move instead",
              file=sys.stderr)
        return bot.choose(table.observe(thought.seat), 0.0)

    def _break(self, table: LiveTable, error: BaseException) -> None:
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
        for session in [s for s in self.sessions.values() if s.last_heard < limit]:
            self._disconnect(session)
        self._leases(now)
        for table_id in [t for t, due in self.stalled.items() if due <= now]:
            del self.stalled[table_id]
            table = self.tables.get(table_id)
            if table is not None and not table.broken:
                if table.seating_behind:
                    self._dirty(table)  # the seating its undone batch changed
                self._advance(table)  # deal and let the bots move again: maybe it writes now

    def _leases(self, now: float) -> None:
        """With JetStream: give up the tables whose lease this node lost (or whose stream
        another node wrote), and take over those whose lease nobody holds (a node died)."""
        store = self.store
        take_lost = getattr(store, "take_lost", None)
        if take_lost is None or self.config.read_only:
            return
        for table_id in take_lost() | self.lost_tables:
            table = self.tables.pop(table_id, None)
            store.release(table_id)  # type: ignore[attr-defined]
            if table is not None:
                self._given_up(table)
        self.lost_tables.clear()
        if now < self._next_scan:
            return
        self._next_scan = now + self.config.lease_seconds / 2
        self._describe()
        try:
            unheld = store.unheld()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - NATS away: the next scan tries again
            return
        for table_id in unheld:
            if table_id in self.tables or not store.claim(table_id):  # type: ignore[attr-defined]
                continue
            try:
                live = restore_from_store(store, table_id)
            except Exception as error:  # noqa: BLE001 - one damaged table must not stop us
                store.release(table_id)  # type: ignore[attr-defined]
                print(f"starhall serve: cannot take table {table_id} over: {error}",
                      file=sys.stderr)
                continue
            self.tables[table_id] = live
            if live.create_key:
                self.created_keys[live.create_key] = table_id
            self._describe([live])
            print(f"starhall serve: took table {table_id} over at event {live.seq}",
                  file=sys.stderr)
            self._advance(live)

    def _given_up(self, table: LiveTable) -> None:
        """Forget a table another node holds now; whoever followed it here hears so, with an
        unasked ``elsewhere`` error (ask again, any node will say where it went)."""
        table.bot_due = None
        for identity in {*table.watchers, *(seat.session for seat in table.seats
                                             if seat.session is not None)}:
            session = self.sessions.get(identity)
            if session is not None:
                session.watching.discard(table.id)
                session.seats = {(t, n) for t, n in session.seats if t != table.id}
            self._error(identity, None, protocol.ELSEWHERE, f"table {table.id} is served by "
                        "another node now: ask again", table=table.id, address=None)
        print(f"starhall serve: table {table.id}: another node holds it now; given up",
              file=sys.stderr)

    def _describe(self, tables: list[LiveTable] | None = None) -> None:
        """Have this node's leases tell the other nodes what their lobbies show of its tables
        (the whole service's lobby), at once for new ones."""
        describe = getattr(self.store, "describe", None)
        if describe is None:
            return
        for table in self.tables.values() if tables is None else tables:
            describe(table.id, table.info(), table.create_key)
        if tables is not None:
            self.store.announce()  # type: ignore[attr-defined]

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
                except (StorageError, ReadOnly):
                    # Not written, so the seat stays its person's, as after a started game.
                    table.seats[number].session = None
            else:
                table.seats[number].session = None
            self._reseated(table)
        for table_id in session.watching:
            table = self.tables.get(table_id)
            if table is not None:
                table.watchers.discard(session.identity)
                self.changed_rosters[table.id] = table
        self.sessions.pop(session.identity, None)


def check_port(endpoint: str) -> None:
    """``zmq.ZMQError``, as ``bind`` would raise it, when the TCP port of ``endpoint`` cannot
    be listened on (another server listens there, say): tried, not held, before the tables are
    restored, so that a server that listens only then does not stop only then. Any other
    endpoint (any free port, another transport, an interface's name) is left to ``bind``."""
    scheme, _, rest = endpoint.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme != "tcp" or not port.isdigit() or int(port) == 0:
        return
    try:
        address = sockets.getaddrinfo(None if host in ("", "*") else host, int(port),
                                      sockets.AF_INET, sockets.SOCK_STREAM, 0,
                                      sockets.AI_PASSIVE)[0][4]
    except (OSError, UnicodeError):
        return
    with sockets.socket(sockets.AF_INET, sockets.SOCK_STREAM) as probe:
        # As ZeroMQ binds: the connections a server just stopped left behind do not count,
        # a socket that listens there does.
        probe.setsockopt(sockets.SOL_SOCKET, sockets.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise zmq.ZMQError(error.errno) from None


@dataclass(slots=True)
class Listed:
    """A table another node serves, as its lease describes it (for the lobby)."""

    id: str
    status: str
    described: dict[str, Any]

    def info(self) -> dict[str, Any]:
        return self.described


def listing_order(table_id: str) -> tuple[int, str]:
    """The order of tables in a ``list``: by id, numerically for the usual numbered ids."""
    return len(table_id), table_id


def _without_undone(message: dict[str, Any], table: LiveTable) -> dict[str, Any] | None:
    """A message of a batch whose moves at ``table`` were undone, as it may still go out:
    no update (its events never happened), a ``storage`` error for the ack of an undone
    move, snapshots and table messages made again from the table as it now is."""
    kind = message["type"]
    if kind == protocol.UPDATE:
        return None
    if kind == protocol.ACK and not message.get("duplicate"):
        error = {"type": protocol.ERROR, "code": STORAGE, "reason": table.stalled,
                 "table": table.id, "cid": message.get("cid")}
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
