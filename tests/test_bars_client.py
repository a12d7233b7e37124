"""Stars and Bars' table in the window client: real pygame surfaces (SDL's dummy driver), views
from the real engine, clicks through pygame's event queue, and whole games against a real
embedded server on 127.0.0.1 (one player against the default bot; two people at one table)."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.client.games import view_for
from starhall.client.games.stars_and_bars.choreography import BarsGeometry, between, touch
from starhall.client.games.stars_and_bars.table import (
    PLATE_NAME_SIZE,
    BarsView,
    end_facts,
    plate_name,
    result_line,
)
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
from starhall.client.ui.layout import rules_button_rect, settings_button_rect
from starhall.shared import protocol
from starhall.shared.engine import Command
from starhall.shared.games import get_game
from starhall.shared.games.stars_and_bars.rules import (
    DECK,
    NEIGHBOUR_POINTS,
    differences,
    scoring,
    tops_of,
)
from starhall.shared.replay import load
from starhall.shared.table import Table
from tests.support import click_live, run_frames, spot_of, step_replay
from tools.screenshots import BarsPlay

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

SIZE = (1280, 720)
ROOT = Path(__file__).parent.parent
GOLDEN = sorted(glob.glob(str(ROOT / "replays" / "golden" / "stars_and_bars_*.starhall")))

Sent = list[tuple[str, dict[str, Any]]]



# --- tables built from the engine's own views ---------------------------------------------

def recording(play: BarsPlay) -> Sent:
    """Commands the table sends, kept instead of going to a server."""
    sent: Sent = []
    play.screen.send = lambda kind, data: sent.append((kind, data))
    return sent


def my_turn(view: dict[str, Any]) -> bool:
    return view["to_act"] == [0] and (view["turn"] or {}).get("placed") is None


def draw(screen: TableScreen, surface: pygame.Surface) -> Any:
    return screen.draw(surface)


def click(screen: TableScreen, surface: pygame.Surface, rect: pygame.Rect) -> None:
    hotspots = draw(screen, surface)
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1),
                  hotspots)


def key(screen: TableScreen, surface: pygame.Surface, code: int) -> None:
    hotspots = draw(screen, surface)
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=code, mod=0, unicode=""), hotspots)


def bug_button(felt: pygame.Rect) -> pygame.Rect:
    """Where a live table's "Save a bug report" button is (``client.screens.bug_report``)."""
    width = fonts.font(14).size(BUTTON_LABEL)[0] + 24
    return pygame.Rect(felt.right - 12 - width, felt.y + 12, width, 30)


def test_registry_gives_stars_and_bars_its_table() -> None:
    assert isinstance(view_for("stars_and_bars"), BarsView)
    model = TableModel("stars_and_bars", None, 2, ["Ada", "Bruno"])
    assert isinstance(TableScreen(model, None).view, BarsView)


MOMENTS = {
    "set_up": lambda v: v["phase"] == "play",
    "mid_game": lambda v: v["round"] >= 6 and my_turn(v),
    "face_down": lambda v: any(entry["face_down"] for entry in v["board"]) and my_turn(v),
    "game_over": lambda v: v["phase"] == "over",
}


