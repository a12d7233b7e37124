"""Reading a request's fields: each one checked for presence, type and size, or refused with
an error that names it. Nothing is coerced: a wrong type is a refusal, not a guess. An optional
field sent as nil is taken as absent, as everywhere in the protocol (``rid`` included); an
integer must be one a message may hold, signed 64-bit (``protocol.SMALLEST_INT`` ..
``protocol.LARGEST_INT``), though msgpack also reads larger unsigned ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from starhall.shared import protocol

MAX_TEXT_CHARS = 256
SMALLEST_INT: Final = protocol.SMALLEST_INT
LARGEST_INT: Final = protocol.LARGEST_INT
MAX_MAP_ENTRIES = 64


class RequestError(Exception):
    """A request refused; becomes an ``error`` reply with ``code``, ``reason`` and ``extra``."""

    def __init__(self, code: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.extra = extra


def _bad(key: str, what: str) -> RequestError:
    return RequestError(protocol.BAD_FIELD, f"'{key}' must be {what}", field=key)


def text(message: Mapping[str, Any], key: str, *, max_chars: int = MAX_TEXT_CHARS,
         default: str | None = None) -> str:
    value = message.get(key)
    if value is None:
        value = default
    if not isinstance(value, str) or not 0 < len(value) <= max_chars:
        raise _bad(key, f"a string of 1 to {max_chars} characters")
    return value


def optional_text(message: Mapping[str, Any], key: str, *,
                  max_chars: int = MAX_TEXT_CHARS) -> str | None:
    if message.get(key) is None:
        return None
    return text(message, key, max_chars=max_chars)


def whole(message: Mapping[str, Any], key: str, *, minimum: int = 0,
          maximum: int = LARGEST_INT) -> int:
    value = message.get(key)
    if type(value) is not int or not minimum <= value <= maximum:
        raise _bad(key, f"a whole number from {minimum} to {maximum}")
    return value


def optional_whole(message: Mapping[str, Any], key: str, *, minimum: int = 0,
                   maximum: int = LARGEST_INT) -> int | None:
    if message.get(key) is None:
        return None
    return whole(message, key, minimum=minimum, maximum=maximum)


def mapping(message: Mapping[str, Any], key: str, *, required: bool = False) -> dict[str, Any]:
    value = message.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict) or len(value) > MAX_MAP_ENTRIES or not all(
        isinstance(name, str) for name in value
    ):
        raise _bad(key, f"a map of at most {MAX_MAP_ENTRIES} string keys")
    return value


def flag(message: Mapping[str, Any], key: str) -> bool:
    """An optional ``true`` or ``false`` (absent: ``false``)."""
    value = message.get(key)
    if value is None:
        return False
    if type(value) is not bool:
        raise _bad(key, "true or false")
    return value


def _id_words(least_chars: int) -> str:
    return (f"a whole number (signed 64-bit) or a string of {least_chars} to "
            f"{protocol.MAX_CID_CHARS} characters")


def command_id(message: Mapping[str, Any], key: str = "cid") -> int | str:
    value = message.get(key)
    if type(value) is int:
        if SMALLEST_INT <= value <= LARGEST_INT:
            return value
    elif isinstance(value, str) and 0 < len(value) <= protocol.MAX_CID_CHARS:
        return value
    raise _bad(key, _id_words(1))


def request_id(message: Mapping[str, Any]) -> int | str | None:
    """The ``rid`` to copy into the reply (``None`` when there is none); one that breaks the
    rule is refused, since the client could not match its reply."""
    value = message.get("rid")
    if value is None or (type(value) is int and SMALLEST_INT <= value <= LARGEST_INT) or (
            isinstance(value, str) and len(value) <= protocol.MAX_CID_CHARS):
        return value
    raise _bad("rid", _id_words(0))


def request_key(message: Mapping[str, Any]) -> str | None:
    """A ``sit``'s or ``create``'s ``key``: the client's name for the request, so a resend
    gets the same answer."""
    value = message.get("key")
    if value is None:
        return None
    if not isinstance(value, str) or not (
            protocol.MIN_KEY_CHARS <= len(value) <= protocol.MAX_KEY_CHARS):
        raise _bad("key", f"a string of {protocol.MIN_KEY_CHARS} to {protocol.MAX_KEY_CHARS} "
                          "characters, chosen at random for the request")
    return value


def optional_choices(message: Mapping[str, Any], key: str,
                     choices: tuple[str, ...]) -> set[str] | None:
    """A list of some of ``choices``, as a set; ``None`` when absent."""
    value = message.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(item in choices for item in value):
        raise _bad(key, f"a list of some of {', '.join(choices)}")
    return set(value)
