"""Stardeck Hearts (game id ``hearts``), as described in docs/replay-format.md §5.

Five suits of 2..A, Stars (``*``) trump, 3 to 6 players; modes ``exchange``, ``no_exchange``,
``anti_trump`` (with a Joker), ``blind_trick``; and classic 52-card Hearts for 4 players.

Events: ``deal`` (the shuffled order), ``exchange_taken``, ``exchange_declined``, ``passed``,
``played``. Trick winners, hand scores and the game's end follow from those in ``evolve``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from random import Random
from typing import Any, Final, Literal, NotRequired, TypedDict, cast, final

from starhall.shared.cards import CardSet, Deck, bits, lowest, random_cards
from starhall.shared.choices import CardCommands, Choices
from starhall.shared.commands import held_card, held_cards, seat_of
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
from starhall.shared.snapshots import ENTRY, SnapshotReader
from starhall.shared.tricks import (
    CardPlays,
    Trick,
    follow_options,
    led_suit,
    not_following,
    suit_to_follow,
    the_card,
    the_cards,
    trick_cards,
    trick_winner,
)

CLUBS: Final = "C"
DIAMONDS: Final = "D"
HEARTS: Final = "H"
SPADES: Final = "S"
STARS: Final = "*"
SUIT_NAMES = {CLUBS: "Clubs", DIAMONDS: "Diamonds", HEARTS: "Hearts", SPADES: "Spades",
              STARS: "Stars"}
RANK_CODES = {11: "J", 12: "Q", 13: "K", 14: "A"}
RANK_NAMES = {11: "Jack", 12: "Queen", 13: "King", 14: "Ace"}
JOKER: Final = "JK"
MOON_POINTS: Final = 26
PASS_CYCLE_HOLD: Final = 0

MODES = ("exchange", "no_exchange", "anti_trump", "blind_trick")
GAME_ID: Final = "hearts"


def _make_deck(name: str, suits: tuple[str, ...], joker: bool) -> Deck:
    cards = [
        (f"{RANK_CODES.get(rank, rank)}{suit}", suit, rank,
         f"{RANK_NAMES.get(rank, rank)} of {SUIT_NAMES[suit]}")
        for suit in suits
        for rank in range(2, 15)
    ]
    if joker:
        cards.append((JOKER, "", 0, "Joker"))
    return Deck(name, cards)


STARDECK = _make_deck("Stardeck", (CLUBS, DIAMONDS, HEARTS, SPADES, STARS), joker=True)
CLASSIC = _make_deck("classic", (CLUBS, DIAMONDS, HEARTS, SPADES), joker=False)

# Cards removed before the deal in the no_exchange mode, by player count (the seed's list).
NO_EXCHANGE_REMOVED = {3: ("2C", "2D"), 4: ("2C",), 5: (), 6: ("2C", "2D", "2H", "2S", "2*")}


def pass_offsets(players: int) -> tuple[int, ...]:
    """Seat offsets to pass to, hand by hand: 1 left, 1 right, 2 left, 2 right, … each distinct
    offset once, then a hand of no passing (offset 0). Four players: left, right, across, hold."""
    offsets: list[int] = []
    for distance in range(1, players):
        for offset in (distance, players - distance):
            if offset not in offsets:
                offsets.append(offset)
    return (*offsets, PASS_CYCLE_HOLD)


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that follows from the table's options and player count, worked out once."""

    players: int
    deck: Deck
    trump: str | None
    cards: CardSet
    """The cards dealt each hand (the deck less removed cards)."""
    hand_size: int
    undealt_count: int
    exchange: bool
    blind_trick: bool
    points: tuple[int, ...]
    """Points of each card, by deck index."""
    point_cards: CardSet
    hearts: CardSet
    queen_of_spades: CardSet
    breakers: CardSet
    """Cards whose play breaks hearts."""
    joker: CardSet
    pass_cards: int
    pass_offsets: tuple[int, ...]
    target: int
    first_dealer: int
    plays: CardPlays
    deal_request: ChanceRequest
    """The shuffle every deal waits for: the codes of the cards dealt, in deck order."""


@cache
def _rules(players: int, mode: str, classic: bool, pass_cards: int, qs_breaks: bool,
           target: int, first_dealer: int) -> Rules:
    deck = CLASSIC if classic else STARDECK
    cards = deck.full & ~deck.suit_mask[""]
    if mode == "no_exchange":
        cards &= ~deck.mask(NO_EXCHANGE_REMOVED[players] if not classic else ())
    if mode == "anti_trump":
        cards |= deck.mask([JOKER])
    count = cards.bit_count()
    points = [0] * len(deck)
    for index in bits(deck.suit_mask[HEARTS]):
        points[index] = 1
    queen = deck.mask(["QS"])
    points[lowest(queen)] = 13
    if mode == "no_exchange" and players == 6 and not classic:
        points[deck.index("AH")] = 2  # the 2 of Hearts is out, so 26 points remain per hand
    point_cards = 0
    for index, value in enumerate(points):
        if value:
            point_cards |= 1 << index
    hearts = deck.suit_mask[HEARTS]
    return Rules(
        players=players,
        deck=deck,
        trump=None if classic else STARS,
        cards=cards,
        hand_size=count // players,
        undealt_count=count % players,
        exchange=mode == "exchange",
        blind_trick=mode == "blind_trick",
        points=tuple(points),
        point_cards=point_cards & cards,
        hearts=hearts,
        queen_of_spades=queen,
        breakers=hearts | (queen if qs_breaks else 0),
        joker=cards & deck.suit_mask[""],
        pass_cards=pass_cards,
        pass_offsets=pass_offsets(players),
        target=target,
        first_dealer=first_dealer,
        plays=CardPlays.build(deck, players),
        deal_request=ChanceRequest(tuple(deck.codes(cards))),
    )


