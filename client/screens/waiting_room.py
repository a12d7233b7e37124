"""A table waiting for people, and the people who left a game under way.

The server starts a game the moment every seat holds a person or a bot (docs/protocol.md
§3a); until then the lobby shows this screen instead of an empty felt: who sits where, a bot
for any empty seat, how to invite others, and for the table's creator a start with bots in
the seats still empty. Once the game runs, ``draw_absent`` puts a line over the table for
each person who has gone, with a way to hand their seat to a stand-in bot. Every action
returns to the lobby as a hotspot (``("room", what, …)``); the server decides.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from typing import Any

import pygame

from starhall.client.screens.new_table import humanise
from starhall.client.ui import fonts, theme
from starhall.client.ui.fonts import wrap
from starhall.client.ui.widgets import Hotspots, blit_text, button, fitted, panel
from starhall.shared import protocol
from starhall.shared.bots import bot_name

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0")


def host_port(address: str) -> str:
    """``tcp://host:port`` as people write it: ``host:port``."""
    return address.split("://", 1)[-1]


def lan_address() -> str | None:
    """This machine's address on the LAN (the one a packet to the outside would leave from),
    or ``None`` when it has none; nothing is sent."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 1))
        found = str(probe.getsockname()[0])
        if found not in LOOPBACK:
            return found
    return None


def invite_address(address: str) -> str:
    """The server's ``host:port`` as another computer would reach it: a loopback address is
    replaced by this machine's LAN address (the server is on this machine)."""
    host, _, port = host_port(address).rpartition(":")
    if host in LOOPBACK:
        host = lan_address() or socket.gethostname() or host
    return f"{host}:{port}"


def seat_lines(label: str, room: int, height: int) -> list[tuple[str, int]]:
    """A seat's words and their sizes: one line at 17 px when it fits, else the name at 17
    and what is in brackets ("(bot: heuristic)") under it at 13 when the row has the
    height, each cut with an ellipsis rather than shrunk."""
    if fonts.font(17).size(label)[0] <= room:
        return [(label, 17)]
    name, bracket, rest = label.partition(" (")
    lines = [(fitted(name, 17, room), 17)]
    if bracket and height >= 40:
        lines.append((fitted("(" + rest, 13, room), 13))
    return lines


def seat_label(entry: dict[str, Any]) -> str:
    """Who is in a seat, in words."""
    state = entry.get("state")
    seat = int(entry.get("seat", 0))
    if state == protocol.FREE:
        return "Empty"
    if state == "bot" and not entry.get("standin"):
        return f"{bot_name(seat)} (bot: {entry.get('bot') or 'random'})"
    name = str(entry.get("name") or f"Player {seat + 1}")
    if state == "bot":
        return f"{name} (a bot plays for them)"
    if not entry.get("connected"):
        return f"{name} (not connected)"
    return name


def options_line(info: dict[str, Any]) -> str:
    options = info.get("options") or {}
    return " · ".join(f"{humanise(name)}: {shown_value(value)}" for name, value in options.items())


def shown_value(value: Any) -> str:
    if isinstance(value, bool):
        return "On" if value else "Off"
    return humanise(value) if isinstance(value, str) else str(value)


