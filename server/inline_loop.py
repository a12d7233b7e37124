"""An asyncio loop that no thread runs for ever: the one thread that uses it (the server's
loop) runs it in slices, while it waits for what the loop does and when it looks in on it.

What such a loop does costs no hand-over between threads. A JetStream commit sent from a loop
on a thread of its own (``jetstream.Bridge``) takes two: the server's thread wakes the
bridge's (a self-pipe write), and the bridge's, once the acknowledgement is in, wakes the
server's (a condition), each a scheduling delay on a busy machine and the GIL passed over.
Run here, the server's thread sends the publish, sleeps in the loop's ``epoll`` until the
acknowledgement arrives, and reads it itself, as a client of its own would.

Nothing runs here unless the owner runs the loop: ``wait`` (for a piece of work, at most so
long), ``tick`` (what is ready now, never waiting) and ``run`` (a piece of work to its end,
for starting and closing). It must never be run by two threads at once; a thread that runs
an asyncio loop of its own cannot run this one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

TICK_ROUNDS = 4
"""The loop's iterations a ``tick`` runs at most: an acknowledgement read from the socket
reaches the publish that awaits it through a few tasks (the connection's reader, its parser,
the publish), each woken for the next iteration."""


class InlineLoop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def start(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """``work`` as a task of the loop, which runs once the loop does."""
        return self.loop.create_task(work)

    def wait(self, future: asyncio.Future[Any], timeout: float | None) -> bool:
        """Run the loop until ``future`` is done or ``timeout`` seconds have passed (``None``:
        no limit); whether it is done."""
        if future.done():
            return True
        loop = self.loop
        waiting = True

        def stop(_: object = None) -> None:
            # A stop scheduled by this wait but run only after it ended (the future done in
            # the iteration the timer stopped) must not cut a later run short.
            if waiting:
                loop.stop()

        future.add_done_callback(stop)
        timer = None if timeout is None else loop.call_later(max(0.0, timeout), stop)
        try:
            loop.run_forever()
        finally:
            waiting = False
            future.remove_done_callback(stop)
            if timer is not None:
                timer.cancel()
        return future.done()

    def tick(self, until: asyncio.Future[Any] | None = None) -> None:
        """Run what is ready now (the sockets polled, never waited for): ``TICK_ROUNDS``
        iterations of the loop, fewer once ``until`` is done."""
        loop = self.loop
        for _ in range(TICK_ROUNDS):
            loop.call_soon(loop.stop)
            loop.run_forever()
            if until is not None and until.done():
                return

    def run(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        """``work`` run to its end on the loop (``TimeoutError`` past ``timeout`` seconds,
        and the work cancelled)."""
        task = self.start(work)
        if not self.wait(task, timeout):
            task.cancel()
            self.wait(task, 1.0)
            raise TimeoutError("NATS did not answer in time")
        return task.result()

    def close(self, patience: float) -> None:
        """Cancel whatever still runs on the loop and let it end (``patience`` seconds at
        most), then close it."""
        if self.loop.is_closed():
            return
        tasks = asyncio.all_tasks(self.loop)
        for task in tasks:
            task.cancel()
        if tasks:
            with contextlib.suppress(Exception):
                self.wait(self.loop.create_task(_ended(tasks)), patience)
        with contextlib.suppress(Exception):
            self.run(self.loop.shutdown_asyncgens(), patience)
        self.loop.close()


async def _ended(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)
