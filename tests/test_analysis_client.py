"""The replay viewer's analysis panel (``client/screens/analysis_panel.py``), drawn by the SDL
dummy driver: A or its button opens it at the event shown, the weighing is done off the loop
and handed back, the move played is marked, and the costliest decisions jump to their event,
read from (and kept in) the same file beside the log as ``starhall replay analyse``."""

from __future__ import annotations

import threading
from pathlib import Path

import pygame
import pytest

from starhall.cli import main
from starhall.client.screens.analysis_panel import PENDING, Analyst, rows_shown
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.shared.analysis import Decision, Settings, analyse_at, move_words
from starhall.shared.analysis_cache import cache_path
from starhall.shared.replay import load

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"
SIZE = (1280, 800)
QUICK = Settings(think=0.0)
"""One deal a decision: ``replay analyse --think 0`` keeps the same."""


@pytest.fixture
def viewer(tmp_path: Path, surface: pygame.Surface) -> ReplayScreen:
    log = tmp_path / "hearts.starhall"
    log.write_bytes((GOLDEN / "hearts_4p_mode-no_exchange.starhall").read_bytes())
    screen = ReplayScreen(load(str(log)), SIZE)
    screen.analyst = Analyst(screen.recording, QUICK)
    return screen


def wait_for(screen: ReplayScreen, ready: threading.Event | None = None) -> None:
    """Let the window's loop turn until the analysis has handed back what was asked."""
    while screen.analyst.busy:
        screen.frame(0.01)
        screen.draw(pygame.display.get_surface())
        threading.Event().wait(0.01)  # the workers' turn; never a time this test checks
    screen.frame(0.0)


def spots(screen: ReplayScreen, *action: object) -> list[pygame.Rect]:
    assert screen.hotspots is not None
    return [spot.rect for spot in screen.hotspots.spots if spot.action[:len(action)] == action]


def click(screen: ReplayScreen, rect: pygame.Rect) -> None:
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=rect.center))


def a_decision_of(screen: ReplayScreen, seat: int) -> int:
    recording = screen.recording
    return next(seq for seq in range(40, recording.last_seq)
                if recording.event(seq + 1).seat == seat
                and recording.event(seq + 1).type == "played"
                and len(recording.game.legal_actions(screen.states[seq][1], seat)) > 2)


def test_a_opens_the_panel_and_the_move_played_is_marked(
        viewer: ReplayScreen, surface: pygame.Surface) -> None:
    seq = a_decision_of(viewer, 1)
    viewer.seek(seq)
    viewer.viewer = 1
    viewer.key(pygame.K_a)
    assert viewer.analysis == "move"
    viewer.draw(surface)  # asked for: the window goes on while it is weighed
    wait_for(viewer)
    found = viewer.analyst.decision(seq, 1)
    assert isinstance(found, Decision) and found.seat == 1 and found.seq == seq
    played = found.played
    assert played is not None
    recording = viewer.recording
    assert played.words == move_words(recording, recording.game.command_for(
        recording.event(seq + 1)))  # "the 7 of Clubs": the card's name, not its code
    viewer.draw(surface)
    (close,) = spots(viewer, "analysis", "close")
    click(viewer, close)
    assert viewer.analysis is None
    viewer.draw(surface)
    assert not spots(viewer, "analysis")
    (button,) = spots(viewer, "replay", "analysis")  # the footer's button opens it again
    click(viewer, button)
    assert viewer.analysis == "move"


def test_a_seat_with_nothing_to_decide_says_so_and_asks_for_nothing(
        viewer: ReplayScreen, surface: pygame.Surface) -> None:
    seq = a_decision_of(viewer, 1)
    viewer.seek(seq)
    viewer.viewer = 2  # not seat 2's turn
    viewer.key(pygame.K_a)
    viewer.draw(surface)
    assert not viewer.analyst.busy
    assert viewer.analyst.decision(seq, 1) == PENDING  # asked only now


