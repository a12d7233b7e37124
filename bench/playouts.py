"""Playouts a second of the ``strong`` bots of "what else?" and Stars and Bars: the playouts
as they are now (on the rules' own fold: ``decide`` for the candidate, then the steps of the
game's playout state, ``PlayoutState`` or ``BarsPlayout``, that ``evolve`` is built on)
against a baseline's, read from git (by default the last commit whose playouts ran on a
second copy of the rules), in the same process, alternated block by block because the
machine's speed swings.

    python -m bench.playouts
    python -m bench.playouts --baseline 665f552 --blocks 6 --seconds 1

Both play the same candidates in the same sampled worlds with the same random numbers; the
run also counts the playouts whose values differ (none, when the two follow the same rules
and the same rollout policy).

Measured on a 2-core machine shared with other work (load 9 to 16). On the immutable state
(``decide``, then ``evolve`` making a new state with ``dataclasses.replace`` at each event),
``--blocks 4``: "what else?" 10,792 playouts/s with the copy, 4,445 on the engine (0.41),
Stars and Bars 4,736 and 1,785 (0.38), pure Python; with only the two games' ``rules.py``
compiled by mypyc (the rest pure Python), 0.35 and 0.29.
On the playout states, ``--blocks 10 --seconds 0.5``: "what else?" 7,689 and 8,044 (1.05;
other runs 0.91 to 1.23), Stars and Bars 3,053 and 2,096 (0.69; other runs 0.73 to 1.36),
pure Python; the two ``rules.py`` compiled, 9,240 and 13,238 (1.43), 8,192 and 7,625
(0.93). No value differed. What is left of Stars and Bars' gap is the engine's bookkeeping
a copy skipped: the scoring and owner kept with each placement, the duties owed looked up
twice a turn, each turn's record.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from bench.bots_others import play_seeded
from starhall.shared.bots import make_bot
from starhall.shared.engine import Command, Game
from starhall.shared.games import get_game
from starhall.shared.games.stars_and_bars import strong as bars_strong
from starhall.shared.games.what_else import strong as what_else_strong
from starhall.shared.observation import Observation

BASELINE = "665f552"
"""One package per game, before the playouts moved onto the engine."""

Playout = Callable[[random.Random], float]
"""One playout of a fixed candidate in a fixed world; the argument seeds its chance."""


def baseline_module(revision: str, game: str) -> types.ModuleType:
    """``shared/games/GAME/strong.py`` as it was at ``revision``, imported beside today's."""
    path = f"shared/games/{game}/strong.py"
    source = subprocess.run(["git", "show", f"{revision}:{path}"], check=True,
                            capture_output=True, text=True).stdout
    name = f"baseline_{game}_strong"
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def observations(game: Game[Any], players: int, bot: str, games: int) -> list[Observation]:
    """Every observation of a few games between ``bot`` bots where a seat had a choice."""
    found: list[Observation] = []
    for deal in range(games):
        options = game.make_options(players, {})
        bots = [make_bot(game, bot, random.Random(deal * 10 + seat)) for seat in range(players)]

        def choose(state: Any, seat: int, observation: Observation) -> Command:
            if len(observation.legal) > 1:
                found.append(observation)
            return bots[seat].choose(observation, 0.0)  # noqa: B023 - called in this turn

        play_seeded(game, game.new_state(players, options), players, options, deal, choose)
    return found


def what_else_worlds(seen: list[Observation]) -> list[tuple[Any, Command, int]]:
    """A sampled world for each observation where a card is laid (today's sampling), with
    each command to play out in it: (state, command, seat)."""
    found = []
    rng = random.Random(1)
    for observation in seen:
        if observation.view["legal"]["refill"]:
            continue
        known = what_else_strong.knowledge(observation)
        hand = what_else_strong.cards_for("standard").deck.mask(observation.view["hand"])
        hands, draw = what_else_strong.sample_world(observation, known, rng)
        state = what_else_strong.world_state(what_else_strong.template_state(observation),
                                             observation.seat, hand, hands, draw)
        found.extend((state, command, observation.seat) for command in observation.legal)
    return found


