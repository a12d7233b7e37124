"""The user's Starhall folders: settings in the config folder, statistics and kept games in
the data folder (``platformdirs``' choices for this system). Each can be moved with an
environment variable, which the tests use so that they never touch the user's own."""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_ENV = "STARHALL_CONFIG_DIR"
DATA_ENV = "STARHALL_DATA_DIR"


def _folder(override: str, kind: str) -> Path:
    moved = os.environ.get(override)
    if moved:
        return Path(moved)
    import platformdirs  # only when there is no override: tests and scripts skip it

    chooser = platformdirs.user_config_dir if kind == "config" else platformdirs.user_data_dir
    return Path(chooser("starhall"))


def config_dir() -> Path:
    """The user's Starhall config folder (``$STARHALL_CONFIG_DIR`` overrides it)."""
    return _folder(CONFIG_ENV, "config")


def data_dir() -> Path:
    """The user's Starhall data folder (``$STARHALL_DATA_DIR`` overrides it)."""
    return _folder(DATA_ENV, "data")
