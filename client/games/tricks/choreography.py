"""Turns what the server reports (an event and the view after it) into animation steps.

It only reads views and events; it never works out a rule. Where a batch of events arrives
with one view at its end, ``between`` patches the previous view with what the events plainly
show (a card moved from a hand to the trick), so each step has a scene to show; the step of
the last event always shows the server's own view.
"""

from __future__ import annotations

import copy
from typing import Any

from starhall.client.games.base import (
    Event,
    View,
    back_key,
    dealing_order,
    hand_key,
    pile_key,
    trick_key,
)
from starhall.client.games.tricks.views import is_stars, trick_view
from starhall.client.ui.animation import (
    Banner,
    Flight,
    Pose,
    Step,
    ease_in_out_cubic,
    ease_out_back,
)
from starhall.client.ui.layout import Layout
from starhall.shared.games.stars.rules import StarsTrick

DEAL_GAP = 0.025
"""Seconds between two dealt cards."""
FLY = 0.32
GATHER = 0.45
TRICK_PAUSE = 0.7
"""How long a full trick stays in view before it is gathered."""


def between(before: View, event: Event) -> View:
    """A stand-in for the view after ``event`` when the server's comes only after later ones."""
    patched = copy.copy(before)
    view = trick_view(patched)  # the same dict, its keys typed
    kind, seat, data = event.get("type"), event.get("seat"), event.get("data") or {}
    if kind == "played" and seat is not None:
        trick = [*view.get("trick", []), [seat, data.get("card")]]
        sizes = list(view.get("hand_sizes", []))
        if 0 <= seat < len(sizes):
            sizes[seat] = max(0, sizes[seat] - 1)
        view["hand_sizes"] = sizes
        if view.get("seat") == seat:
            view["hand"] = [c for c in view.get("hand", []) if c != data.get("card")]
        if len(trick) >= view.get("players", 4):
            view["last_trick"], view["trick"] = trick, []
            view["tricks_played"] = view.get("tricks_played", 0) + 1
        else:
            view["trick"] = trick
    elif kind == "deal":
        view["hand_sizes"] = data.get("hand_sizes", view.get("hand_sizes"))
        if "hand" in data:
            view["hand"] = data["hand"]
        view["trick"], view["last_trick"] = [], []
    return patched


