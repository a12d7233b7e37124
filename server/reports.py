"""Bug reports sent to the server (``report``, ``docs/protocol.md``), kept with the table's log.

A player at a table of a remote server cannot have its log: it holds every seat's hidden
cards. So the client sends the line typed about the bug; the server keeps it in its data
folder as a bug report of its own (``shared.bugreport``, the format every reader of logs
takes) holding the table's log as far as it is on disk (everything anyone was told), and
answers with the report's name only. The developer who runs the server finds the report in
``DATA/bug-reports/`` and runs ``starhall replay verify`` (or show, view, fork) on it.

A report is written whole or not at all (``write_durably``), and the folder cannot be filled
by one client: each session may send ``per_session`` reports, and the server keeps at most
``limit`` (its operator clears the folder).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starhall.server import fields
from starhall.server.durability import STORAGE, ReadOnly, StorageError
from starhall.server.fields import RequestError
from starhall.server.sessions import Session
from starhall.shared import protocol
from starhall.shared.atomic_files import write_durably
from starhall.shared.bugreport import REPORTS_FOLDER, make_bug_report, report_path, versions
from starhall.shared.logfile import BUG_SUFFIX, encode_record

if TYPE_CHECKING:
    from starhall.server.desk import Master


class ReportStore:
    """The ``bug-reports`` folder of a server's data folder."""

    def __init__(self, data: Path, limit: int, per_session: int, *, read_only: bool) -> None:
        self.folder = data / REPORTS_FOLDER
        self.limit = limit
        self.per_session = per_session
        self.kept = 0
        """Reports in the folder (counted at the start, then one more for each kept)."""
        try:
            names = os.listdir(self.folder)
        except OSError:  # none yet
            names = []
        for name in names:
            if name.endswith(BUG_SUFFIX):
                self.kept += 1
            elif name.endswith(".tmp") and not read_only:  # a write a crash interrupted
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / name)

    def check(self, sent: int) -> None:
        """``RequestError`` if one more report may not be kept, after ``sent`` from the same
        session."""
        if sent >= self.per_session:
            raise RequestError(protocol.TOO_MANY_REPORTS,
                               f"this connection has sent {sent} bug reports, which is as "
                               "many as the server keeps from one")
        if self.kept >= self.limit:
            raise RequestError(protocol.TOO_MANY_REPORTS,
                               f"the server keeps {self.kept} bug reports already, which is "
                               "as many as it may; its operator must clear them first")

    def keep(self, table: str, body: dict[str, Any], now: float) -> Path:
        """Write a report of ``table`` whole (``StorageError`` if it could not be, and then no
        file is left); its path."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = report_path(self.folder, table, now)
            try:
                write_durably(path, encode_record(body))
            except OSError:
                path.unlink(missing_ok=True)  # renamed into place, but the folder not synced
                raise
        except OSError as error:
            raise StorageError(error) from error
        self.kept += 1
        return path


def where(path: Path) -> str:
    """A kept report's place in the data folder, as the reply names it."""
    return f"{REPORTS_FOLDER}/{path.name}"


class ReportDesk:
    """The ``report`` request: who may send one, and the report kept (``ReportStore``)."""

    def __init__(self, master: Master) -> None:
        self.master = master
        self.config = master.config
        self._versions: dict[str, Any] | None = None
        """What this server runs (``shared.bugreport.versions``), found for the first report."""

    def report(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """Keep a player's bug report with the table's log, in the data folder; the reply
        names it and gives nothing of the log (it holds cards the player may not see)."""
        table = self.master.find_table(message)
        note = fields.optional_text(message, "note", max_chars=protocol.MAX_NOTE_CHARS) or ""
        seen = fields.optional_whole(message, "seq")
        client_versions = fields.mapping(message, "versions")
        seats = [number for table_id, number in session.seats if table_id == table.id
                 and table.seats[number].session == session.identity]
        if not seats and table.id not in session.watching:
            raise RequestError(protocol.NOT_SEATED, "only someone at this table, seated or "
                               "watching, can send a bug report of it", table=table.id)
        if self.config.read_only:
            raise ReadOnly()
        self.master.reports.check(session.reports)
        if self._versions is None:
            self._versions = versions()
        now = time.time()
        seat = min(seats) if seats else None
        name = table.seats[seat].name if seat is not None else session.name
        about = {"id": table.id, "name": name, "game": table.game.id,
                 "server": self.config.name, "seat": seat, "event_seq": seen,
                 "view_seq": None, "info": table.info()}
        try:
            log = table.durable_log()
        except OSError as error:
            raise RequestError(STORAGE, f"the server could not read the table's log "
                               f"({error.strerror or error})", table=table.id) from None
        body = make_bug_report(note, about, log, "", [], now, self._versions,
                               client_versions=client_versions)
        path = self.master.reports.keep(table.id, body, now)
        session.reports += 1
        self.master.reply(session, rid, {"type": protocol.REPORTED, "table": table.id,
                                          "report": path.name.removesuffix(BUG_SUFFIX),
                                          "path": where(path), "server": self.config.name})
