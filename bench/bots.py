"""Bots against bots, in duplicate: every deal is played twice, the two kinds of bot in
alternate seats and then with the seats swapped, so each kind plays every hand of the deal
once and the luck of the cards cancels. Each deal gives one figure, the first kind's mean
points per hand less the second's (over both plays); the result is the mean over deals with
a 95% confidence interval (1.96 standard errors), and each kind's think time per move
(p50, p99; forced moves, one legal card, left out).

Parts (``--part``):

* ``ismcts``: one hand of OpenSpiel's standard ``hearts`` (classic deck, 4 players, the
  Queen of Spades breaking hearts, passing on, the direction by the deal: hold, left, across,
  right), ``strong`` against OpenSpiel's C++ ``pyspiel.ISMCTSBot`` (random rollouts), given
  ``--think`` and ``--ismcts-think`` seconds a move (the same unless said). The hand is played
  in our engine and in pyspiel's side by side, pyspiel the referee (``play_against_ismcts``):
  every card of each side is checked legal in the other and the points must agree. The result
  is given by pass direction too; ``--strong strong-uct``: the strong bot searching by its
  ISMCTS tree (``method = "uct"``) instead of flat Monte Carlo. Needs ``pip install -e
  '.[bench]'``.
* ``classic``: classic Hearts with passing (left), ``strong`` against ``heuristic``.
* ``passing``: classic Hearts (OpenSpiel's rules), ``strong`` against ``strong-heuristic-pass``
  (the same bot passing as the heuristic does, as before its pass was searched), each pass
  direction in turn (``--directions``: the deal is played as the first, second or third hand,
  passing left, right or across); the two differ only in the pass. With ``--alone``,
  ``heuristic-searched-pass`` (the heuristic bot passing by the strong bot's search) against
  ``heuristic``: the pass alone, cheaply, so at a longer think time.
* ``stardeck4``, ``stardeck6``: Stardeck Hearts (the default exchange mode), 4 and 6 players,
  ``strong`` against ``heuristic``.
* ``stars``: Stars, ``strong`` against ``heuristic``: points per hand (the hand's change to
  the totals, the contract's ± bid included), and for each kind the contracts it declared,
  the share it made and the mean bid.
* ``burial``: Stars, ``strong`` against ``strong-heuristic-bury`` (the same bot burying as
  the heuristic does, as before its burial was searched); with ``--alone``,
  ``heuristic-searched-bury`` against ``heuristic``, the burial alone.

Run: ``.venv/bin/python bench/bots.py --part ismcts --deals 1000 --think 0.1``
(``--deals`` deals, each played twice: 1,000 deals are 2,000 hands).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from starhall import shared  # noqa: E402
from starhall.shared.bots import make_bot  # noqa: E402
from starhall.shared.engine import Command, Game  # noqa: E402
from starhall.shared.games import get_game  # noqa: E402
from tests.bot_driver import ObservedTable, Player  # noqa: E402

HEARTS = get_game("hearts")
CLASSIC = {"deck": "classic", "qs_breaks_hearts": True}
"""OpenSpiel's ``hearts`` rules in our options (its Queen of Spades breaks hearts)."""


@dataclass
class Kind:
    """One side of a match: a bot kind and what it did over the deals."""

    name: str
    think: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    declared: int = 0
    made: int = 0
    bids: list[int] = field(default_factory=list)


def hand_over(state: Any) -> bool:
    return state.hand_number >= 1 and state.phase in ("deal", "over")


BASELINES = {"strong-heuristic-pass": ("strong", "passing", "heuristic"),
             "strong-heuristic-bury": ("strong", "burying", "heuristic"),
             "strong-uct": ("strong", "method", "uct")}
"""The bench's own kinds: a registered kind with one attribute set (the bot as it was before a
decision of its was searched), ``(kind, attribute, value)``."""


