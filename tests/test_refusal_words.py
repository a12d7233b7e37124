"""Every refusal of Stars and Stardeck Hearts reads as words a player understands: the cards
by name ("the 2 of Skulls"), never a code or a suit letter; "you" for the seat that sent the
command; why it is refused; on one line. The stable ``code`` of each refusal is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import HEARTS, dealt_table, fill_hands

from starhall.shared.cards import Deck
from starhall.shared.engine import Command, IllegalCommand
from starhall.shared.games import get_game
from starhall.shared.games.hearts.rules import STARDECK
from starhall.shared.games.hearts.rules import SUIT_NAMES as HEARTS_SUITS
from starhall.shared.games.stars.rules import DECK as STARS_DECK
from starhall.shared.games.stars.rules import SUIT_NAMES as STARS_SUITS
from starhall.shared.table import Table
from starhall.shared.tricks import not_following

STARS = get_game("stars")
DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"


@dataclass(frozen=True)
class Refusal:
    """A command refused at a table: the code it must get, the cards its reason must name,
    and a fragment that says why."""

    name: str
    table: Callable[[], Table[Any]]
    command: Command
    code: str
    cards: tuple[str, ...] = ()
    why: str = ""


def words_only(reason: str, deck: Deck, suit_names: dict[str, str]) -> None:
    """No card code and no suit letter anywhere, one line."""
    assert "\n" not in reason and reason == reason.strip()
    text = reason.replace("'s ", " ")  # "seat 2's turn": not the Shields' letter
    tokens = set(re.findall(r"[A-Za-z0-9*]+", text))
    assert not tokens & set(deck.code_of), f"a card code in {reason!r}"
    assert not tokens & set(suit_names), f"a suit letter in {reason!r}"
    assert "*" not in reason


def check(case: Refusal, deck: Deck, suit_names: dict[str, str]) -> str:
    table = case.table()
    before, seq = table.state, table.seq
    with pytest.raises(IllegalCommand) as refused:
        table.submit(case.command)
    assert table.state is before and table.seq == seq  # a refusal changes nothing
    reason = refused.value.reason
    assert refused.value.code == case.code, reason
    words_only(reason, deck, suit_names)
    for code in case.cards:
        assert f"the {deck.card(code).name}" in reason, reason
    assert case.why in reason, reason
    sender = case.command.seat
    if isinstance(sender, int) and case.code != "bad_seat":
        assert f"seat {sender}" not in reason, f"the sender is 'you': {reason!r}"
    return reason


def documented_codes(game_id: str) -> set[str]:
    """The refusal codes a game's page lists (its paragraph that starts "Codes:")."""
    text = (DOCS / f"{game_id}.md").read_text(encoding="utf-8")
    paragraph = text[text.index("Codes:"):].split("\n\n")[0]
    return set(re.findall(r"`(\w+)`", paragraph))


# --- Stars ----------------------------------------------------------------------------------

# Seat 0 holds every Skull; Shields are mostly with seat 1, Wands with seat 2, Leaves with seat
# 3; the widow holds the three Champions. Seat 2 holds one Shield, the King.
STARS_HANDS = {
    0: ["2k", "3k", "4k", "5k", "6k", "7k", "Lk", "Sk", "Qk", "Kk"],
    1: ["2s", "3s", "4s", "5s", "6s", "7s", "Ls", "Ss", "Qs", "2w"],
    2: ["Ks", "3w", "4w", "5w", "6w", "7w", "Lw", "Sw", "Qw", "Kw"],
    3: ["2l", "3l", "4l", "5l", "6l", "7l", "Ll", "Sl", "Ql", "Kl"],
}
STARS_WIDOW = ["Cs", "Cw", "Cl"]


def stars_order(dealer: int = 3) -> list[str]:
    """The shuffled order that deals STARS_HANDS and STARS_WIDOW (3, widow 3, 4, 3)."""
    remaining = {seat: list(cards) for seat, cards in STARS_HANDS.items()}
    order: list[str] = []
    for size in (3, None, 4, 3):
        if size is None:
            order += STARS_WIDOW
            continue
        for offset in range(1, 5):
            seat = (dealer + offset) % 4
            order += remaining[seat][:size]
            remaining[seat] = remaining[seat][size:]
    return order


