"""What is drawn over a trick table, on real pygame surfaces (SDL's dummy driver): modal
sheets and boxes (the bug-report button hides under a sheet; the game-over box, the score
sheet, the summary and the last-trick box are opaque over a shaded felt and keep clear of the
felt's corner buttons; a summary takes the table's keys), the game-over chart and ranking at
six players in a small window, the replay's controls in a small window, the status line's
words, what waits for the animation (the side log, the scores, the action buttons), and what
must not cover what: a fork's banner (a strip of its own, off the Rules button), Stars and
Bars' duty and claim tags (on their own stack only), a button's label (clear of its edges)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from hypothesis import given
from hypothesis import strategies as st

from starhall.client.games.tricks.scores import game_over_box, ranking_places, spread
from starhall.client.games.tricks.table import Felt, TableView
from starhall.client.net.model import TableModel, Update
from starhall.client.screens.hosted import KEPT_FOR_RESUME
from starhall.client.screens.live import LiveTable
from starhall.client.screens.replay_screen import ReplayScreen, footer_height
from starhall.client.screens.table_screen import Question, TableScreen
from starhall.client.ui import fonts
from starhall.client.ui.layout import Layout, rules_button_rect, settings_button_rect
from starhall.client.ui.widgets import Hotspots, short_path
from starhall.shared.replay import load
from tests.test_trick_table import (  # noqa: F401 (own_settings: each test's own settings)
    NAMES,
    Played,
    end_of_hand_screen,
    own_settings,
    settle,
    stars_declarer_zero,
    stars_hand,
)
from tools.screenshots import in_window

SIZE = (1280, 720)
SMALL = (800, 600)
GOLDEN = Path(__file__).parent.parent / "replays" / "golden"
MAGENTA = (255, 0, 255)





def drawn(live: LiveTable, size: tuple[int, int]) -> Hotspots:
    live.resize(size)
    live.draw(pygame.Surface(size))
    assert live.hotspots is not None
    return live.hotspots


def spot(hotspots: Hotspots, *action: Any) -> pygame.Rect | None:
    return next((s.rect for s in hotspots.spots if s.action == action), None)


def playing_screen() -> TableScreen:
    play = Played("stars", 4, seed=3)
    play.run_until(lambda s: s.phase == "play" and s.tricks_played == 1)
    return play.screen(len(play.history), sent=[])


# --- the bug-report button and open sheets ---------------------------------------------------


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_the_bug_report_button_hides_under_an_open_sheet_and_f9_still_works(
        size: tuple[int, int]) -> None:
    screen = playing_screen()
    live = in_window(screen)
    assert spot(drawn(live, size), "bug_report", "open") is not None
    openers = [(screen.rules.show, screen.rules.toggle),
               (screen.settings.show, screen.settings.toggle)]
    for show, hide in openers:
        show()
        assert screen.sheet_open
        assert spot(drawn(live, size), "bug_report", "open") is None
        hide()
    screen.question = Question("Leave the table?", KEPT_FOR_RESUME)
    assert spot(drawn(live, size), "bug_report", "open") is None
    screen.question = None
    summary_screen, _ = end_of_hand_screen(stars_hand())
    settle(summary_screen, 4.0)
    assert summary_screen.summaries.shown is not None
    assert spot(drawn(in_window(summary_screen), size), "bug_report", "open") is None
    screen.rules.show()
    live.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F9, mod=0, unicode=""))
    assert live.bug_report.open, "F9 opens the box over the rules page"
    assert spot(drawn(live, size), "bug_report", "save") is not None
    live.bug_report.cancel()


# --- boxes over the felt -------------------------------------------------------------------


def magenta_felt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A felt of one loud colour: any of it seen unshaded, or through a box, shows."""

    def loud(self: Felt, layout: Layout) -> pygame.Surface:
        felt = pygame.Surface((layout.width, layout.height))
        felt.fill(MAGENTA)
        return felt

    monkeypatch.setattr(Felt, "surface", loud)


def tinted(surface: pygame.Surface, area: pygame.Rect, strong: bool) -> int:
    """Pixels of ``area`` (every third; for a box, inside its rounded corners) that are the
    loud felt: unshaded (``strong``), or any tint of it at all."""
    if not strong:
        area = area.inflate(-16, -16)
    count = 0
    for x, y in itertools.product(range(area.x, area.right, 3), range(area.y, area.bottom, 3)):
        r, g, b = tuple(surface.get_at((x, y)))[:3]
        if (r > 200 and g < 40 and b > 200) if strong else (r > 60 and g < 20 and b > 60):
            count += 1
    return count


