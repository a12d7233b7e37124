"""Save a screenshot of every screen, for a person to look at: ``python -m tools.screenshots
OUTDIR`` (from the checkout). Tables are built from real games played by bots through the
engine and drawn as the window draws them (``client.screens.live.LiveTable``, with its
bug-report button); the lobby talks to a real embedded server. Each game's table is shown at
its smallest and largest player count, in a large window and a small one (``SIZE``,
``SMALL``), with its hand or round summary, its rules page, the leave question and its game
over with the shared panel.

Files are ``NNN_game_what[_WxH].png``, numbered in the order they are taken (a listing shows
them as a player meets them); the settings and data folders are scratch ones for the whole
run, so the user's own settings never change a picture and nothing is written to them."""

from __future__ import annotations

import contextlib
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from starhall.client.app import open_window  # noqa: E402
from starhall.client.net.model import TableModel  # noqa: E402
from starhall.client.net.session import Batch  # noqa: E402
from starhall.client.screens.hosted import KEPT_FOR_RESUME  # noqa: E402
from starhall.client.screens.live import LEAVE_TITLE, LiveTable  # noqa: E402
from starhall.client.screens.table_screen import GameOverPanel, Question, TableScreen  # noqa: E402
from starhall.shared.bots import make_bot  # noqa: E402
from starhall.shared.engine import Command, Event, Game, IllegalCommand  # noqa: E402
from starhall.shared.games import get_game  # noqa: E402
from starhall.shared.table import Table  # noqa: E402

SIZE = (1280, 720)
"""The large window: every screen is shot at this size."""
SMALL = (800, 600)
"""The small window, where layouts squeeze: the screens whose layout changes with it."""
MEDIUM = (1024, 640)
NAMES = ["Sam", "Ada", "Bruno", "Clara", "Dmitri", "Elif"]
Until = Callable[[Any], bool]
Size = tuple[int, int]


class Scripted:
    """A game driven by bots, where seat 0 bids so as to become the declarer."""

    def __init__(self, game_id: str, players: int = 4, seed: int = 3,
                 options: dict[str, Any] | None = None, path: str | None = None) -> None:
        self.game: Game[Any] = get_game(game_id)
        self.table = Table.new(self.game, players, options or {}, path=path)
        self.table.remember()
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
        return self.bots[seat].choose(self.table.observe(seat), 0.0)

    def screen(self, seat: int | None = 0, interactive: bool = True) -> TableScreen:
        view = self.game.view(self.table.state, seat)
        model = TableModel(self.game.id, seat, self.table.players, NAMES[: self.table.players])
        screen = TableScreen(model, (lambda kind, data: None) if interactive else None,
                             size=SIZE)
        screen.receive(Batch([], view, self.table.seq, True))
        return screen


def is_legal(play: Scripted, command: Command) -> bool:
    try:
        play.game.decide(play.table.state, command)
    except IllegalCommand:
        return False
    return True


def refusal(play: Scripted, command: Command) -> str:
    """The words the server sends back for ``command``, which the game refuses."""
    try:
        play.game.decide(play.table.state, command)
    except IllegalCommand as refused:
        return refused.reason
    raise AssertionError(f"{command} is not refused")


def _event_dict(event: Event) -> dict[str, Any]:
    return {"type": event.type, "seat": event.seat, "data": dict(event.data)}




