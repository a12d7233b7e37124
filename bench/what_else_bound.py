"""How far seeing hidden cards would take a player of "what else?" against heuristic players
(issue 34): a bound on what the ``strong`` bot's search can gain by playing its cards better,
in the duplicate format of ``bench.bots_others`` (the same deals, the same shuffles).

    python -m bench.what_else_bound --players 3 4 6 --deals 100 --sees hands
    python -m bench.what_else_bound --players 3 --deals 100 --sees cards --worlds 30

One seat is a *seer*, the others ``heuristic`` bots given only their observations. At each
card it lays, the seer tries every card that fits and, after it, every card it may lay at its
later turns of the round, the others playing on by the heuristic's rule (the strong bot's
rollout step, on the rules' ``PlayoutState``: no rule is written here), and lays the card
whose best line is worth most; a round ends with no chance in it, so a line's worth is exact.
A line is worth 1 for the round won (a game won 1, a game lost 0) plus ``--keep`` times the
worth between rounds above an average card's of the cards the seer holds when the round ends
(the strong bot's measure, ``strong.KEEP_WEIGHT``). Its refills are the heuristic's, its opening
card too with ``--follow-only``. This is not a bot: it reads the state, which no bot may.

``--sees hands``: every opponent's hand, who holds what. ``--sees cards``: which cards the
opponents hold between them, not who holds which; the seer values its cards over ``--worlds``
ways of dealing them out again (their hand sizes kept), as a search over sampled worlds does.
No search that samples worlds from what its seat has seen can see more than ``hands``; one
that reads the opponents' play perfectly sees about what ``cards`` does at the end of a round.

Measured on a 2-core machine shared with other work (load 8 to 16), ``--keep 0.5``, from deal
6001: ``--sees hands`` 3 players 48.0% ± 5.5% (100 deals), 4 players 41.5% ± 4.1% (100),
6 players 37.7% ± 5.3% (50); ``--sees cards`` 41.3% ± 5.2% (100 deals), 30.5% ± 5.1% (50),
21.3% ± 4.7% (50) (the goal: 50%, 37.5%, 25%). Seeing who holds what is worth far more than
seeing which cards are held: a search over worlds sampled from what its seat may know stays
near the ``cards`` figures, not the goal.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from typing import Any

from bench.bots_others import mean_interval, play_seeded, verdict
from starhall.shared.bots import make_bot
from starhall.shared.cards import bits
from starhall.shared.engine import Command, Seat
from starhall.shared.games import get_game
from starhall.shared.games.what_else import strong
from starhall.shared.games.what_else.rules import (
    PlayoutState,
    WhatElseState,
    legal_cards,
)
from starhall.shared.observation import Observation


class Seer:
    """Chooses the seer's card from the state itself (``hands``) or from the opponents' cards
    dealt among them again (``cards``)."""

    def __init__(self, sees: str, worlds: int, keep: float, follow_only: bool,
                 rng: random.Random) -> None:
        self.sees, self.worlds, self.keep, self.follow_only = sees, worlds, keep, follow_only
        self.rng = rng

    def card(self, state: WhatElseState, seat: Seat) -> int | None:
        """The card to lay, or ``None`` to move as the heuristic does."""
        playable = legal_cards(state, seat)
        if playable & (playable - 1) == 0 or (self.follow_only and not state.pile):
            return None
        values = dict.fromkeys(bits(playable), 0.0)
        for world in self._worlds(state, seat):
            playing = PlayoutState(world)
            for card in values:
                values[card] += self._after(playing, seat, card)
        usual = strong.rollout_card(PlayoutState(state), seat)
        best = max(values, key=lambda card: (values[card], card == usual))
        return best if values[best] > values[usual] + 1e-9 else None

    def _worlds(self, state: WhatElseState, seat: Seat) -> list[WhatElseState]:
        if self.sees == "hands":
            return [state]
        others = [other for other in range(state.rules.players) if other != seat]
        pooled = [card for other in others for card in bits(state.hands[other])]
        worlds = []
        for _ in range(self.worlds):
            self.rng.shuffle(pooled)
            hands = list(state.hands)
            start = 0
            for other in others:
                count = state.hands[other].bit_count()
                hands[other] = sum(1 << card for card in pooled[start:start + count])
                start += count
            worlds.append(replace(state, hands=tuple(hands)))
        return worlds

    def _after(self, playing: PlayoutState, seat: Seat, card: int) -> float:
        """The best line's worth after ``seat`` lays ``card`` (``playing`` is left as it was)."""
        line = PlayoutState(playing.frozen())
        held = line.hands[seat]
        line.play(seat, card)
        if not line.pile:
            return self._worth(line, seat, held & ~(1 << card))
        return self._best_line(line, seat)

    def _best_line(self, line: PlayoutState, seat: Seat) -> float:
        """Plays the round on, the others by the heuristic's rule, the seer each way it may."""
        while True:
            if line.turn == seat:
                playable = legal_cards(line, seat)
                if playable:
                    return max(self._after(line, seat, card) for card in bits(playable))
            held = line.hands[seat]
            strong.rollout_step(line, self.rng)  # a card or a pass: no chance in a round
            if not line.pile:
                return self._worth(line, seat, held)

    def _worth(self, ended: PlayoutState, seat: Seat, kept: int) -> float:
        assert ended.last_round is not None
        won = float(ended.last_round.winner == seat)
        if ended.phase == "over":
            return won
        worth, average = strong.static_worth(ended.rules.cards.table)
        return won + self.keep * sum(worth[card] - average for card in bits(kept))


