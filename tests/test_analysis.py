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
    trick_deck,
)
from starhall.shared.engine import Event
from starhall.shared.games.stars_and_bars.rules import DECK
from starhall.shared.games.what_else.rules import cards_for
from starhall.shared.replay import IllegalEvent, Recording, load

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"
EXACT = Settings(think=0.0, worlds=12, seed=7)
"""Exactly 12 deals a decision: the same values on any machine."""


def a_decision(recording: Recording) -> tuple[int, int]:
    """A decision some way into the game, with several moves to choose from: ``(seq, seat)``."""
    game = recording.game
    for seq, state, _ in positions(recording):
        if seq < 20 or seq >= recording.last_seq:
            continue
        event = recording.event(seq + 1)
        if (event.seat is not None and event.type in ("played", "placed")
                and len(game.legal_actions(state, event.seat)) > 2):
            return seq, event.seat
    raise AssertionError("no decision found")


def hidden_pairs(recording: Recording, seq: int, seat: int) -> list[tuple[str, str]]:
    """Cards the seat has not seen after event ``seq`` that may trade places in the shuffle
    with nothing else changing: in a trick game, two cards of one suit that two other seats
    held from the deal on (neither played, passed nor buried yet: every move stays legal); in
    Stars and Bars, two cards of the deck not drawn yet; in "what else?", a card another seat
    held from the deal on and one still in the draw pile (a pass the swap makes illegal is
    passed over)."""
    state = recording.state_at(seq)
    if recording.game.id == "stars_and_bars":
        undrawn = [DECK.code_of[card] for card in state.deck]
        return list(zip(undrawn[::2], undrawn[1::2], strict=False))
    if recording.game.id == "what_else":  # a held card and one still to be drawn
        deck = cards_for(recording.options["star_table"]).deck
        dealt, now = recording.state_at(1).hands, state.hands
        undrawn = [deck.code_of[card] for card in state.draw]
        return [(x, y) for other in range(recording.players) if other != seat
                for x in deck.codes(dealt[other] & now[other]) for y in undrawn]
    deck = trick_deck(recording)
    deal_seq = max(at for at, event in recording.events if event.type == "deal" and at <= seq)
    dealt, now = recording.state_at(deal_seq).hands, state.hands
    others = [other for other in range(recording.players) if other != seat]
    return [(x, y) for a in others for b in others if a < b
            for x in deck.codes(dealt[a] & now[a]) for y in deck.codes(dealt[b] & now[b])
            if deck.card(x).suit == deck.card(y).suit]


def with_hidden_cards_swapped(recording: Recording, seq: int, seat: int) -> Recording:
    """The same log up to the seat's move after ``seq``, two cards the seat has not seen
    swapped in the last shuffle before it: nothing the seat was shown changes, and the log
    is still one the rules give (checked strictly)."""
    shuffle = max(index for index, (at, event) in enumerate(recording.events)
                  if event.type in ("deal", "shuffled") and at <= seq
                  and (recording.game.id != "what_else" or at == 1))  # its deal, not a reshuffle
    at, event = recording.events[shuffle]
    for x, y in hidden_pairs(recording, seq, seat):
        order = [y if code == x else x if code == y else code for code in event.data["order"]]
        events = list(recording.events[:seq + 1])
        events[shuffle] = (at, Event(event.type, None, {"order": order}))
        swapped = replace(recording, events=events, checkpoints={})
        try:
            list(swapped.states())  # strictly: every move still legal
        except IllegalEvent:
            continue
        return swapped
    raise AssertionError("no two hidden cards to swap")


@pytest.mark.parametrize("log", ["hearts_4p_mode-no_exchange", "hearts_5p_mode-blind_trick",
                                 "stars_4p", "stars_and_bars_2p_claims", "what_else_4p"])