class Shots:
    """Where the screenshots go. ``take`` draws a screen at a window size, as the window would
    (a table inside a ``LiveTable``), and saves it as the next ``NNN_game_what[_WxH].png``;
    the large size goes to the real window when there is one, so it can be watched."""

    def __init__(self, folder: Path, window: pygame.Surface) -> None:
        self.folder = folder
        self.window = window
        self.taken: list[str] = []
        self._tables = 0
        self._games = Path(os.environ.get("STARHALL_DATA_DIR") or tempfile.mkdtemp())

    def take(self, screen: Any, game: str, what: str, size: Size = SIZE) -> Path:
        if _size_of(screen) != size:
            screen.resize(size)
        surface = self.window if self.window.get_size() == size else pygame.Surface(size)
        drawn = in_window(screen) if isinstance(screen, TableScreen) else screen
        drawn.draw(surface)
        if surface is pygame.display.get_surface():
            pygame.display.flip()
            pygame.event.pump()
        suffix = "" if size == SIZE else f"_{size[0]}x{size[1]}"
        path = self.folder / f"{len(self.taken) + 1:03d}_{game}_{what}{suffix}.png"
        pygame.image.save(surface, str(path))
        self.taken.append(path.name)
        print(path)
        return path

    def log(self) -> str:
        """Where a new table's log goes, named as ``starhall play`` names it (a table of a
        games folder in the scratch data folder): the game-over panel shows this path."""
        self._tables += 1
        folder = self._games / "games" / "20250614-203107" / "tables"
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder / f"{self._tables:04d}.starhall")


def _size_of(screen: Any) -> Size:
    if isinstance(screen, TableScreen):
        return (screen.layout.width, screen.layout.height)
    return tuple(screen.size)  # type: ignore[return-value]


class _FedByHand:
    """Stands in for a live table's link to its server: these tables are fed by hand."""

    address = "127.0.0.1:7730"
    name = "Sam"
    state = "connected"

    def poll(self) -> list[dict[str, Any]]:
        return []

    def close(self) -> None:
        pass


def in_window(screen: TableScreen) -> LiveTable:
    """``screen`` as the window shows a table (``starhall play``): with the bug-report button,
    and its question over everything."""
    live = LiveTable(_FedByHand(), _size_of(screen), own_link=False,  # type: ignore[arg-type]
                     kept=KEPT_FOR_RESUME)
    live.table = screen
    return live


# --- the screens every game shares ----------------------------------------------------------


def rules_pages(shots: Shots, screen: TableScreen, game: str, section: str) -> None:
    """The game's rules page (F1) from its top in both windows, and scrolled to ``section``
    (a heading's anchor, somewhere with pictures or a table)."""
    rules = screen.rules
    rules.key(pygame.K_F1)
    shots.take(screen, game, "rules")
    rules.jump(section)
    assert rules.scroll > 0, f"{game}: no heading {section} on the rules page"
    shots.take(screen, game, "rules_" + section.strip("#").replace("-", "_"))
    rules.scroll_to(0)
    shots.take(screen, game, "rules", SMALL)
    rules.key(pygame.K_F1)
    screen.resize(SIZE)


def leave_question(shots: Shots, screen: TableScreen, game: str,
                   sizes: tuple[Size, ...] = (SIZE, SMALL)) -> None:
    """Esc at a live table with nothing open over it: the question a seat at a game under way
    gets from ``starhall play`` (``LiveTable``)."""
    screen.ask_before_leaving = Question(LEAVE_TITLE, KEPT_FOR_RESUME)
    screen.key(pygame.K_ESCAPE)
    assert screen.question is not None
    for size in sizes:
        shots.take(screen, game, "leave_question", size)
    screen.question = screen.ask_before_leaving = None
    screen.resize(SIZE)


def bug_report(shots: Shots, screen: TableScreen, game: str) -> None:
    """F9: the box asking what went wrong, a line typed, then where the report was saved."""
    live = in_window(screen)
    box = live.bug_report
    box.start()
    box.note = "Ada took the trick, but my Star was the higher card"
    shots.take(live, game, "bug_report_box")
    pygame.key.stop_text_input()
    folder = Path(shots.log()).parent.parent / "bug-reports"
    box.save = lambda note: folder / "bug-0001-20250614-204512.starhall-bug"
    box.submit()
    shots.take(live, game, "bug_report_saved")
    shots.take(live, game, "bug_report_saved", SMALL)
    live.resize(SIZE)


def offer_game_over(screen: TableScreen, log: str | None) -> TableScreen:
    """The shared game-over panel filled in, as ``LiveTable`` does once a game is over."""
    screen.game_over = GameOverPanel(log, play_again=screen.model.seat is not None)
    screen.update(0.0)
    return screen


