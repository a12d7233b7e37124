"""The service is what a player knows, not the node (docs/protocol.md §3b, docs/scaling.md): a
real cluster of three nats-server processes and three ``starhall serve`` nodes, and the
window's own code (``Lobby``, ``LiveTable`` and its ``TableSession``, drawn on pygame surfaces
by SDL's dummy driver). The user's seat is kept per service, so every node's lobby offers
Resume; a seated window and a spectator go on by themselves when the table's node is killed
(-9), and through a rolling restart (SIGTERM, each node in turn) with no error shown and no
move lost or made twice. Every wait is for a condition, with a deadline only against a hang."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from starhall.client.net.embedded import Seat
from starhall.client.screens.lobby import Lobby
from starhall.shared import protocol
from tests.connection import Connection
from tests.nats_helpers import NatsCluster, StarhallService
from tests.test_cluster_client import SIZE, Window, own_moves, table_waiting_for_seat_0

pytestmark = pytest.mark.slow  # real NATS clusters, nodes killed: `make check` leaves it out

LEASE = 2.0


@pytest.fixture
def service(cluster: NatsCluster, tmp_path: Path, request: pytest.FixtureRequest
            ) -> Iterator[StarhallService]:
    made = StarhallService(cluster.address, tmp_path, request.node.name, 3, lease=LEASE,
                           replicas=3).start()
    try:
        yield made
    finally:
        made.stop()


def until(step: Callable[[], None], condition: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        step()
        found = condition()
        if found:
            return found
    raise TimeoutError("never got there")


class Watched(Window):
    """A window that keeps every refusal and lost table it showed (none may be shown), and
    whose player closes each hand's summary (which stays until dismissed, holding the next
    hand back) as a player clicks it away."""

    def __init__(self, address: str) -> None:
        super().__init__(address)
        self.errors: list[str] = []

    def frame(self) -> None:
        super().frame()
        live = self.live
        if live.table is not None and live.table.summaries.shown is not None:
            live.table.summaries.shown.dismiss()
        shown = [live.problem, live.lost_table,
                 live.table.model.refusal if live.table is not None else None]
        self.errors += [error for error in shown if error and error not in self.errors]


def test_every_node_names_one_service_and_lists_its_nodes(service: StarhallService) -> None:
    def welcomes() -> list[dict[str, Any]]:
        found = []
        for address in service.addresses:
            with Connection(address) as client:
                found.append(client.request({"type": protocol.HELLO}))
        return found

    heard = until(lambda: time.sleep(0.2), lambda: (w := welcomes()) and all(
        len(each["nodes"]) == 3 for each in w) and w)
    assert len({each["service"] for each in heard}) == 1
    for address, welcome in zip(service.addresses, heard, strict=True):
        assert welcome["nodes"][0]["address"] == address  # the node itself first
        assert {node["address"] for node in welcome["nodes"]} == set(service.addresses)
        assert all(len(node["key"]) == 40 for node in welcome["nodes"])


def test_every_nodes_lobby_offers_resume_of_my_table(service: StarhallService) -> None:
    pygame.display.init()
    surface = pygame.Surface(SIZE)
    table = table_waiting_for_seat_0(service.addresses[0])

    def at_table(lobby: Lobby) -> Any:
        """Frames of ``lobby`` until its table is drawn; the ``LiveTable``."""
        def step() -> None:
            lobby.frame(0.5)
            lobby.draw(surface)
            time.sleep(0.02)

        return until(step, lambda: lobby.live is not None and lobby.live.table is not None
                     and lobby.live)

    def resumable(lobby: Lobby) -> Seat:
        def step() -> None:
            lobby.frame(0.5)
            lobby.draw(surface)
            time.sleep(0.02)

        return until(step, lambda: lobby._resumable().get(table))

    lobby = Lobby(SIZE, service.addresses[0], "Ada")
    lobby.open_table("sit", table, 0)
    at_table(lobby)
    lobby.close_table()  # the game is under way: the seat is kept for its token
    lobby.close()
    for address in [*reversed(service.addresses), service.addresses[0]]:
        lobby = Lobby(SIZE, address, "Ada")
        lobby.act(("resume", resumable(lobby)))
        offered = {spot.action[1] for spot in lobby.hotspots.spots
                   if spot.action[0] == "server"}
        assert set(service.addresses) <= offered  # every node, though none sends a beacon
        live = at_table(lobby)
        assert live.session.seat == 0 and live.problem is None
        assert live.link.address == service.addresses[0]  # followed to the table's node
        lobby.close_table()
        lobby.close()


def test_a_seated_window_and_a_spectator_go_on_through_kill_9_of_the_tables_node(
        service: StarhallService, tmp_path: Path) -> None:
    first = service.nodes[0]
    table = table_waiting_for_seat_0(first.address)
    ada = Watched(first.address)  # its own node serves the table: no other to go back to
    ada.live.sit(table, 0, "Ada")
    ada.play(3)
    spectator = Watched(service.addresses[2])
    spectator.live.watch(table)
    spectator.until(lambda: spectator.live.table is not None)
    ada.until(lambda: my_turn(ada))
    first.signal(signal.SIGSTOP)  # paused: the move sent now is never answered there
    ada._move_if_mine()
    assert ada.live.session is not None and ada.live.session._acts
    first.kill()
    ada.play(4, timeout=120)
    assert ada.live.link.address != first.address
    seen = ada.live.table.model.seq  # type: ignore[union-attr]
    spectator.until(lambda: spectator.live.table.model.seq >= seen)  # type: ignore[union-attr]
    assert ada.errors == [] and spectator.errors == []
    assert any("silent" in notice for notice in ada.notices), ada.notices
    moves = own_moves(service.export(table, tmp_path))
    assert len(moves) == ada.moves and len(set(moves)) == len(moves)  # none lost nor doubled
    for window in (ada, spectator):
        window.close()


def test_a_seated_window_leaves_a_paused_node_on_heartbeats_alone(
        service: StarhallService, tmp_path: Path) -> None:
    """A node paused (SIGSTOP: its process and sockets alive, nothing answered) is left as a
    killed one is, without waiting for the protocol's silence timeout, switched off on the
    window's link here so that only ZeroMQ's unanswered heartbeats can notice it. The window
    plays on at another node, and goes on undisturbed when the paused node wakes and finds
    its table taken over."""
    first = service.nodes[0]
    table = table_waiting_for_seat_0(first.address)
    ada = Watched(first.address)
    ada.live.sit(table, 0, "Ada")
    ada.play(2)
    ada.until(lambda: my_turn(ada))
    ada.live.link.timeout = float("inf")
    first.signal(signal.SIGSTOP)
    ada._move_if_mine()  # sent to the paused node: never answered there
    ada.play(4, timeout=120)
    assert ada.live.link.address != first.address
    assert any("silent" in notice for notice in ada.notices), ada.notices
    first.signal(signal.SIGCONT)
    ada.play(2, timeout=120)
    assert ada.errors == []
    moves = own_moves(service.export(table, tmp_path))
    assert len(moves) == ada.moves and len(set(moves)) == len(moves)  # none lost nor doubled
    ada.close()


def test_a_rolling_restart_under_play_shows_no_error(service: StarhallService,
                                                     tmp_path: Path) -> None:
    table = table_waiting_for_seat_0(service.addresses[0])
    ada = Watched(service.addresses[0])
    ada.live.sit(table, 0, "Ada")
    ada.play(2)
    spectator = Watched(service.addresses[1])
    spectator.live.watch(table)
    spectator.until(lambda: spectator.live.table is not None)
    for node in service.nodes:
        node.signal(signal.SIGTERM)
        assert node.process is not None
        while node.process.poll() is None:  # drained and gone, while both windows go on
            ada.frame()
            ada._move_if_mine()
            spectator.frame()
        assert node.process.returncode == 0, node.output
        # 20 moves in all: past a hand's end (16 cards each). The spectator draws no frame
        # meanwhile, often past the server's timeout: its session is forgotten, which its
        # link notices by its own silence, and it watches again.
        ada.play(6, timeout=120)
        node.start(wait=False)
        ada.until(lambda: node.process is not None and listens(node.port))  # noqa: B023
    seen = ada.live.table.model.seq  # type: ignore[union-attr]
    spectator.until(lambda: spectator.live.table.model.seq >= seen)  # type: ignore[union-attr]
    assert ada.errors == [] and spectator.errors == []
    assert any("stopping" in notice for notice in ada.notices), ada.notices
    moves = own_moves(service.export(table, tmp_path))
    assert len(moves) == ada.moves and len(set(moves)) == len(moves)
    for window in (ada, spectator):
        window.close()


def my_turn(window: Window) -> bool:
    """Seat 0 is to move on a view no move of it waits on."""
    live, session = window.live, window.live.session
    return (live.table is not None and session is not None and not session._acts
            and 0 in live.table.model.view.get("to_act", [])
            and live.table.model.seq != window._moved_at)


def listens(port: int) -> bool:
    import socket

    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_new_tables_from_the_window_go_to_the_nodes_serving_fewest(
        service: StarhallService) -> None:
    pygame.display.init()
    surface = pygame.Surface(SIZE)
    first, second, third = service.addresses
    busy = [table_waiting_for_seat_0(first) for _ in range(2)]  # made where asked: no anywhere

    def listed(address: str) -> set[str]:
        with Connection(address) as client:
            return {str(t["id"]) for t in client.request({"type": protocol.LIST})["tables"]}

    until(lambda: time.sleep(0.1), lambda: set(busy) <= listed(second) & listed(third))
    lobby = Lobby(SIZE, first, "Ada")

    def step() -> None:
        lobby.frame(0.5)
        lobby.draw(surface)
        time.sleep(0.02)

    placed = []
    for _ in range(2):
        until(step, lambda: lobby.form is not None and lobby.link is not None
              and lobby.link.state == "connected")
        lobby.create(True)  # with bots: the game starts, the table stays open
        live = until(step, lambda: lobby.live is not None and lobby.live.table is not None
                     and lobby.live)
        placed.append((live.link.address, live.session.table))
        lobby.close_table()
        until(step, lambda: placed[-1][1] in listed(first))  # its lease heard everywhere
    assert {address for address, _ in placed} == {second, third}  # one each, none on first
    lobby.close()
