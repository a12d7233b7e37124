"""Stars' ``strong`` bot: information-set search (``shared/search.py``) with the game's own
engine, for the bidding and the play.

From the seat's view alone (its hand, the widow and burial when it declares, the tricks in
the order played) it works out where the unseen cards may be (``stars_hidden``): the other
hands, less every suit a seat showed it lacked, and, for a defender, the declarer's three
buried cards, which may be any. The play is ISMCTS over deals of those cards, each played
out by a fast policy (``policy_card``) and scored by the engine: each seat's change to its
total, the contract's ± bid included, against the others' mean. The bidding plays the hand
out as declarer over many deals of the others' hands and the widow (burying by a quick rule,
``rough_burial``) and bids the amount whose expected bonus is best, given the distribution of
the scores it reached. The burial is searched too (``search_burial``): the heuristic's best
burials by its own measure, each played out from the same deals of the others' hands.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from random import Random
from typing import Any

from starhall.shared.cards import CardSet, Chance, bits, lowest, random_card
from starhall.shared.engine import Command, Event, Seat
from starhall.shared.games.stars.bots import (
    HeuristicStarsBot,
    ranked_burials,
    trick_gains,
    trick_utility,
    win_chance,
)
from starhall.shared.games.stars.rules import (
    BURY_COUNT,
    DECK,
    GAME,
    PLAYERS,
    POINTS,
    TRUMP,
    HandResult,
    StarsState,
    StarsView,
    TrickResult,
    finish_hand,
    legal_cards,
    may_play,
    resolve_trick,
    rules_for,
    stars_view,
    take_trick,
)
from starhall.shared.observation import Observation
from starhall.shared.search import (
    Hidden,
    Place,
    Searched,
    TrickPlay,
    card_set_values,
    flat_search,
    search,
    voids_from_plays,
)
from starhall.shared.search_flat import (
    Appraisal,
    Budget,
    Deadline,
    MoveValue,
    OutOfTime,
    Replay,
    deadline_of,
    replay,
)
from starhall.shared.tricks import Trick, led_suit, trick_winner

RANDOM_ROLLOUT = 0.1
"""Share of rollout moves played at random rather than by the policy."""
TRUMPS = DECK.suit_mask[TRUMP]


def _plays(view: StarsView) -> list[tuple[int, int]]:
    """The hand's plays so far, in order: the finished tricks', then the trick on the table."""
    index = DECK.index
    plays = [(seat, index(code)) for past in view["tricks"] for seat, code in past["plays"]]
    return plays + [(seat, index(code)) for seat, code in view["trick"]]


def stars_hidden(view: StarsView, seat: int) -> Hidden:
    """Where the cards ``seat`` has not seen may be: the other hands in seat order, then the
    widow (in the bidding) or, for a defender, the declarer's burial (in the play)."""
    hand = DECK.mask(view["hand"])
    plays = _plays(view)
    shown = hand
    for _, card in plays:
        shown |= 1 << card
    buried = view.get("buried")
    declaring = buried is not None
    if buried is not None:
        shown |= DECK.mask(buried)
    unseen = DECK.full & ~shown
    lacking = voids_from_plays(plays, DECK.suit_of, PLAYERS, DECK.suit_mask)
    places = [Place(view["hand_sizes"][other], unseen & ~lacking[other])
              for other in range(PLAYERS) if other != seat]
    if view["phase"] == "bidding":
        places.append(Place(view["widow_count"], unseen))
    elif not declaring:
        places.append(Place(unseen.bit_count() - sum(place.size for place in places), unseen))
    return Hidden(unseen, tuple(places))


def _hands(seat: int, hand: CardSet, dealt: tuple[CardSet, ...]) -> tuple[CardSet, ...]:
    others = iter(dealt)
    return tuple(hand if other == seat else next(others) for other in range(PLAYERS))