def what_else_playouts(module: types.ModuleType, worlds: list[tuple[Any, Command, int]]
                       ) -> list[Playout]:
    return [lambda chance, state=state, command=command, seat=seat:
            module.play_out(state, command, seat, chance) for state, command, seat in worlds]


def bars_playouts(module: types.ModuleType, seen: list[Observation]) -> list[Playout]:
    found: list[Playout] = []
    rng = random.Random(1)
    deck = bars_strong.DECK
    for observation in seen:
        if not observation.view["legal"]["placements"]:
            continue
        unseen = module.unseen_cards(observation)
        state = module.template_state(observation)
        state = module.replace(state, deck=tuple(module.sample_deck(observation, unseen, rng)))
        for command in observation.legal:
            if command.type != "place":
                continue
            card, space = deck.index_of[command.data["card"]], command.data["space"]
            found.append(lambda chance, state=state, card=card, space=space,
                         seat=observation.seat: module_bars_value(module, state, seat, card,
                                                                  space, chance))
    return found


def module_bars_value(module: types.ModuleType, state: Any, seat: int, card: int, space: int,
                      chance: random.Random) -> float:
    if hasattr(module, "play_out"):
        value: float = module.play_out(state, seat, card, space, chance)
        return value
    played = module.Playout(state, chance)  # the baseline's copy of the rules
    played.run(seat, card, space, module.HORIZON)
    value = played.value(seat)
    return value


def run_block(playouts: list[Playout], seconds: float) -> tuple[int, float, list[float]]:
    """Playouts done in ``seconds``, each seeded by its place in the list."""
    start = time.perf_counter()
    done = 0
    values = []
    while time.perf_counter() - start < seconds:
        index = done % len(playouts)
        values.append(playouts[index](random.Random(index)))
        done += 1
    return done, time.perf_counter() - start, values


def compare(name: str, now: list[Playout], then: list[Playout], blocks: int,
            seconds: float) -> None:
    rates: dict[str, list[float]] = {"baseline": [], "now": []}
    differ = checked = 0
    for block in range(blocks):
        order = [("baseline", then), ("now", now)]
        if block % 2:
            order.reverse()
        values: dict[str, list[float]] = {}
        for label, playouts in order:
            done, spent, values[label] = run_block(playouts, seconds)
            rates[label].append(done / spent)
        both = min(len(values["baseline"]), len(values["now"]))
        checked += both
        differ += sum(1 for a, b in zip(values["baseline"][:both], values["now"][:both],
                                        strict=True) if abs(a - b) > 1e-9)
    base = sum(rates["baseline"]) / blocks
    current = sum(rates["now"]) / blocks
    print(f"{name}: baseline {base:,.0f} playouts/s, now {current:,.0f} playouts/s, "
          f"ratio now/baseline {current / base:.2f} ({blocks} blocks of {seconds:g} s each, "
          f"alternated); values differing {differ} of {checked}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="the git revision to compare with")
    parser.add_argument("--blocks", type=int, default=6, help="blocks per side (default 6)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds a block (default 1)")
    parser.add_argument("--games", nargs="+", default=["what_else", "stars_and_bars"],
                        choices=("what_else", "stars_and_bars"))
    args = parser.parse_args(argv)
    if "what_else" in args.games:
        worlds = what_else_worlds(observations(get_game("what_else"), 4, "heuristic", 2))
        then = baseline_module(args.baseline, "what_else")
        compare("what_else, 4 players", what_else_playouts(what_else_strong, worlds),
                what_else_playouts(then, worlds), args.blocks, args.seconds)
    if "stars_and_bars" in args.games:
        seen = observations(get_game("stars_and_bars"), 2, "lookahead", 1)
        then = baseline_module(args.baseline, "stars_and_bars")
        compare("stars_and_bars", bars_playouts(bars_strong, seen),
                bars_playouts(then, seen), args.blocks, args.seconds)


if __name__ == "__main__":
    main()
