"""A bot for "A card game – what else?" (``what_else``). It reads only its seat's view (its
hand, the cards on the table and on the face-up discard pile, the hand counts) and the legal
actions in it.

Every card not in its hand, not in this round's pile and not on the discard pile is
*unseen*: in another hand or in the draw pile, each equally likely. A card's *followers* are
the unseen cards that could be laid on it. Laying a card that no other player still in the
round can follow wins the round at once, so the bot works out, for each card it may lay,
the chance that every other player still in misses all of its followers (each hand a random
draw from the unseen cards). It lays the card with the best chance when that chance is
high, and otherwise its lowest card, counting a starred card as 15 higher than its number and
a joker as the highest of all: it keeps its high numbers, starred cards and jokers for the end
of a round, where they decide who lays the last card. At the refill it discards the cards
worth less than an average unseen card (how often a card can be laid, times how likely it is
then to be the last): low numbers, which fit on almost nothing, go first.

Measured against other choices (``starhall sim``, one variant among heuristic bots): laying
the lowest card beats laying the card least likely to end the round, and both beat laying the
card most likely to end it now, which spends the high cards too early; discarding weak cards
is most of the edge over random players, who never do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from math import comb

from starhall.shared.cards import CardSet, bits
from starhall.shared.engine import Command, Seat
from starhall.shared.games.what_else.rules import (
    HAND_SIZE,
    Cards,
    WhatElseView,
    cards_for,
    what_else_view,
)
from starhall.shared.observation import Observation

WIN_NOW = 0.9
"""Spend a card when it wins the round at once with at least this chance."""
STARRED_LATER = 15
"""A starred card is laid as if its number were this much higher: a card of its colour or a
joker can follow it, but it also fits on those, so it is worth keeping."""
JOKER_LAST = 99
"""A joker is laid last of all (when nothing else fits, or to win the round)."""
OPPONENT_CARDS = 4
"""How many opposing cards a card must outlast, for a card's worth between rounds."""


@cache  # a playout asks it at every move, always of a few small numbers
def miss_chance(unseen: int, followers: int, hand: int) -> float:
    """The chance that a hand of ``hand`` cards drawn from ``unseen`` holds none of
    ``followers`` of them."""
    if hand > unseen:
        return 0.0 if followers else 1.0
    return comb(unseen - followers, hand) / comb(unseen, hand)


def card_worth(cards: Cards, card: int, unseen: CardSet) -> float:
    """Between rounds: how often the card can be laid (on a random card) times how likely it
    is then to be the last (nobody among a few unseen cards follows it)."""
    total = unseen.bit_count()
    if not total:
        return 0.0
    playable = sum(1 for top in bits(unseen) if cards.fits_on[top] >> card & 1) / total
    followers = (cards.fits_on[card] & unseen).bit_count()
    return playable * miss_chance(total, followers, OPPONENT_CARDS)


@cache
def lay_keys(table: str) -> tuple[int, ...]:
    """Each card's place in the order low cards are laid first: a starred card counts
    ``STARRED_LATER`` higher, a joker last."""
    cards = cards_for(table)
    return tuple(number + (STARRED_LATER if colours else 0) if number else JOKER_LAST
                 for number, colours in zip(cards.numbers, cards.colours, strict=True))


def card_to_lay(cards: Cards, playable: CardSet, unseen: CardSet,
                opponents: Sequence[int]) -> int:
    """The heuristic's card among ``playable`` (not empty): the one nobody likely follows, at
    ``WIN_NOW`` or more, else the lowest by ``lay_keys``. ``opponents``: the hand sizes of the
    other players still in the round. The strong bot's playouts lay by it too."""
    fits_on = cards.fits_on
    keys = lay_keys(cards.table)
    total = unseen.bit_count()
    best, best_chance = -1, -1.0
    lowest, lowest_key = -1, JOKER_LAST + 1
    while playable:
        low = playable & -playable
        playable ^= low
        card = low.bit_length() - 1
        followers = (fits_on[card] & unseen).bit_count()
        chance = 1.0
        for count in opponents:
            chance *= miss_chance(total, followers, count)
        if chance > best_chance:
            best, best_chance = card, chance
        if keys[card] < lowest_key:
            lowest, lowest_key = card, keys[card]
    return best if best_chance >= WIN_NOW else lowest


class HeuristicBot:
    """Lays a card nobody can likely follow, else its lowest card (starred cards and jokers
    kept longer); discards weak cards at the refill."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = what_else_view(seen.view), seen.seat
        cards = cards_for(view["options"]["star_table"])
        deck = cards.deck
        hand = deck.mask(view["hand"])
        gone = hand | deck.mask(view["discard_pile"]) | deck.mask(c for _, c in view["pile"])
        unseen = deck.full & ~gone
        legal = view["legal"]
        if legal["refill"]:
            return Command("refill", seat, {"discard": deck.codes(self._discards(
                cards, hand, unseen))})
        playable = deck.mask(legal["play"])
        if not playable:
            return Command("pass", seat, {})
        return Command("play", seat, {"card": deck.code_of[self._play(
            cards, view, seat, playable, unseen)]})

    @staticmethod
    def _play(cards: Cards, view: WhatElseView, seat: Seat, playable: CardSet,
              unseen: CardSet) -> int:
        counts = view["hand_counts"]
        return card_to_lay(cards, playable, unseen, [
            counts[other] for other, status in enumerate(view["status"])
            if other != seat and status == "in"])

    @staticmethod
    def _discards(cards: Cards, hand: CardSet, unseen: CardSet) -> CardSet:
        worth = {card: card_worth(cards, card, unseen) for card in bits(hand)}
        average = (sum(card_worth(cards, card, unseen) for card in bits(unseen))
                   / max(unseen.bit_count(), 1))
        weak = [card for card in sorted(worth, key=lambda c: (worth[c], c))
                if worth[card] < average]
        return sum(1 << card for card in weak[:HAND_SIZE])


BOTS = {"heuristic": HeuristicBot}
LEVELS = {"easy": "random", "normal": "heuristic"}
"""The bots a person picks by level (``shared.bots.bot_levels``; ``strong``, once in ``BOTS``,
is Strong)."""
