"""The server `starhall play` runs inside the client, on loopback, in a background thread.

It is the real game server (``server.service``), so playing alone goes through exactly the
path a LAN game does.
"""

from __future__ import annotations

import threading
from pathlib import Path

DEFAULT_DATA = "replays"


class EmbeddedServer:
    def __init__(self, data: str | Path = DEFAULT_DATA, think: float = 0.6) -> None:
        from server.service import ServerConfig, Service

        config = ServerConfig(data=Path(data), bind="tcp://127.0.0.1:0", think=think,
                              name="starhall play")
        self.service = Service(config)
        self.address = f"tcp://127.0.0.1:{self.service.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.service.run, args=(self._stop,),
                                        name="starhall-embedded-server", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
