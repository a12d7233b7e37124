"""Engine speed, measured against baselines run in the same process, the two alternated.

1. Full random games per second of classic Hearts (one hand, as OpenSpiel's ``hearts`` plays)
   through our engine — shuffle, passing and play, every command decided and evolved — versus
   OpenSpiel's ``hearts`` driven from Python (``pip install open_spiel``).
2. Replay speed: events per second rebuilding states from log files (read, check every
   record's CRC, fold every event) versus plain msgpack decoding of the same files; and the
   strict rebuild every reader uses (each event re-decided from its command) versus that.

Targets: our games/s at least 1.2 times OpenSpiel's; the trusting rebuild at least 25% of
plain decoding; the strict rebuild at least half the trusting one.
Run: ``.venv/bin/python bench/engine.py [--seconds S] [--rounds R]``
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from starhall import shared  # noqa: E402
from starhall.server.sim import simulate  # noqa: E402
from starhall.shared.games import get_game  # noqa: E402
from starhall.shared.replay import load  # noqa: E402
from starhall.shared.shuffle import MAX_SEED  # noqa: E402
from starhall.shared.table import Table  # noqa: E402

HEARTS = get_game("hearts")
CLASSIC = {"deck": "classic"}


def our_hand(rng: random.Random) -> int:
    """One hand of classic Hearts between random players; returns the events it took."""
    table = Table.new(HEARTS, 4, CLASSIC)
    table.shuffle(int(rng.random() * MAX_SEED))
    game = HEARTS
    while not game.is_checkpoint(table.state):
        seat = game.to_act(table.state)[0]
        table.submit(game.random_action(table.state, seat, rng))
    return table.seq


def openspiel_hand_factory() -> Callable[[random.Random], int] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")

    def openspiel_hand(rng: random.Random) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rng.random() * len(actions))])
            steps += 1
        return steps

    return openspiel_hand


def rate(run: Callable[[], int], seconds: float) -> tuple[float, int]:
    """Calls per second of ``run`` over about ``seconds``, and the units it reported."""
    start = time.perf_counter()
    calls = units = 0
    while (elapsed := time.perf_counter() - start) < seconds:
        units += run()
        calls += 1
    return calls / elapsed, units


def bench_games(seconds: float, rounds: int) -> None:
    openspiel = openspiel_hand_factory()
    rng_ours, rng_theirs = random.Random(1), random.Random(2)
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(rounds):
        ours.append(rate(lambda: our_hand(rng_ours), seconds)[0])
        if openspiel is not None:
            theirs.append(rate(lambda: openspiel(rng_theirs), seconds)[0])
    our_rate = statistics.median(ours)
    print(f"classic Hearts, one hand of random play, median of {rounds} alternated rounds:")
    print(f"  starhall   {our_rate:10.0f} games/s")
    if openspiel is None:
        print("  open_spiel not installed (pip install open_spiel): no baseline")
        return
    their_rate = statistics.median(theirs)
    print(f"  open_spiel {their_rate:10.0f} games/s")
    print(f"  ratio starhall/open_spiel = {our_rate / their_rate:.2f} (target >= 1.20)")


def bench_replay(seconds: float, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        _, files = simulate(HEARTS, 4, {}, 20, 7, "random", Path(folder))
        blobs = [path.read_bytes() for path in files]
        events = sum(len(load(path).events) for path in files)

        def plain_decode() -> int:
            for blob in blobs:
                unpacker = msgpack.Unpacker(raw=False)
                unpacker.feed(blob)
                for _ in unpacker:
                    pass
            return events

        def rebuild() -> int:
            for path in files:
                load(path).state_at(strict=False)
            return events

        def strict_rebuild() -> int:
            for path in files:
                load(path).state_at()
            return events

        ours: list[float] = []
        strict: list[float] = []
        plain: list[float] = []
        for _ in range(rounds):
            calls, _ = rate(rebuild, seconds)
            ours.append(calls * events)
            calls, _ = rate(strict_rebuild, seconds)
            strict.append(calls * events)
            calls, _ = rate(plain_decode, seconds)
            plain.append(calls * events)
    our_rate, plain_rate = statistics.median(ours), statistics.median(plain)
    strict_rate = statistics.median(strict)
    print(f"replay of {len(files)} Stardeck Hearts games ({events} events), "
          f"median of {rounds} alternated rounds:")
    print(f"  trusting rebuild (read, CRC, fold)  {our_rate:12.0f} events/s")
    print(f"  strict rebuild (and re-decide each) {strict_rate:12.0f} events/s")
    print(f"  plain msgpack decoding              {plain_rate:12.0f} events/s")
    print(f"  ratio trusting/plain = {our_rate / plain_rate:.2f} (target >= 0.25)")
    print(f"  ratio strict/trusting = {strict_rate / our_rate:.2f} (target >= 0.50)")


def bench_star_patience(seconds: float) -> None:
    """The Star: random playouts per second (deal, decisions, end), and the solver's and the
    hint player's mean time per deal over deals 1, 2, 3 …"""
    from starhall.server.solve import dealt, hint_player_wins
    from starhall.shared.games.star_patience.bots import solve

    game = get_game("star_patience")
    rng = random.Random(3)

    def playout() -> int:
        table = Table.new(game, 1, {})
        table.shuffle(int(rng.random() * MAX_SEED))
        while not game.outcome(table.state).over:
            table.submit(game.random_action(table.state, 0, rng))
        return table.seq

    playouts, _ = rate(playout, seconds)
    deals = iter(range(1, 2**31))
    solved, _ = rate(lambda: solve(dealt(next(deals)).state) is not None, seconds)
    hinted, _ = rate(lambda: hint_player_wins(next(deals)), seconds)
    print("The Star (star_patience):")
    print(f"  random playouts        {playouts:10.0f} games/s")
    print(f"  solver, mean per deal  {1000 / solved:10.2f} ms (deal and solve)")
    print(f"  hint player, per deal  {1000 / hinted:10.2f} ms (deal and play by exact hints)")


PLAYOUTS = (("what_else", 3), ("what_else", 6), ("stars_and_bars", 2))
"""Games measured by random playouts alone (no outside engine plays them to compare with)."""


def bench_playouts(seconds: float) -> None:
    """Whole games of random play per second, deals and reshuffles included."""
    from starhall.shared.games import GAMES

    def playout(game: Any, players: int, rng: random.Random) -> int:
        table = Table.new(game, players, {})
        while not game.outcome(table.state).over:
            if game.chance(table.state) is not None:
                table.shuffle(int(rng.random() * MAX_SEED))
            else:
                seat = game.to_act(table.state)[0]
                table.submit(game.random_action(table.state, seat, rng))
        return table.seq

    print("random playouts, whole games:")
    for game_id, players in PLAYOUTS:
        if game_id not in GAMES:
            continue
        rng = random.Random(4)
        games, events = rate(functools.partial(playout, GAMES[game_id], players, rng), seconds)
        print(f"  {game_id:<15} {players}p {games:10.0f} games/s "
              f"({events / max(games * seconds, 1):.0f} events per game)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one round")
    parser.add_argument("--rounds", type=int, default=5, help="alternated rounds per side")
    args = parser.parse_args()
    print(f"starhall engines: {shared.build()} (STARHALL_PURE_PYTHON=1 measures pure Python)")
    bench_games(args.seconds, args.rounds)
    bench_replay(args.seconds, args.rounds)
    bench_star_patience(args.seconds)
    bench_playouts(args.seconds)


if __name__ == "__main__":
    main()
