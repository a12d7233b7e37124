"""The game service's transport: one ROUTER socket and the loop that moves bytes and keeps
time for the table master (``server/master.py``), which holds every table.

Each turn of the loop: read a batch of messages and hand each to the master, let the master's
bots move (a message that arrives meanwhile ends their turn early), let its clock tick, then
send what its commit gives, frame by frame: the first (the mover's own update) the moment it
is built, handing the core to ZeroMQ's I/O thread (``hand_over_core``), the others in bursts.
"""

from __future__ import annotations

import socket as sockets
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import zmq

from starhall.server.config import ServerConfig
from starhall.server.drain import hand_over
from starhall.server.keys import KeyAnswer, ServerKeys, load_or_create
from starhall.server.master import LOCK_FILE, TABLES_FOLDER, TableMaster
from starhall.server.scheduling import hand_over_core
from starhall.server.stores import LogStore
from starhall.server.tables import LiveTable
from starhall.shared import protocol
from starhall.shared.curve import key_text

__all__ = ["LOCK_FILE", "TABLES_FOLDER", "ServerConfig", "Service", "check_port"]

BURST_FRAMES = 32
"""Frames a batch sends at once after its first (the mover's own update, sent as soon as it
is built). A send to a socket whose I/O thread has gone idle wakes that thread; frames sent
one by one, each after its view is built, wake it for every message, and on a small machine
those wake-ups slow the delivery of the first message (by about 50 us in the loopback bench,
4 updates and an ack per move). A burst wakes it once, and costs the later receivers no more
than the building of a few frames."""

DRAIN_COMMIT_SECONDS = 5.0
"""How long a stopping node waits for its commits under way (JetStream's own limit)."""
DRAIN_POLL_SECONDS = 0.005
DRAIN_LINGER_SECONDS = 0.5
"""How long a stopping node answers requests after sending its clients on."""


