"""What an operator watches (``starhall serve --figures HOST:PORT``): the node's figures in the
text format Prometheus scrapes, at ``/metrics``, and a health check a service manager or a load
balancer asks, at ``/health`` (``docs/scaling.md``).

They are served over HTTP by threads of their own, which read the master's counters as they
stand and never wait on the loop: a scrape costs the tables nothing, and a loop that stopped
turning is exactly what ``/health`` must still be able to say.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import CollectorRegistry, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from starhall.server.service import Service

STALLED_SECONDS = 2.0
"""A loop that has not turned for this long answers nobody (it turns at least every 0.1 s)."""

COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Commit latency buckets, in seconds: from a file store's fdatasync to a NATS node's failover."""

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class NodeFigures(Collector):
    """The node's figures, read from its master at each scrape."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.registry = CollectorRegistry(auto_describe=False)
        self.commit_seconds = Histogram(
            "starhall_commit_seconds", "Time from a batch's commit to its store's answer "
            "(an fdatasync, or JetStream's acks)", buckets=COMMIT_BUCKETS,
            registry=self.registry)
        self.registry.register(self)

    def collect(self) -> Iterator[Metric]:
        master = self.service.master
        # Copies taken at once (a dict's copy runs no Python code, so the loop cannot change
        # it midway), then read at leisure.
        tables = list(master.tables.values())
        refusals = master.refusals.copy()
        live = sum(not table.over for table in tables)
        held = GaugeMetricFamily("starhall_tables", "Tables this node serves",
                                 labels=["state"])
        held.add_metric(["live"], live)
        held.add_metric(["finished"], len(tables) - live)
        yield held
        yield GaugeMetricFamily("starhall_clients", "Clients with a session on this node",
                                value=len(master.sessions))
        yield CounterMetricFamily("starhall_moves", "Commands the rules accepted (people's "
                                  "and bots')", value=master.commands)
        yield CounterMetricFamily("starhall_events", "Events appended to the tables' logs",
                                  value=master.moves)
        refused = CounterMetricFamily("starhall_refusals", "Requests refused, by the error "
                                      "code the client was given", labels=["code"])
        for code, count in sorted(refusals.items()):
            refused.add_metric([code], count)
        yield refused
        yield CounterMetricFamily("starhall_takeovers", "Tables this node took over from a "
                                  "node that stopped holding them", value=master.leases.taken_over)
        yield GaugeMetricFamily("starhall_loop_turn_age_seconds", "Since the node's loop last "
                                "turned (it turns at least every 0.1 s)",
                                value=self.loop_age())

    def loop_age(self) -> float:
        return max(0.0, time.monotonic() - self.service.turned)

    def health(self) -> tuple[bool, dict[str, Any]]:
        """Whether the node answers: its loop turns, and it is not closing."""
        age = self.loop_age()
        status = ("closing" if self.service.closing
                  else "stalled" if age > STALLED_SECONDS else "ok")
        return status == "ok", {"status": status, "loop_turn_age": round(age, 3),
                                "tables": len(self.service.master.tables),
                                "store": self.service.store.where}


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        """A scrape every few seconds is no news for the server's log."""


class FiguresServer:
    """``/metrics`` and ``/health`` over HTTP at ``host:port``, on threads of their own."""

    def __init__(self, figures: NodeFigures, host: str, port: int) -> None:
        self.figures = figures
        metrics = make_wsgi_app(figures.registry)

        def app(environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:
            path = environ.get("PATH_INFO", "")
            if path == "/metrics":
                answer: Iterable[bytes] = metrics(environ, start)
                return answer
            if path == "/health":
                healthy, said = figures.health()
                start("200 OK" if healthy else "503 Service Unavailable",
                      [("Content-Type", "application/json")])
                return [json.dumps(said).encode("utf-8") + b"\n"]
            start("404 Not Found", [("Content-Type", "text/plain")])
            return [b"starhall serve: /metrics or /health\n"]

        self.server = make_server(host, port, app, ThreadingWSGIServer, handler_class=_Quiet)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="figures",
                                       daemon=True)

    @property
    def address(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def parse_figures_address(text: str) -> tuple[str, int]:
    """``--figures``: ``HOST:PORT`` or ``PORT`` (on 127.0.0.1); ``ValueError`` in one line."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise ValueError(f"--figures {text}: write HOST:PORT or PORT (a TCP port, 0 to 65535)")
    return host or "127.0.0.1", number
