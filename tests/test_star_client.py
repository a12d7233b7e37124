"""The Star's table in the window client: real pygame surfaces (SDL's dummy driver) against a
real embedded server on 127.0.0.1, clicks through pygame's event queue."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.client.games import view_for
from starhall.client.games.star_patience.choreography import TURNED, StarGeometry, between
from starhall.client.games.star_patience.stats import StarStats, stats_path
from starhall.client.games.star_patience.table import (
    StarView,
    forced,
    line_labels,
    prompt_box,
    prompt_lines,
)
from starhall.client.games.tricks.table import TableView
from starhall.client.net.embedded import EmbeddedServer
from starhall.client.net.link import ServerLink
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch
from starhall.client.screens.hosted import wait_for_welcome
from starhall.client.screens.live import LiveTable
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.client.screens.table_screen import TableScreen
from starhall.client.ui.faces import card_name
from starhall.shared.games import get_game
from starhall.shared.games.star_patience.bots import hint_for_view
from starhall.shared.replay import load
from starhall.shared.table import Table
from tests.support import step_until

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

SIZE = (1280, 720)
WON_DEAL = 1
"""The hint player wins deal 1, with eight real choices on the way."""
STUCK_DEAL = 638
"""The hint player is stuck on deal 638 after six decisions (no order of play wins it)."""
GOLDEN = sorted(glob.glob(str(Path(__file__).parent.parent / "replays" / "golden"
                              / "star_patience_*.starhall")))



@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STARHALL_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def click_at(live: LiveTable, rect: pygame.Rect) -> None:
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1))
    for event in pygame.event.get():
        live.handle(event)


def press(live: LiveTable, key: int, mod: int = 0) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=""))
    for event in pygame.event.get():
        live.handle(event)


def spot(live: LiveTable, *action: object) -> pygame.Rect | None:
    for found in reversed(live.hotspots.spots if live.hotspots else []):
        if found.action[: len(action)] == action and found.enabled:
            return found.rect
    return None


def open_star(server: EmbeddedServer, deal: int) -> LiveTable:
    link = ServerLink(server.address, name="Tester")
    live = LiveTable(link, SIZE)
    wait_for_welcome(link)
    live.start_game("star_patience", 1, {"deal": deal}, "random", "Tester")
    return live


def run_until(live: LiveTable, surface: pygame.Surface, until: Any, frames: int = 3000,
              dt: float = 0.05) -> None:
    def frame() -> None:
        live.frame(dt)
        live.draw(surface)

    step_until(frame, lambda: until(live), frames)


def settled(live: LiveTable) -> bool:
    table = live.table
    return table is not None and not table.animator.busy and bool(table.model.view)


def test_registry_picks_the_star_table_and_keeps_trick_games_on_table_view() -> None:
    assert isinstance(view_for("star_patience"), StarView)
    assert isinstance(view_for("stars"), TableView)
    shared = TableView()
    assert view_for("hearts", shared) is shared
    assert isinstance(view_for("star_patience", shared), StarView)  # the lobby's view is not
    model = TableModel("star_patience", None, 1, ["Ada"])
    assert isinstance(TableScreen(model, None).view, StarView)


def test_a_live_game_played_by_clicks_to_a_win_with_undo_and_redo(
        surface: pygame.Surface, tmp_path: Path, data_dir: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        live = open_star(server, WON_DEAL)
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("phase") == "play")
        table = live.table
        assert table is not None
        view = table.view
        assert isinstance(view, StarView)
        view.autoplay = False  # every move by a click here
        undone = redone = False
        first_table = table.model.table
        for _ in range(200):
            run_until(live, surface, lambda live: settled(live))
            model = live.table.model
            if model.over:
                break
            if model.view["moves"] == 3 and not undone:
                press(live, pygame.K_z, pygame.KMOD_CTRL)
                run_until(live, surface, lambda live: live.table.model.view["undos"] == 1
                          and settled(live))
                assert live.table.model.view["moves"] == 2
                undone = True
                continue
            if undone and not redone:
                press(live, pygame.K_y, pygame.KMOD_LCTRL)
                run_until(live, surface, lambda live: live.table.model.view["redos"] == 1
                          and settled(live))
                assert live.table.model.view["moves"] == 3
                redone = True
                continue
            command = hint_for_view(model.view)  # the player's own view drives the clicks
            assert command is not None
            target = (spot(live, "star", "pair", command.data["card"]) if command.type == "pair"
                      else spot(live, "star", "place", command.data["line"]))
            assert target is not None, command
            seq = model.seq
            click_at(live, target)
            assert model.seq == seq  # nothing changes until the server answers
            run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq)
        model = live.table.model
        assert model.over and model.view["result"] == "won", model.view
        assert model.table == first_table and model.view["undos"] == 1
        # The end banner, then the statistics written and read back.
        run_until(live, surface, settled)
        assert spot(live, "star_button", "new") is not None
        stats = StarStats.load()
        assert stats_path() == data_dir / "stats" / "star_patience.json"
        assert stats.played == 1 and stats.won == 1 and stats.streak == 1
        best = stats.best(WON_DEAL)
        assert best is not None and best.result == "won" and best.undos == 1
        # Restart this deal: a new table on the same server, the same deal number.
        press(live, pygame.K_r)
        # (the new table's first view may come before its deal: wait for the deal)
        run_until(live, surface, lambda live: live.table.model.table != first_table
                  and settled(live) and live.table.model.view.get("deal_number") is not None)
        assert live.table.model.view["deal_number"] == WON_DEAL
        assert live.table.model.view["moves"] == 0
        live.close()


def test_a_refusal_names_the_cards_and_goes_when_the_next_move_is_made(
        surface: pygame.Surface, tmp_path: Path) -> None:
    """The server's refusal of a card of the wrong rank says which cards, by name ("KS is not
    the rank of the turned card, 7D" once), and is gone as soon as the next move is made, not
    seconds after it; the move log names cards too."""
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        live = open_star(server, WON_DEAL)
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("phase") == "play")
        table = live.table
        assert table is not None and isinstance(table.view, StarView)
        table.view.autoplay = False

        def wrong_cards() -> list[str]:
            view = live.table.model.view
            pairs = view["legal"]["pair"]
            star = [code for code in view["inner"] + view["outer"] if code]
            return [code for code in star if code not in pairs] if pairs else []

        while not wrong_cards():
            command = hint_for_view(live.table.model.view)
            assert command is not None
            seq = live.table.model.seq
            live.table.command(command.type, dict(command.data))
            run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq
                      and settled(live))
        model = live.table.model
        turned, wrong = model.view["turned"], wrong_cards()[0]
        target = spot(live, "star", "pair", wrong)
        assert target is not None
        click_at(live, target)
        run_until(live, surface, lambda live: live.table.model.refusal is not None)
        reason = model.refusal
        assert reason is not None and reason.startswith(
            f"the turned card is the {card_name(turned)}, and the {card_name(wrong)} is not ")
        assert not {turned, wrong} & set(reason.replace(",", " ").split()), reason
        right = spot(live, "star", "pair", model.view["legal"]["pair"][0])
        assert right is not None
        seq = model.seq
        click_at(live, right)
        assert model.refusal is None, "the next move makes the refusal stale"
        run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq
                  and settled(live))
        assert model.refusal is None
        assert live.table.ui.log[-1].startswith(f"{card_name(turned)} + ")
        assert not any(code in line.split() for line in live.table.ui.log
                       for code in (turned, wrong))
        live.close()


def test_auto_play_hint_stuck_give_up_and_a_lost_game_in_the_statistics(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        live = open_star(server, STUCK_DEAL)
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("phase") == "play")
        for _ in range(100):
            run_until(live, surface, settled)
            model = live.table.model
            if model.view["phase"] != "play":
                break
            if forced(model.legal):  # auto-play (on by default) sends it by itself
                seq = model.seq
                run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq)
                continue
            press(live, pygame.K_h)
            view = live.table.view
            assert isinstance(view, StarView) and view.hint is not None
            _, _, kind, data, chance = view.hint
            assert 0.0 <= chance <= 1.0
            assert "Hint:" in view.prompt(model, view._current_hint(model), True)
            target = spot(live, "star", kind, data["card" if kind == "pair" else "line"])
            assert target is not None
            seq = model.seq
            click_at(live, target)
            run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq)
        model = live.table.model
        assert model.view["phase"] == "stuck"
        assert "Undo (Ctrl+Z) or Give up (G)" in live.table.view.prompt(model, None, True)
        click_at(live, spot(live, "star_button", "give_up"))
        question = live.table.question  # giving up asks first
        assert question is not None and "counts as a lost game" in question.detail
        press(live, pygame.K_RETURN)  # the default answer is no
        assert live.table.question is None and not model.over
        click_at(live, spot(live, "star_button", "give_up"))
        press(live, pygame.K_g)
        run_until(live, surface, lambda live: live.table.model.over and settled(live))
        assert model.view["result"] == "lost"
        stats = StarStats.load()
        assert stats.played == 1 and stats.won == 0 and stats.streak == 0
        assert stats.best(STUCK_DEAL) is not None
        # Choose a deal number through the box.
        press(live, pygame.K_d)
        for key, char in ((pygame.K_4, "4"), (pygame.K_2, "2")):
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=char))
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                             unicode="\r"))
        for event in pygame.event.get():
            live.handle(event)
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("deal_number") == 42)
        live.close()


FORCED_DEAL = 2
"""Deal 2's first turned card has one move only: auto-play makes it."""
LOST_AT_DEAL = 37
"""Deal 37 is lost at the deal: its first turned card can neither pair nor be placed."""
NO_CHOICE_DEAL = 190
"""Deal 190: two forced moves, then stuck, without a choice on the way."""


