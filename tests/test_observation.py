"""A bot is given what its seat may see and nothing more (shared/observation.py): its
observation reaches no other seat's hidden card and no state, whoever builds it."""

from __future__ import annotations

import gc
import random
import types
from pathlib import Path
from typing import Any

import pytest

from starhall.server.sim import default_players, play_out
from starhall.server.tables import create_table, restore_table
from starhall.shared.bots import RandomBot, bot_kinds, make_bot, reads_history
from starhall.shared.engine import Game
from starhall.shared.games import GAMES, get_game
from starhall.shared.logfile import LogWriter
from starhall.shared.observation import Observation
from starhall.shared.table import Table


def reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through references, except through the game (a
    rules object without state, whose module and classes reach everything the interpreter
    holds) and through classes, modules and functions."""
    found: list[object] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        found.append(obj)
        if isinstance(obj, Game | type | types.ModuleType | types.FunctionType
                      | types.BuiltinFunctionType | types.MethodType):
            continue
        stack.extend(gc.get_referents(obj))
    return found


def dealt_hearts() -> Table[Any]:
    table = Table.new(get_game("hearts"), 4, {})
    table.remember()
    table.shuffle(7)
    return table


def test_a_bots_observation_reaches_no_other_seats_hand_and_no_state() -> None:
    table = dealt_hearts()
    state = table.state
    deck = state.rules.deck
    for seat in range(4):
        seen = table.observe(seat)
        assert seen.view and seen.legal is not None  # made on first reading; then no state
        objects = reachable(seen)
        strings = {obj for obj in objects if isinstance(obj, str)}
        assert set(deck.codes(state.hands[seat])) <= strings  # its own hand it sees
        for other in range(4):
            if other != seat:
                hidden = set(deck.codes(state.hands[other]))
                assert not hidden & strings, f"seat {seat} can reach seat {other}'s cards"
        undealt = set(deck.codes(state.undealt))
        assert undealt and not undealt & strings, f"seat {seat} can reach the undealt cards"
        assert not any(type(obj) is type(state) for obj in objects), "a state is reachable"
        assert seen.seen and seen.seat == seat
        assert bool(seen.legal) == (seat in table.game.to_act(state))


def test_the_events_a_seat_was_shown_are_each_cut_for_it() -> None:
    """The deal as seat 2 was shown it holds seat 2's hand only (the shuffle's order, which
    would give every hand, is not there)."""
    table = dealt_hearts()
    deal = [event for event in table.observe(2).seen if event.type == "deal"]
    assert len(deal) == 1
    assert "order" not in deal[0].data
    assert sorted(deal[0].data["hand"]) == sorted(table.state.rules.deck.codes(
        table.state.hands[2]))


def test_a_table_keeps_what_its_seats_were_shown_only_from_its_first_event() -> None:
    table = Table.new(get_game("hearts"), 4, {})
    table.shuffle(7)
    with pytest.raises(ValueError, match="not kept what its seats were shown"):
        table.observe(0)


def test_a_restored_table_reads_what_its_seats_were_shown_from_its_log(tmp_path: Path) -> None:
    """A server restores a table from its last checkpoint; its bots' observations are read
    from the whole log at its next move, and are those the table kept as it played."""
    live = create_table(tmp_path, "0001", "t", get_game("stars"), 4, {"target": 1000})
    for seat in range(4):
        live.put_bot(seat, READS_HISTORY, standin=False)
    live.record_seating()  # (a server's master records the seats with the batch)
    table = live.table
    assert table.memory is not None  # its bots sat down before its first event
    bots = [RandomBot(random.Random(seat)) for seat in range(4)]
    rng = random.Random(1)
    while table.seq < 150:
        if table.game.chance(table.state) is not None:
            table.shuffle(rng.randrange(1 << 30))
        else:
            seat = table.game.to_act(table.state)[0]
            table.submit(bots[seat].choose(table.observe(seat), 0.0))
    assert table.log is not None and table.memory is not None
    table.log.close()
    restored = restore_table(tmp_path, "0001")
    assert restored.memory_unread and restored.table.memory is None
    seen = restored.observe(1)
    assert restored.table.memory is not None
    assert restored.table.memory.shown == table.memory.shown
    assert seen == table.observe(1)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_bot_of_every_game_plays_a_game_from_observations(game_id: str) -> None:
    game = get_game(game_id)
    players = default_players(game)
    for kind in bot_kinds(game):
        table = Table.new(game, players, {})
        bots = [make_bot(game, kind, random.Random(seat)) for seat in range(players)]
        seen: list[Observation] = []

        class Watching:
            def __init__(self, bot: Any, seen: list[Observation]) -> None:
                self.bot = bot
                self.seen = seen

            def choose(self, observation: Observation, think: float) -> Any:
                self.seen.append(observation)
                command = self.bot.choose(observation, think)
                assert command.seat == observation.seat  # the table decides it after
                return command

        play_out(table, [Watching(bot, seen) for bot in bots], random.Random(3))
        assert table.outcome().over and seen


# --- memory only where a bot sits, read from the log where it was not kept ---------------------

READS_HISTORY = "strong"
"""A bot kind that reads what its seat was shown (``reads_history``; the random bot does not)."""

def play_some(table: Table[Any], events: int, rng: random.Random) -> None:
    """Random moves (and deals) until the table has ``events`` more events."""
    game, target = table.game, table.seq + events
    while table.seq < target:
        if game.chance(table.state) is not None:
            table.shuffle(rng.randrange(1 << 30))
        else:
            seat = game.to_act(table.state)[0]
            table.submit(game.random_action(table.state, seat, rng))


def test_a_table_without_bots_keeps_no_memory(tmp_path: Path) -> None:
    live = create_table(tmp_path, "0001", "t", get_game("hearts"), 4, {})
    play_some(live.table, 40, random.Random(2))
    assert live.table.memory is None and not live.memory_unread


def test_a_bot_keeps_only_its_own_seats_memory(tmp_path: Path) -> None:
    live = create_table(tmp_path, "0001", "t", get_game("hearts"), 4, {})
    live.put_bot(2, READS_HISTORY, standin=False)
    play_some(live.table, 40, random.Random(2))
    memory = live.table.memory
    assert memory is not None and memory.seats == {2}
    assert [shown is None for shown in memory.shown] == [True, True, False, True]
    with pytest.raises(ValueError, match=r"not kept what its seats were shown \(seat 1\)"):
        live.observe(1)


def test_a_table_restored_at_event_0_keeps_its_bots_memory_from_the_first_event(
        tmp_path: Path) -> None:
    """Bots seated, the deal not made yet when the server stopped: restored at event 0, the
    table keeps their memory from its first event (before, it kept none, and its first bot
    move stopped it)."""
    live = create_table(tmp_path, "0001", "t", get_game("hearts"), 4, {})
    for seat in (1, 2, 3):
        live.put_bot(seat, READS_HISTORY, standin=False)
    live.record_seating()  # (a server's master records the seats with the batch)
    assert live.table.log is not None
    live.table.log.close()
    restored = restore_table(tmp_path, "0001")
    assert restored.seq == 0 and restored.table.memory is not None
    assert not restored.memory_unread
    restored.table.shuffle(7)
    deal = [event for event in restored.observe(2).seen if event.type == "deal"]
    assert len(deal) == 1 and deal[0].data["hand"]


def test_a_bot_seated_after_the_first_event_reads_its_memory_from_the_log(
        tmp_path: Path) -> None:
    """Once the table's records are all in the log: a record not written yet (as in the
    server's batch before its commit) makes it wait."""
    live = create_table(tmp_path, "0001", "t", get_game("hearts"), 4, {})
    live.put_bot(0, READS_HISTORY, standin=False)  # kept from the first event
    kept = Table.new(get_game("hearts"), 4, {})
    kept.remember()
    rng = random.Random(5)
    while live.seq < 90:
        if live.game.chance(live.table.state) is not None:
            number = rng.randrange(1 << 30)
            live.table.shuffle(number)
            kept.shuffle(number)
        else:
            seat = live.game.to_act(live.table.state)[0]
            command = live.game.random_action(live.table.state, seat, rng)
            live.table.submit(command)
            kept.submit(command)
    log = live.table.log
    assert isinstance(log, LogWriter)
    live.put_bot(3, READS_HISTORY, standin=False)
    assert live.memory_unread
    assert not live.read_memory()  # the events are appended, not yet written
    with pytest.raises(ValueError, match="what seat 3 was shown is not in the log yet"):
        live.observe(3)
    assert live.observe(0) == kept.observe(0)  # seat 0's is kept meanwhile
    log.sync()
    assert live.read_memory() and not live.memory_unread
    assert live.observe(3) == kept.observe(3) and live.observe(0) == kept.observe(0)
    memory = live.table.memory
    assert memory is not None and memory.seats == {0, 3}