def over(screen: TableScreen) -> TableScreen:
    """``screen`` shown as if its game were over (its scores as they are)."""
    view = dict(screen.model.view, phase="over")
    screen.model.apply(Update(screen.model.seq, None, view))
    screen.animator.skip_all()
    screen.animator.settled_payload = view
    return screen


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_boxes_hide_the_table_and_keep_clear_of_the_corner_buttons(
        size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    magenta_felt(monkeypatch)
    screen, _ = end_of_hand_screen(stars_hand())
    settle(screen, 4.0)
    summary = screen.summaries.shown
    assert summary is not None
    live = in_window(screen)
    live.resize(size)
    target = pygame.Surface(size)
    live.draw(target)
    assert live.hotspots is not None
    box = spot(live.hotspots, "summary", "dismiss")
    assert box is not None
    felt = screen.layout.table
    assert tinted(target, felt, strong=True) == 0, "the felt is shaded under the summary"
    assert tinted(target, box, strong=False) == 0, "nothing shows through the summary"
    summary.dismiss()
    screen.update(0.01)
    for overlay in ("sheet", "last", None):
        screen.ui.overlay = overlay
        if overlay is None:
            over(screen)
        live.draw(target)
        hotspots = live.hotspots
        assert hotspots is not None
        if overlay == "last":
            box = screen.layout.trick_area  # the last trick's box covers the trick
        else:
            box = spot(hotspots, "button", "none")
            assert box is not None
            report = spot(hotspots, "bug_report", "open")
            assert report is not None, "a box is not a sheet: the button stays"
            corners = [rules_button_rect(felt), settings_button_rect(felt), report]
            assert box.collidelist(corners) == -1, f"{overlay or 'game over'}: on a button"
            assert box == game_over_box(screen.layout)
        assert tinted(target, felt, strong=True) == 0, f"{overlay}: the felt is shaded"
        assert tinted(target, box, strong=False) == 0, f"{overlay}: nothing shows through"


# --- the game-over chart and ranking -------------------------------------------------------


@given(st.lists(st.floats(0, 300), min_size=1, max_size=6), st.integers(10, 20))
def test_spread_labels_never_overlap_and_keep_their_order(wanted: list[float],
                                                          gap: int) -> None:
    low, high = 0.0, 300.0
    placed = spread(wanted, gap, low, high)
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    heights = [placed[i] for i in order]
    assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(heights))
    assert all(low - 1e-9 <= y <= high + 1e-9 for y in placed)
    if all(b - a >= gap for a, b in itertools.pairwise(sorted(wanted))):
        assert placed == wanted, "labels with room stay where they are"


def test_the_ranking_of_six_fits_a_small_window_in_rows() -> None:
    layout = Layout(*SMALL, 6, 0)
    box = game_over_box(layout)
    row = pygame.Rect(box.x + 16, 300, box.w - 32, 0)
    texts = [f"{rank}. {name}  {points}" for rank, (name, points) in enumerate(
        zip(NAMES, (49, 82, 85, 96, 103, 105), strict=True), start=1)]
    places = ranking_places(texts, row)
    assert len({rect.y for rect in places}) == 2, "two rows of three"
    for a, b in itertools.combinations(places, 2):
        assert not a.colliderect(b)
    for text, rect in zip(texts, places, strict=True):
        assert row.x <= rect.x and rect.right <= row.right
        assert fonts.font(17).size(text)[0] <= rect.w, "each line whole"
    wide = Layout(*SIZE, 6, 0)
    row = pygame.Rect(game_over_box(wide).x + 16, 300, game_over_box(wide).w - 32, 0)
    assert len({rect.y for rect in ranking_places(texts, row)}) == 1


# --- the replay's controls -----------------------------------------------------------------


@pytest.mark.parametrize("size", [SIZE, (1024, 640), SMALL])
def test_the_replay_controls_fit_the_window(size: tuple[int, int],
                                           surface: pygame.Surface) -> None:
    viewer = ReplayScreen(load(GOLDEN / "stars_4p.starhall"), size)
    viewer.seek(40)
    target = pygame.Surface(size)
    viewer.draw(target)
    assert viewer.hotspots is not None
    buttons = [s.rect for s in viewer.hotspots.spots
               if s.action[0] == "replay" and s.action[1] != "slider"]
    assert len(buttons) == 11  # the transport, speed, eyes, analysis, Play from here
    window = target.get_rect()
    assert all(window.contains(rect) for rect in buttons), "every control is whole"
    for a, b in itertools.combinations(buttons, 2):
        assert not a.colliderect(b)
    footer = footer_height(size[0])
    assert viewer.table.layout.table.bottom == size[1] - footer
    assert all(rect.y >= size[1] - footer for rect in buttons)
    assert (footer > footer_height(SIZE[0])) == (size[0] < SIZE[0])
    question = viewer.table.ask_before_leaving
    assert question is not None and question.path == str(viewer.recording.path)


