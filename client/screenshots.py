"""Save a screenshot of every screen, for a person to look at: ``python -m client.screenshots
OUTDIR``. Tables are built from real games played by bots through the engine; the lobby talks
to a real embedded server."""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from client.app import open_window  # noqa: E402
from client.model import TableModel  # noqa: E402
from client.session import Batch  # noqa: E402
from client.table_screen import TableScreen  # noqa: E402
from shared.bots import make_bot  # noqa: E402
from shared.engine import Command, Event, Game  # noqa: E402
from shared.games import get_game  # noqa: E402
from shared.table import Table  # noqa: E402

SIZE = (1280, 720)
NAMES = ["Sam", "Ada", "Bruno", "Clara", "Dmitri", "Elif"]
Until = Callable[[Any], bool]


class Scripted:
    """A game driven by bots, where seat 0 bids so as to become the declarer."""

    def __init__(self, game_id: str, players: int = 4, seed: int = 3,
                 options: dict[str, Any] | None = None, path: str | None = None) -> None:
        self.game: Game[Any] = get_game(game_id)
        self.table = Table.new(self.game, players, options or {}, path=path)
        self.bots = [make_bot(self.game, "random", random.Random(seed + s))
                     for s in range(players)]
        self.deal = seed
        self.history: list[tuple[Any, Event, Any]] = []

    def run_until(self, until: Until, limit: int = 5000) -> None:
        game, table = self.game, self.table
        for _ in range(limit):
            if until(table.state):
                return
            if game.chance(table.state) is not None:
                self.deal += 1
                before = table.state
                for _, event in table.shuffle(self.deal):
                    self.history.append((before, event, table.state))
                continue
            seat = game.to_act(table.state)[0]
            command = self.choose(seat)
            before = table.state
            for _, event in table.submit(command):
                self.history.append((before, event, table.state))
        raise RuntimeError("the scripted game never reached the wanted moment")

    def choose(self, seat: int) -> Command:
        state = self.table.state
        if getattr(state, "phase", "") == "bidding":
            legal = self.game.view(state, seat).get("legal", {})
            if seat == 0 and "bid" in legal:
                return Command("bid", 0, {"amount": legal["bid"]["min"]})
            if legal.get("pass"):
                return Command("pass", seat, {})
        return self.bots[seat].choose(self.game, state, seat)

    def screen(self, seat: int | None = 0, interactive: bool = True) -> TableScreen:
        view = self.game.view(self.table.state, seat)
        model = TableModel(self.game.id, seat, self.table.players, NAMES[: self.table.players])
        screen = TableScreen(model, (lambda kind, data: None) if interactive else None,
                             size=SIZE)
        screen.receive(Batch([], view, self.table.seq, True))
        return screen


def _event_dict(event: Event) -> dict[str, Any]:
    return {"type": event.type, "seat": event.seat, "data": dict(event.data)}


def save(surface: pygame.Surface, screen: Any, folder: Path, name: str) -> None:
    screen.draw(surface)
    pygame.image.save(surface, str(folder / f"{name}.png"))
    print(folder / f"{name}.png")


def stars_screens(surface: pygame.Surface, folder: Path) -> None:
    play = Scripted("stars", seed=3)
    play.run_until(lambda s: s.phase == "bidding" and s.turn == 0)
    screen = play.screen()
    screen.ui.say("New hand dealt")
    save(surface, screen, folder, "stars_1_bidding")
    play.run_until(lambda s: s.phase == "bury")
    screen = play.screen()
    screen.ui.selected = screen.model.hand[:2]
    save(surface, screen, folder, "stars_2_burial")
    play.run_until(lambda s: s.phase == "play" and s.turn == 0 and len(s.trick) >= 2)
    screen = play.screen()
    save(surface, screen, folder, "stars_3_your_turn")
    screen.model.refuse("you must follow suit: Leaves was led")
    save(surface, screen, folder, "stars_4_refused")
    # A Star: play on until a trick is a Star, then show its animation half-way.
    game = play.game
    play.run_until(lambda s: bool(game.view(s, None).get("last_star"))
                   and play.history and play.history[-1][1].type == "played"
                   and not s.trick)
    before, event, after = play.history[-1]
    model = TableModel("stars", 0, 4, NAMES[:4])
    screen = TableScreen(model, None, size=SIZE)
    screen.receive(Batch([], game.view(before, 0), 1, True))
    shown = game.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(2, _event_dict(shown))], game.view(after, 0), 2, False))
    screen.update(0.5)
    save(surface, screen, folder, "stars_5_trick_complete")
    screen.update(0.95)
    save(surface, screen, folder, "stars_6_star_flies_to_pile")
    screen.update(3.0)
    save(surface, screen, folder, "stars_7_star_pile")
    screen.ui.overlay = "last"
    save(surface, screen, folder, "stars_8_last_trick")
    play.run_until(lambda s: s.phase == "over", limit=20000)
    screen = play.screen()
    save(surface, screen, folder, "stars_9_game_over_chart")
    screen.ui.overlay = "sheet"
    save(surface, screen, folder, "stars_10_score_sheet")
    screen = play.screen(seat=None, interactive=False)
    screen.ui.dismissed_game_over = True
    screen.model.connection = "lost"
    save(surface, screen, folder, "stars_11_spectator_connection_lost")


