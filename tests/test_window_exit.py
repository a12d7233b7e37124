"""How a window command ends: a signal (Ctrl+C, ``kill``, ``timeout``, a closed terminal) ends
it at once, and the close button of a replay closes it. The signals are sent with ``os.kill``
to real ``starhall`` processes drawing with SDL's dummy driver."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.client import app
from starhall.client.net.embedded import FolderLock, unfinished_tables
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.server.embed import EmbeddedServer
from starhall.shared.replay import Verified, load, verify
from tests.server_helpers import FAST_SERVER, address, wait_for

pytestmark = [pytest.mark.slow,  # `make check` leaves this file out; `make test` runs it
              pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                 reason="a process's signal handlers are read from /proc")]

ROOT = Path(__file__).resolve().parent.parent
STARS = ROOT / "replays" / "golden" / "stars_4p.starhall"
INSTALLED = Path(sys.executable).with_name("starhall")
STARHALL = [str(INSTALLED)] if INSTALLED.exists() else [sys.executable, "-m", "starhall"]
WAIT = 120
"""Seconds a process may take to start or to end before it counts as hung (a guard, not a
measurement)."""


@pytest.fixture(autouse=True)
def _headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


def _signals(pid: int, field: str) -> set[int]:
    """The signals a process catches (``SigCgt``) or ignores (``SigIgn``), from /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # it has already ended
        return set()
    (line,) = [line for line in status.splitlines() if line.startswith(f"{field}:")]
    mask = int(line.split()[1], 16)
    return {number for number in range(1, 65) if mask >> (number - 1) & 1}


def _start(args: list[str], cwd: Path, shell_trap: str = "") -> subprocess.Popen[str]:
    """``starhall ARGS``, once its window is up: it handles SIGTERM by then (before the window
    nothing but Python's own SIGINT is handled). ``shell_trap`` names signals a shell ignores
    in what it starts (``trap '' INT``), as for a command started in the background."""
    command = [*STARHALL, *args]
    if shell_trap:
        command = ["sh", "-c", f"trap '' {shell_trap}; exec \"$@\"", "sh", *command]
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: signal.SIGTERM in _signals(process.pid, "SigCgt")
                 or process.poll() is not None, timeout=WAIT)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    assert process.poll() is None, process.communicate()
    return process


def _ended(process: subprocess.Popen[str], number: int) -> None:
    """Send ``number``; the process must end by itself, cleanly, saying nothing."""
    os.kill(process.pid, number)
    try:
        out, err = process.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"still running after signal {number}: {err[-2000:]}") from None
    assert "Traceback" not in out + err
    assert (process.returncode, err) == (128 + number, ""), out + err


STOP = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}


@pytest.mark.parametrize("number", STOP, ids=NAMES.get)
def test_a_signal_ends_the_replay_viewer(number: int, tmp_path: Path) -> None:
    _ended(_start(["replay", "view", str(STARS)], tmp_path), number)


@pytest.mark.parametrize("number", STOP, ids=NAMES.get)
def test_a_signal_ends_play_and_its_server_keeps_the_seat_and_a_whole_log(
        number: int, tmp_path: Path) -> None:
    data = Path(os.environ["STARHALL_DATA_DIR"])
    process = _start(["play", "stars"], tmp_path)
    # Seated: the seat is written down once the table's first view came, in the loop.
    seats = wait_for(lambda: list((data / "games").glob("*/seats.json")), timeout=WAIT)
    _ended(process, number)
    (folder,) = [path.parent for path in seats]
    assert not FolderLock.held(folder)  # the server stopped and let its folder go
    (entry,) = unfinished_tables(data)  # the seat is kept: `starhall play --resume` finds it
    assert entry.folder == folder and entry.seat.seat == 0 and entry.seat.token
    log = folder / "tables" / f"{entry.table}.starhall"
    recording = load(log)
    assert not recording.torn and recording.good_length == log.stat().st_size
    assert isinstance(verify(log), Verified)


def test_a_signal_ends_a_fork_and_its_server_closes_its_log(tmp_path: Path) -> None:
    data = tmp_path / "data"
    process = _start(["replay", "fork", str(STARS), "--at", "40", "--data", str(data)],
                     tmp_path)
    _ended(process, signal.SIGTERM)
    (log,) = (data / "tables").glob("*.starhall")
    recording = load(log)
    assert recording.last_seq >= 40 and not recording.torn
    assert recording.good_length == log.stat().st_size
    assert isinstance(verify(log), Verified)


@pytest.fixture
def lan_server(tmp_path: Path) -> Iterator[str]:
    with EmbeddedServer(tmp_path / "server", **FAST_SERVER) as server:
        yield address(server)


def test_a_signal_ends_the_lobby(lan_server: str, tmp_path: Path) -> None:
    _ended(_start(["join", lan_server], tmp_path), signal.SIGHUP)


def test_a_signal_ends_watching(lan_server: str, tmp_path: Path) -> None:
    _ended(_start(["watch", lan_server], tmp_path), signal.SIGINT)


def test_sigint_ends_a_window_started_with_it_ignored(tmp_path: Path) -> None:
    """A shell without job control starts its background commands with SIGINT ignored:
    ``kill -INT`` must still end the window."""
    process = _start(["replay", "view", str(STARS)], tmp_path, shell_trap="INT")
    _ended(process, signal.SIGINT)


def test_nohup_keeps_sighup_ignored(tmp_path: Path) -> None:
    """SIGHUP ignored on purpose (``nohup``) stays ignored; SIGTERM still ends the window."""
    process = _start(["replay", "view", str(STARS)], tmp_path, shell_trap="HUP")
    assert signal.SIGHUP in _signals(process.pid, "SigIgn")
    assert signal.SIGHUP not in _signals(process.pid, "SigCgt")
    _ended(process, signal.SIGTERM)


def test_a_signal_before_the_loop_ends_it_at_its_first_turn(surface: pygame.Surface) -> None:
    """In process: the handler only notes the signal, and the loop ends, closing the screen."""
    viewer = ReplayScreen(load(STARS), surface.get_size())
    closed: list[bool] = []
    viewer.close = lambda: closed.append(True)  # type: ignore[method-assign]
    before = signal.getsignal(signal.SIGTERM)
    with app.ended_by_signals():
        os.kill(os.getpid(), signal.SIGTERM)
        assert app.run(viewer, frames=1000) == 128 + signal.SIGTERM
    assert closed == [True] and not viewer.done
    assert signal.getsignal(signal.SIGTERM) == before  # set back as it was


def test_closing_the_replay_window_closes_it_without_asking(surface: pygame.Surface) -> None:
    viewer = ReplayScreen(load(STARS), surface.get_size())
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.run(viewer, frames=1000) == 0
    assert viewer.done and viewer.quitting and viewer.table.question is None
    # Esc still asks first: it also closes what is open, and one too many would end it.
    viewer = ReplayScreen(load(STARS), surface.get_size())
    viewer.seek(40)  # mid-game: no game-over box for Esc to close first
    viewer.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0))
    assert viewer.table.question is not None and not viewer.done


def test_the_replay_viewers_leave_button_closes_it_without_asking(
        surface: pygame.Surface) -> None:
    viewer = ReplayScreen(load(STARS), surface.get_size())
    viewer.seek(40)
    viewer.draw(surface)
    (leave,) = [spot for spot in viewer.hotspots.spots
                if spot.action[-1:] == ("leave",) and spot.enabled]
    viewer.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=leave.rect.center, button=1))
    viewer.frame(0.1)
    assert viewer.done and viewer.table.question is None  # a replay loses nothing
