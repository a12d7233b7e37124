"""The analysis of a log kept beside it (``LOG.analysis``), so that ``starhall replay analyse``
and the replay viewer weigh a game's decisions once: keyed by the log's digest (a log that
grew or changed is analysed afresh) and the analysis settings, each seat's decisions apart
(analysing one seat leaves the others to be done when asked for).

The file is JSON, replaced whole (``atomic_files``). One that cannot be read, or is of
another log, is as none; one that cannot be written (a read-only folder) leaves the analysis
uncached, and the caller says so.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from starhall.shared.analysis import Decision, Settings
from starhall.shared.atomic_files import write_durably

SUFFIX = ".analysis"
FORMAT = 1


def cache_path(log: str | Path) -> Path:
    """Where the analysis of ``log`` is kept: beside it, its name and ``.analysis``."""
    path = Path(log)
    return path.with_name(path.name + SUFFIX)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(log: str | Path, data: bytes) -> dict[str, Any]:
    """The analyses kept for this very log (by settings, then seat), or none."""
    try:
        kept = json.loads(cache_path(log).read_bytes())
    except (OSError, ValueError):
        return {}
    if (not isinstance(kept, dict) or kept.get("format") != FORMAT
            or kept.get("log") != digest(data) or not isinstance(kept.get("analyses"), dict)):
        return {}
    analyses: dict[str, Any] = kept["analyses"]
    return analyses


def cached(log: str | Path, data: bytes, settings: Settings,
           seats: Iterable[int]) -> dict[int, list[Decision]]:
    """The decisions kept for each of ``seats`` analysed with ``settings`` (a seat not kept
    is left out)."""
    by_seat = _read(log, data).get(settings.key, {})
    found: dict[int, list[Decision]] = {}
    for seat in seats:
        entries = by_seat.get(str(seat)) if isinstance(by_seat, dict) else None
        if not isinstance(entries, list):
            continue
        try:
            found[seat] = [Decision.from_data(entry) for entry in entries]
        except (ValueError, KeyError, TypeError):
            continue  # damaged: analysed again
    return found


def keep(log: str | Path, data: bytes, settings: Settings,
         decisions: dict[int, list[Decision]]) -> None:
    """Keep each seat's ``decisions`` beside the log, with what was kept before for it;
    ``OSError`` when the file cannot be written (nothing else changes then)."""
    analyses = _read(log, data)
    by_seat = analyses.get(settings.key)
    if not isinstance(by_seat, dict):
        by_seat = analyses[settings.key] = {}
    for seat, found in decisions.items():
        by_seat[str(seat)] = [decision.as_data() for decision in found]
    body = json.dumps({"format": FORMAT, "log": digest(data), "analyses": analyses},
                      ensure_ascii=False).encode()
    write_durably(cache_path(log), body, durable=False)
