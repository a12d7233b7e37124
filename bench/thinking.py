"""Benchmark: the server answers as quickly while Strong bots think (a script, not a test).

    .venv/bin/python bench/thinking.py [--tables 10] [--think 1.0] [--samples 2000]

Runs two real ``starhall serve`` processes on loopback, each with its data in a temporary
folder: one idle, and one where ``--tables`` Hearts tables of four Strong bots play on
(``think`` seconds a move, in the server's bot workers, which keep their cores busy). Once the
busy server's bots are thinking, it times ``ping`` round trips (from sending the request to
receiving its ``pong``; the flood limit is raised for it), alternated one by one between the
idle server and the busy one, so both are measured on the same machine under the same load.
It prints each one's p50 and p99, the ratio of the busy server's p99 to the idle one's
(target: at most 1.5), and how many moves the busy server's workers answered too late (a
fallback move played instead).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from starhall.server.embed import free_loopback_port  # noqa: E402
from starhall.shared import protocol  # noqa: E402
from tests.connection import Connection  # noqa: E402

ENDLESS = {"target": 1_000_000}
"""Bots at such a table never finish."""


def serve(data: Path) -> tuple[subprocess.Popen[str], str]:
    port = free_loopback_port()
    data.mkdir(parents=True)
    with open(data.parent / f"{data.name}.stderr", "w") as said:
        process = subprocess.Popen(
            [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
             "--data", str(data), "--beacon", "off", "--flood-rate", "100000"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=said, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "listening on" not in line:
        raise RuntimeError(f"starhall serve did not start: {line!r}")
    return process, f"tcp://127.0.0.1:{port}"


def seat_strong_bots(connection: Connection, tables: int, think: float) -> list[str]:
    made = []
    for _ in range(tables):
        created = connection.request({"type": "create", "game": "hearts", "players": 4,
                                      "options": ENDLESS, "think": think})
        table = created["table"]["id"]
        for seat in range(4):
            reply = connection.request({"type": "bot", "table": table, "seat": seat,
                                        "kind": "strong"})
            if reply["type"] != protocol.BOTTED:
                raise RuntimeError(f"no Strong bot at {table}: {reply}")
        made.append(table)
    return made


def moves_made(connection: Connection) -> int:
    return sum(table["seq"] for table in connection.request({"type": "list"})["tables"])


def ping(connection: Connection) -> float:
    started = time.perf_counter()
    reply = connection.request({"type": protocol.PING})
    elapsed = time.perf_counter() - started
    if reply["type"] != protocol.PONG:
        raise RuntimeError(f"not a pong: {reply}")
    return elapsed


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="starhall-bench-thinking-") as folder:
        idle_server, idle_address = serve(Path(folder) / "idle")
        busy_server, busy_address = serve(Path(folder) / "busy")
        try:
            idle, busy = Connection(idle_address), Connection(busy_address)
            seat_strong_bots(busy, args.tables, args.think)
            start = moves_made(busy)
            while moves_made(busy) < start + 8 * args.tables:  # past the deals and passes
                time.sleep(0.1)
            samples: dict[str, list[float]] = {"idle": [], "busy": []}
            for _ in range(args.samples):
                samples["idle"].append(ping(idle))
                samples["busy"].append(ping(busy))
            played = moves_made(busy) - start
            ms = 1000
            print(f"ping round trip, {args.samples} samples each, alternated; "
                  f"{args.tables} tables of Strong bots thinking {args.think:g} s a move "
                  f"({played} events meanwhile)")
            for name, taken in samples.items():
                print(f"  {name} server: p50 {statistics.median(taken) * ms:.3f} ms, "
                      f"p99 {percentile(taken, 0.99) * ms:.3f} ms")
            ratio = percentile(samples["busy"], 0.99) / percentile(samples["idle"], 0.99)
            print(f"  p99 busy / idle: {ratio:.2f} (target <= 1.5)")
            said = (Path(folder) / "busy.stderr").read_text()
            print(f"  moves the Normal bot played for a worker late: {said.count(' instead')}")
            idle.close()
            busy.close()
        finally:
            for server in (idle_server, busy_server):
                server.terminate()
                server.communicate(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
