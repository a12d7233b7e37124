"""Bots for Stars and Bars (``stars_and_bars``). Both read only their seat's view (both
hands are open, the deck order is not) and act one command at a time: every claim first,
then a placement, then every duty it owes, then the end of the turn (or a pass).

* ``greedy``: the placement with the most points this turn.
* ``lookahead``: the placement with the most points this turn less what it hands the
  opponent: the opponent's best placement in reply (their hand is open) and the claims left
  on the board for them. The default.

Ties between equal placements are broken by the bot's own random numbers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from starhall.shared.engine import Command, Seat
from starhall.shared.games.stars_and_bars.rules import (
    CENTRE,
    CENTRE_MASK,
    CLAIM_POINTS,
    DECK,
    EMPTY,
    FACE_DOWN,
    NEIGHBOURS,
    SPACES,
    STACK_FULL,
    StarsAndBarsView,
    placement_points,
    stars_and_bars_view,
)
from starhall.shared.observation import Observation

REPLY_WEIGHT = 1.0
"""How much the lookahead minds a point the opponent can score in reply to a point of its
own (a reply is certain, being from an open hand, but the opponent may not see it)."""

_NEAR = tuple(frozenset({space, *(other for other, _, _ in NEIGHBOURS[space])})
              for space in range(SPACES))
"""The spaces whose placements a change on a space can alter: itself and its neighbours."""


def _admin(view: StarsAndBarsView, seat: Seat) -> Command | None:
    """A claim, a duty or the end of the turn, whichever is due; ``None`` when the bot must
    choose a placement (or pass)."""
    legal = view["legal"]
    if legal["claims"]:
        claim = legal["claims"][0]
        return Command("claim", seat, {k: v for k, v in claim.items() if k != "points"})
    if legal["duties"]:
        duty = legal["duties"][0]
        return Command(duty["kind"], seat, {k: v for k, v in duty.items() if k != "kind"})
    if legal["end_turn"]:
        return Command("end_turn", seat, {})
    if legal["pass"]:
        return Command("pass", seat, {})
    return None


def _place(card: str, space: int, seat: Seat) -> Command:
    return Command("place", seat, {"card": card, "space": space})


class GreedyBot:
    """Makes every claim, places for the most points this turn, never forgets a duty."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = stars_and_bars_view(seen.view), seen.seat
        command = _admin(view, seat)
        if command is not None:
            return command
        options = [(points, card, space) for card, spaces in view["legal"]["placements"].items()
                   for space, points in spaces]
        best = max(points for points, _, _ in options)
        _, card, space = self.rng.choice([o for o in options if o[0] == best])
        return _place(card, space, seat)


class Board:
    """The board as the bots work on it: top cards (deck indices, ``EMPTY``, ``FACE_DOWN``),
    heights and owners, from a view."""

    def __init__(self, view: StarsAndBarsView) -> None:
        index_of = DECK.index_of
        self.tops = [FACE_DOWN if cell["face_down"] else
                     (EMPTY if cell["top"] is None else index_of[cell["top"]])
                     for cell in view["board"]]
        self.heights = [cell["height"] for cell in view["board"]]
        self.owners = [-1 if cell["owner"] is None else cell["owner"] for cell in view["board"]]
        self.clear_owner = -1 if view["clear_owner"] is None else view["clear_owner"]

    def after(self, card: int, space: int, seat: Seat) -> tuple[list[int], int, bool]:
        """The tops after ``seat`` places ``card`` on ``space`` and does its duties, the
        points of the claims then open to the opponent, and whether the centre was cleared."""
        tops = list(self.tops)
        tops[space] = card
        owners = self.owners
        cleared = False
        mine_left = [s for s in range(SPACES) if s != space and owners[s] == seat
                     and self.heights[s] >= STACK_FULL and tops[s] >= 0]
        if self.heights[space] + 1 >= STACK_FULL:
            if CENTRE_MASK >> space & 1:
                tops[space] = FACE_DOWN
                if all(tops[s] == FACE_DOWN for s in CENTRE):
                    for s in CENTRE:
                        tops[s] = EMPTY
                    cleared = True
            else:
                tops[space] = EMPTY
        claims = 0
        down = sum(1 for s in CENTRE if tops[s] == FACE_DOWN)
        for s in mine_left:
            if not CENTRE_MASK >> s & 1:
                claims += CLAIM_POINTS["remove"]
            else:
                claims += CLAIM_POINTS["turn_over_and_clear" if down == 3 else "turn_over"]
        if down == len(CENTRE) and self.clear_owner == seat:
            claims += CLAIM_POINTS["clear"]
        return tops, claims, cleared


def best_at(tops: Sequence[int], cards: Sequence[int], space: int) -> int:
    """The most points any of ``cards`` scores on ``space`` (-1 when none may go there)."""
    return max((placement_points(tops, card, space) for card in cards), default=-1)


def lookahead_scores(view: StarsAndBarsView, seat: Seat) -> list[tuple[float, int, int]]:
    """Every legal placement with the ``lookahead`` bot's score: (score, card, space)."""
    board = Board(view)
    theirs = [DECK.index_of[code] for code in view["hands"][1 - seat]]
    baseline = [best_at(board.tops, theirs, space) for space in range(SPACES)]
    scored = []
    for code, spaces in view["legal"]["placements"].items():
        card = DECK.index_of[code]
        for space, points in spaces:
            tops, claims, cleared = board.after(card, space, seat)
            near = frozenset(range(SPACES)) if cleared else _NEAR[space]
            reply = max([baseline[s] for s in range(SPACES) if s not in near]
                        + [best_at(tops, theirs, s) for s in near] + [0])
            scored.append((points - REPLY_WEIGHT * (reply + claims), card, space))
    return scored


class LookaheadBot:
    """Like ``greedy``, but weighs each placement against the opponent's best reply and the
    claims it leaves them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation, think: float) -> Command:
        view, seat = stars_and_bars_view(seen.view), seen.seat
        command = _admin(view, seat)
        if command is not None:
            return command
        scored = lookahead_scores(view, seat)
        best = max(value for value, _, _ in scored)
        _, card, space = self.rng.choice([s for s in scored if s[0] == best])
        return _place(DECK.code_of[card], space, seat)


BOTS = {"greedy": GreedyBot, "lookahead": LookaheadBot}
LEVELS = {"easy": "greedy", "normal": "lookahead"}
"""The bots a person picks by level (``shared.bots.bot_levels``; ``strong``, once in ``BOTS``,
is Strong)."""
DEFAULT_BOT = "lookahead"
