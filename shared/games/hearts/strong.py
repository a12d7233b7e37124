"""Stardeck Hearts' ``strong`` bot: information-set search (``shared/search.py``) with the
game's own engine, in every mode and player count, the classic deck included.

The bot is given an ``Observation`` only. From the seat's view and the hand's events as the
seat was shown them it works out where the unseen cards may be (``hearts_hidden``): not in a
suit a seat showed it lacked, not Hearts-only leads' other suits, the cards the seat passed in
the hand they went to, the exchange's discards among non-point cards, the blind cards in the
middle or face down in a pile. Each search iteration deals them at random that way into the
engine state the view describes (``hearts_worlds``, the view read once a decision), and
plays the hand out from each of the seat's cards (``shared.search.flat_search``; cards that
come to the same counted once, ``distinct_cards``) by the heuristic bot's rules on bitmasks
(``policy_card``) to the hand's end, scored by the engine (the moon included). A playout
keeps the hand in play as a few plain values changed in place (``HeartsHand.play_out``) and
moves them on with the engine's own rules (``may_play``, ``take_trick``, ``finish_hand``):
one rule in one place, at less than half the cost of a new engine state each card.

The pass is searched the same way (``search_pass``): the cards passed together, chosen among
the sets of the cards the heuristic ranks most dangerous, each set played out from the same
deals of the unseen cards, where the other seats pass as the policy does, the receiver holds
the cards passed to it and the hand is played out to its end, all through the engine's events.
The exchange is the heuristic bot's choice.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from random import Random

from starhall.shared.cards import CardSet, Chance, bits, lowest, random_card
from starhall.shared.engine import Command, Event, Seat
from starhall.shared.games.hearts.bots import HeuristicHeartsBot
from starhall.shared.games.hearts.rules import (
    GAME,
    HeartsState,
    Rules,
    finish_hand,
    hearts_view,
    legal_cards,
    may_play,
    rules_for,
    take_trick,
)
from starhall.shared.observation import Observation
from starhall.shared.search import (
    EXPLORATION,
    Hidden,
    Place,
    Searched,
    TrickPlay,
    card_set_values,
    flat_search,
    search,
    voids_from_plays,
)
from starhall.shared.search_flat import Appraisal, Budget, Deadline, MoveValue, Replay, replay
from starhall.shared.tricks import Trick, led_suit, trick_cards

RANDOM_ROLLOUT = 0.1
"""Share of rollout moves played at random rather than by the policy: the opponents in a
playout are not all the same player."""


@dataclass(frozen=True, slots=True)
class HeartsKnowledge:
    """What the seat knows of the hand in play, and where the unseen cards may be."""

    rules: Rules
    seat: int
    hand: CardSet
    won: tuple[CardSet, ...]
    """Each seat's taken cards as shown (the blind cards face down left out)."""
    hidden: Hidden
    middle: int | None
    """Index in ``hidden.places`` of the undealt cards still in the middle, if any."""
    blind: tuple[int, int] | None
    """The seat whose pile holds the blind cards face down, and their place's index."""


def hand_events(seen: Sequence[Event]) -> Sequence[Event]:
    """The events of the hand in play: those after the last deal."""
    for index in range(len(seen) - 1, -1, -1):
        if seen[index].type == "deal":
            return seen[index + 1:]
    return ()


