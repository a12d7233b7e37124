"""The JetStream log store: every table's log in one NATS JetStream stream, a subject per
table, each message exactly the bytes of one record of ``docs/replay-format.md`` (so a
table's messages, joined, are its ``.starhall`` file byte for byte); the seating in a
key-value bucket beside it; who may write a table in another, as leases.

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
- **Leases**: a node writes a table only while it holds the table's key in the leases
  bucket, made with ``create`` (only if absent) and renewed with ``update`` checked against
  the revision it last wrote; the bucket's TTL ends the lease of a node that stopped renewing.

nats-py is asyncio and the server is one synchronous loop, so one asyncio loop runs on a
thread of its own (``Bridge``) and the server waits on what it hands there.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import re
import secrets
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from starhall.server.nats_access import load_access
from starhall.server.seats import SeatRecord, seating_body, seats_from_body
from starhall.server.stores import TableLost
from starhall.shared.logfile import encode_record

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
ATTEMPT_SECONDS = 1.0
"""How long one send of a commit waits for its acknowledgement before it is sent again (the
stream may have lost its leader with a NATS node, and a send made meanwhile is never
answered); the messages' ids keep a send that landed from being stored twice."""
SERVICE_KEY = "service.id"
"""The seating bucket's key holding the service's id (a table's id has no dot)."""
NODE_PREFIX = "node."
"""Leases of nodes, not tables (``node.NAME``): each live node's address and key."""
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
    """A commit under way in JetStream: a task on the bridge's loop for each log."""

    def __init__(self, jobs: list[tuple[StreamLog, int, concurrent.futures.Future[int]]]
                 ) -> None:
        self._jobs = jobs
        self._failures: list[tuple[Any, OSError]] | None = None

    def done(self) -> bool:
        return all(future.done() for _, _, future in self._jobs)

    def wait(self, timeout: float | None) -> bool:
        concurrent.futures.wait([future for _, _, future in self._jobs], timeout)
        return self.done()

    def failures(self) -> list[tuple[Any, OSError]]:
        """Once done: each log is told what is stored now, and those that failed are said
        (once: asked again, the same list)."""
        if self._failures is None:
            self._failures = []
            for log, count, future in self._jobs:
                error = _outcome(log, count, future)
                if error is not None:
                    self._failures.append((log, error))
        return self._failures


def _outcome(log: StreamLog, count: int, future: concurrent.futures.Future[int]
             ) -> OSError | None:
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
    log.stored(count, last_seq)
    return None


def msg_id(table_id: str, offset: int, record: bytes) -> str:
    return f"{table_id}:{offset}:{zlib.crc32(record):08x}"


