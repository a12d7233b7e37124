"""Entry points of the window client: ``starhall play``, ``join``, ``watch``, ``replay view``.

Each opens a resizable window and runs one loop: read input, let the screen poll the network
and advance its animations, and draw, but only when something changed or moves: an idle
window sleeps on the server's socket (or for a moment) instead of redrawing the same picture
sixty times a second. Every function returns the command's exit code: 0, or 128 plus the
number of the signal that ended it (``ended_by_signals``).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import pygame

from starhall.client.net.link import checked_address
from starhall.client.ui.quiet import c_stderr_silenced
from starhall.client.user.settings import player_name
from starhall.shared.curve import key_from_text

DEFAULT_SIZE = (1280, 720)
FPS = 60
IDLE_WAIT = 1 / 30
"""The longest an idle window sleeps before it looks at its input again (a message from the
server wakes it at once)."""


class Screen(Protocol):
    """What ``run`` drives. A screen may also have ``redraw_after() -> float | None`` (seconds
    after its last drawing when it must be drawn again though no input came: 0 when it changed
    or moves, ``None`` when it looks the same until something happens; without it, every
    frame is drawn), ``wait(timeout)`` (sleep until its server says something) and
    ``quit_requested() -> bool`` (the window is being closed: ``False`` when it asks first)."""

    @property
    def done(self) -> bool: ...  # read only: a plain attribute or a property

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
        with c_stderr_silenced():  # the drivers SDL tries print their own complaints
            _init_display()
    except pygame.error:
        raise NoDisplay(message) from None
    if pygame.display.get_driver() in INVISIBLE_DRIVERS:
        pygame.display.quit()
        raise NoDisplay(message)


def _init_display() -> None:
    """Start SDL's display, telling SDL to leave the signals alone: it would make SIGINT and
    SIGTERM a click on the window's close button, which a table answers with a question, so
    that ``kill``, ``timeout`` or a service manager could not end the program
    (``ended_by_signals`` takes them)."""
    os.environ["SDL_NO_SIGNAL_HANDLERS"] = "1"  # read when SDL starts, by every part of it
    pygame.display.init()


def open_window(size: tuple[int, int] = DEFAULT_SIZE, title: str = "Starhall") -> pygame.Surface:
    """The window, resizable. Only the display is started (``pygame.init`` would also open the
    audio device, which the client never uses, and ALSA complains when there is none)."""
    try:
        _init_display()
        pygame.display.set_caption(title)
        return pygame.display.set_mode(size, pygame.RESIZABLE)
    except pygame.error as error:
        raise NoDisplay(f"cannot open a window: {error}") from None


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))
"""Ctrl+C; ``kill``, ``timeout`` or a service manager; the terminal or the session closing."""
_stopped_by: list[int] = []
"""The stop signals received while ``ended_by_signals`` lasts."""


@contextlib.contextmanager
def ended_by_signals() -> Iterator[None]:
    """While it lasts, a stop signal ends ``run``'s loop at its next turn, and ``run`` returns
    128 plus the signal's number. The screen is closed as when the window is closed, without
    the question: a seat at a server stays the user's, and an embedded server stops and
    closes its logs. A signal that comes before the loop starts ends it at its first turn;
    the handler only notes it, so that nothing is cut off halfway (least of all the closing).

    SIGHUP or SIGTERM ignored when the program started (``nohup``) were asked to be, and stay
    ignored; SIGINT is taken even then, since a shell without job control ignores it in what
    it starts in the background, and the window could not be stopped with ``kill -INT``."""

    def stop(signum: int, frame: object) -> None:
        _stopped_by.append(signum)

    _stopped_by.clear()
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    for number, handler in previous.items():
        if handler != signal.SIG_IGN or number == signal.SIGINT:
            signal.signal(number, stop)
    try:
        yield
    finally:
        for number, handler in previous.items():
            # None: a handler set outside Python, which cannot be set back
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        _stopped_by.clear()  # a later loop in this process is not ended by it


def run_in_window(title: str, make: Callable[[tuple[int, int]], Screen]) -> int:
    """Open the window, make the screen for its size and ``run`` it, ended by signals."""
    with ended_by_signals():
        surface = open_window(title=title)
        return run(make(surface.get_size()))


def run(screen: Screen, frames: int | None = None) -> int:
    """The loop; ``frames`` stops it after that many turns (for tests and screenshots). A turn
    draws only when an input event came or the screen's ``redraw_after`` says so, at most
    ``FPS`` times a second; otherwise it sleeps up to ``IDLE_WAIT``."""
    surface = _window()
    clock = pygame.time.Clock()
    count = 0
    last = time.monotonic()
    drawn_at = -math.inf
    dirty = True
    try:
        while not screen.done:
            if _stopped_by:
                return 128 + _stopped_by[0]
            for event in pygame.event.get():
                dirty = True  # input, a resize, the window shown again: draw it
                if event.type == pygame.QUIT:
                    if _quit_now(screen):
                        return 0
                    continue
                if event.type == pygame.VIDEORESIZE:
                    surface = _window()
                    screen.resize(surface.get_size())
                    continue
                screen.handle(event)
            now = time.monotonic()
            screen.frame(min(now - last, 0.1))
            last = now
            if screen.done:
                break
            due = _redraw_after(screen)
            since = now - drawn_at
            if dirty or (due is not None and since >= due):
                screen.draw(surface)
                pygame.display.flip()
                drawn_at, dirty = time.monotonic(), False
                clock.tick(FPS)  # no more than FPS pictures a second
            else:
                _sleep(screen, IDLE_WAIT if due is None else min(IDLE_WAIT, due - since))
            count += 1
            if frames is not None and count >= frames:
                break
        return 0
    finally:
        screen.close()


def _window() -> pygame.Surface:
    surface = pygame.display.get_surface()
    if surface is None:  # the screen is drawn into the window open_window opened
        raise NoDisplay("no window is open to draw in")
    return surface


def _redraw_after(screen: Screen) -> float | None:
    asked = getattr(screen, "redraw_after", None)
    if asked is None:
        return 0.0
    after: float | None = asked()
    return after


def _sleep(screen: Screen, seconds: float) -> None:
    wait = getattr(screen, "wait", None)
    if wait is not None:
        wait(max(0.0, seconds))
    elif seconds > 0:
        time.sleep(seconds)


def _quit_now(screen: Screen) -> bool:
    """The window's close button: ends the program unless the screen asks first."""
    asked = getattr(screen, "quit_requested", None)
    return True if asked is None else bool(asked())