def hearts_hidden(seen: Observation) -> HeartsKnowledge:
    """Where the cards ``seen.seat`` has not seen may be, in the play phase."""
    view = hearts_view(seen.view)
    rules = rules_for(seen.players, seen.options)
    deck, players, me = rules.deck, rules.players, seen.seat
    hand = deck.mask(view["hand"])
    won = [deck.mask(codes) for codes in view["taken"]]
    trick = deck.mask(code for _, code in view["trick"])
    shown = hand | trick
    for cards in won:
        shown |= cards
    events = hand_events(seen.seen)
    plays = [(event.seat, deck.index(event.data["card"])) for event in events
             if event.type == "played" and event.seat is not None]
    lacking = voids_from_plays(plays, deck.suit_of, players, deck.suit_mask)
    _lead_evidence(rules, plays, lacking)
    exchange_taker: int | None = None
    for event in events:
        if event.type == "exchange_taken":
            exchange_taker = event.seat
            if event.seat == me:
                shown |= deck.mask(event.data["cards"])  # our discards: out of play, known
    unseen = rules.cards & ~shown
    passed_to: dict[int, CardSet] = {}
    my_pass = view.get("my_pass")
    if my_pass and view["pass_offset"]:
        passed_to[(me + view["pass_offset"]) % players] = deck.mask(my_pass)
    places: list[Place] = []
    for seat in range(players):
        if seat == me:
            continue
        fixed = passed_to.get(seat, 0) & unseen
        places.append(Place(view["hand_sizes"][seat], unseen & ~lacking[seat] | fixed, fixed))
    room = unseen.bit_count() - sum(place.size for place in places)
    middle = blind = None
    if view["undealt_count"]:
        middle = len(places)
        places.append(Place(view["undealt_count"], unseen))
        room -= view["undealt_count"]
    face_down = view["blind"]
    if face_down:
        blind = (face_down["seat"], len(places))
        places.append(Place(face_down["count"], unseen))
        room -= face_down["count"]
    if room > 0:
        # Out of play: another seat's exchange discards (never point cards), or the undealt
        # cards nobody could take.
        non_point = unseen & ~(rules.hearts | rules.queen_of_spades)
        out = non_point if exchange_taker is not None and exchange_taker != me else unseen
        places.append(Place(room, out))
    return HeartsKnowledge(rules, me, hand, tuple(won), Hidden(unseen, tuple(places)),
                           middle, blind)


def _lead_evidence(rules: Rules, plays: list[tuple[int, int]], lacking: list[CardSet]) -> None:
    """What the lead rules tell beyond voids: a Heart led before Hearts were broken comes from
    a hand of Hearts only (the Joker aside); a point card on the first trick from a hand with
    no other card it could play."""
    deck, players = rules.deck, rules.players
    broken = False
    everything = rules.cards
    for position, (seat, card) in enumerate(plays):
        first_trick = position < players
        start = position - position % players
        trick = tuple(plays[start:position])
        if not trick:
            if not broken and rules.hearts >> card & 1:
                lacking[seat] |= everything & ~rules.hearts & ~rules.joker
        elif first_trick and rules.point_cards >> card & 1:
            suit = led_suit(trick, deck)
            if suit is not None and deck.suit_of[card] == suit:
                lacking[seat] |= deck.suit_mask[suit] & ~rules.point_cards
            else:
                lacking[seat] |= everything & ~rules.point_cards
        broken = broken or bool(rules.breakers >> card & 1)


def determinized(seen: Observation, knowledge: HeartsKnowledge, rng: Random) -> HeartsState:
    """One engine state of the seat's information set, the hidden cards dealt at random."""
    return hearts_worlds(seen, knowledge)(rng)


