"""Stars, also called White Star or Two Hundred Stars (game id ``stars``), as described in
docs/games/stars.md.

Four players, a 43-card deck (Skulls have no Champion), Skulls trump. A hand: the deal with a
widow, bidding, the declarer's burial, ten tricks with the Star rule, scoring against the bid.
Option ``colored_star`` plays the Colored-Star variation.

Events: ``deal`` (the shuffled order), ``bid``, ``bid_passed``, ``buried``, ``played``. Who
takes a trick, Star piles, hand scores, contracts, totals and the game's end follow from those
in ``evolve``. docs/games/stars.md documents the events and card codes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from random import Random
from typing import Any, Final, Literal, NotRequired, TypedDict, cast, final

from starhall.shared.cards import CardSet, Deck, bits, random_cards
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
    not_following,
    suit_to_follow,
    trick_cards,
    trick_winner,
)

SKULLS, SHIELDS, WANDS, LEAVES = "k", "s", "w", "l"
SUITS = (SKULLS, SHIELDS, WANDS, LEAVES)
SUIT_NAMES = {SKULLS: "Skulls", SHIELDS: "Shields", WANDS: "Wands", LEAVES: "Leaves"}
TRUMP = SKULLS
GAME_ID: Final = "stars"

# (code, rank strength, name, points), lowest first. Champion is the highest rank, worth 0.
RANKS = (
    ("2", 2, "2", 1), ("3", 3, "3", 1), ("4", 4, "4", 1), ("5", 5, "5", 1), ("6", 6, "6", 1),
    ("7", 7, "7", 1), ("L", 8, "Lady", 2), ("S", 9, "Scribe", 3), ("Q", 10, "Queen", 4),
    ("K", 11, "King", 5), ("C", 12, "Champion", 0),
)
CHAMPION = "C"

PLAYERS = 4
HAND_SIZE = 10
WIDOW_SIZE = 3
BURY_COUNT = 3
TRICKS_PER_HAND = 10
DECK_POINTS = 80
MAX_BID = 3 * DECK_POINTS
"""No hand can score more: a card's points reach one player at most three times (a White Star
in another player's Star pile), so a higher bid could never be made and is refused."""

DEAL_PACKETS = (3, WIDOW_SIZE, 4, 3)
"""The seed's deal: 3 to each player from the dealer's left, 3 to the widow, 4 each, 3 each.
The second packet (index 1) goes to the widow; every other packet goes round the table."""
WIDOW_PACKET = 1


def _make_deck() -> Deck:
    cards = []
    for suit in SUITS:
        for code, strength, name, _ in RANKS:
            if suit == SKULLS and code == CHAMPION:
                continue
            cards.append((f"{code}{suit}", suit, strength, f"{name} of {SUIT_NAMES[suit]}"))
    return Deck("Stars", cards)


DECK = _make_deck()
POINTS: tuple[int, ...] = tuple(
    next(points for code, _, _, points in RANKS if card.code[:-1] == code) for card in DECK.cards
)


def card_points(cards: CardSet) -> int:
    """The card points in a set of cards (no Star tripling)."""
    return sum(POINTS[i] for i in bits(cards))


_RESULT_FIELDS: Final = ("star", "white", "taker", "star_pile", "shared_by", "leader", "points",
                         "paid")


@final
class TrickResult:
    """Where a finished trick goes. Exactly one of ``taker``, ``star_pile`` and ``shared_by``
    says where its cards go; ``leader`` leads the next trick.

    Immutable (every field ``Final``), and a plain class rather than a frozen dataclass:
    mypyc compiles it to a C struct made in one allocation, where a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__`` (about 1 µs a trick, and the
    playouts' policy settles a trick once for each card it weighs)."""

    __slots__ = _RESULT_FIELDS

    def __init__(self, star: bool, white: bool, taker: Seat | None, star_pile: Seat | None,
                 shared_by: tuple[Seat, ...], leader: Seat, points: int, paid: int) -> None:
        self.star: Final = star
        self.white: Final = white
        """A Star whose three non-Skull cards share one rank."""
        self.taker: Final = taker
        """The seat that adds the trick to its won cards."""
        self.star_pile: Final = star_pile
        """The Skull's player, who keeps a Star in a Star pile (standard rules)."""
        self.shared_by: Final = shared_by
        """A White Star in the Colored-Star variation: each of these seats scores the trick."""
        self.leader: Final = leader
        self.points: Final = points
        """The trick's card points, untripled."""
        self.paid: Final = paid
        """What the trick is worth to each seat it scores for (tripled for a standard White
        Star)."""

    def _fields(self) -> tuple[object, ...]:
        return (self.star, self.white, self.taker, self.star_pile, self.shared_by, self.leader,
                self.points, self.paid)

    def __eq__(self, other: object) -> bool:
        return type(other) is TrickResult and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}"
                           for name, value in zip(_RESULT_FIELDS, self._fields(), strict=True))
        return f"TrickResult({fields})"


