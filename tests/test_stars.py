"""Stars (White Star): every rule as the project rules it, the seed's worked example built from real
events, views, refused commands and random playouts of both variants."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starhall.shared.bots import make_bot
from starhall.shared.cards import bits
from starhall.shared.engine import Command, Event, IllegalCommand
from starhall.shared.games import get_game
from starhall.shared.games.stars.rules import (
    DECK,
    GAME,
    MAX_BID,
    POINTS,
    StarsState,
    card_points,
    resolve_trick,
)
from starhall.shared.shuffle import seeded_order
from starhall.shared.table import Table
from tests.support import ask

ALL = DECK.full


def order_for(hands: dict[int, list[str]], widow: list[str], dealer: int) -> list[str]:
    """The shuffled order that deals exactly these hands and widow (3, widow 3, 4, 3)."""
    remaining = {seat: list(cards) for seat, cards in hands.items()}
    order: list[str] = []
    for size in (3, None, 4, 3):
        if size is None:
            order += widow
            continue
        for offset in range(1, 5):
            seat = (dealer + offset) % 4
            order += remaining[seat][:size]
            remaining[seat] = remaining[seat][size:]
    assert sorted(order) == sorted(DECK.code_of)
    return order


def new_table(**options: Any) -> Table[StarsState]:
    return Table.new(GAME, 4, options)


def play(table: Table[StarsState], seat: int, card: str) -> None:
    table.submit(Command("play", seat, {"card": card}))


# The seed's example. Seat 0 is Player 1 (the dealer is seat 3, so seat 0 bids first).
# Seat 0 holds every Skull and buries 4k 3k 2k; the widow is 2s 2w 2l.
EXAMPLE_HANDS = {
    0: ["Kk", "Qk", "Sk", "Lk", "7k", "6k", "5k", "4k", "3k", "2k"],
    1: ["Cs", "3w", "3l", "Cw", "Ks", "Ls", "7s", "6s", "5s", "4s"],
    2: ["Qs", "7w", "Sl", "Ss", "Kw", "Qw", "Sw", "Cl", "Kl", "Ql"],
    3: ["3s", "4w", "4l", "Ll", "Lw", "6w", "5w", "7l", "6l", "5l"],
}
EXAMPLE_WIDOW = ["2s", "2w", "2l"]
# Tricks in order of play, from the leader. Tricks 1-6: seat 0 leads Skulls, the others (void
# in Skulls) discard without completing a Star. Trick 7: a Star against seat 0's King of
# Skulls, worth 10. Seat 1's Champion of Wands is the highest non-Skull card, so seat 1 leads
# and wins trick 8 (6 points); seat 2 wins tricks 9 and 10 (10 points).
EXAMPLE_TRICKS = [
    (0, ["Qk", "Ks", "Kw", "Lw"]),
    (0, ["Sk", "Ls", "Qw", "6w"]),
    (0, ["Lk", "7s", "Sw", "5w"]),
    (0, ["7k", "6s", "Cl", "7l"]),
    (0, ["6k", "5s", "Kl", "6l"]),
    (0, ["5k", "4s", "Ql", "5l"]),
    (0, ["Kk", "Cw", "Ss", "Ll"]),
    (1, ["Cs", "Qs", "3s", "2s"]),
    (1, ["3w", "7w", "4w", "2w"]),
    (2, ["Sl", "4l", "2l", "3l"]),
]


def example_table(colored_star: bool = False) -> Table[StarsState]:
    table = new_table(first_dealer=3, colored_star=colored_star)
    order = order_for(EXAMPLE_HANDS, EXAMPLE_WIDOW, dealer=3)
    table.submit(Command("shuffle", None, {"order": order}))
    table.submit(Command("bid", 0, {"amount": 57}))
    for seat in (1, 2, 3):
        table.submit(Command("pass", seat, {}))
    table.submit(Command("bury", 0, {"cards": ["4k", "3k", "2k"]}))
    for leader, cards in EXAMPLE_TRICKS:
        for offset, card in enumerate(cards):
            play(table, (leader + offset) % 4, card)
    return table


def test_seed_worked_example_scores_minus_3_16_20_10() -> None:
    table = example_table()
    state = table.state
    result = state.results[-1]
    assert [card_points(cards) for cards in state.won] == [54 - 3, 6, 10, 0]
    assert card_points(state.buried) == 3
    assert card_points(state.star_piles[0]) == 10 and state.star_values == (10, 0, 0, 0)
    assert result.points == (54, 16, 20, 10)
    assert not result.made
    assert state.totals == (-3, 16, 20, 10)
    view = GAME.view(state, None)
    assert view["score_sheet"] == [[-3, 16, 20, 10]]
    assert view["contracts"] == [{"hand_number": 1, "declarer": 0, "bid": 57,
                                  "points": [54, 16, 20, 10], "made": False}]
    assert state.phase == "deal" and state.dealer == 0  # the deal passes left


def test_example_star_trick_goes_to_the_skull_players_star_pile_and_lead_to_top_card() -> None:
    table = example_table()
    trick, result = table.state.tricks[6]
    assert result.star and not result.white
    assert result.star_pile == 0 and result.taker is None
    assert result.leader == 1  # Champion of Wands
    assert result.points == result.paid == 10


def test_colored_star_example_gives_the_star_to_the_highest_colored_card() -> None:
    table = example_table(colored_star=True)
    state = table.state
    assert state.star_piles == (0, 0, 0, 0)
    assert state.results[-1].points == (54, 16, 10, 0)
    assert state.totals == (54 - 57, 16, 10, 0)


# --- deck -------------------------------------------------------------------------------


def test_deck_has_43_cards_80_points_and_no_champion_of_skulls() -> None:
    assert len(DECK) == 43
    assert sum(POINTS) == 80
    assert "Ck" not in DECK.by_code
    for suit in "kswl":
        assert card_points(DECK.suit_mask[suit]) == 20
    values = {code[0]: POINTS[DECK.index(code)] for code in ("Cs", "Ks", "Qs", "Ss", "Ls")}
    assert values == {"C": 0, "K": 5, "Q": 4, "S": 3, "L": 2}
    assert all(POINTS[DECK.index(f"{spot}w")] == 1 for spot in "234567")
    ranks = [DECK.card(f"{r}l").rank for r in "CKQSL765432"]
    assert ranks == sorted(ranks, reverse=True)


# --- deal --------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deal_follows_the_packets_from_the_dealers_left(dealer: int) -> None:
    table = new_table(first_dealer=dealer)
    order = list(DECK.code_of)
    table.submit(Command("shuffle", None, {"order": order}))
    state = table.state
    first = (dealer + 1) % 4
    expected = {
        first: order[0:3] + order[15:19] + order[31:34],
        (first + 1) % 4: order[3:6] + order[19:23] + order[34:37],
        (first + 2) % 4: order[6:9] + order[23:27] + order[37:40],
        (first + 3) % 4: order[9:12] + order[27:31] + order[40:43],
    }
    for seat, cards in expected.items():
        assert state.hands[seat] == DECK.mask(cards)
    assert state.widow == DECK.mask(order[12:15])
    assert state.phase == "bidding" and state.turn == first


# --- bidding -----------------------------------------------------------------------------


def dealt(seed: int = 1, **options: Any) -> Table[StarsState]:
    table = new_table(**options)
    table.shuffle(seed)
    return table


def bid(table: Table[StarsState], seat: int, amount: int) -> None:
    table.submit(Command("bid", seat, {"amount": amount}))


def pass_(table: Table[StarsState], seat: int) -> None:
    table.submit(Command("pass", seat, {}))


def refused(table: Table[StarsState], command: Command, code: str) -> None:
    """The command is refused with ``code`` and the state is untouched."""
    before, seq = table.state, table.seq
    with pytest.raises(IllegalCommand) as raised:
        table.submit(command)
    assert raised.value.code == code
    assert table.state is before and table.seq == seq


def test_bidding_starts_left_of_dealer_and_skips_passed_players() -> None:
    table = dealt()  # dealer 0
    assert GAME.to_act(table.state) == (1,)
    bid(table, 1, 30)
    pass_(table, 2)
    bid(table, 3, 31)
    bid(table, 0, 35)
    assert table.state.turn == 1
    bid(table, 1, 40)
    assert table.state.turn == 3  # seat 2 passed for good
    pass_(table, 3)
    pass_(table, 0)
    state = table.state
    assert state.phase == "bury" and state.declarer == 1 and state.high_bid == 40
    assert state.turn == 1


def test_bid_must_reach_min_bid_and_beat_the_last() -> None:
    table = dealt(min_bid=45)
    refused(table, Command("bid", 1, {"amount": 44}), "bid_too_low")
    bid(table, 1, 45)
    refused(table, Command("bid", 2, {"amount": 45}), "bid_too_low")
    refused(table, Command("bid", 2, {"amount": MAX_BID + 1}), "bid_too_high")
    refused(table, Command("bid", 2, {"amount": "50"}), "bad_command")
    refused(table, Command("bid", 2, {"amount": True}), "bad_command")
    assert GAME.view(table.state, 2)["legal"] == {"pass": True, "bid": {"min": 46,
                                                                        "max": MAX_BID}}
    bid(table, 2, 46)


def test_a_pass_is_final() -> None:
    table = dealt()
    pass_(table, 1)
    bid(table, 2, 30)
    bid(table, 3, 31)
    bid(table, 0, 32)
    assert table.state.turn == 2
    refused(table, Command("bid", 1, {"amount": 50}), "not_your_turn")


def test_fourth_bidder_is_forced_after_three_passes() -> None:
    table = dealt()
    for seat in (1, 2, 3):
        pass_(table, seat)
    assert GAME.view(table.state, 0)["legal"] == {"pass": False, "bid": {"min": 30,
                                                                         "max": MAX_BID}}
    assert all(c.type == "bid" for c in GAME.legal_actions(table.state, 0))
    refused(table, Command("pass", 0, {}), "must_bid")
    bid(table, 0, 30)
    assert table.state.phase == "bury" and table.state.declarer == 0


def test_bidding_ends_when_three_have_passed() -> None:
    table = dealt()
    bid(table, 1, 30)
    for seat in (2, 3, 0):
        pass_(table, seat)
    assert table.state.phase == "bury" and table.state.declarer == 1


def test_only_pass_is_left_after_the_highest_possible_bid() -> None:
    table = dealt()
    bid(table, 1, MAX_BID)
    assert GAME.view(table.state, 2)["legal"] == {"pass": True}
    assert [c.type for c in GAME.legal_actions(table.state, 2)] == ["pass"]


# --- widow and burial ----------------------------------------------------------------------


def declared(seed: int = 1, **options: Any) -> Table[StarsState]:
    table = dealt(seed, **options)
    bid(table, 1, 30)
    for seat in (2, 3, 0):
        pass_(table, seat)
    return table


def test_declarer_takes_the_widow_and_buries_any_three_which_count_as_won() -> None:
    table = declared()
    state = table.state
    assert state.hands[1] & state.widow == state.widow
    assert state.hands[1].bit_count() == 13
    assert len(GAME.legal_actions(state, 1)) == 286  # 13 choose 3
    points = sorted(bits(state.hands[1]), key=lambda i: -POINTS[i])[:3]  # points allowed
    burial = DECK.codes(sum(1 << i for i in points))
    table.submit(Command("bury", 1, {"cards": burial}))
    state = table.state
    assert state.phase == "play" and state.turn == 1  # the declarer leads
    assert state.hands[1].bit_count() == 10 and state.buried == DECK.mask(burial)
    assert GAME.view(state, 1)["my_hand_points"] == card_points(state.buried)


def test_bad_burials_are_refused() -> None:
    table = declared()
    hand = DECK.codes(table.state.hands[1])
    other = DECK.codes(table.state.hands[2])[0]
    refused(table, Command("bury", 1, {"cards": hand[:2]}), "bad_command")
    refused(table, Command("bury", 1, {"cards": [hand[0], hand[0], hand[1]]}), "bad_command")
    refused(table, Command("bury", 1, {"cards": [hand[0], hand[1], other]}), "card_not_held")
    refused(table, Command("bury", 1, {"cards": [hand[0], hand[1], "Ck"]}), "bad_card")
    refused(table, Command("bury", 2, {"cards": other}), "not_your_turn")
    refused(table, Command("play", 1, {"card": hand[0]}), "wrong_phase")


# --- play ----------------------------------------------------------------------------------


def trick_of(*cards: str) -> tuple[tuple[int, int], ...]:
    return tuple((seat, DECK.index(code)) for seat, code in enumerate(cards))


def test_highest_skull_wins_else_highest_of_led_suit() -> None:
    plain = resolve_trick(trick_of("5s", "Ks", "2w", "Cs"), colored_star=False)
    assert not plain.star and plain.taker == 3 and plain.leader == 3
    trumped = resolve_trick(trick_of("5s", "2k", "Ks", "Qk"), colored_star=False)
    assert trumped.taker == 3  # two Skulls: no Star (not one card of each suit)
    skulls_led = resolve_trick(trick_of("2k", "Cs", "Kk", "Cw"), colored_star=False)
    assert skulls_led.taker == 2


def test_star_loses_for_the_skull_whoever_led() -> None:
    for cards in (["Ks", "2w", "Kk", "Ql"], ["Kk", "Ks", "2w", "Ql"]):
        result = resolve_trick(trick_of(*cards), colored_star=False)
        assert result.star and not result.white
        assert result.star_pile == cards.index("Kk") and result.taker is None
        assert result.leader == cards.index("Ks")
        assert result.paid == result.points == 5 + 1 + 5 + 4


def test_lead_after_a_star_between_equal_ranks_is_the_first_laid() -> None:
    result = resolve_trick(trick_of("7w", "Kl", "3k", "Ks"), colored_star=False)
    assert result.leader == 1
    result = resolve_trick(trick_of("Ks", "3k", "Kl", "7w"), colored_star=False)
    assert result.leader == 0


def test_white_star_triples_the_points() -> None:
    result = resolve_trick(trick_of("3s", "3w", "Kk", "3l"), colored_star=False)
    assert result.star and result.white and result.star_pile == 2
    assert result.points == 8 and result.paid == 24
    assert result.leader == 0  # all equal: the first laid


def test_colored_star_goes_to_the_top_colored_card_and_ties_to_the_first_laid() -> None:
    result = resolve_trick(trick_of("Kw", "2k", "Ks", "Ql"), colored_star=True)
    assert result.star and result.taker == 0 and result.leader == 0 and result.star_pile is None


def test_colored_white_star_scores_for_all_three_untripled_first_laid_leads() -> None:
    result = resolve_trick(trick_of("Kk", "3s", "3w", "3l"), colored_star=True)
    assert result.white and result.shared_by == (1, 2, 3)
    assert result.paid == result.points == 8 and result.leader == 1
    assert result.taker is None and result.star_pile is None


def test_must_follow_suit_and_may_play_anything_when_void() -> None:
    table = example_table_until(trick=7)  # seat 1 leads Cs; everyone holds a Shield
    refused(table, Command("play", 2, {"card": "Qs"}), "not_your_turn")
    play(table, 1, "Cs")
    refused(table, Command("play", 2, {"card": "7w"}), "must_follow_suit")
    refused(table, Command("play", 2, {"card": "Ks"}), "card_not_held")
    refused(table, Command("play", 2, {"card": "Xx"}), "bad_card")
    refused(table, Command("play", 2, {"card": 7}), "bad_card")
    assert GAME.view(table.state, 2)["legal"] == {"play": ["Qs"]}
    # seat 1, void in Skulls, may discard anything on a Skull lead: see tricks 1-7


def example_table_until(trick: int) -> Table[StarsState]:
    table = new_table(first_dealer=3)
    table.submit(Command("shuffle", None, {"order": order_for(EXAMPLE_HANDS, EXAMPLE_WIDOW, 3)}))
    bid(table, 0, 57)
    for seat in (1, 2, 3):
        pass_(table, seat)
    table.submit(Command("bury", 0, {"cards": ["4k", "3k", "2k"]}))
    for leader, cards in EXAMPLE_TRICKS[:trick]:
        for offset, card in enumerate(cards):
            play(table, (leader + offset) % 4, card)
    return table


def test_void_player_may_discard_any_card() -> None:
    table = example_table_until(trick=0)
    play(table, 0, "Qk")
    assert GAME.view(table.state, 1)["legal"]["play"] == DECK.codes(table.state.hands[1])


# --- scoring -------------------------------------------------------------------------------


def scripted_hand(tricks: list[tuple[int, list[str]]], hands: dict[int, list[str]],
                  widow: list[str], burial: list[str], bid_amount: int, colored: bool = False,
                  target: int = 200) -> Table[StarsState]:
    table = new_table(first_dealer=3, colored_star=colored, target=target)
    table.submit(Command("shuffle", None, {"order": order_for(hands, widow, 3)}))
    bid(table, 0, bid_amount)
    for seat in (1, 2, 3):
        pass_(table, seat)
    table.submit(Command("bury", 0, {"cards": burial}))
    for leader, cards in tricks:
        for offset, card in enumerate(cards):
            play(table, (leader + offset) % 4, card)
    return table


def test_contract_made_at_exactly_the_bid_adds_the_bid() -> None:
    table = scripted_hand(EXAMPLE_TRICKS, EXAMPLE_HANDS, EXAMPLE_WIDOW, ["4k", "3k", "2k"], 54)
    assert table.state.results[-1].made
    assert table.state.totals == (54 + 54, 16, 20, 10)


# A hand of Stars against the declarer's Skulls: a Star whose lead is settled by equal Kings,
# six White Stars (tripled under the standard rules) and a last plain Star.
WHITE_HANDS = {
    0: ["Kk", "Qk", "Sk", "Lk", "7k", "6k", "5k", "4k", "3k", "Ks"],
    1: ["2k", "3s", "Cs", "Qs", "Ss", "Ls", "7s", "6s", "5s", "4s"],
    2: ["3w", "Cw", "Kw", "Qw", "Sw", "Lw", "7w", "6w", "5w", "4w"],
    3: ["3l", "Cl", "Kl", "Ql", "Sl", "Ll", "7l", "6l", "5l", "4l"],
}
WHITE_WIDOW = ["2s", "2w", "2l"]
WHITE_TRICKS = [
    (0, ["Ks", "3s", "3w", "3l"]),  # seat 0 wins with the King of Shields: 8 points
    (0, ["Kk", "2k", "Cw", "Cl"]),  # seat 1 follows with its only Skull; seat 0 wins 6
    (0, ["Qk", "4s", "Kw", "Kl"]),  # a Star against seat 0, 15; equal Kings: seat 2 leads
    (2, ["Qw", "Ql", "Sk", "Qs"]),  # three Queens on a Skull: White Star, 15
    (2, ["Sw", "Sl", "Lk", "Ss"]),  # White Star, 11
    (2, ["Lw", "Ll", "7k", "Ls"]),  # White Star, 7
    (2, ["7w", "7l", "6k", "7s"]),  # White Star, 4
    (2, ["6w", "6l", "5k", "6s"]),  # White Star, 4
    (2, ["5w", "5l", "4k", "5s"]),  # White Star, 4
    (2, ["4w", "4l", "3k", "Cs"]),  # a plain Star, 3; the Champion of Shields is highest
]
WHITE_STAR_POINTS = 15 + 11 + 7 + 4 + 4 + 4


def test_white_stars_tripled_and_paid_to_every_other_player() -> None:
    table = scripted_hand(WHITE_TRICKS, WHITE_HANDS, WHITE_WIDOW, ["2s", "2w", "2l"], 30)
    state = table.state
    assert [result.white for _, result in state.tricks] == [False] * 3 + [True] * 6 + [False]
    pile = 15 + 3 * WHITE_STAR_POINTS + 3
    assert state.star_values == (pile, 0, 0, 0)
    assert [card_points(c) for c in state.won] == [14, 0, 0, 0]
    result = state.results[-1]
    assert result.points == (14 + 3, pile, pile, pile)
    assert not result.made and state.totals == (17 - 30, pile, pile, pile)
    assert result.stars_kept == (8, 0, 0, 0)


def test_hand_points_are_the_hand_scores_without_the_burial() -> None:
    """stars.md: the view's ``hand_points`` count what scoring counts (won cards, the other
    seats' Star piles, Colored-Star credits), all but the declarer's secret burial."""
    table = scripted_hand(WHITE_TRICKS, WHITE_HANDS, WHITE_WIDOW, ["2s", "2w", "2l"], 30)
    pile = 15 + 3 * WHITE_STAR_POINTS + 3
    for viewer in (None, 0, 1):
        assert GAME.view(table.state, viewer)["hand_points"] == [14, pile, pile, pile]
    assert GAME.view(table.state, None)["contracts"][-1]["points"] == [14 + 3, pile, pile, pile]


def test_hand_scores_count_the_burial_for_the_declarer_and_are_the_hand_scores_at_its_end(
) -> None:
    """The view's ``hand_scores``, which a table shows beside the totals: the declarer's own
    eyes see its burial counted as it will be, nobody else's do; once the hand is scored,
    everyone sees what each seat scored, as the contract's points say."""
    table = example_table_until(trick=7)
    state = table.state
    public = GAME.view(state, None)["hand_points"]
    burial = card_points(state.buried)
    assert GAME.view(state, 0)["hand_scores"] == [public[0] + burial, *public[1:]]
    for viewer in (None, 1, 2, 3):
        assert GAME.view(state, viewer)["hand_scores"] == public
    table = scripted_hand(WHITE_TRICKS, WHITE_HANDS, WHITE_WIDOW, ["2s", "2w", "2l"], 30)
    for viewer in (None, 0, 1):
        shown = GAME.view(table.state, viewer)
        assert shown["hand_scores"] == shown["contracts"][-1]["points"]
        assert shown["hand_scores"] != shown["hand_points"]  # the burial, now counted