def stars_bidding(*moves: tuple[int, int | None]) -> Callable[[], Table[Any]]:
    """Dealer 3, so seat 0 bids first; then ``moves``: (seat, amount or None for a pass)."""
    def build() -> Table[Any]:
        table = Table.new(STARS, 4, {"first_dealer": 3})
        table.submit(Command("shuffle", None, {"order": stars_order()}))
        for seat, amount in moves:
            table.submit(Command("pass", seat, {}) if amount is None
                         else Command("bid", seat, {"amount": amount}))
        return table
    return build


stars_declared = stars_bidding((0, 30), (1, None), (2, None), (3, None))


def stars_playing(*plays: tuple[int, str]) -> Callable[[], Table[Any]]:
    """Seat 0 declares, buries three Skulls and leads the Champion of Shields; then ``plays``."""
    def build() -> Table[Any]:
        table = stars_declared()
        table.submit(Command("bury", 0, {"cards": ["2k", "3k", "4k"]}))
        for seat, card in (0, "Cs"), *plays:
            table.submit(Command("play", seat, {"card": card}))
        return table
    return build


def stars_cases() -> Iterator[Refusal]:
    bidding = stars_bidding()
    yield Refusal("bid out of turn", bidding, Command("bid", 2, {"amount": 30}),
                  "not_your_turn", why="it is seat 0's turn to bid, not yours")
    yield Refusal("bid below the minimum", bidding, Command("bid", 0, {"amount": 29}),
                  "bid_too_low", why="the minimum bid is 30")
    yield Refusal("bid not higher", stars_bidding((0, 45)), Command("bid", 1, {"amount": 45}),
                  "bid_too_low", why="a bid must be higher than 45, seat 0's bid")
    yield Refusal("bid too high", bidding, Command("bid", 0, {"amount": 241}), "bid_too_high",
                  why="no hand can score more than 240")
    yield Refusal("bid of no number", bidding, Command("bid", 0, {"amount": "50"}),
                  "bad_command", why="a whole number")
    yield Refusal("forced bidder passes", stars_bidding((0, None), (1, None), (2, None)),
                  Command("pass", 3, {}), "must_bid", why="so you must bid")
    yield Refusal("play while bidding", bidding, Command("play", 0, {"card": "Kk"}),
                  "wrong_phase", why="no card play now: the players are bidding")
    yield Refusal("bury while bidding", bidding, Command("bury", 0, {"cards": []}),
                  "wrong_phase", why="no burying now")
    yield Refusal("declarer plays before burying", stars_declared,
                  Command("play", 0, {"card": "Kk"}), "wrong_phase",
                  why="you must bury three cards first")
    yield Refusal("another seat plays during the burial", stars_declared,
                  Command("play", 1, {"card": "2s"}), "wrong_phase",
                  why="seat 0, the declarer, is burying three cards")
    yield Refusal("bury out of turn", stars_declared,
                  Command("bury", 1, {"cards": ["2s", "3s", "4s"]}), "not_your_turn",
                  why="it is seat 0's turn to bury three cards, not yours")
    yield Refusal("bury two cards", stars_declared, Command("bury", 0, {"cards": ["2k", "3k"]}),
                  "bad_command", why="choose exactly 3 cards, not 2")
    yield Refusal("bury no list", stars_declared, Command("bury", 0, {"cards": "2k"}),
                  "bad_command", why="choose exactly 3 cards")
    yield Refusal("bury one card twice", stars_declared,
                  Command("bury", 0, {"cards": ["2k", "2k", "3k"]}), "bad_command", ("2k",),
                  why="was chosen twice")
    yield Refusal("bury a card not held", stars_declared,
                  Command("bury", 0, {"cards": ["2k", "3k", "2l"]}), "card_not_held", ("2l",),
                  why="you do not hold")
    yield Refusal("bury a card of no deck", stars_declared,
                  Command("bury", 0, {"cards": ["2k", "3k", "Ck"]}), "bad_card",
                  why="is not a card of this game")
    playing = stars_playing()
    yield Refusal("bid while playing", playing, Command("bid", 1, {"amount": 50}),
                  "wrong_phase", why="no bidding now: cards are being played")
    yield Refusal("pass while playing", playing, Command("pass", 1, {}), "wrong_phase",
                  why="no passing now")
    yield Refusal("play out of turn", playing, Command("play", 2, {"card": "Ks"}),
                  "not_your_turn", why="it is seat 1's turn to play, not yours")
    yield Refusal("play a card not held", playing, Command("play", 1, {"card": "Ks"}),
                  "card_not_held", ("Ks",), why="you do not hold")
    yield Refusal("not following, holding many", playing, Command("play", 1, {"card": "2w"}),
                  "must_follow_suit", ("2w",),
                  why="you must follow suit: Shields were led and you hold 9 Shields, so the 2 "
                      "of Wands may not be played")
    yield Refusal("not following, holding one", stars_playing((1, "2s")),
                  Command("play", 2, {"card": "3w"}), "must_follow_suit", ("Ks", "3w"),
                  why="Shields were led and you hold the King of Shields")
    yield Refusal("a seat of no table", playing, Command("play", 7, {"card": "2s"}), "bad_seat",
                  why="is not a seat at this table")
    yield Refusal("a command of no game", playing, Command("dance", 1, {}), "unknown_command",
                  why="stars has no command 'dance'")
    yield Refusal("a seat shuffles", playing, Command("shuffle", 1, {"order": []}),
                  "wrong_phase", why="the game is not waiting for a shuffle")
    yield Refusal("a seat deals", lambda: Table.new(STARS, 4, {}),
                  Command("shuffle", 0, {"order": list(STARS_DECK.code_of)}), "not_allowed",
                  why="only the host can shuffle")
    yield Refusal("a deal of too few cards", lambda: Table.new(STARS, 4, {}),
                  Command("shuffle", None, {"order": list(STARS_DECK.code_of)[1:]}),
                  "bad_shuffle", why="the order must hold exactly the 43 cards")


