"""Benchmark of the game server (a script, not a test).

    .venv/bin/python bench/server.py [--samples 2000] [--tables 200] [--seconds 10]
    .venv/bin/python bench/server.py --part curve [--samples 2000] [--tables 200]

Runs a real ``starhall serve`` process on loopback with its data in a temporary folder
(durable: every acknowledged move is fsynced), a bare pyzmq ROUTER echo process, and a
durable echo process: the same echo, but it appends each message to a file in the same
folder and fdatasyncs it before answering (the least any durable server does). Then:

1. Round trip of a move, from sending ``act`` to receiving the sender's own ``update``,
   alternated sample by sample with a round trip through each echo (the same bytes), on an
   otherwise idle server. The player holds all four seats of one table (so every move is
   timed and no bot stands between moves); between timed moves it asks for the next seat's
   view, untimed. The targets compare the move with the bare echo (at most 3) and with the
   durable echo (at most 1.2: the server's own work above the sync every durable server
   pays). A reply is timed when its frame arrives, before it is decoded, as the echoes' are.
   On a machine of few cores the timing client shares the cores with the server, which a
   client on another machine of the LAN does not: the delivery of the mover's update (the
   server's I/O thread, then the client's) needs a core while the server builds the other
   seats' updates (the server yields its core once after the first send for this). So the
   samples alternate, in rounds, between two layouts of the same processes: ``shared
   cores`` (as the scheduler places them) and ``cores apart`` (each server's main thread,
   the echoes' included, on core 0; every other thread, the client's and the servers'
   ZeroMQ I/O threads, on the others). Both are reported; the second is the LAN's case.
2. Throughput: ``--tables`` tables of four random bots with no think delay, all playing at
   once; events appended per second over ``--seconds`` (from the tables' sequence numbers; a
   deal is one event in about 65), while the same player keeps timing its moves at a table of
   its own: p50/p99 of a move's round trip under that load. With ``--baseline DIR`` (another
   checkout with its own ``.venv``, e.g. a ``git worktree`` of an older commit), the same
   load runs on a server of that build too, both at once, each with its own tables and timed
   player, and they take turns (``--rounds`` rounds, the order swapped each round): the
   server whose turn it is not is paused (SIGSTOP), so each is measured alone, alternated;
   both figures are printed and their ratios. ``--part load`` runs this part alone.
3. Restart (``--part restart`` for this one alone): from starting a ``starhall serve`` process
   to the reply to a client's first ``list``, on a data folder holding a history of finished
   games of at least ``--history-events`` events plus a few live tables of many hands each
   (``--live-events`` each, played by people whose moves carry command ids as a server logs
   them: restored from their last checkpoints), alternated round by round
   with the same on an empty data folder, and with a fresh copy of the history whose finished
   games have no summaries yet (as on the first start after an upgrade: every table restored
   from its log's last checkpoint); the ratios of the medians to the empty folder's (target
   at most 2). The history is generated once with bots (a minute or two) and kept in the
   temporary folder for later runs.
4. CurveZMQ against plain (``--part curve`` alone): a ``--plain`` server and one speaking
   CurveZMQ side by side, the idle move's round trip alternated sample by sample between
   them (target: curve p50 at most 1.2 times plain's); then ``--tables`` bot tables on each,
   every table watched by a spectator (so its updates cross the wire), events per second in
   windows of ``--window`` seconds, each server in turn while the other is paused (SIGSTOP;
   target: curve within 10% of plain).

Parts 1 to 3 speak CurveZMQ, the echoes too (with the server's key pair), unless ``--plain``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import zmq  # noqa: E402

from starhall import shared  # noqa: E402
from starhall.server.embed import free_loopback_port  # noqa: E402
from starhall.server.keys import load_or_create  # noqa: E402
from starhall.server.seats import SeatRecord, new_token  # noqa: E402
from starhall.server.sim import play_out  # noqa: E402
from starhall.shared import protocol  # noqa: E402
from starhall.shared.bots import bot_seats, make_bot  # noqa: E402
from starhall.shared.curve import secure_client  # noqa: E402
from starhall.shared.games import get_game  # noqa: E402
from starhall.shared.logfile import FORMAT_VERSION  # noqa: E402
from starhall.shared.shuffle import MAX_SEED  # noqa: E402
from starhall.shared.table import Table  # noqa: E402
from tests.connection import Connection  # noqa: E402

ENDLESS = {"target": 1_000_000}


def echo_server(port: int, durable_file: str | None = None, keys: str | None = None) -> None:
    """A bare ROUTER that sends every message straight back (run in its own process); with a
    ``durable_file``, only after appending the message to it and syncing it; with ``keys``
    (a folder holding a server's key pair), over CurveZMQ as the server speaks."""
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    if keys is not None:
        load_or_create(Path(keys)).secure(router)
    router.bind(f"tcp://127.0.0.1:{port}")
    if durable_file is None:
        while True:
            router.send_multipart(router.recv_multipart())
    with open(durable_file, "ab") as log:
        while True:
            frames = router.recv_multipart()
            log.write(frames[-1])
            log.flush()
            os.fdatasync(log.fileno())
            router.send_multipart(frames)


def start(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def serve_command(port: int, data: str, plain: bool) -> list[str]:
    return [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
            "--data", data, "--think", "0",
            "--flood-rate", "100000",  # the timing client sends far more than people
            "--beacon", "off", *(["--plain"] if plain else [])]


class HotSeat:
    """One connection holding every seat of a table, timing each move to its own update."""

    def __init__(self, address: str, plain: bool = False) -> None:
        self.connection = Connection(address, plain=plain)
        reply = self.connection.request({"type": "create", "game": "hearts", "players": 4,
                                         "options": ENDLESS})
        self.table = reply["table"]["id"]
        self.tokens = []
        for seat in range(4):
            seated = self.connection.request({"type": "sit", "table": self.table, "seat": seat})
            self.tokens.append(seated["token"])
        self.cid = 0
        self._drain()

    def _drain(self) -> None:
        while self.connection.receive(0.0) is not None:
            pass

    def _view(self) -> tuple[int, int, dict[str, Any]]:
        """The seat to act, the table's seq and a command for it (untimed)."""
        for _ in range(100):
            for seat, token in enumerate(self.tokens):
                snapshot = self.connection.request({"type": "sync", "table": self.table,
                                                    "token": token})
                view = snapshot["view"]
                if seat in view["to_act"]:
                    return seat, snapshot["seq"], choose(view)
            time.sleep(0.001)
        raise RuntimeError("nobody to act")

    def timed_move(self) -> float:
        """From sending a move to the arrival of the frame of its seat's own update (timed
        before decoding, as an echo's reply is)."""
        seat, seq, command = self._view()
        self._drain()
        self.cid += 1
        payload = protocol.encode({"type": "act", "table": self.table,
                                   "token": self.tokens[seat], "seq": seq, "cid": self.cid,
                                   "command": command})
        socket = self.connection.socket
        socket.setsockopt(zmq.RCVTIMEO, 5000)
        started = time.perf_counter()
        socket.send(payload)
        while True:
            frame = socket.recv()
            arrived = time.perf_counter()
            message = protocol.decode(frame)
            if message["type"] == protocol.ERROR:
                raise RuntimeError(f"refused: {message}")
            if message["type"] == protocol.UPDATE and message["seat"] == seat and any(
                    event["seat"] == seat for event in message["events"]):
                break
        socket.setsockopt(zmq.RCVTIMEO, -1)
        self._drain_until_ack()
        return arrived - started

    def _drain_until_ack(self) -> None:
        while True:
            message = self.connection.receive(5.0)
            if message is None or message["type"] == protocol.ACK:
                return


SHARED_CORES, CORES_APART = "shared cores", "cores apart"
LAYOUT_ROUND = 50
"""Samples taken in one layout before the other's turn."""


class Layouts:
    """Where the benchmark's threads may run: ``shared cores`` (anywhere) or ``cores apart``
    (the servers' main threads on core 0, every other thread of theirs and of this process
    on the other cores). Linux only, two cores or more; elsewhere only ``shared cores``."""

    def __init__(self, servers: list[int]) -> None:
        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.everywhere = set(cores)
        self.names = [SHARED_CORES]
        self.servers = servers
        if len(cores) >= 2 and Path("/proc/self/task").is_dir():
            self.main_core, self.other_cores = {cores[0]}, set(cores[1:])
            self.names.append(CORES_APART)

    def apply(self, layout: str) -> None:
        if layout == SHARED_CORES and len(self.names) == 1:
            return
        for pid in [*self.servers, os.getpid()]:
            for thread in Path(f"/proc/{pid}/task").iterdir():
                tid = int(thread.name)
                if layout == SHARED_CORES:
                    cores = self.everywhere
                elif tid == pid and pid != os.getpid():
                    cores = self.main_core
                else:
                    cores = self.other_cores
                os.sched_setaffinity(tid, cores)


def choose(view: dict[str, Any]) -> dict[str, Any]:
    legal = view["legal"]
    if legal.get("play"):
        return {"type": "play", "data": {"card": legal["play"][0]}}
    if "pass" in legal:
        return {"type": "pass",
                "data": {"cards": legal["pass"]["from"][: legal["pass"]["count"]]}}
    offer = legal["exchange"]
    if offer["may_decline"]:
        return {"type": "decline_exchange", "data": {}}
    return {"type": "take_exchange", "data": {"cards": offer["discard_from"][: offer["count"]]}}


def echo_round_trip(dealer: Any, payload: bytes) -> float:
    started = time.perf_counter()
    dealer.send(payload)
    dealer.recv()
    return time.perf_counter() - started


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def total_seq(connection: Connection) -> int:
    total, offset = 0, 0
    while offset is not None:
        page = connection.request({"type": "list", "offset": offset})
        total += sum(table["seq"] for table in page["tables"])
        offset = page["next"]
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000,
                        help=f"idle moves timed, in rounds of {LAYOUT_ROUND} alternating "
                             "the layouts")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--part", choices=("all", "moves", "load", "restart", "curve"),
                        default="all", help="moves: 1 and 2 only; load: 2 only; restart: 3 only; "
                                            "curve: 4 only")
    parser.add_argument("--plain", action="store_true",
                        help="1 to 3 with the server and the echoes on plain ZeroMQ rather "
                             "than CurveZMQ")
    parser.add_argument("--window", type=float, default=3.0,
                        help="4: seconds each server runs in turn while the other is paused")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="part 2 also on the build of this checkout (its own .venv), "
                             "alternated with this one; a build from before CurveZMQ is spoken "
                             "to in plain ZeroMQ (give --plain for like with like)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --baseline: turns of each build in part 2")
    parser.add_argument("--history-events", type=int, default=500_000)
    parser.add_argument("--live-events", type=int, default=LIVE_EVENTS,
                        help="events in each of the history's live tables")
    parser.add_argument("--restart-rounds", type=int, default=5)
    parser.add_argument("--echo-server", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--durable-file", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--echo-keys", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server is not None:
        echo_server(args.echo_server, args.durable_file, args.echo_keys)
        return 0
    if args.part == "curve":
        curve_against_plain(args)
        return 0
    if args.part == "load" or (args.part != "restart" and args.baseline is not None):
        if args.part != "load":
            moves_and_throughput(args, load=False)
        load_against_baseline(args)
    elif args.part != "restart":
        moves_and_throughput(args)
    if args.part not in ("moves", "load"):
        restart(args.history_events, args.live_events, args.restart_rounds, args.plain)
    return 0


def moves_and_throughput(args: argparse.Namespace, load: bool = True) -> None:
    """Parts 1 and 2 (part 1 alone without ``load``)."""
    data = tempfile.mkdtemp(prefix="starhall-bench-")
    server_port, echo_port, durable_port = (free_loopback_port(), free_loopback_port(),
                                            free_loopback_port())
    server = start(serve_command(server_port, data, args.plain))
    keys = [] if args.plain else ["--echo-keys", data]
    echo_key = None if args.plain else load_or_create(Path(data)).public
    echo = start([sys.executable, __file__, "--echo-server", str(echo_port), *keys])
    durable_echo = start([sys.executable, __file__, "--echo-server", str(durable_port),
                          "--durable-file", os.path.join(data, "durable-echo.log"), *keys])
    try:
        assert server.stdout is not None
        print(server.stdout.readline().strip())
        address = f"tcp://127.0.0.1:{server_port}"
        context = zmq.Context.instance()
        dealer, durable = context.socket(zmq.DEALER), context.socket(zmq.DEALER)
        for socket, port in ((dealer, echo_port), (durable, durable_port)):
            socket.setsockopt(zmq.LINGER, 0)
            if echo_key is not None:
                secure_client(socket, echo_key)
            socket.connect(f"tcp://127.0.0.1:{port}")
        player = HotSeat(address)
        payload = protocol.encode({"type": "act", "table": player.table,
                                   "token": player.tokens[0], "seq": 100, "cid": 100,
                                   "command": {"type": "play", "data": {"card": "QS"}}})
        for _ in range(50):  # warm up every path
            echo_round_trip(dealer, payload)
            echo_round_trip(durable, payload)
            player.timed_move()
        layouts = Layouts(servers=[server.pid, echo.pid, durable_echo.pid])
        samples: dict[str, tuple[list[float], list[float], list[float]]] = {
            layout: ([], [], []) for layout in layouts.names}
        for round_number in range(0, args.samples, LAYOUT_ROUND):
            layout = layouts.names[(round_number // LAYOUT_ROUND) % len(layouts.names)]
            layouts.apply(layout)
            echoes, durable_echoes, moves = samples[layout]
            for _ in range(LAYOUT_ROUND):
                echoes.append(echo_round_trip(dealer, payload))
                durable_echoes.append(echo_round_trip(durable, payload))
                moves.append(player.timed_move())
        layouts.apply(SHARED_CORES)
        for layout, (echoes, durable_echoes, moves) in samples.items():
            report(f"idle server, {layout}", echoes, moves, durable_echoes,
                   " (target at most 3)")

        if not load:
            dealer.close()
            durable.close()
            return
        lobby = Connection(address)
        bot_tables(lobby, args.tables)
        time.sleep(1.0)  # let every table get going
        before, started = total_seq(lobby), time.perf_counter()
        loaded_echoes, loaded = [], []
        while time.perf_counter() - started < args.seconds:
            loaded_echoes.append(echo_round_trip(dealer, payload))
            loaded.append(player.timed_move())
        after, elapsed = total_seq(lobby), time.perf_counter() - started
        rate = (after - before) / elapsed
        print(f"\n{args.tables} tables of 4 random bots, no think delay, fsync'd group "
              f"commits, {elapsed:.1f} s:")
        print(f"  {rate:,.0f} events/s appended across the tables ({after - before:,} events)")
        report(f"under load ({len(loaded)} timed moves)", loaded_echoes, loaded)
        print(f"\nmachine: {os.cpu_count()} cores; data in {data} (removed); "
              f"starhall engines: {shared.build()}")
        lobby.close()
        dealer.close()
        durable.close()
    finally:
        for process in (server, echo, durable_echo):
            process.send_signal(signal.SIGTERM)
        for process in (server, echo, durable_echo):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(data, ignore_errors=True)


def bot_tables(lobby: Connection, tables: int) -> None:
    """``tables`` endless Hearts tables of four random bots."""
    for _ in range(tables):
        table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": ENDLESS})["table"]["id"]
        for seat in range(4):
            lobby.request({"type": "bot", "table": table, "seat": seat})


# --- 2, against a baseline build ----------------------------------------------------------------

@dataclass
class Loaded:
    """One build's server under the load of part 2, and what was measured of it."""

    name: str
    root: Path
    """The checkout the server runs from (its ``.venv``'s Python)."""
    plain: bool = False
    """Whether the clients speak plain ZeroMQ to it (a build from before CurveZMQ does)."""
    plain_flag: bool = False
    """Whether its server is started with ``--plain`` (a build that knows CurveZMQ)."""
    data: str = ""
    server: subprocess.Popen[str] | None = None
    lobby: Connection | None = None
    player: HotSeat | None = None
    rates: list[float] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)

    @property
    def python(self) -> str:
        return str(self.root / ".venv" / "bin" / "python")

    def engines(self) -> str:
        done = subprocess.run([self.python, "-c", "from starhall import shared; "
                               "print(shared.build())"], cwd=self.root, capture_output=True,
                              text=True, check=True)
        return done.stdout.strip()

    def start(self, tables: int) -> None:
        self.data = tempfile.mkdtemp(prefix="starhall-bench-")
        port = free_loopback_port()
        # Its own session, so that pausing it pauses every process it started too.
        self.server = subprocess.Popen(
            [self.python, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}", "--data",
             self.data, "--think", "0", "--flood-rate", "100000", "--beacon", "off",
             *(["--plain"] if self.plain_flag else [])],
            cwd=self.root, stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert self.server.stdout is not None
        print(f"{self.name}: {self.server.stdout.readline().strip()}")
        address = f"tcp://127.0.0.1:{port}"
        self.player = HotSeat(address, self.plain)
        self.lobby = Connection(address, plain=self.plain)
        bot_tables(self.lobby, tables)

    def pause(self, paused: bool) -> None:
        assert self.server is not None
        os.killpg(self.server.pid, signal.SIGSTOP if paused else signal.SIGCONT)

    def measure(self, seconds: float) -> None:
        """Events per second across its tables, and a person's moves timed meanwhile."""
        assert self.lobby is not None and self.player is not None
        before, started = total_seq(self.lobby), time.perf_counter()
        while time.perf_counter() - started < seconds:
            self.moves.append(self.player.timed_move())
        after, elapsed = total_seq(self.lobby), time.perf_counter() - started
        self.rates.append((after - before) / elapsed)

    def stop(self) -> None:
        for connection in (self.lobby, self.player and self.player.connection):
            if connection is not None:
                connection.close()
        if self.server is not None:
            with contextlib.suppress(ProcessLookupError):
                self.pause(False)
                self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.server.kill()
        shutil.rmtree(self.data, ignore_errors=True)


def load_against_baseline(args: argparse.Namespace) -> None:
    """Part 2 on this build and, with ``--baseline``, on that one, taking turns."""
    builds = [Loaded("this build", ROOT, plain=args.plain, plain_flag=args.plain)]
    if args.baseline is not None:  # a build from before CurveZMQ speaks plain ZeroMQ only
        # (one that knows it is started --plain with --plain, like with like)
        builds.append(Loaded("baseline", args.baseline.resolve(), plain=True,
                             plain_flag=args.plain))
    try:
        for build in builds:
            build.start(args.tables)
            build.pause(True)
        for round_number in range(args.rounds):
            order = builds if round_number % 2 == 0 else builds[::-1]
            for build in order:
                build.pause(False)
                time.sleep(1.0)  # its tables get going again
                build.measure(args.seconds)
                build.pause(True)
    finally:
        for build in builds:
            build.stop()
    print(f"\n{args.tables} tables of 4 random bots, no think delay, fsync'd group commits; "
          f"{args.rounds} turns of {args.seconds:g} s each, alternated (the other server "
          "paused):")
    for build in builds:
        print(f"  {build.name:<10} ({build.root}, engines {build.engines()}): "
              f"{statistics.median(build.rates):,.0f} events/s (turns: "
              f"{', '.join(f'{rate:,.0f}' for rate in build.rates)}); a person's move "
              f"p50 {statistics.median(build.moves) * 1000:.2f} ms, "
              f"p99 {percentile(build.moves, 0.99) * 1000:.2f} ms ({len(build.moves)} moves)")
    if len(builds) == 2:
        this, baseline = builds
        print(f"  this build / baseline: events/s "
              f"{statistics.median(this.rates) / statistics.median(baseline.rates):.2f}, "
              f"lowest turn {min(this.rates) / max(baseline.rates):.2f} of the baseline's "
              f"highest; move p99 "
              f"{percentile(this.moves, 0.99) / percentile(baseline.moves, 0.99):.2f}")
    print(f"machine: {os.cpu_count()} cores")


# --- 4. CurveZMQ against plain ZeroMQ ---------------------------------------------------------


class Spectator(threading.Thread):
    """One connection watching every table of a server, reading all it is sent (so each
    table's updates cross the wire, encrypted or not, as a window watching it would see)."""

    def __init__(self, address: str, tables: list[str]) -> None:
        super().__init__(daemon=True)
        self.connection = Connection(address, context=zmq.Context())
        for table in tables:
            self.connection.send({"type": "watch", "table": table})
        self.received = 0
        self.frames = 0
        self.stop = threading.Event()

    def run(self) -> None:
        socket = self.connection.socket
        while not self.stop.is_set():
            if socket.poll(100):
                while True:  # all that waits, so the server's queue for it never fills
                    try:
                        self.received += len(socket.recv(zmq.NOBLOCK))
                        self.frames += 1
                    except zmq.Again:
                        break
            self.connection.heartbeat()


def curve_against_plain(args: argparse.Namespace) -> None:
    """4. Two servers on the same machine, one ``--plain`` and one speaking CurveZMQ (the
    default). The idle move's round trip, sample by sample on each in turn; then throughput
    with ``--tables`` bot tables on each, every table watched (its updates cross the wire),
    measured in windows of ``--window`` seconds in turn while the other server is paused."""
    folders = {kind: tempfile.mkdtemp(prefix=f"starhall-bench-{kind}-")
               for kind in ("plain", "curve")}
    ports = {kind: free_loopback_port() for kind in folders}
    servers = {kind: start(serve_command(ports[kind], folders[kind], kind == "plain"))
               for kind in folders}
    spectators: list[Spectator] = []
    try:
        for kind, server in servers.items():
            assert server.stdout is not None
            print(f"{kind}: {server.stdout.readline().strip()}")
        addresses = {kind: f"tcp://127.0.0.1:{port}" for kind, port in ports.items()}
        players = {kind: HotSeat(address) for kind, address in addresses.items()}
        for _ in range(50):  # warm up both paths
            for player in players.values():
                player.timed_move()
        moves: dict[str, list[float]] = {kind: [] for kind in folders}
        for number in range(args.samples):
            order = list(folders) if number % 2 == 0 else list(reversed(folders))
            for kind in order:
                moves[kind].append(players[kind].timed_move())
        print(f"\nidle servers: {args.samples} moves on each, alternated")
        for kind, samples in moves.items():
            print(f"  {kind:5}  move -> own update  p50 {statistics.median(samples) * 1000:.3f} ms"
                  f"  p99 {percentile(samples, 0.99) * 1000:.3f} ms")
        ratio = statistics.median(moves["curve"]) / statistics.median(moves["plain"])
        print(f"  curve p50 / plain p50 = {ratio:.2f} (target at most 1.2)")

        lobbies = {kind: Connection(address) for kind, address in addresses.items()}
        for kind, lobby in lobbies.items():
            tables = []
            for _ in range(args.tables):
                table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                       "options": ENDLESS})["table"]["id"]
                for seat in range(4):
                    lobby.request({"type": "bot", "table": table, "seat": seat})
                tables.append(table)
            spectator = Spectator(addresses[kind], tables)
            spectator.start()
            spectators.append(spectator)
        rates: dict[str, list[float]] = {kind: [] for kind in folders}
        delivered: dict[str, list[float]] = {kind: [] for kind in folders}
        watching = dict(zip(folders, spectators, strict=True))
        windows = max(1, round(args.seconds / args.window))
        os.kill(servers["curve"].pid, signal.SIGSTOP)
        paused = "curve"
        for number in range(2 * windows):
            kind = "plain" if number % 2 == 0 else "curve"
            other = "curve" if kind == "plain" else "plain"
            if paused != other:
                os.kill(servers[other].pid, signal.SIGSTOP)
            os.kill(servers[kind].pid, signal.SIGCONT)
            paused = other
            time.sleep(0.3)  # the paused backlog first
            before, started = total_seq(lobbies[kind]), time.perf_counter()
            frames = watching[kind].frames
            time.sleep(args.window)
            after = total_seq(lobbies[kind])
            elapsed = time.perf_counter() - started
            rates[kind].append((after - before) / elapsed)
            delivered[kind].append((watching[kind].frames - frames) / elapsed)
        os.kill(servers[paused].pid, signal.SIGCONT)
        print(f"\n{args.tables} tables of 4 random bots on each server, each table watched, "
              f"{windows} windows of {args.window:g} s each, alternated:")
        for kind, samples in rates.items():
            print(f"  {kind:5}  {statistics.median(samples):,.0f} events/s (median of windows; "
                  f"{', '.join(f'{rate:,.0f}' for rate in samples)})")
        ratio = statistics.median(rates["curve"]) / statistics.median(rates["plain"])
        print(f"  curve / plain = {ratio:.2f} (target at least 0.9)")
        for kind, samples in delivered.items():
            print(f"  {kind:5}  {statistics.median(samples):,.0f} messages/s to the spectator "
                  f"(median; {watching[kind].received:,} bytes in all)")
        print(f"\nmachine: {os.cpu_count()} cores; starhall engines: {shared.build()}")
    finally:
        for spectator in spectators:
            spectator.stop.set()
        for server in servers.values():
            os.kill(server.pid, signal.SIGCONT)
            server.send_signal(signal.SIGTERM)
        for server in servers.values():
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)


