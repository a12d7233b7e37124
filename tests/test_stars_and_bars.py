"""Stars and Bars (stars_and_bars): cards, scoring in each direction, the outer and centre
placement rules, claims and duties (made and forgotten), take-back, the set-up and the
starter, passing, the ways to win and tie, views, bots, random games whose logs rebuild
strictly, and the golden replays."""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starhall.server.sim import simulate
from starhall.shared.bots import RandomBot, bot_kinds
from starhall.shared.engine import Command, Event, IllegalCommand
from starhall.shared.games import get_game
from starhall.shared.games.stars_and_bars.bots import BOTS, DEFAULT_BOT, GreedyBot, LookaheadBot
from starhall.shared.games.stars_and_bars.rules import (
    CENTRE,
    DECK,
    EMPTY,
    NOBODY,
    SPACES,
    STARRED,
    BarsState,
    Turn,
    attributes,
    card_name,
    differences,
    placement_points,
    space_name,
    tops_of,
)
from starhall.shared.replay import Mismatch, load, verify
from starhall.shared.table import Table
from tests.support import ask

GAME = get_game("stars_and_bars")
ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "replays" / "golden"

# Cards by their differences from SRLF (a large solid red star):
D1, D2, D3, D4 = "SRLH", "SRSH", "SYSH", "BYSH"


# --- building positions ----------------------------------------------------------------

def position(board: dict[int, list[str]] | None = None,
             hands: tuple[list[str], list[str]] = (["SRLF"], ["TBSH"]),
             deck: list[str] | None = None, seat: int = 0, starter: int = 0,
             down: tuple[int, ...] = (), owners: dict[int, int] | None = None,
             clear_owner: int = NOBODY, scores: tuple[int, int] = (0, 0),
             last_passed: bool = False) -> BarsState:
    """A position in play, built directly: ``board`` maps spaces to stacks (bottom first)."""
    stacks: list[tuple[int, ...]] = [()] * SPACES
    for space, codes in (board or {}).items():
        stacks[space] = tuple(DECK.index_of[code] for code in codes)
    owner_row = [NOBODY] * SPACES
    for space, owner in (owners or {}).items():
        owner_row[space] = owner
    last = None
    if last_passed:
        last = Turn(1 - seat, (), None, (), 0, True, (), EMPTY, False)
    return replace(
        GAME.new_state(2, GAME.make_options(2, {})), phase="play", round=1, starter=starter,
        stacks=tuple(stacks), face_down=sum(1 << space for space in down),
        owners=tuple(owner_row), clear_owner=clear_owner,
        hands=(DECK.mask(hands[0]), DECK.mask(hands[1])),
        deck=tuple(DECK.index_of[code] for code in (deck or [])), scores=scores,
        turn=Turn(seat, (), None, (), 0, False, (), EMPTY, False), last_turn=last)


def act(state: BarsState, kind: str, seat: int | None = None, /, **data: Any) -> BarsState:
    """Decide a command and fold its events in (seat: the player to act)."""
    if seat is None:
        assert state.turn is not None
        seat = state.turn.seat
    for event in GAME.decide(state, Command(kind, seat, data)):
        state = GAME.evolve(state, event)
    return state


def refused(state: BarsState, kind: str, seat: int | None = None, /, **data: Any
            ) -> IllegalCommand:
    if seat is None:
        assert state.turn is not None
        seat = state.turn.seat
    with pytest.raises(IllegalCommand) as caught:
        GAME.decide(state, Command(kind, seat, data))
    return caught.value


def points_for(board: dict[int, list[str]], card: str = "SRLF", space: int = 5) -> int:
    state = position(board)
    return placement_points(tops_of(state), DECK.index_of[card], space)


def order_with(first: list[str]) -> list[str]:
    """A shuffle order: ``first`` on top, then the other cards in deck order."""
    return first + [code for code in DECK.code_of if code not in first]


# --- cards -------------------------------------------------------------------------------

def test_the_deck_has_48_cards_one_of_each_combination() -> None:
    assert len(DECK) == 48 and len(set(DECK.code_of)) == 48
    assert STARRED.bit_count() == 12
    assert all(code[0] == "S" for code in DECK.codes(STARRED))
    assert attributes("BBSH") == {"shape": "bar", "colour": "blue", "size": "small",
                                  "fill": "hollow"}
    assert card_name("SRLF") == "large solid red star"
    assert [differences("SRLF", code) for code in (D1, D2, D3, D4)] == [1, 2, 3, 4]
    with pytest.raises(ValueError):
        differences("SRLF", "XXXX")
    assert [space_name(space) for space in (0, 5, 6, 9, 10, 15)] == [
        "a1", "b2", "c2", "b3", "c3", "d4"]


# --- scoring -----------------------------------------------------------------------------

