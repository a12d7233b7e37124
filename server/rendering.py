"""What the loop needs to know about the messages it sends."""

from __future__ import annotations

from typing import Any

Outgoing = tuple[bytes, dict[str, Any]]
"""A message and the routing identity of the session it goes to."""


def table_of(message: dict[str, Any]) -> str | None:
    """The table a message is about, if one: its ``table`` field (an id, or a TableInfo)."""
    table = message.get("table")
    if isinstance(table, str):
        return table
    if isinstance(table, dict) and isinstance(table.get("id"), str):
        return str(table["id"])
    return None