def check_hand_points(state: StarsState) -> None:
    """``hand_points`` as stars.md gives them, from the view's own keys; at a hand's end they
    are its hand scores, less the burial for the declarer."""
    shown = GAME.view(state, None)
    piles = shown["star_pile_points"]
    assert shown["hand_points"] == [
        shown["won_points"][seat] + sum(piles) - piles[seat] + shown["shared_credit"][seat]
        for seat in range(4)]
    if state.results and state.results[-1].hand_number == state.hand_number:
        assert shown["hand_scores"] == shown["contracts"][-1]["points"]
    if state.phase in ("deal", "over") and state.results:
        burial = [card_points(state.buried) if seat == state.declarer else 0
                  for seat in range(4)]
        assert [points + buried for points, buried in zip(shown["hand_points"], burial,
                                                          strict=True)] == \
            shown["contracts"][-1]["points"]
    if state.phase == "play":
        declarer = state.declarer
        assert declarer is not None
        assert GAME.view(state, declarer)["my_hand_points"] == (
            shown["hand_points"][declarer] + card_points(state.buried))


def test_colored_white_stars_score_for_the_three_colored_players_untripled() -> None:
    table = scripted_hand(WHITE_TRICKS, WHITE_HANDS, WHITE_WIDOW, ["2s", "2w", "2l"], 30,
                          colored=True)
    state = table.state
    assert state.tricks[2][1].taker == 2  # equal Kings: the first laid takes it
    assert state.tricks[3][1].shared_by == (2, 3, 1) and state.tricks[3][1].leader == 2
    assert state.tricks[9][1].taker == 1
    shared = WHITE_STAR_POINTS
    assert state.shared_credit == (0, shared, shared, shared)
    assert state.results[-1].points == (17, shared + 3, 15 + shared, shared)
    assert state.star_piles == (0, 0, 0, 0)