def test_each_direction_scores_its_exact_differences() -> None:
    assert points_for({5: [D1]}) == 1  # on a stack: 1 difference → 1
    assert points_for({6: [D2]}) == 2  # to the right (a short end): 2 → 2
    assert points_for({4: [D2]}) == 2  # to the left
    assert points_for({10: [D3]}) == 3  # diagonal: 3 → 3
    assert points_for({0: [D3]}) == 3
    assert points_for({9: [D4]}) == 4  # below (a long edge): 4 → 4
    assert points_for({1: [D4]}) == 4  # above
    # exactness: any other number of differences scores nothing
    assert points_for({6: [D3]}) == 0  # 3 differences horizontally
    assert points_for({6: [D1]}) == 0
    assert points_for({5: [D2]}) == 0  # 2 differences on a stack
    assert points_for({9: [D3]}) == 0  # 3 vertically
    assert points_for({10: [D4]}) == 0  # 4 diagonally
    # everything adds up: under 1 + right 2 + below 4 + diagonal 3
    assert points_for({5: [D1], 6: [D2], 9: [D4], 10: [D3]}) == 10


def test_points_are_computed_when_placed_and_described() -> None:
    state = position({6: [D2], 10: [D3], 9: ["SBSH"]}, hands=(["SRLF"], ["TBLH"]))
    (event,) = GAME.decide(state, Command("place", 0, {"card": "SRLF", "space": 5}))
    assert event == Event("placed", 0, {"card": "SRLF", "space": 5})  # no points logged
    after = GAME.evolve(state, event)
    assert after.scores == (5, 0)
    shown = GAME.event_view(state, event, None)
    assert shown is not None and shown.data["points"] == 5
    assert {"with": "right", "space": 6, "differences": 2, "points": 2} in shown.data["scoring"]
    assert {"with": "down", "space": 9, "differences": 3, "points": 0} in shown.data["scoring"]
    assert GAME.describe_event(shown) == (
        "seat 0 places a large solid red star on b2: 2 + 3 = 5 points")
    assert GAME.describe_event(event) == "seat 0 places a large solid red star on b2"
    turn = GAME.view(after, 1)["turn"]
    assert turn["placed"]["points"] == 5 and turn["points"] == 5


# --- placement rules ---------------------------------------------------------------------

def test_an_outer_card_must_score_with_every_neighbour() -> None:
    # a1's neighbours: b1 to its right, a2 below it, b2 diagonal to it
    assert points_for({5: [D3]}, space=0) == 3
    assert points_for({5: [D3], 1: [D2]}, space=0) == 5
    assert points_for({5: [D3], 1: [D3]}, space=0) == -1
    state = position({5: [D3], 1: [D3]})
    problem = refused(state, "place", card="SRLF", space=0)
    assert problem.code == "illegal_placement"
    assert problem.reason == ("an outer card must score with every neighbour: the card to its "
                              "right on b1 differs by 3, not 2")
    problem = refused(position({5: [D2]}), "place", card="SRLF", space=0)
    assert "the card diagonal to it on b2 differs by 2, not 3" in problem.reason
    problem = refused(position({4: [D2]}), "place", card="SRLF", space=0)
    assert "the card below it on a2 differs by 2, not 4" in problem.reason


def test_an_outer_card_needs_a_neighbour_or_a_stack() -> None:
    state = position({10: [D3]})
    problem = refused(state, "place", card="SRLF", space=0)
    assert "needs a neighbour or a stack under it: a1 has neither" in problem.reason
    # a stack alone will do, if the card scores on it
    assert points_for({0: [D1]}, space=0) == 1
    problem = refused(position({0: [D2]}), "place", card="SRLF", space=0)
    assert "the card under it differs by 2, not 1" in problem.reason
    # face-down stacks are not neighbours: b2 face down leaves a1 alone
    problem = refused(position({5: [D3] * 1}, down=(5,)), "place", card="SRLF", space=0)
    assert "has neither" in problem.reason


def test_a_centre_card_may_go_on_any_empty_or_face_up_centre_space() -> None:
    mismatched = {5: [D2], 6: [D3], 9: [D3], 10: [D4], 1: [D1]}
    for space in CENTRE:
        assert points_for(mismatched, space=space) >= 0
    assert points_for(mismatched, space=5) == 0
    state = act(position(mismatched), "place", card="SRLF", space=5)
    assert GAME.view(state, 0)["board"][5]["height"] == 2


def test_nothing_goes_on_a_face_down_stack() -> None:
    state = position({5: [D1, D2, D3, D4]}, down=(5,))
    problem = refused(state, "place", card="SRLF", space=5)
    assert problem.code == "illegal_placement"
    assert problem.reason == "the stack on b2 is face down: nothing can be placed on it"
    assert 5 not in [space for space, _ in GAME.view(state, 0)["legal"]["placements"]["SRLF"]]


def test_place_refusals_in_words() -> None:
    state = position({5: [D1]}, hands=(["SRLF", "TBSH"], ["TBLH"]))
    assert refused(state, "place", card="TBLH", space=6).reason == (
        "you do not hold the large hollow blue triangle")
    assert refused(state, "place", card="XXXX", space=6).code == "bad_card"
    assert refused(state, "place", card="SRLF", space=16).code == "bad_space"
    assert refused(state, "place", 1, card="TBLH", space=6).reason == "it is seat 0's turn"
    placed = act(state, "place", card="SRLF", space=6)
    problem = refused(placed, "place", card="TBSH", space=9)
    assert problem.reason == "you already placed a card this turn: take it back first"
    assert refused(state, "dance").code == "unknown_command"


# --- take-back ---------------------------------------------------------------------------

