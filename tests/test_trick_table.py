"""The trick games' table (Stars, Stardeck Hearts) on real pygame surfaces (SDL's dummy
driver): hand summaries, greyed-out cards, received cards, the buried cards, the side log,
and a layout in which nothing overlaps at 3 to 6 players and three window sizes.

Games are played through the engine and handed to a ``TableScreen`` as the server hands
them: each seat's cut of the events, with the view after them, the hand's end in a batch of
its own (``Outbox.seal``) and the next deal in the next one.
"""

from __future__ import annotations

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

from starhall.client.games.tricks.scores import signed
from starhall.client.games.tricks.table import TableView, received_cards
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch
from starhall.client.screens.bug_report import BUTTON_LABEL as REPORT_LABEL
from starhall.client.screens.table_screen import TableScreen
from starhall.client.ui import fonts, theme
from starhall.client.ui.layout import Layout, rules_button_rect, settings_button_rect
from starhall.client.ui.summary import Summary
from starhall.client.user import settings
from starhall.client.user.folders import CONFIG_ENV
from starhall.shared.bots import make_bot
from starhall.shared.engine import Command, Event, IllegalCommand
from starhall.shared.games import get_game
from starhall.shared.table import Table
from tests.support import ask, deal_order

SIZE = (1280, 720)
SIZES = ((1280, 720), (1024, 640), (800, 600))
NAMES = ["Sam", "Ada", "Bruno", "Clara", "Dmitri", "Elif"]
Chooser = Callable[[Any, Any, int], Command]



@pytest.fixture(autouse=True)
def own_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test reads settings from its own folder: the defaults unless it saves some."""
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))
    settings.forget()
    yield
    settings.forget()


# --- games played through the engine ----------------------------------------------------


class Played:
    """A game played through the engine, every event kept with the states around it."""

    def __init__(self, game_id: str, players: int, options: dict[str, Any] | None = None,
                 seed: int = 1, chooser: Chooser | None = None,
                 order: list[str] | None = None) -> None:
        self.game = get_game(game_id)
        self.table: Table[Any] = Table.new(self.game, players, options or {})
        self.bots = [make_bot(self.game, "random", random.Random(seed + s))
                     for s in range(players)]
        self.chooser = chooser
        self.deal = seed
        self.order = order
        self.history: list[tuple[Any, Event, Any]] = []

    def run_until(self, until: Callable[[Any], bool], limit: int = 5000) -> None:
        game, table = self.game, self.table
        for _ in range(limit):
            if until(table.state):
                return
            before = table.state
            if game.chance(table.state) is not None:
                if self.order is not None:
                    events = table.submit(Command("shuffle", None, {"order": self.order}))
                    self.order = None
                else:
                    self.deal += 1
                    events = table.shuffle(self.deal)
            else:
                seat = game.to_act(table.state)[0]
                command = self.chooser(game, table.state, seat) if self.chooser else None
                command = command or ask(self.bots[seat], game, table.state, seat, table)
                events = table.submit(command)
            for _, event in events:
                self.history.append((before, event, table.state))
                before = table.state
        raise AssertionError("the game never got there")

    def last(self, kind: str) -> int:
        """The index in ``history`` of the latest event of ``kind``."""
        return max(i for i, (_, event, _) in enumerate(self.history) if event.type == kind)

    def screen(self, at: int, seat: int | None = 0, sent: list[Any] | None = None
               ) -> TableScreen:
        """A table screen for ``seat`` showing the state before ``history[at]``."""
        players = self.table.players
        model = TableModel(self.game.id, seat, players, NAMES[:players])
        send = None if sent is None else (lambda kind, data: sent.append((kind, data)))
        screen = TableScreen(model, send, size=SIZE)
        before = self.history[at][0] if at < len(self.history) else self.table.state
        screen.receive(Batch([], self.game.view(before, seat), at, True))
        return screen

    def feed(self, screen: TableScreen, start: int, stop: int) -> None:
        """History ``start`` .. ``stop - 1`` as one update for the screen's seat."""
        seat = screen.model.seat
        events = []
        for index in range(start, stop):
            before, event, _ = self.history[index]
            shown = self.game.event_view(before, event, seat)
            if shown is not None:
                events.append((index + 1, {"type": shown.type, "seat": shown.seat,
                                           "data": dict(shown.data)}))
        view = self.game.view(self.history[stop - 1][2], seat)
        screen.receive(Batch(events, view, stop, False))


