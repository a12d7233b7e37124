"""The JetStream log store: every table's log in one NATS JetStream stream, a subject per
table, each message exactly the bytes of one record of ``docs/replay-format.md`` (so a
table's messages, joined, are its ``.starhall`` file byte for byte), who sits where
included; which nodes are alive (one lease each) and who holds each table (its owner record)
in two key-value buckets, and in a third the seating files of older servers' folders,
``store import``ed, until a server records them in the logs.

Nothing here replicates, elects or fences by itself: JetStream does.

- **Appends are fenced by the stream.** A table's commit is one publish, or one atomic
  batch (``Nats-Batch-Id``) when it holds several records, whose first message carries
  ``Nats-Expected-Last-Subject-Sequence``: the stream sequence of the last record this node
  knows on the table's subject. A node that is behind (another wrote since) is refused, and
  stores nothing. Every message carries ``Nats-Msg-Id`` (table, byte offset, CRC): a commit
  refused because its own earlier send landed (an acknowledgement lost) is known by the id
  of the last message on the subject, and counts as done rather than being written twice.
- **Acknowledged means stored**: the server answers a move only after JetStream's
  acknowledgement (on a stream of several replicas, a quorum holds it), as it waits for
  fdatasync with files.
- **Leases, one per node**: a node's key in the leases bucket, made with ``create`` and
  renewed every quarter TTL with ``update`` checked against the revision it last wrote; the
  bucket's TTL ends the lease of a node that stopped renewing. A node writes no table past
  0.8 TTL after it asked for its last renewal.
- **Owner records, one per table**, written only when the owner changes (and when what the
  lobby shows of the table changes, but for what every move changes: ``seq``, ``to_act``): a
  new table's is made only if absent (so two nodes never pick the same id), a takeover's
  updated against the revision that named the dead node (so two nodes never both take it).
  Every node mirrors both buckets by watching them: a dead node's tables are those its owner
  records name, known the moment its lease ends, with no scan of anything.

nats-py is asyncio and the server is one synchronous loop. The commits, a move's path, go
over a connection of their own on an asyncio loop the server's thread runs itself
(``server/inline_loop.py``) while it waits for a commit, at most ``commit_patience``, and
when it looks in on one under way: the publish, its acknowledgement and the replies are one
thread's work, with no hand-over between threads. Everything else (leases, owner records,
the mirrors, reads, new tables) runs on a loop on a thread of its own (``Bridge``); the
server's loop never waits there for a table's sake (``start_create``, ``prefetch`` give
futures it polls): only the tools, a node starting and closing, wait.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import itertools
import json
import logging
import math
import re
import secrets
import socket
import ssl
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from starhall.server.inline_loop import SEND_ROUNDS, InlineLoop
from starhall.server.nats_access import load_access
from starhall.server.seats import SeatRecord, seats_from_body
from starhall.server.stores import TableLost
from starhall.shared.logfile import TableLog, encode_record
from starhall.shared.replay import Recording, load_tail

T = TypeVar("T")
DEFAULT_STREAM = "STARHALL"
EXPECTED = "Nats-Expected-Last-Subject-Sequence"
MSG_ID = "Nats-Msg-Id"
WRONG_LAST_SEQUENCE = 10071
"""JetStream's error code for a publish whose expected last subject sequence is not so."""
CONNECT_SECONDS = 5.0
CLOSE_SECONDS = 5.0
"""How long closing waits for the loop's tasks to end, and then for its thread."""
READ_ATTEMPTS = 5
LEASE_MARGIN = 0.8
"""The part of a lease's TTL after its last renewal was asked for that its holder still
writes the table: the rest covers the time the request took to reach NATS."""
COMMIT_SECONDS = 5.0
"""How long a commit waits for JetStream's acknowledgement before it counts as failed."""
LET_GO_SECONDS = 2 * (COMMIT_SECONDS + 1)
"""How long a table this node gave up stays refused to its commits: longer than a commit
begun before it was given up still tries (each gives up ``COMMIT_SECONDS`` + 1 s after it
began); a later write of the table needs a claim, which refuses a node that no longer holds
it."""
ATTEMPT_SECONDS = 1.0
"""How long one send of a commit waits for its acknowledgement before it is sent again (the
stream may have lost its leader with a NATS node, and a send made meanwhile is never
answered); the messages' ids keep a send that landed from being stored twice."""
FETCHED_KEPT = 64
"""How many tables' logs read ahead (``prefetch``) a node keeps at most."""
EVERY_MOVE = frozenset({"seq", "to_act"})
"""What a table's lobby entry changes with every move: no reason to write its owner record."""
CREATE_SECONDS = 15.0
"""How long a new table waits for NATS at most (only its ``create`` waits)."""
CREATE_ATTEMPTS = 100
"""How many ids a new table tries, each taken by another node meanwhile, before it fails."""
SERVICE_KEY = "service.id"
"""The seating bucket's key holding the service's id (a table's id has no dot)."""
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Table ids a subject and a key can hold (those a server makes are digits)."""


class AddressError(ValueError):
    """A ``nats://`` address that cannot be used, in words."""


def is_address(text: str) -> bool:
    return text.startswith("nats://")


def parse_address(text: str) -> tuple[list[str], str]:
    """``nats://HOST:PORT[,HOST:PORT…][/TABLE]`` as the servers' URLs and the table ('' if
    none); ``AddressError`` saying what is wrong."""
    if not is_address(text):
        raise AddressError(f"{text}: not a NATS address (nats://HOST:PORT[,HOST:PORT…])")
    rest = text[len("nats://"):]
    hosts, _, table = rest.partition("/")
    servers = []
    for part in hosts.split(","):
        host, sep, port = part.strip().rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise AddressError(f"{text}: {part!r} is not HOST:PORT")
        servers.append(f"nats://{host}:{port}")
    if table and not TABLE_ID.match(table):
        raise AddressError(f"{text}: {table!r} is not a table id (letters, digits, - and _)")
    return servers, table


