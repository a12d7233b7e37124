"""Deals from deal numbers.

A seed (a shareable deal number) always gives the same order, on every machine and Python
version: the order comes from ``random.Random(seed).random()``, whose sequence Python
guarantees to keep, through a Fisher-Yates shuffle written out here rather than
``Random.shuffle``, whose algorithm Python does not promise to keep. The resulting order is
what the log records, so rebuilding a game never draws a random number.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from starhall.shared.engine import ChanceRequest, Command

MAX_SEED = 2**63 - 1


def seeded_order(items: Sequence[str], seed: int) -> list[str]:
    draw = random.Random(seed).random
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = int(draw() * (i + 1))
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
