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

from starhall.shared.bots import Bot, bot_kind, bot_seats, default_bot, make_bot, reads_history
from starhall.shared.engine import Event, Game
from starhall.shared.games import get_game
from starhall.shared.logfile import SUFFIX
from starhall.shared.protocol import MAX_THINK_SECONDS
from starhall.shared.shuffle import MAX_SEED
from starhall.shared.table import Table

EventHook = Callable[[Table[Any], int, Event], None]


def default_players(game: Game[Any]) -> int:
    return min(max(4, game.min_players), game.max_players)


def bot_kinds_for(game: Game[Any], spec: str, players: int) -> list[str]:
    """The bot kind of each seat that ``--bots`` names: one level or kind for every seat, or
    one per seat (``ValueError`` for a name the game has no bot by)."""
    kinds = [bot_kind(game, name.strip()) for name in spec.split(",")]
    if len(kinds) == 1:
        return kinds * players
    if len(kinds) != players:
        raise ValueError(f"--bots names {len(kinds)} bots for {players} seats")
    return kinds


def play_out(table: Table[Any], bots: list[Bot], rng: random.Random,
             on_event: EventHook | None = None, think: float = 0.0) -> int:
    """Play a table to its end: deals from deal numbers drawn from ``rng``, bots for every seat,
    each given ``think`` seconds a move. Returns the number of checkpoints (one per finished
    hand)."""
    game = table.game
    history = [reads_history(bot) for bot in bots]
    if any(history):
        table.remember(seat for seat, reads in enumerate(history) if reads)
    hands = 0
    while not game.outcome(table.state).over:
        if game.chance(table.state) is not None:
            events = table.shuffle(int(rng.random() * MAX_SEED))
        else:
            seats = game.to_act(table.state)
            if not seats:
                raise RuntimeError(f"{game.id}: nobody can act and the game is not over")
            seat = seats[0]
            events = table.submit(bots[seat].choose(table.observe(seat, history[seat]), think))
        for seq, event in events:
            if game.is_checkpoint(table.state):
                hands += 1
            if on_event is not None:
                on_event(table, seq, event)
    return hands


def seating(kinds: list[str], number: int) -> list[str]:
    """The bot kinds of game ``number`` by seat: mixed kinds move one seat to the left each
    game, so every kind plays from every seat and seat order does not favour one kind."""
    if len(set(kinds)) == 1:
        return kinds
    shift = number % len(kinds)
    return kinds[-shift:] + kinds[:-shift] if shift else kinds


@dataclass
class Tally:
    """Results added up for one seat or for one bot kind."""

    places: int = 0
    """Seat-games: how many times this seat or kind sat at a table."""
    wins: int = 0
    """Games this one won alone. A tie is not a win: it is counted in ``ties``."""
    ties: int = 0
    """Games this one won together with others (a tie)."""
    total: int = 0
    counters: dict[str, int] = field(default_factory=dict)

    def add(self, won: bool, tied: bool, score: int, counters: dict[str, int]) -> None:
        self.places += 1
        self.wins += won and not tied
        self.ties += tied
        self.total += score
        for name, count in counters.items():
            self.counters[name] = self.counters.get(name, 0) + count


@dataclass
class Summary:
    players: int
    games: int = 0
    hands: int = 0
    events: int = 0
    seats: list[Tally] = field(default_factory=list)
    kinds: dict[str, Tally] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.seats = self.seats or [Tally() for _ in range(self.players)]

    @property
    def wins(self) -> list[int]:
        """Games each seat won alone, as the summary prints them (ties are apart)."""
        return [tally.wins for tally in self.seats]

    @property
    def ties(self) -> list[int]:
        """Games each seat tied for the win."""
        return [tally.ties for tally in self.seats]

    @property
    def totals(self) -> list[int]:
        return [tally.total for tally in self.seats]

    @property
    def tallies(self) -> dict[str, list[int]]:
        names = dict.fromkeys(name for tally in self.seats for name in tally.counters)
        return {name: [tally.counters.get(name, 0) for tally in self.seats] for name in names}

    def add(self, table: Table[Any], hands: int, kinds: list[str] | None = None) -> None:
        outcome = table.outcome()
        self.games += 1
        self.hands += hands
        self.events += table.seq
        winners = set(outcome.winners or ())
        tied = len(winners) > 1
        counters = table.game.tally(table.state)
        for seat, score in enumerate(outcome.scores):
            mine = {name: counts[seat] for name, counts in counters.items()}
            won = seat in winners
            self.seats[seat].add(won, won and tied, score, mine)
            if kinds is not None:
                self.kinds.setdefault(kinds[seat], Tally()).add(won, won and tied, score, mine)

    def lines(self) -> list[str]:
        games = max(self.games, 1)
        lines = [f"games {self.games}, hands {self.hands} ({self.hands / games:.1f} per game), "
                 f"events {self.events}"]
        lines += _table("seat", [str(seat) for seat in range(self.players)], self.seats)
        if len(self.kinds) > 1:
            lines += ["", "by bot kind (kinds rotate around the table game by game)"]
            lines += _table("bot", list(self.kinds), list(self.kinds.values()))
        return lines


