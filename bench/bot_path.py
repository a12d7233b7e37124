"""The bots' path in one process: Hearts played by four random bots through a ``Table``, as
``starhall sim`` plays (``server/sim.py``'s ``play_out``: each bot move an observation of its
seat, then ``submit``), no log. Events per second, against a baseline build run alternated
with it, round by round.

    .venv/bin/python bench/bot_path.py [--seconds 2] [--rounds 5] [--baseline DIR]

``--baseline DIR``: another checkout with its own ``.venv`` (a ``git worktree`` or an archive
of an older commit): each round runs this script's ``--once`` there and here, alternated, and
the medians and their ratio are printed. The script only uses what every build since bots
began has (``play_out``, ``make_bot``, ``Table.new``), so the baseline may be older than
observations.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def events_per_second(seconds: float, seed: int, kind: str) -> float:
    """Bots' Hearts games, one after another, for ``seconds``: events per second."""
    from starhall.server.sim import play_out
    from starhall.shared.bots import make_bot
    from starhall.shared.games import get_game
    from starhall.shared.table import Table

    game = get_game("hearts")
    rng = random.Random(seed)
    events = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        table = Table.new(game, 4, {})
        bots = [make_bot(game, kind, random.Random(rng.random())) for _ in range(4)]
        play_out(table, bots, rng)
        events += table.seq
    return events / (time.perf_counter() - started)


def run_once(python: Path, seconds: float, seed: int, kind: str) -> float:
    """``--once`` in a process of ``python`` (whose venv says which build it imports)."""
    done = subprocess.run([str(python), __file__, "--once", "--seconds", str(seconds),
                           "--seed", str(seed), "--bots", kind],
                          check=True, capture_output=True, text=True)
    return float(json.loads(done.stdout)["events_per_second"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per round and build")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--bots", default="random", help="the bots' kind (random, heuristic, …)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of the baseline build, with its own .venv")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.once:
        print(json.dumps({"events_per_second": events_per_second(args.seconds, args.seed,
                                                                 args.bots)}))
        return 0
    builds = {"this build": ROOT / ".venv" / "bin" / "python"}
    if args.baseline is not None:
        builds["baseline"] = args.baseline.resolve() / ".venv" / "bin" / "python"
    rates: dict[str, list[float]] = {name: [] for name in builds}
    for round_number in range(args.rounds):
        order = list(builds.items())
        if round_number % 2:
            order.reverse()
        for name, python in order:
            rates[name].append(run_once(python, args.seconds, args.seed + round_number,
                                        args.bots))
    print(f"Hearts, 4 {args.bots} bots, in process, {args.rounds} rounds of {args.seconds:g} s "
          "each, alternated:")
    for name, samples in rates.items():
        print(f"  {name:<11} {statistics.median(samples):>9,.0f} events/s  "
              f"(min {min(samples):,.0f}, max {max(samples):,.0f})")
    if args.baseline is not None:
        ratio = statistics.median(rates["this build"]) / statistics.median(rates["baseline"])
        print(f"  this build / baseline = {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
