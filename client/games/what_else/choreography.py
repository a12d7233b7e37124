"""Where everything lies on a "what else?" table, and its animations, from views and events.

The table: the other seats round the top (a row of name plates, the first ones left and the
last ones right, clockwise), the round's pile in the middle (the card to beat large, the
earlier plays fanned behind it), the draw pile left of it and the discard pile right, the
star-token supply below; the user's name plate, hand and buttons along the bottom.

Events become steps (``client.ui.animation``): a play flies the card from its seat to the pile;
a pass shows a word at the seat; a refill flies the discards (face up: they are public) to
the discard pile and the new cards from the draw pile; the first deal sends the cards round
one at a time from the opener. When the view after an event holds a new ``last_round``, the
round is over: the full pile stays a moment, then sweeps to the discard pile while a token
flies from the supply to the winner and the winner's new cards come from the draw pile.
Nothing here knows a rule: it compares the views before and after, and reads the event.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import pygame

from starhall.client.games.base import Event, View, back_key, dealing_order, hand_key
from starhall.client.games.what_else.cards import TOKEN
from starhall.client.ui import fonts
from starhall.client.ui.animation import (
    Banner,
    Flight,
    Pose,
    Step,
    ease_in_out_cubic,
    ease_out_back,
    ease_out_cubic,
)
from starhall.client.ui.layout import Layout
from starhall.client.ui.theme import CARD_RATIO
from starhall.shared.games.what_else.rules import HAND_SIZE, what_else_view

Names = Callable[[int], str]

MARGIN = 10
TOP_ROW = 48
"""The other seats' row starts below the bug-report button in the table's top-right."""
GAP = 12
HAND_GAP = 18
"""Between two cards of the user's hand: room for the rings of cards that fit."""
PILE_SHARE = 0.66
"""The draw and discard piles' height, as a share of the card to beat's."""
PILE_LABEL_SIZE = 13
LAID_BY = 26
"""Under the card to beat: its "laid by" line."""
STACK_EXTRA = LAID_BY + 64
"""Down the middle besides the cards when the piles are on a row of their own: the "laid by"
line, the piles' labels and the supply."""

DEAL_GAP = 0.05
FLY = 0.38
ROUND_PAUSE = 1.1
"""How long the full pile stays in view once the round is over, before it is swept."""
SWEEP = 0.5
TOKEN_FLY = 0.7
DRAW_FLY = 0.35


def pile_key(index: int) -> str:
    """The pile's card at ``index`` (the newest is drawn last, on top)."""
    return f"pile:{index}"


def token_key(seat: int) -> str:
    return f"token:{seat}"


DISCARD = "discard"
"""Counted: the discard pile's newest cards not yet landed."""
SWEPT = "swept"
"""Counted like ``DISCARD``, for the round's pile on its way there (the empty pile's "any
card" waits for it)."""
STEP = "_step"
"""Set in each step's scene: the number that scopes the keys its flights hide. The animator
hides a key for every step still queued, so a later step's draws would otherwise take backs
off an earlier scene; scoped, a key hides only in the scene of its own step."""


def scoped(step: object, key: str) -> str:
    return f"{step}|{key}"


class Hidden:
    """What the scene being drawn leaves out: the keys of its own step's flights not yet
    landed (``animator.hidden()`` read through the scene's ``STEP``)."""

    def __init__(self, counts: Counter[str], scene: View) -> None:
        self.counts = counts
        self.step = scene.get(STEP)

    def __getitem__(self, key: str) -> int:
        return 0 if self.step is None else self.counts[scoped(self.step, key)]


