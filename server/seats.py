"""Who sits where at a table, and who owns each seat, as the server keeps it in memory.

A table's log is the one truth for its seating (``shared.seating``): every change of a seat
is a ``seating`` record, written with the batch that made it, and a person's seat records its
``owner``: the token's salted hash, never the token (``token_hash``). Servers before that kept
the seating in a file beside the log, ``<table>.seats.json``; such a file is read as the
table's seating while it is there (``load_legacy_seating``) and a live table moves it into
its log at the next start.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starhall.server.durability import read_whole
from starhall.shared import protocol
from starhall.shared.logfile import SUFFIX
from starhall.shared.seating import (
    BOT,
    LEVELS,
    OWNER,
    SeatMap,
    owner_entry,
    public_seat,
    read_seat,
    seat_entry,
)


def new_token() -> str:
    return secrets.token_urlsafe(18)

SEATING_SUFFIX = ".seats.json"
"""The seating file servers before seating records kept beside a log: ``0001.starhall`` →
``0001.seats.json`` (read while it is there, never written)."""


def new_token_salt() -> str:
    """A new table's ``token_salt`` (its log's header): its tokens' hashes are salted with it."""
    return secrets.token_hex(8)


def token_hash(token: str, salt: str = "") -> str:
    """What a log keeps of a token: its SHA-256, salted with the table's ``token_salt`` (a table
    made before salts has none, and its hashes came from its seating file unsalted)."""
    return hashlib.sha256(f"{salt}{token}".encode()).hexdigest()


def new_key_salt() -> str:
    return secrets.token_hex(8)


