"""Flat Monte Carlo search at the root, anytime: the ``strong`` bots of "what else?" and Stars
and Bars share it.

Each candidate move is played out again and again, each time in a world sampled afresh from
what the seat has seen (a *determinization*) and played on by a rollout policy; every
candidate is played in the same worlds, so they are compared on the same deals (their
differences far less noisy than their values). The search stops when its time is up and
answers the candidate with the best mean. The clock is read only for the budget: with the
same random numbers and the same number of worlds, the same move comes out.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import sqrt
from typing import TypeVar

World = TypeVar("World")


@dataclass(slots=True)
class SearchResult:
    chosen: int
    """The index of the candidate chosen."""
    playouts: int
    worlds: int
    means: list[float]


def paired_search(count: int, sample: Callable[[], World],
                  playout: Callable[[int, World], float], think: float,
                  default: int = 0, least: int = 0, doubt: float = 0.0) -> SearchResult:
    """Play out candidates ``0 … count - 1`` with ``playout(index, world)`` (the higher the
    better for the seat) in worlds from ``sample()`` until ``think`` seconds are spent, and
    choose the best mean over the worlds finished (``default`` on a tie, and until a world
    is finished). With ``doubt``, a candidate replaces ``default`` only when its mean beats
    the default's by more than ``doubt`` standard errors of their difference over the worlds:
    a search too short to tell moves apart then keeps the rollout policy's own move rather
    than the luckiest. A world the time runs out in is left unfinished and uncounted, so the
    search overruns ``think`` by one playout at most. ``least`` worlds are played whatever
    the clock says."""
    start = time.perf_counter()
    totals = [0.0] * count
    squares = [0.0] * count
    """Per candidate, the sum of its squared differences from the default in each world."""
    worlds = 0
    if count > 1:
        clock = time.perf_counter
        while worlds < least or clock() - start < think:
            world = sample()
            values = []
            for index in range(count):
                if worlds >= least and clock() - start >= think:
                    break
                values.append(playout(index, world))
            else:
                base = values[default]
                for index, value in enumerate(values):
                    totals[index] += value
                    squares[index] += (value - base) ** 2
                worlds += 1
    means = [total / worlds if worlds else 0.0 for total in totals]
    chosen = default
    if worlds:
        def doubted(i: int) -> float:
            if not doubt or i == default:
                return means[i]
            return means[i] - doubt * _error(means[i] - means[default], squares[i], worlds)

        chosen = max(range(count), key=lambda i: (doubted(i), i == default))
    return SearchResult(chosen, worlds * count, worlds, means)


def _error(mean: float, squares: float, worlds: int) -> float:
    """The standard error of a mean difference from its sum of squares over ``worlds``."""
    if worlds < 2:
        return float("inf") if squares else 0.0
    variance = max(squares / worlds - mean * mean, 0.0) * worlds / (worlds - 1)
    return sqrt(variance / worlds)


class WorldsBot:
    """What the strong bots that search by ``paired_search`` keep: their random numbers, and
    what their last move's search did."""

    searches = True
    """It thinks for its whole budget: the server asks it in a worker process."""

    def __init__(self, rng: random.Random, worlds: int = 0) -> None:
        self.rng = rng
        self.worlds = worlds
        """Worlds played out whatever the clock says (tests: a search that does not depend
        on the machine's speed)."""
        self.last_playouts = 0
        self.searched = False
        """Whether the last move was searched (not a forced or routine one)."""