def hearts_worlds(seen: Observation, knowledge: HeartsKnowledge
                  ) -> Callable[[Random], HeartsState]:
    """The seat's information set as a maker of worlds: each call deals the hidden cards at
    random into the engine state the view describes. What the view says (the trick, the
    passes, the score sheet) is read once, here, not once a world."""
    view = hearts_view(seen.view)
    rules = knowledge.rules
    deck, players, me = rules.deck, rules.players, knowledge.seat
    trick = tuple((seat, deck.index(code)) for seat, code in view["trick"])
    shown = knowledge.hand | trick_cards(trick)
    for cards in knowledge.won:
        shown |= cards
    received = [0] * players
    received[me] = deck.mask(view["received"])
    my_pass = deck.mask(view["my_pass"] or ())
    passes = tuple((my_pass if seat == me else 0) if passed else None
                   for seat, passed in enumerate(view["passed"]))
    turn = view["turn"]
    if turn is None:  # before the play: the pass (``passing_state``), the seat's to make
        turn = me
    template = HeartsState(
        rules=rules, phase="play", hand_number=view["hand_number"], dealer=view["dealer"],
        undealt=0, out_of_play=0, exchange_declines=view["exchange_declines"],
        pass_offset=view["pass_offset"], passes=passes, received=tuple(received),
        tricks_played=view["tricks_played"], won=knowledge.won,
        last_trick=tuple((seat, deck.index(code)) for seat, code in view["last_trick"]),
        last_winner=view["last_winner"], totals=tuple(view["totals"]),
        score_sheet=tuple(tuple(row) for row in view["score_sheet"]), moon=view["moon"],
        undealt_taken=None, hearts_broken=view["hearts_broken"], turn=turn, trick=trick,
        hands=(),
    )

    def world(rng: Random) -> HeartsState:
        dealt = knowledge.hidden.deal(rng)
        hands = []
        place = 0
        for seat in range(players):
            if seat == me:
                hands.append(knowledge.hand)
            else:
                hands.append(dealt[place])
                place += 1
        won = knowledge.won
        undealt = dealt[knowledge.middle] if knowledge.middle is not None else 0
        undealt_taken = None
        in_play = shown | undealt
        if knowledge.blind is not None:
            holder, index = knowledge.blind
            taken = list(won)
            taken[holder] |= dealt[index]
            won = tuple(taken)
            undealt_taken = (holder, dealt[index])
            in_play |= dealt[index]
        for cards in hands:
            in_play |= cards
        return template.replace(hands=tuple(hands), won=won, undealt=undealt,
                                undealt_taken=undealt_taken, out_of_play=deck.full & ~in_play)

    return world


@dataclass(frozen=True, slots=True)
class _Masks:
    """The card sets the rollout policy works with, worked out once per rules."""

    by_rank: tuple[CardSet, ...]
    """Each rank's cards, lowest rank first."""
    suits: tuple[CardSet, ...]
    """Each suit's cards (the Joker, of no suit, in none)."""
    trumps: CardSet
    spades: CardSet
    above_queen: CardSet
    """The Spades above the Queen."""


_MASKS: dict[int, tuple[Rules, _Masks]] = {}


def _masks(rules: Rules) -> _Masks:
    kept = _MASKS.get(id(rules))
    if kept is not None and kept[0] is rules:
        return kept[1]
    deck = rules.deck
    ranks = sorted(set(deck.rank_of))
    by_rank = tuple(sum(1 << card for card in range(len(deck)) if deck.rank_of[card] == rank)
                    & rules.cards for rank in ranks)
    suits = tuple(mask for suit, mask in deck.suit_mask.items() if suit)
    queen = lowest(rules.queen_of_spades)
    spades = deck.suit_mask["S"]
    masks = _Masks(by_rank, suits, deck.suit_mask[rules.trump] if rules.trump else 0, spades,
                   spades & ~((2 << queen) - 1))
    _MASKS[id(rules)] = (rules, masks)
    return masks


def _bottom(cards: CardSet, masks: _Masks) -> int:
    """The lowest-ranked card (of equal ranks, the first in the deck)."""
    for rank in masks.by_rank:
        if cards & rank:
            return lowest(cards & rank)
    return lowest(cards)


def rollout_card(state: HeartsState, rng: Chance, masks: _Masks | None = None) -> int:
    """A quick, sensible card for the seat to play (a playout's policy, ``policy_card``)."""
    rules = state.rules
    return policy_card(rules, masks or _masks(rules), state.hands[state.turn], state.trick,
                       state.tricks_played == 0, state.hearts_broken, replay(rng))


