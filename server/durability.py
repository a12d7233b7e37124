"""Group commit: make every table log written since the last commit durable at once.

The server appends events to many logs while it handles a batch of messages and bot moves,
then calls ``commit`` once: each dirty log is flushed and fsynced, the fsyncs running side by
side on a small thread pool (an fsync waits for the disk, not the processor, and a disk
serves several at a time), and only then are acknowledgements and updates sent. So a busy
server pays one round of fsyncs per batch rather than one per move.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from shared.logfile import LogWriter

SYNC_THREADS = 16


class GroupCommit:
    def __init__(self, threads: int = SYNC_THREADS) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="fsync")

    def commit(self, writers: list[LogWriter]) -> list[tuple[LogWriter, OSError]]:
        """Sync every writer; returns those that failed, with their error."""
        if len(writers) == 1:
            return [failure for failure in [_sync(writers[0])] if failure is not None]
        return [failure for failure in self._pool.map(_sync, writers) if failure is not None]

    def close(self) -> None:
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
    return None
