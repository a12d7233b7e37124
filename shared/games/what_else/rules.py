"""A card game – what else? by Josep M. Allué (game id ``what_else``), as described in
docs/games/what_else.md.

Three to six players, 55 cards: the numbers 1–50, thirty of them with one coloured star
(option ``star_table``), and five star jokers that show all five colours and no number.
The opener of a round lays any card; then, clockwise among the players still in the round,
each must lay a card that fits on the last one (a higher number or a shared star colour; a
joker only on a card with a star, and on a joker only a card with a star) or, holding none,
passes and is out of the round (option ``voluntary_pass`` lets a player pass anyway). The
last player to lay a card wins the round and a star token; the winner draws back to five,
then every other player may discard and draws back to five. First to three tokens wins.

Events: ``shuffled`` (the first deal, and each reshuffle of the discard pile), ``played``,
``passed``, ``refilled``. The end of a round, the token, the winner's draw, every draw, the
next opener and the end of the game follow from those in ``evolve``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from random import Random
from typing import Any, Final, Literal, TypedDict, cast

from starhall.shared.cards import CardSet, Deck, bits
from starhall.shared.commands import held_card, seat_of
from starhall.shared.engine import (
    CARD_GAME_PHASES,
    ChanceRequest,
    Command,
    Event,
    Game,
    IllegalCommand,
    OptionError,
    Outcome,
    Seat,
    Viewer,
    require,
)
from starhall.shared.options import Options, OptionSpec
from starhall.shared.shuffle import shuffle_event
from starhall.shared.snapshots import SnapshotReader
from starhall.shared.tricks import CardPlays

COLOURS: Final = "rygbv"
COLOUR_NAMES: Final = {"r": "red", "y": "yellow", "g": "green", "b": "blue", "v": "violet"}
NUMBERS: Final = 50
JOKERS: Final = 5
JOKER_PREFIX: Final = "J"
HAND_SIZE: Final = 5
TARGET: Final = 3
SUPPLY: Final = 13
GAME_ID: Final = "what_else"
MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 6
STARS_PER_COLOUR: Final = 6

DEFAULT_STAR_TABLE: Final[dict[str, tuple[int, ...]]] = {
    "r": (1, 14, 25, 33, 44, 46),
    "y": (3, 7, 21, 24, 34, 45),
    "g": (6, 11, 22, 23, 48, 50),
    "b": (9, 15, 18, 31, 38, 43),
    "v": (4, 16, 27, 30, 41, 49),
}
"""The default star table: which numbers show a star of which colour."""


def _spread_table() -> dict[str, tuple[int, ...]]:
    """The ``spread`` table: in every five numbers the first three show a star (1 2 3, 6 7 8,
    11 12 13 …) and the colours take turns red, yellow, green, blue, violet along them, so
    each colour has six stars spread evenly from low to high and 4, 5, 9, 10 … show none."""
    starred = [n for n in range(1, NUMBERS + 1) if n % 5 in (1, 2, 3)]
    return {colour: tuple(starred[i::len(COLOURS)]) for i, colour in enumerate(COLOURS)}


STAR_TABLES: Final[dict[str, dict[str, tuple[int, ...]]]] = {
    "standard": DEFAULT_STAR_TABLE,
    "spread": _spread_table(),
}


def card_face(code: str) -> tuple[int | None, str]:
    """What a card shows, from its code alone: its number (``None`` for a star joker) and the
    letters of the star colours it shows ("" for none, "rygbv" for a joker)."""
    if not isinstance(code, str) or not code:
        raise ValueError(f"{code!r} is not a card code")
    if code.startswith(JOKER_PREFIX) and code[1:].isdigit() and 1 <= int(code[1:]) <= JOKERS:
        return None, COLOURS
    colour = code[-1] if code[-1] in COLOURS else ""
    number = code[:-1] if colour else code
    if not number.isdigit() or not 1 <= int(number) <= NUMBERS:
        raise ValueError(f"{code!r} is not a card code")
    return int(number), colour


def card_name(code: str) -> str:
    """A card as people say it: "14 red", "7", "star joker"."""
    number, colours = card_face(code)
    if number is None:
        return "star joker"
    return f"{number} {COLOUR_NAMES[colours]}" if colours else str(number)


def _names(codes: list[str]) -> str:
    names = [card_name(code) for code in codes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True, slots=True)
class Cards:
    """One star table's 55 cards, and which fit on which, worked out once.

    Deck order (card index): the numbers 1 … 50 (index = number − 1), then J1 … J5."""

    table: str
    deck: Deck
    numbers: tuple[int, ...]
    """Each card's number, 0 for a joker."""
    colours: tuple[int, ...]
    """Each card's star colours as bits (bit i for ``COLOURS[i]``): one bit, none, or all."""
    fits_on: tuple[CardSet, ...]
    """``fits_on[top]``: every card that may be laid on ``top``."""
    starred: CardSet
    """The cards that show a star, jokers included."""
    jokers: CardSet


