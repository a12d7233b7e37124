"""``starhall serve``: the authoritative game service on the LAN (``docs/protocol.md``).

Listens on TCP port 47474 of every interface by default, keeps one log per table in
``DATA/tables/`` and restores every table when it starts again: finished ones from their
summaries, live ones from their logs; it listens only once they are restored (meanwhile its
port refuses connections, which clients try again by themselves). A port in use, or a data
folder another ``starhall serve`` runs on, stops it at once; so does a data folder it cannot
write, unless it is told ``--read-only``: then it serves the tables for watching and writes
nothing.
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import signal
import socket
import sys
import threading
from pathlib import Path

import zmq

from starhall.server.beacon import BeaconSender, source_address
from starhall.server.figures import FiguresServer, NodeFigures, parse_figures_address
from starhall.server.service import TABLES_FOLDER, ServerConfig, Service
from starhall.shared import protocol
from starhall.shared.curve import fingerprint, key_text


def collect_garbage_seldom() -> None:
    """Tune the cyclic garbage collector for the serving loop, which makes and drops many small
    objects at every move (states, observations, frames): reference counting frees nearly
    all of them, yet every 700 allocations the collector would scan the young ones, and
    ever more often the whole heap of live tables. What is alive once the tables are restored
    is left out of its scans for good (``gc.freeze``), and it scans the young every 20,000
    allocations: under 200 bot tables the server moves a tenth more events a second
    (``bench/server.py --part load``), its memory still bounded (``bench/memory.py``)."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bind", default=f"0.0.0.0:{protocol.DEFAULT_PORT}", metavar="ADDR",
                        help="HOST[:PORT] or a ZeroMQ endpoint "
                             f"(default: every interface, port {protocol.DEFAULT_PORT})")
    parser.add_argument("--data", default="replays", metavar="DIR",
                        help=f"data folder; table logs go in DIR/{TABLES_FOLDER} "
                             "(default: replays)")
    parser.add_argument("--name", default=None,
                        help="the server's name in the clients' lobby (default: the hostname)")
    parser.add_argument("--think", type=float, default=0.4, metavar="SECONDS",
                        help="the time a bot takes for a move: a searching bot (Strong) "
                             "thinks that long in a worker process, a quick one waits it out "
                             "so people can follow (default 0.4; a table's creator may set "
                             "its own)")
    parser.add_argument("--flood-rate", type=float, default=200.0, metavar="PER_SECOND",
                        help="messages a client may send per second before the excess is "
                             "dropped (default 200, bursts of twice that)")
    parser.add_argument("--read-only", action="store_true",
                        help="serve the tables in DIR for watching and replays only: nothing "
                             "is written, every change is refused")
    parser.add_argument("--store", default=None, metavar="nats://HOST:PORT[,HOST:PORT…]",
                        help="keep the tables in NATS JetStream rather than in DIR's files, "
                             "shared with every server given the same address "
                             "(docs/scaling.md); DIR then holds bug reports only")
    parser.add_argument("--store-access", default=None, metavar="FILE",
                        help="with --store: a TOML file (chmod 600) of how to log in to NATS "
                             "and check it: user and password, token, nkey_seed or creds, and "
                             "[tls] ca, cert, key (docs/scaling.md); default "
                             "$STARHALL_NATS_ACCESS, and STARHALL_NATS_* variables over it")
    parser.add_argument("--stream", default="STARHALL",
                        help="with --store: the JetStream stream of the tables")
    parser.add_argument("--replicas", type=int, default=1, choices=(1, 3, 5),
                        help="with --store: the replicas of the stream if this server makes "
                             "it (3 on a cluster of three NATS servers)")
    parser.add_argument("--advertise", default=None, metavar="tcp://HOST:PORT",
                        help="with --store: where clients of the other servers reach this one "
                             "(an 'elsewhere' error names it; default: the --bind address)")
    parser.add_argument("--lease", type=float, default=10.0, metavar="SECONDS",
                        help="with --store: how long a server's hold on a table outlasts its "
                             "last renewal (a dead server's tables are taken over after it)")
    parser.add_argument("--plain", action="store_true",
                        help="speak plain, unencrypted ZeroMQ, for old clients only (default: "
                             "CurveZMQ with the key pair in DIR/server.key_secret, made at the "
                             "first start)")
    parser.add_argument("--beacon", nargs="?", default="", const="", metavar="ADDR:PORT|off",
                        help="where the LAN beacon goes: ADDR, ADDR:PORT or PORT (default: "
                             f"broadcast to UDP port {protocol.BEACON_PORT}, where clients "
                             "listen); off: no beacon")
    parser.add_argument("--figures", default=None, metavar="HOST:PORT",
                        help="serve the node's figures for Prometheus at "
                             "http://HOST:PORT/metrics and a health check at /health "
                             "(docs/scaling.md); PORT alone: on 127.0.0.1 (default: neither)")


