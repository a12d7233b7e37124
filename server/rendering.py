"""Turning a batch's messages into frames, one at a time, as they are sent.

What a move sends is costly to make: each receiver's cut of the events (``event_view``), its
view of the table, the encoding of every message. None of it is needed before the move is
durable, so the loop does not make it when the move is handled but leaves ``LaterEvents`` and
a ``LaterView`` in its place (the states are immutable, so they give the same maps later), and
builds each message just before it goes out, after the sync: the sync starts sooner; an update
gathered over several moves builds only the view after the last; and the first message of the
batch (the mover's own update) leaves after one cut and one view are built, not after all.
While a person's move's sync is under way in the background (``GroupCommit.head_start``),
the loop builds that first frame meanwhile instead (``Frames.build``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starhall.shared import protocol
from starhall.shared.engine import Event, Game

Viewer = int | None
Outgoing = tuple[bytes, dict[str, Any]]
"""A message and the routing identity of the session it goes to."""


@dataclass(slots=True)
class LaterView:
    """``game.view(state, viewer)``, to be built when the message is sent. (Not frozen: a
    frozen dataclass takes twice as long to make, and every move makes one per viewer.)"""

    game: Game[Any]
    state: Any
    viewer: Viewer


class LaterEvents:
    """Numbered events as ``viewer`` may see them, cut by the game when first asked (once
    for every session with that viewer)."""

    __slots__ = ("_befores", "_cut", "_game", "_numbered", "_viewer")

    def __init__(self, game: Game[Any], numbered: list[tuple[int, Event]], befores: list[Any],
                 viewer: Viewer) -> None:
        self._game, self._numbered, self._befores, self._viewer = game, numbered, befores, viewer
        self._cut: list[dict[str, Any]] | None = None

    def cut(self) -> list[dict[str, Any]]:
        cut = self._cut
        if cut is None:
            cut, game, viewer = [], self._game, self._viewer
            for (seq, event), before in zip(self._numbered, self._befores, strict=True):
                shown = game.event_view(before, event, viewer)
                if shown is not None:
                    cut.append({"seq": seq, "type": shown.type, "seat": shown.seat,
                                "data": dict(shown.data)})
            self._cut = cut
        return cut


class Frames:
    """Encodes one batch's messages, building each view they wait for once."""

    def __init__(self) -> None:
        self._views: dict[tuple[int, Viewer], dict[str, Any]] = {}
        self._encode = protocol.encoder()

    def encode(self, message: dict[str, Any]) -> bytes:
        """The message's frame; raises what the game raises if its events' cut or its view
        cannot be built."""
        parts = message.get("events")
        if message["type"] == protocol.UPDATE and parts and type(parts[0]) is LaterEvents:
            message["events"] = [event for part in parts for event in part.cut()]
        later = message.get("view")
        if type(later) is LaterView:
            # The states are alive in the batch's messages, so their ids stay unique.
            key = (id(later.state), later.viewer)
            view = self._views.get(key)
            if view is None:
                view = self._views[key] = later.game.view(later.state, later.viewer)
            message["view"] = view
        return self._encode(message)

    def build(self, message: dict[str, Any]) -> bytes | Exception:
        """The message's frame, or what the game raised building it."""
        try:
            return self.encode(message)
        except Exception as error:  # a game's bug: the sender stops that table
            return error


def table_of(message: dict[str, Any]) -> str | None:
    """The table a message is about, if one: its ``table`` field (an id, or a TableInfo)."""
    table = message.get("table")
    if isinstance(table, str):
        return table
    if isinstance(table, dict) and isinstance(table.get("id"), str):
        return str(table["id"])
    return None