@pytest.mark.parametrize("moment", list(MOMENTS))
@pytest.mark.parametrize("size", [SIZE, (860, 540), (800, 600)])
def test_drawing_real_views(surface: pygame.Surface, moment: str,
                            size: tuple[int, int]) -> None:
    play = BarsPlay(seed=3)
    play.run_until(MOMENTS[moment], limit=5000)
    screen = play.screen
    canvas = pygame.Surface(size)
    screen.resize(size)
    screen.ui.dismissed_game_over = True  # the board first, then the end's box over it
    hotspots = screen.draw(canvas)
    view = play.view()
    geometry = BarsGeometry.of(screen.layout)
    assert screen.layout.table.contains(geometry.board)
    for seat in (0, 1):
        for rect in geometry.hand_rects(seat, 4):
            assert screen.layout.table.contains(rect), (seat, rect)
    # The name plates keep clear of the Rules and Settings buttons in the felt's corner.
    felt = screen.layout.table
    corner = settings_button_rect(felt).union(rules_button_rect(felt))
    assert not any(geometry.plate_rect(seat).colliderect(corner) for seat in (0, 1))
    # The deck (its backs drawn up and left of it) is not under Settings, the opponent's
    # open cards keep off the buttons, and a plate's name is whole at its size.
    deck = geometry.deck_rect.union(geometry.deck_rect.move(-8, -8))
    buttons = [rules_button_rect(felt), settings_button_rect(felt), bug_button(felt)]
    assert deck.collidelist(buttons) < 0
    for rect in geometry.hand_rects(1, 4):
        assert rect.inflate(8, 8).collidelist(buttons) < 0, rect
    for seat in (0, 1):
        plate = geometry.plate_rect(seat)
        room = plate.w - 42 - fonts.font(22).size(str(view["scores"][seat]))[0]
        name, size, _ = plate_name(screen.model, seat, True, room)
        assert fonts.font(size).size(name)[0] <= room and size <= PLATE_NAME_SIZE
        assert name.startswith(screen.model.name(seat)[:3])
    plate = geometry.plate_rect(1)  # a bot's level makes a long name: whole, a little smaller
    room = plate.w - 42 - fonts.font(22).size(str(view["scores"][1]))[0]
    names = screen.model.names
    names[1], ada = "Bruno (Strong)", names[1]
    name, _, aside = plate_name(screen.model, 1, True, room)
    assert (name, aside) in (("Bruno (Strong)", ""), ("Bruno", "Strong")), (name, aside)
    names[1] = ada
    for space, entry in enumerate(view["board"]):
        rect = geometry.space_rect(space)
        colour = canvas.get_at((rect.x + 6, rect.centery))[:3]
        if entry["face_down"]:
            assert colour[2] > colour[0] + 40, (space, colour)  # a navy card back
        elif entry["top"]:
            assert sum(colour) > 600, (space, colour)  # card stock
        else:
            assert sum(colour) < 400, (space, colour)  # an empty space on the felt
    if moment == "game_over":
        screen.ui.dismissed_game_over = False
        hotspots = screen.draw(canvas)
        box = screen.view._end_area(geometry)  # type: ignore[attr-defined]
        for y in range(box.y + 10, box.bottom - 10, 5):  # opaque: no card shows through
            assert tuple(canvas.get_at((box.x + 6, y)))[:3] == theme.PANEL, y
        assert spot_of(hotspots, "button", "leave") is not None
        assert spot_of(hotspots, "button", "dismiss") is not None
        line = result_line(screen.model)
        assert line.startswith(("Sam wins", "Ada wins", "A tie")), line
    if moment == "mid_game":
        assert spot_of(hotspots, "bars_card") is not None
        assert spot_of(hotspots, "bars_space", 0) is not None


def test_choosing_a_card_lights_exactly_its_legal_spaces_and_clicks_place(
        surface: pygame.Surface) -> None:
    play = BarsPlay(seed=4)
    play.run_until(lambda v: my_turn(v) and len(v["legal"]["placements"]) >= 2)
    screen = play.screen
    sent = recording(play)
    view = screen.view
    assert isinstance(view, BarsView)
    geometry = BarsGeometry.of(screen.layout)
    placements = play.view()["legal"]["placements"]
    card = max(placements, key=lambda code: len(placements[code]))
    lit = {space: points for space, points in placements[card]}
    screen.draw(surface)
    plain = [surface.get_at((geometry.space_rect(s).x + 8, geometry.space_rect(s).centery))
             for s in range(16)]
    hand = draw(screen, surface)
    click(screen, surface, spot_of(hand, "bars_card", card) or pygame.Rect(0, 0, 0, 0))
    assert view.selected == card and sent == []
    assert dict(view._lit(screen.model)) == lit
    screen.draw(surface)
    for space in range(16):
        rect = geometry.space_rect(space)
        now = surface.get_at((rect.x + 8, rect.centery))
        if space in lit:
            assert now == plain[space], space  # lit: left as it is, ringed
        else:
            assert sum(now[:3]) < sum(plain[space][:3]), space  # not lit: shaded
    assert str(max(lit.values())) in screen.view.status(screen.model, True)
    # An unlit space sends nothing and says why; a lit one sends the placing.
    unlit = next(space for space in range(16) if space not in lit)
    click(screen, surface, geometry.space_rect(unlit))
    assert sent == [] and view.note is not None and "not open" in view.note[0]
    target = max(lit, key=lambda space: lit[space])
    screen.ui.mouse = geometry.space_rect(target).center  # the card's ghost on the space
    screen.draw(surface)
    width, height = geometry.card_size
    assert view.art.face(card, width, height).get_flags() & pygame.SRCALPHA  # still clear
    click(screen, surface, geometry.space_rect(target))
    assert sent == [("place", {"card": card, "space": target})]
    assert view.selected is None
    # Nothing on the board changed: the server has not answered yet.
    assert screen.model.view["board"][target] == play.view()["board"][target]


