"""Where a server keeps its tables' logs: the one small interface, ``LogStore``,
and its first implementation, ``FileStore``, a folder of files (the default, as on disk
since the first release). The other, ``server/jetstream.py``, keeps them in NATS JetStream.

Whatever the store, a table's log is the bytes of ``docs/replay-format.md``; the server
appends records in memory (``TableLog.append``), and before it answers anyone it has the
store make every log written in the batch durable (``commit``: fdatasync here, JetStream's
acknowledgement there). A log whose commit failed is rolled back (``rollback``) to what the
last good commit left, so a refused write changes nothing. The log is the one truth for who
sits where too (its ``seating`` records, ``server/seats.py``); a store keeps nothing else of a
table but what older servers wrote beside its log (``legacy_seating``).

Both stores implement the whole interface, leases included, so the server never asks a store
what it is: a folder is one server's alone (``FolderLock``), so a file store holds every table
it has, never loses one and hears of no other node.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import os
import socket
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from starhall.server.durability import GroupCommit, read_whole, rollback
from starhall.server.seats import SEATING_SUFFIX, SeatRecord, load_legacy_seating
from starhall.shared.atomic_files import write_durably
from starhall.shared.logfile import (
    OPEN_FLAGS,
    SUFFIX,
    LogError,
    LogWriter,
    TableLog,
    read_records,
    torn_tail,
)
from starhall.shared.replay import HEAD_BYTES, Recording, load_tail

SUMMARY_SUFFIX = ".summary.json"
"""A finished game's summary beside its log, in a folder: ``0001.summary.json``."""