def play_deal(players: int, seer_seat: Seat, seer: Seer, deal: int) -> tuple[int, ...]:
    """One game from deal number ``deal``, shuffled as ``bench.bots_others`` does."""
    game = get_game("what_else")
    options = game.make_options(players, {})
    heuristic = [make_bot(game, "heuristic", random.Random(deal * 100 + seat))
                 for seat in range(players)]

    def choose(state: Any, seat: Seat, observation: Observation) -> Command:
        card = seer.card(state, seat) if seat == seer_seat else None
        if card is None:
            return heuristic[seat].choose(observation, 0.0)
        return Command("play", seat, {"card": state.rules.cards.deck.code_of[card]})

    state = play_seeded(game, game.new_state(players, options), players, options, deal, choose)
    winners = game.outcome(state).winners
    assert winners is not None
    return winners


def bound(players: int, deals: int, first: int, sees: str, worlds: int, keep: float,
          follow_only: bool) -> None:
    shares = []
    start = time.perf_counter()
    for deal in range(first, first + deals):
        won = 0
        for seat in range(players):
            seer = Seer(sees, worlds, keep, follow_only, random.Random(deal * 10 + seat))
            won += seat in play_deal(players, seat, seer, deal)
        shares.append(won / players)
    mean, half = mean_interval(shares)
    fair = 1 / players
    print(f"what_else, {players} players: a seer of the opponents' {sees} against heuristic "
          f"won {mean:.1%} ± {half:.1%} of {deals * players} games ({deals} deals × "
          f"{players} seats); fair share {fair:.1%}; goal ≥ {1.5 * fair:.1%}: "
          f"{verdict(mean - half, mean + half, 1.5 * fair)}; {time.perf_counter() - start:.0f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first-deal", type=int, default=6001)
    parser.add_argument("--sees", choices=("hands", "cards"), default="hands",
                        help="what the seer sees of the opponents (default hands)")
    parser.add_argument("--worlds", type=int, default=30,
                        help="with --sees cards: the deals of their cards it values over")
    parser.add_argument("--keep", type=float, default=0.5,
                        help="a line's worth of the cards kept, to a round won (default 0.5)")
    parser.add_argument("--follow-only", action="store_true",
                        help="open a round as the heuristic does, search only the follows")
    args = parser.parse_args(argv)
    for players in args.players:
        bound(players, args.deals, args.first_deal, args.sees, args.worlds, args.keep,
              args.follow_only)


if __name__ == "__main__":
    main()