def test_a_decision_never_uses_a_card_its_seat_did_not_see(log: str) -> None:
    recording = load(GOLDEN / f"{log}.starhall")
    seq, seat = a_decision(recording)
    swapped = with_hidden_cards_swapped(recording, seq, seat)
    game = recording.game
    assert game.snapshot(swapped.state_at(seq)) != game.snapshot(recording.state_at(seq))
    decision = analyse_at(recording, seq, seat, EXACT)
    assert decision is not None and decision.played is not None
    assert len(decision.moves) > 1 and not decision.all_alike
    assert analyse_at(swapped, seq, seat, EXACT) == decision  # the hidden cards differ, only
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


def test_the_stars_hints_give_exact_win_chances() -> None:
    recording = load(GOLDEN / "star_patience_1p_deal-113.starhall")
    decisions = analyse_game(recording, EXACT)
    assert decisions and all(decision.exact and decision.unit == "% win chance"
                             for decision in decisions)
    for decision in decisions:
        assert all(move.spread == 0 and 0 <= move.value <= 100 for move in decision.moves)
        assert decision.played is not None and decision.where.startswith("move ")


def test_a_game_without_a_strong_bot_is_refused_in_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from starhall.shared import analysis

    monkeypatch.setattr(analysis, "bot_kinds", lambda game: {})
    with pytest.raises(NoAnalysis, match=r"\(White Star\) has no strong bot to analyse"):
        analyse_game(load(GOLDEN / "stars_4p.starhall"), EXACT)


def test_a_decision_out_of_the_log_is_refused_in_words() -> None:
    recording = load(GOLDEN / "stars_4p.starhall")
    with pytest.raises(ValueError, match="no event 999"):
        analyse_at(recording, 999, 0, EXACT)
    with pytest.raises(ValueError, match="no seat 9"):
        analyse_at(recording, 1, 9, EXACT)


def test_a_hearts_pass_is_weighed_from_the_passers_hand_alone() -> None:
    """The pass is searched (the three cards together), so the analysis weighs it too: each
    pass the search weighs and the one played, valued in the hand's points, and the same
    whatever the cards the passer has not seen."""
    recording = load(GOLDEN / "hearts_4p_mode-no_exchange.starhall")
    seq, seat = next((at - 1, event.seat) for at, event in recording.events
                     if event.type == "passed" and event.seat is not None)
    decision = analyse_at(recording, seq, seat, EXACT)
    assert decision is not None and decision.played is not None
    assert decision.where == "hand 1, the pass" and decision.unit == "points this hand"
    assert len(decision.moves) > 1 and not decision.all_alike
    assert all(move.words.startswith("passing the ") and " and " in move.words
               for move in decision.moves)  # "passing the 8 and 9 of Hearts and the …"
    swapped = with_hidden_cards_swapped(recording, seq, seat)
    assert analyse_at(swapped, seq, seat, EXACT) == decision


@pytest.mark.parametrize("kind", ["bid", "bury"])
def test_a_stars_bid_and_burial_are_weighed_from_the_seats_hand_alone(kind: str) -> None:
    """The bid (from hands played out as declarer) and the burial are searched, so the
    analysis weighs them too, the same whatever the cards the seat has not seen."""
    recording = load(GOLDEN / "stars_4p.starhall")
    seq, seat = next((at - 1, event.seat) for at, event in recording.events
                     if event.type == {"bid": "bid", "bury": "buried"}[kind]
                     and event.seat is not None)
    decision = analyse_at(recording, seq, seat, EXACT)
    assert decision is not None and decision.played is not None
    where = {"bid": "the bidding", "bury": "the burial"}[kind]
    assert decision.where == f"hand 1, {where}" and len(decision.moves) > 1
    words = {"bid": ("bidding ", "passing"), "bury": ("burying the ",)}[kind]
    assert all(move.words.startswith(words) for move in decision.moves)
    assert analyse_at(with_hidden_cards_swapped(recording, seq, seat), seq, seat,
                      EXACT) == decision