def test_take_back_undoes_the_placement_and_its_points() -> None:
    state = position({6: [D2]}, hands=(["SRLF", "TBSH"], ["TBLH"]))
    assert refused(state, "take_back").reason == "you have not placed a card this turn"
    placed = act(state, "place", card="SRLF", space=5)
    assert placed.scores == (2, 0)
    back = act(placed, "take_back")
    assert back.scores == (0, 0) and back.stacks == state.stacks and back.hands == state.hands
    assert back.turn == replace(state.turn, touched=True)
    again = act(back, "place", card="TBSH", space=9)  # another card instead
    assert DECK.codes(again.hands[0]) == ["SRLF"]
    assert GAME.tally(act(again, "end_turn"))["take backs"] == [1, 0]


def test_take_back_restores_who_owes_a_full_stack_and_is_refused_after_a_duty() -> None:
    state = position({5: ["SRLH", "SRSH", "SYSH", "BYSH"]}, owners={5: 1},
                     hands=(["SRLF"], ["TBLH"]))
    placed = act(state, "place", card="SRLF", space=5)
    assert placed.owners[5] == 0
    assert act(placed, "take_back").owners[5] == 1
    turned = act(placed, "turn_over", space=5)
    problem = refused(turned, "take_back")
    assert problem.code == "duty_done"
    assert problem.reason == ("you already did a duty this turn (turn over the stack on b2): "
                              "the card can no longer be taken back")
    assert not GAME.view(turned, 0)["legal"]["take_back"]


# --- duties ------------------------------------------------------------------------------

FULL3 = ["SRLH", "SRSH", "SYSH"]


def test_turning_over_a_centre_stack_of_four() -> None:
    state = position({5: FULL3}, hands=(["SRLF"], ["TBLH"]), deck=["TBSF"])
    assert refused(state, "turn_over", space=5).reason == "duties come after you place a card"
    placed = act(state, "place", card="SRLF", space=5)
    assert GAME.view(placed, 0)["legal"]["duties"] == [{"kind": "turn_over", "space": 5}]
    assert GAME.view(placed, 0)["owed"] == [{"kind": "turn_over", "space": 5}]
    assert refused(placed, "remove", space=5).code == "no_duty"
    turned = act(placed, "turn_over", space=5)
    view = GAME.view(turned, 0)
    assert view["board"][5] == {"height": 4, "top": None, "face_down": True, "cards": [],
                                "owner": None}
    assert view["legal"]["duties"] == [] and turned.scores == (0, 0)
    ended = act(turned, "end_turn")
    assert GAME.tally(ended)["duties forgotten"] == [0, 0]
    assert DECK.codes(ended.hands[0]) == ["TBSF"]  # drew the top card


def test_a_three_card_stack_is_not_turned_over() -> None:
    state = act(position({5: ["SRLH", "SRSH"]}), "place", card="SRLF", space=5)
    assert GAME.view(state, 0)["legal"]["duties"] == []
    assert refused(state, "turn_over", space=5).code == "no_duty"


def test_a_forgotten_turn_over_is_claimed_for_two_points() -> None:
    state = position({5: FULL3}, hands=(["SRLF"], ["TBLH", "TBLF"]), deck=["TBSF", "TYSF"])
    forgotten = act(act(state, "place", card="SRLF", space=5), "end_turn")
    assert GAME.tally(forgotten)["duties forgotten"] == [1, 0]
    assert GAME.view(forgotten, 1)["last_turn"]["forgotten"] == [
        {"kind": "turn_over", "space": 5}]
    legal = GAME.view(forgotten, 1)["legal"]
    assert legal["claims"] == [{"kind": "turn_over", "space": 5, "points": 2}]
    claimed = act(forgotten, "claim", kind="turn_over", space=5)
    assert claimed.scores[1] == 2 and claimed.face_down >> 5 & 1
    assert GAME.tally(claimed)["claims made"] == [0, 1]
    assert GAME.view(claimed, 1)["turn"]["claims"] == [
        {"kind": "turn_over", "space": 5, "points": 2}]
    # once the card is placed, claims are over
    other = act(forgotten, "place", card="TBLH", space=6)
    problem = refused(other, "claim", kind="turn_over", space=5)
    assert problem.reason == "claims come before you place a card"
    back = act(other, "take_back")  # not even once the card is taken back
    assert refused(back, "claim", kind="turn_over", space=5).code == "claim_too_late"
    assert GAME.view(back, 1)["legal"]["claims"] == []


def test_a_forgotten_stack_grows_and_the_one_who_grows_it_owes_it() -> None:
    state = position({5: FULL3}, hands=(["SRLF", "TYLF"], ["TBLH", "TBLF"]),
                     deck=["TBSF", "TYSF"])
    forgotten = act(act(state, "place", card="SRLF", space=5), "end_turn")
    grown = act(forgotten, "place", card="TBLH", space=5)  # a fifth card instead of claiming
    assert GAME.view(grown, 1)["legal"]["duties"] == [{"kind": "turn_over", "space": 5}]
    forgotten_again = act(grown, "end_turn")
    assert GAME.view(forgotten_again, 0)["legal"]["claims"] == [
        {"kind": "turn_over", "space": 5, "points": 2}]
    mine = act(act(forgotten, "claim", kind="turn_over", space=5), "place", card="TBLH",
               space=6)
    assert mine.scores == (0, 2)