def keyed_token(key: str, table: str, seat: int, salt: str | None) -> str:
    """The token a ``sit`` carrying the client's ``key`` gets: worked out from the key and the
    seat's ``key_salt``, so a resent ``sit`` (its reply lost, even to a restart) is answered
    with the same token while only the token's hash is kept. The salt is new each time a key
    takes the seat, so a key that takes a seat again after its person left gets a new token:
    a token made void stays void. The key is as secret as the token it gives. (A seat taken
    before salts has none: its token is worked out from the key alone.)"""
    label = f"starhall-seat\0{table}\0{seat}" if salt is None else \
        f"starhall-seat\0{table}\0{seat}\0{salt}"
    digest = hmac.new(key.encode("utf-8"), label.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode("ascii")


@dataclass(slots=True)
class SeatRecord:
    state: str = protocol.FREE
    """``free``, ``player`` or ``bot``."""
    name: str | None = None
    token_sha256: str | None = None
    """The owner's token hash (``token_hash``, salted): a person's, kept while a stand-in bot
    plays for them."""
    bot_kind: str | None = None
    standin: bool = False
    # Runtime only: the session bound to the seat.
    session: bytes | None = None
    since: int = 0
    """The table's ``seq`` when the seat's person took it: the command ids logged with later
    events of this seat are theirs (the table remembers them: ``Table.commands``). Kept in the
    file; copies of a record must carry it."""
    key_salt: str | None = None
    """The salt of the person's token when a ``sit`` with a ``key`` made it (``keyed_token``);
    kept in the file while they hold the seat."""
    bot_level: str | None = None
    """The level the bot's kind plays at (``shared.bots.level_of``), if it has one."""

    def holds(self, hashed: str) -> bool:
        """Whether the seat's owner has the token of this ``token_hash``."""
        return self.token_sha256 is not None and hmac.compare_digest(self.token_sha256, hashed)

    def seat_person(self, name: str, *, since: int = 0, token: str | None = None,
                    key_salt: str | None = None, salt: str = "") -> str:
        """Give the seat to a person at event ``since``; returns their token (a new one
        unless ``token`` is given, with the ``key_salt`` it was made with if it is keyed),
        whose hash the seat keeps, salted with the table's ``salt``."""
        token = token or new_token()
        self.state, self.name, self.token_sha256 = protocol.PLAYER, name, token_hash(token, salt)
        self.since, self.key_salt = since, key_salt
        self.bot_kind, self.standin, self.session, self.bot_level = None, False, None, None
        return token

    def seat_bot(self, kind: str, *, standin: bool, level: str | None = None) -> None:
        self.state, self.bot_kind, self.standin, self.bot_level = BOT, kind, standin, level
        self.session = None
        if not standin:
            self.name, self.token_sha256, self.key_salt = f"{kind} bot", None, None

    def free(self) -> None:
        self.state, self.name, self.token_sha256 = protocol.FREE, None, None
        self.bot_kind, self.standin, self.session = None, False, None
        self.key_salt = self.bot_level = None

    def end_standin(self) -> None:
        """The person is back: their stand-in bot goes."""
        self.state, self.bot_kind, self.standin = protocol.PLAYER, None, False
        self.bot_level = None

    def public(self) -> SeatMap:
        """The seat as everyone at the table sees it: no owner."""
        return seat_entry(self.state, self.name, self.bot_kind, self.standin, self.bot_level)

    def logged(self) -> SeatMap:
        """The seat as the log records it: with its owner's token hash, never the token."""
        owner = None if self.token_sha256 is None else owner_entry(
            self.token_sha256, self.since, self.key_salt)
        return seat_entry(self.state, self.name, self.bot_kind, self.standin, self.bot_level,
                          owner)

    @classmethod
    def from_logged(cls, seat: SeatMap | None) -> SeatRecord:
        """The seat a log records (``read_seat``'s map); a free one for a seat it does not
        name (``None``: a log of format 1)."""
        if seat is None:
            return cls()
        owner = seat.get(OWNER)
        return cls(seat["state"], seat["name"],
                   None if owner is None else owner["token_hash"], seat["bot"],
                   seat["standin"], since=0 if owner is None else owner["since"],
                   key_salt=None if owner is None else owner.get("key_salt"),
                   bot_level=seat.get("level"))

    def copy(self) -> SeatRecord:
        return SeatRecord(self.state, self.name, self.token_sha256, self.bot_kind,
                          self.standin, self.session, self.since, self.key_salt,
                          self.bot_level)

    def assign(self, other: SeatRecord) -> None:
        """Become ``other`` (the record stays the same object: handlers hold it)."""
        self.state, self.name, self.token_sha256 = other.state, other.name, other.token_sha256
        self.bot_kind, self.standin, self.session = other.bot_kind, other.standin, other.session
        self.since, self.key_salt, self.bot_level = other.since, other.key_salt, other.bot_level

    @classmethod
    def from_file(cls, data: dict[str, Any]) -> SeatRecord:
        """A seat of an older server's seating file (``load_legacy_seating``)."""
        state = data.get("state")
        if state not in (protocol.FREE, protocol.PLAYER, BOT):
            raise ValueError(f"unknown seat state {state!r}")
        since = data.get("since", 0)
        if type(since) is not int:
            raise ValueError(f"seat 'since' {since!r} is not an event number")
        salt = data.get("key_salt")
        if salt is not None and not isinstance(salt, str):
            raise ValueError(f"seat 'key_salt' {salt!r} is not a string")
        level = data.get("level")
        if level is not None and level not in LEVELS:
            raise ValueError(f"seat 'level' {level!r} is not one of {', '.join(LEVELS)}")
        return cls(state, data.get("name"), data.get("token_sha256"), data.get("bot"),
                   bool(data.get("standin")), since=since, key_salt=salt, bot_level=level)


def seats_from_body(data: Any, players: int, source: str | Path
                    ) -> tuple[str | None, list[SeatRecord]]:
    """The table's name and seats from a seating file's JSON (``source`` names it)."""
    seats = [SeatRecord.from_file(item) for item in data["seats"]]
    if len(seats) != players:
        raise ValueError(f"{source}: {len(seats)} seats for a {players}-player game")
    name = data.get("name")
    return name if isinstance(name, str) else None, seats


def load_legacy_seating(path: Path, players: int) -> list[SeatRecord] | None:
    """The seats of an older server's seating file (``SEATING_SUFFIX``); ``None`` if there is
    none."""
    try:
        text = read_whole(path)
    except FileNotFoundError:
        return None
    return seats_from_body(json.loads(text), players, path)[1]


def distinct_name(wanted: str, taken: set[str], limit: int = protocol.MAX_NAME_CHARS) -> str:
    """``wanted``, or ``wanted (2)``, ``(3)`` … when another seat at the table already has that
    name (two windows of one user send the same name), cut to fit ``limit``."""
    if wanted not in taken:
        return wanted
    number = 2
    while True:
        suffix = f" ({number})"
        candidate = wanted[:limit - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1


def known_seating(seats: list[SeatMap | None], log: str | Path) -> list[SeatMap | None]:
    """``seats`` (a log's, ``Recording.seats_at``) as people may see them (no ``owner``), with
    those it does not name taken from the seating file an older server kept beside ``log``: a
    log of format 1 written by a server names nobody (its header was written before anyone
    sat), and the file has the seats as they were last. ``None`` still for a seat neither
    names."""
    shown = [None if seat is None else public_seat(seat) for seat in seats]
    if all(seat is not None for seat in shown):
        return shown
    path = Path(log)
    try:
        beside = load_legacy_seating(
            path.with_name(path.name.removesuffix(SUFFIX) + SEATING_SUFFIX), len(seats))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return shown
    if beside is None:
        return shown
    return [seat if seat is not None else _readable(other.public())
            for seat, other in zip(shown, beside, strict=True)]


def _readable(seat: SeatMap) -> SeatMap | None:
    try:
        return read_seat(seat)
    except ValueError:  # a seating file written by hand, say
        return None
