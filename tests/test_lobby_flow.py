"""Tables from the lobby to the first deal, and people who leave: the server's rules (a
waiting table never waits for someone who went; a started game keeps a leaver's seat, which
another player may hand to a stand-in bot) and the window client's lobby (the new-table form
built from the server's game list, the waiting-for-players screen, a left player, a lost
server), over a real ZeroMQ server on loopback with SDL's dummy driver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from starhall.server.embed import EmbeddedServer
from starhall.shared import protocol
from tests.server_helpers import (
    FAST_HEARTS,
    Participant,
    Person,
    address,
    fill_with_bots,
    wait_for,
)

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it


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


# --- the window client's lobby ---------------------------------------------------------------

SIZE = (1280, 720)


@pytest.fixture
def own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's config and data folders in the test's own folder (seat tokens, settings)."""
    monkeypatch.setenv("STARHALL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("STARHALL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


class Window:
    """A lobby drawn on its own surface, driven by real pygame events."""

    def __init__(self, address: str, name: str) -> None:
        import pygame

        from starhall.client.screens.lobby import Lobby

        pygame.display.init()
        self.surface = pygame.Surface(SIZE)
        self.lobby = Lobby(SIZE, address, name)

    def turn(self) -> None:
        self.lobby.frame(0.5)  # long frames: animations finish at once
        self.lobby.draw(self.surface)

    def until(self, condition: Any, timeout: float = 10.0) -> Any:
        def ready() -> Any:
            self.turn()
            return condition()

        return wait_for(ready, timeout=timeout)

    def spot(self, *action: Any) -> Any:
        """The enabled hotspot whose action starts with ``action``, if one is drawn."""
        live = self.lobby.live
        spots = list(self.lobby.hotspots.spots)
        if live is not None and live.hotspots is not None and live.table is not None:
            spots = list(live.hotspots.spots) + spots
        for found in reversed(spots):
            if found.action[: len(action)] == action and found.enabled:
                return found
        return None

    def click(self, *action: Any) -> None:
        import pygame

        found = self.until(lambda: self.spot(*action))
        self.lobby.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=found.rect.center,
                                             button=1))
        self.turn()

    def key(self, key: int, unicode: str = "") -> None:
        import pygame

        self.lobby.handle(pygame.event.Event(pygame.KEYDOWN, key=key, unicode=unicode, mod=0))
        self.turn()

    def seats(self) -> list[dict[str, Any]]:
        info = self.lobby.waiting_info()
        assert info is not None
        return list(info["seats"])

    def close(self) -> None:
        self.lobby.close()


def table_info(lobby: Participant, table: str) -> dict[str, Any]:
    listed = lobby.request({"type": "list"})["tables"]
    info: dict[str, Any] = next(t for t in listed if t["id"] == table)
    return info


