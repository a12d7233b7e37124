"""A service of several ``starhall serve`` processes on a cluster of three real nats-server
processes (a stream of three replicas), on loopback: a node killed with -9 mid-game has its
tables taken over and its people play on elsewhere, no acknowledged move lost or doubled; the
loss of one NATS node of three goes unnoticed, the loss of all three refuses moves
(``storage``, nothing changed) until they are back; a paused owner cannot write a table
another node took over; two nodes started at once never both serve a table; the NATS node
a Starhall node is connected to, killed under a live table, never keeps it from answering
pings, nor does a NATS node killed while it makes tables, renews its lease and takes tables
over; tables made on two nodes at once get distinct ids; the leases are one per node, and a
dead node's finished table is read with no owner. Leases are short (2 s) to keep the file
quick; every wait is for a condition, with a deadline only against a hang."""

from __future__ import annotations

import secrets
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from starhall.cli import main
from starhall.server.jetstream import JetStreamStore
from starhall.shared import protocol
from starhall.shared.replay import load
from tests.connection import Connection, ConnectionTimeout
from tests.nats_helpers import NatsCluster, Roamer, StarhallNode, StarhallService
from tests.server_helpers import choose, wait_for

pytestmark = pytest.mark.slow  # real NATS clusters, nodes killed: `make check` leaves it out

LEASE = 2.0


@pytest.fixture
def service(cluster: NatsCluster, tmp_path: Path, request: pytest.FixtureRequest
            ) -> Iterator[StarhallService]:
    made = StarhallService(cluster.address, tmp_path, request.node.name, 2, lease=LEASE)
    try:
        yield made
    finally:
        made.stop()
        for node in cluster.nodes:  # a test that killed some leaves the cluster whole
            if node.process is None:
                node.start()


def ask(address: str, message: dict[str, object]) -> dict[str, object] | None:
    with Connection(address) as connection:
        try:
            return connection.request(message, timeout=3.0)
        except ConnectionTimeout:
            return None


def new_table(address: str, people: int = 1, target: int = 10_000) -> tuple[str, list[str]]:
    """A hearts table made at ``address``: the first ``people`` seats taken (their tokens),
    bots in the others."""
    with Connection(address) as lobby:
        table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": {"target": target}})["table"]["id"]
        tokens = []
        for seat in range(people):
            seated = lobby.request({"type": "sit", "table": table, "seat": seat,
                                    "name": f"P{seat}"})
            tokens.append(seated["token"])
        for seat in range(people, 4):
            assert lobby.request({"type": "bot", "table": table, "seat": seat})["type"] == \
                protocol.BOTTED
    return table, tokens


def serves(address: str, table: str) -> bool:
    """Whether the node at ``address`` serves ``table`` now (it lets a spectator watch)."""
    reply = ask(address, {"type": "watch", "table": table})
    return reply is not None and reply["type"] == protocol.WATCHING


def check_log(service: StarhallService, table: str, folder: Path, *roamers: Roamer) -> None:
    """The table's log verifies, and holds every acknowledged move once, at its ``seq``."""
    recording = load(service.export(table, folder))
    for roamer in roamers:
        logged = [(seq, cid) for seq, cid in recording.cids.items()
                  if recording.event(seq).seat == roamer.seat]
        cids = [cid for _, cid in logged]
        assert len(cids) == len(set(cids)), "a move was made twice"
        by_cid = {cid: seq for seq, cid in logged}
        for cid, seq in roamer.acked.items():
            assert by_cid.get(cid) == seq, f"acknowledged move {cid} lost"


def test_a_killed_owner_s_tables_are_taken_over_and_play_goes_on(
        service: StarhallService, tmp_path: Path) -> None:
    service.start()
    first, second = service.nodes
    table, (token,) = new_table(first.address)
    busy, _ = new_table(first.address, people=0)
    ada = Roamer(service.addresses, table, 0, token)
    ada.prefer = first.address
    ada.play(5)
    assert ada.at == first.address
    before = load(service.export(busy, tmp_path)).last_seq
    first.kill()  # mid-game: no lease given back
    ada.play(10)  # reconnects, is sent to the node that took the table over
    assert ada.at == second.address
    wait_for(lambda: serves(second.address, busy), timeout=30)
    wait_for(lambda: load(service.export(busy, tmp_path)).last_seq > before + 20, timeout=30)
    check_log(service, table, tmp_path, ada)
    ada.close()


