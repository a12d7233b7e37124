"""Stars and Bars (game id ``stars_and_bars``), a classroom game of geometric attribute cards
on a 4 × 4 board, for two players, as described in docs/games/stars_and_bars.md.

48 cards, one for each shape, colour, size and fill. A turn: claims on what the opponent
forgot, one placement (points for exact differences with the neighbours: 1 under it, 2 along
a row, 3 diagonally, 4 along a column), the placer's own duties (turn over a full centre
stack, clear a face-down centre, remove a full outer stack), then the end of the turn and a
draw. Rounds, the three ways to win and the two ways to tie follow in ``evolve``.

Events: ``shuffled`` (the order), ``claimed``, ``placed``, ``taken_back``, ``turned_over``,
``centre_cleared``, ``removed``, ``turn_ended``, ``passed``, each with its command's seat and
data. The set-up, points, draws, rounds and the result follow from those in ``evolve``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NotRequired, TypedDict, cast

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
from starhall.shared.options import Options
from starhall.shared.shuffle import shuffle_event
from starhall.shared.snapshots import ENTRY, SnapshotReader

# --- cards -------------------------------------------------------------------------------

ATTRIBUTES: Final = ("shape", "colour", "size", "fill")
"""The four attributes, in the order of a card code's letters."""
ATTRIBUTE_VALUES: Final[dict[str, dict[str, str]]] = {
    "shape": {"S": "star", "B": "bar", "C": "circle", "T": "triangle"},
    "colour": {"R": "red", "Y": "yellow", "B": "blue"},
    "size": {"L": "large", "S": "small"},
    "fill": {"F": "solid", "H": "hollow"},
}
"""Each attribute's letters and names, in deck order."""
STAR: Final = "S"


def card_name(code: str) -> str:
    """``SRLF`` → "large solid red star"."""
    shape, colour, size, fill = [ATTRIBUTE_VALUES[name][letter]
                                 for name, letter in zip(ATTRIBUTES, code, strict=True)]
    return f"{size} {fill} {colour} {shape}"


def _make_deck() -> Deck:
    cards = []
    rank = 0
    for shape in ATTRIBUTE_VALUES["shape"]:
        for colour in ATTRIBUTE_VALUES["colour"]:
            for size in ATTRIBUTE_VALUES["size"]:
                for fill in ATTRIBUTE_VALUES["fill"]:
                    code = shape + colour + size + fill
                    cards.append((code, shape, rank, card_name(code)))
                    rank += 1
    return Deck("Stars and Bars", cards)


DECK: Final = _make_deck()
"""48 cards in deck order: shape (S B C T), then colour (R Y B), size (L S), fill (F H)."""
CARDS: Final = len(DECK)


def attributes(code: str) -> dict[str, str]:
    """A card's attributes by name: ``SRLF`` → shape star, colour red, size large, fill
    solid. Refuses a code that is not a card."""
    DECK.card(code)
    return {name: ATTRIBUTE_VALUES[name][letter]
            for name, letter in zip(ATTRIBUTES, code, strict=True)}


def differences(a: str, b: str) -> int:
    """How many of the four attributes differ between two cards (0 to 4)."""
    DECK.card(a)
    DECK.card(b)
    return sum(1 for x, y in zip(a, b, strict=True) if x != y)


DIFF: Final[tuple[int, ...]] = tuple(
    differences(a.code, b.code) for a in DECK.cards for b in DECK.cards)
"""``DIFF[a * 48 + b]``: the differences between cards ``a`` and ``b`` (deck indices)."""
STARRED: Final[CardSet] = DECK.suit_mask[STAR]

# --- the board ---------------------------------------------------------------------------

SIDE: Final = 4
SPACES: Final = SIDE * SIDE
CENTRE: Final = (5, 6, 9, 10)
"""The centre spaces b2, c2, b3, c3; the set-up fills them in this order."""
CENTRE_MASK: Final = sum(1 << space for space in CENTRE)
STACK_FULL: Final = 4
"""A stack of this many cards (or more) is turned over (centre) or removed (outer)."""
HAND_SIZE: Final = 4
PLAYERS: Final = 2
GAME_ID: Final = "stars_and_bars"
WIN_OVER: Final = 200
WIN_MARGIN: Final = 15
WIN_LEAD: Final = 50

EMPTY: Final = -1
"""In a row of tops: an empty space."""
FACE_DOWN: Final = -2
"""In a row of tops: a face-down stack (not a neighbour; nothing may be placed on it)."""
NOBODY: Final = -1

UNDER: Final = "under"
NEIGHBOUR_POINTS: Final = {UNDER: 1, "left": 2, "right": 2, "diagonal": 3, "up": 4, "down": 4}
"""The points a neighbour of each kind gives, which is also the exact number of differences
it takes: a horizontal neighbour touches a short end, a vertical one a long edge."""

CLAIM_POINTS: Final = {"turn_over": 2, "clear": 4, "turn_over_and_clear": 6, "remove": 2}
DUTIES: Final = ("turn_over", "clear_centre", "remove")