def test_costliest_decisions_jump_to_their_event_and_share_the_commands_cache(
        viewer: ReplayScreen, surface: pygame.Surface, capsys: pytest.CaptureFixture[str]
) -> None:
    viewer.key(pygame.K_a)
    viewer.draw(surface)
    (costliest,) = spots(viewer, "analysis", "costliest")
    click(viewer, costliest)
    assert viewer.analysis == "costliest"
    viewer.draw(surface)  # starts the whole game's weighing, with its progress
    assert viewer.analyst.progress is not None
    wait_for(viewer)
    assert viewer.analyst.game is not None and viewer.analyst.progress is None
    viewer.draw(surface)
    jumps = spots(viewer, "analysis", "jump")
    assert jumps
    jump = next(spot for spot in viewer.hotspots.spots if spot.action[:2] == ("analysis", "jump"))
    _, _, seq, seat = jump.action
    click(viewer, jump.rect)
    assert (viewer.states[viewer.position][0], viewer.viewer, viewer.analysis) == (
        seq, seat, "move")
    found = viewer.analyst.decision(seq, seat)  # known already: no weighing again
    assert isinstance(found, Decision) and found.cost > 0
    # Kept beside the log: the command reads it rather than weighing again.
    log = viewer.recording.path
    assert cache_path(log).exists()
    assert main(["replay", "analyse", log, "--think", "0"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[-1] == f"read from {cache_path(log)}" and "analysing" not in out.err
    assert f"  {found.sentence()}" in out.out.splitlines()  # the seat's dearest, both ways
    viewer.close()


def test_the_star_shows_its_exact_win_chances(tmp_path: Path, surface: pygame.Surface) -> None:
    log = tmp_path / "star.starhall"
    log.write_bytes((GOLDEN / "star_patience_1p_deal-113.starhall").read_bytes())
    screen = ReplayScreen(load(str(log)), SIZE)
    recording = screen.recording
    seq = next(seq for seq, state in screen.states[:-1]
               if len(recording.game.legal_actions(state, 0)) > 2
               and recording.event(seq + 1).type in ("paired", "placed"))
    screen.seek(seq)
    screen.key(pygame.K_a)
    screen.draw(surface)
    wait_for(screen)
    found = screen.analyst.decision(seq, 0)
    assert isinstance(found, Decision) and found.exact and found.played is not None
    screen.draw(surface)
    screen.close()


def test_a_bot_that_fails_is_said_in_the_panel_not_in_a_traceback(
        viewer: ReplayScreen, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    from starhall.client.screens import analysis_panel

    def broken(*_: object) -> None:
        raise RuntimeError("the bot fell over")

    monkeypatch.setattr(analysis_panel, "analyse_at", broken)
    seq = a_decision_of(viewer, 1)
    viewer.seek(seq)
    viewer.viewer = 1
    viewer.key(pygame.K_a)
    viewer.draw(surface)
    wait_for(viewer)
    assert viewer.analyst.decision(seq, 1) == (
        "the analysis failed here: RuntimeError('the bot fell over')")
    viewer.draw(surface)  # drawn as words
    assert viewer.analyst.problem is None  # the other decisions can still be weighed


def test_the_move_played_is_listed_even_below_the_rows_that_fit() -> None:
    """A decision of many moves (a Hearts pass, its words two lines long) shows the best
    ones that fit, then the move played however far down it ranks."""
    recording = load(str(GOLDEN / "hearts_4p_mode-no_exchange.starhall"))
    seq, seat = next((at - 1, event.seat) for at, event in recording.events
                     if event.type == "passed" and event.seat is not None)
    found = analyse_at(recording, seq, seat, Settings(think=0.0, worlds=12))
    assert isinstance(found, Decision) and found.played is not None
    played = found.moves.index(found.played)
    lines_of = [[move.words] * 2 for move in found.moves]  # two lines each
    assert played >= 2  # the heuristic's pass, not the search's best
    rows = 2 * played + 2  # room for the moves above it, less one, and the "… more" lines
    shown = rows_shown(found, lines_of, rows)
    assert shown == [*range(played - 1), played]
    assert sum(len(lines_of[index]) for index in shown) + 2 <= rows  # and two "… more" lines
    assert rows_shown(found, lines_of, 2 * len(found.moves)) == list(range(len(found.moves)))
