"""The games Starhall offers, by id: each game's engine module, named in ``_MODULES``. A new
game needs more than its engine (its bots, its table in the client, its rules page, goldens,
tests): ``docs/architecture.md``, "A sixth game: the files it needs", lists them."""

from __future__ import annotations

from typing import Any

from starhall.shared.engine import Game

_MODULES = ("hearts", "stars", "star_patience", "what_else", "stars_and_bars")


def _load() -> dict[str, Game[Any]]:
    import importlib

    games: dict[str, Game[Any]] = {}
    for name in _MODULES:
        module = importlib.import_module(f"starhall.shared.games.{name}")
        game: Game[Any] = module.GAME
        games[game.id] = game
    return games


GAMES: dict[str, Game[Any]] = _load()


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"no game {self.args[0]!r} (games: {', '.join(sorted(GAMES))})"


def get_game(game_id: str) -> Game[Any]:
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(game_id) from None
