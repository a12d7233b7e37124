"""Tables kept in NATS JetStream, on a real nats-server: a table restored from the stream by
another server plays on with its people's tokens; appends are fenced by the stream (a writer
behind it is refused and nothing changes); a resend of a commit whose acknowledgement was
lost is known by its message id and not stored twice."""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from starhall.server import jetstream
from starhall.server.embed import EmbeddedServer
from starhall.server.jetstream import LET_GO_SECONDS, JetStreamStore, TableLost, first_choice
from starhall.shared import protocol
from starhall.shared.bugreport import read_bug_report
from starhall.shared.logfile import make_header, read_records
from starhall.shared.replay import Verified, load, verify
from starhall.shared.table import seating_record
from tests.nats_helpers import NatsNode, jetstream_settings
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    Participant,
    Person,
    choose,
    fill_with_bots,
    log_of,
    play_until_over,
    wait_for,
)


def settings(node: NatsNode, request: pytest.FixtureRequest) -> dict[str, object]:
    return {**FAST_SERVER, **jetstream_settings(node, request.node.name)}


def test_a_table_is_restored_from_the_stream_and_its_person_plays_on(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    config = settings(nats_node, request)
    with EmbeddedServer(tmp_path / "a", **config) as first:
        assert first.address is not None
        lobby = Participant(first.address)
        reply = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": FAST_HEARTS})
        table = reply["table"]["id"]
        ada = Person(first.address, table, 0, "Ada")
        fill_with_bots(lobby, table)
        wait_for(lambda: ada.step() or len(ada.acks) >= 3, timeout=30)
        before = load(log_of(first, table)).last_seq
        lobby.close()
    with EmbeddedServer(tmp_path / "b", **config) as second:  # another node, no files shared
        assert second.address is not None
        listed = Participant(second.address).request({"type": "list"})["tables"]
        assert [(t["id"], t["seq"]) for t in listed] == [(table, before)]
        ada.resume(second.address)  # the same token, kept in the seating bucket
        play_until_over([ada])
        log = log_of(second, table)
        assert isinstance(verify(log), Verified)
        events = dict(load(log).events)
        for ack in ada.acks:  # every acknowledged move once, made by its seat
            assert events[ack["seq"]].seat == 0
        ada.close()


def test_a_writer_behind_the_stream_is_refused_and_nothing_changes(
        nats_node: NatsNode, request: pytest.FixtureRequest) -> None:
    address = f"nats://{nats_node.url}"
    stream = jetstream_settings(nats_node, request.node.name)["stream"]
    assert isinstance(stream, str)
    owner = JetStreamStore(address, stream=stream, node="owner")
    stale = JetStreamStore(address, stream=stream, node="stale")
    try:
        log = owner.create_log("0001", make_header("hearts", 1, 4, {}))
        _, behind = stale.reopen("0001")  # reads the table, as a node taking it over would
        log.append({"kind": "seating", "seq": 0, "seat": 0, "state": "bot"})
        assert owner.commit([log]) == []
        written = owner.read("0001")
        behind.append({"kind": "seating", "seq": 0, "seat": 1, "state": "bot"})
        behind.append({"kind": "seating", "seq": 0, "seat": 2, "state": "bot"})  # a batch
        ((failed, error),) = stale.commit([behind])
        assert failed is behind and isinstance(error, TableLost)
        assert stale.rollback(behind) and behind.pending == []
        assert owner.read("0001") == written  # the stream holds nothing of it
        records, _ = read_records(written, "0001")
        assert [body["kind"] for _, body in records] == ["header", "seating"]
    finally:
        owner.close()
        stale.close()


def test_one_commit_of_several_tables_refuses_the_one_behind_alone(
        nats_node: NatsNode, request: pytest.FixtureRequest) -> None:
    """A commit publishes every table's records side by side (one task of the commits' loop):
    each table is fenced, stored and told apart from the others."""
    address = f"nats://{nats_node.url}"
    stream = jetstream_settings(nats_node, request.node.name)["stream"]
    assert isinstance(stream, str)
    owner = JetStreamStore(address, stream=stream, node="owner")
    stale = JetStreamStore(address, stream=stream, node="stale")
    try:
        header = make_header("hearts", 1, 4, {})
        first = owner.create_log("0001", header)
        _, behind = stale.reopen("0001")
        first.append({"kind": "seating", "seq": 0, "seat": 0, "state": "bot"})
        assert owner.commit([first]) == []
        written = owner.read("0001")
        single, batch = stale.create_log("0002", header), stale.create_log("0003", header)
        seating = {"kind": "seating", "seq": 0, "seat": 1, "state": "bot"}
        for log in (behind, single, batch):
            log.append(seating)
        batch.append({**seating, "seat": 2})  # several records: an atomic batch
        ((failed, error),) = stale.commit([behind, single, batch])
        assert failed is behind and isinstance(error, TableLost)
        assert owner.read("0001") == written
        for log, count in ((single, 2), (batch, 3)):
            stored = owner.read(log.table_id)
            assert log.pending == [] and log.durable_length == len(stored)
            records, _ = read_records(stored, log.table_id)
            assert len(records) == count
    finally:
        owner.close()
        stale.close()


@pytest.fixture
def store(nats_node: NatsNode, request: pytest.FixtureRequest) -> Iterator[JetStreamStore]:
    """A store on the test's own stream, closed after it."""
    stream = jetstream_settings(nats_node, request.node.name)["stream"]
    assert isinstance(stream, str)
    opened = JetStreamStore(f"nats://{nats_node.url}", stream=stream)
    yield opened
    opened.close()


def test_a_commit_is_sent_and_acknowledged_by_the_thread_that_waits_for_it(
        store: JetStreamStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commits' connection is run by the thread that waits for a commit (the server's
    loop), not handed to the bridge's thread and back: nothing of a commit is sent before
    that thread runs it, and its publish and acknowledgement are that thread's own work."""
    log = store.create_log("0001", make_header("hearts", 1, 4, {}))
    sent_by: list[int] = []
    publish = store.commits.js.publish

    async def publish_noted(*args: Any, **kwargs: Any) -> Any:
        sent_by.append(threading.get_ident())
        ack = await publish(*args, **kwargs)
        sent_by.append(threading.get_ident())  # its acknowledgement, read
        return ack

    monkeypatch.setattr(store.commits.js, "publish", publish_noted)
    log.append({"kind": "seating", "seq": 0, "seat": 0, "state": "bot"})
    pending = store.start_commit([log])
    assert sent_by == [] and len(store.read("0001")) == log.durable_length  # nothing yet
    assert pending.wait(30) and pending.failures() == []
    assert sent_by == [threading.get_ident()] * 2
    assert log.pending == [] and log.durable_length == len(store.read("0001"))


def test_a_resend_whose_first_send_landed_is_stored_once(store: JetStreamStore) -> None:
    log = store.create_log("0001", make_header("hearts", 1, 4, {}))
    length, last_seq = log.durable_length, log.last_seq
    seating = {"kind": "seating", "seq": 0, "seat": 0, "state": "bot"}
    log.append(seating)
    log.append({**seating, "seat": 1})
    assert store.commit([log]) == []
    once = store.read("0001")
    # The acknowledgement was lost: the node sends the same records again.
    log.durable_length = log.written_length = length
    log.last_seq = last_seq
    log.append(seating)
    log.append({**seating, "seat": 1})
    assert store.commit([log]) == []
    assert store.read("0001") == once and log.durable_length == len(once)
    records, _ = read_records(once, "0001")
    assert len(records) == 3


def test_a_commit_whose_connection_is_lost_before_its_ack_is_sent_again_and_stored_once(
        store: JetStreamStore) -> None:
    """Lost while its publish awaits the acknowledgement (nats-py then reconnects, to another
    server of the cluster if it must), a commit is sent again and stored once, its message
    id known; nothing is left waiting or marked."""
    log = store.create_log("0001", make_header("hearts", 1, 4, {}))
    log.append({"kind": "seating", "seq": 0, "seat": 0, "state": "bot"})
    pending = store.start_commit([log])
    assert pending.sent()  # on the wire, its acknowledgement awaited
    link = store.commits
    assert len(link.sending) == 1
    store.inline.run(link.lost(), 5)
    assert pending.wait(30) and pending.failures() == []
    records, _ = read_records(store.read("0001"), "0001")
    assert len(records) == 2 and log.durable_length == len(store.read("0001"))
    assert link.sending == set() and link.cut_off == set()


def test_a_paused_owner_never_writes_a_table_it_gave_up(
        nats_node: NatsNode, request: pytest.FixtureRequest) -> None:
    """The owner's NATS side is held (as a SIGSTOP would), another node takes one of its
    tables over, and once it goes on its lease is renewed and it gives the table up, as the
    master's housekeeping does (``take_lost``, ``release``). A move appended before it did
    (the server decides, gives up, then commits) is refused, not stored: the taker wrote
    nothing yet, so the stream's fence alone would have let it in (issue #32). The tables it
    still holds it writes on."""
    address = f"nats://{nats_node.url}"
    stream = jetstream_settings(nats_node, request.node.name)["stream"]
    assert isinstance(stream, str)
    owner = JetStreamStore(address, stream=stream, node="owner", lease_seconds=1.0)
    taker = JetStreamStore(address, stream=stream, node="taker", lease_seconds=1.0)
    paused = threading.Event()
    try:
        header = make_header("hearts", 1, 4, {})
        moved, kept = owner.create_log("0001", header), owner.create_log("0002", header)
        owner.bridge.loop.call_soon_threadsafe(paused.wait)  # no renewal, no news
        try:
            wait_for(lambda: taker.claim("0001"), timeout=30)  # the owner's lease lapsed
        finally:
            paused.set()
        given_up: set[str] = set()
        wait_for(lambda: given_up.update(owner.take_lost()) or "0001" in given_up, timeout=30)
        owner.release("0001")
        wait_for(lambda: not owner.lapsed("0002"), timeout=30)  # its lease renewed
        written = taker.read("0001")
        seating = {"kind": "seating", "seq": 0, "seat": 0, "state": "bot"}
        moved.append(seating)
        ((failed, error),) = owner.commit([moved])
        assert failed is moved and isinstance(error, TableLost), error
        assert owner.rollback(moved)
        assert taker.read("0001") == written  # the stream holds nothing of it
        kept.append(seating)
        assert owner.commit([kept]) == []
    finally:
        paused.set()
        owner.close()
        taker.close()


def ada_and_bots(address: str) -> tuple[Participant, str, Person]:
    """A Hearts table made through a lobby connection, Ada in seat 0 and bots in the others,
    once Ada has two moves acknowledged."""
    lobby = Participant(address)
    table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                           "options": FAST_HEARTS})["table"]["id"]
    ada = Person(address, table, 0, "Ada")
    fill_with_bots(lobby, table)

    def two_acks() -> bool:
        ada.step()
        return len(ada.acks) >= 2

    wait_for(two_acks, timeout=30)
    return lobby, table, ada


