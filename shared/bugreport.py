"""Bug reports: one file that holds a table's log and what a client saw of the table.

A bug report is framed like a log (``docs/replay-format.md``): a single ``[body, crc]``
record whose body is a map with ``kind`` ``"bug_report"``. Its ``log`` holds the table's log
file byte for byte, so every reader of logs (verify, show, view, fork) takes a bug report
where it takes a log (``shared.logfile`` knows a bug report when it reads one, and the log it
holds). ``docs/reproducing-bugs.md`` walks from such a file to the failing event.
"""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from starhall.shared.logfile import (
    BUG_MAGIC,
    BUG_SUFFIX,
    LogError,
    encode_record,
    is_bug_report,
    read_records,
)

BUG_FORMAT = 1
REPORTS_FOLDER = "bug-reports"
"""Where reports go in a data folder: the client's, and a server's (``report`` requests)."""


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def source_commit() -> str | None:
    """The git commit Starhall runs from, when it runs from a checkout (for ``git bisect``)."""
    import subprocess

    try:
        found = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                               capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = found.stdout.strip()
    return commit if found.returncode == 0 and len(commit) == 40 else None


def versions() -> dict[str, Any]:
    """What ran: Starhall, each game's rules version, Python, the libraries, the system."""
    from starhall.shared import build
    from starhall.shared.games import GAMES

    return {
        "starhall": _version("starhall"),
        "commit": source_commit(),
        "engines": build(),
        "rules": {game_id: game.rules_version for game_id, game in sorted(GAMES.items())},
        "python": sys.version.split()[0],
        "pygame-ce": _version("pygame-ce"),
        "pyzmq": _version("pyzmq"),
        "msgpack": _version("msgpack"),
        "os": platform.platform(),
    }


def make_bug_report(note: str, table: Mapping[str, Any], log: bytes | None, log_note: str,
                    messages: Sequence[Mapping[str, Any]], created: float,
                    running: Mapping[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """The body of a bug report. ``messages`` are ``{"time", "direction", "message"}`` maps,
    ``direction`` being ``"sent"`` or ``"received"``; ``running``: what ran (default:
    ``versions()``, this process's); ``more``: the keys only some reports have
    (``server_report``, ``client_versions``)."""
    return {
        "kind": "bug_report",
        "magic": BUG_MAGIC,
        "format": BUG_FORMAT,
        "created": created,
        "note": note,
        "versions": dict(running) if running is not None else versions(),
        "table": dict(table),
        "log": log,
        "log_note": "" if log is not None else log_note,
        "messages": [dict(message) for message in messages],
        **more,
    }


def report_path(folder: Path, table: str, now: float) -> Path:
    """A new file name in ``folder``: ``bug-<table>-<YYYYmmdd-HHMMSS>.starhall-bug`` (local
    time), with ``-2``, ``-3`` … for a second report of the table within a second."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", table) or "table"
    stem = f"bug-{name}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}"
    path = folder / f"{stem}{BUG_SUFFIX}"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}{BUG_SUFFIX}"
        number += 1
    return path


def write_bug_report(path: str | os.PathLike[str], body: Mapping[str, Any]) -> Path:
    """Write the report whole or not at all: to a temporary file, then renamed into place."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    try:
        with open(temporary, "wb") as file:
            file.write(encode_record(body))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target


def read_bug_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The body of a bug report file (``LogError`` if it is not one)."""
    records, _ = read_records(Path(path).read_bytes(), path)
    if len(records) != 1 or not is_bug_report(records[0][1]):
        raise LogError(path, 0, 0, "not a Starhall bug report")
    body: dict[str, Any] = records[0][1]
    return body