def _fits(numbers: tuple[int, ...], colours: tuple[int, ...], card: int, top: int) -> bool:
    if colours[card] & colours[top]:
        return True  # a shared colour; a joker shares every colour of a starred card
    return numbers[card] > numbers[top] > 0  # two numbers, the card's higher


@cache
def cards_for(table: str) -> Cards:
    colour_of: dict[int, str] = {}
    for colour, numbers in STAR_TABLES[table].items():
        for number in numbers:
            colour_of[number] = colour
    specs = []
    for number in range(1, NUMBERS + 1):
        colour = colour_of.get(number, "")
        name = f"{number} {COLOUR_NAMES[colour]}" if colour else str(number)
        specs.append((f"{number}{colour}", colour, number, name))
    for joker in range(1, JOKERS + 1):
        specs.append((f"{JOKER_PREFIX}{joker}", "", 0, f"star joker {joker}"))
    deck = Deck(f"what_else ({table})", specs)
    numbers = tuple(card.rank for card in deck.cards)
    colours = tuple(
        (1 << COLOURS.index(card.suit)) if card.suit else (0 if card.rank else 31)
        for card in deck.cards
    )
    fits_on = tuple(
        sum(1 << card for card in range(len(deck)) if _fits(numbers, colours, card, top))
        for top in range(len(deck))
    )
    starred = sum(1 << card for card in range(len(deck)) if colours[card])
    jokers = sum(1 << card for card in range(len(deck)) if not numbers[card])
    return Cards(table, deck, numbers, colours, fits_on, starred, jokers)


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that follows from the player count and the table's options, worked out once."""

    players: int
    voluntary_pass: bool
    first_opener: Seat
    cards: Cards
    plays: CardPlays
    pass_commands: tuple[Command, ...]
    pass_events: tuple[Event, ...]
    clockwise: tuple[tuple[Seat, ...], ...]
    """``clockwise[seat]``: the other seats, from the seat's left round the table."""
    deal_request: ChanceRequest


@cache
def _rules(players: int, table: str, voluntary_pass: bool, first_opener: int) -> Rules:
    cards = cards_for(table)
    return Rules(
        players=players,
        voluntary_pass=voluntary_pass,
        first_opener=first_opener,
        cards=cards,
        plays=CardPlays.build(cards.deck, players),
        pass_commands=tuple(Command("pass", seat, {}) for seat in range(players)),
        pass_events=tuple(Event("passed", seat, {}) for seat in range(players)),
        clockwise=tuple(tuple((seat + k) % players for k in range(1, players))
                        for seat in range(players)),
        deal_request=ChanceRequest(cards.deck.code_of),
    )


def rules_for(players: int, options: Options) -> Rules:
    return _rules(players, options["star_table"], options["voluntary_pass"], options["opener"])


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round, with the refill after it as far as it has gone."""

    number: int
    winner: Seat
    ended: str
    """``all passed``: the winner still held cards and nobody else could go on (they had
    passed or laid their last card); ``last card``: the winner laid their last card and
    nobody could follow."""
    plays: tuple[tuple[Seat, int], ...]
    status: tuple[str, ...]
    """Each seat's status when the round ended: ``in``, ``passed`` or ``out``."""
    drawn: tuple[int, ...]
    """Cards each seat has drawn since the round ended."""
    discarded: tuple[CardSet, ...]
    """Cards each seat has discarded at its refill."""


NO_SEAT: Final = -1


