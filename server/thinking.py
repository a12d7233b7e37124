"""Bots that search think in worker processes, off the server's loop.

A bot whose class says it searches (``searches = True``, as a ``strong`` bot does) is asked
for its move in a small pool of worker processes, with the table's time budget (``think``
seconds); the loop goes on answering everyone meanwhile and plays the move when it comes
back, through ``decide``, the log and ``evolve`` as any command. The bot itself is anytime:
when its time is up it plays the best move it has. Should a worker still not have answered
``GRACE`` seconds after the budget (a bot that overran, a worker that died), the server plays
a move of the table's Normal bot (or Easy, or random) in-process instead and says so on
stderr. Quick bots (``random``, the heuristics) choose in-process: a round trip to a worker
costs more than their whole move.

What crosses to a worker is the observation alone, as plain data (the game's id, the seat's
view, its legal commands and the events it was shown), so a worker can know no more than the
seat does.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from starhall.shared.bots import Bot, bot_levels, make_bot
from starhall.shared.engine import Command, Event, Game
from starhall.shared.games import get_game
from starhall.shared.observation import Observation

GRACE = 0.5
"""Seconds past its budget a worker may take to answer before a fallback move is played."""
WORKERS = 2
"""Worker processes: the machines Starhall runs on have a few cores, and each move of a
searching bot keeps one busy for its whole budget."""

Plain = tuple[str, int | None, dict[str, Any]]


def searches(bot: Bot) -> bool:
    """Whether ``bot`` thinks in a worker (its class says ``searches = True``)."""
    return bool(getattr(bot, "searches", False))


def _plain(move: Command | Event) -> Plain:
    return move.type, move.seat, dict(move.data)


def to_plain(seen: Observation) -> tuple[Any, ...]:
    """An observation as plain data for a worker (the game by its id)."""
    return (seen.game.id, seen.players, dict(seen.options), seen.seat, seen.view,
            [_plain(command) for command in seen.legal], [_plain(event) for event in seen.seen])


def from_plain(data: tuple[Any, ...]) -> Observation:
    game_id, players, options, seat, view, legal, seen = data
    return Observation(get_game(game_id), players, options, seat, view,
                       tuple(Command(*command) for command in legal),
                       tuple(Event(*event) for event in seen))


def choose_in_worker(kind: str, seed: int, plain: tuple[Any, ...], think: float) -> Plain:
    """In a worker: a fresh bot of ``kind`` chooses from the observation ``plain``."""
    seen = from_plain(plain)
    bot = make_bot(seen.game, kind, random.Random(seed))
    return _plain(bot.choose(seen, think))


def fallback_bot(game: Game[Any], rng: random.Random) -> Bot:
    """The in-process bot that moves for a searching bot whose worker did not answer in time:
    the game's Normal bot, else its Easy one, else ``random``."""
    levels = bot_levels(game)
    return make_bot(game, levels.get("normal") or levels.get("easy") or "random", rng)


@dataclass(slots=True)
class Thought:
    """A move being thought about in a worker: for which seat, at which event, and until when
    the server waits for it."""

    future: Future[Plain]
    seat: int
    seq: int
    deadline: float


class Thinkers:
    """The pool of worker processes, started at the first searching bot's move."""

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None

    def ask(self, kind: str, seen: Observation, think: float, rng: random.Random,
            seq: int) -> Thought:
        if self.pool is None:
            # fork: a worker starts at once, with the bots this process knows
            self.pool = ProcessPoolExecutor(self.workers, multiprocessing.get_context("fork"))
        future = self.pool.submit(choose_in_worker, kind, rng.getrandbits(64), to_plain(seen),
                                  think)
        return Thought(future, seen.seat, seq, time.monotonic() + think + GRACE)

    def close(self) -> None:
        """Stop the workers, a bot still thinking too (its move is wanted no more)."""
        pool = self.pool
        if pool is None:
            return
        self.pool = None
        # The pool has no way to stop a task under way: its processes are ended instead, or
        # a bot thinking past its budget would hold the server's exit up.
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