def determinized(seen: Observation, hidden: Hidden, rng: Random) -> StarsState:
    """One engine state of the seat's information set in the play, the hidden cards dealt."""
    view = stars_view(seen.view)
    me = seen.seat
    dealt = hidden.deal(rng)
    hand = DECK.mask(view["hand"])
    shown_buried = view.get("buried")
    declaring = shown_buried is not None
    buried = DECK.mask(shown_buried) if shown_buried is not None else dealt[PLAYERS - 1]
    index = DECK.index
    tricks = tuple(
        (tuple((s, index(code)) for s, code in past["plays"]),
         TrickResult(past["star"], past["white"], past["taker"], past["star_pile"],
                     tuple(past["shared_by"]), past["leader"], past["points"], past["paid"]))
        for past in view["tricks"])
    turn = view["turn"]
    assert turn is not None  # the play's
    return StarsState(
        rules=rules_for(seen.options), phase="play", hand_number=view["hand_number"],
        dealer=view["dealer"], hands=_hands(me, hand, dealt[:PLAYERS - 1]),
        widow=DECK.mask(view["widow"]) if declaring else 0, widow_taken=True, buried=buried,
        turn=turn, bids=tuple((s, a) for s, a in view["bids"]),
        passed=tuple(view["passed"]), high_bid=view["high_bid"], declarer=view["declarer"],
        trick=tuple((s, index(code)) for s, code in view["trick"]), tricks=tricks,
        won=tuple(DECK.mask(codes) for codes in view["taken"]),
        star_piles=tuple(DECK.mask(codes) for codes in view["star_piles"]),
        star_values=tuple(view["star_pile_points"]), shared=DECK.mask(view["shared_stars"]),
        shared_credit=tuple(view["shared_credit"]), totals=tuple(view["totals"]),
        results=_results(view),
    )


def _results(view: StarsView) -> tuple[HandResult, ...]:
    """The finished hands' results, as the view shows them."""
    return tuple(
        HandResult(c["hand_number"], c["declarer"], c["bid"], tuple(c["points"]),
                   tuple(change), c["made"], (0,) * PLAYERS)
        for c, change in zip(view["contracts"], view["score_sheet"], strict=True))


def burying_state(seen: Observation, hidden: Hidden, rng: Random) -> StarsState:
    """One engine state of the declarer's information set at its burial: the widow picked up,
    the others' hands dealt at random."""
    view = stars_view(seen.view)
    me = seen.seat
    dealt = hidden.deal(rng)
    empty = (0,) * PLAYERS
    return StarsState(
        rules=rules_for(seen.options), phase="bury", hand_number=view["hand_number"],
        dealer=view["dealer"], hands=_hands(me, DECK.mask(view["hand"]), dealt[:PLAYERS - 1]),
        widow=DECK.mask(view["widow"]), widow_taken=True, buried=0, turn=me,
        bids=tuple((s, a) for s, a in view["bids"]), passed=tuple(view["passed"]),
        high_bid=view["high_bid"], declarer=me, trick=(), tricks=(), won=empty,
        star_piles=empty, star_values=empty, shared=0, shared_credit=empty,
        totals=tuple(view["totals"]), results=_results(view),
    )


def declaring_state(seen: Observation, hidden: Hidden, rng: Random, bid: int,
                    bury: Any) -> StarsState:
    """From the bidding: a deal of the others' hands and the widow, with the seat declaring
    ``bid``, the widow picked up and ``bury(hand)`` buried, ready for the first lead."""
    view = stars_view(seen.view)
    me = seen.seat
    dealt = hidden.deal(rng)
    hand = DECK.mask(view["hand"]) | dealt[PLAYERS - 1]
    buried = DECK.mask(bury(hand))
    hands = list(_hands(me, hand & ~buried, dealt[:PLAYERS - 1]))
    empty = (0,) * PLAYERS
    return StarsState(
        rules=rules_for(seen.options), phase="play", hand_number=view["hand_number"],
        dealer=view["dealer"], hands=tuple(hands), widow=dealt[PLAYERS - 1], widow_taken=True,
        buried=buried, turn=me, bids=(), passed=(True,) * PLAYERS, high_bid=bid, declarer=me,
        trick=(), tricks=(), won=empty, star_piles=empty, star_values=empty, shared=0,
        shared_credit=empty, totals=tuple(view["totals"]), results=(),
    )