def hearts_screens(surface: pygame.Surface, folder: Path) -> None:
    play = Scripted("hearts", seed=4)
    play.run_until(lambda s: s.phase == "exchange" and s.turn == 0)
    save(surface, play.screen(), folder, "hearts_1_exchange")
    play.run_until(lambda s: s.phase == "pass")
    screen = play.screen()
    screen.ui.selected = screen.model.hand[-2:]
    save(surface, screen, folder, "hearts_2_passing")
    play.run_until(lambda s: s.phase == "play" and s.turn == 0 and len(s.trick) == 3)
    save(surface, play.screen(), folder, "hearts_3_your_turn")
    # Cards being dealt, caught in the middle of the deal.
    five = Scripted("hearts", players=5, seed=8)
    five.run_until(lambda s: s.hand_number == 1)
    before, event, after = five.history[0]
    model = TableModel("hearts", 0, 5, NAMES[:5])
    screen = TableScreen(model, None, size=SIZE)
    screen.receive(Batch([], five.game.view(before, 0), 0, True))
    shown = five.game.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(1, _event_dict(shown))], five.game.view(after, 0), 1, False))
    screen.update(0.9)
    save(surface, screen, folder, "hearts_4_dealing_5_players")


def star_screens(surface: pygame.Surface, folder: Path) -> None:
    """The Star: a game in progress, the hint, a pairing in flight, a win, a stuck and a lost
    game, a small window and the replay viewer; deals 1 (won by the hints) and 638 (stuck
    after six decisions). Statistics go to a scratch folder, not the user's."""
    from client.replay_screen import ReplayScreen
    from client.star_stats import DATA_ENV
    from shared.games.star_patience_bots import hint_for_view
    from shared.replay import load

    saved = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = tempfile.mkdtemp()
    try:
        game = get_game("star_patience")

        def start(deal: int) -> tuple[Table[Any], TableScreen]:
            table = Table.new(game, 1, {"deal": deal}, path=str(
                Path(tempfile.mkdtemp()) / f"star_{deal}.starhall"))
            table.shuffle(deal)
            model = TableModel("star_patience", 0, 1, ["You"], table=f"deal-{deal}")
            screen = TableScreen(model, lambda kind, data: None, size=SIZE)
            screen.receive(Batch([], game.view(table.state, 0), table.seq, True))
            return table, screen

        def move(table: Table[Any], screen: TableScreen, settle: bool = True) -> None:
            command = hint_for_view(game.view(table.state, 0))
            if command is None:
                command = Command("give_up", 0, {})
            before = table.state
            for seq, event in table.submit(command):
                shown = game.event_view(before, event, 0)
                assert shown is not None
                screen.receive(Batch([(seq, _event_dict(shown))], game.view(table.state, 0),
                                     seq, False))
            if settle:
                for _ in range(20):
                    screen.update(0.1)

        table, screen = start(1)
        for _ in range(3):
            move(table, screen)
        save(surface, screen, folder, "star_1_in_progress")
        screen.act(("star_button", "hint"))
        save(surface, screen, folder, "star_2_hint")
        move(table, screen, settle=False)
        screen.update(0.2)
        save(surface, screen, folder, "star_3_pair_leaving")
        while game.view(table.state, 0)["phase"] == "play":
            move(table, screen)
        save(surface, screen, folder, "star_4_won")
        table, screen = start(638)
        while game.view(table.state, 0)["phase"] == "play":
            move(table, screen)
        save(surface, screen, folder, "star_5_stuck")
        move(table, screen)
        save(surface, screen, folder, "star_6_lost")
        small = pygame.Surface((820, 520))
        screen.resize(small.get_size())
        screen.act(("star_button", "dismiss"))
        save(small, screen, folder, "star_7_small_window")
        screen.resize(SIZE)
        screen.act(("star_button", "choose"))
        screen.view.entry = "638"  # type: ignore[attr-defined]
        save(surface, screen, folder, "star_8_deal_number_box")
        golden = Path(__file__).parent.parent / "replays" / "golden"
        path = golden / "star_patience_1p_deal-2_undo-True.starhall"
        if path.exists():
            viewer = ReplayScreen(load(path), SIZE)
            viewer.seek(len(viewer.states) // 2)
            save(surface, viewer, folder, "star_9_replay_everything")
    finally:
        if saved is None:
            os.environ.pop(DATA_ENV, None)
        else:
            os.environ[DATA_ENV] = saved


def what_else_screens(surface: pygame.Surface, folder: Path) -> None:
    """A card game – what else?: the user's turn at 3 players, a table of 6 (and in a smaller
    window), a round's end in flight and its summary, the refill, the rules card, the end of
    the game, a spectator and the replay viewer."""
    from client.replay_screen import ReplayScreen
    from shared.replay import load

    game = get_game("what_else")

    def seat_view(state: Any, seat: int = 0) -> dict[str, Any]:
        return game.view(state, seat)

    def choosing(state: Any) -> bool:
        view = seat_view(state)
        fits = view["legal"]["play"]
        return (len(view["pile"]) >= 3 and bool(fits)
                and any(code not in fits for code in view["hand"]))

    def replay(play: Scripted, seat: int | None, size: tuple[int, int] = SIZE) -> TableScreen:
        """A screen that has seen the game's events (its log lines too)."""
        model = TableModel("what_else", seat, play.table.players, NAMES[: play.table.players])
        screen = TableScreen(model, (lambda kind, data: None) if seat is not None else None,
                             size=size)
        first, _, _ = play.history[0]
        screen.receive(Batch([], game.view(first, seat), 0, True))
        for seq, (before, event, after) in enumerate(play.history, start=1):
            shown = game.event_view(before, event, seat)
            if shown is not None:
                screen.receive(Batch([(seq, {"seq": seq, **_event_dict(shown)})],
                                     game.view(after, seat), seq, False))
            screen.animator.skip_all()
            screen.summaries.skip()  # a round's summary would hold every later batch
        screen.update(0.3)
        return screen

    three = Scripted("what_else", players=3, seed=21)
    three.run_until(choosing)
    save(surface, replay(three, 0), folder, "what_else_1_your_turn_3p")
    six = Scripted("what_else", players=6, seed=5)
    six.run_until(lambda s: seat_view(s)["round"] >= 2 and len(seat_view(s)["pile"]) >= 4)
    save(surface, replay(six, 0), folder, "what_else_2_six_players")
    small = pygame.Surface((1024, 640))
    save(small, replay(six, 0, (1024, 640)), folder, "what_else_3_six_players_1024x640")
    # A round's end: the last play, then the pile sweeping and the token in flight.
    four = Scripted("what_else", players=4, seed=8)
    four.run_until(lambda s: seat_view(s)["round"] >= 2 and seat_view(s)["phase"] == "play")
    four.run_until(lambda s: seat_view(s)["phase"] == "refill")
    before, event, after = four.history[-1]
    model = TableModel("what_else", 0, 4, NAMES[:4])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], seat_view(before), 1, True))
    shown = game.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(2, {"seq": 2, **_event_dict(shown)})], seat_view(after), 2, False))
    screen.update(0.6)
    save(surface, screen, folder, "what_else_4_round_won")
    screen.update(1.6)  # the full pile stays a moment
    screen.update(0.45)
    save(surface, screen, folder, "what_else_5_pile_swept_token_flies")
    screen.update(4.0)
    save(surface, screen, folder, "what_else_6_round_summary")
    four.run_until(lambda s: seat_view(s)["legal"]["refill"])
    screen = replay(four, 0)
    screen.ui.selected = screen.model.hand[:2]
    save(surface, screen, folder, "what_else_7_refill_selection")
    screen.ui.selected = []
    screen.ui.overlay = "help"
    save(surface, screen, folder, "what_else_8_how_to_play")
    four.run_until(lambda s: seat_view(s)["phase"] == "over", limit=20000)
    save(surface, replay(four, 0), folder, "what_else_9_game_over")
    five = Scripted("what_else", players=5, seed=2)
    five.run_until(lambda s: len(seat_view(s, None)["pile"]) >= 3)
    save(surface, replay(five, None), folder, "what_else_10_spectator")
    path = Path(tempfile.mkdtemp()) / "what_else.starhall"
    logged = Scripted("what_else", players=4, seed=9, path=str(path))
    logged.run_until(lambda s: seat_view(s)["phase"] == "over", limit=20000)
    logged.table.log.close()  # type: ignore[union-attr]
    viewer = ReplayScreen(load(path), SIZE)
    viewer.seek(viewer.trick_ends[len(viewer.trick_ends) // 2])
    save(surface, viewer, folder, "what_else_11_replay_everything")
class BarsPlay:
    """A Stars and Bars game on a table screen seen by seat 0 ("Sam"), against "Ada": seat 0
    plays as the default bot would, seat 1 too, except that Ada forgets her duties when
    ``forgetful`` (so Sam has something to claim). Each move reaches the screen as the
    server would send it: the event as seat 0 sees it, and the view after it."""

    def __init__(self, seed: int, forgetful: bool = False, path: str | None = None) -> None:
        from shared.bots import default_bot

        self.game: Game[Any] = get_game("stars_and_bars")
        self.table = Table.new(self.game, 2, {}, path=path)
        kind = default_bot(self.game)
        self.bots = [make_bot(self.game, kind, random.Random(seed + s)) for s in range(2)]
        self.forgetful = forgetful
        model = TableModel("stars_and_bars", 0, 2, ["Sam", "Ada"], table=f"bars-{seed}")
        self.screen = TableScreen(model, lambda kind, data: None, size=SIZE)
        self.screen.receive(Batch([], self.view(), 0, True))
        self.submit(None, seed)

    def view(self) -> dict[str, Any]:
        return self.game.view(self.table.state, 0)

    def submit(self, command: Command | None, seed: int = 0, settle: bool = True) -> None:
        before = self.table.state
        for seq, event in (self.table.shuffle(seed) if command is None
                           else self.table.submit(command)):
            shown = self.game.event_view(before, event, 0)
            assert shown is not None
            self.screen.receive(Batch([(seq, _event_dict(shown))], self.view(), seq, False))
            before = self.table.state
        if settle:
            self.screen.animator.skip_all()

    def choose(self) -> Command:
        state = self.table.state
        seat = self.game.to_act(state)[0]
        legal = self.game.view(state, seat)["legal"]
        if seat == 1 and self.forgetful and legal.get("duties"):
            return Command("end_turn", 1, {})
        return self.bots[seat].choose(self.game, state, seat)

    def run_until(self, until: Callable[[dict[str, Any]], bool], limit: int = 2000) -> None:
        for _ in range(limit):
            if until(self.view()):
                return
            if self.game.outcome(self.table.state).over:
                break
            self.submit(self.choose())
        raise RuntimeError("the scripted game never reached the wanted moment")


def _my_turn_to_place(view: dict[str, Any]) -> bool:
    return view["to_act"] == [0] and (view["turn"] or {}).get("placed") is None


def bars_screens(surface: pygame.Surface, folder: Path) -> None:
    """Stars and Bars: the first turn, a card chosen with teacher mode on, the points rising
    after a placing, a claim offered and announced, face-down stacks, the end of a game, a
    spectator, a small window and the replay viewer."""
    from client.bars_choreography import BarsGeometry
    from client.bars_view import BarsView
    from client.replay_screen import ReplayScreen
    from shared.replay import load

    play = BarsPlay(seed=5)
    play.run_until(_my_turn_to_place)
    screen = play.screen
    save(surface, screen, folder, "bars_1_first_turn")
    view = screen.view
    assert isinstance(view, BarsView)
    placements = play.view()["legal"]["placements"]
    card, (space, _) = max(((code, max(options, key=lambda o: o[1]))
                            for code, options in placements.items()), key=lambda c: c[1][1])
    screen.act(("bars_card", card))
    view.teacher = True
    screen.ui.mouse = BarsGeometry.of(screen.layout).space_rect(space).center
    save(surface, screen, folder, "bars_2_card_chosen_teacher_on")
    view.teacher = False
    screen.ui.mouse = (-1, -1)
    play.submit(Command("place", 0, {"card": card, "space": space}), settle=False)
    screen.update(FLY_AND_A_BIT)
    save(surface, screen, folder, "bars_3_points_rising")
    screen.animator.skip_all()
    save(surface, screen, folder, "bars_4_placed_end_turn")
    play = BarsPlay(seed=11, forgetful=True)
    play.run_until(lambda v: _my_turn_to_place(v) and bool(v["legal"].get("claims")))
    save(surface, play.screen, folder, "bars_5_claim_offered")
    claim = dict(play.view()["legal"]["claims"][0])
    claim.pop("points", None)
    play.submit(Command("claim", 0, claim), settle=False)
    play.screen.update(0.3)
    save(surface, play.screen, folder, "bars_6_claim_announced")
    play.screen.animator.skip_all()
    play.run_until(lambda v: any(entry["face_down"] for entry in v["board"])
                   and _my_turn_to_place(v))
    save(surface, play.screen, folder, "bars_7_face_down_stacks")
    path = Path(tempfile.mkdtemp()) / "bars.starhall"
    play = BarsPlay(seed=8, path=str(path))
    play.run_until(lambda v: v["phase"] == "over", limit=5000)
    save(surface, play.screen, folder, "bars_8_game_over")
    play.screen.ui.dismissed_game_over = True
    small = pygame.Surface((900, 560))
    play.screen.resize(small.get_size())
    save(small, play.screen, folder, "bars_9_small_window")
    play.table.log.close()  # type: ignore[union-attr]
    watcher = TableScreen(TableModel("stars_and_bars", None, 2, ["Sam", "Ada"]), None,
                          size=SIZE)
    viewer = ReplayScreen(load(path), SIZE)
    viewer.seek(len(viewer.states) // 2)
    seq, state = viewer.states[viewer.position]
    watcher.receive(Batch([], play.game.view(state, None), seq, True))
    save(surface, watcher, folder, "bars_10_spectator")
    save(surface, viewer, folder, "bars_11_replay")


FLY_AND_A_BIT = 0.75
"""Seconds into a placing's animation: the card has landed and its points are rising."""


def replay_screens(surface: pygame.Surface, folder: Path) -> None:
    from client.replay_screen import ReplayScreen
    from shared.replay import load

    path = Path(tempfile.mkdtemp()) / "stars.starhall"
    play = Scripted("stars", seed=6, path=str(path))
    play.run_until(lambda s: s.phase == "over", limit=20000)
    play.table.log.close()  # type: ignore[union-attr]
    viewer = ReplayScreen(load(path), SIZE)
    viewer.seek(len(viewer.states) // 3)
    save(surface, viewer, folder, "replay_1_everything")
    viewer.control("viewer")
    viewer.control("viewer")
    save(surface, viewer, folder, "replay_2_as_seat_0")


def lobby_screen(surface: pygame.Surface, folder: Path) -> None:
    """The lobby, its new-table form, a table waiting for players seen by the one who opened
    it, and a player who left a game under way (seat tokens go to a scratch data folder)."""
    from client.embedded import EmbeddedServer
    from client.lobby import Lobby

    saved = os.environ.get("STARHALL_DATA_DIR")
    os.environ["STARHALL_DATA_DIR"] = tempfile.mkdtemp()

    def pump(lobbies: list[Lobby], condition: Any) -> None:
        for _ in range(500):
            for each in lobbies:
                each.frame(0.5)
                each.draw(surface)
            if condition():
                return
            time.sleep(0.01)

    try:
        with EmbeddedServer(tempfile.mkdtemp(), think=0.0) as server:
            lobby = Lobby(SIZE, server.address, "You")
            pump([lobby], lambda: lobby.form is not None)
            assert lobby.link is not None and lobby.form is not None
            lobby.link.send({"type": "create", "game": "hearts", "players": 4})
            lobby.link.send({"type": "create", "game": "stars", "players": 4})
            lobby.last_list = -100
            pump([lobby], lambda: len(lobby.tables) >= 2)
            save(surface, lobby, folder, "lobby")
            while lobby.form.game.get("id") != "hearts":
                lobby.act(("form", "game", 1))
            lobby.act(("form", "players", 1))
            lobby.act(("form", "option", "mode", 1))
            lobby.act(("form", "fill"))
            save(surface, lobby, folder, "lobby_new_table")
            lobby.create(False)
            pump([lobby], lambda: lobby.waiting_info() is not None)
            info = lobby.waiting_info()
            assert info is not None
            guest = Lobby(SIZE, server.address, "Bruno")
            pump([guest], lambda: bool(guest.tables))
            guest.open_table("sit", str(info["id"]))
            lobby.room_act(("room", "bot", 2))
            pump([lobby, guest], lambda: sum(
                s.get("state") != "free" for s in (lobby.waiting_info() or {}).get(
                    "seats", [])) == 3)
            save(surface, lobby, folder, "lobby_waiting_for_players")
            lobby.room_act(("room", "start"))
            pump([lobby, guest], lambda: lobby.waiting_info() is None
                 and guest.waiting_info() is None and guest.live is not None
                 and guest.live.table is not None)
            guest.close_table()
            pump([lobby, guest], lambda: any(
                spot.action[:2] == ("room", "standin") for spot in lobby.hotspots.spots))
            for _ in range(40):  # the deal's animation ends
                lobby.frame(0.5)
                time.sleep(0.01)
            save(surface, lobby, folder, "lobby_player_left")
            guest.close()
            lobby.close()
    finally:
        if saved is None:
            os.environ.pop("STARHALL_DATA_DIR", None)
        else:
            os.environ["STARHALL_DATA_DIR"] = saved


def settings_screens(surface: pygame.Surface, folder: Path) -> None:
    """The settings sheet over a table, its colour check for each game, in a scratch config
    folder (never the user's settings)."""
    from client import settings
    from shared.games import GAMES

    saved = os.environ.get(settings.CONFIG_ENV)
    os.environ[settings.CONFIG_ENV] = tempfile.mkdtemp()
    settings.forget()
    try:
        play = Scripted("hearts", players=6, seed=4)
        play.run_until(lambda s: s.phase == "play" and s.turn == 0)
        screen = play.screen()
        save(surface, screen, folder, "settings_0_button_at_a_table")
        sheet = screen.settings
        sheet.show()
        sheet.type_text("Sam")
        sheet.focus = 2
        save(surface, screen, folder, "settings_1_sheet")
        sheet.page = "colours"
        for index, game in enumerate(GAMES):
            sheet.check_game = index
            save(surface, screen, folder, f"settings_2_colour_check_{game}")
    finally:
        if saved is None:
            os.environ.pop(settings.CONFIG_ENV, None)
        else:
            os.environ[settings.CONFIG_ENV] = saved
        settings.forget()


def _hand_end_screen(play: Scripted, seat: int = 0) -> TableScreen:
    """A table shown the last card of the latest hand, as the server sends it (the hand's
    end in an update of its own), with its summary up."""
    game = play.game
    last = max(i for i, (_, event, _) in enumerate(play.history) if event.type == "played")
    before, event, after = play.history[last]
    players = play.table.players
    model = TableModel(game.id, seat, players, NAMES[:players])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], game.view(before, seat), last, True))
    shown = game.event_view(before, event, seat)
    assert shown is not None
    screen.receive(Batch([(last + 1, _event_dict(shown))], game.view(after, seat), last + 1,
                         False))
    for _ in range(40):
        screen.update(0.1)
    return screen


def _moon_shot() -> Scripted:
    """Classic Hearts without passing, dealt so that Ada (seat 1) wins every trick and is
    given every point card."""
    clubs = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]
    low = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    hands = [["2C"] + [f"{r}D" for r in low], [f"{r}C" for r in clubs] + ["AS"],
             ["AD"] + [f"{r}H" for r in low], ["AH"] + [f"{r}S" for r in low]]
    order = [hands[(1 + p) % 4][p // 4] for p in range(52)]
    play = Scripted("hearts", 4, options={"deck": "classic", "pass_cards": 0, "target": 200})
    before = play.table.state
    for _, event in play.table.submit(Command("shuffle", None, {"order": order})):
        play.history.append((before, event, play.table.state))
    rank = {"J": 11, "Q": 12, "K": 13, "A": 14}

    def value(code: str) -> int:
        return rank.get(code[:-1], 0) or int(code[:-1])

    def choose(seat: int) -> Command:
        legal = play.game.view(play.table.state, seat)["legal"]["play"]
        if seat == 1:
            return Command("play", seat, {"card": max(legal, key=value)})
        points = [c for c in legal if c == "QS" or c.endswith("H")]
        return Command("play", seat, {"card": (points or sorted(legal, key=value))[0]})

    play.choose = choose  # type: ignore[method-assign]
    play.run_until(lambda s: len(s.score_sheet) >= 1)
    return play


def trick_table_screens(surface: pygame.Surface, folder: Path) -> None:
    """Trick tables at their smallest and largest player counts in a large and a small
    window, hand summaries (a Stars contract, a Hearts moon shot), received cards marked
    new, and the declarer's buried cards."""
    small = pygame.Surface((800, 600))
    for players in (3, 6):
        play = Scripted("hearts", players=players, seed=5)
        play.run_until(lambda s, n=players: s.phase == "play" and len(s.trick) == n - 1
                       and s.turn == 0)
        screen = play.screen()
        save(surface, screen, folder, f"table_hearts_{players}p")
        screen.resize(small.get_size())
        save(small, screen, folder, f"table_hearts_{players}p_800x600")
    stars = Scripted("stars", seed=3)
    stars.run_until(lambda s: len(s.results) >= 1)
    save(surface, _hand_end_screen(stars), folder, "summary_stars_hand")
    save(surface, _hand_end_screen(_moon_shot()), folder, "summary_hearts_moon_shot")
    hearts = Scripted("hearts", seed=4)
    hearts.run_until(lambda s: s.phase == "play" and s.turn == 0 and s.tricks_played == 0)
    save(surface, hearts.screen(), folder, "table_hearts_received_cards")
    stars = Scripted("stars", seed=3)
    stars.run_until(lambda s: s.phase == "bury")
    save(surface, stars.screen(), folder, "table_stars_widow_received")
    stars.run_until(lambda s: s.phase == "play" and s.turn == 0 and s.tricks_played >= 1)
    screen = stars.screen()
    screen.button("buried")
    save(surface, screen, folder, "table_stars_buried_cards")


def card_gallery(surface: pygame.Surface, folder: Path) -> None:
    from client.cardart import CardArt
    from client.theme import FELT

    art = CardArt()
    surface.fill(FELT)
    rows = [["A*", "K*", "Q*", "J*", "10*", "2*", "JK"], ["AC", "KD", "QH", "JS", "9C", "5D", "7H"],
            ["Ck", "Kk", "Qs", "Sw", "Ll", "7k", "4s"], ["2w", "3l", "6w", "Cl", "Ks", "Lw", "5l"]]
    for r, row in enumerate(rows):
        for c, code in enumerate(row):
            surface.blit(art.face(code, 100, 140), (30 + c * 112, 20 + r * 172))
    surface.blit(art.back(100, 140), (30 + 7 * 112, 20))
    pygame.image.save(surface, str(folder / "cards.png"))
    print(folder / "cards.png")


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    surface = open_window(SIZE)
    card_gallery(surface, folder)
    stars_screens(surface, folder)
    hearts_screens(surface, folder)
    trick_table_screens(surface, folder)
    star_screens(surface, folder)
    what_else_screens(surface, folder)
    bars_screens(surface, folder)
    replay_screens(surface, folder)
    lobby_screen(surface, folder)
    settings_screens(surface, folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
