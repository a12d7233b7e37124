"""Keeping C libraries quiet: SDL's video and audio drivers print their own complaints to
standard error while they are tried, where a user would take them for the program's."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def c_stderr_silenced() -> Iterator[None]:
    """Standard error at the file-descriptor level (where C libraries write) goes nowhere."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no standard error at all: nothing to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
