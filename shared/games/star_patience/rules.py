"""The Star, a patience for one player with a piquet pack (game id ``star_patience``), from
Professor Hoffmann's *The Illustrated Book of Patience Games* (1892), No. 2.

Sixteen cards lie face up in a star of eight lines from the centre, an inner and an outer
place on each; sixteen more are the face-down stock. Each turned stock card pairs with a
star card of its rank (both leave; an inner card's outer partner moves in), or, when none
has its rank, goes on an empty outer place. The game is won when the stock is used up and
lost when a turned card can do neither. Options: ``undo`` (undo and redo back to the start
of the game) and ``deal`` (a deal number that fixes the deal).

Events: ``deal`` (the shuffled order), ``paired``, ``placed``, ``undone``, ``redone``,
``gave_up``. Turning the next card, the partner moving in, the end and the final clearing of
the star follow from those in ``evolve``. docs/games/star_patience.md documents them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from random import Random
from typing import Any, Final, NotRequired, TypedDict, cast

from starhall.shared.cards import Deck
from starhall.shared.commands import seat_of
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
from starhall.shared.shuffle import seeded_order, shuffle_event
from starhall.shared.snapshots import ENTRY, SnapshotReader
from starhall.shared.tricks import the_card

SUITS: Final = ("C", "D", "H", "S")
SUIT_NAMES: Final = {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades"}
RANKS: Final = ("7", "8", "9", "10", "J", "Q", "K", "A")
RANK_NAMES: Final = ("7", "8", "9", "10", "Jack", "Queen", "King", "Ace")

LINES: Final = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
"""The eight lines of the star, in the order the layout is dealt and views list places."""
LINE_COUNT: Final = 8
STOCK_SIZE: Final = 16
NO_CARD: Final = -1
PLAYERS: Final = 1
SEAT: Final = 0

MAX_DEAL: Final = 2**31 - 1
"""Deal numbers run from 1 to this."""


def _make_deck() -> Deck:
    return Deck("piquet", [
        (f"{rank}{suit}", suit, strength, f"{RANK_NAMES[strength]} of {SUIT_NAMES[suit]}")
        for suit in SUITS
        for strength, rank in enumerate(RANKS)
    ])


DECK: Final = _make_deck()
"""32 cards in deck order: Clubs 7 8 9 10 J Q K A, then Diamonds, Hearts, Spades. A card's
rank (0 for 7 … 7 for Ace) is its index modulo 8."""


def rank_of(card: int) -> int:
    return card % len(RANKS)


def _a_rank(card: int) -> str:
    """The card's rank as a refusal says it: "a 7", "an Ace"."""
    word = RANK_NAMES[rank_of(card)]
    return ("an " if word[0] in "8A" else "a ") + word


def deal_order(number: int) -> list[str]:
    """The order deal number ``number`` gives: the deck order shuffled by ``seeded_order``."""
    return seeded_order(DECK.code_of, number)


@dataclass(frozen=True, slots=True)
class Position:
    """The cards as they lie: what an undo restores."""

    inner: tuple[int, ...]
    """The card on each line's inner place, or ``NO_CARD`` (an inner place once emptied stays
    empty for the rest of the game)."""
    outer: tuple[int, ...]
    turned: int
    """The turned stock card waiting to be paired or placed, or ``NO_CARD``."""
    stock: tuple[int, ...]
    """The cards still face down, the next to turn first."""
    pairs: tuple[tuple[int, int], ...]
    """The pairs removed so far, in order: (the turned card, the star card)."""


@dataclass(frozen=True, slots=True)
class Rules:
    undo: bool
    deal: int
    """The table's deal number, or 0 when the host's shuffle decides."""


@cache
def _rules(undo: bool, deal: int) -> Rules:
    return Rules(undo, deal)


Decision = tuple[str, str]
"""An event type (``paired`` or ``placed``) and its value: the star card or the line."""

_EMPTY_POSITION: Final = Position((NO_CARD,) * LINE_COUNT, (NO_CARD,) * LINE_COUNT, NO_CARD,
                                  (), ())