def test_a_claim_on_ones_own_forgetting_is_refused() -> None:
    state = position({5: FULL3 + ["SRLF"]}, owners={5: 0}, hands=(["TBLH"], ["TBLF"]))
    problem = refused(state, "claim", kind="turn_over", space=5)
    assert problem.code == "own_forgetting"
    assert problem.reason == ("you left the stack on b2 yourself: only your opponent may "
                              "claim it")
    assert GAME.view(state, 0)["legal"]["claims"] == []


def test_clearing_the_centre_after_turning_over_the_fourth_stack() -> None:
    full = {5: FULL3, 6: ["TBLH"] * 1, 9: ["TBLF"], 10: ["TBSF"]}
    state = position(full, down=(6, 9, 10), hands=(["SRLF"], ["TYLF"]), deck=["TYSF"])
    placed = act(state, "place", card="SRLF", space=5)
    turned = act(placed, "turn_over", space=5)
    assert turned.clear_owner == 0
    assert GAME.view(turned, 0)["legal"]["duties"] == [{"kind": "clear_centre"}]
    assert refused(turned, "clear_centre", 1).code == "not_your_turn"
    cleared = act(turned, "clear_centre")
    assert all(not cleared.stacks[space] for space in CENTRE) and cleared.face_down == 0
    assert GAME.view(cleared, 0)["discards"] == 7
    assert GAME.view(cleared, 0)["turn"]["duties"] == [
        {"kind": "turn_over", "space": 5}, {"kind": "clear_centre"}]
    # forgetting the clearing leaves the opponent 4 points
    forgot = act(turned, "end_turn")
    assert GAME.view(forgot, 1)["last_turn"]["forgotten"] == [{"kind": "clear_centre"}]
    legal = GAME.view(forgot, 1)["legal"]
    assert legal["claims"] == [{"kind": "clear", "points": 4}]
    assert all(space not in CENTRE for spaces in legal["placements"].values()
               for space, _ in spaces)
    claimed = act(forgot, "claim", kind="clear")
    assert claimed.scores == (0, 4) and claimed.face_down == 0 and claimed.clear_owner == NOBODY


def test_clear_claim_refusals() -> None:
    state = position({5: FULL3, 6: ["TBLH"]}, down=(5,), hands=(["SRLF"], ["TYLF"]))
    problem = refused(state, "claim", kind="clear")
    assert problem.code == "not_claimable"
    assert "all four stacks are face down; c2, b3, c3 are not" in problem.reason
    down = position({space: ["TBLH"] for space in CENTRE}, down=CENTRE, clear_owner=0)
    assert refused(down, "claim", kind="clear").code == "own_forgetting"
    assert refused(down, "claim", kind="sing").code == "bad_claim"


def test_turn_over_and_clear_for_six_points() -> None:
    state = position({5: FULL3 + ["TBLH"], 6: ["TBLF"], 9: ["TBSF"], 10: ["TYSF"]},
                     down=(6, 9, 10), owners={5: 1}, hands=(["SRLF"], ["TYLF"]))
    problem = refused(state, "claim", kind="turn_over", space=5)
    assert problem.code == "wrong_claim" and "turn_over_and_clear (6 points)" in problem.reason
    assert GAME.view(state, 0)["legal"]["claims"] == [
        {"kind": "turn_over_and_clear", "space": 5, "points": 6}]
    claimed = act(state, "claim", kind="turn_over_and_clear", space=5)
    assert claimed.scores == (6, 0)
    assert all(not claimed.stacks[space] for space in CENTRE)
    two_up = position({5: FULL3 + ["TBLH"], 6: ["TBLF"], 9: ["TBSF"], 10: ["TYSF"]},
                      down=(9, 10), owners={5: 1})
    problem = refused(two_up, "claim", kind="turn_over_and_clear", space=5)
    assert problem.code == "wrong_claim"
    assert "1 other centre stack is still face up" in problem.reason


def test_several_claims_in_one_turn() -> None:
    four = FULL3 + ["TBLH"]
    state = position({5: four, 6: ["TBLF", "TBSF", "TYSF", "TYLF"], 9: ["TBSH"],
                      10: ["TYSH"], 0: ["BRLF", "BRLH", "BRSF", "BRSH"]},
                     down=(9, 10), owners={5: 1, 6: 1, 0: 1}, hands=(["SRLF"], ["CRLF"]))
    claims = GAME.view(state, 0)["legal"]["claims"]
    assert claims == [{"kind": "remove", "space": 0, "points": 2},
                      {"kind": "turn_over", "space": 5, "points": 2},
                      {"kind": "turn_over", "space": 6, "points": 2}]
    state = act(state, "claim", kind="remove", space=0)
    state = act(state, "claim", kind="turn_over", space=5)
    assert GAME.view(state, 0)["legal"]["claims"] == [
        {"kind": "turn_over_and_clear", "space": 6, "points": 6}]
    state = act(state, "claim", kind="turn_over_and_clear", space=6)
    assert state.scores == (10, 0)
    assert GAME.tally(state)["claims made"] == [3, 0]
    assert GAME.tally(state)["claim points"] == [10, 0]
    assert GAME.view(state, 0)["discards"] == 4 + 4 + 4 + 1 + 1


