"""A Stars bot that bids from an estimate of its hand, buries well and plays to make or break
the contract. It reads only its own seat's view (its hand, the widow and burial when it is the
declarer, and the public tricks) and the legal actions in it.

Play: the last card of a trick is chosen by working out exactly where each legal card sends
the trick (``resolve_trick``), Stars included. Earlier in a trick the bot follows rules: win
cheaply when the trick matters, duck and keep points back otherwise, complete a Star against
the declarer's Skull, and keep its own Skulls out of tricks that could still become a Star.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from heapq import nlargest
from itertools import combinations
from math import erf, sqrt

from starhall.shared.cards import CardSet, bits
from starhall.shared.engine import Command, Seat
from starhall.shared.games.stars.rules import (
    BURY_COUNT,
    DECK,
    DECK_POINTS,
    PLAYERS,
    POINTS,
    SUITS,
    TRUMP,
    WIDOW_SIZE,
    StarsLegal,
    StarsView,
    TrickResult,
    resolve_trick,
    stars_view,
)
from starhall.shared.observation import Observation
from starhall.shared.tricks import Trick, led_suit, trick_cards, trick_winner

AVERAGE_TRICK = DECK_POINTS / 10
"""A trick holds 8 points on average."""
WIDOW_WORTH = WIDOW_SIZE * DECK_POINTS / len(DECK)
"""The widow's expected card points."""
ESTIMATE_BIAS = 5.0
ESTIMATE_SPREAD = 12.0
"""The estimate's error, measured over games of heuristic bots: the hand score came out about
5 points above it, give or take 12."""
SURE_ENOUGH = 0.4
"""Bid only a contract made about 70% of the time (expected bonus at least 0.4 × the bid): a
defender scores its tricks too, so a coin-flip contract is not worth taking."""
OTHERS_WEIGHT = 0.25
"""How much the declarer minds points going to the others, who race it to the target."""
SUIT_MASK = {suit: DECK.suit_mask[suit] for suit in SUITS}
COLORED = tuple(suit for suit in SUITS if suit != TRUMP)


def _points(cards: CardSet) -> int:
    return sum(POINTS[i] for i in bits(cards))


def _higher_outside(card: int, mine: CardSet) -> int:
    """How many cards of the card's suit outrank it and are not in ``mine``."""
    suit, rank = DECK.suit_of[card], DECK.rank_of[card]
    return sum(1 for other in bits(SUIT_MASK[suit] & ~mine) if DECK.rank_of[other] > rank)


def win_chance(card: int, hand: CardSet) -> float:
    """A rough chance that the card takes a trick, from the cards above it and suit length."""
    above = _higher_outside(card, hand)
    if DECK.suit_of[card] == TRUMP:
        skulls = (hand & SUIT_MASK[TRUMP]).bit_count()
        chance = (0.95, 0.75, 0.5, 0.3)[min(above, 3)]
        return min(1.0, chance + 0.06 * max(0, skulls - 3))  # long trumps outlast the others'
    length = (hand & SUIT_MASK[DECK.suit_of[card]]).bit_count()
    chance = (0.7, 0.35, 0.12, 0.0)[min(above, 3)]
    return chance * (0.85 if length >= 5 else 1.0)  # long suits get trumped sooner


def estimate_hand(hand: CardSet) -> float:
    """Expected hand score as declarer: tricks likely taken, the widow, and the burial of
    point cards that would otherwise be lost."""
    expected = sum(win_chance(card, hand) for card in bits(hand)) * AVERAGE_TRICK
    losers = sorted((POINTS[c] * (1 - win_chance(c, hand)) for c in bits(hand)), reverse=True)
    return expected + WIDOW_WORTH + sum(losers[:BURY_COUNT]) * 0.8