def is_star(trick: Trick) -> bool:
    """A Star: exactly one card of each of the four suits, whoever led."""
    suit_of = DECK.suit_of
    return len(trick) == PLAYERS and len({suit_of[card] for _, card in trick}) == PLAYERS


def _top_colored(trick: Trick) -> Seat:
    """The player of the highest non-Skull card; between equal ranks, the one laid first."""
    suit_of, rank_of = DECK.suit_of, DECK.rank_of
    best_seat, best_rank = -1, -1
    for seat, card in trick:
        if suit_of[card] != TRUMP and rank_of[card] > best_rank:
            best_seat, best_rank = seat, rank_of[card]
    return best_seat


def resolve_trick(trick: Trick, colored_star: bool) -> TrickResult:
    """Where a complete trick of four cards goes, and who leads next."""
    points = card_points(trick_cards(trick))
    if not is_star(trick):
        winner = trick_winner(trick, DECK, TRUMP)
        return TrickResult(False, False, winner, None, (), winner, points, points)
    colored = [(seat, card) for seat, card in trick if DECK.suit_of[card] != TRUMP]
    white = len({DECK.rank_of[card] for _, card in colored}) == 1
    top = _top_colored(trick)
    if not colored_star:
        skull = next(seat for seat, card in trick if DECK.suit_of[card] == TRUMP)
        return TrickResult(True, white, None, skull, (), top, points, points * (3 if white else 1))
    if white:
        seats = tuple(seat for seat, _ in colored)
        return TrickResult(True, True, None, None, seats, seats[0], points, points)
    return TrickResult(True, False, top, None, (), top, points, points)


def take_trick(trick: Trick, colored_star: bool, won: list[CardSet],
               star_piles: list[CardSet], star_values: list[int], shared_credit: list[int],
               shared: CardSet) -> tuple[TrickResult, CardSet]:
    """Where the complete ``trick`` goes (``resolve_trick``), put there: into its taker's won
    cards, a Star pile and what it pays, or the shared White Star cards and each sharer's
    credit. The lists are changed in place; returns the result and the shared cards. For the
    engine and the strong bot's playouts alike."""
    result = resolve_trick(trick, colored_star)
    cards = trick_cards(trick)
    if result.taker is not None:
        won[result.taker] = won[result.taker] | cards
    elif result.star_pile is not None:
        star_piles[result.star_pile] = star_piles[result.star_pile] | cards
        star_values[result.star_pile] += result.paid
    else:
        shared |= cards
        for sharer in result.shared_by:
            shared_credit[sharer] += result.paid
    return result, shared


@dataclass(frozen=True, slots=True)
class HandResult:
    """One finished hand, as the score sheet records it."""

    hand_number: int
    declarer: Seat
    bid: int
    points: tuple[int, ...]
    """Each seat's hand score: won cards (with the burial for the declarer) and Star credits."""
    changes: tuple[int, ...]
    """What each total changed by: the hand score, and ± the bid for the declarer."""
    made: bool
    stars_kept: tuple[int, ...]
    """Star piles each seat was left with this hand (Stars against their Skull)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that follows from the table's options, worked out once."""

    min_bid: int
    target: int
    colored_star: bool
    first_dealer: int
    plays: CardPlays
    pass_commands: tuple[Command, ...]


@cache
def _rules(min_bid: int, target: int, colored_star: bool, first_dealer: int) -> Rules:
    return Rules(
        min_bid=min_bid,
        target=target,
        colored_star=colored_star,
        first_dealer=first_dealer,
        plays=CardPlays.build(DECK, PLAYERS),
        pass_commands=tuple(Command("pass", seat, {}) for seat in range(PLAYERS)),
    )


def rules_for(options: Options) -> Rules:
    return _rules(options["min_bid"], options["target"], options["colored_star"],
                  options["first_dealer"])


@dataclass(frozen=True, slots=True)
class StarsState:
    rules: Rules
    phase: str
    """``deal`` (waiting for the shuffle), ``bidding``, ``bury``, ``play`` or ``over``."""
    hand_number: int
    """Hands dealt so far; the first hand is number 1."""
    dealer: Seat
    hands: tuple[CardSet, ...]
    widow: CardSet
    """This hand's widow; it is in the declarer's hand once ``widow_taken``."""
    widow_taken: bool
    buried: CardSet
    turn: Seat
    """Whose turn it is to bid, bury or play."""
    bids: tuple[tuple[Seat, int | None], ...]
    """The bidding so far, in order: a seat and its bid, ``None`` for a pass."""
    passed: tuple[bool, ...]
    high_bid: int | None
    declarer: Seat | None
    """The highest bidder so far during bidding; the declarer after it."""
    trick: Trick
    tricks: tuple[tuple[Trick, TrickResult], ...]
    """This hand's finished tricks and where each went."""
    won: tuple[CardSet, ...]
    """Cards each seat took in tricks this hand (not the burial)."""
    star_piles: tuple[CardSet, ...]
    star_values: tuple[int, ...]
    """What each seat's Star pile pays every other player (White Stars tripled)."""
    shared: CardSet
    """Cards of Colored-Star White Stars, which score for three players and belong to none."""
    shared_credit: tuple[int, ...]
    totals: tuple[int, ...]
    results: tuple[HandResult, ...]

    @property
    def tricks_played(self) -> int:
        return len(self.tricks)

    @property
    def last(self) -> tuple[Trick, TrickResult] | None:
        return self.tricks[-1] if self.tricks else None


