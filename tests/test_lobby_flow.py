"""Tables from the lobby to the first deal, and people who leave: the server's rules (a
waiting table never waits for someone who went; a started game keeps a leaver's seat, which
another player may hand to a stand-in bot) and the window client's lobby (the new-table form
built from the server's game list, the waiting-for-players screen, a left player, a lost
server), over a real ZeroMQ server on loopback with SDL's dummy driver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.embed import EmbeddedServer
from shared import protocol
from tests.server_helpers import FAST_HEARTS, Participant, Person, fill_with_bots, wait_for


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    embedded = EmbeddedServer(tmp_path / "server", think=0.0, flood_rate=10_000,
                              flood_burst=10_000)
    embedded.start()
    yield embedded
    embedded.stop()


def address(server: EmbeddedServer) -> str:
    assert server.address is not None
    return server.address


def create(lobby: Participant, players: int = 4, **options: Any) -> str:
    reply = lobby.request({"type": "create", "game": "hearts", "players": players,
                           "options": {**FAST_HEARTS, **options}})
    assert reply["type"] == protocol.CREATED, reply
    table: str = reply["table"]["id"]
    return table


def seats_of(lobby: Participant, table: str) -> list[dict[str, Any]]:
    listed = lobby.request({"type": "list"})["tables"]
    seats: list[dict[str, Any]] = next(t for t in listed if t["id"] == table)["seats"]
    return seats


def status_of(lobby: Participant, table: str) -> str:
    listed = lobby.request({"type": "list"})["tables"]
    status: str = next(t for t in listed if t["id"] == table)["status"]
    return status


# --- the server's rules --------------------------------------------------------------------

def test_leaving_before_the_start_frees_the_seat(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    bruno = Person(address(server), table, 1, "Bruno")
    left = bruno.request({"type": "leave", "table": table, "token": bruno.token})
    assert left["type"] == protocol.LEFT and left["kept"] is False
    assert seats_of(lobby, table)[1]["state"] == protocol.FREE
    again = bruno.request({"type": "resume", "table": table, "seat": 1, "token": bruno.token})
    assert again["code"] == protocol.BAD_TOKEN  # the token went with the seat
    for participant in (lobby, bruno):
        participant.close()


def test_a_refused_leave_changes_nothing(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    ada = Person(address(server), table, 0, "Ada")
    odd = ada.request({"type": "leave", "table": table, "token": ada.token, "give_up": "yes"})
    assert odd["code"] == protocol.BAD_FIELD and odd["field"] == "give_up"
    assert ada.request({"type": "leave", "table": table, "token": "guess"})["code"] == \
        protocol.BAD_TOKEN
    assert seats_of(lobby, table)[0] == {"seat": 0, "state": "player", "name": "Ada",
                                         "connected": True, "bot": None, "standin": False}
    for participant in (lobby, ada):
        participant.close()


def test_a_started_game_keeps_a_leavers_seat_for_a_stand_in_or_their_return(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    fill_with_bots(lobby, table, (2, 3))
    ada = Person(address(server), table, 0, "Ada")
    bruno = Person(address(server), table, 1, "Bruno")
    assert status_of(lobby, table) == protocol.PLAYING
    left = bruno.request({"type": "leave", "table": table, "token": bruno.token})
    assert left["type"] == protocol.LEFT and left["kept"] is True
    seat = seats_of(lobby, table)[1]
    assert (seat["state"], seat["name"], seat["connected"]) == ("player", "Bruno", False)
    # everyone at the table hears of it at once, without waiting for a timeout
    wait_for(lambda: any(m["type"] == protocol.TABLE and not m["table"]["seats"][1]["connected"]
                         for m in ada.drain(0.01)))
    refused = lobby.request({"type": "bot", "table": table, "seat": 1})
    assert refused["code"] == protocol.NOT_SEATED  # only a player at the table may
    handed = ada.request({"type": "bot", "table": table, "seat": 1, "token": ada.token,
                          "kind": "heuristic"})
    assert handed["type"] == protocol.BOTTED and handed["standin"]
    bruno.resume(address(server))  # his token still holds the seat: the stand-in goes
    seat = seats_of(lobby, table)[1]
    assert (seat["state"], seat["connected"], seat["standin"]) == ("player", True, False)
    for participant in (lobby, ada, bruno):
        participant.close()


def test_giving_up_frees_a_started_seat(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    fill_with_bots(lobby, table)
    ada = Person(address(server), table, 0, "Ada")
    left = ada.request({"type": "leave", "table": table, "token": ada.token, "give_up": True})
    assert left["kept"] is False
    assert seats_of(lobby, table)[0]["state"] == protocol.FREE
    for participant in (lobby, ada):
        participant.close()


def test_a_silent_person_loses_a_waiting_seat_but_not_a_started_one(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, think=0.0, timeout=0.3) as server:
        lobby = Participant(address(server))
        waiting, started = create(lobby), create(lobby)
        fill_with_bots(lobby, started)
        ada = Person(address(server), waiting, 0, "Ada")
        assert ada.request({"type": "sit", "table": started, "seat": 0})["type"] == \
            protocol.SEATED

        def ada_gone() -> bool:
            lobby.connection.send({"type": "ping"})
            return not seats_of(lobby, started)[0]["connected"]

        wait_for(ada_gone, step=0.05)
        assert seats_of(lobby, waiting)[0]["state"] == protocol.FREE
        assert seats_of(lobby, started)[0]["state"] == "player"
        for participant in (lobby, ada):
            participant.close()