def test_a_table_from_the_form_waits_for_people_and_starts_with_bots(
        server: EmbeddedServer, own_folders: None) -> None:
    import pygame

    ada = Window(address(server), "Ada")
    form = ada.until(lambda: ada.lobby.form)
    while form.game["id"] != "hearts":  # the form lists the server's games, options and all
        ada.click("form", "game", 1)
    assert [spec["name"] for spec in form.specs] == [
        option["name"] for option in next(g for g in ada.lobby.games
                                          if g["id"] == "hearts")["options"]]
    ada.click("form", "players", 1)
    ada.click("form", "option", "mode", 1)  # a choice steps on
    ada.click("form", "option", "qs_breaks_hearts", 1)  # a switch turns on
    ada.click("form", "edit", "target")  # a number is typed
    for digit in "30":
        ada.key(getattr(pygame, f"K_{digit}"), digit)
    ada.key(pygame.K_RETURN)
    ada.click("form", "fill")  # the table waits for people
    assert (form.players, form.values["mode"], form.values["qs_breaks_hearts"],
            form.values["target"], form.fill_with_bots) == (5, "no_exchange", True, 30, False)
    ada.click("create", False)
    ada.until(lambda: ada.lobby.waiting_info())
    ada.until(lambda: ada.spot("room", "bot", 4))
    table = ada.lobby.waiting_info()["id"]
    lobby = Participant(address(server))
    info = table_info(lobby, table)
    assert info["players"] == 5 and info["status"] == protocol.WAITING
    assert {k: info["options"][k] for k in ("mode", "qs_breaks_hearts", "target")} == {
        "mode": "no_exchange", "qs_breaks_hearts": True, "target": 30}
    # the waiting room: Ada in seat 1, four empty seats each with "Add a bot", and a start
    assert [s["state"] for s in ada.seats()] == ["player", "free", "free", "free", "free"]
    assert ada.lobby.live is not None and ada.lobby.live.session is not None
    assert ada.lobby.live.session.seat == 0
    assert all(ada.spot("room", "bot", seat) for seat in (1, 2, 3, 4))
    assert ada.spot("room", "start") is not None

    ada.click("room", "bot", 1)
    ada.until(lambda: ada.seats()[1]["state"] == "bot")
    assert table_info(lobby, table)["seats"][1]["bot"] == "heuristic"  # the default kind

    # a second client joins the waiting table and sees who sits where
    bruno = Window(address(server), "Bruno")
    bruno.click("sit", table)
    bruno.until(lambda: bruno.lobby.waiting_info()
                and bruno.lobby.live.session.seat == 2)  # type: ignore[union-attr]
    assert [s["state"] for s in bruno.seats()] == ["player", "bot", "player", "free", "free"]
    assert bruno.spot("room", "start") is None  # starting is the creator's
    ada.until(lambda: ada.seats()[2]["name"] == "Bruno")

    # leaving before the start frees the seat, for everyone to see
    bruno.key(pygame.K_ESCAPE)
    assert bruno.lobby.live is None
    ada.until(lambda: ada.seats()[2]["state"] == protocol.FREE)
    assert table_info(lobby, table)["seats"][2]["state"] == protocol.FREE
    bruno.click("sit", table)
    bruno.until(lambda: bruno.lobby.waiting_info())

    # "Start now": bots in the empty seats, and the game is dealt
    ada.click("room", "start")
    ada.until(lambda: ada.lobby.waiting_info() is None and ada.lobby.live is not None
              and ada.lobby.live.table is not None)
    info = table_info(lobby, table)
    assert info["status"] == protocol.PLAYING and info["seq"] > 0
    assert [s["state"] for s in info["seats"]] == ["player", "bot", "player", "bot", "bot"]
    bruno.until(lambda: bruno.lobby.waiting_info() is None)

    # after the start, Bruno's leaving keeps his seat: Ada sees him gone and may hand it on
    bruno.lobby.close_table()
    ada.until(lambda: ada.spot("room", "standin", 2))
    from starhall.client.screens.waiting_room import absent_people

    session = ada.lobby.live.session  # type: ignore[union-attr]
    assert [p["name"] for p in absent_people(session.info, session.seat)] == ["Bruno"]
    ada.click("room", "standin", 2)
    ada.until(lambda: session.info["seats"][2]["standin"])
    seat = table_info(lobby, table)["seats"][2]
    assert (seat["state"], seat["name"], seat["standin"]) == ("bot", "Bruno", True)

    # Bruno's lobby lists the game under "Your games": Resume sends the stand-in away
    bruno.click("resume")
    bruno.until(lambda: bruno.lobby.live is not None and bruno.lobby.live.table is not None)
    wait_for(lambda: table_info(lobby, table)["seats"][2]["state"] == "player")
    for window in (ada, bruno):
        window.close()
    lobby.close()


def test_the_form_shows_the_servers_refusal(server: EmbeddedServer, own_folders: None) -> None:
    ada = Window(address(server), "Ada")
    form = ada.until(lambda: ada.lobby.form)
    while form.game["id"] != "hearts":
        ada.click("form", "game", 1)
    form.values["first_dealer"] = 9  # no seat 9 at a table of four
    ada.click("create", True)
    ada.until(lambda: form.error)
    assert "first_dealer" in form.error and ada.lobby.live is None
    ada.close()


