"""``starhall replay fork`` and the viewer's "Play from here": a live table (a real embedded
server on loopback, real files, real pygame surfaces under SDL's dummy driver) in the state after
an event of a recorded game, whose new log verifies on its own."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.cli import main
from starhall.client import app
from starhall.client.screens.hosted import start_fork
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.server.fork import ForkError, plan_fork, write_fork
from starhall.shared import protocol
from starhall.shared.bugreport import make_bug_report, write_bug_report
from starhall.shared.logfile import encode_record, read_records
from starhall.shared.replay import load, verify
from starhall.shared.seating import free_seats
from tests.support import step_until

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "replays" / "golden"
STARS = GOLDEN / "stars_4p.starhall"
HEARTS = GOLDEN / "hearts_4p_mode-exchange.starhall"
SIZE = (1280, 720)


def _check_fork_log(path: Path, source: Path, seq: int, source_bytes: bytes | None = None) -> None:
    """The fork's log verifies alone, starts with the source's events (and checkpoints) and
    names the source in its header."""
    result = verify(path)
    assert result.__class__.__name__ == "Verified", result
    fork, original = load(path), load(source)
    assert fork.events[:seq] == original.events[:seq]
    assert {s: c.hash for s, c in fork.checkpoints.items() if s <= seq} == {
        s: c.hash for s, c in original.checkpoints.items() if s <= seq}
    data = source_bytes if source_bytes is not None else source.read_bytes()
    assert fork.header["forked_from"] == {"log": source.name, "seq": seq,
                                          "sha256": hashlib.sha256(data).hexdigest()}
    assert fork.header["game"] == original.header["game"]
    assert fork.header["options"] == original.header["options"]
    for at in range(seq):  # the copied events are named after those who made them
        assert fork.seats_at(at) == original.seats_at(at)
    assert "Fork of" in fork.header["name"] and str(seq) in fork.header["name"]


@pytest.mark.parametrize("source", [STARS, HEARTS], ids=lambda p: p.stem)
def test_fork_of_a_golden_verifies_and_names_its_source(source: Path, tmp_path: Path) -> None:
    recording = load(source)
    for at in (0, 1, recording.last_seq // 2, recording.last_seq - 1):
        forked = write_fork(plan_fork(source, at, seat=1), tmp_path)
        assert forked.path.parent == tmp_path / "tables" and forked.seq == at
        assert not forked.path.with_name(f"{forked.table_id}.seats.json").exists()
        assert len(load(forked.path).events) == at
        _check_fork_log(forked.path, source, at)
        # … then its cast leaves: every seat is free (the log is where a server reads it).
        assert load(forked.path).seats_at() == free_seats(recording.players)
    # Each fork got its own table id, as a server would give them.
    assert len(list((tmp_path / "tables").glob("*.starhall"))) == 4


def test_fork_of_a_bug_report_hashes_the_log_it_holds(tmp_path: Path) -> None:
    log = STARS.read_bytes()
    report = write_bug_report(tmp_path / "seen.starhall-bug", make_bug_report(
        "the Star went to the wrong seat", {"id": "0007"}, log, "", [], time.time()))
    forked = write_fork(plan_fork(report, 30, seat=3), tmp_path / "data")
    result = verify(forked.path)
    assert result.__class__.__name__ == "Verified"
    header = load(forked.path).header
    assert header["forked_from"] == {"log": "seen.starhall-bug", "seq": 30,
                                     "sha256": hashlib.sha256(log).hexdigest()}
    assert load(forked.path).events == load(STARS).events[:30]
    assert header["name"] == forked.name == "Fork of seen at event 30"


def test_a_fork_before_a_broken_event_works_and_one_after_it_is_refused(tmp_path: Path) -> None:
    """A log that breaks the rules at event 30 can still be forked before it: a way to try
    the move that went wrong again."""
    data = STARS.read_bytes()
    records, _ = read_records(data, STARS)
    body = records[1 + 30 - 1][1]
    assert body["kind"] == "event" and body["seq"] == 30 and body["type"] == "played"
    # The card played at event 30 replaced by one played earlier: nobody holds it now.
    earlier = next(b for _, b in records[1:30] if b.get("type") == "played")
    body["data"] = dict(body["data"], card=earlier["data"]["card"])
    broken = tmp_path / "broken.starhall"
    broken.write_bytes(b"".join(encode_record(b) for _, b in records))
    forked = write_fork(plan_fork(broken, 29), tmp_path)
    assert verify(forked.path).__class__.__name__ == "Verified"
    with pytest.raises(Exception) as refused:
        plan_fork(broken, 40)
    assert "event 30 (played" in str(refused.value) and "record 30" in str(refused.value)


def test_bad_requests_are_refused_in_one_line_before_a_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_window(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a window opened for a refused fork")

    monkeypatch.setattr(app, "open_window", no_window)
    last = load(STARS).last_seq
    data = tmp_path / "data"
    cases = [["--at", str(last + 1)], ["--at", "-1"], ["--seat", "4"], ["--seat", "-1"],
             ["--at", str(last)], []]  # the last two: the game is over there
    for extra in cases:
        code = main(["replay", "fork", str(STARS), "--data", str(data), *extra])
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert code == 2, (extra, captured.err)
        assert len(lines) == 1 and lines[0].startswith("starhall: "), captured.err
        assert "Traceback" not in captured.out + captured.err
    assert not list(data.rglob("*.starhall"))
    with pytest.raises(ForkError, match="no event 93"):
        plan_fork(STARS, 93)
    assert main(["replay", "fork", str(tmp_path / "missing.starhall")]) == 2
    capsys.readouterr()


class _UntilSeated:
    """A screen wrapper that ends the loop once the user sits at the forked table with bots
    around and sees it, or after a time limit."""

    def __init__(self, screen: Any, limit: int = 5000) -> None:
        self.screen = screen
        self.limit = limit  # a hang guard, in frames: it measures nothing
        self.frames = 0

    def seated(self) -> bool:
        live = self.screen.live
        if live.table is None or live.session is None:
            return False
        seats = (live.session.info or {}).get("seats") or []
        return bool(seats) and all(s["state"] != protocol.FREE for s in seats)

    @property
    def done(self) -> bool:
        return self.seated() or self.frames >= self.limit

    def frame(self, dt: float) -> None:
        self.frames += 1
        self.screen.frame(dt)

    def handle(self, event: pygame.event.Event) -> None:
        self.screen.handle(event)

    def draw(self, surface: pygame.Surface) -> None:
        self.screen.draw(surface)

    def resize(self, size: tuple[int, int]) -> None:
        self.screen.resize(size)

    def close(self) -> None:
        self.screen.close()


def test_fork_command_opens_the_table_in_a_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    screens: list[_UntilSeated] = []
    real_run = app.run

    def run(screen: Any, frames: int | None = None) -> int:
        screens.append(_UntilSeated(screen))
        return real_run(screens[-1])

    monkeypatch.setattr(app, "run", run)
    data = tmp_path / "data"
    assert main(["replay", "fork", str(HEARTS), "--at", "60", "--seat", "2",
                 "--data", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Fork of hearts_4p_mode-exchange at event 60" in out and "seat 2" in out
    (wrapper,) = screens
    assert wrapper.seated() and wrapper.frames >= 1
    live = wrapper.screen.live
    model = live.table.model
    assert model.seat == 2 and model.game == "hearts" and model.seq >= 60
    info = live.session.info
    assert info["name"] == "Fork of hearts_4p_mode-exchange at event 60"
    assert [s["state"] for s in info["seats"]] == ["bot", "bot", "player", "bot"]
    assert {s["bot"] for s in info["seats"] if s["state"] == "bot"} == {"heuristic"}
    assert model.hand  # the seat's own cards, as the server sees them
    assert pygame.display.get_caption()[0].endswith("Fork of hearts_4p_mode-exchange at event 60")
    (log,) = (data / "tables").glob("*.starhall")
    _check_fork_log(log, HEARTS, 60)


def test_viewer_play_from_here_switches_to_the_table_and_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    surface = app.open_window(SIZE)
    recording = load(STARS)
    viewer = ReplayScreen(recording, SIZE, data=str(tmp_path))
    # At the end the game is over: the button is there but does nothing.
    viewer.control("end")
    viewer.draw(surface)
    spot = next(s for s in viewer.hotspots.spots if s.action == ("replay", "fork"))
    assert not spot.enabled
    viewer.control("fork")
    assert viewer.forked is None
    # In the middle, seeing as seat 1: the user plays on in seat 1.
    viewer.seek(len(viewer.states) // 2)
    seq = viewer.states[viewer.position][0]
    while viewer.viewer != 1:
        viewer.control("viewer")
    viewer.draw(surface)
    spot = next(s for s in viewer.hotspots.spots if s.action == ("replay", "fork"))
    assert spot.enabled
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot.rect.center, button=1))
    for event in pygame.event.get():
        viewer.handle(event)
    assert viewer.forked is not None and viewer.notice is None
    forked = viewer.forked
    waited = _UntilSeated(forked)

    def frame() -> None:
        viewer.frame(0.05)
        viewer.draw(surface)

    step_until(frame, waited.seated)
    model = forked.live.table.model
    assert model.seat == 1 and model.seq >= seq
    assert forked.live.session.info["name"] == f"Fork of stars_4p at event {seq}"
    _check_fork_log(forked.forked.path, STARS, seq)
    # Esc, then Leave: the viewer is back where it was, and the fork's server stops.
    for which in (pygame.K_ESCAPE, pygame.K_l):
        viewer.handle(pygame.event.Event(pygame.KEYDOWN, key=which, mod=0, unicode=""))
    for _ in range(5):
        viewer.frame(0.05)
        viewer.draw(surface)
    assert viewer.forked is None and not viewer.done
    assert viewer.states[viewer.position][0] == seq
    assert not forked.server._thread.is_alive()
    viewer.close()


def test_a_fork_waiting_for_a_deal_is_dealt_by_the_server(tmp_path: Path) -> None:
    """After the last event of a hand the game waits for a shuffle: the server deals anew."""
    recording = load(STARS)
    second_deal = [seq for seq, event in recording.events if event.seat is None][1]
    at = second_deal - 1
    assert recording.game.chance(recording.state_at(at)) is not None
    pygame.display.init()
    forked = start_fork(str(STARS), at, 3, str(tmp_path), SIZE)
    try:
        waited = _UntilSeated(forked)
        step_until(lambda: forked.frame(0.05), lambda: waited.seated() and (
            forked.live.table is not None and forked.live.table.model.seq >= second_deal))
        model = forked.live.table.model
        assert model.seat == 3 and model.view["hand_number"] == 2 and len(model.hand) >= 10
    finally:
        forked.close()
    fork = load(forked.forked.path)
    assert at in fork.checkpoints  # the end of the hand, checkpointed as the server does
    assert fork.events[at][1].type == "deal" and fork.events[at][1].seat is None
    assert verify(forked.forked.path).__class__.__name__ == "Verified"
    _check_fork_log(forked.forked.path, STARS, at)


@pytest.mark.parametrize("source", sorted(GOLDEN.glob("*.starhall")), ids=lambda p: p.stem)
def test_fork_command_runs_on_every_golden(source: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``starhall replay fork`` on every golden replay, from its middle, for a few frames."""
    real_run = app.run
    screens: list[Any] = []

    def run(screen: Any, frames: int | None = None) -> int:
        screens.append(screen)
        return real_run(screen, frames=5)

    monkeypatch.setattr(app, "run", run)
    middle = load(source).last_seq // 2
    assert main(["replay", "fork", str(source), "--at", str(middle), "--data",
                 str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert screens and not screens[0].server._thread.is_alive()  # closed with the window
    _check_fork_log(screens[0].forked.path, source, middle)
