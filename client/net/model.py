"""What the client knows of a table: exactly what the server said, nothing worked out.

The server sends the table's view for this seat after every event; the model keeps the latest
one and the events seen, plus what the connection is doing and the last refusal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

REFUSAL_SECONDS = 4.0


@dataclass(frozen=True, slots=True)
class Update:
    """One event as this seat may see it (``None`` for a fresh snapshot) and the view after."""

    seq: int
    event: dict[str, Any] | None
    view: dict[str, Any]


@dataclass(slots=True)
class TableModel:
    game: str
    seat: int | None
    players: int
    names: list[str]
    table: str = ""
    view: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    refusal: str | None = None
    refusal_left: float = 0.0
    connection: str = "connected"
    """``connected``, ``lost`` (trying to re-join) or ``closed``."""

    def apply(self, update: Update) -> dict[str, Any]:
        """Take an update; returns the view before it."""
        before = self.view
        self.view = update.view
        self.seq = update.seq
        if update.event is not None:
            self.events.append((update.seq, update.event))
        return before

    def refuse(self, reason: str) -> None:
        self.refusal = reason
        self.refusal_left = REFUSAL_SECONDS

    def forget_refusal(self) -> None:
        """The seat makes its next move: the refusal of the one before is stale."""
        self.refusal = None
        self.refusal_left = 0.0

    def tick(self, dt: float) -> None:
        if self.refusal is not None:
            self.refusal_left -= dt
            if self.refusal_left <= 0:
                self.refusal = None

    @property
    def legal(self) -> dict[str, Any]:
        return self.view.get("legal") or {}

    @property
    def hand(self) -> list[str]:
        return list(self.view.get("hand") or [])

    @property
    def over(self) -> bool:
        return self.view.get("phase") == "over"

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"Seat {seat}"