class SearchedAlone:
    """``heuristic-searched-pass`` (Hearts) and ``heuristic-searched-bury`` (Stars): the game's
    heuristic bot, but for one decision (``offer``, the pass or the burial) the strong bot's
    search. Against ``heuristic`` it measures that decision alone, at little cost (a few
    searched decisions a hand), the play being the playouts' own policy."""

    def __init__(self, game: Game[Any], offer: str, rng: random.Random) -> None:
        self.offer = offer
        self.strong = make_bot(game, "strong", rng)
        self.heuristic = make_bot(game, "heuristic", rng)

    def choose(self, seen: Any, think: float) -> Command:
        bot = self.strong if self.offer in seen.view["legal"] else self.heuristic
        command: Command = bot.choose(seen, think)
        return command


SEARCHED_ALONE = {"heuristic-searched-pass": "pass", "heuristic-searched-bury": "bury"}


def make_player(game: Game[Any], kind: str, seed: int, think: float) -> Player:
    if kind in SEARCHED_ALONE:
        return Player(SearchedAlone(game, SEARCHED_ALONE[kind], random.Random(seed)), think)
    registered, attribute, value = BASELINES.get(kind, (kind, "", None))
    bot = make_bot(game, registered, random.Random(seed))
    if attribute:
        setattr(bot, attribute, value)
    return Player(bot, think)


def play_deal(game: Game[Any], players: int, options: dict[str, Any], deal: int,
              kinds: list[str], think: float, rng: random.Random,
              hands_before: int = 0) -> tuple[Any, list[Player]]:
    """One hand of deal number ``deal``, ``kinds[seat]`` in each seat, played as the hand after
    ``hands_before`` others (which sets the pass direction)."""
    table = ObservedTable(game, players, game.make_options(players, options))
    if hands_before:
        table.state = table.state.replace(hand_number=hands_before)
    seated = [make_player(game, kind, int(rng.random() * 2**31), think) for kind in kinds]
    table.play_until(seated, lambda state: state.hand_number > hands_before
                     and state.phase in ("deal", "over"), lambda: deal)
    return table.state, seated


def play_as_hand(hands_before: int) -> Callable[..., tuple[Any, list[Player]]]:
    def play(*args: Any) -> tuple[Any, list[Player]]:
        return play_deal(*args, hands_before=hands_before)
    return play


