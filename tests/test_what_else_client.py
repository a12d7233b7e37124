"""The table of "A card game – what else?" in the window client: real pygame surfaces (SDL's
dummy driver), views from the real engine, and a whole game against bots through a real
embedded server on 127.0.0.1, clicks going through pygame's event queue."""

from __future__ import annotations

import glob
import itertools
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.client.games import view_for
from starhall.client.games.what_else.cards import TOKEN, WhatElseArt, card_words
from starhall.client.games.what_else.choreography import (
    MARGIN,
    STEP,
    WhatElseChoreographer,
    WhatElseGeometry,
    between,
    round_ended,
)
from starhall.client.games.what_else.table import WhatElseView
from starhall.client.net.embedded import EmbeddedServer
from starhall.client.net.link import ServerLink
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch
from starhall.client.screens.bug_report import BUTTON_LABEL
from starhall.client.screens.hosted import wait_for_welcome
from starhall.client.screens.live import LiveTable
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.client.screens.table_screen import TableScreen
from starhall.client.ui import fonts, theme
from starhall.client.ui.animation import Flight
from starhall.client.ui.layout import rules_button_rect, settings_button_rect
from starhall.shared.bugreport import read_bug_report
from starhall.shared.games import get_game
from starhall.shared.replay import load
from starhall.shared.table import Table
from tests.support import (
    click_live,
    play_randomly,
    run_frames,
    spot_of,
    step_replay,
    step_until,
)

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

SIZE = (1280, 720)
NAMES = ["Sam", "Ada", "Bruno", "Clara", "Dmitri", "Elif"]
GAME = get_game("what_else")
GOLDEN = sorted(glob.glob(str(Path(__file__).parent.parent / "replays" / "golden"
                              / "what_else_*.starhall")))
View = dict[str, Any]



# --- tables from the real engine ----------------------------------------------------------

def table_where(players: int, wanted: Callable[[View], bool], seat: int = 0,
                options: dict[str, Any] | None = None) -> Table[Any]:
    """A game played at random until ``seat``'s view is ``wanted`` (trying seeds in turn)."""
    for seed in range(200):
        table = Table.new(GAME, players, options or {})
        play_randomly(table, random.Random(seed),
                      until=lambda state: wanted(GAME.view(state, seat)))
        if wanted(GAME.view(table.state, seat)):
            return table
    raise AssertionError("no game reached the wanted view")


def my_turn_with_choice(view: View) -> bool:
    """Seat 0 to play on a card, holding cards that fit and cards that do not."""
    fits = view["legal"]["play"]
    return (view["phase"] == "play" and bool(view["pile"]) and bool(fits)
            and any(code not in fits for code in view["hand"]))


def must_pass(view: View) -> bool:
    return view["phase"] == "play" and view["legal"]["pass"] and not view["legal"]["play"]


def my_refill(view: View) -> bool:
    return bool(view["legal"]["refill"]) and len(view["hand"]) >= 2


class Sent(list[tuple[str, dict[str, Any]]]):
    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.append((kind, data))


def screen_at(table: Table[Any], seat: int | None = 0, size: tuple[int, int] = SIZE,
              footer: int = 0) -> tuple[TableScreen, Sent]:
    sent = Sent()
    model = TableModel("what_else", seat, table.players, NAMES[: table.players])
    screen = TableScreen(model, sent if seat is not None else None, size=size, footer=footer)
    screen.receive(Batch([], GAME.view(table.state, seat), table.seq, True))
    return screen, sent


def click(screen: TableScreen, canvas: pygame.Surface, *action: Any) -> bool:
    """Draw, then click the middle of the hotspot whose action starts with ``action``;
    ``False`` when there is no such (enabled) hotspot."""
    hotspots = screen.draw(canvas)
    for spot in reversed(hotspots.spots):
        if spot.action[: len(action)] == action:
            if not spot.enabled:
                return False
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=spot.rect.center,
                                                 button=1))
            for event in pygame.event.get():
                screen.handle(event, hotspots)
            return True
    return False


