"""kill -9 of a real ``starhall serve`` process while tables are busy, and a restart on the same
data: every table comes back as its log says, no acknowledged move is missing and each is still
known by its command id, play goes on. A log cut short underneath the server is cut back with
a word on stderr; a server listens only once its tables are restored."""

from __future__ import annotations

import json
import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import msgpack
import pytest

from starhall.client.net.link import ServerLink
from starhall.server.embed import free_loopback_port
from starhall.shared import protocol
from starhall.shared.logfile import encode_record, read_records
from starhall.shared.replay import Verified, load, verify
from tests.connection import Connection
from tests.server_helpers import Person, choose, fill_with_bots, wait_for

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

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


# --- command ids after a kill -9 --------------------------------------------------------------

class Resender(Person):
    """A person who keeps each move the server acknowledged, exactly as it was sent, so as to
    send it again (as a client does whose ack was lost)."""

    def __init__(self, address: str, table: str, seat: int | None = None) -> None:
        super().__init__(address, table, seat)
        self.sent: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def act(self, command: dict[str, Any], *, seq: int | None = None,
            cid: Any = None) -> dict[str, Any]:
        self.cid += 1
        request = {"type": "act", "table": self.table, "token": self.token,
                   "seq": self.feed.seq if seq is None else seq,
                   "cid": self.cid if cid is None else cid, "command": command}
        reply = self.request(request)
        if reply["type"] == "ack":
            self.acks.append(reply)
            self.commands[request["cid"]] = command
            self.sent.append((request, reply))
        return reply

    def assert_every_move_is_a_duplicate(self) -> None:
        """Each move sent again as it was is acknowledged as a duplicate, at the ``seq`` its
        first ack gave."""
        for request, ack in self.sent:
            reply = self.request(request)
            assert reply["type"] == "ack" and reply["duplicate"], (ack["seq"], reply)
            assert reply["seq"] == ack["seq"]


def restart_server(server: subprocess.Popen[str], data: Path, port: int
                   ) -> subprocess.Popen[str]:
    kill_hard(server)
    return start_server(data, port)


def stop(server: subprocess.Popen[str]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
    for stream in (server.stdout, server.stderr):
        if stream is not None:
            stream.close()



def hearts_for_ada(address: str) -> str:
    """A new endless Hearts table whose seats but seat 0 are bots: its id."""
    with Connection(address) as lobby:
        table: str = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                    "options": ENDLESS})["table"]["id"]
        fill_with_bots(lobby, table)
    return table

def test_every_move_of_a_long_game_is_known_by_its_cid_after_kill_9(tmp_path: Path) -> None:
    """The log's first checkpoint (the first hand's end) and the last 1024 events before the
    kill are no limit: the server remembers each seat's last 1024 command ids, before a
    restart as after it."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        table = hearts_for_ada(address)
        ada = Resender(address, table, 0)
        log = tmp_path / "tables" / f"{table}.starhall"
        wait_for(lambda: ada.step(0.01) and ada.acks[-1]["seq"] > 1100, timeout=120)
        checkpoints = sorted(load(log).checkpoints)
        assert ada.sent[0][1]["seq"] < checkpoints[0] < ada.acks[-1]["seq"] - 1024

        server = restart_server(server, tmp_path, port)
        ada.resume(address)
        ada.assert_every_move_is_a_duplicate()
        ada.close()
    finally:
        stop(server)


@pytest.mark.parametrize("summary", ["written", "lost in the kill"])
def test_the_move_that_ended_a_game_is_known_by_its_cid_after_kill_9(
        tmp_path: Path, summary: str) -> None:
    """The Star ends with its only checkpoint: every move comes before it, the last one too."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        with Connection(address) as lobby:
            table = lobby.request({"type": "create", "game": "star_patience", "players": 1,
                                   "options": {"deal": 1}})["table"]["id"]
        ada = Resender(address, table, 0)
        for _ in range(3):
            wait_for(ada.refresh)
            legal = ada.feed.view["legal"]
            move = ({"type": "pair", "data": {"card": legal["pair"][0]}} if legal["pair"]
                    else {"type": "place", "data": {"line": legal["place"][0]}})
            assert ada.act(move)["type"] == "ack"
        wait_for(ada.refresh)
        assert ada.act({"type": "give_up", "data": {}})["type"] == "ack"
        summary_file = tmp_path / "tables" / f"{table}.summary.json"
        wait_for(summary_file.exists)
        kill_hard(server)
        if summary == "lost in the kill":
            summary_file.unlink()
        server = start_server(tmp_path, port)
        ada.resume(address)
        ada.assert_every_move_is_a_duplicate()
        ada.close()
    finally:
        stop(server)


