"""The window's own table (``LiveTable`` and its ``TableSession``, drawn on a real pygame
surface by SDL's dummy driver) at a service of two ``starhall serve --store nats://…``
processes on one real nats-server: opened on the node that does not serve the table, it
follows ``elsewhere`` to the node that does and plays (or watches) there; when that node is
killed (-9), it goes back to the node it came from, is sent on to wherever the table was taken
over, and plays on. Every wait is for a condition, with a deadline only against a hang."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from starhall.client.net.link import ServerLink
from starhall.client.screens.live import LiveTable
from starhall.shared import protocol
from starhall.shared.replay import load
from tests.connection import Connection
from tests.nats_helpers import NatsNode, StarhallService
from tests.server_helpers import choose

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

SIZE = (1280, 720)
LEASE = 2.0


@pytest.fixture
def service(nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest
            ) -> Iterator[StarhallService]:
    made = StarhallService(f"nats://{nats_node.url}", tmp_path, request.node.name,
                           lease=LEASE, replicas=1).start()
    try:
        yield made
    finally:
        made.stop()


def table_waiting_for_seat_0(address: str) -> str:
    """A hearts table made at ``address`` (a game that will not end), bots in seats 1 to 3,
    seat 0 free: the game starts when someone sits there."""
    with Connection(address) as lobby:
        table = str(lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": {"target": 10_000}})["table"]["id"])
        for seat in (1, 2, 3):
            assert lobby.request({"type": "bot", "table": table, "seat": seat})["type"] == \
                protocol.BOTTED
    return table


class Window:
    """A ``LiveTable`` on its own link to ``address``, its frames drawn on a surface."""

    def __init__(self, address: str) -> None:
        pygame.display.init()
        self.surface = pygame.Surface(SIZE)
        self.live = LiveTable(ServerLink(address, name="Ada"), SIZE)
        self.moves = 0
        self._moved_at = -1
        self.notices: set[str] = set()
        """Every connection notice the table showed."""

    def frame(self) -> None:
        self.live.wait(0.05)
        self.live.frame(0.5)  # long frames: animations finish at once
        self.live.draw(self.surface)
        if self.live.table is not None:
            self.notices.add(self.live.table.model.connection)

    def until(self, condition: Callable[[], Any], timeout: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.frame()
            found = condition()
            if found:
                return found
        raise TimeoutError("the table never got there")

    def _move_if_mine(self) -> bool:
        """Make a move when it is seat 0's turn on a view the last move is not waiting on;
        ``True`` once every move made so far is acknowledged."""
        live, session = self.live, self.live.session
        if live.table is None or session is None or live.table.send is None:
            return False
        if session._acts:  # a move on its way, maybe to a node taking the table over
            return False
        model = live.table.model
        if 0 in model.view.get("to_act", []) and model.seq != self._moved_at:
            command = choose(model.view)
            if command is not None:
                self._moved_at = model.seq
                live.table.send(command["type"], command.get("data") or {})
                self.moves += 1
        return True

    def play(self, moves: int, timeout: float = 90.0) -> None:
        goal = self.moves + moves
        self.until(lambda: self._move_if_mine() and self.moves >= goal, timeout)

    def close(self) -> None:
        self.live.close()


def own_moves(log: Path) -> list[Any]:
    recording = load(log)
    return [cid for seq, cid in recording.cids.items() if recording.event(seq).seat == 0]


def test_a_table_served_by_another_node_is_followed_there_to_play_and_watch(
        service: StarhallService, tmp_path: Path) -> None:
    first, second = service.nodes
    table = table_waiting_for_seat_0(first.address)
    ada = Window(second.address)  # the lobby's node is not the table's
    ada.live.sit(table, 0, "Ada")
    ada.until(lambda: ada.live.table is not None)
    assert ada.live.link.address == first.address
    assert ada.live.home.address == second.address
    assert ada.live.session is not None and ada.live.session.seat == 0
    ada.play(4)
    spectator = Window(second.address)
    spectator.live.watch(table)
    spectator.until(lambda: spectator.live.table is not None)
    assert spectator.live.link.address == first.address
    seen = spectator.live.table.model.seq  # type: ignore[union-attr]
    ada.play(2)
    spectator.until(lambda: spectator.live.table.model.seq > seen)  # type: ignore[union-attr]
    moves = own_moves(service.export(table, tmp_path))
    assert len(moves) >= 6 and len(moves) == len(set(moves))
    for window in (ada, spectator):
        window.close()


def test_a_table_whose_node_is_killed_is_followed_to_the_node_that_took_it_over(
        service: StarhallService, tmp_path: Path) -> None:
    first, second = service.nodes
    table = table_waiting_for_seat_0(first.address)
    ada = Window(second.address)
    ada.live.sit(table, 0, "Ada")
    ada.play(3)
    assert ada.live.link.address == first.address
    first.kill()  # mid-game: its lease runs out, the other node takes the table over
    ada.play(3, timeout=120)
    assert ada.live.link is ada.live.home and ada.live.link.address == second.address
    assert ada.live.lost_table is None
    assert any("silent" in notice for notice in ada.notices), ada.notices
    moves = own_moves(service.export(table, tmp_path))
    assert len(moves) >= 6 and len(moves) == len(set(moves))  # none lost, none doubled
    ada.close()
