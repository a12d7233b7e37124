"""Lost replies and restarts, over real ZeroMQ sockets on 127.0.0.1: command ids kept in the
log, keyed ``sit`` and ``create``, ``list`` by cursor, ``pong`` seqs and the client's resync,
a ``rid`` that breaks the rule, integers and nil where fields are read, and the beacon's port
and source address."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path
from typing import Any

import pytest

from starhall.client.net.link import ServerLink
from starhall.client.net.session import Batch, TableSession
from starhall.server.beacon import BeaconSender, source_address
from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.server.serve import beacon_target
from starhall.shared import protocol
from starhall.shared.logfile import scan
from starhall.shared.replay import load
from tests.connection import Connection, ServerListener, TableFeed
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    Participant,
    Person,
    address,
    choose,
    fill_with_bots,
    hear_one_server,
    log_of,
    wait_for,
)

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it


def restart(server: EmbeddedServer, **settings: Any) -> EmbeddedServer:
    """The server stopped and started again on the same data (and the same endpoint, which
    may name a port); its replies not yet read are lost with it."""
    server.stop()
    again = EmbeddedServer(server.config.data, bind=server.config.bind,
                           **{**FAST_SERVER, **settings})
    again.start()
    return again


def create(lobby: Participant | Connection, game: str = "hearts", players: int = 4,
           **fields: Any) -> str:
    options = {**FAST_HEARTS, "mode": "no_exchange"} if game == "hearts" else {}
    reply = lobby.request({"type": "create", "game": game, "players": players,
                           "options": options, **fields})
    assert reply["type"] == protocol.CREATED, reply
    table: str = reply["table"]["id"]
    return table



def seat_states(lobby: Participant | Connection, table: str) -> list[str]:
    (info,) = [t for t in lobby.request({"type": "list"})["tables"] if t["id"] == table]
    return [seat["state"] for seat in info["seats"]]


# --- command ids in the log -------------------------------------------------------------

def test_a_move_whose_ack_was_lost_is_acknowledged_as_a_duplicate_after_a_restart(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    fill_with_bots(lobby, table)
    ada = Person(address(server), table, 0)
    wait_for(ada.refresh)
    command = choose(ada.feed.view)
    seen = ada.feed.seq
    ada.connection.send({"type": "act", "table": table, "token": ada.token, "seq": seen,
                         "cid": "lost-reply", "command": command})
    # The move is made and acknowledged, but the client never reads the ack: it is lost.
    wait_for(lambda: any(m["type"] == protocol.ACK for m in ada.drain(0.01)))
    lobby.close()
    ada.close()

    server = restart(server)
    try:
        with Connection(address(server)) as again:
            resent = again.request({"type": "act", "table": table, "token": ada.token,
                                    "seq": seen, "cid": "lost-reply", "command": command})
            assert resent["type"] == protocol.ACK and resent["duplicate"], resent
            recording = load(log_of(server, table))
            made = [seq for seq, cid in recording.cids.items() if cid == "lost-reply"]
            assert made == [resent["seq"]]  # the ack names the move's (last) event
            assert recording.events[resent["seq"] - 1][1].seat == 0
            assert [seq for seq, event in recording.events if event.seat == 0] == made
            # a new command id on the old view is refused as stale, as always
            stale = again.request({"type": "act", "table": table, "token": ada.token,
                                   "seq": seen, "cid": "new", "command": command})
            assert stale["code"] == protocol.STALE
    finally:
        server.stop()
    # in the file: the event record carries the cid; the bots' events carry none
    bodies = [body for _, body in scan(log_of(server, table)).records[1:]
              if body["kind"] == "event"]
    assert [body["cid"] for body in bodies if "cid" in body] == ["lost-reply"]
    assert all(body["seat"] == 0 for body in bodies if "cid" in body)


def test_a_new_person_in_a_seat_is_not_answered_with_the_previous_persons_commands(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    fill_with_bots(lobby, table)
    ada = Person(address(server), table, 0)
    wait_for(ada.refresh)
    assert ada.act(choose(ada.feed.view), cid=1)["type"] == protocol.ACK
    left = ada.request({"type": "leave", "table": table, "token": ada.token, "give_up": True})
    assert left["type"] == protocol.LEFT and not left["kept"]
    bob = Person(address(server), table, 0, "Bob")
    for person in (lobby, ada, bob):
        person.close()

    server = restart(server)
    try:
        bob.resume(address(server))
        wait_for(bob.refresh)
        command = choose(bob.feed.view)
        assert command is not None
        reply = bob.act(command, cid=1)  # Ada's cid 1 was hers, not Bob's
        assert reply["type"] == protocol.ACK and not reply["duplicate"], reply
        again = bob.act(command, seq=reply["seq"] - 1, cid=1)
        assert again["duplicate"] and again["seq"] == reply["seq"]
        bob.close()
    finally:
        server.stop()


# --- keyed sit and create --------------------------------------------------------------------

def test_a_resent_sit_gets_the_same_seat_and_token_even_after_a_restart(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    key = protocol.new_key()
    with Connection(address(server)) as first:
        seated = first.request({"type": "sit", "table": table, "name": "Ada", "key": key})
        assert seated["type"] == protocol.SEATED and seated["seat"] == 0
        again = first.request({"type": "sit", "table": table, "name": "Ada", "key": key})
        assert (again["seat"], again["token"]) == (0, seated["token"])
    assert seat_states(lobby, table) == ["player", "free", "free", "free"]
    other = lobby.request({"type": "sit", "table": table, "key": protocol.new_key()})
    assert other["seat"] == 1 and other["token"] != seated["token"]
    lobby.close()

    server = restart(server)
    try:
        with Connection(address(server)) as later:
            resent = later.request({"type": "sit", "table": table, "name": "Ada", "key": key})
            assert resent["type"] == protocol.SEATED, resent
            assert (resent["seat"], resent["token"]) == (0, seated["token"])
            snapshot = wait_for(lambda: later.receive(0.05))
            assert snapshot["type"] == protocol.SNAPSHOT and snapshot["seat"] == 0
            assert snapshot["rid"] == resent["rid"]
            assert seat_states(later, table) == ["player", "player", "free", "free"]
            info = later.request({"type": "list"})["tables"][0]
            assert info["seats"][0]["connected"]  # the resend binds the seat, as resume
            back = later.request({"type": "resume", "table": table, "seat": 0,
                                  "token": seated["token"]})
            assert back["type"] == protocol.SEATED
            for bad in ("short", 5, "x" * 65):
                refused = later.request({"type": "sit", "table": table, "key": bad})
                assert (refused["code"], refused["field"]) == (protocol.BAD_FIELD, "key")
    finally:
        server.stop()


def test_a_key_that_takes_a_seat_again_after_a_leave_gets_a_new_token(
        server: EmbeddedServer) -> None:
    """A token made void by a leave stays void: the same key taking the seat again gets a
    new token (a resend of that sit gets it too, even after a restart)."""
    key = protocol.new_key()
    with Connection(address(server)) as client:
        table = create(client)
        first = client.request({"type": "sit", "table": table, "key": key})
        assert first["type"] == protocol.SEATED and first["seat"] == 0
        left = client.request({"type": "leave", "table": table, "token": first["token"]})
        assert left["type"] == protocol.LEFT and not left["kept"]
        again = client.request({"type": "sit", "table": table, "key": key})
        assert again["type"] == protocol.SEATED and again["seat"] == first["seat"] == 0
        assert again["token"] != first["token"]
        void = client.request({"type": "resume", "table": table, "seat": 0,
                               "token": first["token"]})
        assert void["code"] == protocol.BAD_TOKEN
        resent = client.request({"type": "sit", "table": table, "key": key})
        assert (resent["seat"], resent["token"]) == (0, again["token"])
    server = restart(server)
    try:
        with Connection(address(server)) as client:
            resent = client.request({"type": "sit", "table": table, "key": key})
            assert (resent["seat"], resent["token"]) == (0, again["token"])
    finally:
        server.stop()


def test_a_resent_create_gets_the_same_table_even_after_a_restart(
        server: EmbeddedServer) -> None:
    key = protocol.new_key()
    with Connection(address(server)) as lobby:
        table = create(lobby, key=key)
        assert create(lobby, key=key) == table
        assert create(lobby) != table  # no key: a new table each time
    header = scan(log_of(server, table)).records[0][1]
    assert header["create_key_sha256"] == hashlib.sha256(key.encode()).hexdigest()

    server = restart(server)
    try:
        with Connection(address(server)) as lobby:
            assert create(lobby, key=key) == table
            assert lobby.request({"type": "list"})["total"] == 2
    finally:
        server.stop()


# --- list by cursor -----------------------------------------------------------------------

def test_list_pages_by_cursor_list_each_table_once_while_tables_change(
        server: EmbeddedServer) -> None:
    with Connection(address(server)) as lobby:
        made = [create(lobby, "star_patience", 1) for _ in range(50)]
        while lobby.request({"type": "list"})["cursor"] is None:
            made += [create(lobby, "star_patience", 1) for _ in range(50)]
        first = lobby.request({"type": "list"})
        assert first["total"] == len(made) and first["next"] == len(first["tables"])
        assert first["cursor"] == first["tables"][-1]["id"]
        on_first = [t["id"] for t in first["tables"]]
        # Between the pages a table of the first page starts (with waiting tables listed
        # first, it would have moved to the second page: listed twice) and one is added.
        sitter = lobby.request({"type": "sit", "table": on_first[0], "name": "Ada"})
        assert sitter["type"] == protocol.SEATED
        added = create(lobby, "star_patience", 1)
        seen = list(on_first)
        cursor = first["cursor"]
        while cursor is not None:
            page = lobby.request({"type": "list", "cursor": cursor})
            seen += [t["id"] for t in page["tables"]]
            cursor = page["cursor"]
        assert sorted(seen) == sorted([*made, added]) and len(set(seen)) == len(seen)
        assert seen == sorted(seen, key=lambda t: (len(t), t))  # the order of the ids

        playing = lobby.request({"type": "list", "status": ["playing", "over"]})
        assert [t["id"] for t in playing["tables"]] == [on_first[0]]
        assert playing["total"] == 1 and playing["cursor"] is None
        by_offset = lobby.request({"type": "list", "offset": first["next"]})
        assert by_offset["tables"][0]["id"] == seen[len(on_first)]
        for bad in ({"cursor": first["cursor"], "offset": 1}, {"status": ["lost"]},
                    {"status": "waiting"}, {"cursor": 7}):
            refused = lobby.request({"type": "list", **bad})
            assert refused["code"] == protocol.BAD_FIELD, refused


def test_a_page_holds_at_most_100_tables_and_a_made_up_cursor_is_refused(
        server: EmbeddedServer) -> None:
    with Connection(address(server)) as lobby:
        made = [create(lobby, "star_patience", 1) for _ in range(150)]
        first = lobby.request({"type": "list"})
        assert [t["id"] for t in first["tables"]] == made[:100]
        assert (first["cursor"], first["next"], first["total"]) == (made[99], 100, 150)
        rest = lobby.request({"type": "list", "cursor": first["cursor"]})
        assert [t["id"] for t in rest["tables"]] == made[100:]
        assert (rest["cursor"], rest["next"]) == (None, None)
        for made_up in ("zzzz", "99999", "0151", " 0001"):
            refused = lobby.request({"type": "list", "cursor": made_up})
            assert (refused["code"], refused["field"]) == (protocol.BAD_FIELD, "cursor")
            assert "first page" in refused["reason"]


def test_with_status_a_page_lists_the_tables_that_have_it_when_it_is_made(
        server: EmbeddedServer) -> None:
    """What paging by cursor promises with ``status``: each table after the cursor that has
    one of the statuses when its page is made, none twice, none that kept it skipped."""
    with Connection(address(server)) as lobby:
        made = [create(lobby, "star_patience", 1) for _ in range(120)]
        first = lobby.request({"type": "list", "status": ["waiting"]})
        assert first["cursor"] == made[99]
        # Between the pages a table of the next page starts and a table is made.
        started = made[110]
        assert lobby.request({"type": "sit", "table": started})["type"] == protocol.SEATED
        added = create(lobby, "star_patience", 1)
        rest = lobby.request({"type": "list", "status": ["waiting"], "cursor": first["cursor"]})
        assert [t["id"] for t in rest["tables"]] == \
            [*(t for t in made[100:] if t != started), added]
        # (a game of The Star may be lost at its deal: over at once)
        both = lobby.request({"type": "list", "status": ["waiting", "playing", "over"],
                              "cursor": first["cursor"]})
        assert [t["id"] for t in both["tables"]] == [*made[100:], added]


# --- pong seqs: a lost last update ----------------------------------------------------------

def pump(link: ServerLink, session: TableSession,
         keep: list[dict[str, Any]] | None = None) -> list[Batch]:
    """Hand what arrived to the session (or, with ``keep``, hold it back there instead);
    the batches the session made of it."""
    return [batch for batch in map(session.handle, read(link, keep)) if batch is not None]


def read(link: ServerLink, keep: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """What arrived; with ``keep``, kept there and given to nobody."""
    messages = link.poll()
    if keep is not None:
        keep.extend(messages)
        return []
    return messages


def answered(link: ServerLink, session: TableSession, rid: int) -> bool:
    """Whether the reply to ``rid`` has come (all that came is handed to the session)."""
    messages = link.poll()
    for message in messages:
        session.handle(message)
    return any(message.get("rid") == rid for message in messages)


def sent(link: ServerLink, kind: str) -> int:
    return sum(1 for m in link.messages()
               if m["direction"] == "sent" and m["message"]["type"] == kind)


def test_a_lost_last_update_is_noticed_at_the_next_heartbeat(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    fill_with_bots(lobby, table)
    link = ServerLink(address(server), "Ada")
    session = TableSession(link, table)
    wait_for(lambda: pump(link, session) or link.state == "connected")
    link.send({"type": "sit", "table": table, "seat": 0})
    held: list[dict[str, Any]] = []

    def settled() -> int | None:
        """The table's seq once it waits for seat 0 alone and its last update has come."""
        pump(link, session, held)
        info = lobby.request({"type": "list"})["tables"][0]
        last = max((m["seq"] for m in held if m["type"] == protocol.UPDATE), default=-1)
        return info["seq"] if info["to_act"] == [0] and last == info["seq"] else None

    final = wait_for(settled)
    # Between the server and the session, the last update is lost.
    for message in held:
        if not (message["type"] == protocol.UPDATE and message["seq"] == final):
            session.handle(message)
    assert session.event_seq < final and not session.syncing
    syncs = sent(link, protocol.SYNC)
    link.send({"type": protocol.PING})  # the next heartbeat
    batch = wait_for(lambda: next(iter(pump(link, session)), None))
    assert sent(link, protocol.SYNC) == syncs + 1
    assert batch.seq == final and batch.fresh and 0 in batch.view["to_act"]
    # the pong of a heartbeat that finds the session up to date asks for nothing
    rid = link.send({"type": protocol.PING})
    wait_for(lambda: answered(link, session, rid))
    assert sent(link, protocol.SYNC) == syncs + 1
    link.close()
    lobby.close()