# --- words ---------------------------------------------------------------------------------


def test_the_bid_prompt_says_when_passing_is_not_allowed() -> None:
    model = TableModel("stars", 0, 4, NAMES[:4])
    view: dict[str, Any] = {"game": "stars", "phase": "bidding", "to_act": [0],
                            "legal": {"bid": {"min": 30, "max": 200}, "pass": False}}
    model.apply(Update(1, None, view))
    assert TableView().prompt(model, True) == "Your bid: you must bid (the others passed)."
    view["legal"] = {"bid": {"min": 35, "max": 200}, "pass": True}
    assert TableView().prompt(model, True) == "Your bid. Choose an amount, or pass."


def test_a_long_refusal_is_never_cut_nor_tiny() -> None:
    reason = ("Refused: you must follow suit: Shields were led and you hold the Lady of "
              "Shields, so the 5 of Skulls may not be played")
    for size in (SIZE, SMALL):
        width = Layout(*size, 4, 0).prompt_area.w - 28
        font_size, lines = TableView.refusal_lines(reason, width)
        assert font_size >= 15
        assert " ".join(lines).split() == reason.split()
        assert all(fonts.font(font_size).size(line)[0] <= width for line in lines)


def test_paths_are_cut_in_the_middle_and_keep_the_file_name() -> None:
    path = "/tmp/tmpqwf41_ok/starhall_data_dir/games/20250614-203107/tables/0001.starhall"
    assert short_path(path, 14, 2000) == path
    cut = short_path(path, 14, 300)
    assert cut.startswith("…/") and cut.endswith("/tables/0001.starhall")
    assert fonts.font(14).size(cut)[0] <= 300
    tiny = short_path(path, 14, 60)
    assert "…" in tiny and fonts.font(14).size(tiny)[0] <= 60
    assert "`" not in KEPT_FOR_RESUME, "on-screen words carry no Markdown"


@pytest.mark.parametrize("seed, mid_hand", [(3, False), (5, True)])
def test_the_last_trick_of_a_star_says_where_it_went(seed: int, mid_hand: bool) -> None:
    play = Played("stars", 4, seed=seed, chooser=stars_declarer_zero)
    game = play.game
    play.run_until(lambda s: bool(game.view(s, None).get("last_star"))
                   and (s.phase == "play") == mid_hand)
    view = game.view(play.table.state, 0)
    model = TableModel("stars", 0, 4, NAMES[:4])
    model.apply(Update(1, None, view))
    words = TableView.last_trick_words(model)
    star = view["last_star"]
    assert words.startswith(("Star!", "White Star!"))
    if star.get("star_pile") is not None:
        assert f"{NAMES[star['star_pile']]}'s Star pile" in words
    going_on = view["phase"] == "play"
    assert (f"{NAMES[star['leader']]} leads next" in words) == going_on


# --- modal summaries -----------------------------------------------------------------------


def test_a_summary_takes_the_tables_keys_but_f1(surface: pygame.Surface) -> None:
    screen, _ = end_of_hand_screen(stars_hand())
    settle(screen, 4.0)
    assert screen.summaries.shown is not None
    for key in (pygame.K_s, pygame.K_l, pygame.K_b):
        hotspots = screen.draw(surface)
        screen.handle(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""), hotspots)
        assert screen.ui.overlay == "summary", "nothing opens under the summary"
        assert screen.summaries.shown is not None
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F1, mod=0, unicode=""),
                  screen.draw(surface))
    assert screen.rules.open, "F1 still opens the rules"
    screen.rules.toggle()
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""),
                  screen.draw(surface))
    assert screen.summaries.shown is None


def test_a_replay_summary_lets_the_transport_through(surface: pygame.Surface) -> None:
    viewer = ReplayScreen(load(GOLDEN / "stars_4p.starhall"), SIZE)
    ends = [i for i in range(1, len(viewer.states))
            if len(viewer.states[i][1].results) > len(viewer.states[i - 1][1].results)]
    viewer.seek(ends[0] - 1)
    viewer.control("step")
    for _ in range(40):
        viewer.frame(0.1)
    assert viewer.table.summaries.shown is not None
    viewer.key(pygame.K_s)
    assert viewer.table.ui.overlay == "summary"
    viewer.key(pygame.K_RIGHT)  # a step moves on past it
    assert viewer.position == ends[0] + 1 and not viewer.table.summaries.active


# --- what waits for the animation ----------------------------------------------------------


def test_the_hands_result_waits_for_its_last_trick_to_be_gathered() -> None:
    play = stars_hand()
    screen, last = end_of_hand_screen(play)
    before = play.game.view(play.history[last][0], 0)
    screen.update(0.05)
    shown = screen.animator.payload
    assert screen.animator.busy
    assert shown["totals"] == before["totals"] and shown["phase"] == before["phase"]
    assert not any("Hand 1:" in line for line in screen.ui.log)
    settle(screen, 4.0)
    assert screen.animator.payload is screen.model.view
    assert screen.ui.log[-1].splitlines()[-1].startswith("Hand 1:")


