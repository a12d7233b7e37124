"""Entry points of the window client: ``starhall play``, ``join``, ``watch``, ``replay view``.

Each opens a resizable window and runs one loop: read input, let the screen poll the network
and advance its animations, draw, flip. Every function returns the command's exit code.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Protocol

import pygame

from client.net import ServerLink, player_name

DEFAULT_SIZE = (1280, 720)
FPS = 60
DEFAULT_BOT = "heuristic"  # the fallback when the server names no bots


class Screen(Protocol):
    done: bool

    def frame(self, dt: float) -> None: ...
    def handle(self, event: pygame.event.Event) -> None: ...
    def draw(self, surface: pygame.Surface) -> None: ...
    def resize(self, size: tuple[int, int]) -> None: ...
    def close(self) -> None: ...


def open_window(size: tuple[int, int] = DEFAULT_SIZE, title: str = "Starhall") -> pygame.Surface:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    pygame.init()
    pygame.display.set_caption(title)
    return pygame.display.set_mode(size, pygame.RESIZABLE)


def run(screen: Screen, frames: int | None = None) -> int:
    """The loop; ``frames`` stops it after that many frames (for tests and screenshots)."""
    surface = pygame.display.get_surface()
    clock = pygame.time.Clock()
    count = 0
    try:
        while not screen.done:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    return 0
                if event.type == pygame.VIDEORESIZE:
                    surface = pygame.display.get_surface()
                    screen.resize(surface.get_size())
                    continue
                screen.handle(event)
            dt = clock.tick(FPS) / 1000
            screen.frame(min(dt, 0.1))
            screen.draw(surface)
            pygame.display.flip()
            count += 1
            if frames is not None and count >= frames:
                break
        return 0
    finally:
        screen.close()


def _bot_kind(link: ServerLink, game: str) -> str:
    games = (link.welcome or {}).get("games") or []
    info = next((g for g in games if g.get("id") == game), {})
    if isinstance(info.get("default_bot"), str):
        return str(info["default_bot"])
    kinds = info.get("bots") or []
    return DEFAULT_BOT if DEFAULT_BOT in kinds or not kinds else "random"


def play(args: argparse.Namespace) -> int:
    """Start a server on loopback and sit the user at a new table against bots."""
    from client.embedded import EmbeddedServer
    from client.live import LiveTable
    from shared.games import get_game

    game = get_game(args.game)
    players = args.players or min(game.max_players, max(game.min_players, 4))
    options: dict[str, Any] = dict(getattr(args, "options", None) or {})
    game.make_options(players, options)  # a bad option is reported before a window opens
    surface = open_window(title=f"Starhall — {game.title}")
    with EmbeddedServer(getattr(args, "data", None) or "replays") as server:
        link = ServerLink(server.address, name=player_name())
        live = LiveTable(link, surface.get_size())
        _wait_for_welcome(link)
        live.start_game(game.id, players, options, _bot_kind(link, game.id), player_name())
        return run(_Leaving(live))


def _wait_for_welcome(link: ServerLink, tries: int = 200) -> None:
    """Let the hello's answer arrive (a few milliseconds on loopback) before the first request,
    so the bots asked for are kinds the server has."""
    import time

    for _ in range(tries):
        for message in link.poll():
            if message.get("type") == "welcome":
                return
        time.sleep(0.01)


class _Leaving:
    """Adapts a ``LiveTable`` whose leaving ends the program."""

    def __init__(self, live: Any) -> None:
        self.live = live

    @property
    def done(self) -> bool:
        return bool(self.live.done)

    def frame(self, dt: float) -> None:
        self.live.frame(dt)

    def handle(self, event: pygame.event.Event) -> None:
        self.live.handle(event)

    def draw(self, surface: pygame.Surface) -> None:
        self.live.draw(surface)

    def resize(self, size: tuple[int, int]) -> None:
        self.live.resize(size)

    def close(self) -> None:
        self.live.close()


class ForkedTable(_Leaving):
    """A fork of a recorded game, played in this window: its own embedded server on the data
    folder holding the fork's log, and the user seated with bots around; ``done`` when the
    user leaves, and closing stops the server."""

    def __init__(self, forked: Any, data: str, size: tuple[int, int]) -> None:
        from client.embedded import EmbeddedServer
        from client.live import LiveTable

        self.forked = forked
        self.server = EmbeddedServer(data)
        try:
            link = ServerLink(self.server.address, name=player_name())
            self.live = LiveTable(link, size, banner=forked.name)
            _wait_for_welcome(link)
            self.live.join_table(forked.table_id, forked.seat, player_name(),
                                 _bot_kind(link, forked.game), forked.players)
        except BaseException:
            self.server.stop()
            raise

    def close(self) -> None:
        try:
            self.live.close()
        finally:
            self.server.stop()


def start_fork(path: str, at: int | None, seat: int, data: str, size: tuple[int, int],
               recording: Any = None) -> ForkedTable:
    """Write a fork of the log at ``path`` after event ``at`` into ``data`` and open it
    (``ForkError``, a ``ValueError``, when it cannot be made)."""
    from server.fork import plan_fork, write_fork

    forked = write_fork(plan_fork(path, at, seat, recording), data)
    return ForkedTable(forked, data, size)


def fork(args: argparse.Namespace) -> int:
    """``starhall replay fork``: a live table in the state after one event of a recorded game,
    the user in one seat and bots in the others."""
    import sys

    from client.embedded import DEFAULT_DATA
    from server.fork import plan_fork, write_fork

    data = str(getattr(args, "data", None) or DEFAULT_DATA)
    plan = plan_fork(args.path, args.at, args.seat)  # refused before a window opens
    if args.at is not None and plan.seq != args.at:
        print(f"starhall: event {args.at} is not the last of its move; forking after event "
              f"{plan.seq}", file=sys.stderr)
    forked = write_fork(plan, data)
    print(f"{forked.name}: table {forked.table_id}, log {forked.path}, you in seat "
          f"{forked.seat}")
    surface = open_window(title=f"Starhall — {forked.name}")
    return run(ForkedTable(forked, data, surface.get_size()))


def join(args: argparse.Namespace) -> int:
    """The lobby of a LAN server: given, or picked from those heard by discovery."""
    from client.lobby import Lobby

    surface = open_window(title="Starhall — lobby")
    return run(Lobby(surface.get_size(), getattr(args, "address", None), player_name()))


def watch(args: argparse.Namespace) -> int:
    """Spectate a table live (the first table playing when none is named)."""
    from client.lobby import Lobby

    surface = open_window(title="Starhall — watching")
    lobby = Lobby(surface.get_size(), args.address, player_name(),
                  watch_table=getattr(args, "table", None) or "")
    return run(lobby)


def view(args: argparse.Namespace) -> int:
    """Open a recorded game in the replay viewer."""
    from client.replay_screen import ReplayScreen
    from shared.replay import load

    recording = load(args.path)
    recording.state_at()  # an illegal or damaged log is refused before a window opens
    surface = open_window(title=f"Starhall — replay of {os.path.basename(args.path)}")
    return run(ReplayScreen(recording, surface.get_size()))