def legal_cards(state: StarsState, seat: Seat) -> CardSet:
    """The cards ``seat`` may play now (an empty set when it may not play)."""
    if state.phase != "play" or seat != state.turn:
        return 0
    return may_play(state.hands[seat], state.trick)


def may_play(hand: CardSet, trick: Trick) -> CardSet:
    """The cards of ``hand`` that may be played to ``trick``: the rule itself, for the engine
    and for the strong bot's playouts, which keep the hand in play as plain values."""
    return follow_options(hand, suit_to_follow(trick, DECK))


def random_bid(low: int, rng: Random) -> int:
    """A random player's bid from ``low``: uniform up to the deck's 80 points (``low`` when
    that is higher), so that random players' contracts are not mostly hopeless."""
    high = max(low, DECK_POINTS)
    return low + int(rng.random() * (high - low + 1))


def lowest_bid(state: StarsState) -> int:
    """The smallest bid the seat to bid may make (above ``MAX_BID`` when none is left)."""
    return state.rules.min_bid if state.high_bid is None else max(state.rules.min_bid,
                                                                  state.high_bid + 1)


def must_bid(state: StarsState) -> bool:
    """The fourth bidder after three passes and no bid may not pass."""
    return state.high_bid is None and sum(state.passed) == PLAYERS - 1


class StarsTrick(TypedDict):
    """A finished trick and where it went (``TrickResult``)."""

    plays: list[list[Any]]
    """Each ``[seat, card code]``."""
    star: bool
    white: bool
    taker: int | None
    star_pile: int | None
    shared_by: list[int]
    leader: int
    points: int
    paid: int


class StarsContract(TypedDict):
    declarer: int | None
    bid: int | None


class StarsHandResult(TypedDict):
    """A scored hand's contract and what each seat scored (``HandResult``)."""

    hand_number: int
    declarer: int
    bid: int
    points: list[int]
    made: bool


class StarsPublic(TypedDict):
    """What every view of Stars and the snapshot share (``Stars._public``)."""

    game: Literal["stars"]
    players: int
    phase: str
    """``deal``, ``bidding``, ``bury``, ``play`` or ``over``."""
    hand_number: int
    dealer: int
    turn: int | None
    to_act: list[int]
    hand_sizes: list[int]
    widow_count: int
    bids: list[list[Any]]
    """The bidding so far, each ``[seat, amount]`` (``None``: a pass)."""
    passed: list[bool]
    high_bid: int | None
    high_bidder: int | None
    declarer: int | None
    contract: StarsContract | None
    trick: list[list[Any]]
    """The cards played to the trick so far, each ``[seat, card code]``."""
    tricks: list[StarsTrick]
    tricks_played: int
    last_trick: list[list[Any]]
    """Each ``[seat, card code]``."""
    last_winner: int | None
    last_star: StarsTrick | None
    taken: list[list[str]]
    won_points: list[int]
    star_piles: list[list[str]]
    star_pile_points: list[int]
    shared_stars: list[str]
    shared_credit: list[int]
    hand_points: list[int]
    totals: list[int]
    score_sheet: list[list[int]]
    contracts: list[StarsHandResult]
    trump: str
    min_bid: int
    max_bid: int
    target: int
    colored_star: bool


StarsBury = TypedDict("StarsBury", {"count": int, "from": list[str]})
"""The cards to bury: ``count`` of those in ``from`` (the hand)."""


class StarsBidRange(TypedDict):
    min: int
    max: int


StarsLegal = TypedDict("StarsLegal", {
    "play": list[str], "bury": StarsBury, "pass": bool, "bid": StarsBidRange}, total=False)
"""What a seat may do now (``{}``: nothing; in the bidding ``pass`` and maybe ``bid``)."""


class StarsView(StarsPublic):
    """``view``: what a seat or a spectator sees of a game of Stars. The engine builds it
    (``Stars.typed_view``), and the bots and the client read it through ``stars_view``, so
    that a misspelt key is a type error."""

    seat: int | None
    hand_scores: list[int]
    hand: NotRequired[list[str]]
    """This key and those below: a seat's own, never a spectator's."""
    received: NotRequired[list[str]]
    legal: NotRequired[StarsLegal]
    widow: NotRequired[list[str]]
    """This key and the two below: the declarer's only, once it has taken the widow."""
    buried: NotRequired[list[str] | None]
    my_hand_points: NotRequired[int]