def _table(title: str, heads: list[str], tallies: list[Tally]) -> list[str]:
    names = dict.fromkeys(name for tally in tallies for name in tally.counters)
    width = max([9, *(len(head) + 2 for head in heads)])
    label_width = max([16, *(len(name) + 2 for name in names)])

    def row(label: str, cells: list[str]) -> str:
        return f"{label:<{label_width}}" + "".join(f"{cell:>{width}}" for cell in cells)

    def rate(count: int, tally: Tally) -> str:
        return f"{count / max(tally.places, 1):.1%}"

    rows = [row(title, heads),
            row("wins", [str(t.wins) for t in tallies]),
            row("win rate", [rate(t.wins, t) for t in tallies])]
    if any(t.ties for t in tallies):
        rows.append(row("tie rate", [rate(t.ties, t) for t in tallies]))
    rows.append(row("average total", [f"{t.total / max(t.places, 1):.1f}" for t in tallies]))
    rows += [row(name, [f"{t.counters.get(name, 0) / max(t.places, 1):.2f}"
                             for t in tallies]) for name in names]
    return rows


def simulate(game: Game[Any], players: int, options: dict[str, Any], games: int, seed: int,
             bot_spec: str, out: Path | None, progress: bool = False,
             think: float = 0.0) -> tuple[Summary, list[Path]]:
    kinds = bot_kinds_for(game, bot_spec, players)
    summary = Summary(players)
    written: list[Path] = []
    for number in tqdm(range(games), desc=f"{game.id} games", unit="game", disable=not progress):
        seated = seating(kinds, number)
        rng = random.Random(f"starhall-sim:{game.id}:{seed}:{number}")
        bots = [make_bot(game, kind, random.Random(f"{seed}:{number}:{seat}"))
                for seat, kind in enumerate(seated)]
        path = None if out is None else out / f"{game.id}-{seed}-{number:04d}{SUFFIX}"
        partial = None if path is None else path.with_name(path.name + ".partial")
        if partial is not None and partial.exists():
            partial.unlink()
        table = Table.new(game, players, options, path=None if partial is None else str(partial),
                          seats=bot_seats(game, seated), seed=seed, number=number)
        hands = play_out(table, bots, rng, think=think)
        if table.log is not None and path is not None and partial is not None:
            table.log.close()
            os.replace(partial, path)  # a rerun replaces the same game whole, never half
            written.append(path)
        summary.add(table, hands, seated)
    return summary, written


def run_sim(args: argparse.Namespace) -> int:
    # Every argument is checked before the first game (and its progress bar) starts.
    game = get_game(args.game)
    players = args.players or default_players(game)
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    bots = args.bots or default_bot(game)
    bot_kinds_for(game, bots, players)  # a bad --bots is refused before any game is played
    if not 0 <= args.think <= MAX_THINK_SECONDS:
        raise ValueError(f"--think takes 0 to {MAX_THINK_SECONDS:g} seconds, not {args.think:g}")
    out = None if args.no_logs else Path(args.out)
    if out is not None:
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {out} is a file, not a folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ValueError(f"--out {out}: cannot make this folder "
                             f"({error.strerror or error})") from None
        if not os.access(out, os.W_OK | os.X_OK):
            raise ValueError(f"--out {out}: cannot write in this folder")
    summary, written = simulate(game, players, args.options, args.games, args.seed, bots,
                                out, progress=not args.quiet, think=args.think)
    for line in summary.lines():
        print(line)
    print("logs: none written (--no-logs)" if out is None else f"logs: {len(written)} in {out}/")
    return 0
