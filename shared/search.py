"""Information-set search for the trick games' ``strong`` bots: what Hearts and Stars share.

A seat does not know where the cards it has not seen are. ``Hidden`` says what it does know:
which cards are unseen, where they may lie (each other seat's hand and the face-down piles,
each of a known size) and which places each card is ruled out of (a suit a seat showed it
lacks, a card the seat passed to another). ``Hidden.deal`` places the unseen cards at random
in one way consistent with all of it, a *determinization*.

``search`` is information-set Monte Carlo tree search over those determinizations
(single-observer ISMCTS, Cowling, Powley and Whitehouse 2012): each iteration deals the hidden
cards anew, walks a tree of moves shared by every deal (a move is counted as available only in
the deals where it is legal), plays the rest of the hand out with a fast policy, and credits
each move with the result for the seat that made it. It is anytime: it stops at a deadline
(``search_flat.Deadline``, the clock read for the budget only, by the rollouts at every step
too) or after a number of iterations, and the root move visited most is the choice.

``flat_search`` is what the strong bots play by: flat Monte Carlo over the same
determinizations, every move of the seat's played out from each deal by the rollout policy
with common random numbers, and the moves clearly beaten dropped as the deals come in. With
the few hundred play-outs a move's think time buys in Python, it beat the tree against the
heuristic bots (commit messages give the figures): the tree spreads them over replies it
cannot tell apart, while each paired deal compares the seat's moves on the same luck.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Final, Generic, Protocol, TypeVar, final

from mypy_extensions import mypyc_attr

from starhall.shared.cards import CardSet, Chance, Deck, bits
from starhall.shared.engine import Command
from starhall.shared.search_flat import (
    Appraisal,
    Budget,
    Deadline,
    MoveValue,
    OutOfTime,
    Replay,
    deadline_of,
    paired_search,
    replay,
)

S = TypeVar("S")
M = TypeVar("M", bound=Hashable)

EXPLORATION = 0.7
"""UCB's exploration constant, for rewards about a unit wide."""


@dataclass(frozen=True, slots=True)
class Place:
    """Somewhere the unseen cards may lie: a seat's hand or a face-down pile."""

    size: int
    allowed: CardSet
    """The cards that may be here."""
    fixed: CardSet = 0
    """The cards known to be here (part of ``size``)."""


@final
class Hidden:
    """Where each unseen card may be: ``cards`` go into ``places``, filling each exactly.

    Made once a decision and dealt from hundreds of times, so what every deal would work out
    alike (which places each free card may go to, the order they are placed in) is worked out
    here, once."""

    __slots__ = ("cards", "places", "_free", "_options", "_held", "_room")

    def __init__(self, cards: CardSet, places: tuple[Place, ...]) -> None:
        self.cards: Final = cards
        self.places: Final = places
        held = [place.fixed for place in places]
        free = cards
        for fixed in held:
            free &= ~fixed
        options = {card: tuple(i for i, place in enumerate(places) if place.allowed >> card & 1)
                   for card in bits(free)}
        # The most constrained first; cards that may go to the same places together (their
        # order among themselves does not change the deal's odds).
        order = sorted(options, key=lambda card: (len(options[card]), options[card], card))
        self._free: Final = order
        self._options: Final = [options[card] for card in order]
        self._held: Final = held
        self._room: Final = [place.size - place.fixed.bit_count() for place in places]

    def deal(self, rng: Random) -> tuple[CardSet, ...]:
        """One placement of ``cards`` into ``places``, at random, consistent with each place's
        size, allowed and fixed cards. The most constrained cards are placed first, each where
        it may go in proportion to the room left; a card with no room left takes the place of
        one that can move elsewhere (an augmenting path), so a placement is always found when
        one exists. ``ValueError`` when none does: what was seen contradicts itself."""
        held = list(self._held)
        room = list(self._room)
        options_of = self._options
        for position, card in enumerate(self._free):
            options = options_of[position]
            total = 0
            for i in options:
                total += room[i]
            if not total:
                if not self._augment(card, held, room):
                    raise ValueError("no placement of the unseen cards fits what was seen")
                continue
            pick = int(rng.random() * total)
            for i in options:
                pick -= room[i]
                if pick < 0:
                    break
            held[i] |= 1 << card
            room[i] -= 1
        for left in room:
            if left:
                raise ValueError("the unseen cards do not fill the places they must fill")
        return tuple(held)

    def _augment(self, card: int, held: list[CardSet], room: list[int]) -> bool:
        """Place ``card`` by moving placed cards along a path to a place with room (a breadth-
        first search over places); ``False`` when no such path exists."""
        places = self.places
        where = dict(zip(self._free, self._options, strict=True))
        start = where[card]
        came_from: dict[int, tuple[int, int] | None] = {i: None for i in start}
        queue = list(start)
        while queue:
            place = queue.pop(0)
            if room[place] > 0:
                # Walk back: each step moves a card into the place after it.
                target, moving = place, card
                step = came_from[place]
                while step is not None:
                    previous, moved = step
                    held[target] |= 1 << moved
                    held[previous] &= ~(1 << moved)
                    target = previous
                    step = came_from[previous]
                held[target] |= 1 << moving
                room[place] -= 1
                return True
            for other in bits(held[place] & ~places[place].fixed):
                for nxt in where.get(other, ()):
                    if nxt not in came_from:
                        came_from[nxt] = (place, other)
                        queue.append(nxt)
        return False