def test_play_goes_on_without_one_nats_node_and_stops_cleanly_without_all(
        service: StarhallService, cluster: NatsCluster, tmp_path: Path) -> None:
    service.start()
    nats = cluster.nodes
    table, (token,) = new_table(service.nodes[0].address)
    ada = Roamer(service.addresses, table, 0, token)
    ada.play(3)
    nats[2].kill()
    ada.play(3)  # two of three: a quorum
    wait_for(lambda: (s := ada.snapshot()) is not None and 0 in s["view"]["to_act"],
             timeout=30)  # Ada's turn: the bots wait for her
    nats[0].kill()
    nats[1].kill()
    # Nothing answers for the stream: her move is refused and nothing changes.
    assert ada.move() == "storage"
    snapshot = ada.snapshot()
    assert snapshot is not None and ada.pending is not None
    assert snapshot["seq"] == ada.pending[2]  # the refused move changed nothing
    assert ada.move() == "storage"
    again = ada.snapshot()
    assert again is not None and again["seq"] == snapshot["seq"]
    for node in nats:
        node.start()
    ada.play(3, timeout=120)  # the refused move made now (its command id), then more
    check_log(service, table, tmp_path, ada)
    ada.close()


def test_a_paused_owner_cannot_write_a_table_taken_over_and_gives_it_up(
        service: StarhallService, tmp_path: Path) -> None:
    service.start()
    first, second = service.nodes
    table, (token,) = new_table(first.address)
    ada = Roamer(service.addresses, table, 0, token)
    ada.prefer = first.address
    ada.play(2)
    turn = wait_for(lambda: next((s for s in [ada.snapshot()]
                                  if s is not None and 0 in s["view"]["to_act"]), None),
                    timeout=30)
    command, seq = choose(turn["view"]), turn["seq"]
    assert ada.at == first.address
    stale = ada.connection
    first.signal(signal.SIGSTOP)
    try:
        wait_for(lambda: serves(second.address, table), timeout=30)
        stale.send({"type": "act", "table": table, "token": token, "seq": seq,
                    "cid": "paused", "command": command, "rid": "paused"})
    finally:
        first.signal(signal.SIGCONT)
    reply = wait_for(lambda: next((m for m in [stale.receive(0.1)]
                                   if m is not None and m.get("rid") == "paused"), None),
                     timeout=30)
    assert reply["type"] == protocol.ERROR, reply
    assert reply["code"] in ("storage", protocol.ELSEWHERE), reply
    wait_for(lambda: (ask(first.address, {"type": "watch", "table": table}) or {}).get(
        "address") == second.address, timeout=30)  # given up: it sends clients on
    ada._drop()
    ada.play(3)
    assert ada.at == second.address
    check_log(service, table, tmp_path, ada)
    assert "paused" not in load(tmp_path / f"{table}.starhall").cids.values()
    ada.close()


def test_two_nodes_started_at_once_never_both_serve_a_table(
        service: StarhallService, tmp_path: Path) -> None:
    maker = StarhallNode(tmp_path / "maker", service.store, service.stream,
                         lease=LEASE).start()
    tables = [new_table(maker.address, people=0)[0] for _ in range(6)]
    maker.kill()  # its leases end by their TTL
    service.start()  # both at once
    for table in tables:
        wait_for(lambda t=table: any(serves(a, t) for a in service.addresses), timeout=30)
    for _ in range(3):  # each table, each time it is looked at, served by one node
        for table in tables:
            assert sum(serves(address, table) for address in service.addresses) == 1
    for node in service.nodes:  # never refused by the stream's fence, never given up
        assert "given up" not in node.output and "another node" not in node.output
    for table in tables:
        service.export(table, tmp_path)


class Pinger:
    """Pings a node over and over from a thread of its own, each ping given the session
    timeout the node announced: ``missed`` counts the pings it left unanswered that long."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.stop = threading.Event()
        self.answered = 0
        self.missed = 0
        with Connection(address) as connection:
            self.timeout = float(connection.request({"type": "hello"})["timeout"])
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with Connection(self.address) as connection:
            while not self.stop.is_set():
                try:
                    connection.request({"type": "ping"}, timeout=self.timeout)
                    self.answered += 1
                except ConnectionTimeout:
                    self.missed += 1
                self.stop.wait(0.05)  # a client pings now and then, not in a busy loop

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


def test_a_nats_node_killed_under_a_live_table_never_silences_the_starhall_node(
        cluster: NatsCluster, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The NATS node a Starhall node is connected to (the only one it is given; it learns
    the others from it), and the leader of its tables' stream, is killed with -9 while a table
    plays there: the Starhall node answers every ping within the session timeout it announces
    throughout, its person plays on at it, and no acknowledged move is lost."""
    stream = StarhallService(cluster.address, tmp_path, request.node.name, 0).stream

    def opened() -> JetStreamStore | None:  # once the cluster has elected its leaders
        try:
            return JetStreamStore(cluster.address, stream=stream, replicas=3)
        except OSError:
            return None

    store = wait_for(opened, timeout=60, step=0.5)  # made, it makes the stream
    try:
        leader = store.bridge.run(store.js.stream_info(stream)).cluster.leader
    finally:
        store.close()
    nats = sorted(cluster.nodes, key=lambda each: each.name != leader)  # the leader first
    service = StarhallService(f"nats://{nats[0].url}", tmp_path, request.node.name, 1,
                              lease=LEASE)
    try:
        service.start()
        (node,) = service.nodes
        table, (token,) = new_table(node.address)
        pinger = Pinger(node.address)
        ada = Roamer([node.address], table, 0, token, timeout=pinger.timeout)
        try:
            ada.play(5)
            answered = pinger.answered
            nats[0].kill()
            ada.play(10, timeout=120)
            wait_for(lambda: pinger.answered > answered + 5, timeout=30)
        finally:
            pinger.close()
        assert pinger.missed == 0
        assert (ada.at, ada.turn) == (node.address, 1)  # she never took her node for dead
        service.store = "nats://" + ",".join(each.url for each in nats[1:])  # those alive
        probe = ["replay", "export", f"{service.store}/{table}", str(tmp_path / "probe"),
                 "--stream", service.stream]
        wait_for(lambda: main(probe) == 0, timeout=60, step=0.5)  # once its leaders are known
        check_log(service, table, tmp_path, ada)
        ada.close()
    finally:
        service.stop()
        for each in nats:
            if each.process is None:
                each.start()