def rules_for(players: int, options: Options) -> Rules:
    return _rules(players, options["mode"], options["deck"] == "classic", options["pass_cards"],
                  options["qs_breaks_hearts"], options["target"], options["first_dealer"])


class _Keep(Enum):
    """The default of each of ``HeartsState.replace``'s fields: this state's value."""

    KEEP = 0


KEEP: Final = _Keep.KEEP


_STATE_FIELDS: Final = (
    "rules", "phase", "hand_number", "dealer", "undealt", "out_of_play", "exchange_declines",
    "pass_offset", "passes", "received", "tricks_played", "won", "last_trick", "last_winner",
    "totals", "score_sheet", "moon", "undealt_taken", "hearts_broken", "turn", "trick", "hands",
)


@final
class HeartsState:
    """One moment of a table. Immutable: every field is ``Final``, and a change makes a new
    state (``replace``, or ``played`` for a card play, the change most events make).

    A plain class rather than a named tuple or a dataclass: mypyc compiles it to a C struct,
    so a new state is one allocation with its fields set in place, where a named tuple's copy
    went through three tuples and a dataclass's ``__init__`` runs as interpreted Python."""

    __slots__ = _STATE_FIELDS

    def __init__(
        self,
        rules: Rules,
        phase: str,
        hand_number: int,
        dealer: Seat,
        undealt: CardSet,
        out_of_play: CardSet,
        exchange_declines: int,
        pass_offset: int,
        passes: tuple[CardSet | None, ...],
        received: tuple[CardSet, ...],
        tricks_played: int,
        won: tuple[CardSet, ...],
        last_trick: Trick,
        last_winner: Seat | None,
        totals: tuple[int, ...],
        score_sheet: tuple[tuple[int, ...], ...],
        moon: Seat | None,
        undealt_taken: tuple[Seat, CardSet] | None,
        hearts_broken: bool,
        turn: Seat,
        trick: Trick,
        hands: tuple[CardSet, ...],
    ) -> None:
        self.rules: Final = rules
        self.phase: Final = phase
        """``deal`` (waiting for the shuffle), ``exchange``, ``pass``, ``play`` or ``over``."""
        self.hand_number: Final = hand_number
        """Hands dealt so far; the first hand is number 1."""
        self.dealer: Final = dealer
        self.undealt: Final = undealt
        self.out_of_play: Final = out_of_play
        """Removed before the deal, or discarded in the exchange: seen by nobody."""
        self.exchange_declines: Final = exchange_declines
        self.pass_offset: Final = pass_offset
        self.passes: Final = passes
        self.received: Final = received
        self.tricks_played: Final = tricks_played
        self.won: Final = won
        """Cards each seat has taken this hand."""
        self.last_trick: Final = last_trick
        self.last_winner: Final = last_winner
        self.totals: Final = totals
        self.score_sheet: Final = score_sheet
        """Each finished hand's scores, one per seat."""
        self.moon: Final = moon
        """Who shot the moon in the last finished hand."""
        self.undealt_taken: Final = undealt_taken
        """Who took this hand's undealt cards, and which: the exchange's taker, into its hand,
        or in ``blind_trick`` the first trick's winner, face down among its taken cards.
        ``None`` until they are taken and again once the hand is scored, which turns face-down
        cards up."""
        self.hearts_broken: Final = hearts_broken
        self.turn: Final = turn
        """Whose turn it is in the exchange or the play."""
        self.trick: Final = trick
        self.hands: Final = hands

    # A card play makes a new state through one of the two methods below, which name no
    # fields: most events are card plays.

    def played(self, hearts_broken: bool, turn: Seat, trick: Trick,
               hands: tuple[CardSet, ...]) -> HeartsState:
        """This state after a card play that leaves its trick open."""
        return HeartsState(
            self.rules, self.phase, self.hand_number, self.dealer, self.undealt,
            self.out_of_play, self.exchange_declines, self.pass_offset, self.passes,
            self.received, self.tricks_played, self.won, self.last_trick, self.last_winner,
            self.totals, self.score_sheet, self.moon, self.undealt_taken,
            hearts_broken, turn, trick, hands,
        )

    def trick_taken(self, hearts_broken: bool, trick: Trick, winner: Seat,
                    hands: tuple[CardSet, ...], won: tuple[CardSet, ...], undealt: CardSet,
                    undealt_taken: tuple[Seat, CardSet] | None) -> HeartsState:
        """This state after the card play that completes ``trick``, which ``winner`` takes and
        leads the next from."""
        return HeartsState(
            self.rules, self.phase, self.hand_number, self.dealer, undealt,
            self.out_of_play, self.exchange_declines, self.pass_offset, self.passes,
            self.received, self.tricks_played + 1, won, trick, winner,
            self.totals, self.score_sheet, self.moon, undealt_taken,
            hearts_broken, winner, (), hands,
        )

    def replace(
        self,
        *,
        rules: Rules | _Keep = KEEP,
        phase: str | _Keep = KEEP,
        hand_number: int | _Keep = KEEP,
        dealer: Seat | _Keep = KEEP,
        undealt: CardSet | _Keep = KEEP,
        out_of_play: CardSet | _Keep = KEEP,
        exchange_declines: int | _Keep = KEEP,
        pass_offset: int | _Keep = KEEP,
        passes: tuple[CardSet | None, ...] | _Keep = KEEP,
        received: tuple[CardSet, ...] | _Keep = KEEP,
        tricks_played: int | _Keep = KEEP,
        won: tuple[CardSet, ...] | _Keep = KEEP,
        last_trick: Trick | _Keep = KEEP,
        last_winner: Seat | None | _Keep = KEEP,
        totals: tuple[int, ...] | _Keep = KEEP,
        score_sheet: tuple[tuple[int, ...], ...] | _Keep = KEEP,
        moon: Seat | None | _Keep = KEEP,
        undealt_taken: tuple[Seat, CardSet] | None | _Keep = KEEP,
        hearts_broken: bool | _Keep = KEEP,
        turn: Seat | _Keep = KEEP,
        trick: Trick | _Keep = KEEP,
        hands: tuple[CardSet, ...] | _Keep = KEEP,
    ) -> HeartsState:
        """This state with the fields given changed, as a named tuple's ``_replace``."""
        return HeartsState(
            self.rules if rules is KEEP else rules,
            self.phase if phase is KEEP else phase,
            self.hand_number if hand_number is KEEP else hand_number,
            self.dealer if dealer is KEEP else dealer,
            self.undealt if undealt is KEEP else undealt,
            self.out_of_play if out_of_play is KEEP else out_of_play,
            self.exchange_declines if exchange_declines is KEEP else exchange_declines,
            self.pass_offset if pass_offset is KEEP else pass_offset,
            self.passes if passes is KEEP else passes,
            self.received if received is KEEP else received,
            self.tricks_played if tricks_played is KEEP else tricks_played,
            self.won if won is KEEP else won,
            self.last_trick if last_trick is KEEP else last_trick,
            self.last_winner if last_winner is KEEP else last_winner,
            self.totals if totals is KEEP else totals,
            self.score_sheet if score_sheet is KEEP else score_sheet,
            self.moon if moon is KEEP else moon,
            self.undealt_taken if undealt_taken is KEEP else undealt_taken,
            self.hearts_broken if hearts_broken is KEEP else hearts_broken,
            self.turn if turn is KEEP else turn,
            self.trick if trick is KEEP else trick,
            self.hands if hands is KEEP else hands,
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is HeartsState and all(
            getattr(self, name) == getattr(other, name) for name in _STATE_FIELDS)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _STATE_FIELDS)
        return f"HeartsState({fields})"