def rollout_card(state: StarsState, rng: Chance) -> int:
    """A quick, sensible card for the seat to play (a playout's policy, ``policy_card``)."""
    assert state.declarer is not None  # the play's
    return policy_card(state.rules.colored_star, state.declarer, state.hands, state.turn,
                       state.trick, replay(rng))


def policy_card(colored_star: bool, declarer: Seat, hands: Sequence[CardSet],
                seat: Seat, trick: Trick, rng: Replay) -> int:
    """The playouts' card for ``seat`` from its hand in ``hands``: the last card of a trick
    chosen by where it sends the trick, a cheap winner when a trick holds points, low cards
    otherwise, and now and then a card at random."""
    legal = may_play(hands[seat], trick)
    if not legal & (legal - 1):
        return lowest(legal)
    if rng.random() < RANDOM_ROLLOUT:
        return random_card(legal, rng)
    rank_of = DECK.rank_of
    if len(trick) == PLAYERS - 1:
        def worth(card: int) -> tuple[float, int]:
            gains = trick_gains(resolve_trick((*trick, (seat, card)), colored_star))
            return trick_utility(gains, seat, declarer), -POINTS[card] - rank_of[card]
        return max(bits(legal), key=worth)
    if not trick:
        # Lead the richest card no other hand can beat in its suit, else a low one.
        others = 0
        for other, cards in enumerate(hands):
            if other != seat:
                others |= cards
        masks = DECK.suit_cards_of
        tops = [card for card in bits(legal) if not others & masks[card] & ~((2 << card) - 1)]
        if tops:
            return max(tops, key=lambda card: (POINTS[card], rank_of[card]))
        return min(bits(legal), key=lambda card: (POINTS[card], rank_of[card]))
    suit = led_suit(trick, DECK)
    current = trick_winner(trick, DECK, TRUMP)
    win_card = next(card for s, card in trick if s == current)
    points = sum(POINTS[card] for _, card in trick)
    friendly = seat != declarer and current != declarer
    beating = [card for card in bits(legal)
               if trick_winner((*trick, (seat, card)), DECK, TRUMP) == seat]
    if beating and not friendly and (points >= 3 or seat == declarer):
        return min(beating, key=lambda card: (DECK.suit_of[card] == TRUMP, rank_of[card]))
    if friendly and suit is not None and DECK.suit_of[win_card] != TRUMP:
        return max(bits(legal), key=lambda card: (POINTS[card], -rank_of[card]))
    return min(bits(legal), key=lambda card: (POINTS[card], DECK.suit_of[card] == TRUMP,
                                              rank_of[card]))


class StarsHand(TrickPlay[StarsState]):
    """The hand's play as the search plays it (``shared.search.TrickPlay``), played out by
    ``policy_card``."""

    def __init__(self) -> None:
        super().__init__(GAME, legal_cards)

    def play_out(self, state: StarsState, draws: Replay, deadline: Deadline | None) -> StarsState:
        """The hand played out by ``policy_card`` on plain values (``TrickPlay``)."""
        colored_star, declarer = state.rules.colored_star, state.declarer
        assert declarer is not None  # the play's
        hands = list(state.hands)
        won, piles = list(state.won), list(state.star_piles)
        values, credit = list(state.star_values), list(state.shared_credit)
        shared = state.shared
        tricks = list(state.tricks)
        trick = state.trick
        turn = state.turn
        left = sum(hand.bit_count() for hand in hands)
        while left:
            if deadline is not None and not trick:
                deadline.check()
            card = policy_card(colored_star, declarer, hands, turn, trick, draws)
            hands[turn] = hands[turn] & ~(1 << card)
            left -= 1
            trick = (*trick, (turn, card))
            if len(trick) < PLAYERS:
                turn = (turn + 1) % PLAYERS
                continue
            result, shared = take_trick(trick, colored_star, won, piles, values, credit, shared)
            tricks.append((trick, result))
            turn = result.leader
            trick = ()
        return finish_hand(replace(
            state, hands=tuple(hands), trick=(), turn=turn, tricks=tuple(tricks),
            won=tuple(won), star_piles=tuple(piles), star_values=tuple(values), shared=shared,
            shared_credit=tuple(credit)))

    def rewards(self, state: StarsState) -> list[float]:
        changes = state.results[-1].changes
        total = sum(changes)
        return [(change - (total - change) / (PLAYERS - 1)) / 100 for change in changes]