def stars_view(view: Mapping[str, Any]) -> StarsView:
    """A view of Stars (the engine's, or one the server sent: msgpack gives a plain map) read
    with its keys typed."""
    return cast(StarsView, view)


def hand_points(state: StarsState, seat: Seat, with_burial: bool = True) -> int:
    """A seat's hand score so far: won cards, the burial for the declarer, Star credits."""
    score = card_points(state.won[seat]) + state.shared_credit[seat]
    score += sum(value for other, value in enumerate(state.star_values) if other != seat)
    if with_burial and seat == state.declarer:
        score += card_points(state.buried)
    return score


def hand_scores(state: StarsState, viewer: Viewer) -> list[int]:
    """Each seat's hand score as ``viewer`` may know it: once the hand is scored, what it
    scored (the declarer's burial included); before, the score so far, without the burial
    but for the declarer's own eyes, which see it counted as it will be."""
    last = state.results[-1] if state.results else None
    if last is not None and last.hand_number == state.hand_number:
        return list(last.points)
    return [hand_points(state, seat, with_burial=seat == viewer) for seat in range(PLAYERS)]


def _next_bidder(passed: tuple[bool, ...], seat: Seat) -> Seat:
    for offset in range(1, PLAYERS + 1):
        candidate = (seat + offset) % PLAYERS
        if not passed[candidate]:
            return candidate
    raise ValueError("everyone has passed")


def finish_hand(state: StarsState) -> StarsState:
    """``state``, its tenth trick taken, scored: the contract, the Star piles, the totals and
    whether the game is over."""
    rules = state.rules
    declarer, bid = state.declarer, state.high_bid
    assert declarer is not None and bid is not None
    points = tuple(hand_points(state, seat) for seat in range(PLAYERS))
    made = points[declarer] >= bid
    changes = tuple(
        score + (bid if made else -bid) if seat == declarer else score
        for seat, score in enumerate(points)
    )
    stars_kept = tuple(
        sum(1 for _, result in state.tricks if result.star_pile == seat) for seat in range(PLAYERS)
    )
    totals = tuple(t + c for t, c in zip(state.totals, changes, strict=True))
    best = max(totals)
    over = best >= rules.target and totals.count(best) == 1
    result = HandResult(state.hand_number, declarer, bid, points, changes, made, stars_kept)
    return replace(
        state,
        phase="over" if over else "deal",
        totals=totals,
        results=(*state.results, result),
        dealer=state.dealer if over else (state.dealer + 1) % PLAYERS,
    )


_PHASES: Final = {**CARD_GAME_PHASES, "bidding": "the players are bidding"}
_DOING: Final = {"bid": "bidding", "pass": "passing", "bury": "burying", "play": "card play"}
"""Each command as what a refusal says cannot happen now: "no card play now: ..."."""
_VERBS: Final = {"bidding": "bid", "bury": "bury three cards", "play": "play"}
"""What the seat to act is to do in each phase: "it is seat 2's turn to bid, not yours"."""