@dataclass(frozen=True, slots=True)
class StarState:
    rules: Rules
    phase: str
    """``deal`` (waiting for the shuffle), ``play``, ``stuck`` (the turned card can go nowhere,
    but the player may still undo) or ``over``."""
    deal_number: int | None
    position: Position
    history: tuple[Position, ...]
    """The position before each decision still in effect, oldest first: what undo restores."""
    decisions: tuple[Decision, ...]
    """The decisions still in effect, in order (one per entry of ``history``)."""
    redo: tuple[Decision, ...]
    """Decisions taken back by undo, the most recently undone last; a new decision drops them."""
    undos: int
    redos: int
    result: str | None
    """``won`` or ``lost`` once the game is over."""
    gave_up: bool
    cleared: tuple[int, ...]
    """The star cards removed in pairs when the stock was used up."""


class StarPatienceLegal(TypedDict, total=False):
    """What the player may do now: nothing while the game is not under way (``{}``)."""

    pair: list[str]
    """The cards the turned card pairs with."""
    place: list[str]
    """The lines (``LINES``) whose outer place may take the turned card."""
    undo: bool
    redo: bool
    give_up: bool


class StarPatienceView(TypedDict):
    """``view``: what the player or a spectator sees of a game of The Star (the snapshot
    shares all but ``seat`` and ``legal``). The engine builds it, and the bots and the client
    read it through ``star_patience_view``, so that a misspelt key is a type error."""

    game: str
    players: int
    phase: str
    deal_number: int | None
    """Kept back (``None``) in a deal the host shuffled until the game is over."""
    dealt_by: NotRequired[str | None]
    """A view's: ``"number"``, ``"shuffle"`` or ``"hand"`` (``_dealt_by``)."""
    turn: int | None
    to_act: list[int]
    lines: list[str]
    inner: list[str | None]
    """The card in each line's inner place (``None``: empty), in the order of ``lines``."""
    outer: list[str | None]
    turned: str | None
    stock_count: int
    pairs: list[list[str]]
    """Each pair made, [turned card, star card], in order."""
    cleared: list[str]
    moves: int
    undos: int
    redos: int
    can_undo: bool
    can_redo: bool
    result: str | None
    gave_up: bool
    cards_removed: int
    undo_allowed: bool
    seat: int | None
    legal: NotRequired[StarPatienceLegal]
    """The player's only."""


def star_patience_view(view: Mapping[str, Any]) -> StarPatienceView:
    """A view of The Star (the engine's, or one the server sent) read with its keys typed."""
    return cast(StarPatienceView, view)


def star_cards(position: Position) -> list[int]:
    """The cards in the star, inner places first, in line order."""
    return [card for card in (*position.inner, *position.outer) if card != NO_CARD]


def pairing_cards(position: Position) -> list[int]:
    """The star cards the turned card may pair with, inner places first, in line order."""
    if position.turned == NO_CARD:
        return []
    rank = rank_of(position.turned)
    return [card for card in star_cards(position) if rank_of(card) == rank]


def open_lines(position: Position) -> list[int]:
    """The lines whose outer place is empty."""
    return [line for line, card in enumerate(position.outer) if card == NO_CARD]


def can_move(position: Position) -> bool:
    """Whether the turned card can pair or be placed."""
    return bool(pairing_cards(position) or open_lines(position))


def line_index(name: object) -> int:
    """A line's number from its name, refusing anything else."""
    if isinstance(name, str) and name in LINES:
        return LINES.index(name)
    raise IllegalCommand("bad_line", f"{name!r} is not a line of the star "
                                     f"(the lines are {', '.join(LINES)})")


def apply_pair(position: Position, card: int) -> Position:
    """The turned card and ``card`` leave; an inner card's outer partner moves in."""
    inner, outer = list(position.inner), list(position.outer)
    if card in inner:
        line = inner.index(card)
        inner[line] = outer[line]
        outer[line] = NO_CARD
    else:
        outer[outer.index(card)] = NO_CARD
    return replace(position, inner=tuple(inner), outer=tuple(outer),
                   pairs=(*position.pairs, (position.turned, card)))


def apply_place(position: Position, line: int) -> Position:
    """The turned card goes on the outer place of ``line``."""
    outer = list(position.outer)
    outer[line] = position.turned
    return replace(position, outer=tuple(outer))


def turn_next(position: Position) -> Position:
    """The next stock card is turned up (none when the stock is used up)."""
    if not position.stock:
        return replace(position, turned=NO_CARD)
    return replace(position, turned=position.stock[0], stock=position.stock[1:])


