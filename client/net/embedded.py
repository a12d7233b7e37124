"""The server `starhall play` runs inside the client, on loopback, in a background thread, and
where the games it plays are kept so that a later process can sit back down at them.

It is the real game server (``server.service``), so playing alone goes through exactly the
path a LAN game does.

Each ``starhall play`` keeps its games in a folder of its own under the user's data folder
(``platformdirs``' ``user_data_dir("starhall")``, or ``$STARHALL_DATA_DIR``):
``games/<when it started>/``, holding the server's ``tables/`` (one log per table) and
``seats.json``, the user's seat and its token at each of those tables. A folder is locked
while a process plays in it, so two windows never write to one table, and a server started on
it later restores its tables from their logs: ``starhall play --resume`` (and the lobby, through
``unfinished_tables()``) finds the games left unfinished and sits the user back in the seat
the token opens.

This module is the client's one way into ``server/`` (the import contracts in pyproject.toml
hold it to that): besides running a server and taking its folder lock (``server.durability``)
it lends the client the server's own code for a fork of a recorded game (``plan_fork``,
``write_fork``) and for the seats a server keeps beside an older log (``known_seating``),
imported when one of these is called.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starhall.client.user.folders import data_dir
from starhall.server import durability
from starhall.server.durability import FolderBusy
from starhall.shared.atomic_files import write_durably

if TYPE_CHECKING:
    from starhall.server.fork import Forked, ForkPlan
    from starhall.shared.replay import Recording
    from starhall.shared.seating import SeatMap

DEFAULT_DATA = "replays"
"""The data folder when one is given to no one (forks, tests)."""
GAMES_FOLDER = "games"
SEATS_FILE = "seats.json"
LOCK_FILE = "lock"
_RUNNING: dict[str, EmbeddedServer] = {}
"""The embedded servers of this process by address, so a table on one can find its log."""


def embedded_at(address: str) -> EmbeddedServer | None:
    """The embedded server of this process listening at ``address``, if there is one."""
    return _RUNNING.get(address)


def user_data() -> Path:
    """The user's Starhall data folder (``$STARHALL_DATA_DIR`` overrides it)."""
    return data_dir()


def new_games_folder(root: Path | None = None) -> Path:
    """A new folder for this process's games: ``games/YYYYmmdd-HHMMSS[-n]`` under ``root``."""
    games = (root or user_data()) / GAMES_FOLDER
    games.mkdir(parents=True, exist_ok=True)
    stem = time.strftime("%Y%m%d-%H%M%S")
    for number in range(1, 10_000):
        folder = games / (stem if number == 1 else f"{stem}-{number}")
        try:
            folder.mkdir()
        except FileExistsError:  # two windows started in the same second
            continue
        return folder
    raise OSError(f"{games}: cannot make a new folder for a game there")


# --- one process at a time in a folder ------------------------------------------------------


class FolderLock(durability.FolderLock):
    """The lock on a games folder, held while a server runs on it."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder / LOCK_FILE, f"{folder}: its game is open in another window")

    @staticmethod
    def held(folder: Path) -> bool:
        """Whether a process (this one included) plays in ``folder`` now."""
        if not (folder / LOCK_FILE).exists():
            return False
        try:
            FolderLock(folder).release()
        except FolderBusy:
            return True
        except OSError:
            return False
        return False


# --- the user's seats --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    """The user's seat at one table of a games folder, and what a new table like it needs."""

    table: str
    seat: int
    token: str
    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    bot: str = "random"
    """The bots' kind at the table (a Play again seats the same)."""
    name: str = ""


class SeatBook:
    """``seats.json`` of a games folder: the user's seat and token at each of its tables. The
    file holds tokens, so only its owner may read it; it is written whole and moved into
    place, so a crash never leaves half of it."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / SEATS_FILE

    def seats(self) -> dict[str, Seat]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
            entries = data["tables"]
            return {table: Seat(table=table, seat=int(entry["seat"]), token=str(entry["token"]),
                                game=str(entry["game"]), players=int(entry["players"]),
                                options=dict(entry.get("options") or {}),
                                bot=str(entry.get("bot") or "random"),
                                name=str(entry.get("name") or ""))
                    for table, entry in entries.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}  # none yet, or unreadable: nothing to sit back at

    def remember(self, seat: Seat) -> None:
        seats = self.seats()
        seats[seat.table] = seat
        self._write(seats)

    def forget(self, table: str) -> None:
        """Strike ``table`` out: its seat was given up, or its game is over or gone."""
        seats = self.seats()
        if seats.pop(table, None) is not None:
            self._write(seats)

    def _write(self, seats: dict[str, Seat]) -> None:
        body = {"version": 1, "tables": {
            table: {"seat": s.seat, "token": s.token, "game": s.game, "players": s.players,
                    "options": s.options, "bot": s.bot, "name": s.name}
            for table, s in sorted(seats.items())}}
        # Readable by the user only: the file holds seat tokens.
        write_durably(self.path, json.dumps(body, indent=1).encode("utf-8"), mode=0o600)


# --- games left unfinished ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UnfinishedTable:
    """A table of the user's own games whose game has not ended, and how to sit back at it."""

    folder: Path
    """The games folder a server must run on to serve it."""
    seat: Seat
    title: str
    log: Path
    played: float
    """When it was last played (its log's modification time, seconds since the epoch)."""
    events: int
    busy: bool = False
    """Open in another window now: it cannot be resumed until that window leaves it."""

    @property
    def table(self) -> str:
        return self.seat.table

    @property
    def key(self) -> str:
        """How ``starhall play --resume KEY`` names it: the folder and the table."""
        return f"{self.folder.name}/{self.table}"

    def describe(self) -> str:
        """One line: ``Stars, 4 players — last played 12 Jun 14:22 (20250612-142233/0001)``."""
        when = time.strftime("%d %b %H:%M", time.localtime(self.played))
        players = f"{self.seat.players} player{'s' if self.seat.players != 1 else ''}"
        busy = " — open in another window" if self.busy else ""
        return f"{self.title}, {players} — last played {when} ({self.key}){busy}"


