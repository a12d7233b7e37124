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


def seen_by(game: Game[Any], before: Any, event: Event, seat: Seat) -> Event | None:
    """``event`` as ``seat`` was shown it, or ``None`` when it was not shown at all."""
    return game.event_view(before, event, seat)