def test_removing_an_outer_stack_of_four() -> None:
    state = position({0: ["SRSF", "SRSH", "SYSH"], 5: ["SRLH"]}, hands=(["SYSF"], ["TYLF"]))
    placed = act(state, "place", card="SYSF", space=0)  # under: SYSH, 1 difference
    assert GAME.view(placed, 0)["legal"]["duties"] == [{"kind": "remove", "space": 0}]
    assert refused(placed, "turn_over", space=0).code == "no_duty"
    removed = act(placed, "remove", space=0)
    assert not removed.stacks[0] and GAME.view(removed, 0)["discards"] == 4
    forgot = act(placed, "end_turn")
    assert GAME.view(forgot, 1)["legal"]["claims"] == [
        {"kind": "remove", "space": 0, "points": 2}]
    problem = refused(forgot, "claim", kind="turn_over", space=0)
    assert problem.code == "wrong_claim" and "a1 is an outer space" in problem.reason
    claimed = act(forgot, "claim", kind="remove", space=0)
    assert claimed.scores[1] == 2 and not claimed.stacks[0]


def test_remove_claim_refusals() -> None:
    state = position({5: FULL3 + ["TBLH"], 0: ["SRSF", "SRSH", "SYSH"]}, owners={5: 1})
    problem = refused(state, "claim", kind="remove", space=5)
    assert problem.code == "wrong_claim" and "b2 is a centre space" in problem.reason
    problem = refused(state, "claim", kind="remove", space=0)
    assert problem.code == "not_claimable" and "has 3 cards" in problem.reason
    assert refused(state, "claim", kind="remove").code == "bad_space"


def test_a_duty_is_owed_only_for_the_stack_placed_on() -> None:
    state = position({5: FULL3 + ["TBLH"], 6: [D2]}, owners={5: 1},
                     hands=(["SRLF"], ["TYLF"]))
    placed = act(state, "place", card="SRLF", space=9)
    problem = refused(placed, "turn_over", space=5)
    assert problem.code == "no_duty" and "not yours" in problem.reason


# --- set-up and the starter --------------------------------------------------------------

def set_up(first: list[str]) -> Table[Any]:
    table = Table.new(GAME, 2, {})
    table.submit(Command("shuffle", None, {"order": order_with(first)}))
    return table


NO_STARS = ["BRLF", "BRLH", "BRSF", "BRSH", "BYLF", "BYLH", "BYSF", "BYSH", "BBLF", "BBLH",
            "BBSF", "BBSH"]


def test_set_up_alternates_draws_to_the_centre_then_the_hands() -> None:
    table = set_up(NO_STARS)
    view = GAME.view(table.state, None)
    assert [view["board"][space]["top"] for space in CENTRE] == NO_STARS[:4]
    assert view["hands"] == [sorted(NO_STARS[4::2], key=DECK.index_of.get),
                             sorted(NO_STARS[5::2], key=DECK.index_of.get)]
    assert view["deck"] == 36 and view["phase"] == "play" and view["round"] == 1
    assert view["starter"] == 0 and view["to_act"] == [0]  # no star drawn: the first drawer


@pytest.mark.parametrize(("where", "starter"), [(0, 0), (1, 1), (3, 1), (4, 0), (7, 1),
                                                (11, 1)])
def test_the_first_to_draw_a_starred_card_begins(where: int, starter: int) -> None:
    first = list(NO_STARS)
    first[where] = "SRLF"
    later = "SBSH"  # a second star later on changes nothing
    if where < 11:
        first[11] = later
    view = GAME.view(set_up(first).state, None)
    assert view["starter"] == starter and view["to_act"] == [starter]


def test_the_shuffle_is_refused_when_wrong_and_hidden_from_views() -> None:
    table = Table.new(GAME, 2, {})
    with pytest.raises(IllegalCommand):
        table.submit(Command("shuffle", None, {"order": DECK.code_of[:47]}))
    with pytest.raises(IllegalCommand):
        table.submit(Command("shuffle", 0, {"order": list(DECK.code_of)}))
    assert refused(table.state, "place", 0, card="SRLF", space=5).code == "wrong_phase"
    before = table.state
    ((_, event),) = table.shuffle(7)
    deck = set(event.data["order"][12:])
    for viewer in (None, 0, 1):
        shown = GAME.event_view(before, event, viewer)
        assert shown is not None and "order" not in shown.data and "seed" not in shown.data
        assert not deck & set(json.dumps(shown.data).split('"'))
        assert not deck & set(json.dumps(GAME.view(table.state, viewer)).split('"'))
        assert shown.data["starter"] == table.state.starter and shown.data["deck"] == 36
    assert GAME.describe_event(shown).endswith(f"seat {table.state.starter} begins")
    assert set(GAME.snapshot(table.state)["deck_order"]) == deck


# --- passing and the end -----------------------------------------------------------------

def blocked(**changes: Any) -> BarsState:
    """All four centre stacks face down and nothing fits outside: nobody can place."""
    board = {space: ["TBLH"] for space in CENTRE}
    defaults: dict[str, Any] = {"down": CENTRE, "clear_owner": 0, "hands": (["SRLF"], ["SRLH"])}
    defaults.update(changes)
    return position(board, **defaults)