class HeartsPublic(TypedDict):
    """What every view of Hearts and the snapshot share (``Hearts._public``)."""

    game: Literal["hearts"]
    players: int
    phase: str
    """``deal``, ``exchange``, ``pass``, ``play`` or ``over``."""
    hand_number: int
    dealer: int
    turn: int | None
    to_act: list[int]
    hand_sizes: list[int]
    undealt_count: int
    exchange_declines: int
    pass_offset: int
    passed: list[bool]
    trick: list[list[Any]]
    """The cards played to the trick so far, each ``[seat, card code]``."""
    tricks_played: int
    last_trick: list[list[Any]]
    """Each ``[seat, card code]``."""
    last_winner: int | None
    hearts_broken: bool
    taken_points: list[int]
    taken: list[list[str]]
    totals: list[int]
    score_sheet: list[list[int]]
    moon: int | None
    trump: str | None


class HeartsBlind(TypedDict):
    """The blind trick's cards, face down in the pile of ``seat``."""

    seat: int
    count: int


HeartsPass = TypedDict("HeartsPass", {"count": int, "from": list[str]})
"""The cards to pass: ``count`` of those in ``from`` (the hand)."""


class HeartsExchange(TypedDict):
    count: int
    discard_from: list[str]
    may_decline: bool


HeartsLegal = TypedDict("HeartsLegal", {
    "play": list[str], "pass": HeartsPass, "exchange": HeartsExchange}, total=False)
"""What a seat may do now (at most one of them; ``{}``: nothing)."""


class HeartsView(HeartsPublic):
    """``view``: what a seat or a spectator sees of a game of Hearts. The engine builds it
    (``Hearts.typed_view``), and the bots and the client read it through ``hearts_view``, so
    that a misspelt key is a type error."""

    blind: HeartsBlind | None
    hand_scores: list[int]
    target: int
    seat: int | None
    hand: NotRequired[list[str]]
    """This key and those below: a seat's own, never a spectator's."""
    my_pass: NotRequired[list[str] | None]
    received: NotRequired[list[str]]
    legal: NotRequired[HeartsLegal]


