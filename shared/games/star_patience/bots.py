"""Bots, hints and the solver for The Star (``star_patience``).

* ``hint(state)``: the decision with the best chance of winning for a player who does not
  know the stock order, worked out **exactly** (an expectimax over every order of the unseen
  cards, not sampled). It reads only the player's view. The ``hint`` bot plays by it.
* ``heuristic`` bot: the seed's advice, pair from the outer circle for preference.
* ``solve(state)``: for a player who knows the stock order, a winning line or ``None``.

Only ranks matter to the rules, so the search works on ranks. A position is eight lines of
(inner, outer) ranks, ``NONE`` for an empty place; lines are interchangeable, so a position
is kept as its lines sorted. For the expectimax, ranks are interchangeable too: they are
relabelled by what is known of them (cards still unseen, in the star), and the ranks with no
card left unseen, whose star cards can never leave again, become one inert label. A second
cut makes it fast: for each rank, how many of its unseen cards will need an outer place does
not depend on the order they come in (a turned card pairs whenever the star holds its rank,
and is placed, becoming a star card, when it does not); pairing never fills an outer place
and placing fills one, so when the empty outer places are at least the places still needed,
the game cannot be lost.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from starhall.shared.engine import Command
from starhall.shared.games.star_patience.rules import (
    DECK,
    LINES,
    NO_CARD,
    RANKS,
    SEAT,
    StarPatienceView,
    StarState,
    rank_of,
    star_patience_view,
)
from starhall.shared.observation import Observation
from starhall.shared.search_flat import Appraisal, MoveValue

NONE = 9
"""An empty place (a rank label is 0 … 7, and 8 is the inert label)."""
INERT = 8

Lines = tuple[tuple[int, int], ...]
Key = tuple[tuple[int, ...], tuple[int, ...]]

_MEMO_LIMIT = 500_000
_memo: dict[Key, float] = {}


# --- the position as ranks -------------------------------------------------------------

def _rank(code: str | None) -> int:
    return NONE if code is None else rank_of(DECK.index_of[code])


def _lines_of_view(view: StarPatienceView) -> Lines:
    return tuple((_rank(a), _rank(b)) for a, b in zip(view["inner"], view["outer"], strict=True))


def _unseen_counts(view: StarPatienceView) -> tuple[int, ...]:
    """How many cards of each rank the player has not seen: the stock, in some order."""
    seen = [code for code in (*view["inner"], *view["outer"], view["turned"]) if code]
    seen += [code for pair in view["pairs"] for code in pair]
    seen += view["cleared"]
    counts = [4] * len(RANKS)
    for code in seen:
        counts[_rank(code)] -= 1
    return tuple(counts)


def _paired(lines: Lines, line: int, ring: str) -> Lines:
    inner, outer = lines[line]
    new = (outer, NONE) if ring == "inner" else (inner, NONE)
    return (*lines[:line], new, *lines[line + 1:])


def _placed(lines: Lines, line: int, rank: int) -> Lines:
    return (*lines[:line], (lines[line][0], rank), *lines[line + 1:])


def _choices(lines: Lines, rank: int) -> list[tuple[str, int, Lines]]:
    """What a turned card of ``rank`` may do: (``outer`` / ``inner`` pairing, or ``place``,
    the line, the lines after). Outer pairings first, as the seed advises."""
    pairs = [("outer", line, _paired(lines, line, "outer"))
             for line, (_, outer) in enumerate(lines) if outer == rank]
    pairs += [("inner", line, _paired(lines, line, "inner"))
              for line, (inner, _) in enumerate(lines) if inner == rank]
    if pairs:
        return pairs
    return [("place", line, _placed(lines, line, rank))
            for line, (_, outer) in enumerate(lines) if outer == NONE]


# --- the exact chance of winning -------------------------------------------------------

def _canonical(lines: Lines, counts: Sequence[int]) -> Key:
    """Ranks relabelled by (unseen, inner, outer) counts; ranks with nothing unseen inert."""
    inner_count = [0] * 10
    outer_count = [0] * 10
    for inner, outer in lines:
        inner_count[inner] += 1
        outer_count[outer] += 1
    live = sorted((count, inner_count[rank], outer_count[rank], rank)
                  for rank, count in enumerate(counts) if count)
    label = [INERT] * 10
    label[NONE] = NONE
    for new, (_, _, _, rank) in enumerate(live):
        label[rank] = new
    return (tuple(sorted(label[inner] * 10 + label[outer] for inner, outer in lines)),
            tuple(count for count, _, _, _ in live))


def _places_needed(star: list[int], counts: Sequence[int]) -> int:
    """Outer places the unseen cards will take, whatever their order (see the module doc)."""
    needed = 0
    for rank, count in enumerate(counts):
        if star[rank] == 0:
            needed += (count + 1) // 2
        elif star[rank] == 1 and count == 3:
            needed += 1
    return needed


def _chance(key: Key) -> float:
    """The chance of winning from a position before the next card is turned, playing best."""
    codes, counts = key
    total = sum(counts)
    if not total:
        return 1.0
    known = _memo.get(key)
    if known is not None:
        return known
    lines = tuple((code // 10, code % 10) for code in codes)
    empty = sum(1 for _, outer in lines if outer == NONE)
    star = [0] * 10
    for inner, outer in lines:
        star[inner] += 1
        star[outer] += 1
    if empty >= _places_needed(star, counts):
        _memo[key] = 1.0
        return 1.0
    weighted = 0.0
    for rank, count in enumerate(counts):
        rest = (*counts[:rank], count - 1, *counts[rank + 1:])
        weighted += count * _best(lines, rank, rest)
    value = weighted / total
    if len(_memo) >= _MEMO_LIMIT:
        _memo.clear()
    _memo[key] = value
    return value


def _best(lines: Lines, rank: int, rest: Sequence[int]) -> float:
    best = 0.0
    seen: set[Key] = set()
    for _, _, after in _choices(lines, rank):
        key = _canonical(after, rest)
        if key in seen:
            continue
        seen.add(key)
        best = max(best, _chance(key))
        if best >= 1.0:
            break
    return best


def _command(kind: str, line: int, view: StarPatienceView) -> Command:
    if kind == "place":
        return Command("place", SEAT, {"line": LINES[line]})
    return Command("pair", SEAT, {"card": (view["inner"] if kind == "inner" else
                                           view["outer"])[line]})


def chances(view: StarPatienceView) -> list[tuple[Command, float]]:
    """Each decision open to the player and its exact chance of winning, from the player's
    view (the stock order unknown): outer pairings first, then inner ones, then placings."""
    if view["phase"] != "play" or view["turned"] is None:
        return []
    lines = _lines_of_view(view)
    counts = _unseen_counts(view)
    return [(_command(kind, line, view), _chance(_canonical(after, counts)))
            for kind, line, after in _choices(lines, _rank(view["turned"]))]


def hint_for_view(view: StarPatienceView) -> Command | None:
    """The decision with the best chance of winning (the first of equals), or ``None`` when
    there is no pairing or placing to decide (the game is over, or stuck)."""
    best: tuple[Command, float] | None = None
    for choice in chances(view):
        if best is None or choice[1] > best[1]:
            best = choice
    return None if best is None else best[0]


def hint(state: StarState) -> Command | None:
    """The hint for the player of a live game (from what the player sees only)."""
    from starhall.shared.games.star_patience.rules import GAME

    return hint_for_view(GAME.typed_view(state, SEAT))


def win_chance(view: StarPatienceView) -> float:
    """The player's chance of winning from here, playing by the hints (0 when stuck)."""
    if view["phase"] == "over":
        return 1.0 if view["result"] == "won" else 0.0
    return max((chance for _, chance in chances(view)), default=0.0)


