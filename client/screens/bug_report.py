"""Save a bug report from a live table or the replay viewer: F9 or the "Save a bug report"
button.

A one-line box asks "What went wrong?"; Enter saves, Esc only closes the box. The file
(``shared.bugreport``) holds the line typed, the versions that ran, the last messages the
link sent and received with their times, and the table's log when this process runs the
server (``starhall play``). A remote server's log holds every seat's hidden cards, so a
client never has it: the client sends the line to the server (``report``), which keeps it
with the table's log, and the file saved here names the server, the table and the report
the server keeps (``server_report``); if the server does not keep it, the file says why. From
the replay viewer, the report holds the log being replayed, the event shown and whose eyes it
is seen through, and no messages.

Where the file goes: ``<data folder>/bug-reports/`` when the server is the embedded one (the
games folder of ``starhall play``, the ``--data`` folder of a fork) or for the replay viewer
(its forks' data folder, ``replays/`` by default), else ``./bug-reports/`` in the folder the
client was started from; named ``bug-<table>-<YYYYmmdd-HHMMSS>.starhall-bug``.
``docs/reproducing-bugs.md`` tells a developer what to do with it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.ui import fonts, theme
from starhall.client.ui.widgets import Hotspots, blit_text, button, panel, short_path
from starhall.shared import protocol
from starhall.shared.bugreport import (
    REPORTS_FOLDER,
    make_bug_report,
    report_path,
    versions,
    write_bug_report,
)

if TYPE_CHECKING:
    from starhall.client.net.link import ServerLink
    from starhall.client.net.session import TableSession
    from starhall.shared.replay import Recording

TOKEN = "<token>"
MAX_NOTE_CHARS = protocol.MAX_NOTE_CHARS
SHOW_SECONDS = 8.0
"""How long the screen says where a report went (or why it could not be written)."""
REPORT_WAIT_SECONDS = 10.0
"""How long the client waits for a remote server to say it kept a report before it saves its
own copy without the server's."""
BUTTON_LABEL = "Save a bug report  [F9]"


def redact(value: Any, secrets: frozenset[str] = frozenset()) -> Any:
    """``value`` with every ``token`` field, and every string that is one of ``secrets``,
    replaced by ``"<token>"``."""
    if isinstance(value, dict):
        return {key: TOKEN if key == "token" and value[key] is not None else
                redact(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item, secrets) for item in value]
    if isinstance(value, str) and value in secrets:
        return TOKEN
    return value


def report_folder(address: str) -> Path:
    """Where reports of tables on the server at ``address`` are written."""
    from starhall.client.net.embedded import embedded_at

    server = embedded_at(address)
    return (server.data if server is not None else Path(".")) / REPORTS_FOLDER


def holds_log(address: str) -> bool:
    """Whether this process runs the server at ``address``, so a report can hold its log."""
    from starhall.client.net.embedded import embedded_at

    return embedded_at(address) is not None


def table_log(address: str, table: str) -> tuple[bytes | None, str]:
    """The table's log bytes when this process runs its server, else ``None`` and why not."""
    from starhall.client.net.embedded import embedded_at

    server = embedded_at(address)
    if server is None:
        return None, (f"the server at {address} holds it: table {table}, the file "
                      f"tables/{table}.starhall in its data folder; a client never has a "
                      f"table's log, which holds every seat's hidden cards")
    path = server.log_path(table)
    try:
        return path.read_bytes(), ""
    except OSError as error:
        return None, f"could not read {path.resolve()}: {error.strerror or error}"


def report_request(session: TableSession, note: str) -> dict[str, Any]:
    """The ``report`` that asks a remote server to keep a report with the table's log."""
    request: dict[str, Any] = {"type": protocol.REPORT, "table": session.table,
                               "seq": session.event_seq, "versions": versions()}
    if note:
        request["note"] = note[:MAX_NOTE_CHARS]
    return request


def kept_by_server(address: str, table: str, reply: dict[str, Any]
                   ) -> tuple[str, dict[str, Any] | None]:
    """What a report saved here says of the log, from the server's answer to ``report``:
    where the server keeps its copy (and the ``server_report`` naming it), or why it did not
    keep one and where the log is then."""
    if reply.get("type") == protocol.REPORTED:
        kept = {"server": address, "name": reply.get("server"), "table": table,
                "report": reply.get("report"), "path": reply.get("path")}
        return (f"the server at {address} ({kept['name']}) keeps this report with the table's "
                f"log: {kept['path']} in its data folder; a client never has a table's log, "
                f"which holds every seat's hidden cards"), kept
    why = reply.get("reason") or "no reason given"
    return (f"the server at {address} did not keep a copy of this report ({why}); it holds "
            f"the log: table {table}, the file tables/{table}.starhall in its data folder; a "
            f"client never has a table's log, which holds every seat's hidden cards"), None