HAND = StarsHand()


BURIAL_CHOICES = 10
"""The burials the search weighs: the heuristic's best by its own measure (``burial_gain``)."""
BURIAL_DOUBT = 1.0
"""Standard errors by which a burial must beat the heuristic's over the deals played out to
replace it: a search too short to tell the burials apart keeps the heuristic's."""


class StarsBurial:
    """The declarer's burial as the search plays it (``shared.search.Searchable``): a move is
    the set of cards buried, made by the engine's ``buried`` event, and the hand is then played
    out by ``policy_card`` (``HAND``) and scored by the engine, the contract included."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def actor(self, state: StarsState) -> int:
        return self.seat

    def moves(self, state: StarsState) -> list[CardSet]:
        return ranked_burials(state.hands[self.seat], BURIAL_CHOICES)

    def apply(self, state: StarsState, move: CardSet) -> StarsState:
        return GAME.evolve(state, Event("buried", self.seat, {"cards": DECK.codes(move)}))

    def done(self, state: StarsState) -> bool:
        return state.phase != "bury"

    def rollout(self, state: StarsState, rng: Chance,
                deadline: Deadline | None = None) -> StarsState:
        return HAND.rollout(state, rng, deadline)

    def rewards(self, state: StarsState) -> list[float]:
        return HAND.rewards(state)


def search_burial(seen: Observation, rng: Random, think: Budget,
                  iterations: int | None = None) -> Searched[CardSet]:
    """The declarer's burial by search: each of the heuristic's best burials
    (``BURIAL_CHOICES``) played out from the same deals of the others' hands; each one's value
    is its mean reward (the seat's score less the others' mean, over 100, the contract's ± bid
    included)."""
    view = stars_view(seen.view)
    hidden = stars_hidden(view, seen.seat)
    candidates = ranked_burials(DECK.mask(view["hand"]), BURIAL_CHOICES)
    return flat_search(StarsBurial(seen.seat), lambda r: burying_state(seen, hidden, r), rng,
                       think, iterations, candidates, doubt=BURIAL_DOUBT, least=0)


def rough_burial(hand: CardSet) -> list[str]:
    """The three cards most likely to be lost with their points: a burial quick enough for
    the thousands of hands the strong bot's bidding plays out (``choose_burial`` weighs
    every burial)."""
    lost = sorted(bits(hand), key=lambda card: -POINTS[card] * (1 - win_chance(card, hand)))
    return DECK.codes(sum(1 << card for card in lost[:BURY_COUNT]))


BID_WHEN_AHEAD = 0.0
"""The strong bot bids whenever the hands it played out as declarer make the contract more
often than not: its play is better than the playouts' policy (it made 91% of its contracts
so), and requiring the heuristic's 70% (``SURE_ENOUGH``) left it defending hands it would have
made (strong vs heuristic, 0.1 s, 60 deals: +3.9 ± 2.9 points per hand at 0.15, +8.9 ± 3.4 at
0)."""
MIN_BIDDING_DEALS = 12
"""Fewer deals played out than this (a very short think time) and the bid is the heuristic
bot's."""