@dataclass(frozen=True, slots=True)
class WhatElseState:
    rules: Rules
    phase: str
    """``deal`` (waiting for a shuffle: the first deal, or a reshuffle of the discard pile in
    the middle of a draw), ``play``, ``refill`` or ``over``."""
    round: int
    """The round being played, or (during the refill) the round just finished; 1-based."""
    hands: tuple[CardSet, ...]
    draw: tuple[int, ...]
    """The draw pile, top card first."""
    discard: tuple[int, ...]
    """The discard pile, face up: the oldest card first, the top card last."""
    pile: tuple[tuple[Seat, int], ...]
    """This round's plays in order (seat, card); the last is the card to beat."""
    passed: tuple[bool, ...]
    turn: Seat
    opener: Seat
    """The seat that opens (or opened) the round being played; during the refill, the round
    winner, who opens the next."""
    tokens: tuple[int, ...]
    refill_order: tuple[Seat, ...]
    """The seats still to refill, in order (clockwise from the round's winner)."""
    owed_seat: Seat
    """During a reshuffle: the seat whose draw it interrupted (else ``NO_SEAT``)."""
    owed: int
    """During a reshuffle: how many cards that seat still draws."""
    last_round: RoundResult | None
    rounds_won: tuple[int, ...]
    jokers_played: tuple[int, ...]
    cards_played: tuple[int, ...]
    passes: tuple[int, ...]
    reshuffles: int


