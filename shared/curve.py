"""CurveZMQ between a client and a server (docs/protocol.md §1): what both sides say alike.

A server has a long-term key pair (``server/keys.py``); a client makes a fresh pair for every
socket and must know the server's public key before it connects. It learns it from
``--server-key``, from the LAN beacon, or by asking: a ``KEY_QUERY`` datagram to the server's
TCP port number over UDP is answered with the server's beacon (``KeyQuery``). The first key
heard is trusted, as SSH trusts a host's first key; the window pins it and refuses a changed
one (``client/user/known_servers.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import select
import socket
import time
from typing import Any

import zmq
from zmq.utils import z85

from starhall.shared import protocol

KEY_TEXT_CHARS = 40
"""A public key in Z85, as ``--server-key`` takes it and ``DATA/server.key`` holds it."""


def key_text(key: bytes) -> str:
    return z85.encode(key).decode("ascii")


def key_from_text(text: str) -> bytes:
    """A public key written in Z85 (40 characters); a ``ValueError`` that says so otherwise."""
    cleaned = text.strip()
    try:
        if len(cleaned) != KEY_TEXT_CHARS:
            raise ValueError
        key: bytes = z85.decode(cleaned.encode("ascii"))
    except (ValueError, UnicodeError, KeyError, IndexError):
        raise ValueError(f"{text!r} is not a server key: a key is {KEY_TEXT_CHARS} characters "
                         "of Z85, as the server's DATA/server.key holds it") from None
    return key


def fingerprint(key: bytes) -> str:
    """A short form of a public key for people to compare: the first 64 bits of its SHA-256,
    in four groups of hex digits."""
    digest = hashlib.sha256(key).hexdigest()[:16]
    return "-".join(digest[start:start + 4] for start in range(0, 16, 4))


def secure_client(socket_: Any, server_key: bytes) -> None:
    """Make a DEALER socket (before it connects) speak CurveZMQ to the server holding the
    secret half of ``server_key``, with a key pair of its own made now."""
    public, secret = zmq.curve_keypair()
    socket_.curve_serverkey = z85.encode(server_key)
    socket_.curve_publickey = public
    socket_.curve_secretkey = secret


def host_and_port(endpoint: str) -> tuple[str, int] | None:
    """A ``tcp://HOST:PORT`` endpoint's host and port; ``None`` for another transport."""
    scheme, _, rest = endpoint.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme != "tcp" or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


class KeyQuery:
    """Asks a server for its beacon over UDP without blocking: ``ask`` sends the question
    (again, as often as it is called), ``answer`` reads what came back.

    ``answer`` gives ``None`` while nothing came, else the beacon heard: its ``key`` is the
    server's public key, or ``None`` for a server that speaks plain ZeroMQ."""

    def __init__(self, endpoint: str) -> None:
        target = host_and_port(endpoint)
        if target is None:
            raise ValueError(f"{endpoint}: only a tcp:// server can be asked for its key")
        self.port = target[1]
        self._udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._udp.setblocking(False)
        try:
            self._target = socket.getaddrinfo(target[0], target[1], socket.AF_INET,
                                              socket.SOCK_DGRAM)[0][4]
        except (OSError, UnicodeError):
            self._udp.close()
            raise ValueError(f"cannot find a host named {target[0]!r}") from None

    def ask(self) -> None:
        with contextlib.suppress(OSError):  # no route yet: the next ``ask`` tries again
            self._udp.sendto(protocol.KEY_QUERY, self._target)

    def answer(self) -> protocol.Beacon | None:
        while True:
            try:
                datagram, sender = self._udp.recvfrom(512)
            except OSError:  # nothing waiting, or the port refused (no server there yet)
                return None
            beacon = protocol.decode_beacon(datagram)
            # The port the beacon names is not checked: a port forwarded elsewhere differs.
            if beacon is not None and sender[0] == self._target[0]:
                return beacon

    def wait(self, timeout: float, every: float = 0.2) -> protocol.Beacon | None:
        """Ask until answered or ``timeout`` seconds pass (for a command-line tool, a test)."""
        deadline = time.monotonic() + timeout
        while True:
            self.ask()
            heard = self._poll(min(every, max(0.0, deadline - time.monotonic())))
            if heard is not None or time.monotonic() >= deadline:
                return heard

    def _poll(self, seconds: float) -> protocol.Beacon | None:
        select.select([self._udp], [], [], seconds)
        return self.answer()

    def fileno(self) -> int:
        return self._udp.fileno()

    def close(self) -> None:
        self._udp.close()