def game_over(shots: Shots, screen: TableScreen, game: str, log: str | None,
              what: str = "game_over") -> None:
    offer_game_over(screen, log)
    for size in (SIZE, SMALL):
        shots.take(screen, game, what, size)
    screen.resize(SIZE)


# --- the games ------------------------------------------------------------------------------


def stars_screens(shots: Shots) -> None:
    """Stars, always four players: the bidding, the burial, a turn, a refusal, a Star flying
    to its pile, the last trick, a hand's summary, the rules page, the leave question, the bug
    report, the game over with the shared panel, the score sheet and a spectator who lost the
    server."""
    log = shots.log()
    play = Scripted("stars", seed=3, path=log)
    play.run_until(lambda s: s.phase == "bidding" and s.turn == 0)
    screen = play.screen()
    screen.ui.say("New hand dealt")
    shots.take(screen, "stars", "bidding")
    shots.take(screen, "stars", "bidding", SMALL)
    play.run_until(lambda s: s.phase == "bury")
    screen = play.screen()
    shots.take(screen, "stars", "widow_received")
    screen.ui.selected = screen.model.hand[:2]
    shots.take(screen, "stars", "burial")
    play.run_until(lambda s: s.phase == "play" and s.turn == 0 and len(s.trick) >= 2)
    screen = play.screen()
    shots.take(screen, "stars", "your_turn")
    shots.take(screen, "stars", "your_turn", SMALL)
    screen.resize(SIZE)
    screen.button("buried")
    shots.take(screen, "stars", "buried_cards")
    screen.button("buried")
    greyed = next(card for card in screen.model.hand
                  if not is_legal(play, Command("play", 0, {"card": card})))
    screen.card(greyed)  # greyed out: sent, and the server's refusal shown
    screen.model.refuse(refusal(play, Command("play", 0, {"card": greyed})))
    shots.take(screen, "stars", "refused")
    rules_pages(shots, screen, "stars", "#card-points")
    leave_question(shots, screen, "stars")
    bug_report(shots, screen, "stars")
    # A Star: play on until a trick is a Star, then show its animation half-way.
    game = play.game
    play.run_until(lambda s: bool(game.view(s, None).get("last_star"))
                   and play.history and play.history[-1][1].type == "played"
                   and not s.trick)
    before, event, after = play.history[-1]
    model = TableModel("stars", 0, 4, NAMES[:4])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], game.view(before, 0), 1, True))
    shown = game.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(2, _event_dict(shown))], game.view(after, 0), 2, False))
    screen.update(0.5)
    shots.take(screen, "stars", "trick_complete")
    for _ in range(9):  # the trick shown whole, then the Star half-way to its pile
        screen.update(0.1)
    shots.take(screen, "stars", "star_flies_to_pile")
    screen.update(3.0)
    assert screen.summaries.shown is not None, "the Star was not the hand's last trick"
    shots.take(screen, "stars", "hand_summary")
    shots.take(screen, "stars", "hand_summary", SMALL)
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0), None)
    assert screen.summaries.shown is None, "Enter did not dismiss the summary"
    screen.update(0.1)
    shots.take(screen, "stars", "star_pile")
    screen.ui.overlay = "last"
    shots.take(screen, "stars", "last_trick")
    play.run_until(lambda s: s.phase == "over", limit=20000)
    screen = play.screen()
    game_over(shots, screen, "stars", log)
    screen.ui.overlay = "sheet"
    shots.take(screen, "stars", "score_sheet")
    screen = play.screen(seat=None, interactive=False)
    offer_game_over(screen, log)
    shots.take(screen, "stars", "spectator_game_over")
    screen.ui.dismissed_game_over = True
    screen.model.connection = "lost"
    shots.take(screen, "stars", "spectator_connection_lost")
    play.table.log.close()  # type: ignore[union-attr]


