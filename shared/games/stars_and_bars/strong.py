"""The ``strong`` bot for Stars and Bars (``stars_and_bars``): Monte Carlo over the draw.

Both hands are open; only the deck's order is hidden. The bot is given an ``Observation``:
the unseen cards are those never shown (every card comes into sight when it is drawn, in the
set-up's draws or a turn's ``drew``), and the deck holds exactly them in some order. Like
``lookahead`` it makes every claim first and does every duty (both are free points, or deny
them to the opponent) and searches only the placement.

For the placement it keeps the ``lookahead`` bot's best few candidates (points now, less the
opponent's best reply and the claims left to them), then plays each on in worlds sampled
afresh (the deck shuffled anew), every candidate in the same worlds, both seats then placing
greedily for a few turns (``Playout``: the engine's rules on plain lists); a candidate's
value is the score difference then, or the result when the game ends on the way. It chooses
the best mean when its time is up (``search_flat.paired_search``).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

from starhall.shared.belief import KeptFold, fold_of
from starhall.shared.cards import CardSet, bits
from starhall.shared.engine import Command, Event, Seat
from starhall.shared.games.stars_and_bars.bots import _admin, lookahead_scores
from starhall.shared.games.stars_and_bars.rules import (
    CENTRE,
    CENTRE_MASK,
    DECK,
    EMPTY,
    FACE_DOWN,
    NOBODY,
    SPACES,
    STACK_FULL,
    BarsState,
    BarsTurn,
    Result,
    Tally,
    Turn,
    end_result,
    placement_points,
    round_result,
    stars_and_bars_view,
    tops_of,
)
from starhall.shared.observation import Observation
from starhall.shared.search_flat import (
    Appraisal,
    MoveValue,
    SearchResult,
    WorldsBot,
    paired_search,
)

CANDIDATES = 6
"""How many of the lookahead's best placements the search plays out."""
HORIZON = 6
"""Turns played after the bot's own (three each) before a playout is scored."""
SPREAD = 60.0
"""A score difference of this many points counts as a sure win (a value of 1) in a playout
cut short; a lead over 50 at a round's end wins outright."""
_PLACEHOLDER = 0
"""A face-down stack's cards are not shown and play no part in the rules: any card stands in."""


class Shown:
    """The cards shown to the seat so far, from the events: the draws a shuffle showed and
    the cards drawn at turns' ends."""

    __slots__ = ("cards",)

    def __init__(self) -> None:
        self.cards: CardSet = 0

    def follow(self, event: Event) -> None:
        index_of = DECK.index_of
        if event.type == "shuffled":
            for code in event.data.get("draws", ()):
                self.cards |= 1 << index_of[code]
        elif event.type == "turn_ended" and event.data.get("drew") is not None:
            self.cards |= 1 << index_of[event.data["drew"]]


def unseen_cards(seen: Observation, kept: KeptFold[Shown] | None = None) -> CardSet:
    """The cards never shown to the seat: the deck, in an order it does not know. ``kept``:
    the cards shown at the seat's moves before, to look only at the events since."""
    return DECK.full & ~fold_of(seen.seat, seen.seen, Shown, kept).cards


def sample_deck(seen: Observation, unseen: CardSet, rng: random.Random) -> list[int]:
    """One order of the deck consistent with what was seen: the unseen cards shuffled (the
    deck holds exactly them; should the count disagree, as many of them as it holds)."""
    order = list(bits(unseen))
    rng.shuffle(order)
    return order[:stars_and_bars_view(seen.view)["deck"]]


def _turn_of(shown: BarsTurn | None) -> Turn | None:
    if shown is None:
        return None
    return Turn(seat=shown["seat"], claims=tuple(
        (claim["kind"], claim.get("space", EMPTY), claim["points"]) for claim in shown["claims"]),
        placed=None, duties=(), points=shown["points"], passed=shown["passed"], forgotten=(),
        drew=EMPTY, touched=shown["touched"])


