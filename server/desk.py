"""The table master as its desks see it (the lobby, the seating desk, the reports and history
desks, the bots' turns, the leases): what they read of it and ask of it. The master imports
its desks and hands each itself; a desk knows it only by this protocol, so imports run one way
(``docs/architecture.md``)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from starhall.server.config import ServerConfig
from starhall.server.sessions import Session, Viewer
from starhall.server.stores import LogStore
from starhall.server.tables import Listed, LiveTable
from starhall.shared.engine import Command


class LeaseBook(Protocol):
    """The leases (``server/leases.py``) as the lobby reads them."""

    def every_table(self) -> dict[str, LiveTable | Listed]: ...

    def made_elsewhere(self, hashed_key: str | None) -> dict[str, Any] | None: ...

    def describe(self, tables: list[LiveTable] | None = None) -> None: ...


class ReportKeeper(Protocol):
    """Where bug reports are kept (``reports.ReportStore``)."""

    def check(self, sent: int) -> None: ...

    def keep(self, table: str, body: dict[str, Any], now: float) -> Path: ...


class Master(Protocol):
    """What a desk reads of the master (``server/master.py``, ``TableMaster``) and asks of it:
    the tables and sessions, and the steps of the move pipeline."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def store(self) -> LogStore: ...
    @property
    def tables(self) -> dict[str, LiveTable]: ...
    @property
    def sessions(self) -> dict[bytes, Session]: ...
    @property
    def frozen(self) -> Mapping[str, object]:
        """Tables whose commit is under way."""
    @property
    def loading(self) -> Mapping[str, object]:
        """Tables the store is reading or claiming for this node."""
    @property
    def changed_rosters(self) -> dict[str, LiveTable]: ...
    @property
    def created_keys(self) -> dict[str, str]: ...
    @property
    def games_info(self) -> list[dict[str, Any]]: ...
    @property
    def instance(self) -> str: ...
    @property
    def draining(self) -> bool:
        """Stopping on purpose: it hands its tables over, and makes no new one."""
    @property
    def message_waiting(self) -> Callable[[], bool]: ...
    @property
    def leases(self) -> LeaseBook: ...
    @property
    def reports(self) -> ReportKeeper: ...

    def reply(self, session: Session, rid: Any, message: dict[str, Any]) -> None:
        """Queue ``message`` for the session, as the reply to request ``rid``."""

    def send_error(self, identity: bytes, rid: Any, code: str, reason: str, **extra: Any) -> None:
        """Queue an ``error`` for the client, as the reply to request ``rid``."""

    def find_table(self, message: dict[str, Any], *, playable: bool = False) -> LiveTable:
        """The table a request names (``elsewhere`` if another node serves it); with
        ``playable``, one whose game goes on."""

    def check_playable(self, table: LiveTable) -> None:
        """A ``RequestError`` unless the table's game goes on (not broken, not over)."""

    def owned_seat(self, table: LiveTable, message: dict[str, Any]) -> int:
        """The seat the request's token owns at the table (``bad_token`` if none)."""

    def send_snapshot(self, session: Session, rid: Any, table: LiveTable, viewer: Viewer) -> None:
        """Queue a snapshot of the table as ``viewer`` (a seat, or ``None``) sees it."""

    def reseated(self, table: LiveTable) -> None:
        """After a change of the table's seats: logged with the batch, told to everyone."""

    def submit(self, table: LiveTable, command: Command, cid: int | str | None = None) -> None:
        """Decide, log and evolve one command, and queue its events for everyone."""

    def advance(self, table: LiveTable) -> None:
        """Deal if the game asks for it, then wake the table's bots if it is their turn."""

    def deal(self, table: LiveTable) -> None:
        """Answer the game's chance requests (its deals)."""

    def read_ahead(self, table: LiveTable) -> bool:
        """Have the store read the table's log off the loop if it must; whether that is under
        way (the table's requests wait, and its bots are woken once it is done)."""

    def await_store(self, future: concurrent.futures.Future[Any], then: Callable[[Any], None],
                    table_id: str | None = None) -> None:
        """Call ``then(future)`` on the loop once the store's ``future`` is done; the
        requests about ``table_id`` wait for it meanwhile."""

    def break_table(self, table: LiveTable, error: BaseException) -> None:
        """Stop the table after a fault (it answers ``broken`` from then on)."""
