"""Bug reports from a live table (F9, a line typed, Enter) against a real server on 127.0.0.1,
on real pygame surfaces (SDL's dummy driver), read back by every reader of logs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

import starhall.client.screens.bug_report as bug_report
from starhall.cli import main
from starhall.client.app import _wait_for_welcome
from starhall.client.net.embedded import EmbeddedServer
from starhall.client.net.link import ServerLink
from starhall.client.screens.live import LiveTable
from starhall.server.embed import EmbeddedServer as RemoteServer
from starhall.shared.bugreport import BUG_SUFFIX, embedded_log, read_bug_report
from starhall.shared.replay import Verified, load, verify
from tests.support import step_until

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)
NOTE = "Bruno took a trick he had lost"



def _run_until(live: LiveTable, surface: pygame.Surface, done: Any) -> None:
    def frame() -> None:
        live.frame(0.5)  # long frames: animations finish at once
        live.draw(surface)

    step_until(frame, done, frames=10_000)


def _seated(live: LiveTable, surface: pygame.Surface) -> None:
    """Wait for the table, make one move when it is the user's turn, and wait for its ack."""
    _run_until(live, surface, lambda: live.table is not None and live.session is not None
               and live.session.event_seq >= 3 and bool(live.table.model.legal))
    assert live.table is not None and live.session is not None
    legal = live.table.model.legal
    if "play" in legal:
        live.table.command("play", {"card": legal["play"][0]})
    elif legal.get("pass") is True:
        live.table.command("pass", {})
    else:
        live.table.command("bid", {"amount": int(legal["bid"]["min"])})
    session = live.session
    _run_until(live, surface, lambda: not session._acts)


def _post(live: LiveTable, *events: pygame.event.Event) -> None:
    """Through pygame's real event queue, as the window loop hands them over."""
    pygame.event.clear()
    for event in events:
        pygame.event.post(event)
    for event in pygame.event.get():
        live.handle(event)


def _key(key: int) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0)


def _text(text: str) -> pygame.event.Event:
    return pygame.event.Event(pygame.TEXTINPUT, text=text)


@pytest.fixture()
def played(surface: pygame.Surface, tmp_path: Path) -> Iterator[tuple[LiveTable, Path]]:
    """A table of Stars on the embedded server (as ``starhall play``), the user seated."""
    data = tmp_path / "data"
    with EmbeddedServer(data, think=0.0) as server:
        link = ServerLink(server.address, name="Tester")
        live = LiveTable(link, SIZE)
        _wait_for_welcome(link)
        live.start_game("stars", 4, {}, "random", "Tester")
        _seated(live, surface)
        yield live, data
        live.close()