def test_a_patiences_form_offers_no_bots_and_creates_to_play(server: EmbeddedServer,
                                                              own_folders: None) -> None:
    ada = Window(address(server), "Ada")
    form = ada.until(lambda: ada.lobby.form)
    while form.game["id"] != "star_patience":
        ada.click("form", "game", 1)
    ada.turn()
    assert form.players == 1
    assert ada.spot("form", "fill") is None and ada.spot("form", "bot") is None
    assert ada.spot("create", True) is not None  # "Create and play"
    ada.click("create", True)
    ada.until(lambda: ada.lobby.live is not None and ada.lobby.live.table is not None)
    ada.close()


def test_a_lost_server_says_where_and_offers_reconnect_and_back(
        tmp_path: Path, own_folders: None) -> None:
    embedded = EmbeddedServer(tmp_path / "server", think=0.0, timeout=0.5)
    embedded.start()
    ada = Window(address(embedded), "Ada")
    ada.until(lambda: ada.lobby.form)
    embedded.stop()
    ada.until(lambda: ada.spot("lost", "reconnect"), timeout=20)
    where = address(embedded).split("://")[1]
    assert ada.lobby.lost_title() == f"Lost the server at {where}"
    assert ada.spot("lost", "back") is not None
    ada.click("lost", "reconnect")
    assert ada.lobby.link is not None and ada.lobby.link.state == "connecting"
    assert ada.lobby.lost_title() == f"Cannot reach a server at {where}"
    ada.click("lost", "back")
    assert ada.lobby.link is None
    ada.close()


def test_the_lobby_resumes_a_game_of_this_computer(tmp_path: Path, own_folders: None) -> None:
    from starhall.client.net.embedded import unfinished_tables
    from starhall.client.screens.hosted import HostedTable

    hosted = HostedTable.new("hearts", 4, {"target": 1000}, SIZE)
    wait_for(lambda: (hosted.frame(0.5), hosted.live.table is not None)[1])
    hosted.close()
    (entry,) = unfinished_tables()
    with EmbeddedServer(tmp_path / "lan", think=0.0) as lan:
        ada = Window(address(lan), "Ada")
        ada.click("local", entry)
        assert ada.lobby.hosted is not None
        table = ada.until(lambda: ada.lobby.hosted.live.table)
        assert table.model.seat == entry.seat.seat and table.model.game == "hearts"
        ada.lobby.hosted.live.leave()
        ada.until(lambda: ada.lobby.hosted is None)
        assert ada.spot("local") is not None  # still unfinished, still listed
        ada.close()


def test_a_spectator_of_a_waiting_table_can_take_a_seat(server: EmbeddedServer,
                                                       own_folders: None) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    eve = Window(address(server), "Eve")
    eve.click("watch", table)
    eve.until(lambda: eve.lobby.waiting_info())
    assert eve.spot("room", "start") is None and eve.spot("room", "sit", 2) is not None
    eve.click("room", "sit", 2)
    eve.until(lambda: eve.lobby.waiting_info() and eve.seats()[2]["name"] == "Eve")
    assert eve.lobby.live is not None and eve.lobby.live.session is not None
    assert eve.lobby.live.session.seat == 2
    assert table_info(lobby, table)["spectators"] == 0  # she stopped watching to sit
    eve.close()
    lobby.close()


def test_who_sits_where_arrives_before_the_events_it_names(server: EmbeddedServer) -> None:
    """The bots that fill a table are announced before the deal and their first moves, so a
    client tells those moves with the bots' names, not "free seat"."""
    lobby = Participant(address(server))
    table = create(lobby, mode="no_exchange")
    ada = Person(address(server), table, 0, "Ada")
    ada.heard()
    ada.received.clear()
    for seat in (1, 2, 3):  # one batch, as a "Start now" sends them
        lobby.connection.send({"type": "bot", "table": table, "seat": seat})
    wait_for(lambda: ada.drain(0.01) and any(m["type"] == protocol.UPDATE
                                             for m in ada.received))
    ada.heard()
    first_update = next(i for i, m in enumerate(ada.received) if m["type"] == protocol.UPDATE)
    rosters = [i for i, m in enumerate(ada.received) if m["type"] == protocol.TABLE
               and all(s["state"] != protocol.FREE for s in m["table"]["seats"])]
    assert rosters and rosters[0] < first_update, [m["type"] for m in ada.received]
    for participant in (lobby, ada):
        participant.close()


