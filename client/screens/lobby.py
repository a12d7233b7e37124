"""The lobby: servers heard on the LAN, a server's tables, the user's games to go back to, and
a form for a new table.

Discovery listens for the servers' UDP beacons (docs/protocol.md §8). Once connected, the
lobby lists the tables every couple of seconds: those waiting for people and those playing,
every page of them (following the server's cursor), waiting tables first. Creating, joining,
resuming or watching a table hands the same link to a ``LiveTable``; while that table waits
for people the lobby shows its waiting room (``client.screens.waiting_room``) instead of an empty
felt, and once the game runs, a line over the table for each person who has gone. Leaving a
table sends ``leave``: the server frees the seat of a game not yet started and keeps it, for
its token, in a game under way — the lobby then lists that game under "Your games" with
Resume.
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
from pathlib import Path
from typing import Any

import pygame

from starhall.client.games.tricks.table import TITLES, TableView
from starhall.client.net.embedded import Seat, SeatBook, user_data
from starhall.client.net.link import KEY_REFUSED, LOST, REJOINED, ServerLink, normalise_address
from starhall.client.net.roster import NODES_FILE, Roster
from starhall.client.screens.live import LiveTable
from starhall.client.screens.new_table import NewTableForm
from starhall.client.screens.settings_screen import SettingsOverlay
from starhall.client.screens.waiting_room import WaitingRoom, absent_people, draw_absent, host_port
from starhall.client.ui import fonts, theme
from starhall.client.ui.fonts import wrap
from starhall.client.ui.widgets import Hotspots, blit_text, button, fitted, panel, row_of_buttons
from starhall.client.user.known_servers import KnownServers
from starhall.client.user.settings import player_name
from starhall.shared import protocol
from starhall.shared.curve import fingerprint

LIST_EVERY = 2.0
LIST_GIVE_UP = 10.0
"""Seconds after which a listing whose next page never came starts again."""
FORGET_AFTER = 5.0
OPEN = (protocol.WAITING, protocol.PLAYING)
SERVERS_FOLDER = "servers"
SERVICES_FOLDER = "services"


def in_lobby_order(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tables with a free seat first, then games under way, then the rest; each group in the
    order the tables were made (ids of one length compare as text, a shorter id first)."""
    rank = {protocol.WAITING: 0, protocol.PLAYING: 1}
    return sorted(tables, key=lambda t: (rank.get(str(t.get("status")), 2), len(str(t.get("id"))),
                                         str(t.get("id"))))


ROW_HEIGHT = 50
ROW_TALL = 70
"""A table's row in a narrow column: its title on a line of its own."""
ROW_WIDE_ENOUGH = 440
"""A row narrower than this takes two lines."""
MARGIN = 24


