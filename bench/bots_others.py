"""How strong the ``strong`` bots of "what else?", Stars and Bars, classic Hearts and Stars
are (issues 26, 34), in the duplicate format: every deal is played once with the bot
measured in each seat and the other bots in the rest, so the luck of the deal falls alike on
every seat and cancels.

    python -m bench.bots_others what_else --players 3 4 6 --deals 50 --think 0.1
    python -m bench.bots_others stars_and_bars --deals 100 --think 0.1
    python -m bench.bots_others hearts --deals 60 --think 0.1
    python -m bench.bots_others stars --deals 60 --think 0.1

The ladder a person picks from (Easy < Normal < Strong) is each level measured against the
one below: ``--bot heuristic --others random`` (what else?, Hearts, Stars) or ``--bot
lookahead --others greedy`` (Stars and Bars), then the defaults.

Hearts (the classic deck, 4 players) and Stars are measured one hand a deal, in points per
hand (``bench_points``): the hand's points in Hearts (fewer is better), the hand's change to
each total in Stars, the contract's ± bid included (more is better). A deal's figure is the
measured bot's points less the mean of the others' at its table, averaged over its seats (0
for bots alike), with a 95% interval over the deals; in Hearts the deal's number sets the
pass direction (left, right, across, hold). ``--baseline REV`` measures the ``strong`` bot
as it was at a git revision instead (``bench.playouts.baseline_module``), on the same deals:
a before and after.

"what else?": one ``strong`` against ``heuristic`` players; its share of the games won, with
a 95% confidence interval over the deals (a deal's share is its rotations' mean), against
the goal of 1.5 times a fair share (and whether it is above a fair share at all). Stars and
Bars: ``strong`` against ``lookahead``; the share of decided games it won (ties left out),
with a 95% interval (Wilson's, each decided game a trial), against the goal of 60% (and
whether it is above half). Both print the strong bot's time per move (p50,
p99 over the moves it searched: the search stops at ``--think``, so p99 shows its overrun)
and the run's length.

How long a run takes is about the strong bot's moves times ``--think``: at 0.1 s a move on a
machine at load 13-16 on 2 cores, 30 deals took 127 s at 3 players, 195 s at 4 and 402 s at
6 (about 12 minutes for all three), and Stars and Bars 80 deals 429 s.

"what else?", with the playouts on ``rules.PlayoutState`` (about twice the worlds a move of
the immutable state's: p50 740 to 940 playouts a searched move at 0.1 s and 4 players, against
445 to 458, pure Python), ``--deals 30 --think 0.1``, load 8-11: 3 players 44.4% ± 8.5% (fair
share 33.3%, goal 50%: above a fair share, the goal unclear), 4 players 30.8% ± 6.5% (fair
25%, goal 37.5%: not met), 6 players 20.0% ± 5.5% (fair 16.7%, goal 25%: unclear).

Bots take an ``Observation``: this driver keeps what each seat has been shown
(``game.event_view`` of every event) and hands each bot ``observe(...)``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from math import sqrt
from typing import Any

from starhall.shared.bots import make_bot
from starhall.shared.engine import Command, Game
from starhall.shared.games import get_game
from starhall.shared.observation import Observation, SeatMemory
from starhall.shared.options import Options
from starhall.shared.shuffle import shuffle_command

Z95 = 1.96


def play_deal(game: Game[Any], players: int, options: Options, strong_seat: int,
              strong: Any, others: list[Any], deal: int, think: float,
              times: list[float]) -> tuple[int, ...]:
    """One game: shuffles from deal number ``deal`` (the same for each rotation), the strong
    bot in ``strong_seat``; the winners. ``times`` gets the strong bot's time for each move
    it searched (not its forced or routine ones: a claim, a duty, the end of a turn)."""
    state = play_on(game, game.new_state(players, options), players, options, strong_seat,
                    strong, others, deal, think, times, lambda state: game.outcome(state).over)
    winners = game.outcome(state).winners
    assert winners is not None
    return winners


def play_on(game: Game[Any], state: Any, players: int, options: Options, strong_seat: int,
            strong: Any, others: list[Any], deal: int, think: float, times: list[float],
            until: Callable[[Any], bool]) -> Any:
    """``state`` played on (``play_deal``'s way) until ``until(state)``; the state then."""
    def choose(state: Any, seat: int, observation: Observation) -> Command:
        if seat != strong_seat:
            return others[seat].choose(observation, think)  # type: ignore[no-any-return]
        start = time.perf_counter()
        command: Command = strong.choose(observation, think)
        if getattr(strong, "searched", len(observation.legal) > 1):
            times.append(time.perf_counter() - start)
        return command

    return play_seeded(game, state, players, options, deal, choose, until)


def play_seeded(game: Game[Any], state: Any, players: int, options: Options, deal: int,
                choose: Callable[[Any, int, Observation], Command],
                until: Callable[[Any], bool] | None = None) -> Any:
    """``state`` played on until ``until(state)`` (the game's end), each shuffle made from
    deal number ``deal`` (the same deal for each seating of the bots compared), each move by
    ``choose(state, seat, what the seat was shown)``; the state then."""
    seen = SeatMemory(game, players, options)
    shuffles = random.Random(deal)
    while not (game.outcome(state).over if until is None else until(state)):
        request = game.chance(state)
        if request is not None:
            command = shuffle_command(request, shuffles.randrange(2**40))
        else:
            seat = game.to_act(state)[0]
            command = choose(state, seat, seen.observe(state, seat))
        for event in game.decide(state, command):
            seen.add(state, event)
            state = game.evolve(state, event)
    return state


def mean_interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, Z95 * statistics.stdev(values) / sqrt(len(values))


def wilson(wins: int, trials: int) -> tuple[float, float]:
    """Wilson's 95% interval for a share of ``wins`` in ``trials``."""
    if not trials:
        return float("nan"), float("nan")
    share = wins / trials
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return centre - half, centre + half


Maker = Callable[[random.Random], Any]


def maker(game: Game[Any], kind: str, baseline: str | None) -> Maker:
    """Makes the bot measured: ``kind``, or with ``baseline`` the ``strong`` bot as it was at
    that git revision."""
    if baseline is None:
        return lambda rng: make_bot(game, kind, rng)
    from bench.playouts import baseline_module  # git and exec only when asked

    strong_then = baseline_module(baseline, game.id).StrongBot
    return lambda rng: strong_then(rng)


def verdict(low: float, high: float, goal: float) -> str:
    return "met" if low >= goal else ("not met" if high < goal else "unclear")


def percentiles(times: list[float]) -> str:
    if not times:
        return "no moves"
    ordered = sorted(times)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"think per searched move p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms "
            f"({len(times)} moves)")