_PHASES: Final = {**CARD_GAME_PHASES, "deal": "the cards are not dealt yet",
                  "stuck": "the turned card can neither pair nor be placed (undo, or give up)"}


class StarPatience(Game[StarState]):
    id = "star_patience"
    title = "The Star"
    rules_version = 1
    min_players = PLAYERS
    max_players = PLAYERS
    event_commands = {"deal": "shuffle", "paired": "pair", "placed": "place", "undone": "undo",
                      "redone": "redo", "gave_up": "give_up"}
    option_specs = (
        OptionSpec("undo", bool, True, "the player may undo and redo decisions"),
        OptionSpec("deal", int, 0, f"deal number, 1 to {MAX_DEAL} (0: the host shuffles)",
                   minimum=0, maximum=MAX_DEAL),
    )

    def new_state(self, players: int, options: Options) -> StarState:
        if players != PLAYERS:
            raise OptionError(f"star_patience is for one player, not {players}")
        return StarState(
            rules=_rules(options["undo"], options["deal"]), phase="deal", deal_number=None,
            position=_EMPTY_POSITION, history=(), decisions=(), redo=(), undos=0, redos=0,
            result=None, gave_up=False, cleared=(),
        )

    # --- who may do what ---------------------------------------------------------------

    def chance(self, state: StarState) -> ChanceRequest | None:
        if state.phase != "deal":
            return None
        return ChanceRequest(DECK.code_of, deals=MAX_DEAL, deal=state.rules.deal or None)

    def to_act(self, state: StarState) -> tuple[Seat, ...]:
        return (SEAT,) if state.phase in ("play", "stuck") else ()

    @staticmethod
    def _can_undo(state: StarState) -> bool:
        return state.rules.undo and bool(state.history)

    @staticmethod
    def _can_redo(state: StarState) -> bool:
        return state.rules.undo and bool(state.redo) and state.phase == "play"

    def legal_actions(self, state: StarState, seat: Seat) -> list[Command]:
        if seat != SEAT or state.phase not in ("play", "stuck"):
            return []
        actions = self.moves(state)
        if self._can_undo(state):
            actions.append(Command("undo", SEAT, {}))
        if self._can_redo(state):
            actions.append(Command("redo", SEAT, {}))
        actions.append(Command("give_up", SEAT, {}))
        return actions

    @staticmethod
    def moves(state: StarState) -> list[Command]:
        """The pairings, or else the placings, open to the turned card (no undo, redo or
        giving up)."""
        if state.phase != "play":
            return []
        position = state.position
        cards = pairing_cards(position)
        if cards:
            return [Command("pair", SEAT, {"card": DECK.code_of[card]}) for card in cards]
        return [Command("place", SEAT, {"line": LINES[line]}) for line in open_lines(position)]

    def random_action(self, state: StarState, seat: Seat, rng: Random) -> Command:
        """A uniformly random pairing or placing; giving up once stuck. Never undo or redo."""
        require(seat == SEAT and state.phase in ("play", "stuck"), "not_your_turn",
                f"seat {seat} has nothing to do now")
        return self.random_choice(self.moves(state) or [Command("give_up", SEAT, {})], rng)

    def random_choice(self, legal: Sequence[Command], rng: Random) -> Command:
        """A uniformly random pairing or placing among ``legal``; giving up once there is
        none. Never undo or redo."""
        moves = [command for command in legal if command.type in ("pair", "place")]
        if not moves:
            return Command("give_up", SEAT, {})
        return moves[int(rng.random() * len(moves))]

    # --- decide ------------------------------------------------------------------------

    def decide(self, state: StarState, command: Command) -> list[Event]:
        kind = command.type
        if kind == "shuffle":
            return [shuffle_event(self.chance(state), command, "deal")]
        if kind not in ("pair", "place", "undo", "redo", "give_up"):
            raise IllegalCommand("unknown_command", f"star_patience has no command {kind!r}")
        seat_of(command, PLAYERS)
        require(state.phase in ("play", "stuck"), "wrong_phase",
                f"no {kind.replace('_', ' ')} now: {_PHASES[state.phase]}")
        if kind == "give_up":
            return [Event("gave_up", SEAT, {})]
        if kind in ("undo", "redo"):
            return [self._decide_undo_redo(state, kind)]
        require(state.phase == "play", "stuck", f"no {kind} now: {_PHASES['stuck']}")
        position = state.position
        turned = position.turned
        partners = pairing_cards(position)
        if kind == "pair":
            code = command.data.get("card")
            index = DECK.index_of.get(code) if isinstance(code, str) else None
            if index is None:
                raise IllegalCommand("bad_card", f"{code!r} is not a card of the piquet pack")
            require(index in star_cards(position), "not_in_star",
                    f"{the_card(DECK, index)} is not in the star")
            require(index in partners, "wrong_rank",
                    f"the turned card is {the_card(DECK, turned)}, and "
                    f"{the_card(DECK, index)} is not {_a_rank(turned)}")
            return [Event("paired", SEAT, {"card": code})]
        line = line_index(command.data.get("line"))
        if partners:
            named = [the_card(DECK, card) for card in partners]
            names = ", ".join(named[:-1]) + " or " + named[-1] if len(named) > 1 else named[0]
            raise IllegalCommand("must_pair", f"the turned {DECK.cards[turned].name} pairs "
                                              f"with {names}, and a card that can pair must "
                                              "pair")
        occupant = position.outer[line]
        require(occupant == NO_CARD, "place_taken",
                f"the outer {LINES[line]} place holds {the_card(DECK, occupant)}")
        return [Event("placed", SEAT, {"line": LINES[line]})]

    def _decide_undo_redo(self, state: StarState, kind: str) -> Event:
        require(state.rules.undo, "undo_off", f"{kind} is off at this table")
        if kind == "undo":
            require(bool(state.history), "nothing_to_undo",
                    "nothing to undo: no decision has been made since the deal")
            return Event("undone", SEAT, {})
        require(bool(state.redo), "nothing_to_redo", "nothing to redo: no decision was undone "
                                                     "since the last one made")
        return Event("redone", SEAT, {})

    # --- evolve ------------------------------------------------------------------------

    def evolve(self, state: StarState, event: Event) -> StarState:
        kind = event.type
        data = event.data
        if kind == "paired":
            return self._decided(state, ("paired", data["card"]), ())
        if kind == "placed":
            return self._decided(state, ("placed", data["line"]), ())
        if kind == "undone":
            last = state.decisions[-1]
            return replace(state, phase="play", position=state.history[-1],
                           history=state.history[:-1], decisions=state.decisions[:-1],
                           redo=(*state.redo, last), undos=state.undos + 1)
        if kind == "redone":
            return replace(self._decided(state, state.redo[-1], state.redo[:-1]),
                           redos=state.redos + 1)
        if kind == "gave_up":
            return replace(state, phase="over", result="lost", gave_up=True)
        if kind == "deal":
            return self._evolve_deal(state, data)
        raise ValueError(f"star_patience has no event {kind!r}")

    @staticmethod
    def _evolve_deal(state: StarState, data: Any) -> StarState:
        order = [DECK.index_of[code] for code in data["order"]]
        position = Position(
            inner=tuple(order[:LINE_COUNT]), outer=tuple(order[LINE_COUNT:2 * LINE_COUNT]),
            turned=NO_CARD, stock=tuple(order[2 * LINE_COUNT:]), pairs=(),
        )
        state = replace(state, deal_number=data.get("seed"))
        return StarPatience._after(state, turn_next(position))

    @staticmethod
    def _decided(state: StarState, decision: Decision, redo: tuple[Decision, ...]
                 ) -> StarState:
        """The state after a pairing or placing (made anew, or redone)."""
        kind, value = decision
        before = state.position
        if kind == "paired":
            position = apply_pair(before, DECK.index_of[value])
        else:
            position = apply_place(before, LINES.index(value))
        state = replace(state, history=(*state.history, before),
                        decisions=(*state.decisions, decision), redo=redo)
        return StarPatience._after(state, turn_next(position))

    @staticmethod
    def _after(state: StarState, position: Position) -> StarState:
        """Settle what follows a new turn: the win, a dead end, or the next decision."""
        if position.turned == NO_CARD:
            cleared = tuple(star_cards(position))
            empty = (NO_CARD,) * LINE_COUNT
            return replace(state, phase="over", result="won", cleared=cleared,
                           position=replace(position, inner=empty, outer=empty))
        if can_move(position):
            return replace(state, phase="play", position=position)
        if state.rules.undo and state.history:
            return replace(state, phase="stuck", position=position)
        return replace(state, phase="over", result="lost", position=position)

    # --- views -------------------------------------------------------------------------

    @staticmethod
    def _places(cards: tuple[int, ...]) -> list[str | None]:
        return [None if card == NO_CARD else DECK.code_of[card] for card in cards]

    def _legal_view(self, state: StarState) -> StarPatienceLegal:
        if state.phase not in ("play", "stuck"):
            return {}
        position = state.position
        cards = pairing_cards(position) if state.phase == "play" else []
        lines = open_lines(position) if state.phase == "play" and not cards else []
        return {
            "pair": DECK.codes(sum(1 << card for card in cards)),
            "place": [LINES[line] for line in lines],
            "undo": self._can_undo(state),
            "redo": self._can_redo(state),
            "give_up": True,
        }

    @staticmethod
    def _shown_number(state: StarState) -> int | None:
        """The deal number as a view shows it: with the documented shuffle it gives the whole
        stock order, so a deal the host shuffled keeps it secret until the game is over; a
        deal chosen by number (the table's ``deal``) is an open book from the start."""
        return state.deal_number if state.rules.deal or state.phase == "over" else None

    @staticmethod
    def _dealt_by(state: StarState) -> str | None:
        """``"number"`` (the table's ``deal``), ``"shuffle"`` (the host's, its number kept
        back until the end), ``"hand"`` (an order without a number), nil before the deal."""
        if state.phase == "deal":
            return None
        if state.deal_number is None:
            return "hand"
        return "number" if state.rules.deal else "shuffle"

    def _public(self, state: StarState, viewer: Viewer, viewed: bool) -> StarPatienceView:
        """What view and snapshot share; ``viewed``: as a view shows it (the deal number cut
        as ``_shown_number`` says, with ``dealt_by``), else whole, as a snapshot keeps it."""
        position = state.position
        code_of = DECK.code_of
        public: StarPatienceView = {
            "game": self.id,
            "players": PLAYERS,
            "phase": state.phase,
            "deal_number": self._shown_number(state) if viewed else state.deal_number,
            "turn": SEAT if state.phase in ("play", "stuck") else None,
            "to_act": list(self.to_act(state)),
            "lines": list(LINES),
            "inner": self._places(position.inner),
            "outer": self._places(position.outer),
            "turned": None if position.turned == NO_CARD else code_of[position.turned],
            "stock_count": len(position.stock),
            "pairs": [[code_of[turned], code_of[card]] for turned, card in position.pairs],
            "cleared": DECK.codes(sum(1 << card for card in state.cleared)),
            "moves": len(state.decisions),
            "undos": state.undos,
            "redos": state.redos,
            "can_undo": self._can_undo(state),
            "can_redo": self._can_redo(state),
            "result": state.result,
            "gave_up": state.gave_up,
            "cards_removed": self._removed(state),
            "undo_allowed": state.rules.undo,
            "seat": viewer,
        }
        if viewed:
            public["dealt_by"] = self._dealt_by(state)
        return public

    @staticmethod
    def _removed(state: StarState) -> int:
        return 2 * len(state.position.pairs) + len(state.cleared)

    def view(self, state: StarState, viewer: Viewer) -> dict[str, Any]:
        # The same dict, not a copy: a TypedDict is a plain dict at run time.
        return cast(dict[str, Any], self.typed_view(state, viewer))

    def typed_view(self, state: StarState, viewer: Viewer) -> StarPatienceView:
        view = self._public(state, viewer, viewed=True)
        if viewer == SEAT:
            view["legal"] = self._legal_view(state)
        return view

    def snapshot(self, state: StarState) -> dict[str, Any]:
        full: dict[str, Any] = dict(self._public(state, None, viewed=False))
        del full["seat"]  # a view's, not the state's
        full["stock"] = [DECK.code_of[card] for card in state.position.stock]
        full["history"] = [[kind, value] for kind, value in state.decisions]
        full["redo"] = [[kind, value] for kind, value in state.redo]
        dealt = state.history[0] if state.history else state.position
        full["dealt"] = ([] if state.phase == "deal" else
                         [DECK.code_of[card] for card in
                          (*dealt.inner, *dealt.outer, dealt.turned, *dealt.stock)])
        return full

    def read_snapshot(self, read: SnapshotReader, start: StarState) -> StarState:
        """The deal, then the decisions in effect, give the position and what undo goes back
        to; the counters and the redo list are as recorded."""
        history, redo = _decisions(read, "history"), _decisions(read, "redo")
        state = start
        if read.text("phase", ("deal", "play", "stuck", "over")) != "deal":
            dealt = read.card_order("dealt", DECK)
            state = StarPatience._evolve_deal(state, {
                "order": [DECK.code_of[card] for card in dealt],
                "seed": read.optional_integer("deal_number")})
            for decision in history:
                state = StarPatience._decided(state, decision, ())
        state = replace(state, redo=redo, undos=read.integer("undos"),
                        redos=read.integer("redos"))
        if read.flag("gave_up"):
            state = replace(state, phase="over", result="lost", gave_up=True)
        return state

    def event_view(self, before: StarState, event: Event, viewer: Viewer) -> Event | None:
        kind = event.type
        if kind == "gave_up":
            return event
        after = self.evolve(before, event)
        position = after.position
        data: dict[str, Any] = {}
        if kind == "deal":
            data = {"deal_number": self._shown_number(after), "dealt_by": self._dealt_by(after),
                    "inner": self._places(position.inner),
                    "outer": self._places(position.outer)}
        elif kind == "paired":
            card = DECK.index_of[event.data["card"]]
            ring = "inner" if card in before.position.inner else "outer"
            line = (before.position.inner if ring == "inner" else before.position.outer
                    ).index(card)
            data = {"card": event.data["card"], "turned": DECK.code_of[before.position.turned],
                    "ring": ring, "line": LINES[line],
                    "moved_in": ring == "inner" and before.position.outer[line] != NO_CARD}
        elif kind == "placed":
            data = {"line": event.data["line"], "turned": DECK.code_of[before.position.turned]}
        data["next"] = None if position.turned == NO_CARD else DECK.code_of[position.turned]
        data["stock_count"] = len(position.stock)
        data["phase"] = after.phase
        data["result"] = after.result
        if after.cleared and not before.cleared:
            data["cleared"] = DECK.codes(sum(1 << card for card in after.cleared))
        return Event(kind, event.seat, data)

    def outcome(self, state: StarState) -> Outcome:
        """The score is the number of cards removed (32 for a won game)."""
        over = state.phase == "over"
        winners = ((SEAT,) if state.result == "won" else ()) if over else None
        return Outcome(over, (self._removed(state),), winners)

    def is_checkpoint(self, state: StarState) -> bool:
        return state.phase == "over"

    def tally(self, state: StarState) -> dict[str, list[int]]:
        return {
            "won": [int(state.result == "won")],
            "lost": [int(state.result == "lost")],
            "gave up": [int(state.gave_up)],
            "cards removed": [self._removed(state)],
            "undos": [state.undos],
            "redos": [state.redos],
        }

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.type == "deal":
            number = data.get("seed", data.get("deal_number"))
            if number is not None:
                return f"deal number {number}"
            return "a random deal" if data.get("dealt_by") == "shuffle" else "deal"
        if event.type == "paired":
            turned = f" {data['turned']}" if "turned" in data else ""
            return f"pair the turned card{turned} with {data['card']}"
        if event.type == "placed":
            turned = f" {data['turned']}" if "turned" in data else ""
            return f"place the turned card{turned} on the outer {data['line']} place"
        if event.type == "undone":
            return "undo"
        if event.type == "redone":
            return "redo"
        if event.type == "gave_up":
            return "give up"
        return super().describe_event(event)


def _decisions(read: SnapshotReader, key: str) -> tuple[Decision, ...]:
    decisions = []
    for entry in read.entries(key):
        kind, value = entry.texts(ENTRY, 2)
        if kind not in ("paired", "placed"):
            raise entry.error(ENTRY, f"must be a pairing or a placing, not {kind!r}")
        decisions.append((kind, value))
    return tuple(decisions)


GAME = StarPatience()
