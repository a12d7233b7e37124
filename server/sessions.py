"""Sessions (one per client connection) and the outbox that orders what is sent to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starhall.server.rendering import LaterEvents, LaterView, Outgoing, Viewer
from starhall.shared import protocol

__all__ = ["Outbox", "Session", "Viewer"]


@dataclass(slots=True)
class Session:
    """One connection, known by its ZeroMQ routing identity."""

    identity: bytes
    last_heard: float
    allowance: float
    """Messages the session may still send now (a token bucket against floods)."""
    allowance_time: float
    name: str | None = None
    flood_noticed: float = float("-inf")
    seats: set[tuple[str, int]] = field(default_factory=set)
    watching: set[str] = field(default_factory=set)
    reports: int = 0
    """Bug reports the server kept for this session (``report``)."""

    def allow(self, now: float, rate: float, burst: float) -> bool:
        self.allowance = min(burst, self.allowance + (now - self.allowance_time) * rate)
        self.allowance_time = now
        if self.allowance < 1.0:
            return False
        self.allowance -= 1.0
        return True


class Outbox:
    """Messages waiting for the next commit, in the order each session must receive them.

    Events for one session, table and view are gathered into one ``update`` while a batch is
    handled, so a bot playing several moves costs one message, not several. Before any other
    message to a session is queued, its gathered updates are queued, so the session sees the
    updates before (for instance) the ``ack`` of its move.
    """

    def __init__(self) -> None:
        self._messages: list[Outgoing] = []
        self._updates: dict[bytes, dict[tuple[str, Viewer], dict[str, Any]]] = {}

    def send(self, identity: bytes, message: dict[str, Any]) -> None:
        self._release(identity)
        self._messages.append((identity, message))

    def events(self, identity: bytes, table: str, viewer: Viewer, after: int, seq: int,
               events: LaterEvents, view: LaterView) -> None:
        """Events ``after + 1`` .. ``seq`` of ``table`` as ``viewer`` sees them, and the view
        after them (so a client needs no ``sync`` to see the table as it now is). The events
        are cut, and only the view of an update's last event is built, when the batch is
        rendered."""
        gathered = self._updates.setdefault(identity, {})
        key = (table, viewer)
        update = gathered.get(key)
        if update is not None and update["seq"] == after:
            update["seq"] = seq
            update["events"].append(events)
            update["view"] = view
            return
        if update is not None:
            self._messages.append((identity, gathered.pop(key)))
        gathered[key] = {"type": protocol.UPDATE, "table": table, "seat": viewer,
                         "from": after, "seq": seq, "events": [events], "view": view}

    def seal(self, table: str) -> None:
        """End the updates of ``table`` gathered so far: later events start new ones. Before
        a deal, so that a hand's end reaches every client with its own view (who took the
        last trick, the scores) rather than only the next hand's."""
        for identity, gathered in self._updates.items():
            for key in [key for key in gathered if key[0] == table]:
                self._messages.append((identity, gathered.pop(key)))

    def _release(self, identity: bytes) -> None:
        gathered = self._updates.pop(identity, None)
        if gathered:
            self._messages.extend((identity, update) for update in gathered.values())

    def drain(self) -> list[Outgoing]:
        for identity in list(self._updates):
            self._release(identity)
        messages, self._messages = self._messages, []
        return messages

    def __bool__(self) -> bool:
        return bool(self._messages or self._updates)
