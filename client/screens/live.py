"""A table played or watched over the network: the link, the session and the table screen.

Setting a table up (create it, seat the bots, sit down) is a short exchange of requests; it is
written as a queue of steps, each sent when the previous one has its reply, so the window
keeps drawing meanwhile.

A table served by another node of a service (docs/protocol.md §3b) is followed there: a
request answered ``elsewhere`` with an address moves the table's session to a new link to that
node, and the requests it had sent are sent again there; with no address (a takeover under
way), or an unasked ``elsewhere`` (the node gave the table up), the same node is asked again
a moment later. When the table's node falls silent, or says it is stopping (``draining``), the
table goes on by itself at another node of the service (the ``Roster`` its ``welcome``s
listed, the node it was opened on first when that one still answers), which serves it or
says where it went. The link the table was opened on (the lobby's) is kept alive meanwhile.

Leaving a seat at a game that is not over asks first (the seat is kept: the token opens it
again); once the game is over, the table screen's game-over panel offers Play again and, when
this process holds the log (its own server's table), Watch the replay in this window.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.games.tricks.table import TableView
from starhall.client.net.embedded import SeatBook
from starhall.client.net.link import LOST, ServerLink, normalise_address
from starhall.client.net.roster import Roster
from starhall.client.net.session import Batch, TableSession
from starhall.client.screens.bug_report import (
    REPORT_WAIT_SECONDS,
    BugReportBox,
    holds_log,
    report_request,
    save_bug_report,
)
from starhall.client.screens.table_screen import GameOverPanel, Question, TableScreen
from starhall.client.ui import theme
from starhall.client.ui.widgets import Hotspots, blit_text
from starhall.shared import protocol

if TYPE_CHECKING:
    from starhall.client.ui.layout import Layout
    from starhall.shared.replay import Recording

Reply = Callable[[dict[str, Any]], None]
ReplayOpener = Callable[["Recording", tuple[int, int], list[str]], Any]
"""Opens the replay viewer on a finished game's log over the table
(``replay_screen.open_over_table``): handed down by whoever opens the table, since the viewer's
Play from here opens a live table again (``client.screens.hosted``), so this module never
imports it."""
BANNER_HEIGHT = 30
"""The strip under the table where a banner goes (the felt made that much shorter): on the
felt, it covered whatever that table draws there, such as the Rules button."""
KEPT_ON_SERVER = "Your seat is kept for you: come back to this table from the lobby."
ELSEWHERE_WAIT = 0.5
"""Seconds before asking again for a table no node serves at the moment (a takeover)."""
ELSEWHERE_TRIES = 40
"""How many ``elsewhere`` answers in a row (about 20 s of takeover, or nodes that keep sending
the table on) before the user is told the table cannot be found."""
SILENT_MEMORY = protocol.TIMEOUT_SECONDS
"""Seconds a node the window found dead is not followed back to when another node still
names it as the table's (its lease lasts a little while after its death)."""
LEAVE_LINGER = 1.0
"""Seconds a link to the node a table moved to may take, once closed, to send the last
``leave``."""


def host_port(address: str) -> str:
    return address.removeprefix("tcp://")

LEAVE_TITLE = "Leave the table?"


