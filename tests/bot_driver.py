"""Bots at a table of the engine alone, each seat given its ``Observation`` (``SeatMemory``
keeps what each seat was shown, as ``Table`` does), for the tests and bench/bots.py, which
start tables at states of their own and time every choice."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starhall.shared.engine import Command, Event, Game
from starhall.shared.observation import Observation, SeatMemory
from starhall.shared.options import Options
from starhall.shared.shuffle import shuffle_command


@dataclass
class Player:
    """A seat's bot and how long it thought, move by move."""

    bot: Any
    think: float = 0.1
    times: list[float] = field(default_factory=list)
    """Seconds per choice, choices of one legal command (forced) left out."""

    def choose(self, game: Game[Any], state: Any, seen: Observation) -> Command:
        start = time.perf_counter()
        command = self.bot.choose(seen, self.think)
        if len(seen.legal) > 1:
            self.times.append(time.perf_counter() - start)
        return command


class ObservedTable:
    """A game's state and, for each seat, every event as that seat was shown it."""

    def __init__(self, game: Game[Any], players: int, options: Options,
                 state: Any = None) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.state = game.new_state(players, options) if state is None else state
        self.memory = SeatMemory(game, players, options)
        self.events: list[Event] = []

    def apply(self, command: Command) -> list[Event]:
        events = self.game.decide(self.state, command)
        for event in events:
            self.memory.add(self.state, event)
            self.events.append(event)
            self.state = self.game.evolve(self.state, event)
        return events

    def shuffle(self, seed: int) -> None:
        request = self.game.chance(self.state)
        assert request is not None, "the game is not waiting for a shuffle"
        self.apply(shuffle_command(request, seed))

    def observation(self, seat: int) -> Observation:
        return self.memory.observe(self.state, seat)

    def play_until(self, players: list[Player], stop: Callable[[Any], bool],
                   seed: Callable[[], int]) -> None:
        """Play on, shuffling by ``seed()`` when asked, until ``stop(state)``."""
        while not stop(self.state):
            if self.game.chance(self.state) is not None:
                self.shuffle(seed())
                continue
            seat = self.game.to_act(self.state)[0]
            self.apply(players[seat].choose(self.game, self.state, self.observation(seat)))
