"""Entry points of the window client: ``starhall play``, ``join``, ``watch``, ``replay view``.

Each opens a resizable window and runs one loop: read input, let the screen poll the network
and advance its animations, draw, flip. Every function returns the command's exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, Protocol

import pygame

from client.net import ServerLink, checked_address
from client.settings import player_name

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


INVISIBLE_DRIVERS = ("dummy", "offscreen")
"""SDL's video drivers that draw into memory only: tests, screenshots and benchmarks ask for
them by name (``SDL_VIDEODRIVER``); SDL also falls back to them when there is no display."""


class NoDisplay(OSError):
    """There is nothing to open a window on."""


def require_display(instead: str) -> None:
    """Refuse at once, before anything starts, when a window could not be seen: without a
    display SDL quietly draws off screen, and the program would wait for input that never
    comes. ``instead`` says what to do without a window."""
    asked = os.environ.get("SDL_VIDEODRIVER", "").lower()
    if any(driver.strip() in INVISIBLE_DRIVERS for driver in asked.split(",")):
        return
    message = f"no display to open a window on: {instead}"
    desktop = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    if not asked and not desktop and sys.platform not in ("win32", "darwin"):
        raise NoDisplay(message)
    try:
        with _c_stderr_silenced():  # the drivers SDL tries print their own complaints
            pygame.display.init()
    except pygame.error:
        raise NoDisplay(message) from None
    if pygame.display.get_driver() in INVISIBLE_DRIVERS:
        pygame.display.quit()
        raise NoDisplay(message)


@contextlib.contextmanager
def _c_stderr_silenced() -> Iterator[None]:
    """Standard error at the file-descriptor level (where C libraries write) goes nowhere."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no standard error at all: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_window(size: tuple[int, int] = DEFAULT_SIZE, title: str = "Starhall") -> pygame.Surface:
    """The window, resizable. Only the display is started (``pygame.init`` would also open the
    audio device, which the client never uses, and ALSA complains when there is none)."""
    try:
        pygame.display.init()
        pygame.display.set_caption(title)
        return pygame.display.set_mode(size, pygame.RESIZABLE)
    except pygame.error as error:
        raise NoDisplay(f"cannot open a window: {error}") from None


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
    require_display(f"try `starhall play {game.id} --terminal`")
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
    from client.embedded import DEFAULT_DATA
    from server.fork import plan_fork, write_fork

    data = str(getattr(args, "data", None) or DEFAULT_DATA)
    plan = plan_fork(args.path, args.at, args.seat)  # refused before a window opens
    require_display(f"a fork is played in a window (`starhall replay show {args.path} --at "
                    f"{plan.seq}` prints the state it starts from)")
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

    address = getattr(args, "address", None)
    if address:
        checked_address(address)
    require_display("the lobby is a window (for a game in the terminal, try "
                    "`starhall play GAME --terminal`)")
    surface = open_window(title="Starhall — lobby")
    return run(Lobby(surface.get_size(), address, player_name()))


def watch(args: argparse.Namespace) -> int:
    """Spectate a table live (the first table playing when none is named)."""
    from client.lobby import Lobby

    checked_address(args.address)
    require_display("watching is done in a window (for a game in the terminal, try "
                    "`starhall play GAME --terminal`)")
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
    require_display(f"try `starhall replay show {args.path}` for the state in words")
    surface = open_window(title=f"Starhall — replay of {os.path.basename(args.path)}")
    return run(ReplayScreen(recording, surface.get_size()))
