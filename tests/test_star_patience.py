"""The Star (star_patience): rules, deal numbers, undo and redo, views that keep the stock
secret, the exact hints, the solver, and the commands around them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starhall.cli import main
from starhall.server.sim import simulate
from starhall.server.solve import deal_range, dealt, hint_player_wins, summary
from starhall.shared.engine import Command, Event, IllegalCommand
from starhall.shared.games import get_game
from starhall.shared.games.star_patience.bots import (
    BOTS,
    HintBot,
    chances,
    hint,
    hint_for_view,
    solve,
    win_chance,
)
from starhall.shared.games.star_patience.rules import (
    DECK,
    LINES,
    MAX_DEAL,
    NO_CARD,
    apply_pair,
    apply_place,
    deal_order,
    rank_of,
)
from starhall.shared.replay import Mismatch, load, verify
from starhall.shared.table import Table
from tests.server_helpers import strings
from tests.support import ask

GAME = get_game("star_patience")
ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "replays" / "golden"

# A hand-made deal (lines N E S W NE SE SW NW). No King or Ace lies in the star.
INNER = ["7C", "8C", "9C", "10C", "JC", "QC", "7D", "8D"]
OUTER = ["9D", "10D", "JD", "QD", "7H", "8H", "9H", "10H"]
STOCK = ["9S", "KC", "KD", "7S", "AC", "AD", "JH", "QH", "KH", "AH", "8S", "10S", "JS", "QS",
         "KS", "AS"]


def table_for(stock: list[str] = STOCK, **options: Any) -> Table[Any]:
    table = Table.new(GAME, 1, options)
    table.submit(Command("shuffle", None, {"order": INNER + OUTER + stock}))
    return table


def pair(table: Table[Any], code: str) -> None:
    table.submit(Command("pair", 0, {"card": code}))


def place(table: Table[Any], line: str) -> None:
    table.submit(Command("place", 0, {"line": line}))


def refusal(table: Table[Any], kind: str, **data: Any) -> IllegalCommand:
    with pytest.raises(IllegalCommand) as caught:
        table.submit(Command(kind, 0, data))
    return caught.value


def view(table: Table[Any]) -> dict[str, Any]:
    return GAME.view(table.state, 0)


# --- deal numbers ----------------------------------------------------------------------

PINNED = {
    1: (["KC", "9D", "8H", "AS", "JS", "10D", "AH", "8C"],
        ["7S", "JH", "QC", "10S", "QH", "8S", "KD", "10C"], "KS"),
}


def test_deal_numbers_are_pinned_to_their_layouts() -> None:
    for number, (inner, outer, turned) in PINNED.items():
        shown = view(dealt(number))
        assert (shown["inner"], shown["outer"], shown["turned"]) == (inner, outer, turned)
        assert shown["deal_number"] == number
    assert deal_order(1)[16:] == ["KS", "7D", "QS", "AD", "8D", "9H", "7C", "9C", "10H", "7H",
                                  "JD", "QD", "AC", "KH", "9S", "JC"]
    assert deal_order(2)[:4] == ["AS", "8D", "QC", "9D"]
    assert deal_order(MAX_DEAL)[:4] == ["7S", "AH", "10D", "10C"]


def test_the_table_deal_fixes_the_deal_whatever_the_host_shuffles() -> None:
    for host_seed in (0, 5, 2**62):
        table = Table.new(GAME, 1, {"deal": 7})
        (_, event), = table.shuffle(host_seed)
        assert event.data == {"order": deal_order(7), "seed": 7}
    other = Table.new(GAME, 1, {"deal": 7})  # another order is refused, never replaced
    with pytest.raises(IllegalCommand) as caught:
        other.submit(Command("shuffle", None, {"order": deal_order(8), "seed": 8}))
    assert caught.value.code == "bad_shuffle" and "deal number 7" in caught.value.reason


def test_a_host_seed_outside_the_range_becomes_a_deal_number() -> None:
    table = Table.new(GAME, 1, {})
    (_, event), = table.shuffle(2**40 + 3)
    number = (2**40 + 3) % MAX_DEAL + 1
    assert event.data == {"order": deal_order(number), "seed": number}
    table.submit(Command("give_up", 0, {}))
    assert view(table)["deal_number"] == number  # shown once the game is over


def test_a_shuffled_deal_keeps_its_number_back_until_the_game_is_over() -> None:
    """The number gives the whole stock order (deal_order): a deal the host shuffled shows it
    to nobody while it is played, in its view or its deal event; a numbered deal is an open
    book from the start; the log keeps the number in both."""
    shuffled = Table.new(GAME, 1, {})
    before = shuffled.state
    (_, event), = shuffled.shuffle(12345)
    number = event.data["seed"]
    for viewer in (0, None):
        shown = GAME.view(shuffled.state, viewer)
        assert (shown["deal_number"], shown["dealt_by"]) == (None, "shuffle")
        cut = GAME.event_view(before, event, viewer)
        assert cut is not None
        assert (cut.data["deal_number"], cut.data["dealt_by"]) == (None, "shuffle")
        assert str(number) not in json.dumps([shown, cut.data]), viewer
        assert GAME.describe_event(cut) == "a random deal"
    assert GAME.describe_event(event) == f"deal number {number}"  # the log's, in a replay
    assert GAME.snapshot(shuffled.state)["deal_number"] == number  # the log's checkpoint
    shuffled.submit(Command("give_up", 0, {}))
    assert GAME.view(shuffled.state, None)["deal_number"] == number
    numbered = dealt(7)
    assert (view(numbered)["deal_number"], view(numbered)["dealt_by"]) == (7, "number")
    assert view(table_for())["dealt_by"] == "hand"
    assert GAME.view(Table.new(GAME, 1, {}).state, 0)["dealt_by"] is None


def test_a_deal_number_must_come_with_its_own_order() -> None:
    table = Table.new(GAME, 1, {})
    with pytest.raises(IllegalCommand) as caught:
        table.submit(Command("shuffle", None, {"order": deal_order(4), "seed": 3}))
    assert caught.value.code == "bad_shuffle"
    assert "deal number 3" in caught.value.reason


def test_deal_options_are_checked() -> None:
    with pytest.raises(ValueError):
        GAME.make_options(1, {"deal": str(MAX_DEAL + 1)})
    with pytest.raises(ValueError):
        GAME.make_options(2, {})
    assert deal_range("3..5") == range(3, 6)
    with pytest.raises(ValueError):
        deal_range("5..3")


# --- rules -----------------------------------------------------------------------------

def test_pairing_moving_in_dead_places_and_placing() -> None:
    table = table_for()
    assert view(table)["legal"]["pair"] == ["9C", "9D", "9H"]
    assert refusal(table, "place", line="N").code == "must_pair"
    assert refusal(table, "pair", card="9S").code == "not_in_star"
    assert refusal(table, "pair", card="8C").code == "wrong_rank"
    assert refusal(table, "pair", card="X").code == "bad_card"
    pair(table, "9D")  # outer N leaves
    shown = view(table)
    assert shown["outer"][0] is None and shown["turned"] == "KC"
    assert shown["legal"] == {"pair": [], "place": ["N"], "undo": True, "redo": False,
                              "give_up": True}
    assert refusal(table, "place", line="E").code == "place_taken"
    assert refusal(table, "place", line="Z").code == "bad_line"
    table = table_for()
    # Refusals name cards as players do, never by code ("KS is not the rank of the turned
    # card, 7D" once).
    assert refusal(table, "place", line="N").reason == (
        "the turned 9 of Spades pairs with the 9 of Clubs, the 9 of Diamonds or the 9 of "
        "Hearts, and a card that can pair must pair")
    assert refusal(table, "pair", card="9S").reason == "the 9 of Spades is not in the star"
    assert refusal(table, "pair", card="8C").reason == (
        "the turned card is the 9 of Spades, and the 8 of Clubs is not a 9")
    pair(table, "9D")
    assert refusal(table, "place", line="E").reason == (
        f"the outer E place holds the {DECK.card(view(table)['outer'][1]).name}")
    place(table, "N")
    pair(table, "KC")
    pair(table, "7D")  # inner SW leaves: its partner 9H moves in
    shown = view(table)
    assert shown["inner"][6] == "9H" and shown["outer"][6] is None
    assert shown["turned"] == "AC"
    assert shown["legal"]["place"] == ["N", "SW"]
    table = table_for()
    pair(table, "9D")
    place(table, "N")
    pair(table, "KC")
    pair(table, "7C")  # inner N leaves with no partner: the place stays empty for good
    place(table, "N")  # AC on the outer N place; it does not move in
    shown = view(table)
    assert shown["inner"][0] is None and shown["outer"][0] == "AC"
    pair(table, "AC")
    assert view(table)["inner"][0] is None
    assert view(table)["pairs"] == [["9S", "9D"], ["KD", "KC"], ["7S", "7C"], ["AD", "AC"]]


def play_out(table: Table[Any]) -> None:
    bot = HintBot(random.Random(0))
    while not GAME.outcome(table.state).over:
        table.submit(ask(bot, GAME, table.state, 0, table))


def test_a_won_game_clears_the_star() -> None:
    table = table_for()
    play_out(table)
    shown = view(table)
    assert shown["result"] == "won" and shown["phase"] == "over"
    assert shown["stock_count"] == 0 and shown["turned"] is None
    assert shown["inner"] == [None] * 8 and shown["outer"] == [None] * 8
    assert shown["cards_removed"] == 32
    assert len(shown["cleared"]) + 2 * len(shown["pairs"]) == 32
    outcome = GAME.outcome(table.state)
    assert outcome.over and outcome.winners == (0,) and outcome.scores == (32,)


def test_lost_at_once_when_the_first_card_can_go_nowhere() -> None:
    stock = ["KC", *[code for code in STOCK if code != "KC"]]
    table = table_for(stock)
    shown = view(table)
    assert shown["phase"] == "over" and shown["result"] == "lost" and shown["turned"] == "KC"
    outcome = GAME.outcome(table.state)
    assert outcome.winners == () and outcome.scores == (0,)
    assert refusal(table, "undo").code == "wrong_phase"


STUCK = ["9S", "KC", "AC", *[c for c in STOCK if c not in ("9S", "KC", "AC")]]
"""KC takes the only empty outer place, then AC can go nowhere."""


def test_a_dead_end_is_stuck_with_undo_and_lost_without() -> None:
    table = table_for(STUCK, undo=False)
    pair(table, "9D")
    place(table, "N")
    assert view(table)["result"] == "lost" and GAME.outcome(table.state).over
    table = table_for(STUCK)
    pair(table, "9D")
    place(table, "N")
    shown = view(table)
    assert shown["phase"] == "stuck" and not GAME.outcome(table.state).over
    assert shown["legal"] == {"pair": [], "place": [], "undo": True, "redo": False,
                              "give_up": True}
    assert refusal(table, "place", line="N").code == "stuck"
    table.submit(Command("undo", 0, {}))
    assert view(table)["turned"] == "KC" and view(table)["phase"] == "play"
    table.submit(Command("redo", 0, {}))
    assert view(table)["phase"] == "stuck"
    table.submit(Command("give_up", 0, {}))
    shown = view(table)
    assert shown["result"] == "lost" and shown["gave_up"] and shown["undos"] == 1
    assert GAME.tally(table.state)["undos"] == [1]


def test_undo_and_redo_back_to_the_start() -> None:
    table = table_for()
    start = view(table)
    assert refusal(table, "undo").code == "nothing_to_undo"
    assert refusal(table, "redo").code == "nothing_to_redo"
    pair(table, "9D")
    place(table, "N")
    after_two = view(table)
    table.submit(Command("undo", 0, {}))
    table.submit(Command("undo", 0, {}))
    shown = view(table)
    assert {k: shown[k] for k in ("inner", "outer", "turned", "stock_count", "pairs")} == {
        k: start[k] for k in ("inner", "outer", "turned", "stock_count", "pairs")}
    assert shown["undos"] == 2 and shown["can_redo"] and not shown["can_undo"]
    table.submit(Command("redo", 0, {}))
    table.submit(Command("redo", 0, {}))
    shown = view(table)
    assert shown["outer"] == after_two["outer"] and shown["turned"] == after_two["turned"]
    assert shown["redos"] == 2 and shown["moves"] == 2
    table.submit(Command("undo", 0, {}))
    place(table, "N")  # the same decision anew: the redo list is dropped
    assert not view(table)["can_redo"]
    no_undo = table_for(undo=False)
    pair(no_undo, "9D")
    assert refusal(no_undo, "undo").code == "undo_off"
    assert all(c.type not in ("undo", "redo") for c in GAME.legal_actions(no_undo.state, 0))


def test_commands_from_the_wrong_seat_or_phase_are_refused() -> None:
    table = Table.new(GAME, 1, {})
    assert refusal(table, "pair", card="7C").code == "wrong_phase"
    table = table_for()
    with pytest.raises(IllegalCommand) as caught:
        table.submit(Command("pair", 1, {"card": "9D"}))
    assert caught.value.code == "bad_seat"
    assert refusal(table, "fly").code == "unknown_command"
    with pytest.raises(IllegalCommand):
        table.submit(Command("shuffle", None, {"order": deal_order(1)}))


# --- every event re-decided, views secret ----------------------------------------------

def command_for(event: Event) -> Command:
    if hasattr(GAME, "command_for"):
        return GAME.command_for(event)
    return Command(GAME.event_commands[event.type], event.seat, event.data)



def check_secrecy_and_redecide(table: Table[Any], command: Command) -> None:
    before = table.state
    events = GAME.decide(before, command)
    for seq_event in table.submit(command):
        event = seq_event[1]
        assert GAME.decide(before, command_for(event)) == [event]
        assert event == events[0]
        after = table.state
        unturned = {DECK.code_of[card] for card in after.position.stock}
        for viewer in (0, None):
            seen = set(strings(GAME.view(after, viewer)))
            shown = GAME.event_view(before, event, viewer)
            assert shown is not None
            seen |= set(strings(dict(shown.data)))
            assert not seen & unturned, (event, viewer)
        assert GAME.view(after, None) | {"seat": 0} == {
            k: v for k, v in GAME.view(after, 0).items() if k != "legal"}
        json.dumps(GAME.snapshot(after))


def conserved(state: Any) -> bool:
    position = state.position
    cards = [c for c in (*position.inner, *position.outer, position.turned, *position.stock)
             if c != NO_CARD]
    cards += [c for pair_ in position.pairs for c in pair_] + list(state.cleared)
    return sorted(cards) == list(range(32)) or state.phase == "deal"


@settings(max_examples=60, deadline=None)
@given(deal=st.integers(1, MAX_DEAL), seed=st.integers(0, 2**32), undo=st.booleans())
def test_random_play_with_undo_keeps_every_rule(deal: int, seed: int, undo: bool) -> None:
    rng = random.Random(seed)
    table = Table.new(GAME, 1, {"undo": undo})
    check_secrecy_and_redecide(table, Command("shuffle", None,
                                              {"order": deal_order(deal), "seed": deal}))
    steps = 0
    while not GAME.outcome(table.state).over:
        actions = GAME.legal_actions(table.state, 0)
        moves = [a for a in actions if a.type in ("pair", "place")]
        choice = rng.choice(actions if rng.random() < 0.3 or not moves else moves)
        if choice.type == "give_up" and rng.random() < 0.8 and len(actions) > 1:
            continue
        check_secrecy_and_redecide(table, choice)
        assert conserved(table.state)
        steps += 1
        assert steps < 500
    assert GAME.is_checkpoint(table.state)


def test_random_bots_log_games_that_verify(tmp_path: Path) -> None:
    summary_, written = simulate(GAME, 1, {}, 30, 5, "random", tmp_path)
    assert summary_.games == 30 and len(written) == 30
    for path in written:
        assert not isinstance(verify(path), Mismatch)
    assert sum(summary_.tallies["won"]) + sum(summary_.tallies["lost"]) == 30


def test_hint_bots_win_what_the_sim_reports(tmp_path: Path) -> None:
    summary_, written = simulate(GAME, 1, {}, 40, 1, "hint", tmp_path)
    assert summary_.wins[0] == summary_.tallies["won"][0] >= 30
    for path in written[:5]:
        assert not isinstance(verify(path), Mismatch)
    summary_, _ = simulate(GAME, 1, {}, 10, 1, "heuristic", None)
    assert summary_.games == 10
    summary_, _ = simulate(GAME, 1, {}, 10, 1, "fickle", None)
    assert sum(summary_.tallies["undos"]) > 0


# --- hints -----------------------------------------------------------------------------

def brute_after(inner: list[int], outer: list[int], unseen: list[int]) -> float:
    """The chance of winning before the next turn, by plain expectimax over card ranks."""
    if not unseen:
        return 1.0
    total = 0.0
    for index, rank in enumerate(unseen):
        total += brute_turn(inner, outer, rank, unseen[:index] + unseen[index + 1:])
    return total / len(unseen)


def brute_turn(inner: list[int], outer: list[int], rank: int, unseen: list[int]) -> float:
    return max((brute_after(i, o, unseen) for i, o in brute_moves(inner, outer, rank)),
               default=0.0)


def brute_moves(inner: list[int], outer: list[int], rank: int
                ) -> list[tuple[list[int], list[int]]]:
    found = []
    for line in range(8):
        if outer[line] == rank:
            found.append((inner, outer[:line] + [-1] + outer[line + 1:]))
        if inner[line] == rank:
            found.append((inner[:line] + [outer[line]] + inner[line + 1:],
                          outer[:line] + [-1] + outer[line + 1:]))
    if found:
        return found
    return [(inner, outer[:line] + [rank] + outer[line + 1:])
            for line in range(8) if outer[line] == -1]


def test_hints_are_the_exact_chance_of_winning() -> None:
    checked = 0
    for number in range(1, 400):
        table = dealt(number)
        rng = random.Random(number)
        while GAME.view(table.state, 0)["phase"] == "play" and table.state.position.stock \
                and len(table.state.position.stock) > 5:
            table.submit(GAME.random_action(table.state, 0, rng))
        shown = view(table)
        if shown["phase"] != "play":
            continue
        unseen = [rank_of(card) for card in table.state.position.stock]
        options = chances(shown)
        assert options and len(options) == len(shown["legal"]["pair"] or
                                                shown["legal"]["place"])
        position = table.state.position
        for command, chance in options:
            if command.type == "pair":
                after = apply_pair(position, DECK.index_of[command.data["card"]])
            else:
                after = apply_place(position, LINES.index(command.data["line"]))
            expected = brute_after(star_ranks(after.inner), star_ranks(after.outer), unseen)
            assert chance == pytest.approx(expected), (number, command)
        assert win_chance(shown) == pytest.approx(max(c for _, c in options))
        assert hint_for_view(shown) == hint(table.state)
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def star_ranks(cards: tuple[int, ...]) -> list[int]:
    return [-1 if card == NO_CARD else rank_of(card) for card in cards]


def test_hint_is_none_when_there_is_nothing_to_decide() -> None:
    table = table_for(STUCK)
    pair(table, "9D")
    place(table, "N")
    assert hint(table.state) is None
    assert ask(BOTS["hint"](random.Random(0)), GAME, table.state, 0, table).type == "give_up"


# --- solver ----------------------------------------------------------------------------

def test_the_solver_wins_pinned_deals_and_knows_the_lost_ones() -> None:
    line = solve(dealt(1).state)
    assert line is not None and len(line) == 16
    table = dealt(1)
    for command in line:
        table.submit(command)
    assert view(table)["result"] == "won"
    assert solve(dealt(113).state) is None  # not winnable even knowing the stock
    assert not hint_player_wins(113)
    assert solve(table_for(STUCK).state) is None
    assert solve(table_for().state) is not None
    figures = summary(range(1, 41))
    assert figures["deals"] == 40
    assert figures["hint_won"] <= figures["winnable"] <= 40 - figures["lost_at_once"]


def test_solve_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "star_patience", "--deal", "1"]) == 0
    out = capsys.readouterr().out
    assert "winnable" in out and "16. turned" in out
    assert main(["solve", "star_patience", "--deals", "1..20", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "winnable (stock order known)" in out and "hint player won" in out


def test_terminal_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["play", "star_patience", "--terminal", "--deal", "1"]) == 0
    out = capsys.readouterr().out
    assert "deal number 1" in out and "game over" in out
    (log,) = (tmp_path / "replays" / "terminal").iterdir()
    assert load(log).header["options"]["deal"] == 1


# --- golden replays --------------------------------------------------------------------

def test_golden_replays_verify_and_cover_won_lost_and_undo() -> None:
    results = {}
    for path in sorted(GOLDEN.glob("star_patience_*.starhall")):
        assert not isinstance(verify(path), Mismatch), path
        state = load(path).state_at()
        results[path.name] = (state.result, state.undos)
    assert {result for result, _ in results.values()} == {"won", "lost"}
    assert any(undos for _, undos in results.values())
