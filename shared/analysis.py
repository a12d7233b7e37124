"""Analysis of a recorded game: at a decision, what the Strong bot makes of each legal move.

A decision is weighed from its seat's eyes only: the seat's ``Observation`` at that event is
built the way a live table builds a bot's (``SeatMemory``: every event cut by
``game.event_view`` for that seat, the view and legal commands at the state), and handed to
the game's strong bot, whose ``appraise`` runs the search it plays by and returns each move's
value with its standard error (``search_flat.Appraisal``). The bot never sees the state, so
the analysis can use no card its seat did not see (``tests/test_analysis.py`` swaps hidden
cards in a log and gets the same values).

Each decision has its own random numbers (from the settings' seed, its event and seat), so
it comes out the same whichever order decisions are weighed in, alone or with the whole
game; with ``worlds`` set, whatever the clock says too. Pure: no I/O, no clock beyond the
search's budget (``shared/analysis_cache.py`` keeps the results beside the log).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from random import Random
from typing import Any

from starhall.shared.bots import bot_kinds
from starhall.shared.cards import CardSet, Deck, bits
from starhall.shared.engine import Command, Game, IllegalCommand
from starhall.shared.games.hearts.rules import rules_for as hearts_rules
from starhall.shared.games.star_patience.rules import DECK as PATIENCE_DECK
from starhall.shared.games.stars.rules import DECK as STARS_DECK
from starhall.shared.games.stars_and_bars.rules import card_name as bars_card
from starhall.shared.games.stars_and_bars.rules import space_name
from starhall.shared.games.what_else.rules import card_name as what_else_card
from starhall.shared.observation import Observation, SeatMemory
from starhall.shared.replay import Recording
from starhall.shared.search_flat import Appraisal
from starhall.shared.tricks import the_card

VERSION = 3
"""Raised when what a decision holds or says changes (its moves' words, a bot's unit)."""
DEFAULT_THINK = 0.25
"""Seconds the search takes at each decision unless told."""
COSTLIEST = 5
"""Decisions listed for each seat."""
SMALLEST = 0.05
"""A cost below this (in the decision's unit) is no cost: it would read "about 0.0"."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How hard the analysis looks: ``think`` seconds a decision, or exactly ``worlds``
    deals (whatever the clock: the same values on any machine), from random numbers seeded
    with ``seed``."""

    think: float = DEFAULT_THINK
    worlds: int | None = None
    seed: int = 0

    @property
    def key(self) -> str:
        """The settings in a word, for the cache (with the analysis's version: a cache of an
        older analysis, whose values or words differ, is not read)."""
        return f"v{VERSION},think={self.think:g},worlds={self.worlds},seed={self.seed}"


@dataclass(frozen=True, slots=True)
class Weighed:
    """One legal move at a decision, valued in the decision's ``unit``."""

    words: str
    """The move in words: "the King of Skulls"."""
    value: float
    """What the search expects the move to be worth to the seat (higher is better)."""
    spread: float
    """The value's standard error: the value is about this sure (±)."""
    worlds: int
    """The deals it was played out in (0: every move comes to the same)."""
    played: bool


@dataclass(frozen=True, slots=True)
class Decision:
    """A seat's choice after event ``seq`` and what each of its moves was worth."""

    seq: int
    seat: int
    where: str
    """When, in words: "hand 3, trick 7"."""
    unit: str
    moves: tuple[Weighed, ...]
    """Best first."""
    exact: bool = False
    """The values are exact (every order of the unseen cards weighed), not sampled."""

    @property
    def played(self) -> Weighed | None:
        return next((move for move in self.moves if move.played), None)

    @property
    def best(self) -> Weighed:
        return self.moves[0]

    @property
    def all_alike(self) -> bool:
        """Every move comes to the same (none needed playing out)."""
        return all(move.worlds == 0 for move in self.moves)

    @property
    def cost(self) -> float:
        """What the move played gave up against the best one (0 when it was the best, or is
        not known)."""
        played = self.played
        return 0.0 if played is None else max(0.0, self.best.value - played.value)

    def sentence(self) -> str:
        """"hand 3, trick 7: the King of Skulls cost about 4.2 points (± 1.1); the 5 of
        Leaves would have kept them"."""
        played = self.played
        if played is None:
            return f"{self.where}: the move played was not weighed"
        if played is self.best:
            return f"{self.where}: {played.words} was the best move"
        if self.cost < SMALLEST:
            return f"{self.where}: {played.words} was as good as the best"
        sure = "" if self.exact else f" ({plus_minus(self.cost_spread)})"
        return (f"{self.where}: {played.words} cost about {self.cost:.1f} {self.unit}{sure}; "
                f"{self.best.words} would have kept them")

    @property
    def cost_spread(self) -> float:
        """How sure ``cost`` is: the standard error of the difference of two values."""
        played = self.played
        if played is None:
            return 0.0
        return float((played.spread ** 2 + self.best.spread ** 2) ** 0.5)

    def as_data(self) -> dict[str, Any]:
        """Plain data (JSON's: a spread not known yet, from a single deal, is ``None``)."""
        return {"seq": self.seq, "seat": self.seat, "where": self.where, "unit": self.unit,
                "moves": [[m.words, m.value, m.spread if math.isfinite(m.spread) else None,
                           m.worlds, m.played] for m in self.moves], "exact": self.exact}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Decision:
        """The inverse of ``as_data`` (``ValueError``, ``KeyError`` or ``TypeError`` for data
        that is not one)."""
        moves = tuple(Weighed(str(words), float(value),
                              math.inf if spread is None else float(spread), int(worlds),
                              bool(played))
                      for words, value, spread, worlds, played in data["moves"])
        if not moves:
            raise ValueError("a decision without moves")
        return cls(int(data["seq"]), int(data["seat"]), str(data["where"]), str(data["unit"]),
                   moves, bool(data.get("exact", False)))


def plus_minus(spread: float) -> str:
    """"± 1.2", or "± ?" for a value from a single deal, whose spread is not known."""
    return f"± {spread:.1f}" if math.isfinite(spread) else "± ?"


class NoAnalysis(ValueError):
    """A game no strong bot plays: nothing to weigh its moves with."""


def analyser(game: Game[Any]) -> Callable[[Random], Any]:
    """The factory of ``game``'s strong bot, which must ``appraise``; ``NoAnalysis`` when it
    has none."""
    factory = bot_kinds(game).get("strong")
    if factory is None or not hasattr(factory, "appraise"):
        raise NoAnalysis(f"{game.title} has no strong bot to analyse its moves with")
    return factory


def positions(recording: Recording) -> Iterator[tuple[int, Any, SeatMemory]]:
    """Each state of the log, strictly rebuilt, as ``(seq, state, memory)``: the memory holds
    what every seat was shown up to it (read it before the next item: it grows)."""
    memory = SeatMemory(recording.game, recording.players, recording.options)
    states = recording.states()
    seq, before = next(states)
    yield seq, before, memory
    for (_, event), (seq, after) in zip(recording.events, states, strict=True):
        memory.add(before, event)
        yield seq, after, memory
        before = after


def decision_at(recording: Recording, seq: int, state: Any, seen: Observation,
                settings: Settings) -> Decision | None:
    """What the strong bot makes of each move of ``seen.seat`` after event ``seq``, the
    next event's move marked played when it is the seat's; ``None`` when there is nothing to
    weigh (a single legal move, or a decision the bot does not search)."""
    game = recording.game
    bot = analyser(game)(Random(f"{settings.seed}:{seq}:{seen.seat}"))
    played = played_command(recording, seq, seen.seat)
    appraisal: Appraisal | None = bot.appraise(seen, settings.think, settings.worlds,
                                               include=played)
    if appraisal is None or not appraisal.moves:
        return None
    scale = appraisal.scale
    moves = [Weighed(move_words(recording, move.command), move.value * scale,
                     move.error * scale, move.worlds,
                     played is not None and _same_move(game, state, move.command, played))
             for move in appraisal.moves]
    moves.sort(key=lambda move: (-move.value, not move.played))
    return Decision(seq, seen.seat, where_words(seen.view, seq), appraisal.unit, tuple(moves),
                    appraisal.exact)


def played_command(recording: Recording, seq: int, seat: int) -> Command | None:
    """The command the seat gave after event ``seq``: the one that caused event ``seq + 1``,
    when that event is the seat's."""
    if seq >= recording.last_seq:
        return None
    event = recording.event(seq + 1)
    if event.seat != seat:
        return None
    try:
        return recording.game.command_for(event)
    except IllegalCommand:
        return None


def _same_move(game: Game[Any], state: Any, command: Command, played: Command) -> bool:
    """Whether ``command`` is the move played: the same command, or one giving the same
    first event (a game whose events do not carry their command's data)."""
    if command == played:
        return True
    try:
        mine, theirs = game.decide(state, command), game.decide(state, played)
    except IllegalCommand:
        return False
    return bool(mine) and bool(theirs) and mine[0] == theirs[0]


def analyse_at(recording: Recording, seq: int, seat: int, settings: Settings
               ) -> Decision | None:
    """The decision of ``seat`` after event ``seq``, from what the seat was shown by then."""
    if not 0 <= seq <= recording.last_seq:
        raise ValueError(f"no event {seq}: the log has events 0 to {recording.last_seq}")
    if not 0 <= seat < recording.players:
        raise ValueError(f"no seat {seat}: the table has seats 0 to {recording.players - 1}")
    analyser(recording.game)
    for at, state, memory in positions(recording):
        if at == seq:
            return decision_at(recording, seq, state, memory.observe(state, seat), settings)
    raise AssertionError("unreachable: every seq up to the last is a position")


def decisions_to_weigh(recording: Recording, seats: Iterable[int] | None = None) -> int:
    """How many moves ``analyse_game`` looks at: each event a seat caused (a progress bar's
    total)."""
    chosen = set(range(recording.players) if seats is None else seats)
    return sum(1 for _, event in recording.events if event.seat in chosen)


def analyse_game(recording: Recording, settings: Settings, seats: Iterable[int] | None = None,
                 progress: Callable[[], object] | None = None) -> list[Decision]:
    """Every decision the seats made (all by default), in order: each event a seat caused,
    weighed from the state before it. ``progress()`` after each of those."""
    analyser(recording.game)
    chosen = set(range(recording.players) if seats is None else seats)
    found: list[Decision] = []
    for seq, state, memory in positions(recording):
        if seq >= recording.last_seq:
            break
        seat = recording.event(seq + 1).seat
        if seat is None or seat not in chosen:
            continue
        decision = decision_at(recording, seq, state, memory.observe(state, seat), settings)
        if decision is not None and decision.played is not None:
            found.append(decision)
        if progress is not None:
            progress()
    return found


def costliest(decisions: Iterable[Decision], seat: int, count: int = COSTLIEST
              ) -> list[Decision]:
    """The seat's decisions that cost the most, dearest first (those that cost something)."""
    dear = [decision for decision in decisions
            if decision.seat == seat and decision.cost >= SMALLEST]
    dear.sort(key=lambda decision: (-decision.cost, decision.seq))
    return dear[:count]


PHASE_WORDS = {"pass": "the pass", "bidding": "the bidding", "bury": "the burial"}
"""A trick game's phases before its tricks, as a player names them."""


def where_words(view: dict[str, Any], seq: int) -> str:
    """When a decision was made, as a player would say it."""
    if "hand_number" in view and "tricks_played" in view:
        phase = PHASE_WORDS.get(view.get("phase", ""))
        if phase is not None:
            return f"hand {view['hand_number']}, {phase}"
        return f"hand {view['hand_number']}, trick {view['tricks_played'] + 1}"
    if "round" in view:
        return f"round {view['round']}, event {seq + 1}"
    if view.get("game") == "star_patience" and view.get("turned"):
        turned = the_card(PATIENCE_DECK, PATIENCE_DECK.index(view["turned"]))
        return f"move {view['moves'] + 1}, {turned} turned"
    return f"event {seq + 1}"


def move_words(recording: Recording, command: Command) -> str:
    """A move as a player would say it: "the King of Skulls", "a large solid red star on
    b2", "discarding the 3 and the 14 red"."""
    game_id, data = recording.game.id, command.data
    if game_id in ("hearts", "stars") and command.type == "play":
        deck = trick_deck(recording)
        return the_card(deck, deck.index(data["card"]))
    if game_id == "hearts" and command.type == "pass":
        deck = trick_deck(recording)
        return f"passing {cards_by_suit(deck, deck.mask(data['cards']))}"
    if game_id == "stars":
        if command.type == "bury":
            return f"burying {cards_by_suit(STARS_DECK, STARS_DECK.mask(data['cards']))}"
        if command.type == "bid":
            return f"bidding {data['amount']}"
        if command.type == "pass":
            return "passing"
    if game_id == "what_else":
        if command.type == "play":
            return f"the {what_else_card(data['card'])}"
        if command.type == "refill":
            discard = [f"the {what_else_card(code)}" for code in data.get("discard", [])]
            return ("keeping every card" if not discard else
                    "discarding " + (", ".join(discard[:-1]) + " and " + discard[-1]
                                     if len(discard) > 1 else discard[0]))
        if command.type == "pass":
            return "passing"
    if game_id == "star_patience" and command.type in ("pair", "place"):
        if command.type == "place":
            return f"place on the {data['line']} line"
        return f"pair with {the_card(PATIENCE_DECK, PATIENCE_DECK.index(data['card']))}"
    if game_id == "stars_and_bars" and command.type == "place":
        return f"a {bars_card(data['card'])} on {space_name(data['space'])}"
    details = " ".join(f"{value}" for value in data.values())
    return f"{command.type} {details}".strip()


def cards_by_suit(deck: Deck, cards: CardSet) -> str:
    """Several cards in words, those of a suit together, in deck order: "the 8 and 9 of
    Hearts and the Queen of Spades" (a move of three cards reads as one, in a narrow
    column)."""
    groups: dict[str, list[str]] = {}
    for card in bits(cards):
        rank, _, suit = deck.cards[card].name.partition(" of ")
        groups.setdefault(suit, []).append(rank)
    words = [f"the {' and '.join(ranks)}" if not suit else
             f"the {', '.join(ranks[:-1])} and {ranks[-1]} of {suit}" if len(ranks) > 1 else
             f"the {ranks[0]} of {suit}" for suit, ranks in groups.items()]
    return " and ".join(words) if len(words) < 3 else \
        f"{', '.join(words[:-1])} and {words[-1]}"


def trick_deck(recording: Recording) -> Deck:
    """The deck of a trick game's recording (Hearts' depends on its options)."""
    if recording.game.id == "hearts":
        return hearts_rules(recording.players, recording.options).deck
    return STARS_DECK