def space_name(space: int) -> str:
    """Columns a–d, rows 1–4: space 0 is a1, 5 is b2, 15 is d4."""
    return "abcd"[space % SIDE] + str(space // SIDE + 1)


def is_centre(space: int) -> bool:
    return bool(CENTRE_MASK >> space & 1)


def _neighbours(space: int) -> tuple[tuple[int, str, int], ...]:
    row, column = divmod(space, SIDE)
    found = []
    for d_row, d_column, kind in ((0, -1, "left"), (0, 1, "right"), (-1, 0, "up"),
                                  (1, 0, "down"), (-1, -1, "diagonal"), (-1, 1, "diagonal"),
                                  (1, -1, "diagonal"), (1, 1, "diagonal")):
        r, c = row + d_row, column + d_column
        if 0 <= r < SIDE and 0 <= c < SIDE:
            found.append((r * SIDE + c, kind, NEIGHBOUR_POINTS[kind]))
    return tuple(found)


NEIGHBOURS: Final = tuple(_neighbours(space) for space in range(SPACES))
"""Each space's neighbours: (space, kind, the differences that score = the points)."""

_WHERE: Final = {"left": "to its left", "right": "to its right", "up": "above it",
                 "down": "below it", "diagonal": "diagonal to it"}


def placement_points(tops: Sequence[int], card: int, space: int) -> int:
    """The points for placing ``card`` on ``space``, or -1 when the rules forbid it. ``tops``
    holds each space's face-up top card (deck index), ``EMPTY`` or ``FACE_DOWN``. The fast
    path that legal moves, views and bots use; ``placement_problem`` says why in words."""
    under = tops[space]
    if under == FACE_DOWN:
        return -1
    row = card * CARDS
    centre = CENTRE_MASK >> space & 1
    points = 0
    met = 0
    if under >= 0:
        met = 1
        if DIFF[row + under] == 1:
            points = 1
        elif not centre:
            return -1
    for other, _, wanted in NEIGHBOURS[space]:
        top = tops[other]
        if top < 0:
            continue
        met += 1
        if DIFF[row + top] == wanted:
            points += wanted
        elif not centre:
            return -1
    if not centre and not met:
        return -1
    return points


def scoring(tops: Sequence[int], card: int, space: int) -> list[tuple[str, int, int, int]]:
    """Every face-up card the placement meets, the card under it first: (kind, space,
    differences, points) — points 0 where the differences are not exactly the kind's."""
    found = []
    row = card * CARDS
    if tops[space] >= 0:
        d = DIFF[row + tops[space]]
        found.append((UNDER, space, d, 1 if d == 1 else 0))
    for other, kind, wanted in NEIGHBOURS[space]:
        if tops[other] >= 0:
            d = DIFF[row + tops[other]]
            found.append((kind, other, d, wanted if d == wanted else 0))
    return found


def placement_problem(tops: Sequence[int], card: int, space: int) -> str | None:
    """Why placing ``card`` on ``space`` is against the rules, or ``None`` when it is not."""
    name = space_name(space)
    if tops[space] == FACE_DOWN:
        return f"the stack on {name} is face down: nothing can be placed on it"
    if is_centre(space):
        return None
    met = scoring(tops, card, space)
    if not met:
        return (f"an outer card needs a neighbour or a stack under it: {name} has neither "
                "(only face-up cards count)")
    for kind, other, d, points in met:
        if points:
            continue
        wanted = NEIGHBOUR_POINTS[kind]
        where = "the card under it" if kind == UNDER else (
            f"the card {_WHERE[kind]} on {space_name(other)}")
        return (f"an outer card must score with every neighbour: {where} differs by {d}, "
                f"not {wanted}")
    return None


# --- state -------------------------------------------------------------------------------

Duty = tuple[str, int]
"""A duty or a claim as (kind, space); the space is -1 for a duty or claim without one."""


@dataclass(frozen=True, slots=True)
class Placement:
    card: int
    space: int
    points: int
    scoring: tuple[tuple[str, int, int, int], ...]
    previous_owner: int
    """Who owed the stack before this card (restored by a take-back)."""


@dataclass(frozen=True, slots=True)
class Turn:
    seat: Seat
    claims: tuple[tuple[str, int, int], ...]
    """(kind, space or -1, points), in order."""
    placed: Placement | None
    duties: tuple[Duty, ...]
    points: int
    passed: bool
    forgotten: tuple[Duty, ...]
    """Duties the player left undone when the turn ended."""
    drew: int
    """The card drawn at the end of the turn, or ``EMPTY``."""
    touched: bool
    """A card was placed this turn (and perhaps taken back): claims are over."""


def _fresh_turn(seat: Seat) -> Turn:
    return Turn(seat, (), None, (), 0, False, (), EMPTY, False)


@dataclass(frozen=True, slots=True)
class Result:
    winners: tuple[Seat, ...]
    """Both seats for a tie."""
    kind: str
    """``over_200``, ``lead_50``, ``end``, ``tie_over_200`` or ``tie_end``."""
    reason: str


@dataclass(frozen=True, slots=True)
class Tally:
    claims: tuple[int, int]
    claim_points: tuple[int, int]
    forgotten: tuple[int, int]
    passes: tuple[int, int]
    take_backs: tuple[int, int]


def _bump(pair: tuple[int, int], seat: Seat, by: int = 1) -> tuple[int, int]:
    return (pair[0] + by, pair[1]) if seat == 0 else (pair[0], pair[1] + by)


@dataclass(frozen=True, slots=True)
class BarsState:
    phase: str
    """``deal`` (waiting for the shuffle), ``play`` or ``over``."""
    round: int
    """The round being played (the last one once the game is over); the first is 1."""
    starter: Seat
    stacks: tuple[tuple[int, ...], ...]
    """Each space's stack, bottom card first."""
    face_down: int
    """Bit ``space`` set for each face-down stack (only centre stacks turn over)."""
    owners: tuple[int, ...]
    """Per space: the seat that left a full stack there (the one that placed on it when it
    had four cards or more), or ``NOBODY``. Only that seat's opponent may claim it."""
    clear_owner: int
    """The seat that turned over the last centre stack and owes the clearing, or ``NOBODY``."""
    hands: tuple[CardSet, CardSet]
    deck: tuple[int, ...]
    """The cards still to draw, the next first."""
    discards: CardSet
    scores: tuple[int, int]
    turn: Turn | None
    last_turn: Turn | None
    result: Result | None
    round_ended: bool
    """The last event ended a round, the second player's turn (a checkpoint). A game that
    ends in the beginning player's turn ends with its last round unfinished."""
    tally: Tally


class TurnPlaying:
    """A ``Turn`` being played, changed in place (``BarsPlayout``)."""

    __slots__ = ("seat", "claims", "placed", "duties", "points", "passed", "forgotten", "drew",
                 "touched")

    def __init__(self, turn: Turn) -> None:
        self.seat: Seat = turn.seat
        self.claims: tuple[tuple[str, int, int], ...] = turn.claims
        self.placed: Placement | None = turn.placed
        self.duties: tuple[Duty, ...] = turn.duties
        self.points: int = turn.points
        self.passed: bool = turn.passed
        self.forgotten: tuple[Duty, ...] = turn.forgotten
        self.drew: int = turn.drew
        self.touched: bool = turn.touched

    def frozen(self) -> Turn:
        return Turn(self.seat, self.claims, self.placed, self.duties, self.points, self.passed,
                    self.forgotten, self.drew, self.touched)


_FRESH_TURNS: Final = (_fresh_turn(0), _fresh_turn(1))


class BarsPlayout:
    """A ``BarsState`` being played: its fields changed in place as each event is applied
    (``apply``, or the steps it is made of: ``place``, ``take_back``, ``claim``, ``duty``,
    ``end_turn``, ``pass_turn``), the one place the rules fold an event. ``evolve`` copies
    its state into one, applies the event and freezes the result (``frozen``); the strong
    bot's playouts make every move of a playout on one, with no new state each time."""

    __slots__ = ("phase", "round", "starter", "stacks", "face_down", "owners", "clear_owner",
                 "hands", "deck", "discards", "scores", "turn", "last_turn", "result",
                 "round_ended", "claims", "claim_points", "forgotten", "passes", "take_backs",
                 "tops")

    def __init__(self, state: BarsState) -> None:
        self.phase: str = state.phase
        self.round: int = state.round
        self.starter: Seat = state.starter
        self.stacks: list[tuple[int, ...]] = list(state.stacks)
        self.face_down: int = state.face_down
        self.owners: list[int] = list(state.owners)
        self.clear_owner: int = state.clear_owner
        self.hands: list[CardSet] = list(state.hands)
        self.deck: tuple[int, ...] = state.deck
        self.discards: CardSet = state.discards
        self.scores: tuple[int, int] = state.scores
        self.turn: TurnPlaying | None = None if state.turn is None else TurnPlaying(state.turn)
        self.last_turn: Turn | TurnPlaying | None = state.last_turn
        """A turn once ended is not changed: it is frozen with the state (``frozen``)."""
        self.result: Result | None = state.result
        self.round_ended: bool = state.round_ended
        tally = state.tally
        self.claims: tuple[int, int] = tally.claims
        self.claim_points: tuple[int, int] = tally.claim_points
        self.forgotten: tuple[int, int] = tally.forgotten
        self.passes: tuple[int, int] = tally.passes
        self.take_backs: tuple[int, int] = tally.take_backs
        self.tops: list[int] = list(tops_of(state))
        """``tops_of`` the stacks, kept as they change (the playouts read it at every
        placement)."""

    def frozen(self) -> BarsState:
        return BarsState(
            self.phase, self.round, self.starter, tuple(self.stacks), self.face_down,
            tuple(self.owners), self.clear_owner, (self.hands[0], self.hands[1]), self.deck,
            self.discards, self.scores, None if self.turn is None else self.turn.frozen(),
            self.last_turn.frozen() if isinstance(self.last_turn, TurnPlaying)
            else self.last_turn, self.result, self.round_ended,
            Tally(self.claims, self.claim_points, self.forgotten, self.passes,
                  self.take_backs))

    def _playing(self) -> TurnPlaying:
        turn = self.turn
        assert turn is not None
        self.round_ended = False  # set by a round's last turn, until the next event
        return turn

    def apply(self, event: Event) -> None:
        """Fold one event into the state; ``decide`` has checked it."""
        kind = event.type
        data = event.data
        if kind == "shuffled":
            self.set_up([DECK.index_of[code] for code in data["order"]])
        elif kind == "placed":
            self.place(DECK.index_of[data["card"]], data["space"])
        elif kind == "taken_back":
            self.take_back()
        elif kind == "claimed":
            self.claim(data["kind"], data.get("space", EMPTY))
        elif kind in _DUTY_OF_EVENT:
            self.duty(_DUTY_OF_EVENT[kind], data.get("space", EMPTY))
        elif kind == "turn_ended":
            self.end_turn()
        elif kind == "passed":
            self.pass_turn()
        else:
            raise ValueError(f"stars_and_bars has no event {kind!r}")

    def set_up(self, cards: list[int]) -> None:
        """Players alternate drawing, seat 0 first: four cards to the centre, then to hands of
        four; the first to draw a starred card begins (seat 0 when nobody does)."""
        stacks: list[tuple[int, ...]] = [()] * SPACES
        hands = [0, 0]
        starter = NOBODY
        for draw, card in enumerate(cards[:len(CENTRE) + PLAYERS * HAND_SIZE]):
            seat = draw % PLAYERS
            if starter == NOBODY and STARRED >> card & 1:
                starter = seat
            if draw < len(CENTRE):
                stacks[CENTRE[draw]] = (card,)
            else:
                hands[seat] |= 1 << card
        starter = 0 if starter == NOBODY else starter
        self.phase, self.round, self.starter = "play", 1, starter
        self.stacks, self.hands = stacks, hands
        self.tops = [stack[-1] if stack else EMPTY for stack in stacks]
        self.deck = tuple(cards[len(CENTRE) + PLAYERS * HAND_SIZE:])
        self.turn = TurnPlaying(_FRESH_TURNS[starter])

    def place(self, card: int, space: int) -> None:
        turn = self._playing()
        seat = turn.seat
        tops = self.tops
        met = tuple(scoring(tops, card, space))
        points = sum(p for _, _, _, p in met)
        stack = (*self.stacks[space], card)
        self.stacks[space] = stack
        tops[space] = card
        turn.placed = Placement(card, space, points, met, self.owners[space])
        if len(stack) >= STACK_FULL:
            self.owners[space] = seat
        self.hands[seat] &= ~(1 << card)
        self.scores = _bump(self.scores, seat, points)
        turn.points += points
        turn.touched = True

    def take_back(self) -> None:
        turn = self._playing()
        seat = turn.seat
        placed = turn.placed
        assert placed is not None
        stack = self.stacks[placed.space][:-1]
        self.stacks[placed.space] = stack
        self.tops[placed.space] = stack[-1] if stack else EMPTY
        self.owners[placed.space] = placed.previous_owner
        self.hands[seat] |= 1 << placed.card
        self.scores = _bump(self.scores, seat, -placed.points)
        turn.placed = None
        turn.points -= placed.points
        self.take_backs = _bump(self.take_backs, seat)

    def claim(self, kind: str, space: int) -> None:
        turn = self._playing()
        seat = turn.seat
        points = CLAIM_POINTS[kind]
        if kind == "turn_over":
            self.face_down |= 1 << space
            self.owners[space] = NOBODY
            self.tops[space] = FACE_DOWN
        elif kind == "remove":
            self._discard((space,))
        else:
            self._discard(CENTRE)
        self.claims = _bump(self.claims, seat)
        self.claim_points = _bump(self.claim_points, seat, points)
        self.scores = _bump(self.scores, seat, points)
        turn.claims = (*turn.claims, (kind, space, points))
        turn.points += points

    def duty(self, kind: str, space: int) -> None:
        """A duty done: ``turn_over``, ``remove`` (on ``space``) or ``clear_centre``."""
        turn = self._playing()
        if kind == "turn_over":
            self.face_down |= 1 << space
            self.owners[space] = NOBODY
            self.tops[space] = FACE_DOWN
            if centre_face_down(self):
                self.clear_owner = turn.seat
        elif kind == "remove":
            self._discard((space,))
        else:
            self._discard(CENTRE)
        turn.duties = (*turn.duties, (kind, EMPTY if kind == "clear_centre" else space))

    def end_turn(self) -> None:
        turn = self._playing()
        seat = turn.seat
        turn.forgotten = tuple(owed_duties(self))
        if self.deck:
            turn.drew = self.deck[0]
            self.hands[seat] |= 1 << turn.drew
            self.deck = self.deck[1:]
        else:
            turn.drew = EMPTY
        self.forgotten = _bump(self.forgotten, seat, len(turn.forgotten))
        self._close_turn(turn)

    def pass_turn(self) -> None:
        turn = self._playing()
        self.passes = _bump(self.passes, turn.seat)
        turn.passed = True
        self._close_turn(turn)

    def _close_turn(self, playing: TurnPlaying) -> None:
        """Close a turn: the round's end and its checks, the game's end, or the next turn."""
        turn = playing
        seat = turn.seat
        round_over = seat != self.starter
        result = round_result(self.scores) if round_over else None
        ended = not self.hands[0] and not self.hands[1]
        both_passed = turn.passed and self.last_turn is not None and self.last_turn.passed
        if result is None and (ended or both_passed):
            result = end_result(self.scores)
        self.last_turn, self.round_ended = turn, round_over
        if result is not None:
            self.phase, self.turn, self.result = "over", None, result
            return
        if round_over:
            self.round += 1
        self.turn = TurnPlaying(_FRESH_TURNS[1 - seat])

    def _discard(self, spaces: tuple[int, ...]) -> None:
        """The stacks on ``spaces`` go to the discards; ``spaces`` being the centre clears
        it."""
        for space in spaces:
            for card in self.stacks[space]:
                self.discards |= 1 << card
            self.stacks[space] = ()
            self.tops[space] = EMPTY
            self.owners[space] = NOBODY
            self.face_down &= ~(1 << space)
        if spaces == CENTRE:
            self.clear_owner = NOBODY


Position = BarsState | BarsPlayout
"""A state, frozen or being played out: what the rules' questions below read."""


def tops_of(state: Position) -> tuple[int, ...]:
    """Each space's face-up top card, ``EMPTY`` or ``FACE_DOWN``."""
    if isinstance(state, BarsPlayout):
        return tuple(state.tops)
    down = state.face_down
    return tuple(FACE_DOWN if down >> space & 1 else (stack[-1] if stack else EMPTY)
                 for space, stack in enumerate(state.stacks))


def centre_face_down(state: Position) -> bool:
    return state.face_down & CENTRE_MASK == CENTRE_MASK


def available_claims(state: BarsState) -> list[tuple[str, int, int]]:
    """The claims the player to act may make now: (kind, space or -1, points)."""
    turn = state.turn
    if state.phase != "play" or turn is None or turn.touched or turn.passed:
        return []
    other = 1 - turn.seat
    claims = []
    down = state.face_down
    centre_down = [space for space in CENTRE if down >> space & 1]
    if len(centre_down) == len(CENTRE) and state.clear_owner == other:
        claims.append(("clear", EMPTY, CLAIM_POINTS["clear"]))
    for space in range(SPACES):  # a face-down stack has no owner: its duty is done
        if state.owners[space] != other or len(state.stacks[space]) < STACK_FULL:
            continue
        if not is_centre(space):
            claims.append(("remove", space, CLAIM_POINTS["remove"]))
        elif len(centre_down) == len(CENTRE) - 1:
            claims.append(("turn_over_and_clear", space, CLAIM_POINTS["turn_over_and_clear"]))
        else:
            claims.append(("turn_over", space, CLAIM_POINTS["turn_over"]))
    return claims


def owed_duties(state: Position) -> list[Duty]:
    """What the player to act still owes for the card placed this turn."""
    turn = state.turn
    if state.phase != "play" or turn is None or turn.placed is None:
        return []
    space = turn.placed.space
    height = len(state.stacks[space])
    if not is_centre(space):
        return [("remove", space)] if height >= STACK_FULL else []
    if not state.face_down >> space & 1:
        return [("turn_over", space)] if height >= STACK_FULL else []
    if centre_face_down(state) and state.clear_owner == turn.seat:
        return [("clear_centre", EMPTY)]
    return []


def legal_placements(state: Position, seat: Seat) -> list[tuple[int, int, int]]:
    """(card, space, points) for every placement ``seat`` may make now, cards in deck order."""
    turn = state.turn
    if state.phase != "play" or turn is None or turn.seat != seat or turn.placed is not None \
            or turn.passed:
        return []
    tops = tops_of(state)
    found = []
    for card in bits(state.hands[seat]):
        for space in range(SPACES):
            points = placement_points(tops, card, space)
            if points >= 0:
                found.append((card, space, points))
    return found


def rounds_played(state: BarsState) -> int:
    """The rounds both players have taken their turn in: those before the one being played,
    or at the game's end all of them but an unfinished last one."""
    if state.phase == "over" and state.round_ended:
        return state.round
    return max(state.round - 1, 0)


def round_result(scores: tuple[int, int]) -> Result | None:
    """The result at the end of a round, if the game is decided there."""
    high, low = max(scores), min(scores)
    lead = high - low
    leader = scores.index(high)
    if high > WIN_OVER and lead >= WIN_MARGIN:
        return Result((leader,), "over_200", f"seat {leader} has over {WIN_OVER} points and "
                      f"is ahead by {lead} (at least {WIN_MARGIN})")
    if lead > WIN_LEAD:
        return Result((leader,), "lead_50", f"seat {leader} is ahead by {lead} "
                      f"(over {WIN_LEAD}) at the end of a round")
    if low > WIN_OVER:
        return Result((0, 1), "tie_over_200", f"both have over {WIN_OVER} points, "
                      f"{lead} apart (less than {WIN_MARGIN}): a tie")
    return None


def end_result(scores: tuple[int, int]) -> Result:
    """The result when no more cards can be placed."""
    high, low = max(scores), min(scores)
    lead = high - low
    leader = scores.index(high)
    if lead >= WIN_MARGIN:
        return Result((leader,), "end", f"the game is over and seat {leader} is ahead by "
                      f"{lead} (at least {WIN_MARGIN})")
    return Result((0, 1), "tie_end", f"the game is over with the scores {lead} apart "
                  f"(less than {WIN_MARGIN}): a tie")


_PHASES: Final = {**CARD_GAME_PHASES, "deal": "the cards are not shuffled yet"}
_COMMANDS: Final = ("claim", "place", "take_back", "turn_over", "clear_centre", "remove",
                    "end_turn", "pass")
_DUTY_EVENTS: Final = {"turn_over": "turned_over", "clear_centre": "centre_cleared",
                       "remove": "removed"}
_DUTY_OF_EVENT: Final = {event: duty for duty, event in _DUTY_EVENTS.items()}
_PAIR0: Final = (0, 0)


def _space_of(data: Any) -> int:
    space = data.get("space")
    if type(space) is not int or not 0 <= space < SPACES:
        raise IllegalCommand("bad_space", f"{space!r} is not a space of the board "
                                          f"(0 to {SPACES - 1}, a1 to d4)")
    return space


def _duty_text(kind: str, space: int) -> str:
    if kind == "turn_over":
        return f"turn over the stack on {space_name(space)}"
    if kind == "remove":
        return f"remove the stack on {space_name(space)}"
    return "clear the centre"


class BarsDuty(TypedDict):
    """A duty the turn owes (``space``: the stack's, when the duty has one)."""

    kind: str
    space: NotRequired[int]


class BarsClaim(BarsDuty):
    points: int


BarsScoring = TypedDict("BarsScoring", {
    "with": str, "space": int, "differences": int, "points": int})
"""What a placed card scored with one neighbour."""


class BarsPlaced(TypedDict):
    card: str
    space: int
    points: int
    scoring: list[BarsScoring]


class BarsTurn(TypedDict):
    """The turn under way."""

    seat: int
    claims: list[BarsClaim]
    placed: BarsPlaced | None
    duties: list[BarsDuty]
    points: int
    passed: bool
    touched: bool


class BarsLastTurn(BarsTurn):
    """The last turn, with what it forgot and drew."""

    forgotten: list[BarsDuty]
    drew: str | None


class BarsSpace(TypedDict):
    """One space of the board."""

    height: int
    top: str | None
    face_down: bool
    cards: list[str]
    owner: int | None


class BarsResult(TypedDict):
    winners: list[int]
    reason: str
    kind: str


class StarsAndBarsPublic(TypedDict):
    """What every view of Stars and Bars and the snapshot share (``StarsAndBars._public``)."""

    game: Literal["stars_and_bars"]
    players: int
    phase: str
    """``deal``, ``play`` or ``over``."""
    round: int
    to_act: list[int]
    starter: int
    board: list[BarsSpace]
    centre: list[int]
    hands: list[list[str]]
    """Both hands: they are played open."""
    deck: int
    discards: int
    scores: list[int]
    turn: BarsTurn | None
    owed: list[BarsDuty]
    last_turn: BarsLastTurn | None
    clear_owner: int | None
    result: BarsResult | None


StarsAndBarsLegal = TypedDict("StarsAndBarsLegal", {
    "placements": dict[str, list[list[int]]], "claims": list[BarsClaim],
    "duties": list[BarsDuty], "take_back": bool, "end_turn": bool, "pass": bool}, total=False)
"""What the seat may do now (``{}``: nothing; ``placements``: each card's ``[space,
points]``)."""


class StarsAndBarsView(StarsAndBarsPublic):
    """``view``: what a seat or a spectator sees of a game of Stars and Bars. The engine
    builds it (``StarsAndBars.typed_view``), and the bots and the client read it through
    ``stars_and_bars_view``, so that a misspelt key is a type error."""

    rounds: int
    seat: int | None
    legal: StarsAndBarsLegal


def stars_and_bars_view(view: Mapping[str, Any]) -> StarsAndBarsView:
    """A view of Stars and Bars (the engine's, or one the server sent: msgpack gives a plain
    map) read with its keys typed."""
    return cast(StarsAndBarsView, view)


class StarsAndBars(Game[BarsState]):
    id = GAME_ID
    title = "Stars and Bars"
    rules_version = 1
    min_players = PLAYERS
    max_players = PLAYERS
    event_commands = {"shuffled": "shuffle", "claimed": "claim", "placed": "place",
                      "taken_back": "take_back", "turned_over": "turn_over",
                      "centre_cleared": "clear_centre", "removed": "remove",
                      "turn_ended": "end_turn", "passed": "pass"}

    def new_state(self, players: int, options: Options) -> BarsState:
        if players != PLAYERS:
            raise OptionError(f"stars_and_bars is for exactly {PLAYERS} players, not {players}")
        return BarsState(
            phase="deal", round=0, starter=0, stacks=((),) * SPACES, face_down=0,
            owners=(NOBODY,) * SPACES, clear_owner=NOBODY, hands=_PAIR0, deck=(), discards=0,
            scores=_PAIR0, turn=None, last_turn=None, result=None, round_ended=False,
            tally=Tally(_PAIR0, _PAIR0, _PAIR0, _PAIR0, _PAIR0),
        )

    # --- who may do what ---------------------------------------------------------------

    def chance(self, state: BarsState) -> ChanceRequest | None:
        return ChanceRequest(DECK.code_of) if state.phase == "deal" else None

    def to_act(self, state: BarsState) -> tuple[Seat, ...]:
        if state.phase == "play" and state.turn is not None:
            return (state.turn.seat,)
        return ()

    def legal_actions(self, state: BarsState, seat: Seat) -> list[Command]:
        turn = state.turn
        if state.phase != "play" or turn is None or turn.seat != seat:
            return []
        if turn.placed is None:
            actions = [Command("claim", seat, _claim_data(kind, space))
                       for kind, space, _ in available_claims(state)]
            placements = [Command("place", seat, {"card": DECK.code_of[card], "space": space})
                          for card, space, _ in legal_placements(state, seat)]
            actions += placements
            if not placements:
                actions.append(Command("pass", seat, {}))
            return actions
        actions = [Command(kind, seat, {} if space < 0 else {"space": space})
                   for kind, space in owed_duties(state)]
        if not turn.duties:
            actions.append(Command("take_back", seat, {}))
        actions.append(Command("end_turn", seat, {}))
        return actions

    # --- decide ------------------------------------------------------------------------

    def decide(self, state: BarsState, command: Command) -> list[Event]:
        kind = command.type
        if kind == "shuffle":
            return [shuffle_event(self.chance(state), command, "shuffled")]
        if kind not in _COMMANDS:
            raise IllegalCommand("unknown_command", f"stars_and_bars has no command {kind!r}")
        seat = seat_of(command, PLAYERS)
        turn = state.turn
        require(state.phase == "play" and turn is not None, "wrong_phase",
                f"no {kind.replace('_', ' ')} now: {_PHASES[state.phase]}")
        assert turn is not None
        require(seat == turn.seat, "not_your_turn", f"it is seat {turn.seat}'s turn")
        data = command.data
        if kind == "claim":
            return [Event("claimed", seat, self._decide_claim(state, turn, data))]
        if kind == "place":
            return [Event("placed", seat, self._decide_place(state, turn, data))]
        if kind == "pass":
            require(turn.placed is None, "already_placed",
                    "you placed a card this turn: end your turn instead of passing")
            placements = legal_placements(state, seat)
            if placements:
                card, space, _ = placements[0]
                raise IllegalCommand("can_place", f"you can place a card (for example "
                                     f"the {DECK.cards[card].name} on {space_name(space)}), "
                                     "and a player who can place must")
            return [Event("passed", seat, {})]
        require(turn.placed is not None, "not_placed",
                "place a card first (or pass, if you cannot place any)" if kind == "end_turn"
                else ("you have not placed a card this turn" if kind == "take_back"
                      else "duties come after you place a card"))
        if kind == "end_turn":
            return [Event("turn_ended", seat, {})]
        if kind == "take_back":
            if turn.duties:
                done = _duty_text(*turn.duties[0])
                raise IllegalCommand("duty_done", f"you already did a duty this turn ({done}): "
                                     "the card can no longer be taken back")
            return [Event("taken_back", seat, {})]
        return [Event(_DUTY_EVENTS[kind], seat, self._decide_duty(state, kind, data))]

    @staticmethod
    def _decide_claim(state: BarsState, turn: Turn, data: Any) -> dict[str, Any]:
        require(not turn.touched, "claim_too_late", "claims come before you place a card")
        kind = data.get("kind")
        if kind not in CLAIM_POINTS:
            raise IllegalCommand("bad_claim", f"a claim is turn_over, clear, "
                                 f"turn_over_and_clear or remove, not {kind!r}")
        other = 1 - turn.seat
        if kind == "clear":
            face_up = [space_name(s) for s in CENTRE if not state.face_down >> s & 1]
            require(not face_up, "not_claimable", "the centre can be claimed only when all "
                    f"four stacks are face down; {', '.join(face_up)} "
                    f"{'is' if len(face_up) == 1 else 'are'} not")
            require(state.clear_owner == other, "own_forgetting", "you turned over the last "
                    "centre stack yourself: only your opponent may claim the clearing")
            return {"kind": kind}
        space = _space_of(data)
        name = space_name(space)
        stack = state.stacks[space]
        centre = is_centre(space)
        if kind == "remove":
            require(not centre, "wrong_claim", f"{name} is a centre space: a full centre "
                    "stack is turned over (turn_over), not removed")
        else:
            require(centre, "wrong_claim", f"{name} is an outer space: a full outer stack "
                    "is removed (remove), not turned over")
            require(not state.face_down >> space & 1, "not_claimable",
                    f"the stack on {name} is already face down")
        require(len(stack) >= STACK_FULL, "not_claimable", f"the stack on {name} has "
                f"{len(stack)} card{'' if len(stack) == 1 else 's'}: only a stack of "
                f"{STACK_FULL} or more can be claimed")
        require(state.owners[space] == other, "own_forgetting", f"you left the stack on "
                f"{name} yourself: only your opponent may claim it")
        if centre:
            others_down = sum(1 for s in CENTRE if s != space and state.face_down >> s & 1)
            last = others_down == len(CENTRE) - 1
            require(kind != "turn_over" or not last, "wrong_claim", "turning over the last "
                    "face-up centre stack clears the centre too: claim turn_over_and_clear "
                    f"({CLAIM_POINTS['turn_over_and_clear']} points)")
            up = len(CENTRE) - 1 - others_down
            require(kind != "turn_over_and_clear" or last, "wrong_claim", "turn_over_and_clear "
                    f"is for the last face-up centre stack; {up} other centre "
                    f"{'stack is' if up == 1 else 'stacks are'} still face up (claim turn_over)")
        return {"kind": kind, "space": space}

    @staticmethod
    def _decide_place(state: BarsState, turn: Turn, data: Any) -> dict[str, Any]:
        require(turn.placed is None, "already_placed",
                "you already placed a card this turn: take it back first")
        card = held_card(DECK, data.get("card"), state.hands[turn.seat], turn.seat)
        space = _space_of(data)
        problem = placement_problem(tops_of(state), card, space)
        if problem is not None:
            raise IllegalCommand("illegal_placement", problem)
        return {"card": DECK.code_of[card], "space": space}

    @staticmethod
    def _decide_duty(state: BarsState, kind: str, data: Any) -> dict[str, Any]:
        owed = owed_duties(state)
        space = EMPTY if kind == "clear_centre" else _space_of(data)
        if (kind, space) in owed:
            return {} if space < 0 else {"space": space}
        if not owed:
            raise IllegalCommand("no_duty", "you owe no duty for the card you placed this "
                                 "turn (a stack you did not complete is not yours to turn "
                                 "over, clear or remove)")
        raise IllegalCommand("no_duty", f"that is not your duty now: {_duty_text(*owed[0])}")

    # --- evolve ------------------------------------------------------------------------

    def evolve(self, state: BarsState, event: Event) -> BarsState:
        playing = BarsPlayout(state)
        playing.apply(event)
        return playing.frozen()

    # --- views -------------------------------------------------------------------------

    @staticmethod
    def _turn_view(turn: Turn | None) -> BarsTurn | None:
        """A turn as views show it."""
        if turn is None:
            return None
        code_of = DECK.code_of
        placed = turn.placed
        shown: BarsTurn = {
            "seat": turn.seat,
            "claims": [_claim_view(kind, space, points) for kind, space, points in turn.claims],
            "placed": None if placed is None else {
                "card": code_of[placed.card], "space": placed.space, "points": placed.points,
                "scoring": [{"with": kind, "space": space, "differences": d, "points": p}
                            for kind, space, d, p in placed.scoring]},
            "duties": [_duty_view(kind, space) for kind, space in turn.duties],
            "points": turn.points,
            "passed": turn.passed,
            "touched": turn.touched,
        }
        return shown

    def _last_turn_view(self, turn: Turn | None) -> BarsLastTurn | None:
        shown = self._turn_view(turn)
        if shown is None or turn is None:
            return None
        return {**shown, "forgotten": [_duty_view(kind, space) for kind, space in turn.forgotten],
                "drew": None if turn.drew == EMPTY else DECK.code_of[turn.drew]}

    def _kept_turn(self, turn: Turn | None, done: bool) -> dict[str, Any] | None:
        """A turn as snapshots keep it: the view's, with what a take-back restores."""
        shown = self._last_turn_view(turn) if done else self._turn_view(turn)
        if shown is None or turn is None or turn.placed is None or shown["placed"] is None:
            return None if shown is None else dict(shown)
        kept: dict[str, Any] = dict(shown)
        kept["placed"] = {**shown["placed"], "previous_owner": turn.placed.previous_owner}
        return kept

    def _public(self, state: BarsState) -> StarsAndBarsPublic:
        code_of = DECK.code_of
        down = state.face_down
        board: list[BarsSpace] = []
        for space, stack in enumerate(state.stacks):
            face_down = bool(down >> space & 1)
            board.append({
                "height": len(stack),
                "top": None if face_down or not stack else code_of[stack[-1]],
                "face_down": face_down,
                "cards": [] if face_down else [code_of[card] for card in stack],
                "owner": None if state.owners[space] == NOBODY else state.owners[space],
            })
        turn = state.turn
        result = state.result
        return {
            "game": GAME_ID,
            "players": PLAYERS,
            "phase": state.phase,
            "round": state.round,
            "to_act": list(self.to_act(state)),
            "starter": state.starter,
            "board": board,
            "centre": list(CENTRE),
            "hands": [DECK.codes(hand) for hand in state.hands],
            "deck": len(state.deck),
            "discards": state.discards.bit_count(),
            "scores": list(state.scores),
            "turn": self._turn_view(turn),
            "owed": [] if turn is None else [_duty_view(k, s) for k, s in owed_duties(state)],
            "last_turn": self._last_turn_view(state.last_turn),
            "clear_owner": None if state.clear_owner == NOBODY else state.clear_owner,
            "result": None if result is None else {
                "winners": list(result.winners), "reason": result.reason, "kind": result.kind},
        }

    def _legal_view(self, state: BarsState, seat: Seat) -> StarsAndBarsLegal:
        turn = state.turn
        if state.phase != "play" or turn is None or turn.seat != seat:
            return {}
        placements: dict[str, list[list[int]]] = {}
        for card, space, points in legal_placements(state, seat):
            placements.setdefault(DECK.code_of[card], []).append([space, points])
        placed = turn.placed is not None
        return {
            "placements": placements,
            "claims": [_claim_view(kind, space, points)
                       for kind, space, points in available_claims(state)],
            "duties": [_duty_view(kind, space) for kind, space in owed_duties(state)],
            "take_back": placed and not turn.duties,
            "end_turn": placed,
            "pass": not placed and not placements,
        }

    def view(self, state: BarsState, viewer: Viewer) -> dict[str, Any]:
        # The same dict, not a copy: a TypedDict is a plain dict at run time.
        return cast(dict[str, Any], self.typed_view(state, viewer))

    def typed_view(self, state: BarsState, viewer: Viewer) -> StarsAndBarsView:
        # The public part, made a view in place (no copy) by the three keys set below.
        view = cast(StarsAndBarsView, self._public(state))
        view["rounds"] = rounds_played(state)  # follows from the snapshot: not in it
        view["seat"] = viewer
        seated = viewer is not None and 0 <= viewer < PLAYERS
        view["legal"] = self._legal_view(state, viewer) if seated and viewer is not None else {}
        return view

    def snapshot(self, state: BarsState) -> dict[str, Any]:
        code_of = DECK.code_of
        full: dict[str, Any] = dict(self._public(state))
        full["stacks"] = [[code_of[card] for card in stack] for stack in state.stacks]
        full["face_down"] = [bool(state.face_down >> space & 1) for space in range(SPACES)]
        full["owners"] = list(state.owners)
        full["deck_order"] = [code_of[card] for card in state.deck]
        full["discard_pile"] = DECK.codes(state.discards)
        full["round_ended"] = state.round_ended
        full["tally"] = self.tally(state)
        full["turn"] = self._kept_turn(state.turn, False)
        full["last_turn"] = self._kept_turn(state.last_turn, True)
        return full

    def read_snapshot(self, read: SnapshotReader, start: BarsState) -> BarsState:
        face_down = 0
        for space, down in enumerate(read.flags("face_down", SPACES)):
            face_down |= down << space
        clear_owner = read.optional_integer("clear_owner")
        result = read.optional_child("result")
        tally = read.child("tally")
        return BarsState(
            phase=read.text("phase", ("deal", "play", "over")),
            round=read.integer("round"),
            starter=read.integer("starter"),
            stacks=tuple(entry.card_order(ENTRY, DECK)
                         for entry in read.entries("stacks", SPACES)),
            face_down=face_down,
            owners=read.integers("owners", SPACES),
            clear_owner=NOBODY if clear_owner is None else clear_owner,
            hands=_pair(read.card_sets("hands", DECK, PLAYERS)),
            deck=read.card_order("deck_order", DECK),
            discards=read.cards("discard_pile", DECK),
            scores=_pair(read.integers("scores", PLAYERS)),
            turn=_read_turn(read.optional_child("turn")),
            last_turn=_read_turn(read.optional_child("last_turn")),
            result=None if result is None else Result(
                winners=result.integers("winners"), kind=result.text("kind"),
                reason=result.text("reason")),
            round_ended=read.flag("round_ended"),
            tally=Tally(
                claims=_pair(tally.integers("claims made", PLAYERS)),
                claim_points=_pair(tally.integers("claim points", PLAYERS)),
                forgotten=_pair(tally.integers("duties forgotten", PLAYERS)),
                passes=_pair(tally.integers("passes", PLAYERS)),
                take_backs=_pair(tally.integers("take backs", PLAYERS))),
        )

    def event_view(self, before: BarsState, event: Event, viewer: Viewer) -> Event | None:
        kind = event.type
        if kind == "shuffled":
            after = self.evolve(before, event)
            code_of = DECK.code_of
            return Event(kind, None, {
                "centre": [code_of[after.stacks[space][0]] for space in CENTRE],
                "hands": [DECK.codes(hand) for hand in after.hands],
                "draws": event.data["order"][:len(CENTRE) + PLAYERS * HAND_SIZE],
                "starter": after.starter,
                "deck": len(after.deck),
            })
        after = self.evolve(before, event)
        data = dict(event.data)
        if kind == "placed" and after.turn is not None and after.turn.placed is not None:
            placed = after.turn.placed
            data["points"] = placed.points
            data["scoring"] = [{"with": k, "space": s, "differences": d, "points": p}
                               for k, s, d, p in placed.scoring]
        elif kind == "claimed":
            data["points"] = CLAIM_POINTS[data["kind"]]
        elif kind == "taken_back":
            undone = before.turn.placed if before.turn is not None else None
            if undone is not None:
                data["card"] = DECK.code_of[undone.card]
                data["space"] = undone.space
                data["points"] = undone.points
        elif kind in ("turn_ended", "passed"):
            last = after.last_turn
            assert last is not None
            data["points"] = last.points
            data["forgotten"] = [_duty_view(k, s) for k, s in last.forgotten]
            data["drew"] = None if last.drew == EMPTY else DECK.code_of[last.drew]
            data["round_ended"] = after.round_ended
            data["result"] = None if after.result is None else {
                "winners": list(after.result.winners), "reason": after.result.reason,
                "kind": after.result.kind}
        data["scores"] = list(after.scores)
        return Event(kind, event.seat, data)

    def outcome(self, state: BarsState) -> Outcome:
        over = state.phase == "over"
        winners = state.result.winners if over and state.result is not None else None
        return Outcome(over, state.scores, winners)

    def is_checkpoint(self, state: BarsState) -> bool:
        return state.phase == "over" or state.round_ended

    def tally(self, state: BarsState) -> dict[str, list[int]]:
        counts = state.tally
        result = state.result
        tie = result is not None and len(result.winners) == PLAYERS
        return {
            "claims made": list(counts.claims),
            "claim points": list(counts.claim_points),
            "duties forgotten": list(counts.forgotten),
            "passes": list(counts.passes),
            "take backs": list(counts.take_backs),
            "ties": [int(tie)] * PLAYERS,
            "rounds": [rounds_played(state)] * PLAYERS if result is not None else [0, 0],
        }

    def describe_event(self, event: Event) -> str:
        data = event.data
        who = f"seat {event.seat}"
        kind = event.type
        if kind == "shuffled":
            if "starter" in data:
                return f"the cards are shuffled and drawn; seat {data['starter']} begins"
            return f"the cards are shuffled (deal number {data.get('seed', '-')})"
        if kind == "placed":
            line = f"{who} places a {card_name(data['card'])} on {space_name(data['space'])}"
            if "points" not in data:
                return line
            parts = [str(item["points"]) for item in data.get("scoring", []) if item["points"]]
            if len(parts) > 1:
                return f"{line}: {' + '.join(parts)} = {data['points']} points"
            points = data["points"]
            return f"{line}: {points} point{'' if points == 1 else 's'}"
        if kind == "claimed":
            points = CLAIM_POINTS.get(data.get("kind", ""), 0)
            where = f" on {space_name(data['space'])}" if "space" in data else ""
            what = {"turn_over": "turns over the forgotten stack",
                    "clear": "clears the forgotten centre",
                    "turn_over_and_clear": "turns over the forgotten stack",
                    "remove": "removes the forgotten stack"}.get(data.get("kind", ""), "claims")
            if data.get("kind") == "turn_over_and_clear":
                return f"{who} {what}{where} and clears the centre: {points} points"
            return f"{who} {what}{where}: {points} points"
        if kind == "taken_back":
            if "card" in data:
                return (f"{who} takes back the {card_name(data['card'])} from "
                        f"{space_name(data['space'])}")
            return f"{who} takes back the card placed"
        if kind == "turned_over":
            return f"{who} turns over the full stack on {space_name(data['space'])}"
        if kind == "centre_cleared":
            return f"{who} clears the face-down centre"
        if kind == "removed":
            return f"{who} removes the full stack on {space_name(data['space'])}"
        if kind in ("turn_ended", "passed"):
            line = f"{who} {'passes' if kind == 'passed' else 'ends the turn'}"
            if "points" in data:
                line += f" ({data['points']} points this turn"
                forgotten = data.get("forgotten") or []
                if forgotten:
                    line += ", forgot to " + " and ".join(
                        _duty_text(item["kind"], item.get("space", EMPTY)) for item in forgotten)
                line += ")"
                result = data.get("result")
                if result:
                    line += f"; game over: {result['reason']}"
            return line
        return super().describe_event(event)


def _pair(values: tuple[int, ...]) -> tuple[int, int]:
    return values[0], values[1]


def _read_duty(read: SnapshotReader) -> Duty:
    return read.text("kind"), read.integer("space") if "space" in read.data else EMPTY


def _read_turn(read: SnapshotReader | None) -> Turn | None:
    """A turn from its snapshot (``BarsState`` keeps none while a round is being dealt)."""
    if read is None:
        return None
    placed = read.optional_child("placed")
    placement = None
    if placed is not None:
        scoring = tuple((way.text("with"), way.integer("space"), way.integer("differences"),
                         way.integer("points")) for way in placed.children("scoring"))
        placement = Placement(placed.card("card", DECK), placed.integer("space"),
                              placed.integer("points"), scoring, placed.integer("previous_owner"))
    claims = tuple((claim.text("kind"), _read_duty(claim)[1], claim.integer("points"))
                   for claim in read.children("claims"))
    finished = "drew" in read.data  # a turn that has ended shows what it left and drew
    return Turn(
        seat=read.integer("seat"),
        claims=claims,
        placed=placement,
        duties=tuple(_read_duty(duty) for duty in read.children("duties")),
        points=read.integer("points"),
        passed=read.flag("passed"),
        forgotten=(tuple(_read_duty(duty) for duty in read.children("forgotten"))
                   if finished else ()),
        drew=read.optional_card("drew", DECK, EMPTY) if finished else EMPTY,
        touched=read.flag("touched"),
    )


def _claim_data(kind: str, space: int) -> dict[str, Any]:
    return {"kind": kind} if space < 0 else {"kind": kind, "space": space}


def _claim_view(kind: str, space: int, points: int) -> BarsClaim:
    return {**_duty_view(kind, space), "points": points}


def _duty_view(kind: str, space: int) -> BarsDuty:
    return {"kind": kind} if space < 0 else {"kind": kind, "space": space}


GAME = StarsAndBars()