def save_bug_report(link: ServerLink, session: TableSession, note: str,
                    folder: Path | None = None, now: float | None = None,
                    reply: dict[str, Any] | None = None) -> Path:
    """Write a report of ``session``'s table; returns its absolute path (``OSError`` if it
    cannot be written, and then no file is left). ``reply``: a remote server's answer to the
    ``report`` this report was sent with (``report_request``)."""
    now = time.time() if now is None else now
    secrets = frozenset(token for token in (session.token,) if token)
    more: dict[str, Any] = {}
    if reply is None:
        log, log_note = table_log(link.address, session.table)
    else:
        log, (log_note, kept) = None, kept_by_server(link.address, session.table, reply)
        more["server_report"] = kept
    game = session.model.game if session.model is not None else session.info.get("game")
    table = {"id": session.table, "game": game, "server": link.address, "seat": session.seat,
             "name": link.name, "event_seq": session.event_seq, "view_seq": session.view_seq,
             "info": redact(session.info, secrets)}
    messages = [redact(message, secrets) for message in link.messages()]
    body = make_bug_report(note, table, log, log_note, messages, now, **more)
    target = report_path(folder or report_folder(link.address), session.table, now)
    return write_bug_report(target.absolute(), body)


def save_replay_bug_report(recording: Recording, seq: int, seeing: int | str | None,
                           note: str, folder: Path, now: float | None = None) -> Path:
    """Write a report of ``recording`` as the replay viewer shows it: after event ``seq``,
    through the eyes of ``seeing`` (a seat, ``None`` for a spectator, ``"all"`` for
    everything). It holds the log read from the file again (the log inside it, for a bug
    report); returns the report's absolute path (``OSError`` if the log cannot be read again
    or the report cannot be written, and then no file is left)."""
    from starhall.client.user.settings import login_name
    from starhall.shared.logfile import LogError, log_bytes

    now = time.time() if now is None else now
    try:
        _, log = log_bytes(recording.path)
    except LogError as error:  # changed on disk since it was opened
        raise OSError(f"cannot read the log again: {error}") from None
    path = Path(recording.path).absolute()
    table_id = str(recording.header.get("table") or path.stem)
    table = {"id": table_id, "game": recording.game.id, "server": None,
             "seat": seeing if isinstance(seeing, int) else None, "name": login_name(),
             "event_seq": seq, "view_seq": None, "info": {},
             "replay": {"file": str(path), "seeing": seeing}}
    body = make_bug_report(note, table, log, "", [], now)
    return write_bug_report(report_path(folder, table_id, now).absolute(), body)


