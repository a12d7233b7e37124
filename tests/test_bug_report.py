"""Bug reports from a live table (F9, a line typed, Enter) against a real server on 127.0.0.1,
on real pygame surfaces (SDL's dummy driver), read back by every reader of logs."""

from __future__ import annotations

import errno
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
from starhall.client.net.embedded import EmbeddedServer
from starhall.client.net.link import ServerLink
from starhall.client.screens.hosted import wait_for_welcome
from starhall.client.screens.live import LiveTable
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.server.durability import STORAGE
from starhall.server.embed import EmbeddedServer as RemoteServer
from starhall.shared import protocol
from starhall.shared.bugreport import read_bug_report
from starhall.shared.logfile import BUG_SUFFIX, embedded_log
from starhall.shared.replay import Verified, load, verify
from starhall.shared.seating import public_seat
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    HiddenCards,
    Participant,
    Person,
    address,
    fill_with_bots,
    log_of,
)
from tests.support import step_until

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

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


def _post(live: LiveTable | ReplayScreen, *events: pygame.event.Event) -> None:
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
        wait_for_welcome(link)
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


def test_a_remote_table_report_is_kept_by_the_server_with_its_log(
        surface: pygame.Surface, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At a table of another process's server the client cannot have the log: F9 sends the
    note to the server, which keeps it with the log; the file saved here names where."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "server"
    with RemoteServer(data, think=0.0) as server:  # not this client's own
        assert server.address is not None
        player = LiveTable(ServerLink(server.address, name="Tester"), SIZE)
        wait_for_welcome(player.link)
        player.start_game("stars", 4, {}, "random", "Tester")
        _seated(player, surface)
        assert player.session is not None
        table, token = player.session.table, player.session.token
        assert token
        # A spectator of the same table: the lobby's ``watch`` screen is a LiveTable too.
        watcher = LiveTable(ServerLink(server.address, name="Watcher"), SIZE)
        watcher.watch(table)
        _run_until(watcher, surface, lambda: watcher.table is not None)
        kept: dict[str, Path] = {}
        for who, live in (("player", player), ("watcher", watcher)):
            _post(live, _key(pygame.K_F9), _text(f"{who} saw it"), _key(pygame.K_KP_ENTER))
            assert live.bug_report.saved is None  # sent first
            assert live.bug_report.message is not None
            assert "Sending" in live.bug_report.message[0]
            live.draw(surface)
            _run_until(live, surface, lambda live=live: live.bug_report.saved is not None)
            path = live.bug_report.saved
            assert path is not None and path.parent == tmp_path / "bug-reports"
            body = read_bug_report(path)
            assert body["log"] is None and body["note"] == f"{who} saw it"
            named = body["server_report"]
            assert named["server"] == server.address and named["table"] == table
            assert named["path"].startswith("bug-reports/") and named["report"] in named["path"]
            assert named["path"] in body["log_note"] and server.address in body["log_note"]
            assert body["table"]["server"] == server.address
            kept[who] = data / named["path"]
            # The client's copy keeps what it sent and was told, and nothing of the log.
            answers = [m["message"] for m in body["messages"]
                       if m["message"].get("type") == "reported"]
            assert len(answers) == 1
            assert set(answers[0]) == {"type", "rid", "table", "report", "path", "server"}
        assert read_bug_report(path)["table"]["seat"] is None  # the spectator's

        # The server's copy: the note, who sent it, and the table's log as it was then.
        for who, copy in kept.items():
            body = read_bug_report(copy)
            assert body["note"] == f"{who} saw it" and body["table"]["id"] == table
            assert body["table"]["seat"] == (0 if who == "player" else None)
            assert body["client_versions"]["rules"]["stars"] >= 1
            log = embedded_log(body)
            assert log is not None and body["messages"] == []
            whole = (data / "tables" / f"{table}.starhall").read_bytes()
            assert whole.startswith(log) and load(copy).last_seq >= 3
            assert token.encode() not in copy.read_bytes()
        player.close()
        watcher.close()
    capsys.readouterr()
    assert main(["replay", "verify", str(kept["player"])]) == 0
    assert main(["replay", "verify", str(data / "bug-reports")]) == 0
    assert "2 of 2 log(s) verified" in capsys.readouterr().out
    assert main(["replay", "show", str(kept["watcher"]), "--at", "1"]) == 0
    assert "seat 0: Tester" in capsys.readouterr().out  # the log names who sat where
    # the client's own copy holds no log: not checked here, and nothing wrong with it
    assert main(["replay", "verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "holds no table log" in out and "bug-reports/" in out and "failed" not in out


def test_a_report_the_server_does_not_keep_is_saved_saying_why_and_where_the_log_is(
        surface: pygame.Surface, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with RemoteServer(tmp_path / "server", think=0.0, reports_per_session=0) as server:
        assert server.address is not None
        player = LiveTable(ServerLink(server.address, name="Tester"), SIZE)
        wait_for_welcome(player.link)
        player.start_game("stars", 4, {}, "random", "Tester")
        _seated(player, surface)
        assert player.session is not None
        table = player.session.table
        _post(player, _key(pygame.K_F9), _text("it froze"), _key(pygame.K_RETURN))
        _run_until(player, surface, lambda: player.bug_report.saved is not None)
        path = player.bug_report.saved
        assert path is not None
        body = read_bug_report(path)
        assert body["log"] is None and body["server_report"] is None
        assert "did not keep a copy" in body["log_note"] and "bug reports" in body["log_note"]
        assert f"tables/{table}.starhall" in body["log_note"]
        assert not (tmp_path / "server" / "bug-reports").exists()
        player.close()


# --- the server's side: `report` over the protocol -------------------------------------------

def _report(who: Participant, table: str, note: str | None = "it froze",
            **more: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "report", "table": table, **more}
    if note is not None:
        message["note"] = note
    return who.request(message)


def _hearts(lobby: Participant) -> str:
    reply = lobby.request({"type": "create", "game": "hearts", "players": 4,
                           "options": FAST_HEARTS})
    assert reply["type"] == protocol.CREATED, reply
    table: str = reply["table"]["id"]
    return table


def test_the_server_keeps_the_log_and_tells_the_player_only_where(tmp_path: Path) -> None:
    with RemoteServer(tmp_path, **FAST_SERVER) as server:
        lobby = Participant(address(server))
        table = _hearts(lobby)
        ada = Person(address(server), table, 0, "Ada")
        fill_with_bots(lobby, table)
        for _ in range(200):  # into the game: the exchange, the passes, some tricks
            ada.step()
        reply = _report(ada, table, "the trick went to the wrong seat", seq=ada.feed.seq)
        assert reply["type"] == protocol.REPORTED, reply
        assert set(reply) == {"type", "rid", "table", "report", "path", "server"}
        assert reply["table"] == table and reply["path"] == f"bug-reports/{reply['report']}" \
            f"{BUG_SUFFIX}"
        copy = tmp_path / reply["path"]
        body = read_bug_report(copy)
        assert body["note"] == "the trick went to the wrong seat"
        assert body["table"]["seat"] == 0 and body["table"]["name"] == "Ada"
        assert body["table"]["event_seq"] == ada.feed.seq and body["table"]["id"] == table
        log = embedded_log(body)
        assert log is not None
        assert log_of(server, table).read_bytes().startswith(log)  # as far as it was on disk
        result = verify(copy)
        assert isinstance(result, Verified) and result.events >= ada.feed.seq
        assert public_seat(load(copy).seats_at(1)[0]) == {  # (her owner: a salted hash)
            "state": "player", "name": "Ada", "bot": None, "standin": False}
        # Nothing Ada received showed a card she may not see, the reply included.
        assert HiddenCards(log_of(server, table)).leaks(ada.received, 0, table) == []
        for person in (lobby, ada):
            person.close()


def test_reports_from_strangers_too_long_too_many_or_past_the_limit_are_refused(
        tmp_path: Path) -> None:
    settings = {**FAST_SERVER, "think": 60.0, "reports_per_session": 2, "max_reports": 3}
    with RemoteServer(tmp_path, **settings) as server:
        lobby = Participant(address(server))
        table = _hearts(lobby)
        ada = Person(address(server), table, 0, "Ada")
        stranger = Participant(address(server))
        refused = _report(stranger, table)
        assert refused["code"] == protocol.NOT_SEATED, refused  # not at the table
        assert _report(stranger, "0099")["code"] == protocol.NO_TABLE
        assert stranger.request({"type": "watch", "table": table})["type"] == protocol.WATCHING
        assert _report(stranger, table)["type"] == protocol.REPORTED  # a spectator may
        too_long = _report(ada, table, "x" * (protocol.MAX_NOTE_CHARS + 1))
        assert too_long["code"] == protocol.BAD_FIELD and too_long["field"] == "note"
        assert _report(ada, table, None)["type"] == protocol.REPORTED  # no note: allowed
        assert _report(ada, table)["type"] == protocol.REPORTED
        per_session = _report(ada, table)
        assert per_session["code"] == protocol.TOO_MANY_REPORTS, per_session
        watcher = Participant(address(server))
        watcher.request({"type": "watch", "table": table})
        full = _report(watcher, table)
        assert full["code"] == protocol.TOO_MANY_REPORTS and "3" in full["reason"], full
        for person in (lobby, ada, stranger, watcher):
            person.close()
    folder = tmp_path / "bug-reports"
    assert len(list(folder.iterdir())) == 3
    with RemoteServer(tmp_path, **settings) as server:  # the limit counts what is kept
        watcher = Participant(address(server))
        watcher.request({"type": "watch", "table": table})
        assert _report(watcher, table)["code"] == protocol.TOO_MANY_REPORTS
        watcher.close()


def test_a_report_that_cannot_be_written_leaves_nothing(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bug-reports"
    real_fsync = os.fsync
    failing = [True]

    def fsync(fd: int) -> None:
        if failing[0] and os.readlink(f"/proc/self/fd/{fd}").startswith(str(folder)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with RemoteServer(tmp_path, **{**FAST_SERVER, "think": 60.0}) as server:
        lobby = Participant(address(server))
        table = _hearts(lobby)
        ada = Person(address(server), table, 0, "Ada")
        refused = _report(ada, table)
        assert refused["code"] == STORAGE and "No space left" in refused["reason"], refused
        assert list(folder.iterdir()) == []  # no file, no temporary
        failing[0] = False
        assert _report(ada, table)["type"] == protocol.REPORTED  # the same, with room again
        assert len(list(folder.iterdir())) == 1
        for person in (lobby, ada):
            person.close()


# --- from the replay viewer -------------------------------------------------------------------

GOLDEN_STARS = ROOT / "replays" / "golden" / "stars_4p.starhall"


def _replay_report(viewer: ReplayScreen, surface: pygame.Surface) -> dict[str, Any]:
    """F9 in ``viewer``, while it plays, the note typed and Enter; the report written."""
    viewer.playing = True
    viewer.draw(surface)
    assert viewer.hotspots is not None
    assert any(spot.action == ("bug_report", "open") for spot in viewer.hotspots.spots)
    position = viewer.position
    _post(viewer, _key(pygame.K_F9))
    assert viewer.bug_report.open and not viewer.playing  # the event shown stays shown
    viewer.frame(5.0)
    viewer.draw(surface)  # the box, with its buttons
    # Letters and spaces go to the note, not to the viewer's keys (Space plays, F forks).
    _post(viewer, *(_text(c) for c in NOTE), _key(pygame.K_SPACE),
          _key(pygame.K_f), _key(pygame.K_RETURN))
    assert not viewer.bug_report.open and not viewer.playing and viewer.forked is None
    assert viewer.position == position and not viewer.done
    path = viewer.bug_report.saved
    assert path is not None and path.is_absolute()
    assert viewer.bug_report.message is not None and str(path) in viewer.bug_report.message[1]
    viewer.draw(surface)  # the screen says where it went
    return read_bug_report(path) | {"path": path}


def test_f9_in_the_replay_viewer_saves_the_log_and_the_event_shown(
        surface: pygame.Surface, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "stars.starhall"
    shutil.copyfile(GOLDEN_STARS, source)
    data = tmp_path / "replays"
    viewer = ReplayScreen(load(source), SIZE, data=str(data))
    viewer.seek(40)
    for _ in range(3):  # everything, a spectator, seat 0, seat 1
        viewer.next_viewer()
    assert viewer.viewer == 1
    body = _replay_report(viewer, surface)
    path = body["path"]
    assert path.parent == (data / "bug-reports").absolute()
    assert path.name.startswith("bug-stars-") and path.name.endswith(BUG_SUFFIX)
    assert body["note"] == NOTE and body["messages"] == []
    table = body["table"]
    assert table["event_seq"] == viewer.states[40][0] == 40 and table["game"] == "stars"
    assert table["seat"] == 1 and table["server"] is None
    assert table["replay"] == {"file": str(source), "seeing": 1}
    assert embedded_log(body) == source.read_bytes()  # the log replayed, byte for byte
    assert isinstance(verify(path), Verified)
    assert f"bug report saved to {path}" in capsys.readouterr().err

    # A report of a replayed report holds the log it held, and says whose eyes saw it.
    again = ReplayScreen(load(path), SIZE, data=str(data))
    again.seek(12)
    again_body = _replay_report(again, surface)
    assert embedded_log(again_body) == source.read_bytes()
    assert again_body["table"]["event_seq"] == 12 and again_body["table"]["seat"] is None
    assert again_body["table"]["replay"] == {"file": str(path), "seeing": "all"}


def test_a_replay_report_that_cannot_be_written_says_why(surface: pygame.Surface,
                                                        tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the data folder would go")
    viewer = ReplayScreen(load(GOLDEN_STARS), SIZE, data=str(blocker))
    _post(viewer, _key(pygame.K_F9), _text("it froze"), _key(pygame.K_RETURN))
    assert viewer.bug_report.saved is None and not viewer.bug_report.open
    message = viewer.bug_report.message
    assert message is not None and message[0] == "Could not save the bug report"
    assert "Not a directory" in message[1]
    viewer.draw(surface)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_verify_of_a_lan_players_own_copy_says_the_log_is_elsewhere_and_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A LAN client's report holds no log (the server keeps it): nothing is wrong with it."""
    import json

    from starhall.shared.bugreport import make_bug_report, write_bug_report

    note = "the server at tcp://127.0.0.1:1 (lan) keeps this report with the table's log"
    path = write_bug_report(tmp_path / f"bug{BUG_SUFFIX}", make_bug_report(
        "odd trick", {"id": "0001", "server": "tcp://127.0.0.1:1"}, None, note, [], 0.0))
    assert main(["replay", "verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"not checked here {path}: this bug report holds no table log ({note})" in out
    assert "failed" not in out and "1 bug report(s) without their log" in out
    assert main(["replay", "verify", "--json", str(path)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["failed"], answer["not_checked"]) == (0, 1)
    assert answer["logs"][0]["problem"] == "no_log"
