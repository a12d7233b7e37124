"""Every rule of Stardeck Hearts as the project rules it, played through real events."""

from __future__ import annotations

import random
from typing import Any

import pytest
from support import HEARTS, dealt_table, fill_hands, play, play_randomly

from starhall.shared.bots import RandomBot
from starhall.shared.engine import Command, IllegalCommand, OptionError
from starhall.shared.games.hearts.rules import CLASSIC, STARDECK, legal_cards, pass_offsets
from starhall.shared.table import Table
from starhall.shared.tricks import trick_winner
from tests.support import ask

NO_PASS = {"pass_cards": 0}
SUITS = "CDHS*"


def suit(letter: str, ranks: str = "2345678910JQKA") -> list[str]:
    names = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    wanted = [n for n in names if n in ranks.split()] if " " in ranks else names
    return [f"{n}{letter}" for n in wanted]


def cards_of(players: int, options: dict[str, object]) -> list[str]:
    state = HEARTS.new_state(players, HEARTS.make_options(players, options))
    request = HEARTS.chance(state)
    assert request is not None
    return list(request.items)


# --- the deck and the deal ------------------------------------------------------------


def test_the_stardeck_has_65_cards_in_five_suits_and_the_classic_deck_52() -> None:
    assert len(cards_of(4, {})) == 65
    assert STARDECK.suits == ("C", "D", "H", "S", "*")
    assert len(cards_of(4, {"deck": "classic"})) == 52
    assert CLASSIC.suits == ("C", "D", "H", "S")
    assert STARDECK.card("A*").rank > STARDECK.card("K*").rank > STARDECK.card("2*").rank


@pytest.mark.parametrize(("players", "size", "undealt"), [(3, 21, 2), (4, 16, 1), (5, 13, 0),
                                                           (6, 10, 5)])
def test_deal_sizes_follow_the_seed(players: int, size: int, undealt: int) -> None:
    table = Table.new(HEARTS, players, {"mode": "blind_trick"})
    table.shuffle(1)
    assert [h.bit_count() for h in table.state.hands] == [size] * players
    assert table.state.undealt.bit_count() == undealt


@pytest.mark.parametrize(("players", "removed"), [(3, {"2C", "2D"}), (4, {"2C"}), (5, set()),
                                                  (6, {"2C", "2D", "2H", "2S", "2*"})])
def test_no_exchange_removes_the_seeds_cards(players: int, removed: set[str]) -> None:
    assert set(cards_of(players, {})) - set(cards_of(players, {"mode": "no_exchange"})) == removed


def test_six_player_no_exchange_makes_the_ace_of_hearts_worth_two() -> None:
    rules = HEARTS.new_state(6, HEARTS.make_options(6, {"mode": "no_exchange"})).rules
    points = {STARDECK.code_of[i]: p for i, p in enumerate(rules.points) if p}
    assert points["AH"] == 2 and points["QS"] == 13
    in_play = cards_of(6, {"mode": "no_exchange"})
    assert sum(points[code] for code in in_play if code in points) == 26


def test_anti_trump_adds_a_joker_for_three_or_six_players_only() -> None:
    assert "JK" in cards_of(3, {"mode": "anti_trump"})
    assert len(cards_of(6, {"mode": "anti_trump"})) == 66
    with pytest.raises(OptionError, match="3 or 6"):
        HEARTS.make_options(4, {"mode": "anti_trump"})


def test_classic_is_for_four_players_and_options_are_checked() -> None:
    with pytest.raises(OptionError, match="exactly 4"):
        HEARTS.make_options(5, {"deck": "classic"})
    with pytest.raises(OptionError, match="unknown option"):
        HEARTS.make_options(4, {"colour": "red"})
    with pytest.raises(OptionError, match="one of"):
        HEARTS.make_options(4, {"mode": "blind"})
    with pytest.raises(OptionError, match="whole number"):
        HEARTS.make_options(4, {"target": "lots"})
    with pytest.raises(OptionError, match="3 to 6 players"):
        HEARTS.make_options(7, {})
    assert HEARTS.make_options(4, {"qs_breaks_hearts": "true", "target": "50"})["target"] == 50


# --- passing --------------------------------------------------------------------------


