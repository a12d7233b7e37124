"""``starhall serve``: the authoritative game service on the LAN (``docs/protocol.md``).

Listens on TCP port 47474 of every interface by default, keeps one log per table in
``DATA/tables/`` and rebuilds every table from its log when it starts again.
"""

from __future__ import annotations

import argparse
import signal
import socket
import threading
from pathlib import Path

from server.beacon import BeaconSender
from server.service import TABLES_FOLDER, ServerConfig, Service
from shared import protocol


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bind", default=f"0.0.0.0:{protocol.DEFAULT_PORT}", metavar="ADDR",
                        help="HOST[:PORT] or a ZeroMQ endpoint "
                             f"(default: every interface, port {protocol.DEFAULT_PORT})")
    parser.add_argument("--data", default="replays", metavar="DIR",
                        help=f"data folder; table logs go in DIR/{TABLES_FOLDER} "
                             "(default: replays)")
    parser.add_argument("--name", default=None, help="the name clients see (default: hostname)")
    parser.add_argument("--think", type=float, default=0.4, metavar="SECONDS",
                        help="how long bots wait before they move (default 0.4)")
    parser.add_argument("--flood-rate", type=float, default=200.0, metavar="PER_SECOND",
                        help="messages a client may send per second before the excess is "
                             "dropped (default 200, bursts of twice that)")
    parser.add_argument("--beacon", default="255.255.255.255", metavar="ADDR|off",
                        help="where the LAN beacon goes (default: broadcast; off: no beacon)")


def endpoint(bind: str) -> str:
    """``HOST``, ``HOST:PORT``, ``:PORT`` or a ZeroMQ endpoint, as a ZeroMQ endpoint."""
    if "://" in bind:
        return bind
    host, sep, port = bind.rpartition(":")
    if not sep:
        host, port = bind, str(protocol.DEFAULT_PORT)
    if not port.isdigit() and port != "*":
        raise ValueError(f"--bind: {port!r} is not a port")
    return f"tcp://{host or '0.0.0.0'}:{port}"


def run(args: argparse.Namespace) -> int:
    if args.think < 0 or args.flood_rate <= 0:
        raise ValueError("--think cannot be negative, --flood-rate must be positive")
    config = ServerConfig(data=Path(args.data), bind=endpoint(args.bind),
                          name=args.name or socket.gethostname(), think=args.think,
                          flood_rate=args.flood_rate, flood_burst=2 * args.flood_rate)
    service = Service(config)
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    beacon = None
    if args.beacon != "off":
        beacon = BeaconSender(service.port, config.name, target=args.beacon)
        beacon.start()
    print(f"starhall serve: listening on {service.address} "
          f"({len(service.tables)} tables from {service.folder})", flush=True)
    try:
        service.run(stop)
    finally:
        if beacon is not None:
            beacon.stop()
    return 0
