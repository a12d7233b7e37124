"""Trick-taking mechanics shared by every trick game (Hearts, Stars): following suit and
finding a trick's winner. A trick is a tuple of plays ``(seat, card index)`` in the order laid.
"""

from __future__ import annotations

from collections.abc import Iterator

from shared.cards import CardSet, Deck

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
