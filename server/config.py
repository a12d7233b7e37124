"""How a server is set up (``starhall serve``'s options, an embedded server's): what the table
master, its desks and the ZeroMQ loop read, below all of them."""

from __future__ import annotations

import socket as sockets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from starhall.shared import protocol


@dataclass(slots=True)
class ServerConfig:
    data: Path = Path("replays")
    bind: str = f"tcp://0.0.0.0:{protocol.DEFAULT_PORT}"
    name: str = field(default_factory=sockets.gethostname)
    think: float = 0.4
    """Seconds a bot waits before it moves, so people can follow."""
    heartbeat: float = protocol.HEARTBEAT_SECONDS
    timeout: float = protocol.TIMEOUT_SECONDS
    flood_rate: float = 200.0
    flood_burst: float = 400.0
    max_open_tables: int = 1000
    max_sessions: int = 4096
    batch_messages: int = 1000
    """Messages read before the loop commits and sends."""
    bot_burst: int = 8
    """With no think delay: moves one table's bots make before another table's turn."""
    bot_budget: float = 0.01
    """Seconds of bot moves per loop turn before the loop commits and sends."""
    people_wait: float = 0.002
    """Seconds of bot moves a person's message may wait behind before it is handled; the
    bots keep enough of a turn to commit many tables at once."""
    read_only: bool = False
    """Serve the tables for watching only: nothing is written, every change is refused."""
    store: str | None = None
    """Where the tables are kept: ``None`` for files in ``data``'s tables folder, or a
    ``nats://HOST:PORT[,HOST:PORT…]`` address of NATS JetStream (``server/jetstream.py``)."""
    lease_seconds: float = 10.0
    """With JetStream: how long a node's hold on a table lasts unless it renews it."""
    stream: str = "STARHALL"
    """With JetStream: the stream of the tables' logs (the seating and leases buckets are
    named after it)."""
    replicas: int = 1
    """With JetStream: the replicas of a stream this server creates (3 on a cluster)."""
    advertise: str | None = None
    """With JetStream: where clients of other nodes reach this one (``tcp://HOST:PORT``),
    which an ``elsewhere`` error names; the bound address if ``None``."""
    say: Callable[[str], None] | None = None
    """Hears what the server does while it restores its tables (``serve`` prints it)."""
    stall_retry: float = 1.0
    """Seconds before a table whose log could not be written tries again."""
    commit_patience: float = 0.05
    """Seconds the loop waits for a commit before it goes on serving without it (a store
    that waits for the network: JetStream); the tables of that commit wait for it alone."""
    max_reports: int = 500
    """Bug reports (``report``) the server keeps in its data folder at most."""
    reports_per_session: int = 5
    """Bug reports the server keeps from one session at most."""
    store_access: str | None = None
    """With JetStream: the file saying how to log in to NATS (``server/nats_access.py``)."""
    plain: bool = False
    """Speak plain ZeroMQ, for old clients, rather than CurveZMQ (``server/keys.py``)."""
