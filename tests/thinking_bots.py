"""Searching bots for tests/test_thinking.py: its fixture adds them to Hearts' bots in the
server's process, and ``tests/thinking_bots_in_worker.py`` in its bot workers."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

from starhall.shared.engine import Command
from starhall.shared.observation import Observation

GATE = "STARHALL_TEST_GATE"
"""The environment variable naming the file whose coming opens ``GatedBot``'s gate."""


class GatedBot:
    """Thinks until the test opens its gate (the file ``$STARHALL_TEST_GATE`` exists), then
    plays a random legal move."""

    searches = True

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        gate = Path(os.environ[GATE])
        opened = threading.Event()
        while not gate.exists():
            opened.wait(0.01)  # polls the gate: what it waits for is the file
        return seen.game.random_choice(seen.legal, self.rng)


class OverrunBot(GatedBot):
    """Never answers its first move (of any bot of this kind: the file
    ``$STARHALL_TEST_GATE.overran`` marks that it came), and plays every later one at once,
    adding a line to ``$STARHALL_TEST_GATE.played`` for each."""

    def choose(self, seen: Observation, think: float) -> Command:
        marker = Path(os.environ[GATE] + ".overran")
        try:
            marker.touch(exist_ok=False)
        except FileExistsError:
            with open(os.environ[GATE] + ".played", "a") as played:
                played.write("played\n")
            return seen.game.random_choice(seen.legal, self.rng)
        threading.Event().wait()  # until its worker is stopped
        raise AssertionError("unreachable")


BOTS = {"gated": GatedBot, "overrun": OverrunBot}
