"""Benchmark of a server's memory over its history (a script, not a test).

    .venv/bin/python bench/memory.py [--games 10000] [--wave 100] [--target 100]
                                     [--baseline DIR]

Runs a real ``starhall serve`` process on loopback (data in a temporary folder, bots with no
think delay) and plays ``--games`` games of Hearts out in waves of ``--wave``: each wave's
tables are created through the protocol (``create``, then ``bot`` in every seat: random
bots), and the next wave starts when the lobby lists none of them waiting or playing. The
server's resident memory (VmRSS from /proc) is read after each wave and printed after the
first wave, at a few points between and at the end, with how much it grew from the first
wave to the last, per game and in all (the target: within 20 MB from 100 to 10,000 games).

``--baseline DIR``: another checkout with its own ``.venv`` (say ``git archive ce04c73`` in a
folder, then ``make .venv/.installed`` there) runs a second server the same way, wave for
wave, alternating with this one (each wave first on one, then on the other), and its figures
are printed beside these.

The default run (10,000 games to a target of 100 points) takes about 11 minutes on an idle
2-core machine (the server plays about 15 games a second), far longer on a busy one, and twice
that with ``--baseline``; ``--target`` shortens each game (the game ends after the hand in
which a total reaches it), ``--games`` the history.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from starhall.server.embed import free_loopback_port  # noqa: E402
from starhall.shared import protocol  # noqa: E402
from tests.connection import Connection  # noqa: E402

SETTLE_POLL = 0.2
"""Seconds between two ``list`` requests asking whether a wave's games are all over."""
START_SECONDS = 120.0
"""How long a server may take to answer its first request before the bench gives up."""


class Server:
    """One ``starhall serve`` process of a checkout, its lobby connection, and its figures."""

    def __init__(self, label: str, checkout: Path, data: Path) -> None:
        self.label = label
        python = checkout / ".venv" / "bin" / "python"
        port = free_loopback_port()
        data.mkdir(parents=True)
        self.stderr = open(data / "serve.stderr", "w")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            [str(python if python.exists() else sys.executable), "-m", "starhall", "serve",
             "--bind", f"127.0.0.1:{port}", "--data", str(data), "--think", "0",
             "--flood-rate", "1000000", "--beacon", "off"],
            cwd=checkout, stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.lobby = Connection(f"tcp://127.0.0.1:{port}")
        welcome = self.lobby.request({"type": protocol.HELLO, "name": "memory bench"},
                                     timeout=START_SECONDS)
        if welcome.get("type") != protocol.WELCOME:
            raise RuntimeError(f"{label}: no welcome: {welcome}")
        self.games = 0
        self.rss: dict[int, int] = {}
        """Resident bytes after each wave, by the games finished then."""
        self.seconds = 0.0

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError(f"{self.label}: no VmRSS for process {self.process.pid}")

    def replies(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send every request at once, then gather their replies (in the requests' order)."""
        for rid, request in enumerate(requests, 1):
            self.lobby.send({**request, "rid": rid})
        got: dict[int, dict[str, Any]] = {}
        while len(got) < len(requests):
            message = self.lobby.receive(timeout=START_SECONDS)
            if message is None:
                raise RuntimeError(f"{self.label}: {len(requests) - len(got)} replies missing")
            rid = message.get("rid")
            if isinstance(rid, int) and 0 < rid <= len(requests):
                if message.get("type") == protocol.ERROR:
                    raise RuntimeError(f"{self.label}: {requests[rid - 1]} → {message}")
                got[rid] = message
        return [got[rid] for rid in range(1, len(requests) + 1)]

    def play_wave(self, count: int, options: dict[str, Any]) -> None:
        """Play ``count`` games of four random bots out, then read the server's memory."""
        started = time.perf_counter()
        created = self.replies([{"type": protocol.CREATE, "game": "hearts", "players": 4,
                                 "options": options} for _ in range(count)])
        self.replies([{"type": protocol.BOT, "table": reply["table"]["id"], "seat": seat,
                       "kind": "random"} for reply in created for seat in range(4)])
        while True:
            (listed,) = self.replies([{"type": protocol.LIST,
                                       "status": [protocol.WAITING, protocol.PLAYING]}])
            if listed["total"] == 0:
                break
            time.sleep(SETTLE_POLL)
        (broken,) = self.replies([{"type": protocol.LIST, "status": [protocol.BROKEN_STATUS]}])
        if broken["total"]:
            raise RuntimeError(f"{self.label}: {broken['total']} tables broke; see "
                               f"{self.stderr.name}")
        self.seconds += time.perf_counter() - started
        self.games += count
        self.rss[self.games] = self.rss_bytes()

    def close(self) -> None:
        self.lobby.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


def mb(count: int) -> str:
    return f"{count / 1e6:7.1f} MB"


def report(servers: list[Server], first: int) -> None:
    games = sorted(servers[0].rss)
    shown = [first, *(n for n in games if n != first and n % max(1, games[-1] // 10) == 0)]
    if games[-1] not in shown:
        shown.append(games[-1])
    print(f"\n{'games':>8}" + "".join(f"{server.label:>14}" for server in servers))
    for count in shown:
        print(f"{count:>8,}" + "".join(f"{mb(server.rss[count]):>14}" for server in servers))
    last = games[-1]
    print()
    for server in servers:
        grown = server.rss[last] - server.rss[first]
        per_game = grown / (last - first) if last > first else 0.0
        print(f"{server.label}: RSS after {last:,} finished games {mb(server.rss[last]).strip()}"
              f", after {first:,} {mb(server.rss[first]).strip()}: grew {grown / 1e6:.1f} MB "
              f"({per_game / 1e3:.1f} KB a game; target within 20 MB); "
              f"{server.games / server.seconds:.1f} games/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--wave", type=int, default=100, help="games played at once")
    parser.add_argument("--target", type=int, default=100,
                        help="Hearts' target: a game ends after the hand a total reaches it")
    parser.add_argument("--baseline", type=Path,
                        help="another checkout (with its own .venv) to measure alike")
    args = parser.parse_args()
    if args.games < args.wave or args.wave < 1:
        parser.error("--games must be at least one --wave")
    if args.baseline is not None and not (args.baseline / ".venv" / "bin" / "python").exists():
        parser.error(f"--baseline {args.baseline}: no .venv there (run make .venv/.installed "
                     "in it): its server would run this checkout's code")
    folder = Path(tempfile.mkdtemp(prefix="starhall-memory-"))
    servers: list[Server] = []
    try:
        servers.append(Server("this", ROOT, folder / "this"))
        if args.baseline is not None:
            servers.append(Server("baseline", args.baseline.resolve(), folder / "baseline"))
        options = {"target": args.target}
        waves = args.games // args.wave
        for wave in range(waves):
            order = servers if wave % 2 == 0 else servers[::-1]
            for server in order:
                server.play_wave(args.wave, options)
            if wave == 0 or (wave + 1) % max(1, waves // 10) == 0 or wave + 1 == waves:
                print(f"{servers[0].games:>8,} games: " + ", ".join(
                    f"{server.label} {mb(server.rss[server.games]).strip()}"
                    for server in servers), flush=True)
        report(servers, args.wave)
    finally:
        for server in servers:
            server.close()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