def test_keys_choose_cards_and_escape_lets_go(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=4)
    play.run_until(my_turn)
    screen = play.screen
    view = screen.view
    assert isinstance(view, BarsView)
    key(screen, surface, pygame.K_2)
    assert view.selected == play.view()["hands"][0][1]
    key(screen, surface, pygame.K_ESCAPE)
    assert view.selected is None and not screen.leaving


def test_take_back_and_end_turn_buttons_and_their_keys(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=6)
    play.run_until(lambda v: my_turn(v) and not v["legal"]["claims"])
    card, options = next(iter(play.view()["legal"]["placements"].items()))
    play.submit(Command("place", 0, {"card": card, "space": options[0][0]}))
    screen = play.screen
    sent = recording(play)
    view = play.view()
    assert view["legal"]["take_back"] and view["legal"]["end_turn"]
    hotspots = draw(screen, surface)
    back = spot_of(hotspots, "bars_command", "take_back")
    end = spot_of(hotspots, "bars_command", "end_turn")
    assert back is not None and end is not None
    assert spot_of(hotspots, "bars_command", "pass") is None
    assert "Take back" in screen.view.status(screen.model, True) or view["legal"]["duties"]
    click(screen, surface, back)
    click(screen, surface, end)
    key(screen, surface, pygame.K_BACKSPACE)
    key(screen, surface, pygame.K_RETURN)
    assert sent == [("take_back", {}), ("end_turn", {}), ("take_back", {}), ("end_turn", {})]


def test_a_refusal_is_gone_once_the_next_move_is_made(surface: pygame.Surface) -> None:
    """The red refusal says what was wrong with the last move; the next move makes it stale,
    so it goes at once rather than seconds later, over a table that has moved on."""
    play = BarsPlay(seed=6)
    play.run_until(lambda v: my_turn(v) and not v["legal"]["claims"])
    card, options = next(iter(play.view()["legal"]["placements"].items()))
    play.submit(Command("place", 0, {"card": card, "space": options[0][0]}))
    screen = play.screen
    sent = recording(play)
    screen.model.refuse("you already placed a card this turn")
    canvas = pygame.Surface(SIZE)
    hotspots = draw(screen, canvas)
    screen.update(0.5)
    assert screen.model.refusal is not None  # it stays while nothing else is done …
    end = spot_of(hotspots, "bars_command", "end_turn")
    assert end is not None
    click(screen, canvas, end)
    assert sent == [("end_turn", {})]
    assert screen.model.refusal is None  # … and goes with the next move


def test_a_duty_button_sends_the_duty(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=2)
    play.run_until(lambda v: v["to_act"] == [0] and bool(v["legal"].get("duties")),
                   limit=5000)
    screen = play.screen
    sent = recording(play)
    duty = play.view()["legal"]["duties"][0]
    hotspots = draw(screen, surface)
    button = spot_of(hotspots, "bars_command", duty["kind"])
    assert button is not None
    assert "duty" in screen.view.status(screen.model, True).lower()
    click(screen, surface, button)
    expected = {k: v for k, v in duty.items() if k != "kind"}
    assert sent == [(duty["kind"], expected)]