def test_pings_are_answered_through_a_takeover_creations_and_renewals_without_a_nats_node(
        service: StarhallService, cluster: NatsCluster) -> None:
    """With a NATS node killed, a Starhall node answers every ping within the timeout it
    announces while it makes tables, renews its lease and takes a dead node's tables over:
    none of it waits for NATS in its loop."""
    service.start()
    first, second = service.nodes
    tables = [new_table(first.address, people=0)[0] for _ in range(3)]
    pinger = Pinger(second.address)
    try:
        cluster.nodes[0].kill()
        with Connection(second.address) as lobby:
            for key in [secrets.token_hex(16) for _ in range(4)]:
                # A write NATS refused while it elected a leader is sent again, with its key.
                wait_for(lambda k=key: lobby.request(
                    {"type": "create", "game": "hearts", "players": 4, "key": k},
                    timeout=30)["type"] == protocol.CREATED, timeout=60)
        first.kill()  # its lease ends by its TTL: its tables are taken over
        for table in tables:
            wait_for(lambda t=table: serves(second.address, t), timeout=30)
        answered = pinger.answered
        wait_for(lambda: pinger.answered > answered + 5, timeout=30)
    finally:
        pinger.close()
    assert pinger.missed == 0
    assert "given up" not in second.output


def test_two_nodes_creating_tables_at_once_get_distinct_ids(service: StarhallService) -> None:
    """Tables made on two nodes at the same moment never clash: each gets an id nobody
    else has, and no create is refused."""
    service.start()
    start = threading.Barrier(len(service.nodes))
    replies: dict[str, list[dict[str, object]]] = {}

    def make(address: str) -> None:
        with Connection(address) as lobby:
            start.wait()
            replies[address] = [lobby.request({"type": "create", "game": "hearts",
                                               "players": 4}, timeout=30) for _ in range(6)]

    threads = [threading.Thread(target=make, args=(address,)) for address in service.addresses]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    made = [reply for each in replies.values() for reply in each]
    assert [reply["type"] for reply in made] == [protocol.CREATED] * 12, made
    ids = [reply["table"]["id"] for reply in made]  # type: ignore[index]
    assert len(set(ids)) == 12, ids


def test_one_lease_per_node_and_a_dead_node_s_finished_table_needs_no_owner(
        service: StarhallService, tmp_path: Path) -> None:
    """The leases bucket holds one key per node, however many tables they serve; a killed
    node's live tables are taken over, its finished one is not, and any node shows it."""
    service.start()
    first, second = service.nodes
    live = [new_table(first.address, people=0)[0] for _ in range(3)]
    finished, _ = new_table(first.address, people=0, target=10)

    def status(address: str, table: str) -> object:
        with Connection(address) as lobby:
            listed = lobby.request({"type": "list"})["tables"]
        return next((info["status"] for info in listed if info["id"] == table), None)

    wait_for(lambda: status(second.address, finished) == protocol.OVER, timeout=60)
    probe = JetStreamStore(service.store, stream=service.stream, node="probe")
    try:
        keys = set(probe.bridge.run(probe.leases_kv.keys()))
    finally:
        probe.close()
    assert len(keys) <= len(service.nodes) + 1, keys  # the nodes and the probe: no table's
    first.kill()
    for table in live:
        wait_for(lambda t=table: serves(second.address, t), timeout=30)
    reply = ask(second.address, {"type": "watch", "table": finished})
    assert reply is not None and reply["type"] == protocol.WATCHING, reply
    assert f"took table {finished} over" not in second.output
    service.export(finished, tmp_path)