# --- 3. restart -------------------------------------------------------------------------------

LIVE_TABLES = 4
LIVE_EVENTS = 25_000
"""Events into each live table's game (a few hundred hands of Hearts to a target never
reached): long logs, of which a restart folds only what follows the last checkpoint (and
reads, before it, the events of the last 1024 command ids of each seat's person)."""
HISTORY_VERSION = 2
"""Of the history's making: 2, its people's moves carry command ids, as a server logs them
(and its checkpoints say from where they are remembered: ``cids_from``)."""


def history_folder(events: int, live_events: int) -> Path:
    """A data folder holding finished games of at least ``events`` events and a few live
    tables of ``live_events`` each, made once and kept in the temporary folder (it is only
    read afterwards)."""
    root = Path(tempfile.gettempdir()) / (f"starhall-bench-history-{events}-live{LIVE_TABLES}x"
                                          f"{live_events}-f{FORMAT_VERSION}h{HISTORY_VERSION}")
    done = root / "complete"
    if done.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    folder = root / "tables"
    folder.mkdir(parents=True)
    game = get_game("hearts")
    rng = random.Random(14)
    started, total, number = time.perf_counter(), 0, 0
    print(f"generating a history of {events:,} events in {root} (once)…", flush=True)
    while total < events:
        number += 1
        table = new_table(folder, number, bots=True)
        bots = [make_bot(game, "random", random.Random(rng.random())) for _ in range(4)]
        play_out(table, bots, rng)
        assert table.log is not None
        table.log.close()
        total += table.seq
    for _ in range(LIVE_TABLES):
        number += 1
        table = new_table(folder, number, bots=False, options=ENDLESS)
        bots = [make_bot(game, "random", random.Random(rng.random())) for _ in range(4)]
        sent = [0] * 4  # each person's command ids, a counter as the client's
        while table.seq < live_events:  # a game under way, its seats held by people
            if game.chance(table.state) is not None:
                table.shuffle(int(rng.random() * MAX_SEED))
            else:
                seat = game.to_act(table.state)[0]
                sent[seat] += 1
                table.submit(bots[seat].choose(table.observe(seat), 0.0), sent[seat])
        assert table.log is not None
        table.log.close()
    done.write_text(json.dumps({"finished_tables": number - LIVE_TABLES, "events": total,
                                "live_events": live_events}))
    print(f"  {number - LIVE_TABLES} finished games, {total:,} events, and {LIVE_TABLES} live "
          f"tables of {live_events:,} events, in {time.perf_counter() - started:.0f} s")
    return root