def policy_card(rules: Rules, masks: _Masks, hand: CardSet, trick: Trick, first_trick: bool,
                hearts_broken: bool, rng: Replay) -> int:
    """The playouts' card from ``hand`` (the heuristic bot's rules on bitmasks): duck under
    the trick's winner, take a clean last trick high, dump the Queen of Spades and high
    Hearts when void, lead low, and now and then a card at random."""
    legal = may_play(rules, hand, trick, first_trick, hearts_broken)
    if not legal & (legal - 1):
        return lowest(legal)
    if rng.random() < RANDOM_ROLLOUT:
        return random_card(legal, rng)
    if not trick:
        safe = legal & ~rules.point_cards
        low = _bottom(safe & ~masks.trumps or safe or legal, masks)
        spades = safe & masks.spades
        if hand & rules.queen_of_spades and spades and masks.spades >> low & 1:
            # Drawing Spades out invites the Queen back: a Spade only if 5 ranks lower.
            other = safe & ~masks.spades & ~masks.trumps
            if other:
                high = _bottom(other, masks)
                rank_of = rules.deck.rank_of
                return low if rank_of[low] + 5 < rank_of[high] else high
        return low
    deck = rules.deck
    suit_of, rank_of = deck.suit_cards_of, deck.rank_of
    # The suit led (a Joker led sets none: the next card does) and the card winning so far.
    suit = 0
    win_card = -1
    for _, card in trick:
        if not suit:
            suit = suit_of[card]
            if suit:
                win_card = card
        elif suit_of[card] == suit_of[win_card]:
            if rank_of[card] > rank_of[win_card]:
                win_card = card
        elif masks.trumps >> card & 1:
            win_card = card
    last = len(trick) == rules.players - 1
    if suit and legal & suit:
        # Following suit: every legal card is of the suit led, in rank order by index.
        if last and not trick_cards(trick) & rules.point_cards:
            keep = legal & ~rules.queen_of_spades or legal
            return keep.bit_length() - 1
        below = legal & ((1 << win_card) - 1) if suit_of[win_card] == suit else legal
        if below:
            return below.bit_length() - 1
        return legal.bit_length() - 1 if last else lowest(legal)
    # Void in the suit led (or a Joker led alone): get rid of what hurts, without winning.
    if win_card >= 0 and masks.trumps >> win_card & 1:
        winners = legal & masks.trumps & ~((2 << win_card) - 1)
    else:
        winners = legal & masks.trumps
    losers = legal & ~winners
    if losers:
        return _most_dangerous(losers, hand, rules, masks)
    return _bottom(legal, masks)


def _most_dangerous(cards: CardSet, hand: CardSet, rules: Rules, masks: _Masks) -> int:
    """The card the heuristic bot would discard first (its ``_danger``): the Queen of
    Spades, the Ace and King of Spades while the Queen is elsewhere, high Hearts, high trumps,
    then high cards of short suits."""
    if cards & rules.queen_of_spades:
        return lowest(rules.queen_of_spades)
    if not hand & rules.queen_of_spades and cards & masks.above_queen:
        return (cards & masks.above_queen).bit_length() - 1
    rank_of = rules.deck.rank_of
    best, best_danger = -1, -1.0
    for mask in masks.suits:
        in_suit = cards & mask
        if not in_suit:
            continue
        card = in_suit.bit_length() - 1  # the suit's highest
        rank = rank_of[card]
        if rules.hearts >> card & 1:
            danger = 20.0 + 2 * rank
        elif mask == masks.trumps:
            danger = 15.0 + 1.5 * rank
        else:
            danger = rank + (8.0 if (hand & mask).bit_count() <= 2 else 0.0)
        if danger > best_danger:
            best, best_danger = card, danger
    return best if best >= 0 else cards.bit_length() - 1


def distinct_cards(knowledge: HeartsKnowledge, legal: CardSet) -> list[int]:
    """The legal cards less those that come to the same as a lower one: a card of the same
    suit and points with no unseen card ranked between them (each beats and loses to the
    same cards of the others)."""
    deck = knowledge.rules.deck
    points = knowledge.rules.points
    hidden = knowledge.hidden.cards
    kept: list[int] = []
    for card in bits(legal):
        if kept:
            previous = kept[-1]
            suit = deck.suit_of[card]
            between = hidden & ((1 << card) - 1) & ~((2 << previous) - 1)
            if (suit and suit == deck.suit_of[previous] and points[card] == points[previous]
                    and not between):
                continue
        kept.append(card)
    return kept


