"""Stars and Bars: where things lie on the table, and the animations, from views and events.

The table area holds, top to bottom, the opponent's open hand, the 4 × 4 board of landscape
spaces (columns a–d, rows 1–4, the centre 2 × 2 marked), the status line and the player's
own hand; the deck and the discards lie left of the board, the turn's buttons right of it.

Events become steps (``client.ui.animation``): a placing flies the card from its hand to its
space and the points it scored rise from it ("+5", "2 horizontal + 3 diagonal"), read from
the view after it (the engine counts them; nothing here does); a take-back flies it home; a
full stack turned over flashes; cleared and removed stacks fly to the discards; the card
drawn at the end of a turn flies from the deck to the hand; claims and passes are announced.
Each step's scene is the view before it patched with what the event plainly states, the last
one the server's own view.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pygame

from starhall.client.games.base import Event, View
from starhall.client.games.stars_and_bars.cards import LABEL
from starhall.client.ui.animation import (
    Banner,
    Flight,
    Pose,
    Step,
    ease_in_out_cubic,
    ease_out_back,
    ease_out_cubic,
)
from starhall.client.ui.layout import CORNER_RIGHT, Layout, rules_button_rect, settings_button_rect
from starhall.client.ui.theme import CARD_RATIO
from starhall.shared.games.stars_and_bars.rules import (
    CENTRE,
    CLAIM_POINTS,
    GAME,
    SIDE,
    SPACES,
    UNDER,
)
from starhall.shared.games.stars_and_bars.rules import space_name as engine_space_name

COLUMNS = "abcd"
WAYS = {"left": "horizontal", "right": "horizontal", "up": "vertical", "down": "vertical",
        "diagonal": "diagonal", UNDER: "under"}
"""How a card touches each kind of neighbour the engine names."""

KINDS: dict[str, str] = dict(GAME.event_commands)
"""Event type → the command that causes it (what the step is about)."""

PLATE_WIDTH = 110
"""The narrowest a name plate is drawn."""
PLATE_HEIGHT = 56

DEAL_GAP = 0.07
FLY = 0.36
POP = 1.1
"""How long the points rise from a placed card; then they fade for ``FADE``."""
FADE = 0.45
FLIP = 0.4


def kind_of(event: Event) -> str:
    return KINDS.get(str(event.get("type")), str(event.get("type")))


def space_name(space: int) -> str:
    """``"a1"`` for space 0: columns a–d left to right, rows 1–4 top to bottom."""
    return engine_space_name(space) if 0 <= space < SPACES else f"space {space}"


def touch(kind: str) -> str:
    """``"horizontal"``, ``"vertical"``, ``"diagonal"`` or ``"under"``."""
    return WAYS.get(kind, kind)


def breakdown(scoring: Sequence[Mapping[str, Any]]) -> str:
    """``"2 horizontal + 3 diagonal"``: a placing's points by the way its cards touch, from the
    engine's ``scoring`` list."""
    sums: dict[str, int] = {}
    for entry in scoring:
        points = int(entry.get("points") or 0)
        if points:
            way = touch(str(entry.get("with")))
            sums[way] = sums.get(way, 0) + points
    order = ("under", "horizontal", "diagonal", "vertical")
    words = {"under": "on the stack"}
    return " + ".join(f"{sums[way]} {words.get(way, way)}" for way in order if way in sums)


def points_label(placed: Mapping[str, Any]) -> str:
    points = int(placed.get("points") or 0)
    detail = breakdown(list(placed.get("scoring") or [])) or "no points this time"
    return f"{LABEL}+{points}|{detail}"