class PlayoutState:
    """A ``WhatElseState`` being played: its fields in lists changed in place as each event
    is applied (``apply``, or the steps it is made of: ``play``, ``pass_turn``, ``refill``,
    ``shuffle``), the one place the rules fold an event. ``WhatElse.evolve`` copies its state
    into one, applies the event and freezes the result (``frozen``); a playout of the strong
    bot applies hundreds of moves to one with no new state each time."""

    __slots__ = ("rules", "phase", "round", "hands", "draw", "discard", "pile", "passed", "turn",
                 "opener", "tokens", "refill_order", "owed_seat", "owed", "last_round", "drawn",
                 "discarded", "rounds_won", "jokers_played", "cards_played", "passes",
                 "reshuffles", "laid")

    def __init__(self, state: WhatElseState) -> None:
        self.rules: Rules = state.rules
        self.phase: str = state.phase
        self.round: int = state.round
        self.hands: list[CardSet] = list(state.hands)
        self.draw: tuple[int, ...] = state.draw
        self.discard: list[int] = list(state.discard)
        self.pile: list[tuple[Seat, int]] = list(state.pile)
        self.passed: list[bool] = list(state.passed)
        self.turn: Seat = state.turn
        self.opener: Seat = state.opener
        self.tokens: list[int] = list(state.tokens)
        self.refill_order: tuple[Seat, ...] = state.refill_order
        self.owed_seat: Seat = state.owed_seat
        self.owed: int = state.owed
        self.last_round: RoundResult | None = state.last_round
        """The last round as it ended; its draws and discards since are ``drawn`` and
        ``discarded`` (``None`` until one changes: ``last_round`` holds them then)."""
        self.drawn: list[int] | None = None
        self.discarded: list[CardSet] | None = None
        self.rounds_won: list[int] = list(state.rounds_won)
        self.jokers_played: list[int] = list(state.jokers_played)
        self.cards_played: list[int] = list(state.cards_played)
        self.passes: list[int] = list(state.passes)
        self.reshuffles: int = state.reshuffles
        self.laid: CardSet = laid_cards(state)
        """The cards face up (the discard pile and this round's), kept as they change: what
        a playout's heuristic counts as gone."""

    def frozen(self) -> WhatElseState:
        last = self.last_round
        if last is not None and (self.drawn is not None or self.discarded is not None):
            last = RoundResult(
                last.number, last.winner, last.ended, last.plays, last.status,
                last.drawn if self.drawn is None else tuple(self.drawn),
                last.discarded if self.discarded is None else tuple(self.discarded))
        return WhatElseState(
            self.rules, self.phase, self.round, tuple(self.hands), self.draw,
            tuple(self.discard), tuple(self.pile), tuple(self.passed), self.turn, self.opener,
            tuple(self.tokens), self.refill_order, self.owed_seat, self.owed, last,
            tuple(self.rounds_won), tuple(self.jokers_played), tuple(self.cards_played),
            tuple(self.passes), self.reshuffles)

    def apply(self, event: Event) -> None:
        """Fold one event (``played``, ``passed``, ``refilled`` or ``shuffled``) into the
        state; ``decide`` has checked it."""
        kind = event.type
        seat = event.seat
        if kind == "played":
            assert seat is not None
            self.play(seat, self.rules.cards.deck.index_of[event.data["card"]])
        elif kind == "passed":
            assert seat is not None
            self.pass_turn(seat)
        elif kind == "refilled":
            assert seat is not None
            self.refill(seat, self.rules.cards.deck.mask(event.data["discard"]))
        elif kind == "shuffled":
            index_of = self.rules.cards.deck.index_of
            self.shuffle(tuple(index_of[code] for code in event.data["order"]))
        else:
            raise ValueError(f"what_else has no event {kind!r}")

    def play(self, seat: Seat, card: int) -> None:
        self.hands[seat] &= ~(1 << card)
        if not self.rules.cards.numbers[card]:
            self.jokers_played[seat] += 1
        self.cards_played[seat] += 1
        self.pile.append((seat, card))
        self.laid |= 1 << card
        self._next_turn(seat, seat)

    def pass_turn(self, seat: Seat) -> None:
        self.passed[seat] = True
        self.passes[seat] += 1
        self._next_turn(self.pile[-1][0], seat)

    def refill(self, seat: Seat, chosen: CardSet) -> None:
        self.hands[seat] &= ~chosen
        if self.discarded is None:
            assert self.last_round is not None
            self.discarded = list(self.last_round.discarded)
        self.discarded[seat] = chosen
        self.discard.extend(bits(chosen))
        self.laid |= chosen
        self.refill_order = self.refill_order[1:]
        self._draw(seat, HAND_SIZE - self.hands[seat].bit_count())

    def shuffle(self, order: tuple[int, ...]) -> None:
        if self.owed_seat != NO_SEAT:  # a reshuffle: the interrupted draw goes on
            seat, owed = self.owed_seat, self.owed
            self.draw, self.discard, self.laid = order, [], 0  # no round is being played
            self.owed_seat, self.owed = NO_SEAT, 0
            self.reshuffles += 1
            self._draw(seat, owed)
            return
        players = self.rules.players
        hands = [0] * players
        dealt = HAND_SIZE * players
        for position in range(dealt):
            hands[(self.opener + position) % players] |= 1 << order[position]
        self.phase, self.hands, self.draw, self.turn = "play", hands, order[dealt:], self.opener

    def _next_turn(self, last_player: Seat, mover: Seat) -> None:
        """After a play or a pass: the turn passes to the next player clockwise from
        ``mover`` still in the round (not passed, still holding cards), or the round ends:
        nobody is still in it, or exactly one player is and made the last play."""
        hands, passed = self.hands, self.passed
        staying, one = 0, NO_SEAT
        for seat in range(self.rules.players):
            if hands[seat] and not passed[seat]:
                staying, one = staying + 1, seat
        if not staying or (staying == 1 and one == last_player):
            self._end_round()
            return
        for seat in self.rules.clockwise[mover]:
            if hands[seat] and not passed[seat]:
                self.turn = seat
                return
        raise AssertionError("a player still in the round has no turn")  # staying is not 0

    def _end_round(self) -> None:
        """The last player to lay a card takes a token; the round's cards go to the discard
        pile; the game ends at three tokens, else the winner draws back to five and the refill
        begins."""
        rules = self.rules
        winner = self.pile[-1][0]
        players = rules.players
        self.last_round = RoundResult(
            number=self.round, winner=winner,
            ended="all passed" if self.hands[winner] else "last card",
            plays=tuple(self.pile), status=status_of(self), drawn=(0,) * players,
            discarded=(0,) * players,
        )
        self.drawn = self.discarded = None
        self.tokens[winner] += 1
        self.rounds_won[winner] += 1
        self.discard.extend(card for _, card in self.pile)
        self.pile = []
        self.passed = [False] * players
        self.opener = self.turn = winner
        if self.tokens[winner] >= TARGET:
            self.phase = "over"
            return
        self.refill_order = rules.clockwise[winner]
        self._draw(winner, HAND_SIZE - self.hands[winner].bit_count())

    def _draw(self, seat: Seat, count: int) -> None:
        """``seat`` draws ``count`` cards from the top of the draw pile. When the pile runs
        out first, the game waits for the discard pile to be shuffled (``owed`` cards still to
        draw); otherwise the next refill is due, or the next round opens."""
        draw = self.draw
        taken = min(count, len(draw))
        for card in draw[:taken]:
            self.hands[seat] |= 1 << card
        self.draw = draw[taken:]
        if self.drawn is None:
            assert self.last_round is not None
            self.drawn = list(self.last_round.drawn)
        self.drawn[seat] += taken
        if taken < count:
            self.phase, self.owed_seat, self.owed = "deal", seat, count - taken
        elif self.refill_order:
            self.phase = "refill"
        else:
            self.phase, self.round, self.turn = "play", self.round + 1, self.opener


Position = WhatElseState | PlayoutState
"""A state, frozen or being played out: what the rules' questions below read."""


