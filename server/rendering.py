"""Turning a batch's messages into frames, one at a time, as they are sent.

A move's update (and a snapshot) carries the receiver's view of the table, the costliest part
of a message to make. The loop does not build it when the move is handled but leaves a
``LaterView`` in its place, and builds it just before the message goes out, after the sync:
the state is immutable, so the view is the same map; an update gathered over several moves
builds only the view after the last; and the first message of the batch (the mover's own
update) leaves after one view is built, not after all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starhall.shared import protocol
from starhall.shared.engine import Game

Viewer = int | None
Outgoing = tuple[bytes, dict[str, Any]]
"""A message and the routing identity of the session it goes to."""


@dataclass(frozen=True, slots=True)
class LaterView:
    """``game.view(state, viewer)``, to be built when the message is sent."""

    game: Game[Any]
    state: Any
    viewer: Viewer


class Frames:
    """Encodes one batch's messages, building each view they wait for once."""

    def __init__(self) -> None:
        self._views: dict[tuple[int, Viewer], dict[str, Any]] = {}

    def encode(self, message: dict[str, Any]) -> bytes:
        """The message's frame; raises what the game raises if its view cannot be built."""
        later = message.get("view")
        if type(later) is LaterView:
            # The states are alive in the batch's messages, so their ids stay unique.
            key = (id(later.state), later.viewer)
            view = self._views.get(key)
            if view is None:
                view = self._views[key] = later.game.view(later.state, later.viewer)
            message["view"] = view
        return protocol.encode(message)


def table_of(message: dict[str, Any]) -> str | None:
    """The table a message is about, if one: its ``table`` field (an id, or a TableInfo)."""
    table = message.get("table")
    if isinstance(table, str):
        return table
    if isinstance(table, dict) and isinstance(table.get("id"), str):
        return str(table["id"])
    return None