@dataclass(frozen=True)
class BarsGeometry:
    """Where everything lies in the table area (``layout.table``), seen from ``bottom``."""

    table: pygame.Rect
    bottom: int = 0
    """The seat whose hand is at the bottom (the player's; seat 0 for a spectator)."""

    @classmethod
    def of(cls, layout: Layout) -> BarsGeometry:
        return cls(pygame.Rect(layout.table), layout.bottom_seat)

    # --- sizes -------------------------------------------------------------------------

    @cached_property
    def side_width(self) -> int:
        """The columns left and right of the board (piles; the turn's buttons)."""
        return max(120, min(236, round(self.table.w * 0.22)))

    @cached_property
    def gap(self) -> int:
        return max(4, min(10, self.table.h // 80))

    @cached_property
    def card_size(self) -> tuple[int, int]:
        """A landscape card on the board and in the player's hand: (width, height)."""
        fixed = 12 + 14 + 18 + 10 + 36 + 10 + 16
        by_height = (self.table.h - fixed - 3 * self.gap) / (4 + 1 + 0.62)
        by_width = (self.table.w - 2 * self.side_width - 40 - 3 * self.gap) / (4 * CARD_RATIO)
        height = max(28, int(min(by_height, by_width)))
        return round(height * CARD_RATIO), height

    @cached_property
    def small_size(self) -> tuple[int, int]:
        """The opponent's cards, at the top."""
        width, height = self.card_size
        return round(width * 0.62), round(height * 0.62)

    @cached_property
    def pile_size(self) -> tuple[int, int]:
        width, height = self.card_size
        return round(width * 0.7), round(height * 0.7)

    # --- the board ---------------------------------------------------------------------

    @cached_property
    def board(self) -> pygame.Rect:
        width, height = self.card_size
        g = self.gap
        w, h = 4 * width + 3 * g, 4 * height + 3 * g
        top = self.table.y + 12 + self.small_size[1] + 14 + 18
        return pygame.Rect(self.table.centerx - w // 2, top, w, h)

    def space_rect(self, space: int) -> pygame.Rect:
        width, height = self.card_size
        row, column = divmod(space, SIDE)
        return pygame.Rect(self.board.x + column * (width + self.gap),
                           self.board.y + row * (height + self.gap), width, height)

    def space_at(self, point: tuple[int, int]) -> int | None:
        for space in range(SPACES):
            if self.space_rect(space).collidepoint(point):
                return space
        return None

    @cached_property
    def centre_block(self) -> pygame.Rect:
        return self.space_rect(5).union(self.space_rect(10))

    # --- hands -------------------------------------------------------------------------

    def is_bottom(self, seat: int) -> bool:
        return seat == self.bottom

    def hand_rects(self, seat: int, count: int) -> list[pygame.Rect]:
        if count <= 0:
            return []
        bottom = self.is_bottom(seat)
        width, height = self.card_size if bottom else self.small_size
        g = 12 if bottom else 8
        total = count * width + (count - 1) * g
        left = self.table.centerx - total // 2
        y = self.table.bottom - 16 - height if bottom else self.table.y + 12
        if not bottom:  # between the Rules button and the bug report's, where they fit
            low, high = self._top_row_room(y, height)
            if high - low >= total:
                left = min(max(left, low), high - total)
        return [pygame.Rect(left + i * (width + g), y, width, height) for i in range(count)]

    def _top_row_room(self, y: int, height: int) -> tuple[int, int]:
        """From where to where a row of cards at ``y`` clears the buttons in the felt's top
        corners (Rules and Settings on the left, the bug report on the right)."""
        row = pygame.Rect(self.table.x, y, self.table.w, height)
        low = self.table.x + 12
        for corner in (rules_button_rect(self.table), settings_button_rect(self.table)):
            if corner.colliderect(row):
                low = max(low, corner.right + 10)
        high = self.table.right - CORNER_RIGHT[0] - 4
        return low, high

    def hand_slot(self, seat: int, index: int, count: int) -> pygame.Rect:
        rects = self.hand_rects(seat, max(count, index + 1))
        return rects[index]

    def plate_rect(self, seat: int) -> pygame.Rect:
        """Name and score, left of the seat's hand; the top one clear of the Rules and
        Settings buttons in the table's corner, or, where that leaves too little room (a
        small window), at the top of the column right of the board."""
        if not self.is_bottom(seat) and self.top_plate_beside_board:
            column = self.right_column
            return pygame.Rect(column.x, self.board.y, column.w, column.y - 10 - self.board.y)
        hand = self.hand_rects(seat, 4)[0]
        width = max(PLATE_WIDTH, min(220, hand.x - 14 - self._plate_left(seat)))
        rect = pygame.Rect(0, 0, width, PLATE_HEIGHT)
        rect.right = hand.x - 14
        rect.centery = hand.centery
        return rect

    def _plate_left(self, seat: int) -> int:
        if self.is_bottom(seat):
            return self.table.x + 14
        return settings_button_rect(self.table).right + 10

    @cached_property
    def top_plate_beside_board(self) -> bool:
        top = 1 - self.bottom
        return self.hand_rects(top, 4)[0].x - 14 - self._plate_left(top) < PLATE_WIDTH

    # --- the side columns --------------------------------------------------------------

    @cached_property
    def left_column(self) -> pygame.Rect:
        right = self.board.x - 26  # the row numbers lie between
        left = max(self.table.x + 10, right - self.side_width)
        return pygame.Rect(left, self.board.y, right - left, self.board.h)

    @cached_property
    def right_column(self) -> pygame.Rect:
        """The turn's words and buttons (below the top seat's plate when that is here)."""
        left = self.board.right + 16
        right = min(self.table.right - 10, left + self.side_width)
        below = PLATE_HEIGHT + 10 if self.top_plate_beside_board else 0
        return pygame.Rect(left, self.board.y + below, right - left, self.board.h - below)

    @cached_property
    def deck_rect(self) -> pygame.Rect:
        """At the top of the left column, below the Settings button (the deck's backs are
        drawn a little up and left of it, one per layer)."""
        width, height = self.pile_size
        column = self.left_column
        rect = pygame.Rect(column.centerx - width // 2, column.y + 4, width, height)
        corner = settings_button_rect(self.table)
        if rect.inflate(20, 20).colliderect(corner):
            rect.y = corner.bottom + 16
        return rect

    @cached_property
    def discard_rect(self) -> pygame.Rect:
        width, height = self.pile_size
        deck = self.deck_rect
        return pygame.Rect(deck.x, deck.bottom + 34, width, height)

    @cached_property
    def status_centre(self) -> tuple[int, int]:
        hand_top = self.hand_rects(self.bottom, 4)[0].y
        return self.table.centerx, (self.board.bottom + hand_top) // 2


# --- stand-in views --------------------------------------------------------------------

def _board(view: View) -> list[dict[str, Any]]:
    return [dict(entry) for entry in view.get("board") or
            [{"height": 0, "top": None, "face_down": False}] * SPACES]


def _hands(view: View) -> list[list[str]]:
    return [list(hand) for hand in view.get("hands") or [[], []]]


def _empty(board: list[dict[str, Any]], spaces: tuple[int, ...] | list[int]) -> int:
    """Empties ``spaces``; returns how many cards left them."""
    count = 0
    for space in spaces:
        if 0 <= space < len(board):
            count += int(board[space].get("height") or 0)
            board[space] = {"height": 0, "top": None, "face_down": False}
    return count


def _turn_down(board: list[dict[str, Any]], space: int | None) -> None:
    if space is not None and 0 <= space < len(board):
        board[space] = {**board[space], "top": None, "face_down": True}


def between(before: View, event: Event) -> View:
    """A stand-in for the view after ``event`` when the server's comes only after later ones:
    the cards moved as the event says; points, draws and the set-up wait for the server."""
    view = copy.copy(before)
    view["legal"] = {}
    kind = kind_of(event)
    seat = event.get("seat")
    data = event.get("data") or {}
    board, hands = _board(before), _hands(before)
    turn = dict(before.get("turn") or {})
    space = data.get("space")
    if kind == "place" and isinstance(seat, int) and isinstance(space, int):
        card = data.get("card")
        if 0 <= seat < len(hands) and card in hands[seat]:
            hands[seat].remove(card)
        if 0 <= space < len(board):
            board[space] = {"height": int(board[space].get("height") or 0) + 1, "top": card,
                            "face_down": False}
        turn["placed"] = {"card": card, "space": space, "points": None, "scoring": []}
    elif kind == "take_back" and isinstance(seat, int):
        placed = turn.get("placed") or {}
        where = placed.get("space")
        if isinstance(where, int) and 0 <= where < len(board) and placed.get("card"):
            height = int(board[where].get("height") or 0) - 1
            # What lay under it is in the server's next view; until then the space looks empty.
            board[where] = {"height": max(0, height), "top": None, "face_down": False}
            if 0 <= seat < len(hands):
                hands[seat].append(placed["card"])
        turn["placed"] = None
    elif kind == "turn_over":
        _turn_down(board, space)
    elif kind == "clear_centre":
        view["discards"] = int(before.get("discards") or 0) + _empty(board, CENTRE)
    elif kind == "remove" and isinstance(space, int):
        view["discards"] = int(before.get("discards") or 0) + _empty(board, [space])
    elif kind == "claim":
        claim = str(data.get("kind"))
        if claim in ("turn_over", "turn_over_and_clear"):
            _turn_down(board, space)
        if claim in ("clear", "turn_over_and_clear"):
            view["discards"] = int(before.get("discards") or 0) + _empty(board, CENTRE)
        if claim == "remove" and isinstance(space, int):
            view["discards"] = int(before.get("discards") or 0) + _empty(board, [space])
    elif kind in ("end_turn", "pass") and isinstance(seat, int):
        drew = data.get("drew")
        if isinstance(drew, str) and 0 <= seat < len(hands):
            hands[seat].append(drew)
        other = (seat + 1) % max(1, len(hands))
        view["to_act"] = [other]
        view["last_turn"] = turn
        turn = {"seat": other, "claims": [], "placed": None, "duties": [], "points": 0}
    view["board"], view["hands"], view["turn"] = board, hands, turn
    if isinstance(data.get("scores"), list):
        view["scores"] = list(data["scores"])
    return view


def _without(view: View, seat: int, card: str) -> View:
    """``view`` with ``card`` out of ``seat``'s hand: the scene while it flies."""
    scene = copy.copy(view)
    hands = _hands(view)
    if 0 <= seat < len(hands) and card in hands[seat]:
        hands[seat].remove(card)
    scene["hands"] = hands
    scene["legal"] = {}
    return scene


def space_key(space: int) -> str:
    return f"space:{space}"


def hand_key(seat: int, card: str) -> str:
    return f"hand:{seat}:{card}"


class BarsChoreographer:
    def __init__(self, layout: Layout) -> None:
        self.geometry = BarsGeometry.of(layout)

    def steps(self, before: View, event: Event | None, after: View) -> list[Step]:
        if event is None or not before:
            return [Step([], after)]
        kind = kind_of(event)
        seat = event.get("seat")
        data = event.get("data") or {}
        if kind == "shuffle":
            return [self._deal(data, after)]
        if not isinstance(seat, int):
            return [Step([], after)]
        if kind == "place":
            return self._placed(before, seat, data, after)
        if kind == "take_back":
            return [self._taken_back(before, seat, data, after)]
        if kind == "turn_over":
            return [self._flipped([data.get("space")], after)]
        if kind == "clear_centre":
            return [self._to_discards(before, list(CENTRE), after)]
        if kind == "remove":
            return [self._to_discards(before, [data.get("space")], after)]
        if kind == "claim":
            return [self._claimed(before, data, after)]
        if kind in ("end_turn", "pass"):
            return [self._turn_ends(seat, kind, data, after)]
        return [Step([], after)]

    # --- poses -------------------------------------------------------------------------

    def _at(self, rect: pygame.Rect, scale: float = 1.0, alpha: float = 1.0) -> Pose:
        return Pose(rect.centerx, rect.centery, scale, alpha)

    def _space(self, space: int) -> Pose:
        return self._at(self.geometry.space_rect(space))

    def _in_hand(self, view: View, seat: int, card: str) -> Pose:
        hands = _hands(view)
        hand = hands[seat] if 0 <= seat < len(hands) else []
        index = hand.index(card) if card in hand else len(hand)
        rect = self.geometry.hand_slot(seat, index, len(hand))
        scale = 1.0 if self.geometry.is_bottom(seat) else rect.h / self.geometry.card_size[1]
        return self._at(rect, scale)

    def _deck(self) -> Pose:
        rect = self.geometry.deck_rect
        return self._at(rect, rect.h / self.geometry.card_size[1])

    def _discards(self) -> Pose:
        rect = self.geometry.discard_rect
        return self._at(rect, rect.h / self.geometry.card_size[1])

    def _banner(self, text: str, delay: float = 0.0) -> Banner:
        board = self.geometry.board
        return Banner(text, Pose(board.centerx, board.y + board.h * 0.5, 1.1), delay, 1.8)

    def _pop(self, space: int, placed: dict[str, Any], delay: float) -> list[Flight | Banner]:
        """The points rising from a placed card, then fading."""
        label = points_label(placed)
        start = self._space(space)
        card_height = self.geometry.card_size[1]
        # The top row's points stay on the board: above it they covered the other seat's plate
        highest = self.geometry.board.y + card_height * 0.3
        rise = min(card_height * 0.8, max(0.0, start.y - highest))
        top = Pose(start.x, start.y - rise)
        end = Pose(top.x, max(top.y - rise * 0.15, highest), 1.0, 0.0)
        return [Flight(label, start, top, delay, POP, ease_out_cubic),
                Flight(label, top, end, delay + POP, FADE, ease_in_out_cubic)]

    # --- the steps ---------------------------------------------------------------------

    def _deal(self, data: dict[str, Any], after: View) -> Step:
        """The set-up in the order the cards were drawn (the event's ``draws``): seats take
        turns, seat 0 first; the first four go to the centre, the rest to the hands."""
        flights: list[Flight | Banner] = []
        deck = self._deck()
        hands = _hands(after)
        centre = list(data.get("centre") or [])
        for order, card in enumerate(data.get("draws") or []):
            card = str(card)
            if card in centre:
                space = CENTRE[centre.index(card)]
                end, key = self._space(space), space_key(space)
            else:
                seat = next((s for s, hand in enumerate(hands) if card in hand), None)
                if seat is None:
                    continue
                end, key = self._in_hand(after, seat, card), hand_key(seat, card)
            flights.append(Flight(card, deck, end, order * DEAL_GAP, FLY, ease_out_cubic,
                                  hides=key))
        return Step(flights, after)

    def _placed(self, before: View, seat: int, data: dict[str, Any], after: View
                ) -> list[Step]:
        card, space = data.get("card"), data.get("space")
        if not isinstance(card, str) or not isinstance(space, int):
            return [Step([], after)]
        fly = Step([Flight(card, self._in_hand(before, seat, card), self._space(space), 0.0,
                           FLY, ease_out_back)], _without(before, seat, card))
        if data.get("points") is None:
            return [fly, Step([], after)]
        return [fly, Step(self._pop(space, data, 0.0), after)]

    def _taken_back(self, before: View, seat: int, data: dict[str, Any], after: View) -> Step:
        placed = (before.get("turn") or {}).get("placed") or {}
        card, space = data.get("card", placed.get("card")), data.get("space",
                                                                     placed.get("space"))
        if not isinstance(card, str) or not isinstance(space, int):
            return Step([], after)
        return Step([Flight(card, self._space(space), self._in_hand(after, seat, card), 0.0,
                            FLY, ease_in_out_cubic, hides=hand_key(seat, card))], after)

    def _flipped(self, spaces: list[Any], after: View, delay: float = 0.0) -> Step:
        flights: list[Flight | Banner] = []
        for space in spaces:
            if isinstance(space, int) and 0 <= space < SPACES:
                pose = self._space(space)
                flights.append(Flight("back", Pose(pose.x, pose.y, 1.15), pose, delay, FLIP,
                                      ease_out_back, flash=True))
        return Step(flights, after)

    def _to_discards(self, before: View, spaces: list[Any], after: View,
                     delay: float = 0.0) -> Step:
        board = before.get("board") or []
        flights: list[Flight | Banner] = []
        for index, space in enumerate(spaces):
            if not isinstance(space, int) or not 0 <= space < len(board):
                continue
            entry = board[space]
            if not entry.get("height"):
                continue
            sprite = "back" if entry.get("face_down") or not entry.get("top") else str(
                entry["top"])
            flights.append(Flight(sprite, self._space(space), self._discards(),
                                  delay + 0.06 * index, FLY * 1.4, ease_in_out_cubic,
                                  hold=True))
        return Step(flights, after)

    def _claimed(self, before: View, data: dict[str, Any], after: View) -> Step:
        claim = str(data.get("kind"))
        space = data.get("space")
        banner = self._banner(f"Claim: {claim_words(data, points_of_claim(after, data))}")
        if claim == "turn_over":
            step = self._flipped([space], after)
        elif claim == "remove":
            step = self._to_discards(before, [space], after)
        else:
            scene = copy.copy(before)
            board = _board(before)
            _turn_down(board, space if isinstance(space, int) else None)
            scene["board"] = board
            step = self._to_discards(scene, list(CENTRE), after,
                                     FLIP if claim == "turn_over_and_clear" else 0.0)
        step.items.append(banner)
        return step

    def _turn_ends(self, seat: int, kind: str, data: dict[str, Any], after: View) -> Step:
        items: list[Flight | Banner] = []
        if kind == "pass":
            items.append(self._banner("Pass: no card can be placed"))
        drew = data.get("drew")
        if isinstance(drew, str):
            items.append(Flight(drew, self._deck(), self._in_hand(after, seat, drew), 0.0,
                                FLY, ease_out_cubic, hides=hand_key(seat, drew)))
        forgotten = [duty_words(duty) for duty in data.get("forgotten") or []]
        if forgotten:
            items.append(self._banner("Forgot to " + " and ".join(forgotten) + ": the other "
                                      "player may claim it", 0.2))
        return Step(items, after)


# --- words -----------------------------------------------------------------------------

def points_of_claim(view: View, data: Mapping[str, Any]) -> int:
    """A claim's points: the event's or the view's (the turn's claims), else the rules'."""
    if data.get("points") is not None:
        return int(data["points"])
    for turn in (view.get("turn") or {}, view.get("last_turn") or {}):
        for claim in turn.get("claims") or []:
            if claim.get("kind") == data.get("kind") and claim.get("space") == data.get("space"):
                return int(claim.get("points") or 0)
    return CLAIM_POINTS.get(str(data.get("kind")), 0)


def claim_words(data: Mapping[str, Any], points: int | None = None) -> str:
    """``"turned over a forgotten full stack on b2, +2"``."""
    kind = str(data.get("kind"))
    space = data.get("space")
    where = f" on {space_name(space)}" if isinstance(space, int) else ""
    text = {"turn_over": f"turned over a forgotten full stack{where}",
            "clear": "cleared the forgotten centre",
            "turn_over_and_clear": f"turned over the last full stack{where} and cleared the "
                                   "centre",
            "remove": f"removed a forgotten full stack{where}"}.get(kind, kind)
    return text if points is None else f"{text}, +{points}"


def duty_words(duty: Mapping[str, Any], third_person: bool = False) -> str:
    """``"turn over the full stack on b2"`` (``"turns over …"``): a duty as a verb phrase."""
    kind = str(duty.get("kind"))
    space = duty.get("space")
    where = space_name(space) if isinstance(space, int) else ""
    s = "s" if third_person else ""
    return {"turn_over": f"turn{s} over the full stack on {where}",
            "clear_centre": f"clear{s} the centre (all four stacks face down)",
            "remove": f"remove{s} the full stack on {where}"}.get(kind, kind.replace("_", " "))