def endpoint(bind: str) -> str:
    """``HOST``, ``HOST:PORT``, ``:PORT`` or a ZeroMQ endpoint, as a ZeroMQ endpoint."""
    if "://" in bind:
        return bind
    host, sep, port = bind.rpartition(":")
    if not sep:
        host, port = bind, str(protocol.DEFAULT_PORT)
    if port != "*" and not (port.isdigit() and 0 <= int(port) <= 65535):
        raise ValueError(f"--bind: {port!r} is not a port (0 to 65535, or * for any free one)")
    return f"tcp://{host or '0.0.0.0'}:{port}"


def beacon_target(text: str) -> tuple[str, int] | None:
    """``--beacon``: ``off``, ``PORT``, ``ADDR``, ``ADDR:PORT`` or nothing, as the beacon's
    (address, UDP port); ``None`` for off."""
    if text.strip().lower() == "off":
        return None
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        host, port = ("", port) if port.isdigit() else (port, str(protocol.BEACON_PORT))
    if not (port.isdigit() and 1 <= int(port) <= 65535):
        raise ValueError(f"--beacon {text}: {port!r} is not a UDP port (1 to 65535); write "
                         f"ADDR, ADDR:PORT, PORT or off")
    host = host or "255.255.255.255"
    try:
        socket.getaddrinfo(host, None, socket.AF_INET)
    except (OSError, UnicodeError):
        raise ValueError(f"--beacon {text}: no IPv4 address {host!r} to send to") from None
    return host, int(port)


def bind_problem(bind: str, error: zmq.ZMQError) -> str:
    """Why the service could not listen where ``--bind`` said, in words."""
    if error.errno == errno.EADDRINUSE:
        return (f"--bind {bind}: that port is already in use (another `starhall serve`?); "
                "choose another with --bind HOST:PORT")
    if error.errno in (errno.ENODEV, errno.EADDRNOTAVAIL):
        return f"--bind {bind}: this machine has no network interface with that address"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"--bind {bind}: not allowed to listen there (ports below 1024 need privileges)"
    reason = os.strerror(error.errno) if error.errno else str(error)
    return f"--bind {bind}: cannot listen there ({reason})"


def say(line: str) -> None:
    """What the server is doing while it starts (restoring its tables), on stderr: stdout's
    first line is the address it listens on."""
    print(f"starhall serve: {line}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.think <= protocol.MAX_THINK_SECONDS or args.flood_rate <= 0:
        raise ValueError(f"--think takes 0 to {protocol.MAX_THINK_SECONDS:g} seconds, "
                         "--flood-rate must be positive")
    target = beacon_target(args.beacon)
    watched = None if args.figures is None else parse_figures_address(args.figures)
    config = ServerConfig(data=Path(args.data), bind=endpoint(args.bind),
                          name=args.name or socket.gethostname(), think=args.think,
                          flood_rate=args.flood_rate, flood_burst=2 * args.flood_rate,
                          read_only=args.read_only, say=say, store=args.store,
                          stream=args.stream, replicas=args.replicas, lease_seconds=args.lease,
                          advertise=args.advertise, plain=args.plain,
                          store_access=args.store_access)
    if args.store is not None:
        from starhall.server.jetstream import parse_address
        from starhall.server.nats_access import load_access

        parse_address(args.store)  # a bad address: one line, before anything starts
        load_access(args.store_access)  # and a bad access file
    try:
        service = Service(config)
    except zmq.ZMQError as error:
        raise OSError(bind_problem(args.bind, error)) from None
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    figures = None
    if watched is not None:
        try:
            figures = watch(service, *watched)
        except OSError as error:
            service.close()
            raise OSError(f"--figures {args.figures}: {error.strerror or error}") from None
    beacon = None
    if target is not None:
        beacon = BeaconSender(service.port, config.name, target=target[0],
                              target_port=target[1], source=source_address(service.address),
                              key=None if service.keys is None else service.keys.public)
        beacon.start()
    mode = ", read-only: watching only" if args.read_only else ""
    print(f"starhall serve: listening on {service.address} "
          f"({len(service.tables)} tables from {service.store.where}{mode})", flush=True)
    if service.keys is None:
        say("--plain: clients talk to this server unencrypted; anyone on the network can "
            "read their cards and seat tokens")
    else:
        kept = "" if service.keys.kept else ", for this run only: the data folder is read-only"
        print(f"starhall serve: key {key_text(service.keys.public)} (fingerprint "
              f"{fingerprint(service.keys.public)}{kept})", flush=True)
    access = service.store.describe_access()
    if access is not None:
        print(f"starhall serve: {args.store}: {access}", flush=True)
    collect_garbage_seldom()
    try:
        service.run(stop)
    finally:
        if beacon is not None:
            beacon.stop()
        if figures is not None:
            figures.close()
    return 0


def watch(service: Service, host: str, port: int) -> FiguresServer:
    """The node's figures and health check, served from now on (``server/figures.py``)."""
    node = NodeFigures(service)
    served = FiguresServer(node, host, port)
    service.master.commit_timer = node.commit_seconds.observe
    served.start()
    print(f"starhall serve: figures at {served.address}/metrics, health at "
          f"{served.address}/health", flush=True)
    return served
