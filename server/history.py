"""The ``history`` request: a table's game from its first event, as a spectator sees it.

A replay viewer that is not on the server's machine (``starhall web``) cannot read a table's
log: it holds every seat's hidden cards. It asks for the history instead, a page at a time:
each event as a spectator may see it (the game's ``event_view``) and the spectator's view of
the table after it, the same maps a spectator's ``update`` carries. Only what a spectator
watching from the first deal would have been sent leaves the server.

The pages are made from the table's durable log (what anyone was told of), folded once and
kept for the next page: a viewer asks for the pages one after another.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from starhall.server import fields
from starhall.server.fields import RequestError
from starhall.shared import protocol
from starhall.shared.replay import load

PAGE_BYTES = 48_000
"""A page's events and views stay below this, well inside ``MAX_MESSAGE_BYTES``."""
KEPT_TABLES = 4
"""How many tables' folded states are kept for the pages that follow."""


class Histories:
    """The folded states of the tables whose history was asked for last."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[int, Any, list[tuple[int, Any, Any]]]] = OrderedDict()
        self._encode = protocol.encoder()

    def page(self, table_id: str, log: bytes, message: dict[str, Any]) -> dict[str, Any]:
        """The reply to ``message`` (a ``history`` request) about table ``table_id`` whose
        durable log is ``log``."""
        start = fields.optional_whole(message, "from") or 0
        game, steps = self._steps(table_id, log)
        last = steps[-1][0]
        if start > last:
            raise RequestError(protocol.BAD_FIELD, f"table {table_id} has events 1 to {last}",
                               field="from", table=table_id)
        encode = self._encode
        view = game.view(steps[start][2], None)
        size = len(encode(view))
        shown: list[dict[str, Any]] = []
        for seq, event, state in steps[start + 1:]:
            before = steps[seq - 1][2]
            cut = game.event_view(before, event, None)
            step = {"seq": seq, "view": game.view(state, None), "event": None if cut is None
                    else {"seq": seq, "type": cut.type, "seat": cut.seat, "data": dict(cut.data)}}
            size += len(encode(step))
            if shown and size > PAGE_BYTES:
                break
            shown.append(step)
        return {"type": protocol.HISTORY, "table": table_id, "from": start, "view": view,
                "steps": shown, "last": last}

    def _steps(self, table_id: str, log: bytes) -> tuple[Any, list[tuple[int, Any, Any]]]:
        """The game and ``(seq, event, state after it)`` from seq 0 (no event) on."""
        kept = self._kept.get(table_id)
        if kept is not None and kept[0] == len(log):
            self._kept.move_to_end(table_id)
            return kept[1], kept[2]
        recording = load(table_id, log)
        states = recording.states(strict=False)
        steps: list[tuple[int, Any, Any]] = [(0, None, next(states)[1])]
        for (seq, state), (_, event) in zip(states, recording.events, strict=True):
            steps.append((seq, event, state))
        self._kept[table_id] = (len(log), recording.game, steps)
        self._kept.move_to_end(table_id)
        while len(self._kept) > KEPT_TABLES:
            self._kept.popitem(last=False)
        return recording.game, steps
