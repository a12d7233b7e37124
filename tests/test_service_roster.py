"""The service a window knows, without a cluster (``tests/test_roaming.py`` has the real one):
the seats kept per service and moved in from the older per-address file, the nodes kept and
tried in turn, a folder's own service named the same at every start, and a table whose node
falls silent or says it is stopping going on by itself at the service's next node with its
token and its unacknowledged move (same command id)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path
from typing import Any

import pygame
import pytest

from starhall.client.net.embedded import EmbeddedServer, Seat
from starhall.client.net.link import LOST, ServerLink
from starhall.client.net.roster import Roster
from starhall.client.screens.lobby import seat_book, service_book
from starhall.server.embed import free_loopback_port
from starhall.server.keys import load_or_create
from starhall.server.stores import FileStore
from starhall.shared import protocol
from starhall.shared.curve import key_text
from tests.connection import Connection
from tests.server_helpers import wait_for
from tests.test_follow_elsewhere import SIZE, ScriptedLink, seated_at


def test_seats_move_from_the_per_address_file_into_the_service() -> None:
    old = seat_book("tcp://10.0.0.7:47474")
    old.folder.mkdir(parents=True)
    old.remember(Seat("0003", 1, "a-token", "hearts", 4))
    book = service_book("5e7f00d1", ["tcp://10.0.0.8:47474", "tcp://10.0.0.7:47474"])
    assert book.seats()["0003"].token == "a-token"
    assert not old.path.exists()  # moved once
    assert service_book("5e7f00d1", ["tcp://10.0.0.8:47474"]).seats().keys() == {"0003"}


def test_a_roster_tries_the_next_node_and_keeps_them(tmp_path: Path) -> None:
    roster = Roster(tmp_path / "nodes.json")
    roster.learn([{"address": "tcp://h:1", "key": None}, {"address": "tcp://h:2"},
                  {"address": "not an address"}, "junk", {"address": "tcp://h:3",
                                                          "key": "not a key"}])
    assert list(roster.nodes) == ["tcp://h:1", "tcp://h:2"]
    roster.learn([{"address": "tcp://h:3"}])  # a node joined, the others maybe restarting
    assert roster.after("tcp://h:3") == ["tcp://h:1", "tcp://h:2"]
    assert roster.after("tcp://h:1") == ["tcp://h:2", "tcp://h:3"]
    roster.learn([{"address": "tcp://h:1"}, {"address": "tcp://h:3"}], gone="tcp://h:2")
    assert roster.after("tcp://h:1") == ["tcp://h:3", "tcp://h:2"]  # the one stopping last
    assert list(Roster(tmp_path / "nodes.json").nodes) == ["tcp://h:1", "tcp://h:3",
                                                            "tcp://h:2"]


def test_a_folders_server_is_a_service_of_its_own_named_alike_at_every_start(
        tmp_path: Path) -> None:
    services = []
    for _ in range(2):
        with EmbeddedServer(tmp_path / "data") as server, Connection(server.address) as client:
            welcome = client.request({"type": protocol.HELLO})
            assert [node["address"] for node in welcome["nodes"]] == [server.address]
            assert len(welcome["nodes"][0]["key"]) == 40
            services.append(welcome["service"])
    assert services[0] == services[1] and services[0]
    with EmbeddedServer(tmp_path / "other") as server, Connection(server.address) as client:
        assert client.request({"type": protocol.HELLO})["service"] != services[0]
    plain = FileStore(tmp_path / "plain")
    assert plain.service == FileStore(tmp_path / "plain").service  # by machine and folder


def moved_link(table: Any, said: dict[str, Any], origin: ScriptedLink) -> ServerLink:
    """What ``said`` on ``origin`` moves the table to: a link to the roster's next node."""
    origin.said.append(said)
    table.frame(0.1)
    moved = table.link
    assert isinstance(moved, ServerLink) and moved is not origin
    return moved


@pytest.mark.parametrize("why", ["silent", "stopping"])
def test_a_table_whose_node_goes_moves_to_the_next_node_with_its_seat_and_move(
        why: str, tmp_path: Path) -> None:
    pygame.display.init()
    link = ScriptedLink()
    table = seated_at(link)
    assert table.session is not None
    port = free_loopback_port()  # nothing listens: what is sent is looked at, not answered
    nodes = [{"address": f"tcp://127.0.0.1:{port}",
              "key": key_text(load_or_create(tmp_path).public)}]
    table.roster.learn([{"address": link.address}, *nodes])
    table.session.act("play", {"card": "2C"})
    act = link.sent[-1]
    said: dict[str, Any] = {"type": LOST} if why == "silent" else {
        "type": protocol.DRAINING, "reason": "stopping", "nodes": nodes}
    moved = moved_link(table, said, link)
    assert moved.address == f"tcp://127.0.0.1:{port}" and table.session.link is moved
    sent = [e["message"] for e in moved.messages() if e["direction"] == "sent"]
    resume = next(m for m in sent if m["type"] == protocol.RESUME)
    assert (resume["table"], resume["seat"], resume["token"]) == ("0001", 0, "the-token")
    again = next(m for m in sent if m["type"] == protocol.ACT)
    assert (again["cid"], again["seq"], again["command"]) == (act["cid"], act["seq"],
                                                             act["command"])
    assert why in table.table.model.connection  # type: ignore[union-attr]
    table.draw(pygame.Surface(SIZE))
    table.close()


def test_a_lobby_whose_node_does_not_answer_goes_on_at_a_node_kept_from_before(
        tmp_path: Path) -> None:
    from starhall.client.screens.lobby import SERVICES_FOLDER, Lobby
    from starhall.client.user.folders import data_dir

    pygame.display.init()
    dead = f"tcp://127.0.0.1:{free_loopback_port()}"
    with EmbeddedServer(tmp_path / "node") as server:
        Roster(data_dir() / SERVICES_FOLDER / "5e7f00d1" / "nodes.json").learn(
            [{"address": dead}, {"address": server.address,
                                 "key": key_text(server.key or b"")}])
        lobby = Lobby(SIZE, dead, "Ada")
        assert lobby.service == "5e7f00d1"  # as the last run knew that node
        surface = pygame.Surface(SIZE)
        wait_for(lambda: (lobby.frame(0.1), lobby.draw(surface), lobby.wait(0.05))
                 and lobby.link is not None and lobby.link.address == server.address
                 and lobby.link.state == "connected", timeout=30)
        assert lobby.service != "5e7f00d1"  # now as the server names itself
        lobby.close()


def test_a_move_answered_while_its_table_is_taken_over_is_sent_again_not_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from starhall.client.screens import live as live_module
    from tests.test_follow_elsewhere import elsewhere

    pygame.display.init()
    monkeypatch.setattr(live_module, "ELSEWHERE_WAIT", 0.0)
    link = ScriptedLink()
    table = seated_at(link)
    assert table.session is not None and table.table is not None
    table.session.act("play", {"card": "2C"})
    act = link.sent[-1]
    link.said.append(elsewhere(None, rid=act["rid"]))  # a node is taking the table over
    table.frame(0.1)
    table.frame(0.1)  # asks again
    assert table.table.model.refusal is None
    again = [m for m in link.sent if m["type"] == protocol.ACT][-1]
    assert again["rid"] != act["rid"] and (again["cid"], again["seq"]) == (act["cid"],
                                                                           act["seq"])
