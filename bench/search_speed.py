"""How much a ``strong`` bot searches in its think time: the deals (worlds) Hearts' and Stars'
strong bots play out, and the playouts of "what else?"'s and Stars and Bars', per searched
decision, now against another checkout's build (``--baseline``: a folder with the project
built in place, as ``make build`` leaves it), alternated run by run because the machine's
speed swings.

    python -m bench.search_speed --baseline /path/to/other/checkout [--think 0.1]
                                 [--moves 40] [--runs 4]

Each run is a fresh interpreter (``--child``) on one side's modules (``PYTHONPATH``: that
checkout's ``build/package-tree``), asking a fresh strong bot for the same decisions (those
of a few games of each game's Normal bots, ``bench.playouts.observations``) at ``--think``
seconds each. It prints, per game, the median over the decisions of each side and the ratio
now ÷ baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"hearts": (4, "heuristic"), "stars": (4, "heuristic"),
         "what_else": (4, "heuristic"), "stars_and_bars": (2, "lookahead")}
"""Each game's players and Normal bot, whose games give the decisions."""


def child(think: float, moves: int) -> None:
    """One side: the searched amount of every decision, as JSON on stdout."""
    from bench.playouts import observations
    from starhall.shared import build
    from starhall.shared.bots import make_bot
    from starhall.shared.games import get_game

    found: dict[str, list[int]] = {"compiled": [int(build() == "compiled")]}
    for name, (players, normal) in GAMES.items():
        game = get_game(name)
        counts = found.setdefault(name, [])
        for seen in observations(game, players, normal, 3):
            bot = make_bot(game, "strong", random.Random(len(counts)))
            bot.choose(seen, think)
            if getattr(bot, "searched", False):
                counts.append(getattr(bot, "last_iterations", 0)
                              or getattr(bot, "last_playouts", 0))
            if len(counts) >= moves:
                break
    print(json.dumps(found))


def run_side(tree: Path, think: float, moves: int) -> dict[str, list[int]]:
    environment = dict(os.environ, PYTHONPATH=f"{tree / 'build' / 'package-tree'}:{ROOT}")
    done = subprocess.run([sys.executable, "-m", "bench.search_speed", "--child",
                           "--think", str(think), "--moves", str(moves)],
                          cwd=ROOT, env=environment, capture_output=True, text=True,
                          check=True)
    result: dict[str, list[int]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another checkout, built in place")
    parser.add_argument("--think", type=float, default=0.1, help="seconds a decision")
    parser.add_argument("--moves", type=int, default=40, help="decisions a game, each run")
    parser.add_argument("--runs", type=int, default=4, help="runs a side, alternated")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.think, args.moves)
        return
    if args.baseline is None:
        parser.error("--baseline is required: the checkout to compare with")
    sides = {"baseline": args.baseline.resolve(), "now": ROOT}
    totals: dict[str, dict[str, list[int]]] = {label: {} for label in sides}
    for run in range(args.runs):
        order = list(sides) if run % 2 == 0 else list(reversed(sides))
        for label in order:
            for name, counts in run_side(sides[label], args.think, args.moves).items():
                totals[label].setdefault(name, []).extend(counts)
    for label, tree in sides.items():
        compiled = all(totals[label].pop("compiled"))
        print(f"{label}: {tree} (engines {'compiled' if compiled else 'pure Python'})")
    print(f"searched per decision at {args.think:g} s, median over {args.runs} runs of "
          f"{args.moves} decisions a game (alternated):")
    for name in GAMES:
        before = statistics.median(totals["baseline"][name])
        after = statistics.median(totals["now"][name])
        unit = "deals" if name in ("hearts", "stars") else "playouts"
        print(f"  {name:>15}: baseline {before:,.0f} {unit}, now {after:,.0f}, "
              f"ratio {after / before:.2f}")


if __name__ == "__main__":
    main()