class LogStore(Protocol):
    """A server's tables: their logs (appended, committed, rolled back) and their leases."""

    where: str
    """What messages call the store: a folder, or a ``nats://`` address."""
    summaries: bool
    """Whether it keeps a finished game's summary beside its log (``keep_summary``), so that
    a restart lists the table without folding its log."""

    def exists(self, table_id: str) -> bool: ...

    def table_ids(self) -> list[str]:
        """Every table it holds."""
        ...

    def reopen(self, table_id: str) -> tuple[bytes, TableLog]:
        """A table's durable log, and its log opened to append after it."""
        ...

    def create_log(self, table_id: str, header: Mapping[str, Any]) -> TableLog:
        """A new table's log holding ``header``, durable; ``OSError`` and nothing left if
        that failed."""
        ...

    def start_create(self, first_id: str, header_for: Callable[[str], Mapping[str, Any]]
                     ) -> concurrent.futures.Future[tuple[str, TableLog]]:
        """Start making a new table: the first id from ``first_id`` on that nobody has (nor
        takes meanwhile, on any node), its log holding ``header_for(id)``, durable. The
        server polls the future and never waits for it in its loop."""
        ...

    def prefetch(self, table_id: str, *, claim: bool = False
                 ) -> concurrent.futures.Future[bool] | None:
        """Start reading a table's log and seating (after claiming it, with ``claim``), so
        that ``reopen``, ``read`` and ``legacy_seating`` then answer at once; the future says
        whether it is there (and claimed). ``None``: they answer at once already."""
        ...

    def remove(self, table_id: str) -> None:
        """Forget a table whose creation failed half way (nobody was told of it)."""
        ...

    def source(self, table_id: str) -> str:
        """What errors in a table's log name (its file, or its address)."""
        ...

    def read(self, table_id: str) -> bytes:
        """The table's whole log as far as it is durable."""
        ...

    def read_range(self, table_id: str, offset: int, length: int) -> bytes:
        """``length`` bytes of the table's log from ``offset`` (fewer at its end)."""
        ...

    def read_ends(self, table_id: str, head: int, tail_from: int) -> tuple[int, bytes, bytes]:
        """At once: the log's length, its first ``head`` bytes and its bytes from
        ``tail_from`` on (what checks a summary against its log, table after table)."""
        ...

    def open_tail(self, table_id: str, *, read_only: bool) -> tuple[Recording, TableLog | None]:
        """The table's log read from its last checkpoint (``load_tail``) and, unless
        ``read_only``, opened to append after its last whole record (a torn tail is cut off,
        and said on stderr). ``EmptyLog`` (the log removed, unless ``read_only``) for a table
        whose creation never finished."""
        ...

    def tidy(self) -> None:
        """Remove what a crash left half written, before the tables are restored."""
        ...

    def summary(self, table_id: str) -> bytes | None:
        """The summary kept of a finished table (``keep_summary``), if there is one."""
        ...

    def keep_summary(self, table_id: str, body: bytes) -> None:
        """Keep a finished table's summary (not durably: a summary is checked against its log
        before it is believed); nothing for a store without ``summaries``."""
        ...

    def describe_access(self) -> str | None:
        """How the server reaches the store (its login and TLS, never a secret), for the line
        ``serve`` prints as it starts; ``None`` for a store reached without one."""
        ...

    def legacy_seating(self, table_id: str, players: int) -> list[SeatRecord] | None:
        """The seating an older server kept beside the table's log, if it is still there (it
        is the table's until the log records it: ``drop_legacy_seating``)."""
        ...

    def drop_legacy_seating(self, table_id: str) -> None:
        """Forget the older seating once the table's log records it durably."""
        ...

    def head_start(self, log: TableLog) -> None:
        """Start making a person's move durable now; ``commit`` waits for it."""
        ...

    @property
    def head_started(self) -> bool: ...

    def start_commit(self, logs: list[TableLog]) -> Commit:
        """Start making every log durable; the server goes on meanwhile and asks the
        ``Commit`` whether it is done. Until then nothing more is appended to these logs."""
        ...

    def commit(self, logs: list[TableLog]) -> list[tuple[TableLog, OSError]]:
        """Make every log durable, waiting for it; those that failed, with their error."""
        ...

    def rollback(self, log: TableLog) -> bool:
        """Forget what a failed commit of ``log`` appended; whether the log is now exactly
        what the last good commit left (if not, the table must stop)."""
        ...

    def tend(self) -> None:
        """What the store does on the server's thread when nothing else asks it to (a
        JetStream commits' connection answering NATS's pings, reconnecting), never waiting;
        the server's loop calls it with its housekeeping."""
        ...

    def wake_fd(self) -> int | None:
        """A file descriptor that is readable when a commit under way has news for the
        server's thread (JetStream: an acknowledgement to read), which the loop waits on
        beside its socket while a commit is under way; ``None``: its commits end by
        themselves."""
        ...

    def close(self) -> None:
        """Stop its work (a sync under way ends first); the tables' logs are closed after."""
        ...

    # --- leases: which node serves which table ------------------------------------------

    node: str
    """This node's name in its leases."""

    @property
    def service(self) -> str:
        """The service this store's tables belong to: the same on every node that shares
        the store (JetStream: kept in the seating bucket); a folder's is its server's."""
        ...

    def advertise(self, address: str, key: str | None = None) -> None:
        """Where this node's clients reach it, and its CurveZMQ public key (Z85; ``None``:
        plain), for the leases and the list of nodes to tell the other nodes."""
        ...

    def nodes(self) -> list[dict[str, Any]]:
        """The service's live nodes, this one first: ``address`` and ``key`` each."""
        ...

    def leave_service(self) -> None:
        """This node is stopping (a drain): the other nodes stop listing it now."""
        ...

    def claim(self, table_id: str, *, must: bool = False) -> bool:
        """Take the lease of a table nobody holds; whether this node now holds it
        (``OSError`` when ``must`` and it could not)."""
        ...

    def release(self, table_id: str) -> None:
        """Let go of a table's lease (this node no longer serves it)."""
        ...

    def unheld(self) -> list[str]:
        """The live tables nobody alive holds (their node died): this node may take them.
        Never waits for the network."""
        ...

    def orphan(self, table_id: str) -> str | None:
        """Whether nobody alive holds a table this node does not: ``"live"`` (it wants an
        owner), ``"finished"`` (any node reads it, with no owner), else ``None``."""
        ...

    def restores_at_start(self, table_id: str) -> bool:
        """Whether this node restores the table as it starts, holding it from then on: a
        folder's every table; a shared store's live tables nobody alive holds, claimed now
        (a finished one any node reads when asked, with no owner)."""
        ...

    def take_lost(self) -> set[str]:
        """The tables whose lease this node lost since last asked, to be given up."""
        ...

    def describe(self, table_id: str, info: Mapping[str, Any], create_key: str | None
                 ) -> None:
        """What this node's lease of a table tells the other nodes (their lobbies)."""
        ...

    def announce(self) -> None:
        """Tell the other nodes what ``describe`` said now, not at the next renewal."""
        ...

    def holder(self, table_id: str) -> dict[str, Any] | None:
        """The live lease of a table (``node``, ``address``, ``info``, ``create_key``), or
        ``None`` if nobody holds it now."""
        ...

    def service_tables(self) -> dict[str, dict[str, Any]]:
        """Every table of the whole service some node has held, with its last lease."""
        ...


class Commit(Protocol):
    """A commit under way: the server polls it, and never waits for it in its loop."""

    def done(self) -> bool: ...

    def sent(self) -> bool:
        """Whether the store now works on the commit without the loop (JetStream: its
        publishes are on the wire, their acknowledgements on their way), so that what the
        loop builds before it waits costs the mover nothing."""
        ...

    def wait(self, timeout: float | None) -> bool:
        """Wait for it at most ``timeout`` seconds (``None``: until it ends); whether done."""
        ...

    def failures(self) -> list[tuple[TableLog, OSError]]:
        """Once done: the logs that failed, with their error (the others are durable)."""
        ...