def test_an_untouched_deal_left_by_new_deal_twice_is_not_counted(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        live = open_star(server, FORCED_DEAL)
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("moves", 0) >= 1)  # auto-play's forced move
        first = live.table.model.table
        press(live, pygame.K_n)
        assert live.table.question is None  # nothing chosen: nothing to ask
        run_until(live, surface, lambda live: live.table.model.table != first
                  and settled(live))
        second = live.table.model.table
        press(live, pygame.K_n)
        run_until(live, surface, lambda live: live.table.model.table != second
                  and settled(live))
        stats = StarStats.load()
        assert (stats.played, stats.won, stats.streak) == (0, 0, 0)
        live.close()


def test_a_deal_lost_before_any_decision_is_not_counted(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        stats = StarStats()
        stats.record(5, "won", 32, 0)
        stats.save()
        live = open_star(server, LOST_AT_DEAL)
        run_until(live, surface, lambda live: settled(live) and live.table.model.over)
        assert live.table.model.view["result"] == "lost"
        live.close()
        live = open_star(server, NO_CHOICE_DEAL)
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("phase") == "stuck")
        press(live, pygame.K_g)
        question = live.table.question
        assert question is not None and "leave it out" in question.detail
        press(live, pygame.K_g)
        run_until(live, surface, lambda live: live.table.model.over and settled(live))
        assert live.table.model.view["gave_up"]
        stats = StarStats.load()
        assert (stats.played, stats.won, stats.streak) == (1, 1, 1)  # as before both
        live.close()