def lobby_places(width: int, height: int, servers_height: int, your_games: bool
                 ) -> tuple[pygame.Rect, pygame.Rect | None, pygame.Rect, pygame.Rect]:
    """Where the lobby's panels go: the servers, the user's games (if any), the tables and
    the new-table form. Wide: three columns (servers over the user's games, tables, form).
    Narrow (an 800-pixel window): the form right; left of it the servers (beside the user's
    games) above the tables, which keep the width their buttons need."""
    top, bottom = 110, height - MARGIN
    form_width = max(320, min(420, width // 3))
    form = pygame.Rect(width - MARGIN - form_width, top, form_width, bottom - top)
    column = max(240, min(300, width // 4))
    if form.x - 20 - (MARGIN + column + 20) - 24 >= ROW_WIDE_ENOUGH:
        left = pygame.Rect(MARGIN, top, column, bottom - top)
        tables = pygame.Rect(left.right + 20, top, form.x - 20 - left.right - 20, bottom - top)
        if not your_games:
            return left, None, tables, form
        half = left.h // 2
        return (pygame.Rect(left.x, left.y, left.w, half - 10), pygame.Rect(
            left.x, left.y + half, left.w, left.h - half), tables, form)
    left = pygame.Rect(MARGIN, top, form.x - 20 - MARGIN, bottom - top)
    band = min(max(servers_height, 150 if your_games else 0), left.h // 2)
    tables = pygame.Rect(left.x, left.y + band + 12, left.w, left.h - band - 12)
    if not your_games:
        return pygame.Rect(left.x, left.y, left.w, band), None, tables, form
    half = (left.w - 12) // 2
    return (pygame.Rect(left.x, left.y, half, band),
            pygame.Rect(left.x + half + 12, left.y, left.w - half - 12, band), tables, form)


RESUME_BESIDE_ROOM = 150
"""Pixels "Your games" needs left of a Resume button for a game's title and its detail; a
narrower panel puts the button under them."""

class ServerSeatBook(SeatBook):
    """A ``SeatBook`` whose folder is made when the first seat is written down."""

    def remember(self, seat: Seat) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        super().remember(seat)


def seat_book(address: str) -> SeatBook:
    """The user's seats and tokens at the tables of the server at ``address``, for a server
    that names no service: a ``SeatBook`` (``client.net.embedded``, the same file ``starhall
    play`` keeps for its own games) in ``servers/HOST_PORT/`` of the user's data folder."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", host_port(address))
    return ServerSeatBook(user_data() / SERVERS_FOLDER / safe)


def service_folder(service: str) -> Path:
    """Where the user's seats at a service's tables and the service's nodes are kept:
    ``services/ID/`` of the user's data folder (the id ``welcome`` gives, docs/protocol.md
    §3b), whichever node the user reaches it by."""
    return user_data() / SERVICES_FOLDER / re.sub(r"[^A-Za-z0-9._-]", "_", service)[:64]


def known_service(address: str) -> tuple[str, Roster] | None:
    """The service a node at ``address`` was last heard to be part of, and its nodes (kept
    from an earlier run): a lobby whose node does not answer goes on at the others."""
    for path in sorted((user_data() / SERVICES_FOLDER).glob(f"*/{NODES_FILE}")):
        roster = Roster(path)
        if address in roster.nodes:
            return path.parent.name, roster
    return None


def service_book(service: str, addresses: list[str]) -> SeatBook:
    """The user's seats at the tables of ``service``, with those an older window kept for
    each of its nodes' ``addresses`` (``seat_book``) moved in, once."""
    book = ServerSeatBook(service_folder(service))
    for address in addresses:
        old = seat_book(address)
        moved = old.seats()
        if not moved:
            continue
        kept = book.seats()
        with contextlib.suppress(OSError):
            for seat in moved.values():
                if seat.table not in kept:
                    book.remember(seat)
            old.path.unlink()
            with contextlib.suppress(OSError):
                old.folder.rmdir()
    return book


class Discovery:
    """Servers heard by their beacons: ``{address: (name, last heard)}``, and the public
    key each beacon carried (``keys``; ``None``: a plain server)."""

    def __init__(self, port: int = protocol.BEACON_PORT) -> None:
        self.servers: dict[str, tuple[str, float]] = {}
        self.keys: dict[str, bytes | None] = {}
        self._socket: socket.socket | None = None
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if hasattr(socket, "SO_REUSEPORT"):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(("", port))
            sock.setblocking(False)
            self._socket = sock
        except OSError:
            self._socket = None  # discovery is a convenience: an address can still be typed

    def poll(self) -> bool:
        """Read the beacons heard; whether the list of servers changed."""
        now = time.monotonic()
        before = set(self.servers)
        while self._socket is not None:
            try:
                datagram, (host, _) = self._socket.recvfrom(1024)
            except (BlockingIOError, OSError):
                break
            beacon = protocol.decode_beacon(datagram)
            if beacon is not None:
                self.servers[f"tcp://{host}:{beacon.port}"] = (beacon.name, now)
                self.keys[f"tcp://{host}:{beacon.port}"] = beacon.key
        for address, (_, heard) in list(self.servers.items()):
            if now - heard > FORGET_AFTER:
                del self.servers[address]
                self.keys.pop(address, None)
        return set(self.servers) != before

    def close(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()


class Lobby:
    def __init__(self, size: tuple[int, int], address: str | None, name: str,
                 watch_table: str | None = None, server_key: bytes | None = None,
                 known: KnownServers | None = None) -> None:
        """``server_key``: the key ``address``'s server must have (``--server-key``), pinned
        for it; otherwise a server's key is the one pinned, or the first one heard."""
        self.size = size
        self.known = known or KnownServers()
        """The servers' keys pinned (``client/user/known_servers.py``)."""
        self.refused = False
        """Whether the current server's key was refused (the message is a warning)."""
        self.name = name
        self.watch_table = watch_table
        """``starhall watch``: go straight to this table (``""``: the first one playing)."""
        self.discovery = Discovery()
        self.link: ServerLink | None = None
        self.server_name = ""
        self.ever_connected = False
        """Whether the current link has had an answer (a loss then is "lost", not "cannot
        reach")."""
        self.tables: list[dict[str, Any]] = []
        self.tables_complete = False
        """Whether ``tables`` is the server's whole list (it pages a long one)."""
        self._listing: int | None = None
        """The ``rid`` of the page of tables asked for, while a listing goes on."""
        self._pages: list[dict[str, Any]] = []
        """The tables of a listing's pages so far (``tables`` once the last has come)."""
        self.games: list[dict[str, Any]] = []
        self.options: dict[str, Any] = {}
        """Values the new-table form starts from (tests shorten games with a low target)."""
        self.form: NewTableForm | None = None
        self.creating: int | None = None
        self._create_request: dict[str, Any] = {}
        """The last ``create`` sent, for a resend to the node the service placed it on."""
        """The ``rid`` of the ``create`` awaiting its reply."""
        self.created: set[str] = set()
        """Tables this lobby created: their waiting room offers to start with bots."""
        self.live: LiveTable | None = None
        self._lobby_caption = "Starhall — lobby"
        """The window's title in the lobby, given back when a table is left."""
        self.room: WaitingRoom | None = None
        self.resuming: tuple[str, int] | None = None
        self.book: SeatBook | None = None
        self.held: dict[str, Seat] = {}
        """The user's seats at the current service's tables, by table (``service_book``)."""
        self.service: str | None = None
        """The service the server is a node of, as its ``welcome`` named it."""
        self.roster = Roster()
        """The service's nodes: the lobby (and its tables) go on at another when the node
        it talks to stops answering."""
        self.local_games: list[Any] = []
        """The user's unfinished games on this computer (``client.net.embedded``)."""
        self.hosted: Any = None
        """One of those, resumed on its own server in this window (``hosted.HostedTable``);
        leaving it comes back here."""
        self.view = TableView()
        self.hotspots = Hotspots()
        self.settings = SettingsOverlay(on_save=lambda _: setattr(self, "name", player_name()))
        """The settings sheet (F2 or the Settings button); a table has its own."""
        self.mouse = (-1, -1)
        self.last_list = -LIST_EVERY
        self.message = ""
        self.done = False
        self._changed = True
        """Something to show that was not drawn yet (the window loop asks ``redraw_after``)."""
        self._seen: tuple[Any, ...] = ()
        self._find_local_games()
        if address:
            if server_key is not None:
                self.known.pin(normalise_address(address), server_key)
            self.connect(address, server_key)

    def connect(self, address: str, key: bytes | None = None) -> None:
        """``key``: the server's public key as its beacon said (checked against the pinned
        one); asked of the server when ``None``."""
        if self.link is not None:
            self.link.close()
        self.refused = False
        self.link = ServerLink(address, name=self.name, key=key, known=self.known)
        self.tables, self.tables_complete = [], False
        self._listing, self._pages = None, []
        self.server_name = ""
        self.ever_connected = False
        if self.link.address not in self.roster.nodes:  # another service, maybe
            self.service, self.roster = None, Roster()
            known = known_service(self.link.address)
            if known is not None:  # as an earlier run knew it, until the server says
                self.service, self.roster = known
                self.book = service_book(self.service, [self.link.address])
                self.held = self.book.seats()
        if self.service is None:  # until the server names its service
            self.book = seat_book(self.link.address)
            self.held = self.book.seats()
        self.last_list = -LIST_EVERY
        self.message = f"Connecting to {host_port(self.link.address)}…"
        if self.link.refusal is not None:
            self._refuse(self.link.refusal)

    def _refuse(self, why: str) -> None:
        self.refused = True
        self.message = why

    def disconnect(self) -> None:
        """Back to choosing a server."""
        if self.link is not None:
            self.link.close()
        self.link = None
        self.tables, self.held, self.book = [], {}, None
        self.service, self.roster = None, Roster()
        self.message = ""

    def _find_local_games(self) -> None:
        try:
            from starhall.client.net import embedded

            finder = getattr(embedded, "unfinished_tables", None)
            self.local_games = list(finder()) if finder is not None else []
        except Exception:  # noqa: BLE001 - a convenience: the lobby works without the list
            self.local_games = []

    # --- every frame -------------------------------------------------------------------

    def frame(self, dt: float) -> None:
        if self.hosted is not None:
            self._hosted_frame(dt)
            return
        if self.live is not None:
            self._table_frame(dt)
            return
        if self.discovery.poll():
            self._changed = True
        if self.link is None:
            return
        for message in self.link.poll():
            self._changed = True
            self._receive(message)
        if self.link.state == "lost" and self._go_on_elsewhere():
            return
        now = time.monotonic()
        if (self.link.state == "connected" and now - self.last_list >= LIST_EVERY
                and (self._listing is None or now - self.last_list >= LIST_GIVE_UP)):
            self.last_list = now
            self._pages = []
            self._list_page({})

    def _list_page(self, where: dict[str, Any]) -> None:
        """Ask for a page of the tables people can sit at or watch (waiting and playing;
        ``starhall watch TABLE`` asks for every table): the first page, or the one after
        ``where`` (``cursor``, or ``offset`` for a server that pages the older way)."""
        assert self.link is not None
        request: dict[str, Any] = {"type": protocol.LIST, **where}
        if not self.watch_table:
            request["status"] = list(OPEN)
        self._listing = self.link.send(request)

    def _receive(self, message: dict[str, Any]) -> None:
        assert self.link is not None
        kind = message.get("type")
        if kind == protocol.WELCOME:
            self._take_service(message)
            self.games = list(message.get("games") or [])
            if self.form is None or self.form.games != self.games:
                self.form = NewTableForm(self.games, self.options)
            self.server_name = str(message.get("server") or "")
            self.ever_connected = True
            key = self.link.server_key
            secured = "unencrypted: the server runs --plain" if key is None else \
                f"encrypted, key {fingerprint(key)}"
            self.message = f"Connected to {self.server_name or 'the server'} " \
                           f"({host_port(self.link.address)}), {secured}"
        elif kind == KEY_REFUSED:
            self._refuse(str(message.get("message")))
        elif kind == protocol.DRAINING:
            self.roster.learn(message.get("nodes"), gone=self.link.address)
            self._go_on_elsewhere()
        elif kind == protocol.TABLES:
            if message.get("rid") != self._listing:
                return  # an answer to a listing given up on
            self._pages.extend(message.get("tables") or [])
            cursor, offset = message.get("cursor"), message.get("next")
            if isinstance(cursor, str):  # more tables: the next page, by the server's cursor
                self._list_page({"cursor": cursor})
                return
            if "cursor" not in message and isinstance(offset, int):  # an older server
                self._list_page({"offset": offset})
                return
            self._listing = None
            self.tables = in_lobby_order(self._pages)
            self.tables_complete = True
            self._forget_finished()
            self._maybe_watch()
        elif kind == protocol.CREATED and message.get("rid") == self.creating:
            self.creating = None
            self._open_created(message["table"])
        elif kind == protocol.ERROR:
            reason = str(message.get("reason"))
            if message.get("rid") == self._listing and self._listing is not None:
                self._listing = None  # listed again from the first page in a moment
            placed = message.get("address")
            if (message.get("rid") == self.creating and self.creating is not None
                    and message.get("code") == protocol.ELSEWHERE and isinstance(placed, str)):
                with contextlib.suppress(ValueError):
                    self._create_at(normalise_address(placed))
                    return
            if message.get("rid") == self.creating and self.creating is not None:
                self.creating = None
                if self.form is not None:
                    self.form.error = reason
            else:
                self.message = reason
        elif kind == protocol.LEFT and not message.get("kept"):
            self._forget(str(message.get("table")), message.get("seat"))
        elif kind == LOST:
            self.creating = None
            self._listing = None
        elif kind == REJOINED:
            self.last_list = -LIST_EVERY
            self._listing = None

    def _take_service(self, welcome: dict[str, Any]) -> None:
        """The service the server is a node of: the user's seats there and its nodes."""
        assert self.link is not None
        service = welcome.get("service")
        if not isinstance(service, str) or not service:
            return  # an older server: seats kept by its address
        if service != self.service:
            self.service = service
            self.roster = Roster(service_folder(service) / NODES_FILE)
        self.roster.learn(welcome.get("nodes"))
        self.book = service_book(service, [self.link.address, *self.roster.nodes])
        self.held = self.book.seats()
        if self.live is not None:  # a table opened before the server answered
            self.live.seat_book, self.live.roster = self.book, self.roster

    def _go_on_elsewhere(self) -> bool:
        """The lobby's node is silent or stopping: connect to the service's next node, if
        another is known; whether it did."""
        assert self.link is not None
        others = self.roster.after(self.link.address)
        if not others:
            return False
        gone = host_port(self.link.address)
        self.connect(others[0], self.roster.key(others[0]))
        self.message = f"{gone} stopped answering: connecting to {host_port(others[0])}…"
        return True

    def _forget_finished(self) -> None:
        """Seats at tables that ended or are gone are no games to go back to."""
        if self.link is None:
            return
        status = {str(t.get("id")): t.get("status") for t in self.tables}
        for held in list(self.held.values()):
            known = status.get(held.table)
            if (known is None and self.tables_complete) or (known is not None
                                                             and known not in OPEN):
                self._forget(held.table, held.seat)

    def _forget(self, table: str, seat: Any = None) -> None:
        if self.book is None or table not in self.held:
            return
        with contextlib.suppress(OSError):
            self.book.forget(table)
        self.held = self.book.seats()

    def _maybe_watch(self) -> None:
        if self.watch_table is None or self.link is None:
            return
        wanted = self.watch_table or next(
            (t["id"] for t in self.tables if t.get("status") == protocol.PLAYING), None)
        if wanted and any(t["id"] == wanted for t in self.tables):
            self.open_table("watch", wanted)
        elif self.watch_table:
            self.message = f"No table {self.watch_table} on this server."

    # --- a table ---------------------------------------------------------------------------

    def _table_frame(self, dt: float) -> None:
        live = self.live
        assert live is not None and self.link is not None
        if self.service is None and self.link.welcome is not None:
            self._take_service(self.link.welcome)  # it came to the table, not to the lobby
        live.frame(dt)
        session = live.session
        seen = (id(session.info) if session else None, self.waiting_info() is None,
                live.link.state, self.room.error if self.room else "", live.moved_to,
                live.lost_table)
        if seen != self._seen:
            self._seen, self._changed = seen, True
        if session is not None and session.token is not None and (
                session.table not in self.held and self.book is not None):
            self.held = self.book.seats()  # the table wrote the seat down when it opened
        if live.problem and self.resuming is not None:  # the token opens no seat any more
            self._forget(*self.resuming)
            self.resuming = None
        if live.done:
            self.close_table()
            if getattr(live, "quitting", False):
                self.done = True  # the window was closed, not only the table left

    def open_local(self, entry: Any) -> None:
        """Sit back at one of the user's own unfinished games, on a server of its own."""
        from starhall.client.screens.hosted import HostedTable
        from starhall.client.screens.replay_screen import open_over_table

        try:
            self.hosted = HostedTable.resume(entry, self.size, open_replay=open_over_table)
        except OSError as error:  # FolderBusy: open in another window
            self.message = str(error)
            self._find_local_games()

    def _hosted_frame(self, dt: float) -> None:
        hosted = self.hosted
        hosted.frame(dt)
        if hosted.done:
            quitting = bool(getattr(hosted.live, "quitting", False))
            self.hosted = None
            hosted.close()
            self._find_local_games()
            self._changed = True
            if quitting:
                self.done = True

    def _new_live(self) -> LiveTable:
        assert self.link is not None
        self.room = None
        self.resuming = None
        from starhall.client.screens.replay_screen import open_over_table

        self.live = LiveTable(self.link, self.size, self.view, own_link=False,
                              open_replay=open_over_table)
        self._lobby_caption = next(iter(pygame.display.get_caption()), "") or "Starhall — lobby"
        self.live.seat_book = self.book
        self.live.roster = self.roster
        return self.live

    def open_table(self, how: str, table: str, seat: int | None = None) -> None:
        live = self._new_live()
        if how == "watch":
            live.watch(table)
        else:
            live.sit(table, seat, self.name)

    def resume(self, held: Seat) -> None:
        live = self._new_live()
        live.resume_table(held.table, held.seat, held.token, self.name, held.bot, held.options)
        self.resuming = (held.table, held.seat)

    def create(self, with_bots: bool) -> None:
        """Ask the server for a table as the form says; ``_open_created`` sits down there."""
        if self.link is None or self.form is None or not self.games or self.creating:
            return
        form = self.form
        form.fill_with_bots = with_bots
        # anywhere: the service may place it on another node, which the lobby then moves to
        self._create_request = {"type": protocol.CREATE, "game": form.game["id"],
                                "players": form.players, "options": form.options(),
                                "key": protocol.new_key(), "anywhere": True}
        self.creating = self.link.send(self._create_request)

    def _create_at(self, address: str) -> None:
        """The service placed the table on the node at ``address``: the lobby moves there
        and asks again (the same ``key``: one table, whatever happens)."""
        request = {k: v for k, v in self._create_request.items() if k != "anywhere"}
        self.connect(address, self.roster.key(address))
        assert self.link is not None
        self.creating = self.link.send(request)

    def _open_created(self, info: dict[str, Any]) -> None:
        form = self.form
        assert form is not None
        table = str(info["id"])
        self.created.add(table)
        live = self._new_live()
        bot = form.bot_kind if form.fill_with_bots else None
        live.join_table(table, 0, self.name, bot, int(info.get("players") or form.players))

    def waiting_info(self) -> dict[str, Any] | None:
        """The open table's description while it waits for people (nothing dealt yet)."""
        session = self.live.session if self.live is not None else None
        if session is None or session.view_seq > 0:
            return None
        info = session.info
        return info if info.get("status") == protocol.WAITING else None

    def close_table(self) -> None:
        """Back to the lobby: a seat is left (the server frees it if the game has not
        started), a watched table unwatched."""
        live, self.live, self.room = self.live, None, None
        if live is None:
            return
        pygame.display.set_caption(self._lobby_caption)
        session = live.session
        link = live.link  # the table's node: the lobby's, or the one it was followed to
        if session is not None and link.state == "connected":
            if session.token is not None:
                link.send({"type": protocol.LEAVE, "table": session.table,
                           "token": session.token})
            elif session.seat is None:
                link.send({"type": protocol.UNWATCH, "table": session.table})
        live.close()
        self.resuming = None
        self.last_list = -LIST_EVERY
        self._listing = None
        self._find_local_games()
        self.watch_table = None  # `starhall watch`: back to that server's lobby, not out

    def _room_request(self, message: dict[str, Any]) -> None:
        live = self.live
        assert live is not None and live.session is not None
        live.request({**message, "table": live.session.table}, self._room_reply)

    def _room_reply(self, reply: dict[str, Any]) -> None:
        if reply.get("type") != protocol.ERROR:
            return
        reason = str(reply.get("reason"))
        if self.room is not None and self.waiting_info() is not None:
            self.room.error = reason
        elif self.live is not None and self.live.table is not None:
            self.live.table.model.refuse(reason)

    def room_act(self, action: tuple[Any, ...]) -> None:
        """A click in the waiting room or on an absent person's line."""
        live = self.live
        session = live.session if live is not None else None
        if live is None or session is None:
            return
        what = action[1]
        if self.room is not None:
            self.room.error = ""
        kind = self.room.bot_kind if self.room is not None else self._default_bot(session.info)
        if what == "bot":
            self._room_request({"type": protocol.BOT, "seat": action[2], "kind": kind})
        elif what == "unbot":
            message: dict[str, Any] = {"type": protocol.UNBOT, "seat": action[2]}
            if session.token is not None:
                message["token"] = session.token
            self._room_request(message)
        elif what == "kind" and self.room is not None:
            self.room.step_kind(action[2])
        elif what == "start":
            for entry in session.info.get("seats") or []:
                if entry.get("state") == protocol.FREE:
                    self._room_request({"type": protocol.BOT, "seat": entry.get("seat"),
                                        "kind": kind})
        elif what == "sit":
            table = session.table
            self.close_table()
            self.open_table("sit", table, action[2])
        elif what == "standin" and session.token is not None:
            self._room_request({"type": protocol.BOT, "seat": action[2], "token": session.token,
                                "kind": self._default_bot(session.info)})
        elif what == "leave":
            self.close_table()

    def _game_info(self, game_id: Any) -> dict[str, Any]:
        return next((g for g in self.games if g.get("id") == game_id), {})

    def _default_bot(self, info: dict[str, Any]) -> str:
        game = self._game_info(info.get("game"))
        bots = game.get("bots") or ["random"]
        default = game.get("default_bot")
        return str(default if default in bots else bots[0])

    # --- input -------------------------------------------------------------------------

    def handle(self, event: pygame.event.Event) -> None:
        if self.hosted is not None:
            self.hosted.handle(event)
            return
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        if self.live is None and self.settings.handle(event, self.hotspots):
            return
        spot = None
        if event.type == pygame.MOUSEBUTTONDOWN and event.button in (1, 3):
            spot = self.hotspots.at(event.pos)
            if spot is not None and not spot.enabled:
                spot = None
        if self.live is not None:
            waiting = self.waiting_info() is not None
            if spot is not None and event.button == 1 and spot.action[0] in ("room", "lost"):
                self.act(spot.action)
            elif waiting and event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
                self.close_table()
            elif not waiting:
                self.live.handle(event)
            return
        if spot is not None:
            action = spot.action
            if event.button == 3:  # a right click steps a choice back
                if action[-1:] not in ((1,), (-1,)):
                    return
                action = (*action[:-1], -action[-1])
            self.act(action)
        elif event.type == pygame.KEYDOWN:
            if self.form is not None and self.form.key(event):
                return
            if event.key == pygame.K_ESCAPE:
                self.done = True

    def act(self, action: tuple[Any, ...]) -> None:
        kind = action[0]
        if self.form is not None and self.form.act(action):
            return
        if self.form is not None:
            self.form.commit_typing()
        if kind == "server":
            key = self.discovery.keys.get(action[1], self.roster.key(action[1]))
            self.connect(action[1], key)
        elif kind in ("sit", "watch"):
            self.open_table(kind, action[1])
        elif kind == "resume":
            self.resume(action[1])
        elif kind == "local":
            self.open_local(action[1])
        elif kind == "create":
            self.create(bool(action[1]))
        elif kind == "room":
            self.room_act(action)
        elif kind == "lost":
            self._lost_act(action[1])

    def _lost_act(self, what: str) -> None:
        """Reconnect: a fresh connection to the same server; Back: from a table to the lobby,
        from the lobby to the choice of a server."""
        if self.link is None:
            return
        address = self.link.address
        at_table = self.live is not None
        self.close_table()
        if what == "reconnect":
            self.connect(address)
        elif not at_table:
            self.disconnect()

    def resize(self, size: tuple[int, int]) -> None:
        self.size = size
        if self.hosted is not None:
            self.hosted.resize(size)
        if self.live is not None:
            self.live.resize(size)

    # --- when to draw ------------------------------------------------------------------

    def redraw_after(self) -> float | None:
        """0 when something changed since the last drawing, ``None`` while the lobby looks
        the same (input redraws anyway); a running table says for itself."""
        if self.hosted is not None:
            hosted_due: float | None = self.hosted.redraw_after()
            return hosted_due
        if self.live is not None and self.waiting_info() is None and not self._changed:
            due: float | None = self.live.redraw_after()
            return due
        if self._changed:
            return 0.0
        return 0.25 if self.settings_open() else None

    def settings_open(self) -> bool:
        return bool(getattr(self.settings, "open", False))

    def wait(self, timeout: float) -> None:
        """Sleep until the server says something (beacons are read at least every
        ``timeout``)."""
        if self.hosted is not None:
            self.hosted.wait(timeout)
        elif self.link is not None:
            self.link.wait(timeout)
        elif timeout > 0:
            time.sleep(timeout)

    def quit_requested(self) -> bool:
        """Closing the window at a game under way asks first, as leaving it does."""
        if self.hosted is not None:
            return bool(self.hosted.quit_requested())
        if self.live is not None and self.waiting_info() is None:
            return bool(self.live.quit_requested())
        return True

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        self._changed = False
        self.hotspots.clear()
        if self.hosted is not None:
            self.hosted.draw(surface)
            return
        if self.live is not None:
            self._draw_table(surface, self.live)
            return
        width, height = surface.get_size()
        surface.fill(theme.FELT_DARK)
        blit_text(surface, "Starhall", 40, theme.GOLD, "topleft", (32, 22))
        blit_text(surface, "Key refused: not connected" if self.refused else
                  self.message or "Choose a server", 17,
                  theme.ALERT if self.refused else theme.TEXT_DIM, "topleft", (34, 74),
                  max_width=width - 68)
        mine = self._my_games()
        servers, games, tables, form = lobby_places(width, height, self._servers_height(),
                                                    bool(mine))
        self._servers(surface, servers)
        if games is not None:
            self._your_games(surface, games, mine)
        self._tables(surface, tables)
        enabled = self.link is not None and self.link.state == "connected" and \
            bool(self.games) and self.creating is None
        if self.form is not None:
            self.form.draw(surface, form, self.hotspots, self.mouse, enabled)
        else:
            panel(surface, form)
            blit_text(surface, "New table", 19, theme.TEXT, "topleft", (form.x + 16,
                                                                         form.y + 14))
            blit_text(surface, "Connect to a server to create a table there.", 14,
                      theme.TEXT_DIM, "topleft", (form.x + 16, form.y + 50),
                      max_width=form.w - 32)
        if self.link is not None and self.link.state == "lost":
            self._lost_panel(surface, table=False)
        if self.refused:
            self._refused_panel(surface)
        corner = pygame.Rect(width - 174, 26, 150, 34)
        self.settings.draw(surface, surface.get_rect(), self.hotspots, corner)

    def _servers_height(self) -> int:
        """What the servers' panel needs: its title, a button per server heard (or a line
        saying none is), the button for this computer."""
        heard = len(self._server_buttons())
        return 50 + (heard * 48 if heard else 30) + 52

    def _server_buttons(self) -> list[tuple[str, str]]:
        """The servers to offer, each as (address, label): those heard on the LAN (named,
        with their key's fingerprint to check), then the other nodes of the service the lobby
        is connected to, which send no beacon maybe (numbered: their keys came from the
        service itself)."""
        found = [(address, f"{name}  ({host_port(address)})  " + (
                      "plain" if key is None else f"key {fingerprint(key)}"))
                 for address, (name, _) in sorted(self.discovery.servers.items())
                 for key in [self.discovery.keys.get(address)]]
        heard = {address for address, _ in found}
        if len(self.roster.nodes) > 1:  # a lone server is no service of several nodes
            found += [(address, f"Node {number} · {host_port(address)}")
                      for number, address in enumerate(self.roster.nodes, 1)
                      if address not in heard]
        return found

    def _servers(self, surface: pygame.Surface, servers: pygame.Rect) -> None:
        panel(surface, servers)
        blit_text(surface, "Servers on the LAN", 19, theme.TEXT, "topleft",
                  (servers.x + 16, servers.y + 14))
        y = servers.y + 50
        heard = self._server_buttons()
        if not heard:
            blit_text(surface, "None heard yet (listening…)", 15, theme.TEXT_DIM, "topleft",
                      (servers.x + 16, y))
            y += 30
        for address, label in heard:
            if y + 40 > servers.bottom - 48:
                break
            rect = pygame.Rect(servers.x + 12, y, servers.w - 24, 40)
            current = self.link is not None and self.link.address == address
            button(surface, self.hotspots, rect, label, "server",
                   address, hovered=rect.collidepoint(self.mouse) or current, size=15)
            y += 48
        rect = pygame.Rect(servers.x + 12, min(y, servers.bottom - 52), servers.w - 24, 40)
        button(surface, self.hotspots, rect, "This computer (localhost)", "server",
               f"tcp://127.0.0.1:{protocol.DEFAULT_PORT}", hovered=rect.collidepoint(self.mouse),
               size=15)

    def _resumable(self) -> dict[str, Seat]:
        """The user's seats, by table, that nobody plays now: a seat connected to a session
        is in use (in another window of this user, say), and resuming it would take it away
        from there."""
        found: dict[str, Seat] = {}
        tables = {str(t.get("id")): t for t in self.tables}
        for held in self.held.values():
            table = tables.get(held.table)
            if table is None or table.get("status") not in OPEN:
                continue
            seats = table.get("seats") or []
            entry = seats[held.seat] if 0 <= held.seat < len(seats) else {}
            if entry.get("state") == "bot" and entry.get("standin") or (
                    entry.get("state") == "player" and not entry.get("connected")):
                found[held.table] = held
        return found

    def _my_games(self) -> list[tuple[str, str, tuple[Any, ...]]]:
        """The user's games to go back to: (title, detail, action)."""
        found: list[tuple[str, str, tuple[Any, ...]]] = []
        tables = {str(t.get("id")): t for t in self.tables}
        for held in self._resumable().values():
            table = tables[held.table]
            status = table.get("status")
            title = str(table.get("title") or self._game_info(held.game).get("title")
                        or held.game)
            found.append((title, f"{held.table} · seat {held.seat + 1} · {status}",
                          ("resume", held)))
        for entry in self.local_games:
            if getattr(entry, "busy", False):
                continue
            found.append((str(entry.title), f"on this computer · {entry.events} moves",
                          ("local", entry)))
        return found

    def _your_games(self, surface: pygame.Surface, area: pygame.Rect,
                    games: list[tuple[str, str, tuple[Any, ...]]]) -> None:
        panel(surface, area)
        blit_text(surface, "Your games", 19, theme.TEXT, "topleft", (area.x + 16, area.y + 14))
        y = area.y + 48
        # Resume beside the words where they fit there, else under them (a small window); the
        # words wrap rather than being cut, a title and its detail two lines each at most
        beside = area.w - 24 - 86 - 16 >= RESUME_BESIDE_ROOM
        room = area.w - 24 - (86 + 16 if beside else 20)
        for shown, (title, detail, action) in enumerate(games):
            titles = fonts.wrap(title, 14, room)[:2]
            details = fonts.wrap(detail, 13, room)[:2]
            words = 6 + 19 * len(titles) + 16 * len(details)
            height = max(44, words + 4) if beside else words + 36
            if y + height > area.bottom - 8:
                blit_text(surface, f"+{len(games) - shown} more", 13, theme.TEXT_DIM,
                          "topright", (area.right - 16, area.y + 18))
                break
            rect = pygame.Rect(area.x + 12, y, area.w - 24, height)
            pygame.draw.rect(surface, theme.FELT, rect, border_radius=8)
            if beside:
                go = pygame.Rect(rect.right - 86, rect.centery - 16, 80, 32)
            else:
                go = pygame.Rect(rect.x + 6, rect.bottom - 34, rect.w - 12, 28)
            line_y = rect.y + 6
            for line in titles:
                blit_text(surface, line, 14, theme.TEXT, "topleft", (rect.x + 10, line_y))
                line_y += 19
            for line in details:
                blit_text(surface, line, 13, theme.TEXT_DIM, "topleft", (rect.x + 10, line_y))
                line_y += 16
            button(surface, self.hotspots, go, "Resume", *action,
                   hovered=go.collidepoint(self.mouse), size=14)
            y += height + 6

    def _tables(self, surface: pygame.Surface, area: pygame.Rect) -> None:
        panel(surface, area)
        blit_text(surface, "Tables", 19, theme.TEXT, "topleft", (area.x + 16, area.y + 14))
        y = area.y + 50
        if self.link is None:
            blit_text(surface, "Pick a server on the left.", 15, theme.TEXT_DIM, "topleft",
                      (area.x + 16, y))
        elif self.link.state != "connected":
            blit_text(surface, "Waiting for the server to answer…", 15, theme.TEXT_DIM,
                      "topleft", (area.x + 16, y))
        elif not self.tables:
            blit_text(surface, "No tables yet: create one on the right.", 15, theme.TEXT_DIM,
                      "topleft", (area.x + 16, y))
        row = ROW_TALL if area.w - 24 < ROW_WIDE_ENOUGH else ROW_HEIGHT
        shown = self.tables[: max(0, (area.bottom - y - 10) // (row + 6))]
        for table in shown:
            self._table_row(surface, pygame.Rect(area.x + 12, y, area.w - 24, row), table)
            y += row + 6
        if len(shown) < len(self.tables):
            more = len(self.tables) - len(shown)
            blit_text(surface, f"and {more} more", 13, theme.TEXT_DIM, "topright",
                      (area.right - 16, area.y + 18))

    def _table_row(self, surface: pygame.Surface, rect: pygame.Rect,
                   table: dict[str, Any]) -> None:
        pygame.draw.rect(surface, theme.FELT, rect, border_radius=8)
        seats = table.get("seats") or []
        free = sum(1 for s in seats if s.get("state") == protocol.FREE)
        status = str(table.get("status"))
        people = [str(s.get("name") or "?") for s in seats
                  if s.get("state") == "player" or s.get("standin")]
        bots = sum(1 for s in seats if s.get("state") == "bot" and not s.get("standin"))
        who = ", ".join(people + ([f"{bots} bot{'s' if bots > 1 else ''}"] if bots else []))
        if status == protocol.WAITING:
            status = f"waiting: {len(seats) - free} of {len(seats)} seated"
        title = TITLES.get(str(table.get("game")), str(table.get("title")))
        # Wide: the words left, Join and Watch right. Narrow (a tall row): the title across
        # the row, the buttons under its right end, what is going on at their left.
        tall = rect.h >= ROW_TALL
        sit = pygame.Rect(rect.right - 226, rect.bottom - 41, 116, 32)
        watch = pygame.Rect(rect.right - 104, rect.bottom - 41, 96, 32)
        title_room = (rect.w if tall else sit.x - rect.x) - 20
        blit_text(surface, fitted(f"{table.get('id')}  {title}", 16, title_room), 16,
                  theme.TEXT, "topleft", (rect.x + 12, rect.y + 7))
        detail = f"{status} · {who}" if who else status
        blit_text(surface, fitted(detail, 13, sit.x - rect.x - 20), 13, theme.TEXT_DIM,
                  "topleft", (rect.x + 12, rect.bottom - 21 if tall else rect.y + 29))
        held = self._resumable().get(str(table.get("id")))
        if held is not None:
            button(surface, self.hotspots, sit, "Resume", "resume", held,
                   hovered=sit.collidepoint(self.mouse), size=15)
        else:
            open_seat = free > 0 and table.get("status") in OPEN
            button(surface, self.hotspots, sit, f"Join · {free} free" if free else "Full", "sit",
                   table["id"], enabled=open_seat, hovered=sit.collidepoint(self.mouse),
                   size=15)
        button(surface, self.hotspots, watch, "Watch", "watch", table["id"],
               hovered=watch.collidepoint(self.mouse), size=15)

    def _draw_table(self, surface: pygame.Surface, live: LiveTable) -> None:
        info = self.waiting_info()
        session = live.session
        assert self.link is not None
        if info is not None and session is not None:
            if self.room is None or self.room.game.get("id") != info.get("game"):
                self.room = WaitingRoom(self._game_info(info.get("game")))
            self.room.draw(surface, info, session.seat, str(info.get("id")) in self.created,
                           live.link.address, self.hotspots, self.mouse)
        else:
            live.draw(surface)
            if session is not None and live.table is not None:
                absent = absent_people(session.info, session.seat)
                if absent:
                    layout = live.table.layout
                    seat_box = getattr(layout, "seat_box", None)

                    def box_of(seat: int) -> pygame.Rect | None:
                        if seat_box is None or layout.relative(seat) == 0:
                            return None
                        return pygame.Rect(seat_box(seat))

                    draw_absent(surface, absent, session.token is not None, self.hotspots,
                                self.mouse, box_of)
        if live.link.state == "lost":
            self._lost_panel(surface, table=info is None)

    def lost_title(self) -> str:
        """What the lost-server panel says: the server's address, always (at a table, the
        address of the node serving it)."""
        link = self.live.link if self.live is not None else self.link
        where = host_port(link.address) if link is not None else "?"
        if self.ever_connected:
            return f"Lost the server at {where}"
        return f"Cannot reach a server at {where}"

    def _lost_panel(self, surface: pygame.Surface, table: bool) -> None:
        """The server stopped answering: where it was, and what can be done (the link keeps
        trying on its own meanwhile)."""
        assert self.link is not None
        title = self.lost_title()
        width, height = surface.get_size()
        area = pygame.Rect(0, 0, min(620, width - 40), 170)
        area.center = (width // 2, height // 2)
        panel(surface, area, alpha=245)
        blit_text(surface, title, 22, theme.GOLD, "midtop", (area.centerx, area.y + 20),
                  max_width=area.w - 32)
        detail = ("Trying again… The game goes on when it answers." if table else
                  "Trying again… Is it running, and is the address right?")
        for index, line in enumerate(wrap(detail, 15, area.w - 40)[:2]):
            blit_text(surface, line, 15, theme.TEXT, "midtop",
                      (area.centerx, area.y + 58 + index * 19))
        labels = [("Reconnect", ("lost", "reconnect"), True),
                  ("Back to the lobby" if self.live is not None else "Back",
                   ("lost", "back"), True)]
        row_of_buttons(surface, self.hotspots, (area.centerx, area.bottom - 38), labels,
                       self.mouse, size=16)

    def _refused_panel(self, surface: pygame.Surface) -> None:
        """The server's key is not the one pinned: the warning, whole, and the way back."""
        width, height = surface.get_size()
        area = pygame.Rect(0, 0, min(680, width - 40), 230)
        area.center = (width // 2, height // 2)
        panel(surface, area, alpha=245)
        blit_text(surface, "This server's key has changed", 22, theme.ALERT, "midtop",
                  (area.centerx, area.y + 18), max_width=area.w - 32)
        for index, line in enumerate(wrap(self.message, 15, area.w - 40)[:6]):
            blit_text(surface, line, 15, theme.TEXT, "midtop",
                      (area.centerx, area.y + 56 + index * 19))
        row_of_buttons(surface, self.hotspots, (area.centerx, area.bottom - 36),
                       [("Back", ("lost", "back"), True)], self.mouse, size=16)

    def close(self) -> None:
        if self.hosted is not None:
            self.hosted.close()
            self.hosted = None
        if self.live is not None:
            self.close_table()
        if self.link is not None:
            self.link.close()
        self.discovery.close()
