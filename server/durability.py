"""Group commit: make every table log written since the last commit durable at once.

The server appends events to many logs while it handles a batch of messages and bot moves,
then calls ``commit`` once: each dirty log is flushed and fsynced, the fsyncs running side by
side on a small thread pool (an fsync waits for the disk, not the processor, and a disk
serves several at a time), and only then are acknowledgements and updates sent. So a busy
server pays one round of fsyncs per batch rather than one per move.

A person's move need not wait for the rest of its batch: ``head_start`` writes its log and
starts the sync at once, on ``BackgroundSync``'s thread (``server/background_sync.c``, which
needs no GIL), while the server answers and builds the mover's update; the commit then only
waits for what is left of it, polling rather than sleeping (``SPIN_SECONDS``).

A write that fails (a full disk, a disk gone read-only) must change nothing: a log whose
commit failed is cut back to what its last good commit left (``rollback``), and the request
that wanted the write gets a ``storage`` error (``StorageError``) rather than ``internal``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

from starhall.server.scheduling import hand_over_core
from starhall.shared.logfile import OPEN_FLAGS, LogWriter

SYNC_THREADS = 16
SPIN_SECONDS = 0.002
"""How long the commit polls for a head-started sync before it sleeps: longer than most
syncs (a few hundred microseconds). A sleeping thread is woken some tens of microseconds after
it is signalled on a virtual machine (its idle core must wake first), and the mover's update
waits for that; the polling costs a core only while a person's move is being synced."""

STORAGE = "storage"
"""The error code of a request the server could not write to its data folder."""
READ_ONLY = "read_only"
"""The error code of a request that would write, sent to a server started ``--read-only``."""
READ_ONLY_REASON = ("this server only shows its tables (it was started with --read-only): "
                    "watch them or replay them; nothing can be changed")


class StorageError(OSError):
    """A write to the data folder failed; nothing it was part of was changed. Its text says
    so in words (an ``OSError``, so a command-line tool reports it in one line)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(storage_reason(error))
        self.error = error


class ReadOnly(Exception):
    """A change refused because the server was started ``--read-only``."""

    def __init__(self) -> None:
        super().__init__(READ_ONLY_REASON)


def storage_reason(error: OSError) -> str:
    why = error.strerror or str(error) or type(error).__name__
    return f"the server could not write its data folder ({why})"


class SyncWhenWaited:
    """``BackgroundSync`` where it is not built: the same calls, but the sync runs when it is
    waited for, as though it had been given no head start."""

    def __init__(self) -> None:
        self._fd: int | None = None

    @property
    def busy(self) -> bool:
        return self._fd is not None

    def start(self, fd: int) -> None:
        if self._fd is not None:
            raise RuntimeError("a sync is already under way: wait for it first")
        self._fd = fd

    def wait(self, spin: float = 0.0) -> None:
        if not 0.0 <= spin <= 1.0:  # nothing to poll for here, but the same contract
            raise ValueError("spin is seconds, from 0 to 1")
        fd, self._fd = self._fd, None
        if fd is None:
            raise RuntimeError("no sync was started")
        _datasync(fd)

    def close(self) -> None:
        self._fd = None


try:
    from starhall.server.background_sync import BackgroundSync
except ImportError:  # not compiled (no C compiler, or STARHALL_PURE_PYTHON)
    BackgroundSync = SyncWhenWaited  # type: ignore[assignment,misc]


class GroupCommit:
    def __init__(self, threads: int = SYNC_THREADS) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="fsync")
        self._threads = threads
        self._background = BackgroundSync()
        self._ahead: tuple[LogWriter, int] | None = None
        """The log whose sync ``head_start`` started, and its length then."""

    def head_start(self, writer: LogWriter) -> None:
        """Write what ``writer`` holds and start its sync now, in the background, so that
        the disk works while the server goes on with the batch; ``commit`` waits for it (and
        syncs again what was appended after it started). One log at a time: while one sync
        is under way, nothing."""
        if self._ahead is not None:
            return
        try:
            writer.flush()
        except OSError:
            return  # the commit meets the error again, and the batch is undone
        self._background.start(writer.fileno())
        hand_over_core()  # the sync thread hands the write to the disk now (the stand-in:
        # nothing was woken, and the yield returns at once)
        self._ahead = writer, writer.written_length

    @property
    def head_started(self) -> bool:
        """Whether a sync ``head_start`` started awaits the next commit."""
        return self._ahead is not None

    def commit(self, writers: list[LogWriter]) -> list[tuple[LogWriter, OSError]]:
        """Sync every writer; returns those that failed, with their error. The others' syncs
        run before the wait for the one ``head_start`` started, so the two overlap."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0].appended_length == ahead[1]:
            writers = [writer for writer in writers if writer is not ahead[0]]
        failures: dict[LogWriter, OSError] = {}
        if len(writers) <= 1:
            failures.update(failure for failure in map(_sync, writers) if failure is not None)
        else:
            # A task per thread, each taking the next log left until none is, rather than a
            # task per log: a busy batch writes a hundred logs, and each task costs the loop
            # more than its write does (a future, a wake-up).
            left = iter(writers)
            for failed in self._pool.map(_sync_left, [left] * min(self._threads, len(writers))):
                failures.update(failed)
        if ahead is not None:
            early, length = ahead
            try:
                self._background.wait(spin=SPIN_SECONDS)
            except OSError as error:  # even if a later sync of it worked: never durable
                failures.setdefault(early, error)
            else:
                if early.appended_length == length:
                    early.synced()
        return list(failures.items())

    def close(self) -> None:
        """Let a sync under way finish, then stop the threads."""
        self._background.close()
        self._pool.shutdown(wait=True)


