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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.games.tricks.choreography import Choreographer, between
from starhall.client.games.tricks.table import TableView, describe
from starhall.client.net.model import TableModel
from starhall.client.ui.layout import Layout

if TYPE_CHECKING:
    from starhall.client.net.session import Batch
    from starhall.client.screens.table_screen import TableScreen
    from starhall.client.ui.animation import Animator
    from starhall.client.ui.summary import Summary
    from starhall.client.ui.table_ui import TableUi
    from starhall.client.ui.widgets import Hotspots

View = dict[str, Any]
Event = dict[str, Any]

_REGISTRY: dict[str, str] = {
    "star_patience": "starhall.client.games.star_patience.table:StarView",
    "what_else": "starhall.client.games.what_else.table:WhatElseView",
    "stars_and_bars": "starhall.client.games.stars_and_bars.table:BarsView",
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

    def summary(self, model: TableModel, before: View, after: View) -> Summary | None:
        """The summary to show once the animation from ``before`` to ``after`` has played,
        when those events ended a hand or a round (``client.ui.summary``); ``None`` otherwise.
        The screen holds later batches until the player has read it."""
        return None

    def sound_cues(self, event: Event, before: View, after: View) -> tuple[str, ...]:
        """The sounds ``event`` makes (``client.ui.sound.CUES``), in the order of the animation
        steps it makes (``client.ui.sound.attach``). The trick games': a deal, a card played, a
        trick gathered (a Star instead when the trick is one), a hand's end. "your_turn" is
        the screen's, for every game."""
        kind = event.get("type")
        cues: list[str] = []
        if kind == "deal":
            cues.append("deal")
        elif kind == "played":
            cues.append("play")
            if after.get("tricks_played", 0) > before.get("tricks_played", 0):
                tricks = after.get("tricks") or [{}]
                cues.append("star" if tricks[-1].get("star") else "trick")
        ends = ("deal", "over")
        if before.get("phase") and before.get("phase") not in ends and after.get("phase") in ends:
            cues = [cue for cue in cues if cue != "trick"] + ["hand_end"]
        return tuple(cues)

    def colour_key(self, game: str) -> list[ColourGroup]:
        """What ``game`` tells apart by colour, for the settings' colour check: by default
        the suits of its cards (each has its own shape too). A game with more colour-coded
        things (star colours, coloured bars) adds its groups."""
        from starhall.shared.games import GAMES

        suits = suit_group(game)
        found = GAMES.get(game)
        groups = [suits] if suits.swatches else []
        if found is not None and found.max_players > 1:
            groups.append(seat_group(found.max_players))
        return groups

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

    def redraw_after(self, screen: TableScreen) -> float | None:
        """Seconds after the last drawing when this table looks different by itself (a
        pulsing glow, a blinking caret), or ``None``; the screen is drawn anyway after input,
        a batch from the server or while an animation runs."""
        return None

    # --- the shared game-over panel ----------------------------------------------------

    def game_over_panel(self, screen: TableScreen) -> pygame.Rect | None:
        """Where the screen draws the shared ``GameOverPanel`` (Play again, Watch the replay,
        where the log is) while the game is over, or ``None`` for not now. A game opts in by
        returning the strip its own end box leaves free for it."""
        return None

    plays_again = False
    """Whether the game's own end box already starts a new game (a patience's New deal and
    Restart): the shared panel then leaves its Play again out."""


@dataclass(frozen=True, slots=True)
class Swatch:
    """One colour-coded thing: its name, its colour, and what tells it apart without colour:
    a ``client.ui.symbols`` shape drawn in the colour, a ``mark`` (a letter or number standing
    for a name or label the table always shows), and an ``extra`` mark the table adds only
    when the colour_blind setting is on."""

    name: str
    colour: tuple[int, int, int]
    shape: str | None = None
    mark: str = ""
    extra: str = ""


@dataclass(frozen=True, slots=True)
class ColourGroup:
    title: str
    swatches: tuple[Swatch, ...]
    cards: tuple[str, ...] = ()
    """Card codes to show as they are drawn at the table (one of each suit, say)."""
    note: str = ""
    """How they are told apart besides colour, in a sentence."""


def suit_group(game: str) -> ColourGroup:
    """The suits of the cards ``game`` deals (read from its first shuffle's cards)."""
    from starhall.client.ui.faces import face
    from starhall.shared.games import GAMES

    found = GAMES.get(game)
    codes: tuple[str, ...] = ()
    if found is not None:
        try:
            state = found.new_state(found.min_players, found.make_options(found.min_players, {}))
            request = found.chance(state)
            codes = request.items if request is not None else ()
        except Exception:  # a game that cannot start without options: no suits to show
            codes = ()
    swatches: dict[str, Swatch] = {}
    samples: dict[str, str] = {}
    for code in codes:
        style = face(code).suit
        if style.name not in swatches:
            swatches[style.name] = Swatch(style.name, style.colour, style.shape)
            samples[style.name] = code
        elif face(code).pips == 0 and not face(code).is_joker:
            samples[style.name] = code  # a court card shows the suit's colour best
    return ColourGroup("Suits", tuple(swatches.values()), tuple(samples.values()),
                       "Each suit has a shape of its own, on every card and in every index.")


def seat_group(players: int) -> ColourGroup:
    """The seats' colours: name plates, the score sheet, the score chart."""
    from starhall.client.ui import theme

    colours = theme.SEAT_COLOURS
    return ColourGroup("Seats", tuple(Swatch(f"Seat {seat + 1}", colours[seat % len(colours)],
                                             None, str(seat + 1)) for seat in range(players)),
                       note="Every seat's colour comes with its player's name: on the name "
                            "plates, the score sheet, and at the end of each line of the "
                            "score chart.")


class TrickHooks(GameTable):
    """The trick games' hooks: the defaults, the hand summary, and the game-over panel in
    their end box."""

    def summary(self, model: TableModel, before: View, after: View) -> Summary | None:
        from starhall.client.games.tricks.scores import hand_ended, hand_summary

        return hand_summary(model.name, after) if hand_ended(before, after) else None

    def game_over_panel(self, screen: TableScreen) -> pygame.Rect | None:
        from starhall.client.games.tricks.scores import game_over_panel_rect

        if screen.ui.overlay or screen.ui.dismissed_game_over:
            return None
        return game_over_panel_rect(screen.layout)


TRICKS = TrickHooks()
"""The hooks of the trick games, drawn by ``TableView``."""


def hooks_for(view: Any) -> GameTable:
    return view if isinstance(view, GameTable) else TRICKS