class Service:
    def __init__(self, config: ServerConfig, context: Any = None) -> None:
        self.config = config
        self.context = context or zmq.Context.instance()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, protocol.MAX_MESSAGE_BYTES)
        self.socket.setsockopt(zmq.RCVHWM, 10_000)
        self.socket.setsockopt(zmq.SNDHWM, 10_000)
        self.receive_timeout = -1
        """The socket's RCVTIMEO in milliseconds (-1: none), which ``_receive_batch`` sets."""
        self.turned = time.monotonic()
        """When the loop last turned (``/health``: a loop that stopped answers nobody)."""
        self.closing = False
        try:
            check_port(config.bind)  # a port in use stops the server now, not after restoring
            self.keys: ServerKeys | None = None if config.plain else load_or_create(
                Path(config.data))
            if self.keys is not None:
                self.keys.secure(self.socket)
            self.master = TableMaster(config, message_waiting=self._message_waiting)
        except BaseException:
            self.socket.close(0)
            raise
        try:
            # Only now: meanwhile a client's connection was refused, and ZeroMQ tries again by
            # itself (a port that accepted and said nothing would look like a server hung).
            self.socket.bind(config.bind)
        except BaseException:
            self.socket.close(0)
            self.master.close()
            raise
        self.commit_poller: zmq.Poller | None = None
        """While a commit is under way, the loop waits for a message or the store's news of
        it (JetStream's acknowledgement, read on this thread), whichever comes first."""
        wake_fd = self.master.store.wake_fd()
        if wake_fd is not None:
            self.commit_poller = zmq.Poller()
            self.commit_poller.register(self.socket, zmq.POLLIN)
            self.commit_poller.register(wake_fd, zmq.POLLIN)
        self.address: str = self.socket.getsockopt(zmq.LAST_ENDPOINT).decode()
        self.key_answer = KeyAnswer(self.address, config.name, self.keys)
        self.master.advertise(config.advertise or self.address,
                              None if self.keys is None else key_text(self.keys.public))

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    @property
    def tables(self) -> dict[str, LiveTable]:
        return self.master.tables

    @property
    def store(self) -> LogStore:
        return self.master.store

    @property
    def folder(self) -> Path:
        return self.master.folder

    # --- the loop ----------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        master = self.master
        try:
            self._send(master.commit())  # what restoring the tables produced (deals, bots)
            while not stop.is_set():
                self.turned = time.monotonic()
                people_waiting = self._receive_batch(int(master.wait_seconds() * 1000))
                if master.bots(people_waiting):
                    self._receive_batch()
                master.housekeeping()
                self._send(master.commit())
            self._drain()
        finally:
            self.close()

    def _drain(self) -> None:
        """Stop on purpose: no new table, the commits under way ended (their replies sent),
        then the tables handed to the other nodes and the clients sent there
        (``server/drain.py``); what comes meanwhile is answered (``elsewhere``) a moment
        longer, so that nobody's last request goes unanswered."""
        master = self.master
        master.draining = True
        deadline = time.monotonic() + DRAIN_COMMIT_SECONDS
        while (master.in_flight or master.dirty) and time.monotonic() < deadline:
            self._send(master.commit())
            if master.in_flight:
                time.sleep(DRAIN_POLL_SECONDS)  # its acknowledgement is read at the next look
        if not hand_over(master):
            return
        self._send(master.commit())
        deadline = time.monotonic() + DRAIN_LINGER_SECONDS
        while time.monotonic() < deadline:
            self._receive_batch(20)
            self._send(master.commit())

    def _message_waiting(self) -> bool:
        return bool(self.socket.get(zmq.EVENTS) & zmq.POLLIN)

    def _receive_batch(self, wait_ms: int = 0) -> bool:
        """Handle the messages that are waiting, the first awaited for up to ``wait_ms``;
        whether there were any."""
        handled = False
        socket = self.socket
        if wait_ms and self.commit_poller is not None and self.master.in_flight:
            self.commit_poller.poll(wait_ms)
            wait_ms = 0
        if wait_ms != self.receive_timeout:
            # The first receive waits itself (a poll before it would cost each message a
            # call more).
            socket.setsockopt(zmq.RCVTIMEO, wait_ms)
            self.receive_timeout = wait_ms
        for count in range(self.config.batch_messages):
            # After the first message, asking whether another waits costs less than the error
            # an empty receive raises, which would end every batch.
            if count and not socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
                break
            try:
                frames = socket.recv_multipart(zmq.NOBLOCK if count else 0)
            except zmq.Again:
                break
            self.master.handle(frames[0], frames[1:])
            handled = True
        return handled

    def _send(self, frames: Iterable[tuple[bytes, bytes]]) -> None:
        """Send the frames as they come: the first (the mover's own update) at once, the
        others in bursts of ``BURST_FRAMES``."""
        burst: list[tuple[bytes, bytes]] = []
        sent_any = False
        for pair in frames:
            burst.append(pair)
            if not sent_any or len(burst) >= BURST_FRAMES:  # the first (the mover's) at once
                self._send_frames(burst)
                burst.clear()
                if not sent_any:
                    hand_over_core()  # the I/O thread takes the mover's update out now
                sent_any = True
        self._send_frames(burst)

    def _send_frames(self, frames: list[tuple[bytes, bytes]]) -> None:
        send = self.socket.send
        for identity, frame in frames:
            try:  # two sends: half the cost of send_multipart, which checks every part's type
                send(identity, zmq.SNDMORE | zmq.NOBLOCK)
                send(frame, zmq.NOBLOCK)
            except zmq.ZMQError:
                pass  # the peer is gone or too slow: it will notice a gap and resync

    def close(self) -> None:
        self.closing = True
        self.socket.close(0)  # first: the port is free once the folder lock is let go
        self.key_answer.close()
        _until_free(self.address)
        self.master.close()


def _until_free(endpoint: str, patience: float = 1.0) -> None:
    """Wait (``patience`` seconds at most) until the port a closed socket listened on is free:
    ZeroMQ's I/O thread closes a listener a moment after ``close``, and a server started again
    at once must find the port free (``check_port``), not taken by the one that stopped."""
    deadline = time.monotonic() + patience
    while True:
        try:
            check_port(endpoint)
            return
        except zmq.ZMQError:
            if time.monotonic() >= deadline:
                return
            time.sleep(0.005)


def check_port(endpoint: str) -> None:
    """``zmq.ZMQError``, as ``bind`` would raise it, when the TCP port of ``endpoint`` cannot
    be listened on (another server listens there, say): tried, not held, before the tables are
    restored, so that a server that listens only then does not stop only then. Any other
    endpoint (any free port, another transport, an interface's name) is left to ``bind``."""
    scheme, _, rest = endpoint.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme != "tcp" or not port.isdigit() or int(port) == 0:
        return
    try:
        address = sockets.getaddrinfo(None if host in ("", "*") else host, int(port),
                                      sockets.AF_INET, sockets.SOCK_STREAM, 0,
                                      sockets.AI_PASSIVE)[0][4]
    except (OSError, UnicodeError):
        return
    with sockets.socket(sockets.AF_INET, sockets.SOCK_STREAM) as probe:
        # As ZeroMQ binds: the connections a server just stopped left behind do not count,
        # a socket that listens there does.
        probe.setsockopt(sockets.SOL_SOCKET, sockets.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise zmq.ZMQError(error.errno) from None