class Searchable(Protocol[S, M]):
    """A game's hand, as the search plays it on determinized states."""

    def actor(self, state: S) -> int:
        """The seat to move."""

    def moves(self, state: S) -> Sequence[M]:
        """The moves the actor may make (hashable, the same move in every deal alike)."""

    def apply(self, state: S, move: M) -> S:
        ...

    def done(self, state: S) -> bool:
        """The end of what the search looks at (the hand)."""

    def rollout(self, state: S, rng: Chance, deadline: Deadline | None = None) -> S:
        """``state`` played on to ``done`` by a fast policy; ``deadline.check()`` before each
        move or trick (``OutOfTime`` cuts the playout short)."""

    def rewards(self, state: S) -> Sequence[float]:
        """What a ``done`` state is worth to each seat, about a unit wide."""


@mypyc_attr(native_class=False)  # mypyc cannot build a generic dataclass natively
@dataclass(slots=True)
class _Node(Generic[M]):
    actor: int
    children: dict[M, _Node[M]] = field(default_factory=dict)
    visits: int = 0
    total: float = 0.0
    available: int = 0


@mypyc_attr(native_class=False)  # mypyc cannot build a generic dataclass natively
@dataclass(frozen=True, slots=True)
class Searched(Generic[M]):
    """A search's choice and what it rests on."""

    move: M
    iterations: int
    visits: dict[M, int]
    values: dict[M, float]
    errors: dict[M, float] = field(default_factory=dict)
    """The standard error of each value (``flat_search``'s; the tree leaves it empty)."""


def search(game: Searchable[S, M], determinize: Callable[[Random], S], rng: Random,
           think: Budget, iterations: int | None = None,
           root_moves: Sequence[M] | None = None,
           exploration: float = EXPLORATION) -> Searched[M]:
    """ISMCTS from the seat's information set, ``determinize`` giving one state of it at
    random. Stops once ``think`` (seconds from now, or a ``Deadline``) is up or after
    ``iterations`` (whichever comes first; at least one iteration, and an iteration the time
    runs out in is left uncounted). ``root_moves`` narrows the first move to these."""
    deadline = deadline_of(think)
    root: _Node[M] = _Node(actor=-1)
    done = 0
    while True:
        deadline.armed = done > 0
        state = determinize(rng)
        node = root
        path = [root]
        first = True
        while not game.done(state):
            actor = game.actor(state)
            moves = root_moves if first and root_moves is not None else game.moves(state)
            first = False
            untried = []
            best: _Node[M] | None = None
            best_move: M | None = None
            best_score = -math.inf
            for move in moves:
                child = node.children.get(move)
                if child is None:
                    untried.append(move)
                    continue
                child.available += 1
                score = child.total / child.visits + exploration * math.sqrt(
                    math.log(child.available) / child.visits)
                if score > best_score:
                    best, best_move, best_score = child, move, score
            if untried:
                move = untried[int(rng.random() * len(untried))]
                child = _Node(actor=actor, available=1)
                node.children[move] = child
                state = game.apply(state, move)
                path.append(child)
                break
            assert best is not None and best_move is not None
            state = game.apply(state, best_move)
            node = best
            path.append(best)
        try:
            state = game.rollout(state, rng, deadline)
        except OutOfTime:
            break  # the new leaf stays unvisited: it is never chosen
        rewards = game.rewards(state)
        for visited in path[1:]:
            visited.visits += 1
            visited.total += rewards[visited.actor]
        done += 1
        if (iterations is not None and done >= iterations) or deadline.passed():
            break
    deadline.armed = True
    played = {move: child for move, child in root.children.items() if child.visits}
    visits = {move: child.visits for move, child in played.items()}
    values = {move: child.total / child.visits for move, child in played.items()}
    chosen = max(visits, key=lambda move: (visits[move], values[move]))
    return Searched(chosen, done, visits, values)


