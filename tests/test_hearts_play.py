"""Hearts played at random: invariants, refused commands, and what each seat may see."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import HEARTS, play_randomly

from starhall.shared.cards import bits
from starhall.shared.engine import Command, IllegalCommand
from starhall.shared.games.hearts.rules import STARDECK, HeartsState
from starhall.shared.table import Table

SETUPS = [(p, {"mode": m}) for p in (3, 4, 5, 6) for m in ("exchange", "no_exchange",
                                                              "blind_trick")]
SETUPS += [(3, {"mode": "anti_trump"}), (6, {"mode": "anti_trump"}), (4, {"deck": "classic"}),
           (4, {"qs_breaks_hearts": True, "pass_cards": 0})]


def cards_everywhere(state: HeartsState) -> int:
    """Every card's place: hands, the trick, tricks won, undealt and out of play; each once."""
    seen = 0
    total = 0
    places = [*state.hands, *state.won, state.undealt, state.out_of_play]
    places += [1 << card for _, card in state.trick]
    for place in places:
        assert not seen & place, "a card is in two places"
        seen |= place
        total += place.bit_count()
    return seen


@settings(max_examples=25, deadline=None)
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32))
def test_random_games_keep_every_invariant(setup: tuple[int, dict[str, object]],
                                           seed: int) -> None:
    players, options = setup
    rng = random.Random(seed)
    table = Table.new(HEARTS, players, {**options, "target": 40})
    game = HEARTS
    while not table.outcome().over:
        state = table.state
        if game.chance(state) is not None:
            table.shuffle(rng.randrange(2**40))
            continue
        if state.hand_number:
            assert cards_everywhere(state) == state.rules.deck.full
        seats = game.to_act(state)
        assert seats, "someone can act until the game is over"
        for seat in seats:
            assert game.legal_actions(state, seat) or state.phase == "exchange"
        seat = seats[0]
        table.submit(game.random_action(state, seat, rng))
    for row in table.state.score_sheet:
        assert sum(row) in (26, 26 * (players - 1))
    assert table.state.totals == tuple(map(sum, zip(*table.state.score_sheet, strict=True)))


def play_phase_table() -> Table[HeartsState]:
    table = Table.new(HEARTS, 4, {"pass_cards": 0, "mode": "no_exchange"})
    table.shuffle(11)
    assert table.state.phase == "play"
    return table


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (lambda s: Command("play", (s.turn + 1) % 4, {"card": "3C"}), "not_your_turn"),
        (lambda s: Command("play", s.turn, {"card": "ZZ"}), "bad_card"),
        (lambda s: Command("play", s.turn, {"card": 17}), "bad_card"),
        (lambda s: Command("play", 9, {"card": "3C"}), "bad_seat"),
        (lambda s: Command("play", s.turn, {}), "bad_card"),
        (lambda s: Command("pass", s.turn, {"cards": []}), "wrong_phase"),
        (lambda s: Command("take_exchange", s.turn, {"cards": []}), "wrong_phase"),
        (lambda s: Command("shuffle", None, {"order": []}), "wrong_phase"),
        (lambda s: Command("dance", s.turn, {}), "unknown_command"),
    ],
)
def test_bad_commands_are_refused_and_change_nothing(command: object, code: str) -> None:
    table = play_phase_table()
    state, seq = table.state, table.seq
    with pytest.raises(IllegalCommand) as refused:
        table.submit(command(state))  # type: ignore[operator]
    assert refused.value.code == code and str(refused.value)
    assert table.state is state and table.seq == seq


def test_a_card_not_held_is_refused_with_its_reason() -> None:
    table = play_phase_table()
    state = table.state
    other = STARDECK.codes(state.hands[(state.turn + 1) % 4])[0]
    name = STARDECK.card(other).name
    with pytest.raises(IllegalCommand, match=f"^you do not hold the {name}$") as refused:
        table.submit(Command("play", state.turn, {"card": other}))
    assert refused.value.code == "card_not_held"
    assert table.state is state


def test_a_shuffle_must_hold_exactly_the_cards() -> None:
    table = Table.new(HEARTS, 4, {})
    request = HEARTS.chance(table.state)
    assert request is not None
    for order in (list(request.items)[:-1], [*request.items[:-1], request.items[0]], "2C"):
        with pytest.raises(IllegalCommand):
            table.submit(Command("shuffle", None, {"order": order}))
    with pytest.raises(IllegalCommand, match="only the host"):
        table.submit(Command("shuffle", 0, {"order": list(request.items)}))
    assert table.seq == 0


def test_a_seat_sees_its_own_hand_and_a_spectator_sees_no_hand() -> None:
    table = Table.new(HEARTS, 4, {})
    table.shuffle(5)
    state = table.state
    for seat in range(4):
        view = HEARTS.view(state, seat)
        assert view["hand"] == STARDECK.codes(state.hands[seat])
        assert "hands" not in view and "undealt" not in view
    spectator = HEARTS.view(state, None)
    assert "hand" not in spectator and "legal" not in spectator
    assert spectator["hand_sizes"] == [16, 16, 16, 16]


def test_events_are_cut_to_what_each_seat_may_see() -> None:
    table = Table.new(HEARTS, 4, {"mode": "no_exchange"})
    before = table.state
    request = HEARTS.chance(before)
    assert request is not None
    (seq, deal), = table.shuffle(99)
    for viewer in (None, 0, 1, 2, 3):
        seen = HEARTS.event_view(before, deal, viewer)
        assert seen is not None
        assert "order" not in seen.data and "seed" not in seen.data
        if viewer is not None:
            assert seen.data["hand"] == STARDECK.codes(table.state.hands[viewer])
    state = table.state
    hand = STARDECK.codes(state.hands[0])[:3]
    (_, passed), = table.submit(Command("pass", 0, {"cards": hand}))
    assert HEARTS.event_view(state, passed, 0).data["cards"] == hand  # type: ignore[union-attr]
    for viewer in (None, 1, 2, 3):
        assert "cards" not in HEARTS.event_view(state, passed, viewer).data  # type: ignore[union-attr]


def test_the_last_pass_tells_each_seat_what_it_received() -> None:
    table = Table.new(HEARTS, 4, {"mode": "no_exchange"})
    table.shuffle(4)
    for seat in range(3):
        table.submit(Command("pass", seat, {"cards": STARDECK.codes(table.state.hands[seat])[:3]}))
    before = table.state
    last = STARDECK.codes(before.hands[3])[:3]
    (_, passed), = table.submit(Command("pass", 3, {"cards": last}))
    seen = HEARTS.event_view(before, passed, 0)
    assert seen is not None and seen.data["received"] == last  # seat 3 passes left, to seat 0
    assert HEARTS.view(table.state, 0)["received"] == last


def test_legal_actions_match_what_decide_accepts() -> None:
    rng = random.Random(8)
    table = Table.new(HEARTS, 5, {"pass_cards": 0})
    play_randomly(table, rng, until=lambda s: s.phase == "play" and s.tricks_played == 3)
    state = table.state
    seat = state.turn
    allowed = {c.data["card"] for c in HEARTS.legal_actions(state, seat)}
    for index in bits(state.hands[seat]):
        code = STARDECK.code_of[index]
        try:
            HEARTS.decide(state, Command("play", seat, {"card": code}))
            accepted = True
        except IllegalCommand:
            accepted = False
        assert accepted == (code in allowed)