def test_a_claim_is_offered_sent_and_announced(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=11, forgetful=True)
    play.run_until(lambda v: my_turn(v) and bool(v["legal"]["claims"]), limit=5000)
    screen = play.screen
    sent = recording(play)
    claim = play.view()["legal"]["claims"][0]
    hotspots = draw(screen, surface)
    button = spot_of(hotspots, "bars_command", "claim")
    assert button is not None
    assert "claim" in screen.view.status(screen.model, True).lower()
    click(screen, surface, button)
    data = {k: v for k, v in claim.items() if k != "points"}
    assert sent == [("claim", data)]
    # The server's answer: the claim is announced with its points, then the table settles.
    play.submit(Command("claim", 0, data), settle=False)
    captions = [caption.text for caption in _captions_over(screen, 0.2)]
    assert any(text.startswith("Claim:") and f"+{claim['points']}" in text
               for text in captions), captions
    while screen.animator.busy:  # the log's line comes once its animation has played
        screen.update(0.1)
    assert any("claims" in line for line in screen.ui.log)


def _captions_over(screen: TableScreen, seconds: float) -> list[Any]:
    screen.update(seconds)
    return screen.animator.captions()


def test_points_rise_from_a_placed_card_with_their_breakdown(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=4)
    play.run_until(lambda v: my_turn(v) and any(points for options in v["legal"]
                                                ["placements"].values()
                                                for _, points in options))
    card, space, points = max(((code, space, points) for code, options in
                               play.view()["legal"]["placements"].items()
                               for space, points in options), key=lambda c: c[2])
    play.submit(Command("place", 0, {"card": card, "space": space}), settle=False)
    screen = play.screen
    screen.update(0.5)
    labels = [sprite.sprite for sprite in screen.animator.sprites()
              if sprite.sprite.startswith("label:")]
    assert labels and labels[0].startswith(f"label:+{points}|"), labels
    words = labels[0].split("|")[1]
    assert any(way in words for way in ("horizontal", "vertical", "diagonal", "stack"))
    screen.draw(surface)  # the label is drawn as a sprite
    for _ in range(40):
        screen.update(0.1)
    assert not screen.animator.busy
    placed = play.view()["turn"]["placed"]
    assert placed["points"] == points
    assert f"You scored +{points}" in screen.view.status(screen.model, True)


def test_a_fading_flight_leaves_the_cached_art_transparent(surface: pygame.Surface) -> None:
    """``draw_flights`` fades a sprite through the art's cached image; afterwards that image
    is still see-through where it should be (its rounded corners show the felt, not black)."""
    from starhall.client.games.stars_and_bars.cards import BarsArt
    from starhall.client.games.tricks.table import draw_flights
    from starhall.client.ui.animation import Animator, Flight, Pose, Step

    art = BarsArt()
    label = "label:+5|2 horizontal + 3 diagonal"
    half = Pose(120, 80, 1.0, 0.5)
    animator = Animator()
    animator.add(Step([Flight(label, half, half, 0.0, 1.0)]))
    animator.advance(0.1)
    canvas = pygame.Surface((240, 160))
    draw_flights(canvas, art, (100, 70), animator)
    image = art.face(label, 0, 0)
    canvas.fill((0, 200, 0))
    canvas.blit(image, (0, 0))
    assert tuple(canvas.get_at((0, 0)))[:3] == (0, 200, 0)  # the corner: felt, not black


def test_teacher_mode_counts_the_differences_the_engine_would(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=5)
    play.run_until(lambda v: v["round"] >= 3 and my_turn(v))
    screen = play.screen
    view = screen.view
    assert isinstance(view, BarsView)
    key(screen, surface, pygame.K_t)
    assert view.teacher
    geometry = BarsGeometry.of(screen.layout)
    placements = play.view()["legal"]["placements"]
    card = next(iter(placements))
    view.selected = card
    tops = tops_of(play.table.state)
    checked = 0
    for space in range(16):
        screen.ui.mouse = geometry.space_rect(space).center
        screen.draw(surface)
        expected = sorted((other, touch(kind), d, NEIGHBOUR_POINTS[kind])
                          for kind, other, d, _ in scoring(tops, DECK.index_of[card], space))
        assert sorted(view.teacher_counts(play.view(), space)) == expected, space
        checked += len(expected)
    assert checked
    # Without a chosen card: the card lying there, with the card under it when it has one.
    view.selected = None
    board = play.view()["board"]
    stacked = next((s for s, entry in enumerate(board) if len(entry["cards"]) >= 2), None)
    if stacked is not None:
        counts = view.teacher_counts(play.view(), stacked)
        cards = board[stacked]["cards"]
        assert (stacked, "under", differences(cards[-1], cards[-2]), 1) in counts
    key(screen, surface, pygame.K_t)
    assert not view.teacher


