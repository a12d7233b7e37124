"""Where a server keeps its tables' logs and seating: the one small interface, ``LogStore``,
and its first implementation, ``FileStore``, a folder of files (the default, as on disk
since the first release). The other, ``server/jetstream.py``, keeps them in NATS JetStream.

Whatever the store, a table's log is the bytes of ``docs/replay-format.md``; the server
appends records in memory (``TableLog.append``), and before it answers anyone it has the
store make every log written in the batch durable (``commit``: fdatasync here, JetStream's
acknowledgement there). A log whose commit failed is rolled back (``rollback``) to what the
last good commit left, so a refused write changes nothing.

Both stores implement the whole interface, leases included, so the server never asks a store
what it is: a folder is one server's alone (``FolderLock``), so a file store holds every table
it has, never loses one and hears of no other node.
"""

from __future__ import annotations

import contextlib
import hashlib
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from starhall.server.durability import GroupCommit, read_whole, rollback
from starhall.server.seats import SEATING_SUFFIX, SeatRecord, load_seating, save_seating
from starhall.shared.logfile import SUFFIX, LogWriter, TableLog


class LogStore(Protocol):
    """A server's tables: their logs (appended, committed, rolled back) and their seating."""

    where: str
    """What messages call the store: a folder, or a ``nats://`` address."""
    summaries: bool
    """Whether a finished game gets a summary file beside its log (the file store only)."""

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

    def remove(self, table_id: str) -> None:
        """Forget a table whose creation failed half way (nobody was told of it)."""
        ...

    def source(self, table_id: str) -> str:
        """What errors in a table's log name (its file, or its address)."""
        ...

    def read(self, table_id: str) -> bytes:
        """The table's whole log as far as it is durable."""
        ...

    def save_seating(self, table_id: str, name: str, seats: list[SeatRecord]) -> None:
        """Write the seating durably (``OSError`` if not, and then the old one holds)."""
        ...

    def load_seating(self, table_id: str, players: int) -> tuple[str | None, list[SeatRecord]]:
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
        """The tables whose lease nobody holds (their node died): this node may take them.
        Never waits for the network: what the last look found, perhaps a moment old."""
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

    def wait(self, timeout: float | None) -> bool:
        return True

    def failures(self) -> list[tuple[TableLog, OSError]]:
        return self._failures


class TableLost(OSError):
    """A commit found the table's log holds records this node did not write: another node
    took the table over. The table must be given up."""


class FileStore:
    """A folder of files: ``ID.starhall`` (the log), ``ID.seats.json`` (the seating) and,
    for a finished game, ``ID.summary.json``; logs are made durable by ``GroupCommit``."""

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

    def remove(self, table_id: str) -> None:
        for made in (self.log_path(table_id), self.seating_path(table_id)):
            with contextlib.suppress(OSError):
                made.unlink()

    def source(self, table_id: str) -> str:
        return str(self.log_path(table_id))

    def read(self, table_id: str) -> bytes:
        return read_whole(self.log_path(table_id))

    def save_seating(self, table_id: str, name: str, seats: list[SeatRecord]) -> None:
        save_seating(self.seating_path(table_id), name, seats)

    def load_seating(self, table_id: str, players: int) -> tuple[str | None, list[SeatRecord]]:
        return load_seating(self.seating_path(table_id), players)

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