def settle(screen: TableScreen, seconds: float = 6.0, step: float = 0.1) -> None:
    for _ in range(round(seconds / step)):
        screen.update(step)


def stars_declarer_zero(game: Any, state: Any, seat: int) -> Command | None:
    """Seat 0 bids the least it may and the others pass: seat 0 declares."""
    if state.phase != "bidding":
        return None
    legal = game.view(state, seat).get("legal", {})
    if seat == 0 and "bid" in legal:
        return Command("bid", 0, {"amount": legal["bid"]["min"]})
    return Command("pass", seat, {}) if legal.get("pass") else None


def stars_hand(seed: int = 3) -> Played:
    play = Played("stars", 4, seed=seed, chooser=stars_declarer_zero)
    play.run_until(lambda s: len(s.results) >= 1)
    return play


# --- the hand summary -----------------------------------------------------------------------


def end_of_hand_screen(play: Played, seat: int = 0) -> tuple[TableScreen, int]:
    """A screen shown the hand's last card as its own update; returns it and the index of
    that card in the history."""
    last = play.last("played")
    screen = play.screen(last, seat)
    play.feed(screen, last, last + 1)
    return screen, last


def test_stars_summary_appears_after_the_last_trick_with_the_hands_result() -> None:
    play = stars_hand()
    result = play.table.state.results[-1]
    screen, _ = end_of_hand_screen(play)
    gate = screen.summaries
    assert gate.pending is not None and gate.shown is None, "it waits for the last trick"
    assert screen.animator.busy
    settle(screen, 4.0)
    summary = gate.shown
    assert isinstance(summary, Summary)
    declarer, bid = result.declarer, result.bid
    made = "made" if result.made else "failed"
    assert summary.title == f"Hand 1: contract {made}"
    assert summary.lines[0] == (f"{NAMES[declarer]}'s contract {made}: "
                                f"{result.points[declarer]} of {bid}, "
                                f"{signed(result.changes[declarer])}.")
    for seat, kept in enumerate(result.stars_kept):
        piles = [line for line in summary.lines if line.startswith(f"{NAMES[seat]}'s Star pile")]
        assert len(piles) == (1 if kept else 0)
        if kept:
            value = play.game.view(play.table.state, None)["star_pile_points"][seat]
            assert f"pays {value} to each other player" in piles[0]
    if not any(result.stars_kept):
        assert "No Star this hand." in summary.lines
    totals = play.table.state.totals
    assert [row[0].split(" (")[0] for row in summary.rows] == NAMES[:4]
    assert [row[2] for row in summary.rows] == [signed(c) for c in result.changes]
    assert [row[3] for row in summary.rows] == [str(t) for t in totals]
    # The side log says who took the last trick and how the hand ended.
    assert screen.ui.log[-1].endswith(f"Hand 1: {summary.lines[0][:-1]}")


def test_the_summary_stays_until_dismissed_and_the_next_deal_waits(
        surface: pygame.Surface) -> None:
    play = stars_hand()
    deal = len(play.history)
    play.run_until(lambda s: s.hand_number == 2)
    screen, last = end_of_hand_screen(play)
    settle(screen, 4.0)
    assert screen.summaries.shown is not None
    play.feed(screen, deal, deal + 1)  # the next deal arrives while the summary is up
    assert screen.summaries.held and screen.model.view["hand_number"] == 1
    settle(screen, 30.0, 0.5)  # until dismissed: time alone changes nothing
    assert screen.summaries.shown is not None and not screen.animator.busy
    hotspots = screen.draw(surface)
    panel = next(s.rect for s in hotspots.spots if s.action == ("summary", "dismiss"))
    assert panel.colliderect(screen.layout.table)
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_s, mod=0, unicode="s"),
                  hotspots)
    assert screen.summaries.shown is not None  # other keys do not dismiss it
    screen.ui.overlay = None
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                     unicode="\r"), hotspots)
    assert screen.summaries.shown is None
    screen.update(0.01)
    assert screen.model.view["hand_number"] == 2
    assert screen.animator.busy, "the deal animates once the summary is gone"
    assert not screen.summaries.held