def bench_what_else(players: int, deals: int, think: float, first: int, bot: str,
                    against: str, baseline: str | None) -> None:
    game = get_game("what_else")
    options = game.make_options(players, {})
    make = maker(game, bot, baseline)
    shares: list[float] = []
    times: list[float] = []
    start = time.perf_counter()
    for deal in range(first, first + deals):
        won = 0
        for seat in range(players):
            strong = make(random.Random(deal * 10 + seat))
            others = [make_bot(game, against, random.Random(deal * 100 + other))
                      for other in range(players)]
            winners = play_deal(game, players, options, seat, strong, others, deal, think, times)
            won += seat in winners
        shares.append(won / players)
    mean, half = mean_interval(shares)
    fair = 1 / players
    goal = 1.5 * fair
    name = bot if baseline is None else f"{bot} at {baseline}"
    print(f"what_else, {players} players: {name} against {against} won {mean:.1%} ± {half:.1%} "
          f"of {deals * players} games ({deals} deals × {players} seats); fair share "
          f"{fair:.1%}, above it: {verdict(mean - half, mean + half, fair + 1e-9)}; goal ≥ "
          f"{goal:.1%}: {verdict(mean - half, mean + half, goal)}")
    print(f"  {percentiles(times)}; {time.perf_counter() - start:.0f} s")


def bench_stars_and_bars(deals: int, think: float, first: int, bot: str, against: str,
                         baseline: str | None) -> None:
    game = get_game("stars_and_bars")
    options = game.make_options(2, {})
    make = maker(game, bot, baseline)
    wins = losses = ties = 0
    times: list[float] = []
    start = time.perf_counter()
    for deal in range(first, first + deals):
        for seat in range(2):
            strong = make(random.Random(deal * 10 + seat))
            others = [make_bot(game, against, random.Random(deal * 100 + other))
                      for other in range(2)]
            winners = play_deal(game, 2, options, seat, strong, others, deal, think, times)
            if len(winners) > 1:
                ties += 1
            elif winners[0] == seat:
                wins += 1
            else:
                losses += 1
    decided = wins + losses
    low, high = wilson(wins, decided)
    share = wins / decided if decided else float("nan")
    name = bot if baseline is None else f"{bot} at {baseline}"
    print(f"stars_and_bars: {name} against {against} won {wins}, lost {losses}, tied {ties} of "
          f"{2 * deals} games ({deals} deals × 2 seats); decided games won {share:.1%} "
          f"(95% {low:.1%} to {high:.1%}), above half: {verdict(low, high, 0.5 + 1e-9)}; "
          f"goal ≥ 60%: {verdict(low, high, 0.6)}")
    print(f"  {percentiles(times)}; {time.perf_counter() - start:.0f} s")