def laid_cards(state: Position) -> CardSet:
    """The cards face up: the discard pile and the round's plays."""
    if isinstance(state, PlayoutState):
        return state.laid
    return face_up(state.discard, state.pile)


def face_up(discard: Iterable[int], pile: Iterable[tuple[Seat, int]]) -> CardSet:
    """The cards of a discard pile and a round's plays, as a set."""
    laid = 0
    for card in discard:
        laid |= 1 << card
    for _, card in pile:
        laid |= 1 << card
    return laid


def legal_cards(state: Position, seat: Seat) -> CardSet:
    """The cards ``seat`` may lay now (an empty set when it may not play)."""
    if state.phase != "play" or seat != state.turn:
        return 0
    hand = state.hands[seat]
    if not state.pile:
        return hand
    return hand & state.rules.cards.fits_on[state.pile[-1][1]]


def may_pass(state: Position, seat: Seat) -> bool:
    """A seat may pass on its turn when a card lies to beat and it holds no card that fits
    (or, with ``voluntary_pass``, whenever a card lies to beat)."""
    if state.phase != "play" or seat != state.turn or not state.pile:
        return False
    return state.rules.voluntary_pass or not legal_cards(state, seat)


def in_round(state: Position, seat: Seat) -> bool:
    """Still in the round: not passed and still holding cards."""
    return not state.passed[seat] and state.hands[seat] != 0


def status_of(state: Position) -> tuple[str, ...]:
    if state.phase != "play":
        return ("in",) * state.rules.players
    return tuple("passed" if state.passed[seat] else "out" if not state.hands[seat] else "in"
                 for seat in range(state.rules.players))


def chance_request(state: Position) -> ChanceRequest | None:
    """The shuffle the game waits for: the first deal's, or the discard pile's (its cards in
    deck order) in the middle of a draw; ``None`` when no shuffle is due."""
    if state.phase != "deal":
        return None
    if state.owed_seat == NO_SEAT:
        return state.rules.deal_request
    code_of = state.rules.cards.deck.code_of
    return ChanceRequest(tuple(code_of[card] for card in sorted(state.discard)),
                         purpose="reshuffle")


_PHASES: Final = {**CARD_GAME_PHASES, "deal": "the cards are being shuffled",
                  "refill": "the players are refilling their hands"}


class WhatElseRound(TypedDict):
    """The last finished round, with the refill after it as far as it has gone
    (``RoundResult``)."""

    round: int
    winner: int
    ended: str
    pile: list[list[Any]]
    """The round's plays, each ``[seat, card code]``."""
    status: list[str]
    drawn: list[int]
    discarded: list[list[str]]


class WhatElseOptions(TypedDict):
    star_table: str
    voluntary_pass: bool
    opener: int


class WhatElsePublic(TypedDict):
    """What every view of "what else?" and the snapshot share (``WhatElse._public``)."""

    game: Literal["what_else"]
    players: int
    phase: str
    """``deal``, ``play``, ``refill`` or ``over``."""
    round: int
    to_act: list[int]
    turn: int | None
    top: str | None
    pile: list[list[Any]]
    """This round's plays, each ``[seat, card code]``."""
    status: list[str]
    hand_counts: list[int]
    tokens: list[int]
    supply: int
    target: int
    draw_count: int
    discard_pile: list[str]
    opener: int
    last_player: int | None
    refill_order: list[int]
    last_round: WhatElseRound | None
    reshuffles: int
    winners: list[int]
    options: WhatElseOptions


WhatElseLegal = TypedDict("WhatElseLegal", {"play": list[str], "pass": bool, "refill": bool})
"""What the seat may do now (a spectator: nothing, the same keys)."""


class WhatElseView(WhatElsePublic):
    """``view``: what a seat or a spectator sees of a game of "what else?". The engine builds
    it (``WhatElse.typed_view``), and the bots and the client read it through
    ``what_else_view``, so that a misspelt key is a type error."""

    hand: list[str]
    """The seat's cards (a spectator's: none)."""
    legal: WhatElseLegal
    seat: int | None


def what_else_view(view: Mapping[str, Any]) -> WhatElseView:
    """A view of "what else?" (the engine's, or one the server sent: msgpack gives a plain
    map) read with its keys typed."""
    return cast(WhatElseView, view)