# --- the lobby's list of tables: every page, waiting tables first; laid out when narrow ---

class FakeLink:
    """A connected link that keeps what the lobby sends (the replies are handed in)."""

    address = "tcp://127.0.0.1:9"
    state = "connected"

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> int:
        self.sent.append(message)
        return len(self.sent)

    def poll(self) -> list[dict[str, Any]]:
        return []

    def close(self) -> None:
        """Nothing to close: the stand-in has no socket."""


def table_entry(table: str, status: str, game: str = "hearts") -> dict[str, Any]:
    seats = [{"seat": s, "state": "free" if status == protocol.WAITING else "player",
              "name": None if status == protocol.WAITING else f"P{s}", "connected": True,
              "bot": None, "standin": False} for s in range(4)]
    return {"id": table, "game": game, "title": game, "status": status, "seats": seats}


def fake_lobby(size: tuple[int, int] = SIZE) -> tuple[Any, FakeLink]:
    from starhall.client.screens.lobby import Lobby

    lobby = Lobby(size, None, "Sam")
    link = FakeLink()
    lobby.link = link  # type: ignore[assignment]
    return lobby, link


def test_the_lobby_follows_every_page_and_lists_waiting_tables_first(
        own_folders: None) -> None:
    lobby, link = fake_lobby()
    lobby.frame(0.0)
    assert link.sent == [{"type": protocol.LIST, "status": [protocol.WAITING,
                                                            protocol.PLAYING]}]
    # Pages in id order (docs/protocol.md): the lobby asks for the next by the cursor given.
    lobby._receive({"type": protocol.TABLES, "rid": 1, "total": 4, "cursor": "c1",
                    "tables": [table_entry("0002", protocol.PLAYING),
                               table_entry("0010", protocol.WAITING)]})
    assert link.sent[-1] == {"type": protocol.LIST, "cursor": "c1",
                             "status": [protocol.WAITING, protocol.PLAYING]}
    assert lobby.tables == [] and not lobby.tables_complete  # shown once all have come
    lobby.frame(0.0)
    assert len(link.sent) == 2  # no new listing while one goes on
    lobby._receive({"type": protocol.TABLES, "rid": 2, "total": 4, "cursor": None,
                    "tables": [table_entry("0100", protocol.PLAYING),
                               table_entry("0101", protocol.WAITING)]})
    assert [t["id"] for t in lobby.tables] == ["0010", "0101", "0002", "0100"]
    assert lobby.tables_complete
    # An older server pages by offset (`next`) and has no cursor: followed the same way.
    lobby.last_list = -100.0
    lobby.frame(0.0)
    rid = len(link.sent)
    lobby._receive({"type": protocol.TABLES, "rid": rid, "total": 2, "next": 1,
                    "tables": [table_entry("0003", protocol.WAITING)]})
    assert link.sent[-1]["offset"] == 1
    lobby._receive({"type": protocol.TABLES, "rid": rid + 1, "total": 2, "next": None,
                    "tables": [table_entry("0001", protocol.WAITING)]})
    assert [t["id"] for t in lobby.tables] == ["0001", "0003"]
    lobby._receive({"type": protocol.TABLES, "rid": 1, "tables": []})  # a stale answer
    assert [t["id"] for t in lobby.tables] == ["0001", "0003"]
    lobby.close()