def test_pong_carries_the_seq_of_each_table_followed(server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    watched, unfollowed = create(lobby), create(lobby)
    fill_with_bots(lobby, watched, range(4))
    with Connection(address(server)) as spectator:
        assert spectator.request({"type": "ping"})["seqs"] == {}
        assert spectator.request({"type": "watch", "table": watched})["type"] == "watching"
        feed = TableFeed(watched, None)
        feed.apply(wait_for(lambda: spectator.receive(0.05)))
        pong = spectator.request({"type": "ping"})
        assert set(pong["seqs"]) == {watched} and pong["instance"]
        assert pong["seqs"][watched] >= feed.seq
        assert not feed.behind({"seqs": {watched: feed.seq}})
        assert feed.behind({"seqs": {watched: feed.seq + 1}})
    ada = Person(address(server), unfollowed, 0)
    assert set(ada.request({"type": "ping"})["seqs"]) == {unfollowed}
    ada.close()
    lobby.close()


def test_a_quick_restart_is_noticed_and_the_seat_taken_up_again(tmp_path: Path) -> None:
    """The server restarts between two heartbeats, so the link never times out: the pong
    names another run, the link says hello again and rejoins, and the session resumes."""
    port = free_loopback_port()
    server = EmbeddedServer(tmp_path, bind=f"tcp://127.0.0.1:{port}", **FAST_SERVER)
    server.start()
    try:
        lobby = Participant(address(server))
        table, other = create(lobby), create(lobby)
        fill_with_bots(lobby, table)
        lobby.close()
        link = ServerLink(address(server), "Ada")
        session = TableSession(link, table)
        link.send({"type": "sit", "table": table, "seat": 0})
        wait_for(lambda: pump(link, session) and session.token is not None)
        token = session.token
        server = restart(server)
        # a sit sent while the server was away: its key gets it one seat, however often sent
        link.send({"type": "sit", "table": other})

        def rejoined() -> bool:
            link.send({"type": protocol.PING})
            pump(link, session)
            return session.model is not None and session.model.connection == "connected" \
                and link.state == "connected" and sent(link, protocol.RESUME) > 0

        wait_for(rejoined, step=0.05)
        assert session.token == token
        with Connection(address(server)) as look:
            wait_for(lambda: look.request({"type": "list"})["tables"][0]["seats"][0]
                     ["connected"])
            assert seat_states(look, other) == ["player", "free", "free", "free"]
        tokens = {m["message"]["token"] for m in link.messages() if m["direction"] ==
                  "received" and m["message"]["type"] == protocol.SEATED
                  and m["message"]["table"] == other}
        assert len(tokens) == 1
        assert all(m["message"]["key"] == "<key>" for m in link.messages()
                   if m["message"]["type"] == protocol.SIT)  # kept out of bug reports
    finally:
        server.stop()


# --- rid, beacon ------------------------------------------------------------------------------

def reply_to(connection: Connection, message: dict[str, Any]) -> dict[str, Any]:
    """The reply to ``message`` sent as it is (``request`` would give it an ``rid``)."""
    connection.send(message)
    reply: dict[str, Any] = wait_for(lambda: connection.receive(0.05))
    return reply


def test_a_rid_that_breaks_the_rule_is_refused(server: EmbeddedServer) -> None:
    with Connection(address(server)) as connection:
        for rid in (1.5, "r" * 65, [1], {"a": 1}, True, 2**63, 2**64 - 1):
            reply = reply_to(connection, {"type": "ping", "rid": rid})
            assert reply["type"] == protocol.ERROR and reply["code"] == protocol.BAD_FIELD
            assert reply["field"] == "rid" and "rid" not in reply
        for rid in (7, "", "r" * 64, -3, 2**63 - 1, -(2**63)):
            reply = reply_to(connection, {"type": "ping", "rid": rid})
            assert reply["type"] == protocol.PONG and reply["rid"] == rid
        # nil, as for every optional field, is the same as no rid: the reply carries none
        reply = reply_to(connection, {"type": "ping", "rid": None})
        assert reply["type"] == protocol.PONG and "rid" not in reply


def test_integers_beyond_signed_64_bits_are_refused(server: EmbeddedServer) -> None:
    """msgpack carries unsigned integers up to 2**64 - 1; a message holds signed 64-bit
    ones only, so each place that reads an integer refuses a larger one."""
    too_big = 2**64 - 1
    with Connection(address(server)) as client:
        # The Star for one, dealt so that the game goes on (some deals are lost at once)
        table = client.request({"type": "create", "game": "star_patience", "players": 1,
                                "options": {"deal": 1}})["table"]["id"]
        token = client.request({"type": "sit", "table": table})["token"]
        assert client.request({"type": "sync", "table": table, "token": token})["seq"] == 1
        act = {"type": "act", "table": table, "token": token, "seq": 1, "cid": 1,
               "command": {"type": "give_up"}}
        for field, value in (("cid", 2**63), ("cid", too_big), ("seq", too_big)):
            refused = client.request({**act, field: value})
            assert (refused["code"], refused["field"]) == (protocol.BAD_FIELD, field), refused
        for field, request in (("protocol", {"type": "hello", "protocol": too_big}),
                               ("offset", {"type": "list", "offset": too_big}),
                               ("seat", {"type": "sit", "table": table, "seat": too_big})):
            refused = client.request(request)
            assert (refused["code"], refused["field"]) == (protocol.BAD_FIELD, field), refused
        refused = client.request({"type": "create", "game": "hearts", "players": 4,
                                  "options": {"target": 2**63}})
        assert refused["code"] == protocol.BAD_OPTIONS
        assert "at most 9223372036854775807" in refused["reason"]
        largest = client.request({"type": "create", "game": "hearts", "players": 4,
                                  "options": {"target": 2**63 - 1}})
        assert largest["table"]["options"]["target"] == 2**63 - 1
        assert client.request({**act, "cid": -(2**63)})["type"] == protocol.ACK


def test_hello_takes_the_protocol_version_as_an_integer(server: EmbeddedServer) -> None:
    with Connection(address(server)) as client:
        for version in (1.0, True, "1"):
            refused = client.request({"type": "hello", "protocol": version})
            assert (refused["code"], refused["field"]) == (protocol.BAD_FIELD, "protocol")
        assert client.request({"type": "hello", "protocol": 2})["code"] == \
            protocol.BAD_PROTOCOL
        for welcomed in ({"protocol": 1}, {"protocol": None}, {}):
            assert client.request({"type": "hello", **welcomed})["type"] == protocol.WELCOME


def test_an_optional_field_sent_as_nil_is_left_out(server: EmbeddedServer) -> None:
    with Connection(address(server)) as client:
        table = create(client, "hearts", 4)
        botted = client.request({"type": "bot", "table": table, "seat": 1, "kind": None})
        assert (botted["type"], botted["kind"]) == (protocol.BOTTED, "random")
        seated = client.request({"type": "sit", "table": table, "seat": None, "name": None,
                                 "key": None})
        assert (seated["type"], seated["seat"]) == (protocol.SEATED, 0)
        left = client.request({"type": "leave", "table": table, "token": seated["token"],
                               "give_up": None})
        assert (left["type"], left["kept"]) == (protocol.LEFT, False)
        listed = client.request({"type": "list", "cursor": None, "offset": None,
                                 "status": None})
        assert listed["total"] == 1
        refused = client.request({"type": "leave", "table": table, "token": "x",
                                  "give_up": 1})
        assert (refused["code"], refused["field"]) == (protocol.BAD_FIELD, "give_up")


def test_the_beacon_target_takes_a_port() -> None:
    assert beacon_target("") == ("255.255.255.255", protocol.BEACON_PORT)
    assert beacon_target("47480") == ("255.255.255.255", 47480)
    assert beacon_target("127.0.0.1:5000") == ("127.0.0.1", 5000)
    assert beacon_target("127.0.0.1") == ("127.0.0.1", protocol.BEACON_PORT)
    assert beacon_target("off") is None
    for bad in ("70000", "127.0.0.1:x", "0"):
        with pytest.raises(ValueError, match="--beacon"):
            beacon_target(bad)
    assert source_address("tcp://0.0.0.0:47474") is None
    assert source_address("tcp://[::1]:47474") is None
    assert source_address("tcp://127.0.0.2:47474") == "127.0.0.2"


def test_a_server_bound_to_one_address_is_announced_at_that_address(tmp_path: Path) -> None:
    try:
        with socket.socket() as probe:
            probe.bind(("127.0.0.2", 0))  # the loopback's other addresses (Linux)
    except OSError:
        pytest.skip("no 127.0.0.2 on this machine")
    port = free_loopback_port()
    listener = ServerListener(port, host="127.0.0.1")
    with EmbeddedServer(tmp_path, bind="tcp://127.0.0.2:*", **FAST_SERVER) as server:
        assert server.service is not None
        sender = BeaconSender(server.service.port, "bound", target="127.0.0.1",
                              target_port=port, interval=0.05,
                              source=source_address(address(server)))
        sender.start()
        try:
            heard_server = hear_one_server(listener)
            assert heard_server.address == address(server)  # tcp://127.0.0.2:PORT
            with Connection(heard_server.address) as connection:
                assert connection.request({"type": "ping"})["type"] == protocol.PONG
        finally:
            sender.stop()
            listener.close()
