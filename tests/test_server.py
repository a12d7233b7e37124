"""The game server over real sockets on 127.0.0.1: lobby, play, reconnect, spectate, stale and
repeated commands, stand-in bots, and a recorder that checks that no message held a card
hidden from its receiver."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from starhall.server import durability
from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.server.seats import distinct_name
from starhall.shared import protocol
from starhall.shared.games import GAMES
from starhall.shared.replay import Verified, load, verify
from tests.connection import Connection, ServerListener
from tests.nats_helpers import jetstream_settings
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    HiddenCards,
    Participant,
    Person,
    address,
    choose,
    fill_with_bots,
    hear_one_server,
    log_of,
    play_until_over,
    wait_for,
)

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it


@pytest.fixture(params=["files", "jetstream"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A real server on loopback, its tables kept in files in this test's folder, or in a
    stream of its own on a real nats-server (one for the file's tests)."""
    store = {} if request.param == "files" else jetstream_settings(
        request.getfixturevalue("nats_node"), request.node.name)
    with EmbeddedServer(tmp_path, **FAST_SERVER, **store) as embedded:
        yield embedded


def catch_up(person: Person) -> int:
    """Everything the server has sent ``person`` until now, read and applied to its feed (the
    ``pong`` to a ping sent now comes after it: ``heard``), in place of a wait for a time;
    returns the feed's seq."""
    for message in person.heard():
        if person.feed.apply(message) == "gap":
            person.sync()
    return person.feed.seq


def create(lobby: Participant | Connection, players: int = 4, **options: Any) -> str:
    message = {"type": "create", "game": "hearts", "players": players,
               "options": {**FAST_HEARTS, **options}}
    reply = lobby.request(message)
    assert reply["type"] == protocol.CREATED, reply
    table: str = reply["table"]["id"]
    return table



def test_hello_lists_every_game_with_options_and_bots(server: EmbeddedServer) -> None:
    with Connection(address(server)) as connection:
        welcome = connection.request({"type": "hello", "name": "Ada", "protocol": 1})
        assert welcome["type"] == protocol.WELCOME
        hearts = next(game for game in welcome["games"] if game["id"] == "hearts")
        assert "random" in hearts["bots"]
        assert {option["name"] for option in hearts["options"]} >= {"mode", "target"}
        assert connection.request({"type": "hello", "protocol": 2})["code"] == "bad_protocol"
        assert connection.request({"type": "ping"})["type"] == protocol.PONG


def test_create_is_validated_by_the_game(server: EmbeddedServer) -> None:
    with Connection(address(server)) as lobby:
        assert lobby.request({"type": "create", "game": "chess", "players": 2})["code"] == \
            protocol.UNKNOWN_GAME
        reply = lobby.request({"type": "create", "game": "hearts", "players": 9})
        assert reply["code"] == protocol.BAD_OPTIONS
        reply = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": {"mode": "nonsense"}})
        assert reply["code"] == protocol.BAD_OPTIONS and "mode" in reply["reason"]
        reply = lobby.request({"type": "create", "game": "hearts", "players": "4"})
        assert reply["code"] == protocol.BAD_FIELD and reply["field"] == "players"
        table = create(lobby, 3, mode="no_exchange")
        listed = lobby.request({"type": "list"})["tables"]
        assert [(t["id"], t["status"], t["players"]) for t in listed] == [(table, "waiting", 3)]
        assert listed[0]["options"]["mode"] == "no_exchange"