POINTS_GAMES = {"hearts": ({"deck": "classic"}, "fewer"), "stars": ({}, "more")}
"""The games measured in points per hand: classic Hearts (fewer is better) and Stars (the
hand's change to a seat's total, the contract's ± bid included: more is better)."""


def hand_points(state: Any) -> tuple[int, ...]:
    """Each seat's points in the hand just played: Hearts' score sheet row, Stars' changes to
    the totals."""
    if hasattr(state, "results"):
        return tuple(state.results[0].changes)
    return tuple(state.score_sheet[0])


def hand_over(hands_before: int) -> Callable[[Any], bool]:
    """Whether the hand after ``hands_before`` others is over."""
    return lambda state: state.hand_number > hands_before and state.phase in ("deal", "over")


def bench_points(game_id: str, players: int, deals: int, think: float, first: int, bot: str,
                 against: str, baseline: str | None) -> None:
    """One hand per deal and seat, ``bot`` in that seat and ``against`` in the rest; a deal's
    figure is, over its rotations, the measured bot's points less the mean of the others' at
    its table (0 for bots alike). In Hearts the deal's number picks the pass direction too
    (left, right, across, hold in turn: the hand is played as the table's first to fourth)."""
    game = get_game(game_id)
    raw, better = POINTS_GAMES[game_id]
    options = game.make_options(players, raw)
    make = maker(game, bot, baseline)
    leads: list[float] = []
    mine: list[float] = []
    theirs: list[float] = []
    times: list[float] = []
    start = time.perf_counter()
    for deal in range(first, first + deals):
        hands_before = deal % 4 if game_id == "hearts" else 0
        lead = 0.0
        for seat in range(players):
            measured = make(random.Random(deal * 10 + seat))
            others = [make_bot(game, against, random.Random(deal * 100 + other))
                      for other in range(players)]
            state = game.new_state(players, options)
            if hands_before:
                state = state.replace(hand_number=hands_before)
            state = play_on(game, state, players, options, seat, measured, others, deal, think,
                            times, hand_over(hands_before))
            points = hand_points(state)
            rest = [points[other] for other in range(players) if other != seat]
            mine.append(points[seat])
            theirs.append(statistics.fmean(rest))
            lead += (points[seat] - statistics.fmean(rest)) / players
        leads.append(lead)
    mean, half = mean_interval(leads)
    low, high = mean - half, mean + half
    name = bot if baseline is None else f"{bot} at {baseline}"
    gain_low, gain_high = (low, high) if better == "more" else (-high, -low)
    ahead = verdict(gain_low, gain_high, 1e-9)
    print(f"{game_id}, {players} players: {name} against {against}, points per hand ({better} "
          f"is better): {name} {statistics.fmean(mine):.2f}, {against} "
          f"{statistics.fmean(theirs):.2f}; difference {mean:+.2f} ± {half:.2f} (95%, "
          f"{deals} deals × {players} seats = {deals * players} hands); {name} better: {ahead}")
    print(f"  {percentiles(times)}; {time.perf_counter() - start:.0f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=("what_else", "stars_and_bars", *POINTS_GAMES))
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6],
                        help="what_else's table sizes (default 3 4 6)")
    parser.add_argument("--deals", type=int, default=50,
                        help="deals per table size, each played once per seat (default 50)")
    parser.add_argument("--think", type=float, default=0.1,
                        help="the strong bot's seconds per move (default 0.1)")
    parser.add_argument("--first-deal", type=int, default=1, help="the first deal number")
    parser.add_argument("--bot", default="strong", help="the bot measured (default strong)")
    parser.add_argument("--others", help="the other seats' bot (default heuristic for what "
                        "else?, lookahead for Stars and Bars)")
    parser.add_argument("--baseline", help="measure the strong bot as it was at this git "
                        "revision instead")
    args = parser.parse_args(argv)
    if args.game == "what_else":
        for players in args.players:
            bench_what_else(players, args.deals, args.think, args.first_deal, args.bot,
                            args.others or "heuristic", args.baseline)
    elif args.game in POINTS_GAMES:
        bench_points(args.game, 4, args.deals, args.think, args.first_deal, args.bot,
                     args.others or "heuristic", args.baseline)
    else:
        bench_stars_and_bars(args.deals, args.think, args.first_deal, args.bot,
                             args.others or "lookahead", args.baseline)


if __name__ == "__main__":
    main()
