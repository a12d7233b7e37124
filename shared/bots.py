"""Bots choose commands for a seat. They act through the same path as people: what they
choose is decided, validated and logged like any other command.

A bot reads only what its seat may see: ``game.view(state, seat)`` and the legal actions.
Each game module may offer more bots in its ``BOTS`` mapping; ``random`` serves every game.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any, Protocol

from starhall.shared.engine import Command, Game, Seat
from starhall.shared.seating import BOT, SeatMap, seat_entry


class Bot(Protocol):
    def choose(self, game: Game[Any], state: Any, seat: Seat) -> Command: ...


class RandomBot:
    """Plays a uniformly random legal action."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Game[Any], state: Any, seat: Seat) -> Command:
        return game.random_action(state, seat, self.rng)


BotFactory = Callable[[random.Random], Bot]

BOT_NAMES = ("Ada", "Bruno", "Clara", "Dmitri", "Elif", "Farid")
"""Bots' names by seat: a replay that calls every seat "heuristic bot" cannot be followed."""


def bot_name(seat: int) -> str:
    return BOT_NAMES[seat % len(BOT_NAMES)]


def bot_seats(kinds: list[str]) -> list[SeatMap]:
    """A log header's ``seats`` for a table of bots: a distinct name each, with the bot's kind
    in the name too when the kinds differ."""
    mixed = len(set(kinds)) > 1
    return [seat_entry(BOT, f"{bot_name(seat)} ({kind})" if mixed else bot_name(seat), kind)
            for seat, kind in enumerate(kinds)]


def bot_kinds(game: Game[Any]) -> dict[str, BotFactory]:
    """The bots a game offers: ``random`` always, and whatever its ``<game>_bots`` module adds."""
    kinds: dict[str, BotFactory] = {"random": RandomBot}
    try:
        module = importlib.import_module(f"starhall.shared.games.{game.id}_bots")
    except ModuleNotFoundError:
        return kinds
    kinds.update(module.BOTS)
    return kinds


def default_bot(game: Game[Any]) -> str:
    """The bot a table gets when nobody chooses: the game's ``DEFAULT_BOT`` if its bots module
    names one, else ``heuristic`` if it has one, else ``random``."""
    try:
        module = importlib.import_module(f"starhall.shared.games.{game.id}_bots")
    except ModuleNotFoundError:
        return "random"
    named = getattr(module, "DEFAULT_BOT", None)
    if isinstance(named, str):
        return named
    return "heuristic" if "heuristic" in module.BOTS else "random"


def bot_factory(game: Game[Any], kind: str) -> BotFactory:
    """The maker of ``game``'s bots of ``kind``; ``ValueError`` naming the game's bots if it
    has none of that kind."""
    kinds = bot_kinds(game)
    if kind not in kinds:
        raise ValueError(f"{game.id} has no bot {kind!r} (bots: {', '.join(kinds)})")
    return kinds[kind]


def make_bot(game: Game[Any], kind: str, rng: random.Random) -> Bot:
    return bot_factory(game, kind)(rng)
