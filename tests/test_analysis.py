"""The analysis of a recorded game (``shared/analysis.py``): each decision weighed by the strong
bot from its seat's eyes alone, the move played marked, the costliest decisions listed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from starhall.shared.analysis import (
    Decision,
    NoAnalysis,
    Settings,
    analyse_at,
    analyse_game,
    costliest,
    positions,
)
from starhall.shared.engine import Event
from starhall.shared.replay import Recording, load

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"
EXACT = Settings(think=0.0, worlds=12, seed=7)
"""Exactly 12 deals a decision: the same values on any machine."""


def hearts_decision(recording: Recording) -> tuple[int, int]:
    """A decision in the first hand's play, after a few tricks, with cards to choose from:
    ``(seq, seat)``."""
    for seq, state, _ in positions(recording):
        if state.phase == "play" and state.tricks_played >= 3 and len(state.trick) == 2:
            seat = state.turn
            if len(recording.game.legal_actions(state, seat)) > 2:
                return seq, seat
    raise AssertionError("no decision found")


def with_hidden_cards_swapped(recording: Recording, seq: int, seat: int) -> Recording:
    """The same log up to the seat's move after ``seq``, two other seats holding each other's
    card of one suit from the deal on (cards neither has played yet, never passed): nothing
    the seat was shown changes, and the log is still one the rules give."""
    deal_index = max(index for index, (at, event) in enumerate(recording.events)
                     if event.type == "deal" and at <= seq)
    dealt = recording.state_at(recording.events[deal_index][0]).hands
    now = recording.state_at(seq).hands
    deck = recording.state_at(seq).rules.deck
    others = [other for other in range(recording.players) if other != seat]
    for a in others:
        for b in others:
            if a >= b:
                continue
            for x in deck.codes(dealt[a] & now[a]):
                for y in deck.codes(dealt[b] & now[b]):
                    if deck.card(x).suit != deck.card(y).suit:
                        continue
                    event = recording.events[deal_index][1]
                    order = [y if code == x else x if code == y else code
                             for code in event.data["order"]]
                    events = list(recording.events[:seq + 1])
                    events[deal_index] = (events[deal_index][0],
                                          Event("deal", None, {"order": order}))
                    swapped = replace(recording, events=events, checkpoints={})
                    list(swapped.states())  # strictly: every move still legal
                    return swapped
    raise AssertionError("no two hidden cards to swap")


def test_a_decision_never_uses_a_card_its_seat_did_not_see() -> None:
    recording = load(GOLDEN / "hearts_4p_mode-no_exchange.starhall")
    seq, seat = hearts_decision(recording)
    swapped = with_hidden_cards_swapped(recording, seq, seat)
    assert swapped.state_at(seq).hands != recording.state_at(seq).hands
    decision = analyse_at(recording, seq, seat, EXACT)
    assert decision is not None and decision.played is not None
    assert len(decision.moves) > 2 and not decision.all_alike
    assert analyse_at(swapped, seq, seat, EXACT) == decision
    # Not by chance: another seed gives other values.
    assert analyse_at(recording, seq, seat, replace(EXACT, seed=8)) != decision


@pytest.mark.parametrize("log", ["hearts_4p_mode-exchange", "stars_4p",
                                 "what_else_3p", "stars_and_bars_2p_tie"])
def test_each_decision_marks_the_move_played_and_the_costliest_are_listed(log: str) -> None:
    recording = load(GOLDEN / f"{log}.starhall")
    seen: list[int] = []
    decisions = analyse_game(recording, Settings(think=0.0, worlds=3), seats=[0],
                             progress=lambda: seen.append(1))
    assert decisions and len(seen) == sum(1 for _, e in recording.events if e.seat == 0)
    for decision in decisions:
        assert decision.seat == 0
        assert sum(move.played for move in decision.moves) == 1
        values = [move.value for move in decision.moves]
        assert values == sorted(values, reverse=True)  # best first
        assert Decision.from_data(decision.as_data()) == decision
    dear = costliest(decisions, 0)
    assert [d.cost for d in dear] == sorted((d.cost for d in dear), reverse=True)
    for decision in dear:
        line = decision.sentence()
        assert decision.where in line and "cost about" in line and decision.unit in line
        assert decision.played is not None and decision.played.words in line


def test_a_patience_has_no_strong_bot_to_analyse_with() -> None:
    recording = load(GOLDEN / "star_patience_1p_deal-1.starhall")
    with pytest.raises(NoAnalysis, match="no strong bot"):
        analyse_game(recording, EXACT)


def test_a_decision_out_of_the_log_is_refused_in_words() -> None:
    recording = load(GOLDEN / "stars_4p.starhall")
    with pytest.raises(ValueError, match="no event 999"):
        analyse_at(recording, 999, 0, EXACT)
    with pytest.raises(ValueError, match="no seat 9"):
        analyse_at(recording, 1, 9, EXACT)
