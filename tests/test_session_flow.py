"""Leaving, coming back and what follows a game, on real pygame surfaces (SDL's dummy driver)
against the real embedded server: Esc closes only what is on top and asks before a game is
left; a game left is kept and `starhall play --resume` sits a new process back in its seat;
the game-over panel's Play again, Watch the replay and log path; spectators and the replay
viewer go back rather than end the program; an idle table is not redrawn."""

from __future__ import annotations

import os
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from starhall.cli import main
from starhall.client import app
from starhall.client.net.embedded import unfinished_tables
from starhall.client.screens.hosted import HostedTable, wait_for_welcome
from starhall.client.screens.live import LiveTable
from starhall.client.screens.replay_screen import ReplayScreen, open_over_table
from starhall.shared.replay import load
from tests.support import step_until

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

SIZE = (1280, 720)



@pytest.fixture()
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data folder, and bots that do not wait to move."""
    folder = tmp_path / "data"
    monkeypatch.setenv("STARHALL_DATA_DIR", str(folder))
    monkeypatch.setenv("STARHALL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr("starhall.client.screens.hosted.BOT_THINK", 0.0)
    return folder


def key(target: Any, which: int, mod: int = 0) -> None:
    """A key press through pygame's real event queue."""
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=which, mod=mod, unicode="",
                                         scancode=0))
    for event in pygame.event.get():
        target.handle(event)


def click(target: Any, rect: pygame.Rect) -> None:
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1))
    for event in pygame.event.get():
        target.handle(event)


def spot(live: LiveTable, *action: object) -> pygame.Rect:
    found = [s for s in (live.hotspots.spots if live.hotspots else [])
             if s.action[: len(action)] == action and s.enabled]
    assert found, f"no {action} on screen"
    return found[-1].rect


def frames(screen: Any, surface: pygame.Surface, until: Any, dt: float = 0.5,
           limit: int = 4000) -> None:
    """Frames of ``screen`` (long ones: animations end at once) until ``until()`` holds."""
    def one() -> None:
        screen.frame(dt)
        screen.draw(surface)

    step_until(one, until, limit)
    assert until(), "the screen never got there"


def my_turn(live: LiveTable) -> bool:
    table = live.table
    return (table is not None and bool(table.model.legal) and not table.animator.busy)


def hosted(game: str = "stars", players: int = 4, options: dict[str, Any] | None = None
           ) -> HostedTable:
    return HostedTable.new(game, players, dict(options or {}), SIZE, open_replay=open_over_table)


@pytest.fixture()
def seated(data: Path, surface: pygame.Surface) -> Iterator[HostedTable]:
    """``starhall play stars`` with the user to move (bidding, as the first hand starts)."""
    table = hosted()
    try:
        frames(table.live, surface, lambda: my_turn(table.live))
        yield table
    finally:
        table.close()


def play_on(live: LiveTable, surface: pygame.Surface, until: Any) -> None:
    """Make the user's moves (the first legal one each time) until ``until()`` holds,
    dismissing each hand's summary as the user does: it holds the table (the next hand's
    moves reach the model only once it is gone) until dismissed, the default."""
    def one() -> None:
        live.frame(0.5)
        live.draw(surface)
        table = live.table
        if table is None or table.animator.busy or live.table is None or until():
            return
        if table.summaries.shown is not None:
            key(live, pygame.K_RETURN)
            return
        model = table.model
        legal = model.legal
        session = live.session
        if not legal or session is None or session._acts:
            return
        if "play" in legal:
            table.command("play", {"card": legal["play"][0]})
        elif "bury" in legal or "pass_cards" in legal or "exchange" in legal:
            kind = next(k for k in ("bury", "pass_cards", "exchange") if k in legal)
            count = int(legal[kind]) if isinstance(legal[kind], int) else 3
            table.command(kind, {"cards": model.hand[:count]})
        elif legal.get("pass") is True:
            table.command("pass", {})
        elif "bid" in legal:
            table.command("bid", {"amount": int(legal["bid"]["min"])})

    step_until(one, until, 20_000)
    assert until(), "the game did not get there"