def press(screen: TableScreen, canvas: pygame.Surface, key: int) -> None:
    hotspots = screen.draw(canvas)
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""), hotspots)


# --- the registry and the drawing ---------------------------------------------------------

def test_registry_gives_what_else_its_own_table() -> None:
    assert isinstance(view_for("what_else"), WhatElseView)
    model = TableModel("what_else", 0, 3, NAMES[:3])
    assert isinstance(TableScreen(model, None).view, WhatElseView)


def _disjoint(named: dict[str, pygame.Rect]) -> None:
    for (a, ra), (b, rb) in itertools.combinations(named.items(), 2):
        assert not ra.colliderect(rb), f"{a} {ra} overlaps {b} {rb}"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("size,footer", [((1280, 720), 0), ((1024, 640), 0),
                                         ((1280, 720), 92), ((1024, 640), 92),
                                         ((800, 600), 0)])
def test_the_table_at_every_size_of_table_without_overlaps(
        surface: pygame.Surface, players: int, size: tuple[int, int], footer: int) -> None:
    table = table_where(players, my_turn_with_choice)
    view = GAME.view(table.state, 0)
    screen, _ = screen_at(table, size=size, footer=footer)
    canvas = pygame.Surface(size)
    hotspots = screen.draw(canvas)
    geometry = WhatElseGeometry.of(screen.layout)
    area = screen.layout.table
    width = fonts.font(14).size(BUTTON_LABEL)[0] + 24
    bug = pygame.Rect(area.right - 12 - width, area.y + 12, width, 30)
    named: dict[str, pygame.Rect] = {"bug report button": bug, "Rules": rules_button_rect(area),
                                     "Settings": settings_button_rect(area)}
    for seat in range(1, players):  # a gap between two seats: their plates never touch
        named[f"seat {seat}"] = geometry.seat_block(seat).inflate(4, 4)
    raised = geometry.hand_rects(5, set(range(5)))

    def with_label(rect: pygame.Rect, below: int) -> pygame.Rect:
        return pygame.Rect(rect.x, rect.y, rect.w, rect.h + below)

    named.update({
        "own plate": geometry.own_plate, "buttons": geometry.buttons,
        "hand": raised[0].unionall(raised).union(geometry.hand_area),
        "draw pile": with_label(geometry.draw_pile, 22),
        "discard pile": with_label(geometry.discard_pile, 22),
        "top card": with_label(geometry.top_rect, 24),
        "supply": pygame.Rect(geometry.centre_area.x, geometry.supply_centre[1] - 10,
                              geometry.centre_area.w, 20),
        "status line": pygame.Rect(area.x + 12, geometry.status_centre[1] - 14,
                                   area.w - 24, 28),
    })
    for name, rect in named.items():
        assert area.contains(rect), (name, rect, area)
    _disjoint(named)
    # The piles' labels are whole on the felt; the card to beat can be read.
    for pile in (geometry.draw_pile, geometry.discard_pile):
        label = pygame.Rect((0, 0), fonts.font(13).size("Discard pile: 24"))
        label.midtop = (pile.centerx, pile.bottom + 5)
        assert area.inflate(-2 * MARGIN, 0).contains(label)
    assert geometry.top_size[0] >= 60, geometry.top_size
    # A long round's pile stays between the draw pile and the discard pile (or, when those
    # lie on a row of their own, inside the middle).
    right = geometry.centre_area.right if geometry.stacked else geometry.discard_pile.left
    for count in (1, 8, 30):
        for rect in geometry.pile_rects(count):
            assert rect.left >= geometry.fan_left and rect.right <= right
    # The hand is inside the window, every fitting card a hotspot.
    for rect in geometry.hand_rects(len(view["hand"])):
        assert canvas.get_rect().contains(rect)
    cards = {spot.action[1] for spot in hotspots.spots if spot.action[0] == "we_card"}
    assert cards == set(view["hand"])
    # The top card is drawn (card stock, not felt) where the geometry says.
    top = geometry.top_rect
    paper = (top.x + top.w * 4 // 5, top.y + top.h // 5)  # right of the corner index
    assert sum(tuple(canvas.get_at(paper))[:3]) > 500


def test_cards_are_drawn_for_every_code_with_a_token_sprite(surface: pygame.Surface) -> None:
    art = WhatElseArt()
    codes = [str(n) for n in range(1, 51)] + [f"{n}r" for n in (1, 14)] + ["J1", "J5"]
    for code in codes:
        face = art.face(code, 70, 98)
        assert face.get_size() == (70, 98)
    assert art.face(TOKEN, 16, 22).get_size() == (16, 16)
    assert card_words("14r") == "14 red" and card_words("J3") == "the star joker"
    assert card_words("7") == "7"


# --- what a click sends -------------------------------------------------------------------

def test_a_fitting_card_sends_play_and_a_greyed_card_sends_nothing(
        surface: pygame.Surface) -> None:
    table = table_where(4, my_turn_with_choice)
    view = GAME.view(table.state, 0)
    screen, sent = screen_at(table)
    canvas = pygame.Surface(SIZE)
    greyed = next(code for code in view["hand"] if code not in view["legal"]["play"])
    assert click(screen, canvas, "we_card", greyed)
    assert sent == []  # nothing sent: the card is greyed
    hint = screen.view.note
    assert hint == f"{card_words(greyed)[:1].upper()}{card_words(greyed)[1:]} does not fit " \
                   f"on {card_words(view['top'])}."
    screen.draw(canvas)
    fitting = view["legal"]["play"][0]
    assert click(screen, canvas, "we_card", fitting)
    assert sent == [("play", {"card": fitting})]
    assert screen.model.view == view  # nothing changes until the server answers
    prompt = screen.view.prompt(screen.model, True, [])
    assert prompt.startswith("Your turn: play a card that fits on " + card_words(view["top"]))
    # The keyboard: the focus on a card and Enter sends it the same way.
    sent.clear()
    press(screen, canvas, pygame.K_RIGHT)
    index = screen.ui.focus
    assert index == 0
    press(screen, canvas, pygame.K_RETURN)
    code = view["hand"][0]
    assert sent == ([("play", {"card": code})] if code in view["legal"]["play"] else [])


def test_pass_is_sent_only_when_the_view_allows_it(surface: pygame.Surface) -> None:
    canvas = pygame.Surface(SIZE)
    table = table_where(3, must_pass)
    screen, sent = screen_at(table)
    prompt = screen.view.prompt(screen.model, True, [])
    assert prompt.startswith("Nothing in your hand fits on") and prompt.endswith(": pass.")
    hand = screen.model.hand
    if hand:  # every card greyed: a click says so and sends nothing
        assert click(screen, canvas, "we_card", hand[0])
        assert sent == []
    assert click(screen, canvas, "we_button", "pass")
    assert sent == [("pass", {})]
    # With a fitting card (and no voluntary pass) the button is there but disabled.
    table = table_where(3, my_turn_with_choice)
    screen, sent = screen_at(table)
    assert not click(screen, canvas, "we_button", "pass")
    press(screen, canvas, pygame.K_p)
    assert sent == []


def test_the_refill_selects_cards_then_draw_sends_them(surface: pygame.Surface) -> None:
    canvas = pygame.Surface(SIZE)
    table = table_where(4, my_refill)
    screen, sent = screen_at(table)
    hand = screen.model.hand
    assert click(screen, canvas, "we_card", hand[0])
    assert click(screen, canvas, "we_card", hand[1])
    assert click(screen, canvas, "we_card", hand[0])  # a second click keeps it
    assert sent == [] and screen.ui.selected == [hand[1]]
    prompt = screen.view.prompt(screen.model, True, screen.ui.selected)
    assert prompt.startswith('Discarding 1 card: click "Discard 1, draw" (D)')  # the button's
    assert fonts.font(14).size("Discard 1, draw  D")[0] <= 140 - 12  # words, whole at 800 px
    assert click(screen, canvas, "we_button", "refill")
    assert sent == [("refill", {"discard": [hand[1]]})]
    # Nothing chosen: "Keep all and draw" sends an empty discard (D on the keyboard).
    screen, sent = screen_at(table)
    assert '"Keep all, draw" (D)' in screen.view.prompt(screen.model, True, [])
    press(screen, canvas, pygame.K_d)
    assert sent == [("refill", {"discard": []})]


@pytest.mark.parametrize("size", [(1280, 720), (800, 600)])
def test_the_end_box_is_wide_enough_for_its_buttons_and_clear_of_the_hand(
        surface: pygame.Surface, size: tuple[int, int]) -> None:
    table = table_where(6, lambda view: view["phase"] == "over")
    screen, _ = screen_at(table, size=size)
    canvas = pygame.Surface(size)
    screen.draw(canvas)
    view = screen.view
    assert isinstance(view, WhatElseView)
    geometry = WhatElseGeometry.of(screen.layout)
    area = view._end_area(geometry, 6)
    assert area.w >= 420 and screen.layout.table.contains(area)
    assert area.bottom <= geometry.hand_area.y - geometry.raise_by
    x = area.x + 6  # inside its edge, left of the centred words: nothing shows through
    for y in range(area.y + 10, area.bottom - 10, 7):
        assert tuple(canvas.get_at((x, y)))[:3] == theme.PANEL, (x, y)


def test_a_spectator_sees_backs_and_no_controls(surface: pygame.Surface) -> None:
    table = table_where(5, my_turn_with_choice)
    screen, _ = screen_at(table, seat=None)
    hotspots = screen.draw(pygame.Surface(SIZE))
    kinds = {spot.action[0] for spot in hotspots.spots}
    assert "we_card" not in kinds
    assert not any(spot.action == ("we_button", "pass") for spot in hotspots.spots)
    prompt = screen.view.prompt(screen.model, False, [])
    assert prompt.startswith("Waiting for Sam to play on")


# --- animations ---------------------------------------------------------------------------

def _event_dict(event: Any, seq: int) -> dict[str, Any]:
    return {"seq": seq, "type": event.type, "seat": event.seat, "data": dict(event.data)}


def round_ending(rng: random.Random, kinds: tuple[str, ...]) -> tuple[Table[Any], Any, Any]:
    """A 4-player game played at random until a command of ``kinds`` ends a round: the table,
    the state before that command, and its last event."""
    table = Table.new(GAME, 4, {})
    while True:
        if GAME.chance(table.state) is not None:
            table.shuffle(rng.randrange(2**40))
            continue
        before = table.state
        command = GAME.random_action(before, GAME.to_act(before)[0], rng)
        events = table.submit(command)
        if command.type in kinds and round_ended(GAME.view(before, 0),
                                                 GAME.view(table.state, 0)):
            return table, before, events[-1][1]


def test_a_round_end_sweeps_the_pile_and_flies_a_token_to_the_winner(
        surface: pygame.Surface) -> None:
    # Play on until a play or a pass ends a round, and animate that event.
    table, before, event = round_ending(random.Random(5), ("play", "pass"))
    after = GAME.view(table.state, 0)
    model = TableModel("what_else", 0, 4, NAMES[:4])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], GAME.view(before, 0), 1, True))
    shown = GAME.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(2, _event_dict(shown, 2))], after, 2, False))
    steps = screen.animator.queue
    assert len(steps) == 2  # the full pile in view, then the sweep
    winner = after["last_round"]["winner"]
    assert steps[0].payload["pile"] == after["last_round"]["pile"]
    sprites = [getattr(item, "sprite", None) for item in steps[1].items]
    assert TOKEN in sprites
    assert sum(1 for s in sprites if s not in (TOKEN, "back", None)) >= len(
        after["last_round"]["pile"])
    canvas = pygame.Surface(SIZE)
    for _ in range(60):
        screen.update(0.05)
        screen.draw(canvas)
    assert not screen.animator.busy
    assert {k: v for k, v in screen.animator.payload.items() if k != STEP} == after
    assert any("takes a star" in line or "take a star" in line for line in screen.ui.log)
    assert after["tokens"][winner] >= 1
    # Once the star has flown, the round's summary (the shared panel): who took the star
    # and every seat's stars; it stays until it is read.
    summary = screen.summaries.shown
    assert summary is not None
    assert summary.title.startswith(f"Round {after['last_round']['round']}: ")
    assert summary.rows[winner][1] == "+1 star"
    assert [row[-1] for row in summary.rows] == [f"{tokens} of {after['target']}"
                                                 for tokens in after["tokens"]]
    screen.update(30.0)
    assert screen.summaries.shown is summary
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r"),
                  screen.draw(canvas))
    assert screen.summaries.shown is None


