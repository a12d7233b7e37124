"""Files replaced whole: a new version is written beside the old one and renamed over it, so a
crash or a full disk leaves the old file or the new one, never half of either. The server
keeps its seating files and table summaries so, the client the user's settings, seats and
statistics.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from starhall.shared.logfile import OPEN_FLAGS


def sync_folder(folder: Path) -> None:
    """fsync a folder, so that the files made, renamed or removed in it stay so after a
    crash of the machine (where the system has no such thing, nothing to do)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except (PermissionError, IsADirectoryError):  # Windows cannot open a folder
        return
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def write_durably(path: Path, body: bytes, *, durable: bool = True, mode: int = 0o644) -> None:
    """Replace ``path`` by a file holding ``body``, atomically and (``durable``) durably:
    write a temporary file beside it, fsync it, rename it over ``path``, fsync the folder. If
    a step fails the temporary file is removed and ``OSError`` raised; ``path`` is then the old
    file, unless the rename was done and only the folder's sync failed (``RenamedError``).
    Without ``durable`` nothing is synced: for a file that is checked before it is trusted.
    ``mode``: the new file's permissions (0o600 for a file holding seat tokens)."""
    temporary = path.with_suffix(".tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | OPEN_FLAGS, mode)
        try:
            view = memoryview(body)
            while view:
                view = view[os.write(handle, view):]
            if durable:
                os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if not durable:
        return
    try:
        sync_folder(path.parent)
    except OSError as error:
        raise RenamedError(error.errno, error.strerror) from error


class RenamedError(OSError):
    """The new file was renamed into place, but the folder could not be synced after."""
