"""The table master with no socket (``server/master.py``): requests go in as the frames a
transport would hand it, and what each client would receive comes out of ``commit`` as
(identity, frame) pairs. A move's pipeline (seat by token, command id, stale check, decide,
store, per-seat updates); a commit the store has not ended holds only its own table (its
later requests wait, in order) while pings, the lobby and everyone else are answered; a
commit that failed is undone and refused."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

from starhall.server.config import ServerConfig
from starhall.server.master import TABLES_FOLDER, TableMaster
from starhall.server.stores import Commit, Done, FileStore
from starhall.shared import protocol
from starhall.shared.logfile import TableLog
from tests.server_helpers import FAST_HEARTS, choose

ADA, BOB = b"ada", b"bob"
TURNS = 500
"""Loop turns a test gives the bots at most (they move at once: no think delay)."""


class Gate:
    """A commit the test ends: durable already, but said so only once opened."""

    def __init__(self, failures: list[tuple[TableLog, OSError]], opened: bool) -> None:
        self.opened = opened
        self._failures = failures

    def done(self) -> bool:
        return self.opened

    def sent(self) -> bool:
        return not self.opened

    def wait(self, timeout: float | None) -> bool:
        return self.opened

    def failures(self) -> list[tuple[TableLog, OSError]]:
        return self._failures


class SlowStore(FileStore):
    """A file store whose commits the test holds (``holding``) or fails (``failing``)."""

    holding = False
    failing = False
    gate: Gate | None = None

    def start_commit(self, logs: list[TableLog]) -> Commit:
        if self.failing:
            return Done([(log, OSError(errno.ENOSPC, "No space left on device"))
                         for log in logs])
        self.gate = Gate(self.commit(logs), opened=not self.holding)
        return self.gate


def slow_store(data: Path) -> SlowStore:
    """A ``SlowStore`` where a master with ``data`` as its data folder keeps its tables."""
    folder = data / TABLES_FOLDER
    folder.mkdir(parents=True)
    return SlowStore(folder)


class Driver:
    """Drives a master as the ZeroMQ loop would, one turn at a time."""

    def __init__(self, master: TableMaster) -> None:
        self.master = master
        self.heard: dict[bytes, list[dict[str, Any]]] = {ADA: [], BOB: []}

    def send(self, identity: bytes, message: dict[str, Any]) -> None:
        self.master.handle(identity, [protocol.encode(message)])

    def turn(self) -> list[tuple[bytes, dict[str, Any]]]:
        self.master.bots(people_waiting=False)
        self.master.housekeeping()
        out = [(identity, protocol.decode(frame)) for identity, frame in self.master.commit()]
        for identity, message in out:
            self.heard.setdefault(identity, []).append(message)
        return out

    def ask(self, identity: bytes, message: dict[str, Any]) -> dict[str, Any]:
        """The reply to a request answered in the next turn."""
        self.send(identity, {**message, "rid": "asked"})
        replies = [m for i, m in self.turn() if i == identity and m.get("rid") == "asked"]
        assert replies, f"no reply to {message['type']}"
        return replies[0]

    def reply_to(self, identity: bytes, rid: str) -> dict[str, Any] | None:
        return next((m for m in self.heard[identity] if m.get("rid") == rid
                     and m["type"] != protocol.SNAPSHOT), None)


def ada_s_turn(tmp_path: Path, store: FileStore | None = None
               ) -> tuple[Driver, str, str, dict[str, Any]]:
    """A master on ``tmp_path``, a Hearts table with Ada in seat 0 and bots in the others,
    played by the bots until it is Ada's turn: the driver, the table, her token, her last
    snapshot."""
    config = ServerConfig(data=tmp_path, think=0.0, flood_rate=10_000, flood_burst=10_000)
    driver = Driver(TableMaster(config, store=store))
    table = driver.ask(ADA, {"type": "create", "game": "hearts", "players": 4,
                             "options": FAST_HEARTS})["table"]["id"]
    token = driver.ask(ADA, {"type": "sit", "table": table, "seat": 0})["token"]
    for seat in (1, 2, 3):
        assert driver.ask(BOB, {"type": "bot", "table": table, "seat": seat})["type"] == \
            protocol.BOTTED
    for _ in range(TURNS):
        snapshot = driver.ask(ADA, {"type": "sync", "table": table, "token": token})
        if 0 in snapshot["view"]["to_act"]:
            return driver, table, token, snapshot
        driver.turn()
    raise AssertionError("the bots never gave Ada her turn")


def act(snapshot: dict[str, Any], table: str, token: str, cid: str, rid: str
        ) -> dict[str, Any]:
    command = choose(snapshot["view"])
    assert command is not None
    return {"type": "act", "table": table, "token": token, "seq": snapshot["seq"], "cid": cid,
            "command": command, "rid": rid}


def test_a_move_goes_through_the_pipeline_without_a_socket(tmp_path: Path) -> None:
    driver, table, token, snapshot = ada_s_turn(tmp_path)
    master = driver.master
    move = act(snapshot, table, token, "first", "move")
    wrong = driver.ask(ADA, {**move, "token": "not-a-token"})
    assert (wrong["type"], wrong["code"]) == (protocol.ERROR, protocol.BAD_TOKEN)
    stale = driver.ask(ADA, {**move, "seq": snapshot["seq"] - 1})
    assert (stale["type"], stale["code"]) == (protocol.ERROR, protocol.STALE)
    assert master.tables[table].seq == snapshot["seq"]  # refused: nothing changed
    driver.send(ADA, move)
    out = driver.turn()
    ack = driver.reply_to(ADA, "move")
    assert ack is not None and ack["type"] == protocol.ACK and not ack["duplicate"]
    assert ack["seq"] == snapshot["seq"] + 1
    updates = [(i, m) for i, m in out if m["type"] == protocol.UPDATE]
    assert updates and {i for i, _ in updates} == {ADA}  # only she follows the table
    assert all(m["seat"] == 0 for _, m in updates)  # each cut to her seat
    assert updates[0][1]["seq"] >= ack["seq"]
    again = driver.ask(ADA, {**move, "seq": ack["seq"]})  # a resend: acknowledged again
    assert (again["type"], again["seq"], again["duplicate"]) == (protocol.ACK, ack["seq"], True)
    master.close()


def test_a_commit_under_way_holds_only_its_own_table(tmp_path: Path) -> None:
    store = slow_store(tmp_path)
    driver, table, token, snapshot = ada_s_turn(tmp_path, store)
    store.holding = True
    move = act(snapshot, table, token, "held", "move")
    driver.send(ADA, move)
    driver.send(ADA, {"type": "ping", "rid": "ping"})
    driver.turn()
    pong = driver.reply_to(ADA, "ping")  # answered while the commit waits
    assert pong is not None and pong["seqs"] == {table: snapshot["seq"]}  # nothing held
    assert driver.reply_to(ADA, "move") is None
    assert driver.master.frozen == {table: driver.master.in_flight[0]}
    driver.send(ADA, {**move, "rid": "again"})  # her resend waits for the commit, in order
    listed = driver.ask(BOB, {"type": "list"})  # the lobby answers meanwhile
    assert [t["id"] for t in listed["tables"]] == [table]
    assert driver.reply_to(ADA, "again") is None
    store.holding = False
    assert store.gate is not None
    store.gate.opened = True
    driver.turn()
    ack, again = driver.reply_to(ADA, "move"), driver.reply_to(ADA, "again")
    assert ack is not None and ack["type"] == protocol.ACK and not ack["duplicate"]
    assert again is not None and (again["type"], again["seq"], again["duplicate"]) == (
        protocol.ACK, ack["seq"], True)
    assert driver.master.frozen == {}
    driver.master.close()


def test_a_failed_commit_is_undone_and_refused(tmp_path: Path) -> None:
    store = slow_store(tmp_path)
    driver, table, token, snapshot = ada_s_turn(tmp_path, store)
    store.failing = True
    refused = driver.ask(ADA, act(snapshot, table, token, "full", "move"))
    assert (refused["type"], refused["code"], refused["cid"]) == (protocol.ERROR, "storage",
                                                                  "full")
    live = driver.master.tables[table]
    assert live.seq == snapshot["seq"]  # undone: as if never made
    assert live.command_done(0, "full") is None
    driver.master.close()


def crash_and_restart(driver: Driver, data: Path) -> Driver:
    """The master dies where it stands, as under kill -9 (what it appended and did not
    commit is in no file: it never wrote it), and a new one starts on its folder."""
    dead = driver.master
    dead.bot_turns.thinkers.close()
    dead.store.close()  # its sync threads; its logs are left as they are
    if dead.folder_lock is not None:
        dead.folder_lock.release()  # as the kernel releases a killed process's lock
    config = ServerConfig(data=data, think=60.0, flood_rate=10_000, flood_burst=10_000)
    return Driver(TableMaster(config))


def test_a_seat_change_and_a_crash_before_or_after_its_write_keep_every_token(
        tmp_path: Path) -> None:
    """Ada sat with a key, Bob without. Bob gives his seat up; the master dies before that is
    written: after the restart his seat and token are his still. He gives it up again, which
    is written and answered; the master dies: his token is void, as he was told, and Ada's
    resent ``sit`` gets her seat and token, as before each crash."""
    key = "ada-s-key-0123456789"
    config = ServerConfig(data=tmp_path, think=60.0, flood_rate=10_000, flood_burst=10_000)
    driver = Driver(TableMaster(config))
    table = driver.ask(ADA, {"type": "create", "game": "hearts", "players": 4,
                             "options": FAST_HEARTS})["table"]["id"]
    sit = {"type": "sit", "table": table, "seat": 0, "key": key}
    ada = driver.ask(ADA, sit)["token"]
    bob = driver.ask(BOB, {"type": "sit", "table": table, "seat": 1})["token"]
    give_up = {"type": "leave", "table": table, "token": bob, "give_up": True}
    master = driver.master
    driver.send(BOB, {**give_up, "rid": "lost"})  # handled, never committed
    assert master.tables[table].seats[1].state == protocol.FREE
    driver = crash_and_restart(driver, tmp_path)
    assert driver.master.tables[table].seats[1].state == protocol.PLAYER
    resumed = driver.ask(BOB, {"type": "resume", "table": table, "seat": 1, "token": bob})
    assert (resumed["type"], resumed["token"]) == (protocol.SEATED, bob)
    again = driver.ask(ADA, sit)
    assert (again["type"], again["seat"], again["token"]) == (protocol.SEATED, 0, ada)

    left = driver.ask(BOB, give_up)  # written, then answered
    assert (left["type"], left["kept"]) == (protocol.LEFT, False)
    driver = crash_and_restart(driver, tmp_path)
    assert driver.master.tables[table].seats[1].state == protocol.FREE
    void = driver.ask(BOB, {"type": "resume", "table": table, "seat": 1, "token": bob})
    assert (void["type"], void["code"]) == (protocol.ERROR, protocol.BAD_TOKEN)
    again = driver.ask(ADA, sit)
    assert (again["type"], again["seat"], again["token"]) == (protocol.SEATED, 0, ada)
    resumed = driver.ask(ADA, {"type": "resume", "table": table, "seat": 0, "token": ada})
    assert resumed["type"] == protocol.SEATED
    driver.master.close()
