"""kill -9 of a real ``starhall serve`` process while tables are busy, and a restart on the same
data: every table comes back as its log says, no acknowledged move is missing, play goes on."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from starhall.server.embed import free_loopback_port
from starhall.shared.replay import Verified, load, verify
from tests.connection import Connection
from tests.server_helpers import Person, choose, fill_with_bots, wait_for

ROOT = Path(__file__).resolve().parent.parent
ENDLESS = {"target": 1_000_000}
"""Bots at such a table never finish, so its log is being written when the kill comes."""


def start_server(data: Path, port: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
         "--data", str(data), "--think", "0", "--beacon", "off"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "listening on tcp://127.0.0.1:" in line, (line, process.stderr and process.stderr.read())
    return process


def kill_hard(process: subprocess.Popen[str]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def table_seqs(connection: Connection) -> dict[str, int]:
    tables = connection.request({"type": "list"})["tables"]
    return {table["id"]: table["seq"] for table in tables}


def test_kill_9_and_restart_loses_no_acknowledged_move(tmp_path: Path) -> None:
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    rng = random.Random(4)
    server = start_server(tmp_path, port)
    try:
        lobby = Connection(address)
        busy = []
        for _ in range(3):
            table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": ENDLESS})["table"]["id"]
            for seat in range(4):
                lobby.request({"type": "bot", "table": table, "seat": seat})
            busy.append(table)
        mine = lobby.request({"type": "create", "game": "hearts", "players": 4,
                              "options": ENDLESS})["table"]["id"]
        fill_with_bots(lobby, mine)
        ada = Person(address, mine, 0)
        acked: list[tuple[dict[str, Any], dict[str, Any]]] = []

        for round_number in range(2):
            target = len(acked) + rng.randint(3, 8)
            while len(acked) < target:
                if ada.step(0.01):
                    acked.append((ada.commands[ada.cid], ada.acks[-1]))
            seen_before = table_seqs(lobby)  # replies are sent only after their fsync
            # one more move in flight, then the kill at an arbitrary moment
            wait_for(ada.refresh)
            command = choose(ada.feed.view)
            ada.connection.send({"type": "act", "table": mine, "token": ada.token,
                                 "seq": ada.feed.seq, "cid": f"in-flight-{round_number}",
                                 "command": command})
            if rng.random() < 0.5:
                os.sched_yield()
            kill_hard(server)

            logs = sorted((tmp_path / "tables").glob("*.starhall"))
            assert len(logs) == 4
            for log in logs:
                assert isinstance(verify(log), Verified), log
            events = dict(load(tmp_path / "tables" / f"{mine}.starhall").events)
            for command_sent, ack in acked:
                event = events[ack["seq"]]
                assert event.seat == 0
                assert event.type in ("played", "passed", "exchange_taken",
                                      "exchange_declined")
                if command_sent["type"] == "play":
                    assert event.data["card"] == command_sent["data"]["card"]

            server = start_server(tmp_path, port)
            lobby.close()
            lobby = Connection(address)
            after = table_seqs(lobby)
            assert set(after) == set(seen_before)
            for table, seq in seen_before.items():
                assert after[table] >= seq
            # the bots play on at every table, and the person's token still holds the seat
            def bots_moved(lobby: Connection = lobby, after: dict[str, int] = after) -> bool:
                now = table_seqs(lobby)
                return all(now[table] > after[table] for table in busy)

            wait_for(bots_moved, timeout=20)
            ada.resume(address)
            ada.pump(0.05)
            wait_for(lambda: ada.step(0.01), timeout=20)
            acked.append((ada.commands[ada.cid], ada.acks[-1]))
        lobby.close()
        ada.close()
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=10)
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()
    for log in sorted((tmp_path / "tables").glob("*.starhall")):
        assert isinstance(verify(log), Verified)