def test_a_click_dismisses_and_a_delay_setting_closes_it_by_itself(
        surface: pygame.Surface) -> None:
    play = stars_hand(seed=5)
    screen, _ = end_of_hand_screen(play)
    settle(screen, 4.0)
    hotspots = screen.draw(surface)
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(5, 5)), hotspots)
    assert screen.summaries.shown is None
    settings.save(settings.Settings(summary_delay=3.0))
    screen, _ = end_of_hand_screen(play)
    settle(screen, 2.5, 0.05)  # the last trick plays, then the summary shows …
    assert screen.summaries.shown is not None and screen.summaries.shown.delay == 3.0
    settle(screen, 3.5, 0.05)  # … and goes after its three seconds
    assert screen.summaries.shown is None and not screen.summaries.active


def hearts_moon_play() -> Played:
    """Classic Hearts, no passing: Ada (seat 1) holds the Clubs from the Ace down and the
    Ace of Spades, wins every trick, and is given every point card: a moon shot."""
    ada = [f"{rank}C" for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4",
                                   "3")] + ["AS"]
    sam = ["2C"] + [f"{rank}D" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                            "Q", "K")]
    bruno = ["AD"] + [f"{rank}H" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10",
                                              "J", "Q", "K")]
    clara = ["AH"] + [f"{rank}S" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10",
                                              "J", "Q", "K")]

    def chooser(game: Any, state: Any, seat: int) -> Command:
        legal = game.view(state, seat)["legal"]["play"]
        rank = {"J": 11, "Q": 12, "K": 13, "A": 14}

        def value(code: str) -> int:
            return rank.get(code[:-1], 0) or int(code[:-1])

        if seat == 1:
            return Command("play", seat, {"card": max(legal, key=value)})
        points = [c for c in legal if c == "QS" or c.endswith("H")]
        return Command("play", seat, {"card": (points or sorted(legal, key=value))[0]})

    play = Played("hearts", 4, {"deck": "classic", "pass_cards": 0, "target": 200},
                  chooser=chooser, order=deal_order([sam, ada, bruno, clara]))
    play.run_until(lambda s: len(s.score_sheet) >= 1)
    assert play.table.state.moon == 1
    return play


def test_hearts_summary_names_a_moon_shot_and_each_seats_point_cards() -> None:
    play = hearts_moon_play()
    screen, _ = end_of_hand_screen(play)
    settle(screen, 4.0)
    summary = screen.summaries.shown
    assert summary is not None
    assert summary.title == "Hand 1: Ada shot the moon!"
    assert summary.lines == ["Ada took every point card and shot the moon: everyone else "
                             "takes 26 points."]
    assert summary.rows[1] == ["Ada", "Queen of Spades, 13 Hearts", "0", "0"]
    assert [row[2] for row in summary.rows] == ["26", "0", "26", "26"]
    assert "Hand 1: Ada shot the moon!" in screen.ui.log[-1]


def test_hearts_summary_lists_points_and_who_took_none() -> None:
    play = Played("hearts", 5, seed=4)
    play.run_until(lambda s: len(s.score_sheet) >= 1)
    screen, _ = end_of_hand_screen(play)
    settle(screen, 4.0)
    summary = screen.summaries.shown
    assert summary is not None and summary.title == "Hand 1: points taken"
    row = play.table.state.score_sheet[-1]
    assert [r[2] for r in summary.rows] == [str(p) for p in row]
    clean = [NAMES[s] for s, p in enumerate(row) if p == 0]
    if clean:
        assert any(line.endswith("took no points.") for line in summary.lines)


# --- the side panel's scores -----------------------------------------------------------------