class Done:
    """A commit that ended before ``start_commit`` returned (a file store's group commit,
    which waits only for the local disk)."""

    def __init__(self, failures: list[tuple[TableLog, OSError]]) -> None:
        self._failures = failures

    def done(self) -> bool:
        return True

    def sent(self) -> bool:
        return False

    def wait(self, timeout: float | None) -> bool:
        return True

    def failures(self) -> list[tuple[TableLog, OSError]]:
        return self._failures


class EmptyLog(Exception):
    """A log with no whole record: a table whose creation never finished (it was removed)."""


class TableLost(OSError):
    """A commit found the table's log holds records this node did not write: another node
    took the table over. The table must be given up."""


class FileStore:
    """A folder of files: ``ID.starhall`` (the log) and, for a finished game,
    ``ID.summary.json``; logs are made durable by ``GroupCommit``. (An older server's
    ``ID.seats.json`` is read while it is there.)"""

    summaries = True

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.where = str(self.folder)
        self._committer: GroupCommit | None = None

    @property
    def committer(self) -> GroupCommit:
        if self._committer is None:  # its threads only for a store that writes
            self._committer = GroupCommit()
        return self._committer

    def log_path(self, table_id: str) -> Path:
        return self.folder / f"{table_id}{SUFFIX}"

    def seating_path(self, table_id: str) -> Path:
        return self.folder / f"{table_id}{SEATING_SUFFIX}"

    def exists(self, table_id: str) -> bool:
        return self.log_path(table_id).exists()

    def table_ids(self) -> list[str]:
        return sorted(path.name[: -len(SUFFIX)] for path in self.folder.glob(f"*{SUFFIX}")
                      if not path.name.startswith("."))

    def reopen(self, table_id: str) -> tuple[bytes, TableLog]:
        writer, found = LogWriter.reopen(self.log_path(table_id))
        writer.spill_bytes = None
        return self.read(table_id)[:found.good_length], writer

    def create_log(self, table_id: str, header: Mapping[str, Any]) -> TableLog:
        return LogWriter.create(self.log_path(table_id), header)

    def start_create(self, first_id: str, header_for: Callable[[str], Mapping[str, Any]]
                     ) -> concurrent.futures.Future[tuple[str, TableLog]]:
        # One server's folder: the next free name, and a local disk answers at once.
        made: concurrent.futures.Future[tuple[str, TableLog]] = concurrent.futures.Future()
        table_id = first_id
        while self.exists(table_id) or self.seating_path(table_id).exists():
            table_id = f"{int(table_id) + 1:04d}"
        try:
            made.set_result((table_id, self.create_log(table_id, header_for(table_id))))
        except BaseException as error:  # noqa: BLE001 - the caller reads it from the future
            made.set_exception(error)
        return made

    def prefetch(self, table_id: str, *, claim: bool = False
                 ) -> concurrent.futures.Future[bool] | None:
        return None

    def remove(self, table_id: str) -> None:
        for made in (self.log_path(table_id), self.seating_path(table_id)):
            with contextlib.suppress(OSError):
                made.unlink()

    def source(self, table_id: str) -> str:
        return str(self.log_path(table_id))

    def read(self, table_id: str) -> bytes:
        return read_whole(self.log_path(table_id))

    def read_range(self, table_id: str, offset: int, length: int) -> bytes:
        handle = os.open(self.log_path(table_id), os.O_RDONLY | OPEN_FLAGS)
        try:
            return os.pread(handle, length, offset)
        finally:
            os.close(handle)

    def read_ends(self, table_id: str, head: int, tail_from: int) -> tuple[int, bytes, bytes]:
        handle = os.open(self.log_path(table_id), os.O_RDONLY | OPEN_FLAGS)
        try:
            size = os.fstat(handle).st_size
            return (size, os.pread(handle, head, 0),
                    os.pread(handle, max(0, size - tail_from), tail_from))
        finally:
            os.close(handle)

    def open_tail(self, table_id: str, *, read_only: bool) -> tuple[Recording, TableLog | None]:
        path = self.log_path(table_id)
        if not read_only:
            self._remove_if_never_created(table_id)
        size = path.stat().st_size
        recording = load_tail(path)
        if recording.torn:
            print(f"starhall serve: table {table_id}: "
                  f"{self._torn_tail_words(table_id, recording, size, read_only)}",
                  file=sys.stderr)
        if read_only:
            return recording, None
        writer = (LogWriter.reopen(path)[0] if recording.torn
                  else LogWriter.reopen_at(path, size))  # a torn tail is cut off
        writer.spill_bytes = None  # the server's commits alone write
        return recording, writer

    def _torn_tail_words(self, table_id: str, recording: Recording, size: int,
                         read_only: bool) -> str:
        """What a log's torn tail held and why it is dropped, in one line."""
        good, kept = recording.good_length, recording.last_seq
        tail = torn_tail(self.read_range(table_id, good, size - good), self.log_path(table_id))
        if read_only:
            return (f"leaves out the last {tail.length:,} bytes of its log after event {kept} "
                    f"(--read-only: the file is not cut back): {tail.words(kept)}")
        return (f"dropped the last {tail.length:,} bytes of its log after event {kept}: "
                f"{tail.words(kept)}; the table goes on from event {kept}")

    def _remove_if_never_created(self, table_id: str) -> None:
        """A log without a whole header is a table whose creation never finished (a crash
        before its header was on disk): nobody was told of it, so it is removed
        (``EmptyLog``)."""
        path = self.log_path(table_id)
        with open(path, "rb") as file:
            data = file.read(HEAD_BYTES)
            whole = not file.read(1)
        if not whole or (data and data[0] != 0x92):
            return  # a log, or not a torn header: loading it will say what it is
        try:
            records, _ = read_records(data, path, limit=1)
        except LogError:
            return
        if records:
            return
        print(f"starhall serve: removing table {table_id}: its creation never finished "
              f"({path.name} holds no whole header)", file=sys.stderr)
        self.remove(table_id)  # (an older server's seating file beside it too)
        raise EmptyLog(table_id)

    def tidy(self) -> None:
        """Temporary files of writes a crash interrupted (the files they were to replace are
        whole: they are renamed into place only once written)."""
        for name in os.listdir(self.folder):
            if name.endswith(".tmp") and not name.startswith("."):
                with contextlib.suppress(OSError):
                    (self.folder / name).unlink()

    def summary_path(self, table_id: str) -> Path:
        return self.folder / f"{table_id}{SUMMARY_SUFFIX}"

    def summary(self, table_id: str) -> bytes | None:
        try:
            return read_whole(self.summary_path(table_id))
        except FileNotFoundError:
            return None

    def keep_summary(self, table_id: str, body: bytes) -> None:
        write_durably(self.summary_path(table_id), body, durable=False)

    def describe_access(self) -> str | None:
        return None

    def legacy_seating(self, table_id: str, players: int) -> list[SeatRecord] | None:
        return load_legacy_seating(self.seating_path(table_id), players)

    def drop_legacy_seating(self, table_id: str) -> None:
        self.seating_path(table_id).unlink(missing_ok=True)

    def head_start(self, log: TableLog) -> None:
        assert isinstance(log, LogWriter)
        self.committer.head_start(log)

    @property
    def head_started(self) -> bool:
        return self._committer is not None and self._committer.head_started

    def start_commit(self, logs: list[TableLog]) -> Commit:
        # A local disk answers in milliseconds: the loop waits for it, as the fastest way.
        return Done(self.commit(logs))

    def commit(self, logs: list[TableLog]) -> list[tuple[TableLog, OSError]]:
        writers = [log for log in logs if isinstance(log, LogWriter)]
        return list(self.committer.commit(writers))

    def rollback(self, log: TableLog) -> bool:
        assert isinstance(log, LogWriter)
        return rollback(log)

    def tend(self) -> None:
        pass  # its commits run on threads of their own

    def wake_fd(self) -> int | None:
        return None

    def close(self) -> None:
        if self._committer is not None:
            self._committer.close()

    # A folder is one server's alone: every table in it is this node's, for good.

    node = ""
    _address = ""
    _key: str | None = None

    @property
    def service(self) -> str:
        """Named by the server's public key, kept in the data folder with the tables (a
        plain server: by its machine and folder); nothing is written for it, so a
        ``--read-only`` server has one too."""
        seed = self._key or f"{socket.gethostname()}:{self.folder.resolve()}"
        return hashlib.sha256(seed.encode()).hexdigest()[:16]

    def advertise(self, address: str, key: str | None = None) -> None:
        self._address, self._key = address, key

    def nodes(self) -> list[dict[str, Any]]:
        return [{"address": self._address, "key": self._key}]

    def leave_service(self) -> None:
        pass

    def claim(self, table_id: str, *, must: bool = False) -> bool:
        return True

    def release(self, table_id: str) -> None:
        pass

    def unheld(self) -> list[str]:
        return []

    def orphan(self, table_id: str) -> str | None:
        return None

    def restores_at_start(self, table_id: str) -> bool:
        return True

    def take_lost(self) -> set[str]:
        return set()

    def describe(self, table_id: str, info: Mapping[str, Any], create_key: str | None
                 ) -> None:
        pass

    def announce(self) -> None:
        pass

    def holder(self, table_id: str) -> dict[str, Any] | None:
        return None

    def service_tables(self) -> dict[str, dict[str, Any]]:
        return {}