def flat_search(game: Searchable[S, M], determinize: Callable[[Random], S], rng: Random,
                think: Budget, iterations: int | None = None,
                root_moves: Sequence[M] | None = None, prune: bool = True,
                doubt: float = 0.0, least: int = 1) -> Searched[M]:
    """Flat Monte Carlo from the seat's information set, in pairs: each iteration deals the
    hidden cards once and plays every move of the seat's out from that one deal with the
    rollout policy, each from the same random stream (common random numbers, a ``Replay``),
    so the moves are compared on the same cards and the same later choices and the luck of
    the deal cancels between them. A move the best one beats clearly, deal by deal
    (``PRUNE_Z``), is played out no more (``prune``), so the deals go to the moves still in
    doubt. The move with the best mean reward is the choice. Stops once ``think`` (seconds
    from now, or a ``Deadline``) is up, the playouts checking it at every card or trick (a
    deal cut short counts for nothing; the first ``least`` deals are played out whatever the
    clock says) or after ``iterations`` deals. ``root_moves`` narrows the moves to these (one
    of each set of moves that come to the same). With ``doubt``, the first move is a default
    that another replaces only when its mean beats it by more than ``doubt`` standard errors
    of their difference deal by deal (``paired_search``): a search too short to tell moves
    apart keeps the policy's own, and with ``least=0`` a search whose time runs out before
    its first deal is played out keeps it too, within its time however slow the machine."""
    deadline = deadline_of(think)
    first = determinize(rng)
    moves = list(root_moves) if root_moves is not None else list(game.moves(first))
    dealt = [first]

    def sample() -> tuple[S, int, list[float]]:
        state = dealt.pop() if dealt else determinize(rng)
        return state, game.actor(state), []

    def playout(index: int, world: tuple[S, int, list[float]]) -> float:
        state, actor, draws = world
        after = game.apply(state, moves[index])
        return game.rewards(game.rollout(after, Replay(rng, draws), deadline))[actor]

    found = paired_search(len(moves), sample, playout, deadline, least=least,
                          most=iterations, prune=prune, doubt=doubt)
    if len(moves) == 1:
        return Searched(moves[0], 0, {}, {})
    played = [i for i in range(len(moves)) if found.counts[i]]
    return Searched(moves[found.chosen], found.worlds,
                    {moves[i]: found.counts[i] for i in played},
                    {moves[i]: found.means[i] for i in played},
                    {moves[i]: found.errors[i] for i in played})


def card_set_values(game: Searchable[S, CardSet], determinize: Callable[[Random], S],
                    rng: Random, think: float, worlds: int | None, candidates: list[CardSet],
                    kind: str, seat: int, deck: Deck, include: Command | None, unit: str,
                    scale: float) -> Appraisal:
    """For the analysis: each of ``candidates``, moves of several cards (a pass, a burial: a
    command ``kind`` of ``seat`` naming them), and ``include``'s where it is another, valued
    by ``flat_search``'s playouts, every one in every deal (none pruned). ``worlds``: exactly
    that many deals, whatever the clock."""
    played = None if include is None or include.type != kind \
        else deck.mask(include.data["cards"])
    if played is not None and played not in candidates:
        candidates = [*candidates, played]
    result = flat_search(game, determinize, rng, think if worlds is None else math.inf, worlds,
                         candidates, prune=False)
    return Appraisal(tuple(
        MoveValue(include if include is not None and move == played
                  else Command(kind, seat, {"cards": deck.codes(move)}),
                  result.values.get(move, 0.0), result.errors.get(move, 0.0),
                  result.visits.get(move, 0))
        for move in candidates), unit, scale)


def voids_from_plays(plays: Sequence[tuple[int, int]], suit_of: Sequence[str], players: int,
                     suit_masks: dict[str, CardSet]) -> list[CardSet]:
    """For each seat, the cards of every suit it showed it lacked by not following it, from a
    hand's plays ``(seat, card)`` in order (tricks of ``players`` cards; a card of no suit, a
    Joker, sets no suit: the next card does)."""
    lacking = [0] * players
    led: str | None = None
    for position, (seat, card) in enumerate(plays):
        if position % players == 0:
            led = None
        suit = suit_of[card]
        if led is None:
            led = suit or None
        elif suit != led:
            lacking[seat] |= suit_masks[led]
    return lacking


class TrickPlay(Generic[S]):
    """A trick game's hand in play as the search plays it (``Searchable``): a move is a card's
    index, made by the engine's own play event for it (``rules.plays.events``); a game adds
    its ``rewards`` and its ``play_out``, the hand in play played to its end by its quick
    policy and scored by the engine, reading the deadline before each trick. The search's time
    goes there, so a play-out keeps the hand in play as a few plain values changed in place,
    not a new engine state each card, and moves them on by the engine's own rules (its
    ``may_play``, ``take_trick`` and ``finish_hand``, which ``evolve`` uses too): a rule
    lives in one place. ``game`` and ``legal_cards`` are the game's engine and its rule for
    the cards a seat may play."""

    def __init__(self, game: Any, legal_cards: Callable[[Any, int], CardSet]) -> None:
        self.game = game
        self.legal_cards = legal_cards

    def rollout(self, state: S, rng: Chance, deadline: Deadline | None = None) -> S:
        """The hand played to its end (``play_out``); a state past the play as it is."""
        if self.done(state):
            return state
        return self.play_out(state, replay(rng), deadline)  # typed: the draws are direct calls

    def play_out(self, state: S, draws: Replay, deadline: Deadline | None) -> S:
        """The game's: ``state``, a hand in play, played to its end and scored."""
        raise NotImplementedError

    def actor(self, state: Any) -> int:
        turn: int = state.turn
        return turn

    def moves(self, state: Any) -> list[int]:
        return list(bits(self.legal_cards(state, state.turn)))

    def apply(self, state: Any, move: int) -> Any:
        return self.game.evolve(state, state.rules.plays.events[state.turn][move])

    def done(self, state: Any) -> bool:
        return bool(state.phase != "play")