def test_the_side_log_names_the_rounds_winner_after_the_pass_that_ended_it(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log reads in the order things happened: the pass that ended a round, then who took
    its star (the round's line once came first, as soon as the batch arrived); and the
    summary counts down to the next round, not the "next hand"."""
    table, before, event = round_ending(random.Random(3), ("pass",))
    after = GAME.view(table.state, 0)
    model = TableModel("what_else", 0, 4, NAMES[:4])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], GAME.view(before, 0), 1, True))
    said = list(screen.ui.log)  # the last round's result, if any, as the table is joined
    shown = GAME.event_view(before, event, 0)
    assert shown is not None and shown.type == "passed"
    screen.receive(Batch([(2, _event_dict(shown, 2))], after, 2, False))
    assert screen.ui.log == said, "every line waits for the pass to be shown"
    canvas = pygame.Surface(SIZE)
    for _ in range(60):
        screen.update(0.05)
        screen.draw(canvas)
    number = after["last_round"]["round"]
    lines = screen.ui.log[len(said):]
    passed = next(i for i, line in enumerate(lines) if line.endswith(" passed"))
    told = next(i for i, line in enumerate(lines) if line.startswith(f"Round {number}: "))
    assert passed < told, lines
    summary = screen.summaries.shown
    assert summary is not None
    summary.delay = summary.left = 5.0
    from starhall.client.ui import summary as summary_module

    drawn: list[str] = []
    original = summary_module.blit_text

    def spy(target: Any, message: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(message)
        return original(target, message, *args, **kwargs)

    monkeypatch.setattr(summary_module, "blit_text", spy)
    summary.draw(canvas, screen.layout.table)
    hint = next(text for text in drawn if text.startswith("Click, Enter or Space"))
    assert hint.endswith("next round in 5 s"), hint


def test_between_patches_a_view_with_what_each_event_shows() -> None:
    table = table_where(3, my_turn_with_choice)
    view = GAME.view(table.state, 0)
    card = view["legal"]["play"][0]
    played = between(view, {"type": "played", "seat": 0, "data": {"card": card}})
    assert played["top"] == card and played["pile"][-1] == [0, card]
    assert card not in played["hand"] and played["hand_counts"][0] == view["hand_counts"][0] - 1
    passed = between(view, {"type": "passed", "seat": 1, "data": {}})
    assert passed["status"][1] == "passed" and passed["legal"] == {}
    steps = WhatElseChoreographer(screen_at(table)[0].layout).steps(
        view, {"type": "played", "seat": 0, "data": {"card": card}}, played)
    flight = steps[0].items[0]
    assert len(steps) == 1 and isinstance(flight, Flight) and flight.sprite == card


# --- the replay viewer --------------------------------------------------------------------

def _sim_log(tmp_path: Path, players: int = 4) -> str:
    path = str(tmp_path / "what_else.starhall")
    table = Table.new(GAME, players, {}, path=path)
    play_randomly(table, random.Random(11))
    assert table.log is not None
    table.log.close()
    return path


def test_replay_viewer_jumps_by_turns_and_rounds(surface: pygame.Surface,
                                                 tmp_path: Path) -> None:
    paths = GOLDEN[:2] or [_sim_log(tmp_path)]
    for path in paths:
        viewer = ReplayScreen(load(path), SIZE)
        assert isinstance(viewer.table.view, WhatElseView)
        assert viewer.jump_words == ("turn", "round")
        assert viewer.hand_starts and viewer.trick_ends
        step_replay(viewer, surface)
        viewer.control("next_hand")
        assert viewer.position in viewer.hand_starts or viewer.position == len(
            viewer.states) - 1
        viewer.draw(surface)
        viewer.control("next_trick")
        viewer.draw(surface)
        for _ in range(2 + viewer.recording.players):  # everything, spectator, each seat
            viewer.control("viewer")
            viewer.draw(surface)
        viewer.control("end")
        viewer.draw(surface)


# --- a whole game through the embedded server ---------------------------------------------

def read_summaries(live: LiveTable) -> int:
    """Enter on a round's summary when one is up, as the player who has read it; how many
    were closed."""
    table = live.table
    if table is None or table.summaries.shown is None:
        return 0
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                         unicode="\r", scancode=0))
    for event in pygame.event.get():
        live.handle(event)
    return 1


def _run(live: LiveTable, surface: pygame.Surface, until: Callable[[], object]) -> None:
    run_frames(live, surface, until, dt=0.2)  # long frames: animations play out quickly


def _hotspot(live: LiveTable, *action: Any) -> pygame.Rect | None:
    return spot_of(live.hotspots, *action)


def screen_of(live: LiveTable) -> TableScreen:
    assert live.table is not None
    return live.table


def past(live: LiveTable, seq: int) -> Callable[[], bool]:
    """Whether the server's answer to a move made at ``seq`` has arrived."""
    return lambda: screen_of(live).model.seq > seq


def test_a_whole_game_against_bots_by_clicks_watched_and_reported(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        link = ServerLink(server.address, name="Tester")
        live = LiveTable(link, SIZE)
        wait_for_welcome(link)
        live.start_game("what_else", 3, {}, "random", "Tester")

        read = [0]

        def ready() -> bool:
            if read_summaries(live):  # each round's summary stays until it is read
                read[0] += 1
                return False  # a frame to take what it held and draw the table again
            table = live.table
            if table is None or table.animator.busy or not table.model.view:
                return False
            legal = table.model.legal
            return table.model.over or bool(legal.get("play") or legal.get("pass")
                                            or legal.get("refill"))

        _run(live, surface, ready)
        assert live.table is not None and isinstance(live.table.view, WhatElseView)
        # Someone watching the same table sees it without a hand or controls.
        watcher_link = ServerLink(server.address, name="Watcher")
        watcher = LiveTable(watcher_link, (1024, 640))
        wait_for_welcome(watcher_link)
        watcher.watch(live.table.model.table)
        def watch(dt: float) -> None:
            read_summaries(watcher)
            watcher.frame(dt)
            watcher.draw(surface)

        step_until(lambda: watch(0.2),
                   lambda: watcher.table is not None and bool(watcher.table.model.view))
        assert watcher.table is not None and watcher.table.model.seat is None
        clicks = {"play": 0, "pass": 0, "refill": 0}
        for _ in range(400):
            _run(live, surface, ready)
            model = live.table.model
            if model.over:
                break
            legal = model.legal
            seq = model.seq
            if legal.get("refill"):
                if model.hand:  # discard one (a hand played out to its last card has none)
                    card = _hotspot(live, "we_card", model.hand[0])
                    assert card is not None
                    click_live(live, card)
                    live.draw(surface)
                target = _hotspot(live, "we_button", "refill")
                kind = "refill"
            elif legal.get("play"):
                target = _hotspot(live, "we_card", legal["play"][-1])
                kind = "play"
            else:
                target = _hotspot(live, "we_button", "pass")
                kind = "pass"
            assert target is not None, (kind, legal)
            click_live(live, target)
            clicks[kind] += 1
            assert model.seq == seq  # nothing moves until the server answers
            _run(live, surface, past(live, seq))
            assert live.table.model.refusal is None, live.table.model.refusal
        model = live.table.model
        assert model.over and model.view["winners"], model.view
        assert clicks["play"] > 0, clicks
        _run(live, surface, lambda: ready() and screen_of(live)._game_over_shown)
        # A summary for every round (a round gives one star), the last before the end box.
        assert read[0] == sum(model.view["tokens"]), (read, model.view["tokens"])
        # One end box: its own Close, the shared panel's Play again and Watch the replay in
        # its bottom strip, and Leave only once (the side panel's).
        box = _hotspot(live, "we_button", "none")
        assert box is not None
        for action in (("button", "dismiss"), ("game_over", "play_again"),
                       ("game_over", "watch_replay")):
            rect = _hotspot(live, *action)
            assert rect is not None and box.contains(rect), action
        assert [s.action for s in live.hotspots.spots].count(("button", "leave")) == 1
        # The watcher followed the whole game.
        step_until(lambda: watch(0.5),
                   lambda: watcher.table is not None and watcher.table.model.over)
        watcher.close()
        # F9, a line and Enter: a bug report of this table.
        pygame.event.clear()
        for event in (pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F9, mod=0, unicode="",
                                         scancode=0),
                      pygame.event.Event(pygame.TEXTINPUT, text="the pile looked odd"),
                      pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                         unicode="", scancode=0)):
            pygame.event.post(event)
        for event in pygame.event.get():
            live.handle(event)
        path = live.bug_report.saved
        assert path is not None and path.exists()
        body = read_bug_report(path)
        assert body["table"]["game"] == "what_else" and body["note"] == "the pile looked odd"
        live.close()


def test_leave_and_help_overlay(surface: pygame.Surface) -> None:
    table = table_where(3, my_turn_with_choice)
    screen, sent = screen_at(table)
    canvas = pygame.Surface(SIZE)
    press(screen, canvas, pygame.K_h)
    assert screen.ui.overlay == "help"
    hotspots = screen.draw(canvas)
    assert not any(spot.action[0] == "we_card" for spot in hotspots.spots)  # cards covered
    press(screen, canvas, pygame.K_ESCAPE)
    assert screen.ui.overlay is None and not screen.leaving
    assert click(screen, canvas, "button", "leave")
    assert screen.leaving and sent == []


def test_a_refusal_from_the_server_replaces_the_prompt_for_a_while(
        surface: pygame.Surface) -> None:
    table = table_where(3, my_turn_with_choice)
    screen, _ = screen_at(table)
    canvas = pygame.Surface(SIZE)
    screen.draw(canvas)
    centre = WhatElseGeometry.of(screen.layout).status_centre
    calm = tuple(canvas.get_at((centre[0], centre[1] - 8)))
    screen.model.refuse("it is seat 1's turn, not yours")
    screen.draw(canvas)
    assert tuple(canvas.get_at((centre[0], centre[1] - 8))) != calm  # the red box
    for _ in range(100):
        screen.update(0.1)
    assert screen.model.refusal is None


def test_the_rules_page_is_for_players_first_then_for_developers() -> None:
    from starhall.client.screens.rules_screen import page_text

    page = page_text("what_else") or ""
    players, _, developers = page.partition("\n## For developers\n")
    assert developers, "no For developers part"
    assert "shared/games/" not in players and "replay format" not in players
    for words in ("## The cards", "## How to play", "## At the table", "fit", "star joker",
                  '"Discard 2, draw"', "**D**", "**P**", "**H**", "F1"):
        assert words in players, words
    for words in ("### Cards and codes", "### Commands", "### Events", "### Views and snapshot",
                  "shared/games/what_else/rules.py", "event_view", "`J1`"):
        assert words in developers, words
