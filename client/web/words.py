"""The move log in words: the window's own sentences (each game's ``describe`` hook), for
the events a spectator is shown."""

from __future__ import annotations

from typing import Any

from starhall.client.games import hooks_for, view_for
from starhall.client.net.model import TableModel

View = dict[str, Any]


class Narrator:
    """Words one table's events as the window's side log does: each batch's events with the
    view after the batch."""

    def __init__(self, game: str, names: list[str]) -> None:
        self.hooks = hooks_for(view_for(game))
        self.model = TableModel(game=game, seat=None, players=len(names), names=list(names))

    def lines(self, events: list[View], view: View, names: list[str] | None = None
              ) -> list[str | None]:
        """A line (or ``None``: the window says nothing of it) for each event."""
        model = self.model
        if names is not None:
            model.names = list(names)
        model.view = view
        return [self.hooks.describe(model, event) for event in events]