class Bridge:
    """One asyncio loop on a thread of its own, for the synchronous server to hand work to."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="jetstream",
                                        daemon=True)
        self._thread.start()

    def submit(self, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self.loop)

    def run(self, work: Coroutine[Any, Any, T], timeout: float = COMMIT_SECONDS) -> T:
        future = self.submit(work)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError("NATS did not answer in time") from None

    def close(self) -> None:
        """Cancel whatever still runs on the loop (nats-py's own tasks too) and wait for it
        to end, then stop the loop and close it: a loop stopped with tasks pending has
        asyncio print "Task was destroyed but it is pending!" at exit."""
        if self.loop.is_closed():
            return
        with contextlib.suppress(Exception):  # a loop that no longer answers is stopped anyway
            self.submit(_cancel_the_rest()).result(CLOSE_SECONDS)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=CLOSE_SECONDS)
        if not self._thread.is_alive():
            self.loop.close()


class StreamLog:
    """A table's log in the stream: records appended in memory until the store commits them.
    Its lengths count bytes as a file of the same records would."""

    def __init__(self, table_id: str, subject: str, length: int, last_seq: int) -> None:
        self.table_id = table_id
        self.subject = subject
        self.pending: list[bytes] = []
        self.durable_length = length
        self.written_length = length
        self.spill_bytes: int | None = None
        self.last_record: tuple[int, int] | None = None
        self.last_seq = last_seq
        """The stream sequence of the table's last record this node knows is stored."""
        self.closed = False

    def append(self, body: Mapping[str, Any]) -> None:
        record = encode_record(body)
        self.last_record = (self.appended_length, int.from_bytes(record[-4:], "big"))
        self.pending.append(record)

    @property
    def appended_length(self) -> int:
        return self.durable_length + sum(map(len, self.pending))

    def stored(self, count: int, last_seq: int) -> None:
        """The first ``count`` pending records are in the stream, the last at ``last_seq``."""
        done, self.pending = self.pending[:count], self.pending[count:]
        self.durable_length += sum(map(len, done))
        self.written_length = self.durable_length
        self.last_seq = last_seq

    def forget_pending(self) -> None:
        if self.pending:
            self.last_record = None
        self.pending = []

    def abandon(self) -> None:
        self.closed = True
        self.pending = []

    def close(self) -> None:
        self.abandon()  # what is pending was never acknowledged: nobody was told of it


class StreamCommit:
    """A commit under way in JetStream: every log's publish, gathered by one task of the
    commits' loop, which the server's thread runs as it waits for the commit (``wait``) and
    looks in on it (``done``). Each log's outcome is a future of its own."""

    def __init__(self, jobs: list[tuple[StreamLog, int, concurrent.futures.Future[int]]],
                 work: asyncio.Task[None] | None, inline: InlineLoop,
                 stored: Callable[[StreamLog, list[bytes], int], None]) -> None:
        self._jobs = jobs
        self._work = work
        """The gathering task (so the master's wait watches one future, not one per
        table); ``None`` when nothing was to be published."""
        self._inline = inline
        self._stored = stored
        self._failures: list[tuple[Any, OSError]] | None = None

    def done(self) -> bool:
        work = self._work
        if work is None:
            return True
        if not work.done():  # what arrived meanwhile (its acknowledgement) is read now
            self._inline.tick(work)
        return work.done()

    def sent(self) -> bool:
        if self._work is None:
            return False
        self._inline.tick(self._work, SEND_ROUNDS)
        return not self._work.done()

    def wait(self, timeout: float | None) -> bool:
        return self._work is None or self._inline.wait(self._work, timeout)

    def failures(self) -> list[tuple[Any, OSError]]:
        """Once done: each log is told what is stored now, and those that failed are said
        (once: asked again, the same list)."""
        if self._failures is None:
            if self._work is not None and not self._work.done():
                self._work.cancel()  # given up: it stops when the loop next runs
            self._failures = []
            for log, count, future in self._jobs:
                error = _outcome(log, count, future, self._stored)
                if error is not None:
                    self._failures.append((log, error))
        return self._failures


def _outcome(log: StreamLog, count: int, future: concurrent.futures.Future[int],
             stored: Callable[[StreamLog, list[bytes], int], None]) -> OSError | None:
    """What a log's publish came to: ``None`` when stored (and ``log`` is told so)."""
    if not future.done():
        future.cancel()
        return OSError(f"NATS JetStream did not acknowledge table {log.table_id}'s log")
    try:
        last_seq = future.result()
    except TableLost as error:
        return error
    except (TimeoutError, concurrent.futures.CancelledError):
        return OSError(f"NATS JetStream did not acknowledge table {log.table_id}'s log")
    except Exception as error:  # noqa: BLE001 - every failure of NATS is a failed write
        return OSError(f"NATS JetStream did not store table {log.table_id}'s log "
                       f"({describe(error)})")
    stored(log, log.pending[:count], last_seq)
    log.stored(count, last_seq)
    return None


def msg_id(table_id: str, offset: int, record: bytes) -> str:
    return f"{table_id}:{offset}:{zlib.crc32(record):08x}"


@dataclass(slots=True)
class Link:
    """A connection to NATS, and the sends of commits on it that await their
    acknowledgement: cancelled when the connection is lost (``_publish`` sends them again
    then)."""

    nc: Any = None
    js: Any = None
    sending: set[asyncio.Task[Any]] = field(default_factory=set)
    """The tasks awaiting a send's acknowledgement on this connection."""
    cut_off: set[asyncio.Task[Any]] = field(default_factory=set)
    """Those of them cancelled because the connection was lost (not given up): each sends
    again."""

    async def lost(self) -> None:
        """The connection is lost: what was sent and not yet answered will never be."""
        for sender in list(self.sending):
            self.cut_off.add(sender)
            sender.cancel()


class JetStreamStore:
    """Tables kept in JetStream (``server/stores.py``'s ``LogStore``)."""

    summaries = False

    def __init__(self, address: str, *, stream: str = DEFAULT_STREAM, replicas: int = 1,
                 lease_seconds: float = 10.0, node: str | None = None,
                 client_address: str = "", access_file: str | None = None) -> None:
        """``access_file``: how to log in to NATS and check it (``server/nats_access.py``);
        without it, what ``$STARHALL_NATS_ACCESS`` and the environment say."""
        servers, _ = parse_address(address)
        self.access = load_access(access_file)
        self.where = address
        self.stream = stream
        self.prefix = f"starhall.{stream.lower()}.log"
        self.lease_seconds = lease_seconds
        self.node = node or f"{socket.gethostname()}-{secrets.token_hex(4)}"
        self.client_address = client_address
        """Where clients reach this node (a lease says it, for others to send them there)."""
        self.client_key: str | None = None
        """This node's CurveZMQ public key (Z85), in its lease."""
        self.leaving = False
        """Draining: the node's lease is gone, and not renewed."""
        self.held: dict[str, int] = {}
        """The tables this node holds: their owner record's last revision."""
        self.lost: set[str] = set()
        """Tables another node took over, for the server to give up."""
        self.let_go: OrderedDict[str, float] = OrderedDict()
        """Tables this node gave up (``take_lost``, ``release``), with when (monotonic),
        oldest first: never written again unless it claims one anew, however fresh its lease;
        forgotten ``LET_GO_SECONDS`` later (``_let_go``), so that the set does not grow with
        every table the node ever gave up."""
        self.described: dict[str, dict[str, Any]] = {}
        """What this node's owner records say of its tables (``describe``)."""
        self.written: dict[str, tuple[str, dict[str, Any], Any]] = {}
        """What each of this node's owner records says now, but for the ``seq``: a record is
        written again only when that changes (``describe``)."""
        self.owners: dict[str, tuple[int, dict[str, Any]]] = {}
        """Every owner record of the service as last heard: its revision and value (who
        serves the table, where, and the table as its owner last described it)."""
        self.live_by_node: dict[str, set[str]] = {}
        """The live tables each node's owner records name: a dead node's at one look."""
        self.node_heard: dict[str, float] = {}
        """Every node's lease as last heard (by this node's monotonic clock)."""
        self.node_values: dict[str, dict[str, Any]] = {}
        """What each node's lease says: where its clients reach it, and its key."""
        self.renewed_at = 0.0
        """When (monotonic) the last request that made or renewed this node's lease was sent:
        the lease holds until at least a TTL later, and this node writes no later."""
        self.orphans: set[str] = set()
        """Tables of the stream with no owner record (imported, or made before owner
        records): taken over as a dead node's are."""
        self._revision = 0
        """This node's lease's last revision."""
        self._fetched: OrderedDict[str, tuple[bytearray, int, Any]] = OrderedDict()
        """Logs (bytes, last stream sequence) and seating entries read ahead (``prefetch``)
        for the loop to find at once; the latest ``FETCHED_KEPT``, kept up to date by the
        commits."""
        self._fetching: dict[tuple[str, bool], concurrent.futures.Future[bool]] = {}
        self._claimed: dict[str, tuple[bytearray, int, Any]] = {}
        """Logs read for a takeover, until it reopens them."""
        self._stale: set[str] = set()
        """Tables a commit wrote while they were being read ahead: read again."""
        self._lock = threading.Lock()
        self._batch_prefix = secrets.token_hex(8)
        self._batches = itertools.count()
        """A batch's id: this store's random prefix and a number (unique among the batches
        under way, as JetStream asks, without a read of the system's random source for each
        commit of several records)."""
        self.bridge = Bridge()
        self.inline = InlineLoop()
        """The commits' loop, which the server's thread runs (``StreamCommit``)."""
        try:
            self.bridge.run(self._connect(servers, replicas), CONNECT_SECONDS + 5)
            self.commits = self.inline.run(self._link(servers), CONNECT_SECONDS + 5)
            """The commits' own connection, on ``inline``."""
        except BaseException as error:
            self.inline.close(CLOSE_SECONDS)
            with contextlib.suppress(Exception):
                self.bridge.run(self.nc.close(), CLOSE_SECONDS)
            self.bridge.close()
            if isinstance(error, OSError | TimeoutError | nats.errors.Error):
                raise OSError(f"cannot use NATS JetStream at {address} "
                              f"({describe(error)})") from None
            raise
        self._describe_now = asyncio.Event()
        self._to_describe: set[str] = set()
        """This node's tables whose owner record is to be written again (``describe``)."""
        self._renewer = self.bridge.submit(self._renew_forever())
        self._describer = self.bridge.submit(self._describe_forever())
        self._watchers = [
            self.bridge.submit(self._watch_forever(self.leases_kv, self._heard_node)),
            self.bridge.submit(self._watch_forever(self.owners_kv, self._heard_owner))]

    async def _link(self, servers: list[str]) -> Link:
        """A connection to NATS, tried for ever once made."""
        link = Link()
        connected = False

        async def quiet(error: Exception) -> None:  # nats-py would print every failed reconnect
            # A refused login or certificate will be refused again: said now, not tried for
            # ever (raised here, it ends nats.connect).
            if not connected and _refused(error):
                raise OSError(describe(error))

        link.nc = await nats.connect(servers=servers, connect_timeout=CONNECT_SECONDS,
                                     max_reconnect_attempts=-1, reconnect_time_wait=0.2,
                                     allow_reconnect=True, error_cb=quiet,
                                     disconnected_cb=link.lost,
                                     pending_size=0,  # nothing sent late, after a failure
                                     **self.access.connect_options())
        connected = True
        link.js = link.nc.jetstream(timeout=COMMIT_SECONDS)
        return link

    async def _connect(self, servers: list[str], replicas: int) -> None:
        await _some_server_answers(servers)  # else nats-py would try for ever
        # asyncio warns of every TLS connection NATS closes, which tells nobody anything.
        logging.getLogger("asyncio").setLevel(logging.ERROR)
        self.link = await self._link(servers)
        self.nc, self.js = self.link.nc, self.link.js
        try:
            await self.js.stream_info(self.stream)
        except nats.js.errors.NotFoundError:
            await self.js.add_stream(name=self.stream, subjects=[f"{self.prefix}.>"],
                                     num_replicas=replicas, allow_atomic=True,
                                     duplicate_window=120.0)
        self.seats_kv = await self._bucket(f"{self.stream}_seats", replicas, None)
        self.leases_kv = await self._bucket(f"{self.stream}_leases", replicas,
                                            self.lease_seconds)
        self.owners_kv = await self._bucket(f"{self.stream}_owners", replicas, None)
        self.renewed_at = monotonic()
        self._revision = await self._lease()
        # What the service knows before this node serves: the nodes alive, who holds which
        # table, and the tables nobody ever held.
        await self._load(self.leases_kv, self._heard_node)
        await self._load(self.owners_kv, self._heard_owner)
        # A node given the name it had before holds what that run held, as a dead node's.
        self.orphans = (set(await self._table_ids()) - set(self.owners)) | {
            table_id for table_id, (_, value) in self.owners.items()
            if value.get("node") == self.node}
        self._service = await self._service_id()

    async def _service_id(self) -> str:
        """The id every node of this store shares: the first node made it."""
        made = secrets.token_hex(8)
        with contextlib.suppress(nats.js.errors.KeyWrongLastSequenceError):
            await self.seats_kv.create(SERVICE_KEY, made.encode())
            return made
        entry = await self.seats_kv.get(SERVICE_KEY)
        return bytes(entry.value or b"").decode("ascii", "replace")

    @property
    def service(self) -> str:
        return self._service

    async def _bucket(self, name: str, replicas: int, ttl: float | None) -> Any:
        try:
            return await self.js.key_value(name)
        except nats.js.errors.BucketNotFoundError:
            return await self.js.create_key_value(bucket=name, history=1, ttl=ttl,
                                                  replicas=replicas)

    # --- tables and their logs ---------------------------------------------------------

    def subject(self, table_id: str) -> str:
        return f"{self.prefix}.{table_id}"

    def source(self, table_id: str) -> str:
        return f"{self.where}/{table_id}"

    def table_ids(self) -> list[str]:
        return self.bridge.run(self._table_ids())

    async def _table_ids(self) -> list[str]:
        info = await self.js.stream_info(self.stream, subjects_filter=f"{self.prefix}.>")
        subjects = info.state.subjects or {}
        return sorted(subject[len(self.prefix) + 1:] for subject in subjects)

    def exists(self, table_id: str) -> bool:
        return table_id in self.table_ids()

    def read(self, table_id: str) -> bytes:
        ahead = self._read_ahead(table_id)
        return ahead[0] if ahead is not None else self._read_whole(table_id)[0]

    def reopen(self, table_id: str) -> tuple[bytes, StreamLog]:
        ahead = self._read_ahead(table_id)
        data, last_seq = ahead[:2] if ahead is not None else self._read_whole(table_id)
        return data, StreamLog(table_id, self.subject(table_id), len(data), last_seq)

    def read_range(self, table_id: str, offset: int, length: int) -> bytes:
        return self.read(table_id)[offset:offset + length]

    def read_ends(self, table_id: str, head: int, tail_from: int) -> tuple[int, bytes, bytes]:
        data = self.read(table_id)
        return len(data), data[:head], data[tail_from:]

    def open_tail(self, table_id: str, *, read_only: bool) -> tuple[Recording, TableLog | None]:
        # A commit is all or nothing (a record is one message): no log here is ever torn,
        # nor a header without its table.
        data, writer = self.reopen(table_id)
        try:
            recording = load_tail(self.source(table_id), data=data)
        except BaseException:
            writer.abandon()
            raise
        if read_only:
            writer.abandon()
            return recording, None
        return recording, writer

    def tidy(self) -> None:
        pass  # nothing is half written: a commit is all or nothing

    def summary(self, table_id: str) -> bytes | None:
        return None  # no summaries: a restart reads a finished table's log

    def keep_summary(self, table_id: str, body: bytes) -> None:
        pass

    def describe_access(self) -> str | None:
        return self.access.describe()

    def _read_whole(self, table_id: str) -> tuple[bytes, int]:
        """``_read``, asked again a few times while NATS is busy or electing a leader (it
        answers 'service unavailable' meanwhile); ``OSError`` if it never answers."""
        for attempt in range(READ_ATTEMPTS):
            try:
                return self.bridge.run(self._read(table_id), 60)
            except FileNotFoundError:
                raise
            except (TimeoutError, nats.errors.Error) as error:
                if attempt == READ_ATTEMPTS - 1:
                    raise OSError(f"NATS did not give table {table_id}'s log "
                                  f"({describe(error)})") from None
                time.sleep(0.5)
        raise AssertionError("unreachable")

    async def _read(self, table_id: str) -> tuple[bytes, int]:
        """A table's records, joined, and the stream sequence of its last one."""
        subject = self.subject(table_id)
        try:
            last = await self.js.get_last_msg(self.stream, subject)
        except nats.js.errors.NotFoundError:
            raise FileNotFoundError(f"no table {table_id} in {self.where}") from None
        parts: list[bytes] = []
        consumer = await self.js.pull_subscribe(
            subject, stream=self.stream,
            config=api.ConsumerConfig(deliver_policy=api.DeliverPolicy.ALL,
                                      ack_policy=api.AckPolicy.NONE,
                                      inactive_threshold=30.0, mem_storage=True))
        try:
            seq, until = 0, last.seq or 0
            while seq < until:
                for message in await consumer.fetch(1000, timeout=10):
                    parts.append(message.data)
                    seq = message.metadata.sequence.stream
        finally:
            with contextlib.suppress(Exception):
                await consumer.unsubscribe()
        return b"".join(parts), until

    def create_log(self, table_id: str, header: Mapping[str, Any]) -> StreamLog:
        if not TABLE_ID.match(table_id):
            raise OSError(f"{table_id!r} cannot be a table id in JetStream")
        self.claim(table_id, must=True)
        log = StreamLog(table_id, self.subject(table_id), 0, 0)
        log.append(header)
        failures = self.commit([log])
        if failures:
            self.release(table_id)
            raise failures[0][1]
        return log

    def remove(self, table_id: str) -> None:
        # Not waited for: nobody was told of the table, and its owner record names this node
        # (alive) until the purge has removed it.
        self.bridge.submit(self._remove(table_id))
        self.release(table_id)
        with self._lock:
            self.orphans.discard(table_id)  # no table: nothing to take over

    async def _remove(self, table_id: str) -> None:
        with contextlib.suppress(Exception):  # NATS away: an empty table stays, ownerless
            await self.js.purge_stream(self.stream, subject=self.subject(table_id))
            await self.seats_kv.purge(table_id)
            await self.owners_kv.purge(table_id)

    # --- the seating files of older servers -------------------------------------------

    def save_legacy_seating(self, table_id: str, body: bytes) -> None:
        """Keep an older folder's seating file as it is (``store import``): the table's
        seating until a server records it in its log."""
        try:
            self.bridge.run(self.seats_kv.put(table_id, body))
        except (TimeoutError, nats.errors.Error) as error:
            raise OSError(f"NATS did not store the seating ({describe(error)})") from None

    def legacy_seating(self, table_id: str, players: int) -> list[SeatRecord] | None:
        ahead = self._read_ahead(table_id)
        try:
            entry = ahead[2] if ahead is not None else self.bridge.run(self.seats_kv.get(table_id))
        except nats.js.errors.KeyNotFoundError:
            return None
        if entry is None:
            return None
        return seats_from_body(json.loads(entry.value or b"{}"), players,
                               f"{self.source(table_id)} (seating)")[1]

    def drop_legacy_seating(self, table_id: str) -> None:
        try:
            self.bridge.run(self.seats_kv.purge(table_id))
        except (TimeoutError, nats.errors.Error) as error:
            raise OSError(f"NATS did not forget the seating ({describe(error)})") from None

    # --- commits ------------------------------------------------------------------------

    def head_start(self, log: Any) -> None:
        """Nothing: a person's move is published with its batch's commit, whose ``sent`` puts
        it on the wire before the mover's update is built. Published here, as the move is
        decided, it was no faster on busy cores (measured in process and in
        ``bench/cluster.py``): the rest of the batch waits for the interpreter meanwhile."""

    @property
    def head_started(self) -> bool:
        return False

    def start_commit(self, logs: list[Any]) -> StreamCommit:
        """Publish every log's pending records, all of them gathered by one task of the
        commits' loop, sent once the server's thread runs it (``StreamCommit.sent`` or
        ``wait``): the server waits ``commit_patience`` at most, then polls the
        ``StreamCommit``, and never waits longer for JetStream in its loop."""
        jobs: list[tuple[StreamLog, int, concurrent.futures.Future[int]]] = []
        stores: list[tuple[StreamLog, list[bytes], int, int,
                           concurrent.futures.Future[int]]] = []
        for log in logs:
            if not isinstance(log, StreamLog) or not log.pending:
                continue
            records = list(log.pending)
            outcome: concurrent.futures.Future[int] = concurrent.futures.Future()
            jobs.append((log, len(records), outcome))
            stores.append((log, records, log.durable_length, log.last_seq, outcome))
        work = self.inline.start(self._store_all(self.commits, stores)) if stores else None
        return StreamCommit(jobs, work, self.inline, self._stored)

    def commit(self, logs: list[Any]) -> list[tuple[Any, OSError]]:
        pending = self.start_commit(logs)
        pending.wait(2 * COMMIT_SECONDS + 2)  # each log's task gives up after its own timeout
        return pending.failures()

    async def _store_all(self, link: Link,
                         stores: list[tuple[StreamLog, list[bytes], int, int,
                                            concurrent.futures.Future[int]]]) -> None:
        """Every log's records published side by side (``_publish``), each one's outcome
        told to its future."""
        async def one(log: StreamLog, records: list[bytes], offset: int, expected: int,
                      outcome: concurrent.futures.Future[int]) -> None:
            try:
                async with asyncio.timeout(COMMIT_SECONDS + 1):
                    last_seq = await self._publish(link, log, records, offset, expected)
            except Exception as error:  # noqa: BLE001 - told to the master, which says it
                with contextlib.suppress(concurrent.futures.InvalidStateError):
                    outcome.set_exception(error)
            else:
                with contextlib.suppress(concurrent.futures.InvalidStateError):
                    outcome.set_result(last_seq)

        try:
            if len(stores) == 1:  # a person's move alone: no task more
                await one(*stores[0])
            else:
                await asyncio.gather(*(one(*store) for store in stores))
        finally:  # cancelled (the commit given up): none is left unanswered
            for *_, outcome in stores:
                outcome.cancel()

    async def _publish(self, link: Link, log: StreamLog, records: list[bytes], offset: int,
                       expected_seq: int) -> int:
        """Store ``records`` at byte ``offset`` of the table's log, after its record at stream
        sequence ``expected_seq``, all or none, over ``link``; the stream sequence of the
        last."""
        offsets = []
        for record in records:
            offsets.append(offset)
            offset += len(record)
        ids = [msg_id(log.table_id, at, record) for at, record in zip(offsets, records,
                                                                      strict=True)]
        expected = str(expected_seq)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + COMMIT_SECONDS
        # Sent by this task itself, not by a task of its own per try (that would cost the
        # loop an iteration more before the send goes out): a try cut off by a lost
        # connection is told from the commit given up by ``link.cut_off``.
        task = asyncio.current_task()
        assert task is not None
        while True:
            if self.given_up(log.table_id):
                raise TableLost(f"table {log.table_id} is another node's now: this one has "
                                "given it up")
            if self.lapsed(log.table_id):
                raise OSError(f"this node's lease of table {log.table_id} has lapsed")
            patience = max(0.05, min(ATTEMPT_SECONDS, deadline - loop.time()))
            link.sending.add(task)
            try:
                try:
                    return await self._send(link, log, records, ids, expected, patience)
                finally:
                    link.sending.discard(task)
            except asyncio.CancelledError:
                if task not in link.cut_off:
                    raise  # the commit itself is given up (or timed out)
                link.cut_off.discard(task)
                if task.uncancel():
                    raise  # given up too, meanwhile
                # The NATS node it went to is gone (killed, say): its answer never comes.
                # Sent again to the node the client reconnects to; the messages' ids keep
                # a send that landed before from being stored twice.
                if loop.time() > deadline:
                    raise TimeoutError(f"table {log.table_id}'s log: NATS did not answer") from None
                await asyncio.sleep(0.05)
            except (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError,
                    nats.errors.OutboundBufferLimitError, nats.errors.TimeoutError,
                    nats.errors.ConnectionReconnectingError):
                # Reconnecting, or the stream electing a new leader: in a moment, again.
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.1)

    async def _send(self, link: Link, log: StreamLog, records: list[bytes], ids: list[str],
                    expected: str, timeout: float) -> int:
        """One try of ``_publish``, waiting ``timeout`` seconds for its acknowledgement."""
        try:
            if len(records) == 1:
                ack = await link.js.publish(log.subject, records[0], timeout=timeout,
                                            headers={EXPECTED: expected, MSG_ID: ids[0]})
                return int(ack.seq)
            return await self._publish_batch(link, log.subject, records, ids, expected,
                                             timeout)
        except nats.js.errors.APIError as error:
            refusal = error
        # Refused (the subject moved on, or the batch's ids are known already). If what moved
        # it is this very send, landed before (its acknowledgement lost), it is done, not
        # stored twice; anything else is another writer's.
        try:
            last = await link.js.get_last_msg(self.stream, log.subject)
        except nats.js.errors.NotFoundError:
            raise refusal from None
        if (last.headers or {}).get(MSG_ID) == ids[-1] and last.seq is not None:
            return int(last.seq)
        if refusal.err_code == WRONG_LAST_SEQUENCE:
            # Another node took the table over (or this node's last commit landed after it
            # was said to fail): whoever holds it reads it again from the stream.
            raise TableLost(f"table {log.table_id} was written by another node: this one "
                            "has given it up")
        raise refusal

    async def _publish_batch(self, link: Link, subject: str, records: list[bytes],
                             ids: list[str], expected: str, timeout: float) -> int:
        batch = f"{self._batch_prefix}{next(self._batches)}"
        last = len(records)
        for number, (record, ident) in enumerate(zip(records, ids, strict=True), 1):
            headers = {"Nats-Batch-Id": batch, "Nats-Batch-Sequence": str(number),
                       MSG_ID: ident}
            if number == 1:
                headers[EXPECTED] = expected
            if number < last:
                await link.nc.publish(subject, record, headers=headers)
                continue
            headers["Nats-Batch-Commit"] = "1"
            reply = await link.nc.request(subject, record, headers=headers, timeout=timeout)
            answer = json.loads(reply.data)
            if "error" in answer:
                raise nats.js.errors.APIError.from_error(answer["error"])
            return int(answer["seq"])
        raise AssertionError("a batch of no records")

    def rollback(self, log: Any) -> bool:
        if isinstance(log, StreamLog):
            log.forget_pending()
        return True

    def tend(self) -> None:
        """The commits' connection's own work (a ping answered, a reconnection under way),
        done now: its loop runs only when the server's thread runs it."""
        self.inline.tick()

    def wake_fd(self) -> int | None:
        return self.inline.fileno()

    # --- leases: one per node; a table's owner written when it changes -------------------

    def advertise(self, address: str, key: str | None = None) -> None:
        self.client_address, self.client_key = address, key
        self.announce()
        self.bridge.submit(self._say_where())  # the other nodes list it now, not in a while

    async def _say_where(self) -> None:
        """This node's lease written again now, saying where its clients reach it."""
        with contextlib.suppress(Exception):  # NATS away: the next renewal says it
            self._revision = await self._lease()

    def nodes(self) -> list[dict[str, Any]]:
        """This node (unless it is leaving) and those whose lease holds, as last heard, by
        address: each one's ``address`` and ``key``."""
        now = monotonic()
        with self._lock:
            heard = [value for node, value in self.node_values.items()
                     if node != self.node
                     and now - self.node_heard.get(node, -math.inf) <= self.lease_seconds]
        others = [{"address": v["address"], "key": v.get("key")}
                  for v in sorted(heard, key=lambda v: str(v.get("address")))
                  if isinstance(v.get("address"), str) and v["address"]]
        mine = [] if self.leaving else [{"address": self.client_address,
                                         "key": self.client_key}]
        return mine + others

    def leave_service(self) -> None:
        """Draining: the node's lease goes now (the other nodes take its tables over at
        once) and is not renewed."""
        self.leaving = True
        with contextlib.suppress(Exception):
            self.bridge.run(self.leases_kv.delete(self.node), CLOSE_SECONDS)

    def _node_value(self) -> bytes:
        return json.dumps({"node": self.node, "address": self.client_address,
                           "key": self.client_key}).encode()

    def _owner_value(self, table_id: str) -> bytes:
        """An owner record says who holds the table, where its clients reach that node, and
        what the lobby of every node shows of the table (``describe``)."""
        with self._lock:
            described = self.described.get(table_id, {})
        return json.dumps({"node": self.node, "address": self.client_address, **described},
                          default=str).encode()

    async def _lease(self) -> int:
        """Make this node's lease, or renew it; its revision."""
        value = self._node_value()
        try:
            return int(await self.leases_kv.update(self.node, value,
                                                   last=self._revision or None))
        except nats.js.errors.KeyWrongLastSequenceError:
            pass
        # Its key is this node's alone: a renewal that landed unanswered moved it on (its
        # revision is taken as it is), or it ended by its TTL (NATS was away, or this node
        # paused) and is made again. Another node may have taken some of its tables over
        # meanwhile: their owner records say so (``_heard_owner``), and the stream's fence
        # refuses this node's next append to any of them.
        try:
            entry = await self.leases_kv.get(self.node)
        except nats.js.errors.KeyNotFoundError:
            return int(await self.leases_kv.create(self.node, value))
        return int(await self.leases_kv.update(self.node, value, last=entry.revision))

    async def _renew_forever(self) -> None:
        """Renew this node's lease every quarter TTL, each try given half a TTL: one the
        stream left unanswered (a leader being elected) is tried again, not waited for."""
        while True:
            await asyncio.sleep(self.lease_seconds / 4)
            if self.leaving:
                return  # draining: its lease is gone for good
            asked = monotonic()
            lapsed = asked - self.renewed_at > self.lease_seconds * LEASE_MARGIN
            try:
                self._revision = await asyncio.wait_for(self._lease(), self.lease_seconds / 2)
                if lapsed:  # paused, or NATS away: another node may hold its tables now
                    await asyncio.wait_for(self._verify_held(), self.lease_seconds / 2)
            except Exception:  # noqa: BLE001 - NATS away: try again next round
                continue
            self.renewed_at = asked

    async def _verify_held(self) -> None:
        """After its lease lapsed, before it writes again: each of its tables claimed anew,
        its owner record updated against the revision this node last wrote. A node that
        took one over meanwhile moved that on (the table is given up); one taking it over
        now is refused in its turn, as its claim is checked against the revision it read."""
        with self._lock:
            held = list(self.held.items())

        await asyncio.gather(*(self._update_owner(table_id, revision)
                               for table_id, revision in held))

    async def _update_owner(self, table_id: str, revision: int) -> int | None:
        """This node's owner record of a table written again, against the revision it last
        wrote: the new revision, or ``None`` when another node moved it on (the table is
        given up)."""
        try:
            renewed = int(await self.owners_kv.update(table_id, self._owner_value(table_id),
                                                      last=revision))
        except nats.js.errors.KeyWrongLastSequenceError:
            self._taken(table_id)
            return None
        with self._lock:
            if table_id in self.held:
                self.held[table_id] = renewed
        return renewed

    async def _describe_forever(self) -> None:
        """Write the owner records whose description changed (``describe``), all at once,
        when told to (``announce``) or every half TTL."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._describe_now.wait(), self.lease_seconds / 2)
            self._describe_now.clear()
            with self._lock:
                changed, self._to_describe = self._to_describe, set()
            await asyncio.gather(*(self._write_owner(table_id) for table_id in changed),
                                 return_exceptions=True)

    def _description_of(self, table_id: str) -> tuple[str, dict[str, Any], Any]:
        """What an owner record says of a table, but what changes with every move (``seq``,
        ``to_act``: not worth a replicated write each time)."""
        described = self.described.get(table_id, {})
        info = {key: value for key, value in described.get("info", {}).items()
                if key not in EVERY_MOVE}
        return self.client_address, info, described.get("create_key")

    async def _write_owner(self, table_id: str) -> None:
        with self._lock:
            revision = self.held.get(table_id)
            said = self._description_of(table_id)
        if revision is None:
            return
        try:
            renewed = await self._update_owner(table_id, revision)
        except Exception:  # noqa: BLE001 - NATS away: written with the next change
            return
        if renewed is not None:
            with self._lock:
                if table_id in self.held:
                    self.written[table_id] = said

    def _taken(self, table_id: str) -> None:
        """Another node holds a table this one did: it is given up."""
        with self._lock:
            if self.held.pop(table_id, None) is not None:
                self.lost.add(table_id)
            self.written.pop(table_id, None)

    async def _load(self, bucket: Any, heard: Any) -> None:
        """Every key of a bucket as it is now, told to ``heard``."""
        watcher = await bucket.watchall()
        try:
            while (entry := await watcher.updates(timeout=CONNECT_SECONDS)) is not None:
                heard(entry)
        finally:
            with contextlib.suppress(Exception):
                await watcher.stop()

    async def _watch_forever(self, bucket: Any, heard: Any) -> None:
        """Keep a mirror of a bucket up to date. A node's lease that ends by its TTL sends
        nothing: ``alive`` knows it by its age. A watcher that has heard nothing for a TTL
        (NATS came back, and it did not) is made again (hearing every key once more)."""
        while True:
            watcher = None
            try:
                watcher = await bucket.watchall()
                while True:
                    try:
                        entry = await watcher.updates(timeout=self.lease_seconds)
                    except nats.errors.TimeoutError:
                        break
                    if entry is not None:
                        heard(entry)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - NATS away: watch again in a moment
                await asyncio.sleep(0.2)
            finally:
                if watcher is not None:
                    with contextlib.suppress(Exception):
                        await watcher.stop()

    def _heard_node(self, entry: Any) -> None:
        with self._lock:
            if entry.operation is not None:  # deleted (a node that stopped): dead at once
                self.node_heard[entry.key] = monotonic() - self.lease_seconds - 0.001
                self.node_values.pop(entry.key, None)
                return
            with contextlib.suppress(ValueError):
                value = json.loads(entry.value or b"")
                if isinstance(value, dict):
                    self.node_values[entry.key] = value
            # A lease's age is known from when NATS stored it (a lease heard at start may
            # be nearly over), not from when it was heard.
            age = 0.0
            created = getattr(entry, "created", None)
            if created is not None:
                with contextlib.suppress(Exception):
                    age = min(max(0.0, time.time() - created.timestamp()), self.lease_seconds)
            self.node_heard[entry.key] = max(self.node_heard.get(entry.key, 0.0),
                                             monotonic() - age)

    def _heard_owner(self, entry: Any) -> None:
        table_id = entry.key
        revision = int(entry.revision or 0)
        value: Any = None
        if entry.operation is None:
            with contextlib.suppress(ValueError):
                value = json.loads(entry.value or b"")
        with self._lock:
            before = self.owners.get(table_id)
            if before is not None and revision < before[0]:
                return  # older than what was heard (a read that crossed the watcher's news)
            self.owners.pop(table_id, None)
            if before is not None:
                self.live_by_node.get(str(before[1].get("node")), set()).discard(table_id)
            if not isinstance(value, dict):
                return
            self.owners[table_id] = (revision, value)
            info = value.get("info")
            if not (isinstance(info, dict) and info.get("status") == "over"):
                self.live_by_node.setdefault(str(value.get("node")), set()).add(table_id)
            if value.get("node") != self.node:
                self.orphans.discard(table_id)
            held = self.held.get(table_id)
            # Taken by another node: a record naming another, newer than this node's claim
            # (an older one, heard late, is the one this node's claim replaced).
            taken = held is not None and value.get("node") != self.node and revision > held
        if taken:
            self._taken(table_id)

    def alive(self, node: str) -> bool:
        """Whether a node's lease holds, as last heard."""
        if node == self.node:
            return True
        with self._lock:
            heard = self.node_heard.get(node)
        return heard is not None and monotonic() - heard <= self.lease_seconds

    def describe(self, table_id: str, info: Mapping[str, Any], create_key: str | None
                 ) -> None:
        """What this node's owner record of a table tells the other nodes: the table's
        ``TableInfo`` for their lobbies, its create key's hash for a resent ``create``;
        written within half a TTL if it changed but for what every move changes."""
        with self._lock:
            self.described[table_id] = {"info": dict(info), "create_key": create_key}
            if table_id in self.held and self._description_of(table_id) != \
                    self.written.get(table_id):
                self._to_describe.add(table_id)

    def holder(self, table_id: str) -> dict[str, Any] | None:
        """The owner record of a table (``node``, ``address``, ``info``, ``create_key``) as
        last heard, if its node is alive; ``None`` if nobody holds it now (its node died and
        it is not yet taken over, or it is no table)."""
        with self._lock:
            heard = self.owners.get(table_id)
        if heard is None or not self.alive(str(heard[1].get("node"))):
            return None
        return heard[1]

    def service_tables(self) -> dict[str, dict[str, Any]]:
        """Every table of the service with an owner record, with it."""
        with self._lock:
            return {table_id: value for table_id, (_, value) in self.owners.items()}

    def orphan(self, table_id: str) -> str | None:
        """Whether nobody alive holds a table this node does not: ``"live"`` (it wants an
        owner), ``"finished"`` (a finished game is read by any node, with no owner), or
        ``None`` (held, or no table)."""
        with self._lock:
            if table_id in self.held:
                return None
            heard = self.owners.get(table_id)
            orphan = table_id in self.orphans
        if heard is None:
            return "live" if orphan else None
        if not orphan and self.alive(str(heard[1].get("node"))):
            return None
        info = heard[1].get("info")
        finished = isinstance(info, dict) and info.get("status") == "over"
        return "finished" if finished else "live"

    def restores_at_start(self, table_id: str) -> bool:
        return self.orphan(table_id) == "live" and self.claim(table_id)

    def unheld(self) -> list[str]:
        """The live tables nobody alive holds (their node died, or let go), to be taken
        over; from the mirrors, so never waiting for NATS: the dead nodes' tables (one
        look at their leases), those never owned, and none that is finished. Of a dead
        node's tables each node alive takes at once those it is the first choice for (by
        rendezvous hashing of the table's id and the nodes alive), so they spread over the
        nodes and each is claimed by one, not raced for by all; the rest too once the dead
        node has been dead half a TTL (their first choice may have died with it)."""
        now = monotonic()
        with self._lock:
            alive = [node for node, heard in self.node_heard.items()
                     if node == self.node or now - heard <= self.lease_seconds]
            if self.node not in alive:
                alive.append(self.node)
            candidates = set(self.orphans)
            for node, tables in self.live_by_node.items():
                heard = self.node_heard.get(node)
                if node == self.node or (heard is not None and now - heard <= self.lease_seconds):
                    continue
                if heard is None or now - heard > 1.5 * self.lease_seconds:
                    candidates.update(tables)
                else:
                    candidates.update(table_id for table_id in tables
                                      if first_choice(table_id, alive) == self.node)
        return sorted(table_id for table_id in candidates
                      if self.orphan(table_id) == "live")

    async def _answered(self, ask: Callable[[], Awaitable[T]]) -> T:
        """``ask()``, asked again while NATS reconnects or a bucket's stream elects a leader
        (its answer is then 'no responders', or none), for ``COMMIT_SECONDS`` at most; a KV
        write asked again is safe, as each is checked against a revision."""
        deadline = asyncio.get_running_loop().time() + COMMIT_SECONDS
        while True:
            try:
                return await asyncio.wait_for(ask(), ATTEMPT_SECONDS)
            except (TimeoutError, nats.errors.NoRespondersError,
                    nats.js.errors.NoStreamResponseError, nats.errors.TimeoutError,
                    nats.errors.ConnectionReconnectingError):
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.1)

    def claim(self, table_id: str, *, must: bool = False) -> bool:
        """Take a table nobody alive holds; whether this node now holds it (``OSError`` when
        ``must`` and it could not)."""
        try:
            claimed = self.bridge.run(self._claim(table_id))
        except (TimeoutError, nats.errors.Error) as error:
            if must:
                raise OSError(f"NATS did not grant the table ({describe(error)})") from None
            return False
        if must and not claimed:
            raise OSError(f"table {table_id} is held by another node")
        return claimed

    async def _claim(self, table_id: str) -> bool:
        """Write this node into a table's owner record, unless a node alive holds it: made if
        absent, else updated against the revision read (two nodes taking a dead node's table
        at once: one of them is refused)."""
        value = self._owner_value(table_id)
        try:
            entry = await self._answered(lambda: self.owners_kv.get(table_id))
        except nats.js.errors.KeyNotFoundError:
            entry = None
        try:
            if entry is None:
                revision = await self._answered(lambda: self.owners_kv.create(table_id, value))
            else:
                owner: Any = None
                with contextlib.suppress(ValueError):
                    owner = json.loads(entry.value or b"")
                node = owner.get("node") if isinstance(owner, dict) else None
                if node != self.node and isinstance(node, str) and (
                        self.alive(node) or await self._lease_holds(node)):
                    self._heard_owner(entry)  # the watcher may not have said so yet
                    return False
                revision = await self._answered(lambda: self.owners_kv.update(
                    table_id, value, last=entry.revision))
        except nats.js.errors.KeyWrongLastSequenceError:  # another node was quicker
            with contextlib.suppress(Exception):
                self._heard_owner(await self.owners_kv.get(table_id))
            return False
        with self._lock:
            self.held[table_id] = int(revision)
            self.written.pop(table_id, None)
            self.lost.discard(table_id)
            self.let_go.pop(table_id, None)
            self.orphans.discard(table_id)
        self._heard_owner(_Heard(table_id, value, int(revision)))
        return True

    async def _lease_holds(self, node: str) -> bool:
        """Whether a node's lease is in the bucket and within its TTL, as NATS says now: a
        node that lapsed makes its lease again before it claims its tables anew
        (``_verify_held``), so a claim that reads no lease here, and then its owner record
        unchanged, cannot cross it."""
        bucket = f"{self.stream}_leases"
        try:
            last = await self._answered(functools.partial(
                self.js.get_last_msg, f"KV_{bucket}", f"$KV.{bucket}.{node}"))
        except nats.js.errors.NotFoundError:
            return False
        if (last.headers or {}).get("KV-Operation") is not None or last.time is None:
            return False  # deleted: the node stopped
        age = time.time() - last.time.timestamp()
        if age > self.lease_seconds:
            return False
        with self._lock:
            self.node_heard[node] = max(self.node_heard.get(node, 0.0), monotonic() - max(0.0, age))
        return True

    def release(self, table_id: str) -> None:
        """Forget a table this node no longer serves (its owner record stays: whoever holds
        it next writes it; one that still names this node, a takeover that failed half way,
        is taken over again, as a dead node's); it writes the table no more."""
        with self._lock:
            self._let_go([table_id])
            self._claimed.pop(table_id, None)
            self._fetched.pop(table_id, None)  # another node may write it now
            heard = self.owners.get(table_id)
            if heard is not None and heard[1].get("node") == self.node:
                self.orphans.add(table_id)
            self.held.pop(table_id, None)
            self.described.pop(table_id, None)
            self.written.pop(table_id, None)

    def take_lost(self) -> set[str]:
        with self._lock:
            lost, self.lost = self.lost, set()
            self._let_go(sorted(lost))  # told to the server, never written again
        return lost

    def _let_go(self, table_ids: list[str]) -> None:
        """Note tables given up now, and forget those given up ``LET_GO_SECONDS`` ago (with
        the lock held)."""
        now = monotonic()
        for table_id in table_ids:
            self.let_go[table_id] = now
            self.let_go.move_to_end(table_id)
        while self.let_go:
            table_id, when = next(iter(self.let_go.items()))
            if now - when <= LET_GO_SECONDS:
                break
            self.let_go.popitem(last=False)

    def announce(self) -> None:
        """Write the owner records whose description changed now, not in half a TTL."""
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self.bridge.loop.call_soon_threadsafe(self._describe_now.set)

    def given_up(self, table_id: str) -> bool:
        """Whether another node took a table this node held, or this node let it go: its
        lease renewed since says nothing of that table."""
        with self._lock:
            return table_id in self.lost or table_id in self.let_go

    def lapsed(self, table_id: str) -> bool:
        """Whether this node may no longer write a table: it gave the table up
        (``given_up``), or its lease may have ended (by its own clock, which runs on while
        the process is paused)."""
        return self.given_up(table_id) or (
            monotonic() - self.renewed_at > self.lease_seconds * LEASE_MARGIN)

    # --- read ahead: what the loop would wait for, fetched on the bridge -----------------

    def prefetch(self, table_id: str, *, claim: bool = False
                 ) -> concurrent.futures.Future[bool] | None:
        """Start reading a table's log and seating (after claiming it, with ``claim``) on the
        bridge's loop, for ``reopen``, ``read`` and ``legacy_seating`` to find at once; the
        future says whether it is there (and claimed). ``None``: nothing to wait for."""
        with self._lock:
            if not claim and table_id in self._fetched:
                self._fetched.move_to_end(table_id)
                return None
            under_way = self._fetching.get((table_id, claim))
            if under_way is not None and not under_way.done():
                return under_way
            future = self.bridge.submit(self._fetch(table_id, claim))
            self._fetching[table_id, claim] = future
        return future

    async def _fetch(self, table_id: str, claim: bool) -> bool:
        try:
            if claim and not await self._claim(table_id):
                return False
            while True:
                with self._lock:
                    self._stale.discard(table_id)
                data, last_seq = await self._read_retrying(table_id)
                try:
                    seating: Any = await self.seats_kv.get(table_id)
                except nats.js.errors.KeyNotFoundError:
                    seating = None
                with self._lock:
                    if table_id in self._stale:
                        continue  # this node committed to it meanwhile: read again
                    if claim:  # kept until its takeover reopens it, however many others
                        self._claimed[table_id] = (bytearray(data), last_seq, seating)
                    else:
                        self._keep_fetched(table_id, (bytearray(data), last_seq, seating))
                return True
        except FileNotFoundError:
            return False
        finally:
            with self._lock:
                self._fetching.pop((table_id, claim), None)

    async def _read_retrying(self, table_id: str) -> tuple[bytes, int]:
        """``_read``, again a few times while NATS is busy or electing a leader."""
        for _ in range(READ_ATTEMPTS - 1):
            try:
                return await self._read(table_id)
            except (TimeoutError, nats.errors.Error):
                await asyncio.sleep(0.5)
        return await self._read(table_id)

    def _stored(self, log: StreamLog, records: list[bytes], last_seq: int) -> None:
        """A commit stored ``records`` (at the log's durable length): a log read ahead grows
        with them, or is forgotten if it does not end where they begin."""
        with self._lock:
            if any(table_id == log.table_id for table_id, _ in self._fetching):
                self._stale.add(log.table_id)
            fetched = self._fetched.get(log.table_id)
            if fetched is None:
                return
            if len(fetched[0]) == log.durable_length:
                fetched[0].extend(b"".join(records))
                self._fetched[log.table_id] = (fetched[0], last_seq, fetched[2])
            else:
                del self._fetched[log.table_id]

    def _keep_fetched(self, table_id: str, fetched: tuple[bytearray, int, Any]) -> None:
        self._fetched[table_id] = fetched
        self._fetched.move_to_end(table_id)
        while len(self._fetched) > FETCHED_KEPT:
            self._fetched.popitem(last=False)

    def _read_ahead(self, table_id: str) -> tuple[bytes, int, Any] | None:
        with self._lock:
            claimed = self._claimed.pop(table_id, None)
            if claimed is not None:  # a takeover reads it now: kept as any read ahead
                self._keep_fetched(table_id, claimed)
            fetched = self._fetched.get(table_id)
            return None if fetched is None else (bytes(fetched[0]), *fetched[1:])

    # --- new tables: an id nobody else has, made without a clash --------------------------

    def start_create(self, first_id: str, header_for: Callable[[str], Mapping[str, Any]]
                     ) -> concurrent.futures.Future[tuple[str, Any]]:
        """Make a new table on the bridge's loop: its id the first from ``first_id`` on whose
        owner record this node is the first to make (created only if absent: two nodes
        making tables at once get two ids) and whose subject is empty; its log holding
        ``header_for(id)``, durable."""
        return self.bridge.submit(self._create(first_id, header_for))

    async def _create(self, first_id: str, header_for: Callable[[str], Mapping[str, Any]]
                      ) -> tuple[str, Any]:
        deadline = asyncio.get_running_loop().time() + CREATE_SECONDS
        while True:
            try:
                return await self._make(first_id, header_for)
            except (TimeoutError, nats.errors.Error, OSError) as error:
                # NATS reconnecting, or a stream electing its leader (a NATS node died):
                # the request that waits for it alone waits a little longer.
                if asyncio.get_running_loop().time() > deadline:
                    raise OSError(f"NATS did not make the table ({describe(error)})") from None
                await asyncio.sleep(0.2)

    async def _make(self, first_id: str, header_for: Callable[[str], Mapping[str, Any]]
                    ) -> tuple[str, Any]:
        table_id = first_id
        for _ in range(CREATE_ATTEMPTS):
            if not TABLE_ID.match(table_id):
                raise OSError(f"{table_id!r} cannot be a table id in JetStream")
            value = self._owner_value(table_id)
            try:
                revision = await self._answered(
                    functools.partial(self.owners_kv.create, table_id, value))
            except nats.js.errors.KeyWrongLastSequenceError:  # another node's: the next id
                table_id = following_id(table_id)
                continue
            with self._lock:
                self.held[table_id] = int(revision)
                self.let_go.pop(table_id, None)  # an id removed once, made again
            log = StreamLog(table_id, self.subject(table_id), 0, 0)
            log.append(header_for(table_id))
            records = list(log.pending)
            try:
                async with asyncio.timeout(COMMIT_SECONDS + 1):
                    last_seq = await self._publish(self.link, log, records, 0, 0)
            except TableLost:  # a log nobody owned holds that id (imported): the next one
                with self._lock:
                    self.held.pop(table_id, None)
                with contextlib.suppress(Exception):  # that log stays an orphan, taken over
                    await self.owners_kv.delete(table_id, last=revision)
                table_id = following_id(table_id)
                continue
            except BaseException:
                with self._lock:
                    self.held.pop(table_id, None)
                with contextlib.suppress(Exception):
                    await self.owners_kv.delete(table_id, last=revision)
                raise
            log.stored(len(records), last_seq)
            return table_id, log
        raise OSError(f"no free table id after {first_id} ({CREATE_ATTEMPTS} taken)")

    def close(self) -> None:
        if not self.leaving:
            self.leave_service()
        self._renewer.cancel()
        self._describer.cancel()
        for watcher in self._watchers:
            watcher.cancel()
        with contextlib.suppress(Exception):  # the others take this node's tables at once
            self.bridge.run(self.leases_kv.delete(self.node), 2)
        with contextlib.suppress(Exception):
            self.inline.run(self.commits.nc.close(), CLOSE_SECONDS)
        self.inline.close(CLOSE_SECONDS)
        with contextlib.suppress(Exception):
            self.bridge.run(self.nc.close(), 5)
        self.bridge.close()


