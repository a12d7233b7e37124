"""Flat Monte Carlo search at the root, anytime: the ``strong`` bots of "what else?" and Stars
and Bars share it.

Each candidate move is played out again and again, each time in a world sampled afresh from
what the seat has seen (a *determinization*) and played on by a rollout policy; every
candidate is played in the same worlds, so they are compared on the same deals (their
differences far less noisy than their values). The search stops when its time is up and
answers the candidate with the best mean. The clock is read only for the budget: with the
same random numbers and the same number of worlds, the same move comes out.

``Deadline`` is how every game's strong bot keeps to its think time, this search or
``search.flat_search``: made when the bot is asked, read before every world and by the
playouts at every step.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from math import sqrt
from typing import TypeVar, final

from starhall.shared.cards import Chance
from starhall.shared.engine import Command

World = TypeVar("World")


class OutOfTime(Exception):
    """A search's deadline passed in the middle of a step (``Deadline.check``): what it was
    doing is left unfinished and counts for nothing."""


class Deadline:
    """When a bot's move must be answered: ``think`` seconds after it was asked. A bot makes
    it first thing in ``choose``, so what it works out before its search (what it believes of
    the hidden cards, the heuristic's move) counts against the budget too; its search reads it
    before every world and its playouts at every step they take (``check``), so the move is
    answered within one step of the budget, however long a playout. ``clock`` is the time in
    seconds (``time.perf_counter``; a test hands in one that counts its reads). While
    ``armed`` is off (the worlds a search plays whatever the clock says, ``least``) ``check``
    lets everything finish."""

    __slots__ = ("end", "clock", "armed")

    def __init__(self, think: float, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.end = clock() + think
        self.armed = True

    def passed(self) -> bool:
        return self.clock() >= self.end

    def check(self) -> None:
        """``OutOfTime`` once the deadline has passed (unless disarmed)."""
        if self.armed and self.clock() >= self.end:
            raise OutOfTime


@final
class Replay:
    """The random numbers of one world's playouts, the same for each candidate played out in
    it (common random numbers): drawn from ``source`` the first time a playout reads that far,
    and kept in ``draws``, which every ``Replay`` of the world shares. Cheaper than seeding a
    ``random.Random`` for each playout, which costs as much as a dozen cards played."""

    __slots__ = ("source", "draws", "at")

    def __init__(self, source: Chance, draws: list[float]) -> None:
        self.source = source
        self.draws = draws
        self.at = 0

    def random(self) -> float:
        at = self.at
        self.at = at + 1
        draws = self.draws
        if at < len(draws):
            return draws[at]
        value = self.source.random()
        draws.append(value)
        return value


def replay(chance: Chance) -> Replay:
    """``chance`` as a ``Replay``: itself, or a new stream drawing from it."""
    if isinstance(chance, Replay):
        return chance
    return Replay(chance, [])


Budget = float | Deadline
"""A search's think time: seconds from now, or a deadline a bot made when it was asked."""


def deadline_of(budget: Budget) -> Deadline:
    return budget if isinstance(budget, Deadline) else Deadline(budget)


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
    """The standard error of each candidate's mean over its worlds."""


PRUNE_AFTER = 4
"""Worlds every candidate is played out in before any is dropped (``prune``)."""
PRUNE_Z = 2.5
"""A candidate is dropped once the best one's lead over it, world by world, is this many
standard errors above nothing."""


def paired_search(count: int, sample: Callable[[], World],
                  playout: Callable[[int, World], float], think: Budget,
                  default: int = 0, least: int = 0, doubt: float = 0.0,
                  most: int | None = None, prune: bool = False) -> SearchResult:
    """Play out candidates ``0 … count - 1`` with ``playout(index, world)`` (the higher the
    better for the seat) in worlds from ``sample()`` until ``think`` (seconds from now, or a
    ``Deadline``) is up (or ``most`` worlds), and choose the best mean over the worlds
    finished (``default`` on a tie, and until a world is finished). With ``doubt``, a
    candidate replaces ``default`` only when its mean beats the default's by more than
    ``doubt`` standard errors of their difference over the worlds: a search too short to tell
    moves apart then keeps the rollout policy's own move rather than the luckiest. With
    ``prune``, a candidate the best one beats clearly world by world (``PRUNE_Z``) is played
    out no more, so the worlds go to those still in doubt. A world the time runs out in is
    left unfinished and uncounted: a playout that checks the deadline at its steps
    (``Deadline.check``, raising ``OutOfTime``) stops at the first one after it, so the
    search overruns by one step at most. ``least`` worlds are played whatever the clock
    says."""
    deadline = deadline_of(think)
    results: list[list[float]] = [[] for _ in range(count)]
    active = list(range(count))
    sums = _Sums(count if prune else 0)
    worlds = 0
    if count > 1:
        try:
            while (worlds < least or not deadline.passed()) and (most is None or worlds < most):
                deadline.armed = worlds >= least
                world = sample()
                values = []
                for index in active:
                    deadline.check()
                    values.append(playout(index, world))
                for index, value in zip(active, values, strict=True):
                    results[index].append(value)
                worlds += 1
                if prune:
                    sums.add(active, values)
                    if worlds >= PRUNE_AFTER and len(active) > 1:
                        active = sums.still_in_doubt(active, worlds)
        except OutOfTime:
            pass
        finally:
            deadline.armed = True
    counts = [len(values) for values in results]
    means = [sum(values) / len(values) if values else 0.0 for values in results]
    errors = [_error(values) if values else 0.0 for values in results]
    chosen = default
    if worlds:
        def doubted(i: int) -> float:
            if not doubt or i == default:
                return means[i]
            return means[i] - doubt * _error([a - b for a, b in zip(
                results[i], results[default], strict=False)])

        chosen = max(active, key=lambda i: (doubted(i), i == default, counts[i]))
    return SearchResult(chosen, sum(counts), worlds, means, counts, errors)


def _error(differences: list[float]) -> float:
    """The standard error of the mean of ``differences``."""
    n = len(differences)
    if n < 2:
        return float("inf") if any(differences) else 0.0
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    return sqrt(variance / n)


class _Sums:
    """Running sums of the candidates' values over the worlds, and of their products pair by
    pair: enough to compare any two over every world both were played out in, in time that
    does not grow with the worlds (a pruned search plays every candidate still active in
    every world)."""

    def __init__(self, count: int) -> None:
        self.total = [0.0] * count
        self.squares = [0.0] * count
        self.products = [[0.0] * count for _ in range(count)]

    def add(self, active: list[int], values: list[float]) -> None:
        total, squares, products = self.total, self.squares, self.products
        for position, i in enumerate(active):
            value = values[position]
            total[i] += value
            squares[i] += value * value
            row = products[i]
            for other in range(position + 1, len(active)):
                row[active[other]] += value * values[other]

    def still_in_doubt(self, active: list[int], n: int) -> list[int]:
        """The candidates the best one (by mean) does not yet beat clearly over the ``n``
        worlds (every active one was played out in each of them)."""
        total, squares, products = self.total, self.squares, self.products
        best = max(active, key=lambda i: total[i])
        kept = []
        for i in active:
            if i == best:
                kept.append(i)
                continue
            mean = (total[best] - total[i]) / n
            product = products[best][i] if best < i else products[i][best]
            # the sum of squared deviations of the leads, from the sums: clipped at 0 and
            # taken as 0 when it is only rounding
            deviations = squares[best] - 2 * product + squares[i] - n * mean * mean
            spread = sqrt(deviations / (n - 1)) if deviations > 1e-12 * n else 0.0
            if mean <= 0 or mean <= PRUNE_Z * spread / sqrt(n) and spread:
                kept.append(i)
        return kept


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move as a strong bot's search valued it (``Appraisal``)."""

    command: Command
    value: float
    """Its mean over the worlds it was played out in, in the bot's own reward."""
    error: float
    """The standard error of that mean: how sure the value is."""
    worlds: int
    """The worlds it was played out in (0: every move comes to the same, none was played)."""


@dataclass(frozen=True, slots=True)
class Appraisal:
    """What a strong bot's search makes of each legal move at one decision (its
    ``appraise``): for the replay viewer's analysis, never for play."""

    moves: tuple[MoveValue, ...]
    unit: str
    """What a value times ``scale`` counts, in words: "points", "% win chance"."""
    scale: float
    """A reward times this is in ``unit``."""
    exact: bool = False
    """The values are worked out exactly (over every way the unseen cards may lie), not
    sampled: their errors are 0."""


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
        self.clock: Callable[[], float] = time.perf_counter
        """What the ``Deadline`` of a move reads (a test hands in a clock that counts its
        reads)."""