def test_new_deal_after_a_choice_asks_and_counts_the_game_lost(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        live = open_star(server, WON_DEAL)
        # Auto-play takes the forced moves; the first choice is the hint's.
        run_until(live, surface, lambda live: settled(live)
                  and live.table.model.view.get("phase") == "play"
                  and not forced(live.table.model.legal))
        model = live.table.model
        command = hint_for_view(model.view)
        assert command is not None
        target = (spot(live, "star", "pair", command.data["card"]) if command.type == "pair"
                  else spot(live, "star", "place", command.data["line"]))
        assert target is not None
        seq = model.seq
        click_at(live, target)
        run_until(live, surface, lambda live: live.table.model.seq > seq)
        first = model.table
        press(live, pygame.K_n)
        question = live.table.question
        assert question is not None and "counts as a lost game" in question.detail
        press(live, pygame.K_ESCAPE)
        assert live.table.question is None and live.table.next_table is None
        press(live, pygame.K_n)
        press(live, pygame.K_g)
        run_until(live, surface, lambda live: live.table.model.table != first
                  and settled(live))
        stats = StarStats.load()
        assert (stats.played, stats.won) == (1, 0)
        live.close()


def test_stats_file_round_trip_and_atomic_write(data_dir: Path) -> None:
    stats = StarStats()
    stats.record(7, "won", 32, 2)
    stats.record(7, "lost", 10, 0)
    stats.record(7, "won", 32, 0)
    stats.record(None, "won", 32, 0)
    path = stats.save()
    assert path.parent == data_dir / "stats"
    assert [p.name for p in path.parent.iterdir()] == ["star_patience.json"]  # no temp left
    back = StarStats.load()
    assert (back.played, back.won, back.streak, back.best_streak) == (4, 3, 2, 2)
    best = back.best(7)
    assert best is not None and (best.result, best.undos, best.played, best.won) == (
        "won", 0, 3, 2)
    path.write_text("not json")
    assert StarStats.load().played == 0  # a damaged file is no statistics, not a crash


@pytest.mark.parametrize("path", GOLDEN, ids=[Path(p).name for p in GOLDEN])
def test_replay_viewer_on_star_goldens(surface: pygame.Surface, path: str) -> None:
    viewer = ReplayScreen(load(path), SIZE)
    assert isinstance(viewer.table.view, StarView)
    assert viewer.jump_words == ("pair", "undo")
    viewer.seek(0)
    for _ in range(min(6, len(viewer.states) - 1)):
        viewer.control("step")
        for _ in range(40):
            viewer.frame(0.05)
            viewer.draw(surface)
    viewer.control("next_trick")
    assert viewer.position in viewer.trick_ends or viewer.position == len(viewer.states) - 1
    viewer.control("end")
    viewer.draw(surface)
    viewer.control("viewer")  # a spectator
    viewer.draw(surface)
    assert viewer.table.model.seat is None


def _mid_game_view() -> tuple[Any, Any, Any]:
    game = get_game("star_patience")
    table = Table.new(game, 1, {"deal": WON_DEAL})
    table.shuffle(1)
    for _ in range(4):
        command = hint_for_view(game.view(table.state, 0))
        assert command is not None
        before = table.state
        (seq, event), = table.submit(command)
    return game, before, event


@pytest.mark.parametrize("size", [(1280, 720), (640, 420)])
def test_rendering_a_view_at_two_sizes(surface: pygame.Surface, size: tuple[int, int]) -> None:
    game, before, event = _mid_game_view()
    canvas = pygame.Surface(size)
    model = TableModel("star_patience", 0, 1, ["You"])
    screen = TableScreen(model, lambda kind, data: None, size=size)
    screen.receive(Batch([], game.view(before, 0), 1, True))
    hotspots = screen.draw(canvas)
    geometry = StarGeometry.of(screen.layout)
    # Every place inside the table area, every legal card a hotspot.
    for line in game.view(before, 0)["lines"]:
        for ring in ("inner", "outer"):
            assert screen.layout.table.contains(geometry.place_rect(ring, line)), (size, line)
    for code in game.view(before, 0)["legal"]["pair"]:
        assert any(s.action == ("star", "pair", code) for s in hotspots.spots)
    # The turned card is drawn in the centre (card stock, not felt).
    cx, cy = geometry.centre
    assert sum(tuple(canvas.get_at((int(cx), int(cy) - geometry.card_size[1] // 3)))[:3]) > 500
    # An event animates: half-way the scene is drawn without error, then settles.
    shown = game.event_view(before, event, 0)
    after = game.view(game.evolve(before, event), 0)
    data = {"seq": 2, "type": shown.type, "seat": shown.seat, "data": dict(shown.data)}
    assert between(game.view(before, 0), data)["turned"] == after["turned"]
    screen.receive(Batch([(2, data)], after, 2, False))
    assert screen.animator.busy
    for _ in range(30):
        screen.update(0.05)
        screen.draw(canvas)
    assert not screen.animator.busy and screen.animator.payload == after



def _submit(table: Table[Any], screen: TableScreen, command: Any) -> None:
    game = table.game
    before = table.state
    for seq, event in table.submit(command):
        shown = game.event_view(before, event, 0)
        assert shown is not None
        data = {"seq": seq, "type": shown.type, "seat": shown.seat, "data": dict(shown.data)}
        screen.receive(Batch([(seq, data)], game.view(table.state, 0), seq, False))


def _stuck_screen(size: tuple[int, int], settle: bool = True
                  ) -> tuple[Table[Any], TableScreen]:
    """Deal 638 played by the hints until it is stuck, on a screen of ``size``."""
    game = get_game("star_patience")
    table = Table.new(game, 1, {"deal": STUCK_DEAL})
    table.shuffle(STUCK_DEAL)
    screen = TableScreen(TableModel("star_patience", 0, 1, ["You"]), lambda kind, data: None,
                         size=size)
    screen.receive(Batch([], game.view(table.state, 0), table.seq, True))
    while game.view(table.state, 0)["phase"] == "play":
        _submit(table, screen, hint_for_view(game.view(table.state, 0)))
        while (settle or game.view(table.state, 0)["phase"] == "play") and (
                screen.animator.busy):
            screen.update(0.1)
    return table, screen


@pytest.mark.parametrize("size", [(1280, 720), (1024, 640), (800, 600)])
def test_the_line_names_stay_clear_of_the_buttons_the_prompt_and_the_cards(
        surface: pygame.Surface, size: tuple[int, int]) -> None:
    from starhall.client.screens.bug_report import BugReportBox
    from starhall.client.ui.layout import rules_button_rect, settings_button_rect
    from starhall.client.ui.widgets import Hotspots

    _, screen = _stuck_screen(size)
    geometry = StarGeometry.of(screen.layout)
    felt = screen.layout.table
    bug = Hotspots()
    BugReportBox(lambda note: Path(note)).draw(pygame.Surface(size), felt, bug)
    message = screen.view.prompt(screen.model, None, True)  # the longest: stuck
    lines, type_size = prompt_lines(geometry, message, 18)
    assert type_size >= 15 and len(lines) <= 2  # shrunk a little at most, then two lines
    covers = [rules_button_rect(felt), settings_button_rect(felt), bug.spots[0].rect,
              prompt_box(geometry, [message[:60]], 18),
              geometry.rect_at(geometry.stock), geometry.rect_at(geometry.removed, 0.75)]
    covers += [geometry.place_rect(ring, line) for ring in ("inner", "outer")
               for line in screen.model.view["lines"]]
    labels = line_labels(geometry)
    assert sorted(labels) == sorted(screen.model.view["lines"])
    for line, rect in labels.items():
        assert felt.contains(rect), (size, line)
        assert rect.collidelist(covers) < 0, (size, line, covers[rect.collidelist(covers)])


def test_stuck_says_what_to_do_under_the_banner_and_the_end_box_is_opaque(
        surface: pygame.Surface) -> None:
    from starhall.client.ui import theme
    from starhall.shared.commands import Command

    table, screen = _stuck_screen((1280, 720), settle=False)
    while screen.animator.hidden()[TURNED]:  # till the card is turned: the banner is up
        screen.update(0.05)
    assert screen.animator.busy and screen.model.view["phase"] == "stuck"
    said: list[str] = []
    view = screen.view
    assert isinstance(view, StarView)
    prompt = view.prompt

    def spy(*args: Any) -> str:
        said.append(prompt(*args))
        return said[-1]

    view.prompt = spy  # type: ignore[method-assign]
    screen.draw(pygame.Surface((1280, 720)))
    assert said and said[-1].endswith(": Undo (Ctrl+Z) or Give up (G).")
    # Given up: the end box hides the star behind it (nothing shows through its text).
    _submit(table, screen, Command("give_up", 0, {}))
    while screen.animator.busy:
        screen.update(0.1)
    canvas = pygame.Surface((1280, 720))
    canvas.fill((255, 255, 255))
    screen.draw(canvas)
    geometry = StarGeometry.of(screen.layout)
    box = view._end_box(geometry, True)
    x = box.x + 8  # inside the box's edge, left of its centred text
    card = geometry.place_rect("outer", "W")
    assert card.x < x < card.right and card.colliderect(box)
    for y in range(max(box.y, card.y) + 4, min(box.bottom - 60, card.bottom)):
        assert tuple(canvas.get_at((x, y)))[:3] == theme.PANEL, (x, y)


def test_ctrl_z_takes_back_the_players_own_move_past_what_auto_play_did_after_it(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        live = open_star(server, WON_DEAL)
        for _ in range(60):
            run_until(live, surface, lambda live: settled(live)
                      and live.table.model.view.get("phase") != "deal")
            model = live.table.model
            assert model.view["phase"] == "play", "no choice followed by a forced move"
            if forced(model.legal):  # auto-play's, not ours
                seq = model.seq
                run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq)
                continue
            before = {key: model.view[key] for key in ("inner", "outer", "turned", "pairs",
                                                        "moves")}
            option = ("pair", model.legal["pair"][0]) if model.legal["pair"] else (
                "place", model.legal["place"][0])
            seq = model.seq
            click_at(live, spot(live, "star", *option))
            run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq
                      and settled(live))
            if not forced(live.table.model.legal):
                continue
            seq = live.table.model.seq  # auto-play moves on after the player's move
            run_until(live, surface, lambda live, seq=seq: live.table.model.seq > seq
                      and settled(live))
            assert live.table.model.view["moves"] >= before["moves"] + 2
            press(live, pygame.K_z, pygame.KMOD_CTRL)
            moves = before["moves"]
            run_until(live, surface, lambda live, moves=moves: settled(live)
                      and live.table.model.view["moves"] == moves)
            view = live.table.model.view
            assert {key: view[key] for key in before} == before  # as before the player's move
            assert view["can_redo"]
            break
        else:
            raise AssertionError("the deal never had a choice followed by a forced move")
        live.close()
