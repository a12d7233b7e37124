"""Bots at a table of the engine alone, each seat given its ``Observation``: the events cut for
it by ``event_view`` as they happen. For the tests and bench/bots.py, until the server hands
bots observations itself; a bot of the older ``choose(game, state, seat)`` kind is asked that
way (``Player`` says which)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starhall.shared.engine import Command, Event, Game
from starhall.shared.observation import Observation, observe
from starhall.shared.options import Options
from starhall.shared.shuffle import shuffle_command


@dataclass
class Player:
    """A seat's bot and how long it thought, move by move."""

    bot: Any
    think: float = 0.1
    observes: bool = True
    """``choose(observation, think)``; else the older ``choose(game, state, seat)``."""
    times: list[float] = field(default_factory=list)
    """Seconds per choice, choices of one legal command (forced) left out."""

    def choose(self, game: Game[Any], state: Any, seen: Observation) -> Command:
        start = time.perf_counter()
        if self.observes:
            command = self.bot.choose(seen, self.think)
        else:
            command = self.bot.choose(game, state, seen.seat)
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
        self.seen: list[list[Event]] = [[] for _ in range(players)]
        self.events: list[Event] = []

    def apply(self, command: Command) -> list[Event]:
        events = self.game.decide(self.state, command)
        for event in events:
            for seat in range(self.players):
                shown = self.game.event_view(self.state, event, seat)
                if shown is not None:
                    self.seen[seat].append(shown)
            self.events.append(event)
            self.state = self.game.evolve(self.state, event)
        return events

    def shuffle(self, seed: int) -> None:
        request = self.game.chance(self.state)
        assert request is not None, "the game is not waiting for a shuffle"
        self.apply(shuffle_command(request, seed))

    def observation(self, seat: int) -> Observation:
        return observe(self.game, self.players, self.options, seat, self.state,
                       tuple(self.seen[seat]))

    def play_until(self, players: list[Player], stop: Callable[[Any], bool],
                   seed: Callable[[], int]) -> None:
        """Play on, shuffling by ``seed()`` when asked, until ``stop(state)``."""
        while not stop(self.state):
            if self.game.chance(self.state) is not None:
                self.shuffle(seed())
                continue
            seat = self.game.to_act(self.state)[0]
            self.apply(players[seat].choose(self.game, self.state, self.observation(seat)))
