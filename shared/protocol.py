"""The network protocol's constants and codecs, shared by the server and its clients.

``docs/protocol.md`` is the contract; this module holds the numbers and names it defines, the
msgpack framing of messages and the UDP beacon's datagram. It does no I/O.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

PROTOCOL_VERSION = 1
DEFAULT_PORT = 47474
"""The TCP port ``starhall serve`` binds unless told otherwise."""
BEACON_PORT = 47475
"""The UDP port servers announce themselves to and clients listen on."""
MAX_MESSAGE_BYTES = 65536
"""The largest message either side sends; the server's socket drops peers that exceed it."""
HEARTBEAT_SECONDS = 2.0
TIMEOUT_SECONDS = 6.0
BEACON_INTERVAL_SECONDS = 1.0
SMALLEST_INT, LARGEST_INT = -(2**63), 2**63 - 1
"""The integers a message may hold (signed 64-bit); msgpack also reads unsigned 64-bit ones
(up to 2**64 - 1), which the server refuses wherever it reads an integer."""
MAX_CID_CHARS = 64
MAX_NAME_CHARS = 32
MIN_KEY_CHARS, MAX_KEY_CHARS = 16, 64
"""The length of a ``sit``'s or ``create``'s ``key`` (random, so nobody else guesses it)."""
MAX_PONG_TABLES = 1000
"""The most tables whose ``seq`` one ``pong`` carries."""
MAX_NOTE_CHARS = 300
"""The longest ``note`` a ``report`` carries (the line a player types about a bug)."""
MAX_LIST_TABLES = 100
"""The most tables one ``tables`` reply holds (fewer only if they would not fit in a message)."""

# Requests a client sends.
HELLO, PING, LIST, CREATE, SIT, RESUME, LEAVE = "hello", "ping", "list", "create", "sit", \
    "resume", "leave"
WATCH, UNWATCH, BOT, UNBOT, ACT, SYNC = "watch", "unwatch", "bot", "unbot", "act", "sync"
REPORT, HISTORY = "report", "history"
REQUESTS = (HELLO, PING, LIST, CREATE, SIT, RESUME, LEAVE, WATCH, UNWATCH, BOT, UNBOT, ACT, SYNC,
            REPORT, HISTORY)

# Messages the server sends.
WELCOME, PONG, TABLES, CREATED, SEATED, LEFT = "welcome", "pong", "tables", "created", \
    "seated", "left"
WATCHING, UNWATCHED, BOTTED, UNBOTTED, ACK = "watching", "unwatched", "botted", "unbotted", "ack"
SNAPSHOT, UPDATE, TABLE, ERROR = "snapshot", "update", "table", "error"
REPORTED = "reported"
DRAINING = "draining"
"""Unasked: this node is stopping (SIGTERM) and has handed its tables to the other nodes of
the service, which ``nodes`` names; also the error code of a ``create`` sent to it then."""

# Error codes the server itself gives; any other code is a refusal by the game's rules.
BAD_MESSAGE = "bad_message"
UNKNOWN_TYPE = "unknown_type"
BAD_FIELD = "bad_field"
BAD_PROTOCOL = "bad_protocol"
FLOOD = "flood"
UNKNOWN_GAME = "unknown_game"
BAD_OPTIONS = "bad_options"
SERVER_FULL = "server_full"
NO_TABLE = "no_table"
BAD_SEAT = "bad_seat"
SEAT_TAKEN = "seat_taken"
TABLE_FULL = "table_full"
TABLE_OVER = "table_over"
NOT_STARTED = "not_started"
BAD_TOKEN = "bad_token"
NOT_SEATED = "not_seated"
UNKNOWN_BOT = "unknown_bot"
STALE = "stale"
BROKEN = "broken"
TOO_MANY_REPORTS = "too_many_reports"
INTERNAL = "internal"
ELSEWHERE = "elsewhere"
"""A table another node of the service serves (``address`` says which, if known)."""

