"""Which table a game is drawn and played on: a registry by game id.

A ``TableScreen`` (live play, spectating, the replay viewer) asks ``view_for(game)`` for the
object that draws its table, and ``hooks_for(view)`` for how that game turns server events
into animation steps and the user's clicks and keys into commands. The trick games (Stars,
Hearts) share ``TableView`` and the trick hooks below; a game with a table of its own (The
Star's star of cards) registers a ``GameTable`` subclass, which is both its view and its
hooks. Registering is by dotted name, so a game's drawing code is imported only when one of
its tables is opened.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import pygame

from client.choreography import Choreographer, between
from client.layout import Layout
from client.model import TableModel
from client.table_view import TableView, describe

if TYPE_CHECKING:
    from client.animation import Animator
    from client.session import Batch
    from client.table_screen import TableScreen
    from client.ui import TableUi
    from client.widgets import Hotspots

View = dict[str, Any]
Event = dict[str, Any]

_REGISTRY: dict[str, str] = {
    "star_patience": "client.star_view:StarView",
    "what_else": "client.what_else_view:WhatElseView",
    "stars_and_bars": "client.bars_view:BarsView",
}
"""Game id → ``module:Class`` of its ``GameTable``; a game not listed uses ``TableView``."""


def register(game: str, target: str) -> None:
    """Give ``game`` its own table (``target`` is ``"module:Class"``, a ``GameTable``)."""
    _REGISTRY[game] = target


def table_class(game: str) -> type[GameTable] | None:
    """The ``GameTable`` class registered for ``game``, or ``None`` (a trick game)."""
    target = _REGISTRY.get(game)
    if target is None:
        return None
    module, _, name = target.partition(":")
    cls: type[GameTable] = getattr(importlib.import_module(module), name)
    return cls


def view_for(game: str, given: Any = None) -> Any:
    """The view to draw ``game``'s table with: ``given`` when it suits the game (a screen
    keeps its view, and its settings, across tables), else a new one of the game's kind."""
    cls = table_class(game)
    if cls is None:
        return given if isinstance(given, TableView) else TableView()
    return given if isinstance(given, cls) else cls()


class GameTable:
    """The hooks a ``TableScreen`` calls for one game. These defaults are the trick games';
    a game's own table overrides what it needs and draws itself in ``draw``."""

    def draw(self, surface: pygame.Surface, layout: Layout, model: TableModel,
             animator: Animator, ui: TableUi, interactive: bool = True) -> Hotspots:
        raise NotImplementedError

    # --- from the server -------------------------------------------------------------

    def choreographer(self, layout: Layout) -> Any:
        """Something with ``steps(before, event, after) -> list[Step]``."""
        return Choreographer(layout)

    def between(self, before: View, event: Event) -> View:
        """A stand-in for the view after ``event`` when the server's comes only later."""
        return between(before, event)

    def describe(self, model: TableModel, event: Event) -> str | None:
        """A line for the panel's log."""
        return describe(model, event)

    def choosing(self, model: TableModel) -> tuple[str, int] | None:
        """When the seat is choosing several cards: the command and how many it takes."""
        return TableView.choosing(model)

    def received(self, screen: TableScreen, batch: Batch) -> None:
        """After the screen took a batch from the server."""

    # --- from the user ---------------------------------------------------------------

    def handle(self, screen: TableScreen, event: pygame.event.Event, hotspots: Any) -> bool:
        """First look at a raw input event; ``True`` when the game used it."""
        return False

    def act(self, screen: TableScreen, action: tuple[Any, ...]) -> bool:
        """A click on one of this game's hotspots; ``True`` when the game used it."""
        return False

    # --- the replay viewer -----------------------------------------------------------

    def replay_marks(self, game: Any, states: list[tuple[int, Any]]
                     ) -> tuple[tuple[str, list[int]], tuple[str, list[int]]]:
        """The replay viewer's jump buttons: (a word, the positions in ``states``) for the small
        jumps and for the big ones. Trick games: where a trick ends, where a hand starts."""
        trick_ends: list[int] = []
        hand_starts: list[int] = []
        previous_tricks, previous_hand = 0, 0
        for position, (_, state) in enumerate(states):
            tricks = getattr(state, "tricks_played", 0)
            hand = getattr(state, "hand_number", 0)
            if hand != previous_hand:
                hand_starts.append(position)
            elif tricks > previous_tricks:
                trick_ends.append(position)
            previous_tricks, previous_hand = tricks, hand
        return ("trick", trick_ends), ("hand", hand_starts)

    # --- every frame -----------------------------------------------------------------

    def update(self, screen: TableScreen, dt: float) -> None:
        """Time passes (after the animator has advanced)."""


TRICKS = GameTable()
"""The hooks of the trick games, drawn by ``TableView``."""


def hooks_for(view: Any) -> GameTable:
    return view if isinstance(view, GameTable) else TRICKS