class BugReportBox:
    """The button, the "What went wrong?" box and the line saying where the report went.

    ``save`` turns the typed line into a written file (its path), or raises ``OSError``; or,
    while the report goes to the server first, returns ``None`` and the owner calls
    ``finish`` once the file is written."""

    def __init__(self, save: Callable[[str], Path | None]) -> None:
        self.save = save
        self.open = False
        self.note = ""
        self.message: tuple[str, str, theme.Colour] | None = None
        """The last outcome as (heading, detail, colour), shown for ``SHOW_SECONDS``."""
        self.message_left = 0.0
        self.saved: Path | None = None
        """The last report written."""

    # --- the flow ----------------------------------------------------------------------

    def start(self) -> None:
        self.open = True
        self.note = ""
        self.message = None
        pygame.key.start_text_input()

    def cancel(self) -> None:
        self.open = False
        self.note = ""

    def submit(self) -> None:
        note, self.open, self.note = self.note.strip(), False, ""
        try:
            path = self.save(note)
        except OSError as error:
            self.finish(error)
            return
        if path is None:  # sent to the server: the file is written when it answers
            self.message = ("Sending the bug report to the server…", "", theme.TEXT)
            self.message_left = float("inf")
        else:
            self.finish(path)

    def finish(self, outcome: Path | OSError) -> None:
        """Say where the report was saved, or why it could not be."""
        if isinstance(outcome, OSError):
            where = f" ({outcome.filename})" if getattr(outcome, "filename", None) else ""
            reason = f"{outcome.strerror or outcome}{where}"
            self.message = ("Could not save the bug report", reason, theme.ALERT)
            print(f"starhall: could not save the bug report: {reason}", file=sys.stderr)
        else:
            self.saved = outcome
            self.message = ("Bug report saved to", str(outcome), theme.GOLD)
            print(f"starhall: bug report saved to {outcome}", file=sys.stderr)
        self.message_left = SHOW_SECONDS

    # --- input -------------------------------------------------------------------------

    def handle(self, event: pygame.event.Event, hotspots: Hotspots | None) -> bool:
        """Take ``event`` if it is the box's; ``True`` when the table must not see it."""
        if not self.open:
            if event.type == pygame.KEYDOWN and event.key == pygame.K_F9:
                self.start()
                return True
            if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and hotspots:
                spot = hotspots.at(event.pos)
                if spot is not None and spot.action == ("bug_report", "open"):
                    self.start()
                    return True
            return False
        if event.type == pygame.TEXTINPUT:
            self.note = (self.note + event.text)[:MAX_NOTE_CHARS]
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.cancel()
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.submit()
            elif event.key == pygame.K_BACKSPACE:
                self.note = self.note[:-1]
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and hotspots:
            spot = hotspots.at(event.pos)
            if spot is not None and spot.action == ("bug_report", "save"):
                self.submit()
            elif spot is not None and spot.action == ("bug_report", "cancel"):
                self.cancel()
        elif event.type not in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONUP, pygame.KEYUP):
            return False
        return event.type != pygame.MOUSEMOTION  # the table still follows the pointer

    def tick(self, dt: float) -> None:
        if self.message is not None:
            self.message_left -= dt
            if self.message_left <= 0:
                self.message = None

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, area: pygame.Rect, hotspots: Hotspots | None,
             mouse: tuple[int, int] = (-1, -1)) -> None:
        """The button in ``area``'s top-right corner, then the box or the outcome over it."""
        if hotspots is not None:
            width = fonts.font(14).size(BUTTON_LABEL)[0] + 24
            rect = pygame.Rect(0, 0, width, 30)
            rect.topright = (area.right - 12, area.y + 12)
            button(surface, hotspots, rect, BUTTON_LABEL, "bug_report", "open",
                   hovered=rect.collidepoint(mouse) or self.open, size=14)
        if self.open:
            self._draw_box(surface, area, hotspots, mouse)
        elif self.message is not None:
            self._draw_message(surface, area)

    def _draw_box(self, surface: pygame.Surface, area: pygame.Rect, hotspots: Hotspots | None,
                  mouse: tuple[int, int]) -> None:
        box = pygame.Rect(0, 0, min(620, area.w - 40), 176)
        box.center = area.center
        panel(surface, box, 255)
        blit_text(surface, "What went wrong?", 22, theme.GOLD, "topleft", (box.x + 20, box.y + 16))
        field = pygame.Rect(box.x + 20, box.y + 56, box.w - 40, 40)
        pygame.draw.rect(surface, theme.PAPER, field, border_radius=6)
        pygame.draw.rect(surface, theme.HIGHLIGHT, field, 2, border_radius=6)
        if self.note:
            image = fonts.font(18).render(self.note, True, theme.INK)
            room = field.w - 24
            shown = image.subsurface(  # the end of a long line, where the caret is
                pygame.Rect(max(0, image.get_width() - room), 0, min(room, image.get_width()),
                            image.get_height()))
            place = shown.get_rect(midleft=(field.x + 10, field.centery))
            surface.blit(shown, place)
        else:
            blit_text(surface, "One line: what you saw, and what you expected", 16,
                      theme.CARD_EDGE, "midleft", (field.x + 14, field.centery),
                      max_width=field.w - 28)
            place = pygame.Rect(field.x + 10, field.y, 0, field.h)
        if int(time.monotonic() * 2) % 2 == 0:  # a blinking caret
            pygame.draw.line(surface, theme.INK, (place.right + 2, field.y + 9),
                             (place.right + 2, field.bottom - 10), 2)
        blit_text(surface, "Enter saves the report · Esc cancels", 14, theme.TEXT_DIM,
                  "topleft", (box.x + 20, field.bottom + 12))
        if hotspots is not None:
            save = pygame.Rect(box.right - 220, box.bottom - 46, 96, 32)
            cancel = pygame.Rect(box.right - 116, box.bottom - 46, 96, 32)
            hotspots.add(box, "bug_report", "box")  # clicks inside the box stay in it
            button(surface, hotspots, save, "Save", "bug_report", "save",
                   hovered=save.collidepoint(mouse), size=15)
            button(surface, hotspots, cancel, "Cancel", "bug_report", "cancel",
                   hovered=cancel.collidepoint(mouse), size=15)

    def _draw_message(self, surface: pygame.Surface, area: pygame.Rect) -> None:
        heading, detail, colour = self.message  # type: ignore[misc]
        # Near the top, under the button: the user's own hand and moves stay in view.
        needed = max(fonts.font(16).size(heading)[0], fonts.font(15).size(detail)[0]) + 34
        box = pygame.Rect(0, 0, max(320, min(area.w - 24, needed)), 64)
        box.midtop = (area.centerx, area.y + 52)
        panel(surface, box, 255)
        blit_text(surface, heading, 16, colour, "topleft", (box.x + 16, box.y + 10))
        # A saved report's path keeps its file name, cut in the middle rather than shrunk.
        shown = short_path(detail, 15, box.w - 32) if self.saved is not None else detail
        blit_text(surface, shown, 15, theme.TEXT, "topleft", (box.x + 16, box.y + 34),
                  max_width=box.w - 32)
