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

from starhall.shared.engine import Command

World = TypeVar("World")


@dataclass(slots=True)
class SearchResult:
    chosen: int
    """The index of the candidate chosen."""
    playouts: int
    worlds: int
    means: list[float]
    counts: list[int]
    """Worlds each candidate was played out in (fewer for one dropped as clearly beaten)."""
    errors: list[float]
    """The standard error of each candidate's mean (``inf`` with fewer than two worlds)."""


@dataclass(frozen=True, slots=True)
class MoveValue:
    """What a search found one legal move worth to the seat (replay analysis reads these)."""

    command: Command
    value: float
    """The mean over the worlds it was played out in: the playouts' value, higher better."""
    spread: float
    """The standard error of ``value``."""
    worlds: int


PRUNE_AFTER = 4
"""Worlds every candidate is played out in before any is dropped (``prune``)."""
PRUNE_Z = 2.5
"""A candidate is dropped once the best one's lead over it, world by world, is this many
standard errors above nothing."""


def paired_search(count: int, sample: Callable[[], World],
                  playout: Callable[[int, World], float], think: float,
                  default: int = 0, least: int = 0, doubt: float = 0.0,
                  most: int | None = None, prune: bool = False) -> SearchResult:
    """Play out candidates ``0 … count - 1`` with ``playout(index, world)`` (the higher the
    better for the seat) in worlds from ``sample()`` until ``think`` seconds are spent (or
    ``most`` worlds), and choose the best mean over the worlds finished (``default`` on a tie,
    and until a world is finished). With ``doubt``, a candidate replaces ``default`` only when
    its mean beats the default's by more than ``doubt`` standard errors of their difference
    over the worlds: a search too short to tell moves apart then keeps the rollout policy's
    own move rather than the luckiest. With ``prune``, a candidate the best one beats clearly
    world by world (``PRUNE_Z``) is played out no more, so the worlds go to those still in
    doubt. A world the time runs out in is left unfinished and uncounted, so the search
    overruns ``think`` by one playout at most. ``least`` worlds are played whatever the clock
    says."""
    start = time.perf_counter()
    results: list[list[float]] = [[] for _ in range(count)]
    active = list(range(count))
    worlds = 0
    if count > 1:
        clock = time.perf_counter
        while (worlds < least or clock() - start < think) and (most is None or worlds < most):
            world = sample()
            values = []
            for index in active:
                if worlds >= least and clock() - start >= think:
                    break
                values.append(playout(index, world))
            else:
                for index, value in zip(active, values, strict=True):
                    results[index].append(value)
                worlds += 1
                if prune and worlds >= PRUNE_AFTER and len(active) > 1:
                    active = _still_in_doubt(active, results)
    counts = [len(values) for values in results]
    means = [sum(values) / len(values) if values else 0.0 for values in results]
    chosen = default
    if worlds:
        def doubted(i: int) -> float:
            if not doubt or i == default:
                return means[i]
            return means[i] - doubt * _error([a - b for a, b in zip(
                results[i], results[default], strict=False)])

        chosen = max(active, key=lambda i: (doubted(i), i == default, counts[i]))
    errors = [_spread(values) for values in results]
    return SearchResult(chosen, sum(counts), worlds, means, counts, errors)


def _spread(values: list[float]) -> float:
    """The standard error of the mean of ``values`` (``inf`` for fewer than two)."""
    n = len(values)
    if n < 2:
        return float("inf")
    mean = sum(values) / n
    return sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def move_values(commands: list[Command], result: SearchResult) -> list[MoveValue]:
    """Each candidate's value as ``result`` found it, best first."""
    found = [MoveValue(command, result.means[i], result.errors[i], result.counts[i])
             for i, command in enumerate(commands)]
    return sorted(found, key=lambda move: -move.value)


def _error(differences: list[float]) -> float:
    """The standard error of the mean of ``differences``."""
    n = len(differences)
    if n < 2:
        return float("inf") if any(differences) else 0.0
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    return sqrt(variance / n)


def _still_in_doubt(active: list[int], results: list[list[float]]) -> list[int]:
    """The candidates the best one (by mean) does not yet beat clearly over the worlds both
    were played out in (the last ``n``: every active one was played out in each of them)."""
    n = min(len(results[i]) for i in active)
    best = max(active, key=lambda i: sum(results[i][-n:]))
    top = results[best][-n:]
    kept = []
    for i in active:
        leads = [a - b for a, b in zip(top, results[i][-n:], strict=True)]
        mean = sum(leads) / n
        spread = sqrt(sum((lead - mean) ** 2 for lead in leads) / (n - 1))
        if i == best or mean <= 0 or mean <= PRUNE_Z * spread / sqrt(n) and spread:
            kept.append(i)
    return kept


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
