"""The server's long-term CurveZMQ key pair, and the answer to a client asking for it.

The pair is made at the first start and kept in the data folder, readable by the server's
user only: ``DATA/server.key_secret`` (both halves, in ZeroMQ's certificate format) and
``DATA/server.key`` (the public half, to hand to clients as ``--server-key``). A data folder
the server cannot write (``--read-only``) with no key yet gets a key for this run only.

``KeyAnswer`` listens on UDP at the server's TCP port number and answers each
``protocol.KEY_QUERY`` with the server's beacon, which carries the public key: the way a
client that was given only an address learns the key before it first connects.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import zmq
import zmq.auth
from zmq.utils import z85

from starhall.shared import protocol
from starhall.shared.curve import host_and_port

KEY_NAME = "server"
PUBLIC_FILE = f"{KEY_NAME}.key"
SECRET_FILE = f"{KEY_NAME}.key_secret"


@dataclass(frozen=True, slots=True)
class ServerKeys:
    public: bytes
    """32 bytes (``shared.curve.key_text`` writes it in Z85)."""
    secret: bytes
    kept: bool = True
    """Whether the pair is in the data folder (``False``: made for this run only)."""

    def secure(self, socket_: zmq.Socket[bytes]) -> None:
        """Make a ROUTER socket (before it binds) a CurveZMQ server with this pair."""
        socket_.curve_server = True
        socket_.curve_publickey = z85.encode(self.public)
        socket_.curve_secretkey = z85.encode(self.secret)


def load_or_create(folder: Path) -> ServerKeys:
    """The pair in ``folder``, made there now if it has none; one for this run only if the
    folder cannot be written. A secret file others may read is refused: its key is spent."""
    secret_path = folder / SECRET_FILE
    if not secret_path.exists():
        try:
            _create(folder)
        except OSError:
            public, secret = zmq.curve_keypair()
            return ServerKeys(z85.decode(public), z85.decode(secret), kept=False)
    mode = secret_path.stat().st_mode
    if mode & 0o077:
        raise PermissionError(f"{secret_path}: the server's secret key may be read by others "
                              f"(mode {mode & 0o777:o}); make it private (chmod 600) or "
                              "delete it and both key files so a new pair is made")
    try:
        public, maybe_secret = zmq.auth.load_certificate(secret_path)
    except (OSError, ValueError) as error:
        raise OSError(f"{secret_path}: not a key file ({error}); delete {PUBLIC_FILE} and "
                      f"{SECRET_FILE} so a new pair is made") from None
    if maybe_secret is None:
        raise OSError(f"{secret_path}: holds no secret key")
    return ServerKeys(z85.decode(public), z85.decode(maybe_secret))


def _create(folder: Path) -> None:
    """Write a new pair into ``folder``. It is made in a private folder beside, then linked
    into place: a second server starting at the same time keeps the first pair made."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".keys-") as scratch:
        public_path, secret_path = zmq.auth.create_certificates(scratch, KEY_NAME)
        os.chmod(secret_path, 0o600)
        try:
            os.link(secret_path, folder / SECRET_FILE)
        except FileExistsError:
            return
        os.replace(public_path, folder / PUBLIC_FILE)


class KeyAnswer:
    """Answers key queries on UDP at ``address``'s port, on a thread of its own."""

    def __init__(self, address: str, name: str, keys: ServerKeys | None) -> None:
        """``address``: the bound ``tcp://HOST:PORT``; ``keys`` ``None`` for a plain server."""
        self._udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.listening = False
        where = host_and_port(address)
        if where is not None:
            host, port = where
            self._beacon = protocol.encode_beacon(
                protocol.Beacon(port, name, None if keys is None else keys.public))
            try:
                self._udp.bind(("0.0.0.0" if host in ("*", "") else host, port))
                self.listening = True
            except OSError:
                pass  # something else holds that UDP port: clients need --server-key or a beacon
        self._udp.settimeout(0.5)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="key-answer", daemon=True)
        if self.listening:
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                datagram, sender = self._udp.recvfrom(64)
            except TimeoutError:
                continue
            except OSError:
                return
            if datagram == protocol.KEY_QUERY:
                with contextlib.suppress(OSError):  # that client is gone; it asks again
                    self._udp.sendto(self._beacon, sender)

    def close(self) -> None:
        self._stop.set()
        if self.listening:
            host, port = self._udp.getsockname()[:2]
            # Wakes the thread now, not at its timeout.
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as waker, \
                    contextlib.suppress(OSError):
                waker.sendto(b"", ("127.0.0.1" if host == "0.0.0.0" else host, port))
            self._thread.join(timeout=2)
        self._udp.close()
