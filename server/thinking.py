"""Bots that search think in worker processes, off the server's loop.

A bot whose class says it searches (``searches = True``, as a ``strong`` bot does) is asked
for its move in a small pool of worker processes (``server/bot_worker.py``), with the table's
time budget (``think`` seconds); the loop goes on answering everyone meanwhile and plays the
move when it comes back, through ``decide``, the log and ``evolve`` as any command. The bot
itself is anytime: when its time is up it plays the best move it has. Should a worker still
not have answered ``GRACE`` seconds after the budget (a bot that overran, a machine too busy),
the server plays a move of the table's Normal bot (or Easy, or random) in-process instead and
says so on stderr; the worker, should it still not answer ``STUCK`` seconds later, is then
stopped and started afresh for the next move, as is one that died (which is asked the move
again, once). The budget counts from when a worker starts on the move: one queued behind other
tables' moves waits as long as those may take. Quick bots (``random``, the heuristics) choose
in-process: a round trip to a worker costs more than their whole move. ``bench/thinking.py``
measures how quickly the server answers while its workers think.

What crosses to a worker is the observation alone, as plain data (the game's id, the seat's
view, its legal commands and the events it was shown), so a worker can know no more than the
seat does. A table's seats always go to the same worker, which keeps each seat's bot and the
events it was shown between moves: it is sent only the events since the seat's last move (the
whole history once, when it lost them).

The workers are fresh interpreters, not forks of the server: they hold none of its sockets,
and they die with it, kill -9 included (``bot_worker.die_with_parent``, and the end of their
input pipe). Each is started, fed and read by a thread of its own, so a long history written
to a busy worker never holds the loop up.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass
from typing import IO, Any

from starhall.server.bot_worker import (
    SESSIONS,
    Plain,
    SessionKey,
    read_frame,
    request,
    write_frame,
)
from starhall.shared.bots import Bot, bot_levels, make_bot
from starhall.shared.engine import Game
from starhall.shared.observation import Observation

GRACE = 0.5
"""Seconds past its budget a worker may take to answer before a fallback move is played."""
STUCK = 2.0
"""Seconds a worker may still take after the fallback move was played for it before it is
stopped and started afresh (its sessions lost): a machine too busy for a while is not worth a
new worker at every move, a bot that never answers is."""
STARTING = 10.0
"""Seconds a worker may take to start (an interpreter, the engines imported: a fraction of a
second, unless the machine is very busy) before the move it is to think about falls back."""
WORKERS = 2
"""Worker processes: the machines Starhall runs on have a few cores, and each move of a
searching bot keeps one busy for its whole budget."""
WORKER_IMPORTS: tuple[str, ...] = ()
"""Modules a worker imports before its first move (tests: bots of their own)."""
ROUTES = 4096
"""Tables whose worker is remembered, the least recently asked forgotten first."""
HELD = SESSIONS
"""Sessions whose events a worker is known to hold: as many as it keeps at most."""


def searches(bot: Bot) -> bool:
    """Whether ``bot`` thinks in a worker (its class says ``searches = True``)."""
    return bool(getattr(bot, "searches", False))


def fallback_bot(game: Game[Any], rng: random.Random) -> Bot:
    """The in-process bot that moves for a searching bot whose worker did not answer in time:
    the game's Normal bot, else its Easy one, else ``random``."""
    levels = bot_levels(game)
    return make_bot(game, levels.get("normal") or levels.get("easy") or "random", rng)


@dataclass(slots=True)
class Thought:
    """A move being thought about in a worker: for which seat, at which event, and until when
    the server waits for it (from when the worker starts on it; before that, as long as the
    moves queued before it may take)."""

    future: Future[Plain]
    seat: int
    seq: int
    deadline: float


@dataclass(slots=True)
class _Job:
    key: SessionKey
    seed: int
    seen: Observation
    think: float
    thought: Thought


class WorkerDied(Exception):
    """The worker ended before it answered (or was stopped for overrunning its time)."""

    overran = False
    """Whether it was stopped for overrunning its time."""


class BotFailed(Exception):
    """The bot raised an error in the worker (which goes on)."""


