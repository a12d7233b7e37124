"""The trick games' hooks (Stars, Stardeck Hearts): how their events become animation steps,
log lines, sounds and summaries, and where their end box leaves room for the shared game-over
panel. ``TableView`` draws their table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.games.base import Event, GameTable, TableHost, View
from starhall.client.games.tricks.choreography import Choreographer, between
from starhall.client.games.tricks.scores import game_over_panel_rect, hand_ended, hand_summary
from starhall.client.games.tricks.table import TableView, describe
from starhall.client.games.tricks.views import is_stars, trick_view
from starhall.client.net.model import TableModel
from starhall.client.ui.layout import Layout

if TYPE_CHECKING:
    from starhall.client.ui.summary import Summary


class TrickHooks(GameTable):
    """The trick games' hooks: their choreography, log lines, sounds and replay marks, the
    hand summary, and the game-over panel in their end box."""

    def choreographer(self, layout: Layout) -> Any:
        return Choreographer(layout)

    def between(self, before: View, event: Event) -> View:
        return between(before, event)

    def describe(self, model: TableModel, event: Event) -> str | None:
        return describe(model, event)

    def choosing(self, model: TableModel) -> tuple[str, int] | None:
        return TableView.choosing(model)

    def sound_cues(self, event: Event, before: View, after: View) -> tuple[str, ...]:
        """A deal, a card played, a trick gathered (a Star instead when the trick is one), a
        hand's end."""
        kind = event.get("type")
        was, now = trick_view(before), trick_view(after)
        cues: list[str] = []
        if kind == "deal":
            cues.append("deal")
        elif kind == "played":
            cues.append("play")
            if now.get("tricks_played", 0) > was.get("tricks_played", 0):
                tricks = (now.get("tricks") if is_stars(now) else None) or []
                cues.append("star" if tricks and tricks[-1]["star"] else "trick")
        ends = ("deal", "over")
        if was.get("phase") and was.get("phase") not in ends and now.get("phase") in ends:
            cues = [cue for cue in cues if cue != "trick"] + ["hand_end"]
        return tuple(cues)

    def replay_marks(self, game: Any, states: list[tuple[int, Any]]
                     ) -> tuple[tuple[str, list[int]], tuple[str, list[int]]]:
        """Where a trick ends, where a hand starts."""
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

    def summary(self, model: TableModel, before: View, after: View) -> Summary | None:
        return hand_summary(model.name, trick_view(after)) if hand_ended(before, after) else None

    def game_over_panel(self, screen: TableHost) -> pygame.Rect | None:
        if screen.ui.overlay or screen.ui.dismissed_game_over:
            return None
        return game_over_panel_rect(screen.layout)


TRICKS = TrickHooks()
"""The hooks of the trick games, drawn by ``TableView``."""