def test_a_player_who_cannot_place_passes() -> None:
    state = blocked()
    view = GAME.view(state, 0)
    assert view["legal"]["placements"] == {} and view["legal"]["pass"]
    assert GAME.legal_actions(state, 0) == [Command("pass", 0, {})]
    passed = act(state, "pass")
    assert passed.phase == "play" and passed.turn is not None and passed.turn.seat == 1
    assert GAME.tally(passed)["passes"] == [1, 0]
    assert DECK.codes(passed.hands[0]) == ["SRLF"]  # no draw
    assert GAME.describe_event(Event("passed", 0, {})) == "seat 0 passes"
    can = position({6: [D2]})
    problem = refused(can, "pass")
    assert problem.code == "can_place" and "a player who can place must" in problem.reason
    assert "(for example the large solid red star on " in problem.reason, problem.reason
    assert "SRLF" not in problem.reason  # cards by name, not by code
    assert refused(act(can, "place", card="SRLF", space=5), "pass").code == "already_placed"
    assert refused(can, "end_turn").reason == "place a card first (or pass, if you cannot " \
                                              "place any)"


def test_claims_may_come_before_a_pass_and_open_the_centre() -> None:
    state = blocked(clear_owner=1)
    assert [c.type for c in GAME.legal_actions(state, 0)] == ["claim", "pass"]
    claimed = act(state, "claim", kind="clear")
    assert GAME.view(claimed, 0)["legal"]["placements"]["SRLF"] == [
        [5, 0], [6, 0], [9, 0], [10, 0]]


def test_two_passes_in_a_row_end_the_game() -> None:
    state = blocked(clear_owner=0, seat=1, starter=0, last_passed=True, scores=(30, 10))
    over = act(state, "pass")
    assert over.phase == "over" and GAME.is_checkpoint(over)
    outcome = GAME.outcome(over)
    assert outcome.over and outcome.winners == (0,) and outcome.scores == (30, 10)
    assert over.result is not None and over.result.kind == "end"


def ending(scores: tuple[int, int], seat: int, starter: int = 0, last: bool = False
           ) -> BarsState:
    """The seat to act places its card on an empty centre (no points) and ends its turn;
    ``last``: it is the last card of both hands."""
    deck = [] if last else ["TYSF"]
    hands = (["TBLH"], []) if seat == 0 else ([], ["TBLH"])
    if not last:
        hands = (["TBLH", "TBLF"], ["TBSH", "TBSF"])
    state = position({}, hands=hands, seat=seat, starter=starter, scores=scores, deck=deck)
    card = DECK.codes(state.hands[seat])[0]
    return act(act(state, "place", card=card, space=5), "end_turn")


@pytest.mark.parametrize(("scores", "kind", "winners"), [
    ((216, 201), "over_200", (0,)),
    ((190, 215), "over_200", (1,)),
    ((120, 69), "lead_50", (0,)),
    ((205, 201), "tie_over_200", (0, 1)),
    ((214, 201), "tie_over_200", (0, 1)),
])
def test_a_round_can_end_the_game(scores: tuple[int, int], kind: str,
                                  winners: tuple[int, ...]) -> None:
    over = ending(scores, seat=1, starter=0)
    assert over.phase == "over" and over.result is not None
    assert over.result.kind == kind and GAME.outcome(over).winners == winners
    assert GAME.view(over, None)["result"]["winners"] == list(winners)
    assert GAME.is_checkpoint(over)


@pytest.mark.parametrize("scores", [(205, 195), (120, 70), (200, 180), (100, 100)])
def test_a_round_that_decides_nothing(scores: tuple[int, int]) -> None:
    going = ending(scores, seat=1, starter=0)
    assert going.phase == "play" and going.round == 2 and GAME.is_checkpoint(going)
    assert going.turn is not None and going.turn.seat == 0
    next_event = act(going, "place", card="TBLF", space=6)
    assert not GAME.is_checkpoint(next_event)


def test_the_checks_wait_for_the_second_players_turn() -> None:
    going = ending((120, 60), seat=0, starter=0)
    assert going.phase == "play" and going.round == 1 and not GAME.is_checkpoint(going)
    going = ending((120, 60), seat=0, starter=1)  # seat 0 is second here
    assert going.phase == "over" and going.result is not None
    assert going.result.kind == "lead_50"


@pytest.mark.parametrize(("scores", "kind", "winners"), [
    ((100, 85), "end", (0,)),
    ((85, 100), "end", (1,)),
    ((100, 86), "tie_end", (0, 1)),
    ((150, 60), "end", (0,)),  # not a round's end: only the final check applies
])
def test_the_game_ends_when_the_last_cards_are_placed(scores: tuple[int, int], kind: str,
                                                      winners: tuple[int, ...]) -> None:
    over = ending(scores, seat=0, starter=0, last=True)
    assert over.phase == "over" and over.result is not None
    assert over.result.kind == kind and GAME.outcome(over).winners == winners
    assert refused(over, "pass", 1).code == "wrong_phase"
    assert GAME.legal_actions(over, 0) == GAME.legal_actions(over, 1) == []


