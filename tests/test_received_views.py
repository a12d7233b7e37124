"""What the views say about cards a seat received this hand (the Stars widow, the Hearts
exchange and pass), and the face-down blind trick of Hearts, which nobody sees before the hand
is scored."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support import HEARTS, dealt_table, fill_hands, play_randomly

from starhall.shared.engine import Command
from starhall.shared.games import get_game
from starhall.shared.games.hearts.rules import STARDECK
from starhall.shared.games.stars.rules import DECK as STARS_DECK
from starhall.shared.table import Table
from tests.server_helpers import strings as every_string

STARS = get_game("stars")


def hearts_cards(players: int, options: dict[str, Any]) -> list[str]:
    request = HEARTS.chance(HEARTS.new_state(players, HEARTS.make_options(players, options)))
    assert request is not None
    return list(request.items)


def strings(value: Any) -> set[str]:
    return set(every_string(value))


# --- Stars: the widow ---------------------------------------------------------------------


def test_the_stars_declarer_alone_sees_the_widow_as_received_and_its_burial() -> None:
    table = Table.new(STARS, 4, {})
    table.shuffle(3)
    for seat, amount in (1, 40), (2, None), (3, None), (0, None):
        table.submit(Command("pass", seat, {}) if amount is None
                     else Command("bid", seat, {"amount": amount}))
    state = table.state
    widow = STARS_DECK.codes(state.widow)
    assert STARS.view(state, 1)["received"] == widow
    for seat in (0, 2, 3):
        view = STARS.view(state, seat)
        assert view["received"] == [] and not strings(view) & set(widow)
    assert "received" not in STARS.view(state, None)
    assert not strings(STARS.view(state, None)) & set(widow)
    burial = STARS.view(state, 1)["hand"][:3]
    table.submit(Command("bury", 1, {"cards": burial}))
    mine = STARS.view(table.state, 1)
    assert mine["received"] == widow and mine["buried"] == burial  # to review while playing
    rng = random.Random(2)
    play_randomly(table, rng, until=lambda s: s.phase != "play")
    assert STARS.view(table.state, 1)["received"] == []  # the hand is over


# --- Hearts: the exchange and the pass ----------------------------------------------------


def test_the_hearts_exchange_taker_receives_the_undealt_cards_and_nobody_else_sees_them() -> None:
    hands = fill_hands(hearts_cards(4, {}), {}, 4, 16, ["AS"])
    table = dealt_table(4, {}, hands, ["AS"])
    table.submit(Command("take_exchange", 0, {"cards": ["2C"]}))
    state = table.state
    assert HEARTS.view(state, 0)["received"] == ["AS"]
    for viewer in (None, 1, 2, 3):
        view = HEARTS.view(state, viewer)
        assert "AS" not in strings(view) and view.get("received", []) == []
    # the pass adds what the seat to its right passed it (4 players, the first hand: left)
    for seat in range(4):
        table.submit(Command("pass", seat, {"cards": HEARTS.view(table.state, seat)["hand"][:3]}))
    passed_to_0 = STARDECK.codes(table.state.received[0])
    assert HEARTS.view(table.state, 0)["received"] == STARDECK.codes(
        STARDECK.mask(["AS", *passed_to_0]))
    assert HEARTS.view(table.state, 1)["received"] == STARDECK.codes(table.state.received[1])


# --- Hearts: the blind trick --------------------------------------------------------------


def blind_table(undealt: list[str]) -> Table[Any]:
    options = {"mode": "blind_trick", "pass_cards": 0}
    cards = hearts_cards(4, options)
    fixed = {0: ["2C", *(f"{r}D" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                            "Q", "K", "A")), "2*", "3*"],
             1: ["AC", *(f"{r}H" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J",
                                            "Q", "K", "A")), "2S", "3S"]}
    return dealt_table(4, options, fill_hands(cards, fixed, 4, 16, undealt), undealt)


def test_the_blind_trick_lies_face_down_until_the_hand_is_scored() -> None:
    table = blind_table(["QS"])
    assert HEARTS.view(table.state, None)["blind"] is None
    for seat, card in (0, "2C"), (1, "AC"):
        table.submit(Command("play", seat, {"card": card}))
    for seat in (2, 3):
        table.submit(Command("play", seat, {"card": HEARTS.view(table.state, seat)["legal"]
                                            ["play"][0]}))
    state = table.state
    assert state.last_winner == 1 and state.won[1] & STARDECK.mask(["QS"])
    for viewer in (None, 0, 1, 2, 3):  # the winner included: the cards lie face down
        view = HEARTS.view(state, viewer)
        assert "QS" not in strings(view)
        assert view["blind"] == {"seat": 1, "count": 1}
        assert view["taken_points"][1] == 0  # the Queen's 13 points are not shown either
        assert view["undealt_count"] == 0
    assert "QS" in strings(HEARTS.snapshot(state))  # the snapshot is everything
    play_randomly(table, random.Random(4), until=lambda s: s.phase != "play")
    end = table.state
    view = HEARTS.view(end, None)
    assert view["blind"] is None and "QS" in view["taken"][1]  # scored: turned up
    assert "undealt_taken" not in HEARTS.snapshot(end)  # so checkpoints are as before


@settings(max_examples=15, deadline=None)
@given(players=st.sampled_from([3, 4, 6]), seed=st.integers(0, 2**32))
def test_no_view_shows_a_blind_card_during_its_hand(players: int, seed: int) -> None:
    rng = random.Random(seed)
    table = Table.new(HEARTS, players, {"mode": "blind_trick", "target": 30})
    blind: set[str] = set()
    while not HEARTS.outcome(table.state).over:
        state = table.state
        if HEARTS.chance(state) is not None:
            table.shuffle(rng.randrange(2**40))
            blind = set(STARDECK.codes(table.state.undealt))
            continue
        if state.phase == "play":
            for viewer in (None, *range(players)):
                shown = strings(HEARTS.view(state, viewer))
                assert not shown & blind, f"{viewer} sees {sorted(shown & blind)}"
        table.submit(HEARTS.random_action(state, HEARTS.to_act(state)[0], rng))
