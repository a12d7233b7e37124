"""How long each game's ``strong`` bot takes to answer against the think time it is given
(issue 34: p99 within the budget plus 50 ms, on a loaded machine).

    python -m bench.think_time [--games hearts stars what_else stars_and_bars star_patience]
                               [--think 0.1 0.4] [--moves 100]

It gathers the decisions of a few games played by the Normal bots (``--moves`` of each
game's, spread over its games, only those with a choice), then asks a fresh ``strong`` bot
for each one at every ``--think`` in turn, decision by decision, so every budget is timed on
the same decisions under the same load. A fresh bot works out all it believes from the
decision's events, the longest it can take. It prints, per game and budget, the time from the
call to the answer: p50, p99 and the longest, how many went over the budget plus 50 ms, and
the oldest generation's garbage collections that ran during the timed calls (``gc``'s
callbacks) and their time. Only the moves a bot searched count (``searched``, where it says;
The Star's ``strong`` is its exact hint, every move).

The baseline, alternated call by call in the same process: an ideal bot that does nothing but
read the clock until the budget is up (``ideal``). On a loaded machine a process waits for a
core, however often it reads the clock; the ideal's p99 over its budget is what the machine
alone adds, and the bot's own overrun is what it adds beyond that. What the bot itself does
late is measured apart from the waiting too, in the processor time of its thread: from its
last read of the clock that found time left to its answer (``WatchedClock``, handed to the
bot as its ``clock``): the step it was in when the time ran out and whatever it does after
(p50, p99), however long it waited for a core meanwhile.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import time
from typing import Any

from bench.playouts import observations
from starhall.shared.bots import default_bot, make_bot
from starhall.shared.games import get_game

GAMES = ("hearts", "stars", "what_else", "stars_and_bars", "star_patience")
PLAYERS = {"hearts": 4, "stars": 4, "what_else": 4, "stars_and_bars": 2, "star_patience": 1}
SLACK = 0.050
"""What a move may take beyond its budget (the goal: p99 within it)."""


class FullCollections:
    """The oldest generation's collections while ``timing`` is set, and their seconds."""

    def __init__(self) -> None:
        self.timing = False
        self.count = 0
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if not self.timing or info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.count += 1
            self.seconds += time.perf_counter() - self._started


class WatchedClock:
    """``time.perf_counter`` for a bot's ``Deadline``, which notes the thread's processor
    time at the last read that found time left."""

    def __init__(self, think: float) -> None:
        self.think = think
        self.start: float | None = None
        self.processor = time.thread_time()

    def __call__(self) -> float:
        now = time.perf_counter()
        if self.start is None:
            self.start = now
        if now < self.start + self.think:
            self.processor = time.thread_time()
        return now


def ideal(think: float) -> None:
    """The baseline: a bot that reads the clock at every step and stops the moment its
    budget is up."""
    end = time.perf_counter() + think
    while time.perf_counter() < end:
        pass


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def sampled(game_id: str, moves: int) -> list[Any]:
    """``moves`` decisions with a choice, spread evenly over a few heuristic games."""
    game = get_game(game_id)
    found: list[Any] = []
    games = 1
    while len(found) < moves and games <= 64:
        found = observations(game, PLAYERS[game_id], default_bot(game), games)
        games *= 2
    step = max(1, len(found) // moves)
    return found[::step][:moves]


def summary(times: list[float], think: float) -> str:
    ordered = sorted(times)
    p50, p99 = percentile(ordered, 0.5), percentile(ordered, 0.99)
    over = sum(taken > think + SLACK for taken in ordered)
    return (f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, longest "
            f"{ordered[-1] * 1000:.0f} ms; over the budget + {SLACK * 1000:.0f} ms: {over} "
            f"of {len(ordered)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--think", type=float, nargs="+", default=[0.1, 0.4])
    parser.add_argument("--moves", type=int, default=100, help="decisions timed per game")
    args = parser.parse_args(argv)
    collections = FullCollections()
    gc.callbacks.append(collections)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores; "
          f"{args.moves} decisions a game, each budget in turn")
    for game_id in args.games:
        game = get_game(game_id)
        decisions = sampled(game_id, args.moves)
        times: dict[float, list[float]] = {think: [] for think in args.think}
        ideals: dict[float, list[float]] = {think: [] for think in args.think}
        beyond: dict[float, list[float]] = {think: [] for think in args.think}
        full: dict[float, list[float]] = {think: [0, 0.0] for think in args.think}
        for number, seen in enumerate(decisions):
            for think in args.think:
                bot = make_bot(game, "strong", random.Random(number))
                watched = WatchedClock(think)
                if hasattr(bot, "clock"):
                    bot.clock = watched
                collections.count, collections.seconds = 0, 0.0
                collections.timing = True
                start = time.perf_counter()
                bot.choose(seen, think)
                taken = time.perf_counter() - start
                collections.timing = False
                if not getattr(bot, "searched", True):
                    continue
                times[think].append(taken)
                if hasattr(bot, "clock"):
                    beyond[think].append(time.thread_time() - watched.processor)
                full[think][0] += collections.count
                full[think][1] += collections.seconds
                start = time.perf_counter()
                ideal(think)
                ideals[think].append(time.perf_counter() - start)
        for think in args.think:
            if not times[think]:
                print(f"{game_id:>14} at {think:g} s: no move searched")
                continue
            print(f"{game_id:>14} at {think:g} s: {summary(times[think], think)}; full "
                  f"collections {full[think][0]:.0f} ({full[think][1] * 1000:.0f} ms)")
            if beyond[think]:
                late = sorted(beyond[think])
                print(f"{'':>14}   its own work from the last check with time left: p50 "
                      f"{percentile(late, 0.5) * 1000:.1f} ms, p99 "
                      f"{percentile(late, 0.99) * 1000:.1f} ms of processor time")
            print(f"{'ideal':>14} at {think:g} s: {summary(ideals[think], think)}", flush=True)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