class JetStreamStore:
    """Tables kept in JetStream (``server/stores.py``'s ``LogStore``)."""

    summaries = False
    _link: asyncio.Event
    """Set when the connection in use now is lost (``_publish`` sends again then)."""

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
        """This node's CurveZMQ public key (Z85), in its node lease."""
        self.leaving = False
        """Draining: the node lease is gone, and not renewed."""
        self.leases: dict[str, int] = {}
        """The tables this node holds: their lease's last revision."""
        self.lost: set[str] = set()
        """Tables whose lease renewal failed, for the server to give up."""
        self.described: dict[str, dict[str, Any]] = {}
        """What this node's leases say of its tables (``describe``)."""
        self.renewed_at: dict[str, float] = {}
        """When (monotonic) the last request that made or renewed each lease was sent: the
        lease holds until at least a TTL later, and this node writes the table no later."""
        self.mirror: dict[str, tuple[float, dict[str, Any]]] = {}
        """Every lease of the service as last heard (when, by this node's monotonic clock,
        and its value): who serves which table, where, and the table as its owner sees it."""
        self._lock = threading.Lock()
        self._ahead: tuple[StreamLog, int, concurrent.futures.Future[int]] | None = None
        self._look: concurrent.futures.Future[list[str]] | None = None
        """The look for unheld tables under way (``unheld``)."""
        self._next_look = 0.0
        self.bridge = Bridge()
        try:
            self.bridge.run(self._connect(servers, replicas), CONNECT_SECONDS + 5)
        except BaseException as error:
            self.bridge.close()
            if isinstance(error, OSError | TimeoutError | nats.errors.Error):
                raise OSError(f"cannot use NATS JetStream at {address} "
                              f"({describe(error)})") from None
            raise
        self._renew_now = asyncio.Event()
        self._renewer = self.bridge.submit(self._renew_forever())
        self._mirrorer = self.bridge.submit(self._mirror_forever())

    async def _connect(self, servers: list[str], replicas: int) -> None:
        connected = False

        async def quiet(error: Exception) -> None:  # nats-py would print every failed reconnect
            # A refused login or certificate will be refused again: said now, not tried for
            # ever (raised here, it ends nats.connect).
            if not connected and _refused(error):
                raise OSError(describe(error))

        async def lost() -> None:  # what was sent and not yet answered will never be
            self._link.set()
            self._link = asyncio.Event()

        await _some_server_answers(servers)  # else nats-py would try for ever
        self._link = asyncio.Event()
        # asyncio warns of every TLS connection NATS closes, which tells nobody anything.
        logging.getLogger("asyncio").setLevel(logging.ERROR)
        self.nc = await nats.connect(servers=servers, connect_timeout=CONNECT_SECONDS,
                                     max_reconnect_attempts=-1, reconnect_time_wait=0.2,
                                     allow_reconnect=True, error_cb=quiet,
                                     disconnected_cb=lost,
                                     pending_size=0,  # nothing sent late, after a failure
                                     **self.access.connect_options())
        connected = True
        self.js = self.nc.jetstream(timeout=COMMIT_SECONDS)
        try:
            await self.js.stream_info(self.stream)
        except nats.js.errors.NotFoundError:
            await self.js.add_stream(name=self.stream, subjects=[f"{self.prefix}.>"],
                                     num_replicas=replicas, allow_atomic=True,
                                     duplicate_window=120.0)
        self.seats_kv = await self._bucket(f"{self.stream}_seats", replicas, None)
        self.leases_kv = await self._bucket(f"{self.stream}_leases", replicas,
                                            self.lease_seconds)
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
        return self._read_whole(table_id)[0]

    def reopen(self, table_id: str) -> tuple[bytes, StreamLog]:
        data, last_seq = self._read_whole(table_id)
        return data, StreamLog(table_id, self.subject(table_id), len(data), last_seq)

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
        with contextlib.suppress(Exception):
            self.bridge.run(self._remove(table_id))
        self.release(table_id)

    async def _remove(self, table_id: str) -> None:
        await self.js.purge_stream(self.stream, subject=self.subject(table_id))
        await self.seats_kv.purge(table_id)

    # --- seating ------------------------------------------------------------------------

    def save_seating(self, table_id: str, name: str, seats: list[SeatRecord]) -> None:
        data = json.dumps(seating_body(name, seats)).encode("utf-8")
        try:
            self.bridge.run(self.seats_kv.put(table_id, data))
        except (TimeoutError, nats.errors.Error) as error:
            raise OSError(f"NATS did not store the seating ({describe(error)})") from None

    def load_seating(self, table_id: str, players: int) -> tuple[str | None, list[SeatRecord]]:
        try:
            entry = self.bridge.run(self.seats_kv.get(table_id))
        except nats.js.errors.KeyNotFoundError:
            return None, [SeatRecord() for _ in range(players)]
        return seats_from_body(json.loads(entry.value or b"{}"), players,
                               f"{self.source(table_id)} (seating)")

    # --- commits ------------------------------------------------------------------------

    def head_start(self, log: Any) -> None:
        if self._ahead is not None or not isinstance(log, StreamLog) or not log.pending:
            return
        records = list(log.pending)
        self._ahead = log, len(records), self.bridge.submit(
            self._publish(log, records, log.durable_length, log.last_seq))

    @property
    def head_started(self) -> bool:
        return self._ahead is not None

    def start_commit(self, logs: list[Any]) -> StreamCommit:
        """Publish every log's pending records, each log's on its own task of the bridge's
        loop (after the publish ``head_start`` began, for that log); the server polls the
        ``StreamCommit`` and never waits for JetStream in its loop."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and all(log is not ahead[0] for log in logs):
            logs = [*logs, ahead[0]]
        jobs: list[tuple[StreamLog, int, concurrent.futures.Future[int]]] = []
        for log in logs:
            if not isinstance(log, StreamLog) or not log.pending:
                continue
            records = list(log.pending)
            early = ahead[1:] if ahead is not None and log is ahead[0] else None
            jobs.append((log, len(records), self.bridge.submit(
                self._store(log, records, log.durable_length, log.last_seq, early))))
        return StreamCommit(jobs)

    def commit(self, logs: list[Any]) -> list[tuple[Any, OSError]]:
        pending = self.start_commit(logs)
        pending.wait(2 * COMMIT_SECONDS + 2)  # each log's task gives up after its own timeout
        return pending.failures()

    async def _store(self, log: StreamLog, records: list[bytes], offset: int, expected: int,
                     early: tuple[int, concurrent.futures.Future[int]] | None) -> int:
        """Store ``records`` (the first ``early[0]`` of them published already, by
        ``early[1]``) after the table's last known record; the stream sequence of the last."""
        async def chain() -> int:
            done, at, last_seq = 0, offset, expected
            if early is not None:
                done, future = early
                last_seq = await asyncio.wrap_future(future)
                at += sum(map(len, records[:done]))
                if done == len(records):
                    return last_seq
            return await self._publish(log, records[done:], at, last_seq)

        return await asyncio.wait_for(chain(), COMMIT_SECONDS + 1)

    async def _publish(self, log: StreamLog, records: list[bytes], offset: int, expected_seq: int
                       ) -> int:
        """Store ``records`` at byte ``offset`` of the table's log, after its record at stream
        sequence ``expected_seq``, all or none; the stream sequence of the last."""
        offsets = []
        for record in records:
            offsets.append(offset)
            offset += len(record)
        ids = [msg_id(log.table_id, at, record) for at, record in zip(offsets, records,
                                                                      strict=True)]
        expected = str(expected_seq)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + COMMIT_SECONDS
        while True:
            if self.lapsed(log.table_id):
                raise OSError(f"this node's lease of table {log.table_id} has lapsed")
            link = self._link
            patience = max(0.05, min(ATTEMPT_SECONDS, deadline - loop.time()))
            attempt = asyncio.ensure_future(self._send(log, records, ids, expected, patience))
            broken = asyncio.ensure_future(link.wait())
            try:
                await asyncio.wait({attempt, broken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                broken.cancel()
            if not attempt.done():
                # The NATS node it went to is gone (killed, say): its answer never comes.
                # Sent again to the node the client reconnects to; the messages' ids keep
                # a send that landed before from being stored twice.
                attempt.cancel()
                await asyncio.sleep(0.05)
                continue
            try:
                return attempt.result()
            except (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError,
                    nats.errors.OutboundBufferLimitError, nats.errors.TimeoutError,
                    nats.errors.ConnectionReconnectingError):
                # Reconnecting, or the stream electing a new leader: in a moment, again.
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.1)

    async def _send(self, log: StreamLog, records: list[bytes], ids: list[str], expected: str,
                    timeout: float) -> int:
        """One try of ``_publish``, waiting ``timeout`` seconds for its acknowledgement."""
        try:
            if len(records) == 1:
                ack = await self.js.publish(log.subject, records[0], timeout=timeout,
                                            headers={EXPECTED: expected, MSG_ID: ids[0]})
                return int(ack.seq)
            return await self._publish_batch(log.subject, records, ids, expected, timeout)
        except nats.js.errors.APIError as error:
            refusal = error
        # Refused (the subject moved on, or the batch's ids are known already). If what moved
        # it is this very send, landed before (its acknowledgement lost), it is done, not
        # stored twice; anything else is another writer's.
        try:
            last = await self.js.get_last_msg(self.stream, log.subject)
        except nats.js.errors.NotFoundError:
            raise refusal from None
        if (last.headers or {}).get(MSG_ID) == ids[-1] and last.seq is not None:
            return last.seq
        if refusal.err_code == WRONG_LAST_SEQUENCE:
            # Another node took the table over (or this node's last commit landed after it
            # was said to fail): whoever holds it reads it again from the stream.
            raise TableLost(f"table {log.table_id} was written by another node: this one "
                            "has given it up")
        raise refusal

    async def _publish_batch(self, subject: str, records: list[bytes], ids: list[str],
                             expected: str, timeout: float) -> int:
        batch = secrets.token_hex(8)
        last = len(records)
        for number, (record, ident) in enumerate(zip(records, ids, strict=True), 1):
            headers = {"Nats-Batch-Id": batch, "Nats-Batch-Sequence": str(number),
                       MSG_ID: ident}
            if number == 1:
                headers[EXPECTED] = expected
            if number < last:
                await self.nc.publish(subject, record, headers=headers)
                continue
            headers["Nats-Batch-Commit"] = "1"
            reply = await self.nc.request(subject, record, headers=headers, timeout=timeout)
            answer = json.loads(reply.data)
            if "error" in answer:
                raise nats.js.errors.APIError.from_error(answer["error"])
            return int(answer["seq"])
        raise AssertionError("a batch of no records")

    def rollback(self, log: Any) -> bool:
        if isinstance(log, StreamLog):
            log.forget_pending()
        return True

    # --- leases -------------------------------------------------------------------------

    def advertise(self, address: str, key: str | None = None) -> None:
        self.client_address, self.client_key = address, key
        self.announce()

    @property
    def node_key(self) -> str:
        return NODE_PREFIX + re.sub(r"[^-_A-Za-z0-9]", "_", self.node)

    def nodes(self) -> list[dict[str, Any]]:
        """This node (unless it is leaving) and those whose node lease was heard within a
        TTL, by address."""
        now, own = monotonic(), self.node_key
        with self._lock:
            heard = [value for key, (when, value) in self.mirror.items()
                     if key.startswith(NODE_PREFIX) and key != own
                     and now - when <= self.lease_seconds]
        others = [{"address": v["address"], "key": v.get("key")}
                  for v in sorted(heard, key=lambda v: str(v.get("address")))
                  if isinstance(v.get("address"), str)]
        mine = [] if self.leaving else [{"address": self.client_address,
                                         "key": self.client_key}]
        return mine + others

    def leave_service(self) -> None:
        self.leaving = True
        with contextlib.suppress(Exception):
            self.bridge.run(self.leases_kv.delete(self.node_key), CLOSE_SECONDS)

    def lease_value(self, table_id: str) -> bytes:
        """A lease says who holds the table, where its clients reach that node, and what the
        lobby of every node shows of the table (``describe``)."""
        with self._lock:
            described = self.described.get(table_id, {})
        return json.dumps({"node": self.node, "address": self.client_address, **described},
                          default=str).encode()

    def describe(self, table_id: str, info: Mapping[str, Any], create_key: str | None
                 ) -> None:
        """What this node's lease of a table tells the other nodes from its next renewal:
        the table's ``TableInfo`` for their lobbies, its create key's hash for a resent
        ``create``."""
        with self._lock:
            self.described[table_id] = {"info": dict(info), "create_key": create_key}

    def holder(self, table_id: str) -> dict[str, Any] | None:
        """The live lease of a table (``node``, ``address``, ``info``, ``create_key``) as
        last heard, or ``None`` if nobody holds it now (its node died and it is not yet taken
        over, or it is no table)."""
        with self._lock:
            heard = self.mirror.get(table_id)
        if heard is None or monotonic() - heard[0] > self.lease_seconds:
            return None
        return heard[1]

    def service_tables(self) -> dict[str, dict[str, Any]]:
        """Every table some node has held while this one listened, with its last lease."""
        with self._lock:
            return {table_id: value for table_id, (_, value) in self.mirror.items()
                    if not table_id.startswith(NODE_PREFIX)}

    async def _mirror_forever(self) -> None:
        """Keep ``mirror`` up to date by watching the leases bucket. A lease that ends by its
        TTL sends nothing: ``holder`` knows it by its age. A watcher that has heard nothing
        for a TTL (NATS came back, and it did not) is made again."""
        while True:
            watcher = None
            try:
                watcher = await self.leases_kv.watchall()
                while True:
                    try:
                        entry = await watcher.updates(timeout=self.lease_seconds)
                    except nats.errors.TimeoutError:
                        break
                    if entry is None:
                        continue
                    self._heard(entry)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - NATS away: watch again in a moment
                await asyncio.sleep(0.2)
            finally:
                if watcher is not None:
                    with contextlib.suppress(Exception):
                        await watcher.stop()

    def _heard(self, entry: Any) -> None:
        with self._lock:
            if entry.operation is not None:  # deleted or purged: let go
                heard = self.mirror.pop(entry.key, None)
                if heard is not None and not entry.key.startswith(NODE_PREFIX):
                    # Still the service's table, held by nobody (its node let go of it in a
                    # drain): listed as it was, and taken over now rather than at the next look.
                    self.mirror[entry.key] = (-float("inf"), heard[1])
                    self._next_look = 0.0
                return
            try:
                value = json.loads(entry.value or b"")
            except ValueError:
                return
            if isinstance(value, dict):
                self.mirror[entry.key] = (monotonic(), value)

    def claim(self, table_id: str, *, must: bool = False) -> bool:
        """Take the lease of a table nobody holds; whether this node now holds it
        (``OSError`` when ``must`` and it could not)."""
        asked = monotonic()
        try:
            revision = self.bridge.run(self.leases_kv.create(table_id, self.lease_value(table_id)))
        except nats.js.errors.KeyWrongLastSequenceError:
            if must:
                raise OSError(f"table {table_id} is held by another node") from None
            return False
        except (TimeoutError, nats.errors.Error) as error:
            if must:
                raise OSError(f"NATS did not grant the lease ({describe(error)})") from None
            return False
        with self._lock:
            self.leases[table_id] = revision
            self.renewed_at[table_id] = asked
            self.lost.discard(table_id)
        self.announce()
        return True

    def release(self, table_id: str) -> None:
        with self._lock:
            revision = self.leases.pop(table_id, None)
            self.described.pop(table_id, None)
            self.renewed_at.pop(table_id, None)
        if revision is not None:
            with contextlib.suppress(Exception):
                self.bridge.run(self.leases_kv.delete(table_id, last=revision))

    def unheld(self) -> list[str]:
        """The tables of the stream whose lease nobody held (their node died, or let go),
        as a look in the background found them: once, when it has ended (nothing until
        then). A look starts every half TTL, so the server never waits for NATS to ask."""
        look, found = self._look, []
        if look is not None and look.done():
            self._look = None
            with contextlib.suppress(Exception):  # NATS away: the next look tries again
                found = look.result()
        elif look is None and monotonic() >= self._next_look:
            self._next_look = monotonic() + self.lease_seconds / 2
            self._look = self.bridge.submit(self._unheld())
        return found

    async def _unheld(self) -> list[str]:
        tables = await self._table_ids()
        try:
            held = set(await self.leases_kv.keys())
        except nats.js.errors.NoKeysError:
            held = set()
        return [table_id for table_id in tables if table_id not in held]

    def take_lost(self) -> set[str]:
        with self._lock:
            lost, self.lost = self.lost, set()
        return lost

    def announce(self) -> None:
        """Renew every lease now, so that what ``describe`` said reaches the other nodes."""
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self.bridge.loop.call_soon_threadsafe(self._renew_now.set)

    def lapsed(self, table_id: str) -> bool:
        """Whether this node's lease of a table may have ended (by its own clock, which runs
        on while the process is paused): it must not write the table until it renews."""
        with self._lock:
            if table_id in self.lost:
                return True
            asked = self.renewed_at.get(table_id)
        return asked is not None and monotonic() - asked > self.lease_seconds * LEASE_MARGIN

    async def _renew_forever(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._renew_now.wait(), self.lease_seconds / 4)
            self._renew_now.clear()
            if not self.leaving and self.client_address:
                with contextlib.suppress(Exception):  # NATS away: the next round says it
                    await self.leases_kv.put(self.node_key, json.dumps(
                        {"address": self.client_address, "key": self.client_key}).encode())
            with self._lock:
                held = dict(self.leases)
            for table_id, revision in held.items():
                asked = monotonic()
                value = self.lease_value(table_id)
                try:
                    renewed = await self.leases_kv.update(table_id, value, last=revision)
                except nats.js.errors.KeyWrongLastSequenceError:
                    # Ended by its TTL (NATS was away, or this node paused), or another node
                    # holds it. If nobody does, take it again: should another node have written
                    # the table meanwhile, the next append is refused and the table given up.
                    try:
                        renewed = await self.leases_kv.create(table_id, value)
                    except Exception:  # noqa: BLE001 - held by another: give it up
                        renewed = None
                except Exception:  # noqa: BLE001 - NATS away: try again next round
                    continue
                with self._lock:
                    if table_id not in self.leases:
                        continue
                    if renewed is None:
                        del self.leases[table_id]
                        self.renewed_at.pop(table_id, None)
                        self.lost.add(table_id)
                    else:
                        self.leases[table_id] = renewed
                        self.renewed_at[table_id] = asked

    def close(self) -> None:
        if not self.leaving:
            self.leave_service()
        self._renewer.cancel()
        self._mirrorer.cancel()
        for table_id in list(self.leases):
            self.release(table_id)
        with contextlib.suppress(Exception):
            self.bridge.run(self.nc.close(), 5)
        self.bridge.close()


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
