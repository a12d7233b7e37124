"""Searching bots think in worker processes (server/thinking.py, server/bot_worker.py): the
server goes on answering everyone meanwhile, a bot that overruns its budget still gets a move
played, a worker is sent only the events since its seat's last move and answers as a fresh bot
would, and kill -9 of the server leaves no worker behind to hold its port."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from starhall.server import bot_worker, thinking
from starhall.server.bot_worker import Worker, plain
from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.shared import protocol
from starhall.shared.bots import make_bot
from starhall.shared.engine import Command
from starhall.shared.games import get_game
from starhall.shared.games.hearts import bots as hearts_bots
from starhall.shared.observation import Observation
from starhall.shared.replay import load
from starhall.shared.table import Table
from tests import thinking_bots as thinking_bots_module
from tests.connection import Connection
from tests.server_helpers import (
    Participant,
    Person,
    address,
    choose,
    fill_with_bots,
    log_of,
    wait_for,
)


@pytest.fixture
def bot_gate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The tests' bot kinds (``tests/thinking_bots.py``), known to the server's process and
    its workers alike; the path of the gate file that lets ``gated`` bots move."""
    for kind, bot in thinking_bots_module.BOTS.items():
        monkeypatch.setitem(hearts_bots.BOTS, kind, bot)
    monkeypatch.setattr(thinking, "WORKER_IMPORTS", ("tests.thinking_bots_in_worker",))
    gate = tmp_path / "gate"
    monkeypatch.setenv(thinking_bots_module.GATE, str(gate))
    return gate


def bots_table(lobby: Participant, kind: str) -> str:
    created = lobby.request({"type": "create", "game": "hearts", "players": 4})
    table: str = created["table"]["id"]
    for seat in range(4):
        reply = lobby.request({"type": "bot", "table": table, "seat": seat, "kind": kind})
        assert reply["type"] == protocol.BOTTED, reply
    return table


def bot_moved(message: dict[str, Any], table: str) -> bool:
    """Whether ``message`` tells of a move of a seat (a bot's) at ``table``."""
    return (message.get("type") == protocol.UPDATE and message.get("table") == table
            and any(event.get("seat") is not None for event in message["events"]))


def test_moves_at_other_tables_are_answered_while_slow_bots_think(tmp_path: Path,
                                                                 bot_gate: Path) -> None:
    # The bots think until the gate opens, long before their budget would run out.
    with EmbeddedServer(tmp_path / "data", think=60.0, flood_rate=10_000,
                        flood_burst=10_000) as server:
        lobby = Participant(address(server))
        slow = [bots_table(lobby, "gated") for _ in range(3)]  # each deals, and thinks
        created = lobby.request({"type": "create", "game": "hearts", "players": 4})
        other = created["table"]["id"]
        ada = Person(address(server), other, 0)
        fill_with_bots(lobby, other)
        for table in slow:  # Ada watches the thinking tables on her own connection
            assert ada.request({"type": "watch", "table": table})["type"] == "watching"
        wait_for(lambda: ada.refresh())  # her turn to pass
        before = ada.drain()
        assert not any(bot_moved(m, t) for m in before for t in slow)
        command = choose(ada.feed.view)
        assert command is not None
        reply = ada.act(command)
        assert reply["type"] == protocol.ACK
        # The ack came first: nothing the slow bots played arrived before it ...
        assert not any(bot_moved(m, t) for m in ada.connection._inbox for t in slow)
        # ... and they do play, after it, once their thinking is over.
        bot_gate.touch()
        wait_for(lambda: any(bot_moved(m, t) for m in ada.drain(0.05) for t in slow),
                 timeout=30)
        lobby.close()
        ada.close()