# --- the solver: the stock order known ------------------------------------------------

def solve(state: StarState) -> list[Command] | None:
    """A winning line from a position in play for a player who knows the stock order (the
    pairings and placings, in order), or ``None`` when no line wins."""
    if state.phase == "over":
        return [] if state.result == "won" else None
    if state.phase != "play":
        return None
    position = state.position
    cards = (position.turned, *position.stock)
    lines = tuple(zip(position.inner, position.outer, strict=True))
    return _search(lines, cards, 0, set())


def _rank_key(lines: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((NONE if a == NO_CARD else rank_of(a), NONE if b == NO_CARD
                         else rank_of(b)) for a, b in lines))


def _search(lines: tuple[tuple[int, int], ...], cards: tuple[int, ...], index: int,
            failed: set[tuple[tuple[tuple[int, int], ...], int]]) -> list[Command] | None:
    if index == len(cards):
        return []
    key = (_rank_key(lines), index)
    if key in failed:
        return None
    card = cards[index]
    rank = rank_of(card)
    tried: set[tuple[tuple[int, int], ...]] = set()
    for command, after in _card_choices(lines, card, rank):
        after_key = _rank_key(after)
        if after_key in tried:
            continue
        tried.add(after_key)
        rest = _search(after, cards, index + 1, failed)
        if rest is not None:
            return [command, *rest]
    failed.add(key)
    return None