class HeartsHand(TrickPlay[HeartsState]):
    """The hand in play as the search plays it (``shared.search.TrickPlay``), played out by
    ``policy_card``."""

    def __init__(self) -> None:
        super().__init__(GAME, legal_cards)

    def play_out(self, state: HeartsState, draws: Replay,
                 deadline: Deadline | None) -> HeartsState:
        """The hand played out by ``policy_card`` on plain values (``TrickPlay``)."""
        rules = state.rules
        masks = _masks(rules)
        players, breakers = rules.players, rules.breakers
        hands = list(state.hands)
        won = list(state.won)
        trick = state.trick
        turn = state.turn
        broken = state.hearts_broken
        tricks_played = state.tricks_played
        undealt = state.undealt
        last_trick, last_winner = state.last_trick, state.last_winner
        left = sum(hand.bit_count() for hand in hands)
        while left:
            if deadline is not None and not trick:
                deadline.check()
            hand = hands[turn]
            card = policy_card(rules, masks, hand, trick, tricks_played == 0, broken, draws)
            hands[turn] = hand & ~(1 << card)
            left -= 1
            trick = (*trick, (turn, card))
            broken = broken or bool(breakers >> card & 1)
            if len(trick) < players:
                turn = (turn + 1) % players
                continue
            winner, taken, undealt = take_trick(rules, trick, tricks_played == 0, undealt)
            won[winner] = won[winner] | taken  # not |=: mypyc leaves it generic
            tricks_played += 1
            turn = last_winner = winner
            last_trick, trick = trick, ()
        return finish_hand(state.replace(
            hands=tuple(hands), won=tuple(won), trick=(), turn=turn, hearts_broken=broken,
            tricks_played=tricks_played, undealt=undealt, last_trick=last_trick,
            last_winner=last_winner))  # who took the blind cards: finish_hand forgets it

    def rewards(self, state: HeartsState) -> list[float]:
        return [-points / 26 for points in state.score_sheet[-1]]


HAND = HeartsHand()


PASS_CHOICE = 3
"""The pass is chosen from the cards the heuristic would pass and this many more after them in
its order (``danger_order``), every set of them: with three cards passed, 20 sets."""
PASS_DOUBT = 1.0
"""Standard errors by which a pass must beat the heuristic's over the deals played out to
replace it: a search too short to tell the passes apart keeps the heuristic's."""


def danger_order(cards: CardSet, hand: CardSet, rules: Rules, masks: _Masks) -> list[int]:
    """``cards``, the most dangerous to keep first: the heuristic bot's order of passing and
    discarding (``_most_dangerous`` again and again)."""
    order = []
    while cards:
        card = _most_dangerous(cards, hand, rules, masks)
        order.append(card)
        cards &= ~(1 << card)
    return order


def policy_pass(state: HeartsState, seat: Seat) -> CardSet:
    """The cards a seat passes in a playout: the heuristic's choice (its most dangerous)."""
    rules = state.rules
    hand = state.hands[seat]
    order = danger_order(hand, hand, rules, _masks(rules))
    return sum(1 << card for card in order[:rules.pass_cards])


def pass_candidates(rules: Rules, hand: CardSet) -> list[CardSet]:
    """The passes the search weighs: every set of ``rules.pass_cards`` among the cards the
    heuristic ranks most dangerous (``PASS_CHOICE`` beyond what it passes), the heuristic's own
    set first."""
    order = danger_order(hand, hand, rules, _masks(rules))
    pool = order[:rules.pass_cards + PASS_CHOICE]
    return [sum(1 << card for card in chosen)
            for chosen in combinations(pool, rules.pass_cards)]


