"""A table played or watched over the network: the link, the session and the table screen.

Setting a table up (create it, seat the bots, sit down) is a short exchange of requests; it is
written as a queue of steps, each sent when the previous one has its reply, so the window
keeps drawing meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame

from client import theme
from client.bug_report import BugReportBox, save_bug_report
from client.net import ServerLink
from client.session import TableSession
from client.table_screen import TableScreen
from client.table_view import TableView
from client.widgets import Hotspots, blit_text
from shared import protocol

Reply = Callable[[dict[str, Any]], None]


class LiveTable:
    """A screen for one table on a server; ``done`` once the user leaves it."""

    def __init__(self, link: ServerLink, size: tuple[int, int], view: Any = None,
                 own_link: bool = True, banner: str | None = None) -> None:
        self.link = link
        self.banner = banner
        """A line shown at the top of the table, e.g. that it is a fork of a recorded game."""
        self.size = size
        self.view: Any = view or TableView()
        """The last table's view, handed to the next (a game's own view keeps its settings);
        ``TableScreen`` swaps it for the game's kind (``client.game_views``)."""
        self._name = ""
        self._bot = "random"
        self.own_link = own_link
        self.session: TableSession | None = None
        self.table: TableScreen | None = None
        self.problem: str | None = None
        self.done = False
        self.hotspots: Hotspots | None = None
        self._replies: dict[int, Reply] = {}
        self.bug_report = BugReportBox(self.save_bug_report)
        """F9 or its button: a report of this table for a developer (``client.bug_report``)."""

    # --- setting up --------------------------------------------------------------------

    def request(self, message: dict[str, Any], then: Reply | None = None) -> None:
        rid = self.link.send(message)
        if then is not None:
            self._replies[rid] = then

    def start_game(self, game: str, players: int, options: dict[str, Any], bot: str,
                   name: str) -> None:
        """Create a table, fill every other seat with a bot, and take seat 0."""

        self._bot = bot

        def created(reply: dict[str, Any]) -> None:
            table = reply["table"]["id"]
            for seat in range(1, players):
                self.request({"type": protocol.BOT, "table": table, "seat": seat, "kind": bot})
            self.sit(table, 0, name)

        self.request({"type": protocol.CREATE, "game": game, "players": players,
                      "options": options}, created)

    def join_table(self, table: str, seat: int, name: str, bot: str | None = None,
                   players: int = 0) -> None:
        """Sit in ``seat`` of an existing table (a fork, say), asking for a ``bot`` in every
        other of its ``players`` seats first."""
        if bot is not None:
            for other in range(players):
                if other != seat:
                    self.request({"type": protocol.BOT, "table": table, "seat": other,
                                  "kind": bot})
        self.sit(table, seat, name)

    def sit(self, table: str, seat: int | None, name: str) -> None:
        self._name = name
        self.session = TableSession(self.link, table)
        message: dict[str, Any] = {"type": protocol.SIT, "table": table, "name": name}
        if seat is not None:
            message["seat"] = seat
        self.request(message)

    def watch(self, table: str) -> None:
        self.session = TableSession(self.link, table)
        self.session.watch()

    # --- every frame -------------------------------------------------------------------

    def frame(self, dt: float) -> None:
        for message in self.link.poll():
            then = self._replies.pop(message.get("rid"), None)  # type: ignore[arg-type]
            if message.get("type") == protocol.ERROR and self.table is None and (
                    then is not None or message.get("code") != protocol.STALE):
                self.problem = str(message.get("reason"))
            elif then is not None:
                then(message)
            if self.session is None:
                continue
            batch = self.session.handle(message)
            if batch is not None:
                model = self.session.model
                if model is not None and (self.table is None or self.table.model is not model):
                    self.table = TableScreen(model, self._send_for_session(), self.view,
                                             self.size)
                    self.view = self.table.view
                if self.table is not None:
                    self.table.receive(batch)
        self.bug_report.tick(dt)
        if self.table is not None:
            if self.link.state == "lost":
                self.table.model.connection = "lost"
            self.table.update(dt)
            if self.table.leaving:
                self.leave()
            elif self.table.next_table is not None:
                self.open_next(self.table.next_table)

    def open_next(self, options: dict[str, Any]) -> None:
        """A new table of the same game with ``options`` (a patience's New deal or Restart):
        the seat at this one is given back, and this table stays drawn, taking no more moves,
        until the new one's first view arrives."""
        table, session = self.table, self.session
        if table is None:
            return
        table.next_table = None
        table.send = None
        if session is not None and session.token is not None:
            # give_up: the old deal is abandoned, not kept for a later resume
            self.request({"type": protocol.LEAVE, "table": session.table,
                          "token": session.token, "give_up": True})
        model = table.model
        self.start_game(model.game, model.players, options, self._bot, self._name or "You")

    def _send_for_session(self) -> Callable[[str, dict[str, Any]], None] | None:
        session = self.session
        if session is None or session.token is None:
            return None
        return session.act

    def leave(self) -> None:
        self.done = True

    def save_bug_report(self, note: str) -> Path:
        if self.session is None:
            raise OSError("no table yet: nothing to report")
        return save_bug_report(self.link, self.session, note)

    def resize(self, size: tuple[int, int]) -> None:
        self.size = size
        if self.table is not None:
            self.table.resize(size)

    def handle(self, event: pygame.event.Event) -> None:
        if self.bug_report.handle(event, self.hotspots):
            return
        if self.table is not None:
            self.table.handle(event, self.hotspots)
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.done = True

    def draw(self, surface: pygame.Surface) -> None:
        if self.table is not None:
            self.hotspots = self.table.draw(surface)
            if self.banner:
                felt = self.table.layout.table
                blit_text(surface, self.banner, 16, theme.GOLD, "topleft",
                          (felt.x + 16, felt.y + 12), max_width=felt.w // 3)
            self.bug_report.draw(surface, self.table.layout.table, self.hotspots,
                                 self.table.ui.mouse)
            return
        surface.fill(theme.FELT_DARK)
        centre = surface.get_rect().center
        if self.problem:
            blit_text(surface, self.problem, 22, theme.ALERT, "center", centre)
        elif self.link.state == "lost":
            blit_text(surface, "Cannot reach the server, still trying…", 22, theme.TEXT,
                      "center", centre)
        else:
            blit_text(surface, "Joining the table…", 24, theme.TEXT, "center", centre)
        self.bug_report.draw(surface, surface.get_rect(), None)

    def close(self) -> None:
        if self.own_link:
            self.link.close()