def test_a_game_ending_in_the_first_players_turn_leaves_that_round_unfinished() -> None:
    """A round is the beginning player's turn and then the other's: when the last cards go
    down in the beginning player's turn the game is over, but that round never ended."""
    for seat, ended, rounds in ((0, False, 6), (1, True, 7)):
        hands: tuple[list[str], list[str]] = (["TBLH"], []) if seat == 0 else ([], ["TBLH"])
        state = replace(position({}, hands=hands, seat=seat, starter=0, scores=(100, 85)),
                        round=7)
        placed = act(state, "place", card="TBLH", space=5)
        (event,) = GAME.decide(placed, Command("end_turn", seat, {}))
        over = GAME.evolve(placed, event)
        assert over.phase == "over" and over.round == 7 and GAME.is_checkpoint(over)
        assert over.result is not None and over.result.kind == "end"
        assert over.round_ended is ended and GAME.snapshot(over)["round_ended"] is ended
        shown = GAME.event_view(placed, event, None)
        assert shown is not None and shown.data["round_ended"] is ended
        assert GAME.view(over, None)["rounds"] == rounds
        assert GAME.tally(over)["rounds"] == [rounds, rounds]
        assert GAME.restore(GAME.snapshot(over), 2, GAME.make_options(2, {})) == over
    going = position({}, hands=(["TBLH", "TBLF"], ["TBSH"]), seat=0, starter=0)
    assert GAME.view(going, 0)["rounds"] == 0
    going = act(act(going, "place", card="TBLH", space=5), "end_turn")
    assert GAME.view(going, 0)["rounds"] == 0 and not going.round_ended
    going = act(act(going, "place", card="TBSH", space=6), "end_turn")
    assert going.round == 2 and going.round_ended and GAME.view(going, 0)["rounds"] == 1


def test_an_empty_hand_passes_while_the_other_plays_on() -> None:
    state = position({}, hands=([], ["TBLH", "TBLF"]), seat=0, starter=0)
    state = act(state, "pass")
    state = act(act(state, "place", card="TBLH", space=5), "end_turn")
    assert state.phase == "play" and state.round == 2
    state = act(state, "pass")
    state = act(act(state, "place", card="TBLF", space=6), "end_turn")
    assert state.phase == "over" and state.result is not None


# --- views -------------------------------------------------------------------------------

CONTRACT_KEYS = {"game", "players", "phase", "round", "rounds", "to_act", "starter", "board",
                 "hands", "deck", "discards", "scores", "turn", "last_turn", "legal", "result"}


def test_views_follow_the_contract() -> None:
    table = set_up(NO_STARS)
    state = table.state
    for viewer in (None, 0, 1):
        view = GAME.view(state, viewer)
        assert set(view) >= CONTRACT_KEYS
        assert len(view["board"]) == 16
        assert all({"height", "top", "face_down"} <= set(cell) for cell in view["board"])
        json.dumps(view)
    mine = GAME.view(state, 0)
    assert set(mine["legal"]) == {"placements", "claims", "duties", "take_back", "end_turn",
                                  "pass"}
    assert GAME.view(state, 1)["legal"] == {} and GAME.view(state, None)["legal"] == {}
    assert mine["turn"] == {"seat": 0, "claims": [], "placed": None, "duties": [], "points": 0,
                            "passed": False, "touched": False}
    assert mine["hands"] == GAME.view(state, 1)["hands"] == GAME.view(state, None)["hands"]
    tops = tops_of(state)
    for code, spaces in mine["legal"]["placements"].items():
        for space, points in spaces:
            assert placement_points(tops, DECK.index_of[code], space) == points
            after = act(state, "place", card=code, space=space)
            assert after.scores[0] == points
    listed = {(c, s) for c, spaces in mine["legal"]["placements"].items() for s, _ in spaces}
    for code in mine["hands"][0]:
        for space in range(SPACES):
            if (code, space) not in listed:
                assert refused(state, "place", card=code, space=space).code == \
                    "illegal_placement"
    after = act(act(state, "place", card=mine["hands"][0][0], space=5), "end_turn")
    last = GAME.view(after, None)["last_turn"]
    assert last["seat"] == 0 and last["drew"] == DECK.code_of[state.deck[0]]
    json.dumps(GAME.snapshot(after))


# --- bots --------------------------------------------------------------------------------

def test_greedy_places_for_the_most_points_and_claims_and_does_duties() -> None:
    state = position({5: FULL3 + ["TBLH"], 6: [D2], 9: [D4]}, owners={5: 1},
                     hands=(["SRLF", "TYSF"], ["CRLF"]), deck=["CRLH"])
    bot = GreedyBot(random.Random(1))
    assert ask(bot, GAME, state, 0) == Command("claim", 0, {"kind": "turn_over", "space": 5})
    state = act(state, "claim", kind="turn_over", space=5)
    command = ask(bot, GAME, state, 0)
    best = max(points for spaces in GAME.view(state, 0)["legal"]["placements"].values()
               for _, points in spaces)
    state = act(state, command.type, **command.data)
    assert state.scores[0] == 2 + best
    assert ask(bot, GAME, state, 0).type == "end_turn"
    duty = position({6: FULL3}, hands=(["SRLF"], ["CRLF"]))
    duty = act(duty, "place", card="SRLF", space=6)
    assert ask(bot, GAME, duty, 0) == Command("turn_over", 0, {"space": 6})


def best_reply(state: BarsState, card: str, space: int) -> int:
    """The opponent's best placement after seat 0 places ``card`` on ``space``."""
    after = act(act(state, "place", card=card, space=space), "end_turn")
    return max(points for spaces in GAME.view(after, 1)["legal"]["placements"].values()
               for _, points in spaces)