class HeartsPassing:
    """The passing as the search plays it (``shared.search.Searchable``), for one seat: a move
    is the set of cards it passes; the other seats pass by ``policy_pass``, every pass goes
    through the engine's ``passed`` event (the last one delivers them), and the hand is then
    played out by ``policy_card`` (``HAND``), the receivers holding what they were passed."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.others: tuple[HeartsState | None, list[Event]] = (None, [])
        """The other seats' passes in the last deal (every candidate is played from it)."""

    def actor(self, state: HeartsState) -> int:
        return self.seat

    def moves(self, state: HeartsState) -> list[CardSet]:
        return pass_candidates(state.rules, state.hands[self.seat])

    def apply(self, state: HeartsState, move: CardSet) -> HeartsState:
        codes = state.rules.deck.codes
        dealt, others = self.others
        if dealt is not state:
            others = [Event("passed", seat, {"cards": codes(policy_pass(state, seat))})
                      for seat in range(state.rules.players) if seat != self.seat]
            self.others = (state, others)
        state = GAME.evolve(state, Event("passed", self.seat, {"cards": codes(move)}))
        for event in others:
            state = GAME.evolve(state, event)
        return state

    def done(self, state: HeartsState) -> bool:
        return state.phase != "pass"

    def rollout(self, state: HeartsState, rng: Chance,
                deadline: Deadline | None = None) -> HeartsState:
        return HAND.rollout(state, rng, deadline)

    def rewards(self, state: HeartsState) -> list[float]:
        return HAND.rewards(state)


def passing_state(world: HeartsState, seat: Seat) -> HeartsState:
    """A world of the seat's information set (``hearts_worlds``) as it was before the cards
    are passed: nobody's pass chosen yet (a seat that has passed already passes again in the
    playout, as the policy would have), ``seat`` to pass."""
    return world.replace(phase="pass", passes=(None,) * world.rules.players, turn=seat)


def search_pass(seen: Observation, rng: Random, think: Budget,
                iterations: int | None = None) -> Searched[CardSet]:
    """The seat's pass by search: each candidate (``pass_candidates``) played out from the same
    deals of the unseen cards, the others passing as the policy does and the receiver playing
    what it was given; each candidate's value is its mean reward (minus the seat's points over
    26, the moon included)."""
    knowledge = hearts_hidden(seen)
    candidates = pass_candidates(knowledge.rules, knowledge.hand)
    deal = hearts_worlds(seen, knowledge)
    return flat_search(HeartsPassing(seen.seat), lambda r: passing_state(deal(r), seen.seat),
                       rng, think, iterations, candidates, doubt=PASS_DOUBT, least=0)