def test_a_full_game_of_people_and_bots_hides_every_hidden_card(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    assert lobby.request({"type": "bot", "table": table, "seat": 1})["type"] == protocol.BOTTED
    assert lobby.request({"type": "bot", "table": table, "seat": 3, "kind": "random"})[
        "type"] == protocol.BOTTED
    ada = Person(address(server), table, 0, "Ada")
    assert Person.__name__  # two people, two bots, one spectator
    watcher = Participant(address(server), "Eve")
    assert watcher.request({"type": "watch", "table": table})["type"] == protocol.WATCHING
    bob = Person(address(server), table, 2, "Bob")
    listed = lobby.request({"type": "list"})["tables"][0]
    assert listed["status"] == "playing"
    assert [s["state"] for s in listed["seats"]] == ["player", "bot", "player", "bot"]
    assert listed["spectators"] == 1

    play_until_over([ada, bob])
    watcher.heard()
    catch_up(ada)
    catch_up(bob)

    assert isinstance(verify(log_of(server, table)), Verified)
    recording = load(log_of(server, table))
    assert recording.game.outcome(recording.state_at()).over
    assert ada.acks and bob.acks
    for person in (ada, bob):  # every acknowledged move is in the log, made by its seat
        events = dict(recording.events)
        for ack in person.acks:
            event = events[ack["seq"]]
            assert event.seat == person.seat
    hidden = HiddenCards(log_of(server, table))
    assert hidden.leaks(ada.received, 0, table) == []
    assert hidden.leaks(bob.received, 2, table) == []
    assert hidden.leaks(watcher.received, None, table) == []
    assert any(m["type"] == protocol.UPDATE for m in watcher.received)
    spectator_snapshot = next(m for m in watcher.received if m["type"] == protocol.SNAPSHOT)
    assert "hand" not in spectator_snapshot["view"]
    # the recorder is not vacuous: a seat's own view does show its hand
    assert any(m["type"] == protocol.SNAPSHOT and m["view"].get("hand") for m in ada.received)
    # every update stream is gapless, and each update's view is the table after its events
    states = dict(recording.states())
    for participant, seat in ((ada, 0), (bob, 2), (watcher, None)):
        updates = [m for m in participant.received
                   if m["type"] == protocol.UPDATE and m["seat"] == seat]
        for earlier, later in zip(updates, updates[1:], strict=False):
            assert later["from"] == earlier["seq"]
        for update in updates:
            assert update["view"] == recording.game.view(states[update["seq"]], seat)
    for participant in (lobby, ada, bob, watcher):
        participant.close()


def test_stale_and_repeated_commands(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby, mode="no_exchange")  # no exchange: everyone passes at once
    fill_with_bots(lobby, table)
    ada = Person(address(server), table, 0)
    wait_for(ada.refresh)
    command = choose(ada.feed.view)
    assert command is not None
    current = ada.feed.seq

    stale = ada.act(command, seq=current - 1, cid="first")
    assert stale["type"] == protocol.ERROR and stale["code"] == protocol.STALE
    assert stale["seq"] == current

    done = ada.act(command, seq=current, cid="move-1")
    assert done["type"] == protocol.ACK and not done["duplicate"]
    again = ada.act(command, seq=current, cid="move-1")  # a resend: no second move
    assert again["type"] == protocol.ACK and again["duplicate"] and again["seq"] == done["seq"]
    recording = load(log_of(server, table))
    mine = [seq for seq, event in recording.events if event.seat == 0]
    assert mine == [done["seq"]]

    # the same pass under a new id is refused (already passed, or bots moved on meanwhile)
    wrong = ada.act(command, seq=done["seq"], cid="move-2")
    assert wrong["type"] == protocol.ERROR
    assert wrong["code"] in ("already_passed", "wrong_phase", protocol.STALE)
    assert [seq for seq, event in load(log_of(server, table)).events
            if event.seat == 0 and event.type == "passed"] == [done["seq"]]


def test_only_the_token_acts_for_its_seat(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    ada = Person(address(server), table, 0)
    bob = Person(address(server), table, 1)
    not_yet = ada.act({"type": "decline_exchange"}, seq=0)
    assert not_yet["code"] == protocol.NOT_STARTED
    for seat in (2, 3):
        lobby.request({"type": "bot", "table": table, "seat": seat})
    wait_for(lambda: catch_up(ada) > 0)  # the table is full: the deal
    sneaky = lobby.request({"type": "act", "table": table, "token": "guess", "seq": 1,
                            "cid": 1, "command": {"type": "decline_exchange"}})
    assert sneaky["code"] == protocol.BAD_TOKEN
    # Bob's token acts for Bob only; the dealer (seat 0) is first to the exchange
    ada.sync()
    assert ada.feed.view["to_act"] == [0]
    reply = bob.act({"type": "decline_exchange"}, seq=ada.feed.seq)
    assert reply["code"] == "not_your_turn"
    taken = lobby.request({"type": "sit", "table": table, "seat": 0})
    assert taken["code"] == protocol.SEAT_TAKEN
    full = lobby.request({"type": "sit", "table": table})
    assert full["code"] == protocol.TABLE_FULL
    shuffle = bob.act({"type": "shuffle", "data": {"order": []}}, seq=ada.feed.seq)
    assert shuffle["type"] == protocol.ERROR


def ada_has_moved_among_bots(server: EmbeddedServer) -> tuple[Participant, str, Person]:
    """A table with Ada at seat 0 and bots at the others, once she has made a move."""
    lobby = Participant(address(server))
    table = create(lobby)
    fill_with_bots(lobby, table)
    ada = Person(address(server), table, 0)
    wait_for(lambda: ada.step(0.01))
    return lobby, table, ada


def test_reconnect_with_the_token_and_play_on(server: EmbeddedServer) -> None:
    lobby, table, ada = ada_has_moved_among_bots(server)
    moved_at = ada.acks[-1]["seq"]
    ada.resume(address(server))  # a new connection: a new session
    snapshot = wait_for(lambda: next((m for m in ada.drain(0.01)
                                      if m["type"] == protocol.SNAPSHOT), None))
    assert snapshot["seq"] >= moved_at and snapshot["view"]["hand"]
    ada.feed.apply(snapshot)
    ada.viewed_seq = snapshot["seq"]
    play_until_over([ada])
    assert isinstance(verify(log_of(server, table)), Verified)
    stranger = lobby.request({"type": "resume", "table": table, "seat": 0, "token": "x" * 24})
    assert stranger["code"] == protocol.BAD_TOKEN


def test_a_silent_player_can_be_stood_in_for_and_comes_back(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, think=0.0, timeout=0.3) as server:
        lobby = Participant(address(server))
        table = create(lobby)
        lobby.request({"type": "bot", "table": table, "seat": 3})
        ada = Person(address(server), table, 0, "Ada")
        bob = Person(address(server), table, 1, "Bob")
        cid = Person(address(server), table, 2, "Cid")

        def ada_shown_gone() -> bool:
            bob.connection.send({"type": "ping"})
            cid.connection.send({"type": "ping"})
            info = bob.request({"type": "list"})["tables"][0]
            return not info["seats"][0]["connected"] and info["seats"][1]["connected"]

        wait_for(ada_shown_gone, step=0.05)
        refused = lobby.request({"type": "bot", "table": table, "seat": 0})
        assert refused["code"] == protocol.NOT_SEATED
        handed = bob.request({"type": "bot", "table": table, "seat": 0, "token": bob.token})
        assert handed["type"] == protocol.BOTTED and handed["standin"]
        info = bob.request({"type": "list"})["tables"][0]
        assert info["seats"][0] == {"seat": 0, "state": "bot", "name": "Ada", "connected": True,
                                    "bot": "random", "standin": True, "level": "easy"}
        # the stand-in plays seat 0 while Bob and Cid play theirs
        start = load(log_of(server, table)).last_seq
        wait_for(lambda: (bob.step(), cid.step()) and any(
            seq > start and event.seat == 0
            for seq, event in load(log_of(server, table)).events), timeout=10)
        ada.resume(address(server))
        info = ada.request({"type": "list"})["tables"][0]
        assert info["seats"][0]["state"] == "player" and info["seats"][0]["connected"]
        back = ada.request({"type": "bot", "table": table, "seat": 1, "token": ada.token})
        assert back["code"] == protocol.SEAT_TAKEN  # Bob is connected
        for participant in (lobby, ada, bob, cid):
            participant.close()


def test_unbot_and_leave(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby, 3)
    lobby.request({"type": "bot", "table": table, "seat": 0})
    assert lobby.request({"type": "unbot", "table": table, "seat": 0})["type"] == \
        protocol.UNBOTTED
    assert lobby.request({"type": "unbot", "table": table, "seat": 0})["code"] == \
        protocol.BAD_SEAT
    ada = Person(address(server), table, 1)
    left = ada.request({"type": "leave", "table": table, "token": ada.token})
    assert left == {"type": "left", "table": table, "seat": 1, "kept": False,
                    "rid": left["rid"]}
    assert ada.request({"type": "leave", "table": table, "token": ada.token})["code"] == \
        protocol.BAD_TOKEN
    seats = lobby.request({"type": "list"})["tables"][0]["seats"]
    assert [s["state"] for s in seats] == ["free", "free", "free"]
    unknown = lobby.request({"type": "bot", "table": table, "seat": 0, "kind": "genius"})
    assert unknown["code"] == protocol.UNKNOWN_BOT
    assert lobby.request({"type": "watch", "table": "nope"})["code"] == protocol.NO_TABLE


def test_a_gap_is_noticed_and_a_sync_recovers(server: EmbeddedServer) -> None:
    _, table, ada = ada_has_moved_among_bots(server)
    catch_up(ada)
    fake = {"type": "update", "table": table, "seat": 0, "from": ada.feed.seq + 5,
            "seq": ada.feed.seq + 6, "events": []}
    assert ada.feed.apply(fake) == "gap"
    ada.sync()
    assert ada.feed.seq == load(log_of(server, table)).last_seq or ada.feed.seq > 0


def test_the_lobby_pages_a_long_list(server: EmbeddedServer) -> None:
    with Connection(address(server)) as lobby:
        for _ in range(150):
            create(lobby)
        page = lobby.request({"type": "list"})
        assert page["total"] == 150 and page["next"] is not None
        rest = lobby.request({"type": "list", "offset": page["next"]})
        assert len(page["tables"]) + len(rest["tables"]) == 150 and rest["next"] is None


def test_beacon_is_heard_on_loopback(tmp_path: Path) -> None:
    from starhall.server.beacon import BeaconSender

    port = free_loopback_port()
    listener = ServerListener(port, host="127.0.0.1")
    sender = BeaconSender(47474, "test server", target="127.0.0.1", target_port=port,
                          interval=0.05)
    sender.start()
    try:
        server = hear_one_server(listener)
        assert server.address == "tcp://127.0.0.1:47474" and server.name == "test server"
    finally:
        sender.stop()
        listener.close()
    assert protocol.decode_beacon(b"STARHALL\x02\x00\x01x") is None
    assert protocol.decode_beacon(b"garbage") is None


CONTRACT_CASES = [(game_id, {}) for game_id in sorted(GAMES)]
CONTRACT_CASES.append(("hearts", {"mode": "blind_trick"}))  # cards taken face down


@pytest.mark.parametrize(("game_id", "options"), CONTRACT_CASES,
                         ids=["-".join([game_id, *map(str, options.values())])
                              for game_id, options in CONTRACT_CASES])
def test_every_game_is_served_through_the_engine_contract(server: EmbeddedServer, game_id: str,
                                                          options: dict[str, Any]) -> None:
    game = GAMES[game_id]
    lobby = Participant(address(server))
    created = lobby.request({"type": "create", "game": game_id, "players": game.min_players,
                             "options": options})
    assert created["type"] == protocol.CREATED, created
    table = created["table"]["id"]
    watcher = Participant(address(server))
    watcher.request({"type": "watch", "table": table})
    kinds = next(g["bots"] for g in lobby.request({"type": "hello"})["games"]
                 if g["id"] == game_id)
    for seat in range(game.min_players):
        reply = lobby.request({"type": "bot", "table": table, "seat": seat,
                               "kind": kinds[seat % len(kinds)]})
        assert reply["type"] == protocol.BOTTED, reply

    def far_enough() -> bool:
        """The watcher has heard of event 60 or of the game's end. What the test knows comes
        from the watcher's messages, not the log (written before it is synced, so before they
        are sent), and the watcher pings while it waits, as a client must: the server drops a
        session silent for its timeout, which a slow disk's syncs outlast."""
        watcher.drain(0.01)
        watcher.connection.heartbeat()
        return any(message["type"] == protocol.UPDATE and message["seq"] >= 60
                   or message["type"] == protocol.TABLE
                   and message["table"]["status"] == protocol.OVER
                   for message in watcher.received)

    wait_for(far_enough)
    assert isinstance(verify(log_of(server, table)), Verified)
    recorder = HiddenCards(log_of(server, table))
    assert recorder.leaks(watcher.received, None, table) == []
    secret = sorted(recorder.hidden(1, None))  # every game keeps cards from a spectator
    forged = {"type": protocol.UPDATE, "table": table, "seat": None,
              "events": [{"seq": 1, "type": "deal", "data": {"card": secret[0]}}]}
    assert recorder.leaks([forged], None, table)  # and the recorder would catch one shown
    updates = [m for m in watcher.received if m["type"] == protocol.UPDATE]
    assert updates and updates[0]["from"] == 0
    for earlier, later in zip(updates, updates[1:], strict=False):
        assert later["from"] == earlier["seq"]
    states = dict(load(log_of(server, table)).states())
    for update in updates:  # the view after the update's last event, as a spectator sees it
        assert update["view"] == game.view(states[update["seq"]], None)
    if options.get("mode") == "blind_trick":  # not trusting the engine's view: the rules
        blind = game.snapshot(states[1])["undealt"]  # the first hand's undealt cards
        scored = min((seq for seq, state in states.items() if state.hand_number == 1
                      and state.phase in ("deal", "over")), default=float("inf"))
        assert blind
        for message in watcher.received:
            if message.get("seq", 0) < scored:
                assert not any(f"'{code}'" in repr(message) for code in blind), message
    lobby.close()
    watcher.close()


def test_the_mover_hears_of_its_move_first(server: EmbeddedServer) -> None:
    """A session holding every seat (hot-seat play) gets the acting seat's update before the
    other seats' and the ack: whoever moved sees it soonest."""
    lobby = Participant(address(server))
    table = create(lobby, mode="no_exchange")
    tokens = [lobby.request({"type": "sit", "table": table, "seat": seat})["token"]
              for seat in range(4)]
    for move in range(8):
        for seat, token in enumerate(tokens):
            snapshot = lobby.request({"type": "sync", "table": table, "token": token})
            if seat in snapshot["view"]["to_act"]:
                break
        lobby.heard()
        lobby.received.clear()
        lobby.connection.send({"type": "act", "table": table, "token": token, "cid": move,
                               "seq": snapshot["seq"], "command": choose(snapshot["view"])})
        first = wait_for(lambda: lobby.drain(0.01))[0]
        assert first["type"] == protocol.UPDATE and first["seat"] == seat, first
    lobby.close()


def test_a_move_whose_sync_fails_is_never_announced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed fsync stops the table: nobody hears of the move (no update, no ack; the mover
    gets ``broken``), and the other tables play on."""
    # Every sync through durability._datasync, which this test makes fail, not the C thread.
    monkeypatch.setattr(durability, "BackgroundSync", durability.SyncWhenWaited)
    with EmbeddedServer(tmp_path, **FAST_SERVER) as server:
        sync_fails_at_one_table(server, monkeypatch)


def sync_fails_at_one_table(server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    lobby = Participant(address(server))
    doomed, healthy = create(lobby, mode="no_exchange"), create(lobby, mode="no_exchange")
    tokens = {}
    for table in (doomed, healthy):
        for seat in range(4):  # one session holds every seat: no bot moves behind our back
            tokens[table, seat] = lobby.request({"type": "sit", "table": table,
                                                 "seat": seat})["token"]

    def move(table: str) -> tuple[dict[str, Any], int]:
        for seat in range(4):
            snapshot = lobby.request({"type": "sync", "table": table,
                                      "token": tokens[table, seat]})
            if seat in snapshot["view"]["to_act"]:
                command = choose(snapshot["view"])
                return {"type": "act", "table": table, "token": tokens[table, seat],
                        "seq": snapshot["seq"], "cid": f"{table}-{seat}",
                        "command": command}, snapshot["seq"]
        raise AssertionError("nobody is to act")

    assert server.service is not None
    log = server.service.tables[doomed].table.log
    assert log is not None
    doomed_file = log.fileno()
    real_sync = durability._datasync

    def failing_sync(fd: int) -> None:
        if fd == doomed_file:
            raise OSError(errno.EIO, "the disk failed (simulated)")
        real_sync(fd)

    monkeypatch.setattr(durability, "_datasync", failing_sync)
    request, _ = move(doomed)
    lobby.heard()
    lobby.received.clear()
    reply = lobby.request(request)
    assert reply["type"] == protocol.ERROR and reply["code"] == protocol.BROKEN, reply
    assert reply["cid"] == request["cid"] and reply["table"] == doomed
    lobby.heard()
    heard = [m for m in lobby.received if m.get("table") == doomed]
    assert all(m["type"] not in (protocol.UPDATE, protocol.ACK) for m in heard), heard
    statuses = {t["id"]: t for t in lobby.request({"type": "list"})["tables"]}
    assert statuses[doomed]["status"] == "broken"
    assert lobby.request(request)["code"] == protocol.BROKEN  # it takes nothing more
    assert lobby.request(move(healthy)[0])["type"] == protocol.ACK
    assert statuses[healthy]["status"] == "playing"
    lobby.close()


def test_two_windows_of_one_user_get_distinct_names(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    first = Participant(address(server), "Sam")
    second = Participant(address(server), "Sam")
    for who in (first, second):
        assert who.request({"type": "sit", "table": table, "name": "Sam"})["type"] == (
            protocol.SEATED)
    listed = lobby.request({"type": "list"})["tables"][0]
    names = [seat["name"] for seat in listed["seats"] if seat["state"] == "player"]
    assert sorted(names) == ["Sam", "Sam (2)"]
    assert distinct_name("x" * protocol.MAX_NAME_CHARS, {"x" * protocol.MAX_NAME_CHARS}) == (
        "x" * (protocol.MAX_NAME_CHARS - 4) + " (2)")

