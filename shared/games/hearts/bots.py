"""A Hearts bot that plays sensibly: it passes and discards its most dangerous cards, ducks
under the trick's winner, dumps the Queen of Spades and high Hearts when void, and spends
Stars (trumps) only where they take no points. It reads only its own seat's view."""

from __future__ import annotations

import random

from starhall.shared.cards import Card, Deck
from starhall.shared.engine import Command
from starhall.shared.games.hearts.rules import (
    CLUBS,
    HEARTS,
    SPADES,
    STARDECK,
    STARS,
    HeartsView,
    hearts_view,
)
from starhall.shared.observation import Observation
from starhall.shared.tricks import trick_winner

QUEEN_OF_SPADES = "QS"
HIGH_SPADES = ("AS", "KS")


def _danger(card: Card, hand: set[str]) -> float:
    """How much a card threatens to take points if kept (higher: get rid of it sooner)."""
    if card.code == QUEEN_OF_SPADES:
        return 100.0
    if card.code in HIGH_SPADES and QUEEN_OF_SPADES not in hand:
        return 60.0 + card.rank
    if card.suit == HEARTS:
        return 20.0 + 2 * card.rank
    if card.suit == STARS:
        return 15.0 + 1.5 * card.rank  # a high trump wins tricks nobody wants
    same_suit = sum(1 for code in hand if STARDECK.card(code).suit == card.suit)
    return card.rank + (8.0 if same_suit <= 2 else 0.0)  # voiding a short suit helps later


class HeuristicHeartsBot:
    history = False
    """It reads only the view (and the legal commands): ``shared.bots.reads_history``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.deck: Deck = STARDECK

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = hearts_view(seen.view), seen.seat
        legal = view["legal"]
        hand = set(view["hand"])
        if "play" in legal:
            return Command("play", seat, {"card": self._play(view, legal["play"], hand)})
        if "pass" in legal:
            count = legal["pass"]["count"]
            return Command("pass", seat, {"cards": self._worst(legal["pass"]["from"], hand, count)})
        if "exchange" in legal:
            offer = legal["exchange"]
            pool, count = offer["discard_from"], offer["count"]
            worst = self._worst(pool, hand, count) if len(pool) >= count else []
            take = worst and (not offer["may_decline"]
                              or min(_danger(self.deck.card(c), hand) for c in worst) >= 12)
            if take:
                return Command("take_exchange", seat, {"cards": worst})
            return Command("decline_exchange", seat, {})
        return seen.game.random_choice(seen.legal, self.rng)

    def _worst(self, pool: list[str], hand: set[str], count: int) -> list[str]:
        ranked = sorted(pool, key=lambda c: (-_danger(self.deck.card(c), hand), c))
        return ranked[:count]

    def _play(self, view: HeartsView, legal: list[str], hand: set[str]) -> str:
        cards = [self.deck.card(code) for code in legal]
        if len(cards) == 1:
            return cards[0].code
        trick = [(seat, self.deck.index(code)) for seat, code in view["trick"]]
        if not trick:
            return self._lead(cards, hand).code
        trump = view["trump"]
        led = self.deck.cards[trick[0][1]].suit or None
        following = led is not None and all(card.suit == led for card in cards)
        last_to_play = len(trick) == view["players"] - 1
        points_in_trick = any(self._points(self.deck.cards[c]) for _, c in trick)

        def wins(card: Card) -> bool:
            return trick_winner((*trick, (-1, card.index)), self.deck, trump) == -1

        losers = [card for card in cards if not wins(card)]
        if following:
            if last_to_play and not points_in_trick:
                safe = [c for c in cards if c.code != QUEEN_OF_SPADES]
                return max(safe or cards, key=lambda c: c.rank).code  # take a clean trick high
            if losers:
                return max(losers, key=lambda c: c.rank).code  # the highest card that ducks
            return max(cards, key=lambda c: c.rank).code if last_to_play else min(
                cards, key=lambda c: c.rank).code
        if losers:  # void: discard the most dangerous card that does not win the trick
            return max(losers, key=lambda c: _danger(c, hand)).code
        return min(cards, key=lambda c: c.rank).code

    def _lead(self, cards: list[Card], hand: set[str]) -> Card:
        def lead_risk(card: Card) -> tuple[float, int]:
            risk = float(card.rank)
            if card.suit == SPADES and QUEEN_OF_SPADES in hand and card.code != QUEEN_OF_SPADES:
                risk += 5  # drawing spades out while holding the Queen invites her back
            if card.code == QUEEN_OF_SPADES or card.suit == HEARTS:
                risk += 30
            if card.suit == STARS:
                risk += 8
            if card.suit == CLUBS:
                risk -= 1
            return risk, card.index

        return min(cards, key=lead_risk)

    @staticmethod
    def _points(card: Card) -> int:
        return 13 if card.code == QUEEN_OF_SPADES else int(card.suit == HEARTS)


BOTS = {"heuristic": HeuristicHeartsBot}
LEVELS = {"easy": "random", "normal": "heuristic"}
"""The bots a person picks by level (``shared.bots.bot_levels``; ``strong``, once in ``BOTS``,
is Strong)."""
