"""Reading the parts of a command that every card game shares: the seat, one held card,
several held cards. One place, so every game refuses bad input with the same codes and words.
A refusal speaks to the seat that sent the command ("you") and names cards in words."""

from __future__ import annotations

from starhall.shared.cards import CardSet, Deck
from starhall.shared.engine import Command, IllegalCommand, Seat


def seat_of(command: Command, players: int) -> Seat:
    seat = command.seat
    if type(seat) is not int or not 0 <= seat < players:
        raise IllegalCommand("bad_seat", f"{seat!r} is not a seat at this table")
    return seat


def held_card(deck: Deck, code: object, hand: CardSet, seat: Seat) -> int:
    """The index of the card ``code`` names, which ``seat`` (the command's sender) must hold in
    ``hand``."""
    index = deck.index_of.get(code) if isinstance(code, str) else None
    if index is None:
        raise IllegalCommand("bad_card", f"{code!r} is not a card of this game")
    if not hand >> index & 1:
        raise IllegalCommand("card_not_held", f"you do not hold the {deck.cards[index].name}")
    return index


def held_cards(deck: Deck, codes: object, count: int, hand: CardSet, seat: Seat) -> CardSet:
    """Exactly ``count`` different cards, all held by ``seat``, from a list of codes."""
    cards_word = "card" if count == 1 else "cards"
    if not isinstance(codes, list | tuple):
        raise IllegalCommand("bad_command",
                             f"choose exactly {count} {cards_word} as 'cards', a list")
    if len(codes) != count:
        raise IllegalCommand("bad_command",
                             f"choose exactly {count} {cards_word}, not {len(codes)}")
    cards = 0
    for code in codes:
        index = held_card(deck, code, hand, seat)
        if cards >> index & 1:
            raise IllegalCommand("bad_command", f"the {deck.cards[index].name} was chosen twice")
        cards |= 1 << index
    return cards
