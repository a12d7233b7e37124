"""The ``history`` request: a table's game from its first event, as a spectator sees it.

A replay viewer that is not on the server's machine (``starhall web``) cannot read a table's
log: it holds every seat's hidden cards. It asks for the history instead, a page at a time:
each event as a spectator may see it (the game's ``event_view``) and the spectator's view of
the table after it, the same maps a spectator's ``update`` carries. Only what a spectator
watching from the first deal would have been sent leaves the server.

The pages are made from the table's durable log (what anyone was told of), read again only
when the table has moved on, and folded only as far as the pages asked for so far: a viewer
asks for the pages one after another, and each costs the loop its own events.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starhall.server import fields
from starhall.server.durability import STORAGE
from starhall.server.fields import RequestError
from starhall.server.sessions import Session
from starhall.shared import protocol
from starhall.shared.replay import load

if TYPE_CHECKING:
    from starhall.server.desk import Master

PAGE_BYTES = 48_000
"""A page's events and views stay below this, well inside ``MAX_MESSAGE_BYTES``."""
KEPT_TABLES = 4
"""How many tables' folded states are kept for the pages that follow."""


class Folded:
    """One table's log, folded as far as pages have asked: ``(seq, event, state after it)``
    from seq 0 (no event) on. Folding the rest waits for a page that needs it, so a page costs
    its own events, not the game's."""

    def __init__(self, log: bytes, table_id: str) -> None:
        recording = load(table_id, log)
        self.game = recording.game
        self.last = recording.last_seq
        self._events = iter(recording.events)
        self._states = recording.states(strict=False)
        self.steps: list[tuple[int, Any, Any]] = [(0, None, next(self._states)[1])]

    def upto(self, seq: int) -> None:
        """Fold until event ``seq`` (or the last) is among the steps."""
        steps = self.steps
        while len(steps) <= seq:
            folded = next(self._states, None)
            if folded is None:
                return
            steps.append((folded[0], next(self._events)[1], folded[1]))


class Histories:
    """The folded logs of the tables whose history was asked for last."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Folded] = OrderedDict()
        self._encode = protocol.encoder()

    def page(self, table_id: str, seq: int, read: Callable[[], bytes],
             message: dict[str, Any]) -> dict[str, Any]:
        """The reply to ``message`` (a ``history`` request) about table ``table_id``, whose
        last event is ``seq`` and whose durable log ``read`` gives (read only when the table
        has moved on since it was last folded)."""
        start = fields.optional_whole(message, "from") or 0
        folded = self._kept.get(table_id)
        if folded is None or folded.last != seq:
            folded = self._kept[table_id] = Folded(read(), table_id)
        self._kept.move_to_end(table_id)
        while len(self._kept) > KEPT_TABLES:
            self._kept.popitem(last=False)
        last = folded.last
        if start > last:
            raise RequestError(protocol.BAD_FIELD, f"table {table_id} has events 1 to {last}",
                               field="from", table=table_id)
        game, steps, encode = folded.game, folded.steps, self._encode
        folded.upto(start)
        view = game.view(steps[start][2], None)
        size = len(encode(view))
        shown: list[dict[str, Any]] = []
        for seq_shown in range(start + 1, last + 1):
            folded.upto(seq_shown)
            _, event, state = steps[seq_shown]
            cut = game.event_view(steps[seq_shown - 1][2], event, None)
            step = {"seq": seq_shown, "view": game.view(state, None), "event": None if cut is None
                    else {"seq": seq_shown, "type": cut.type, "seat": cut.seat,
                          "data": dict(cut.data)}}
            size += len(encode(step))
            if shown and size > PAGE_BYTES:
                break
            shown.append(step)
        return {"type": protocol.HISTORY, "table": table_id, "from": start, "view": view,
                "steps": shown, "last": last}


class HistoryDesk:
    """The ``history`` request, answered from the table's durable log (``Histories``)."""

    def __init__(self, master: Master) -> None:
        self.master = master
        self.histories = Histories()

    def history(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message)
        try:
            page = self.histories.page(table.id, table.seq, table.durable_log, message)
        except OSError as error:
            raise RequestError(STORAGE, f"the server could not read the table's log "
                               f"({error.strerror or error})", table=table.id) from None
        self.master.reply(session, rid, page)
