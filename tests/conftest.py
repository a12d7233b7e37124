"""Every test runs with its own empty config and data folders, so the developer's saved
settings (a name, small cards), statistics and unfinished games never change what a test
sees, and no test writes into the developer's folders."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from starhall.server.embed import EmbeddedServer
from tests.nats_helpers import NatsCluster, NatsNode
from tests.server_helpers import FAST_SERVER
from tests.wheel_build import STARTED

if TYPE_CHECKING:
    import pygame

WINDOW = (1280, 720)
"""The size of the window the client's tests draw in (``surface``)."""
WHEEL_FILES = ("test_packaging.py",)
"""Files that need the wheel (tests/wheel_build.py: the engines compiled again). When they build
it, it is the longest step of the suite, so they start the run: on several workers (pytest-xdist,
each file on one worker) it starts at once while the other workers share the rest. When
``make test`` started its build before the run, they end the run instead, by when it is done,
so that no worker waits for it."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    started = bool(os.environ.get(STARTED))
    # The files marked slow (servers started and killed, whole games in windows) go first
    # too: each file runs on one worker, and a long one that starts last keeps the run waiting
    # while the other workers idle, where the many quick ones fill in between. sorted is
    # stable: the rest keep their order.
    items.sort(key=lambda item: ((item.path.name in WHEEL_FILES) == started,
                                 item.get_closest_marker("slow") is None))


@pytest.fixture(autouse=True)
def _own_user_folders(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("STARHALL_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("STARHALL_DATA_DIR", str(home / "data"))
    try:
        from starhall.client.user import settings
    except ImportError:
        return
    forget = getattr(settings, "forget", None)
    if forget is not None:
        forget()  # settings are read once per process: start each test from its own folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A real server on loopback in this test's folder, its bots quick (a test file that
    needs another kind defines its own ``server``)."""
    with EmbeddedServer(tmp_path, **FAST_SERVER) as embedded:
        yield embedded


@pytest.fixture(scope="module")
def nats_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsNode]:
    """A real nats-server with JetStream on a free loopback port, its data in a temporary
    folder, for one test file (each test keeps its tables in a stream of its own)."""
    node = NatsNode(tmp_path_factory.mktemp("nats")).start()
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsCluster]:
    """Three real nats-servers routed into one cluster on loopback, for one test file."""
    nats = NatsCluster(tmp_path_factory.mktemp("cluster")).start()
    try:
        yield nats
    finally:
        nats.stop()


@pytest.fixture(scope="module")
def surface() -> pygame.Surface:
    """The client's window, opened once per test module (by the SDL dummy driver under CI); a
    module that draws at other sizes defines its own."""
    from starhall.client.app import open_window  # pygame only for the client's tests

    return open_window(WINDOW)
