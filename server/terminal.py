"""``starhall play --terminal``: one game of bots shown in the terminal, trick by trick."""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

from server.sim import default_players, play_out
from shared.bots import bot_seats, make_bot
from shared.engine import Event
from shared.games import get_game
from shared.logfile import SUFFIX
from shared.shuffle import new_seed
from shared.table import Table


class TrickPrinter:
    """Prints each finished trick and each finished hand from the public view, so it serves
    every trick game without knowing its rules."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.tricks = 0

    def __call__(self, table: Table[Any], seq: int, event: Event) -> None:
        game = table.game
        view = game.view(table.state, None)
        if event.type in ("deal", "shuffled"):
            print(f"\n— hand {view.get('hand_number', '')}: {game.describe_event(event)}")
            self.tricks = 0
        elif event.type not in ("played",):
            print(f"  {game.describe_event(event)}")
        played = view.get("tricks_played", 0)
        if played != self.tricks and view.get("last_trick"):
            self.tricks = played
            cards = "  ".join(f"{seat}:{code}" for seat, code in view["last_trick"])
            print(f"  trick {played:>2}  {cards:<40} → seat {view.get('last_winner')}")
            time.sleep(self.delay)
        if game.is_checkpoint(table.state):
            print(f"  scores: {list(game.outcome(table.state).scores)}")


def run_terminal(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    players = args.players or default_players(game)
    seed = new_seed()
    path = Path("replays") / "terminal" / f"{game.id}-{seed}{SUFFIX}"
    table = Table.new(game, players, args.options, path=str(path),
                      seats=bot_seats(["heuristic"] * players))
    bots = [make_bot(game, "heuristic", random.Random(seed + seat)) for seat in range(players)]
    print(f"{game.title}: {players} heuristic bots, options {table.options}")
    assert table.log is not None
    try:
        play_out(table, bots, random.Random(seed), TrickPrinter(0.05 if args.slow else 0.0))
    finally:
        table.log.close()
    outcome = table.outcome()
    print(f"\ngame over: scores {list(outcome.scores)}, winners {list(outcome.winners or ())}")
    print(f"replay written to {path}  (starhall replay show {path})")
    return 0
