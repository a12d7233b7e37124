"""Trick-taking mechanics shared by every trick game (Hearts, Stars): following suit and
finding a trick's winner. A trick is a tuple of plays ``(seat, card index)`` in the order laid.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from random import Random

from shared.cards import CardSet, Deck, bits, random_card
from shared.engine import Command, Event

Play = tuple[int, int]
Trick = tuple[Play, ...]


def led_suit(trick: Trick, deck: Deck) -> str | None:
    """The suit to follow: that of the first card with a suit (a led Joker sets none)."""
    suit_of = deck.suit_of
    for _, card in trick:
        suit = suit_of[card]
        if suit:
            return suit
    return None


def follow_options(hand: CardSet, suit: str | None, deck: Deck) -> CardSet:
    """The cards of ``hand`` that may be played to a trick led in ``suit``: that suit's cards
    if the hand has any, else every card."""
    if suit is None:
        return hand
    same = hand & deck.suit_mask[suit]
    return same or hand


def trick_winner(trick: Trick, deck: Deck, trump: str | None) -> int:
    """The seat whose card takes the trick: the highest trump if any trump was played, else
    the highest card of the suit led. A card of no suit never wins."""
    suit = led_suit(trick, deck)
    suit_of, rank_of = deck.suit_of, deck.rank_of
    if trump is not None and any(suit_of[card] == trump for _, card in trick):
        suit = trump
    best_seat: int | None = None
    best_rank = -1
    for seat, card in trick:
        if suit_of[card] == suit and rank_of[card] > best_rank:
            best_seat, best_rank = seat, rank_of[card]
    if best_seat is None:
        raise ValueError("a trick with no card of a suit has no winner")
    return best_seat


def seats_from(first: int, players: int) -> Iterator[int]:
    """Every seat once, clockwise (to the left), starting at ``first``."""
    for offset in range(players):
        yield (first + offset) % players


def trick_cards(trick: Trick) -> CardSet:
    mask = 0
    for _, card in trick:
        mask |= 1 << card
    return mask


@dataclass(frozen=True, slots=True)
class CardPlays:
    """Every ``play`` command and ``played`` event of one table, built once: bots, clients and
    rebuilds ask for them on nearly every move. Both are indexed ``[seat][card]``."""

    commands: tuple[tuple[Command, ...], ...]
    events: tuple[tuple[Event, ...], ...]

    @classmethod
    def build(cls, deck: Deck, players: int) -> CardPlays:
        return cls(
            commands=tuple(tuple(Command("play", seat, {"card": card.code}) for card in deck.cards)
                           for seat in range(players)),
            events=tuple(tuple(Event("played", seat, {"card": card.code}) for card in deck.cards)
                         for seat in range(players)),
        )

    def legal(self, seat: int, cards: CardSet) -> list[Command]:
        """The commands playing each of ``cards``."""
        commands = self.commands[seat]
        return [commands[card] for card in bits(cards)]

    def random(self, seat: int, cards: CardSet, rng: Random) -> Command:
        """The command playing one of ``cards``, drawn uniformly."""
        return self.commands[seat][random_card(cards, rng)]
