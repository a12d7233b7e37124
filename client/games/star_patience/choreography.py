"""The Star's table geometry and its animations, from views and events only.

The star is laid on a five-by-five grid centred on the turned card: each line's inner place
one step from the centre, its outer place two steps, the four arms and the four diagonals.
The stock lies face down left of the star, the removed pairs right of it.

Events become steps (``client.ui.animation``): a placing flies the turned card to its outer
place; a pairing flies both cards to the removed pile, then the outer partner moves in, then
the next card is turned from the stock; undo and redo fly every card whose place differs
between the two views. Nothing here knows a rule: the events say what happened, and each
step's scene is the view before it patched with what the event states, the last one the
server's own view.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property

import pygame

from starhall.client.games.base import Event, View
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

LINES = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0),
    "NE": (1, -1), "SE": (1, 1), "SW": (-1, 1), "NW": (-1, -1),
}
TOP_MARGIN = 40
"""Room above the star (a banner line)."""
BOTTOM_MARGIN = 58
"""Room below it for the prompt."""

DEAL_GAP = 0.05
PLACE = 0.42
LEAVE = 0.5
MOVE_IN = 0.38
TURN = 0.3
TURN_PAUSE = 0.12

TURNED = "turned"
REMOVED = "removed"
"""Hidden while the last pair flies to the removed pile: the pile shows the pairs before."""


def place_key(ring: str, line: str) -> str:
    return f"{ring}:{line}"


@dataclass(frozen=True)
class StarGeometry:
    """Where everything lies in the table area (``layout.table``)."""

    table: pygame.Rect

    @classmethod
    def of(cls, layout: Layout) -> StarGeometry:
        return cls(pygame.Rect(layout.table))

    @cached_property
    def gap(self) -> int:
        return max(4, min(14, self.table.h // 55))

    @cached_property
    def area(self) -> pygame.Rect:
        top = self.table.y + min(TOP_MARGIN, self.table.h // 14)
        bottom = self.table.bottom - min(BOTTOM_MARGIN, self.table.h // 9)
        return pygame.Rect(self.table.x + 12, top, self.table.w - 24, max(60, bottom - top))

    @cached_property
    def card_size(self) -> tuple[int, int]:
        g = self.gap
        by_height = (self.area.h - 4 * g) / 5
        # Across: the 5 columns of the star (2g between them) and a column each side for the
        # stock and the removed pile.
        by_width = (self.area.w - 12 * g) / 8.8 * CARD_RATIO
        height = max(34, int(min(by_height, by_width)))
        return max(24, round(height / CARD_RATIO)), height

    @cached_property
    def step(self) -> tuple[float, float]:
        """The grid's column and row steps."""
        width, height = self.card_size
        return width + 2.5 * self.gap, height + self.gap

    @cached_property
    def centre(self) -> tuple[float, float]:
        return float(self.area.centerx), float(self.area.centery)

    def place(self, ring: str, line: str) -> tuple[float, float]:
        """The middle of a place; ``ring`` is ``inner`` or ``outer``."""
        k = 1 if ring == "inner" else 2
        dx, dy = DIRECTIONS[line]
        sx, sy = self.step
        cx, cy = self.centre
        return cx + dx * k * sx, cy + dy * k * sy

    def rect_at(self, point: tuple[float, float], scale: float = 1.0) -> pygame.Rect:
        width, height = self.card_size
        rect = pygame.Rect(0, 0, round(width * scale), round(height * scale))
        rect.center = (round(point[0]), round(point[1]))
        return rect

    def place_rect(self, ring: str, line: str) -> pygame.Rect:
        return self.rect_at(self.place(ring, line))

    def tip(self, line: str, reach: float = 2.75) -> tuple[float, float]:
        """A point on the line beyond its outer place: where the star's point ends."""
        dx, dy = DIRECTIONS[line]
        sx, sy = self.step
        cx, cy = self.centre
        reach = reach if dx and dy else reach + 0.1
        return cx + dx * reach * sx, cy + dy * reach * sy

    @cached_property
    def side(self) -> float:
        """How far left (stock) and right (removed pile) of the centre the side piles lie."""
        width, _ = self.card_size
        sx, _ = self.step
        room = (self.area.w / 2 - 2 * sx - width / 2)  # from the star's edge to the area's
        return 2 * sx + width / 2 + max(width * 1.05, min(room * 0.5, width * 1.4))

    @property
    def stock(self) -> tuple[float, float]:
        cx, cy = self.centre
        return cx - self.side, cy

    @property
    def removed(self) -> tuple[float, float]:
        cx, cy = self.centre
        return cx + self.side, cy


