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
    replay_screens(surface, folder)
    lobby_screen(surface, folder)
    settings_screens(surface, folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