def template_state(seen: Observation) -> BarsState:
    """The state as the view shows it, before the bot places; the deck is filled in per world."""
    view = stars_and_bars_view(seen.view)
    index_of = DECK.index_of
    stacks = []
    face_down = 0
    for space, cell in enumerate(view["board"]):
        if cell["face_down"]:
            face_down |= 1 << space
            stacks.append((_PLACEHOLDER,) * cell["height"])
        else:
            stacks.append(tuple(index_of[code] for code in cell["cards"]))
    hands = [DECK.mask(hand) for hand in view["hands"]]
    zeros = (0, 0)
    return BarsState(
        phase=view["phase"], round=view["round"], starter=view["starter"],
        stacks=tuple(stacks), face_down=face_down,
        owners=tuple(NOBODY if cell["owner"] is None else cell["owner"]
                     for cell in view["board"]),
        clear_owner=NOBODY if view["clear_owner"] is None else view["clear_owner"],
        hands=(hands[0], hands[1]), deck=(), discards=0,
        scores=(view["scores"][0], view["scores"][1]), turn=_turn_of(view["turn"]),
        last_turn=_turn_of(view["last_turn"]), result=None, round_ended=False,
        tally=Tally(zeros, zeros, zeros, zeros, zeros))


class Playout:
    """A world played on from the bot's placement, on plain lists rather than the engine's
    immutable state (copying the state at every event was most of a playout's time). The
    rules the engine's ``evolve`` applies, for players who always do their duties (so no claim
    arises on the way); the tests replay playouts on the engine and find the same ends."""

    __slots__ = ("tops", "heights", "hands", "deck", "scores", "starter", "last_passed",
                 "result", "rng", "log")

    def __init__(self, state: BarsState, rng: random.Random) -> None:
        self.tops = list(tops_of(state))
        self.heights = [len(stack) for stack in state.stacks]
        self.hands = list(state.hands)
        self.deck = list(reversed(state.deck))
        """The deck, its top card last (drawn with ``pop``)."""
        self.scores = list(state.scores)
        self.starter = state.starter
        self.last_passed = state.last_turn is not None and state.last_turn.passed
        self.result: Result | None = None
        self.rng = rng
        self.log: list[tuple[int, int, int]] | None = None
        """When a list, every turn is written to it as (seat, card, space), card -1 for a
        pass (the tests replay them on the engine)."""

    def greedy(self, seat: Seat) -> tuple[int, int]:
        """The placement with the most points now (ties at random), or (-1, -1) for none."""
        tops, rng = self.tops, self.rng
        best, chosen, ties = -1, (-1, -1), 0
        spaces = [space for space in range(SPACES) if tops[space] != FACE_DOWN]
        hand = self.hands[seat]
        while hand:
            low = hand & -hand
            hand ^= low
            card = low.bit_length() - 1
            for space in spaces:
                points = placement_points(tops, card, space)
                if points > best:
                    best, chosen, ties = points, (card, space), 1
                elif points == best and points >= 0:
                    ties += 1
                    if rng.random() * ties < 1:
                        chosen = (card, space)
        return chosen

    def turn(self, seat: Seat, card: int, space: int) -> None:
        """``seat`` places ``card`` on ``space`` (card -1: passes), does its duties and ends
        its turn."""
        if self.log is not None:
            self.log.append((seat, card, space))
        passed = card < 0
        if not passed:
            tops, heights = self.tops, self.heights
            self.scores[seat] += placement_points(tops, card, space)
            self.hands[seat] &= ~(1 << card)
            heights[space] += 1
            tops[space] = card
            if heights[space] >= STACK_FULL:
                if CENTRE_MASK >> space & 1:
                    tops[space] = FACE_DOWN
                    if all(tops[s] == FACE_DOWN for s in CENTRE):
                        for s in CENTRE:
                            tops[s], heights[s] = EMPTY, 0
                else:
                    tops[space], heights[space] = EMPTY, 0
            if self.deck:
                self.hands[seat] |= 1 << self.deck.pop()
        scores = (self.scores[0], self.scores[1])
        result = round_result(scores) if seat != self.starter else None
        if result is None and ((not self.hands[0] and not self.hands[1])
                               or (passed and self.last_passed)):
            result = end_result(scores)
        self.result = result
        self.last_passed = passed

    def run(self, seat: Seat, card: int, space: int, turns: int) -> None:
        """``seat``'s placement, then ``turns`` greedy turns or to the end of the game."""
        self.turn(seat, card, space)
        for _ in range(turns):
            if self.result is not None:
                return
            seat = 1 - seat
            self.turn(seat, *self.greedy(seat))

    def value(self, seat: Seat) -> float:
        """The playout's value to ``seat`` in [0, 1]: the result of a finished game, else the
        score difference scaled by ``SPREAD``."""
        result = self.result
        if result is not None:
            if len(result.winners) > 1:
                return 0.5
            return 1.0 if result.winners[0] == seat else 0.0
        lead = self.scores[seat] - self.scores[1 - seat]
        return min(1.0, max(0.0, 0.5 + lead / (2 * SPREAD)))


