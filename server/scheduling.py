"""Giving the core to a thread the server's loop has just woken."""

from __future__ import annotations

import os
from collections.abc import Callable

_sched_yield: Callable[[], None] = getattr(os, "sched_yield", lambda: None)


def hand_over_core() -> None:
    """Let a thread this one has just woken run now. Linux tends to wake a thread on its
    waker's core, expecting the waker to sleep soon, as a request-reply loop does; the
    server's loop does not (it goes on with its batch), so the woken thread would wait for it:
    the socket's I/O thread with the mover's update (about 100 us of a move's 550 in the
    loopback bench, on 2 cores), or the sync thread with a move's write, which would reach the
    disk only once the loop waits. Where nothing waits for this core, the yield returns at
    once."""
    _sched_yield()
