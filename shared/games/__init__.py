"""The games Starhall offers, by id: one package per game (``rules``, the engine; ``bots``;
and ``strong``, the bot that searches), each named here. A new game needs more than its package
(its table in the client, its rules page, goldens, tests):
``docs/architecture.md``, "A sixth game: the files it needs", lists them."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from starhall.shared.engine import Game
from starhall.shared.games import hearts, star_patience, stars, stars_and_bars, what_else

PACKAGES: dict[str, ModuleType] = {
    package.GAME.id: package
    for package in (hearts, stars, star_patience, what_else, stars_and_bars)}
"""Each game's package by its id."""

GAMES: dict[str, Game[Any]] = {game_id: package.GAME for game_id, package in PACKAGES.items()}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"no game {self.args[0]!r} (games: {', '.join(sorted(GAMES))})"


def get_game(game_id: str) -> Game[Any]:
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None


def bot_modules(game: Game[Any]) -> tuple[ModuleType, ...]:
    """The modules that register ``game``'s bots (its package's ``BOT_MODULES``)."""
    modules: tuple[ModuleType, ...] = PACKAGES[game.id].BOT_MODULES
    return modules
