"""The seats this user holds at tables on LAN servers, so the lobby can offer to resume them.

A seat's token is the only proof that it is yours (docs/protocol.md §3): it is kept in
``held-seats.json`` in the user's config folder (``client.settings.config_dir``), readable by
the user alone. The file is a convenience: when it cannot be read or written the lobby still
works, it just cannot list the games to go back to.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from client import settings

FILE_NAME = "held-seats.json"
KEEP = 50
"""Seats remembered at most (the oldest are forgotten first)."""


@dataclass(frozen=True, slots=True)
class HeldSeat:
    server: str
    """The server's address as the client connected to it (``tcp://host:port``)."""
    table: str
    seat: int
    token: str
    title: str = ""
    """The game's title, for the list."""


def path() -> Path:
    return settings.config_dir() / FILE_NAME


def load() -> list[HeldSeat]:
    try:
        data = json.loads(path().read_text("utf-8"))
        return [HeldSeat(str(item["server"]), str(item["table"]), int(item["seat"]),
                         str(item["token"]), str(item.get("title") or ""))
                for item in data.get("seats", [])]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


def _save(seats: list[HeldSeat]) -> None:
    folder = path().parent
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".held-seats-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:  # mkstemp: mode 0600
                json.dump({"version": 1, "seats": [asdict(seat) for seat in seats[-KEEP:]]},
                          file, indent=1)
            os.replace(temporary, path())
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def remember(seat: HeldSeat) -> None:
    seats = [held for held in load() if (held.server, held.table, held.seat)
             != (seat.server, seat.table, seat.seat)]
    _save([*seats, seat])


def forget(server: str, table: str, seat: int | None = None) -> None:
    seats = load()
    kept = [held for held in seats if not (held.server == server and held.table == table
                                           and seat in (None, held.seat))]
    if len(kept) != len(seats):
        _save(kept)


def at(server: str) -> list[HeldSeat]:
    return [held for held in load() if held.server == server]


def as_dict(seat: HeldSeat) -> dict[str, Any]:
    return asdict(seat)