class _Worker:
    """One worker process and the thread that starts it, hands it jobs in turn and reads its
    answers. Only that thread touches the process's pipes and ``held``."""

    def __init__(self, number: int) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.process: subprocess.Popen[bytes] | None = None
        self.held: dict[SessionKey, int] = {}
        """How many events of each session the worker holds (as far as this side knows)."""
        self.closing = False
        self.thread = threading.Thread(target=self._serve, name=f"starhall-thinker-{number}",
                                       daemon=True)
        self.thread.start()

    def _start(self) -> subprocess.Popen[bytes]:
        self.held.clear()
        # Started from this thread: on Linux the worker dies when it ends (PR_SET_PDEATHSIG).
        self.process = process = subprocess.Popen(
            [sys.executable, "-m", "starhall.server.bot_worker", str(os.getpid()),
             *WORKER_IMPORTS],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
        assert process.stdout is not None
        try:
            started = read_frame(process.stdout) == ("ready",)
        except EOFError:
            started = False
        if not started:
            raise WorkerDied("the bot worker did not start")
        return process

    def _serve(self) -> None:
        while (job := self.jobs.get()) is not None:
            if self.closing or not job.thought.future.set_running_or_notify_cancel():
                job.thought.future.cancel()
                continue  # its table played a fallback move already, or the server ends
            try:
                job.thought.future.set_result(self._think(job))
            except BotFailed as error:
                job.thought.future.set_exception(error)
            except Exception as error:
                self._stop_process()  # a worker in doubt is started afresh for the next job
                job.thought.future.set_exception(error)

    def _think(self, job: _Job) -> Plain:
        try:
            reply = self._exchange(job)
        except WorkerDied as died:
            if died.overran or self.closing:
                raise
            # It died (killed, out of memory …) and not for overrunning: a fresh one tries once.
            self._stop_process()
            reply = self._exchange(job)
        if reply[0] == "move":
            self.held[job.key] = len(job.seen.seen)
            while len(self.held) > HELD:
                del self.held[next(iter(self.held))]  # the least recently asked
            result: Plain = reply[1]
            return result
        if reply[0] == "failed":
            raise BotFailed(reply[1])
        raise WorkerDied(f"the bot worker said {reply!r}")

    def _exchange(self, job: _Job) -> Any:
        """The worker's reply to ``job`` (a worker started first if none runs)."""
        process = self.process
        if process is None or process.poll() is not None:
            job.thought.deadline = time.monotonic() + STARTING + job.think + GRACE
            process = self._start()
        job.thought.deadline = time.monotonic() + job.think + GRACE
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        # A bot that overran (a bug, or a machine too busy) would hold up every move queued
        # behind it: once the server has played a fallback move for it, its worker is stopped
        # and started afresh for the next.
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            process.kill()

        overran = threading.Timer(job.think + GRACE + STUCK, stop)
        overran.start()
        try:
            reply = self._ask(stdin, stdout, job, self.held.pop(job.key, 0))
            if reply == ("again",):
                reply = self._ask(stdin, stdout, job, 0)
        except WorkerDied as died:
            died.overran = fired.is_set()
            raise
        finally:
            overran.cancel()
        return reply

    @staticmethod
    def _ask(stdin: IO[bytes], stdout: IO[bytes], job: _Job, start: int) -> Any:
        if start > len(job.seen.seen):
            start = 0
        try:
            write_frame(stdin, request(job.key, job.seed, job.seen, start, job.think))
            return read_frame(stdout)
        except (EOFError, OSError) as error:
            raise WorkerDied("the bot worker died") from error

    def _stop_process(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    # what was still to be written to it is wanted no more
                    with contextlib.suppress(OSError):
                        stream.close()

    def close(self) -> None:
        """Stop the worker, a bot still thinking too (its move is wanted no more)."""
        self.closing = True
        self.jobs.put(None)
        process = self.process
        if process is not None:
            process.kill()  # its thread, reading, hears the end and moves on to the None
        self.thread.join(timeout=5)
        self._stop_process()


class Thinkers:
    """The worker processes, started at the first searching bot's move."""

    def __init__(self, workers: int = WORKERS) -> None:
        self.count = workers
        self.workers: list[_Worker] = []
        self.routes: OrderedDict[str, _Worker] = OrderedDict()
        """Which worker each table's seats think in (it keeps their sessions)."""

    def ask(self, kind: str, seen: Observation, think: float, rng: random.Random,
            seq: int, table: str = "") -> Thought:
        """Ask a worker for the move of ``seen.seat`` at table ``table`` by a bot of ``kind``
        (seeded from ``rng``), taking ``think`` seconds."""
        if not self.workers:
            self.workers = [_Worker(number) for number in range(self.count)]
        worker = self.routes.pop(table, None)
        if worker is None:
            load = {id(w): 0 for w in self.workers}
            for routed in self.routes.values():
                load[id(routed)] += 1
            worker = min(self.workers, key=lambda w: (w.jobs.qsize(), load[id(w)]))
        self.routes[table] = worker
        while len(self.routes) > ROUTES:
            self.routes.popitem(last=False)
        # Until the worker starts on it, the moves queued before it (and one under way) bound
        # the wait.
        thought = Thought(Future(), seen.seat, seq,
                          time.monotonic() + (worker.jobs.qsize() + 2) * (think + GRACE))
        worker.jobs.put(_Job((table, seen.seat, kind), rng.getrandbits(64), seen, think,
                             thought))
        return thought

    def close(self) -> None:
        """Stop the workers, a bot still thinking too (its move is wanted no more)."""
        workers, self.workers = self.workers, []
        self.routes.clear()
        for worker in workers:
            worker.close()