class StrongHeartsBot:
    """Plays by information-set search (``hearts.strong``) with the engine: flat Monte Carlo
    over deals of the unseen cards, each card played out by the heuristic bot's rules on the
    same deal (``method = "uct"``: the ISMCTS tree instead, which the flat search beat); passes
    by search too (``search_pass``), and takes the exchange as the heuristic bot does. Given
    the seat's ``Observation`` only, and ``think`` seconds, counted from the call
    (``Deadline``): what it works out before its search counts too, and the search stops
    within a card of the budget; ``iterations`` caps the search too (tests fix it to be
    deterministic)."""

    searches = True
    """It thinks for its whole budget: the server asks it in a worker process."""
    method = "flat"
    """``flat`` (``shared.search.flat_search``) or ``uct`` (``shared.search.search``)."""
    passing = "search"
    """``search`` (``search_pass``: the three cards together, by playouts) or ``heuristic``
    (the heuristic bot's pass, as before the search; the bench's baseline)."""

    def __init__(self, rng: random.Random, iterations: int | None = None) -> None:
        self.rng = rng
        self.iterations = iterations
        self.last_iterations = 0
        self.searched = False
        """Whether the last move was searched (not forced, nor the exchange)."""
        self.exploration = EXPLORATION
        self.heuristic = HeuristicHeartsBot(rng)
        self.clock: Callable[[], float] = time.perf_counter
        """What ``Deadline`` reads (a test hands in a clock that counts its reads)."""

    def choose(self, seen: Observation, think: float) -> Command:
        deadline = Deadline(think, self.clock)
        self.searched = False
        legal = seen.legal
        if len(legal) == 1:
            return legal[0]
        view = hearts_view(seen.view)
        offer = view["legal"]
        if "pass" in offer and self.passing == "search":
            result = search_pass(seen, self.rng, deadline, self.iterations)
            self.last_iterations = result.iterations
            self.searched = True
            deck = rules_for(seen.players, seen.options).deck
            return Command("pass", seen.seat, {"cards": deck.codes(result.move)})
        if "play" not in offer:
            return self.heuristic.choose(seen, think)
        knowledge = hearts_hidden(seen)
        rules = knowledge.rules
        deal = hearts_worlds(seen, knowledge)
        if self.method == "flat":
            cards = distinct_cards(knowledge, rules.deck.mask(view["legal"]["play"]))
            if len(cards) == 1:  # every legal card comes to the same
                return rules.plays.commands[seen.seat][cards[0]]
            # The heuristic's card (or the lower one it comes to the same as) goes first: the
            # choice if the time runs out before one deal is played out, so a slow machine
            # makes the search shorter, never later.
            played = rules.deck.index(self.heuristic.choose(seen, think).data["card"])
            first = max(card for card in cards if card <= played)
            cards.remove(first)
            result = flat_search(HAND, deal, self.rng, deadline, self.iterations,
                                 [first, *cards], least=0)
        else:
            result = search(HAND, deal, self.rng, deadline, self.iterations,
                            exploration=self.exploration)
        self.last_iterations = result.iterations
        self.searched = True
        return rules.plays.commands[seen.seat][result.move]

    def appraise(self, seen: Observation, think: float, worlds: int | None = None,
                 include: Command | None = None) -> Appraisal | None:
        """Each legal card's value by the flat search ``choose`` plays by, every card played out in
        every deal (none dropped, so each value rests on as many): the hand's expected points, taken
        ones negative (a card that comes to the same as a lower one, its value); at the pass,
        each pass the search weighs (``pass_values``). ``worlds``: exactly that many deals,
        whatever the clock (``include``: every legal card is valued anyway). ``None`` where the
        bot does not search (the exchange, a single legal move)."""
        offer = hearts_view(seen.view)["legal"]
        if len(seen.legal) < 2:
            return None
        if "pass" in offer:
            return self.pass_values(seen, think, worlds, include)
        if "play" not in offer:
            return None
        knowledge = hearts_hidden(seen)
        rules = knowledge.rules
        legal = rules.deck.mask(offer["play"])
        cards = distinct_cards(knowledge, legal)
        deal = hearts_worlds(seen, knowledge)
        result = flat_search(HAND, deal, self.rng, think if worlds is None else math.inf,
                             worlds, cards, prune=False)
        moves, same = [], cards[0]
        for card in bits(legal):
            same = card if card in cards else same
            moves.append(MoveValue(rules.plays.commands[seen.seat][card],
                                   result.values.get(same, 0.0), result.errors.get(same, 0.0),
                                   result.visits.get(same, 0)))
        return Appraisal(tuple(moves), "points this hand", 26.0)


    def pass_values(self, seen: Observation, think: float, worlds: int | None,
                    include: Command | None) -> Appraisal:
        """Each pass ``search_pass`` weighs (``pass_candidates``), and ``include`` where it is
        another, valued by the same playouts, every pass in every deal: the hand's expected
        points after it, as ``appraise`` values a card."""
        knowledge = hearts_hidden(seen)
        deal = hearts_worlds(seen, knowledge)
        return card_set_values(HeartsPassing(seen.seat),
                               lambda rng: passing_state(deal(rng), seen.seat), self.rng,
                               think, worlds, pass_candidates(knowledge.rules, knowledge.hand),
                               "pass", seen.seat, knowledge.rules.deck, include,
                               "points this hand", 26.0)


BOTS = {"strong": StrongHeartsBot}
"""Registered in the game's package (``BOT_MODULES``) after its bots module, which this one
builds on."""