def hearts_view(view: Mapping[str, Any]) -> HeartsView:
    """A view of Hearts (the engine's, or one the server sent: msgpack gives a plain map)
    read with its keys typed."""
    return cast(HeartsView, view)


def _non_point(rules: Rules, hand: CardSet) -> CardSet:
    return hand & ~(rules.hearts | rules.queen_of_spades)


def _can_take_exchange(rules: Rules, hand: CardSet) -> bool:
    return _non_point(rules, hand).bit_count() >= rules.undealt_count


def _lead_options(rules: Rules, hearts_broken: bool, hand: CardSet) -> CardSet:
    options = hand & ~rules.joker or hand  # the Joker is led only by a hand of nothing else
    if not hearts_broken:
        options = options & ~rules.hearts or options  # hearts only from a hand of only hearts
    return options


_last_legal: tuple[HeartsState | None, CardSet] = (None, 0)


def legal_cards(state: HeartsState, seat: Seat) -> CardSet:
    """The cards ``seat`` may play now (an empty set when it may not play)."""
    if state.phase != "play" or seat != state.turn:
        return 0
    global _last_legal
    remembered, cards = _last_legal
    if remembered is state:  # a bot's choice is decided right after: don't work it out twice
        return cards
    cards = may_play(state.rules, state.hands[seat], state.trick, state.tricks_played == 0,
                     state.hearts_broken)
    _last_legal = (state, cards)
    return cards


def may_play(rules: Rules, hand: CardSet, trick: Trick, first_trick: bool,
             hearts_broken: bool) -> CardSet:
    """The cards of ``hand`` that may be played to ``trick``: the rule itself, for the engine
    and for the strong bot's playouts, which keep the hand in play as these few values."""
    if first_trick and not trick:
        clubs = hand & rules.deck.suit_mask[CLUBS]
        return clubs & -clubs  # the leader holds the lowest Club in play and must lead it
    suit = suit_to_follow(trick, rules.deck)
    allowed = follow_options(hand, suit) if suit else _lead_options(rules, hearts_broken, hand)
    if first_trick:
        allowed = allowed & ~rules.point_cards or allowed
    return allowed


def _offer_exchange(state: HeartsState, seat: Seat, declines: int) -> HeartsState:
    """Offer the exchange to ``seat`` or, once all have declined, force the first who can."""
    rules = state.rules
    if declines >= rules.players:
        for offset in range(rules.players):
            candidate = (state.dealer + offset) % rules.players
            if _can_take_exchange(rules, state.hands[candidate]):
                return state.replace(phase="exchange", turn=candidate, exchange_declines=declines)
        return _begin_passing(state.replace(out_of_play=state.out_of_play | state.undealt,
                                            undealt=0))
    return state.replace(phase="exchange", turn=seat, exchange_declines=declines)


def _begin_passing(state: HeartsState) -> HeartsState:
    rules = state.rules
    offset = rules.pass_offsets[(state.hand_number - 1) % len(rules.pass_offsets)]
    if rules.pass_cards and offset:
        return state.replace(phase="pass", pass_offset=offset, passes=(None,) * rules.players)
    return _begin_play(state.replace(pass_offset=0))


def _begin_play(state: HeartsState) -> HeartsState:
    rules = state.rules
    in_hands = 0
    for hand in state.hands:
        in_hands |= hand
    first = lowest(in_hands & rules.deck.suit_mask[CLUBS])
    leader = next(s for s, hand in enumerate(state.hands) if hand >> first & 1)
    return state.replace(phase="play", turn=leader)


def finish_hand(state: HeartsState) -> HeartsState:
    """``state``, its hand played out, scored (the moon shot included)."""
    rules = state.rules
    points = rules.points
    taken = [sum(points[i] for i in bits(cards & rules.point_cards)) for cards in state.won]
    moon = next((s for s, cards in enumerate(state.won)
                 if cards & rules.point_cards == rules.point_cards), None)
    if moon is not None:
        taken = [0 if s == moon else MOON_POINTS for s in range(rules.players)]
    totals = tuple(t + p for t, p in zip(state.totals, taken, strict=True))
    best = min(totals)
    over = max(totals) >= rules.target and totals.count(best) == 1
    return state.replace(
        phase="over" if over else "deal",
        totals=totals,
        score_sheet=(*state.score_sheet, tuple(taken)),
        moon=moon,
        undealt_taken=None,
        dealer=state.dealer if over else (state.dealer + 1) % rules.players,
    )


def play_card(state: HeartsState, seat: Seat, card: int) -> HeartsState:
    """``state`` after ``seat`` plays ``card`` (its index): the ``played`` event's fold."""
    rules = state.rules
    new_hands = list(state.hands)
    new_hands[seat] = new_hands[seat] & ~(1 << card)
    hands = tuple(new_hands)
    trick = (*state.trick, (seat, card))
    broken = state.hearts_broken or bool(rules.breakers >> card & 1)
    if len(trick) < rules.players:
        return state.played(broken, (seat + 1) % rules.players, trick, hands)
    winner, taken, undealt = take_trick(rules, trick, state.tricks_played == 0, state.undealt)
    won = list(state.won)
    won[winner] = won[winner] | taken
    undealt_taken = state.undealt_taken if undealt == state.undealt else \
        (winner, state.undealt)
    state = state.trick_taken(broken, trick, winner, hands, tuple(won), undealt,
                              undealt_taken)
    for hand in hands:
        if hand:
            return state
    return finish_hand(state)


