"""The ``strong`` bot for Stars and Bars (``stars_and_bars``): Monte Carlo over the draw.

Both hands are open; only the deck's order is hidden. The bot is given an ``Observation``:
the unseen cards are those never shown (every card comes into sight when it is drawn, in the
set-up's draws or a turn's ``drew``), and the deck holds exactly them in some order. Like
``lookahead`` it does every duty (left undone, it is the opponent's to claim).

It searches its claims and its placement: the candidates are each claim open to it (played
out with the ``lookahead``'s placement after it) and the ``lookahead`` bot's best few
placements (points now, less the opponent's best reply and the claims left to them), which
forgo the claims for this turn. It plays each on in worlds sampled
afresh (the deck shuffled anew), every candidate in the same worlds, both seats then placing
greedily for a few turns on the rules' own fold (``play_out``: the steps of a
``BarsPlayout``, which ``evolve`` is built on; a rule lives only in ``rules.py``); a candidate's
value is the score difference then, or the result when the game ends on the way. It chooses
the best mean when its time is up (``search_flat.paired_search``).
"""

from __future__ import annotations

import random
from dataclasses import replace

from starhall.shared.belief import KeptFold, fold_of
from starhall.shared.cards import CardSet, Chance, bits
from starhall.shared.engine import Command, Event, Seat
from starhall.shared.games.stars_and_bars.bots import _admin, lookahead_scores
from starhall.shared.games.stars_and_bars.rules import (
    DECK,
    EMPTY,
    GAME,
    NOBODY,
    BarsPlayout,
    BarsState,
    BarsTurn,
    Position,
    Tally,
    Turn,
    legal_placements,
    owed_duties,
    stars_and_bars_view,
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

CANDIDATES = 6
"""How many of the lookahead's best placements the search plays out."""
HORIZON = 6
"""Turns played after the bot's own (three each) before a playout is scored."""
DOUBT = 2.0
"""With a claim open, the search leaves it (the default) only for a move that beats it by
more than this many standard errors over the worlds played (``paired_search``)."""
SPREAD = 60.0
"""A score difference of this many points counts as a sure win (a value of 1) in a playout
cut short; a lead over 50 at a round's end wins outright."""
_PLACEHOLDER = 0
"""A face-down stack's cards are not shown and play no part in the rules: any card stands in."""


class Shown:
    """The cards shown to the seat so far, from the events: the draws a shuffle showed and
    the cards drawn at turns' ends."""

    __slots__ = ("cards",)

    def __init__(self) -> None:
        self.cards: CardSet = 0

    def follow(self, event: Event) -> None:
        index_of = DECK.index_of
        if event.type == "shuffled":
            for code in event.data.get("draws", ()):
                self.cards |= 1 << index_of[code]
        elif event.type == "turn_ended" and event.data.get("drew") is not None:
            self.cards |= 1 << index_of[event.data["drew"]]


def unseen_cards(seen: Observation, kept: KeptFold[Shown] | None = None) -> CardSet:
    """The cards never shown to the seat: the deck, in an order it does not know. ``kept``:
    the cards shown at the seat's moves before, to look only at the events since."""
    return DECK.full & ~fold_of(seen.seat, seen.seen, Shown, kept).cards


def sample_deck(seen: Observation, unseen: CardSet, rng: random.Random) -> list[int]:
    """One order of the deck consistent with what was seen: the unseen cards shuffled (the
    deck holds exactly them; should the count disagree, as many of them as it holds)."""
    order = list(bits(unseen))
    rng.shuffle(order)
    return order[:stars_and_bars_view(seen.view)["deck"]]


def _turn_of(shown: BarsTurn | None) -> Turn | None:
    if shown is None:
        return None
    return Turn(seat=shown["seat"], claims=tuple(
        (claim["kind"], claim.get("space", EMPTY), claim["points"]) for claim in shown["claims"]),
        placed=None, duties=(), points=shown["points"], passed=shown["passed"], forgotten=(),
        drew=EMPTY, touched=shown["touched"])


def template_state(seen: Observation) -> BarsState:
    """The state as the view shows it, before the bot places; the deck is filled in per world."""
    view = stars_and_bars_view(seen.view)
    index_of = DECK.index_of
    stacks = []
    face_down = 0
    for space, cell in enumerate(view["board"]):
        if cell["face_down"]:
            face_down |= 1 << space
            stacks.append((_PLACEHOLDER,) * cell["height"])
        else:
            stacks.append(tuple(index_of[code] for code in cell["cards"]))
    hands = [DECK.mask(hand) for hand in view["hands"]]
    zeros = (0, 0)
    return BarsState(
        phase=view["phase"], round=view["round"], starter=view["starter"],
        stacks=tuple(stacks), face_down=face_down,
        owners=tuple(NOBODY if cell["owner"] is None else cell["owner"]
                     for cell in view["board"]),
        clear_owner=NOBODY if view["clear_owner"] is None else view["clear_owner"],
        hands=(hands[0], hands[1]), deck=(), discards=0,
        scores=(view["scores"][0], view["scores"][1]), turn=_turn_of(view["turn"]),
        last_turn=_turn_of(view["last_turn"]), result=None, round_ended=False,
        tally=Tally(zeros, zeros, zeros, zeros, zeros))


def greedy_placement(state: Position, seat: Seat, rng: Chance) -> tuple[int, int]:
    """The placement with the most points now (ties at random), or (-1, -1) for none: the
    playouts' policy for both seats, over the rules' own list of legal placements."""
    best, chosen, ties = -1, (-1, -1), 0
    for card, space, points in legal_placements(state, seat):
        if points > best:
            best, chosen, ties = points, (card, space), 1
        elif points == best:
            ties += 1
            if rng.random() * ties < 1:
                chosen = (card, space)
    return chosen


def take_turn(playing: BarsPlayout, seat: Seat, card: int, space: int) -> None:
    """``seat``'s turn, made on ``playing`` by the rules' own steps: places ``card`` on
    ``space`` (card -1: passes), does every duty it then owes and ends its turn. The placement
    is one the seat may make (the policy found it on this board)."""
    if card < 0:
        playing.pass_turn()
        return
    playing.place(card, space)
    while owed := owed_duties(playing):
        playing.duty(*owed[0])
    playing.end_turn()


def play_turn(state: BarsState, seat: Seat, card: int, space: int) -> BarsState:
    """``take_turn`` on a copy of ``state``: the state after the turn."""
    playing = BarsPlayout(state)
    take_turn(playing, seat, card, space)
    return playing.frozen()


def play_out(state: BarsState, seat: Seat, card: int, space: int, rng: Chance,
             turns: int = HORIZON, deadline: Deadline | None = None) -> float:
    """``seat``'s placement in ``state``, then ``turns`` greedy turns or to the end of the
    game, on one ``BarsPlayout`` (the rules' own steps, no state copied); the playout's
    value to ``seat`` (``value``). ``deadline.check()`` before every turn."""
    playing = BarsPlayout(state)
    take_turn(playing, seat, card, space)
    mover = seat
    for _ in range(turns):
        if playing.phase == "over":
            break
        if deadline is not None:
            deadline.check()
        mover = 1 - mover
        take_turn(playing, mover, *greedy_placement(playing, mover, rng))
    return value(playing, seat)


def value(state: Position, seat: Seat) -> float:
    """A playout's value to ``seat`` in [0, 1]: the result of a finished game, else the score
    difference scaled by ``SPREAD``."""
    result = state.result
    if result is not None:
        if len(result.winners) > 1:
            return 0.5
        return 1.0 if result.winners[0] == seat else 0.0
    lead = state.scores[seat] - state.scores[1 - seat]
    return min(1.0, max(0.0, 0.5 + lead / (2 * SPREAD)))


Candidate = tuple[Command | None, int, int]
"""A move searched: a claim to make first (``None`` for none), then the placement after it,
(card, space), (-1, -1) for a pass."""


def _best_placement(state: BarsState, seat: Seat) -> tuple[int, int]:
    """The ``lookahead`` bot's placement on ``state``'s board, (-1, -1) when none is legal."""
    scored = lookahead_scores(GAME.typed_view(state, seat), seat)
    if not scored:
        return -1, -1
    _, card, space = max(scored, key=lambda entry: entry[0])
    return card, space


class StrongBot(WorldsBot):
    """Plays out the lookahead's best placements, and each claim open to it, over sampled deck
    orders; keeps the cards it was shown from one move to the next (``unseen_cards``)."""

    def __init__(self, rng: random.Random, worlds: int = 0) -> None:
        super().__init__(rng, worlds)
        self.shown: KeptFold[Shown] = KeptFold()

    def choose(self, seen: Observation, think: float) -> Command:
        deadline = Deadline(think, self.clock)  # what is worked out before the search counts
        self.searched = False
        view, seat = stars_and_bars_view(seen.view), seen.seat
        if not view["legal"]["claims"]:
            command = _admin(view, seat)
            if command is not None:  # a duty (free: left undone it is the opponent's to
                return command       # claim), the end of the turn or a forced pass
        commands, result = self._search(seen, deadline, self.worlds)
        self.last_playouts = result.playouts
        self.searched = True
        return commands[result.chosen]

    def appraise(self, seen: Observation, think: float, worlds: int | None = None,
                 include: Command | None = None) -> Appraisal | None:
        """The value of each move the search ``choose`` plays by weighs (each claim open,
        the lookahead's best placements, and ``include`` too: a move to value whatever the
        lookahead thinks of it), the chance to win in percent (a playout's score lead counts
        toward it). ``worlds``: exactly that many, whatever the clock. ``None`` where the
        bot does not search (a duty or the end of a turn comes first)."""
        view = stars_and_bars_view(seen.view)
        if not view["legal"]["claims"] and _admin(view, seen.seat) is not None:
            return None
        commands, result = self._search(seen, Deadline(think if worlds is None else 0.0),
                                        worlds or 0, include)
        return Appraisal(tuple(
            MoveValue(command, mean, error, count) for command, mean, error, count in zip(
                commands, result.means, result.errors, result.counts, strict=True)),
            "% win chance", 100.0)

    def _search(self, seen: Observation, deadline: Deadline, least: int,
                include: Command | None = None) -> tuple[list[Command], SearchResult]:
        """The candidates (every claim open first, then the lookahead's best placements, and
        ``include``) and the search over them, at least ``least`` worlds. A claim is played
        out with the lookahead's placement after it; with claims open the first is the
        default, kept unless another move is clearly better (``DOUBT``): a claim is free
        points, and a search too short to tell keeps it. It stops at ``deadline``."""
        view, seat = stars_and_bars_view(seen.view), seen.seat
        rng = self.rng
        template = template_state(seen)
        candidates: list[Candidate] = []
        commands: list[Command] = []
        for claim in view["legal"]["claims"]:
            command = Command("claim", seat, {k: v for k, v in claim.items() if k != "points"})
            after = template
            for event in GAME.decide(template, command):
                after = GAME.evolve(after, event)
            candidates.append((command, *_best_placement(after, seat)))
            commands.append(command)
        scored = lookahead_scores(view, seat)
        rng.shuffle(scored)  # ties between equal scores at random, as the lookahead breaks them
        scored.sort(key=lambda entry: -entry[0])
        for _, card, space in scored[:CANDIDATES]:
            candidates.append((None, card, space))
            commands.append(Command("place", seat, {"card": DECK.code_of[card],
                                                    "space": space}))
        if include is not None and include.type == "place" and include not in commands:
            candidates.append((None, DECK.index(include.data["card"]), include.data["space"]))
            commands.append(include)
        if view["legal"]["pass"]:  # no placement now: the claims, or none and a pass
            candidates.append((None, -1, -1))
            commands.append(Command("pass", seat, {}))
        unseen = unseen_cards(seen, self.shown)

        def sample() -> tuple[BarsState, list[float]]:
            deck = tuple(sample_deck(seen, unseen, rng))
            return replace(template, deck=deck), []

        def playout(index: int, world: tuple[BarsState, list[float]]) -> float:
            state, draws = world
            claim, card, space = candidates[index]
            if claim is not None:
                for event in GAME.decide(state, claim):
                    state = GAME.evolve(state, event)
            # the same greedy ties for every candidate in a world
            return play_out(state, seat, card, space, Replay(rng, draws), deadline=deadline)

        claims = len(view["legal"]["claims"])
        result = paired_search(len(candidates), sample, playout, deadline, 0, least,
                               DOUBT if claims else 0.0)
        return commands, result


BOTS = {"strong": StrongBot}
"""Registered in the game's package (``BOT_MODULES``) after its bots module, which this one
builds on."""
