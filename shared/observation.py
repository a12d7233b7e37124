"""What a seat has seen of its table: all a bot is given to choose a move.

A bot is never handed the table's state, only an ``Observation``: the seat's view now, the
legal commands, and every event of the table so far as this seat was shown it (each cut by
``game.event_view``), from which a searching bot works out what it may assume about the
hidden cards (cards played, voids shown, cards passed and received). So what a bot can know
is what a person in the seat could know, by construction rather than by trust.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starhall.shared.engine import Command, Event, Game, Seat
from starhall.shared.options import Options


@dataclass(frozen=True, slots=True)
class Observation:
    game: Game[Any]
    players: int
    options: Options
    seat: Seat
    view: dict[str, Any]
    """``game.view(state, seat)`` now."""
    legal: tuple[Command, ...]
    """``game.legal_actions(state, seat)`` now: what the bot may choose from."""
    seen: tuple[Event, ...]
    """Every event of the table so far, as ``game.event_view`` cut it for this seat (events the
    seat was not shown at all left out), oldest first."""


def observe(game: Game[Any], players: int, options: Options, seat: Seat,
            state: Any, seen: tuple[Event, ...]) -> Observation:
    """The observation of ``seat`` at ``state``; ``seen`` is what it was shown so far."""
    return Observation(game, players, options, seat, game.view(state, seat),
                       tuple(game.legal_actions(state, seat)), seen)


class SeatMemory:
    """What each seat of one table was shown so far, kept as the events happen: a table hands
    every event to ``add`` with the state before it (``Table.submit`` does, when the table has
    one), so an observation costs one ``event_view`` per seat and event, never a replay."""

    __slots__ = ("game", "players", "options", "shown")

    def __init__(self, game: Game[Any], players: int, options: Options) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.shown: list[list[Event]] = [[] for _ in range(players)]

    def add(self, before: Any, event: Event) -> None:
        """One event, cut for each seat by ``event_view`` (``before``: the state it met)."""
        cut = self.game.event_view
        for seat, shown in enumerate(self.shown):
            seen = cut(before, event, seat)
            if seen is not None:
                shown.append(seen)

    def observe(self, state: Any, seat: Seat) -> Observation:
        """The observation of ``seat`` at ``state``, the state after the last event added."""
        return observe(self.game, self.players, self.options, seat, state,
                       tuple(self.shown[seat]))