_datasync = getattr(os, "fdatasync", os.fsync)
"""fdatasync where there is one: it skips flushing timestamps nobody reads back, yet still
flushes the new length of an appended file (which the log needs)."""


def _sync(writer: LogWriter) -> tuple[LogWriter, OSError] | None:
    try:
        writer.flush()
        _datasync(writer.fileno())
    except OSError as error:
        return writer, error
    writer.synced()
    return None


def _sync_left(left: Iterator[LogWriter]) -> list[tuple[LogWriter, OSError]]:
    """Sync the writers ``left``, shared with other threads (each takes the next, so a thread
    held up by a slow disk leaves the rest to the others); those that failed, with their
    error."""
    return [failure for failure in map(_sync, left) if failure is not None]


def rollback(writer: LogWriter) -> bool:
    """Cut a log whose commit failed back to its last good commit; whether that worked (if
    not, what is on disk past it is unknown, and the table must stop)."""
    try:
        writer.rollback(_datasync)
    except OSError:
        return False
    return True


def read_whole(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes in the fewest calls (a restart reads two small files for each of
    thousands of finished tables, and ``Path.read_bytes`` takes twice as long)."""
    handle = os.open(path, os.O_RDONLY | OPEN_FLAGS)
    try:
        parts = [os.read(handle, os.fstat(handle).st_size or 4096)]
        while parts[-1]:  # to the end, even of a file that grew meanwhile
            parts.append(os.read(handle, 65536))
        return b"".join(parts)
    finally:
        os.close(handle)


def check_writable(folder: Path) -> None:
    """Raise ``OSError`` unless a file can be made, written, synced and removed in
    ``folder`` (a read-only or full disk, a folder of someone else's)."""
    probe = folder / f".write-check-{os.getpid()}"
    try:
        handle = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | OPEN_FLAGS, 0o644)
        try:
            os.write(handle, b"starhall")
            os.fsync(handle)
        finally:
            os.close(handle)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(probe)


# --- one process at a time in a folder ------------------------------------------------------


class FolderBusy(OSError):
    """Another process holds the lock of a folder."""


class FolderLock:
    """An exclusive lock on a folder, held through the file ``path`` in it while a server
    runs there (the operating system drops it when the process ends, however it ends):
    ``FolderBusy``, saying ``busy``, when another process holds it (or this one, through
    another ``FolderLock``)."""

    def __init__(self, path: Path, busy: str) -> None:
        self.path = path
        self._file: IO[bytes] | None = open(path, "a+b")  # noqa: SIM115 - held open
        try:
            _lock(self._file)
        except OSError:
            self._file.close()
            self._file = None
            raise FolderBusy(busy) from None

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                _unlock(self._file)
            self._file.close()
            self._file = None


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(file: IO[bytes]) -> None:
        file.seek(0)
        msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(file: IO[bytes]) -> None:
        file.seek(0)
        msvcrt.locking(file.fileno(), msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(file: IO[bytes]) -> None:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(file: IO[bytes]) -> None:
        fcntl.flock(file.fileno(), fcntl.LOCK_UN)
