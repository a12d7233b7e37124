"""A card game – what else? (what_else): the cards and star tables, every fit case, must-play
and voluntary passing, each way a round ends, the token, the winner's draw and the refill
order, public discards, the reshuffle in the middle of a draw, the end at three tokens,
refusals that change nothing, secret hands and draw pile, and random playouts whose logs
rebuild strictly."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starhall.shared.bots import make_bot
from starhall.shared.engine import Command, Event, IllegalCommand
from starhall.shared.games import get_game
from starhall.shared.games.what_else.bots import HeuristicBot, miss_chance
from starhall.shared.games.what_else.rules import (
    COLOUR_NAMES,
    COLOURS,
    GAME,
    HAND_SIZE,
    STAR_TABLES,
    SUPPLY,
    WhatElseState,
    card_face,
    card_name,
    cards_for,
)
from starhall.shared.replay import Verified, load, verify
from starhall.shared.table import Table
from tests.server_helpers import strings
from tests.support import ask

DECK = cards_for("standard").deck
ALL = DECK.code_of

# The default (standard) table, for reading the tests: red 1 14 25 33 44 46, yellow 3 7 21 24
# 34 45, green 6 11 22 23 48 50, blue 9 15 18 31 38 43, violet 4 16 27 30 41 49; the other
# twenty numbers (2 5 8 10 12 13 17 19 20 26 28 29 32 35 36 37 39 40 42 47) show no star.


def deal_order(hands: Sequence[Sequence[str]], draw: Sequence[str] = (), opener: int = 0,
               table: str = "standard") -> list[str]:
    """The shuffled order that deals exactly these hands (one card at a time clockwise from
    the opener) and puts ``draw`` on top of the draw pile; the other cards follow in deck
    order."""
    players = len(hands)
    order = [hands[(opener + position) % players][position // players]
             for position in range(HAND_SIZE * players)]
    chosen = order + list(draw)
    assert len(set(chosen)) == len(chosen)
    return chosen + [code for code in cards_for(table).deck.code_of if code not in chosen]


def table_for(hands: Sequence[Sequence[str]], draw: Sequence[str] = (), **options: Any
              ) -> Table[WhatElseState]:
    table = Table.new(GAME, len(hands), options)
    order = deal_order(hands, draw, options.get("opener", 0))
    table.submit(Command("shuffle", None, {"order": order}))
    return table


def play(table: Table[WhatElseState], seat: int, card: str) -> None:
    table.submit(Command("play", seat, {"card": card}))


def pass_(table: Table[WhatElseState], *seats: int) -> None:
    for seat in seats:
        table.submit(Command("pass", seat, {}))


def refill(table: Table[WhatElseState], seat: int, discard: Sequence[str] = ()) -> None:
    table.submit(Command("refill", seat, {"discard": list(discard)}))


def refusal(table: Table[WhatElseState], command: Command) -> IllegalCommand:
    """The refusal of a command, checking that it changed nothing."""
    before, seq = table.state, table.seq
    snapshot = GAME.snapshot(before)
    with pytest.raises(IllegalCommand) as caught:
        table.submit(command)
    assert table.state is before and table.seq == seq
    assert GAME.snapshot(table.state) == snapshot
    return caught.value


def view(table: Table[WhatElseState], viewer: int | None = 0) -> dict[str, Any]:
    return GAME.view(table.state, viewer)


# Seat 0's 50 green, 49 violet and 47 cannot be followed from these two hands.
KILLERS = ["50g", "49v", "47", "28", "29"]
LOW_ONE = ["2", "5", "8", "10", "12"]
LOW_TWO = ["13", "17", "19", "20", "26"]
# Seat 0 opens 36; seats 1 and 3 cannot follow; seat 2 lays 37; seat 0 cannot follow that.
FOUR = [["36", "2", "5", "8", "10"], ["3y", "12", "13", "17", "19"],
        ["37", "20", "26", "28", "29"], ["32", "35", "9b", "15b", "18b"]]


def four_player_round(draw: Sequence[str] = ()) -> Table[WhatElseState]:
    """Seat 2 wins round 1 of FOUR: 36, pass, 37, pass, pass."""
    table = table_for(FOUR, draw)
    play(table, 0, "36")
    pass_(table, 1)
    play(table, 2, "37")
    pass_(table, 3, 0)
    return table


# --- cards ---------------------------------------------------------------------------------

@pytest.mark.parametrize("table", sorted(STAR_TABLES))
def test_55_cards_30_with_one_star_six_of_each_colour_and_5_jokers(table: str) -> None:
    cards = cards_for(table)
    assert len(cards.deck) == 55
    faces = [card_face(code) for code in cards.deck.code_of]
    assert [number for number, _ in faces[:50]] == list(range(1, 51))
    assert faces[50:] == [(None, "rygbv")] * 5
    assert cards.deck.code_of[50:] == ("J1", "J2", "J3", "J4", "J5")
    starred = [colours for number, colours in faces if number is not None and colours]
    assert len(starred) == 30 and all(len(colours) == 1 for colours in starred)
    for colour in COLOURS:
        assert starred.count(colour) == 6
        assert STAR_TABLES[table][colour] == tuple(
            number for number, colours in faces if colours == colour)


def test_the_standard_table_and_the_spread_table() -> None:
    assert STAR_TABLES["standard"]["r"] == (1, 14, 25, 33, 44, 46)
    assert STAR_TABLES["standard"]["v"] == (4, 16, 27, 30, 41, 49)
    spread = cards_for("spread").deck.code_of
    assert spread[:10] == ("1r", "2y", "3g", "4", "5", "6b", "7v", "8r", "9", "10")
    assert spread[45:50] == ("46g", "47b", "48v", "49", "50")


def test_card_faces_and_names() -> None:
    assert card_face("14r") == (14, "r")
    assert card_face("2") == (2, "")
    assert card_face("J3") == (None, "rygbv")
    assert COLOUR_NAMES == {"r": "red", "y": "yellow", "g": "green", "b": "blue",
                            "v": "violet"}
    assert (card_name("14r"), card_name("7"), card_name("J1")) == ("14 red", "7", "star joker")
    for bad in ("51", "0", "J6", "14x", "", "r", "J"):
        with pytest.raises(ValueError):
            card_face(bad)


def test_options_players_and_registry() -> None:
    assert get_game("what_else") is GAME
    assert GAME.make_options(3, {}) == {"star_table": "standard", "voluntary_pass": False,
                                        "opener": 0}
    for players in (2, 7):
        with pytest.raises(ValueError):
            GAME.make_options(players, {})
    with pytest.raises(ValueError):
        GAME.make_options(3, {"opener": 3})
    with pytest.raises(ValueError):
        GAME.make_options(3, {"star_table": "mine"})
    assert GAME.make_options(6, {"opener": "5", "voluntary_pass": "yes"})["opener"] == 5


# --- the deal ------------------------------------------------------------------------------

def test_the_deal_goes_one_card_at_a_time_clockwise_from_the_opener() -> None:
    table = Table.new(GAME, 4, {"opener": 2})
    request = GAME.chance(table.state)
    assert request is not None and request.purpose == "deal" and request.items == ALL
    assert view(table)["phase"] == "deal" and view(table)["to_act"] == []
    table.submit(Command("shuffle", None, {"order": list(ALL)}))
    hands = table.state.hands
    assert DECK.codes(hands[2]) == ["1r", "5", "9b", "13", "17"]
    assert DECK.codes(hands[3]) == ["2", "6g", "10", "14r", "18b"]
    assert DECK.codes(hands[0]) == ["3y", "7y", "11g", "15b", "19"]
    assert [DECK.code_of[card] for card in table.state.draw[:2]] == ["21y", "22g"]
    shown = view(table, 2)
    assert shown["phase"] == "play" and shown["to_act"] == [2] and shown["opener"] == 2
    assert shown["round"] == 1 and shown["draw_count"] == 35 and shown["top"] is None
    assert shown["hand_counts"] == [5, 5, 5, 5] and shown["supply"] == SUPPLY
    assert shown["legal"] == {"play": shown["hand"], "pass": False, "refill": False}


# --- what fits -----------------------------------------------------------------------------

def fits(top: str, card: str) -> bool:
    """Whether ``card`` may be laid on ``top``: seat 0 opens with ``top``, seat 1 tries."""
    table = table_for([[top, "2", "5", "8", "10"], [card, "12", "13", "17", "19"],
                       ["20", "26", "28", "29", "32"]])
    play(table, 0, top)
    allowed = card in view(table, 1)["legal"]["play"]
    try:
        play(table, 1, card)
    except IllegalCommand as refused:
        assert not allowed and refused.code == "no_fit"
        return False
    assert allowed
    return True


def test_a_higher_number_fits() -> None:
    assert fits("36", "37") and fits("3y", "40") and fits("36", "44r")
    assert not fits("40", "37")


def test_a_shared_star_colour_fits_even_when_lower() -> None:
    assert fits("46r", "1r") and fits("45y", "3y")
    assert not fits("46r", "3y")  # lower, and a different colour


def test_higher_and_sharing_a_colour_fits() -> None:
    assert fits("1r", "46r")


def test_a_star_joker_fits_only_on_a_card_with_a_star() -> None:
    assert fits("44r", "J1") and fits("3y", "J2")
    assert not fits("36", "J1")  # no star on 36, and a joker has no number


def test_only_a_card_with_a_star_fits_on_a_star_joker() -> None:
    assert fits("J1", "1r") and fits("J1", "49v") and fits("J1", "J2")
    assert not fits("J1", "47")  # however high: no star


@pytest.mark.parametrize("opener", ["2", "50g", "J1", "47"])
def test_any_card_opens_a_round(opener: str) -> None:
    table = table_for([[opener, "5", "8", "10", "12"], LOW_TWO, ["22g", "23g", "28", "29", "32"]])
    assert sorted(view(table)["legal"]["play"]) == sorted(view(table)["hand"])
    play(table, 0, opener)
    assert view(table)["top"] == opener and view(table)["pile"] == [[0, opener]]


def test_refusals_say_why_a_card_does_not_fit() -> None:
    table = table_for([["12", "2", "5", "8", "10"], ["7y", "J1", "36", "13", "17"],
                       ["20", "26", "28", "29", "32"]])
    play(table, 0, "12")
    refused = refusal(table, Command("play", 1, {"card": "7y"}))
    assert refused.code == "no_fit"
    assert refused.reason == "7 yellow does not fit on 12: lower, and no shared star colour"
    refused = refusal(table, Command("play", 1, {"card": "J1"}))
    assert refused.reason == "a star joker goes only on a card with a star, and 12 has none"
    on_joker = table_for([["J1", "2", "5", "8", "10"], ["47", "3y", "36", "13", "17"],
                          ["20", "26", "28", "29", "32"]])
    play(on_joker, 0, "J1")
    refused = refusal(on_joker, Command("play", 1, {"card": "47"}))
    assert refused.reason == "only a card with a star goes on a star joker, and 47 has none"


# --- must play, and passing -----------------------------------------------------------------

def test_a_player_with_a_fitting_card_must_play() -> None:
    table = table_for([["36", "2", "5", "8", "10"], ["44r", "3y", "12", "13", "17"],
                       ["20", "26", "28", "29", "32"]])
    play(table, 0, "36")
    assert view(table, 1)["legal"] == {"play": ["44r"], "pass": False, "refill": False}
    refused = refusal(table, Command("pass", 1, {}))
    assert refused.code == "must_play"
    assert refused.reason == "you hold a card that fits (44 red), so you cannot pass"
    assert GAME.legal_actions(table.state, 1) == [Command("play", 1, {"card": "44r"})]


def test_the_refusal_names_every_card_that_fits() -> None:
    table = table_for([["36", "2", "5", "8", "10"], ["44r", "37", "12", "13", "17"],
                       ["20", "26", "28", "29", "32"]])
    play(table, 0, "36")
    assert refusal(table, Command("pass", 1, {})).reason == (
        "you hold cards that fit (37 and 44 red), so you cannot pass")


def test_a_player_with_no_fitting_card_passes_and_is_out_of_the_round() -> None:
    table = table_for(FOUR)
    play(table, 0, "36")
    assert view(table, 1)["legal"] == {"play": [], "pass": True, "refill": False}
    assert GAME.legal_actions(table.state, 1) == [Command("pass", 1, {})]
    pass_(table, 1)
    assert view(table)["status"] == ["in", "passed", "in", "in"]
    play(table, 2, "37")
    pass_(table, 3, 0)  # seat 1 has passed and gets no turn: seat 2 is alone and last
    assert view(table)["tokens"] == [0, 0, 1, 0]


def test_turns_go_clockwise_skipping_players_who_passed() -> None:
    table = table_for([["36", "2", "5", "8", "10"], ["3y", "12", "13", "17", "19"],
                       ["37", "39", "26", "28", "29"], ["40", "32", "35", "9b", "15b"]])
    play(table, 0, "36")
    pass_(table, 1)
    play(table, 2, "37")
    play(table, 3, "40")
    pass_(table, 0)
    assert view(table)["to_act"] == [2]  # seat 1 is skipped
    assert view(table)["status"] == ["passed", "passed", "in", "in"]
    pass_(table, 2)  # 39 is lower than 40: seat 3 is alone and laid the last card
    assert view(table)["tokens"] == [0, 0, 0, 1]


def test_voluntary_pass_allows_passing_with_a_fitting_card() -> None:
    table = table_for([["36", "2", "5", "8", "10"], ["44r", "3y", "12", "13", "17"],
                       ["20", "26", "28", "29", "32"]], voluntary_pass=True)
    assert refusal(table, Command("pass", 0, {})).code == "must_open"
    play(table, 0, "36")
    assert view(table, 1)["legal"] == {"play": ["44r"], "pass": True, "refill": False}
    actions = GAME.legal_actions(table.state, 1)
    assert Command("pass", 1, {}) in actions and len(actions) == 2
    pass_(table, 1)
    assert view(table)["status"] == ["in", "passed", "in"]


def test_the_opener_must_lay_a_card() -> None:
    table = table_for([KILLERS, LOW_ONE, LOW_TWO])
    refused = refusal(table, Command("pass", 0, {}))
    assert refused.code == "must_open" and refused.reason == "you open the round: lay any card"
    assert view(table)["legal"]["pass"] is False


# --- how rounds end ------------------------------------------------------------------------

def test_everyone_passing_after_one_card_gives_the_opener_the_round() -> None:
    table = table_for([KILLERS, LOW_ONE, LOW_TWO])
    play(table, 0, "50g")
    assert not GAME.is_checkpoint(table.state)
    pass_(table, 1, 2)
    assert GAME.is_checkpoint(table.state)
    shown = view(table)
    assert shown["tokens"] == [1, 0, 0] and shown["supply"] == SUPPLY - 1
    last = shown["last_round"]
    assert last["round"] == 1 and last["winner"] == 0 and last["ended"] == "all passed"
    assert last["pile"] == [[0, "50g"]] and last["status"] == ["in", "passed", "passed"]
    assert shown["phase"] == "refill" and shown["pile"] == [] and shown["top"] is None
    assert shown["discard_pile"] == ["50g"] and shown["last_player"] is None
    assert GAME.outcome(table.state).scores == (1, 0, 0)


# Each seat climbs in turn; seat 1's fifth card, 35, is the round's last.
CLIMB = [["2", "10", "17", "26", "32"], ["5", "12", "19", "28", "35"],
         ["8", "13", "20", "29", "1r"]]


def climb(table: Table[WhatElseState]) -> None:
    for step in range(14):
        seat = step % 3
        play(table, seat, CLIMB[seat][step // 3])


def test_a_round_ends_when_the_last_card_laid_cannot_be_followed() -> None:
    table = table_for(CLIMB)
    climb(table)
    assert view(table)["status"] == ["out", "out", "in"]  # seats 0 and 1 laid all five
    assert view(table)["to_act"] == [2]
    pass_(table, 2)  # 1 red on 35: lower, and 35 has no star
    last = view(table)["last_round"]
    assert last["winner"] == 1 and last["ended"] == "last card"
    assert last["status"] == ["out", "out", "passed"]
    assert view(table)["tokens"] == [0, 1, 0]


def test_a_player_out_of_cards_leaves_the_others_to_finish() -> None:
    hands = [CLIMB[0], CLIMB[1], ["8", "13", "20", "29", "36"]]
    table = table_for(hands)
    climb(table)
    play(table, 2, "36")  # seat 2's last card: nobody is left in the round
    last = view(table)["last_round"]
    assert last["winner"] == 2 and last["ended"] == "last card"
    assert last["status"] == ["out", "out", "out"]


def test_the_round_ends_at_once_when_the_only_player_left_made_the_last_play() -> None:
    table = table_for(FOUR)
    play(table, 0, "36")
    pass_(table, 1)
    play(table, 2, "37")
    pass_(table, 3)
    assert view(table)["phase"] == "play"
    pass_(table, 0)
    assert view(table)["phase"] == "refill"  # seat 2 does not play on its own 37


# --- the token, the winner's draw and the refill -------------------------------------------

def test_the_winner_draws_first_then_the_others_refill_clockwise_from_the_winner() -> None:
    table = four_player_round(draw=["1r", "J1", "J2", "J3", "J4", "4v"])
    shown = view(table, None)
    assert shown["tokens"] == [0, 0, 1, 0]
    assert shown["hand_counts"] == [4, 5, 5, 5]  # the winner has drawn back to 5 already
    assert "1r" in view(table, 2)["hand"]
    assert shown["last_round"]["drawn"] == [0, 0, 1, 0]
    assert shown["phase"] == "refill" and shown["refill_order"] == [3, 0, 1]
    assert shown["to_act"] == [3] and shown["opener"] == 2
    assert view(table, 3)["legal"] == {"play": [], "pass": False, "refill": True}
    refused = refusal(table, Command("refill", 1, {"discard": []}))
    assert refused.code == "not_your_turn"
    assert refused.reason == "it is seat 3's turn to refill, not yours"
    assert refusal(table, Command("play", 3, {"card": "32"})).reason == (
        "no play now: the players are refilling their hands")

    refill(table, 3, ["15b", "9b"])
    assert not GAME.is_checkpoint(table.state)
    assert view(table, 3)["hand"] == ["18b", "32", "35", "J1", "J2"]
    refill(table, 0)
    assert view(table, 0)["hand"] == ["2", "5", "8", "10", "J3"]
    refill(table, 1, ["3y", "12", "13", "17", "19"])
    assert "J4" in view(table, 1)["hand"] and "4v" in view(table, 1)["hand"]
    shown = view(table, None)
    assert shown["last_round"]["drawn"] == [1, 5, 1, 2]
    assert shown["last_round"]["discarded"] == [[], ["3y", "12", "13", "17", "19"], [],
                                                ["9b", "15b"]]
    assert shown["phase"] == "play" and shown["round"] == 2 and shown["to_act"] == [2]
    assert shown["hand_counts"] == [5, 5, 5, 5] and shown["refill_order"] == []
    assert shown["status"] == ["in"] * 4


def test_discards_are_public() -> None:
    table = four_player_round()
    before = table.state
    (_, event), = table.submit(Command("refill", 3, {"discard": ["9b", "15b"]}))
    assert event == Event("refilled", 3, {"discard": ["9b", "15b"]})
    for viewer in (None, 0, 1, 2, 3):
        assert GAME.event_view(before, event, viewer) == event
        shown = view(table, viewer)
        assert shown["discard_pile"] == ["36", "37", "9b", "15b"]  # the plays, then discards
        assert shown["last_round"]["discarded"][3] == ["9b", "15b"]


def test_a_refill_lists_its_discards_in_deck_order() -> None:
    table = four_player_round()
    (_, event), = table.submit(Command("refill", 3, {"discard": ["32", "15b", "9b"]}))
    assert event.data == {"discard": ["9b", "15b", "32"]}


RESHUFFLE_HANDS = [["47", "2", "5", "8", "10"], ["12", "13", "17", "19", "20"],
                   ["26", "28", "29", "32", "35"], ["36", "37", "39", "40", "42"],
                   ["1r", "3y", "4v", "6g", "7y"], ["9b", "11g", "14r", "15b", "16v"]]


def test_the_discard_pile_is_reshuffled_when_a_draw_runs_out_and_the_draw_goes_on() -> None:
    table = table_for(RESHUFFLE_HANDS)  # 25 cards in the draw pile
    play(table, 0, "47")
    pass_(table, 1, 2, 3, 4, 5)
    assert view(table)["draw_count"] == 24  # the winner drew one
    for seat in (1, 2, 3, 4):
        refill(table, seat, RESHUFFLE_HANDS[seat])
    assert view(table)["draw_count"] == 4
    refill(table, 5, RESHUFFLE_HANDS[5])  # draws 4, then the pile is empty
    shown = view(table, None)
    assert shown["phase"] == "deal" and shown["to_act"] == [] and shown["draw_count"] == 0
    assert shown["hand_counts"] == [5, 5, 5, 5, 5, 4] and shown["refill_order"] == []
    request = GAME.chance(table.state)
    assert request is not None and request.purpose == "reshuffle"
    discarded = sorted({"47", *(code for hand in RESHUFFLE_HANDS[1:] for code in hand)},
                       key=DECK.index_of.__getitem__)
    assert list(request.items) == discarded and len(discarded) == 26
    assert refusal(table, Command("play", 0, {"card": "2"})).reason == (
        "no play now: the cards are being shuffled")
    new_order = list(reversed(discarded))
    before = table.state
    (_, event), = table.submit(Command("shuffle", None, {"order": new_order}))
    for viewer in (None, 0, 5):
        shown_event = GAME.event_view(before, event, viewer)
        assert shown_event == Event("shuffled", None, {
            "purpose": "reshuffle", "count": 26, "hand_counts": [5] * 6, "draw_count": 25})
    assert "47" in view(table, 5)["hand"]  # the top of the new pile completes seat 5's draw
    shown = view(table, None)
    assert shown["phase"] == "play" and shown["round"] == 2 and shown["to_act"] == [0]
    assert shown["draw_count"] == 25 and shown["discard_pile"] == []
    assert shown["reshuffles"] == 1 and shown["last_round"]["drawn"] == [1, 5, 5, 5, 5, 5]
    assert [DECK.code_of[card] for card in table.state.draw[:2]] == new_order[1:3]


def test_a_reshuffle_can_interrupt_the_winners_draw_before_anyone_refills() -> None:
    """Found in a seeded game of heuristic bots: the round's end is recorded (a checkpoint)
    once the winner has drawn back to five, after the reshuffle."""
    for seed in range(50):
        table = Table.new(GAME, 6, {})
        rng = random.Random(seed)
        bots = [HeuristicBot(random.Random(seat)) for seat in range(6)]
        while not table.outcome().over:
            state = table.state
            request = GAME.chance(state)
            if request is None:
                seat = GAME.to_act(state)[0]
                table.submit(ask(bots[seat], GAME, state, seat))
                continue
            winner = None if state.last_round is None else state.last_round.winner
            if request.purpose == "reshuffle" and state.owed_seat == winner:
                assert not GAME.is_checkpoint(state)
                assert state.refill_order == tuple((winner + k) % 6 for k in range(1, 6))
                assert view(table, None)["to_act"] == []
                table.shuffle(rng.randrange(2**32))
                assert table.state.phase == "refill" and GAME.is_checkpoint(table.state)
                assert table.state.hands[winner].bit_count() == HAND_SIZE
                return
            table.shuffle(rng.randrange(2**32))
    raise AssertionError("no game of 50 had a reshuffle in the winner's draw")


def test_the_game_ends_as_soon_as_a_player_has_three_tokens() -> None:
    table = table_for([KILLERS, LOW_ONE, LOW_TWO], draw=["32", "35"])
    for round_number, card in enumerate(("50g", "49v", "47"), start=1):
        assert view(table)["round"] == round_number
        play(table, 0, card)
        pass_(table, 1, 2)
        if round_number < 3:
            refill(table, 1)
            refill(table, 2)
    shown = view(table, None)
    assert shown["phase"] == "over" and shown["tokens"] == [3, 0, 0]
    assert shown["winners"] == [0] and shown["to_act"] == [] and shown["refill_order"] == []
    assert shown["hand_counts"] == [4, 5, 5]  # nobody draws after the last round
    assert shown["supply"] == SUPPLY - 3
    outcome = GAME.outcome(table.state)
    assert outcome.over and outcome.winners == (0,) and outcome.scores == (3, 0, 0)
    assert GAME.is_checkpoint(table.state)
    assert all(GAME.legal_actions(table.state, seat) == [] for seat in range(3))
    assert refusal(table, Command("play", 0, {"card": "28"})).reason == (
        "no play now: the game is over")
    assert GAME.tally(table.state) == {"rounds won": [3, 0, 0], "cards played": [3, 0, 0],
                                       "jokers played": [0, 0, 0], "passes": [0, 3, 3]}


# --- refusals ------------------------------------------------------------------------------

def test_bad_commands_are_refused_and_change_nothing() -> None:
    table = table_for([KILLERS, LOW_ONE, LOW_TWO])
    cases = [
        (Command("draw", 0, {}), "unknown_command", "what_else has no command 'draw'"),
        (Command("play", 3, {"card": "2"}), "bad_seat", "3 is not a seat at this table"),
        (Command("play", None, {"card": "2"}), "bad_seat", "None is not a seat at this table"),
        (Command("play", 1, {"card": "2"}), "not_your_turn", "it is seat 0's turn, not yours"),
        (Command("play", 0, {"card": "2"}), "card_not_held", "you do not hold the 2"),
        (Command("play", 0, {"card": "51"}), "bad_card", "'51' is not a card of this game"),
        (Command("play", 0, {}), "bad_card", "None is not a card of this game"),
        (Command("refill", 0, {"discard": []}), "wrong_phase",
         "no refill now: cards are being played"),
        (Command("shuffle", 0, {"order": list(ALL)}), "wrong_phase",
         "the game is not waiting for a shuffle"),
    ]
    for command, code, reason in cases:
        refused = refusal(table, command)
        assert (refused.code, refused.reason) == (code, reason), command
    play(table, 0, "50g")
    pass_(table, 1, 2)
    for discard, reason in ((["2", "2"], "the same card was named twice"),
                            (["13"], "you do not hold the 13"),
                            ("2", "a refill needs 'discard', a list of the cards to discard "
                                  "(possibly empty)"),
                            (None, "a refill needs 'discard', a list of the cards to discard "
                                   "(possibly empty)")):
        refused = refusal(table, Command("refill", 1, {"discard": discard}))
        assert refused.reason == reason


def test_shuffles_are_checked() -> None:
    table = Table.new(GAME, 3, {})
    for command, code in ((Command("shuffle", 1, {"order": list(ALL)}), "not_allowed"),
                          (Command("shuffle", None, {"order": list(ALL[:-1])}), "bad_shuffle"),
                          (Command("shuffle", None, {"order": "J1"}), "bad_command"),
                          (Command("play", 0, {"card": "2"}), "wrong_phase")):
        assert refusal(table, command).code == code


# --- views ---------------------------------------------------------------------------------

CONTRACT_KEYS = {"game", "players", "phase", "round", "to_act", "top", "pile", "status", "hand",
                 "hand_counts", "tokens", "supply", "target", "draw_count", "discard_pile",
                 "opener", "last_player", "legal", "refill_order", "last_round", "winners",
                 "options"}


def test_view_keys_for_the_client() -> None:
    table = table_for([KILLERS, LOW_ONE, LOW_TWO])
    shown = view(table, 0)
    assert set(shown) == CONTRACT_KEYS | {"turn", "reshuffles", "seat"}
    assert shown["game"] == "what_else" and shown["players"] == 3 and shown["target"] == 3
    assert shown["options"] == {"star_table": "standard", "voluntary_pass": False, "opener": 0}
    assert shown["hand"] == ["28", "29", "47", "49v", "50g"] and shown["seat"] == 0
    assert shown["last_round"] is None and shown["winners"] == [] and shown["last_player"] is None
    play(table, 0, "50g")
    shown = view(table, 1)
    assert shown["top"] == "50g" and shown["last_player"] == 0 and shown["turn"] == 1
    pass_(table, 1, 2)
    assert set(view(table)["last_round"]) == {"round", "winner", "ended", "pile", "status",
                                              "drawn", "discarded"}



def check_views(state: WhatElseState) -> None:
    """No view shows another seat's hand or the draw pile; a seat sees its own hand. (The
    last round's plays and discards are left out: they tell what everyone saw laid and
    discarded, even once a reshuffle has sent those cards back into the draw pile and hands.
    What each seat drew since is there, and must be counts: the cards drawn are secret.)"""
    deck = state.rules.cards.deck
    secret = [deck.codes(hand) for hand in state.hands]
    drawing = {deck.code_of[card] for card in state.draw}
    for viewer in (None, *range(state.rules.players)):
        shown = GAME.view(state, viewer)
        last = shown["last_round"] and {**shown["last_round"], "pile": None, "discarded": None}
        seen = set(strings({**shown, "last_round": last})) & set(deck.code_of)
        for seat, hand in enumerate(secret):
            if seat != viewer:
                assert not seen & set(hand), f"{viewer} sees seat {seat}'s {seen & set(hand)}"
        assert not seen & drawing, f"{viewer} sees the draw pile's {seen & drawing}"
        assert shown["hand"] == (secret[viewer] if viewer is not None else [])


def test_views_show_only_the_viewers_own_hand() -> None:
    table = four_player_round()
    check_views(table.state)
    assert view(table, None)["hand"] == []
    assert view(table, None)["legal"] == {"play": [], "pass": False, "refill": False}
    snapshot = GAME.snapshot(table.state)
    assert snapshot["hands"][1] == ["3y", "12", "13", "17", "19"]
    assert len(snapshot["draw"]) == 34 and snapshot["owed"] is None


def test_the_deal_event_shows_nobody_the_order_or_the_seed() -> None:
    table = Table.new(GAME, 3, {})
    before = table.state
    (_, event), = table.shuffle(99)
    assert set(event.data) == {"order", "seed"}
    for viewer in (None, 0, 1, 2):
        shown = GAME.event_view(before, event, viewer)
        assert shown is not None and shown.data == {"purpose": "deal", "count": 55,
                                                    "hand_counts": [5, 5, 5], "draw_count": 40}


def test_describe_event_speaks_plainly() -> None:
    table = table_for([KILLERS, LOW_ONE, LOW_TWO])
    describe = GAME.describe_event
    assert describe(Event("played", 2, {"card": "14r"})) == "seat 2 plays 14 red"
    assert describe(Event("played", 2, {"card": "J4"})) == "seat 2 plays star joker"
    assert describe(Event("passed", 1, {})) == "seat 1 passes"
    assert describe(Event("refilled", 1, {"discard": []})) == (
        "seat 1 keeps every card and draws back to 5")
    assert describe(Event("refilled", 1, {"discard": ["2", "14r"]})) == (
        "seat 1 discards 2 and 14 red and draws back to 5")
    assert describe(Event("shuffled", None, {"order": list(ALL), "seed": 3})) == (
        "shuffle the 55 cards and deal 5 to each (deal number 3)")
    assert describe(Event("shuffled", None, {"purpose": "reshuffle", "count": 20,
                                             "hand_counts": [], "draw_count": 20})) == (
        "the discard pile (20 cards) is shuffled into a new draw pile")
    del table


# --- random playouts -----------------------------------------------------------------------

def check_invariants(state: WhatElseState) -> None:
    cards = state.rules.cards
    if not (any(state.hands) or state.draw or state.discard or state.pile):
        assert state.phase == "deal"  # before the first deal: the cards are still in the box
        return
    pile = sum(1 << card for _, card in state.pile)
    parts = [*state.hands, sum(1 << card for card in state.draw),
             sum(1 << card for card in state.discard), pile]
    union = 0
    for part in parts:
        assert not union & part, "a card is in two places"
        union |= part
    assert union == cards.deck.full
    assert sum(part.bit_count() for part in parts) == 55
    assert len(state.draw) == len(set(state.draw)) and len(state.discard) == len(
        set(state.discard))
    assert sum(state.tokens) <= SUPPLY and max(state.tokens) <= 3
    assert all(hand.bit_count() <= HAND_SIZE for hand in state.hands)
    if state.phase == "play" and state.pile:
        top = state.pile[-1][1]
        for (_, below), (_, above) in zip(state.pile, state.pile[1:], strict=False):
            assert cards.fits_on[below] >> above & 1
        assert top == state.pile[-1][1]


def random_game(players: int, seed: int, options: dict[str, Any], kinds: Sequence[str],
                log: Path | None = None, views: bool = True) -> Table[WhatElseState]:
    table = Table.new(GAME, players, options, path=None if log is None else str(log))
    rng = random.Random(seed)
    bots = [make_bot(GAME, kinds[seat % len(kinds)], random.Random(seed * 7 + seat))
            for seat in range(players)]
    steps = 0
    while not table.outcome().over:
        state = table.state
        check_invariants(state)
        if views:
            check_views(state)
        if GAME.chance(state) is not None:
            before = state
            (_, event), = table.shuffle(rng.randrange(2**32))
            for viewer in (None, *range(players)):
                shown = GAME.event_view(before, event, viewer)
                assert shown is not None and "order" not in shown.data
                assert "seed" not in shown.data
            continue
        seats = GAME.to_act(state)
        assert len(seats) == 1
        for other in range(players):
            assert bool(GAME.legal_actions(state, other)) == (other == seats[0])
        command = ask(bots[seats[0]], GAME, state, seats[0], table)
        assert command in GAME.legal_actions(state, seats[0])
        table.submit(command)
        steps += 1
        assert steps < 2000
    check_invariants(table.state)
    check_views(table.state)
    return table


@settings(max_examples=24, deadline=None)
@given(players=st.integers(3, 6), voluntary=st.booleans(), seed=st.integers(0, 2**32),
       star_table=st.sampled_from(sorted(STAR_TABLES)),
       kinds=st.sampled_from([("random",), ("heuristic",), ("heuristic", "random")]))
def test_random_playouts_keep_the_invariants_and_rebuild_from_their_logs(
        players: int, voluntary: bool, seed: int, star_table: str, kinds: tuple[str, ...]
) -> None:
    options = {"voluntary_pass": voluntary, "star_table": star_table, "opener": seed % players}
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "game.starhall"
        table = random_game(players, seed, options, kinds, log)
        assert table.log is not None
        table.log.close()
        outcome = table.outcome()
        assert outcome.over and outcome.winners is not None and len(outcome.winners) == 1
        assert outcome.scores[outcome.winners[0]] == 3
        rebuilt = load(log).state_at()  # strict: every event re-decided
        assert GAME.snapshot(rebuilt) == GAME.snapshot(table.state)
        assert isinstance(verify(log), Verified)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_reshuffles_happen_in_long_games_and_rebuild(players: int, tmp_path: Path) -> None:
    log = tmp_path / "game.starhall"
    table = random_game(players, 1, {}, ("heuristic",), log, views=False)
    assert table.log is not None
    table.log.close()
    assert isinstance(verify(log), Verified)
    assert GAME.tally(table.state)["rounds won"] == list(table.state.tokens)


def test_random_action_is_always_legal_and_every_refill_subset_can_come_up() -> None:
    table = four_player_round()
    rng = random.Random(0)
    seen = set()
    for _ in range(400):
        command = GAME.random_action(table.state, 3, rng)
        assert command in GAME.legal_actions(table.state, 3)
        seen.add(tuple(command.data["discard"]))
    assert len(seen) == 32
    with pytest.raises(IllegalCommand):
        GAME.random_action(table.state, 0, rng)


# --- the heuristic bot ---------------------------------------------------------------------

def test_the_heuristic_bot_decides_from_the_view_alone() -> None:
    table = Table.new(GAME, 4, {})
    bot = HeuristicBot(random.Random(0))
    while not table.outcome().over:
        state = table.state
        if GAME.chance(state) is not None:
            table.shuffle(5)
            continue
        seat = GAME.to_act(state)[0]
        table.submit(ask(bot, GAME, state, seat, table))


def test_the_heuristic_bot_lays_its_lowest_card_and_keeps_jokers() -> None:
    table = table_for([["36", "2", "5", "8", "10"], ["44r", "37", "J1", "40", "42"],
                       ["12", "13", "17", "19", "20"]])
    play(table, 0, "36")
    bot = HeuristicBot(random.Random(0))
    assert ask(bot, GAME, table.state, 1, table) == Command("play", 1, {"card": "37"})


def test_the_heuristic_bot_lays_a_card_nobody_can_follow() -> None:
    # On 13, seat 1 may lay 14 red or 47; nobody else can follow 47 (48, 49, 50 are in
    # seat 1's hand or gone), so it takes the round at once.
    table = table_for([["13", "2", "5", "8", "10"], ["14r", "47", "48g", "49v", "50g"],
                       ["12", "17", "19", "20", "26"]])
    play(table, 0, "13")
    bot = HeuristicBot(random.Random(0))
    assert ask(bot, GAME, table.state, 1, table) == Command("play", 1, {"card": "47"})


def test_the_heuristic_bot_discards_low_cards_at_the_refill() -> None:
    table = four_player_round()
    refill(table, 3)
    bot = HeuristicBot(random.Random(0))
    command = ask(bot, GAME, table.state, 0, table)  # seat 0 holds 2 5 8 10
    assert command.type == "refill" and command.data["discard"] == ["2", "5", "8", "10"]
    assert miss_chance(10, 0, 3) == 1.0 and miss_chance(10, 10, 3) == 0.0
