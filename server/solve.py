"""``starhall solve``: whether deals of a patience can be won, and how often its hints win.

``starhall solve star_patience --deal N`` says whether deal number N can be won by a player
who knows the stock order, and prints a winning line; ``--deals A..B`` prints the fraction
of winnable deals and the win rate of the hint player (who does not know it) over a range.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from starhall.shared.engine import Command
from starhall.shared.games import get_game
from starhall.shared.games.star_patience.bots import HintBot, solve
from starhall.shared.games.star_patience.rules import DECK, LINES, MAX_DEAL, StarState
from starhall.shared.table import Table

GAMES = ("star_patience",)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES, help="a patience with a solver")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--deal", type=int, metavar="N", help=f"one deal number, 1 to {MAX_DEAL}")
    which.add_argument("--deals", metavar="A..B", help="a range of deal numbers, both included")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def deal_range(text: str) -> range:
    first, sep, last = text.partition("..")
    if not sep or not first.strip().isdigit() or not last.strip().isdigit():
        raise ValueError(f"--deals takes a range A..B such as 1..10000, not {text!r}")
    low, high = int(first), int(last)
    if not 1 <= low <= high <= MAX_DEAL:
        raise ValueError(f"--deals must run upwards within 1..{MAX_DEAL}, not {text!r}")
    return range(low, high + 1)


def dealt(number: int) -> Table[StarState]:
    if not 1 <= number <= MAX_DEAL:
        raise ValueError(f"a deal number is 1 to {MAX_DEAL}, not {number}")
    table: Table[StarState] = Table.new(get_game("star_patience"), 1, {"deal": number})
    table.remember()  # what its player is shown, for the hint bot
    table.shuffle(number)
    return table


def hint_player_wins(number: int) -> bool:
    """Plays deal ``number`` by the hints (the stock order unknown); whether it was won."""
    table = dealt(number)
    game = table.game
    bot = HintBot(random.Random(number))
    while not game.outcome(table.state).over:
        table.submit(bot.choose(table.observe(0), 0.0))
    return table.state.result == "won"


def describe(command: Command) -> str:
    if command.type == "pair":
        return f"pair with {command.data['card']}"
    return f"place on the outer {command.data['line']} place"


def show_layout(state: StarState) -> list[str]:
    position = state.position
    def place(card: int) -> str:
        return "--" if card < 0 else DECK.code_of[card]
    return [
        "lines   " + " ".join(f"{line:>3}" for line in LINES),
        "inner   " + " ".join(f"{place(card):>3}" for card in position.inner),
        "outer   " + " ".join(f"{place(card):>3}" for card in position.outer),
        "stock   " + " ".join(DECK.code_of[card] for card in (position.turned, *position.stock))
        + "  (turned first)",
    ]


def run_one(number: int) -> int:
    table = dealt(number)
    state = table.state
    print(f"The Star, deal number {number}")
    for line in show_layout(state):
        print(f"  {line}")
    if state.phase == "over":
        print(f"lost at once: the first turned card, {DECK.code_of[state.position.turned]}, "
              "can neither pair nor be placed")
        return 0
    winning = solve(state)
    if winning is None:
        print("not winnable, even knowing the stock order")
    else:
        print(f"winnable by a player who knows the stock order; a winning line "
              f"({len(winning)} decisions):")
        for step, command in enumerate(winning, 1):
            turned = DECK.code_of[table.state.position.turned]
            print(f"  {step:>2}. turned {turned:>3}: {describe(command)}")
            table.submit(command)
        assert table.state.result == "won"
    print(f"hint player (stock order unknown): {'won' if hint_player_wins(number) else 'lost'}")
    return 0


@dataclass
class Figures:
    deals: int = 0
    winnable: int = 0
    hint_won: int = 0
    lost_at_once: int = 0
    solve_seconds: float = 0.0
    hint_seconds: float = 0.0

    def add(self, number: int) -> None:
        start = time.perf_counter()
        state = dealt(number).state
        self.deals += 1
        self.lost_at_once += state.phase == "over"
        self.winnable += solve(state) is not None
        middle = time.perf_counter()
        self.hint_won += hint_player_wins(number)
        self.solve_seconds += middle - start
        self.hint_seconds += time.perf_counter() - middle

    def lines(self, deals: range) -> list[str]:
        count = max(self.deals, 1)

        def share(part: int) -> str:
            return f"{part:>6} of {self.deals}  {100 * part / count:6.2f}%"

        return [
            f"The Star, deals {deals.start}..{deals.stop - 1}",
            f"winnable (stock order known)  {share(self.winnable)}",
            f"hint player won               {share(self.hint_won)}",
            f"lost at the first card        {share(self.lost_at_once)}",
            f"time per deal: solver {1000 * self.solve_seconds / count:.2f} ms, "
            f"hint player {1000 * self.hint_seconds / count:.2f} ms",
        ]


def run_solve(args: argparse.Namespace) -> int:
    if args.deal is not None:
        return run_one(args.deal)
    deals = deal_range(args.deals)
    figures = Figures()
    for number in tqdm(deals, desc="deals", unit="deal", disable=args.quiet):
        figures.add(number)
    for line in figures.lines(deals):
        print(line)
    return 0


def summary(deals: range) -> dict[str, Any]:
    """The figures over a range, as plain data (tests and the bench use it)."""
    figures = Figures()
    for number in deals:
        figures.add(number)
    return {"deals": figures.deals, "winnable": figures.winnable, "hint_won": figures.hint_won,
            "lost_at_once": figures.lost_at_once, "solve_seconds": figures.solve_seconds}