def new_table(folder: Path, number: int, *, bots: bool,
              options: dict[str, Any] | None = None) -> Table[Any]:
    table_id = f"{number:04d}"
    name = f"Hearts {table_id}"
    seats = bot_seats(get_game("hearts"), ["random"] * 4)
    if not bots:  # the log is where a server finds its seats and their owners
        people = [SeatRecord() for _ in range(4)]
        for seat, record in enumerate(people):
            record.seat_person(f"Person {seat + 1}", token=new_token())
        seats = [record.logged() for record in people]
    table = Table.new(get_game("hearts"), 4, options or {},
                      path=str(folder / f"{table_id}.starhall"), seats=seats, table=table_id,
                      name=name)
    table.remember()
    return table


def time_to_first_reply(data: Path, plain: bool = False) -> float:
    """Seconds from starting ``starhall serve`` on ``data`` to the reply to a ``list`` sent
    at once (it waits in the client's socket until the server reads it). The server's key
    pair is made beforehand, so the client knows the key before the server listens."""
    port = free_loopback_port()
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.RECONNECT_IVL, 1)  # connect as soon as the server listens
    if not plain:
        secure_client(dealer, load_or_create(data).public)
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
         "--data", str(data), "--beacon", "off", *(["--plain"] if plain else [])],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        dealer.connect(f"tcp://127.0.0.1:{port}")
        dealer.send(protocol.encode({"type": "list", "rid": 1}))
        if not dealer.poll(120_000):
            raise RuntimeError(f"no reply from a server started on {data}")
        elapsed = time.perf_counter() - started
        reply = protocol.decode(dealer.recv())
        if reply.get("type") != protocol.TABLES:
            raise RuntimeError(f"not a list of tables: {reply}")
    finally:
        dealer.close()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    return elapsed