def test_f9_a_note_and_enter_write_a_report_every_reader_takes(
        played: tuple[LiveTable, Path], surface: pygame.Surface, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    live, data = played
    assert live.session is not None and live.table is not None
    token = live.session.token
    assert token
    _post(live, _key(pygame.K_F9))
    assert live.bug_report.open
    # Letters typed go to the note, not to the table's shortcuts (S opens the score sheet).
    _post(live, _key(pygame.K_s), *(_text(c) for c in NOTE + "x"), _key(pygame.K_BACKSPACE))
    assert live.bug_report.note == NOTE and live.table.ui.overlay is None
    live.draw(surface)  # the box is drawn, with its buttons
    assert live.hotspots is not None
    assert any(spot.action == ("bug_report", "save") for spot in live.hotspots.spots)
    _post(live, _key(pygame.K_RETURN))
    assert not live.bug_report.open and not live.done
    path = live.bug_report.saved
    assert path is not None and path.is_absolute() and path.exists()
    assert path.parent == (data / "bug-reports").absolute()
    assert path.name.startswith(f"bug-{live.session.table}-") and path.name.endswith(BUG_SUFFIX)
    assert live.bug_report.message is not None and str(path) in live.bug_report.message[1]
    live.draw(surface)  # the screen says where it went
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left

    raw = path.read_bytes()
    assert token.encode() not in raw  # never the seat's token in clear
    body = read_bug_report(path)
    assert body["note"] == NOTE
    versions = body["versions"]
    for key in ("starhall", "rules", "python", "pygame-ce", "pyzmq", "os"):
        assert versions[key], key
    assert set(versions["rules"]) >= {"stars", "hearts"}
    assert body["table"]["id"] == live.session.table and body["table"]["seat"] == 0
    assert body["table"]["game"] == "stars" and body["table"]["server"] == live.link.address
    messages = body["messages"]
    assert {m["direction"] for m in messages} == {"sent", "received"}
    times = [m["time"] for m in messages]
    assert all(isinstance(t, float) for t in times)
    assert times == sorted(times)  # in the order they were sent and received
    kinds = {(m["direction"], m["message"]["type"]) for m in messages}
    assert {("sent", "hello"), ("sent", "create"), ("sent", "act"), ("received", "welcome"),
            ("received", "seated"), ("received", "update")} <= kinds
    tokens = [m["message"]["token"] for m in messages if "token" in m["message"]]
    assert tokens and set(tokens) == {"<token>"}

    # The log it holds is the table's, byte for byte, and verifies alone and inside the report.
    log = embedded_log(body)
    assert log is not None and body["log_note"] == ""
    assert log == (data / "tables" / f"{live.session.table}.starhall").read_bytes()[: len(log)]
    alone = tmp_path / "alone.starhall"
    alone.write_bytes(log)
    assert isinstance(verify(alone), Verified)
    result = verify(path)
    assert isinstance(result, Verified) and result.events >= 3

    # Every reader takes the report where it takes a log.
    capsys.readouterr()
    assert main(["replay", "verify", str(path)]) == 0
    assert "1 of 1 log(s) verified" in capsys.readouterr().out
    last = load(path).last_seq
    assert main(["replay", "show", str(path), "--at", str(last), "--seat", "all"]) == 0
    assert main(["replay", "show", str(path), "--json"]) == 0
    assert main(["replay", "diff", str(path), str(alone)]) == 0
    from starhall.client import app

    real_run = app.run
    monkeypatch.setattr(app, "run", lambda screen, frames=None: real_run(screen, frames=3))
    assert main(["replay", "view", str(path)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    # … and the installed command, in its own process.
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "starhall"), "replay", "verify",
                           str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = subprocess.run([str(ROOT / ".venv" / "bin" / "starhall"), "replay", "show",
                            str(path), "--at", "1", "--seat", "all"],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stdout + shown.stderr


def test_the_button_opens_the_box_and_esc_only_closes_it(
        played: tuple[LiveTable, Path], surface: pygame.Surface) -> None:
    live, data = played
    live.draw(surface)
    assert live.hotspots is not None
    (rect,) = [s.rect for s in live.hotspots.spots if s.action == ("bug_report", "open")]
    _post(live, pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1))
    assert live.bug_report.open
    _post(live, _text("never mind"), _key(pygame.K_ESCAPE))
    assert not live.bug_report.open
    assert not live.done and live.table is not None and not live.table.leaving
    assert not (data / "bug-reports").exists()
    _post(live, _key(pygame.K_F9))  # again, and Cancel does the same
    live.draw(surface)
    (cancel,) = [s.rect for s in live.hotspots.spots if s.action == ("bug_report", "cancel")]
    _post(live, pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=cancel.center, button=1))
    assert not live.bug_report.open and not live.done
    _post(live, _key(pygame.K_ESCAPE))  # with the box closed, Esc asks to leave the table
    assert live.table.question is not None and not live.bug_report.open
    _post(live, _key(pygame.K_l))
    live.frame(0.01)
    assert live.done


def test_a_place_that_cannot_be_written_says_why_and_leaves_no_file(
        played: tuple[LiveTable, Path], surface: pygame.Surface, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    live, _ = played
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the folder would go")
    monkeypatch.setattr(bug_report, "report_folder", lambda address: blocker / "bug-reports")
    _post(live, _key(pygame.K_F9), _text("it froze"), _key(pygame.K_RETURN))
    assert live.bug_report.saved is None and not live.bug_report.open
    message = live.bug_report.message
    assert message is not None and message[0] == "Could not save the bug report"
    assert "Not a directory" in message[1] and "\n" not in message[1]
    live.draw(surface)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker", "data"]
    live.frame(bug_report.SHOW_SECONDS + 0.1)  # the line goes after a few seconds
    assert live.bug_report.message is None


READ_ONLY = """
import os, sys
os.environ["SDL_VIDEODRIVER"] = os.environ["SDL_AUDIODRIVER"] = "dummy"
from pathlib import Path
import pygame
pygame.init()
pygame.display.set_mode((200, 100))
from starhall.client.screens.bug_report import BugReportBox
from starhall.shared.bugreport import make_bug_report, write_bug_report
folder = Path(sys.argv[1])
box = BugReportBox(lambda note: write_bug_report(
    folder / "bug-0001-20250101-000000.starhall-bug",
    make_bug_report(note, {"id": "0001"}, None, "remote", [], 0.0)))
box.start()
box.note = "it froze"
box.submit()
print(box.message[0])
print(box.message[1])
"""


def test_a_read_only_folder_says_why_and_leaves_no_file() -> None:
    with tempfile.TemporaryDirectory() as top:
        Path(top).chmod(0o755)
        folder = Path(top) / "bug-reports"
        folder.mkdir()
        folder.chmod(0o555)
        command = [sys.executable, "-c", READ_ONLY, str(folder)]
        if os.geteuid() == 0:  # root writes anywhere, unless it gives up that capability
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv: no folder is read-only")
            command[:0] = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
                           "--inh-caps=-all"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        left = list(folder.iterdir())
    assert done.returncode == 0, done.stderr
    heading, reason = done.stdout.splitlines()[:2]
    assert heading == "Could not save the bug report"
    assert reason.startswith("Permission denied") and str(folder) in reason
    assert "could not save the bug report: Permission denied" in done.stderr
    assert left == []


def test_a_remote_table_report_names_the_server_holding_its_log(
        surface: pygame.Surface, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with RemoteServer(tmp_path / "server", think=0.0) as server:  # not this client's own
        assert server.address is not None
        player = LiveTable(ServerLink(server.address, name="Tester"), SIZE)
        _wait_for_welcome(player.link)
        player.start_game("stars", 4, {}, "random", "Tester")
        _seated(player, surface)
        assert player.session is not None
        table = player.session.table
        # A spectator of the same table: the lobby's ``watch`` screen is a LiveTable too.
        watcher = LiveTable(ServerLink(server.address, name="Watcher"), SIZE)
        watcher.watch(table)
        _run_until(watcher, surface, lambda: watcher.table is not None)
        for live in (player, watcher):
            _post(live, _key(pygame.K_F9), _text("remote"), _key(pygame.K_KP_ENTER))
            path = live.bug_report.saved
            assert path is not None and path.parent == tmp_path / "bug-reports"
            body = read_bug_report(path)
            assert body["log"] is None
            assert server.address in body["log_note"] and table in body["log_note"]
            assert body["table"]["server"] == server.address
            assert {m["direction"] for m in body["messages"]} == {"sent", "received"}
            live.close()
        assert path is not None and read_bug_report(path)["table"]["seat"] is None  # spectator
        capsys.readouterr()
        assert main(["replay", "verify", str(path)]) == 1
        out = capsys.readouterr().out
        assert "holds no table log" in out and server.address in out