def test_a_table_given_up_is_refused_for_a_while_then_forgotten(
        store: JetStreamStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A node refuses to write a table it gave up for longer than a commit begun before can
    still try, then forgets it: what it remembers does not grow with every table it ever
    gave up."""
    clock = [1000.0]
    monkeypatch.setattr(jetstream, "monotonic", lambda: clock[0])
    store.release("0001")
    store.release("0002")
    clock[0] += LET_GO_SECONDS / 2
    store.release("0003")
    assert all(store.given_up(t) for t in ("0001", "0002", "0003"))
    clock[0] += LET_GO_SECONDS / 2 + 1
    store.release("0004")
    assert list(store.let_go) == ["0003", "0004"]
    assert not store.given_up("0001") and store.given_up("0003")


def test_moves_of_a_server_on_jetstream_are_answered_after_the_ack(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Every acknowledged move is in the stream when its ack arrives."""
    with EmbeddedServer(tmp_path, **settings(nats_node, request)) as server:
        assert server.address is not None and server.service is not None
        lobby, table, ada = ada_and_bots(server.address)
        for ack in ada.acks:
            assert ack["type"] == protocol.ACK
            assert ack["seq"] in dict(load(log_of(server, table)).events)
        lobby.close()
        ada.close()


def test_a_commit_that_waits_for_jetstream_never_stops_the_server_answering(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """NATS paused (SIGSTOP) under a move: its commit waits, and meanwhile the server answers
    the mover's ping sent after the move, and the lobby, within the session timeout it
    announced; the move is acknowledged once NATS answers, and is in the stream then."""
    with EmbeddedServer(tmp_path, **settings(nats_node, request)) as server:
        assert server.address is not None and nats_node.process is not None
        lobby, table, ada = ada_and_bots(server.address)
        announced = lobby.request({"type": "hello"})["timeout"]
        wait_for(lambda: ada.refresh(), timeout=30)  # her turn: the bots wait for her
        command = choose(ada.feed.view)
        assert command is not None
        os.kill(nats_node.process.pid, signal.SIGSTOP)
        try:
            ada.connection.send({"type": "act", "table": table, "token": ada.token,
                                 "seq": ada.feed.seq, "cid": "paused", "command": command,
                                 "rid": "move"})
            ada.connection.send({"type": "ping", "rid": "ping"})
            heard: list[dict[str, Any]] = []
            while not heard or heard[-1].get("rid") != "ping":
                message = ada.connection.receive(timeout=announced)
                assert message is not None, "no pong within the announced timeout"
                heard.append(message)
            assert all(message.get("rid") != "move" for message in heard)  # it waits
            listed = lobby.connection.request({"type": "list"}, timeout=announced)
            assert [t["id"] for t in listed["tables"]] == [table]
        finally:
            os.kill(nats_node.process.pid, signal.SIGCONT)
        reply = None
        while reply is None or reply.get("rid") != "move":
            reply = ada.connection.receive(timeout=30)
            assert reply is not None
        assert reply["type"] == protocol.ACK, reply
        assert dict(load(log_of(server, table)).cids)[reply["seq"]] == "paused"
        lobby.close()
        ada.close()


def test_a_second_node_owns_nothing_of_the_first_then_takes_its_table_over(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    config = {**settings(nats_node, request), "lease_seconds": 1.0}
    first = EmbeddedServer(tmp_path / "a", **config)
    first.start()
    try:
        assert first.address is not None and first.service is not None
        lobby = Participant(first.address)
        table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": {"target": 10_000}})["table"]["id"]
        fill_with_bots(lobby, table, (0, 1, 2, 3))
        lobby.close()
        with EmbeddedServer(tmp_path / "b", **config) as second:
            assert second.service is not None
            wait_for(lambda: first.service is not None and first.service.tables[table].seq > 20)
            assert table not in second.service.tables  # held by the first
            first.stop()  # lets its lease go
            wait_for(lambda: table in second.service.tables, timeout=30)
            taken = second.service.tables[table].seq
            wait_for(lambda: second.service.tables[table].seq > taken + 10, timeout=30)
            assert isinstance(verify(log_of(second, table)), Verified)
    finally:
        first.stop()


def test_any_node_lists_every_table_and_says_where_a_table_is_served(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Two nodes of one service: each lobby lists the other's table; a request for it names
    the node that serves it; a keyed create resent to the other node makes nothing; after a
    takeover, the person's token and the command ids of moves acknowledged by the first node
    still work at the second."""
    config = {**settings(nats_node, request), "lease_seconds": 1.0}
    first = EmbeddedServer(tmp_path / "a", **config)
    first.start()
    try:
        with EmbeddedServer(tmp_path / "b", **config) as second:
            assert first.address is not None and second.address is not None
            assert second.service is not None
            at_first, at_second = Participant(first.address), Participant(second.address)
            create = {"type": "create", "game": "hearts", "players": 4,
                      "options": FAST_HEARTS, "key": "k" * 20}
            table = at_first.request(create)["table"]["id"]
            ada = Person(first.address, table, 0, "Ada")
            wait_for(lambda: [t["id"] for t in at_second.request({"type": "list"})["tables"]]
                     == [table])
            again = at_second.request(create)  # its reply was lost: sent to another node
            assert again["type"] == protocol.CREATED and again["table"]["id"] == table
            for asking in ({"type": "watch", "table": table},
                           {"type": "resume", "table": table, "seat": 0, "token": ada.token}):
                reply = at_second.request(asking)
                assert reply["type"] == protocol.ERROR, reply
                assert (reply["code"], reply["table"], reply["address"]) == \
                    (protocol.ELSEWHERE, table, first.address)
            other = at_second.request({**create, "key": "m" * 20})["table"]["id"]
            assert other != table  # ids are the service's, not a node's
            wait_for(lambda: {t["id"] for t in at_first.request({"type": "list"})["tables"]}
                     == {table, other})
            fill_with_bots(at_first, table)
            wait_for(lambda: ada.step() and False or len(ada.acks) >= 2, timeout=30)
            acked = ada.acks[-1]
            first.stop()  # lets its leases go: the second node takes the table over
            wait_for(lambda: table in second.service.tables, timeout=30)
            ada.resume(second.address)  # the same token
            resent = ada.act(ada.commands[acked["cid"]], cid=acked["cid"], seq=0)
            assert resent["type"] == protocol.ACK and resent["duplicate"], resent
            assert resent["seq"] == acked["seq"]
            play_until_over([ada])
            log = log_of(second, table)
            assert isinstance(verify(log), Verified)
            events = dict(load(log).events)
            for ack in ada.acks:
                assert events[ack["seq"]].seat == 0
            for participant in (at_first, at_second, ada):
                participant.close()
    finally:
        first.stop()


def test_a_bug_report_at_a_jetstream_table_holds_its_log(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with EmbeddedServer(tmp_path, **settings(nats_node, request)) as server:
        assert server.address is not None and server.service is not None
        lobby, table, ada = ada_and_bots(server.address)
        reply = ada.request({"type": "report", "table": table, "note": "odd trick"})
        assert reply["type"] == protocol.REPORTED, reply
        body = read_bug_report(tmp_path / reply["path"])
        kept = tmp_path / "reported.starhall"
        kept.write_bytes(body["log"])
        assert isinstance(verify(kept), Verified)
        assert server.service.store.read(table).startswith(body["log"])  # the table's own
        events = dict(load(kept).events)
        for ack in ada.acks:  # every move acknowledged before the report is in it
            assert events[ack["seq"]].seat == 0
        lobby.close()
        ada.close()


def test_a_dead_node_s_tables_spread_over_the_nodes_alive_and_stay_put() -> None:
    """Each node alive takes first the dead node's tables it is the first choice for: about
    a share each, and a table's choice moves only if its chosen node dies too."""
    tables = [f"{number:04d}" for number in range(1, 1001)]
    nodes = ["node-a", "node-b", "node-c", "node-d"]
    chosen = {table: first_choice(table, nodes) for table in tables}
    shares = Counter(chosen.values())
    assert set(shares) == set(nodes) and min(shares.values()) > 150, shares
    fewer = nodes[:-1]
    for table, node in chosen.items():
        if node != nodes[-1]:
            assert first_choice(table, fewer) == node


def test_a_move_refused_because_another_node_wrote_the_table_says_elsewhere(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Another writer moved the table's stream on (the fence's case): the node's next move
    there is refused with ``elsewhere``, not ``storage``, and changes nothing; the node, still
    the table's owner, reads it again from the stream and serves it on."""
    config = settings(nats_node, request)
    with EmbeddedServer(tmp_path, **config) as server:
        assert server.address is not None
        lobby, table, ada = ada_and_bots(server.address)
        wait_for(lambda: ada.refresh(), timeout=30)  # her turn: the bots wait for her
        command = choose(ada.feed.view)
        assert command is not None
        intruder = JetStreamStore(str(config["store"]), stream=str(config["stream"]),
                                  node="intruder")
        try:
            data, log = intruder.reopen(table)
            recording = load(intruder.source(table), data=data)
            log.append(seating_record(recording.last_seq, 1, recording.seats_at()[1]))
            assert intruder.commit([log]) == []
        finally:
            intruder.close()
        reply = ada.connection.request({"type": "act", "table": table, "token": ada.token,
                                         "seq": ada.feed.seq, "cid": "fenced",
                                         "command": command}, timeout=30)
        assert (reply["type"], reply["code"]) == (protocol.ERROR, protocol.ELSEWHERE), reply
        assert "fenced" not in load(log_of(server, table)).cids.values()
        watcher = Participant(server.address)
        wait_for(lambda: watcher.request({"type": "watch", "table": table})["type"]
                 == protocol.WATCHING, timeout=30)  # read again, served on
        watcher.close()
        lobby.close()
        ada.close()