def _card_choices(lines: tuple[tuple[int, int], ...], card: int, rank: int
                  ) -> list[tuple[Command, tuple[tuple[int, int], ...]]]:
    found = []
    for line, (inner, outer) in enumerate(lines):
        if outer != NO_CARD and rank_of(outer) == rank:
            after = (*lines[:line], (inner, NO_CARD), *lines[line + 1:])
            found.append((Command("pair", SEAT, {"card": DECK.code_of[outer]}), after))
    for line, (inner, outer) in enumerate(lines):
        if inner != NO_CARD and rank_of(inner) == rank:
            after = (*lines[:line], (outer, NO_CARD), *lines[line + 1:])
            found.append((Command("pair", SEAT, {"card": DECK.code_of[inner]}), after))
    if found:
        return found
    for line, (inner, outer) in enumerate(lines):
        if outer == NO_CARD:
            after = (*lines[:line], (inner, card), *lines[line + 1:])
            found.append((Command("place", SEAT, {"line": LINES[line]}), after))
    return found


# --- bots ------------------------------------------------------------------------------

class HintBot:
    """Plays the hint (the best exact chance of winning); gives up when stuck."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        command = hint_for_view(star_patience_view(seen.view))
        return command if command is not None else Command("give_up", seen.seat, {})

    def appraise(self, seen: Observation, think: float, worlds: int | None = None,
                 include: Command | None = None) -> Appraisal | None:
        """Each pairing and placing open and its exact chance of winning (``chances``), for
        the replay viewer's analysis; ``None`` with fewer than two to choose from."""
        found = chances(star_patience_view(seen.view))
        if len(found) < 2:
            return None
        return Appraisal(tuple(MoveValue(command, chance, 0.0, 1) for command, chance in found),
                         "% win chance", 100.0, exact=True)


class HeuristicBot:
    """The seed's advice: pair from the outer circle for preference (freeing an outer place),
    then an inner card whose partner moves in; place on the first empty outer place."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = star_patience_view(seen.view), seen.seat
        if view["phase"] != "play":
            return Command("give_up", seat, {})
        legal = view["legal"]
        for code in legal["pair"]:
            if code in view["outer"]:
                return Command("pair", seat, {"card": code})
        for code in legal["pair"]:
            if view["outer"][view["inner"].index(code)] is not None:
                return Command("pair", seat, {"card": code})
        if legal["pair"]:
            return Command("pair", seat, {"card": legal["pair"][0]})
        return Command("place", seat, {"line": legal["place"][0]})


class FickleBot:
    """Plays the hints but now and then takes decisions back and redoes them (a quarter of
    its turns), for recorded games with undo and redo. Gives up when stuck."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = star_patience_view(seen.view), seen.seat
        legal = view["legal"]
        roll = self.rng.random()
        if legal.get("redo") and roll < 0.5:
            return Command("redo", seat, {})
        if legal.get("undo") and roll < 0.25:
            return Command("undo", seat, {})
        command = hint_for_view(view)
        return command if command is not None else Command("give_up", seat, {})


BOTS = {"hint": HintBot, "heuristic": HeuristicBot, "fickle": FickleBot, "strong": HintBot}
"""``strong`` is ``hint`` under the name every game's Strong level has."""
LEVELS = {"easy": "random", "normal": "heuristic"}
"""The bots a person picks by level (``shared.bots.bot_levels``)."""