STARS_CASES = list(stars_cases())


@pytest.mark.parametrize("case", STARS_CASES, ids=[case.name for case in STARS_CASES])
def test_every_stars_refusal_reads_as_words(case: Refusal) -> None:
    check(case, STARS_DECK, STARS_SUITS)


def test_every_stars_refusal_code_is_covered() -> None:
    assert {case.code for case in STARS_CASES} == documented_codes("stars")


def test_a_random_stars_move_out_of_turn_speaks_to_the_seat() -> None:
    import random

    with pytest.raises(IllegalCommand) as refused:
        STARS.random_action(stars_bidding()().state, 2, random.Random(1))
    assert refused.value.code == "not_your_turn"
    assert refused.value.reason == "you have nothing to do now"


# --- Stardeck Hearts ------------------------------------------------------------------------

def hearts_cards(players: int, options: dict[str, Any]) -> list[str]:
    request = HEARTS.chance(HEARTS.new_state(players, HEARTS.make_options(players, options)))
    assert request is not None
    return list(request.items)


PLAY = {"mode": "no_exchange", "pass_cards": 0}
# No 2 of Clubs (no_exchange, 4 players): seat 1 leads the 3 of Clubs; seat 2 holds two Clubs
# and the Ace of Diamonds; seat 3 holds no Club, only Stars, points and the Queen of Spades,
# so it trumps the first trick and leads the second; seat 0 has the rest.
PLAY_HANDS = {
    1: ["3C", "4C", "5H", "6H", *(f"{rank}D" for rank in
                                   ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))],
    2: ["5C", "6C", "AD", *(f"{rank}S" for rank in
                            ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "K", "A")), "2*"],
    3: ["QS", "2H", "3H", "4H", *(f"{rank}*" for rank in
                                   ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))],
}


def hearts_playing(*plays: tuple[int, str], **options: Any) -> Callable[[], Table[Any]]:
    def build() -> Table[Any]:
        chosen = {**PLAY, **options}
        hands = fill_hands(hearts_cards(4, chosen), PLAY_HANDS, 4, 16)
        table = dealt_table(4, chosen, hands)
        for seat, card in plays:
            table.submit(Command("play", seat, {"card": card}))
        return table
    return build


FIRST_TRICK = ((1, "3C"), (2, "5C"), (3, "3*"), (0, "7C"))  # seat 3's Star takes it