def restart(events: int, live_events: int, rounds: int, plain: bool = False) -> None:
    history = history_folder(events, live_events)
    facts = json.loads((history / "complete").read_text())
    empty = Path(tempfile.mkdtemp(prefix="starhall-bench-empty-"))
    copies = Path(tempfile.mkdtemp(prefix="starhall-bench-nosummary-"))
    try:
        time_to_first_reply(history, plain)  # warm the page cache; writes any missing summary
        time_to_first_reply(empty, plain)
        emptied, full, unsummarised = [], [], []
        for round_number in range(rounds):
            emptied.append(time_to_first_reply(empty, plain))
            full.append(time_to_first_reply(history, plain))
            copy = copies / str(round_number)  # a fresh copy each time: a start writes summaries
            shutil.copytree(history / "tables", copy / "tables",
                            ignore=shutil.ignore_patterns("*.summary.json"))
            settle_disk()
            unsummarised.append(time_to_first_reply(copy, plain))
            shutil.rmtree(copy, ignore_errors=True)
            settle_disk()
    finally:
        shutil.rmtree(empty, ignore_errors=True)
        shutil.rmtree(copies, ignore_errors=True)
    empty_p50 = statistics.median(emptied)
    print(f"\nrestart to the first reply (a list), {rounds} rounds of each, alternated:")
    print(f"  empty data folder          {spread(emptied)}")
    print(f"  {facts['finished_tables']} finished games ({facts['events']:,} events) and "
          f"{LIVE_TABLES} live tables of {facts.get('live_events', 0):,} events:")
    print(f"    with summaries           {spread(full)}")
    print(f"    without summaries        {spread(unsummarised)}  (the first start after an "
          "upgrade: every table from its last checkpoint)")
    print(f"  history p50 / empty p50 = {statistics.median(full) / empty_p50:.2f}; without "
          f"summaries {statistics.median(unsummarised) / empty_p50:.2f} (target at most 2)")
    print(f"  history in {history} (kept for later runs); starhall engines: {shared.build()}")


