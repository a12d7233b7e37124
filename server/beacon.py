"""The LAN beacon: in the manner of ZeroMQ's zbeacon, a UDP datagram once a second saying
"a Starhall server listens on TCP port P". Clients (the lobby's discovery, the tests'
``ServerListener``) hear it and connect to the address it came from, so a server bound to one
interface sends it from that interface's address. It carries the server's public key (which
clients pin), and no table or player data."""

from __future__ import annotations

import socket
import sys
import threading

from starhall.shared import protocol


def source_address(endpoint: str) -> str | None:
    """The address beacons go out from for a server listening on ``endpoint``: the one IPv4
    address it is bound to, or ``None`` (any: it listens on every interface)."""
    host = endpoint.partition("://")[2].rpartition(":")[0]
    try:
        socket.inet_aton(host)
    except OSError:
        return None  # IPv6 or a name: the beacon (IPv4) goes out as the system chooses
    return None if host in ("0.0.0.0", "*") else host


class BeaconSender:
    def __init__(self, port: int, name: str, target: str = "255.255.255.255",
                 target_port: int = protocol.BEACON_PORT,
                 interval: float = protocol.BEACON_INTERVAL_SECONDS,
                 source: str | None = None, key: bytes | None = None) -> None:
        """``source``: the address to send from (the server's bound address), since clients
        connect to the address a beacon came from. ``key``: the server's public key
        (``None``: a plain server)."""
        self._datagram = protocol.encode_beacon(protocol.Beacon(port, name, key))
        self._target = (target, target_port)
        self._source = source
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="beacon", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            if self._source is not None:
                try:
                    udp.bind((self._source, 0))
                except OSError as error:
                    print(f"starhall serve: beacon: cannot send from {self._source}: {error}",
                          file=sys.stderr)
            warned = False
            while not self._stop.is_set():
                try:
                    udp.sendto(self._datagram, self._target)
                except OSError as error:  # no network yet, say: keep trying, warn once
                    if not warned:
                        print(f"starhall serve: beacon: {error}", file=sys.stderr)
                        warned = True
                self._stop.wait(self._interval)
