"""A server inside another program, on loopback: ``starhall play`` and the tests use it.

    server = EmbeddedServer("replays", think=0.4)
    address = server.start()      # "tcp://127.0.0.1:<port>", ready for connections
    ...
    server.stop()
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import zmq

from starhall.server.service import ServerConfig, Service
from starhall.shared import protocol
from starhall.shared.curve import secure_client


def free_loopback_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, for a server started elsewhere
    (another process) whose address must be known before it starts."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class EmbeddedServer:
    def __init__(self, data: str | Path, *, bind: str = "tcp://127.0.0.1:*",
                 **settings: Any) -> None:
        """``settings`` are ``ServerConfig`` fields (``think``, ``timeout``, …)."""
        self.config = replace(ServerConfig(), data=Path(data), bind=bind, **settings)
        self.address: str | None = None
        self.service: Service | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Run the server on a background thread; returns its address once it accepts."""
        self._thread = threading.Thread(target=self._run, name="starhall-server", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise self._failure
        assert self.address is not None
        return self.address

    def _run(self) -> None:
        try:
            # The socket is made on this thread, which then owns it for the loop.
            self.service = Service(self.config)
            self.address = self.service.address
        except BaseException as error:
            self._failure = error
            self._ready.set()
            return
        self._ready.set()
        self.service.run(self._stop)

    @property
    def public_key(self) -> bytes | None:
        """The server's CurveZMQ public key once it started (``None``: a plain server)."""
        assert self.service is not None, "start the server first"
        return None if self.service.keys is None else self.service.keys.public

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._wake()
            self._thread.join(timeout=10)
            self._thread = None

    def _wake(self) -> None:
        """A ``ping``, so that the loop, which waits up to 0.1 s for a message before it looks
        at the stop again, stops now. The socket's linger lets the ping leave after ``close``
        (a server that cannot hear it still stops, only later)."""
        service = self.service
        if service is None or self.address is None:
            return
        wake = service.context.socket(zmq.DEALER)
        wake.setsockopt(zmq.LINGER, 1000)
        if service.keys is not None:  # an encrypted server hears only an encrypted ping
            secure_client(wake, service.keys.public)
        wake.connect(self.address)
        with contextlib.suppress(zmq.Again):  # never wait for it: the loop stops anyway
            wake.send(protocol.encode({"type": protocol.PING, "rid": 1}), zmq.NOBLOCK)
        wake.close()

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