def test_the_action_buttons_wait_for_the_deal(surface: pygame.Surface) -> None:
    play = Played("hearts", 5, seed=2)
    play.run_until(lambda s: bool(play.history) and play.history[-1][1].type == "deal")
    deal = play.last("deal")
    play.run_until(lambda s: s.phase == "pass")
    screen = play.screen(deal, sent=[])
    play.feed(screen, deal, len(play.history))
    screen.update(0.2)
    assert screen.animator.busy
    hotspots = screen.draw(surface)
    assert not any(s.action[:1] == ("choose",) for s in hotspots.spots)
    settle(screen, 4.0)
    hotspots = screen.draw(surface)
    assert any(s.action == ("choose", "pass") for s in hotspots.spots)


# --- a fork's banner, Stars and Bars' tags, a button's label ---------------------------------


@pytest.mark.parametrize("size", [SIZE, SMALL])
def test_a_forks_banner_has_a_strip_of_its_own_under_the_table(size: tuple[int, int]) -> None:
    from tools.screenshots import BarsPlay

    for screen in (playing_screen(), BarsPlay(1).screen):
        live = in_window(screen)
        live.resize(size)
        plain = pygame.Surface(size)
        live.draw(plain)
        assert live.hotspots is not None
        rules = spot(live.hotspots, "rules", "open")
        assert rules is not None
        live.banner = "Fork of stars_4p at event 40, a long name to fill the strip"
        with_banner = pygame.Surface(size)
        live.draw(with_banner)
        layout = screen.layout
        strip = pygame.Rect(0, size[1] - layout.footer, size[0], layout.footer)
        assert layout.footer > 0 and strip.bottom == size[1]
        assert not strip.colliderect(layout.table) and not strip.colliderect(layout.panel)
        assert live.hotspots is not None
        # Nothing to click under it but the foot of the hand's cards, which always run off
        # the window's bottom.
        assert not [s.action for s in live.hotspots.spots if s.rect.colliderect(strip)
                    and s.action[0] != "card"]
        assert rules_button_rect(layout.table) == rules
        inside = rules.inflate(-8, -8)  # the button's own pixels, as without the banner
        assert all(plain.get_at(point) == with_banner.get_at(point) for point in
                   itertools.product(range(inside.x, inside.right), range(inside.y,
                                                                          inside.bottom)))
        texts = [tuple(with_banner.get_at((x, strip.centery))) for x in range(16, 120)]
        assert len(set(texts)) > 2, "the banner's words are in the strip"


@pytest.mark.parametrize("size", [SIZE, SMALL, (1024, 640)])
def test_stars_and_bars_tags_stay_on_their_own_stack(size: tuple[int, int]) -> None:
    from starhall.client.games.stars_and_bars.choreography import BarsGeometry
    from starhall.client.games.stars_and_bars.table import offer_marks
    from starhall.shared.games.stars_and_bars.rules import SPACES

    geometry = BarsGeometry.of(Layout(size[0], size[1], 2, 0))
    stacks = [geometry.space_rect(space) for space in range(SPACES)]
    for space in range(SPACES):
        legal = {"duties": [{"kind": "turn_over", "space": space}, {"kind": "clear_centre"}],
                 "claims": [{"kind": "turn_over_and_clear", "space": space, "points": 2}]}
        for rect, words, tag, _ in offer_marks(geometry, legal):
            assert rect.contains(tag), (space, words)
            others = [stack for stack in stacks if not rect.contains(stack)]
            assert tag.collidelist(others) == -1, (space, words)


@pytest.mark.parametrize("label", ["Turn over the full stack on c3", "End turn  [Enter]",
                                   "Clear the centre (all four stacks face down)"])
@pytest.mark.parametrize("width", [120, 220])
def test_a_buttons_label_keeps_clear_of_its_edges(label: str, width: int) -> None:
    from starhall.client.ui import theme
    from starhall.client.ui.widgets import BUTTON_PADDING, button

    target = pygame.Surface((width + 40, 80))
    target.fill(MAGENTA)
    rect = pygame.Rect(20, 20, width, 34)
    button(target, Hotspots(), rect, label, "button", "x", size=14)
    for side in (range(rect.x + 3, rect.x + BUTTON_PADDING),
                 range(rect.right - BUTTON_PADDING, rect.right - 3)):
        for x, y in itertools.product(side, range(rect.y + 9, rect.bottom - 9)):
            assert tuple(target.get_at((x, y)))[:3] == theme.BUTTON, (label, x, y)