class Choreographer:
    """Makes steps for a table seen from ``layout.bottom_seat``."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def steps(self, before: View, event: Event | None, after: View) -> list[Step]:
        if event is None or not before:
            return [Step([], after)]
        kind = event.get("type")
        if kind == "deal":
            return [self._deal(event, after)]
        if kind == "played":
            return self._played(before, event, after)
        if kind in ("passed", "exchange_taken", "buried"):
            return [self._hand_to_centre(event, after)]
        if kind in ("bid", "bid_passed", "exchange_declined"):
            return [self._say(event, after)]
        return [Step([], after)]

    # --- one builder per kind of event -----------------------------------------------

    def _card_pose(self, code: str | None, seat: int, shown: View, small: bool = False
                   ) -> Pose:
        """Where a seat's card starts from: its spot in our hand, or the seat's back pile."""
        layout = self.layout
        view = trick_view(shown)
        hand = view.get("hand") or []
        if seat == view.get("seat") and code in hand:
            rects = layout.hand_rects(len(hand))
            rect = rects[hand.index(code)]
            return Pose(*rect.center)
        x, y = layout.seat_anchor(seat)
        return Pose(x, y, 0.5 if small or layout.relative(seat) else 1.0)

    def _deal(self, event: Event, after: View) -> Step:
        layout = self.layout
        data = event.get("data") or {}
        view = trick_view(after)
        sizes = list(data.get("hand_sizes") or view.get("hand_sizes") or [])
        dealer = view.get("dealer", 0) or 0
        mine = list(view.get("hand") or [])
        rects = layout.hand_rects(len(mine))
        centre = Pose(*layout.deck_point(), 0.5)
        flights: list[Flight | Banner] = []
        # Round the table one card at a time, starting left of the dealer, until all are out.
        for order, (seat, index) in enumerate(dealing_order(sizes, dealer + 1)):
            if seat == view.get("seat") and index < len(mine):
                flights.append(Flight("back", centre, Pose(*rects[index].center),
                                      order * DEAL_GAP, FLY, hides=hand_key(mine[index])))
            else:
                x, y = layout.seat_anchor(seat)
                flights.append(Flight("back", centre, Pose(x, y, 0.5), order * DEAL_GAP, FLY,
                                      hides=back_key(seat)))
        return Step(flights, after)

    def _played(self, before: View, event: Event, after: View) -> list[Step]:
        layout = self.layout
        seat = event["seat"]
        code = str((event.get("data") or {}).get("card"))
        start = self._card_pose(code, seat, before)
        slot = Pose(*layout.trick_slot(seat))
        play = Step([Flight(code, start, slot, 0.0, FLY, ease_out_back, hides=trick_key(code))])
        trick = [*trick_view(before).get("trick", []), [seat, code]]
        if any(c == code for _, c in trick_view(after).get("trick", [])):
            play.payload = after
            return [play]
        # The trick is complete: show it whole, then gather it.
        whole = copy.copy(after)
        trick_view(whole)["trick"] = trick
        play.payload = whole
        play.pause = TRICK_PAUSE
        return [play, self._gather(trick, after)]

    def _gather(self, trick: list[list[Any]], after: View) -> Step:
        layout = self.layout
        result = _last_result(after)
        items: list[Flight | Banner] = []
        pile = None if result is None or not result["star"] else result["star_pile"]
        if result is not None and pile is not None:
            target = Pose(*layout.pile_slot(pile), 0.5)
            caption = "White Star!" if result["white"] else "Star!"
            # On the trick it names, which covers no seat's plate at any table size.
            items.append(Banner(caption, Pose(*layout.banner_point, 1.4), 0.0, 1.3))
            for index, (seat, code) in enumerate(trick):
                start = Pose(*layout.trick_slot(seat))
                items.append(Flight(code, start, target, 0.5 + 0.06 * index, GATHER * 1.4,
                                    ease_in_out_cubic, hides=pile_key(code), hold=True,
                                    flash=True))
            return Step(items, after)
        winner = _taker(after, result)
        if winner is None:
            return Step([], after)
        x, y = layout.seat_anchor(winner)
        target = Pose(x, y, 0.45, 0.0)
        for index, (seat, code) in enumerate(trick):
            items.append(Flight(code, Pose(*layout.trick_slot(seat)), target, 0.04 * index, GATHER,
                                ease_in_out_cubic, hold=True))
        return Step(items, after)

    def _hand_to_centre(self, event: Event, after: View) -> Step:
        """Passing, burying or discarding: face-down cards leave the seat for the middle."""
        layout = self.layout
        seat = event.get("seat")
        data = event.get("data") or {}
        count = len(data.get("cards") or []) or int(data.get("count") or 0)
        if seat is None or not count:
            return Step([], after)
        start = Pose(*layout.seat_anchor(seat), 0.5)
        end = Pose(*layout.centre, 0.5, 0.0)
        flights = [Flight("back", start, end, 0.06 * i, FLY * 1.3, ease_in_out_cubic)
                   for i in range(count)]
        return Step(list(flights), after)

    def _say(self, event: Event, after: View) -> Step:
        seat = event.get("seat")
        if seat is None:
            return Step([], after)
        kind = event.get("type")
        data = event.get("data") or {}
        words = {"bid": f"{data.get('amount')}", "bid_passed": "Pass",
                 "exchange_declined": "No thanks"}.get(str(kind), str(kind))
        # On the seat's own cards (the user's: its plate), never over the status line.
        return Step([Banner(words, Pose(*self.layout.bubble_point(seat)), 0.0, 0.9)], after)


def _last_result(shown: View) -> StarsTrick | None:
    """Where the last trick went: Stars' view says it (Hearts': only who took it)."""
    view = trick_view(shown)
    tricks = view.get("tricks") if is_stars(view) else None
    return tricks[-1] if tricks else None


def _taker(shown: View, result: StarsTrick | None) -> int | None:
    if result is not None and result["taker"] is not None:
        return result["taker"]
    return trick_view(shown).get("last_winner")
