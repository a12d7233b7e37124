"""Flat Monte Carlo search at the root, anytime: the ``strong`` bots of "what else?" and Stars
and Bars share it.

Each candidate move is tried again and again, each time in a world sampled afresh from what
the seat has seen (a *determinization*) and played on by a rollout policy; UCB1 spends the
playouts on the candidates that look best, and the search stops when its time is up and
answers the candidate it played out most (UCB's choice, steadier than the best mean of a
few playouts). The clock is read only for the budget: with the
same random numbers and the same number of playouts, the same move comes out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from math import log, sqrt
from typing import TypeVar

World = TypeVar("World")

EXPLORATION = 0.7
"""UCB1's constant for values in [0, 1]: lower than the textbook sqrt(2), since every
candidate here is a sensible move and the budget is short."""


@dataclass(slots=True)
class SearchResult:
    chosen: int
    """The index of the candidate chosen."""
    playouts: int
    means: list[float]
    visits: list[int]


def flat_search(count: int, playout: Callable[[int], float], think: float,
                default: int = 0, least: int = 0) -> SearchResult:
    """Play out candidates ``0 … count - 1`` with ``playout(index)`` (a value in [0, 1], the
    higher the better for the seat) until ``think`` seconds are spent, and choose the best
    most played out (the best mean among equals). ``default`` (the rollout policy's own move,
    say) is chosen until every candidate has been played out once; ``least`` playouts are
    made whatever the clock says."""
    start = time.perf_counter()
    totals = [0.0] * count
    visits = [0] * count
    done = 0
    if count > 1:
        while done < least or time.perf_counter() - start < think:
            if done < count:
                index = done  # each candidate once before UCB can compare them
            else:
                scale = EXPLORATION * sqrt(log(done))
                index = max(range(count), key=lambda i: totals[i] / visits[i]
                            + scale / sqrt(visits[i]))
            totals[index] += playout(index)
            visits[index] += 1
            done += 1
    means = [totals[i] / visits[i] if visits[i] else 0.0 for i in range(count)]
    chosen = default
    if done >= count:
        chosen = max(range(count), key=lambda i: (visits[i], means[i], i == default))
    return SearchResult(chosen, done, means, visits)


def paired_search(count: int, sample: Callable[[], World],
                  playout: Callable[[int, World], float], think: float,
                  default: int = 0, least: int = 0) -> SearchResult:
    """Like ``flat_search``, but every candidate is played out in each world ``sample()``
    gives, so candidates are compared on the same deals (their differences far less noisy
    than their values); the best mean over the worlds finished is chosen (``default`` until
    one world is). For a handful of candidates, where UCB's savings are small."""
    start = time.perf_counter()
    totals = [0.0] * count
    worlds = 0
    done = 0
    if count > 1:
        while worlds < least or time.perf_counter() - start < think:
            world = sample()
            for index in range(count):
                totals[index] += playout(index, world)
            worlds += 1
            done += count
    means = [total / worlds if worlds else 0.0 for total in totals]
    chosen = default
    if worlds:
        chosen = max(range(count), key=lambda i: (means[i], i == default))
    return SearchResult(chosen, done, means, [worlds] * count)