# --- a log cut short underneath the server -------------------------------------------------

def stderr_after_stop(server: subprocess.Popen[str]) -> str:
    """What the server said on stderr, once it has stopped (SIGTERM)."""
    server.send_signal(signal.SIGTERM)
    _, said = server.communicate(timeout=10)
    return said


def test_a_log_cut_short_underneath_the_server_is_cut_back_at_the_next_start_with_a_word(
        tmp_path: Path) -> None:
    """The log is cut inside its first event (the deal) while the server runs; it appends the
    next moves after the cut, and acknowledges them. At the next start the cut record seems to
    go on to the end of the file: the table goes back to before it, and stderr says so in one
    line, with what was dropped (the moves acknowledged after the cut among it)."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        table = hearts_for_ada(address)
        ada = Resender(address, table, 0)
        wait_for(ada.refresh)  # dealt: the game waits for seat 0's exchange
        log = tmp_path / "tables" / f"{table}.starhall"
        (deal,) = [(offset, body) for offset, body in read_records(log.read_bytes(), log)[0]
                   if body.get("kind") == "event" and body.get("seq") == 1]
        offset, body = deal
        record = encode_record(body)
        cut = (offset + record.index(msgpack.packb("order")) + len(msgpack.packb("order")) + 3
               + sum(len(msgpack.packb(card)) for card in body["data"]["order"][:5]))
        os.truncate(log, cut)  # five cards of its sixty-five: the rest is cut off
        while len(ada.acks) < 10:
            ada.step(0.01)
        last = ada.acks[-1]["seq"]
        size = log.stat().st_size
        kill_hard(server)

        server = start_server(tmp_path, port)
        with Connection(address) as lobby:
            assert table_seqs(lobby)[table] == 1  # back at its start, dealt again
        said = stderr_after_stop(server)
    finally:
        stop(server)
    lines = [line for line in said.splitlines() if f"table {table}" in line]
    assert len(lines) == 1, said
    line = lines[0]
    assert f"dropped the last {size - offset:,} bytes of its log after event 0" in line, line
    assert "a record cut short (event 1, deal)" in line, line
    found = re.search(r"then (\d+) whole records holding events 2 to (\d+);", line)
    assert found is not None, line
    records, until = int(found[1]), int(found[2])
    assert until >= last and records == until - 1  # the acknowledged moves among them
    assert "cut short while the server wrote it" in line, line
    assert log.stat().st_size < offset + len(record) + 2000  # cut back, then dealt again



def test_a_seat_change_in_flight_at_kill_9_keeps_every_token(tmp_path: Path) -> None:
    """A stand-in bot asked for a left player's seat, the server killed at an arbitrary
    moment after: written or not, both people's tokens hold their seats after the restart,
    a resent keyed ``sit`` gets Ada's seat and token again, and the log verifies."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    rng = random.Random(31)
    key = "ada-s-key-in-flight-42"
    server = start_server(tmp_path, port)
    try:
        with Connection(address) as lobby:
            table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": ENDLESS})["table"]["id"]
            sit = {"type": "sit", "table": table, "seat": 0, "key": key}
            ada = lobby.request(sit)["token"]
            bruno = lobby.request({"type": "sit", "table": table, "seat": 1})["token"]
            fill_with_bots(lobby, table, (2, 3))
        log = tmp_path / "tables" / f"{table}.starhall"
        for round_number in range(3):
            with Connection(address) as person:
                wait_for(lambda: load(log).last_seq >= 1)
                assert person.request({"type": "leave", "table": table, "token": bruno}
                                      )["kept"]
                person.send({"type": "bot", "table": table, "seat": 1, "token": ada})
                if rng.random() < 0.5:
                    os.sched_yield()
                kill_hard(server)
            assert isinstance(verify(log), Verified)
            server = start_server(tmp_path, port)
            with Connection(address) as person:
                again = person.request(sit)
                assert (again["type"], again["token"]) == (protocol.SEATED, ada), round_number
                back = person.request({"type": "resume", "table": table, "seat": 1,
                                       "token": bruno})
                assert back["type"] == protocol.SEATED, (round_number, back)
    finally:
        stop(server)

