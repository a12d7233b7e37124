"""Table options: each game declares its options once; values are checked and defaulted here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starhall.shared.protocol import LARGEST_INT, SMALLEST_INT

Options = dict[str, Any]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    kind: type
    """``bool``, ``int`` or ``str``."""
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _convert(spec: OptionSpec, value: object) -> Any:
    if spec.kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise ValueError(f"option {spec.name} takes true or false, not {value!r}")
    if spec.kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value)
        else:
            raise ValueError(f"option {spec.name} takes a whole number, not {value!r}")
        # An option without a bound still has those of the integers a message or log holds.
        least = SMALLEST_INT if spec.minimum is None else spec.minimum
        most = LARGEST_INT if spec.maximum is None else spec.maximum
        if number < least:
            raise ValueError(f"option {spec.name} must be at least {least}, not {number}")
        if number > most:
            raise ValueError(f"option {spec.name} must be at most {most}, not {number}")
        return number
    if not isinstance(value, str):
        raise ValueError(f"option {spec.name} takes a word, not {value!r}")
    return value


def normalize_options(specs: tuple[OptionSpec, ...], raw: Mapping[str, object]) -> Options:
    """Every declared option with a checked value, in declaration order; unknown keys refused."""
    by_name = {spec.name: spec for spec in specs}
    unknown = sorted(str(key) for key in raw if key not in by_name)
    if unknown:
        known = ", ".join(by_name) or "none"
        raise ValueError(f"unknown option {', '.join(unknown)} (options: {known})")
    options: Options = {}
    for spec in specs:
        value = _convert(spec, raw[spec.name]) if spec.name in raw else spec.default
        if spec.choices is not None and value not in spec.choices:
            choices = ", ".join(map(str, spec.choices))
            raise ValueError(f"option {spec.name} is one of {choices}, not {value!r}")
        options[spec.name] = value
    return options


def parse_assignments(pairs: list[str]) -> dict[str, str]:
    """``["mode=exchange", "target=50"]`` from a command line into a mapping."""
    result: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"an option is written KEY=VALUE, not {pair!r}")
        result[key.strip()] = value.strip()
    return result
