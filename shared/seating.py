"""Who sits where, as a log records it (``docs/replay-format.md`` §2 and §4).

A seat is a map of four keys, the fields a seat has in the protocol's ``TableInfo`` that do
not change from one moment to the next: ``state`` (``free``, ``player`` or ``bot``), ``name``
(nil for a free seat), ``bot`` (the kind, for a bot) and ``standin`` (a bot playing for a
person who still owns the seat, under the person's name); a bot's seat has a fifth,
``level`` (``easy``, ``normal`` or ``strong``: the level its kind plays at), when its kind has
one. A log's header holds every seat as
the table began, and a ``seating`` record each change after; a checkpoint holds the seating
then. Secrets (tokens, keys) never go into one.
"""

from __future__ import annotations

from typing import Any

from starhall.shared.protocol import FREE, PLAYER

BOT = "bot"
"""The state of a seat a bot plays (``FREE`` and ``PLAYER`` are the protocol's)."""
STATES = (FREE, PLAYER, BOT)

SeatMap = dict[str, Any]


LEVELS = ("easy", "normal", "strong")
"""The levels a person picks a bot by, weakest first (``shared.bots.bot_levels``)."""


def seat_entry(state: str, name: str | None = None, bot: str | None = None,
               standin: bool = False, level: str | None = None) -> SeatMap:
    """The map that records one seat (the one place it is made: ``TableInfo`` shows it);
    ``level`` only for a bot whose kind has one (logs before levels have none)."""
    entry: SeatMap = {"state": state, "name": name, "bot": bot, "standin": standin}
    if level is not None:
        entry["level"] = level
    return entry


def free_seats(players: int) -> list[SeatMap]:
    return [seat_entry(FREE) for _ in range(players)]


def read_seat(body: Any) -> SeatMap:
    """The seat a map records (its four keys; others are left out), or ``ValueError``
    saying why it is none. ``name`` and ``bot`` may be absent for nil, ``standin`` for false."""
    if not isinstance(body, dict):
        raise ValueError("a seat is a map")
    state, name, bot = body.get("state"), body.get("name"), body.get("bot")
    standin = body.get("standin", False)
    level = body.get("level")
    if state not in STATES:
        raise ValueError(f"seat state {state!r} is not free, player or bot")
    if type(standin) is not bool:
        raise ValueError("a seat's standin is true or false")
    if state == FREE:
        if name is not None or bot is not None or standin:
            raise ValueError("a free seat has no name, bot or stand-in")
    elif not isinstance(name, str) or not name:
        raise ValueError(f"a {state} seat needs a name")
    if state == BOT and (not isinstance(bot, str) or not bot):
        raise ValueError("a bot seat names its kind in 'bot'")
    if state == PLAYER and (bot is not None or standin):
        raise ValueError("a player's seat has no bot and no stand-in")
    if level is not None and (state != BOT or level not in LEVELS):
        raise ValueError(f"a seat's level is {', '.join(LEVELS)} or absent, for a bot only")
    return seat_entry(state, name, bot, standin, level)


def read_seats(value: Any, players: int) -> list[SeatMap]:
    """Every seat of a header's or a checkpoint's ``seats`` (``ValueError`` if it is not one
    seat map per player)."""
    if not isinstance(value, list) or len(value) != players:
        raise ValueError(f"seats must be a list of {players} seat maps")
    seats = []
    for number, body in enumerate(value):
        try:
            seats.append(read_seat(body))
        except ValueError as error:
            raise ValueError(f"seat {number}: {error}") from None
    return seats


def older_seats(value: Any, players: int) -> list[SeatMap | None]:
    """The seats a format 1 header names: ``{name, bot}`` maps (a bot's), or ``{name}`` (a
    person's). ``None`` for a seat it does not name: a server wrote "Seat N" there, before
    anyone sat (the names were only in its seating file)."""
    seats: list[SeatMap | None] = [None] * players
    if not isinstance(value, list):
        return seats
    for number, body in enumerate(value[:players]):
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            continue
        name, bot = body["name"], body.get("bot")
        if isinstance(bot, str) and bot:
            seats[number] = seat_entry(BOT, name, bot)
        elif name and name != f"Seat {number}":
            seats[number] = seat_entry(PLAYER, name)
    return seats


def describe_seat(seat: SeatMap | None, number: int) -> str:
    """One line for people: ``seat 1: Bruno, a heuristic bot``."""
    if seat is None:
        return f"seat {number}: not recorded"
    if seat["state"] == FREE:
        return f"seat {number}: free"
    if seat["state"] == PLAYER:
        return f"seat {number}: {seat['name']}"
    level, bot = seat.get("level"), seat["bot"]
    # a kind named after its level says it once: "a strong bot", not "a strong (Strong) bot"
    kind = f"{bot} ({level.capitalize()})" if level and level != bot else bot
    if seat["standin"]:
        return f"seat {number}: {seat['name']}, played by a stand-in {kind} bot"
    if seat["name"] == f"{seat['bot']} bot":  # the name a server gives a bot
        return f"seat {number}: a {kind} bot"
    return f"seat {number}: {seat['name']}, a {kind} bot"
