"""A bot-worker process: ``python -m starhall.server.bot_worker PARENT_PID [MODULE …]``.

The server (``server/thinking.py``) starts it as a fresh interpreter, not a fork, so it holds
none of the server's sockets or threads: a restarted server can bind its port at once. It
dies with its server: on Linux the kernel kills it when the thread that started it ends
(``PR_SET_PDEATHSIG``), kill -9 of the server included, and anywhere it ends when its input
pipe reaches its end, which happens when the server is gone.

It reads requests from its standard input and answers on its standard output, each a frame
(``write_frame``); anything a bot prints goes to standard error. A request is a move to
think about for one seat of one table; the worker keeps a *session* per (table, seat, bot
kind): the events the seat was shown so far and the bot, whose beliefs about the hidden cards
follow those events. So a request carries only the events since the seat's last request
(``start`` counts those the worker should already hold, ``anchor`` is the last of them); a
worker that lost the session or holds other events answers ``again`` and is sent the whole
history once.

A move depends only on what the request says and its seed: the bot's random numbers are
reseeded with it, as a fresh bot made with that seed would have them.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import pickle
import random
import signal
import struct
import sys
from collections import OrderedDict
from dataclasses import dataclass
from typing import IO, Any

from starhall.shared.bots import Bot, make_bot
from starhall.shared.engine import Command, Event
from starhall.shared.games import get_game
from starhall.shared.observation import Observation

NICE = 5
"""How much lower a worker's priority is than its server's: a search takes whatever the cores
have left, while the server's loop, answering people, comes first."""
SESSIONS = 64
"""Sessions a worker keeps, the least recently used dropped first (a table long finished): 16
tables of four searching bots, each session holding its seat's events (a long game's, a few
thousand); a session dropped and asked again is sent the whole history once."""
_LENGTH = struct.Struct(">I")
PR_SET_PDEATHSIG = 1

Plain = tuple[str, int | None, dict[str, Any]]
SessionKey = tuple[str, int, str]
"""A session's table id, seat and bot kind."""


def write_frame(stream: IO[bytes], message: Any) -> None:
    """One message on ``stream``: its length, then its pickle (only ever between a server and
    the worker it started)."""
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next message on ``stream``; ``EOFError`` once the other end is gone."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def plain(move: Command | Event) -> Plain:
    return move.type, move.seat, dict(move.data)


def request(key: SessionKey, seed: int, seen: Observation, start: int, think: float
            ) -> tuple[Any, ...]:
    """What a worker is sent to move for ``seen.seat`` (``key``) with random numbers from
    ``seed`` in ``think`` seconds, when it holds the first ``start`` events ``seen`` shows."""
    events = seen.seen
    return (key, seed, start, plain(events[start - 1]) if start else None,
            [plain(event) for event in events[start:]], seen.game.id, seen.players,
            dict(seen.options), seen.seat, seen.view, [plain(command) for command in seen.legal],
            think)


@dataclass(slots=True)
class Session:
    """What a worker keeps of one seat's bot: the events the seat was shown, and the bot."""

    rng: random.Random
    bot: Bot
    seen: list[Event]


class Worker:
    """The sessions of one worker, and the answer to each request."""

    def __init__(self) -> None:
        self.sessions: OrderedDict[SessionKey, Session] = OrderedDict()

    def answer(self, request: tuple[Any, ...]) -> tuple[Any, ...]:
        (key, seed, start, anchor, new, game_id, players, options, seat, view, legal,
         think) = request
        session = self.sessions.get(key)
        if start and (session is None or len(session.seen) != start
                      or plain(session.seen[-1]) != anchor):
            return ("again",)
        game = get_game(game_id)
        if session is None or not start:
            rng = random.Random(seed)
            session = Session(rng, make_bot(game, key[2], rng), [])
            self.sessions[key] = session
            while len(self.sessions) > SESSIONS:
                self.sessions.popitem(last=False)
        self.sessions.move_to_end(key)
        session.rng.seed(seed)  # the same numbers as a fresh bot made with this seed
        session.seen.extend(Event(*event) for event in new)
        seen = Observation(game, players, options, seat, view,
                           tuple(Command(*command) for command in legal), tuple(session.seen))
        return ("move", plain(session.bot.choose(seen, think)))


def die_with_parent(parent: int) -> None:
    """On Linux, be killed when the server's thread that started this process ends (kill -9
    of the server too); exit now if the server is already gone."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # then the end of the input pipe is the only word of the server's end
    if os.getppid() != parent:
        os._exit(0)


def main(argv: list[str]) -> int:
    die_with_parent(int(argv[0]))
    # Ctrl-C in a terminal reaches the whole process group: the server decides when this ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        os.nice(NICE)
    for module in argv[1:]:
        importlib.import_module(module)
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a bot prints goes to stderr, never into the answers
    requests = sys.stdin.buffer
    worker = Worker()
    write_frame(answers, ("ready",))
    while True:
        try:
            request = read_frame(requests)
        except EOFError:
            return 0  # the server is gone
        try:
            reply = worker.answer(request)
        except Exception as error:  # a bot's bug fails this move, not the worker
            reply = ("failed", repr(error))
        try:
            write_frame(answers, reply)
        except (BrokenPipeError, OSError):
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