@dataclass(frozen=True)
class WhatElseGeometry:
    """Every rectangle of the table, for one layout (window size, players, bottom seat)."""

    layout: Layout

    @classmethod
    def of(cls, layout: Layout) -> WhatElseGeometry:
        return _geometry(layout)

    @property
    def table(self) -> pygame.Rect:
        return self.layout.table

    @property
    def players(self) -> int:
        return self.layout.players

    # --- sizes -------------------------------------------------------------------------

    @cached_property
    def card_size(self) -> tuple[int, int]:
        """A card in the user's hand: a full hand fits side by side between the user's plate
        and the buttons."""
        room = self.buttons.left - self.own_plate.right - 2 * GAP
        by_width = (room - (HAND_SIZE - 1) * HAND_GAP) / HAND_SIZE * CARD_RATIO
        height = int(max(70, min(self.table.h * 0.21, by_width)))
        return _portrait(height)

    @cached_property
    def small_size(self) -> tuple[int, int]:
        """A card in another seat's row (backs, or faces when everything is seen)."""
        height = max(34, round(self.card_size[1] * 0.36))
        return _portrait(height)

    @cached_property
    def plate_size(self) -> tuple[int, int]:
        width = int(max(165, min(200, self.table.w * 0.19)))
        return width, 58

    @cached_property
    def block_height(self) -> int:
        """A seat's cards row and its name plate."""
        return self.small_size[1] + 4 + self.plate_size[1]

    def _top_height(self, stacked: bool) -> float:
        """The card to beat's height with the piles beside the round's cards, or on a row
        of their own under them (``stacked``)."""
        middle = self.centre_area
        if stacked:
            # Down: the top card, its "laid by" line, the piles (0.66) with their labels and
            # the supply. Across: the top card (1) and four strips (0.8 × 0.45).
            room = (middle.h - STACK_EXTRA) / (1 + PILE_SHARE)
            across = (middle.w - 3 * GAP) / (1 + 4 * 0.36) * CARD_RATIO
        else:
            # Across: two piles (0.66), the top card (1) and four strips, and gaps.
            room = middle.h - 76
            across = (middle.w - 5 * GAP - 2 * self._label_overhang) / (
                2 * PILE_SHARE + 1 + 4 * 0.36) * CARD_RATIO
        return max(60.0, min(self.card_size[1] * 1.3, room, across))

    @cached_property
    def stacked(self) -> bool:
        """Whether the draw and discard piles lie on a row under the round's cards: in a
        narrow middle (six players in a small window) the round's cards are then much
        larger than squeezed between the piles."""
        return self._top_height(True) > 1.2 * self._top_height(False)

    @cached_property
    def top_size(self) -> tuple[int, int]:
        """The card to beat, larger than the hand's, leaving room for both piles and a few
        strips of the round's earlier cards."""
        return _portrait(int(self._top_height(self.stacked)))

    @cached_property
    def _label_overhang(self) -> int:
        """How far a pile's label reaches beyond a pile of the largest size, each side."""
        return _overhang(round(self.card_size[1] * 1.3 * PILE_SHARE / CARD_RATIO))

    @cached_property
    def fan_size(self) -> tuple[int, int]:
        """The round's earlier plays behind the top card."""
        height = round(self.top_size[1] * 0.8)
        return _portrait(height)

    @cached_property
    def pile_size(self) -> tuple[int, int]:
        """The draw and the discard pile, smaller: the round's cards need the room."""
        height = round(self.top_size[1] * PILE_SHARE)
        return _portrait(height)

    # --- the bottom: the user's plate, hand and buttons ------------------------------

    @cached_property
    def own_plate(self) -> pygame.Rect:
        width, height = self.plate_size
        return pygame.Rect(self.table.x + MARGIN, self.table.bottom - MARGIN - height,
                           width, height)

    @cached_property
    def buttons(self) -> pygame.Rect:
        """Where Pass / Draw go, bottom right."""
        width = int(max(140, min(190, self.table.w * 0.17)))
        return pygame.Rect(self.table.right - MARGIN - width,
                           self.table.bottom - MARGIN - self.plate_size[1], width,
                           self.plate_size[1])

    @cached_property
    def hand_area(self) -> pygame.Rect:
        left = self.own_plate.right + GAP
        right = self.buttons.left - GAP
        height = self.card_size[1]
        return pygame.Rect(left, self.table.bottom - MARGIN - height, max(1, right - left),
                           height)

    @property
    def raise_by(self) -> int:
        return round(self.card_size[1] * 0.15)

    def hand_rects(self, count: int, raised: set[int] | None = None) -> list[pygame.Rect]:
        if count <= 0:
            return []
        width, height = self.card_size
        area = self.hand_area
        step = min(width + HAND_GAP, (area.w - width) / max(1, count - 1)) if count > 1 else 0
        left = area.centerx - (step * (count - 1) + width) / 2
        rects = []
        for i in range(count):
            y = area.y - (self.raise_by if raised and i in raised else 0)
            rects.append(pygame.Rect(round(left + i * step), y, width, height))
        return rects

    @cached_property
    def status_centre(self) -> tuple[int, int]:
        """The line that tells the user what to do, above the hand."""
        return self.table.centerx, self.hand_area.y - self.raise_by - 16

    # --- the seats round the top ------------------------------------------------------

    @cached_property
    def _slots(self) -> list[tuple[str, float]]:
        """For the other seats, clockwise from the user's left: ``("side", x-fraction)`` or
        ``("top", x-fraction)``."""
        others = self.players - 1
        if others <= 2:
            return [("top", 0.22), ("top", 0.78)][:others] if others == 2 else [("top", 0.5)]
        tops = others - 2
        fractions = [(i + 1) / (tops + 1) for i in range(tops)]
        if tops == 3:
            fractions = [0.23, 0.5, 0.77]
        return [("side", 0.0), *(("top", f) for f in fractions), ("side", 1.0)]

    @cached_property
    def sides(self) -> bool:
        return self.players - 1 >= 3

    @cached_property
    def _top_blocks(self) -> list[pygame.Rect]:
        """The top row's seats, left to right: near their share of the width, never touching,
        right of the Rules and Settings buttons where there is room, else below them."""
        table, corner = self.table, self.layout.corner
        left, right = table.x + MARGIN, table.right - MARGIN
        rects: list[pygame.Rect] = []
        for kind, fraction in self._slots:
            if kind != "top":
                continue
            rect = pygame.Rect(0, table.y + TOP_ROW, self.plate_size[0], self.block_height)
            rect.centerx = round(table.x + table.w * fraction)
            rect.x = max(rect.x, rects[-1].right + GAP if rects else corner.right + GAP)
            rects.append(rect)
        ceiling = right
        for rect in reversed(rects):
            rect.right = min(rect.right, ceiling)
            rect.x = max(rect.x, left)
            ceiling = rect.x - GAP
        for rect in rects:
            if rect.colliderect(corner):
                rect.y = corner.bottom + GAP
        return rects

    @cached_property
    def centre_area(self) -> pygame.Rect:
        top = max(rect.bottom for rect in self._top_blocks) + GAP
        bottom = self.status_centre[1] - 18
        left, right = self.table.x + MARGIN, self.table.right - MARGIN
        if self.sides:
            left += self.plate_size[0] + GAP
            right -= self.plate_size[0] + GAP
        return pygame.Rect(left, top, right - left, max(40, bottom - top))

    @cached_property
    def row_y(self) -> int:
        """The middle of the round's cards; the supply lies below them (and below the draw
        and discard piles when they are ``stacked``)."""
        middle = self.centre_area
        if not self.stacked:
            return round(middle.y + (middle.h - 48) / 2)
        height = self.top_size[1]
        used = height * (1 + PILE_SHARE) + STACK_EXTRA
        return round(middle.y + max(0.0, (middle.h - used) / 2) + height / 2)

    @cached_property
    def pile_row_y(self) -> int:
        """The middle of the draw and the discard pile."""
        if not self.stacked:
            return self.row_y
        return round(self.row_y + self.top_size[1] / 2 + LAID_BY + self.pile_size[1] / 2)

    def seat_block(self, seat: int) -> pygame.Rect:
        """Another seat's cards row and plate (the bottom seat's plate is ``own_plate``)."""
        relative = self.layout.relative(seat)
        width, _ = self.plate_size
        rect = pygame.Rect(0, 0, width, self.block_height)
        if relative == 0:
            rect.bottomleft = self.own_plate.bottomleft
            return rect
        kind, fraction = self._slots[relative - 1]
        table = self.table
        if kind == "top":
            tops_before = sum(1 for k, _ in self._slots[: relative - 1] if k == "top")
            return pygame.Rect(self._top_blocks[tops_before])
        x = table.x + MARGIN if fraction == 0.0 else table.right - MARGIN - width
        rect.topleft = (x, self.row_y - self.block_height // 2)
        rect.clamp_ip(table.inflate(-2 * MARGIN, -2 * MARGIN))
        return rect

    def seat_plate(self, seat: int) -> pygame.Rect:
        if self.layout.relative(seat) == 0:
            return self.own_plate
        block = self.seat_block(seat)
        width, height = self.plate_size
        return pygame.Rect(block.x, block.bottom - height, width, height)

    def seat_cards(self, seat: int) -> pygame.Rect:
        """Where a seat's cards lie: its row above its plate, or the user's hand area."""
        if self.layout.relative(seat) == 0:
            return self.hand_area
        block = self.seat_block(seat)
        return pygame.Rect(block.x, block.y, block.w, self.small_size[1])

    def small_rects(self, seat: int, count: int, spread: bool = False) -> list[pygame.Rect]:
        """A seat's cards in its row: backs close together, faces (``spread``) side by side
        so that their numbers can be read."""
        area = self.seat_cards(seat)
        width, height = self.small_size
        if count <= 0:
            return []
        close = width + 2 if spread else width * 0.62
        step = min(close, (area.w - width) / max(1, count - 1)) if count > 1 else 0
        left = area.centerx - (step * (count - 1) + width) / 2
        return [pygame.Rect(round(left + i * step), area.y, width, height) for i in range(count)]

    def token_point(self, seat: int, index: int, slots: int = 3) -> tuple[float, float]:
        """The ``index``-th of a seat's ``slots`` token places, at the right end of its
        plate's first line."""
        plate = self.seat_plate(seat)
        radius = self.token_radius
        x = plate.right - 10 - radius - (slots - 1 - min(index, slots - 1)) * (2 * radius + 3)
        return x, plate.y + 17

    @property
    def token_radius(self) -> int:
        return 7

    # --- the middle -------------------------------------------------------------------

    @cached_property
    def draw_pile(self) -> pygame.Rect:
        """Left in the middle, its label ("Draw pile: 18") clear of the felt's edge."""
        width, height = self.pile_size
        rect = pygame.Rect(0, 0, width, height)
        rect.midleft = (self.centre_area.x + 4 + _overhang(width), self.pile_row_y)
        return rect

    @cached_property
    def discard_pile(self) -> pygame.Rect:
        width, height = self.pile_size
        rect = pygame.Rect(0, 0, width, height)
        rect.midright = (self.centre_area.right - 4 - _overhang(width), self.pile_row_y)
        return rect

    @cached_property
    def top_rect(self) -> pygame.Rect:
        width, height = self.top_size
        rect = pygame.Rect(0, 0, width, height)
        centre = self.centre_area.centerx + round(width * 0.6)
        right = (self.centre_area.right - 4 if self.stacked
                 else self.discard_pile.left - GAP * 2)
        rect.center = (min(centre, right - width // 2), self.row_y)
        return rect

    @cached_property
    def fan_left(self) -> int:
        """Where the round's earlier cards may reach, left of the top card."""
        if self.stacked:
            return self.centre_area.x + 4
        return self.draw_pile.right + GAP + 6

    def pile_rects(self, count: int) -> list[pygame.Rect]:
        """The round's pile, oldest first: the last is the top card, the others fanned to its
        left, each showing the strip with its number. When the room runs short the newest
        keep their full strip and the oldest close up."""
        if count <= 0:
            return []
        width, height = self.fan_size
        top = self.top_rect
        room = max(0, top.left - self.fan_left)
        strip = width * 0.45
        under = count - 1
        if under * strip <= room:
            offsets = [strip * back for back in range(1, under + 1)]
        else:
            full = min(under, max(2, int(room * 0.6 / strip)))
            rest = under - full
            squeezed = (room - full * strip) / rest if rest else 0.0
            offsets = [strip * back if back <= full else full * strip + squeezed * (back - full)
                       for back in range(1, under + 1)]
        rects = []
        for i in range(under):
            rect = pygame.Rect(0, 0, width, height)
            rect.midleft = (round(top.left - offsets[under - 1 - i]), top.centery)
            rects.append(rect)
        rects.append(pygame.Rect(top))
        return rects

    @cached_property
    def supply_centre(self) -> tuple[int, int]:
        if self.stacked:
            return self.centre_area.centerx, self.pile_row_y + self.pile_size[1] // 2 + 34
        return self.centre_area.centerx, self.row_y + self.top_size[1] // 2 + 40

    def supply_point(self, index: int, count: int) -> tuple[float, float]:
        """The ``index``-th of ``count`` tokens of the supply, in a row."""
        cx, cy = self.supply_centre
        step = 2 * self.token_radius + 3
        return cx + 46 + (index - (count - 1) / 2) * step, cy


def _overhang(pile_width: int) -> int:
    """How far a pile's label ("Discard pile: 24") reaches beyond the pile, each side."""
    widest = max(fonts.font(PILE_LABEL_SIZE).size(label)[0]
                 for label in ("Draw pile: 00", "Discard pile: 00"))
    return max(0, (widest - pile_width) // 2)


def _portrait(height: int) -> tuple[int, int]:
    """A card's (width, height) for a height."""
    return round(height / CARD_RATIO), height


@lru_cache(maxsize=8)
def _geometry(layout: Layout) -> WhatElseGeometry:
    return WhatElseGeometry(layout)


# --- views between events ----------------------------------------------------------------

def between(before: View, event: Event) -> View:
    """A stand-in for the view after ``event`` when the server's comes only after later ones:
    the previous view with what the event plainly shows."""
    patched = copy.copy(before)
    patched["legal"] = {}  # a stand-in offers no move: the server's next view says them
    view = what_else_view(patched)  # the same dict, its keys typed
    kind, seat, data = event.get("type"), event.get("seat"), event.get("data") or {}
    counts = list(view.get("hand_counts") or [])
    if kind == "played" and isinstance(seat, int):
        card = data.get("card")
        view["pile"] = [*(view.get("pile") or []), [seat, card]]
        view["top"] = card
        view["last_player"] = seat
        if 0 <= seat < len(counts):
            counts[seat] = max(0, counts[seat] - 1)
        view["hand"] = [c for c in view.get("hand") or [] if c != card]
    elif kind == "passed" and isinstance(seat, int):
        status = list(view.get("status") or [])
        if 0 <= seat < len(status):
            status[seat] = "passed"
        view["status"] = status
    elif kind == "refilled" and isinstance(seat, int):
        discard = list(data.get("discard") or [])
        view["discard_pile"] = [*(view.get("discard_pile") or []), *discard]
        if 0 <= seat < len(counts):
            counts[seat] = max(0, counts[seat] - len(discard))
        view["hand"] = [c for c in view.get("hand") or [] if c not in discard]
        view["refill_order"] = [s for s in view.get("refill_order") or [] if s != seat]
    view["hand_counts"] = counts
    return patched


def round_ended(before: View, after: View) -> bool:
    """Whether ``after`` reports a round that ``before`` had not (its ``last_round``)."""
    now = what_else_view(after).get("last_round")
    if not now:
        return False
    was = what_else_view(before).get("last_round")
    return was is None or now["round"] != was["round"]


class WhatElseChoreographer:
    def __init__(self, layout: Layout, names: Names | None = None) -> None:
        self.geometry = WhatElseGeometry.of(layout)
        self.name = names or (lambda seat: f"Seat {seat}")
        self._ids = itertools.count(1)

    def steps(self, before: View, event: Event | None, after: View) -> list[Step]:
        return [self._scoped(step) for step in self._steps(before, event, after)]

    def _scoped(self, step: Step) -> Step:
        """The step with its own scene (a copy marked with its number) and its flights'
        hidden keys scoped to it."""
        if step.payload is None:
            return step
        number = next(self._ids)
        items: list[Flight | Banner] = [
            replace(item, hides=scoped(number, item.hides))
            if isinstance(item, Flight) and item.hides else item for item in step.items]
        return Step(items, {**step.payload, STEP: number}, step.pause)

    def _steps(self, before: View, event: Event | None, after: View) -> list[Step]:
        if event is None or not before:
            return [Step([], after)]
        kind = event.get("type")
        if kind == "shuffled":
            purpose = (event.get("data") or {}).get("purpose")
            counts = what_else_view(before).get("hand_counts") or []
            if purpose == "deal" or (purpose is None and not any(counts)):
                return [self._deal(after)]
            return [self._reshuffle(before, after)]
        ended = round_ended(before, after)
        scene = after
        if ended:
            # The full pile, as it stood when the round ended (the view keeps its plays).
            scene = between(before, event)
            last = what_else_view(after).get("last_round")
            scene["pile"] = list((last["pile"] if last else None)
                                 or what_else_view(scene).get("pile") or [])
        steps: list[Step] = []
        if kind == "played":
            steps.append(self._played(before, event, scene))
        elif kind == "passed":
            steps.append(self._passed(event, scene))
        elif kind == "refilled":
            steps.append(self._refilled(before, event, after))
        else:
            steps.append(Step([], scene))
        if ended:
            steps[-1].pause = ROUND_PAUSE
            steps.append(self._round_end(scene, after))
        return steps

    # --- where a card is -----------------------------------------------------------------

    def _scale(self, size: tuple[int, int]) -> float:
        return size[0] / self.geometry.card_size[0]

    def _seat_pose(self, seat: int, view: View, code: str | None = None) -> Pose:
        """Where a seat's card leaves from or lands: its place in the user's hand, or the
        middle of the seat's cards."""
        geometry = self.geometry
        hand = list(what_else_view(view).get("hand") or [])
        if geometry.layout.relative(seat) == 0:
            if code in hand:
                rect = geometry.hand_rects(len(hand))[hand.index(code)]
                return Pose(*rect.center)
            return Pose(*geometry.hand_area.center)
        return Pose(*geometry.seat_cards(seat).center, self._scale(geometry.small_size))

    def _pile_pose(self, index: int, count: int) -> Pose:
        geometry = self.geometry
        rect = geometry.pile_rects(count)[index]
        size = geometry.top_size if index == count - 1 else geometry.fan_size
        return Pose(*rect.center, self._scale(size))

    def _draw_pose(self) -> Pose:
        return Pose(*self.geometry.draw_pile.center, self._scale(self.geometry.pile_size))

    def _discard_pose(self) -> Pose:
        return Pose(*self.geometry.discard_pile.center, self._scale(self.geometry.pile_size))

    def _word(self, seat: int, text: str, delay: float = 0.0, duration: float = 1.0) -> Banner:
        """A word said at a seat, between its cards and the middle."""
        geometry = self.geometry
        plate = geometry.seat_plate(seat)
        if geometry.layout.relative(seat) == 0:
            x, y = plate.centerx, plate.y - 22
        else:
            x, y = plate.centerx, plate.bottom + 20
        return Banner(text, Pose(x, y, 0.9), delay, duration)

    # --- one builder per event ---------------------------------------------------------

    def _played(self, before: View, event: Event, scene: View) -> Step:
        seat = int(event["seat"])
        card = str((event.get("data") or {}).get("card"))
        count = len(what_else_view(scene).get("pile") or [])
        start = self._seat_pose(seat, before, card)
        end = self._pile_pose(count - 1, count) if count else Pose(
            *self.geometry.top_rect.center, self._scale(self.geometry.top_size))
        return Step([Flight(card, start, end, 0.0, FLY, ease_out_back,
                            hides=pile_key(count - 1))], scene)

    def _passed(self, event: Event, scene: View) -> Step:
        seat = int(event["seat"])
        return Step([self._word(seat, "Pass", 0.0, 1.0)], scene, pause=0.2)

    def _refilled(self, before: View, event: Event, after: View) -> Step:
        seat = int(event["seat"])
        discard = [str(c) for c in (event.get("data") or {}).get("discard") or []]
        items: list[Flight | Banner] = []
        for i, code in enumerate(discard):
            items.append(Flight(code, self._seat_pose(seat, before, code), self._discard_pose(),
                                0.06 * i, FLY, ease_in_out_cubic, hides=DISCARD))
        if not discard:
            items.append(self._word(seat, "Keeps all", 0.0, 0.9))
        delay = 0.06 * len(discard) + (FLY * 0.6 if discard else 0.1)
        items += self._draws(seat, before, after, discard, delay)
        return Step(items, after)

    def _draws(self, seat: int, before: View, after: View, gone: list[str],
               delay: float) -> list[Flight | Banner]:
        """Cards coming from the draw pile to ``seat`` between two views."""
        flights: list[Flight | Banner] = []
        geometry = self.geometry
        hand = list(what_else_view(after).get("hand") or [])
        if geometry.layout.relative(seat) == 0 and hand:
            kept = set(what_else_view(before).get("hand") or []) - set(gone)
            new = [code for code in hand if code not in kept]
            rects = geometry.hand_rects(len(hand))
            for i, code in enumerate(new):
                flights.append(Flight(code, self._draw_pose(),
                                      Pose(*rects[hand.index(code)].center), delay + 0.08 * i,
                                      DRAW_FLY, ease_out_cubic, hides=hand_key(code)))
            return flights
        counts_before = list(what_else_view(before).get("hand_counts") or [])
        counts_after = list(what_else_view(after).get("hand_counts") or [])
        if seat >= min(len(counts_before), len(counts_after)):
            return flights
        drawn = counts_after[seat] - (counts_before[seat] - len(gone))
        end = self._seat_pose(seat, after)
        for i in range(max(0, drawn)):
            flights.append(Flight("back", self._draw_pose(), end, delay + 0.08 * i, DRAW_FLY,
                                  ease_out_cubic, hides=back_key(seat)))
        return flights

    def _deal(self, after: View) -> Step:
        """The first deal: one card at a time, clockwise from the opener."""
        geometry = self.geometry
        counts = list(what_else_view(after).get("hand_counts") or [])
        opener = int(what_else_view(after).get("opener") or 0)
        hand = list(what_else_view(after).get("hand") or [])
        rects = geometry.hand_rects(len(hand))
        flights: list[Flight | Banner] = []
        for order, (seat, index) in enumerate(dealing_order(counts, opener)):
            if geometry.layout.relative(seat) == 0 and index < len(hand):
                end, hides = Pose(*rects[index].center), hand_key(hand[index])
            else:
                end, hides = self._seat_pose(seat, after), back_key(seat)
            flights.append(Flight("back", self._draw_pose(), end, order * DEAL_GAP, FLY,
                                  ease_out_cubic, hides=hides))
        return Step(flights, after)

    def _reshuffle(self, before: View, after: View) -> Step:
        """The discard pile becomes the new draw pile: a few backs cross over."""
        count = min(8, len(what_else_view(before).get("discard_pile") or []) or 4)
        flights: list[Flight | Banner] = [
            Flight("back", self._discard_pose(), self._draw_pose(), 0.05 * i, FLY,
                   ease_in_out_cubic) for i in range(count)]
        x, y = self.geometry.draw_pile.midtop
        flights.append(Banner("Reshuffled", Pose(x, y - 18, 0.8), 0.0, 1.2))
        # The draw that waited for the new pile goes on.
        counts = list(what_else_view(before).get("hand_counts") or [])
        for seat, count in enumerate(what_else_view(after).get("hand_counts") or []):
            if seat < len(counts) and count > counts[seat]:
                flights += self._draws(seat, before, after, [], FLY + 0.05 * count)
        return Step(flights, after)

    def _round_end(self, scene: View, after: View) -> Step:
        """The pile sweeps to the discard pile, a token flies to the winner, and the winner's
        new cards come from the draw pile."""
        result = what_else_view(after).get("last_round")
        items: list[Flight | Banner] = []
        pile = [str(code) for _, code in what_else_view(scene).get("pile") or []]
        for i, code in enumerate(pile):
            items.append(Flight(code, self._pile_pose(i, len(pile)), self._discard_pose(),
                                0.04 * (len(pile) - 1 - i), SWEEP, ease_in_out_cubic,
                                hides=SWEPT, hold=True))
        winner = None if result is None else result["winner"]
        if winner is not None:
            tokens = list(what_else_view(after).get("tokens") or [])
            index = max(0, (tokens[winner] if winner < len(tokens) else 1) - 1)
            supply = int(what_else_view(after).get("supply") or 0)
            start = Pose(*self.geometry.supply_point(supply, supply + 1),
                         self._token_scale() * 2.2)  # large leaving the supply, to be seen
            end = Pose(*self.geometry.token_point(winner, index), self._token_scale())
            items.append(Flight(TOKEN, start, end, 0.25, TOKEN_FLY, ease_in_out_cubic,
                                hides=token_key(winner)))
            cx, cy = self.geometry.top_rect.midtop
            who = self.name(winner)
            verb = "take" if who == "You" else "takes"
            items.append(Banner(f"{who} {verb} a star", Pose(cx, cy - 16, 1.0),
                                0.0, 1.6))
            items += self._draws(winner, scene, after, [], 0.45 + 0.04 * len(pile))
        return Step(items, after)

    def _token_scale(self) -> float:
        return 2 * self.geometry.token_radius / self.geometry.card_size[0]