def test_a_bot_that_overruns_its_budget_still_gets_a_move_played(
        tmp_path: Path, bot_gate: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The first move overruns: the Normal bot plays it. Its worker, stuck, is started afresh,
    so the bots play their later moves themselves again (without it, never)."""
    played = Path(f"{bot_gate}.played")
    with EmbeddedServer(tmp_path / "data", think=0.2) as server:
        lobby = Participant(address(server))
        table = bots_table(lobby, "overrun")
        wait_for(lambda: any(event.seat is not None
                             for _, event in load(log_of(server, table)).events), timeout=60)
        wait_for(lambda: played.exists() and len(played.read_text().split()) >= 3, timeout=60)
        lobby.close()
    said = capfd.readouterr().err
    assert "the overrun bot of seat" in said and "did not answer in time" in said


def hearts_game(moves: int, seed: int) -> Table:
    """A Hearts table of four after ``moves`` random moves (its deals included)."""
    table = Table.new(get_game("hearts"), 4, {})
    table.remember()
    rng = random.Random(seed)
    table.shuffle(rng.getrandbits(32))
    for _ in range(moves):
        state = table.state
        seat = table.game.to_act(state)[0]
        table.submit(table.game.random_choice(table.game.legal_actions(state, seat), rng))
        if table.game.chance(table.state) is not None:
            table.shuffle(rng.getrandbits(32))
    return table


def acting(table: Table) -> Observation:
    """The observation of the seat whose turn it is at ``table``."""
    return table.observe(table.game.to_act(table.state)[0])


def request(key: tuple[str, int, str], seed: int, seen: Observation, start: int
            ) -> tuple[Any, ...]:
    """What ``server/thinking.py`` sends a worker for ``seen`` with no time to think, when it
    holds ``start`` events."""
    return bot_worker.request(key, seed, seen, start, 0.0)


def test_a_worker_given_only_what_is_new_moves_as_a_fresh_bot_given_everything() -> None:
    worker = Worker()
    held: dict[tuple[str, int, str], int] = {}
    rng = random.Random(8)
    for moves in (0, 12, 30, 31, 47, 60, 90):
        seen = acting(hearts_game(moves, 5))
        seed = rng.getrandbits(64)
        fresh = make_bot(seen.game, "strong", random.Random(seed)).choose(seen, 0.0)
        key = ("t", seen.seat, "strong")
        assert worker.answer(request(key, seed, seen, held.get(key, 0))) == ("move", plain(fresh))
        held[key] = len(seen.seen)
    assert len(held) > 1 and max(len(session.seen) for session in worker.sessions.values()) > 90


def test_a_worker_that_holds_other_events_asks_for_them_all() -> None:
    worker = Worker()
    seen = acting(hearts_game(20, 6))
    key = ("t", seen.seat, "random")
    assert worker.answer(request(key, 1, seen, 5)) == ("again",)  # holds nothing
    assert worker.answer(request(key, 1, seen, 0))[0] == "move"
    other = hearts_game(25, 7).observe(seen.seat)  # another game: its events differ
    assert worker.answer(request(key, 1, other, len(seen.seen))) == ("again",)


def test_a_worker_keeps_the_sessions_used_last(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_worker, "SESSIONS", 2)
    worker = Worker()
    seen = acting(hearts_game(20, 6))
    for table in ("a", "b", "a", "c"):  # "b" used least recently: dropped
        key = (table, seen.seat, "random")
        assert worker.answer(request(key, 1, seen, 0))[0] == "move"
    assert list(worker.sessions) == [("a", seen.seat, "random"), ("c", seen.seat, "random")]
    assert worker.answer(request(("b", seen.seat, "random"), 1, seen, 3)) == ("again",)


def test_a_worker_is_sent_only_the_events_since_its_seats_last_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """... and a worker that died is started afresh and sent everything, once: found dead
    before a move, or dying as it is asked (then the move is asked again)."""
    sent: list[tuple[int, int]] = []
    ask = thinking._Worker._ask
    thinkers = thinking.Thinkers(workers=1)
    dies_when_asked = {"now": False}

    def kill_worker() -> None:
        process = thinkers.workers[0].process
        assert process is not None
        process.kill()
        process.wait()

    def counted(stdin: Any, stdout: Any, job: Any, start: int) -> Any:
        sent.append((start, len(job.seen.seen) - start))
        if dies_when_asked["now"]:
            dies_when_asked["now"] = False
            kill_worker()
        return ask(stdin, stdout, job, start)

    monkeypatch.setattr(thinking._Worker, "_ask", staticmethod(counted))
    monkeypatch.setattr(thinking, "GRACE", 60.0)  # no worker stopped however slow the machine
    rng = random.Random(3)
    expected = []
    held: dict[int, int] = {}
    try:
        for moves in (10, 14, 18, 22, 26, 30):
            seen = acting(hearts_game(moves, 9))
            start = held.get(seen.seat, 0)
            if moves == 26:
                kill_worker()
                held.clear()
                start = 0
            elif moves == 30:
                dies_when_asked["now"] = True
                expected.append((start, len(seen.seen) - start))
                held.clear()
                start = 0
            thought = thinkers.ask("random", seen, 0.0, rng, 0, "t")
            kind, seat, data = thought.future.result(timeout=30)
            assert Command(kind, seat, data) in seen.legal
            expected.append((start, len(seen.seen) - start))
            held[seen.seat] = len(seen.seen)
    finally:
        thinkers.close()
    assert any(start for start, _ in sent)
    assert sent == expected


def test_a_tables_seats_think_in_one_worker_and_tables_spread_over_the_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(thinking, "GRACE", 60.0)  # no worker stopped however slow the machine
    thinkers = thinking.Thinkers(workers=2)
    rng = random.Random(4)
    try:
        for moves, table in ((10, "a"), (12, "b"), (14, "a"), (16, "b"), (18, "a")):
            seen = acting(hearts_game(moves, 2))
            thinkers.ask("random", seen, 0.0, rng, 0, table).future.result(timeout=30)
            if table == "a":
                first = thinkers.routes["a"]
            assert thinkers.routes["a"] is first
        assert thinkers.routes["a"] is not thinkers.routes["b"]
    finally:
        thinkers.close()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def serve(data: Path, port: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
         "--data", str(data), "--think", "30", "--beacon", "off"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "listening on tcp://127.0.0.1:" in line, (line, process.stderr and process.stderr.read())
    return process


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        process.communicate(timeout=30)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_kill_9_with_strong_bots_thinking_leaves_no_worker_and_the_port_free(
        tmp_path: Path) -> None:
    port = free_loopback_port()
    server = serve(tmp_path, port)
    workers: list[int] = []
    try:
        lobby = Connection(f"tcp://127.0.0.1:{port}")
        for _ in range(2):  # a table for each worker
            table = lobby.request({"type": "create", "game": "hearts", "players": 4})
            for seat in range(4):
                reply = lobby.request({"type": "bot", "table": table["table"]["id"],
                                       "seat": seat, "kind": "strong"})
                assert reply["type"] == protocol.BOTTED, reply
        workers += wait_for(lambda: len(children(server.pid)) >= thinking.WORKERS
                            and children(server.pid), timeout=60)
        lobby.close()
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()  # a worker left behind would hold them open
        wait_for(lambda: not any(running(worker) for worker in workers), timeout=30)
        server = serve(tmp_path, port)  # binds its port at once
    finally:
        stop(server)
        for worker in workers:
            if running(worker):  # left behind: this test failed, but leaves nothing running
                os.kill(worker, signal.SIGKILL)