def play(args: argparse.Namespace) -> int:
    """Start a server on loopback and sit the user at a new table against bots (or, with
    ``--resume``, back at a game left unfinished)."""
    from starhall.client.screens.hosted import HostedTable
    from starhall.client.screens.replay_screen import open_over_table
    from starhall.shared.games import get_game

    if getattr(args, "resume", None) is not None:
        return resume(args)
    game = get_game(args.game)
    players = args.players or min(game.max_players, max(game.min_players, 4))
    options: dict[str, Any] = dict(getattr(args, "options", None) or {})
    game.make_options(players, options)  # a bad option is reported before a window opens
    require_display(f"try `starhall play {game.id} --terminal`")
    root = getattr(args, "data", None)
    return run_in_window(f"Starhall — {game.title}", lambda size: HostedTable.new(
        game.id, players, options, size, Path(root) if root else None, open_replay=open_over_table,
        bot=getattr(args, "bot_kind", None), think=getattr(args, "think", None)))


def resume(args: argparse.Namespace) -> int:
    """``starhall play --resume [NAME]``: sit back at the latest game left unfinished, or the
    one ``NAME`` picks (a game's id, a table or a FOLDER/TABLE as listed); the others are
    listed."""
    from starhall.client.net.embedded import unfinished_tables
    from starhall.client.screens.hosted import HostedTable
    from starhall.client.screens.replay_screen import open_over_table

    if getattr(args, "terminal", False):
        raise ValueError("--resume sits you back at a game in a window; leave out --terminal")
    if args.players or getattr(args, "option", None) or getattr(args, "deal", None) is not None:
        raise ValueError("--resume goes back to a game as it was left: leave out --players, "
                         "--option and --deal")
    root = getattr(args, "data", None)
    found = unfinished_tables(Path(root) if root else None, busy=True)
    wanted = str(args.resume or "")
    chosen = [entry for entry in found if not wanted or wanted in (
        entry.key, entry.table, entry.seat.game)]
    free = [entry for entry in chosen if not entry.busy]
    if not found:
        raise ValueError("no unfinished game to resume (start one with `starhall play`)")
    if not chosen:
        raise ValueError(f"no unfinished game {wanted!r}: "
                         + "; ".join(entry.key for entry in found)
                         + " (see them with `starhall play --resume`)")
    if not free:
        raise ValueError(f"{chosen[0].describe()}: leave it in that window first")
    entry = free[0]
    require_display("a game is resumed in a window")
    print(f"Resuming {entry.describe()}")
    others = [other for other in found if other is not entry]
    if others:
        print("Also unfinished (`starhall play --resume FOLDER/TABLE` resumes one):")
        for other in others:
            print(f"  {other.describe()}")
    sys.stdout.flush()
    return run_in_window(f"Starhall — {entry.title}",
                         lambda size: HostedTable.resume(entry, size, open_replay=open_over_table))


