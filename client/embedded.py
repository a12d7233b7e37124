"""The server `starhall play` runs inside the client, on loopback, in a background thread.

It is the real game server (``server.service``), so playing alone goes through exactly the
path a LAN game does.
"""

from __future__ import annotations

import threading
from pathlib import Path

DEFAULT_DATA = "replays"
_RUNNING: dict[str, EmbeddedServer] = {}
"""The embedded servers of this process by address, so a table on one can find its log."""


def embedded_at(address: str) -> EmbeddedServer | None:
    """The embedded server of this process listening at ``address``, if there is one."""
    return _RUNNING.get(address)


class EmbeddedServer:
    def __init__(self, data: str | Path = DEFAULT_DATA, think: float = 0.6) -> None:
        from server.service import ServerConfig, Service

        config = ServerConfig(data=Path(data), bind="tcp://127.0.0.1:0", think=think,
                              name="starhall play")
        self.data = Path(data)
        """The data folder: table logs in ``tables/``, bug reports in ``bug-reports/``."""
        self.service = Service(config)
        self.address = f"tcp://127.0.0.1:{self.service.port}"
        _RUNNING[self.address] = self
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.service.run, args=(self._stop,),
                                        name="starhall-embedded-server", daemon=True)
        self._thread.start()

    def log_path(self, table: str) -> Path:
        """Where this server writes the log of ``table``."""
        from shared.logfile import SUFFIX

        return Path(self.service.folder) / f"{table}{SUFFIX}"

    def stop(self) -> None:
        _RUNNING.pop(self.address, None)
        self._stop.set()
        self._thread.join(timeout=5)

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
