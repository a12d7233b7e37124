"""The ``strong`` bot for "A card game – what else?" (``what_else``): determinized Monte Carlo.

It is given only an ``Observation`` (its view, its legal commands, and every event as its
seat was shown it). From the events it works out what each opponent's hand may hold, then
plays each candidate move on in many worlds sampled afresh (opponents' hands and the draw
pile's order), every candidate in the same worlds, every seat then played on the rules' own
fold (``decide`` for the candidate, then the steps of one ``rules.PlayoutState``, which
``evolve`` is built on: a rule lives only in ``rules.py``) by the heuristic bot's own choice
of card (``bots.card_to_lay``) to the end of the round, and chooses the move worth most over the
worlds (``search_flat.paired_search``): a world is worth the seat's chance to win the game
from the tokens at the round's end (``win_chance``: whoever won the round, a player one token
from the game or one far from it), and the cards it kept (``KEEP_WEIGHT``).

**What the events tell of a hand.** An opponent's hand is kept as groups of cards that came
into it together (the deal, a draw), each with the set of cards it may hold:

* a card drawn before the first reshuffle may be any unseen card; one drawn after the
  discard pile was shuffled into a new draw pile is one of the cards shuffled then;
* a group held while the discard pile was reshuffled holds none of the cards shuffled (they
  were on the discard pile, not in its hand);
* a player who passed (where passing is allowed only with no card that fits) held no card
  that fits on the card they passed on: every group then held loses those cards.

A card played or discarded is taken from the group most constrained that may hold it; groups
held at the same passes and reshuffles differ only by age, so when several may, the oldest
is both the most constrained and a sound choice (what is left is never tighter than the
truth). When their sets are not nested (the reshuffles cut them differently) they are merged,
a weaker but still sound statement. The draw pile holds what is left: after a reshuffle, only
cards shuffled then.

The public course of the game (hand counts, the pile, the discard pile, who drew how many)
is followed alongside by the rules' own steps; when it ever disagrees with the view, the bot
forgets the groups and samples every unseen card freely rather than trust a wrong history.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from starhall.shared.belief import KeptFold, fold_of
from starhall.shared.cards import CardSet, Chance, bits
from starhall.shared.engine import Command, Event, Seat
from starhall.shared.games.what_else.bots import (
    HeuristicBot,
    card_to_lay,
    card_worth,
    lay_keys,
    miss_chance,
)
from starhall.shared.games.what_else.rules import (
    GAME,
    HAND_SIZE,
    NO_SEAT,
    TARGET,
    Cards,
    PlayoutState,
    Position,
    RoundResult,
    WhatElseState,
    WhatElseView,
    cards_for,
    chance_request,
    face_up,
    in_round,
    laid_cards,
    legal_cards,
    rules_for,
    what_else_view,
)
from starhall.shared.observation import Observation
from starhall.shared.search_flat import (
    Appraisal,
    Deadline,
    MoveValue,
    Replay,
    SearchResult,
    WorldsBot,
    paired_search,
)
from starhall.shared.shuffle import shuffled

KEEP_WEIGHT = 1.5
"""A playout cut short also counts the cards the seat kept to the round's end, each by its
worth between rounds above the average card's (0.09; the best card's is 0.67), this much to
a round won (``play_out``: a round won, in the game's win chance, is ``round_value``): a round
won by spending the cards that win later rounds is dearly bought. Measured at 3 players, 0.1
s a move, the strong bot choosing only the cards to lay (25 deals × 3 seats, the same deals
each time): weight 0 won 25% of the games, 0.5 37%, 1.5 41%, 3 19% (each ± about 10%); but
on fresh deals (1001-1040), with the bot choosing its discards too, weight 1.5 won 30.8% ±
7.2%, its fair share: most of those differences were luck."""
DOUBT = 2.0
"""The search leaves the heuristic's move only for one that beats it by more than this many
standard errors over the worlds played (``paired_search``)."""
SAMPLE_TRIES = 30
"""Attempts at a world that meets every group's constraints before they are dropped."""
LOWEST_BELOW = 0.3
"""An opponent's card that ends the round at once with less than this chance (as it could
judge) was laid as its lowest card that fits (``_Course.laid_lowest``); the heuristic spends
a card to win only at ``WIN_NOW`` (0.9)."""
KEPT_ABOVE = 0.6
"""An opponent keeps at a refill no card worth less than this share of an average card's
worth (the heuristic keeps none below the average; the margin: it weighs against what it
sees, a little other than what the seat sees)."""
ROLLOUT_ROUNDS = 1
"""A playout stops when this many rounds have ended (the one being played counts; from a
refill, the next) and is scored by the round won and the cards kept. Played to the game's
end (12 rounds at most), 40 games at 4 players and 0.1 s a move gave the strong bot 9 wins;
to one round's end, with far more playouts in the time and far less noise in each, 12
(2 rounds: 10), before the cards kept were counted."""


# --- what the events tell ------------------------------------------------------------------

@dataclass(slots=True)
class Group:
    count: int
    allowed: CardSet


@dataclass(slots=True)
class Knowledge:
    """What a seat knows of the hidden cards: the opponents' hands as groups, and the cards the
    draw pile may hold."""

    groups: dict[Seat, list[Group]]
    pile_allowed: CardSet
    consistent: bool
    """The public course followed from the events agrees with the view."""


@dataclass(slots=True)
class _Course:
    """The public course of the game, followed from the events as the seat saw them."""

    cards: Cards
    players: int
    me: Seat
    voluntary_pass: bool
    counts: list[int]
    passed: list[bool]
    pile: list[tuple[Seat, int]] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    draw_count: int = 0
    tokens: list[int] = field(default_factory=list)
    pile_allowed: CardSet = 0
    groups: dict[Seat, list[Group]] = field(default_factory=dict)
    owed: tuple[Seat, int] | None = None
    read_policy: bool = True
    """Read the opponents' plays and refills as the heuristic's (``laid_lowest``,
    ``weak_cards``): what a Normal bot's moves tell of its hand."""
    plain: set[Seat] = field(default_factory=set)
    """Opponents whose moves showed they do not play as the heuristic: read no more."""
    lost: bool = False
    """An event the course could not follow came: it follows no more, and says nothing."""

    def take(self, seat: Seat, card: int) -> None:
        """``seat`` laid or discarded ``card``: take it from the group that held it."""
        self.counts[seat] -= 1
        if seat == self.me:
            return
        groups = self.groups[seat]
        able = [group for group in groups if group.allowed >> card & 1]
        if not able:  # a history the groups cannot explain: forget what they said
            self.plain.add(seat)  # most likely its policy was misread: read it no more
            able = list(groups)
            for group in groups:
                group.allowed = self.cards.deck.full
        able.sort(key=lambda group: group.allowed.bit_count())
        nested = all(a.allowed & ~b.allowed == 0 for a, b in zip(able, able[1:], strict=False))
        if nested:
            chosen = able[0]
        else:
            chosen = Group(sum(group.count for group in able), 0)
            for group in able:
                chosen.allowed |= group.allowed
                groups.remove(group)
            groups.append(chosen)
        chosen.count -= 1
        if not chosen.count:
            groups.remove(chosen)

    def gone(self) -> CardSet:
        """The cards every seat has seen go: the discard pile and this round's pile."""
        return face_up(self.discard, self.pile)

    def laid_lowest(self, seat: Seat, card: int) -> None:
        """``seat`` lays ``card``. The heuristic lays its lowest card that fits (by
        ``lay_keys``) unless one likely ends the round at once; when ``card`` clearly could
        not (``LOWEST_BELOW``), it held no lower card that fits. Worked out as the seat
        would, from what it could see (every card not gone is unseen to it, but its own)."""
        cards = self.cards
        fitting = cards.fits_on[self.pile[-1][1]] if self.pile else cards.deck.full
        unseen = cards.deck.full & ~self.gone() & ~(1 << card)
        total = max(unseen.bit_count() - (self.counts[seat] - 1), 0)
        followers = min((cards.fits_on[card] & unseen).bit_count(), total)
        chance = 1.0
        for other in range(self.players):
            if other != seat and not self.passed[other] and self.counts[other]:
                chance *= miss_chance(total, followers, self.counts[other])
        if chance >= LOWEST_BELOW:
            return
        keys = lay_keys(cards.table)
        lower = 0
        for other in bits(fitting):
            if keys[other] < keys[card]:
                lower |= 1 << other
        for group in self.groups[seat]:
            group.allowed &= ~lower

    def weak_and_strong(self) -> tuple[CardSet, CardSet]:
        """The cards not gone that are clearly weak (worth less than ``KEPT_ABOVE`` of an
        average one, against the cards not gone), and those clearly strong (worth more than
        the average over ``KEPT_ABOVE``). The heuristic discards every card worth less than
        the average card it cannot see, and no other: at a refill it keeps no weak card and
        throws away no strong one."""
        cards = self.cards
        unseen = cards.deck.full & ~self.gone()
        worth = {card: card_worth(cards, card, unseen & ~(1 << card)) for card in bits(unseen)}
        average = sum(worth.values()) / max(len(worth), 1)
        weak = sum(1 << card for card, value in worth.items() if value < KEPT_ABOVE * average)
        strong = sum(1 << card for card, value in worth.items()
                     if value > average / KEPT_ABOVE)
        return weak, strong

    def draw(self, seat: Seat, need: int) -> None:
        taken = min(need, self.draw_count)
        self.draw_count -= taken
        self.counts[seat] += taken
        if taken and seat != self.me:
            self.groups[seat].append(Group(taken, self.pile_allowed))
        if taken < need:
            self.owed = (seat, need - taken)

    def after_move(self) -> None:
        last = self.pile[-1][0]
        staying = [seat for seat in range(self.players)
                   if not self.passed[seat] and self.counts[seat]]
        if staying and staying != [last]:
            return
        self.tokens[last] += 1
        self.discard.extend(card for _, card in self.pile)
        self.pile = []
        self.passed = [False] * self.players
        if self.tokens[last] < TARGET:
            self.draw(last, HAND_SIZE - self.counts[last])

    def follow(self, event: Event) -> None:
        if self.lost:
            return
        try:
            self._follow(event)
        except (KeyError, IndexError, ValueError):
            self.lost = True
            self.counts = []

    def _follow(self, event: Event) -> None:
        kind, seat, data = event.type, event.seat, event.data
        index_of = self.cards.deck.index_of
        if kind == "shuffled" and data.get("purpose") == "reshuffle":
            shuffled = sum(1 << card for card in self.discard)
            for groups in self.groups.values():
                for group in groups:
                    group.allowed &= ~shuffled
            self.pile_allowed = shuffled
            self.draw_count = len(self.discard)
            self.discard = []
            if self.owed is not None:
                owed, self.owed = self.owed, None
                self.draw(*owed)
        elif kind == "shuffled":
            self.counts = [HAND_SIZE] * self.players
            self.draw_count = len(self.cards.deck) - HAND_SIZE * self.players
            self.pile_allowed = self.cards.deck.full
            self.groups = {seat: [Group(HAND_SIZE, self.cards.deck.full)]
                           for seat in range(self.players) if seat != self.me}
        elif kind == "played" and seat is not None:
            card = index_of[data["card"]]
            if seat != self.me and self.read_policy and seat not in self.plain:
                self.laid_lowest(seat, card)
            self.take(seat, card)
            self.pile.append((seat, card))
            self.after_move()
        elif kind == "passed" and seat is not None:
            self.passed[seat] = True
            if seat != self.me and not self.voluntary_pass:
                fitting = self.cards.fits_on[self.pile[-1][1]]
                for group in self.groups[seat]:
                    group.allowed &= ~fitting
            self.after_move()
        elif kind == "refilled" and seat is not None:
            discarded = [index_of[code] for code in data["discard"]]
            reading = seat != self.me and self.read_policy and seat not in self.plain
            weak, strong = self.weak_and_strong() if reading else (0, 0)
            if any(strong >> card & 1 for card in discarded):
                self.plain.add(seat)  # it threw a card away the heuristic would keep
            for card in discarded:
                self.take(seat, card)
                self.discard.append(card)
            if reading and seat not in self.plain:
                for group in self.groups[seat]:
                    group.allowed &= ~weak
            self.draw(seat, HAND_SIZE - self.counts[seat])


def knowledge(seen: Observation, kept: KeptFold[_Course] | None = None,
              read_policy: bool = True) -> Knowledge:
    """What ``seen`` tells of the opponents' hands and the draw pile; ``kept``: the course
    followed at the seat's moves before, to follow only the events since. Without
    ``read_policy`` only what holds whoever the opponents are; with it, also what their
    moves tell if they play as the heuristic bot, for each opponent until its moves show it
    does not (``_Course.plain``)."""
    view = what_else_view(seen.view)
    cards = cards_for(view["options"]["star_table"])
    players = seen.players

    def start() -> _Course:
        return _Course(cards, players, seen.seat, bool(view["options"]["voluntary_pass"]),
                       [0] * players, [False] * players, tokens=[0] * players,
                       read_policy=read_policy)

    course = fold_of(seen.seat, seen.seen, start, kept)
    code_of = cards.deck.code_of
    consistent = (course.counts == view["hand_counts"]
                  and course.draw_count == view["draw_count"]
                  and [code_of[card] for card in course.discard] == view["discard_pile"]
                  and [[s, code_of[card]] for s, card in course.pile] == view["pile"]
                  and all(sum(g.count for g in course.groups.get(seat, ())) == count
                          for seat, count in enumerate(view["hand_counts"])
                          if seat != seen.seat))
    if not consistent:
        full = cards.deck.full
        return Knowledge({seat: [Group(count, full)] if count else []
                          for seat, count in enumerate(view["hand_counts"])
                          if seat != seen.seat}, full, False)
    # copies: the course goes on changing its groups at the next move
    return Knowledge({seat: [Group(group.count, group.allowed) for group in groups]
                      for seat, groups in course.groups.items()}, course.pile_allowed, True)


def unseen_cards(cards: Cards, view: WhatElseView) -> CardSet:
    """The cards the seat cannot see: in the other hands or the draw pile."""
    deck = cards.deck
    return deck.full & ~(deck.mask(view["hand"]) | deck.mask(view["discard_pile"])
                         | deck.mask(code for _, code in view["pile"]))


def sample_hidden(known: Knowledge, unseen: CardSet, rng: random.Random
                  ) -> tuple[dict[Seat, CardSet], list[int]] | None:
    """One world consistent with ``known``: each opponent's hand and the draw pile's order
    (top first), every unseen card placed once; ``None`` when the tries found none.

    Cards with the fewest places open go first, each to a place that may hold it, drawn in
    proportion to the room left there."""
    places: list[tuple[Seat, int, CardSet]] = [
        (seat, group.count, group.allowed & unseen)
        for seat, groups in known.groups.items() for group in groups]
    pile_room = unseen.bit_count() - sum(count for _, count, _ in places)
    if pile_room < 0:
        return None
    places.append((NO_SEAT, pile_room, known.pile_allowed & unseen))
    listed = list(bits(unseen))
    options = {card: [i for i, (_, _, allowed) in enumerate(places) if allowed >> card & 1]
               for card in listed}
    for _ in range(SAMPLE_TRIES):
        room = [count for _, count, _ in places]
        rng.shuffle(listed)
        listed.sort(key=lambda card: len(options[card]))
        held: list[CardSet] = [0] * len(places)
        for card in listed:
            open_places = [i for i in options[card] if room[i]]
            if not open_places:
                break
            weights = [room[i] for i in open_places]
            pick = rng.random() * sum(weights)
            chosen = open_places[-1]
            for i, weight in zip(open_places, weights, strict=True):
                if pick < weight:
                    chosen = i
                    break
                pick -= weight
            room[chosen] -= 1
            held[chosen] |= 1 << card
        else:
            hands: dict[Seat, CardSet] = {seat: 0 for seat in known.groups}
            for (seat, _, _), cards in zip(places[:-1], held[:-1], strict=True):
                hands[seat] |= cards
            draw = list(bits(held[-1]))
            rng.shuffle(draw)
            return hands, draw
    return None


def sample_world(seen: Observation, known: Knowledge, rng: random.Random
                 ) -> tuple[dict[Seat, CardSet], list[int]]:
    """A world for a playout: ``sample_hidden``, or with its constraints dropped (hand sizes
    kept) when no world met them."""
    view = what_else_view(seen.view)
    cards = cards_for(view["options"]["star_table"])
    unseen = unseen_cards(cards, view)
    world = sample_hidden(known, unseen, rng)
    if world is None:
        full = cards.deck.full
        free = Knowledge({seat: [Group(count, full)] if count else []
                          for seat, count in enumerate(view["hand_counts"])
                          if seat != seen.seat}, full, False)
        world = sample_hidden(free, unseen, rng)
    assert world is not None  # without constraints every split is a world
    return world


# --- the state of a sampled world ------------------------------------------------------------

def template_state(seen: Observation) -> WhatElseState:
    """The state as the view shows it; the hidden hands and draw pile are filled in per world."""
    view = what_else_view(seen.view)
    rules = rules_for(seen.players, seen.options)
    deck = rules.cards.deck
    index_of = deck.index_of
    players = seen.players
    last = view["last_round"]
    last_round = None if last is None else RoundResult(
        number=last["round"], winner=last["winner"], ended=last["ended"],
        plays=tuple((s, index_of[c]) for s, c in last["pile"]), status=tuple(last["status"]),
        drawn=tuple(last["drawn"]), discarded=tuple(deck.mask(d) for d in last["discarded"]))
    zeros = (0,) * players
    turn = view["turn"] if view["turn"] is not None else view["opener"]
    return WhatElseState(
        rules=rules, phase=view["phase"], round=view["round"], hands=zeros, draw=(),
        discard=tuple(index_of[c] for c in view["discard_pile"]),
        pile=tuple((s, index_of[c]) for s, c in view["pile"]),
        passed=tuple(status == "passed" for status in view["status"]),
        turn=turn, opener=view["opener"], tokens=tuple(view["tokens"]),
        refill_order=tuple(view["refill_order"]), owed_seat=NO_SEAT, owed=0,
        last_round=last_round, rounds_won=zeros, jokers_played=zeros, cards_played=zeros,
        passes=zeros, reshuffles=view["reshuffles"])


def world_state(template: WhatElseState, seat: Seat, hand: CardSet,
                hands: dict[Seat, CardSet], draw: Sequence[int]) -> WhatElseState:
    listed = [hands.get(other, 0) for other in range(template.rules.players)]
    listed[seat] = hand
    return replace(template, hands=tuple(listed), draw=tuple(draw))


# --- the rollout policy: the heuristic bot's rules, played on the engine ----------------------

@cache
def static_worth(table: str) -> tuple[tuple[float, ...], float]:
    """Each card's worth between rounds against a full deck, and the average: the rollouts'
    refill rule (the heuristic bot weighs against the cards unseen, too slow for playouts)."""
    cards = cards_for(table)
    full = cards.deck.full
    worth = tuple(card_worth(cards, card, full & ~(1 << card)) for card in range(len(cards.deck)))
    return worth, sum(worth) / len(worth)


def rollout_discards_of(cards: Cards, hand: CardSet) -> CardSet:
    """The cards worth less than the average card (against a full deck)."""
    worth, average = static_worth(cards.table)
    return sum(1 << card for card in bits(hand) if worth[card] < average)


def rollout_card(state: Position, seat: Seat) -> int:
    """The heuristic's card for ``seat`` to lay, judged from its side of the world, or -1
    when it holds none that fits and passes."""
    playable = legal_cards(state, seat)
    if not playable:
        return -1
    rules = state.rules
    cards = rules.cards
    hands = state.hands
    unseen = cards.deck.full & ~hands[seat] & ~laid_cards(state)
    opponents = [hands[other].bit_count() for other in rules.clockwise[seat]
                 if in_round(state, other)]
    return card_to_lay(cards, playable, unseen, opponents)


def rollout_order(state: Position, rng: Chance) -> list[str]:
    """A reshuffle of the discard pile in an order drawn from ``rng``."""
    request = chance_request(state)
    assert request is not None  # a playout never reaches the game's first deal
    return shuffled(request.items, rng)


def rollout_event(state: Position, rng: Chance) -> Event:
    """The next event of a playout: the heuristic's card (or a pass) for the seat to play
    (``rollout_card``); the rollout's discards for the seat to refill; or a reshuffle of the
    discard pile in an order drawn from ``rng``."""
    rules = state.rules
    cards = rules.cards
    if state.phase == "play":
        seat = state.turn
        card = rollout_card(state, seat)
        return rules.pass_events[seat] if card < 0 else rules.plays.events[seat][card]
    if state.phase == "refill":
        seat = state.refill_order[0]
        discard = rollout_discards_of(cards, state.hands[seat])
        return Event("refilled", seat, {"discard": cards.deck.codes(discard)})
    return Event("shuffled", None, {"order": rollout_order(state, rng)})


def rollout_step(playing: PlayoutState, rng: Chance) -> int:
    """``rollout_event``'s move made on ``playing`` by the rules' own steps (``play``,
    ``pass_turn``, ``refill``, ``shuffle``), with no event in between; the card laid, or -1."""
    if playing.phase == "play":
        seat = playing.turn
        card = rollout_card(playing, seat)
        if card < 0:
            playing.pass_turn(seat)
        else:
            playing.play(seat, card)
        return card
    if playing.phase == "refill":
        seat = playing.refill_order[0]
        playing.refill(seat, rollout_discards_of(playing.rules.cards, playing.hands[seat]))
        return -1
    index_of = playing.rules.cards.deck.index_of
    playing.shuffle(tuple(index_of[code] for code in rollout_order(playing, rng)))
    return -1


def play_out(state: WhatElseState, first: Command, seat: Seat, rng: Chance,
             rounds: int | None = None, deadline: Deadline | None = None) -> float:
    """Play ``first`` in ``state`` through the engine (``decide``, then the rules' own fold,
    ``PlayoutState.apply``, on one state changed in place), then on with the rollout policy
    for every seat (``rollout_event``) until ``rounds`` rounds have ended (the one being
    played counts; from a refill, the next); ``seat``'s value: 1 for a won game, 0 for a lost
    one, else its chance to win the game from the tokens then (``win_chance``) plus the worth
    of the cards it held when the last round ended, ``KEEP_WEIGHT`` times a round won's
    (``round_value``) for each card's worth above the average. ``deadline.check()`` before
    every step."""
    rounds = ROLLOUT_ROUNDS if rounds is None else rounds
    ended = 0
    kept = -1
    playing = PlayoutState(state)
    index_of = playing.rules.cards.deck.index_of
    for event in GAME.decide(state, first):
        laid = bool(playing.pile)
        held = playing.hands[seat]
        playing.apply(event)
        if laid and not playing.pile:  # the round ended: what the seat held then
            ended += 1
            kept = held
            if event.seat == seat and event.type == "played":
                kept &= ~(1 << index_of[event.data["card"]])
    while playing.phase != "over" and ended < rounds:
        if deadline is not None:
            deadline.check()
        laid = bool(playing.pile)
        held = playing.hands[seat]
        mover = playing.turn
        card = rollout_step(playing, rng)
        if laid and not playing.pile:
            ended += 1
            kept = held
            if mover == seat and card >= 0:
                kept &= ~(1 << card)
    tokens = playing.tokens
    if playing.phase == "over":
        return 1.0 if tokens[seat] >= TARGET else 0.0
    needs = tuple(TARGET - count for count in tokens)
    value = win_chance(needs, seat)
    if not KEEP_WEIGHT or kept < 0:
        return value
    worth, average = static_worth(playing.rules.cards.table)
    return value + KEEP_WEIGHT * round_value(needs, seat) * sum(
        worth[card] - average for card in bits(kept))


@cache
def win_chance(needs: tuple[int, ...], seat: Seat) -> float:
    """The chance that ``seat`` wins the game when each player still needs ``needs`` tokens
    and every round from here is as likely to be won by any player (as among players alike):
    what a playout's end is worth, in the game's own terms. Whose round it was matters by who
    is near the end: a round lost to a player one token from the game loses the game, one lost
    to a player far from it costs little."""
    if needs[seat] <= 0:
        return 1.0
    if min(needs) <= 0:
        return 0.0
    total = 0.0
    for winner in range(len(needs)):
        total += win_chance(_won_by(needs, winner), seat)
    return total / len(needs)


def round_value(needs: tuple[int, ...], seat: Seat) -> float:
    """What one more round won is worth to ``seat`` from ``needs``, in win chance."""
    return win_chance(_won_by(needs, seat), seat) - win_chance(needs, seat)


def _won_by(needs: tuple[int, ...], winner: Seat) -> tuple[int, ...]:
    return (*needs[:winner], needs[winner] - 1, *needs[winner + 1:])


# --- the bot ---------------------------------------------------------------------------------

def refill_candidates(cards: Cards, hand: CardSet, unseen: CardSet,
                      heuristic: CardSet) -> list[CardSet]:
    """Discards worth trying: the heuristic bot's, and the k weakest cards for every k."""
    worth = {card: card_worth(cards, card, unseen) for card in bits(hand)}
    order = sorted(worth, key=lambda card: (worth[card], card))
    found = [heuristic]
    for k in range(len(order) + 1):
        chosen = sum(1 << card for card in order[:k])
        if chosen not in found:
            found.append(chosen)
    return found


class StrongBot(WorldsBot):
    """Chooses by playouts in worlds sampled from what its seat has seen; keeps the course of
    the game it followed from one move to the next (``knowledge``)."""

    def __init__(self, rng: random.Random, worlds: int = 0) -> None:
        super().__init__(rng, worlds)
        self.course: KeptFold[_Course] = KeptFold()

    def choose(self, seen: Observation, think: float) -> Command:
        deadline = Deadline(think, self.clock)  # what is worked out before the search counts
        self.searched = False
        legal = seen.legal
        if len(legal) == 1:
            return legal[0]
        commands, result = self._search(seen, deadline, self.worlds, DOUBT)
        self.last_playouts = result.playouts
        self.searched = True
        return commands[result.chosen]

    def appraise(self, seen: Observation, think: float, worlds: int | None = None,
                 include: Command | None = None) -> Appraisal | None:
        """Each candidate's value by the search ``choose`` plays by (every legal card, or the
        discards worth trying, and ``include`` too): the chance to win the game, the cards
        kept counted too (``play_out``). ``worlds``: exactly that
        many, whatever the clock. ``None`` for a single legal move."""
        if len(seen.legal) < 2:
            return None
        commands, result = self._search(seen, Deadline(think if worlds is None else 0.0),
                                        worlds or 0, 0.0, include)
        return Appraisal(tuple(MoveValue(command, mean, error, count) for command, mean, error,
                               count in zip(commands, result.means, result.errors,
                                            result.counts, strict=True)), "% win chance", 100.0)

    def _search(self, seen: Observation, deadline: Deadline, least: int,
                doubt: float, include: Command | None = None
                ) -> tuple[list[Command], SearchResult]:
        """The candidates (and ``include``) and their playouts (``paired_search``) until
        ``deadline``."""
        view, seat = what_else_view(seen.view), seen.seat
        cards = cards_for(view["options"]["star_table"])
        deck = cards.deck
        hand = deck.mask(view["hand"])
        unseen = unseen_cards(cards, view)
        if view["legal"]["refill"]:
            heuristic = HeuristicBot._discards(cards, hand, unseen)
            discards = refill_candidates(cards, hand, unseen, heuristic)
            commands = [Command("refill", seat, {"discard": deck.codes(chosen)})
                        for chosen in discards]
            default = 0
        else:
            commands = list(seen.legal)  # every card it may lay, and a pass where allowed
            default = self._default_play(seen, cards, hand, unseen, commands)
        if include is not None and include not in commands:
            commands.append(include)
        known = knowledge(seen, self.course)
        template = template_state(seen)
        rng = self.rng

        def sample() -> tuple[WhatElseState, list[float]]:
            hands, draw = sample_world(seen, known, rng)
            return world_state(template, seat, hand, hands, draw), []

        def playout(index: int, world: tuple[WhatElseState, list[float]]) -> float:
            state, draws = world  # the same reshuffles for every candidate in a world
            return play_out(state, commands[index], seat, Replay(rng, draws), deadline=deadline)

        result = paired_search(len(commands), sample, playout, deadline, default, least,
                               doubt)
        return commands, result

    @staticmethod
    def _default_play(seen: Observation, cards: Cards, hand: CardSet, unseen: CardSet,
                      commands: list[Command]) -> int:
        """The heuristic bot's move among ``commands``: what is played when time runs out
        before every candidate was tried once."""
        playable = cards.deck.mask(c.data["card"] for c in commands if c.type == "play")
        if not playable:
            return 0
        card = HeuristicBot._play(cards, what_else_view(seen.view), seen.seat, playable,
                                  unseen)
        code = cards.deck.code_of[card]
        return next(i for i, c in enumerate(commands) if c.data.get("card") == code)


BOTS = {"strong": StrongBot}
"""Registered in the game's package (``BOT_MODULES``) after its bots module, which this one
builds on."""