def best_bid(estimate: float, low: int, high: int) -> tuple[int, float]:
    """The bid from ``low`` up with the best expected contract bonus, +bid if made and -bid if
    not, and that expectation; the hand score is taken as normal around the estimate."""
    mean = estimate + ESTIMATE_BIAS
    best, best_gain = low, -float(low)
    for amount in range(low, min(high, int(mean + 3 * ESTIMATE_SPREAD)) + 1):
        made = 0.5 * (1 - erf((amount - 0.5 - mean) / (ESTIMATE_SPREAD * sqrt(2))))
        gain = amount * (2 * made - 1)
        if gain > best_gain:
            best, best_gain = amount, gain
    return best, best_gain


def burial_gain(hand: CardSet, chosen: tuple[int, ...]) -> float:
    """What burying ``chosen`` from ``hand`` gains: points that would be lost, and short
    colored suits emptied so Skulls can take those leads; top Skulls and Champions gain
    nothing buried."""
    skulls = (hand & SUIT_MASK[TRUMP]).bit_count()
    total = 0.0
    mask = 0
    for card in chosen:
        mask |= 1 << card
        keep = win_chance(card, hand) * (POINTS[card] + AVERAGE_TRICK)
        total += POINTS[card] - keep
    for suit in COLORED:
        if hand & SUIT_MASK[suit] and not hand & SUIT_MASK[suit] & ~mask and skulls >= 3:
            total += 3.0  # a new void: this suit's leads can be trumped
    return total


def ranked_burials(hand: CardSet, count: int) -> list[CardSet]:
    """The ``count`` burials that gain most (``burial_gain``), the best first."""
    best = nlargest(count, combinations(bits(hand), BURY_COUNT),
                    key=lambda chosen: burial_gain(hand, chosen))
    return [sum(1 << card for card in chosen) for chosen in best]


def choose_burial(hand: CardSet) -> list[str]:
    """The three cards whose burial gains most (``burial_gain``)."""
    return DECK.codes(ranked_burials(hand, 1)[0])


def trick_gains(result: TrickResult) -> list[int]:
    """What a finished trick is worth to each seat."""
    gains = [0] * PLAYERS
    if result.taker is not None:
        gains[result.taker] = result.paid
    elif result.star_pile is not None:
        gains = [0 if seat == result.star_pile else result.paid for seat in range(PLAYERS)]
    for seat in result.shared_by:
        gains[seat] = result.paid
    return gains


def trick_utility(gains: list[int], seat: Seat, declarer: Seat) -> float:
    """What ``gains`` (``trick_gains``) are worth to ``seat``: the declarer wants points and,
    less, the others not to have them (a Star against it pays all three); a defender wants
    points, and the declarer not to have them. The heuristic's last card and the strong bot's
    play-outs weigh a trick by it."""
    if seat == declarer:
        return gains[seat] - OTHERS_WEIGHT * (sum(gains) - gains[seat])
    return float(gains[seat] - gains[declarer])


@dataclass(frozen=True, slots=True)
class Seen:
    """What the seat knows in the play: its hand, the cards gone, and the seats' known voids."""

    me: Seat
    declarer: Seat
    hand: CardSet
    unknown: CardSet
    """Cards that some other seat may hold."""
    voids: tuple[frozenset[str], ...]
    trick: Trick
    colored_star: bool

    @classmethod
    def from_view(cls, view: StarsView) -> Seen:
        index = DECK.index
        hand = DECK.mask(view["hand"])
        gone = hand | DECK.mask(view.get("buried") or [])
        voids: list[set[str]] = [set() for _ in range(PLAYERS)]
        for past in view["tricks"]:
            plays = [(seat, index(code)) for seat, code in past["plays"]]
            cls._note_voids(plays, voids)
            gone |= trick_cards(tuple(plays))
        trick = tuple((seat, index(code)) for seat, code in view["trick"])
        cls._note_voids(list(trick), voids)
        gone |= trick_cards(trick)
        me, declarer = view["seat"], view["declarer"]
        assert me is not None and declarer is not None  # a seat's view in the play
        return cls(me, declarer, hand, DECK.full & ~gone,
                   tuple(frozenset(v) for v in voids), trick, view["colored_star"])

    @staticmethod
    def _note_voids(plays: list[tuple[int, int]], voids: list[set[str]]) -> None:
        if not plays:
            return
        suit = DECK.suit_of[plays[0][1]]
        for seat, card in plays[1:]:
            if DECK.suit_of[card] != suit:
                voids[seat].add(suit)

    def keep_value(self, card: int) -> float:
        """How much the card is worth keeping for later tricks (spend the cheapest first)."""
        return POINTS[card] * 0.6 + win_chance(card, self.hand | ~self.unknown & DECK.full) * 6

    def after_me(self) -> list[Seat]:
        return [(self.me + k) % PLAYERS for k in range(1, PLAYERS - len(self.trick))]

    def may_hold(self, seat: Seat, suit: str) -> bool:
        return suit not in self.voids[seat] and bool(self.unknown & SUIT_MASK[suit])

    def star_possible(self, trick: Trick) -> bool:
        """Whether the seats still to play could still make this trick a Star."""
        suits = [DECK.suit_of[card] for _, card in trick]
        if len(set(suits)) != len(suits):
            return False
        missing = [suit for suit in SUITS if suit not in suits]
        later = [(self.me + k) % PLAYERS for k in range(1, PLAYERS - len(trick) + 1)]
        return all(any(self.may_hold(seat, suit) for seat in later) for suit in missing)


class HeuristicStarsBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = stars_view(seen.view), seen.seat
        legal = view["legal"]
        if "play" in legal:
            return Command("play", seat, {"card": self._play(view, legal["play"])})
        if "bury" in legal:
            return Command("bury", seat, {"cards": choose_burial(DECK.mask(legal["bury"]["from"]))})
        if "bid" in legal or "pass" in legal:
            return self._bid(view, legal, seat)
        return seen.game.random_choice(seen.legal, self.rng)

    @staticmethod
    def _bid(view: StarsView, legal: StarsLegal, seat: Seat) -> Command:
        offer = legal.get("bid")
        if offer is None:
            return Command("pass", seat, {})
        amount, gain = best_bid(estimate_hand(DECK.mask(view["hand"])), offer["min"],
                                offer["max"])
        confident = gain >= SURE_ENOUGH * amount
        if confident or not legal["pass"]:
            return Command("bid", seat, {"amount": amount if confident else offer["min"]})
        return Command("pass", seat, {})

    def _play(self, view: StarsView, legal_codes: list[str]) -> str:
        if len(legal_codes) == 1:
            return legal_codes[0]
        seen = Seen.from_view(view)
        legal = [DECK.index(code) for code in legal_codes]
        if len(seen.trick) == PLAYERS - 1:
            card = self._last(seen, legal)
        elif not seen.trick:
            card = self._lead(seen, legal)
        else:
            card = self._follow(seen, legal)
        return DECK.code_of[card]

    @staticmethod
    def _last(seen: Seen, legal: list[int]) -> int:
        """The fourth card: every choice's outcome is known exactly."""
        def score(card: int) -> tuple[float, float]:
            result = resolve_trick((*seen.trick, (seen.me, card)), seen.colored_star)
            return trick_utility(trick_gains(result), seen.me, seen.declarer), \
                -seen.keep_value(card)

        return max(legal, key=score)

    @staticmethod
    def _lead(seen: Seen, legal: list[int]) -> int:
        others = [s for s in range(PLAYERS) if s != seen.me]
        declaring = seen.me == seen.declarer
        opponents = others if declaring else [seen.declarer]

        def sure_winner(card: int) -> bool:
            suit = DECK.suit_of[card]
            if _higher_outside(card, seen.hand | ~seen.unknown & DECK.full):
                return False
            if suit == TRUMP:
                return True
            return not any(suit in seen.voids[s] and seen.may_hold(s, TRUMP) for s in opponents)

        skulls = [c for c in legal if DECK.suit_of[c] == TRUMP]
        trumps_out = any(seen.may_hold(s, TRUMP) for s in others)
        if declaring and skulls and trumps_out:
            top = max(skulls, key=lambda c: DECK.rank_of[c])
            if sure_winner(top):
                return top  # draw the others' Skulls while ours is the highest
        winners = [c for c in legal if sure_winner(c) and DECK.suit_of[c] != TRUMP]
        if winners:
            return max(winners, key=lambda c: (POINTS[c], DECK.rank_of[c]))
        # A Skull led into three seats void in Skulls invites a Star against it.
        safe = [c for c in legal if DECK.suit_of[c] != TRUMP or trumps_out] or legal
        if not declaring:
            # Lead where the declarer must follow, so a void declarer cannot trump cheaply.
            forcing = [c for c in safe if DECK.suit_of[c] not in seen.voids[seen.declarer]]
            safe = forcing or safe
        return min(safe, key=lambda c: (POINTS[c], _suit_length(seen.hand, c), DECK.rank_of[c]))

    @staticmethod
    def _follow(seen: Seen, legal: list[int]) -> int:
        trick = seen.trick
        declaring = seen.me == seen.declarer
        later = seen.after_me()
        suit = led_suit(trick, DECK)
        star_open = seen.star_possible(trick) if len(trick) < PLAYERS else False

        def wins_now(card: int) -> bool:
            return trick_winner((*trick, (seen.me, card)), DECK, TRUMP) == seen.me

        def holds(card: int) -> bool:
            """Whether no later seat is likely to beat the card."""
            if DECK.suit_of[card] == TRUMP:
                above = [c for c in bits(seen.unknown & SUIT_MASK[TRUMP])
                         if DECK.rank_of[c] > DECK.rank_of[card]]
                return not above or all(not seen.may_hold(s, TRUMP) for s in later)
            above = [c for c in bits(seen.unknown & SUIT_MASK[DECK.suit_of[card]])
                     if DECK.rank_of[c] > DECK.rank_of[card]]
            if above:
                return False
            return not any(suit is not None and suit in seen.voids[s]
                           and seen.may_hold(s, TRUMP) for s in later)

        def makes_star_risk(card: int) -> bool:
            """Playing this Skull into a trick that the later seats could make a Star."""
            if DECK.suit_of[card] != TRUMP:
                return False
            after = (*trick, (seen.me, card))
            return len(after) < PLAYERS and Seen(
                seen.me, seen.declarer, seen.hand, seen.unknown, seen.voids, after,
                seen.colored_star).star_possible(after)

        current = trick_winner(trick, DECK, TRUMP)
        pts = _points(trick_cards(trick))

        if not declaring:
            # Help a Star along against the declarer's Skull: add the missing suit, rich.
            skull_by = [s for s, c in trick if DECK.suit_of[c] == TRUMP]
            if (skull_by == [seen.declarer] and star_open and not seen.colored_star):
                present = {DECK.suit_of[c] for _, c in trick}
                missing = [c for c in legal if DECK.suit_of[c] not in present]
                if missing:
                    return max(missing, key=lambda c: (POINTS[c], -DECK.rank_of[c]))
            declarer_played = any(s == seen.declarer for s, _ in trick)
            if declarer_played and current != seen.declarer:
                # A fellow defender is ahead: feed points unless the declarer could still win.
                losers = [c for c in legal if not wins_now(c)]
                pool = losers or legal
                return max(pool, key=lambda c: (POINTS[c], -DECK.rank_of[c]))
        good = [c for c in legal if wins_now(c) and holds(c) and not makes_star_risk(c)]
        if good and (pts > 0 or declaring or seen.declarer in later):
            return min(good, key=lambda c: (DECK.suit_of[c] == TRUMP, DECK.rank_of[c]))
        safe = [c for c in legal if not makes_star_risk(c)] or legal
        return min(safe, key=lambda c: (POINTS[c], DECK.suit_of[c] == TRUMP, DECK.rank_of[c]))


def _suit_length(hand: CardSet, card: int) -> int:
    return (hand & SUIT_MASK[DECK.suit_of[card]]).bit_count()


BOTS = {"heuristic": HeuristicStarsBot}
LEVELS = {"easy": "random", "normal": "heuristic"}
"""The bots a person picks by level (``shared.bots.bot_levels``; ``strong``, once in ``BOTS``,
is Strong)."""
