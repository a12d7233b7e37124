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
for starting and closing). Its owner may wait for its sockets beside its own: ``fileno`` is
readable when the loop has input to read (then a ``tick`` reads it). It must never be run by
two threads at once; a thread that runs an asyncio loop of its own cannot run this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

TICK_ROUNDS = 12
"""The loop's iterations a ``tick`` runs at most: an acknowledgement read from the socket
reaches the commit that awaits it through half a dozen tasks and futures (the connection's
reader, the request, the publish and its retries, the gathering of the commit's tables), each
woken for the next iteration; twice that, for what arrives during the tick."""


SEND_ROUNDS = 2
"""The loop's iterations that put a new commit's publishes on the wire: its task runs to the
wait for the acknowledgements, then nats-py's flusher writes what it queued."""


class InlineLoop:
    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self.loop = asyncio.SelectorEventLoop(self._selector)

    def fileno(self) -> int | None:
        """A descriptor that is readable while the loop's sockets have input waiting (its
        epoll's own), for its owner to poll beside its other sockets; ``None`` where the
        platform's selector has none."""
        fileno = getattr(self._selector, "fileno", None)
        return None if fileno is None else int(fileno())

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

    def tick(self, until: asyncio.Future[Any] | None = None, rounds: int = TICK_ROUNDS) -> None:
        """Run what is ready now (the sockets polled, never waited for): ``rounds``
        iterations of the loop, fewer once ``until`` is done."""
        loop = self.loop
        for _ in range(rounds):
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
