"""How fast the client's link notices a server that is gone, and that a busy one is not
(``client/net/link.py``, docs/protocol.md §7): the link's ZeroMQ heartbeats are answered by
the server's ZeroMQ I/O thread, whatever its loop does. Each test runs a real ROUTER in a
process of its own, on an ``ipc://`` socket in the test's folder (plain: no key to ask), and
the link's own silence timeout is switched off, so that only ZeroMQ's heartbeats can say the
server is lost. Every wait is for an event, with a deadline only against a hang."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from starhall.client.net.link import ALIVE_INTERVAL, ALIVE_TIMEOUT, LOST, ServerLink
from starhall.shared import protocol

SERVER = """
import sys, time
import zmq
from starhall.shared import protocol

busy = float(sys.argv[2])
router = zmq.Context().socket(zmq.ROUTER)
router.bind(sys.argv[1])
print("listening", flush=True)
while True:
    identity, frame = router.recv_multipart()
    message = protocol.decode(frame)
    if message["type"] == protocol.HELLO and busy:
        # the loop holds the interpreter and reads nothing, as a long turn would
        until = time.monotonic() + busy
        spins = 0
        while time.monotonic() < until:
            spins += 1  # no sleep and no read: the interpreter stays busy
    reply = {"type": protocol.WELCOME if message["type"] == protocol.HELLO else protocol.PONG,
             "rid": message.get("rid"), "instance": "one"}
    router.send_multipart([identity, protocol.encode(reply)])
"""


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[str]] = []

    def run(busy: float = 0.0) -> tuple[subprocess.Popen[str], str]:
        address = f"ipc://{tmp_path}/server-{len(started)}"
        process = subprocess.Popen([sys.executable, "-c", SERVER, address, str(busy)],
                                   stdout=subprocess.PIPE, text=True)
        started.append(process)
        assert process.stdout is not None and process.stdout.readline() == "listening\n"
        return process, address

    yield run
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()


def poll_until(link: ServerLink, kind: str, deadline: float = 30.0) -> list[str]:
    """The kinds of message ``link`` handed back, up to the first ``kind``."""
    heard: list[str] = []
    give_up = time.monotonic() + deadline
    while time.monotonic() < give_up:
        link.wait(0.05)
        heard += [str(message["type"]) for message in link.poll()]
        if kind in heard:
            return heard
    raise TimeoutError(f"no {kind} came: {heard}")


def connected(address: str) -> ServerLink:
    link = ServerLink(address)
    poll_until(link, protocol.WELCOME)
    link.timeout = float("inf")  # only ZeroMQ's heartbeats may notice the server gone
    return link


@pytest.mark.parametrize("how", [signal.SIGSTOP, signal.SIGKILL])
def test_a_paused_or_killed_server_is_lost_by_heartbeats_alone(start: Any, how: int) -> None:
    process, address = start()
    link = connected(address)
    process.send_signal(how)  # paused: its sockets live on, and answer nothing
    assert poll_until(link, LOST)[-1] == LOST
    assert link.state == "lost"
    link.close()


def test_a_server_whose_loop_is_busy_is_not_lost(start: Any) -> None:
    # busy twice as long as an unanswered heartbeat takes to drop the connection
    process, address = start(busy=2 * (ALIVE_INTERVAL + ALIVE_TIMEOUT))
    link = ServerLink(address)
    link.timeout = float("inf")
    assert LOST not in poll_until(link, protocol.WELCOME)
    link.send({"type": protocol.PING})
    assert LOST not in poll_until(link, protocol.PONG)
    assert link.state == "connected"
    link.close()


def test_a_lost_link_says_hello_again_and_rejoins_a_server_back_at_its_address(
        start: Any, tmp_path: Path) -> None:
    process, address = start()
    link = connected(address)
    process.send_signal(signal.SIGKILL)
    process.wait()
    poll_until(link, LOST)
    again = subprocess.Popen([sys.executable, "-c", SERVER, address, "0"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert again.stdout is not None and again.stdout.readline() == "listening\n"
        assert poll_until(link, "_rejoined")[-2:] == ["_rejoined", protocol.WELCOME]
    finally:
        again.kill()
        again.wait()
    link.close()