# --- game end --------------------------------------------------------------------------------


def test_game_ends_after_the_hand_reaching_target_with_a_single_leader() -> None:
    table = scripted_hand(EXAMPLE_TRICKS, EXAMPLE_HANDS, EXAMPLE_WIDOW, ["4k", "3k", "2k"], 57,
                          target=20)
    outcome = table.outcome()
    assert outcome.over and outcome.winners == (2,) and table.state.phase == "over"
    assert GAME.chance(table.state) is None and GAME.to_act(table.state) == ()


def test_shared_highest_total_plays_another_hand() -> None:
    # totals after the White-Star hand: (-13, 153, 153, 153), a shared lead above the target
    table = scripted_hand(WHITE_TRICKS, WHITE_HANDS, WHITE_WIDOW, ["2s", "2w", "2l"], 30,
                          target=50)
    assert max(table.state.totals) >= 50
    assert not table.outcome().over and table.state.phase == "deal"
    assert table.state.hand_number == 1 and table.state.dealer == 0


# --- views ------------------------------------------------------------------------------------


def test_views_hide_hands_widow_and_burial() -> None:
    table = declared(seed=5)
    state = table.state
    widow = DECK.codes(state.widow)
    for viewer in (None, 0, 2, 3):
        view = GAME.view(state, viewer)
        text = repr({k: v for k, v in view.items() if k != "hand"})
        assert "widow" not in view and "buried" not in view
        assert all(code not in view.get("hand", []) for code in widow)
        assert view["widow_count"] == 0
        for other in range(4):
            if other != viewer:
                assert all(f"'{c}'" not in text for c in DECK.codes(state.hands[other]))
    assert GAME.view(state, None).get("hand") is None
    mine = GAME.view(state, 1)
    assert mine["widow"] == widow and mine["buried"] is None
    burial = mine["hand"][:3]
    table.submit(Command("bury", 1, {"cards": burial}))
    assert GAME.view(table.state, 1)["buried"] == burial
    for viewer in (None, 0, 2, 3):
        view = GAME.view(table.state, viewer)
        assert "buried" not in view and "my_hand_points" not in view


