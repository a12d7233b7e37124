"""Searching bots think in worker processes (server/thinking.py): the server goes on answering
everyone meanwhile, and a bot that overruns its budget still gets a move played."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from starhall.server.embed import EmbeddedServer
from starhall.server.thinking import from_plain, to_plain
from starhall.shared import protocol
from starhall.shared.engine import Command
from starhall.shared.games import get_game, hearts_bots
from starhall.shared.observation import Observation
from starhall.shared.replay import load
from starhall.shared.table import Table
from tests.server_helpers import (
    Participant,
    Person,
    address,
    choose,
    fill_with_bots,
    log_of,
    wait_for,
)


class SleepyBot:
    """Thinks (sleeps) for most of its budget, then plays a random legal move."""

    searches = True

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        time.sleep(think * 0.9)
        return seen.game.random_choice(seen.legal, self.rng)


class OverrunBot(SleepyBot):
    """Never answers within its budget and the server's grace."""

    def choose(self, seen: Observation, think: float) -> Command:
        time.sleep(think + 3.0)
        return seen.game.random_choice(seen.legal, self.rng)


@pytest.fixture
def test_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bot kinds for these tests only (the worker processes, forked, know them too)."""
    monkeypatch.setitem(hearts_bots.BOTS, "sleepy", SleepyBot)
    monkeypatch.setitem(hearts_bots.BOTS, "overrun", OverrunBot)


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


@pytest.mark.usefixtures("test_bots")
def test_moves_at_other_tables_are_answered_while_slow_bots_think(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, think=4.0, flood_rate=10_000, flood_burst=10_000) as server:
        lobby = Participant(address(server))
        thinking = [bots_table(lobby, "sleepy") for _ in range(3)]  # each deals, and thinks
        created = lobby.request({"type": "create", "game": "hearts", "players": 4})
        other = created["table"]["id"]
        ada = Person(address(server), other, 0)
        fill_with_bots(lobby, other)
        for table in thinking:  # Ada watches the thinking tables on her own connection
            assert ada.request({"type": "watch", "table": table})["type"] == "watching"
        wait_for(lambda: ada.refresh())  # her turn to pass
        before = ada.drain()
        assert not any(bot_moved(m, t) for m in before for t in thinking)
        command = choose(ada.feed.view)
        assert command is not None
        reply = ada.act(command)
        assert reply["type"] == protocol.ACK
        # The ack came first: nothing the slow bots played arrived before it ...
        assert not any(bot_moved(m, t) for m in ada.connection._inbox for t in thinking)
        # ... and they do play, after it.
        wait_for(lambda: any(bot_moved(m, t) for m in ada.drain(0.05) for t in thinking),
                 timeout=30)
        lobby.close()
        ada.close()


@pytest.mark.usefixtures("test_bots")
def test_a_bot_that_overruns_its_budget_still_gets_a_move_played(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    with EmbeddedServer(tmp_path, think=0.2) as server:
        lobby = Participant(address(server))
        table = bots_table(lobby, "overrun")
        wait_for(lambda: any(event.seat is not None
                             for _, event in load(log_of(server, table)).events), timeout=30)
        lobby.close()
    said = capfd.readouterr().err
    assert "the overrun bot of seat" in said and "did not answer in time" in said


def test_what_crosses_to_a_worker_is_the_observation_alone() -> None:
    table = Table.new(get_game("hearts"), 4, {})
    table.remember()
    table.shuffle(3)
    seen = table.observe(1)
    plain = to_plain(seen)
    assert plain[0] == "hearts"
    assert from_plain(plain) == seen
