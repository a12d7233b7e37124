"""The client side of the protocol: a connection to a server, and a LAN listener.

    connection = Connection("tcp://127.0.0.1:47474", name="Ada")
    welcome = connection.request({"type": "hello", "name": "Ada"})
    seated = connection.request({"type": "sit", "table": "0001"})
    message = connection.receive(timeout=0.1)   # snapshots, updates, table messages …
    connection.heartbeat()                      # call often; pings when idle

Replies are matched to requests by ``rid``; whatever arrives meanwhile is kept, in order,
for ``receive``. ``TableFeed`` follows one table's updates and says when to re-sync.
"""

from __future__ import annotations

import itertools
import socket
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import zmq

from starhall.shared import protocol
from starhall.shared.curve import KeyQuery, host_and_port, secure_client


class ConnectionTimeout(TimeoutError):
    """The server did not answer in time."""


KEY_WAIT_SECONDS = 10.0
"""How long a connection asks a server for its public key before it gives up."""


def server_key(address: str, timeout: float = KEY_WAIT_SECONDS) -> bytes | None:
    """The public key of the server at ``address``, asked over UDP (``shared/curve.py``);
    ``None`` for a plain server. A ``ConnectionTimeout`` when nothing answers."""
    query = KeyQuery(address)
    try:
        heard = query.wait(timeout)
    finally:
        query.close()
    if heard is None:
        raise ConnectionTimeout(f"{address} did not say its key in {timeout} s")
    return heard.key


class Connection:
    def __init__(self, address: str, *, context: Any = None, key: bytes | None = None,
                 plain: bool = False) -> None:
        """Speaks CurveZMQ to the server's ``key``, asked of the server when not given;
        ``plain``: plain ZeroMQ, as an old client would."""
        self.address = address
        self._context = context or zmq.Context.instance()
        self._socket = self._context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        if not plain and key is None and host_and_port(address) is not None:
            key = server_key(address)
        if key is not None:
            secure_client(self._socket, key)
        self._socket.connect(address)
        self._rids = itertools.count(1)
        self._inbox: deque[dict[str, Any]] = deque()
        self.last_sent = 0.0
        self.last_heard = time.monotonic()

    @property
    def socket(self) -> Any:
        """The DEALER socket itself (a benchmark times raw frames on it)."""
        return self._socket

    def send(self, message: dict[str, Any]) -> None:
        self._socket.send(protocol.encode(message))
        self.last_sent = time.monotonic()

    def send_raw(self, frames: list[bytes]) -> None:
        """Frames exactly as given (tests use it to send what a good client never would)."""
        self._socket.send_multipart(frames)
        self.last_sent = time.monotonic()

    def request(self, message: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
        """Send with a fresh ``rid``; the first reply carrying it (maybe an ``error``). A
        ``sit``, ``resume`` or ``watch`` is answered first by ``seated``/``watching``; the
        snapshot that follows (same ``rid``) comes from ``receive``."""
        rid = next(self._rids)
        self.send({**message, "rid": rid})
        deadline = time.monotonic() + timeout
        kept: list[dict[str, Any]] = []
        try:
            while True:
                left = deadline - time.monotonic()
                received = self._read(left)
                if received is None:
                    raise ConnectionTimeout(f"no reply from {self.address} in {timeout} s")
                if received.get("rid") == rid:
                    return received
                kept.append(received)
        finally:
            self._inbox.extend(kept)

    def receive(self, timeout: float | None = 0.0) -> dict[str, Any] | None:
        """The next message that was not a request's reply; ``None`` after ``timeout``
        seconds (``None``: wait as long as it takes)."""
        if self._inbox:
            return self._inbox.popleft()
        return self._read(timeout)

    def _read(self, timeout: float | None) -> dict[str, Any] | None:
        wait = None if timeout is None else max(0, int(timeout * 1000))
        if not self._socket.poll(wait):
            return None
        frame = self._socket.recv()
        self.last_heard = time.monotonic()
        return protocol.decode(frame)

    def heartbeat(self, interval: float = protocol.HEARTBEAT_SECONDS) -> None:
        """Ping when nothing was sent for ``interval`` seconds (the pong goes to ``receive``)."""
        if time.monotonic() - self.last_sent >= interval:
            self.send({"type": protocol.PING})

    def close(self) -> None:
        self._socket.close(0)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(slots=True)
class TableFeed:
    """One table as one viewer follows it: the last snapshot's view and the events since.

    ``apply`` answers ``"applied"``, ``"old"`` (already seen), or ``"gap"`` (messages were
    lost: send ``sync`` and apply the snapshot it brings); ``behind`` reads a ``pong``.
    """

    table: str
    seat: int | None
    seq: int = -1
    view: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)

    def apply(self, message: dict[str, Any]) -> str:
        if message.get("table") != self.table or message.get("seat") != self.seat:
            return "old"
        if message["type"] == protocol.SNAPSHOT:
            self.seq, self.view, self.events = message["seq"], message["view"], []
            return "applied"
        if message["type"] != protocol.UPDATE:
            return "old"
        if message["seq"] <= self.seq:
            return "old"
        if message["from"] != self.seq:
            return "gap"
        self.seq = message["seq"]
        self.events.extend(message["events"])
        return "applied"

    def behind(self, pong: dict[str, Any]) -> bool:
        """Whether a ``pong`` says the table is past what this feed has: its last update
        was lost (no later update will show the gap), so send ``sync``. Ask only of a pong
        to a ping sent after the feed's last snapshot was asked for."""
        known = (pong.get("seqs") or {}).get(self.table)
        return type(known) is int and known > self.seq


@dataclass(frozen=True, slots=True)
class HeardServer:
    address: str
    name: str
    last_heard: float


class ServerListener:
    """Lists the servers whose beacons arrive on ``port`` (UDP)."""

    def __init__(self, port: int = protocol.BEACON_PORT, host: str = "") -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self._socket.bind((host, port))
        self._socket.setblocking(False)
        self._servers: dict[str, HeardServer] = {}

    def poll(self, timeout: float = 0.0) -> None:
        """Read the beacons that arrive within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                datagram, (host, _) = self._socket.recvfrom(512)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                time.sleep(min(left, 0.05))
                continue
            beacon = protocol.decode_beacon(datagram)
            if beacon is not None:
                address = f"tcp://{host}:{beacon.port}"
                self._servers[address] = HeardServer(address, beacon.name, time.monotonic())

    def servers(self, forget_after: float = 5.0) -> list[HeardServer]:
        """The servers heard within ``forget_after`` seconds, by name."""
        now = time.monotonic()
        return sorted((s for s in self._servers.values() if now - s.last_heard <= forget_after),
                      key=lambda s: (s.name, s.address))

    def close(self) -> None:
        self._socket.close()
