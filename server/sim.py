"""``starhall sim``: games of bots, each written to its own log."""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shared.bots import Bot, bot_seats, default_bot, make_bot
from shared.engine import Event, Game
from shared.games import get_game
from shared.logfile import SUFFIX
from shared.shuffle import MAX_SEED
from shared.table import Table

EventHook = Callable[[Table[Any], int, Event], None]


def default_players(game: Game[Any]) -> int:
    return min(max(4, game.min_players), game.max_players)


def bot_kinds_for(spec: str, players: int) -> list[str]:
    kinds = [kind.strip() for kind in spec.split(",")]
    if len(kinds) == 1:
        return kinds * players
    if len(kinds) != players:
        raise ValueError(f"--bots names {len(kinds)} bots for {players} seats")
    return kinds


def play_out(table: Table[Any], bots: list[Bot], rng: random.Random,
             on_event: EventHook | None = None) -> int:
    """Play a table to its end: deals from deal numbers drawn from ``rng``, bots for every seat.
    Returns the number of checkpoints (one per finished hand)."""
    game = table.game
    hands = 0
    while not game.outcome(table.state).over:
        if game.chance(table.state) is not None:
            events = table.shuffle(int(rng.random() * MAX_SEED))
        else:
            seats = game.to_act(table.state)
            if not seats:
                raise RuntimeError(f"{game.id}: nobody can act and the game is not over")
            seat = seats[0]
            events = table.submit(bots[seat].choose(game, table.state, seat))
        for seq, event in events:
            if game.is_checkpoint(table.state):
                hands += 1
            if on_event is not None:
                on_event(table, seq, event)
    return hands


@dataclass
class Summary:
    players: int
    games: int = 0
    hands: int = 0
    events: int = 0
    wins: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    tallies: dict[str, list[int]] = field(default_factory=dict)

    def add(self, table: Table[Any], hands: int) -> None:
        outcome = table.outcome()
        self.games += 1
        self.hands += hands
        self.events += table.seq
        for seat in outcome.winners or ():
            self.wins[seat] += 1
        for seat, score in enumerate(outcome.scores):
            self.totals[seat] += score
        for name, counts in table.game.tally(table.state).items():
            mine = self.tallies.setdefault(name, [0] * self.players)
            for seat, count in enumerate(counts):
                mine[seat] += count

    def lines(self) -> list[str]:
        seats = range(self.players)
        games = max(self.games, 1)
        rows = [
            f"games {self.games}, hands {self.hands}, events {self.events}",
            "seat            " + "".join(f"{seat:>9}" for seat in seats),
            "wins            " + "".join(f"{w:>9}" for w in self.wins),
            "win rate        " + "".join(f"{w / games:>9.1%}" for w in self.wins),
            "average total   " + "".join(f"{t / games:>9.1f}" for t in self.totals),
        ]
        rows += [f"{name:<16}" + "".join(f"{c:>9}" for c in counts)
                 for name, counts in self.tallies.items()]
        return rows


def simulate(game: Game[Any], players: int, options: dict[str, Any], games: int, seed: int,
             bot_spec: str, out: Path | None, progress: bool = False) -> tuple[Summary, list[Path]]:
    kinds = bot_kinds_for(bot_spec, players)
    summary = Summary(players, wins=[0] * players, totals=[0] * players)
    written: list[Path] = []
    for number in tqdm(range(games), desc=f"{game.id} games", unit="game", disable=not progress):
        rng = random.Random(f"starhall-sim:{game.id}:{seed}:{number}")
        bots = [make_bot(game, kind, random.Random(f"{seed}:{number}:{seat}"))
                for seat, kind in enumerate(kinds)]
        path = None if out is None else out / f"{game.id}-{seed}-{number:04d}{SUFFIX}"
        partial = None if path is None else path.with_name(path.name + ".partial")
        if partial is not None and partial.exists():
            partial.unlink()
        table = Table.new(game, players, options, path=None if partial is None else str(partial),
                          seats=bot_seats(kinds), seed=seed, number=number)
        hands = play_out(table, bots, rng)
        if table.log is not None and path is not None and partial is not None:
            table.log.close()
            os.replace(partial, path)  # a rerun replaces the same game whole, never half
            written.append(path)
        summary.add(table, hands)
    return summary, written


def run_sim(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    players = args.players or default_players(game)
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    out = Path(args.out)
    bots = args.bots or default_bot(game)
    summary, written = simulate(game, players, args.options, args.games, args.seed, bots,
                                out, progress=not args.quiet)
    for line in summary.lines():
        print(line)
    print(f"logs: {len(written)} in {out}/")
    return 0