def test_between_moves_the_cards_an_event_names() -> None:
    play = BarsPlay(seed=4)
    play.run_until(my_turn)
    before = play.view()
    card, options = next(iter(before["legal"]["placements"].items()))
    space = options[0][0]
    event = {"type": "placed", "seat": 0, "data": {"card": card, "space": space}}
    after = between(before, event)
    assert card not in after["hands"][0] and after["board"][space]["top"] == card
    assert after["legal"] == {} and before["board"][space]["top"] != card


def test_spectator_sees_both_hands_and_cannot_act(surface: pygame.Surface) -> None:
    play = BarsPlay(seed=4)
    play.run_until(lambda v: v["round"] >= 2)
    model = TableModel("stars_and_bars", None, 2, ["Sam", "Ada"])
    screen = TableScreen(model, None, size=SIZE)
    view = play.game.view(play.table.state, None)
    assert view["legal"] == {}
    screen.receive(Batch([], view, play.table.seq, True))
    hotspots = screen.draw(surface)
    assert spot_of(hotspots, "bars_space") is None and spot_of(hotspots, "bars_card") is None
    geometry = BarsGeometry.of(screen.layout)
    for seat in (0, 1):
        rect = geometry.hand_rects(seat, len(view["hands"][seat]))[0]
        assert sum(surface.get_at(rect.center)[:3]) > 300  # face up, on card stock
    assert "'s turn" in screen.view.status(model, False)


# --- against the real server ------------------------------------------------------------------

def settled(live: LiveTable) -> bool:
    table = live.table
    return table is not None and not table.animator.busy and bool(table.model.view)


def take_my_turn(live: LiveTable, surface: pygame.Surface, take_back: bool = False) -> str:
    """One click (or two: a card, then a space) of the player whose table this is, chosen
    from what the view offers: a claim, a duty, the end of the turn, a pass or a placing."""
    table = live.table
    assert table is not None
    live.draw(surface)
    hotspots = live.hotspots
    legal = table.model.legal
    for name in ("claim", "turn_over", "clear_centre", "remove"):
        rect = spot_of(hotspots, "bars_command", name)
        if rect is not None:
            click_live(live, rect)
            return name
    if take_back and legal.get("take_back"):
        rect = spot_of(hotspots, "bars_command", "take_back")
        assert rect is not None
        click_live(live, rect)
        return "take_back"
    for name in ("end_turn", "pass"):
        if legal.get(name):
            rect = spot_of(hotspots, "bars_command", name)
            assert rect is not None
            click_live(live, rect)
            return name
    placements = legal["placements"]
    card, space, _ = max(((code, space, points) for code, options in placements.items()
                          for space, points in options), key=lambda c: c[2])
    rect = spot_of(hotspots, "bars_card", card)
    assert rect is not None
    click_live(live, rect)
    live.draw(surface)
    geometry = BarsGeometry.of(table.layout)
    click_live(live, geometry.space_rect(space))
    return "place"


def my_move(live: LiveTable) -> bool:
    table = live.table
    return table is not None and settled(live) and not table.model.over and bool(
        table.model.legal)


def over(live: LiveTable) -> bool:
    return live.table is not None and live.table.model.over


