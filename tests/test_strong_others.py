"""The ``strong`` bots of "what else?" and Stars and Bars: what they infer from an observation
holds for the real hidden cards, they are given nothing hidden, their playouts run on the
engine (the moves they hand straight to ``evolve`` are the ones ``decide`` gives), and they
play whole games through the engine. No timing is asserted:
searches here run a fixed number of worlds (``worlds``) with no time budget."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from starhall.shared.belief import KeptFold
from starhall.shared.bots import RandomBot, make_bot
from starhall.shared.engine import Command, Event, Game
from starhall.shared.games import get_game
from starhall.shared.games.stars_and_bars.rules import DECK, legal_placements, owed_duties
from starhall.shared.games.stars_and_bars.strong import StrongBot as BarsStrong
from starhall.shared.games.stars_and_bars.strong import (
    greedy_placement,
    play_turn,
    sample_deck,
    unseen_cards,
)
from starhall.shared.games.what_else.bots import HeuristicBot
from starhall.shared.games.what_else.rules import PlayoutState, cards_for, legal_cards
from starhall.shared.games.what_else.strong import StrongBot as WhatElseStrong
from starhall.shared.games.what_else.strong import (
    knowledge,
    play_out,
    rollout_event,
    rollout_step,
    round_value,
    sample_hidden,
    sample_world,
    template_state,
    win_chance,
    world_state,
)
from starhall.shared.games.what_else.strong import (
    unseen_cards as what_else_unseen,
)
from starhall.shared.observation import Observation, SeatMemory
from starhall.shared.options import Options
from starhall.shared.search_flat import paired_search
from starhall.shared.shuffle import shuffle_command, shuffle_event

WHAT_ELSE = get_game("what_else")
WHAT_ELSE_CARDS = 55
BARS = get_game("stars_and_bars")

Chooser = Callable[[Any, int, Observation], Command]


def play(game: Game[Any], players: int, options: Options, choose: Chooser, deal: int,
         orders: list[list[str]] | None = None) -> Any:
    """A game through the engine: every event decided, cut for each seat by ``event_view``;
    ``choose(state, seat, observation)`` moves (the state only for checking the bot's
    inferences). Shuffles from ``orders`` first, then from ``deal``."""
    state = game.new_state(players, options)
    seen = SeatMemory(game, players, options)
    shuffles = random.Random(deal)
    orders = list(orders or [])
    while not game.outcome(state).over:
        request = game.chance(state)
        if request is not None:
            command = (Command("shuffle", None, {"order": orders.pop(0)}) if orders
                       else shuffle_command(request, shuffles.randrange(2**40)))
        else:
            seat = game.to_act(state)[0]
            command = choose(state, seat, seen.observe(state, seat))
        for event in game.decide(state, command):
            seen.add(state, event)
            state = game.evolve(state, event)
    return state


# --- what else?: what the events tell ------------------------------------------------------

def passed_on(seen: Observation, seat: int) -> int:
    """The card ``seat`` last passed on (the card laid before its last pass)."""
    top = on = -1
    index_of = cards_for("standard").deck.index_of
    for event in seen.seen:
        if event.type == "played":
            top = index_of[event.data["card"]]
        elif event.type == "passed" and event.seat == seat:
            on = top
    return on


@pytest.mark.parametrize(("players", "voluntary"), [(3, False), (4, True), (6, False)])
def test_what_else_knowledge_holds_for_the_real_hands(players: int, voluntary: bool) -> None:
    """At every move of games long enough to reshuffle, the groups and the draw pile's cards
    inferred from the events admit the real hands and draw pile, and each sampled world is
    one the seat could be in: hand sizes kept, its own and every seen card left out, and no
    card that fits on what an opponent passed on this round in that opponent's hand."""
    options = WHAT_ELSE.make_options(players, {"voluntary_pass": voluntary})
    cards = cards_for("standard")
    rng = random.Random(players)
    checked = {"moves": 0, "reshuffled": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        known = knowledge(seen, read_policy=False)  # random players among them
        assert known.consistent
        for other, groups in known.groups.items():
            allowed = 0
            for group in groups:
                allowed |= group.allowed
            assert state.hands[other] & ~allowed == 0
            assert sum(group.count for group in groups) == state.hands[other].bit_count()
        assert sum(1 << card for card in state.draw) & ~known.pile_allowed == 0
        unseen = what_else_unseen(cards, seen.view)
        world = sample_hidden(known, unseen, rng)
        assert world is not None
        hands, draw = world
        assert len(draw) == len(state.draw)
        placed = sum(1 << card for card in draw)
        for other, hand in hands.items():
            assert hand.bit_count() == state.hands[other].bit_count()
            assert hand & placed == 0
            placed |= hand
            if state.passed[other] and not voluntary:
                assert hand & cards.fits_on[passed_on(seen, other)] == 0
        assert placed == unseen
        checked["moves"] += 1
        checked["reshuffled"] += state.reshuffles > 0
        bot = HeuristicBot(rng) if seat % 2 else RandomBot(rng)
        return bot.choose(seen, 0.0)

    for deal in range(3):
        play(WHAT_ELSE, players, options, choose, deal)
    assert checked["moves"] > 100 and checked["reshuffled"] > 0


def held_by(groups: list[Any]) -> int:
    """The cards any of an opponent's groups may hold."""
    allowed = 0
    for group in groups:
        allowed |= group.allowed
    return allowed


@pytest.mark.parametrize("players", [3, 4, 6])
def test_what_else_reading_heuristic_players_holds(players: int) -> None:
    """Against heuristic players, what their plays and refills tell (no lower card that fits
    than the one laid, no weak card kept) admits their real hands at every move, and says
    more than the events alone; a random player, whose moves soon show it is none, is read
    no more."""
    options = WHAT_ELSE.make_options(players, {})
    rng = random.Random(players)
    narrowed = {"read": 0, "plain": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        read, plain = knowledge(seen), knowledge(seen, read_policy=False)
        assert read.consistent
        for other, groups in read.groups.items():
            allowed = held_by(groups)
            assert state.hands[other] & ~allowed == 0
            narrowed["read"] += WHAT_ELSE_CARDS - allowed.bit_count()
            narrowed["plain"] += WHAT_ELSE_CARDS - held_by(plain.groups[other]).bit_count()
        return HeuristicBot(rng).choose(seen, 0.0)

    for deal in range(3):
        play(WHAT_ELSE, players, options, choose, deal)
    assert narrowed["read"] > narrowed["plain"]


def test_what_else_a_random_player_is_read_no_more() -> None:
    options = WHAT_ELSE.make_options(3, {})
    rng = random.Random(9)
    course: KeptFold[Any] = KeptFold()

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        if seat == 0:
            knowledge(seen, course)
            return HeuristicBot(rng).choose(seen, 0.0)
        return (RandomBot(rng) if seat == 1 else HeuristicBot(rng)).choose(seen, 0.0)

    play(WHAT_ELSE, 3, options, choose, 2)
    assert course.fold is not None and course.fold.plain == {1}


def test_what_else_bot_is_given_nothing_hidden() -> None:
    """Two deals that differ only in cards seat 0 cannot see (two opponents' hands swap a
    card each, and the draw pile's order is reversed) give seat 0 the same observation, and
    the strong bot, with the same random numbers, the same move and the same worlds."""
    order = shuffle_command(WHAT_ELSE.chance(WHAT_ELSE.new_state(4, WHAT_ELSE.make_options(
        4, {}))), 7).data["order"]  # type: ignore[arg-type]
    other = list(order)
    other[1], other[2] = other[2], other[1]  # seat 1's first card and seat 2's
    other[20:] = reversed(other[20:])
    options = WHAT_ELSE.make_options(4, {})
    moves: list[list[Command]] = []
    samples: list[Any] = []
    for deal in (order, other):
        made: list[Command] = []
        moves.append(made)

        def choose(state: Any, seat: int, seen: Observation, made: list[Command] = made
                   ) -> Command:
            if seat != 0:
                return HeuristicBot(random.Random(seat)).choose(seen, 0.0)
            if not made:
                samples.append(sample_world(seen, knowledge(seen), random.Random(1)))
            made.append(WhatElseStrong(random.Random(1), worlds=3).choose(seen, 0.0))
            if len(made) >= 3:
                raise StopIteration
            return made[-1]

        with pytest.raises(StopIteration):
            play(WHAT_ELSE, 4, options, choose, 0, [deal])
    assert moves[0] == moves[1] and samples[0] == samples[1]


def test_what_else_playouts_move_as_the_engine_decides() -> None:
    """A playout runs on the engine; each move its rollout policy hands straight to
    ``evolve`` is the event the engine's ``decide`` gives for that move, and each reshuffle
    is one the engine's shuffle check accepts. Followed through whole playouts from the
    states of real games, refills and reshuffles included."""
    options = WHAT_ELSE.make_options(5, {})
    rng = random.Random(5)
    checked = {"moves": 0, "shuffles": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        command = WHAT_ELSE.random_action(state, seat, rng)
        chance = random.Random(seat)
        world = state
        for event in WHAT_ELSE.decide(world, command):
            world = WHAT_ELSE.evolve(world, event)
        for _ in range(200):
            if WHAT_ELSE.outcome(world).over:
                break
            event = rollout_event(world, chance)
            if event.type == "shuffled":
                request = WHAT_ELSE.chance(world)
                assert shuffle_event(request, Command("shuffle", None, dict(event.data)),
                                     "shuffled") == event
                checked["shuffles"] += 1
            else:
                asked = Command(WHAT_ELSE.event_commands[event.type], event.seat,
                                dict(event.data))
                assert WHAT_ELSE.decide(world, asked) == [event]
                checked["moves"] += 1
            world = WHAT_ELSE.evolve(world, event)
        return command

    for deal in range(2):
        play(WHAT_ELSE, 5, options, choose, deal)
    assert checked["moves"] > 1000 and checked["shuffles"] > 0


def test_what_else_playout_steps_are_the_events() -> None:
    """A playout's moves made straight on a ``PlayoutState`` (``rollout_step``) leave it as
    the engine leaves its state after the same moves as events (``rollout_event``, checked by
    ``decide``, folded by ``evolve``), and a ``PlayoutState`` frozen unchanged is its state."""
    options = WHAT_ELSE.make_options(4, {})
    rng = random.Random(9)
    checked = {"steps": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        assert PlayoutState(state).frozen() == state
        playing = PlayoutState(state)
        world = state
        for step in range(120):
            if WHAT_ELSE.outcome(world).over:
                break
            event = rollout_event(world, random.Random(step))
            if event.type != "shuffled":
                asked = Command(WHAT_ELSE.event_commands[event.type], event.seat,
                                dict(event.data))
                assert WHAT_ELSE.decide(world, asked) == [event]
            world = WHAT_ELSE.evolve(world, event)
            rollout_step(playing, random.Random(step))
            assert playing.frozen() == world
            checked["steps"] += 1
        return WHAT_ELSE.random_action(state, seat, rng)

    for deal in range(2):
        play(WHAT_ELSE, 4, options, choose, deal)
    assert checked["steps"] > 1000


def test_what_else_playout_values() -> None:
    """A playout's value: the share of rounds won, plus the worth of the cards kept; 1 or 0
    when the game ends in it; the same for the same random numbers."""
    options = WHAT_ELSE.make_options(3, {})
    values: list[float] = []

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        command = HeuristicBot(random.Random(0)).choose(seen, 0.0)
        value = play_out(state, command, seat, random.Random(7))
        assert value == play_out(state, command, seat, random.Random(7))
        if max(state.tokens) < 2:
            assert -3.0 < value < 3.0
        values.append(value)
        return command

    play(WHAT_ELSE, 3, options, choose, 4)
    assert len(set(values)) > 5


def test_what_else_world_states_are_the_view() -> None:
    """A world's state shows the seat exactly its view, whatever hidden cards it was dealt."""
    options = WHAT_ELSE.make_options(3, {})
    rng = random.Random(3)

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        hands, draw = sample_world(seen, knowledge(seen), rng)
        world = world_state(template_state(seen), seat,
                            cards_for("standard").deck.mask(seen.view["hand"]), hands, draw)
        assert WHAT_ELSE.view(world, seat) == seen.view
        assert legal_cards(world, seat) == legal_cards(state, seat)
        return HeuristicBot(rng).choose(seen, 0.0)

    play(WHAT_ELSE, 3, options, choose, 11)


@pytest.mark.parametrize("players", [3, 6])
def test_what_else_strong_plays_whole_games(players: int) -> None:
    options = WHAT_ELSE.make_options(players, {})
    strong = make_bot(WHAT_ELSE, "strong", random.Random(0))
    assert isinstance(strong, WhatElseStrong)
    strong.worlds = 2
    heuristic = HeuristicBot(random.Random(1))

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        if seat == 1:
            return strong.choose(seen, 0.0)
        return heuristic.choose(seen, 0.0)

    final = play(WHAT_ELSE, players, options, choose, players)
    assert WHAT_ELSE.outcome(final).over


def test_what_else_strong_searches_the_pass() -> None:
    """With ``voluntary_pass`` the pass is a move like any other: searched beside every card
    the seat may lay, its value listed; the move chosen is always legal and the same for the
    same random numbers."""
    options = WHAT_ELSE.make_options(4, {"voluntary_pass": True})
    heuristic = HeuristicBot(random.Random(1))
    found = {"passes searched": 0, "passed": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        if seat != 2:
            return heuristic.choose(seen, 0.0)
        command = WhatElseStrong(random.Random(len(seen.seen)), worlds=3).choose(seen, 0.0)
        assert command in seen.legal
        again = WhatElseStrong(random.Random(len(seen.seen)), worlds=3).choose(seen, 0.0)
        assert again == command
        if seen.view["legal"]["pass"] and seen.view["legal"]["play"]:
            appraisal = WhatElseStrong(random.Random(0)).appraise(seen, 0.0, worlds=3)
            assert appraisal is not None
            values = appraisal.moves
            assert sorted(move.command.type for move in values) == sorted(
                c.type for c in seen.legal)
            assert all(move.worlds == 3 and move.error >= 0 for move in values)
            found["passes searched"] += 1
        found["passed"] += command.type == "pass"
        return command

    for deal in range(2):
        play(WHAT_ELSE, 4, options, choose, deal)
    assert found["passes searched"] > 5


@pytest.mark.parametrize(("game", "others"), [(WHAT_ELSE, "heuristic"), (BARS, "lookahead")])
def test_a_strong_bot_that_keeps_its_belief_moves_as_a_fresh_one(game: Game[Any],
                                                                   others: str) -> None:
    """A strong bot kept from move to move (as a bot worker keeps it) follows only the events
    since its last move, yet answers each move as a fresh bot with the same random numbers
    given every event; a bot moved to another seat starts its belief again."""
    players = 3 if game is WHAT_ELSE else 2
    options = game.make_options(players, {})
    kept = make_bot(game, "strong", random.Random(0))
    assert isinstance(kept, WhatElseStrong | BarsStrong)
    kept.worlds = 1
    other = make_bot(game, others, random.Random(1))
    seeds = random.Random(2)
    strong_seat = {"seat": 0, "moves": 0}
    folds: list[object] = []

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        if seat != strong_seat["seat"]:
            return other.choose(seen, 0.0)
        seed = seeds.getrandbits(64)
        kept.rng.seed(seed)
        fresh = type(kept)(random.Random(seed), worlds=1)
        command = kept.choose(seen, 0.0)
        assert command == fresh.choose(seen, 0.0)
        if isinstance(kept, WhatElseStrong):
            assert knowledge(seen, kept.course) == knowledge(seen)
            fold: object = kept.course.fold
        else:
            fold = kept.shown.fold
        if not any(fold is known for known in folds):
            folds.append(fold)
        strong_seat["moves"] += 1
        if strong_seat["moves"] == 12:
            strong_seat["seat"] = 1
        return command

    final = play(game, players, options, choose, 5)
    assert game.outcome(final).over
    assert strong_seat["moves"] > 12
    assert len(folds) == 2  # one belief kept at each seat, not one a move


# --- Stars and Bars ---------------------------------------------------------------------------

def test_bars_unseen_cards_are_the_deck() -> None:
    """At every move the cards never shown are exactly the deck's, and a sampled deck is an
    order of them."""
    options = BARS.make_options(2, {})
    rng = random.Random(2)
    bots = [make_bot(BARS, "lookahead", rng), RandomBot(rng)]
    moves = {"checked": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        unseen = unseen_cards(seen)
        assert unseen == sum(1 << card for card in state.deck)
        deck = sample_deck(seen, unseen, rng)
        assert sorted(deck) == sorted(state.deck)
        moves["checked"] += 1
        return bots[seat].choose(seen, 0.0)

    for deal in range(3):
        play(BARS, 2, options, choose, deal)
    assert moves["checked"] > 100


def test_bars_bot_is_given_nothing_hidden() -> None:
    """Deals that differ only in the deck's order (after the set-up's draws) give the same
    observation and the same moves until the first card drawn differs."""
    request = BARS.chance(BARS.new_state(2, BARS.make_options(2, {})))
    assert request is not None
    order = shuffle_command(request, 3).data["order"]
    other = order[:12] + list(reversed(order[12:]))
    options = BARS.make_options(2, {})
    moves: list[list[Command]] = []
    for deal in (order, other):
        made: list[Command] = []
        moves.append(made)

        def choose(state: Any, seat: int, seen: Observation, made: list[Command] = made
                   ) -> Command:
            if seen.seen[-1].type == "turn_ended":
                raise StopIteration  # a card was drawn: the deals differ from here
            made.append(BarsStrong(random.Random(1), worlds=2).choose(seen, 0.0))
            return made[-1]

        with pytest.raises(StopIteration):
            play(BARS, 2, options, choose, 0, [deal])
    assert moves[0] == moves[1] and moves[0]


def test_bars_strong_plays_whole_games() -> None:
    options = BARS.make_options(2, {})
    strong = make_bot(BARS, "strong", random.Random(0))
    assert isinstance(strong, BarsStrong)
    strong.worlds = 1
    lookahead = make_bot(BARS, "lookahead", random.Random(1))

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        if seat == 0:
            command = strong.choose(seen, 0.0)
            assert command in seen.legal
            return command
        return lookahead.choose(seen, 0.0)

    final = play(BARS, 2, options, choose, 4)
    assert BARS.outcome(final).over


# --- the search -------------------------------------------------------------------------------

def test_bars_claims_are_searched() -> None:
    """Against a random player, who leaves duties undone, claims open for the strong bot: it
    searches them with its placements (each claim, each of the lookahead's best placements),
    its move is always legal, the same for the same random numbers, and its values list
    every move it searched."""
    options = BARS.make_options(2, {})
    rng = random.Random(4)
    opponent = RandomBot(rng)
    searched = {"claims": 0, "declined": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        if seat == 1:
            return opponent.choose(seen, 0.0)
        bot = BarsStrong(random.Random(len(seen.seen)), worlds=4)
        command = bot.choose(seen, 0.0)
        assert command in seen.legal
        claims = seen.view["legal"]["claims"]
        if claims:
            assert bot.searched and bot.last_playouts > 0
            again = BarsStrong(random.Random(len(seen.seen)), worlds=4).choose(seen, 0.0)
            assert again == command
            appraisal = BarsStrong(random.Random(len(seen.seen))).appraise(seen, 0.0, worlds=4)
            assert appraisal is not None
            values = appraisal.moves
            assert sum(move.command.type == "claim" for move in values) == len(claims)
            assert all(move.worlds == 4 for move in values)
            searched["claims"] += 1
            searched["declined"] += command.type != "claim"
        return command

    for deal in range(6):
        play(BARS, 2, options, choose, deal)
    assert searched["claims"] > 3, searched


def test_paired_search_plays_every_candidate_in_the_same_worlds() -> None:
    """Without time, the default move and no playout; with worlds, every candidate played
    once in each, and the best mean chosen (the default on a tie)."""
    played: list[tuple[int, int]] = []
    worlds = iter(range(100))

    def playout(index: int, world: int) -> float:
        played.append((index, world))
        return [0.2, 0.5, 0.5][index]

    assert paired_search(3, lambda: next(worlds), playout, 0.0, default=2).chosen == 2
    assert played == []
    result = paired_search(3, lambda: next(worlds), playout, 0.0, default=0, least=4)
    assert result.worlds == 4 and result.playouts == 12 and result.chosen == 1
    assert played == [(index, world) for world in range(4) for index in range(3)]
    assert paired_search(3, lambda: 0, playout, 0.0, default=2, least=1).chosen == 2


def engine_turn(state: Any, seat: int, card: int, space: int) -> Any:
    """A playout's turn as commands through ``decide`` and ``evolve``: the placement (or a
    pass), each duty owed, the end of the turn."""
    def command(kind: str, data: dict[str, Any]) -> None:
        nonlocal state
        for event in BARS.decide(state, Command(kind, seat, data)):
            state = BARS.evolve(state, event)

    if card < 0:
        command("pass", {})
        return state
    command("place", {"card": DECK.code_of[card], "space": space})
    while owed := owed_duties(state):
        kind, where = owed[0]
        command(kind, {} if where < 0 else {"space": where})
    command("end_turn", {})
    return state


def test_bars_playouts_move_as_the_engine_decides() -> None:
    """A playout runs on the rules' own steps (``BarsPlayout``): each placement its greedy
    policy makes is one the engine's ``decide`` accepts and gives the same event for, a pass
    comes only when no placement is legal, and each turn leaves the state the engine leaves
    after the same commands (duties included) through ``decide`` and ``evolve``."""
    options = BARS.make_options(2, {})
    rng = random.Random(8)
    lookahead = make_bot(BARS, "lookahead", rng)
    checked = {"turns": 0}

    def choose(state: Any, seat: int, seen: Observation) -> Command:
        command = lookahead.choose(seen, 0.0)
        if command.type != "place":
            return command
        chance = random.Random(seat)
        card = DECK.index_of[command.data["card"]]
        world = play_turn(state, seat, card, command.data["space"])
        mover = seat
        while world.phase != "over" and checked["turns"] % 50 != 49:
            mover = 1 - mover
            laid, space = greedy_placement(world, mover, chance)
            if laid < 0:
                assert not legal_placements(world, mover)
            else:
                placed = Command("place", mover, {"card": DECK.code_of[laid], "space": space})
                assert BARS.decide(world, placed) == [
                    Event("placed", mover, {"card": DECK.code_of[laid], "space": space})]
            after = play_turn(world, mover, laid, space)
            assert after == engine_turn(world, mover, laid, space)
            world = after
            assert not owed_duties(world)
            checked["turns"] += 1
        checked["turns"] += 1
        return command

    for deal in range(2):
        play(BARS, 2, options, choose, deal)
    assert checked["turns"] > 200


def test_what_else_win_chance_counts_whose_round_it_was() -> None:
    """A playout's end is valued by the chance to win the game from the tokens then: shared
    alike among players alike, summing to 1 over the seats, and a round lost to a player one
    token from the game worth nothing, one lost to a player far from it worth more."""
    assert win_chance((3, 3, 3), 0) == pytest.approx(1 / 3)
    for needs in [(3, 2, 1), (1, 1, 3, 2), (2, 3, 3, 3, 1, 2)]:
        assert sum(win_chance(needs, seat) for seat in range(len(needs))) == pytest.approx(1)
    assert win_chance((2, 0, 3), 0) == 0.0 and win_chance((0, 1, 1), 0) == 1.0
    lost_to_the_leader, lost_to_the_last = win_chance((2, 0, 3), 0), win_chance((2, 1, 2), 0)
    assert lost_to_the_leader < lost_to_the_last
    assert round_value((3, 3, 3, 3), 0) > 0
