"""The nodes of one service as the client knows them (docs/protocol.md §3b): learned from each
``welcome`` (the live nodes, each with its key) and ``draining`` (a node stopping), and kept
in the user's data folder beside the user's seats at the service's tables, so that when the
node a window talks to dies or stops, the window goes on at another one by itself, in this
run or the next.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from starhall.client.net.link import normalise_address
from starhall.shared.atomic_files import write_durably
from starhall.shared.curve import key_from_text, key_text

NODES_FILE = "nodes.json"
MOST_NODES = 32
"""Nodes kept at most: those the service listed last, then those heard of before."""


def parse_nodes(nodes: Any) -> dict[str, bytes | None]:
    """``welcome.nodes`` or ``draining.nodes`` as ``{address: key}`` in their order; an entry
    that is not a node (no usable address, a key that is not one) is left out."""
    found: dict[str, bytes | None] = {}
    for entry in nodes if isinstance(nodes, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("address"), str):
            continue
        key = entry.get("key")
        try:
            address = normalise_address(entry["address"])
            found[address] = key_from_text(key) if isinstance(key, str) else None
        except ValueError:
            continue
    return found


class Roster:
    """The nodes of one service, in the order to try them: ``{address: key}`` (``None``: a
    plain node). ``path``: the file they are kept in (none: this run only)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.nodes: dict[str, bytes | None] = {}
        self.gone: set[str] = set()
        """Nodes that said they are stopping, until a list names them live again."""
        if path is not None:
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                self.nodes = parse_nodes(json.loads(path.read_text("utf-8")).get("nodes"))

    def learn(self, nodes: Any, *, gone: str | None = None) -> None:
        """Take a list of live nodes: first in the order given, then the others known (a node
        may be down a moment, or restarting); ``gone``: a node stopping, tried last."""
        heard = parse_nodes(nodes)
        self.gone -= set(heard)
        if gone is not None:
            self.gone.add(gone)
        if not heard and gone is None:
            return
        merged = {**heard, **{a: k for a, k in self.nodes.items() if a not in heard}}
        if gone is not None and gone in merged:
            merged[gone] = merged.pop(gone)
        merged = dict(list(merged.items())[:MOST_NODES])
        if merged != self.nodes or list(merged) != list(self.nodes):
            self.nodes = merged
            self._save()

    def key(self, address: str) -> bytes | None:
        return self.nodes.get(address)

    def after(self, address: str) -> list[str]:
        """The other nodes, to try in turn once ``address`` is silent: those after it in the
        list first, then those before (so each failure moves on round the list), those that
        said they are stopping last."""
        order = list(self.nodes)
        if address in order:
            at = order.index(address)
            order = order[at + 1:] + order[:at]
        order = [node for node in order if node != address]
        return sorted(order, key=lambda node: node in self.gone)

    def _save(self) -> None:
        if self.path is None:
            return
        body = {"version": 1, "nodes": [
            {"address": address, "key": None if key is None else key_text(key)}
            for address, key in self.nodes.items()]}
        with contextlib.suppress(OSError):  # a convenience: the window works without it
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, json.dumps(body, indent=1).encode("utf-8"), durable=False)