def fork(args: argparse.Namespace) -> int:
    """``starhall replay fork``: a live table in the state after one event of a recorded game,
    the user in one seat and bots in the others."""
    from starhall.client.net.embedded import DEFAULT_DATA, plan_fork, write_fork
    from starhall.client.screens.hosted import ForkedTable
    from starhall.client.screens.replay_screen import open_over_table

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
    return run_in_window(f"Starhall — {forked.name}",
                         lambda size: ForkedTable(forked, data, size, open_replay=open_over_table))


def join(args: argparse.Namespace) -> int:
    """The lobby of a LAN server: given, or picked from those heard by discovery."""
    from starhall.client.screens.lobby import Lobby

    address = getattr(args, "address", None)
    if address:
        checked_address(address)
    key = given_key(args, address)
    require_display("the lobby is a window (for a game in the terminal, try "
                    "`starhall play GAME --terminal`)")
    return run_in_window("Starhall — lobby", lambda size: Lobby(size, address, player_name(),
                                                                server_key=key))


def given_key(args: argparse.Namespace, address: str | None) -> bytes | None:
    """``--server-key``, read; a ``ValueError`` for a bad one or one without an address."""
    text = getattr(args, "server_key", None)
    if text is None:
        return None
    if not address:
        raise ValueError("--server-key needs the server's address too (ADDR)")
    return key_from_text(text)


def watch(args: argparse.Namespace) -> int:
    """Spectate a table live (the first table playing when none is named)."""
    from starhall.client.screens.lobby import Lobby

    checked_address(args.address)
    key = given_key(args, args.address)
    require_display("watching is done in a window (for a game in the terminal, try "
                    "`starhall play GAME --terminal`)")
    table = getattr(args, "table", None) or ""
    return run_in_window("Starhall — watching", lambda size: Lobby(
        size, args.address, player_name(), watch_table=table, server_key=key))


def view(args: argparse.Namespace) -> int:
    """Open a recorded game in the replay viewer."""
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.replay import load

    recording = load(args.path)
    recording.state_at()  # an illegal or damaged log is refused before a window opens
    require_display(f"try `starhall replay show {args.path}` for the state in words")
    return run_in_window(f"Starhall — replay of {os.path.basename(args.path)}",
                         lambda size: ReplayScreen(recording, size))
