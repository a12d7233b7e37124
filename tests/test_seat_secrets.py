"""No log that is handed on holds what gives a seat. A server keeps who sits where in the
table's log alone, a person's seat with its owner only as the token's hash salted with the
table's salt; so the log itself (copied, attached to a bug report, downloaded as a history,
forked, shown by ``replay``) holds no token and no key, nor their plain hashes, against a
real server on 127.0.0.1 with people seated by a keyed ``sit``, a plain one and a stand-in
bot playing for one of them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from starhall.cli import main
from starhall.server.embed import EmbeddedServer
from starhall.server.fork import plan_fork, write_fork
from starhall.shared import protocol
from starhall.shared.bugreport import read_bug_report
from starhall.shared.replay import load
from starhall.shared.seating import OWNER
from tests.server_helpers import (
    FAST_HEARTS,
    Participant,
    Person,
    address,
    fill_with_bots,
    log_of,
    wait_for,
)

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

KEY = "ada-s-sit-key-4c1e0d9a"
SLOW_BOTS = 60.0
"""Bots that do not move while a test looks."""


@dataclass
class Seated:
    server: EmbeddedServer
    table: str
    ada: Participant
    bruno: Person
    secrets: list[str]
    """Ada's key and token, Bruno's token."""


@pytest.fixture
def seated(tmp_path: Path) -> Iterator[Seated]:
    """A started Hearts table: Ada sat with a key, Bruno without, and a stand-in bot plays
    for Bruno, who left (his seat still his)."""
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        ada = Participant(address(server), "Ada")
        table = ada.request({"type": "create", "game": "hearts", "players": 4,
                             "options": FAST_HEARTS})["table"]["id"]
        sat = ada.request({"type": "sit", "table": table, "seat": 0, "key": KEY})
        assert sat["type"] == protocol.SEATED, sat
        bruno = Person(address(server), table, 1, "Bruno")
        fill_with_bots(ada, table, (2, 3))
        log = log_of(server, table)
        wait_for(lambda: load(log).last_seq >= 1)  # dealt
        assert bruno.request({"type": "leave", "table": table, "token": bruno.token})["kept"]
        standin = ada.request({"type": "bot", "table": table, "seat": 1, "token": sat["token"]})
        assert standin["type"] == protocol.BOTTED and standin["standin"], standin
        yield Seated(server, table, ada, bruno, [KEY, sat["token"], bruno.token])
        ada.close()
        bruno.close()


def assert_holds_no_secret(data: bytes, secrets: list[str], what: str) -> None:
    for secret in secrets:
        assert secret.encode() not in data, f"{what} holds a token or key"
        plain = hashlib.sha256(secret.encode()).hexdigest()
        assert plain.encode() not in data, f"{what} holds a token's unsalted hash"


def test_the_log_and_a_bug_report_of_it_hold_no_token_or_key(seated: Seated) -> None:
    log = log_of(seated.server, seated.table)
    owners = [seat.get(OWNER) for seat in load(log).seats_at()]
    assert owners[0] is not None and owners[1] is not None  # Bruno's, under his stand-in
    assert_holds_no_secret(log.read_bytes(), seated.secrets, "the log")
    assert not list(log.parent.glob("*.seats.json"))  # nothing kept beside it

    reply = seated.ada.request({"type": "report", "table": seated.table, "note": "look"})
    assert reply["type"] == protocol.REPORTED, reply
    kept = seated.server.config.data / reply["path"]
    assert_holds_no_secret(kept.read_bytes(), seated.secrets, "the server's bug report")
    assert read_bug_report(kept)["log"] == log.read_bytes()


def test_the_history_a_web_viewer_downloads_holds_no_token_or_key(seated: Seated) -> None:
    page = seated.ada.request({"type": "history", "table": seated.table})
    assert page["type"] == protocol.HISTORY, page
    assert_holds_no_secret(protocol.encode(page), seated.secrets, "a history page")


def test_replay_shows_no_owner_and_a_fork_carries_none(
        seated: Seated, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = log_of(seated.server, seated.table)
    capsys.readouterr()
    assert main(["replay", "show", str(log), "--json"]) == 0
    shown = capsys.readouterr().out
    assert OWNER not in json.loads(shown)["seats"][1]
    assert main(["replay", "verify", "--json", str(log)]) == 0
    verified = capsys.readouterr().out
    assert OWNER not in json.loads(verified)["logs"][0]["seats"][0]
    forked = write_fork(plan_fork(log, 1, seat=0), tmp_path / "elsewhere")
    data = forked.path.read_bytes()
    assert_holds_no_secret(data, seated.secrets, "a fork")
    assert b"token_hash" not in data  # the source's owners stay there