def hearts_joker_lead() -> Table[Any]:
    """anti_trump, 3 players: seat 1 holds every Club, the Joker and low Diamonds, takes the
    first trick with the 2 of Clubs and is to lead again."""
    options = {"mode": "anti_trump", "pass_cards": 0}
    spades = [f"{rank}S" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "K",
                                      "A")]
    stars = [f"{rank}*" for rank in ("2", "3", "4", "5", "6", "10", "J", "Q", "K", "A")]
    fixed = {1: [*(f"{rank}C" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                            "Q", "K", "A")), "JK",
                 *(f"{rank}D" for rank in ("2", "3", "4", "5", "6", "7", "8", "9"))],
             2: [*spades, *stars]}
    table = dealt_table(3, options, fill_hands(hearts_cards(3, options), fixed, 3, 22))
    for seat, card in (1, "2C"), (2, "2S"), (0, "10D"):
        table.submit(Command("play", seat, {"card": card}))
    assert table.state.turn == 1
    return table


def hearts_exchange(*moves: Command) -> Callable[[], Table[Any]]:
    """4 players, the exchange mode: the Ace of Spades is undealt; seat 0 (the dealer, offered
    first) holds every Club and three Diamonds, seat 1 Diamonds and six Hearts."""
    def build() -> Table[Any]:
        hands = fill_hands(hearts_cards(4, {}), {}, 4, 16, ["AS"])
        table = dealt_table(4, {}, hands, ["AS"])
        for move in moves:
            table.submit(move)
        return table
    return build


DECLINE = Command("decline_exchange", 0, {})
TAKE = Command("take_exchange", 0, {"cards": ["2C"]})