def test_pass_directions_cycle_by_hand() -> None:
    assert pass_offsets(4) == (1, 3, 2, 0)  # left, right, across, hold
    assert pass_offsets(3) == (1, 2, 0)  # left, right, hold
    assert pass_offsets(5) == (1, 4, 2, 3, 0)
    assert pass_offsets(6) == (1, 5, 2, 4, 3, 0)


def test_passes_are_simultaneous_and_delivered_to_the_left() -> None:
    options = {"mode": "no_exchange", "deck": "classic"}
    table = Table.new(HEARTS, 4, options)
    table.shuffle(7)
    before = table.state.hands
    chosen = {}
    for seat in (2, 0, 3, 1):  # any order: passing is simultaneous
        cards = CLASSIC.codes(before[seat])[:3]
        chosen[seat] = CLASSIC.mask(cards)
        table.submit(Command("pass", seat, {"cards": cards}))
    hands = table.state.hands
    for seat in range(4):
        assert hands[(seat + 1) % 4] & chosen[seat] == chosen[seat]
        assert not hands[seat] & chosen[seat]
    assert table.state.phase == "play"


def test_a_seat_cannot_pass_twice_or_pass_cards_it_lacks() -> None:
    table = Table.new(HEARTS, 4, {"deck": "classic"})
    table.shuffle(3)
    hand = CLASSIC.codes(table.state.hands[0])
    other = CLASSIC.codes(table.state.hands[1])
    with pytest.raises(IllegalCommand) as refused:
        table.submit(Command("pass", 0, {"cards": [hand[0], hand[1], other[0]]}))
    assert refused.value.code == "card_not_held"
    with pytest.raises(IllegalCommand):
        table.submit(Command("pass", 0, {"cards": hand[:2]}))
    table.submit(Command("pass", 0, {"cards": hand[:3]}))
    with pytest.raises(IllegalCommand) as again:
        table.submit(Command("pass", 0, {"cards": hand[3:6]}))
    assert again.value.code == "already_passed"


# --- the exchange ---------------------------------------------------------------------


def exchange_table(fixed: dict[int, list[str]], undealt: list[str]) -> Table[object]:
    cards = cards_of(6, {})
    hands = fill_hands(cards, fixed, 6, 10, undealt)
    return dealt_table(6, {"pass_cards": 0}, hands, undealt)


def test_the_exchange_starts_with_the_dealer_and_passes_left() -> None:
    table = exchange_table({}, ["2H", "3H", "4H", "5H", "6H"])
    assert table.state.phase == "exchange" and table.state.turn == 0
    table.submit(Command("decline_exchange", 0))
    assert table.state.turn == 1
    hand = STARDECK.codes(table.state.hands[1])
    discard = [c for c in hand if not c.endswith("H") and c != "QS"][:5]
    table.submit(Command("take_exchange", 1, {"cards": discard}))
    state = table.state
    assert {"2H", "3H", "4H", "5H", "6H"} <= set(STARDECK.codes(state.hands[1]))
    assert set(discard) <= set(STARDECK.codes(state.out_of_play))
    assert state.hands[1].bit_count() == 10 and state.undealt == 0
    assert state.phase == "play"


