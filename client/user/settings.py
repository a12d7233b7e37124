"""The player's settings: name, animation speed, card size, colour-blind marks, sound and how
long a hand summary stays.

Kept in ``settings.json`` in the user's config folder (``platformdirs``'
``user_config_dir("starhall")``, or ``$STARHALL_CONFIG_DIR`` when set, which tests use).
``current()`` reads the file once; a missing file gives the defaults, an unreadable or corrupt
one gives the defaults and one line on stderr (never a traceback), and a value that makes no
sense falls back to its default alone. ``save`` writes the whole file to a temporary file
beside it and moves it into place, so a failed write leaves both the file and ``current()``
as they were (it raises ``SettingsError`` with a sentence for the window).
"""

from __future__ import annotations

import json
import math
import socket
import sys
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from starhall.client.user.folders import config_dir
from starhall.shared.atomic_files import RenamedError, write_durably

FILE_NAME = "settings.json"
NAME_LIMIT = 32
CARD_SIZES = ("small", "normal", "large")
ANIMATION_SPEEDS = (0.5, 1.0, 1.5, 2.0)
"""The choices the settings screen offers (any value in ``SPEED_RANGE`` is accepted)."""
SPEED_RANGE = (0.25, 4.0)
SUMMARY_DELAYS: tuple[float | None, ...] = (None, 3.0, 5.0, 10.0)
"""The choices the settings screen offers; None = until dismissed."""


class SettingsError(OSError):
    """The settings could not be saved; the message says why in words."""


@dataclass(frozen=True)
class Settings:
    name: str = ""
    """The player's name ("" = not chosen: use the login name)."""
    animation_speed: float = 1.0
    """1.0 normal; 0.5 slower; 2.0 faster."""
    card_size: str = "normal"
    """"small" | "normal" | "large"."""
    colour_blind: bool = False
    """Marks and patterns on top of colours wherever a game offers them."""
    sound: bool = True
    """Sounds on or off (silent anyway without an audio device)."""
    summary_delay: float | None = None
    """Seconds a hand summary stays; None = until dismissed."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["version"] = 1
        return data


DEFAULTS = Settings()


def clean_name(name: str) -> str:
    """A name as it is kept: one line, no surrounding spaces, at most ``NAME_LIMIT``
    characters."""
    return " ".join(str(name).split())[:NAME_LIMIT]


def _checked(key: str, value: Any) -> Any:
    """``value`` for field ``key`` as kept, or raise ValueError when it makes no sense."""
    if key == "name":
        if not isinstance(value, str):
            raise ValueError
        return clean_name(value)
    if key == "animation_speed":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError
        speed = float(value)
        if not (math.isfinite(speed) and SPEED_RANGE[0] <= speed <= SPEED_RANGE[1]):
            raise ValueError
        return speed
    if key == "card_size":
        if value not in CARD_SIZES:
            raise ValueError
        return value
    if key in ("colour_blind", "sound"):
        if not isinstance(value, bool):
            raise ValueError
        return value
    if key == "summary_delay":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError
        delay = float(value)
        if not (math.isfinite(delay) and 0 < delay <= 600):
            raise ValueError
        return delay
    raise ValueError


def from_json(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """Settings from a decoded file, and the names of the fields that fell back to their
    defaults because their values made no sense."""
    values: dict[str, Any] = {}
    bad: list[str] = []
    for field in fields(Settings):
        if field.name not in data:
            continue
        try:
            values[field.name] = _checked(field.name, data[field.name])
        except ValueError:
            bad.append(field.name)
    return replace(DEFAULTS, **values), bad




def settings_path() -> Path:
    return config_dir() / FILE_NAME


def _warn(message: str) -> None:
    print(f"starhall: {message}", file=sys.stderr)


def load(path: Path | None = None) -> Settings:
    """The settings in ``path`` (default: the user's file), without caching."""
    path = path or settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DEFAULTS
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "not text"
        _warn(f"cannot read the settings in {path} ({reason}); using the defaults")
        return DEFAULTS
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        _warn(f"the settings in {path} are not valid settings; using the defaults")
        return DEFAULTS
    settings, bad = from_json(data)
    if bad:
        _warn(f"the settings in {path} have unusable {', '.join(bad)}; using the default"
              f"{'s' if len(bad) > 1 else ''} for {'them' if len(bad) > 1 else 'it'}")
    return settings


_current: Settings | None = None


def current() -> Settings:
    """The player's settings, read from the file the first time they are asked for."""
    global _current
    if _current is None:
        _current = load()
    return _current


def forget() -> None:
    """Read the file again next time (tests change ``$STARHALL_CONFIG_DIR``)."""
    global _current
    _current = None


def save(settings: Settings) -> None:
    """Write ``settings`` to the user's file and make them current. A failed write raises
    ``SettingsError`` and changes nothing: the old file stays whole and ``current()`` keeps
    the old settings."""
    global _current
    settings = replace(settings, name=clean_name(settings.name))
    path = settings_path()
    body = json.dumps(settings.to_json(), indent=1, sort_keys=True) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_durably(path, body.encode("utf-8"))
    except RenamedError:
        pass  # the new file is in place; only the folder's sync failed
    except OSError as error:
        reason = error.strerror or str(error)
        raise SettingsError(f"Could not save the settings in {path.parent}: {reason}.") \
            from error
    _current = settings


def login_name() -> str:
    """The name the system knows the user by (the host's name for root or no user)."""
    try:
        import getpass

        name = getpass.getuser()
    except Exception:  # no user database in some containers
        name = ""
    return (name if name and name != "root" else socket.gethostname() or "Player")[:32]


def player_name() -> str:
    """The chosen name, else the login name."""
    return current().name or login_name()
