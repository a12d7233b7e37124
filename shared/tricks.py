"""Trick-taking mechanics shared by every trick game (Hearts, Stars): following suit,
finding a trick's winner, and saying in words why a card may not be played. A trick is a tuple
of plays ``(seat, card index)`` in the order laid.

Refusals speak to the seat that sent the command as "you" and name cards as the players do,
"the Lady of Leaves", never by code; another seat is "seat 2" (a client may put the seat's
name in its place).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random

from starhall.shared.cards import CardSet, Deck, bits, lowest, random_card
from starhall.shared.engine import Command, Event

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


def suit_to_follow(trick: Trick, deck: Deck) -> CardSet:
    """The cards of the suit to follow (``led_suit``'s), none while no card has set one."""
    suit_cards_of = deck.suit_cards_of
    for _, card in trick:
        suit = suit_cards_of[card]
        if suit:
            return suit
    return 0


def follow_options(hand: CardSet, suit: CardSet) -> CardSet:
    """The cards of ``hand`` that may be played to a trick whose suit to follow is ``suit``
    (its cards, ``suit_to_follow``): that suit's cards if the hand has any, else every card."""
    return hand & suit or hand


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


def the_card(deck: Deck, card: int) -> str:
    """A card in words: "the Lady of Leaves", "the 10 of Hearts", "the Joker"."""
    return f"the {deck.cards[card].name}"


def the_cards(deck: Deck, cards: CardSet) -> str:
    """Cards in words, in deck order: "the 2 of Clubs, the 3 of Clubs and the Joker"."""
    names = [the_card(deck, card) for card in bits(cards)]
    if len(names) < 2:
        return "".join(names) or "no card"
    return f"{', '.join(names[:-1])} and {names[-1]}"


def not_following(deck: Deck, trick: Trick, hand: CardSet, card: int,
                  suit_names: Mapping[str, str]) -> str:
    """Why ``card`` may not be played to ``trick`` by the holder of ``hand``, who holds the
    suit to follow: "you must follow suit: Leaves were led and you hold the 7 of Leaves, so the
    2 of Skulls may not be played"."""
    suit = led_suit(trick, deck)
    assert suit is not None, "a trick with no suit to follow can be followed by any card"
    name = suit_names[suit]
    held = hand & deck.suit_mask[suit]
    led = (f"{name} were led" if deck.suit_of[trick[0][1]] == suit
           else f"{name} set the suit after the Joker was led,")
    holding = the_card(deck, lowest(held)) if held.bit_count() == 1 else \
        f"{held.bit_count()} {name}"
    return (f"you must follow suit: {led} and you hold {holding}, so {the_card(deck, card)} "
            "may not be played")


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