class StrongBot(WorldsBot):
    """Plays out the lookahead's best placements over sampled deck orders; keeps the cards it
    was shown from one move to the next (``unseen_cards``)."""

    def __init__(self, rng: random.Random, worlds: int = 0) -> None:
        super().__init__(rng, worlds)
        self.shown: KeptFold[Shown] = KeptFold()

    def choose(self, seen: Observation, think: float) -> Command:
        start = time.perf_counter()  # the budget counts what is worked out before the search
        self.searched = False
        command = _admin(stars_and_bars_view(seen.view), seen.seat)
        if command is not None:
            return command
        candidates, result = self._search(seen, start, think, self.worlds)
        self.last_playouts = result.playouts
        self.searched = True
        card, space = candidates[result.chosen]
        return Command("place", seen.seat, {"card": DECK.code_of[card], "space": space})

    def appraise(self, seen: Observation, think: float, worlds: int | None = None,
                 include: Command | None = None) -> Appraisal | None:
        """The value of each placement the search ``choose`` plays by weighs (the lookahead's
        best few, and ``include`` too: a move to value whatever the lookahead thinks of it),
        the chance to win in percent (a playout's score lead counts toward it).
        ``worlds``: exactly that many, whatever the clock. ``None`` where the bot does not
        search (a claim or a duty comes first)."""
        seat = seen.seat
        if _admin(stars_and_bars_view(seen.view), seat) is not None:
            return None
        extra = None
        if include is not None and include.type == "place":
            extra = (DECK.index(include.data["card"]), include.data["space"])
        candidates, result = self._search(seen, time.perf_counter(),
                                          think if worlds is None else 0.0, worlds or 0, extra)
        return Appraisal(tuple(
            MoveValue(Command("place", seat, {"card": DECK.code_of[card], "space": space}),
                      mean, error, count)
            for (card, space), mean, error, count in zip(
                candidates, result.means, result.errors, result.counts, strict=True)),
            "% win chance", 100.0)

    def _search(self, seen: Observation, start: float, think: float, least: int,
                extra: tuple[int, int] | None = None
                ) -> tuple[list[tuple[int, int]], SearchResult]:
        """The candidate placements (and ``extra``) and their playouts, from ``start`` on."""
        view, seat = stars_and_bars_view(seen.view), seen.seat
        rng = self.rng
        scored = lookahead_scores(view, seat)
        rng.shuffle(scored)  # ties between equal scores at random, as the lookahead breaks them
        scored.sort(key=lambda entry: -entry[0])
        candidates = [(card, space) for _, card, space in scored[:CANDIDATES]]
        if extra is not None and extra not in candidates:
            candidates.append(extra)
        unseen = unseen_cards(seen, self.shown)
        template = template_state(seen)

        def sample() -> tuple[BarsState, int]:
            deck = tuple(sample_deck(seen, unseen, rng))
            return replace(template, deck=deck), rng.getrandbits(32)

        def playout(index: int, world: tuple[BarsState, int]) -> float:
            state, seed = world
            # the same greedy ties for every candidate in a world
            played = Playout(state, random.Random(seed))
            played.run(seat, *candidates[index], HORIZON)
            return played.value(seat)

        result = paired_search(len(candidates), sample, playout,
                               think - (time.perf_counter() - start), 0, least)
        return candidates, result


BOTS = {"strong": StrongBot}
"""Registered in the game's package (``BOT_MODULES``) after its bots module, which this one
builds on."""