def _places(view: View, ring: str) -> list[str | None]:
    return list(view.get(ring) or [None] * len(LINES))


def locations(view: View) -> dict[str, tuple[str, ...]]:
    """Where each card of a view lies: a place, the turned card, or the removed pile."""
    where: dict[str, tuple[str, ...]] = {}
    for ring in ("inner", "outer"):
        for line, code in zip(LINES, _places(view, ring), strict=False):
            if code:
                where[code] = (ring, line)
    if view.get("turned"):
        where[view["turned"]] = (TURNED,)
    for pair in view.get("pairs") or []:
        for code in pair:
            where[code] = (REMOVED,)
    for code in view.get("cleared") or []:
        where[code] = (REMOVED,)
    return where


def after_decision(before: View, event: Event) -> tuple[View, View | None]:
    """The scene once the turned card has left (paired or placed) and, for a pairing whose
    outer partner moves in, the scene after that; both before the next card is turned."""
    data = event.get("data") or {}
    kind = event.get("type")
    left = copy.copy(before)
    left["turned"] = None
    left["legal"] = {}
    inner, outer = _places(before, "inner"), _places(before, "outer")
    moved: View | None = None
    if kind == "placed" and data.get("line") in LINES:
        outer[LINES.index(data["line"])] = data.get("turned") or before.get("turned")
    elif kind == "paired" and data.get("line") in LINES:
        index = LINES.index(data["line"])
        turned = data.get("turned") or before.get("turned")
        left["pairs"] = [*(before.get("pairs") or []), [turned, data.get("card")]]
        left["cards_removed"] = int(before.get("cards_removed") or 0) + 2
        if data.get("ring") == "inner":
            inner[index] = None
            if data.get("moved_in"):
                moved = copy.copy(left)
                moved_inner = list(inner)
                moved_inner[index] = outer[index]
                moved_outer = list(outer)
                moved_outer[index] = None
                moved["inner"], moved["outer"] = moved_inner, moved_outer
        else:
            outer[index] = None
    left["inner"], left["outer"] = inner, outer
    return left, moved


def between(before: View, event: Event) -> View:
    """A stand-in for the view after ``event`` when the server's comes only after later ones."""
    data = event.get("data") or {}
    kind = event.get("type")
    if kind in ("paired", "placed"):
        left, moved = after_decision(before, event)
        view = copy.copy(moved or left)
    else:
        view = copy.copy(before)
        view["legal"] = {}
    if kind == "deal":
        view["inner"], view["outer"] = data.get("inner"), data.get("outer")
        view["deal_number"], view["dealt_by"] = data.get("deal_number"), data.get("dealt_by")
        view["pairs"], view["cleared"] = [], []
    for key, name in (("next", "turned"), ("stock_count", "stock_count"), ("phase", "phase"),
                      ("result", "result")):
        if key in data:
            view[name] = data[key]
    if data.get("cleared"):
        view["cleared"] = data["cleared"]
        view["inner"], view["outer"] = [None] * len(LINES), [None] * len(LINES)
    if kind == "gave_up":
        view["phase"], view["result"], view["gave_up"] = "over", "lost", True
    return view


