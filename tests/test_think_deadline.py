"""Every searching ``strong`` bot keeps to its think time by reading its deadline inside each
step of a playout, not only between playouts (issue 34: the answer within the budget plus
50 ms). No timing here: the bots read a clock that moves one tick a read, and the steps they
take (the engine's ``evolve`` in Hearts and Stars, a playout's step in "what else?" and Stars
and Bars) are counted between reads."""

from __future__ import annotations

import random
from typing import Any

import pytest

from starhall.shared.bots import default_bot, make_bot
from starhall.shared.engine import Game
from starhall.shared.games import get_game
from starhall.shared.games.stars_and_bars import strong as bars_strong
from starhall.shared.games.what_else import strong as what_else_strong
from starhall.shared.observation import Observation
from starhall.shared.search_flat import Deadline, OutOfTime, paired_search
from tests.bot_driver import ObservedTable


class TickClock:
    """A clock one tick later at every read, which notes how many steps were taken between
    reads and after the read that found the deadline passed."""

    def __init__(self) -> None:
        self.reads = 0
        self.steps = 0
        self.most_between = 0
        self.end: float | None = None
        self.steps_after_end = 0
        self.reads_after_end = 0

    def __call__(self) -> float:
        self.reads += 1
        if self.end is not None and self.reads >= self.end:
            self.reads_after_end += 1
        self.most_between = max(self.most_between, self.steps)
        self.steps = 0
        return float(self.reads)

    def step(self) -> None:
        self.steps += 1
        if self.end is not None and self.reads >= self.end:
            self.steps_after_end += 1


def decisions(game: Game[Any], players: int, wanted: set[str], deals: int = 4
              ) -> dict[str, Observation]:
    """A decision with a choice for each kind of command in ``wanted`` (its first legal
    command's type), from games of the default (Normal) bots."""
    found: dict[str, Observation] = {}
    for deal in range(deals):
        table = ObservedTable(game, players, game.make_options(players, {}))
        bots = [make_bot(game, default_bot(game), random.Random(seat))
                for seat in range(players)]
        while not game.outcome(table.state).over and len(found) < len(wanted):
            if game.chance(table.state) is not None:
                table.shuffle(deal * 1000 + len(table.events))
                continue
            seat = game.to_act(table.state)[0]
            seen = table.observation(seat)
            kind = seen.legal[0].type
            if len(seen.legal) > 1 and kind in wanted and kind not in found:
                found[kind] = seen
            table.apply(bots[seat].choose(seen, 0.0))
    assert set(found) == wanted, f"no {wanted - set(found)} decision found"
    return found


CASES = [("hearts", 4, {"pass", "play"}), ("stars", 4, {"bid", "bury", "play"}),
         ("what_else", 4, {"play"}), ("stars_and_bars", 2, {"place"})]
STEPS_BETWEEN_READS = {"hearts": 4, "stars": 1, "what_else": 1, "stars_and_bars": 1}
"""The most steps a bot may take between two reads of its clock: one card in Hearts and
Stars, but the four passes of Hearts' passing (a step each) come together; one step of
"what else?"'s playouts; one turn of Stars and Bars'."""


def count_steps(game_id: str, clock: TickClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Count each step a playout takes on ``clock``."""
    if game_id in ("hearts", "stars"):
        game = get_game(game_id)
        evolve = game.evolve

        def counted(state: Any, event: Any) -> Any:
            clock.step()
            return evolve(state, event)

        monkeypatch.setattr(game, "evolve", counted)
    else:
        module: Any = what_else_strong if game_id == "what_else" else bars_strong
        name = "rollout_step" if game_id == "what_else" else "take_turn"
        original = getattr(module, name)

        def step(*args: Any) -> Any:
            clock.step()
            return original(*args)

        monkeypatch.setattr(module, name, step)


@pytest.mark.parametrize(("game_id", "players", "kinds"), CASES)
@pytest.mark.parametrize("ticks", [3, 40, 400])
def test_a_strong_bot_reads_its_deadline_inside_every_step(
        game_id: str, players: int, kinds: set[str], ticks: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """However many ticks the budget, the bot reads the clock at least every step or so
    (``STEPS_BETWEEN_READS``), takes no step after the read that found the deadline passed,
    reads it only once from then, and answers a legal move."""
    game = get_game(game_id)
    for kind, seen in decisions(game, players, kinds).items():
        clock = TickClock()
        bot: Any = make_bot(game, "strong", random.Random(ticks))
        bot.clock = clock
        with monkeypatch.context() as patched:
            count_steps(game_id, clock, patched)
            clock.end = 1 + ticks  # the deadline's first read is tick 1
            command = bot.choose(seen, float(ticks))
        assert command in seen.legal, kind
        assert clock.reads >= 1 + ticks, f"{kind}: the search stopped before its deadline"
        assert clock.most_between <= STEPS_BETWEEN_READS[game_id], kind
        assert clock.steps_after_end == 0, kind
        assert clock.reads_after_end == 1, kind


def test_paired_search_leaves_a_world_the_deadline_cuts_short_uncounted() -> None:
    """A playout that finds the deadline passed mid-way (``OutOfTime``) ends the search; its
    world counts for nothing, and worlds played whatever the clock (``least``) are never
    cut."""
    clock = TickClock()
    deadline = Deadline(10.0, clock)

    def playout(index: int, world: int) -> float:
        for _ in range(3):
            deadline.check()
        return float(index)

    result = paired_search(2, lambda: 0, playout, deadline)
    assert result.counts[0] == result.counts[1] == result.worlds
    assert result.worlds == 1 and result.chosen == 1  # 1 + 2 × 4 reads, then cut in the 2nd
    clock = TickClock()
    deadline = Deadline(0.0, clock)
    result = paired_search(2, lambda: 0, playout, deadline, least=3)
    assert result.worlds == 3 and deadline.armed
    with pytest.raises(OutOfTime):
        deadline.check()