def play_out(lives: list[LiveTable], surface: pygame.Surface, watching: tuple[LiveTable, ...]
             = (), rounds: int | None = None, moves: int = 800) -> list[str]:
    """Every seat at these tables plays by clicks until the game is over (or that many
    ``rounds`` are played); the ``watching`` tables are kept up to date (each frame polls
    them) meanwhile."""
    every = [*lives, *watching]
    done: list[str] = []
    took_back = False

    def finished() -> bool:
        if rounds is not None and all(live.table is not None and live.table.model.view.get(
                "round", 0) > rounds for live in lives):
            return True
        return all(over(live) for live in lives)

    for _ in range(moves):
        run_frames(every, surface, lambda: any(my_move(live) for live in lives)
                   or finished())
        if finished():
            return done
        live = next(live for live in lives if my_move(live))
        assert live.table is not None
        seq = live.table.model.seq
        done.append(take_my_turn(live, surface, take_back=not took_back))
        took_back = took_back or done[-1] == "take_back"
        run_frames(every, surface, lambda live=live, seq=seq: live.table.model.seq > seq
                   or live.table.model.refusal is not None)
        assert live.table.model.refusal is None, live.table.model.refusal
    raise AssertionError("the game did not end")


def test_a_whole_game_against_the_default_bot(surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        link = ServerLink(server.address, name="Tester")
        live = LiveTable(link, SIZE)
        wait_for_welcome(link)
        live.start_game("stars_and_bars", 2, {}, "lookahead", "Tester")
        run_frames(live, surface, lambda: settled(live)
                   and live.table.model.view.get("phase") in ("play", "over"))
        done = play_out([live], surface)
        table = live.table
        assert table is not None and table.model.over
        assert "place" in done and "take_back" in done and "end_turn" in done
        run_frames(live, surface, lambda: settled(live) and table._game_over_shown)
        live.draw(surface)
        # One end box: its own Look at the board, the shared panel's Play again and Watch
        # the replay in its bottom strip, and Leave only once (the side panel's).
        box = spot_of(live.hotspots, "bars_end", "none")
        assert box is not None
        for action in (("button", "dismiss"), ("game_over", "play_again"),
                       ("game_over", "watch_replay")):
            rect = spot_of(live.hotspots, *action)
            assert rect is not None and box.contains(rect), action
        assert [s.action for s in live.hotspots.spots].count(("button", "leave")) == 1
        assert table.game_over is not None and table.game_over.log is not None
        bot = table.model.name(1)
        assert any(line.startswith(f"{bot} places") for line in table.ui.log)  # by name
        result = table.model.view["result"]
        assert result and result["winners"]
        # F9: a bug report of this table, with its log (the server is this process's).
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F9, mod=0,
                                             unicode=""))
        for event in pygame.event.get():
            live.handle(event)
        assert live.bug_report.open
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                             unicode="\r"))
        for event in pygame.event.get():
            live.handle(event)
        reports = list((tmp_path / "bug-reports").glob("*.starhall-bug"))
        assert len(reports) == 1
        live.close()


def windows(server: EmbeddedServer, *names: str) -> list[LiveTable]:
    """A live table window for each name, each connected to ``server``."""
    lives = []
    for name in names:
        link = ServerLink(server.address, name=name)
        lives.append(LiveTable(link, SIZE))
        wait_for_welcome(link)
    return lives


def new_table(maker: LiveTable, surface: pygame.Surface) -> str:
    """A table of Stars and Bars created through ``maker``'s window; its id."""
    created: dict[str, Any] = {}
    maker.request({"type": protocol.CREATE, "game": "stars_and_bars", "players": 2,
                   "options": {}}, lambda reply: created.update(reply["table"]))
    run_frames(maker, surface, lambda: bool(created))
    return str(created["id"])


def playing(lives: list[LiveTable]) -> bool:
    return all(settled(live) and live.table is not None
               and live.table.model.view.get("phase") == "play" for live in lives)


