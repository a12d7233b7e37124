"""Bots choose commands for a seat. They act through the same path as people: what they
choose is decided, validated and logged like any other command.

A bot is given only what its seat may see, an ``Observation`` (``shared/observation.py``: the
seat's view, its legal commands, every event as the seat was shown it), and ``think``, the
seconds it may take; never the table's state. Each game's package registers more in its
modules' ``BOTS`` mappings (``shared/games/<game>/__init__.py``, ``BOT_MODULES``); ``random``
serves every game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from starhall.shared.engine import Command, Game
from starhall.shared.games import bot_modules
from starhall.shared.observation import Observation
from starhall.shared.seating import BOT, LEVELS, SeatMap, seat_entry


class Bot(Protocol):
    def choose(self, seen: Observation, think: float) -> Command:
        """One of ``seen.legal``, within about ``think`` seconds: a bot that searches stops
        when they are up and plays the best move it has found so far."""
        ...


class RandomBot:
    """Plays a uniformly random legal action."""

    history = False
    """It never reads ``Observation.seen`` (``reads_history``)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        return seen.game.random_choice(seen.legal, self.rng)


BotFactory = Callable[[random.Random], Bot]


def reads_history(bot: Bot) -> bool:
    """Whether ``bot`` reads the events its seat was shown (``Observation.seen``), which a
    table then keeps for its seat from the first event: unless its class says
    ``history = False`` (as a bot that chooses from the view and legal commands alone may),
    and then its seat costs the table nothing between its moves."""
    return bool(getattr(bot, "history", True))

BOT_NAMES = ("Ada", "Bruno", "Clara", "Dmitri", "Elif", "Farid")
"""Bots' names by seat: a replay that calls every seat "heuristic bot" cannot be followed."""


def bot_name(seat: int) -> str:
    return BOT_NAMES[seat % len(BOT_NAMES)]


def bot_seats(game: Game[Any], kinds: list[str]) -> list[SeatMap]:
    """A log header's ``seats`` for a table of bots: a distinct name each, with the bot's kind
    in the name too when the kinds differ, and each kind's level."""
    mixed = len(set(kinds)) > 1
    return [seat_entry(BOT, f"{bot_name(seat)} ({kind})" if mixed else bot_name(seat), kind,
                       level=level_of(game, kind))
            for seat, kind in enumerate(kinds)]


def bot_kinds(game: Game[Any]) -> dict[str, BotFactory]:
    """The bots a game offers: ``random`` always, and whatever its package's bot modules add, its
    ``strong`` module's searching bot last."""
    kinds: dict[str, BotFactory] = {"random": RandomBot}
    for module in bot_modules(game):
        kinds.update(module.BOTS)
    return kinds


def bot_levels(game: Game[Any]) -> dict[str, str]:
    """The levels a person picks a bot by, weakest first, and the bot kind each is: Easy and
    Normal as the game's bots module names them (``LEVELS``; else ``random`` and the default
    bot), and Strong the game's ``strong`` bot, offered only once its ``BOTS`` has one."""
    named = (getattr(bot_modules(game)[0], "LEVELS", None)
             or {"easy": "random", "normal": default_bot(game)})
    kinds = bot_kinds(game)
    levels = {level: named[level] for level in LEVELS[:2] if named.get(level) in kinds}
    if "strong" in kinds:
        levels["strong"] = "strong"
    return levels


def level_of(game: Game[Any], kind: str) -> str | None:
    """The level bot ``kind`` plays at, if it is one of the game's levels (or the same bot
    under another name, as The Star's ``hint`` is its ``strong``)."""
    kinds = bot_kinds(game)
    for level, named in bot_levels(game).items():
        if named == kind or (kind in kinds and kinds[named] is kinds[kind]):
            return level
    return None


def bot_kind(game: Game[Any], name: str) -> str:
    """The bot kind a person names, by a level (``easy``, ``Normal`` …) or by its kind;
    ``ValueError`` in one line saying what the game offers."""
    levels = bot_levels(game)
    kinds = bot_kinds(game)
    if name.lower() in levels:
        return levels[name.lower()]
    if name in kinds:
        return name
    offered = ", ".join(level.capitalize() for level in levels)
    raise ValueError(f"{game.id} has no bot {name!r} (levels: {offered}; bots: "
                     f"{', '.join(kinds)})")


def default_bot(game: Game[Any]) -> str:
    """The bot a table gets when nobody chooses: the game's ``DEFAULT_BOT`` if its bots module
    names one, else ``heuristic`` if it has one, else ``random``."""
    module = bot_modules(game)[0]
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