@dataclass(frozen=True, slots=True)
class _Heard:
    """An owner record this node wrote, told to its mirror before the watcher says it."""

    key: str
    value: bytes
    revision: int
    operation: None = None


def first_choice(table_id: str, nodes: list[str]) -> str:
    """The node of ``nodes`` that takes a dead node's table over first (rendezvous hashing:
    each table's choice moves only if that node dies)."""
    return max(nodes, key=lambda node: (zlib.crc32(f"{table_id}\0{node}".encode()), node))


def following_id(table_id: str) -> str:
    """The id after a numbered table's (another node took that one)."""
    return f"{int(table_id) + 1:04d}" if table_id.isdigit() else f"{table_id}-1"


async def _cancel_the_rest() -> None:
    """Cancel every task of the running loop but this one, and wait until each has ended."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _some_server_answers(servers: list[str]) -> None:
    """``OSError`` unless one of ``servers`` accepts a TCP connection: a first connection to
    nobody is said at once, rather than tried again for ever."""
    for server in servers:
        host, _, port = server[len("nats://"):].rpartition(":")
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)),
                                               CONNECT_SECONDS)
        except (OSError, TimeoutError):
            continue
        writer.close()
        return
    raise OSError("no NATS server answers there")


def _refused(error: BaseException) -> bool:
    """Whether NATS refused this node's login or TLS (not a server down or busy)."""
    return isinstance(error, ssl.SSLError | nats.errors.AuthorizationError) or (
        "Authorization Violation" in str(error))


def describe(error: BaseException) -> str:
    if isinstance(error, nats.js.errors.APIError) and error.description:
        return str(error.description)
    if isinstance(error, nats.errors.NoServersError):
        return "no NATS server answers there"
    if "Authorization Violation" in str(error) or isinstance(
            error, nats.errors.AuthorizationError):
        return ("NATS refused the login: give the user and password, token, NKey or .creds "
                "of Starhall's account with --store-access FILE (docs/scaling.md)")
    if isinstance(error, ssl.SSLError):
        reason = getattr(error, "reason", None) or str(error)
        return (f"TLS with NATS failed: {reason}; give the CA that signed the NATS servers' "
                "certificates, and a client certificate if they ask for one, with "
                "--store-access FILE (docs/scaling.md)")
    return str(error) or type(error).__name__


def monotonic() -> float:
    return time.monotonic()
