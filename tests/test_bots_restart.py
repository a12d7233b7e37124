"""Bots after a real kill -9 of ``starhall serve``: a table keeps what the seats of its bots were
shown only where a bot sits, so a restarted server gets that memory from the log, whatever
event the table was at: before its first (bots seated, the deal not yet made), in the middle
of a hand, or as a hand begins. Its bots play on, the table is never stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from starhall.server.embed import free_loopback_port
from starhall.shared.replay import Verified, load, verify
from tests.connection import Connection
from tests.server_helpers import Person, wait_for
from tests.test_server_crash import ENDLESS, kill_hard, start_server, stderr_after_stop, stop

pytestmark = pytest.mark.slow  # real server processes, as test_server_crash


KINDS = pytest.mark.parametrize("kind", ["strong", "random"])
"""A bot that reads what its seat was shown (its memory read from the log after the restart)
and one that never does (its table keeps none)."""


def descendants(pid: int) -> list[int]:
    """Every process ``pid`` started, and theirs (Linux)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += [int(child), *descendants(int(child))]
    return found


def gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status  # dead, its files closed; only not yet reaped


def kill_hard_with_workers(server: subprocess.Popen[str]) -> None:
    """kill -9 of the server and of the worker processes its strong bots think in: that they
    die with it is another part of issue #31 (until then, one left behind keeps the data
    folder locked and the restart waits for it)."""
    workers = descendants(server.pid)
    kill_hard(server)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in workers:
        wait_for(lambda pid=pid: gone(pid))


def seat_bots(address: str, table: str, kind: str) -> None:
    with Connection(address) as lobby:
        for seat in (1, 2, 3):
            reply = lobby.request({"type": "bot", "table": table, "seat": seat, "kind": kind})
            assert reply["type"] == "botted", reply


def table_info(address: str, table: str) -> dict[str, Any]:
    with Connection(address) as lobby:
        tables = lobby.request({"type": "list"})["tables"]
    info: dict[str, Any] = next(each for each in tables if each["id"] == table)
    return info


def new_hearts(address: str) -> str:
    with Connection(address) as lobby:
        table: str = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                    "options": ENDLESS})["table"]["id"]
    return table


def play_until(ada: Person, stop_when: Callable[[dict[str, Any]], bool]) -> None:
    """Ada plays whenever it is her turn until, at her turn, ``stop_when(view)`` holds: the
    bots then wait for her."""
    def there() -> bool:
        if not ada.refresh():
            return False
        if stop_when(ada.feed.view):
            return True
        assert ada.step(0.0) or ada.refresh()
        return False

    wait_for(there, timeout=60)


def hands_played(log: Path, ada: Person, hands: int) -> None:
    """Ada plays whenever it is her turn until the log holds ``hands`` checkpoints (one at
    each hand's end); a table stopped on the way fails at once."""
    def done() -> bool:
        ada.step(0.01)
        if len(load(log).checkpoints) >= hands:
            return True
        info = ada.request({"type": "list"})["tables"]
        status = next(each["status"] for each in info if each["id"] == ada.table)
        assert status != "broken", f"table {ada.table} stopped"
        return False

    wait_for(done, timeout=60)


def bots_play_on_after_kill_9(tmp_path: Path, port: int, server: subprocess.Popen[str],
                              table: str, ada: Person) -> None:
    """Kill the server while the table waits for Ada; restart it; Ada moves and the bots
    answer through a whole hand and into the next; nothing is stopped, every log verifies."""
    seq_before = ada.feed.seq
    kill_hard_with_workers(server)
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        assert table_info(address, table)["seq"] >= seq_before  # bots may have moved since
        ada.resume(address)
        log = tmp_path / "tables" / f"{table}.starhall"
        hands_before = len(load(log).checkpoints)
        hands_played(log, ada, hands_before + 2)
        info = table_info(address, table)
        assert info["status"] == "playing", info
    finally:
        said = stderr_after_stop(server) if server.poll() is None else ""
        stop(server)
    assert "stopped" not in said, said
    for each in sorted((tmp_path / "tables").glob("*.starhall")):
        assert isinstance(verify(each), Verified), each


@KINDS
def test_bots_seated_before_the_first_event_play_after_a_kill_9(tmp_path: Path,
                                                               kind: str) -> None:
    """Three bots sit down, the fourth seat is free: the table is at event 0 when the server
    dies. After the restart a person takes the last seat, the deal is made, and the bots play:
    their memory starts with the deal (before, a table restored at event 0 kept none, and its
    first bot move stopped it)."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        table = new_hearts(address)
        seat_bots(address, table, kind)
        assert table_info(address, table)["seq"] == 0
        kill_hard_with_workers(server)
        server = start_server(tmp_path, port)
        assert table_info(address, table)["seq"] == 0
        ada = Person(address, table, 0)
        log = tmp_path / "tables" / f"{table}.starhall"
        hands_played(log, ada, 2)
        info = table_info(address, table)
        assert info["status"] == "playing", info
        ada.close()
    finally:
        said = stderr_after_stop(server) if server.poll() is None else ""
        stop(server)
    assert "stopped" not in said, said


@KINDS
def test_bots_play_on_after_a_kill_9_in_the_middle_of_a_hand(tmp_path: Path, kind: str) -> None:
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    table = new_hearts(address)
    ada = Person(address, table, 0)
    seat_bots(address, table, kind)
    # Ada's turn in the second hand's play, with some tricks of it played.
    play_until(ada, lambda view: view["hand_number"] >= 2 and view["phase"] == "play"
               and view["tricks_played"] >= 3)
    bots_play_on_after_kill_9(tmp_path, port, server, table, ada)
    ada.close()


@KINDS
def test_bots_play_on_after_a_kill_9_as_a_hand_begins(tmp_path: Path, kind: str) -> None:
    """Between hands: the last hand's checkpoint, its deal, and Ada's first decision of the
    new hand to come (her pass or exchange) when the server dies."""
    port = free_loopback_port()
    address = f"tcp://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    table = new_hearts(address)
    ada = Person(address, table, 0)
    seat_bots(address, table, kind)
    play_until(ada, lambda view: view["hand_number"] >= 2 and view["phase"] != "play")
    log = tmp_path / "tables" / f"{table}.starhall"
    recording = load(log)
    last_checkpoint = max(recording.checkpoints)
    deals = [seq for seq, event in recording.events if event.type == "deal"]
    assert last_checkpoint < deals[-1] <= recording.last_seq  # the new hand has begun
    assert all(event.type != "played" for seq, event in recording.events
               if seq > last_checkpoint)
    bots_play_on_after_kill_9(tmp_path, port, server, table, ada)
    ada.close()