@pytest.mark.parametrize("size", [(800, 600), (1024, 640), (1280, 720)])
def test_the_tables_buttons_keep_inside_their_panel_in_any_window(
        own_folders: None, size: tuple[int, int]) -> None:
    import pygame

    from starhall.client.screens.lobby import lobby_places
    from starhall.client.ui import fonts

    pygame.display.init()
    lobby, _ = fake_lobby(size)
    lobby.tables = [table_entry("0001", protocol.WAITING),
                    table_entry("0002", protocol.PLAYING, "stars")]
    surface = pygame.Surface(size)
    lobby.draw(surface)
    servers, _, tables, form = lobby_places(*size, lobby._servers_height(), False)
    spots = lobby.hotspots.spots
    rows = [spot.rect for spot in spots if spot.action[0] in ("sit", "watch")]
    assert len(rows) == 4
    for rect in rows:
        assert tables.contains(rect), (rect, tables)
    for panel_rect in (servers, form):
        assert not panel_rect.colliderect(tables)
    for first, second in zip(rows, rows[1:], strict=False):
        assert not first.colliderect(second)
    # The title has the row to itself at 16 px, or is cut: never under the buttons.
    row_width = tables.w - 24
    assert row_width >= 300 and fonts.font(16).size("0001  Stardeck Hearts")[0] < row_width
    lobby.close()


def test_a_waiting_rooms_seat_wraps_its_words_rather_than_shrinking() -> None:
    from starhall.client.screens.waiting_room import seat_lines
    from starhall.client.ui import fonts

    lines = seat_lines("Clara (bot: heuristic)", 150, 50)
    assert lines[0] == ("Clara", 17) and lines[1][1] == 13 and lines[1][0].startswith("(bot")
    assert all(fonts.font(size).size(text)[0] <= 150 for text, size in lines)
    assert seat_lines("Clara (bot: heuristic)", 400, 50) == [("Clara (bot: heuristic)", 17)]
    assert len(seat_lines("Clara (bot: heuristic)", 150, 30)) == 1  # a low row: the name


def test_the_windows_title_names_the_table_and_goes_back_to_the_lobby(
        server: EmbeddedServer, own_folders: None) -> None:
    import pygame

    pygame.display.init()
    pygame.display.set_caption("Starhall — lobby")
    lobby = Participant(address(server))
    table = create(lobby)
    ada = Window(address(server), "Ada")
    ada.click("sit", table)
    ada.until(lambda: ada.lobby.waiting_info())
    fill_with_bots(lobby, table)
    ada.until(lambda: ada.lobby.live is not None and ada.lobby.live.table is not None)
    assert pygame.display.get_caption()[0] == f"Starhall — Stardeck Hearts {table}"
    ada.key(pygame.K_ESCAPE)  # a started game asks first; the lobby's close_table leaves
    ada.lobby.close_table()
    assert pygame.display.get_caption()[0] == "Starhall — lobby"
    ada.close()
    lobby.close()


@pytest.mark.parametrize("size", [(1280, 720), (800, 600), (1920, 1080)])
def test_your_games_wrap_their_words_rather_than_cutting_them(
        size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    import pygame

    from starhall.client.screens import lobby as lobby_module
    from starhall.client.ui.widgets import Hotspots

    pygame.display.init()
    drawn: list[str] = []
    real = lobby_module.blit_text
    monkeypatch.setattr(lobby_module, "blit_text",
                        lambda surface, text, *rest, **more: (drawn.append(text),
                                                              real(surface, text, *rest, **more)))
    mine = [("A card game – what else?", "on this computer · 152 moves", ("local", None)),
            ("Stardeck Hearts", "0007 · seat 2 · playing", ("resume", None))]
    lobby = lobby_module.Lobby.__new__(lobby_module.Lobby)
    lobby.hotspots, lobby.mouse = Hotspots(), (-1, -1)
    _, games, _, _ = lobby_module.lobby_places(size[0], size[1], 200, True)
    assert games is not None
    lobby._your_games(pygame.Surface(size), games, mine)
    assert not [text for text in drawn if text.endswith("…")], drawn
    shown = " ".join(drawn)
    assert "152" in shown and "moves" in shown  # "… 52 m…" was all there was of it
    resumes = [spot for spot in lobby.hotspots.spots if spot.action[0] in ("local", "resume")]
    assert len(resumes) == 2 or "+1 more" in drawn