class Stars(Game[StarsState]):
    id = GAME_ID
    title = "Stars (White Star)"
    rules_version = 1
    min_players = PLAYERS
    max_players = PLAYERS
    event_commands = {"deal": "shuffle", "bid": "bid", "bid_passed": "pass", "buried": "bury",
                      "played": "play"}
    option_specs = (
        OptionSpec("min_bid", int, 30, "the smallest opening bid", minimum=1, maximum=MAX_BID),
        OptionSpec("target", int, 200, "the game ends after a hand in which a total reaches this",
                   minimum=1),
        OptionSpec("colored_star", bool, False,
                   "Colored-Star variation: a Star goes to the highest non-Skull card"),
        OptionSpec("first_dealer", int, 0, "the seat that deals the first hand", minimum=0,
                   maximum=PLAYERS - 1),
    )

    def check_options(self, players: int, options: Options) -> None:
        if options["first_dealer"] >= players:
            raise OptionError(f"stars: first_dealer must be a seat, 0 to {players - 1}")

    def new_state(self, players: int, options: Options) -> StarsState:
        if players != PLAYERS:
            raise OptionError(f"stars is for exactly {PLAYERS} players, not {players}")
        rules = rules_for(options)
        empty = (0,) * PLAYERS
        return StarsState(
            rules=rules, phase="deal", hand_number=0, dealer=rules.first_dealer, hands=empty,
            widow=0, widow_taken=False, buried=0, turn=rules.first_dealer, bids=(),
            passed=(False,) * PLAYERS, high_bid=None, declarer=None, trick=(), tricks=(),
            won=empty, star_piles=empty, star_values=empty, shared=0, shared_credit=empty,
            totals=empty, results=(),
        )

    # --- who may do what ---------------------------------------------------------------

    def chance(self, state: StarsState) -> ChanceRequest | None:
        if state.phase != "deal":
            return None
        return ChanceRequest(DECK.code_of)

    def to_act(self, state: StarsState) -> tuple[Seat, ...]:
        if state.phase in ("bidding", "bury", "play"):
            return (state.turn,)
        return ()

    def legal_actions(self, state: StarsState, seat: Seat) -> Sequence[Command]:
        if seat != state.turn:
            return []
        if state.phase == "play":
            return CardCommands(state.rules.plays.commands[seat], legal_cards(state, seat))
        if state.phase == "bidding":
            actions = [] if must_bid(state) else [state.rules.pass_commands[seat]]
            actions += [Command("bid", seat, {"amount": amount})
                        for amount in range(lowest_bid(state), MAX_BID + 1)]
            return actions
        if state.phase == "bury":
            return Choices("bury", seat, DECK.codes(state.hands[seat]), BURY_COUNT)
        return []

    def random_action(self, state: StarsState, seat: Seat, rng: Random) -> Command:
        """A random legal command, sampled without listing them all: a uniform card or burial.

        Bidding is not uniform over the commands: with up to 211 amounts against one pass,
        nearly every hand would become a hopeless contract near ``MAX_BID``, random players'
        totals would sink for ever and a game of random bots would almost never end. Instead a
        bid and a pass are equally likely, and a bid's amount is uniform from the lowest
        allowed up to the deck's 80 points (or is the lowest allowed, when that is higher)."""
        if seat != state.turn or state.phase not in ("bidding", "bury", "play"):
            raise IllegalCommand("not_your_turn", "you have nothing to do now")
        if state.phase == "play":
            return state.rules.plays.random(seat, legal_cards(state, seat), rng)
        if state.phase == "bury":
            chosen = random_cards(state.hands[seat], BURY_COUNT, rng)
            return Command("bury", seat, {"cards": DECK.codes(chosen)})
        low = lowest_bid(state)
        if low > MAX_BID or (not must_bid(state) and rng.random() < 0.5):
            return state.rules.pass_commands[seat]
        return Command("bid", seat, {"amount": random_bid(low, rng)})

    def random_choice(self, legal: Sequence[Command], rng: Random) -> Command:
        """As ``random_action`` chooses, from the legal commands: in the bidding a bid and a
        pass equally likely, a bid's amount uniform up to the deck's points."""
        if legal[0].type not in ("pass", "bid"):
            return legal[int(rng.random() * len(legal))]
        passes = [command for command in legal if command.type == "pass"]
        bids = [command for command in legal if command.type == "bid"]
        if not bids or (passes and rng.random() < 0.5):
            return passes[0]
        low: int = bids[0].data["amount"]  # the amounts run up by one from the lowest allowed
        return bids[random_bid(low, rng) - low]

    # --- decide ------------------------------------------------------------------------

    def decide(self, state: StarsState, command: Command) -> list[Event]:
        kind = command.type
        if kind == "shuffle":
            return [shuffle_event(self.chance(state), command, "deal")]
        if kind not in ("bid", "pass", "bury", "play"):
            raise IllegalCommand("unknown_command", f"stars has no command {kind!r}")
        seat = seat_of(command, PLAYERS)
        phase = {"bid": "bidding", "pass": "bidding", "bury": "bury", "play": "play"}[kind]
        require(state.phase == phase, "wrong_phase",
                f"no {_DOING[kind]} now: {self._now(state, seat)}")
        require(seat == state.turn, "not_your_turn",
                f"it is seat {state.turn}'s turn to {_VERBS[phase]}, not yours")
        if kind == "bid":
            return [self._decide_bid(state, command)]
        if kind == "pass":
            require(not must_bid(state), "must_bid",
                    "the other three have passed, so you must bid")
            return [Event("bid_passed", seat, {})]
        if kind == "bury":
            return [self._decide_bury(state, command)]
        return [self._decide_play(state, command)]

    @staticmethod
    def _decide_bid(state: StarsState, command: Command) -> Event:
        amount = command.data.get("amount")
        if type(amount) is not int:
            raise IllegalCommand("bad_command", "a bid needs 'amount', a whole number of points")
        low = lowest_bid(state)
        if amount < low:
            bidder = "your" if state.declarer == command.seat else f"seat {state.declarer}'s"
            reason = (f"the minimum bid is {low}" if state.high_bid is None
                      else f"a bid must be higher than {state.high_bid}, {bidder} bid")
            raise IllegalCommand("bid_too_low", reason)
        require(amount <= MAX_BID, "bid_too_high", f"no hand can score more than {MAX_BID}")
        return Event("bid", command.seat, {"amount": amount})

    @staticmethod
    def _decide_bury(state: StarsState, command: Command) -> Event:
        cards = held_cards(DECK, command.data.get("cards"), BURY_COUNT, state.hands[state.turn],
                           state.turn)
        return Event("buried", state.turn, {"cards": DECK.codes(cards)})

    @staticmethod
    def _decide_play(state: StarsState, command: Command) -> Event:
        seat = state.turn
        code = command.data.get("card")
        index = held_card(DECK, code, state.hands[seat], seat)
        if not legal_cards(state, seat) >> index & 1:
            raise IllegalCommand("must_follow_suit", not_following(
                DECK, state.trick, state.hands[seat], index, SUIT_NAMES))
        return state.rules.plays.events[seat][index]

    @staticmethod
    def _now(state: StarsState, seat: Seat) -> str:
        """What is happening instead, as the seat ``seat`` is told."""
        if state.phase == "bury":
            return ("you must bury three cards first" if seat == state.turn
                    else f"seat {state.turn}, the declarer, is burying three cards")
        return _PHASES[state.phase]

    # --- evolve ------------------------------------------------------------------------

    def evolve(self, state: StarsState, event: Event) -> StarsState:
        kind = event.type
        if kind == "played":
            return self._evolve_play(state, event)
        if kind == "deal":
            return self._evolve_deal(state, event.data["order"])
        seat = event.seat
        assert seat is not None
        if kind == "bid":
            amount = event.data["amount"]
            return self._after_bid(replace(state, bids=(*state.bids, (seat, amount)),
                                           high_bid=amount, declarer=seat), seat)
        if kind == "bid_passed":
            passed = list(state.passed)
            passed[seat] = True
            return self._after_bid(replace(state, bids=(*state.bids, (seat, None)),
                                           passed=tuple(passed)), seat)
        if kind == "buried":
            cards = DECK.mask(event.data["cards"])
            hands = list(state.hands)
            hands[seat] &= ~cards
            return replace(state, hands=tuple(hands), buried=cards, phase="play", turn=seat)
        raise ValueError(f"stars has no event {kind!r}")

    @staticmethod
    def _after_bid(state: StarsState, seat: Seat) -> StarsState:
        """Pass the bidding on, or end it: the declarer picks up the widow and must bury."""
        if sum(state.passed) < PLAYERS - 1 or state.high_bid is None:
            return replace(state, turn=_next_bidder(state.passed, seat))
        declarer = state.passed.index(False)
        hands = list(state.hands)
        hands[declarer] |= state.widow
        return replace(state, phase="bury", declarer=declarer, turn=declarer,
                       hands=tuple(hands), widow_taken=True)

    @staticmethod
    def _evolve_deal(state: StarsState, order: list[str]) -> StarsState:
        index = DECK.index
        hands = [0] * PLAYERS
        widow = 0
        position = 0
        for packet_number, size in enumerate(DEAL_PACKETS):
            if packet_number == WIDOW_PACKET:
                for code in order[position:position + size]:
                    widow |= 1 << index(code)
                position += size
                continue
            for offset in range(1, PLAYERS + 1):
                seat = (state.dealer + offset) % PLAYERS
                for code in order[position:position + size]:
                    hands[seat] |= 1 << index(code)
                position += size
        empty = (0,) * PLAYERS
        first = (state.dealer + 1) % PLAYERS
        return replace(
            state, phase="bidding", hand_number=state.hand_number + 1, hands=tuple(hands),
            widow=widow, widow_taken=False, buried=0, turn=first, bids=(),
            passed=(False,) * PLAYERS, high_bid=None, declarer=None, trick=(), tricks=(),
            won=empty, star_piles=empty, star_values=empty, shared=0, shared_credit=empty,
        )

    @staticmethod
    def _evolve_play(state: StarsState, event: Event) -> StarsState:
        seat = event.seat
        assert seat is not None
        card = DECK.index_of[event.data["card"]]
        hands = list(state.hands)
        hands[seat] &= ~(1 << card)
        trick = (*state.trick, (seat, card))
        if len(trick) < PLAYERS:
            return replace(state, hands=tuple(hands), trick=trick, turn=(seat + 1) % PLAYERS)
        won, piles, values = list(state.won), list(state.star_piles), list(state.star_values)
        credit = list(state.shared_credit)
        result, shared = take_trick(trick, state.rules.colored_star, won, piles, values, credit,
                                    state.shared)
        state = replace(
            state, hands=tuple(hands), trick=(), turn=result.leader,
            tricks=(*state.tricks, (trick, result)), won=tuple(won), star_piles=tuple(piles),
            star_values=tuple(values), shared=shared, shared_credit=tuple(credit),
        )
        if any(hands):
            return state
        return finish_hand(state)

    # --- views -------------------------------------------------------------------------

    @staticmethod
    def _plays(trick: Trick) -> list[list[Any]]:
        code_of = DECK.code_of
        return [[seat, code_of[card]] for seat, card in trick]

    def _trick_view(self, trick: Trick, result: TrickResult) -> StarsTrick:
        return {
            "plays": self._plays(trick),
            "star": result.star,
            "white": result.white,
            "taker": result.taker,
            "star_pile": result.star_pile,
            "shared_by": list(result.shared_by),
            "leader": result.leader,
            "points": result.points,
            "paid": result.paid,
        }

    def _public(self, state: StarsState) -> StarsPublic:
        rules = state.rules
        codes = DECK.codes
        last = state.last
        in_contract = state.phase in ("bury", "play")
        contract: StarsContract | None = ({"declarer": state.declarer, "bid": state.high_bid}
                                          if in_contract else None)
        return {
            "game": GAME_ID,
            "players": PLAYERS,
            "phase": state.phase,
            "hand_number": state.hand_number,
            "dealer": state.dealer,
            "turn": state.turn if state.phase in ("bidding", "bury", "play") else None,
            "to_act": list(self.to_act(state)),
            "hand_sizes": [hand.bit_count() for hand in state.hands],
            "widow_count": 0 if state.widow_taken else state.widow.bit_count(),
            "bids": [[seat, amount] for seat, amount in state.bids],
            "passed": list(state.passed),
            "high_bid": state.high_bid,
            "high_bidder": state.declarer if state.phase == "bidding" else None,
            "declarer": state.declarer if in_contract else None,
            "contract": contract,
            "trick": self._plays(state.trick),
            "tricks": [self._trick_view(trick, result) for trick, result in state.tricks],
            "tricks_played": state.tricks_played,
            "last_trick": self._plays(last[0]) if last else [],
            "last_winner": last[1].leader if last else None,
            "last_star": self._trick_view(*last) if last and last[1].star else None,
            "taken": [codes(cards) for cards in state.won],
            "won_points": [card_points(cards) for cards in state.won],
            "star_piles": [codes(cards) for cards in state.star_piles],
            "star_pile_points": list(state.star_values),
            "shared_stars": codes(state.shared),
            "shared_credit": list(state.shared_credit),
            "hand_points": [hand_points(state, seat, with_burial=False)
                            for seat in range(PLAYERS)],
            "totals": list(state.totals),
            "score_sheet": [list(result.changes) for result in state.results],
            "contracts": [
                {"hand_number": r.hand_number, "declarer": r.declarer, "bid": r.bid,
                 "points": list(r.points), "made": r.made}
                for r in state.results
            ],
            "trump": TRUMP,
            "min_bid": rules.min_bid,
            "max_bid": MAX_BID,
            "target": rules.target,
            "colored_star": rules.colored_star,
        }

    def view(self, state: StarsState, viewer: Viewer) -> dict[str, Any]:
        # The same dict, not a copy: a TypedDict is a plain dict at run time.
        return cast(dict[str, Any], self.typed_view(state, viewer))

    def typed_view(self, state: StarsState, viewer: Viewer) -> StarsView:
        # The public part, made a view in place (no copy) by the two keys set below.
        view = cast(StarsView, self._public(state))
        view["seat"] = viewer
        view["hand_scores"] = hand_scores(state, viewer)
        if viewer is None or not 0 <= viewer < PLAYERS:
            return view
        codes = DECK.codes
        declaring = (state.widow_taken and viewer == state.declarer
                     and state.phase in ("bury", "play"))
        view["hand"] = codes(state.hands[viewer])
        view["received"] = codes(state.widow) if declaring else []
        view["legal"] = self._legal_view(state, viewer)
        if declaring:
            view["widow"] = codes(state.widow)
            view["buried"] = codes(state.buried) if state.phase == "play" else None
            view["my_hand_points"] = hand_points(state, viewer)
        return view

    @staticmethod
    def _legal_view(state: StarsState, seat: Seat) -> StarsLegal:
        """What the seat may do now, so a client can highlight it without knowing the rules."""
        if seat != state.turn:
            return {}
        if state.phase == "play":
            return {"play": DECK.codes(legal_cards(state, seat))}
        if state.phase == "bury":
            return {"bury": {"count": BURY_COUNT, "from": DECK.codes(state.hands[seat])}}
        if state.phase == "bidding":
            legal: StarsLegal = {"pass": not must_bid(state)}
            low = lowest_bid(state)
            if low <= MAX_BID:
                legal["bid"] = {"min": low, "max": MAX_BID}
            return legal
        return {}

    def snapshot(self, state: StarsState) -> dict[str, Any]:
        codes = DECK.codes
        full: dict[str, Any] = dict(self._public(state))
        full["turn"] = state.turn
        full["declarer"] = state.declarer
        full["hands"] = [codes(hand) for hand in state.hands]
        full["widow"] = codes(state.widow)
        full["widow_taken"] = state.widow_taken
        full["buried"] = codes(state.buried)
        full["stars_kept"] = [list(result.stars_kept) for result in state.results]
        return full

    def read_snapshot(self, read: SnapshotReader, start: StarsState) -> StarsState:
        bids: list[tuple[Seat, int | None]] = []
        for index, bid in enumerate(read.items("bids")):
            if (not isinstance(bid, list | tuple) or len(bid) != 2 or type(bid[0]) is not int
                    or not (bid[1] is None or type(bid[1]) is int)):
                raise read.error(f"bids[{index}]", f"must be [seat, amount or null], not {bid!r}")
            bids.append((bid[0], bid[1]))
        tricks = []
        for trick in read.children("tricks"):
            tricks.append((trick.plays("plays", DECK, PLAYERS), TrickResult(
                star=trick.flag("star"), white=trick.flag("white"),
                taker=trick.optional_integer("taker"),
                star_pile=trick.optional_integer("star_pile"),
                shared_by=trick.integers("shared_by"), leader=trick.integer("leader"),
                points=trick.integer("points"), paid=trick.integer("paid"))))
        contracts = read.children("contracts")
        changes = read.entries("score_sheet", len(contracts))
        kept = read.entries("stars_kept", len(contracts))
        results = tuple(
            HandResult(hand_number=contract.integer("hand_number"),
                       declarer=contract.integer("declarer"), bid=contract.integer("bid"),
                       points=contract.integers("points", PLAYERS),
                       changes=change.integers(ENTRY, PLAYERS), made=contract.flag("made"),
                       stars_kept=stars.integers(ENTRY, PLAYERS))
            for contract, change, stars in zip(contracts, changes, kept, strict=True))
        return StarsState(
            rules=start.rules,
            phase=read.text("phase", ("deal", "bidding", "bury", "play", "over")),
            hand_number=read.integer("hand_number"),
            dealer=read.integer("dealer"),
            hands=read.card_sets("hands", DECK, PLAYERS),
            widow=read.cards("widow", DECK),
            widow_taken=read.flag("widow_taken"),
            buried=read.cards("buried", DECK),
            turn=read.integer("turn"),
            bids=tuple(bids),
            passed=read.flags("passed", PLAYERS),
            high_bid=read.optional_integer("high_bid"),
            declarer=read.optional_integer("declarer"),
            trick=read.plays("trick", DECK, PLAYERS),
            tricks=tuple(tricks),
            won=read.card_sets("taken", DECK, PLAYERS),
            star_piles=read.card_sets("star_piles", DECK, PLAYERS),
            star_values=read.integers("star_pile_points", PLAYERS),
            shared=read.cards("shared_stars", DECK),
            shared_credit=read.integers("shared_credit", PLAYERS),
            totals=read.integers("totals", PLAYERS),
            results=results,
        )

    def event_view(self, before: StarsState, event: Event, viewer: Viewer) -> Event | None:
        kind = event.type
        seated = viewer is not None and 0 <= viewer < PLAYERS
        if kind == "deal":
            after = self.evolve(before, event)
            data: dict[str, Any] = {"hand_sizes": [h.bit_count() for h in after.hands],
                                    "widow_count": WIDOW_SIZE}
            if seated:
                assert viewer is not None
                data["hand"] = DECK.codes(after.hands[viewer])
            return Event(kind, None, data)
        if kind in ("bid", "bid_passed"):
            after = self.evolve(before, event)
            if after.phase == "bury" and viewer == after.declarer:
                return Event(kind, event.seat, {**event.data, "widow": DECK.codes(after.widow)})
            return event
        if kind == "buried" and viewer != event.seat:
            return Event(kind, event.seat, {"count": BURY_COUNT})
        return event

    def outcome(self, state: StarsState) -> Outcome:
        totals = state.totals
        if state.phase != "over":
            return Outcome(False, totals, None)
        best = max(totals)
        return Outcome(True, totals, tuple(s for s, t in enumerate(totals) if t == best))

    def is_checkpoint(self, state: StarsState) -> bool:
        return state.hand_number > 0 and state.phase in ("deal", "over")

    def tally(self, state: StarsState) -> dict[str, list[int]]:
        counters = {name: [0] * PLAYERS for name in (
            "hands", "contracts bid", "contracts made", "points bid", "stars kept", "hands won")}
        for result in state.results:
            declarer = result.declarer
            counters["contracts bid"][declarer] += 1
            counters["contracts made"][declarer] += result.made
            counters["points bid"][declarer] += result.bid
            best = max(result.points)
            for seat in range(PLAYERS):
                counters["hands"][seat] += 1
                counters["stars kept"][seat] += result.stars_kept[seat]
                counters["hands won"][seat] += result.points[seat] == best
        return counters

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.type == "deal":
            if "order" in data:
                return f"deal {len(data['order'])} cards (deal number {data.get('seed', '-')})"
            return "deal"
        if event.type == "bid":
            return f"seat {event.seat} bids {data['amount']}"
        if event.type == "bid_passed":
            return f"seat {event.seat} passes"
        if event.type == "buried":
            if "cards" in data:
                return f"seat {event.seat} buries {' '.join(data['cards'])}"
            return f"seat {event.seat} buries {data.get('count', BURY_COUNT)} cards"
        if event.type == "played":
            return f"seat {event.seat} plays {data['card']}"
        return super().describe_event(event)


GAME = Stars()
