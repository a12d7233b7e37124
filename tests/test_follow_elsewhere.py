"""How the window's table follows ``elsewhere`` (docs/protocol.md §3b), against a scripted
link: a table named elsewhere moves to a link to that node with its token, its unacknowledged
moves (same command ids) and its other requests; with no node named it asks the same node
again after a moment, and after too many such answers it says the table cannot be found.
(``tests/test_cluster_client.py`` does the same against real nodes.)"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import time
from pathlib import Path
from typing import Any

import pygame
import pytest

from starhall.client.net.link import ServerLink
from starhall.client.screens import live as live_module
from starhall.client.screens.live import ELSEWHERE_TRIES, LiveTable
from starhall.server.embed import free_loopback_port
from starhall.server.keys import KeyAnswer, load_or_create
from starhall.shared import protocol
from tests.server_helpers import wait_for

SIZE = (1280, 720)


class ScriptedLink:
    """A link whose answers the test hands it (``said``) and which keeps what was sent."""

    address = "tcp://127.0.0.1:9"
    state = "connected"
    name = "Ada"
    clock = staticmethod(time.monotonic)
    known = None
    """The pinned keys a link checks (none here: nothing is connected)."""
    welcome = None
    """No server answered: the service's nodes are not known."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.said: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> int:
        self.sent.append({**message, "rid": len(self.sent) + 1})
        return len(self.sent)

    def pending_sit(self, table: str) -> bool:
        return False

    def poll(self) -> list[dict[str, Any]]:
        said, self.said = self.said, []
        return said

    def wait(self, timeout: float) -> bool:
        return False

    def close(self, linger: float = 0.0) -> None:
        """No socket to close."""


def elsewhere(address: str | None, rid: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": protocol.ERROR, "code": protocol.ELSEWHERE,
                               "reason": "elsewhere", "table": "0001", "address": address}
    if rid is not None:
        message["rid"] = rid
    return message


def seated_at(link: ScriptedLink) -> LiveTable:
    """A table whose seat 0 was resumed on ``link``, its snapshot taken."""
    table = LiveTable(link, SIZE)  # type: ignore[arg-type]
    table.resume_table("0001", 0, "the-token", "Ada")
    view = {"game": "hearts", "players": 4, "phase": "play", "to_act": [0],
            "legal": {"play": ["2C"]}, "hand": ["2C"]}
    link.said.append({"type": protocol.SEATED, "rid": 1, "table": "0001", "seat": 0,
                      "token": "the-token"})
    link.said.append({"type": protocol.SNAPSHOT, "rid": 1, "table": "0001", "seq": 7,
                      "seat": 0, "view": view, "info": {"game": "hearts", "players": 4}})
    table.frame(0.1)
    assert table.table is not None
    return table


def test_a_table_named_elsewhere_moves_there_with_its_token_and_unacknowledged_moves(
        tmp_path: Path) -> None:
    pygame.display.init()
    link = ScriptedLink()
    table = seated_at(link)
    assert table.session is not None
    table.session.act("play", {"card": "2C"})
    act = link.sent[-1]
    table.request({"type": protocol.BOT, "table": "0001", "seat": 2})  # unanswered yet
    port = free_loopback_port()  # nothing listens there: only what is sent is looked at
    # but a key, which the link asks for before it sends anything
    answer = KeyAnswer(f"tcp://127.0.0.1:{port}", "node", load_or_create(tmp_path))
    link.said.append(elsewhere(f"tcp://127.0.0.1:{port}", rid=act["rid"]))
    table.frame(0.1)
    moved = table.link
    assert isinstance(moved, ServerLink)
    wait_for(lambda: (moved.poll(), moved.server_key is not None)[1])
    answer.close()
    assert isinstance(moved, ServerLink) and moved.address == f"tcp://127.0.0.1:{port}"
    assert table.session.link is moved and table.home is link
    sent = [entry["message"] for entry in moved.messages() if entry["direction"] == "sent"]
    kinds = [message["type"] for message in sent]
    assert kinds[0] == protocol.HELLO
    resume = next(m for m in sent if m["type"] == protocol.RESUME)
    assert (resume["table"], resume["seat"], resume["token"]) == ("0001", 0, "the-token")
    again = next(m for m in sent if m["type"] == protocol.ACT)
    assert (again["cid"], again["seq"], again["command"]) == (act["cid"], act["seq"],
                                                             act["command"])
    assert any(m["type"] == protocol.BOT and m["seat"] == 2 for m in sent)
    assert "moved to" in table.table.model.connection  # type: ignore[union-attr]
    table.draw(pygame.Surface(SIZE))
    table.close()
    assert table.link._socket is None  # type: ignore[attr-defined]


def test_no_node_named_asks_again_until_it_gives_up_clearly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pygame.display.init()
    monkeypatch.setattr(live_module, "ELSEWHERE_WAIT", 0.0)
    link = ScriptedLink()
    table = LiveTable(link, SIZE)  # type: ignore[arg-type]
    table.watch("0001")
    for round_ in range(ELSEWHERE_TRIES):
        watch = link.sent[-1]
        assert watch["type"] == protocol.WATCH, (round_, watch)
        link.said.append(elsewhere(None, rid=watch["rid"]))
        table.frame(0.1)  # asks again at the next frame
        assert table.lost_table is None
        table.frame(0.1)
        assert link.sent[-1]["rid"] == watch["rid"] + 1  # the same node, asked again
    link.said.append(elsewhere(None, rid=link.sent[-1]["rid"]))
    table.frame(0.1)
    table.frame(0.1)
    assert table.lost_table is not None and "cannot be found" in table.lost_table
    assert link.sent[-1]["type"] == protocol.WATCH and len(link.sent) == ELSEWHERE_TRIES + 1
    table.draw(pygame.Surface(SIZE))  # the message, and Esc goes back to the lobby
    table.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
    assert table.done


def test_an_unasked_elsewhere_asks_the_same_node_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pygame.display.init()
    monkeypatch.setattr(live_module, "ELSEWHERE_WAIT", 0.0)
    link = ScriptedLink()
    table = seated_at(link)
    link.said.append(elsewhere(None))  # the node gave the table up
    table.frame(0.1)
    table.frame(0.1)
    resume = link.sent[-1]
    assert (resume["type"], resume["token"]) == (protocol.RESUME, "the-token")
    assert table.link is link and table.lost_table is None