def test_two_people_at_one_table_and_a_spectator(surface: pygame.Surface,
                                                 tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        lives = windows(server, "Ann", "Ben", "Cy")
        ann, ben, cy = lives
        table = new_table(ann, surface)
        ann.sit(table, 0, "Ann")
        ben.sit(table, 1, "Ben")
        cy.watch(table)
        run_frames(lives, surface, lambda: playing(lives))
        watcher = cy.table
        assert watcher is not None and not watcher.interactive
        done = play_out([ann, ben], surface, watching=(cy,), rounds=4)
        assert done.count("place") >= 8
        assert ann.table is not None and ben.table is not None
        run_frames(lives, surface, lambda: watcher.model.seq == ann.table.model.seq ==
                   ben.table.model.seq and all(settled(live) for live in lives))
        cy.draw(surface)
        assert spot_of(cy.hotspots, "bars_command") is None
        assert spot_of(cy.hotspots, "bars_space") is None
        assert ann.table.model.view["scores"] == ben.table.model.view["scores"] == \
            watcher.model.view["scores"]
        assert ann.table.model.view["board"] == watcher.model.view["board"]
        for live in lives:
            live.close()


# --- the replay viewer ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def replay_logs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The goldens once they exist, else a log of a game of bots from ``starhall sim``."""
    if GOLDEN:
        return GOLDEN
    out = tmp_path_factory.mktemp("sim")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STARHALL_PURE_PYTHON": "1"}
    subprocess.run([sys.executable, "-m", "starhall", "sim", "stars_and_bars", "--games",
                    "1", "--out", str(out), "--quiet"], check=True, env=env, cwd=ROOT,
                   capture_output=True)
    logs = sorted(str(path) for path in out.rglob("*.starhall"))
    assert logs
    return logs


def test_replay_viewer_on_stars_and_bars_logs(surface: pygame.Surface,
                                              replay_logs: list[str]) -> None:
    for path in replay_logs:
        viewer = ReplayScreen(load(path), SIZE)
        assert isinstance(viewer.table.view, BarsView)
        assert viewer.jump_words == ("turn", "round")
        assert viewer.trick_ends and viewer.hand_starts
        step_replay(viewer, surface)
        viewer.control("next_trick")
        assert viewer.position in viewer.trick_ends
        viewer.control("next_hand")
        assert viewer.position in viewer.hand_starts or viewer.position == len(
            viewer.states) - 1
        view = viewer.table.model.view
        assert view["round"] >= 2 or view["phase"] == "over"
        claimed = [position for position, (_, event) in enumerate(viewer.recording.events)
                   if event.type == "claimed"]
        if claimed:  # stepping onto a claim announces it
            viewer.seek(claimed[0])
            viewer.control("step")
            viewer.frame(0.1)
            assert any(caption.text.startswith("Claim:")
                       for caption in viewer.table.animator.captions())
        viewer.control("end")
        viewer.draw(surface)
        assert viewer.table.model.over
        viewer.control("viewer")  # a spectator
        viewer.draw(surface)
        assert viewer.table.model.seat is None
        viewer.control("viewer")  # seat 0
        viewer.draw(surface)
        assert viewer.table.model.seat == 0



def test_the_end_box_counts_only_the_rounds_both_players_took_a_turn_in(
        surface: pygame.Surface) -> None:
    """The last cards placed in the beginning player's turn end the game in the middle of a
    round, which the end box does not count; a game over at a round's end counts it."""
    game = get_game("stars_and_bars")
    table = Table.new(game, 2, {})
    table.submit(Command("shuffle", None, {"order": list(DECK.code_of)}))  # seat 0 begins
    assert table.state.starter == 0
    table.state = replace(table.state, round=7, hands=(DECK.mask(["TBLH"]), 0), deck=())
    table.submit(Command("place", 0, {"card": "TBLH", "space": 5}))
    table.submit(Command("end_turn", 0, {}))
    view = game.view(table.state, 0)
    assert view["phase"] == "over" and view["round"] == 7 and view["rounds"] == 6
    assert end_facts(view) == "6 rounds · 0 cards left in the deck · 0 discarded"
    screen = TableScreen(TableModel("stars_and_bars", 0, 2, ["Sam", "Ada"]), None, size=SIZE)
    screen.receive(Batch([], view, table.seq, True))
    screen.draw(surface)  # the end box, drawn with those words
    final = load(GOLDEN[0]).state_at()
    shown = game.view(final, None)
    assert shown["phase"] == "over" and shown["rounds"] == shown["round"]
    assert end_facts(shown).startswith(f"{shown['round']} rounds · ")
    assert end_facts({**shown, "rounds": 1}).startswith("1 round · ")


def test_the_rules_page_is_for_players_first_then_for_developers() -> None:
    from starhall.client.screens.rules_screen import page_text

    page = page_text("stars_and_bars") or ""
    players, _, developers = page.partition("\n## For developers\n")
    assert developers, "no For developers part"
    assert "shared/games/" not in players and "replay format" not in players
    for words in ("## The cards", "## The board", "## How to play", "## At the table",
                  "differences", "Backspace", "Enter", "**T**", "**1** to **4**", "(P)"):
        assert words in players, words
    for words in ("### Cards and codes", "### Commands", "### Events", "### View",
                  "shared/games/stars_and_bars/rules.py", "`SRLF`", "event_view"):
        assert words in developers, words


def test_p_passes_as_its_button_says(surface: pygame.Surface) -> None:
    screen = TableScreen(TableModel("stars_and_bars", 0, 2, ["Sam", "Ada"]),
                         lambda kind, data: sent.append((kind, data)), size=SIZE)
    sent: Sent = []
    view = {"phase": "play", "to_act": [0], "hands": [[], []], "legal": {"pass": True}}
    screen.receive(Batch([], view, 1, True))
    key(screen, surface, pygame.K_p)
    assert sent == [("pass", {})]


def test_a_spectator_who_comes_in_mid_game_is_told_so_in_the_side_log(
        surface: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        lives = windows(server, "Ann", "Ben")
        ann, ben = lives
        table = new_table(ann, surface)
        ann.sit(table, 0, "Ann")
        ben.sit(table, 1, "Ben")
        run_frames(lives, surface, lambda: playing(lives))
        assert ann.table is not None and ann.table.ui.log  # "Shuffled and set up…"
        (cy,) = windows(server, "Cy")
        cy.watch(table)
        run_frames([cy], surface, lambda: cy.table is not None and settled(cy))
        assert cy.table is not None
        seq = cy.table.model.seq
        assert cy.table.ui.log[:1] == [
            f"Watching from after move {seq}: the replay shows what came before."]
        for live in (*lives, cy):
            live.close()


@pytest.mark.parametrize("size", [SIZE, (860, 540), (800, 600)])
def test_the_top_rows_points_rise_on_the_board_not_over_the_other_plate(
        size: tuple[int, int]) -> None:
    play = BarsPlay(seed=4)
    screen = play.screen
    screen.resize(size)
    geometry = BarsGeometry.of(screen.layout)
    placed = {"card": "x", "space": 0, "points": 3, "scoring": []}
    flights = screen.choreographer._pop(0, placed, 0.0)  # type: ignore[attr-defined]
    label_half = fonts.font(16).get_height()
    for flight in flights:
        for pose in (flight.start, flight.end):
            assert pose.y - label_half >= geometry.board.y - 2, (pose, geometry.board)


def test_the_plates_and_the_status_line_agree_whose_turn_it_is_while_words_still_play(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the cards have landed the player may act; a banner still playing from the other
    seat's turn (its step's view: their turn) must not leave their plate lit while the
    status line says "Your turn"."""
    from starhall.client.games.stars_and_bars import table as bars_table
    from starhall.client.ui.animation import Banner, Pose, Step

    play = BarsPlay(seed=5)
    play.run_until(lambda v: v["phase"] == "play" and v["to_act"] == [1])
    theirs = play.view()
    while play.view()["to_act"] == [1]:
        play.submit(play.choose())
    screen = play.screen
    assert screen.model.view["to_act"] == [0]
    screen.animator.add(Step([Banner("Ada ends the turn", Pose(300, 300), 0.0, 1.5)],
                             payload=theirs))
    assert bars_table.settled(screen.animator) and screen.animator.busy
    plates: list[Any] = []
    lines: list[str] = []
    monkeypatch.setattr(bars_table.BarsView, "_draw_plate",
                        lambda self, surface, geometry, model, shown, seat, playing:
                        plates.append(list(shown.get("to_act") or [])))
    monkeypatch.setattr(bars_table, "status_pill",
                        lambda surface, message, *rest: lines.append(message))
    screen.draw(surface)
    assert lines[-1].startswith(("Your turn", "You may claim")), lines
    assert plates[0] == [0], plates  # the plates say so too