def test_view_keys_for_the_client() -> None:
    table = example_table_until(trick=7)
    view = GAME.view(table.state, 1)
    for key in ("game", "players", "phase", "hand_number", "dealer", "turn", "to_act",
                "hand_sizes", "trick", "tricks_played", "last_trick", "last_winner", "totals",
                "score_sheet", "seat", "hand", "legal", "bids", "declarer", "contract",
                "star_piles", "star_pile_points", "hand_points"):
        assert key in view
    assert view["contract"] == {"declarer": 0, "bid": 57}
    assert view["star_piles"][0] == ["Kk", "Ss", "Cw", "Ll"]
    assert view["star_pile_points"] == [10, 0, 0, 0]
    assert view["last_star"]["star_pile"] == 0 and view["last_winner"] == 1
    assert view["hand_points"] == [51, 10, 10, 10]  # seat 0's burial is not public
    assert view["bids"] == [[0, 57], [1, None], [2, None], [3, None]]


def event_views(table_events: list[tuple[StarsState, Event]], viewer: int | None) -> list[Any]:
    return [GAME.event_view(before, event, viewer) for before, event in table_events]


def recorded_events() -> list[tuple[StarsState, Event]]:
    state = GAME.new_state(4, GAME.make_options(4, {}))
    pairs = []
    commands = [Command("shuffle", None, {"order": seeded_order(DECK.code_of, 9), "seed": 9})]
    rng = random.Random(3)
    while True:
        command = commands.pop() if commands else GAME.random_action(
            state, GAME.to_act(state)[0], rng)
        for event in GAME.decide(state, command):
            pairs.append((state, event))
            state = GAME.evolve(state, event)
        if state.phase == "play":
            return pairs


