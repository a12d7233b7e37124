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
from starhall.shared.bots import RandomBot, bot_kinds, make_bot
from starhall.shared.engine import Game
from starhall.shared.games import GAMES, get_game
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
        live.put_bot(seat, "random", standin=False)
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