def test_lookahead_weighs_the_opponents_reply() -> None:
    # SRLF scores 2 on b2 and on d2 (beside c2's SRSH); some opponent's card scores more in
    # reply to one than to the other, and the lookahead takes the other (greedy cannot tell)
    for code in DECK.code_of:
        if code in ("SRLF", D2):
            continue
        state = position({6: [D2]}, hands=(["SRLF"], [code]))
        replies = {space: best_reply(state, "SRLF", space) for space in (5, 7)}
        if replies[5] != replies[7]:
            break
    else:
        raise AssertionError("no card tells b2 from d2")
    placements = dict(map(tuple, GAME.view(state, 0)["legal"]["placements"]["SRLF"]))
    assert placements[5] == placements[7] == 2 and max(placements.values()) == 2
    chosen = ask(LookaheadBot(random.Random(0)), GAME, state, 0)
    assert chosen == Command("place", 0, {"card": "SRLF", "space": min(replies,
                                                                       key=replies.get)})
    assert set(bot_kinds(GAME)) == {"random", "greedy", "lookahead", "strong"}
    assert BOTS["greedy"] is GreedyBot
    assert DEFAULT_BOT == "lookahead"


@pytest.mark.parametrize("bots", ["greedy,random", "random,lookahead", "lookahead,greedy"])
def test_bot_games_verify(tmp_path: Path, bots: str) -> None:
    summary, written = simulate(GAME, 2, {}, 4, 3, bots, tmp_path)
    assert summary.games == 4
    for path in written:
        assert not isinstance(verify(path), Mismatch), path
    for kind, tally in summary.kinds.items():  # the sim seats the kinds in turn
        if kind != "random":
            assert tally.counters["duties forgotten"] == 0


def test_greedy_claims_what_random_forgets() -> None:
    summary, _ = simulate(GAME, 2, {}, 10, 1, "greedy,random", None)
    assert summary.kinds["random"].counters["duties forgotten"] > 0
    assert summary.kinds["greedy"].counters["claims made"] > 0


# --- random games, rebuilt strictly from their logs ----------------------------------------

def conserved(state: BarsState) -> bool:
    cards = [card for stack in state.stacks for card in stack] + list(state.deck)
    mask = state.hands[0] | state.hands[1] | state.discards
    return sorted(cards + [c for c in range(48) if mask >> c & 1]) == list(range(48))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), deal=st.integers(1, 2**40))
def test_random_playthroughs_rebuild_strictly(seed: int, deal: int) -> None:
    rng = random.Random(seed)
    players = [RandomBot(random.Random(seed + seat)) for seat in range(2)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.starhall"
        table = Table.new(GAME, 2, {}, path=str(path))
        table.shuffle(deal)
        states = [table.state]
        steps = 0
        while not table.outcome().over:
            state = table.state
            assert conserved(state)
            (seat,) = GAME.to_act(state)
            assert GAME.legal_actions(state, 1 - seat) == []
            actions = GAME.legal_actions(state, seat)
            assert actions
            view = GAME.view(state, seat)
            assert view["legal"]["pass"] == (actions[-1].type == "pass")
            command = ask(players[seat], GAME, state, seat)
            if rng.random() < 0.05:  # now and then a command the rules refuse changes nothing
                bad = Command("place", seat, {"card": "SRLF", "space": rng.randrange(16)})
                try:
                    GAME.decide(state, bad)
                except IllegalCommand:
                    assert table.state is state
            events = table.submit(command)
            for _, event in events:
                shown = GAME.event_view(state, event, None)
                assert shown is not None
                assert not set(DECK.code_of[c] for c in table.state.deck) & set(
                    json.dumps(shown.data).split('"'))
                GAME.describe_event(shown)
                GAME.describe_event(event)
            states.append(table.state)
            steps += 1
            assert steps < 2000
        assert conserved(table.state) and GAME.is_checkpoint(table.state)
        if table.log is not None:
            table.log.close()
        assert not isinstance(verify(path), Mismatch)
        recording = load(path)
        rebuilt = [state for _, state in recording.states()]
        assert rebuilt[-1] == table.state
        assert GAME.snapshot(rebuilt[-1]) == GAME.snapshot(table.state)


def test_a_forged_log_event_is_refused_on_rebuild(tmp_path: Path) -> None:
    table = set_up(NO_STARS)
    state = table.state
    forged = Event("placed", 0, {"card": "SRLF", "space": 5})  # not in seat 0's hand
    with pytest.raises(IllegalCommand):
        GAME.decide(state, GAME.command_for(forged))
    points = Event("placed", 0, {"card": GAME.view(state, 0)["hands"][0][0], "space": 5,
                                 "points": 99})
    decided = GAME.decide(state, GAME.command_for(points))
    assert decided[0] != points  # typed points never reach the log


# --- golden replays ----------------------------------------------------------------------

def test_golden_replays_verify_and_cover_each_ending() -> None:
    kinds = set()
    claims = 0
    for path in sorted(GOLDEN.glob("stars_and_bars_*.starhall")):
        assert not isinstance(verify(path), Mismatch), path
        state = load(path).state_at()
        assert state.result is not None
        kinds.add(state.result.kind)
        claims += sum(GAME.tally(state)["claims made"])
    assert {"over_200", "lead_50"} <= kinds
    assert kinds & {"tie_end", "tie_over_200"}
    assert claims > 0
