"""``starhall play --terminal``: one game of bots shown in the terminal, trick by trick."""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

from starhall.server.sim import default_players, play_out
from starhall.shared.bots import bot_seats, default_bot, make_bot
from starhall.shared.engine import Event
from starhall.shared.games import get_game
from starhall.shared.logfile import SUFFIX
from starhall.shared.shuffle import new_seed
from starhall.shared.table import Table


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


class EventPrinter:
    """Prints every event of a game that is neither a trick game nor a patience, one line each
    as a spectator saw it, and the scores at each checkpoint (the end of a round)."""

    def __init__(self, state: Any, delay: float) -> None:
        self.state = state
        self.delay = delay

    def __call__(self, table: Table[Any], seq: int, event: Event) -> None:
        game = table.game
        shown = game.event_view(self.state, event, None)
        self.state = table.state
        if shown is not None:
            print(f"  {seq:>4}  {game.describe_event(shown)}")
            time.sleep(self.delay)
        if game.is_checkpoint(table.state):
            print(f"  scores: {list(game.outcome(table.state).scores)}")


class MovePrinter:
    """Prints a one-player game (a patience) move by move, each event as the player saw it:
    the layout after the deal, then every decision with the card it was about."""

    def __init__(self, state: Any, delay: float) -> None:
        self.state = state
        """The state before the next event, so each event can be shown as the player saw it."""
        self.delay = delay
        self.moves = 0

    def __call__(self, table: Table[Any], seq: int, event: Event) -> None:
        game = table.game
        shown = game.event_view(self.state, event, None) or event
        self.state = game.evolve(self.state, event)
        view = game.view(self.state, None)
        if event.type in ("deal", "shuffled"):
            print(f"\n— {game.describe_event(shown)}")
            if "lines" in view:
                for ring in ("inner", "outer"):
                    places = "  ".join(f"{line:>2} {code or '--':<3}" for line, code in
                                       zip(view["lines"], view[ring], strict=False))
                    print(f"  {ring:<6} {places}")
        else:
            if event.type in ("paired", "placed"):
                self.moves += 1
            number = f"{self.moves:>3}." if event.type in ("paired", "placed") else "    "
            extra = ""
            if event.type == "paired" and "ring" in shown.data:
                extra = f" ({shown.data['ring']} {shown.data.get('line')})"
            if shown.data.get("moved_in"):
                extra = f"; the outer {shown.data.get('line')} card moves in"
            print(f"  {number} {game.describe_event(shown)}{extra}")
        if view.get("turned") and view.get("phase") in ("play", "stuck"):
            left = view.get("stock_count")
            print(f"       turned {view['turned']}, {left} face down"
                  + ("  — stuck: it can neither pair nor be placed" if view["phase"] == "stuck"
                     else ""))
        time.sleep(self.delay)


def run_terminal(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    players = args.players or default_players(game)
    seed = new_seed()
    kind = getattr(args, "bot_kind", None) or default_bot(game)
    path = Path("replays") / "terminal" / f"{game.id}-{seed}{SUFFIX}"
    table = Table.new(game, players, args.options, path=str(path),
                      seats=bot_seats(game, [kind] * players))
    bots = [make_bot(game, kind, random.Random(seed + seat)) for seat in range(players)]
    print(f"{game.title}: {players} {kind} bots, options {table.options}")
    assert table.log is not None
    try:
        delay = 0.05 if args.slow else 0.0
        printer: Any
        if game.max_players == 1:
            printer = MovePrinter(table.state, delay)
        elif "tricks_played" in game.view(table.state, None):
            printer = TrickPrinter(delay)
        else:
            printer = EventPrinter(table.state, delay)
        play_out(table, bots, random.Random(seed), printer)
    finally:
        table.log.close()
    outcome = table.outcome()
    print(f"\ngame over: scores {list(outcome.scores)}, winners {list(outcome.winners or ())}")
    print(f"replay written to {path}  (starhall replay show {path})")
    return 0