class WhatElse(Game[WhatElseState]):
    id = GAME_ID
    title = "A card game – what else?"
    rules_version = 1
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    event_commands = {"shuffled": "shuffle", "played": "play", "passed": "pass",
                      "refilled": "refill"}
    option_specs = (
        OptionSpec("star_table", str, "standard", "which numbers show which star colour",
                   choices=tuple(STAR_TABLES)),
        OptionSpec("voluntary_pass", bool, False,
                   "a player may pass even when holding a card that fits"),
        OptionSpec("opener", int, 0, "the seat that opens the first round", minimum=0,
                   maximum=MAX_PLAYERS - 1),
    )

    def check_options(self, players: int, options: Options) -> None:
        if options["opener"] >= players:
            raise OptionError(f"what_else: opener must be a seat, 0 to {players - 1}")

    def new_state(self, players: int, options: Options) -> WhatElseState:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise OptionError(f"what_else is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                              f"not {players}")
        rules = rules_for(players, options)
        zeros = (0,) * players
        return WhatElseState(
            rules=rules, phase="deal", round=1, hands=zeros, draw=(), discard=(), pile=(),
            passed=(False,) * players, turn=rules.first_opener, opener=rules.first_opener,
            tokens=zeros, refill_order=(), owed_seat=NO_SEAT, owed=0, last_round=None,
            rounds_won=zeros, jokers_played=zeros, cards_played=zeros, passes=zeros,
            reshuffles=0,
        )

    # --- who may do what ---------------------------------------------------------------

    def chance(self, state: WhatElseState) -> ChanceRequest | None:
        return chance_request(state)

    def to_act(self, state: WhatElseState) -> tuple[Seat, ...]:
        if state.phase == "play":
            return (state.turn,)
        if state.phase == "refill":
            return (state.refill_order[0],)
        return ()

    def legal_actions(self, state: WhatElseState, seat: Seat) -> list[Command]:
        rules = state.rules
        if state.phase == "play" and seat == state.turn:
            actions = rules.plays.legal(seat, legal_cards(state, seat))
            if may_pass(state, seat):
                actions.append(rules.pass_commands[seat])
            return actions
        if state.phase == "refill" and seat == state.refill_order[0]:
            held = list(bits(state.hands[seat]))
            code_of = rules.cards.deck.code_of
            return [Command("refill", seat, {"discard": [code_of[held[i]] for i in
                                                         range(len(held)) if subset >> i & 1]})
                    for subset in range(1 << len(held))]
        return []

    def random_action(self, state: WhatElseState, seat: Seat, rng: Random) -> Command:
        """A uniformly random legal command; at a refill every subset of the hand is equally
        likely, drawn without listing them all."""
        if state.phase == "refill" and seat == state.refill_order[0]:
            code_of = state.rules.cards.deck.code_of
            chosen = [code_of[card] for card in bits(state.hands[seat]) if rng.random() < 0.5]
            return Command("refill", seat, {"discard": chosen})
        actions = self.legal_actions(state, seat)
        if not actions:
            raise IllegalCommand("not_your_turn", f"seat {seat} has nothing to do now")
        return actions[int(rng.random() * len(actions))]

    # --- decide ------------------------------------------------------------------------

    def decide(self, state: WhatElseState, command: Command) -> list[Event]:
        kind = command.type
        if kind == "shuffle":
            return [shuffle_event(self.chance(state), command, "shuffled")]
        if kind not in ("play", "pass", "refill"):
            raise IllegalCommand("unknown_command", f"what_else has no command {kind!r}")
        seat = seat_of(command, state.rules.players)
        phase = "refill" if kind == "refill" else "play"
        require(state.phase == phase, "wrong_phase", f"no {kind} now: {_PHASES[state.phase]}")
        if kind == "refill":
            due = state.refill_order[0]
            require(seat == due, "not_your_turn", f"it is seat {due}'s turn to refill, not yours")
            return [self._decide_refill(state, seat, command.data.get("discard"))]
        require(seat == state.turn, "not_your_turn", f"it is seat {state.turn}'s turn, not yours")
        if kind == "pass":
            return [self._decide_pass(state, seat)]
        return [self._decide_play(state, seat, command.data.get("card"))]

    @staticmethod
    def _decide_play(state: WhatElseState, seat: Seat, code: object) -> Event:
        cards = state.rules.cards
        index = held_card(cards.deck, code, state.hands[seat], seat)
        if legal_cards(state, seat) >> index & 1:
            return state.rules.plays.events[seat][index]
        top = state.pile[-1][1]
        code_of = cards.deck.code_of
        mine, theirs = card_name(code_of[index]), card_name(code_of[top])
        if not cards.numbers[index]:
            raise IllegalCommand("no_fit", f"a star joker goes only on a card with a star, "
                                           f"and {theirs} has none")
        if not cards.numbers[top]:
            raise IllegalCommand("no_fit", f"only a card with a star goes on a star joker, "
                                           f"and {mine} has none")
        raise IllegalCommand("no_fit", f"{mine} does not fit on {theirs}: lower, and no shared "
                                       "star colour")

    @staticmethod
    def _decide_pass(state: WhatElseState, seat: Seat) -> Event:
        require(bool(state.pile), "must_open", "you open the round: lay any card")
        if not state.rules.voluntary_pass:
            fitting = legal_cards(state, seat)
            if fitting:
                codes = state.rules.cards.deck.codes(fitting)
                what = "a card that fits" if len(codes) == 1 else "cards that fit"
                raise IllegalCommand("must_play", f"you hold {what} ({_names(codes)}), so you "
                                                  "cannot pass")
        return state.rules.pass_events[seat]

    @staticmethod
    def _decide_refill(state: WhatElseState, seat: Seat, codes: object) -> Event:
        if not isinstance(codes, list | tuple):
            raise IllegalCommand("bad_command", "a refill needs 'discard', a list of the cards "
                                                "to discard (possibly empty)")
        deck = state.rules.cards.deck
        chosen = 0
        for code in codes:
            chosen |= 1 << held_card(deck, code, state.hands[seat], seat)
        require(chosen.bit_count() == len(codes), "bad_command",
                "the same card was named twice")
        return Event("refilled", seat, {"discard": deck.codes(chosen)})

    # --- evolve ------------------------------------------------------------------------

    def evolve(self, state: WhatElseState, event: Event) -> WhatElseState:
        playing = PlayoutState(state)
        playing.apply(event)
        return playing.frozen()

    # --- views -------------------------------------------------------------------------

    def _round_view(self, state: WhatElseState) -> WhatElseRound | None:
        last = state.last_round
        if last is None:
            return None
        deck = state.rules.cards.deck
        code_of = deck.code_of
        return {
            "round": last.number,
            "winner": last.winner,
            "ended": last.ended,
            "pile": [[seat, code_of[card]] for seat, card in last.plays],
            "status": list(last.status),
            "drawn": list(last.drawn),
            "discarded": [deck.codes(cards) for cards in last.discarded],
        }

    def _public(self, state: WhatElseState) -> WhatElsePublic:
        rules = state.rules
        code_of = rules.cards.deck.code_of
        over = state.phase == "over"
        return {
            "game": GAME_ID,
            "players": rules.players,
            "phase": state.phase,
            "round": state.round,
            "to_act": list(self.to_act(state)),
            "turn": state.turn if state.phase == "play" else None,
            "top": code_of[state.pile[-1][1]] if state.pile else None,
            "pile": [[seat, code_of[card]] for seat, card in state.pile],
            "status": list(status_of(state)),
            "hand_counts": [hand.bit_count() for hand in state.hands],
            "tokens": list(state.tokens),
            "supply": SUPPLY - sum(state.tokens),
            "target": TARGET,
            "draw_count": len(state.draw),
            "discard_pile": [code_of[card] for card in state.discard],
            "opener": state.opener,
            "last_player": state.pile[-1][0] if state.pile else None,
            "refill_order": list(state.refill_order),
            "last_round": self._round_view(state),
            "reshuffles": state.reshuffles,
            "winners": [seat for seat in range(rules.players)
                        if over and state.tokens[seat] >= TARGET],
            "options": {"star_table": rules.cards.table, "voluntary_pass": rules.voluntary_pass,
                        "opener": rules.first_opener},
        }

    def view(self, state: WhatElseState, viewer: Viewer) -> dict[str, Any]:
        # The same dict, not a copy: a TypedDict is a plain dict at run time.
        return cast(dict[str, Any], self.typed_view(state, viewer))

    def typed_view(self, state: WhatElseState, viewer: Viewer) -> WhatElseView:
        # The public part, made a view in place (no copy) by the three keys set below.
        view = cast(WhatElseView, self._public(state))
        seated = viewer is not None and 0 <= viewer < state.rules.players
        deck = state.rules.cards.deck
        view["hand"] = deck.codes(state.hands[viewer]) if seated and viewer is not None else []
        legal: WhatElseLegal = {"play": [], "pass": False, "refill": False}
        if seated and viewer is not None:
            legal["play"] = deck.codes(legal_cards(state, viewer))
            legal["pass"] = may_pass(state, viewer)
            legal["refill"] = state.phase == "refill" and state.refill_order[0] == viewer
        view["legal"] = legal
        view["seat"] = viewer
        return view

    def snapshot(self, state: WhatElseState) -> dict[str, Any]:
        deck = state.rules.cards.deck
        full: dict[str, Any] = dict(self._public(state))
        full["turn"] = state.turn
        full["hands"] = [deck.codes(hand) for hand in state.hands]
        full["draw"] = [deck.code_of[card] for card in state.draw]
        full["owed"] = None if state.owed_seat == NO_SEAT else [state.owed_seat, state.owed]
        full["counters"] = self.tally(state)
        return full

    def read_snapshot(self, read: SnapshotReader, start: WhatElseState) -> WhatElseState:
        rules = start.rules
        deck, players = rules.cards.deck, rules.players
        owed_seat, owed = NO_SEAT, 0
        if read.value("owed") is not None:
            owed_seat, owed = read.integers("owed", 2)
        last_round = None
        last = read.optional_child("last_round")
        if last is not None:
            last_round = RoundResult(
                number=last.integer("round"), winner=last.integer("winner"),
                ended=last.text("ended", ("all passed", "last card")),
                plays=last.plays("pile", deck, players),
                status=last.texts("status", players), drawn=last.integers("drawn", players),
                discarded=last.card_sets("discarded", deck, players))
        counters = read.child("counters")
        return WhatElseState(
            rules=rules,
            phase=read.text("phase", ("deal", "play", "refill", "over")),
            round=read.integer("round"),
            hands=read.card_sets("hands", deck, players),
            draw=read.card_order("draw", deck),
            discard=read.card_order("discard_pile", deck),
            pile=read.plays("pile", deck, players),
            passed=tuple(status == "passed" for status in read.texts("status", players)),
            turn=read.integer("turn"),
            opener=read.integer("opener"),
            tokens=read.integers("tokens", players),
            refill_order=read.integers("refill_order"),
            owed_seat=owed_seat,
            owed=owed,
            last_round=last_round,
            rounds_won=counters.integers("rounds won", players),
            jokers_played=counters.integers("jokers played", players),
            cards_played=counters.integers("cards played", players),
            passes=counters.integers("passes", players),
            reshuffles=read.integer("reshuffles"),
        )

    def event_view(self, before: WhatElseState, event: Event, viewer: Viewer
                   ) -> Event | None:
        if event.type != "shuffled":
            return event  # plays, passes and refills (with their discards) are public
        after = self.evolve(before, event)
        return Event("shuffled", None, {
            "purpose": "reshuffle" if before.owed_seat != NO_SEAT else "deal",
            "count": len(event.data["order"]),
            "hand_counts": [hand.bit_count() for hand in after.hands],
            "draw_count": len(after.draw),
        })

    def outcome(self, state: WhatElseState) -> Outcome:
        if state.phase != "over":
            return Outcome(False, state.tokens, None)
        return Outcome(True, state.tokens,
                       tuple(seat for seat, count in enumerate(state.tokens) if count >= TARGET))

    def is_checkpoint(self, state: WhatElseState) -> bool:
        """At the end of every round (once the winner has drawn, before anyone refills) and
        at the end of the game."""
        return state.phase == "over" or (state.phase == "refill" and
                                          len(state.refill_order) == state.rules.players - 1)

    def tally(self, state: WhatElseState) -> dict[str, list[int]]:
        return {
            "rounds won": list(state.rounds_won),
            "cards played": list(state.cards_played),
            "jokers played": list(state.jokers_played),
            "passes": list(state.passes),
        }

    def describe_event(self, event: Event) -> str:
        data = event.data
        who = f"seat {event.seat}"
        if event.type == "shuffled":
            count = len(data["order"]) if "order" in data else data.get("count", 0)
            purpose = data.get("purpose")
            seed = f" (deal number {data['seed']})" if "seed" in data else ""
            if purpose == "reshuffle" or (purpose is None and count != NUMBERS + JOKERS):
                return f"the discard pile ({count} cards) is shuffled into a new draw pile{seed}"
            return f"shuffle the {count} cards and deal {HAND_SIZE} to each{seed}"
        if event.type == "played":
            return f"{who} plays {card_name(data['card'])}"
        if event.type == "passed":
            return f"{who} passes"
        if event.type == "refilled":
            discard = list(data.get("discard", []))
            if not discard:
                return f"{who} keeps every card and draws back to {HAND_SIZE}"
            return f"{who} discards {_names(discard)} and draws back to {HAND_SIZE}"
        return super().describe_event(event)


GAME = WhatElse()