def unfinished_tables(root: Path | None = None, *, busy: bool = False) -> list[UnfinishedTable]:
    """The user's own games not yet over, newest first, from every games folder under
    ``root`` (the user's data folder); ``busy`` keeps those open in another window too."""
    from starhall.shared.logfile import SUFFIX
    from starhall.shared.replay import load_tail

    games = (root or user_data()) / GAMES_FOLDER
    try:
        folders = sorted(path for path in games.iterdir() if path.is_dir())
    except OSError:  # no games kept yet
        return []
    found: list[UnfinishedTable] = []
    for folder in folders:
        seats = SeatBook(folder).seats()
        if not seats:
            continue
        held = FolderLock.held(folder)
        if held and not busy:
            continue
        for table, seat in seats.items():
            log = folder / "tables" / f"{table}{SUFFIX}"
            try:
                recording = load_tail(log)  # from its last checkpoint: long games list fast
                state = recording.resume().state
                if recording.game.outcome(state).over:
                    continue
                played = log.stat().st_mtime
            except Exception:  # noqa: BLE001 - a log gone or damaged is no game to go back to
                continue
            found.append(UnfinishedTable(folder, seat, recording.game.title, log.absolute(),
                                         played, recording.last_seq, held))
    found.sort(key=lambda entry: (entry.played, entry.key), reverse=True)
    return found


# --- the server ------------------------------------------------------------------------


class EmbeddedServer:
    def __init__(self, data: str | Path = DEFAULT_DATA, think: float = 0.6,
                 lock: bool = False) -> None:
        """A server on ``data``; ``lock`` holds the folder's lock while it runs (``FolderBusy``
        when another process has it)."""
        from starhall.server.service import ServerConfig, Service

        self.data = Path(data)
        """The data folder: table logs in ``tables/``, bug reports in ``bug-reports/``."""
        self.data.mkdir(parents=True, exist_ok=True)
        self._lock = FolderLock(self.data) if lock else None
        config = ServerConfig(data=self.data, bind="tcp://127.0.0.1:0", think=think,
                              name="starhall play")
        try:
            self.service = Service(config)
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise
        self.seats = SeatBook(self.data)
        """The user's seats at this server's tables, kept for a later process."""
        self.address = f"tcp://127.0.0.1:{self.service.port}"
        self.key = None if self.service.keys is None else self.service.keys.public
        """Its CurveZMQ public key, which this window's links are given (no asking)."""
        _RUNNING[self.address] = self
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.service.run, args=(self._stop,),
                                        name="starhall-embedded-server", daemon=True)
        self._thread.start()

    def log_path(self, table: str) -> Path:
        """Where this server writes the log of ``table``."""
        from starhall.shared.logfile import SUFFIX

        return Path(self.service.folder) / f"{table}{SUFFIX}"

    def stop(self) -> None:
        _RUNNING.pop(self.address, None)
        self._stop.set()
        self._thread.join(timeout=5)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- the server's code the client borrows ---------------------------------------------------


def plan_fork(path: str | Path, at: int | None = None, seat: int = 0,
              recording: Recording | None = None) -> ForkPlan:
    """``server.fork.plan_fork``: what a fork of the log at ``path`` after event ``at`` will be
    (``ForkError``, a ``ValueError``, when it cannot be made)."""
    from starhall.server import fork

    return fork.plan_fork(path, at, seat, recording)


def write_fork(plan: ForkPlan, data: str | Path) -> Forked:
    """``server.fork.write_fork``: the fork's table log in ``data``, as a server writes one."""
    from starhall.server import fork

    return fork.write_fork(plan, data)


def known_seating(seats: list[SeatMap | None], log: str | Path) -> list[SeatMap | None]:
    """``server.seats.known_seating``: the seats a log does not name, taken from the seating
    file a server keeps beside it."""
    from starhall.server import seats as server_seats

    return server_seats.known_seating(seats, log)