def settle_disk() -> None:
    """Write back what the copy (or its removal) left dirty now, so that the writeback does
    not run during the next timed start, slowing it for a reason that is the bench's own."""
    getattr(os, "sync", lambda: None)()


def spread(samples: list[float]) -> str:
    return (f"p50 {statistics.median(samples):.3f} s  (min {min(samples):.3f}, "
            f"max {max(samples):.3f})")


def report(title: str, echoes: list[float], moves: list[float],
           durable_echoes: list[float] | None = None, target: str = "") -> None:
    def ms(value: float) -> str:
        return f"{value * 1000:.3f} ms"

    echo_p50, move_p50 = statistics.median(echoes), statistics.median(moves)
    kinds = "echoes of each kind" if durable_echoes else "echoes"
    print(f"\n{title}: {len(moves)} moves, {len(echoes)} {kinds}, alternated")
    print(f"  bare DEALER/ROUTER echo   p50 {ms(echo_p50)}  p99 {ms(percentile(echoes, 0.99))}")
    if durable_echoes:
        durable_p50 = statistics.median(durable_echoes)
        print(f"  echo after fdatasync      p50 {ms(durable_p50)}  "
              f"p99 {ms(percentile(durable_echoes, 0.99))}")
    print(f"  move -> own update        p50 {ms(move_p50)}  p99 {ms(percentile(moves, 0.99))}")
    print(f"  move p50 / echo p50 = {move_p50 / echo_p50:.2f}{target}")
    if durable_echoes:
        print(f"  move p50 / fdatasync'd echo p50 = {move_p50 / durable_p50:.2f} (the server's own "
              f"work above a durable echo; target at most 1.2)")
        print(f"  floor: fdatasync'd echo p50 / echo p50 = {durable_p50 / echo_p50:.2f}; "
              f"move p50 - fdatasync'd echo p50 = {ms(move_p50 - durable_p50)}")


if __name__ == "__main__":
    sys.exit(main())