class WaitingRoom:
    """The screen of one waiting table; the lobby hands it what it needs each frame."""

    def __init__(self, game: dict[str, Any]) -> None:
        self.game = game
        bots = self.bots
        default = game.get("default_bot")
        self.bot_kind = default if default in bots else bots[0]
        self.error = ""
        """The server's reason for refusing the last request made here."""

    @property
    def bots(self) -> list[str]:
        return [str(kind) for kind in self.game.get("bots") or ["random"]]

    def step_kind(self, direction: int) -> None:
        bots = self.bots
        index = bots.index(self.bot_kind) if self.bot_kind in bots else 0
        self.bot_kind = bots[(index + direction) % len(bots)]

    def draw(self, surface: pygame.Surface, info: dict[str, Any], mine: int | None,
             creator: bool, address: str, hotspots: Hotspots, mouse: tuple[int, int]) -> None:
        width, height = surface.get_size()
        surface.fill(theme.FELT_DARK)
        seats = list(info.get("seats") or [])
        taken = sum(1 for entry in seats if entry.get("state") != protocol.FREE)
        title = str(info.get("title") or info.get("game") or "A table")
        blit_text(surface, f"{title} — table {info.get('id', '?')}", 30, theme.GOLD,
                  "topleft", (32, 22), max_width=width - 64)
        blit_text(surface, f"Waiting for players: {taken} of {len(seats)} seats taken. The game "
                  "starts when every seat is filled.", 17, theme.TEXT, "topleft", (34, 66),
                  max_width=width - 68)
        options = options_line(info)
        y = 92
        for line in wrap(options, 14, width - 68)[:2]:
            blit_text(surface, line, 14, theme.TEXT_DIM, "topleft", (34, y))
            y += 18
        top = max(y + 10, 130)
        side = max(300, min(440, width // 3))
        seat_area = pygame.Rect(24, top, width - side - 68, height - top - 90)
        self._seats(surface, seat_area, seats, mine, hotspots, mouse)
        right = pygame.Rect(seat_area.right + 20, top, width - seat_area.right - 44,
                            seat_area.h)
        self._side(surface, right, seats, creator, address, info, hotspots, mouse)
        leave = pygame.Rect(24, height - 66, 200, 42)
        button(surface, hotspots, leave, "Leave table (Esc)", "room", "leave",
               hovered=leave.collidepoint(mouse), size=16)
        if self.error:
            blit_text(surface, self.error, 16, theme.ALERT, "midleft",
                      (leave.right + 20, leave.centery), max_width=width - leave.right - 44)

    def _seats(self, surface: pygame.Surface, area: pygame.Rect, seats: list[dict[str, Any]],
               mine: int | None, hotspots: Hotspots, mouse: tuple[int, int]) -> None:
        panel(surface, area)
        blit_text(surface, "Seats", 19, theme.TEXT, "topleft", (area.x + 16, area.y + 14))
        row = max(34, min(58, (area.h - 56) // max(1, len(seats))))
        y = area.y + 50
        for entry in seats:
            number = int(entry.get("seat", 0))
            rect = pygame.Rect(area.x + 12, y, area.w - 24, row - 8)
            pygame.draw.rect(surface, theme.FELT, rect, border_radius=8)
            colour = theme.SEAT_COLOURS[number % len(theme.SEAT_COLOURS)]
            pygame.draw.circle(surface, colour, (rect.x + 18, rect.centery), 7)
            blit_text(surface, f"Seat {number + 1}", 15, theme.TEXT_DIM, "midleft",
                      (rect.x + 34, rect.centery))
            state = entry.get("state")
            label = seat_label(entry)
            if number == mine:
                label += "  — you"
            colour_text = theme.TEXT_DIM if state == protocol.FREE else (
                theme.GOLD if number == mine else theme.TEXT)
            action = pygame.Rect(rect.right - 150, rect.y + 4, 142, rect.h - 8)
            room = action.x - rect.x - 120
            if state == protocol.FREE and mine is None:
                room -= 150  # "Sit here" beside "Add a bot"
            lines = seat_lines(label, room, rect.h)
            pitch = 19
            top = rect.centery - pitch * (len(lines) - 1) / 2
            for index, (line, size) in enumerate(lines):
                blit_text(surface, line, size, colour_text if index == 0 else theme.TEXT_DIM,
                          "midleft", (rect.x + 110, top + index * pitch))
            if state == protocol.FREE:
                button(surface, hotspots, action, "Add a bot", "room", "bot", number,
                       hovered=action.collidepoint(mouse), size=15)
                if mine is None:
                    sit = action.move(-150, 0)
                    button(surface, hotspots, sit, "Sit here", "room", "sit", number,
                           hovered=sit.collidepoint(mouse), size=15)
            elif state == "bot" and not entry.get("standin"):
                button(surface, hotspots, action, "Remove the bot", "room", "unbot", number,
                       hovered=action.collidepoint(mouse), size=15)
            y += row

    def _side(self, surface: pygame.Surface, area: pygame.Rect, seats: list[dict[str, Any]],
              creator: bool, address: str, info: dict[str, Any], hotspots: Hotspots,
              mouse: tuple[int, int]) -> None:
        panel(surface, area)
        x, right = area.x + 16, area.right - 16
        y = area.y + 14
        blit_text(surface, "Bots", 19, theme.TEXT, "topleft", (x, y))
        y += 34
        low = pygame.Rect(x, y, 32, 32)
        high = pygame.Rect(right - 32, y, 32, 32)
        many = len(self.bots) > 1
        button(surface, hotspots, low, "<", "room", "kind", -1, enabled=many,
               hovered=low.collidepoint(mouse), size=17)
        button(surface, hotspots, high, ">", "room", "kind", 1, enabled=many,
               hovered=high.collidepoint(mouse), size=17)
        blit_text(surface, self.bot_kind, 17, theme.TEXT, "center",
                  ((low.right + high.x) // 2, low.centery))
        y += 40
        for line in wrap("The kind of bot that \"Add a bot\" and \"Start now\" seat.",
                               13, right - x):
            blit_text(surface, line, 13, theme.TEXT_DIM, "topleft", (x, y))
            y += 16
        y += 14
        free = sum(1 for entry in seats if entry.get("state") == protocol.FREE)
        if creator:
            label = "Start now with bots in the empty seats"
            lines = wrap(label, 15, right - x - 20)
            start = pygame.Rect(x, y, right - x, max(44, 20 * len(lines) + 8))
            button(surface, hotspots, start, "", "room", "start", enabled=free > 0,
                   hovered=start.collidepoint(mouse), size=15)
            for index, line in enumerate(lines):  # wrapped, not shrunk, in a narrow column
                blit_text(surface, line, 15, theme.TEXT if free > 0 else theme.TEXT_DIM,
                          "center", (start.centerx,
                                     start.centery + (index - (len(lines) - 1) / 2) * 20))
            y = start.bottom + 14
        else:
            for line in wrap("Anyone at the table may add bots; the one who opened it "
                                   "can also start at once with bots in every empty seat.",
                                   14, right - x):
                blit_text(surface, line, 14, theme.TEXT_DIM, "topleft", (x, y))
                y += 18
            y += 12
        pygame.draw.line(surface, theme.PANEL_EDGE, (x, y), (right, y))
        y += 14
        blit_text(surface, "Invite", 19, theme.TEXT, "topleft", (x, y))
        y += 32
        blit_text(surface, f"starhall join {invite_address(address)}", 17, theme.GOLD,
                  "topleft", (x, y), max_width=right - x)
        y += 28
        for line in wrap(f"Others on your network run this (or pick this server in "
                               f"their lobby), then Join table {info.get('id', '?')}.", 14,
                               right - x):
            blit_text(surface, line, 14, theme.TEXT_DIM, "topleft", (x, y))
            y += 18


def absent_people(info: dict[str, Any], mine: int | None) -> list[dict[str, Any]]:
    """The seats of a started game whose person has gone: left, or lost the connection
    (``standin``: a bot plays for them meanwhile)."""
    if info.get("status") != protocol.PLAYING:
        return []
    return [entry for entry in info.get("seats") or []
            if entry.get("seat") != mine and (
                (entry.get("state") == "player" and not entry.get("connected"))
                or (entry.get("state") == "bot" and entry.get("standin")))]


def draw_absent(surface: pygame.Surface, absent: list[dict[str, Any]], can_replace: bool,
                hotspots: Hotspots, mouse: tuple[int, int],
                box_of: Callable[[int], pygame.Rect | None]) -> None:
    """A note on each absent person's seat (over its cards' backs, ``box_of(seat)``; at the
    top of the window when the table has no box there), with "Replace with a bot" for a
    player at the table (a seat's token is needed to hand a seat to a stand-in)."""
    width = surface.get_width()
    stacked = 8
    for entry in absent:
        number = int(entry.get("seat", 0))
        name = str(entry.get("name") or f"Seat {number + 1}")
        standin = entry.get("state") == "bot"
        box = box_of(number)
        if box is not None and box.w >= 150:
            rect = pygame.Rect(0, box.y, min(box.w, 220), 40 if standin else max(62, box.h - 54))
            rect.centerx = box.centerx
        else:
            rect = pygame.Rect((width - 420) // 2, stacked, 420, 66 if not standin else 40)
            stacked += rect.h + 6
        panel(surface, rect, alpha=240)
        if standin:
            blit_text(surface, f"A bot plays for {name}", 14, theme.TEXT, "center",
                      rect.center, max_width=rect.w - 12)
            continue
        blit_text(surface, f"{name} left — waiting", 15, theme.GOLD, "midtop",
                  (rect.centerx, rect.y + 7), max_width=rect.w - 12)
        replace = pygame.Rect(rect.x + 8, rect.bottom - 34, rect.w - 16, 28)
        button(surface, hotspots, replace, "Replace with a bot", "room", "standin", number,
               enabled=can_replace, hovered=replace.collidepoint(mouse), size=14)