class StrongStarsBot:
    """Plays by information-set search (``stars.strong``) with the engine (flat Monte Carlo:
    every card played out from the same deals of the unseen cards), and bids from hands played
    out as declarer over deals of the unseen cards; buries by search (``search_burial``).
    Given the seat's ``Observation`` only, and ``think`` seconds, counted from the call
    (``Deadline``): the search stops within a card of the budget; ``iterations`` caps the
    search too (tests fix it to be deterministic)."""

    searches = True
    """It thinks for its whole budget: the server asks it in a worker process."""
    method = "flat"
    """``flat`` (``shared.search.flat_search``, which beat the tree) or ``uct``
    (``shared.search.search``)."""
    burying = "search"
    """``search`` (``search_burial``) or ``heuristic`` (``bots.choose_burial``, as before the
    search; the bench's baseline)."""
    sure_enough = BID_WHEN_AHEAD
    """The expected contract bonus (× the bid) from the played-out deals it bids from."""

    def __init__(self, rng: random.Random, iterations: int | None = None) -> None:
        self.rng = rng
        self.iterations = iterations
        self.last_iterations = 0
        self.searched = False
        """Whether the last move was searched (not forced)."""
        self.clock: Callable[[], float] = time.perf_counter
        """What ``Deadline`` reads (a test hands in a clock that counts its reads)."""
        self.heuristic = HeuristicStarsBot(rng)

    def choose(self, seen: Observation, think: float) -> Command:
        deadline = Deadline(think, self.clock)
        self.searched = False
        legal = seen.legal
        if len(legal) == 1:
            return legal[0]
        view, seat = stars_view(seen.view), seen.seat
        offer = view["legal"]
        self.searched = offer.get("bid") is not None or "play" in offer or (
            "bury" in offer and self.burying == "search")
        if "play" in offer:
            hidden = stars_hidden(view, seat)
            deal = lambda rng: determinized(seen, hidden, rng)  # noqa: E731
            if self.method == "flat":
                # The heuristic's card first: the choice if the time runs out before one deal
                # is played out, so a slow machine makes the search shorter, never later.
                played = DECK.index(self.heuristic.choose(seen, 0.0).data["card"])
                cards = [played, *(card for card in bits(DECK.mask(offer["play"]))
                                   if card != played)]
                result = flat_search(HAND, deal, self.rng, deadline, self.iterations, cards,
                                     least=0)
            else:
                result = search(HAND, deal, self.rng, deadline, self.iterations)
            self.last_iterations = result.iterations
            return Command("play", seat, {"card": DECK.code_of[result.move]})
        if "bury" in offer:
            if self.burying == "heuristic":
                burial = ranked_burials(DECK.mask(offer["bury"]["from"]), 1)[0]
            else:
                found = search_burial(seen, self.rng, deadline, self.iterations)
                self.last_iterations = found.iterations
                burial = found.move
            return Command("bury", seat, {"cards": DECK.codes(burial)})
        return self._bid(seen, deadline)

    def appraise(self, seen: Observation, think: float, worlds: int | None = None,
                 include: Command | None = None) -> Appraisal | None:
        """Each legal card's value by the flat search ``choose`` plays by, every card played out in
        every deal (none dropped): the hand's expected points against the others' mean. ``worlds``:
        exactly that many deals, whatever the clock (``include``: every legal card is valued
        anyway). ``None`` for a single legal move. At the burial, each burial its search weighs
        (``burial_values``); in the bidding, what each bid would gain as declarer
        (``bid_values``)."""
        view, seat = stars_view(seen.view), seen.seat
        if len(seen.legal) < 2:
            return None
        offer = view["legal"]
        if "bury" in offer:
            return self.burial_values(seen, think, worlds, include)
        if "play" not in offer:
            return self.bid_values(seen, think, worlds, include)
        hidden = stars_hidden(view, seat)
        deal = lambda rng: determinized(seen, hidden, rng)  # noqa: E731
        cards = list(bits(DECK.mask(view["legal"]["play"])))
        result = flat_search(HAND, deal, self.rng, think if worlds is None else math.inf,
                             worlds, cards, prune=False)
        return Appraisal(tuple(
            MoveValue(Command("play", seat, {"card": DECK.code_of[card]}),
                      result.values.get(card, 0.0), result.errors.get(card, 0.0),
                      result.visits.get(card, 0)) for card in cards), "points", 100.0)

    def _bid(self, seen: Observation, deadline: Deadline) -> Command:
        view, seat = stars_view(seen.view), seen.seat
        offer = view["legal"]
        bid = offer.get("bid")
        if bid is None:
            return Command("pass", seat, {})
        scores = self._declarer_points(seen, bid["min"], deadline, self.iterations)
        self.last_iterations = len(scores)
        if len(scores) < MIN_BIDDING_DEALS:
            return HeuristicStarsBot._bid(view, offer, seat)
        best, best_gain = bid["min"], -math.inf
        for amount in range(bid["min"], min(bid["max"], max(scores)) + 1):
            gain = contract_gain(amount, scores)
            if gain > best_gain:
                best, best_gain = amount, gain
        if best_gain >= self.sure_enough * best or not offer["pass"]:
            return Command("bid", seat, {"amount": best if best_gain >= 0 else bid["min"]})
        return Command("pass", seat, {})

    def _declarer_points(self, seen: Observation, bid: int, budget: Budget,
                         deals: int | None, least: int = 0) -> list[int]:
        """The seat's points in hands played out as declarer of ``bid``, over deals of the
        unseen cards, until the deadline (a deal cut short by it counts for nothing; the
        first ``least`` are played out whatever the clock says) or ``deals`` deals."""
        hidden = stars_hidden(stars_view(seen.view), seen.seat)
        deadline = deadline_of(budget)
        scores: list[int] = []
        try:
            while True:
                deadline.armed = len(scores) >= least
                state = HAND.rollout(declaring_state(seen, hidden, self.rng, bid,
                                                     rough_burial), self.rng, deadline)
                scores.append(state.results[-1].points[seen.seat])
                if deals is not None and len(scores) >= deals:
                    break
                if deadline.passed():
                    break
        except OutOfTime:
            pass
        return scores

    def bid_values(self, seen: Observation, think: float, worlds: int | None,
                   include: Command | None) -> Appraisal:
        """What each bid would gain as declarer (``contract_gain``) over the same hands
        played out as ``choose`` bids from, passing nothing: every amount from the least up to
        the most points made in a hand played out, and ``include``'s."""
        seat = seen.seat
        offer = stars_view(seen.view)["legal"]
        moves = [MoveValue(Command("pass", seat, {}), 0.0, 0.0, 0)] if offer["pass"] else []
        bid = offer.get("bid")
        if bid is None:
            return Appraisal(tuple(moves), "points from the contract", 1.0)
        scores = self._declarer_points(seen, bid["min"], think if worlds is None else math.inf,
                                       worlds, least=1)
        amounts = set(range(bid["min"], min(bid["max"], max(max(scores), bid["min"])) + 1))
        if include is not None and include.type == "bid":
            amounts.add(include.data["amount"])
        for amount in sorted(amounts):
            made = made_chance(amount, scores)
            moves.append(MoveValue(Command("bid", seat, {"amount": amount}),
                                   contract_gain(amount, scores),
                                   2 * amount * math.sqrt(made * (1 - made) / len(scores)),
                                   len(scores)))
        return Appraisal(tuple(moves), "points from the contract", 1.0)

    def burial_values(self, seen: Observation, think: float, worlds: int | None,
                      include: Command | None) -> Appraisal:
        """Each burial ``search_burial`` weighs, and ``include``'s where it is another, by the
        same playouts, every burial in every deal: the hand's points as ``appraise`` values a
        card."""
        view, seat = stars_view(seen.view), seen.seat
        hidden = stars_hidden(view, seat)
        return card_set_values(StarsBurial(seat), lambda r: burying_state(seen, hidden, r),
                               self.rng, think, worlds,
                               ranked_burials(DECK.mask(view["hand"]), BURIAL_CHOICES), "bury",
                               seat, DECK, include, "points", 100.0)


def made_chance(amount: int, scores: list[int]) -> float:
    """How likely a contract of ``amount`` is made, from the points of hands played out (one
    half of a made hand added, and one of a lost: never quite sure either way)."""
    return (sum(score >= amount for score in scores) + 0.5) / (len(scores) + 1)


def contract_gain(amount: int, scores: list[int]) -> float:
    """What declaring ``amount`` is worth: the bid won or lost, by how likely it is made."""
    return amount * (2 * made_chance(amount, scores) - 1)


BOTS = {"strong": StrongStarsBot}
"""Registered in the game's package (``BOT_MODULES``) after its bots module, which this one
builds on."""