def test_event_views_hide_the_order_seed_widow_and_burial() -> None:
    pairs = recorded_events()
    deal = pairs[0][1]
    declarer = pairs[-1][1].seat
    for viewer in (None, 0, 1, 2, 3):
        seen = event_views(pairs, viewer)
        assert "order" not in seen[0].data and "seed" not in seen[0].data
        assert seen[0].data["hand_sizes"] == [10, 10, 10, 10]
        if viewer is None:
            assert "hand" not in seen[0].data
        else:
            assert seen[0].data["hand"] == DECK.codes(GAME.evolve(pairs[0][0], deal).hands[viewer])
        last_bid = seen[-2]
        buried = seen[-1]
        if viewer == declarer:
            assert "widow" in last_bid.data and buried.data == pairs[-1][1].data
        else:
            assert "widow" not in last_bid.data and buried.data == {"count": 3}


# --- bad commands -----------------------------------------------------------------------------


def test_bad_commands_are_refused_and_change_nothing() -> None:
    table = new_table()
    refused(table, Command("bid", 1, {"amount": 30}), "wrong_phase")
    refused(table, Command("shuffle", 0, {"order": list(DECK.code_of)}), "not_allowed")
    refused(table, Command("shuffle", None, {"order": list(DECK.code_of)[:-1]}), "bad_shuffle")
    table.shuffle(4)
    refused(table, Command("shuffle", None, {"order": list(DECK.code_of)}), "wrong_phase")
    refused(table, Command("bid", 2, {"amount": 30}), "not_your_turn")
    refused(table, Command("bid", 9, {"amount": 30}), "bad_seat")
    refused(table, Command("bid", None, {"amount": 30}), "bad_seat")
    refused(table, Command("double", 1, {}), "unknown_command")
    refused(table, Command("bury", 1, {"cards": []}), "wrong_phase")
    refused(table, Command("play", 1, {"card": DECK.codes(table.state.hands[1])[0]}),
            "wrong_phase")


