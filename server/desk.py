"""The table master as its desks see it (the lobby, the seating desk, the reports and history
desks, the bots' turns, the leases): what they read of it and ask of it. The master imports
its desks and hands each itself; a desk knows it only by this protocol, so imports run one way
(``docs/architecture.md``)."""

from __future__ import annotations

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

    def _reply(self, session: Session, rid: Any, message: dict[str, Any]) -> None: ...

    def _error(self, identity: bytes, rid: Any, code: str, reason: str, **extra: Any) -> None:
        ...

    def _table(self, message: dict[str, Any], *, playable: bool = False) -> LiveTable: ...

    def _playable(self, table: LiveTable) -> None: ...

    def _owned_seat(self, table: LiveTable, message: dict[str, Any]) -> int: ...

    def _snapshot(self, session: Session, rid: Any, table: LiveTable, viewer: Viewer) -> None:
        ...

    def _reseated(self, table: LiveTable) -> None: ...

    def _submit(self, table: LiveTable, command: Command, cid: int | str | None = None) -> None:
        ...

    def _advance(self, table: LiveTable) -> None: ...

    def _deal(self, table: LiveTable) -> None: ...

    def _break(self, table: LiveTable, error: BaseException) -> None: ...