def test_only_non_point_cards_may_be_discarded() -> None:
    table = exchange_table({0: ["QS", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C"]},
                           ["2D", "3D", "4D", "5D", "6D"])
    with pytest.raises(IllegalCommand) as refused:
        table.submit(Command("take_exchange", 0, {"cards": ["QS", "2C", "3C", "4C", "5C"]}))
    assert refused.value.code == "point_card_discard"


def test_when_everyone_declines_the_dealer_must_take() -> None:
    table = exchange_table({}, ["2D", "3D", "4D", "5D", "6D"])
    for seat in range(6):
        table.submit(Command("decline_exchange", seat))
    assert table.state.turn == 0
    with pytest.raises(IllegalCommand) as refused:
        table.submit(Command("decline_exchange", 0))
    assert refused.value.code == "must_exchange"
    actions = HEARTS.legal_actions(table.state, 0)
    assert actions and {command.type for command in actions} == {"take_exchange"}


def test_a_forced_dealer_who_cannot_take_passes_the_duty_left() -> None:
    weak = ["QS", "AH", "KH", "QH", "JH", "10H", "9H", "2C", "3C", "4C"]  # 3 non-point cards
    table = exchange_table({0: weak}, ["2D", "3D", "4D", "5D", "6D"])
    assert [c.type for c in HEARTS.legal_actions(table.state, 0)] == ["decline_exchange"]
    for seat in range(6):
        table.submit(Command("decline_exchange", seat))
    assert table.state.turn == 1 and table.state.phase == "exchange"


# --- the lead and the first trick -----------------------------------------------------


def test_the_lowest_club_in_play_leads_the_first_trick() -> None:
    cards = cards_of(4, {"mode": "blind_trick"})
    hands = fill_hands(cards, {2: suit("C")[1:13] + ["2D", "3D", "4D", "5D"]}, 4, 16, ["2C"])
    table = dealt_table(4, {"mode": "blind_trick", **NO_PASS}, hands, ["2C"])
    assert table.state.turn == 2  # the 2 is undealt, so the 3 of Clubs leads
    assert STARDECK.codes(legal_cards(table.state, 2)) == ["3C"]
    with pytest.raises(IllegalCommand) as refused:
        play(table, 2, "4C")
    assert refused.value.code == "must_lead_lowest_club"


def first_trick_table(void_hand: list[str]) -> Table[object]:
    """Seat 0 leads 2C; seat 1 holds ``void_hand`` (no clubs)."""
    cards = cards_of(5, {})
    fixed = {0: ["2C"] + suit("D")[:12], 1: void_hand}
    return dealt_table(5, NO_PASS, fill_hands(cards, fixed, 5, 13))


def test_no_heart_or_queen_of_spades_on_the_first_trick() -> None:
    table = first_trick_table(["QS", "AH", "KH", "2*", "3*", "4*", "5*", "6*", "7*", "8*",
                               "9*", "10*", "J*"])
    play(table, 0, "2C")
    assert not {"QS", "AH", "KH"} & set(STARDECK.codes(legal_cards(table.state, 1)))
    with pytest.raises(IllegalCommand) as refused:
        play(table, 1, "QS")
    assert refused.value.code == "no_points_first_trick"


def test_points_may_go_on_the_first_trick_from_a_hand_of_nothing_else() -> None:
    table = first_trick_table(["QS"] + suit("H")[:12])
    play(table, 0, "2C")
    assert "QS" in STARDECK.codes(legal_cards(table.state, 1))
    play(table, 1, "QS")


# --- following, breaking hearts, trumps -----------------------------------------------


def test_must_follow_suit_and_stars_are_trump() -> None:
    cards = cards_of(5, {})
    fixed = {0: ["2C", "3C"] + suit("D")[:11], 1: ["AC"] + suit("*")[:12],
             2: ["4C"] + suit("S")[:12]}
    table = dealt_table(5, NO_PASS, fill_hands(cards, fixed, 5, 13))
    play(table, 0, "2C")
    with pytest.raises(IllegalCommand) as refused:
        play(table, 1, "2*")
    assert refused.value.code == "must_follow_suit"
    play(table, 1, "AC")
    play(table, 2, "4C")
    play(table, 3, HEARTS.legal_actions(table.state, 3)[0].data["card"])
    play(table, 4, HEARTS.legal_actions(table.state, 4)[0].data["card"])
    assert table.state.last_winner == 1  # the Ace of Clubs
    play(table, 1, "2*")  # Stars may be led like any other suit
    assert table.state.trick == ((1, STARDECK.index("2*")),)


def test_a_star_takes_the_trick_when_void_and_the_highest_star_wins() -> None:
    cards = cards_of(5, {})
    fixed = {0: ["2C"] + suit("D")[:12], 1: ["3*"] + suit("S")[:12],
             2: ["9*"] + suit("H")[:12]}
    hands = fill_hands(cards, fixed, 5, 13)
    table = dealt_table(5, NO_PASS, hands)
    play(table, 0, "2C")
    play(table, 1, "3*")
    play(table, 2, "9*")
    for seat in (3, 4):
        play(table, seat, STARDECK.codes(legal_cards(table.state, seat))[0])
    assert table.state.last_winner == 2


def rank_range(letter: str, first: str, last: str) -> list[str]:
    cards = suit(letter)
    return cards[cards.index(first + letter): cards.index(last + letter) + 1]


# Five explicit hands: seat 1 wins the first trick with the Ace of Clubs.
LAYOUT = [
    ["2C", *rank_range("H", "2", "7"), *rank_range("D", "2", "7")],
    ["AC", *rank_range("H", "8", "K"), *rank_range("S", "2", "7")],
    [*rank_range("C", "3", "Q"), "8D", "A*", "AH"],
    [*rank_range("D", "9", "A"), *rank_range("S", "8", "A")],
    [*rank_range("*", "2", "K"), "KC"],
]
ONLY_HEARTS = [
    ["2C", *rank_range("D", "2", "K")],
    ["AC", *rank_range("H", "2", "K")],
    [*rank_range("C", "3", "Q"), "AD", "AH", "A*"],
    suit("S"),
    [*rank_range("*", "2", "K"), "KC"],
]


def after_first_trick(hands: list[list[str]], qs_breaks: bool = False) -> Table[object]:
    table = dealt_table(5, {**NO_PASS, "qs_breaks_hearts": qs_breaks}, hands)
    for seat, card in ((0, "2C"), (1, "AC"), (2, "3C"), (3, hands[3][0]), (4, "KC")):
        play(table, seat, card)
    assert table.state.last_winner == 1 and table.state.turn == 1
    return table


def test_hearts_cannot_be_led_until_broken() -> None:
    table = after_first_trick(LAYOUT)
    assert STARDECK.codes(legal_cards(table.state, 1)) == rank_range("S", "2", "7")
    with pytest.raises(IllegalCommand) as refused:
        play(table, 1, "8H")
    assert refused.value.code == "hearts_not_broken"


def test_a_leader_with_only_hearts_may_lead_them() -> None:
    table = after_first_trick(ONLY_HEARTS)
    assert STARDECK.codes(legal_cards(table.state, 1)) == rank_range("H", "2", "K")
    play(table, 1, "2H")


@pytest.mark.parametrize("qs_breaks", [False, True])
def test_the_queen_of_spades_breaks_hearts_only_with_the_option(qs_breaks: bool) -> None:
    table = after_first_trick(LAYOUT, qs_breaks)
    for seat, card in ((1, "2S"), (2, "8D"), (3, "QS"), (4, "2*"), (0, "2D")):
        play(table, seat, card)
    assert table.state.hearts_broken is qs_breaks
    assert table.state.last_winner == 4  # the only Star takes the trick
    assert table.state.turn == 4


def test_a_heart_played_breaks_hearts() -> None:
    table = after_first_trick(LAYOUT)
    for seat, card in ((1, "2S"), (2, "AH"), (3, "8S"), (4, "2*"), (0, "2D")):
        play(table, seat, card)
    assert table.state.hearts_broken


# --- scoring, the moon and the end of the game ----------------------------------------


def hand_scores(options: dict[str, object], players: int, seed: int) -> tuple[int, ...]:
    import random

    from support import play_randomly
    table = Table.new(HEARTS, players, options)
    play_randomly(table, random.Random(seed), until=lambda s: s.hand_number == 1
                  and s.phase in ("deal", "over"))
    return table.state.score_sheet[0]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("mode", ["exchange", "no_exchange", "blind_trick"])
def test_every_hand_deals_out_26_points(players: int, mode: str) -> None:
    for seed in range(5):
        scores = hand_scores({"mode": mode}, players, seed)
        assert sum(scores) in (26, 26 * (players - 1))


def test_shooting_the_moon_scores_zero_and_26_to_everyone_else() -> None:
    cards = cards_of(5, {})
    # Seat 0 holds every point card and the top of every other suit, so it takes every trick.
    hearts = suit("H")
    seat0 = ["2C"] + hearts[:12]
    seat1 = ["AH", "QS"] + suit("*")[-11:]
    table = dealt_table(5, NO_PASS, fill_hands(cards, {0: seat0, 1: seat1}, 5, 13))
    state = table.state
    # Play every trick with seat 1 dumping its points to seat 0 is not forced by the rules;
    # instead fold the hand end directly: seat 0 took every point card.
    won = list(state.won)
    won[0] = state.rules.point_cards
    from starhall.shared.games.hearts.rules import finish_hand

    finished = finish_hand(state.replace(won=tuple(won), hands=(0,) * 5))
    assert finished.score_sheet[-1] == (0, 26, 26, 26, 26)
    assert finished.moon == 0
    # The view's hand scores, which a table shows beside the totals, are the hand's scores
    # once it is scored, not the points taken (26 for the shooter).
    for viewer in (None, 0, 1):
        shown = HEARTS.view(finished, viewer)
        assert shown["taken_points"] == [26, 0, 0, 0, 0]
        assert shown["hand_scores"] == [0, 26, 26, 26, 26]


def test_hand_scores_are_the_points_taken_until_the_hand_is_scored() -> None:
    table = Table.new(HEARTS, 4, {"target": 60})
    play_randomly(table, random.Random(3), until=lambda state: state.tricks_played == 5)
    for viewer in (None, 2):
        shown = HEARTS.view(table.state, viewer)
        assert shown["hand_scores"] == shown["taken_points"]
        assert shown["target"] == 60
    play_randomly(table, random.Random(4), until=lambda state: len(state.score_sheet) == 1)
    assert HEARTS.view(table.state, 3)["hand_scores"] == list(table.state.score_sheet[-1])


def test_the_game_ends_when_a_total_reaches_the_target_and_lowest_wins() -> None:
    import random

    from support import play_randomly
    table = Table.new(HEARTS, 4, {"target": 30})
    play_randomly(table, random.Random(5))
    outcome = table.outcome()
    assert outcome.over and max(outcome.scores) >= 30
    assert outcome.winners is not None and len(outcome.winners) == 1
    assert outcome.scores[outcome.winners[0]] == min(outcome.scores)
    with pytest.raises(IllegalCommand) as refused:
        table.submit(Command("play", 0, {"card": "2C"}))
    assert refused.value.code == "wrong_phase"


def test_a_shared_lowest_total_plays_another_hand() -> None:
    state = HEARTS.new_state(4, HEARTS.make_options(4, {"target": 10}))
    from starhall.shared.games.hearts.rules import finish_hand

    tied = finish_hand(state.replace(totals=(0, 0, 20, 0), hand_number=1,
                                     won=(0, 0, 0, 0)))
    assert tied.phase == "deal"
    won = (0, STARDECK.mask(["2H"]), 0, STARDECK.mask(["3H"]))
    decided = finish_hand(state.replace(totals=(0, 0, 20, 0), hand_number=1, won=won))
    assert decided.phase == "over" and decided.totals == (0, 1, 20, 1)
    assert HEARTS.outcome(decided).winners == (0,)


# --- variations -----------------------------------------------------------------------


def test_blind_trick_gives_the_undealt_cards_to_the_first_tricks_winner() -> None:
    cards = cards_of(4, {"mode": "blind_trick"})
    undealt = ["QS"]
    fixed = {0: ["2C", *suit("D"), "2*", "3*"], 1: ["AC", *suit("H"), "2S", "3S"]}
    table = dealt_table(4, {"mode": "blind_trick", **NO_PASS},
                        fill_hands(cards, fixed, 4, 16, undealt), undealt)
    play(table, 0, "2C")
    play(table, 1, "AC")
    for seat in (2, 3):
        play(table, seat, STARDECK.codes(legal_cards(table.state, seat))[0])
    assert table.state.last_winner == 1
    assert "QS" in STARDECK.codes(table.state.won[1])


@pytest.mark.parametrize(("players", "options", "apart"), [
    (4, {}, ["JK"]), (3, {}, ["JK"]), (6, {"mode": "blind_trick"}, ["JK"]), (5, {}, ["JK"]),
    (4, {"mode": "no_exchange"}, ["2C", "JK"]),
    (6, {"mode": "no_exchange"}, ["2C", "2D", "2H", "2S", "2*", "JK"]),
    (3, {"mode": "anti_trump"}, []), (6, {"mode": "anti_trump"}, []),
    (4, {"deck": "classic"}, []),
])
def test_out_of_play_holds_the_cards_of_the_deck_order_that_take_no_part(
        players: int, options: dict[str, Any], apart: list[str]) -> None:
    """What hearts.md says of the snapshot's ``out_of_play``: the Joker outside anti_trump,
    the cards no_exchange takes out, then the exchange's discards; with the hands, the trick,
    the cards taken and the undealt cards, every card of the deck order once, at every step."""
    deck = CLASSIC if options.get("deck") == "classic" else STARDECK
    table = Table.new(HEARTS, players, options)
    table.shuffle(players)
    bot = RandomBot(random.Random(players))
    discarded: list[str] = []
    while HEARTS.chance(table.state) is None:
        snapshot = HEARTS.snapshot(table.state)
        assert snapshot["out_of_play"] == deck.codes(deck.mask([*apart, *discarded]))
        places = [*snapshot["hands"], [code for _, code in snapshot["trick"]],
                  *snapshot["taken"], snapshot["undealt"], snapshot["out_of_play"]]
        everywhere = [code for place in places for code in place]
        assert sorted(everywhere) == sorted(deck.codes(deck.full))  # each card once
        seat = HEARTS.to_act(table.state)[0]
        for _, event in table.submit(ask(bot, HEARTS, table.state, seat, table)):
            if event.type == "exchange_taken":
                discarded = event.data["cards"]
    assert table.state.hand_number == 1 and not table.state.hands[0]
    rules = table.state.rules
    assert bool(discarded) == (rules.exchange and rules.undealt_count > 0)


def joker_table(joker_holder_cards: list[str]) -> Table[object]:
    cards = cards_of(3, {"mode": "anti_trump"})
    fixed = {0: ["2C"] + suit("D")[:13] + suit("S")[:8], 1: joker_holder_cards}
    return dealt_table(3, {"mode": "anti_trump", **NO_PASS}, fill_hands(cards, fixed, 3, 22))


def test_the_joker_is_played_only_when_void_and_never_wins() -> None:
    table = joker_table(["JK", "3C"] + suit("*")[:13] + suit("H")[:7])
    play(table, 0, "2C")
    with pytest.raises(IllegalCommand) as refused:
        play(table, 1, "JK")
    assert refused.value.code == "must_follow_suit"
    index = STARDECK.index
    trick = ((0, index("2D")), (1, index("JK")), (2, index("3D")))
    assert trick_winner(trick, STARDECK, "*") == 2
    assert trick_winner(((1, index("JK")), (2, index("2D")), (0, index("3D"))), STARDECK,
                        "*") == 0


def test_the_joker_is_led_only_from_a_hand_of_nothing_else() -> None:
    state = joker_table(["JK", "3C"] + suit("*")[:13] + suit("H")[:7]).state
    hands = list(state.hands)
    hands[1] = STARDECK.mask(["JK", "5H"])
    leading = state.replace(turn=1, tricks_played=5, hands=tuple(hands), hearts_broken=True)
    assert STARDECK.codes(legal_cards(leading, 1)) == ["5H"]
    hands[1] = STARDECK.mask(["JK"])
    assert STARDECK.codes(legal_cards(leading.replace(hands=tuple(hands)), 1)) == ["JK"]


def test_a_led_joker_lets_the_next_card_set_the_suit() -> None:
    from starhall.shared.games.hearts.rules import Hearts

    state = joker_table(["JK", "3C"] + suit("*")[:13] + suit("H")[:7]).state
    joker, ace = STARDECK.index("JK"), STARDECK.index("A*")
    two_d = STARDECK.index("2D")
    trick = ((1, joker),)
    hands = list(state.hands)
    hands[2] = STARDECK.mask(["A*", "2D"])
    later = state.replace(trick=trick, turn=2, tricks_played=3, hands=tuple(hands),
                          hearts_broken=False)
    assert legal_cards(later, 2) == (1 << ace) | (1 << two_d)  # any card that could be led
    after = Hearts._evolve_play(later, HEARTS.decide(later, Command("play", 2, {"card": "2D"}))[0])
    assert after.trick[-1] == (2, two_d)


def test_classic_hearts_has_no_trump() -> None:
    table = Table.new(HEARTS, 4, {"deck": "classic"})
    assert table.state.rules.trump is None
    assert len(HEARTS.chance(table.state).items) == 52  # type: ignore[union-attr]