def take_trick(rules: Rules, trick: Trick, first_trick: bool,
               undealt: CardSet) -> tuple[Seat, CardSet, CardSet]:
    """Who takes the complete ``trick``, the cards they take, and the undealt cards left in
    the middle: in ``blind_trick`` the first trick's winner takes those too, face down. For
    the engine and the strong bot's playouts alike."""
    winner = trick_winner(trick, rules.deck, rules.trump)
    taken = trick_cards(trick)
    if rules.blind_trick and first_trick and undealt:
        return winner, taken | undealt, 0
    return winner, taken, undealt


_PHASES: Final = {**CARD_GAME_PHASES, "pass": "cards are being passed"}


class Hearts(Game[HeartsState]):
    id = GAME_ID
    title = "Stardeck Hearts"
    rules_version = 1
    min_players = 3
    max_players = 6
    event_commands = {"deal": "shuffle", "played": "play", "passed": "pass",
                      "exchange_taken": "take_exchange", "exchange_declined": "decline_exchange"}
    option_specs = (
        OptionSpec("mode", str, "exchange", "what happens to the undealt cards", MODES),
        OptionSpec("deck", str, "stardeck", "stardeck (65 cards, Stars trump) or classic (52)",
                   ("stardeck", "classic")),
        OptionSpec("pass_cards", int, 3, "cards passed before each hand (0: no passing)",
                   minimum=0),
        OptionSpec("qs_breaks_hearts", bool, False, "the Queen of Spades also breaks hearts"),
        OptionSpec("target", int, 100, "the game ends after a hand in which a total reaches this",
                   minimum=1),
        OptionSpec("first_dealer", int, 0, "the seat that deals the first hand", minimum=0),
    )

    def check_options(self, players: int, options: Options) -> None:
        if options["deck"] == "classic" and players != 4:
            raise OptionError("hearts: the classic deck is for exactly 4 players")
        if options["mode"] == "anti_trump" and (players not in (3, 6)
                                                or options["deck"] == "classic"):
            raise OptionError("hearts: anti_trump is for 3 or 6 players with the Stardeck")
        if options["first_dealer"] >= players:
            raise OptionError(f"hearts: first_dealer must be a seat, 0 to {players - 1}")
        hand_size = rules_for(players, options).hand_size
        if options["pass_cards"] > hand_size:
            raise OptionError(f"hearts: pass_cards can be at most the hand size, {hand_size}")

    def new_state(self, players: int, options: Options) -> HeartsState:
        rules = rules_for(players, options)
        empty = (0,) * players
        return HeartsState(
            rules=rules, phase="deal", hand_number=0, dealer=rules.first_dealer, hands=empty,
            undealt=0, out_of_play=0, turn=rules.first_dealer, exchange_declines=0,
            pass_offset=0, passes=(None,) * players, received=empty, trick=(), tricks_played=0,
            hearts_broken=False, won=empty, last_trick=(), last_winner=None,
            totals=empty, score_sheet=(), moon=None, undealt_taken=None,
        )

    # --- who may do what ---------------------------------------------------------------

    def chance(self, state: HeartsState) -> ChanceRequest | None:
        if state.phase != "deal":
            return None
        return state.rules.deal_request

    def to_act(self, state: HeartsState) -> tuple[Seat, ...]:
        if state.phase in ("exchange", "play"):
            return (state.turn,)
        if state.phase == "pass":
            return tuple(s for s, chosen in enumerate(state.passes) if chosen is None)
        return ()

    def legal_actions(self, state: HeartsState, seat: Seat) -> Sequence[Command]:
        phase = state.phase
        if phase == "play":
            return CardCommands(state.rules.plays.commands[seat], legal_cards(state, seat))
        rules = state.rules
        if phase == "pass" and state.passes[seat] is None:
            return Choices("pass", seat, rules.deck.codes(state.hands[seat]), rules.pass_cards)
        if phase == "exchange" and seat == state.turn:
            forced = state.exchange_declines >= rules.players
            decline = () if forced else (Command("decline_exchange", seat, {}),)
            if not _can_take_exchange(rules, state.hands[seat]):
                return list(decline)
            pool = rules.deck.codes(_non_point(rules, state.hands[seat]))
            return Choices("take_exchange", seat, pool, rules.undealt_count, decline)
        return []

    def random_action(self, state: HeartsState, seat: Seat, rng: Random) -> Command:
        phase = state.phase
        if phase == "play" and seat == state.turn:
            return state.rules.plays.random(seat, legal_cards(state, seat), rng)
        rules = state.rules
        if phase == "pass" and state.passes[seat] is None:
            chosen = random_cards(state.hands[seat], rules.pass_cards, rng)
            return Command("pass", seat, {"cards": rules.deck.codes(chosen)})
        return super().random_action(state, seat, rng)

    # --- decide ------------------------------------------------------------------------

    def decide(self, state: HeartsState, command: Command) -> list[Event]:
        kind = command.type
        if kind == "play":
            return [self._decide_play(state, command)]
        if kind == "shuffle":
            return [shuffle_event(self.chance(state), command, "deal")]
        seat = seat_of(command, state.rules.players)
        if kind == "pass":
            require(state.phase == "pass", "wrong_phase",
                    f"no passing now: {self._now(state, seat)}")
            require(state.passes[seat] is None, "already_passed",
                    "you have already passed your cards this hand")
            cards = held_cards(state.rules.deck, command.data.get("cards"), state.rules.pass_cards,
                               state.hands[seat], seat)
            return [Event("passed", seat, {"cards": state.rules.deck.codes(cards)})]
        if kind in ("take_exchange", "decline_exchange"):
            require(state.phase == "exchange", "wrong_phase",
                    f"no exchange now: {self._now(state, seat)}")
            require(seat == state.turn, "not_your_turn",
                    f"it is seat {state.turn}'s turn to take or decline the exchange, not yours")
            rules = state.rules
            if kind == "decline_exchange":
                require(state.exchange_declines < rules.players, "must_exchange",
                        "everyone has declined, so you must take the exchange")
                return [Event("exchange_declined", seat, {})]
            hand = state.hands[seat]
            cards = held_cards(rules.deck, command.data.get("cards"), rules.undealt_count, hand,
                               seat)
            points = cards & ~_non_point(rules, hand)
            require(not points, "point_card_discard",
                    f"you may not discard {the_cards(rules.deck, points)}: only non-point cards "
                    "(not Hearts, not the Queen of Spades) may be discarded")
            return [Event("exchange_taken", seat, {"cards": rules.deck.codes(cards)})]
        raise IllegalCommand("unknown_command", f"hearts has no command {kind!r}")

    def _decide_play(self, state: HeartsState, command: Command) -> Event:
        seat = seat_of(command, state.rules.players)
        if state.phase != "play":
            raise IllegalCommand("wrong_phase", f"no card play now: {self._now(state, seat)}")
        if seat != state.turn:
            raise IllegalCommand("not_your_turn",
                                 f"it is seat {state.turn}'s turn to play, not yours")
        rules = state.rules
        index = held_card(rules.deck, command.data.get("card"), state.hands[seat], seat)
        if not legal_cards(state, seat) >> index & 1:
            raise IllegalCommand(*self._why_illegal(state, seat, index))
        return rules.plays.events[seat][index]

    def _why_illegal(self, state: HeartsState, seat: Seat, card: int) -> tuple[str, str]:
        """The refusal's code and reason for playing ``card``, which ``legal_cards`` forbids."""
        rules = state.rules
        deck = rules.deck
        hand = state.hands[seat]
        if state.tricks_played == 0 and not state.trick:
            first = the_card(deck, lowest(hand & deck.suit_mask[CLUBS] & rules.cards))
            return ("must_lead_lowest_club",
                    f"you must lead {first}: the first trick is led with the lowest Club in play")
        suit = led_suit(state.trick, deck) if state.trick else None
        if suit and hand & deck.suit_mask[suit]:
            return "must_follow_suit", not_following(deck, state.trick, hand, card, SUIT_NAMES)
        if state.tricks_played == 0 and rules.point_cards >> card & 1:
            return ("no_points_first_trick",
                    f"you may not play {the_card(deck, card)} yet: no Heart or Queen of Spades "
                    "on the first trick unless you have nothing else to play")
        if rules.joker >> card & 1:
            return ("joker_lead", "you may not lead the Joker now: the Joker may be led only "
                    "from a hand with nothing else")
        breakers = "a Heart or the Queen of Spades" if rules.breakers & rules.queen_of_spades \
            else "a Heart"
        return ("hearts_not_broken", f"you may not lead {the_card(deck, card)}: Hearts may not "
                f"be led until {breakers} has been played")

    @staticmethod
    def _now(state: HeartsState, seat: Seat) -> str:
        """What is happening instead, as the seat ``seat`` is told."""
        if state.phase == "exchange":
            return ("you are offered the undealt cards (take or decline them first)"
                    if seat == state.turn else
                    f"seat {state.turn} is being offered the undealt cards")
        if state.phase == "pass" and state.passes[seat] is None:
            return "cards are being passed (choose yours first)"
        return _PHASES[state.phase]

    # --- evolve ------------------------------------------------------------------------

    def evolve(self, state: HeartsState, event: Event) -> HeartsState:
        kind = event.type
        if kind == "played":
            return self._evolve_play(state, event)
        if kind == "deal":
            return self._evolve_deal(state, event.data["order"])
        rules = state.rules
        seat = event.seat
        assert seat is not None
        if kind == "passed":
            passes = list(state.passes)
            passes[seat] = rules.deck.mask(event.data["cards"])
            state = state.replace(passes=tuple(passes))
            if any(chosen is None for chosen in passes):
                return state
            return _begin_play(self._deliver_passes(state))
        if kind == "exchange_declined":
            return _offer_exchange(state, (seat + 1) % rules.players, state.exchange_declines + 1)
        if kind == "exchange_taken":
            discard = rules.deck.mask(event.data["cards"])
            hands = list(state.hands)
            hands[seat] = hands[seat] & ~discard | state.undealt
            return _begin_passing(state.replace(hands=tuple(hands), undealt=0,
                                                out_of_play=state.out_of_play | discard,
                                                undealt_taken=(seat, state.undealt)))
        raise ValueError(f"hearts has no event {kind!r}")

    @staticmethod
    def _deliver_passes(state: HeartsState) -> HeartsState:
        players = state.rules.players
        offset = state.pass_offset
        received = tuple(state.passes[(s - offset) % players] or 0 for s in range(players))
        hands = tuple(hand & ~(state.passes[s] or 0) | received[s]
                      for s, hand in enumerate(state.hands))
        return state.replace(hands=hands, received=received)

    @staticmethod
    def _evolve_deal(state: HeartsState, order: list[str]) -> HeartsState:
        rules = state.rules
        players = rules.players
        deck = rules.deck
        hands = [0] * players
        dealt = players * rules.hand_size
        for position, code in enumerate(order[:dealt]):
            seat = (state.dealer + 1 + position) % players
            hands[seat] = hands[seat] | 1 << deck.index(code)  # not |=: mypyc leaves it generic
        undealt = rules.deck.mask(order[dealt:])
        empty = (0,) * players
        state = state.replace(
            hand_number=state.hand_number + 1, hands=tuple(hands), undealt=undealt,
            out_of_play=rules.deck.full & ~rules.cards, passes=(None,) * players, received=empty,
            trick=(), tricks_played=0, hearts_broken=False, won=empty, last_trick=(),
            last_winner=None, moon=None, exchange_declines=0, pass_offset=0, undealt_taken=None,
        )
        if rules.exchange and rules.undealt_count:
            return _offer_exchange(state, state.dealer, 0)
        return _begin_passing(state)

    @staticmethod
    def _evolve_play(state: HeartsState, event: Event) -> HeartsState:
        seat = event.seat
        assert seat is not None
        return play_card(state, seat, state.rules.deck.index_of[event.data["card"]])

    # --- views -------------------------------------------------------------------------

    def _points(self, state: HeartsState, cards: CardSet) -> int:
        points = state.rules.points
        return sum(points[i] for i in bits(cards & state.rules.point_cards))

    def _public(self, state: HeartsState) -> HeartsPublic:
        rules = state.rules
        codes = rules.deck.codes
        code_of = rules.deck.code_of
        return {
            "game": GAME_ID,
            "players": rules.players,
            "phase": state.phase,
            "hand_number": state.hand_number,
            "dealer": state.dealer,
            "turn": state.turn if state.phase in ("exchange", "play") else None,
            "to_act": list(self.to_act(state)),
            "hand_sizes": [hand.bit_count() for hand in state.hands],
            "undealt_count": state.undealt.bit_count(),
            "exchange_declines": state.exchange_declines,
            "pass_offset": state.pass_offset,
            "passed": [chosen is not None for chosen in state.passes],
            "trick": [[seat, code_of[card]] for seat, card in state.trick],
            "tricks_played": state.tricks_played,
            "last_trick": [[seat, code_of[card]] for seat, card in state.last_trick],
            "last_winner": state.last_winner,
            "hearts_broken": state.hearts_broken,
            "taken_points": [self._points(state, cards) for cards in state.won],
            "taken": [codes(cards) for cards in state.won],
            "totals": list(state.totals),
            "score_sheet": [list(row) for row in state.score_sheet],
            "moon": state.moon,
            "trump": rules.trump,
        }

    def view(self, state: HeartsState, viewer: Viewer) -> dict[str, Any]:
        # The same dict, not a copy: a TypedDict is a plain dict at run time.
        return cast(dict[str, Any], self.typed_view(state, viewer))

    def typed_view(self, state: HeartsState, viewer: Viewer) -> HeartsView:
        rules = state.rules
        codes = rules.deck.codes
        # The public part, made a view in place (no copy) by the four keys set below.
        view = cast(HeartsView, self._public(state))
        taken = state.undealt_taken
        if rules.blind_trick and taken is not None:
            # The blind cards lie face down in the winner's pile: nobody, the winner included,
            # sees them or their points until the hand is scored.
            holder, blind = taken
            shown = state.won[holder] & ~blind
            view["taken"][holder] = codes(shown)
            view["taken_points"][holder] = self._points(state, shown)
            view["blind"] = {"seat": holder, "count": blind.bit_count()}
        else:
            view["blind"] = None
        scored = state.hand_number > 0 and len(state.score_sheet) == state.hand_number
        # A moon shot turns the points taken round when the hand is scored: from then on
        # the hand's scores are the score sheet's row.
        view["hand_scores"] = (list(state.score_sheet[-1]) if scored
                               else list(view["taken_points"]))
        view["target"] = rules.target
        view["seat"] = viewer
        if viewer is None or not 0 <= viewer < rules.players:
            return view
        chosen = state.passes[viewer]
        received = state.received[viewer]
        if rules.exchange and taken is not None and taken[0] == viewer:
            received |= taken[1]
        view["hand"] = codes(state.hands[viewer])
        view["my_pass"] = None if chosen is None else codes(chosen)
        view["received"] = codes(received)
        view["legal"] = self._legal_view(state, viewer)
        return view

    def _legal_view(self, state: HeartsState, seat: Seat) -> HeartsLegal:
        """What the seat may do now, so a client can highlight it without knowing the rules."""
        rules = state.rules
        codes = rules.deck.codes
        if state.phase == "play":
            return {"play": codes(legal_cards(state, seat))}
        if state.phase == "pass" and state.passes[seat] is None:
            return {"pass": {"count": rules.pass_cards, "from": codes(state.hands[seat])}}
        if state.phase == "exchange" and seat == state.turn:
            hand = state.hands[seat]
            can_take = _can_take_exchange(rules, hand)
            return {"exchange": {
                "count": rules.undealt_count,
                "discard_from": codes(_non_point(rules, hand)) if can_take else [],
                "may_decline": state.exchange_declines < rules.players,
            }}
        return {}

    def snapshot(self, state: HeartsState) -> dict[str, Any]:
        codes = state.rules.deck.codes
        full: dict[str, Any] = dict(self._public(state))
        full["turn"] = state.turn
        full["hands"] = [codes(hand) for hand in state.hands]
        full["undealt"] = codes(state.undealt)
        full["out_of_play"] = codes(state.out_of_play)
        full["passes"] = [None if chosen is None else codes(chosen) for chosen in state.passes]
        full["received"] = [codes(cards) for cards in state.received]
        if state.undealt_taken is not None:  # never at a checkpoint: a hand's end clears it
            holder, cards = state.undealt_taken
            full["undealt_taken"] = [holder, codes(cards)]
        return full

    def read_snapshot(self, read: SnapshotReader, start: HeartsState) -> HeartsState:
        rules = start.rules
        deck, players = rules.deck, rules.players
        passes = tuple(None if entry.value(ENTRY) is None else entry.cards(ENTRY, deck)
                       for entry in read.entries("passes", players))
        taken: tuple[Seat, CardSet] | None = None
        if "undealt_taken" in read.data:
            holder, cards = read.entries("undealt_taken", 2)
            taken = (holder.integer(ENTRY), cards.cards(ENTRY, deck))
        return HeartsState(
            rules=rules,
            phase=read.text("phase", ("deal", "exchange", "pass", "play", "over")),
            hand_number=read.integer("hand_number"),
            dealer=read.integer("dealer"),
            undealt=read.cards("undealt", deck),
            out_of_play=read.cards("out_of_play", deck),
            exchange_declines=read.integer("exchange_declines"),
            pass_offset=read.integer("pass_offset"),
            passes=passes,
            received=read.card_sets("received", deck, players),
            tricks_played=read.integer("tricks_played"),
            won=read.card_sets("taken", deck, players),
            last_trick=read.plays("last_trick", deck, players),
            last_winner=read.optional_integer("last_winner"),
            totals=read.integers("totals", players),
            score_sheet=tuple(entry.integers(ENTRY, players)
                              for entry in read.entries("score_sheet")),
            moon=read.optional_integer("moon"),
            undealt_taken=taken,
            hearts_broken=read.flag("hearts_broken"),
            turn=read.integer("turn"),
            trick=read.plays("trick", deck, players),
            hands=read.card_sets("hands", deck, players),
        )

    def event_view(self, before: HeartsState, event: Event, viewer: Viewer) -> Event | None:
        kind = event.type
        if kind in ("played", "exchange_declined"):
            return event
        rules = before.rules
        if kind == "deal":
            after = self.evolve(before, event)
            data: dict[str, Any] = {"hand_sizes": [h.bit_count() for h in after.hands]}
            if viewer is not None and 0 <= viewer < rules.players:
                data["hand"] = rules.deck.codes(after.hands[viewer])
            return Event(kind, None, data)
        if kind == "exchange_taken":
            if viewer != event.seat:
                return Event(kind, event.seat, {"count": rules.undealt_count})
            return Event(kind, event.seat, {"cards": event.data["cards"],
                                            "taken": rules.deck.codes(before.undealt)})
        if kind == "passed":
            data = dict(event.data) if viewer == event.seat else {"count": rules.pass_cards}
            waiting = [s for s, chosen in enumerate(before.passes) if chosen is None]
            if waiting == [event.seat] and viewer is not None and 0 <= viewer < rules.players:
                after = self.evolve(before, event)
                data["received"] = rules.deck.codes(after.received[viewer])
            return Event(kind, event.seat, data)
        return event

    def outcome(self, state: HeartsState) -> Outcome:
        totals = state.totals
        if state.phase != "over":
            return Outcome(False, totals, None)
        best = min(totals)
        return Outcome(True, totals, tuple(s for s, t in enumerate(totals) if t == best))

    def is_checkpoint(self, state: HeartsState) -> bool:
        return state.hand_number > 0 and state.phase in ("deal", "over")

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.type == "deal":
            return f"deal {len(data['order'])} cards (deal number {data.get('seed', '-')})"
        if event.type == "played":
            return f"seat {event.seat} plays {data['card']}"
        if event.type == "passed":
            return f"seat {event.seat} passes {' '.join(data.get('cards', []))}"
        if event.type == "exchange_taken":
            return f"seat {event.seat} takes the exchange, discarding {' '.join(data['cards'])}"
        return super().describe_event(event)


GAME = Hearts()