def duplicate(game: Game[Any], players: int, options: dict[str, Any], deals: int,
              first: str, second: str, think: float, seed: int,
              play: Callable[..., tuple[Any, list[Player]]] = play_deal,
              group: Callable[[int], str] | None = None) -> list[Kind]:
    """``first`` against ``second`` over ``deals`` deals in duplicate; with ``group``, the
    result for each group of deals too (``group(deal)`` names a deal's, by its number)."""
    sides = [Kind(first), Kind(second)]
    rng = random.Random(seed)
    differences: list[float] = []
    grouped: dict[str, list[float]] = {}
    start = time.perf_counter()
    for number in range(deals):
        deal = 1 + int(rng.random() * 10**9)
        totals = [0.0, 0.0]
        for swap in (0, 1):
            side_of = [(seat + swap) % 2 for seat in range(players)]
            kinds = [sides[side].name for side in side_of]
            state, seated = play(game, players, options, deal, kinds, think, rng)
            scores = _hand_scores(state)
            for side in (0, 1):
                seats = [seat for seat in range(players) if side_of[seat] == side]
                mean = sum(scores[seat] for seat in seats) / len(seats)
                totals[side] += mean / 2
                sides[side].points.append(mean)
                for seat in seats:
                    sides[side].think.extend(seated[seat].times)
            _contracts(state, side_of, sides)
        differences.append(totals[0] - totals[1])
        if group is not None:
            grouped.setdefault(group(deal), []).append(totals[0] - totals[1])
        if (number + 1) % max(1, deals // 10) == 0:
            print(f"  … {number + 1} deals, {time.perf_counter() - start:.0f} s, "
                  f"{_interval(differences)}", flush=True)
    mean, half = _mean_interval(differences)
    better = "more" if game.id == "stars" else "fewer"
    print(f"  {first} − {second}, points per hand ({better} is better): {mean:+.2f} ± {half:.2f} "
          f"(95%, {deals} deals, {2 * deals} hands, {time.perf_counter() - start:.0f} s)")
    for name, values in sorted(grouped.items()):
        print(f"    {name:>9}: {_interval(values)} ({len(values)} deals)")
    for side in sides:
        line = f"  {side.name:>9}: {statistics.mean(side.points):6.2f} points per hand"
        if side.think:
            line += f", think per move p50 {_pct(side.think, 50) * 1000:.1f} ms " \
                    f"p99 {_pct(side.think, 99) * 1000:.1f} ms"
        if side.bids or game.id == "stars":
            rate = side.made / side.declared if side.declared else math.nan
            mean_bid = statistics.mean(side.bids) if side.bids else math.nan
            line += (f"; declared {side.declared} contracts, made {side.made} "
                     f"({rate:.0%}), mean bid {mean_bid:.1f}")
        print(line)
    return sides


def _hand_scores(state: Any) -> tuple[int, ...]:
    if hasattr(state, "results"):  # Stars: the hand's change to the totals
        return tuple(state.results[0].changes)
    return tuple(state.score_sheet[0])


def _contracts(state: Any, side_of: list[int], sides: list[Kind]) -> None:
    for result in getattr(state, "results", ()):
        side = sides[side_of[result.declarer]]
        side.declared += 1
        side.made += result.made
        side.bids.append(result.bid)


def _pct(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


def _mean_interval(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return (values[0] if values else math.nan), math.nan
    return statistics.mean(values), 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def _interval(values: list[float]) -> str:
    mean, half = _mean_interval(values)
    return f"{mean:+.2f} ± {half:.2f}"


# --- OpenSpiel ------------------------------------------------------------------------

DIRECTIONS = ("hold", "left", "across", "right")
"""OpenSpiel's pass directions by their action at the hand's first chance node (0 … 3), as
this bench names them; a deal's direction is its number modulo 4 (both plays alike)."""
HANDS_BEFORE = {"left": 0, "right": 1, "across": 2, "hold": 3}
"""The hand of ours (hands before it) that passes in each direction: left, right, across,
hold (``rules.pass_offsets``)."""


def direction_of(deal: int) -> str:
    return DIRECTIONS[deal % 4]


class TimedISMCTS:
    """OpenSpiel's C++ ``pyspiel.ISMCTSBot`` (random rollouts, the most visited move) given a
    think time per move. The C++ bot counts simulations, not time, so each move gets as many
    simulations as the time buys at the speed shown so far: a simulation's cost taken as
    proportional to the cards left in the hand (its rollout's length), the speed in cards
    simulated a second, kept from hand to hand for the same think time and apart for the
    passing (whose simulations are far quicker), slower at once but faster by ``GROWTH`` at
    most a move (a quick move says little of the next). On a machine whose speed swings, its
    think times (reported) stay near the budget."""

    FIRST_SPEED = 20000.0
    """Cards simulated a second assumed before a move is timed."""
    GROWTH = 1.25
    speeds: dict[tuple[float, bool], float] = {}
    """The speed last seen, by think time and whether passing."""

    def __init__(self, pyspiel: Any, uct_c: float, seed: int, think: float) -> None:
        self.pyspiel = pyspiel
        self.uct_c = uct_c
        self.rng = random.Random(seed)
        self.think = think
        self.times: list[float] = []

    def step(self, state: Any, cards_left: int, passing: bool = False) -> int:
        if len(state.legal_actions()) == 1:
            return int(state.legal_actions()[0])
        speed = self.speeds.get((self.think, passing), self.FIRST_SPEED)
        count = max(2, int(speed * self.think / cards_left))
        spiel = self.pyspiel
        seed = int(self.rng.random() * 2**31)
        bot = spiel.ISMCTSBot(seed, spiel.RandomRolloutEvaluator(1, seed), self.uct_c, count,
                              -1, spiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        start = time.perf_counter()
        action = int(bot.step(state))
        spent = time.perf_counter() - start
        self.speeds[self.think, passing] = min(count * cards_left / max(spent, 1e-4),
                                               speed * self.GROWTH)
        self.times.append(spent)
        return action


def play_against_ismcts(uct_c: float, ismcts_think: float | None) -> Callable[..., Any]:
    """A hand of OpenSpiel's standard ``hearts`` (passing on, its direction by the deal
    number) played in our engine and in pyspiel's side by side, pyspiel's the referee: every
    card either side plays or passes is checked legal in the other engine, and the hand's
    points must come out the same in both.

    OpenSpiel's hearts (open_spiel 2.0.2) resamples, for a seat passing once the seat that
    passes to it has passed, states that cannot be played to the end (``resample_from_infostate``:
    a seat runs out of cards with tricks to play), so ISMCTSBot cannot search those passes as
    they are. It passes instead from the same deal turned round so that
    it is player 0, the first to pass, and nobody has passed yet: all it knows of the deal
    before the passes are delivered is its hand and the direction, the same in both."""
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("hearts")
    probe = game.new_initial_state()
    probe.apply_action(1)  # a pass direction, so the deal's outcomes are cards
    # pyspiel names a card rank then suit as "TC", "QS"; ours are "10C", "QS".
    ours_of = {a: _our_code(probe.action_to_string(a)) for a in range(52)}
    theirs_of = {code: action for action, code in ours_of.items()}

    def dealt(direction: int, hands: list[list[str]], first: int) -> Any:
        """pyspiel's state after the deal, ``hands[first]`` as player 0's."""
        state = game.new_initial_state()
        state.apply_action(direction)
        for position in range(52):
            state.apply_action(theirs_of[hands[(position % 4 + first) % 4][position // 4]])
        return state

    def ismcts_pass(bot: TimedISMCTS, direction: int, hands: list[list[str]],
                    seat: int) -> list[str]:
        turned = dealt(direction, hands, seat)
        chosen = []
        while turned.current_player() == 0:
            action = bot.step(turned, 52, passing=True)
            chosen.append(ours_of[action])
            turned.apply_action(action)
        return chosen

    def play(ours_game: Game[Any], players: int, options: dict[str, Any], deal: int,
             kinds: list[str], think: float, rng: random.Random) -> tuple[Any, list[Any]]:
        direction = direction_of(deal)
        table = ObservedTable(ours_game, players, ours_game.make_options(players, options))
        table.state = table.state.replace(hand_number=HANDS_BEFORE[direction])
        seated: list[Any] = []
        for kind in kinds:
            seed = int(rng.random() * 2**31)
            if kind == "ismcts":
                seated.append(TimedISMCTS(pyspiel, uct_c, seed, ismcts_think or think))
            else:
                seated.append(make_player(ours_game, kind, seed, think))
        table.shuffle(deal)
        hands = [ours_game.view(table.state, seat)["hand"] for seat in range(players)]
        theirs = dealt(DIRECTIONS.index(direction), hands, 0)
        while not theirs.is_terminal():
            seat = theirs.current_player()
            assert seat in ours_game.to_act(table.state), "the two engines disagree on the turn"
            player = seated[seat]
            if isinstance(player, TimedISMCTS):
                if table.state.phase == "pass":
                    command = Command("pass", seat, {"cards": ismcts_pass(
                        player, DIRECTIONS.index(direction), hands, seat)})
                else:
                    left = sum(hand.bit_count() for hand in table.state.hands)
                    command = Command("play", seat, {"card": ours_of[player.step(theirs, left)]})
            else:
                command = player.choose(ours_game, table.state, table.observation(seat))
            table.apply(command)  # our engine refuses an illegal card (IllegalCommand)
            cards = command.data["cards"] if command.type == "pass" else [command.data["card"]]
            for code in cards:
                assert theirs_of[code] in theirs.legal_actions(), f"pyspiel refuses {code}"
                theirs.apply_action(theirs_of[code])
        assert hand_over(table.state), "pyspiel's hand ended before ours"
        points = [int(line.split(": ")[1]) for line in
                  str(theirs).split("Points:\n")[1].strip().splitlines()]
        assert points == list(table.state.score_sheet[0]), "the engines score the hand apart"
        return table.state, seated

    return play


def _our_code(theirs: str) -> str:
    rank, suit = theirs[:-1], theirs[-1]
    return f"{'10' if rank == 'T' else rank}{suit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("ismcts", "classic", "passing", "stardeck4",
                                           "stardeck6", "stars", "burial", "all"),
                        default="all")
    parser.add_argument("--alone", action="store_true",
                        help="--part passing, burial: the searched decision alone, in the "
                             "heuristic bot, against the heuristic")
    parser.add_argument("--directions", default="left,right,across",
                        help="--part passing: the pass directions, of left, right, across")
    parser.add_argument("--deals", type=int, default=20,
                        help="deals, each played twice with the seats swapped")
    parser.add_argument("--think", type=float, default=0.1, help="seconds per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ismcts-think", type=float, default=None,
                        help="--part ismcts: ISMCTSBot's seconds per move (--think's if not "
                             "given)")
    parser.add_argument("--strong", default="strong", choices=("strong", "strong-uct"),
                        help="with --part ismcts: the strong bot as it plays (flat Monte "
                             "Carlo) or searching by its ISMCTS tree instead")
    parser.add_argument("--ismcts-c", type=float, default=10.0,
                        help="ISMCTSBot's UCT constant (its returns span 0..36 points)")
    args = parser.parse_args()
    parts = [args.part] if args.part != "all" else ["ismcts", "classic", "stardeck4",
                                                    "stardeck6", "stars"]
    print(f"starhall engines: {shared.build()}; {args.deals} deals, think {args.think} s "
          f"per move, seed {args.seed}")
    print("command: " + " ".join(["python", *sys.argv]))
    for part in parts:
        if part == "ismcts":
            ismcts_think = args.ismcts_think or args.think
            print("OpenSpiel's hearts (passing on), strong vs pyspiel.ISMCTSBot "
                  f"(C++, random rollouts, uct_c {args.ismcts_c}), {args.think} s a move "
                  f"against {ismcts_think} s:")
            play = play_against_ismcts(args.ismcts_c, ismcts_think)
            duplicate(HEARTS, 4, CLASSIC, args.deals, args.strong, "ismcts", args.think,
                      args.seed, play, direction_of)
        elif part == "classic":
            print("classic Hearts, strong vs heuristic:")
            duplicate(HEARTS, 4, CLASSIC, args.deals, "strong", "heuristic", args.think,
                      args.seed)
        elif part == "passing":
            for direction in args.directions.split(","):
                first, second = (("heuristic-searched-pass", "heuristic") if args.alone
                                 else ("strong", "strong-heuristic-pass"))
                print(f"classic Hearts, passing {direction}, {first} vs {second}:")
                hands_before = ("left", "right", "across").index(direction)
                duplicate(HEARTS, 4, CLASSIC, args.deals, first, second, args.think, args.seed,
                          play_as_hand(hands_before))
        elif part in ("stardeck4", "stardeck6"):
            players = int(part[-1])
            print(f"Stardeck Hearts, {players} players, strong vs heuristic:")
            duplicate(HEARTS, players, {}, args.deals, "strong", "heuristic", args.think,
                      args.seed)
        elif part == "burial":
            first, second = (("heuristic-searched-bury", "heuristic") if args.alone
                             else ("strong", "strong-heuristic-bury"))
            print(f"Stars, {first} vs {second}:")
            duplicate(get_game("stars"), 4, {}, args.deals, first, second, args.think,
                      args.seed)
        else:
            print("Stars, strong vs heuristic:")
            duplicate(get_game("stars"), 4, {}, args.deals, "strong", "heuristic", args.think,
                      args.seed)


if __name__ == "__main__":
    main()
