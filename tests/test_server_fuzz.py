"""Bad input over the socket: random and mutated frames, wrong types, several frames, an
oversize message, a flood. Each gets an error or is dropped; the server keeps serving and a
game at another table goes on undisturbed."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgpack
import pytest

from starhall.server.embed import EmbeddedServer
from starhall.shared import protocol
from starhall.shared.replay import Verified, verify
from tests.connection import Connection
from tests.server_helpers import (
    FAST_HEARTS,
    Person,
    fill_with_bots,
    play_until_over,
    wait_for,
)

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

CASES = 400

TEMPLATES: list[dict[str, Any]] = [
    {"type": "hello", "name": "Mallory", "protocol": 1},
    {"type": "ping"},
    {"type": "list", "offset": 0},
    {"type": "create", "game": "hearts", "players": 4, "options": {"mode": "exchange"}},
    {"type": "sit", "table": "0001", "seat": 0, "name": "M"},
    {"type": "resume", "table": "0001", "seat": 0, "token": "abc"},
    {"type": "leave", "table": "0001", "token": "abc"},
    {"type": "watch", "table": "0001"},
    {"type": "unwatch", "table": "0001"},
    {"type": "bot", "table": "0001", "seat": 1, "kind": "random", "token": "abc"},
    {"type": "unbot", "table": "0001", "seat": 1, "token": "abc"},
    {"type": "act", "table": "0001", "token": "abc", "seq": 3, "cid": 1,
     "command": {"type": "play", "data": {"card": "2C"}}},
    {"type": "sync", "table": "0001", "token": "abc"},
    {"type": "report", "table": "0001", "note": "it froze", "seq": 3,
     "versions": {"starhall": "0.1.0"}},
]

ODD_VALUES: list[Any] = [None, True, -1, 0, 2**63 - 1, -(2**63), 1.5, float("nan"), "",
                         "x" * 3000, b"\x00\xff", [], [1, [2, [3]]], {}, {"type": 1},
                         {1: 2}, msgpack.ExtType(5, b"ext"), "0001", "act"]


def odd(rng: random.Random) -> Any:
    return rng.choice(ODD_VALUES)


def mutate(rng: random.Random) -> list[bytes]:
    """One case: the frames of a message no well-behaved client would send."""
    template = dict(rng.choice(TEMPLATES))
    choice = rng.randrange(7)
    if choice == 0:  # random bytes
        return [rng.randbytes(rng.randrange(0, 300))]
    if choice == 1:  # a field of the wrong type, or an unknown one
        key = rng.choice([*template, "type", "rid", "extra"])
        template[key] = odd(rng)
        return [msgpack.packb(template, use_bin_type=True)]
    if choice == 2:  # flipped bytes
        frame = bytearray(msgpack.packb(template, use_bin_type=True))
        for _ in range(rng.randint(1, 4)):
            frame[rng.randrange(len(frame))] = rng.randrange(256)
        return [bytes(frame)]
    if choice == 3:  # cut short, or with trailing garbage
        frame = msgpack.packb(template, use_bin_type=True)
        if rng.random() < 0.5:
            return [frame[: rng.randrange(len(frame))]]
        return [frame + rng.randbytes(rng.randint(1, 20))]
    if choice == 4:  # several frames
        frame = msgpack.packb(template, use_bin_type=True)
        return [frame] * rng.randint(2, 4)
    if choice == 5:  # not a map
        return [msgpack.packb(rng.choice([[1, 2], "ping", 7, None, [template]]),
                              use_bin_type=True)]
    # deep nesting: a one-item array (0x91) around another, thousands of times
    depth = rng.randint(10, 5000)
    return [b"\x91" * depth + msgpack.packb(template, use_bin_type=True)]


def test_random_and_mutated_frames_never_hurt_the_server(tmp_path: Path) -> None:
    rng = random.Random(20)
    with EmbeddedServer(tmp_path, think=0.0, flood_rate=100_000,
                        flood_burst=100_000) as server:
        assert server.address is not None
        lobby = Connection(server.address)
        table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": FAST_HEARTS})["table"]["id"]
        fill_with_bots(lobby, table)
        ada = Person(server.address, table, 0)

        fuzzer = Connection(server.address)
        replies: list[dict[str, Any]] = []
        for case in range(CASES):
            fuzzer.send_raw(mutate(rng))
            if case % 10 == 0:  # the server answers in order: a ping is a checkpoint
                pong = fuzzer.request({"type": "ping"})
                assert pong["type"] == protocol.PONG
                ada.step(0.0)  # the game at the other table goes on meanwhile
            while (message := fuzzer.receive(0)) is not None:
                replies.append(message)
        assert fuzzer.request({"type": "ping"})["type"] == protocol.PONG
        codes = {m.get("code") for m in replies if m["type"] == protocol.ERROR}
        assert {protocol.BAD_MESSAGE, protocol.BAD_FIELD} <= codes
        assert protocol.INTERNAL not in codes

        oversize = Connection(server.address)  # ZeroMQ drops this peer's connection
        oversize.send_raw([protocol.encode({"type": "ping", "pad": "x" * 70_000})])
        assert oversize.receive(0.3) is None
        oversize.close()

        play_until_over([ada])
        assert isinstance(verify(tmp_path / "tables" / f"{table}.starhall"), Verified)
        statuses = {t["id"]: t["status"] for t in lobby.request({"type": "list"})["tables"]}
        assert statuses[table] == "over" and "broken" not in statuses.values()
        for connection in (lobby, fuzzer):
            connection.close()
        ada.close()


def test_a_flood_is_cut_off_and_others_are_served(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, think=0.0, flood_rate=50, flood_burst=50) as server:
        assert server.address is not None
        flooder = Connection(server.address)
        for _ in range(1000):
            flooder.send({"type": "ping"})
        calm = Connection(server.address)
        assert calm.request({"type": "ping"})["type"] == protocol.PONG

        def flood_noticed() -> bool:
            message = flooder.receive(0.05)
            return message is not None and message.get("code") == protocol.FLOOD

        wait_for(flood_noticed)
        pongs = 0
        while (message := flooder.receive(0.05)) is not None:
            pongs += message["type"] == protocol.PONG
        assert pongs < 1000
        flooder.close()
        calm.close()
