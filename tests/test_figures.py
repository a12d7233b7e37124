"""``starhall serve --figures``: a real node serves its figures in the text format Prometheus
scrapes (``/metrics``) and a health check (``/health``) over HTTP, while it plays; a bad
address or a port in use is one line."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.server.figures import NodeFigures
from tests.server_helpers import Participant, Person, fill_with_bots, wait_for

ROOT = Path(__file__).resolve().parent.parent


def serve(data: Path, *extra: str) -> tuple[subprocess.Popen[str], str, str]:
    """A ``starhall serve`` with figures on a free port: the process, its game address and
    its figures' base URL."""
    port = free_loopback_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "starhall", "serve", "--bind", f"127.0.0.1:{port}",
         "--data", str(data), "--think", "0", "--beacon", "off", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    said = [process.stdout.readline() for _ in range(3)]
    found = re.search(r"figures at (http://\S+)/metrics", "".join(said))
    assert found, (said, process.stderr and process.stderr.read())
    return process, f"tcp://127.0.0.1:{port}", found.group(1)


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=20)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status), answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_a_playing_node_serves_its_figures_and_its_health(tmp_path: Path) -> None:
    process, address, base = serve(tmp_path, "--figures", "127.0.0.1:0")
    try:
        status, said = get(f"{base}/health")
        assert status == 200 and json.loads(said)["status"] == "ok"
        lobby = Participant(address)
        table: str = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                    "options": {"target": 1_000_000}})["table"]["id"]
        fill_with_bots(lobby, table)
        person = Person(address, table, seat=0)
        refused = person.act({"type": "play", "card": "no such card"}, seq=0)
        assert refused["type"] == "error"
        moved = wait_for(lambda: person.step(0.05) and person.acks)
        assert moved
        figures = samples(get(f"{base}/metrics")[1])
        assert figures[("starhall_moves_total", ())] >= 1
        assert figures[("starhall_events_total", ())] >= figures[("starhall_moves_total", ())]
        assert figures[("starhall_refusals_total", (("code", refused["code"]),))] >= 1
        assert figures[("starhall_commit_seconds_count", ())] >= 1
        assert figures[("starhall_tables", (("state", "live"),))] == 1
        assert figures[("starhall_clients", ())] >= 2
        assert figures[("starhall_takeovers_total", ())] == 0
        assert get(f"{base}/elsewhere")[0] == 404
        person.close()
        lobby.close()
    finally:
        stop(process)


def test_a_closing_node_says_it_is_unhealthy(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path, plain=True)
    server.start()
    assert server.service is not None
    figures = NodeFigures(server.service)
    assert figures.health()[0]
    server.stop()
    healthy, said = figures.health()
    assert not healthy and said["status"] == "closing"


@pytest.mark.parametrize("figures", ["nowhere", "127.0.0.1:99999", "host:port"])
def test_a_bad_figures_address_is_one_line(tmp_path: Path, figures: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "starhall", "serve", "--bind", "127.0.0.1:0", "--data",
         str(tmp_path), "--beacon", "off", "--figures", figures],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--figures" in done.stderr


def test_a_figures_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "starhall", "serve", "--bind", "127.0.0.1:0", "--data",
             str(tmp_path), "--beacon", "off", "--figures", f"127.0.0.1:{port}"],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    lines: list[Any] = done.stderr.splitlines()
    assert len(lines) == 1 and f"--figures 127.0.0.1:{port}" in lines[0], done.stderr