def test_a_random_bots_move_never_works_out_the_view_nor_lists_a_pass(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = Table.new(get_game("hearts"), 4, {"deck": "classic"})  # 3 cards passed
    table.remember()
    table.shuffle(7)
    game = table.game
    views: list[int] = []
    monkeypatch.setattr(game, "view", lambda state, seat: views.append(seat) or {})
    seen = table.observe(0)
    assert len(seen.legal) == 286  # 13 choose 3 passes, each made only when read
    command = RandomBot(random.Random(1)).choose(seen, 0.0)
    assert command.type == "pass" and len(command.data["cards"]) == 3
    assert views == []


def test_an_observation_keeps_the_events_seen_when_it_was_made() -> None:
    """``seen`` is the memory itself, not a copy: what came later is not in it."""
    table = dealt_hearts()
    before = table.observe(1)
    count = len(before.seen)
    play_some(table, 8, random.Random(3))
    after = table.observe(1)
    assert len(before.seen) == count < len(after.seen)
    assert list(after.seen[:count]) == list(before.seen)


def test_a_bot_that_never_reads_its_seats_history_costs_its_table_no_memory(
        tmp_path: Path) -> None:
    live = create_table(tmp_path, "0001", "t", get_game("hearts"), 4, {})
    for seat in range(4):
        live.put_bot(seat, "random", standin=False)
    assert not reads_history(live.bots[0])
    play_some(live.table, 40, random.Random(2))
    assert live.table.memory is None and not live.memory_unread
    seen = live.observe(1)
    assert seen.view["phase"] and seen.legal is not None
    with pytest.raises(ValueError, match="keeps no memory of what seat 1 was shown"):
        len(seen.seen)
