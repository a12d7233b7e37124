"""Who sits where, as a log records it (``docs/replay-format.md`` §2 and §4).

A seat is a map of four keys, the fields a seat has in the protocol's ``TableInfo`` that do
not change from one moment to the next: ``state`` (``free``, ``player`` or ``bot``), ``name``
(nil for a free seat), ``bot`` (the kind, for a bot) and ``standin`` (a bot playing for a
person who still owns the seat, under the person's name); a bot's seat has a fifth,
``level`` (``easy``, ``normal`` or ``strong``: the level its kind plays at), when its kind has
one. A log's header holds every seat as
the table began, and a ``seating`` record each change after; a checkpoint holds the seating
then.

A server's log is the one place a table's seating is kept, so a seat a person owns (theirs,
or a stand-in bot's playing for them) has a sixth key, ``owner``: what lets the server know
the person's token again after a restart, and nothing that gives anyone the seat: the token's
salted SHA-256 (``token_hash``), the event after which they took the seat (``since``) and,
for a token a keyed ``sit`` made, the random value it was worked out with (``key_salt``;
without the key, which never leaves the client, it gives nothing). A token is 144 random bits
(as is a keyed one, an HMAC), so its hash cannot be turned back into it; the table's salt (its
header's ``token_salt``) makes a hash worth nothing at any other table. What people are shown
of a seat (``public_seat``) has no owner.
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


OWNER = "owner"
"""The key of a seat map that says who owns the seat (``read_owner``); never shown to people."""


def seat_entry(state: str, name: str | None = None, bot: str | None = None,
               standin: bool = False, level: str | None = None,
               owner: SeatMap | None = None) -> SeatMap:
    """The map that records one seat (the one place it is made: ``TableInfo`` shows it);
    ``level`` only for a bot whose kind has one (logs before levels have none); ``owner``
    only in a server's log, for a seat a person owns (``read_owner``)."""
    entry: SeatMap = {"state": state, "name": name, "bot": bot, "standin": standin}
    if level is not None:
        entry["level"] = level
    if owner is not None:
        entry[OWNER] = owner
    return entry


def public_seat(seat: SeatMap) -> SeatMap:
    """A seat as people may see it: without its ``owner``."""
    if OWNER not in seat:
        return seat
    return {key: value for key, value in seat.items() if key != OWNER}


def owner_entry(token_hash: str, since: int, key_salt: str | None) -> SeatMap:
    """A seat's ``owner``: the owner's token's salted hash, the event after which they took the
    seat, and the salt of a keyed token."""
    owner: SeatMap = {"token_hash": token_hash, "since": since}
    if key_salt is not None:
        owner["key_salt"] = key_salt
    return owner


def read_owner(body: Any) -> SeatMap:
    """A seat's ``owner`` checked (``ValueError`` saying why it is none)."""
    if not isinstance(body, dict):
        raise ValueError("a seat's owner is a map")
    token_hash, since, key_salt = body.get("token_hash"), body.get("since"), body.get("key_salt")
    if not isinstance(token_hash, str) or not token_hash:
        raise ValueError("a seat's owner has a token_hash")
    if type(since) is not int or since < 0:
        raise ValueError("a seat's owner has a since: an event number")
    if key_salt is not None and not isinstance(key_salt, str):
        raise ValueError("a seat's owner's key_salt is a string")
    return owner_entry(token_hash, since, key_salt)


def free_seats(players: int) -> list[SeatMap]:
    return [seat_entry(FREE) for _ in range(players)]


def read_seat(body: Any) -> SeatMap:
    """The seat a map records (its keys; others are left out), or ``ValueError`` saying why it
    is none. ``name`` and ``bot`` may be absent for nil, ``standin`` for false."""
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
    owner = body.get(OWNER)
    if owner is not None:
        if state != PLAYER and not standin:
            raise ValueError("only a person's seat has an owner")
        owner = read_owner(owner)
    return seat_entry(state, name, bot, standin, level, owner)


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