# Table status.
WAITING, PLAYING, OVER, BROKEN_STATUS = "waiting", "playing", "over", "broken"
STATUSES = (WAITING, PLAYING, OVER, BROKEN_STATUS)
# Seat state.
FREE, PLAYER = "free", "player"


def new_key() -> str:
    """A fresh ``key`` for a ``sit`` or ``create`` (resend the request with the same one)."""
    return secrets.token_urlsafe(18)


class ProtocolError(ValueError):
    """Bytes that are not a protocol message (not msgpack, not a map, no string ``type``)."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as the bytes of its single frame."""
    packed: bytes = msgpack.packb(message, use_bin_type=True)
    return packed


def encoder() -> Callable[[dict[str, Any]], bytes]:
    """``encode`` for many messages in a row on one thread (a batch the server sends): it
    keeps one packer and its buffer instead of making them for every message."""
    pack: Callable[[dict[str, Any]], bytes] = msgpack.Packer(use_bin_type=True).pack
    return pack


def decode(frame: bytes) -> dict[str, Any]:
    """One frame as a message map, or ``ProtocolError``; never anything else."""
    try:
        message = msgpack.unpackb(
            frame, raw=False, strict_map_key=True,
        )
    except Exception as error:  # msgpack raises several unrelated types on garbage
        raise ProtocolError(f"not a msgpack message ({type(error).__name__})") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message is a msgpack map")
    if not isinstance(message.get("type"), str):
        raise ProtocolError("a message needs a string 'type'")
    return message


# --- the LAN beacon --------------------------------------------------------------------

BEACON_PREFIX = b"STARHALL"
MAX_BEACON_NAME_BYTES = 64


CURVE_KEY_BYTES = 32
"""A CurveZMQ public key's length (docs/protocol.md §1: 40 characters in Z85)."""
KEY_QUERY = BEACON_PREFIX + b"?"
"""The UDP datagram a client sends to a server's TCP port number to hear its beacon (and so
its public key) before it first connects."""


@dataclass(frozen=True, slots=True)
class Beacon:
    """One server's announcement: where its TCP socket listens, what it is called and, when
    it speaks CurveZMQ, its long-term public key (``None``: a plain server)."""

    port: int
    name: str
    key: bytes | None = None


def encode_beacon(beacon: Beacon) -> bytes:
    if not 0 < beacon.port < 65536:
        raise ValueError(f"{beacon.port} is not a TCP port")
    if beacon.key is not None and len(beacon.key) != CURVE_KEY_BYTES:
        raise ValueError(f"a public key has {CURVE_KEY_BYTES} bytes")
    name = beacon.name.replace("\0", "").encode("utf-8")[:MAX_BEACON_NAME_BYTES]
    # The key goes after the name and a NUL, so a plain server's beacon is what it always was.
    key = b"" if beacon.key is None else b"\0" + beacon.key
    return (BEACON_PREFIX + bytes([PROTOCOL_VERSION]) + beacon.port.to_bytes(2, "big") + name
            + key)


def decode_beacon(datagram: bytes) -> Beacon | None:
    """A beacon, or ``None`` for a datagram that is not one of this protocol version's."""
    head = len(BEACON_PREFIX)
    if len(datagram) < head + 3 or not datagram.startswith(BEACON_PREFIX):
        return None
    if datagram[head] != PROTOCOL_VERSION:
        return None
    port = int.from_bytes(datagram[head + 1 : head + 3], "big")
    if port == 0:
        return None
    name_bytes, nul, key = datagram[head + 3 :].partition(b"\0")
    if nul and len(key) != CURVE_KEY_BYTES:
        return None
    name = name_bytes[:MAX_BEACON_NAME_BYTES].decode("utf-8", "replace")
    return Beacon(port, name, key if nul else None)

MAX_THINK_SECONDS = 60.0
"""The longest a bot may be given for a move (``create``'s ``think``, ``--think``)."""