def panel_texts(screen: TableScreen, surface: pygame.Surface,
                monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, tuple[int, int]]]:
    """Every text the side panel draws: (text, anchor, where)."""
    from starhall.client.games.tricks import table as table_view

    drawn: list[tuple[str, str, tuple[int, int]]] = []
    original = table_view.blit_text

    def spy(target: Any, message: str, size: int, colour: Any, anchor: str,
            where: tuple[int, int], *args: Any, **kwargs: Any) -> Any:
        if screen.layout.panel.collidepoint(where):
            drawn.append((message, anchor, (round(where[0]), round(where[1]))))
        return original(target, message, size, colour, anchor, where, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(table_view, "blit_text", spy)
        screen.draw(surface)
    return drawn


def panel_hand_column(screen: TableScreen, surface: pygame.Surface,
                      monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The side panel's "hand" column, a seat a row, top to bottom."""
    drawn = panel_texts(screen, surface, monkeypatch)
    header = next(where for text, _, where in drawn if text == "hand")
    return [text for text, anchor, where in sorted(drawn, key=lambda d: d[2][1])
            if anchor == "topright" and where[0] == header[0] and where[1] > header[1]]


def test_the_panels_hand_points_are_the_summarys_for_stars(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    """The declarer's burial counts in the hand's score: the panel beside the totals says what
    the summary says (it once showed the score without the burial: 36 against "scored 39")."""
    play = stars_hand()
    result = play.table.state.results[-1]
    assert play.table.state.buried, "a burial to count"
    for seat in (0, 1, None):
        screen, _ = end_of_hand_screen(play, seat)
        settle(screen, 4.0)
        summary = screen.summaries.shown
        assert summary is not None
        scored = [row[1] for row in summary.rows]
        assert scored == [str(points) for points in result.points]
        assert panel_hand_column(screen, surface, monkeypatch) == scored
        assert f"{result.points[result.declarer]} of {result.bid}" in summary.lines[0]


def test_the_declarer_sees_the_burial_counted_while_playing(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    play = stars_hand()
    first = next(i for i, (_, event, _) in enumerate(play.history) if event.type == "played")
    state = play.history[first][0]
    public = play.game.view(state, None)["hand_points"]
    burial = play.game.view(state, 0)["my_hand_points"] - public[0]
    assert burial > 0
    declarer = play.screen(first, 0)
    assert panel_hand_column(declarer, surface, monkeypatch) == [
        str(public[0] + burial), *map(str, public[1:])]
    other = play.screen(first, 2)
    assert panel_hand_column(other, surface, monkeypatch) == [str(p) for p in public]


def test_the_panels_hand_points_are_the_summarys_after_a_moon_shot(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    play = hearts_moon_play()
    screen, _ = end_of_hand_screen(play)
    settle(screen, 4.0)
    summary = screen.summaries.shown
    assert summary is not None
    assert [row[2] for row in summary.rows] == ["26", "0", "26", "26"]
    assert panel_hand_column(screen, surface, monkeypatch) == ["26", "0", "26", "26"]
    plates = [TableView._seat_note(screen.model.view, seat) for seat in range(4)]
    assert plates[1] == "0 pts this hand"


def test_the_hearts_panel_says_what_ends_the_game_and_who_wins(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    play = Played("hearts", 4, {"target": 75}, seed=4)
    play.run_until(lambda s: s.phase == "play")
    screen = play.screen(len(play.history))
    texts = [text for text, _, _ in panel_texts(screen, surface, monkeypatch)]
    assert "Game to 75 · lowest wins" in texts
    stars = stars_hand()
    screen = stars.screen(len(stars.history))
    assert "Game to 200" in [text for text, _, _ in panel_texts(screen, surface, monkeypatch)]


# --- the side log ---------------------------------------------------------------------------


def test_the_side_log_names_each_tricks_taker() -> None:
    play = hearts_moon_play()
    first = next(i for i, (_, e, a) in enumerate(play.history)
                 if e.type == "played" and a.tricks_played == 1)
    screen = play.screen(first)
    play.feed(screen, first, first + 1)
    assert not screen.ui.log, "a line waits for its card to land and the trick to be taken"
    settle(screen, 3.0)
    assert screen.ui.log[-1].splitlines()[-1] == "Ada takes the trick with the Ace of Clubs"
    stars = stars_hand()
    trick = next(i for i, (_, e, a) in enumerate(stars.history)
                 if e.type == "played" and a.tricks_played == 1 and not a.trick)
    screen = stars.screen(trick)
    stars.feed(screen, trick, trick + 1)
    settle(screen, 3.0)
    result = stars.history[trick][2].tricks[0][1]
    words = screen.ui.log[-1].splitlines()[-1]
    if result.star:
        assert "Star" in words
    else:
        assert words.startswith(f"{NAMES[result.taker]} takes the trick with the ")


def test_log_lines_are_wrapped_in_one_font_size(surface: pygame.Surface,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from starhall.client.games.tricks import table as table_view

    drawn: list[tuple[str, int, pygame.Rect]] = []
    original = table_view.blit_text

    def spy(target: Any, message: str, size: int, *args: Any, **kwargs: Any) -> Any:
        assert "max_width" not in kwargs  # never squeezed
        rect = original(target, message, size, *args, **kwargs)
        drawn.append((message, size, rect))
        return rect

    monkeypatch.setattr(table_view, "blit_text", spy)
    area = pygame.Rect(1000, 400, 248, 300)
    log = ["Bruno takes the trick with the Queen of Spades",
           "A very long line of the log that cannot fit the panel's width in one go at all, "
           "so it must wrap onto more lines", "short"]
    TableView._draw_log(surface, area, log)
    assert {size for _, size, _ in drawn} == {table_view.LOG_SIZE}
    assert len(drawn) >= 5 and all(area.contains(rect) for _, _, rect in drawn)
    assert drawn[-1][0] == "short"


# --- greyed-out cards -----------------------------------------------------------------------


def test_a_greyed_out_card_is_sent_and_the_servers_reason_shown(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client decides nothing: a greyed-out card is sent like any other, and the
    server's refusal, which says why ("you must follow suit: …"), is what the table shows,
    in the refusal's red, not a note of the client's own."""
    play = Played("stars", 4, seed=11)
    game = play.game

    def must_follow(state: Any) -> bool:
        if state.phase != "play" or state.turn != 0 or not state.trick:
            return False
        legal = game.view(state, 0)["legal"]["play"]
        return len(legal) < len(game.view(state, 0)["hand"])

    play.run_until(must_follow)
    sent: list[Any] = []
    screen = play.screen(len(play.history), sent=sent)
    view = screen.model.view
    greyed = [c for c in view["hand"] if c not in view["legal"]["play"]]
    hotspots = screen.draw(surface)
    rect = next(s.rect for s in hotspots.spots if s.action == ("card", greyed[0]))
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1,
                                     pos=rect.move(4, 4).topleft), hotspots)
    assert sent == [("play", {"card": greyed[0]})]
    assert screen.model.refusal is None  # nothing of the client's own meanwhile
    with pytest.raises(IllegalCommand) as refused:  # what the server answers
        play.table.submit(Command("play", 0, sent[0][1]))
    reason = refused.value.reason
    assert reason.startswith("you must follow suit: ")
    screen.model.refuse(reason)
    from starhall.client.games.tricks import table as table_view

    drawn: list[str] = []
    original = table_view.blit_text

    def spy(target: Any, message: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(message)
        return original(target, message, *args, **kwargs)

    monkeypatch.setattr(table_view, "blit_text", spy)
    screen.draw(surface)
    area = screen.layout.prompt_area
    colours = {tuple(surface.get_at((x, area.centery)))[:3] for x in range(area.x, area.right)}
    assert theme.ALERT in colours
    assert " ".join(drawn).count("Refused: you must follow suit:") == 1
    screen.ui.focus = view["hand"].index(greyed[-1])  # by keyboard: the same
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0,
                                     unicode="\r"), hotspots)
    assert sent[-1] == ("play", {"card": greyed[-1]})


# --- received and buried cards ----------------------------------------------------------------


def tag_pixel(screen: TableScreen, code: str) -> tuple[int, int, int]:
    hand = screen.model.hand
    rect = screen.layout.hand_rects(len(hand))[hand.index(code)]
    return tuple(screen_surface().get_at((rect.x + 5, rect.bottom - 14)))[:3]


def screen_surface() -> pygame.Surface:
    surface = pygame.display.get_surface()
    assert surface is not None
    return surface


def test_passed_cards_are_marked_new_until_the_first_trick(surface: pygame.Surface) -> None:
    play = Played("hearts", 4, seed=4)
    play.run_until(lambda s: s.phase == "play")
    screen = play.screen(len(play.history))
    received = screen.model.view["received"]
    assert received and received_cards(screen.model) == set(received)
    screen.draw(surface)
    others = [c for c in screen.model.hand if c not in received]
    for code in received:
        assert tag_pixel(screen, code) == theme.GOLD
    assert tag_pixel(screen, others[0]) != theme.GOLD
    play.run_until(lambda s: s.tricks_played == 1)
    screen = play.screen(len(play.history))
    assert received_cards(screen.model) == set()


def test_the_exchange_and_the_widow_are_marked_new(surface: pygame.Surface) -> None:
    def take(game: Any, state: Any, seat: int) -> Command | None:
        legal = game.view(state, seat).get("legal", {})
        exchange = legal.get("exchange")
        if seat == 0 and exchange and exchange.get("discard_from"):
            return Command("take_exchange", 0,
                           {"cards": exchange["discard_from"][:exchange["count"]]})
        return None

    play = Played("hearts", 6, {"pass_cards": 0}, seed=2, chooser=take)
    play.run_until(lambda s: s.phase in ("pass", "play") or s.hand_number > 1)
    exchange = play.last("exchange_taken")
    before, event, _ = play.history[exchange]
    assert event.seat == 0
    undealt = set(play.game.snapshot(before)["undealt"])
    screen = play.screen(0)
    play.feed(screen, 0, exchange + 1)
    assert undealt and received_cards(screen.model) == undealt
    stars = Played("stars", 4, seed=3, chooser=stars_declarer_zero)
    stars.run_until(lambda s: s.phase == "bury")
    screen = stars.screen(len(stars.history))
    widow = screen.model.view["widow"]
    assert len(widow) == 3 and received_cards(screen.model) == set(widow)
    screen.draw(surface)
    assert all(tag_pixel(screen, code) == theme.GOLD for code in widow)


def test_the_declarer_can_review_the_buried_cards(surface: pygame.Surface) -> None:
    play = Played("stars", 4, seed=3, chooser=stars_declarer_zero)
    play.run_until(lambda s: s.phase == "play" and s.tricks_played == 2)
    screen = play.screen(len(play.history), sent=[])
    buried = screen.model.view["buried"]
    assert len(buried) == 3
    hotspots = screen.draw(surface)
    rect = next(s.rect for s in hotspots.spots if s.action == ("button", "buried"))
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=rect.center),
                  hotspots)
    assert screen.ui.overlay == "buried"
    screen.model.refuse("a refusal that must not show through")
    screen.draw(surface)
    table = screen.layout.table
    alert = sum(1 for x, y in itertools.product(range(table.x, table.right, 4),
                                                range(table.y, table.bottom, 4))
                if tuple(surface.get_at((x, y)))[:3] == theme.ALERT)
    assert alert == 0, "nothing shows through an overlay"
    assert any(sum(tuple(surface.get_at((table.centerx, y)))[:3]) > 600  # a card face
               for y in range(table.y, table.bottom, 2))
    trick = screen.layout.trick_area.inflate(-4, -4)
    for corner in (trick.topleft, trick.topright, trick.bottomleft, trick.bottomright):
        assert tuple(surface.get_at(corner))[:3] == theme.PANEL, "the box covers the trick"
    screen.key(pygame.K_b)
    assert screen.ui.overlay is None
    others = Played("stars", 4, seed=3, chooser=stars_declarer_zero)
    others.run_until(lambda s: s.phase == "play")
    assert "buried" not in others.game.view(others.table.state, 1)
    hotspots = others.screen(len(others.history), seat=1).draw(surface)
    assert not any(s.action == ("button", "buried") for s in hotspots.spots)


# --- nothing overlaps ------------------------------------------------------------------------


@pytest.mark.parametrize("card_size", ["small", "normal", "large"])
def test_nothing_overlaps_at_any_player_count_and_window_size(card_size: str) -> None:
    settings.save(settings.Settings(card_size=card_size))
    for (width, height), players in itertools.product(SIZES, range(3, 7)):
        for bottom in range(players):
            layout = Layout(width, height, players, bottom)
            regions = layout.regions(piles=players == 4)
            for (a, rect_a), (b, rect_b) in itertools.combinations(regions.items(), 2):
                assert not rect_a.colliderect(rect_b), (width, height, players, a, b)
            window = pygame.Rect(0, 0, width, height)
            assert all(window.contains(rect) for rect in regions.values())
            assert layout.corner.contains(rules_button_rect(layout.table))
            assert layout.corner.contains(settings_button_rect(layout.table))
            report = pygame.Rect(0, 0, fonts.font(14).size(REPORT_LABEL)[0] + 24, 30)
            report.topright = (layout.table.right - 12, layout.table.y + 12)
            assert layout.corner_right.contains(report)
            for seat in range(players):  # what a seat says covers no one else's plate
                bubble = pygame.Rect(0, 0, 70, 34)
                bubble.center = tuple(map(round, layout.bubble_point(seat)))
                others = [layout.plate_rect(s) for s in range(players) if s != seat]
                assert bubble.collidelist(others) == -1
                assert not bubble.colliderect(layout.prompt_area) or layout.relative(seat)
            banner = pygame.Rect(0, 0, 160, 44)
            banner.center = tuple(map(round, layout.banner_point))
            assert banner.collidelist([layout.plate_rect(s) for s in range(players)]) == -1


def buttons_clear_of_seats(screen: TableScreen, surface: pygame.Surface) -> int:
    hotspots = screen.draw(surface)
    layout = screen.layout
    buttons = [s.rect for s in hotspots.spots
               if s.action[0] in ("bid", "bid_step", "bid_pass", "choose", "decline_exchange")]
    boxes = [layout.seat_box(s) for s in range(layout.players)]
    for rect in buttons:
        assert rect.collidelist(boxes) == -1 and layout.table.contains(rect)
        assert not rect.colliderect(layout.prompt_area)
    return len(buttons)


def test_buttons_fit_between_the_seats_in_small_windows(surface: pygame.Surface) -> None:
    stars = Played("stars", 4, seed=3)
    stars.run_until(lambda s: s.phase == "bidding" and s.turn == 0 and s.high_bid)
    hearts = Played("hearts", 6, {"mode": "no_exchange"}, seed=3)
    hearts.run_until(lambda s: s.phase == "pass")
    for size in SIZES:
        for play in (stars, hearts):
            screen = play.screen(len(play.history), sent=[])
            screen.resize(size)
            small = pygame.Surface(size)
            assert buttons_clear_of_seats(screen, small) >= 1


def test_six_players_trick_cards_do_not_cover_each_other(surface: pygame.Surface) -> None:
    play = Played("hearts", 6, seed=5)
    play.run_until(lambda s: s.phase == "play" and len(s.trick) == 5)
    for size in SIZES:
        screen = play.screen(len(play.history))
        screen.resize(size)
        rects = [screen.layout.trick_rect(seat) for seat, _ in screen.model.view["trick"]]
        assert all(not a.colliderect(b) for a, b in itertools.combinations(rects, 2))
        assert screen.layout.trick_area.collidelist(
            [screen.layout.prompt_area, screen.layout.my_plate]) == -1


def test_the_seat_highlight_and_the_prompt_follow_the_same_scene() -> None:
    play = Played("stars", 4, seed=3)
    play.run_until(lambda s: s.phase == "play" and s.turn == 0 and len(s.trick) == 1)
    at = len(play.history) - 1
    screen = play.screen(at)
    play.feed(screen, at, at + 1)  # the card before ours is still flying
    shown = screen.animator.payload or screen.model.view
    view = screen.view
    assert isinstance(view, TableView)
    words = view.prompt(screen.model, True, shown)
    waiting = shown.get("to_act") or []
    if 0 in waiting:
        assert words == "Your turn: play a card."
    else:
        assert words == f"Waiting for {NAMES[waiting[0]]} to play."


def test_the_replay_viewer_shows_summaries_and_waits_for_them(surface: pygame.Surface) -> None:
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.replay import load

    golden = Path(__file__).parent.parent / "replays" / "golden" / "stars_4p.starhall"
    viewer = ReplayScreen(load(golden), SIZE)
    ends = [i for i in range(1, len(viewer.states))
            if len(viewer.states[i][1].results) > len(viewer.states[i - 1][1].results)]
    viewer.seek(ends[0] - 1)
    viewer.control("step")  # the hand's last card
    for _ in range(40):
        viewer.frame(0.1)
    assert viewer.table.summaries.shown is not None
    viewer.control("play")
    for _ in range(40):
        viewer.frame(0.1)
    assert viewer.position == ends[0], "playing waits while the summary is up"
    viewer.key(pygame.K_RETURN)
    assert viewer.table.summaries.shown is None
    viewer.frame(1.0)
    assert viewer.position == ends[0] + 1
    viewer.seek(ends[0] - 1)
    viewer.control("step")
    viewer.control("step")  # stepping on moves past the summary, nothing is lost
    assert not viewer.table.summaries.active
    assert viewer.table.model.view["hand_number"] == 2
    viewer.draw(surface)