class LiveTable:
    """A screen for one table on a server; ``done`` once the user leaves it."""

    def __init__(self, link: ServerLink, size: tuple[int, int], view: Any = None,
                 own_link: bool = True, banner: str | None = None,
                 kept: str = KEPT_ON_SERVER, open_replay: ReplayOpener | None = None) -> None:
        self.link = link
        """The link to the node serving the table: ``home`` unless the table was followed
        elsewhere."""
        self.home = link
        """The link the table was opened on (the lobby's, when ``own_link`` is false)."""
        self.open_replay = open_replay
        """How Watch the replay opens the viewer; ``None``: it opens nothing."""
        self.banner = banner
        """A line shown at the top of the table, e.g. that it is a fork of a recorded game."""
        self.kept = kept
        """What becomes of the seat when the user leaves a game that is not over: the line of
        the question asked first."""
        self.seat_book: SeatBook | None = None
        """Where the user's seats are kept for a later process (its own server's games)."""
        self.roster = Roster()
        """The service's nodes, to go on at when the table's node stops answering (the
        lobby hands its own, kept in the user's data folder)."""
        welcome = getattr(link, "welcome", None)  # a link fed by hand has none
        if isinstance(welcome, dict):
            self.roster.learn(welcome.get("nodes"))
        self.replay: Any = None
        """The replay viewer on the finished game's log, open over the table."""
        self.quitting = False
        """Left by closing the window: the program ends, not only the table."""
        self._changed = True
        self._caption = "Starhall"
        self._resumed = False
        self.size = size
        self.view: Any = view or TableView()
        """The last table's view, handed to the next (a game's own view keeps its settings);
        ``TableScreen`` swaps it for the game's kind (``client.games.base``)."""
        self._name = ""
        self._bot = "random"
        self._options: dict[str, Any] = {}
        self.own_link = own_link
        self.session: TableSession | None = None
        self.table: TableScreen | None = None
        self.problem: str | None = None
        self.done = False
        self.hotspots: Hotspots | None = None
        self._replies: dict[int, Reply] = {}
        self._sent: dict[int, tuple[dict[str, Any], Reply | None]] = {}
        """Requests naming the table sent on ``link`` and not answered yet, by ``rid``: sent
        again on the link the table moves to."""
        self._bounced: list[tuple[dict[str, Any], Reply | None]] = []
        """Requests answered ``elsewhere`` without an address: asked again in a moment."""
        self._ask_again_at: float | None = None
        self._tries = 0
        """``elsewhere`` answers since the table last answered (a snapshot)."""
        self.moved_to: str | None = None
        """Where the table was followed to, while it has not answered there yet."""
        self._silent: dict[str, float] = {}
        """Nodes whose link was lost, with when (``time.monotonic``): until its lease lapses
        the service still names a dead node as the table's, which is then asked again for."""
        self.lost_table: str | None = None
        """Why the table is followed no more (it could not be found)."""
        self.bug_report = BugReportBox(self.save_bug_report)
        """F9 or its button: a report of this table for a developer
        (``client.screens.bug_report``)."""
        self._report: tuple[int, str, float, float] | None = None
        """A report sent to a remote server, awaiting its answer: the ``rid``, the note, when
        it was made, and when to stop waiting (``time.monotonic``)."""

    # --- setting up --------------------------------------------------------------------

    def request(self, message: dict[str, Any], then: Reply | None = None) -> None:
        if message["type"] == protocol.SIT:  # kept with the request, for a resend elsewhere
            message = {**message, "key": message.get("key") or protocol.new_key()}
        rid = self.link.send(message)
        if then is not None:
            self._replies[rid] = then
        if "table" in message:
            self._sent[rid] = (message, then)

    def start_game(self, game: str, players: int, options: dict[str, Any], bot: str,
                   name: str) -> None:
        """Create a table, fill every other seat with a bot, and take seat 0."""

        self._bot = bot
        self._options = dict(options)

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

    def resume_table(self, table: str, seat: int, token: str, name: str = "",
                     bot: str = "random", options: dict[str, Any] | None = None) -> None:
        """Sit back in ``seat`` of ``table`` with the token that opens it (a game left
        earlier, maybe by another process); ``bot`` and ``options`` are for a Play again."""
        self._name, self._bot, self._options = name, bot, dict(options or {})
        self._resumed = True
        self.session = TableSession(self.link, table, seat, token)
        self.session.resume()

    def watch(self, table: str) -> None:
        self.session = TableSession(self.link, table)
        self.session.watch()

    # --- every frame -------------------------------------------------------------------

    def frame(self, dt: float) -> None:
        if self.replay is not None:
            self.replay.frame(dt)
            if self.replay.done:
                self.replay.close()
                self.replay = None
                self._changed = True
                if self.table is not None:
                    self.table.resize(self.size)
                pygame.display.set_caption(self._caption)
        if self._ask_again_at is not None and time.monotonic() >= self._ask_again_at:
            self._ask_again()
        if self.link is not self.home:
            # keeps the home node's session alive; nothing it says is ours, but whether it
            # stops or answers again
            for message in self.home.poll():
                if message.get("type") == protocol.DRAINING:
                    self.roster.learn(message.get("nodes"), gone=self.home.address)
                elif message.get("type") == protocol.WELCOME:
                    self.roster.learn(message.get("nodes"))
                elif message.get("type") == LOST:
                    self._silent[self.home.address] = time.monotonic()
        for message in self.link.poll():
            self._changed = True
            if self._report is not None and message.get("rid") == self._report[0]:
                self._reported(message)
                continue
            if self._elsewhere(message):
                break  # the rest came from the node left behind
            kind = message.get("type")
            if kind == protocol.WELCOME:
                self.roster.learn(message.get("nodes"))
            if kind == protocol.DRAINING:
                self.roster.learn(message.get("nodes"), gone=self.link.address)
                if self._go_on_elsewhere("the table's node is stopping"):
                    break
            if kind == LOST:
                self._silent[self.link.address] = time.monotonic()
                if self._go_on_elsewhere("the table's node is silent"):
                    break
            self._sent.pop(message.get("rid"), None)  # type: ignore[arg-type]
            then = self._replies.pop(message.get("rid"), None)  # type: ignore[arg-type]
            if message.get("type") == protocol.ERROR and self.table is None and (
                    then is not None or message.get("code") != protocol.STALE):
                self.problem = str(message.get("reason"))
            elif then is not None:
                then(message)
            if self.session is None:
                continue
            batch = self.session.handle(message)
            if message.get("type") == protocol.SNAPSHOT and (
                    message.get("table") == self.session.table):
                self._tries, self.moved_to = 0, None  # found: the table answers here
            if batch is not None:
                model = self.session.model
                if model is not None and (self.table is None or self.table.model is not model):
                    self.table = TableScreen(model, self._send_for_session(), self.view,
                                             self.size)
                    self._caption = table_caption(self.session.info, model)
                    pygame.display.set_caption(self._caption)
                    self.view = self.table.view
                    self._keep_seat()
                    if self._resumed:
                        self.table.ui.say("Back at your seat: the game goes on.")
                    elif self.session.seat is None and (start := first_seq(batch) - 1) > 0:
                        # the moves before are not sent to a spectator; the log says so
                        self.table.ui.say(f"Watching from after move {start}: the "
                                          "replay shows what came before.")
                if self.table is not None:
                    self.table.receive(batch)
        if self._report is not None and time.monotonic() > self._report[3]:
            self._reported({"type": protocol.ERROR, "reason": "it did not answer within "
                            f"{REPORT_WAIT_SECONDS:g} seconds"})
        shown = self.bug_report.message
        self.bug_report.tick(dt)
        if self.bug_report.message is not shown:
            self._changed = True
        if self.table is not None:
            if self.link.state == "lost":
                self.table.model.connection = "lost"
            elif self.lost_table is not None:
                self.table.model.connection = "closed"
            self.table.update(dt)
            self._after_game()
            self.table.ask_before_leaving = self._question()
            if self.table.leaving:
                self.quitting = self.table.quitting
                self.leave()
            elif self.table.next_table is not None:
                self.open_next(self.table.next_table)
            elif self.table.wants is not None:
                wanted, self.table.wants = self.table.wants, None
                if wanted == "play_again":
                    self.play_again()
                elif wanted == "watch_replay":
                    self.watch_replay()

    # --- following a table to another node (docs/protocol.md §3b) -----------------------

    def _elsewhere(self, message: dict[str, Any]) -> bool:
        """Take an ``elsewhere`` answer about this table, if ``message`` is one; ``True``
        when the table moved to another link (what else the old one said is not ours)."""
        session = self.session
        if (message.get("type") != protocol.ERROR or message.get("code") != protocol.ELSEWHERE
                or session is None or message.get("table") != session.table):
            return False
        rid = message.get("rid")
        if type(rid) is int:
            self._replies.pop(rid, None)  # registered again when the request is resent
            bounced = self._sent.pop(rid, None)
            if bounced is not None:
                self._bounced.append(bounced)
        if self.lost_table is not None:
            return False
        address = message.get("address")
        if isinstance(address, str):
            try:
                address = normalise_address(address)
            except ValueError:
                address = None
        silent_since = self._silent.get(address) if isinstance(address, str) else None
        if silent_since is not None and time.monotonic() - silent_since < SILENT_MEMORY:
            # a node that fell silent a moment ago, still named while its lease lasts: not
            # followed back there, but asked again until another node has taken the table
            address = None
        moving = isinstance(address, str) and address != self.link.address
        if not moving and self._ask_again_at is not None:
            return False  # another answer of the round already waiting to ask again
        self._tries += 1
        if self._tries > ELSEWHERE_TRIES:
            self._give_up()
            return False
        if moving:
            assert isinstance(address, str)
            link = self.home if address == self.home.address else ServerLink(
                address, name=self.link.name, clock=self.link.clock,
                key=self.roster.key(address), known=self.link.known)
            self._follow(link, f"table {session.table} moved to {host_port(address)}")
            self.moved_to = host_port(address)
            return True
        # Nobody serves it at the moment (a takeover), or this node gave it up: ask again.
        self._ask_again_at = time.monotonic() + ELSEWHERE_WAIT
        return False

    def _go_on_elsewhere(self, why: str) -> bool:
        """The table's node is silent or stopping: go on at another node of the service
        (the home node first, while it answers), which serves the table or says where it
        went; ``True`` when the table moved to another link. With no other node known, a
        table followed away from home goes back there, and a table at home waits for its
        node (the link tries again by itself)."""
        home = self.home
        others = [a for a in self.roster.after(self.link.address) if a != home.address]
        if home is not self.link and home.address != self.link.address:
            # first while it answers, else last: silent too, or stopping
            answers = home.state != "lost" and home.address not in self.roster.gone
            others.insert(0 if answers else len(others), home.address)
        if not others:
            return False
        target = others[0]
        link = self.home if target == self.home.address else ServerLink(
            target, name=self.link.name, clock=self.link.clock, key=self.roster.key(target),
            known=self.link.known)
        self._follow(link, f"{why}: asking {host_port(target)}")
        return True

    def _follow(self, link: ServerLink, why: str) -> None:
        """Go on with the table on ``link``: the requests still unanswered on the old one
        sent again, the session moved (it resumes the seat or watches again)."""
        old, self.link = self.link, link
        if old is not link and old is not self.home:
            old.close()
        waiting = [*self._sent.values(), *self._bounced]
        for rid in self._sent:
            self._replies.pop(rid, None)
        self._sent, self._bounced, self._ask_again_at = {}, [], None
        for message, then in waiting:
            self.request(message, then)
        if self.session is not None:
            self.session.move_to(link)
        if self.table is not None:
            self.table.model.connection = why[:1].upper() + why[1:]
            self.table.ui.say(f"{why[:1].upper()}{why[1:]}.")

    def _ask_again(self) -> None:
        """The same node, once more, for a table nobody served a moment ago."""
        self._ask_again_at = None
        bounced, self._bounced = self._bounced, []
        for message, then in bounced:
            self.request(message, then)
        if self.session is not None:
            self.session.move_to(self.link)

    def _give_up(self) -> None:
        self._ask_again_at, self._bounced = None, []
        table = self.session.table if self.session is not None else "?"
        self.lost_table = (f"Table {table} cannot be found on the service now. "
                           "Go back to the lobby and try again later.")
        if self.table is not None:
            self.table.model.connection = "closed"
            self.table.ui.say(self.lost_table)

    # --- leaving and what comes after a game -------------------------------------------

    def _seated(self) -> bool:
        table, session = self.table, self.session
        return (table is not None and session is not None and session.token is not None
                and table.model.seat is not None and table.send is not None)

    def _question(self) -> Question | None:
        """What to ask before leaving: only a seat at a game not over is worth asking about."""
        if not self._seated() or self.table is None or self.table.model.over:
            return None
        return Question(LEAVE_TITLE, self.kept)

    def _keep_seat(self) -> None:
        """Write the user's new seat and token down, for a later process to sit back."""
        session = self.session
        if self.seat_book is None or session is None or session.token is None:
            return
        from starhall.client.net.embedded import Seat

        info = session.info
        game = str(info.get("game") or (session.model.game if session.model else ""))
        players = int(info.get("players") or (session.model.players if session.model else 0))
        with contextlib.suppress(OSError):  # a game that cannot be kept is still played
            self.seat_book.remember(Seat(
                session.table, int(session.seat or 0), session.token, game, players,
                dict(info.get("options") or self._options), self._bot, self._name))

    def _after_game(self) -> None:
        """Once the game is over, fill the table screen's game-over panel in."""
        table, session = self.table, self.session
        if table is None or session is None or not table.model.over or (
                table.game_over is not None):
            return
        from starhall.client.net.embedded import embedded_at

        server = embedded_at(self.link.address)
        log: str | None = None
        where = ""
        if server is not None:
            path = server.log_path(session.table)
            if path.exists():
                log = str(path.absolute())
        else:
            # one short line under the buttons: the table first, then the server, so a narrow
            # end box cuts the least of what a player needs to find the log
            host = self.link.address.removeprefix("tcp://")
            where = f"Log kept by the server: table {session.table} at {host}"
        table.game_over = GameOverPanel(log, where, play_again=self._seated())
        table.changed()
        if self.seat_book is not None:  # nothing to come back to: no log to read at each listing
            with contextlib.suppress(OSError):
                self.seat_book.forget(session.table)

    def play_again(self) -> None:
        """A new table of the same game, players and options, with bots in the other seats."""
        session = self.session
        if self.table is None or session is None:
            return
        options = dict(session.info.get("options") or self._options)
        self.open_next(options)

    def watch_replay(self) -> None:
        """The replay viewer on the finished game's log, in this window; Esc comes back."""
        table = self.table
        if (table is None or table.game_over is None or table.game_over.log is None
                or self.open_replay is None):
            return
        from starhall.shared.logfile import LogError
        from starhall.shared.replay import load

        try:
            recording = load(table.game_over.log)
            self.replay = self.open_replay(recording, self.size, list(table.model.names))
        except (LogError, OSError) as error:
            table.model.refuse(f"cannot open the replay: {error}")
            return
        self._changed = True
        self._caption = pygame.display.get_caption()[0] or "Starhall"
        pygame.display.set_caption(f"Starhall — replay of table {recording.header.get('table')}")

    def quit_requested(self) -> bool:
        """The window is being closed: ``True`` to close now, or a question is asked first."""
        if self.replay is not None or self.table is None:
            return True
        allowed = self.table.quit_requested()
        self._changed = True
        return allowed

    # --- when to draw ------------------------------------------------------------------

    def redraw_after(self) -> float | None:
        """See ``TableScreen.redraw_after``; 0 after a message from the server."""
        if self.replay is not None:
            due: float | None = self.replay.redraw_after()
            return 0.0 if self._changed else due
        if self._changed:
            return 0.0
        if self.bug_report.open:
            return 0.25  # its blinking caret
        return self.table.redraw_after() if self.table is not None else None

    def wait(self, timeout: float) -> None:
        """Sleep until the server says something or ``timeout`` seconds pass."""
        self.link.wait(timeout)

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
        self._changed = True

    def _send_for_session(self) -> Callable[[str, dict[str, Any]], None] | None:
        session = self.session
        if session is None or session.token is None:
            return None
        return session.act

    def leave(self) -> None:
        self.done = True

    def save_bug_report(self, note: str) -> Path | None:
        """A report of this table: written now when this process runs its server (it holds
        the log); else sent to the server first (``None``), and written when it answers."""
        if self.session is None:
            raise OSError("no table yet: nothing to report")
        if holds_log(self.link.address):
            return save_bug_report(self.link, self.session, note)
        if self._report is not None:
            raise OSError("the last report is still being sent")
        rid = self.link.send(report_request(self.session, note))
        self._report = (rid, note, time.time(), time.monotonic() + REPORT_WAIT_SECONDS)
        return None

    def _reported(self, reply: dict[str, Any]) -> None:
        """The server answered the report sent (or will not in time): write it here."""
        assert self._report is not None and self.session is not None
        _, note, made, _ = self._report
        self._report = None
        self._changed = True
        try:
            path = save_bug_report(self.link, self.session, note, now=made, reply=reply)
        except OSError as error:
            self.bug_report.finish(error)
        else:
            self.bug_report.finish(path)

    def resize(self, size: tuple[int, int]) -> None:
        self.size = size
        self._changed = True
        if self.table is not None:
            self.table.resize(size)
        if self.replay is not None:
            self.replay.resize(size)

    def handle(self, event: pygame.event.Event) -> None:
        self._changed = True
        if self.replay is not None:
            self.replay.handle(event)
            return
        if self.table is not None and self.table.question is not None:
            self.table.handle(event, self.hotspots)  # the question takes every input
            return
        if self.bug_report.handle(event, self.hotspots):
            return
        if self.table is not None:
            self.table.handle(event, self.hotspots)
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.done = True

    def draw(self, surface: pygame.Surface) -> None:
        self._changed = False
        if self.replay is not None:
            self.replay.draw(surface)
            return
        if self.table is not None:
            footer = BANNER_HEIGHT if self.banner else 0
            if self.table.footer != footer:  # room under the table for the banner
                self.table.footer = footer
                self.table.resize(self.size)
            self.hotspots = hotspots = self.table.draw(surface, on_top=False)
            if self.banner:
                self._draw_banner(surface, self.table.layout)
            # No button over an open sheet (F9 still works); the box and the line saying
            # where a report went are drawn over anything.
            shown = hotspots if self.bug_report.open or not self.table.sheet_open else None
            self.bug_report.draw(surface, self.table.layout.table, shown, self.table.ui.mouse)
            self.table.draw_on_top(surface, hotspots)
            return
        surface.fill(theme.FELT_DARK)
        centre = surface.get_rect().center
        if self.problem or self.lost_table:
            blit_text(surface, self.problem or self.lost_table or "", 22, theme.ALERT,
                      "center", centre, max_width=surface.get_width() - 40)
        elif self.moved_to is not None:
            blit_text(surface, f"The table moved to {self.moved_to}: joining it there…", 22,
                      theme.TEXT, "center", centre)
        elif self.link.state == "lost":
            blit_text(surface, "Cannot reach the server, still trying…", 22, theme.TEXT,
                      "center", centre)
        else:
            blit_text(surface, "Joining the table…", 24, theme.TEXT, "center", centre)
        self.bug_report.draw(surface, surface.get_rect(), None)

    def _draw_banner(self, surface: pygame.Surface, layout: Layout) -> None:
        """The banner in its strip under the table (the table's footer)."""
        strip = pygame.Rect(0, layout.height - layout.footer, layout.width, layout.footer)
        pygame.draw.rect(surface, theme.PANEL, strip)
        pygame.draw.line(surface, theme.PANEL_EDGE, strip.topleft, strip.topright, 2)
        blit_text(surface, self.banner or "", 16, theme.GOLD, "midleft",
                  (strip.x + 16, strip.centery + 1), max_width=strip.w - 32)

    def close(self) -> None:
        if self.replay is not None:
            self.replay.close()
            self.replay = None
        if self.link is not self.home:
            self.link.close(linger=LEAVE_LINGER)  # its owner's last leave goes out
        if self.own_link:
            self.home.close()


def table_caption(info: dict[str, Any], model: Any) -> str:
    """The window's title at a table: the table's name (the server names one by its game and
    number when its maker did not), so a window says where its player sits, not "lobby"."""
    return f"Starhall — {info.get('name') or info.get('title') or model.game}"


def first_seq(batch: Batch) -> int:
    """The seq of the first event a batch brings, or the one after its view's when none."""
    return batch.events[0][0] if batch.events else batch.seq + 1
