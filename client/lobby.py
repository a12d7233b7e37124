"""The lobby: servers heard on the LAN, a server's tables, and creating, joining or watching.

Discovery listens for the servers' UDP beacons (docs/protocol.md §8). Once connected, the
lobby lists the tables every couple of seconds; choosing one hands the same link to a
``LiveTable`` screen, and leaving it comes back here.
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any

import pygame

from client import theme
from client.live import LiveTable
from client.net import ServerLink
from client.table_view import TITLES, TableView
from client.widgets import Hotspots, blit_text, button, panel
from shared import protocol

LIST_EVERY = 2.0
FORGET_AFTER = 5.0


class Discovery:
    """Servers heard by their beacons: ``{address: (name, last heard)}``."""

    def __init__(self, port: int = protocol.BEACON_PORT) -> None:
        self.servers: dict[str, tuple[str, float]] = {}
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

    def poll(self) -> None:
        now = time.monotonic()
        while self._socket is not None:
            try:
                datagram, (host, _) = self._socket.recvfrom(1024)
            except (BlockingIOError, OSError):
                break
            beacon = protocol.decode_beacon(datagram)
            if beacon is not None:
                self.servers[f"tcp://{host}:{beacon.port}"] = (beacon.name, now)
        for address, (_, heard) in list(self.servers.items()):
            if now - heard > FORGET_AFTER:
                del self.servers[address]

    def close(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()


class Lobby:
    def __init__(self, size: tuple[int, int], address: str | None, name: str,
                 watch_table: str | None = None) -> None:
        self.size = size
        self.name = name
        self.watch_table = watch_table
        """``starhall watch``: go straight to this table (``""``: the first one playing)."""
        self.discovery = Discovery()
        self.link: ServerLink | None = None
        self.tables: list[dict[str, Any]] = []
        self.games: list[dict[str, Any]] = []
        self.game_index = 0
        self.players = 4
        self.options: dict[str, Any] = {}
        """Options for tables created here (tests shorten games with a low target)."""
        self.live: LiveTable | None = None
        self.view = TableView()
        self.hotspots = Hotspots()
        self.mouse = (-1, -1)
        self.last_list = -LIST_EVERY
        self.message = ""
        self.done = False
        if address:
            self.connect(address)

    def connect(self, address: str) -> None:
        if self.link is not None:
            self.link.close()
        self.link = ServerLink(address, name=self.name)
        self.tables = []
        self.message = f"Connecting to {self.link.address}…"

    # --- every frame -------------------------------------------------------------------

    def frame(self, dt: float) -> None:
        if self.live is not None:
            self.live.frame(dt)
            if self.live.done:
                self.live = None
                if self.watch_table is not None:
                    self.done = True
            return
        self.discovery.poll()
        if self.link is None:
            return
        for message in self.link.poll():
            kind = message.get("type")
            if kind == protocol.WELCOME:
                self.games = list(message.get("games") or [])
                ids = [game.get("id") for game in self.games]
                self.game_index = ids.index("stars") if "stars" in ids else 0  # the house game
                self.message = f"Connected to {message.get('server', self.link.address)}"
            elif kind == protocol.TABLES:
                self.tables = list(message.get("tables") or [])
                self._maybe_watch()
            elif kind == protocol.ERROR:
                self.message = str(message.get("reason"))
            elif kind == "_lost":
                self.message = "Lost the server; trying again…"
        now = time.monotonic()
        if self.link.state == "connected" and now - self.last_list >= LIST_EVERY:
            self.last_list = now
            self.link.send({"type": protocol.LIST})

    def _maybe_watch(self) -> None:
        if self.watch_table is None or self.link is None:
            return
        wanted = self.watch_table or next(
            (t["id"] for t in self.tables if t.get("status") == protocol.PLAYING), None)
        if wanted and any(t["id"] == wanted for t in self.tables):
            self.open_table("watch", wanted)
        elif self.watch_table:
            self.message = f"No table {self.watch_table} on this server."

    def open_table(self, how: str, table: str) -> None:
        assert self.link is not None
        self.live = LiveTable(self.link, self.size, self.view, own_link=False)
        if how == "watch":
            self.live.watch(table)
        else:
            self.live.sit(table, None, self.name)

    def create(self, with_bots: bool) -> None:
        if self.link is None or not self.games:
            return
        game = self.games[self.game_index]
        self.live = LiveTable(self.link, self.size, self.view, own_link=False)
        if with_bots:
            bots = game.get("bots") or ["random"]
            kind = game.get("default_bot") or ("heuristic" if "heuristic" in bots else bots[0])
            self.live.start_game(game["id"], self.players, self.options, kind, self.name)
        else:
            def created(reply: dict[str, Any]) -> None:
                assert self.live is not None
                self.live.sit(reply["table"]["id"], 0, self.name)

            self.live.request({"type": protocol.CREATE, "game": game["id"],
                               "players": self.players, "options": self.options}, created)

    # --- input -------------------------------------------------------------------------

    def handle(self, event: pygame.event.Event) -> None:
        if self.live is not None:
            self.live.handle(event)
            return
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            spot = self.hotspots.at(event.pos)
            if spot is not None and spot.enabled:
                self.act(spot.action)
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.done = True

    def act(self, action: tuple[Any, ...]) -> None:
        kind = action[0]
        if kind == "server":
            self.connect(action[1])
        elif kind in ("sit", "watch"):
            self.open_table(kind, action[1])
        elif kind == "game":
            self.game_index = (self.game_index + 1) % max(1, len(self.games))
            game = self.games[self.game_index] if self.games else {}
            self.players = max(game.get("min_players", 3), min(game.get("max_players", 6),
                                                              self.players))
        elif kind == "players":
            game = self.games[self.game_index] if self.games else {}
            self.players = max(game.get("min_players", 3),
                               min(game.get("max_players", 6), self.players + action[1]))
        elif kind == "create":
            self.create(action[1])

    def resize(self, size: tuple[int, int]) -> None:
        self.size = size
        if self.live is not None:
            self.live.resize(size)

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        if self.live is not None:
            self.live.draw(surface)
            return
        hotspots = self.hotspots
        hotspots.clear()
        width, height = surface.get_size()
        surface.fill(theme.FELT_DARK)
        blit_text(surface, "Starhall", 40, theme.GOLD, "topleft", (32, 22))
        blit_text(surface, self.message or "Choose a server", 17, theme.TEXT_DIM, "topleft",
                  (34, 74))
        servers = pygame.Rect(24, 110, 320, height - 134)
        panel(surface, servers)
        blit_text(surface, "Servers on the LAN", 19, theme.TEXT, "topleft",
                  (servers.x + 16, servers.y + 14))
        y = servers.y + 50
        heard = sorted(self.discovery.servers.items())
        if not heard:
            blit_text(surface, "None heard yet (listening…)", 15, theme.TEXT_DIM, "topleft",
                      (servers.x + 16, y))
            y += 30
        for address, (name, _) in heard:
            rect = pygame.Rect(servers.x + 12, y, servers.w - 24, 40)
            current = self.link is not None and self.link.address == address
            button(surface, hotspots, rect, f"{name}  ({address[6:]})", "server", address,
                   hovered=rect.collidepoint(self.mouse) or current, size=15)
            y += 48
        rect = pygame.Rect(servers.x + 12, y, servers.w - 24, 40)
        button(surface, hotspots, rect, "This computer (localhost)", "server",
               f"tcp://127.0.0.1:{protocol.DEFAULT_PORT}", hovered=rect.collidepoint(self.mouse),
               size=15)
        tables = pygame.Rect(servers.right + 20, 110, width - servers.right - 44,
                             height - 134 - 150)
        panel(surface, tables)
        blit_text(surface, "Tables", 19, theme.TEXT, "topleft", (tables.x + 16, tables.y + 14))
        y = tables.y + 50
        if self.link is None:
            blit_text(surface, "Pick a server on the left.", 15, theme.TEXT_DIM, "topleft",
                      (tables.x + 16, y))
        elif not self.tables:
            blit_text(surface, "No tables yet: create one below.", 15, theme.TEXT_DIM,
                      "topleft", (tables.x + 16, y))
        for table in self.tables[: max(0, (tables.bottom - y - 10) // 48)]:
            self._table_row(surface, pygame.Rect(tables.x + 12, y, tables.w - 24, 42), table)
            y += 48
        self._create_panel(surface, pygame.Rect(tables.x, tables.bottom + 16, tables.w, 134))

    def _table_row(self, surface: pygame.Surface, rect: pygame.Rect,
                   table: dict[str, Any]) -> None:
        pygame.draw.rect(surface, theme.FELT, rect, border_radius=8)
        seats = table.get("seats") or []
        free = sum(1 for s in seats if s.get("state") == protocol.FREE)
        who = ", ".join(str(s.get("name") or s.get("bot") or "free") for s in seats)
        title = TITLES.get(str(table.get("game")), str(table.get("title")))
        blit_text(surface, f"{table.get('id')}  {title}", 16, theme.TEXT, "midleft",
                  (rect.x + 12, rect.y + 13))
        blit_text(surface, f"{table.get('status')} · {who}", 13, theme.TEXT_DIM, "midleft",
                  (rect.x + 12, rect.y + 31), max_width=rect.w - 250)
        sit = pygame.Rect(rect.right - 210, rect.y + 5, 96, 32)
        watch = pygame.Rect(rect.right - 104, rect.y + 5, 96, 32)
        open_seat = free > 0 and table.get("status") != protocol.OVER
        button(surface, self.hotspots, sit, f"Join ({free})", "sit", table["id"],
               enabled=open_seat, hovered=sit.collidepoint(self.mouse), size=15)
        button(surface, self.hotspots, watch, "Watch", "watch", table["id"],
               hovered=watch.collidepoint(self.mouse), size=15)

    def _create_panel(self, surface: pygame.Surface, area: pygame.Rect) -> None:
        panel(surface, area)
        blit_text(surface, "New table", 19, theme.TEXT, "topleft", (area.x + 16, area.y + 12))
        enabled = self.link is not None and bool(self.games)
        game = self.games[self.game_index] if self.games else {"id": "-", "title": "—"}
        y = area.y + 50
        rect = pygame.Rect(area.x + 16, y, 220, 38)
        button(surface, self.hotspots, rect, f"Game: {game.get('title')}", "game",
               enabled=enabled, hovered=rect.collidepoint(self.mouse), size=15)
        minus = pygame.Rect(rect.right + 14, y, 38, 38)
        button(surface, self.hotspots, minus, "-", "players", -1, enabled=enabled)
        blit_text(surface, f"{self.players} players", 16, theme.TEXT, "midleft",
                  (minus.right + 10, minus.centery))
        plus = pygame.Rect(minus.right + 110, y, 38, 38)
        button(surface, self.hotspots, plus, "+", "players", 1, enabled=enabled)
        bots = pygame.Rect(plus.right + 20, y, 170, 38)
        button(surface, self.hotspots, bots, "Play with bots", "create", True, enabled=enabled,
               hovered=bots.collidepoint(self.mouse), size=15)
        empty = pygame.Rect(bots.right + 12, y, 170, 38)
        button(surface, self.hotspots, empty, "Open to people", "create", False,
               enabled=enabled, hovered=empty.collidepoint(self.mouse), size=15)

    def close(self) -> None:
        if self.live is not None:
            self.live.close()
        if self.link is not None:
            self.link.close()
        self.discovery.close()
