"""Each game's table, by game, as ``shared/games`` holds each game's rules: a package per
game (``tricks`` for the two trick games, Stars and Stardeck Hearts) with its table, its
choreography, its card art and statistics; ``base`` is what every table is to the screens,
and ``table_parts`` what several draw alike.

Which table draws a game is said by the game's own package: ``GAMES``, the ids it draws, and
``TABLE``, its ``GameTable`` (the trick games' is ``TableView`` with the ``TrickHooks``). A
``TableScreen`` asks ``view_for(game)`` for the object that draws its table and
``hooks_for(view)`` for how the game turns server events into animation steps and the user's
clicks and keys into commands. A new game with a table of its own is a new package here and
one name in ``PACKAGES``.
"""

from __future__ import annotations

from typing import Any

from starhall.client.games import star_patience, stars_and_bars, tricks, what_else
from starhall.client.games.base import GameTable
from starhall.client.games.tricks.hooks import TRICKS
from starhall.client.games.tricks.table import TableView

PACKAGES = (tricks, star_patience, what_else, stars_and_bars)
"""Every game's client package."""
_TABLES: dict[str, type[GameTable] | None] = {
    game: package.TABLE for package in PACKAGES for game in package.GAMES}


def table_class(game: str) -> type[GameTable] | None:
    """The ``GameTable`` class of ``game``'s own table, or ``None`` (a trick game, or a game
    no package draws: both are drawn by ``TableView``)."""
    return _TABLES.get(game)


def view_for(game: str, given: Any = None) -> Any:
    """The view to draw ``game``'s table with: ``given`` when it suits the game (a screen
    keeps its view, and its settings, across tables), else a new one of the game's kind."""
    cls = table_class(game)
    if cls is None:
        return given if isinstance(given, TableView) else TableView()
    return given if isinstance(given, cls) else cls()


def hooks_for(view: Any) -> GameTable:
    """The hooks of the game ``view`` draws: a game's own table is its own hooks."""
    return view if isinstance(view, GameTable) else TRICKS