class StarChoreographer:
    def __init__(self, layout: Layout) -> None:
        self.geometry = StarGeometry.of(layout)

    def steps(self, before: View, event: Event | None, after: View) -> list[Step]:
        if event is None or not before:
            return [Step([], after)]
        kind = event.get("type")
        if kind == "deal":
            return [self._deal(event, after)]
        if kind in ("paired", "placed"):
            return self._decided(before, event, after)
        if kind in ("undone", "redone"):
            return [self._rearranged(before, after)]
        if kind == "gave_up":
            return [Step([self._banner("Given up")], after)]
        return [Step([], after)]

    # --- the pieces --------------------------------------------------------------------

    def _pose(self, where: tuple[str, ...], scale: float = 1.0, alpha: float = 1.0) -> Pose:
        geometry = self.geometry
        if where[0] in ("inner", "outer"):
            point = geometry.place(where[0], where[1])
        elif where[0] == TURNED:
            point = geometry.centre
        elif where[0] == REMOVED:
            point = geometry.removed
        else:
            point = geometry.stock
        return Pose(point[0], point[1], scale, alpha)

    def _banner(self, text: str, delay: float = 0.0) -> Banner:
        cx, cy = self.geometry.centre
        return Banner(text, Pose(cx, cy - self.geometry.card_size[1] * 0.75, 1.3), delay, 1.4)

    def _deal(self, event: Event, after: View) -> Step:
        data = event.get("data") or {}
        stock = self._pose(("stock",), 0.9)
        flights: list[Flight | Banner] = []
        order = 0
        for ring in ("inner", "outer"):
            for line, code in zip(LINES, data.get(ring) or [], strict=False):
                if code:
                    flights.append(Flight(code, stock, self._pose((ring, line)),
                                          order * DEAL_GAP, PLACE, ease_out_cubic,
                                          hides=place_key(ring, line)))
                order += 1
        turned = data.get("next") or after.get("turned")
        if turned:
            flights.append(Flight(turned, stock, self._pose((TURNED,)),
                                  order * DEAL_GAP + TURN_PAUSE, TURN, ease_out_cubic,
                                  hides=TURNED))
        return Step(flights, after)

    def _decided(self, before: View, event: Event, after: View) -> list[Step]:
        data = event.get("data") or {}
        kind = event.get("type")
        turned = data.get("turned") or before.get("turned")
        line = data.get("line")
        if line not in LINES or not turned:
            return [Step([], after)]
        left, moved = after_decision(before, event)
        steps: list[Step] = []
        if kind == "placed":
            steps.append(Step([Flight(turned, self._pose((TURNED,)), self._pose(("outer", line)),
                                      0.0, PLACE, ease_out_back,
                                      hides=place_key("outer", line))], left))
        else:
            ring = str(data.get("ring"))
            end = self._pose((REMOVED,), 0.75)
            steps.append(Step([
                Flight(turned, self._pose((TURNED,)), end, 0.0, LEAVE, ease_in_out_cubic,
                       hides=REMOVED, flash=True),
                Flight(str(data.get("card")), self._pose((ring, line)), end, 0.05, LEAVE,
                       ease_in_out_cubic, hides=REMOVED, flash=True),
            ], left))
            if moved is not None:
                partner = _places(before, "outer")[LINES.index(line)]
                if partner:
                    steps.append(Step([Flight(partner, self._pose(("outer", line)),
                                              self._pose(("inner", line)), 0.0, MOVE_IN,
                                              ease_out_back, hides=place_key("inner", line))],
                                      moved))
        scene = moved or left
        items: list[Flight | Banner] = []
        following = data.get("next", after.get("turned"))
        if following:
            items.append(Flight(following, self._pose(("stock",), 0.9), self._pose((TURNED,)),
                                TURN_PAUSE, TURN, ease_out_cubic, hides=TURNED))
        if data.get("cleared") or after.get("result") == "won":
            # The stock is used up: the star's last cards leave in pairs, and the game is won.
            end = self._pose((REMOVED,), 0.75)
            where = locations(scene)
            index = 0
            for code in data.get("cleared") or after.get("cleared") or []:
                start = where.get(code)
                if start and start[0] in ("inner", "outer"):
                    items.append(Flight(code, self._pose(start), end, 0.15 + 0.08 * index,
                                        LEAVE, ease_in_out_cubic, hold=True, flash=True))
                    index += 1
            items.append(self._banner("Won!", 0.2))
        elif after.get("phase") == "stuck":
            items.append(self._banner("No move for this card", TURN_PAUSE + TURN))
        elif after.get("result") == "lost":
            items.append(self._banner("Lost", TURN_PAUSE + TURN))
        steps.append(Step(items, after, pause=0.0))
        return steps

    def _rearranged(self, before: View, after: View) -> Step:
        """Undo or redo: every card whose place differs flies there, all at once."""
        was, now = locations(before), locations(after)
        flights: list[Flight | Banner] = []
        for code in sorted(set(was) | set(now)):
            start, end = was.get(code, ("stock",)), now.get(code, ("stock",))
            if start == end:
                continue
            hides = None
            if end[0] in ("inner", "outer"):
                hides = place_key(end[0], end[1])
            elif end[0] == TURNED:
                hides = TURNED
            flights.append(Flight(code, self._pose(start), self._pose(end, 0.9 if end[0] in (
                "stock", REMOVED) else 1.0), 0.0, PLACE, ease_in_out_cubic, hides=hides,
                hold=True))
        return Step(flights, after)
