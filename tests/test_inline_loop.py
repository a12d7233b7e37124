"""The asyncio loop the server's own thread runs in slices (``server/inline_loop.py``), which
the JetStream store's commits run on: nothing of it runs until its owner runs it; a wait ends
when its work does, or at its timeout with the work left to a later run; a wait's own stop is
never left to cut a later one short; a tick runs what is ready and never waits; its
descriptor is readable while input waits for it (the server's loop polls it beside its
socket); closing cancels what is left."""

from __future__ import annotations

import asyncio
import select
import socket

import pytest

from starhall.server.inline_loop import TICK_ROUNDS, InlineLoop


async def steps(count: int, done: list[int]) -> int:
    """``count`` iterations of the loop, then done."""
    for _ in range(count):
        await asyncio.sleep(0)
    done.append(count)
    return count


def test_nothing_runs_until_its_owner_runs_the_loop_then_a_wait_ends_with_the_work() -> None:
    inline = InlineLoop()
    try:
        done: list[int] = []
        task = inline.start(steps(3, done))
        assert done == [] and not task.done()
        assert inline.wait(task, None)
        assert done == [3] and task.result() == 3
    finally:
        inline.close(1.0)


def test_a_wait_past_its_timeout_leaves_the_work_to_a_later_run() -> None:
    inline = InlineLoop()
    try:
        gate = inline.loop.create_future()
        assert not inline.wait(gate, 0.0)  # nothing sets it: the wait ends at its timeout
        inline.loop.call_soon(gate.set_result, "open")
        assert inline.wait(gate, None) and gate.result() == "open"
    finally:
        inline.close(1.0)


def test_a_wait_whose_work_ends_as_its_timer_does_leaves_no_stop_for_the_next() -> None:
    """The work done in the very iteration the timer stops the loop: its done callback (a
    stop) runs only in the loop's next run, which it must not end after one iteration."""
    inline = InlineLoop()
    loop = inline.loop
    try:
        first = loop.create_future()
        loop.call_soon(first.set_result, 1)  # done in the timer's iteration
        assert inline.wait(first, 0.0)
        second = loop.create_future()
        # Done only two iterations later: a stale stop would end the wait before.
        loop.call_soon(loop.call_soon, second.set_result, 2)
        assert inline.wait(second, 30.0) and second.result() == 2
    finally:
        inline.close(1.0)


def test_a_tick_runs_what_is_ready_and_never_waits() -> None:
    inline = InlineLoop()
    try:
        done: list[int] = []
        quick = inline.start(steps(TICK_ROUNDS - 2, done))
        never = inline.loop.create_future()
        waiting = inline.start(asyncio.wait_for(never, 3600))
        inline.tick(quick)
        assert quick.done() and done == [TICK_ROUNDS - 2]
        inline.tick()  # nothing ready: returns at once, the waiting task still waits
        assert not waiting.done()
    finally:
        inline.close(1.0)
    assert waiting.cancelled()  # closing cancelled it


def test_run_gives_the_result_or_gives_up_at_its_timeout() -> None:
    inline = InlineLoop()
    try:
        assert inline.run(steps(2, []), 30.0) == 2
        never = inline.loop.create_future()
        with pytest.raises(TimeoutError):
            inline.run(asyncio.wait_for(never, 3600), 0.0)
        assert never.cancelled()  # the work given up was cancelled
    finally:
        inline.close(1.0)
    assert inline.loop.is_closed()


def test_its_descriptor_is_readable_while_input_waits_and_a_tick_reads_it() -> None:
    inline = InlineLoop()
    ours, theirs = socket.socketpair()
    try:
        fileno = inline.fileno()
        assert fileno is not None
        heard: list[bytes] = []
        inline.loop.add_reader(ours.fileno(), lambda: heard.append(ours.recv(100)))
        assert select.select([fileno], [], [], 0)[0] == []  # nothing waits
        theirs.send(b"ack")
        assert select.select([fileno], [], [], 30)[0] == [fileno]  # what a poll wakes for
        inline.tick()
        assert heard == [b"ack"]
        assert select.select([fileno], [], [], 0)[0] == []  # read: no more wake-ups
        inline.loop.remove_reader(ours.fileno())
    finally:
        ours.close()
        theirs.close()
        inline.close(1.0)