# --- a restart that takes a while --------------------------------------------------------------

def test_a_restarting_server_does_not_listen_until_its_tables_are_restored(
        tmp_path: Path) -> None:
    """While the tables are restored the port refuses connections, and no other server may
    start on the same data folder; a client that came meanwhile is answered once the server
    listens. The restore is held up by an older server's seating file that is a pipe (a
    restart reads one as the table's seating while it is there), until the test writes into
    it the seating the log has."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    table = hearts_for_ada(address)
    kill_hard(server)
    seating = tmp_path / "tables" / f"{table}.seats.json"
    kept = json.dumps({"name": table, "seats": [
        {"state": seat["state"], "name": seat["name"], "bot": seat["bot"],
         "standin": seat["standin"], "token_sha256": seat.get("owner", {}).get("token_hash"),
         "since": seat.get("owner", {}).get("since", 0)}
        for seat in load(tmp_path / "tables" / f"{table}.starhall").seats_at()]}).encode()
    os.mkfifo(seating)

    restarting = subprocess.Popen(
        [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
         "--data", str(tmp_path), "--think", "0", "--beacon", "off"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    link = None
    try:
        said: queue.Queue[str] = queue.Queue()
        assert restarting.stderr is not None and restarting.stdout is not None
        threading.Thread(target=lambda: [said.put(line) for line in restarting.stderr or ()],
                         daemon=True).start()
        assert "restoring 1 tables" in said.get(timeout=60)  # and it waits for the pipe
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
        other = subprocess.run(
            [sys.executable, "-m", "starhall", "serve", "--bind", "127.0.0.1:*",
             "--data", str(tmp_path), "--beacon", "off"],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert other.returncode == 2, other.stderr
        assert other.stderr == (f"starhall: {tmp_path / 'tables'}: another starhall serve "
                                "runs on it\n")
        link = ServerLink(address, "Ada")  # says hello, and hears nothing yet
        assert link.poll() == [] and link.state == "connecting"

        with open(seating, "wb") as pipe:  # the restore goes on
            pipe.write(kept)
        assert "listening on" in restarting.stdout.readline()
        wait_for(lambda: link is not None and (link.poll(), link.state)[1] == "connected",
                 timeout=20)
        assert link.welcome is not None and link.welcome["type"] == "welcome"
    finally:
        if link is not None:
            link.close()
        stop(restarting)


def test_a_port_in_use_stops_a_server_before_it_restores_its_tables(tmp_path: Path) -> None:
    """The second server's restore would wait for ever (an older server's seating file that is
    a pipe nobody writes): it stops, saying why, before it starts on it."""
    port = free_loopback_port()
    first = start_server(tmp_path / "first", port)
    try:
        second, its_port = tmp_path / "second", free_loopback_port()
        start = start_server(second, its_port)
        with Connection(f"tcp://127.0.0.1:{its_port}") as lobby:
            table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                   "options": ENDLESS})["table"]["id"]
        stop(start)
        os.mkfifo(second / "tables" / f"{table}.seats.json")
        refused = subprocess.run(
            [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
             "--data", str(second), "--beacon", "off"],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2
        assert refused.stderr == (f"starhall: --bind 127.0.0.1:{port}: that port is already in "
                                  "use (another `starhall serve`?); choose another with --bind "
                                  "HOST:PORT\n")
    finally:
        stop(first)
