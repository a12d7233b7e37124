"""Deals from deal numbers, and the one check of a shuffle that every game applies.

A seed (a shareable deal number) always gives the same order, on every machine and Python
version: the order comes from ``random.Random(seed).random()``, whose sequence Python
guarantees to keep, through a Fisher-Yates shuffle written out here rather than
``Random.shuffle``, whose algorithm Python does not promise to keep. The resulting order is
what the log records, so rebuilding a game never draws a random number; a seed logged with
it is checked against it (``shuffle_event``).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

from starhall.shared.cards import Chance
from starhall.shared.engine import ChanceRequest, Command, Event, IllegalCommand, require

MAX_SEED = 2**63 - 1
"""The highest seed a shuffle may carry where a game does not number its deals."""


def seeded_order(items: Sequence[str], seed: int) -> list[str]:
    return shuffled(items, random.Random(seed))


def shuffled(items: Sequence[str], chance: Chance) -> list[str]:
    """``items`` in an order drawn from ``chance`` (a Fisher-Yates shuffle, one draw a place
    but the first)."""
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = int(chance.random() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


def new_seed() -> int:
    """A fresh deal number from the operating system's randomness."""
    return secrets.randbelow(MAX_SEED)


def shuffle_command(request: ChanceRequest, seed: int) -> Command:
    """The host's answer to a chance request: the order the deal number gives (the game's own
    deal number where it fixes or numbers its deals)."""
    number = request.deal_number(seed)
    return Command("shuffle", None, {"order": seeded_order(request.items, number),
                                     "seed": number})


def shuffle_event(request: ChanceRequest | None, command: Command, event_type: str) -> Event:
    """A host's ``shuffle`` command checked against the game's request, as one event: every
    game's rule, for the live server and for every reader of a log alike.

    ``order`` must hold exactly the cards to shuffle. ``seed`` may be left out (an order dealt
    by hand: tests, made deals, a writer that cannot reproduce ``seeded_order``); given, it
    must be a deal number the request allows (the table's own where it fixes one, which it
    then must give; 1 to ``deals`` where the game numbers its deals; else 0 to ``MAX_SEED``)
    and ``order`` must be the one it gives. The host only ever sends the order its seed gave,
    so a seed and an order that disagree are a forged or damaged log, never a deal to play."""
    if request is None:
        raise IllegalCommand("wrong_phase", "the game is not waiting for a shuffle")
    if command.seat is not None:
        raise IllegalCommand("not_allowed", "only the host can shuffle, not a seat")
    order = command.data.get("order")
    if not isinstance(order, Sequence) or isinstance(order, str | bytes):
        raise IllegalCommand("bad_command", "a shuffle needs 'order', a list of card codes")
    try:
        given = set(order)
    except TypeError:  # a list or a map among the codes: unhashable, so not a card code
        given = set()
    if len(given) != len(order) or given != set(request.items):
        raise IllegalCommand(
            "bad_shuffle", f"the order must hold exactly the {len(request.items)} cards to shuffle"
        )
    data: dict[str, Any] = {"order": list(order)}
    seed = command.data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise IllegalCommand("bad_command", "a shuffle's 'seed' must be a whole number")
    fixed = request.deal
    if fixed is not None:
        require(seed == fixed, "bad_shuffle",
                f"this table plays deal number {fixed}: shuffle by it")
    if seed is not None:
        low, high = (0, MAX_SEED) if request.deals is None else (1, request.deals)
        require(low <= seed <= high, "bad_shuffle",
                f"deal numbers run from {low} to {high}, not {seed}")
        require(data["order"] == seeded_order(request.items, seed), "bad_shuffle",
                f"the order is not the one deal number {seed} gives")
        data["seed"] = seed
    return Event(event_type, None, data)