# --- playouts ---------------------------------------------------------------------------------


def check_invariants(state: StarsState) -> None:
    held = 0
    for part in (*state.hands, *state.won, *state.star_piles, state.buried, state.shared,
                 state.widow if not state.widow_taken else 0):
        assert not held & part, "a card is in two places"
        held |= part
    for _, card in state.trick:
        assert not held >> card & 1
        held |= 1 << card
    if state.hand_number:
        assert held == ALL, "cards are conserved"
    accounted = sum(card_points(c) for c in (*state.won, *state.star_piles, state.buried,
                                             state.shared))
    if state.phase in ("deal", "over") and state.hand_number:
        assert accounted == 80
        assert sum(map(sum, (r.changes for r in state.results))) == sum(state.totals)


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere in a view."""
    if isinstance(value, str):
        return {value} if value in DECK.by_code else set()
    if isinstance(value, dict):
        return set().union(*(card_codes(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(card_codes(v) for v in value)) if value else set()
    return set()


def check_views(state: StarsState) -> None:
    """Each view shows only public cards, the viewer's own hand, and the declarer's widow and
    burial to the declarer alone."""
    public = 0
    for cards in (*state.won, *state.star_piles, state.shared, *(trick_cards_of(t)
                                                                  for t, _ in state.tricks)):
        public |= cards
    for _, card in state.trick:
        public |= 1 << card
    for viewer in (None, 0, 1, 2, 3):
        allowed = public
        if viewer is not None:
            allowed |= state.hands[viewer]
            if viewer == state.declarer and state.widow_taken and state.phase in ("bury", "play"):
                allowed |= state.widow | state.buried
        seen = DECK.mask(card_codes(GAME.view(state, viewer)))
        assert not seen & ~allowed, f"seat {viewer} sees {DECK.codes(seen & ~allowed)}"


def trick_cards_of(trick: Any) -> int:
    mask = 0
    for _, card in trick:
        mask |= 1 << card
    return mask


def random_game(seed: int, colored: bool, bots: tuple[str, ...] = ("random",) * 4,
                target: int = 200) -> Table[StarsState]:
    table = new_table(colored_star=colored, target=target)
    rng = random.Random(seed)
    players = [make_bot(GAME, kind, random.Random(seed * 10 + i)) for i, kind in enumerate(bots)]
    steps = 0
    while not table.outcome().over:
        state = table.state
        check_invariants(state)
        if steps % 7 == 0:
            check_views(state)
            check_hand_points(state)
        if GAME.chance(state) is not None:
            table.shuffle(rng.randrange(2**32))
            continue
        seats = GAME.to_act(state)
        assert len(seats) == 1 and GAME.legal_actions(state, seats[0]), "someone can act"
        for other in range(4):
            if other != seats[0]:
                assert GAME.legal_actions(state, other) == []
        table.submit(ask(players[seats[0]], GAME, state, seats[0], table))
        steps += 1
        assert steps < 20000
    check_invariants(table.state)
    check_hand_points(table.state)
    return table


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), colored=st.booleans())
def test_random_playouts_keep_the_invariants(seed: int, colored: bool) -> None:
    table = random_game(seed, colored, target=100)
    outcome = table.outcome()
    assert outcome.winners and len(outcome.winners) == 1
    assert outcome.scores[outcome.winners[0]] >= 100


@pytest.mark.parametrize("colored", [False, True])
def test_heuristic_bot_playouts(colored: bool) -> None:
    table = random_game(7, colored, bots=("heuristic", "random", "heuristic", "random"))
    assert table.outcome().over


def test_random_action_is_always_legal_and_covers_pass_and_bids() -> None:
    table = dealt()
    rng = random.Random(0)
    seen = set()
    for _ in range(300):
        command = GAME.random_action(table.state, 1, rng)
        GAME.decide(table.state, command)
        seen.add(command.type)
    assert seen == {"bid", "pass"}
    table = declared()
    for _ in range(50):
        GAME.decide(table.state, GAME.random_action(table.state, 1, rng))


def test_registered_and_options_checked() -> None:
    assert get_game("stars") is GAME
    with pytest.raises(ValueError):
        GAME.make_options(3, {})
    with pytest.raises(ValueError):
        GAME.make_options(4, {"first_dealer": 4})
    assert GAME.make_options(4, {"colored_star": "true"})["colored_star"] is True


def test_tally_counts_contracts() -> None:
    table = example_table()
    tally = GAME.tally(table.state)
    assert tally["contracts bid"] == [1, 0, 0, 0]
    assert tally["contracts made"] == [0, 0, 0, 0]
    assert tally["stars kept"] == [1, 0, 0, 0]


# --- the heuristic bot -------------------------------------------------------------------------


def heuristic() -> Any:
    return make_bot(GAME, "heuristic", random.Random(0))


def test_heuristic_bot_decides_from_the_view_alone() -> None:
    table = dealt(seed=11)
    bot = heuristic()
    while table.state.phase != "over" and table.state.hand_number < 2:
        state = table.state
        if GAME.chance(state) is not None:
            table.shuffle(12)
            continue
        seat = GAME.to_act(state)[0]
        table.submit(ask(bot, GAME, state, seat, table))


def test_heuristic_bot_bids_strong_hands_and_passes_weak_ones() -> None:
    strong = ["Kk", "Qk", "Sk", "Lk", "7k", "6k", "Cs", "Ks", "Cw", "Cl"]
    weak = ["2s", "3s", "4s", "2w", "3w", "4w", "2l", "3l", "4l", "5l"]
    others = [c for c in DECK.code_of if c not in strong + weak]
    hands = {1: strong, 2: weak, 3: others[:10], 0: others[10:20]}
    table = new_table()
    table.submit(Command("shuffle", None, {"order": order_for(hands, others[20:], dealer=0)}))
    bot = heuristic()
    command = ask(bot, GAME, table.state, 1, table)
    assert command.type == "bid" and command.data["amount"] >= 30
    table.submit(command)
    assert ask(bot, GAME, table.state, 2, table).type == "pass"


def test_heuristic_bot_buries_points_it_would_lose_and_keeps_winners() -> None:
    table = declared(seed=3)
    command = ask(heuristic(), GAME, table.state, 1, table)
    assert command.type == "bury"
    buried = DECK.mask(command.data["cards"])
    assert not buried & DECK.mask(["Kk", "Cs", "Cw", "Cl"])
    table.submit(command)


def test_heuristic_defender_completes_a_star_against_the_declarers_skull() -> None:
    table = example_table_until(trick=6)
    play(table, 0, "Kk")
    play(table, 1, "Cw")
    play(table, 2, "Ss")
    # seat 3 holds Ll (a Leaf makes the Star: the declarer keeps 10 points for the others)
    assert ask(heuristic(), GAME, table.state, 3, table).data["card"] in ("Ll",)


def test_heuristic_declarer_keeps_its_skull_out_of_a_star() -> None:
    # The declarer (seat 0), void in Shields, plays last to a Shield, a Wand and a Leaf: a
    # Skull would make a Star against itself, so it throws a low Wand instead.
    hands = {
        0: ["Kk", "Qk", "Sk", "Lk", "7k", "6k", "5k", "2w", "3w", "4w"],
        1: ["Cs", "Ks", "Qs", "Ss", "Ls", "7s", "6s", "5s", "4k", "3k"],
        2: ["Cw", "Kw", "Qw", "Sw", "Lw", "7w", "6w", "5w", "2k", "Cl"],
        3: ["Kl", "Ql", "Sl", "Ll", "7l", "6l", "5l", "4l", "3l", "2l"],
    }
    table = new_table(first_dealer=3)
    table.submit(Command("shuffle", None, {"order": order_for(hands, ["2s", "3s", "4s"], 3)}))
    bid(table, 0, 30)
    for seat in (1, 2, 3):
        pass_(table, seat)
    table.submit(Command("bury", 0, {"cards": ["2s", "3s", "4s"]}))
    for seat, card in ((0, "2w"), (1, "3k"), (2, "5w"), (3, "2l")):
        play(table, seat, card)
    for seat, card in ((1, "Qs"), (2, "Cw"), (3, "Kl")):
        play(table, seat, card)
    assert table.state.turn == 0 and "Kk" in GAME.view(table.state, 0)["legal"]["play"]
    assert ask(heuristic(), GAME, table.state, 0, table).data["card"] == "3w"