def hearts_screens(shots: Shots) -> None:
    """Stardeck Hearts at 3 and 6 players in both windows, the exchange, the passing, passed
    cards marked new, the deal in flight, a hand's summary and a moon shot, the rules page,
    the leave question and the game over at 3 and 6 players with the shared panel."""
    play = Scripted("hearts", seed=4)
    play.run_until(lambda s: s.phase == "exchange" and s.turn == 0)
    shots.take(play.screen(), "hearts", "exchange_4p")
    play.run_until(lambda s: s.phase == "pass")
    screen = play.screen()
    screen.ui.selected = screen.model.hand[-2:]
    shots.take(screen, "hearts", "passing_4p")
    play.run_until(lambda s: s.phase == "play" and s.turn == 0 and s.tricks_played == 0)
    shots.take(play.screen(), "hearts", "received_cards_4p")
    # Cards being dealt, caught in the middle of the deal.
    five = Scripted("hearts", players=5, seed=8)
    five.run_until(lambda s: s.hand_number == 1)
    before, event, after = five.history[0]
    model = TableModel("hearts", 0, 5, NAMES[:5])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], five.game.view(before, 0), 0, True))
    shown = five.game.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(1, _event_dict(shown))], five.game.view(after, 0), 1, False))
    screen.update(0.9)
    shots.take(screen, "hearts", "dealing_5p")
    for players in (3, 6):
        log = shots.log()
        play = Scripted("hearts", players=players, seed=5, path=log)
        play.run_until(lambda s, n=players: s.phase == "play" and len(s.trick) == n - 1
                       and s.turn == 0)
        screen = play.screen()
        shots.take(screen, "hearts", f"your_turn_{players}p")
        shots.take(screen, "hearts", f"your_turn_{players}p", SMALL)
        if players == 6:
            leave_question(shots, play.screen(), "hearts", (SMALL,))
        play.run_until(lambda s: len(s.score_sheet) >= 1)
        screen = _hand_end_screen(play)
        shots.take(screen, "hearts", f"hand_summary_{players}p")
        shots.take(screen, "hearts", f"hand_summary_{players}p", SMALL)
        play.run_until(lambda s: s.phase == "over", limit=20000)
        game_over(shots, play.screen(), "hearts", log, f"game_over_{players}p")
        play.table.log.close()  # type: ignore[union-attr]
    screen = _hand_end_screen(_moon_shot())
    shots.take(screen, "hearts", "hand_summary_moon_shot")
    rules_pages(shots, screen, "hearts", "#the-star-rule-stars-are-trump")