# --- Esc closes only what is on top ----------------------------------------------------------


def test_esc_with_something_open_closes_only_that(seated: HostedTable,
                                                  surface: pygame.Surface) -> None:
    live = seated.live
    table = live.table
    assert table is not None
    key(live, pygame.K_s)  # the score sheet
    assert table.ui.overlay == "sheet"
    key(live, pygame.K_ESCAPE)
    assert table.ui.overlay is None and table.question is None and not table.leaving
    key(live, pygame.K_F1)  # the rules page
    assert table.rules.open
    key(live, pygame.K_ESCAPE)
    assert not table.rules.open and table.question is None and not table.leaving
    key(live, pygame.K_ESCAPE)  # nothing open: the question
    assert table.question is not None
    live.draw(surface)
    spot(live, "question", "yes")
    key(live, pygame.K_ESCAPE)  # Esc again closes the question: Stay
    assert table.question is None and not table.leaving
    live.frame(0.01)
    assert not live.done


def test_stay_keeps_the_game_and_leave_keeps_it_for_resume(
        seated: HostedTable, surface: pygame.Surface, data: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    live = seated.live
    table = live.table
    assert table is not None and live.session is not None
    hand, seat, table_id = list(table.model.hand), table.model.seat, live.session.table
    # Stay, by Enter (the default answer) and by its button.
    key(live, pygame.K_ESCAPE)
    assert table.question is not None and "play --resume" in table.question.detail
    key(live, pygame.K_RETURN)
    assert table.question is None and not table.leaving
    live.draw(surface)
    click(live, spot(live, "button", "leave"))  # the side panel's Leave asks too
    live.draw(surface)
    click(live, spot(live, "question", "no"))
    live.frame(0.01)
    assert not live.done and live.table is table
    # Leave: the program ends; the game stays on disk.
    key(live, pygame.K_ESCAPE)
    live.draw(surface)
    click(live, spot(live, "question", "yes"))
    live.frame(0.01)
    assert seated.done
    folder = seated.server.data
    seated.close()
    assert (folder / "tables" / f"{table_id}.starhall").exists()
    (entry,) = unfinished_tables()
    assert entry.table == table_id and entry.seat.seat == seat and not entry.busy

    # A new process: `starhall play --resume` sits back at that seat, with the same hand.
    screens: list[Any] = []

    def run(screen: Any, frames: int | None = None) -> int:
        screens.append(screen)
        try:
            step_until(lambda: (screen.frame(0.5), screen.draw(surface)),
                       lambda: my_turn(screen.live))
        finally:
            screen.close()
        return 0

    monkeypatch.setattr(app, "run", run)
    assert main(["play", "--resume"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Resuming Stars") and "4 players" in out and table_id in out
    (back,) = screens
    model = back.live.table.model
    assert back.live.session.table == table_id
    assert model.seat == seat and model.hand == hand
    assert back.live.table.interactive


def test_resume_with_none_says_so_in_one_line(data: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no unfinished game" in err
    for extra in (["--players", "3"], ["--terminal"], ["--option", "target=5"]):
        assert main(["play", "--resume", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--resume" in err and "Traceback" not in err


def test_resume_takes_the_latest_and_lists_the_others(
        data: Path, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    left = []
    for game, players in (("hearts", 3), ("stars", 4)):
        table = hosted(game, players)
        frames(table.live, surface, lambda t=table: my_turn(t.live))
        left.append((table.server.data.name, table.live.session.table))
        table.close()
    assert [entry.key for entry in unfinished_tables()] == [f"{f}/{t}" for f, t in left[::-1]]
    monkeypatch.setattr(app, "run", lambda screen, frames=None: screen.close() or 0)
    assert main(["play", "--resume"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Resuming Stars") and "Also unfinished" in out and "Hearts" in out
    assert main(["play", "--resume", "hearts"]) == 0
    assert capsys.readouterr().out.startswith("Resuming Stardeck Hearts")


def test_closing_the_window_asks_during_a_game(seated: HostedTable,
                                               surface: pygame.Surface) -> None:
    table = seated.live.table
    assert table is not None
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.run(_Kept(seated), frames=3) == 0
    assert table.question is not None and table.question.quitting and not seated.done
    key(seated.live, pygame.K_ESCAPE)  # Stay
    assert table.question is None
    pygame.event.post(pygame.event.Event(pygame.QUIT))  # asked again; closing twice closes
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.run(_Kept(seated), frames=50) == 0
    assert table.quitting


class _Kept:
    """A screen whose ``close`` leaves the real one open (the fixture closes it)."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen

    def __getattr__(self, name: str) -> Any:
        return getattr(self.screen, name)

    def close(self) -> None:
        """Leaves the real screen open: the fixture closes it."""


# --- the game is over ---------------------------------------------------------------------


def test_the_next_hand_is_played_once_a_hand_s_summary_is_dismissed(
        data: Path, surface: pygame.Surface) -> None:
    """A game that goes on after its first hand (as a Stars game with target 1 does when its
    contract fails: the three defenders tie): the hand's summary holds the table until it is
    dismissed, then the next hand comes to the user. A driver that left the summary up waited
    for ever: why the lobby's game and the game-over panel's timed out now and then."""
    table = hosted("stars", 4, {"target": 10_000})  # never over after one hand
    try:
        live = table.live

        def second_hand_mine() -> bool:
            screen = live.table
            return (screen is not None and len(screen.model.view.get("score_sheet") or []) == 1
                    and my_turn(live))

        play_on(live, surface, second_hand_mine)
        screen = live.table
        assert screen is not None and not screen.summaries.active
    finally:
        table.close()


def test_the_game_over_panel_plays_again_and_opens_the_replay(
        data: Path, surface: pygame.Surface) -> None:
    # Over after the first hand in which one total leads alone: mostly the first, but not
    # when its contract fails (play_on dismisses each hand's summary).
    table = hosted("stars", 4, {"target": 1})
    try:
        live = table.live
        play_on(live, surface, lambda: live.table is not None and live.table.model.over
                and not live.table.animator.busy)
        screen = live.table
        assert screen is not None
        if screen.summaries.active:  # the last hand's summary is read first
            key(live, pygame.K_RETURN)
        frames(live, surface, lambda: screen._game_over_shown, dt=0.05, limit=20)
        assert screen.game_over is not None
        log = screen.game_over.log
        assert log is not None and Path(log).exists() and Path(log).is_absolute()
        assert screen.ask_before_leaving is None, "a finished game is left without a question"
        assert live.session.table not in table.server.seats.seats(), "a game over is forgotten"
        assert unfinished_tables(busy=True) == []
        # Watch the replay: the viewer on this game's log; Esc comes back to the table.
        click(live, spot(live, "game_over", "watch_replay"))
        live.frame(0.01)
        assert isinstance(live.replay, ReplayScreen)
        assert live.replay.recording.path == log
        live.draw(surface)
        key(live, pygame.K_ESCAPE)
        live.frame(0.01)
        assert live.replay is None and not live.done and live.table is screen
        # Play again: a new table of the same game, players and options.
        old = live.session.table
        live.draw(surface)
        click(live, spot(live, "game_over", "play_again"))
        frames(live, surface, lambda: live.session.table != old and my_turn(live))
        info = live.session.info
        assert info["game"] == "stars" and info["players"] == 4
        assert info["options"]["target"] == 1
        assert live.table.model.seat == 0 and not live.table.model.over
    finally:
        table.close()


def test_a_game_with_its_own_new_game_buttons_gets_the_panel_without_play_again(
        data: Path, surface: pygame.Surface) -> None:
    table = hosted("star_patience", 1, {"deal": 5})
    try:
        live = table.live
        frames(live, surface, lambda: my_turn(live))
        live.table.command("give_up", {})
        frames(live, surface, lambda: live.table.model.over and live.table._game_over_shown,
               dt=0.05)
        live.draw(surface)
        actions = [found.action for found in live.hotspots.spots]
        assert ("game_over", "watch_replay") in actions
        assert ("game_over", "play_again") not in actions  # its box has New deal and Restart
        assert ("star_button", "new") in actions
    finally:
        table.close()


# --- spectators and the replay viewer go back ------------------------------------------------


def test_watching_esc_goes_back_to_the_lobby(tmp_path: Path, data: Path,
                                            surface: pygame.Surface) -> None:
    """`starhall watch ADDR`: Esc leaves the table for that server's lobby, not the program."""
    from starhall.client.net.embedded import EmbeddedServer
    from starhall.client.net.link import ServerLink
    from starhall.client.screens.lobby import Lobby
    from starhall.shared import protocol

    with EmbeddedServer(tmp_path / "server", think=0.2) as server:
        link = ServerLink(server.address, name="Host")
        wait_for_welcome(link)
        link.send({"type": protocol.CREATE, "game": "hearts", "players": 3, "options": {}})
        table = ""
        for _ in range(500):
            for message in link.poll():
                if message.get("type") == protocol.CREATED:
                    table = message["table"]["id"]
            if table:
                break
            time.sleep(0.01)
        for seat in range(3):
            link.send({"type": protocol.BOT, "table": table, "seat": seat, "kind": "random"})
        lobby = Lobby(SIZE, server.address, "Watcher", watch_table=table)
        try:
            frames(lobby, surface, lambda: lobby.live is not None and lobby.live.table is not None,
                   dt=0.05)
            assert lobby.live is not None and lobby.live.table is not None
            assert lobby.live.table.model.seat is None  # a spectator
            key(lobby, pygame.K_ESCAPE)
            frames(lobby, surface, lambda: lobby.live is None, dt=0.05, limit=50)
            assert not lobby.done, "Esc while watching ended the program"
            lobby.draw(surface)
        finally:
            lobby.close()
            link.close()


def test_the_replay_viewer_on_its_own_asks_before_closing(surface: pygame.Surface) -> None:
    path = str(Path(__file__).resolve().parent.parent / "replays" / "golden"
               / "stars_4p.starhall")
    viewer = ReplayScreen(load(path), SIZE)
    key(viewer, pygame.K_END)
    viewer.draw(surface)
    key(viewer, pygame.K_ESCAPE)  # at the end, the game-over box is on top: it goes first
    assert viewer.table.question is None and viewer.table.ui.dismissed_game_over
    key(viewer, pygame.K_ESCAPE)
    assert viewer.table.question is not None and not viewer.done
    viewer.draw(surface)
    key(viewer, pygame.K_ESCAPE)  # Esc again: stay
    assert viewer.table.question is None and not viewer.done
    key(viewer, pygame.K_ESCAPE)
    key(viewer, pygame.K_c)
    assert viewer.done
    opened = ReplayScreen(load(path), SIZE, back=True)  # opened from a game: Esc goes back
    key(opened, pygame.K_ESCAPE)
    assert opened.done and opened.table.question is None


# --- an idle table is not redrawn ----------------------------------------------------------


def test_an_idle_table_is_not_redrawn(seated: HostedTable, monkeypatch: pytest.MonkeyPatch
                                      ) -> None:
    monkeypatch.setattr(app, "IDLE_WAIT", 0.001)
    drawn = []

    class Counting(_Kept):
        def draw(self, surface: pygame.Surface) -> None:
            drawn.append(1)
            self.screen.draw(surface)

    pygame.event.clear()
    app.run(Counting(seated), frames=200)
    assert len(drawn) <= 2, f"{len(drawn)} drawings in 200 idle frames"
    key(seated.live, pygame.K_s)  # input: drawn again
    drawn.clear()
    app.run(Counting(seated), frames=50)
    assert 1 <= len(drawn) <= 2