def hearts_cases() -> Iterator[Refusal]:
    offered = hearts_exchange(DECLINE)  # seat 1 is offered
    yield Refusal("exchange out of turn", offered, Command("take_exchange", 0, {"cards": ["3C"]}),
                  "not_your_turn",
                  why="it is seat 1's turn to take or decline the exchange, not yours")
    yield Refusal("exchange discards a Heart", offered,
                  Command("take_exchange", 1, {"cards": ["2H"]}), "point_card_discard", ("2H",),
                  why="only non-point cards (not Hearts, not the Queen of Spades) may be discarded")
    yield Refusal("exchange discards a card not held", offered,
                  Command("take_exchange", 1, {"cards": ["2C"]}), "card_not_held", ("2C",),
                  why="you do not hold")
    yield Refusal("exchange discards too many", offered,
                  Command("take_exchange", 1, {"cards": ["5D", "6D"]}), "bad_command",
                  why="choose exactly 1 card, not 2")
    yield Refusal("play while offered", offered, Command("play", 1, {"card": "5D"}),
                  "wrong_phase",
                  why="no card play now: you are offered the undealt cards (take or decline "
                      "them first)")
    yield Refusal("pass while another is offered", offered,
                  Command("pass", 2, {"cards": []}), "wrong_phase",
                  why="no passing now: seat 1 is being offered the undealt cards")
    forced = hearts_exchange(DECLINE, *(Command("decline_exchange", seat, {})
                                        for seat in (1, 2, 3)))
    yield Refusal("everyone declined", forced, DECLINE, "must_exchange",
                  why="everyone has declined, so you must take the exchange")
    passing = hearts_exchange(TAKE)
    yield Refusal("pass two cards", passing, Command("pass", 1, {"cards": ["5D", "6D"]}),
                  "bad_command", why="choose exactly 3 cards, not 2")
    yield Refusal("pass one card twice", passing,
                  Command("pass", 1, {"cards": ["5D", "5D", "6D"]}), "bad_command", ("5D",),
                  why="was chosen twice")
    yield Refusal("pass a card not held", passing,
                  Command("pass", 1, {"cards": ["5D", "6D", "AS"]}), "card_not_held", ("AS",),
                  why="you do not hold")
    passed = hearts_exchange(TAKE, Command("pass", 1, {"cards": ["5D", "6D", "7D"]}))
    yield Refusal("pass twice", passed, Command("pass", 1, {"cards": ["8D", "9D", "10D"]}),
                  "already_passed", why="you have already passed your cards this hand")
    yield Refusal("play while passing", passing, Command("play", 1, {"card": "5D"}),
                  "wrong_phase", why="no card play now: cards are being passed (choose yours")
    yield Refusal("exchange while passing", passing, TAKE, "wrong_phase",
                  why="no exchange now: cards are being passed")

    start = hearts_playing()
    yield Refusal("first lead not the lowest Club", start, Command("play", 1, {"card": "4C"}),
                  "must_lead_lowest_club", ("3C",),
                  why="the first trick is led with the lowest Club in play")
    yield Refusal("play out of turn", start, Command("play", 2, {"card": "5C"}),
                  "not_your_turn", why="it is seat 1's turn to play, not yours")
    yield Refusal("play a card of no deck", start, Command("play", 1, {"card": "1C"}),
                  "bad_card", why="is not a card of this game")
    yield Refusal("play a card not held", start, Command("play", 1, {"card": "AC"}),
                  "card_not_held", ("AC",), why="you do not hold")
    led = hearts_playing(FIRST_TRICK[0])
    yield Refusal("not following suit", led, Command("play", 2, {"card": "AD"}),
                  "must_follow_suit", ("AD",),
                  why="you must follow suit: Clubs were led and you hold 2 Clubs, so the Ace of "
                      "Diamonds may not be played")
    void = hearts_playing(*FIRST_TRICK[:2])
    yield Refusal("a Heart on the first trick", void, Command("play", 3, {"card": "2H"}),
                  "no_points_first_trick", ("2H",),
                  why="no Heart or Queen of Spades on the first trick")
    yield Refusal("the Queen of Spades on the first trick", void,
                  Command("play", 3, {"card": "QS"}), "no_points_first_trick", ("QS",))
    second = hearts_playing(*FIRST_TRICK)
    yield Refusal("a Heart led unbroken", second, Command("play", 3, {"card": "2H"}),
                  "hearts_not_broken", ("2H",),
                  why="Hearts may not be led until a Heart has been played")
    yield Refusal("a Heart led unbroken, the Queen breaking too",
                  hearts_playing(*FIRST_TRICK, qs_breaks_hearts=True),
                  Command("play", 3, {"card": "2H"}), "hearts_not_broken", ("2H",),
                  why="until a Heart or the Queen of Spades has been played")
    yield Refusal("the Joker led with other cards", hearts_joker_lead,
                  Command("play", 1, {"card": "JK"}), "joker_lead",
                  why="the Joker may be led only from a hand with nothing else")
    yield Refusal("pass while playing", start, Command("pass", 1, {"cards": []}), "wrong_phase",
                  why="no passing now: cards are being played")
    yield Refusal("exchange while playing", start, DECLINE, "wrong_phase",
                  why="no exchange now: cards are being played")
    yield Refusal("a seat of no table", start, Command("play", 4, {"card": "3C"}), "bad_seat",
                  why="is not a seat at this table")
    yield Refusal("a command of no game", start, Command("dance", 1, {}), "unknown_command",
                  why="hearts has no command 'dance'")
    yield Refusal("a seat deals", lambda: Table.new(HEARTS, 4, {}),
                  Command("shuffle", 0, {"order": hearts_cards(4, {})}), "not_allowed",
                  why="only the host can shuffle")
    yield Refusal("a deal with the Joker", lambda: Table.new(HEARTS, 4, {}),
                  Command("shuffle", None, {"order": [*hearts_cards(4, {}), "JK"]}),
                  "bad_shuffle", why="the order must hold exactly the 65 cards")


HEARTS_CASES = list(hearts_cases())


@pytest.mark.parametrize("case", HEARTS_CASES, ids=[case.name for case in HEARTS_CASES])
def test_every_hearts_refusal_reads_as_words(case: Refusal) -> None:
    check(case, STARDECK, HEARTS_SUITS)


def test_every_hearts_refusal_code_is_covered() -> None:
    assert {case.code for case in HEARTS_CASES} == documented_codes("hearts")


def test_following_a_led_joker_names_the_suit_that_the_next_card_set() -> None:
    index = STARDECK.index
    trick = ((0, index("JK")), (1, index("5C")))
    hand = STARDECK.mask(["9C", "2D"])
    reason = not_following(STARDECK, trick, hand, index("2D"), HEARTS_SUITS)
    assert reason == ("you must follow suit: Clubs set the suit after the Joker was led, and you "
                      "hold the 9 of Clubs, so the 2 of Diamonds may not be played")
    words_only(reason, STARDECK, HEARTS_SUITS)