def star_screens(shots: Shots) -> None:
    """The Star (one player): a game in progress in both windows, the hint, a pairing in
    flight, the rules page, a win and a loss with the shared panel, the deal number box and
    the replay viewer; deals 1 (won by the hints) and 638 (stuck after six decisions).
    Statistics go to the scratch data folder."""
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.games.star_patience.bots import hint_for_view
    from starhall.shared.replay import load

    game = get_game("star_patience")

    def start(deal: int) -> tuple[Table[Any], TableScreen, str]:
        log = shots.log()
        table = Table.new(game, 1, {"deal": deal}, path=log)
        table.shuffle(deal)
        model = TableModel("star_patience", 0, 1, ["You"], table=f"deal-{deal}")
        screen = TableScreen(model, lambda kind, data: None, size=SIZE)
        screen.receive(Batch([], game.view(table.state, 0), table.seq, True))
        return table, screen, log

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

    table, screen, log = start(1)
    for _ in range(3):
        move(table, screen)
    shots.take(screen, "star_patience", "in_progress")
    shots.take(screen, "star_patience", "in_progress", SMALL)
    screen.resize(SIZE)
    screen.act(("star_button", "hint"))
    shots.take(screen, "star_patience", "hint")
    move(table, screen, settle=False)
    screen.update(0.2)
    shots.take(screen, "star_patience", "pair_leaving")
    for _ in range(20):
        screen.update(0.1)
    rules_pages(shots, screen, "star_patience", "#how-to-play")
    leave_question(shots, screen, "star_patience", (SIZE,))
    while game.view(table.state, 0)["phase"] == "play":
        move(table, screen)
    game_over(shots, screen, "star_patience", log, "won")
    table.log.close()  # type: ignore[union-attr]
    table, screen, log = start(638)
    while game.view(table.state, 0)["phase"] == "play":
        move(table, screen)
    shots.take(screen, "star_patience", "stuck")
    move(table, screen)
    game_over(shots, screen, "star_patience", log, "lost")
    table.log.close()  # type: ignore[union-attr]
    screen.act(("star_button", "dismiss"))
    shots.take(screen, "star_patience", "lost_box_closed", SMALL)
    screen.resize(SIZE)
    screen.act(("star_button", "choose"))
    screen.view.entry = "638"  # type: ignore[attr-defined]
    shots.take(screen, "star_patience", "deal_number_box")
    golden = Path(__file__).parent.parent / "replays" / "golden"
    path = golden / "star_patience_1p_deal-2_undo-True.starhall"
    if path.exists():
        viewer = ReplayScreen(load(path), SIZE)
        viewer.seek(len(viewer.states) // 2)
        shots.take(viewer, "star_patience", "replay_everything")


def what_else_screens(shots: Shots) -> None:
    """A card game – what else?: the user's turn at 3 and at 6 players in three windows, a
    round's end in flight and its summary, the refill, the rules card and the rules page, the
    leave question, the end of the game at 3 and 6 players with the shared panel, a spectator
    and the replay viewer."""
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.replay import load

    game = get_game("what_else")

    def seat_view(state: Any, seat: int = 0) -> dict[str, Any]:
        return game.view(state, seat)

    def choosing(state: Any) -> bool:
        view = seat_view(state)
        fits = view["legal"]["play"]
        return (len(view["pile"]) >= 3 and bool(fits)
                and any(code not in fits for code in view["hand"]))

    def replay(play: Scripted, seat: int | None, size: Size = SIZE) -> TableScreen:
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

    logs = {3: shots.log(), 6: shots.log()}
    three = Scripted("what_else", players=3, seed=21, path=logs[3])
    three.run_until(choosing)
    screen = replay(three, 0)
    shots.take(screen, "what_else", "your_turn_3p")
    shots.take(screen, "what_else", "your_turn_3p", SMALL)
    six = Scripted("what_else", players=6, seed=5, path=logs[6])
    six.run_until(lambda s: seat_view(s)["round"] >= 2 and len(seat_view(s)["pile"]) >= 4)
    screen = replay(six, 0)
    for size in (SIZE, MEDIUM, SMALL):
        shots.take(screen, "what_else", "six_players", size)
    leave_question(shots, replay(six, 0), "what_else")
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
    shots.take(screen, "what_else", "round_won_4p")
    screen.update(1.6)  # the full pile stays a moment
    screen.update(0.45)
    shots.take(screen, "what_else", "pile_swept_token_flies_4p")
    screen.update(4.0)
    shots.take(screen, "what_else", "round_summary_4p")
    shots.take(screen, "what_else", "round_summary_4p", SMALL)
    four.run_until(lambda s: seat_view(s)["legal"]["refill"])
    screen = replay(four, 0)
    screen.ui.selected = screen.model.hand[:2]
    shots.take(screen, "what_else", "refill_selection_4p")
    screen.ui.selected = []
    screen.ui.overlay = "help"
    shots.take(screen, "what_else", "how_to_play_card")
    screen.ui.overlay = None
    rules_pages(shots, screen, "what_else", "#cards-and-codes")
    for play in (three, six):
        play.run_until(lambda s: seat_view(s)["phase"] == "over", limit=20000)
        players = play.table.players
        game_over(shots, replay(play, 0), "what_else", logs[players], f"game_over_{players}p")
        play.table.log.close()  # type: ignore[union-attr]
    five = Scripted("what_else", players=5, seed=2)
    five.run_until(lambda s: len(seat_view(s, None)["pile"]) >= 3)
    shots.take(replay(five, None), "what_else", "spectator_5p")
    path = Path(tempfile.mkdtemp()) / "what_else.starhall"
    logged = Scripted("what_else", players=4, seed=9, path=str(path))
    logged.run_until(lambda s: seat_view(s)["phase"] == "over", limit=20000)
    logged.table.log.close()  # type: ignore[union-attr]
    viewer = ReplayScreen(load(path), SIZE)
    viewer.seek(viewer.trick_ends[len(viewer.trick_ends) // 2])
    shots.take(viewer, "what_else", "replay_everything")


class BarsPlay:
    """A Stars and Bars game on a table screen seen by seat 0 ("Sam"), against "Ada": seat 0
    plays as the default bot would, seat 1 too, except that Ada forgets her duties when
    ``forgetful`` (so Sam has something to claim). Each move reaches the screen as the
    server would send it: the event as seat 0 sees it, and the view after it."""

    def __init__(self, seed: int, forgetful: bool = False, path: str | None = None) -> None:
        from starhall.shared.bots import default_bot

        self.game: Game[Any] = get_game("stars_and_bars")
        self.table = Table.new(self.game, 2, {}, path=path)
        self.table.remember()
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
        return self.bots[seat].choose(self.table.observe(seat), 0.0)

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




def bars_screens(shots: Shots) -> None:
    """Stars and Bars (two players): the first turn in both windows, a card chosen with
    teacher mode on, the points rising after a placing, a claim offered and announced,
    face-down stacks, the rules page, the leave question, the end of a game with the shared
    panel, a spectator and the replay viewer."""
    from starhall.client.games.stars_and_bars.choreography import BarsGeometry
    from starhall.client.games.stars_and_bars.table import BarsView
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.replay import load

    play = BarsPlay(seed=5)
    play.run_until(_my_turn_to_place)
    screen = play.screen
    shots.take(screen, "stars_and_bars", "first_turn")
    shots.take(screen, "stars_and_bars", "first_turn", SMALL)
    screen.resize(SIZE)
    view = screen.view
    assert isinstance(view, BarsView)
    placements = play.view()["legal"]["placements"]
    card, (space, _) = max(((code, max(options, key=lambda o: o[1]))
                            for code, options in placements.items()), key=lambda c: c[1][1])
    screen.act(("bars_card", card))
    view.teacher = True
    screen.ui.mouse = BarsGeometry.of(screen.layout).space_rect(space).center
    shots.take(screen, "stars_and_bars", "card_chosen_teacher_on")
    view.teacher = False
    screen.ui.mouse = (-1, -1)
    play.submit(Command("place", 0, {"card": card, "space": space}), settle=False)
    screen.update(FLY_AND_A_BIT)
    shots.take(screen, "stars_and_bars", "points_rising")
    screen.animator.skip_all()
    shots.take(screen, "stars_and_bars", "placed_end_turn")
    rules_pages(shots, screen, "stars_and_bars", "#the-board")
    leave_question(shots, screen, "stars_and_bars", (SIZE,))
    play = BarsPlay(seed=11, forgetful=True)
    play.run_until(lambda v: _my_turn_to_place(v) and bool(v["legal"].get("claims")))
    shots.take(play.screen, "stars_and_bars", "claim_offered")
    claim = dict(play.view()["legal"]["claims"][0])
    claim.pop("points", None)
    play.submit(Command("claim", 0, claim), settle=False)
    play.screen.update(0.3)
    shots.take(play.screen, "stars_and_bars", "claim_announced")
    play.screen.animator.skip_all()
    play.run_until(lambda v: any(entry["face_down"] for entry in v["board"])
                   and _my_turn_to_place(v))
    shots.take(play.screen, "stars_and_bars", "face_down_stacks")
    log = shots.log()
    play = BarsPlay(seed=8, path=log)
    play.run_until(lambda v: v["phase"] == "over", limit=5000)
    game_over(shots, play.screen, "stars_and_bars", log)
    play.screen.ui.dismissed_game_over = True
    shots.take(play.screen, "stars_and_bars", "game_over_box_closed", SMALL)
    play.table.log.close()  # type: ignore[union-attr]
    watcher = TableScreen(TableModel("stars_and_bars", None, 2, ["Sam", "Ada"]), None,
                          size=SIZE)
    viewer = ReplayScreen(load(log), SIZE)
    viewer.seek(len(viewer.states) // 2)
    seq, state = viewer.states[viewer.position]
    watcher.receive(Batch([], play.game.view(state, None), seq, True))
    shots.take(watcher, "stars_and_bars", "spectator")
    shots.take(viewer, "stars_and_bars", "replay")


FLY_AND_A_BIT = 0.75
"""Seconds into a placing's animation: the card has landed and its points are rising."""


def replay_screens(shots: Shots) -> None:
    """The replay viewer on a finished game of Stars: everything seen, in both windows, then
    as seat 0 sees it, and its close question."""
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.replay import load

    path = shots.log()
    play = Scripted("stars", seed=6, path=path)
    play.run_until(lambda s: s.phase == "over", limit=20000)
    play.table.log.close()  # type: ignore[union-attr]
    viewer = ReplayScreen(load(path), SIZE)  # as ``starhall replay`` opens a log
    viewer.seek(viewer.trick_ends[len(viewer.trick_ends) // 3] - 1)  # a trick's last card
    shots.take(viewer, "stars", "replay_everything")
    shots.take(viewer, "stars", "replay_everything", SMALL)
    viewer.control("viewer")
    viewer.control("viewer")
    shots.take(viewer, "stars", "replay_as_seat_0")
    analysis_panel(shots, viewer)
    viewer.table.key(pygame.K_ESCAPE)
    shots.take(viewer, "stars", "replay_close_question")
    # Watch the replay from the game-over panel: the table's names, Esc goes back.
    watched = ReplayScreen(load(path), SIZE, back=True, names=NAMES[:4])
    watched.seek(0)
    watched.control("play")
    for _ in range(30):
        watched.frame(0.1)
    shots.take(watched, "stars", "replay_from_game_over")


def analysis_panel(shots: Shots, viewer: Any) -> None:
    """The replay viewer's analysis, seat 0's decision at its next card and the game's
    costliest decisions (two deals a decision: quick, and the same every time)."""
    from starhall.client.screens.analysis_panel import Analyst
    from starhall.shared.analysis import Settings

    recording = viewer.recording
    viewer.analyst = Analyst(recording, Settings(think=0.0, worlds=2))
    seq = next(seq for seq in range(viewer.position, recording.last_seq)
               if recording.event(seq + 1).seat == 0 and recording.event(seq + 1).type == "played")
    viewer.seek(seq)
    viewer.control("analysis")

    def settled() -> None:
        viewer.draw(pygame.Surface(SIZE))  # asks for what it shows
        while viewer.analyst.busy:
            time.sleep(0.02)
        viewer.frame(0.0)

    settled()
    shots.take(viewer, "stars", "replay_analysis")
    viewer.analysis_action("costliest")
    settled()
    shots.take(viewer, "stars", "replay_costliest")
    viewer.control("analysis")  # closed again
    viewer.analyst.close()


def lobby_screens(shots: Shots) -> None:
    """The lobby with two tables, its new-table form, a table waiting for players seen by the
    one who opened it (both windows), and a player who left a game under way."""
    from starhall.client.net.embedded import EmbeddedServer
    from starhall.client.screens.lobby import Lobby

    surface = shots.window

    def pump(lobbies: list[Lobby], condition: Any) -> None:
        for _ in range(500):
            for each in lobbies:
                each.frame(0.5)
                each.draw(surface)
            if condition():
                return
            time.sleep(0.01)

    with EmbeddedServer(tempfile.mkdtemp(), think=0.0) as server:
        lobby = Lobby(SIZE, server.address, "Sam")
        pump([lobby], lambda: lobby.form is not None)
        assert lobby.link is not None and lobby.form is not None
        lobby.link.send({"type": "create", "game": "hearts", "players": 4})
        lobby.link.send({"type": "create", "game": "stars", "players": 4})
        lobby.last_list = -100
        pump([lobby], lambda: len(lobby.tables) >= 2)
        shots.take(lobby, "lobby", "tables")
        shots.take(lobby, "lobby", "tables", SMALL)
        lobby.resize(SIZE)
        while lobby.form.game.get("id") != "hearts":
            lobby.act(("form", "game", 1))
        lobby.act(("form", "players", 1))
        lobby.act(("form", "option", "mode", 1))
        lobby.act(("form", "fill"))
        shots.take(lobby, "lobby", "new_table_form")
        lobby.create(False)
        pump([lobby], lambda: lobby.waiting_info() is not None)
        info = lobby.waiting_info()
        assert info is not None
        shots.take(lobby, "lobby", "waiting_alone")
        guest = Lobby(SIZE, server.address, "Bruno")
        pump([guest], lambda: bool(guest.tables))
        guest.open_table("sit", str(info["id"]))
        lobby.room_act(("room", "bot", 2))
        pump([lobby, guest], lambda: sum(
            s.get("state") != "free" for s in (lobby.waiting_info() or {}).get(
                "seats", [])) == 3)
        shots.take(lobby, "lobby", "waiting_for_players")
        shots.take(lobby, "lobby", "waiting_for_players", SMALL)
        shots.take(guest, "lobby", "waiting_as_guest")
        lobby.resize(SIZE)
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
        shots.take(lobby, "lobby", "player_left")
        guest.close()
        lobby.close()


def settings_screens(shots: Shots) -> None:
    """The settings sheet over a six-player table in both windows, and its colour check for
    each game."""
    from starhall.shared.games import GAMES

    play = Scripted("hearts", players=6, seed=4)
    play.run_until(lambda s: s.phase == "play" and s.turn == 0)
    screen = play.screen()
    shots.take(screen, "settings", "button_at_a_table")
    sheet = screen.settings
    sheet.show()
    sheet.type_text("Sam")
    sheet.focus = 2
    shots.take(screen, "settings", "sheet")
    shots.take(screen, "settings", "sheet", SMALL)
    sheet.page = "colours"
    for index, game in enumerate(GAMES):
        sheet.check_game = index
        shots.take(screen, "settings", f"colour_check_{game}")
    shots.take(screen, "settings", f"colour_check_{list(GAMES)[-1]}", SMALL)


class _Gallery:
    """Every card face of every deck, and a back (drawn once, at the large size)."""

    size = SIZE

    def resize(self, size: Size) -> None:
        self.size = size

    def draw(self, surface: pygame.Surface) -> None:
        from starhall.client.ui.cardart import CardArt
        from starhall.client.ui.theme import FELT

        art = CardArt()
        surface.fill(FELT)
        rows = [["A*", "K*", "Q*", "J*", "10*", "2*", "JK"],
                ["AC", "KD", "QH", "JS", "9C", "5D", "7H"],
                ["Ck", "Kk", "Qs", "Sw", "Ll", "7k", "4s"],
                ["2w", "3l", "6w", "Cl", "Ks", "Lw", "5l"]]
        for r, row in enumerate(rows):
            for c, code in enumerate(row):
                surface.blit(art.face(code, 100, 140), (30 + c * 112, 20 + r * 172))
        surface.blit(art.back(100, 140), (30 + 7 * 112, 20))


@contextlib.contextmanager
def scratch_folders() -> Iterator[None]:
    """Settings and data folders of the run's own: the user's settings change no picture,
    and nothing (statistics, seats, logs) is written to the user's folders."""
    from starhall.client.user import settings
    from starhall.client.user.folders import CONFIG_ENV, DATA_ENV

    saved = {name: os.environ.get(name) for name in (CONFIG_ENV, DATA_ENV)}
    with tempfile.TemporaryDirectory() as scratch:
        for name in saved:
            os.environ[name] = str(Path(scratch) / name.lower())
        settings.forget()
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            settings.forget()


def card_gallery(shots: Shots) -> None:
    shots.take(_Gallery(), "cards", "gallery")


SECTIONS: list[Callable[[Shots], None]] = [
    card_gallery, lobby_screens, stars_screens, hearts_screens, star_screens, what_else_screens,
    bars_screens, replay_screens, settings_screens]
"""In the order a player meets them."""


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    folder = Path(argv[0] if argv else "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    with scratch_folders():
        shots = Shots(folder, open_window(SIZE))
        for section in SECTIONS:
            section(shots)
    print(f"{len(shots.taken)} screenshots in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
