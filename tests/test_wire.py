"""What crosses the network: a TCP relay between a real window session and a real server
records every byte. With CurveZMQ (the default) no card, seat token or key is in it, and a
relay that changes one byte gets the connection dropped, never a move; against a ``--plain``
server the same check finds them all, so it is not a check that cannot fail."""

from __future__ import annotations

import os
import select
import socket
import threading
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import contextlib

import msgpack
import pygame
import pytest
from zmq.utils import z85

from starhall.client.net.link import ServerLink
from starhall.client.screens.live import LiveTable
from starhall.server.embed import EmbeddedServer
from starhall.server.keys import SECRET_FILE
from starhall.shared import protocol
from starhall.shared.curve import KeyQuery
from tests.connection import Connection
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    Person,
    choose,
    fill_with_bots,
    wait_for,
)
from tests.support import step_until

SIZE = (1280, 720)
MOVES = 6
"""The window's own moves before the bytes are looked at (a deal, a pass, some tricks)."""


class Relay:
    """A TCP relay on 127.0.0.1 to ``port``, recording each direction's bytes; key queries
    on UDP at its port number are passed on too, so a client asks the server through it.
    ``tamper(direction)`` flips one byte of the next chunk going that way."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.sent = bytearray()
        """Everything from the client to the server."""
        self.received = bytearray()
        """Everything from the server to the client."""
        self.closed: list[str] = []
        """Which side ended each connection that ended: ``"server"`` or ``"client"``."""
        self._tamper: str | None = None
        self._lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self._upstream_udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._asker: Any = None
        self._pairs: dict[socket.socket, tuple[socket.socket, str]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def tamper(self, direction: str) -> None:
        """``"up"``: the next chunk from the client; ``"down"``: from the server."""
        with self._lock:
            self._tamper = direction

    def _run(self) -> None:
        while not self._stop.is_set():
            readable, _, _ = select.select(
                [self.listener, self.udp, self._upstream_udp, *self._pairs], [], [], 0.05)
            for sock in readable:
                if sock is self.listener:
                    client, _ = self.listener.accept()
                    server = socket.create_connection(self.target)
                    self._pairs[client] = (server, "up")
                    self._pairs[server] = (client, "down")
                elif sock is self.udp:
                    datagram, self._asker = self.udp.recvfrom(512)
                    self._upstream_udp.sendto(datagram, self.target)
                elif sock is self._upstream_udp:
                    datagram, _ = self._upstream_udp.recvfrom(512)
                    self.udp.sendto(datagram, self._asker)
                elif sock in self._pairs:
                    self._pass(sock)

    def _pass(self, sock: socket.socket) -> None:
        other, direction = self._pairs[sock]
        try:
            chunk = bytearray(sock.recv(65536))
        except OSError:
            chunk = bytearray()
        if not chunk:
            self.closed.append("client" if direction == "up" else "server")
            for end in (sock, other):
                self._pairs.pop(end, None)
                end.close()
            return
        with self._lock:
            if self._tamper == direction:
                chunk[len(chunk) // 2] ^= 0x01
                self._tamper = None
        (self.sent if direction == "up" else self.received).extend(chunk)
        with contextlib.suppress(OSError):
            other.sendall(chunk)

    def wire(self) -> bytes:
        return bytes(self.sent + self.received)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for sock in (*self._pairs, self.listener, self.udp, self._upstream_udp):
            sock.close()


def play_through(relay: Relay, key: bytes | None, surface: pygame.Surface) -> LiveTable:
    """A window's table of Hearts through ``relay``, three bots beside, ``MOVES`` moves in."""
    link = ServerLink(relay.address, name="Tester", key=key)
    live = LiveTable(link, SIZE)
    live.start_game("hearts", 4, FAST_HEARTS, "random", "Tester")
    moved = 0
    acted_at = -1

    def frame() -> None:
        nonlocal moved, acted_at
        live.frame(0.05)
        live.draw(surface)
        session, table = live.session, live.table
        if session is None or table is None or session.token is None:
            return
        view = table.model.view
        if session.seat in view.get("to_act", []) and session.event_seq != acted_at:
            command = choose(view)
            if command is not None:
                session.act(command["type"], command["data"])
                acted_at = session.event_seq
                moved += 1

    step_until(frame, lambda: moved >= MOVES, frames=20_000)
    return live


def secrets_of(live: LiveTable, data: Path) -> dict[str, bytes]:
    """What must not cross the wire in the clear, each as it would appear there."""
    session = live.session
    assert session is not None and session.token is not None and live.table is not None
    found = {"the seat token": session.token.encode()}
    for _, direction, frame in live.link.record:
        message = protocol.decode(frame)
        if direction == "sent" and "key" in message:
            found["a sit's or create's key"] = message["key"].encode()
        hand = (message.get("view") or {}).get("hand")
        if hand and "a hand as dealt" not in found:
            found["a hand as dealt"] = msgpack.packb(hand)
    secret_file = data / SECRET_FILE
    if secret_file.exists():
        text = secret_file.read_text()
        secret = text.split('secret-key = "')[1][:40]
        found["the server's secret key"] = secret.encode()
        found["the server's secret key, raw"] = z85.decode(secret.encode())
    return found


def frames_in_clear(live: LiveTable, wire: bytes) -> list[bytes]:
    """The messages the window sent or got that appear whole in the recorded bytes."""
    return [frame for _, _, frame in live.link.record if len(frame) >= 16 and frame in wire]


@pytest.fixture
def window() -> pygame.Surface:
    pygame.display.init()
    return pygame.display.set_mode(SIZE)


def test_nothing_secret_crosses_the_wire_in_clear(window: pygame.Surface,
                                                   tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, **FAST_SERVER) as server:
        assert server.service is not None and server.service.keys is not None
        relay = Relay(int(server.address.rpartition(":")[2]))
        try:
            live = play_through(relay, None, window)  # the key asked through the relay
            wire = relay.wire()
            secrets = secrets_of(live, tmp_path)
            assert {"the seat token", "a sit's or create's key", "a hand as dealt",
                    "the server's secret key"} <= set(secrets)
            shown = [what for what, value in secrets.items() if value in wire]
            assert shown == []
            assert frames_in_clear(live, wire) == []
            assert len(live.link.record) > 20 and len(wire) > 5000  # a game was played
            live.close()
        finally:
            relay.close()


def test_the_same_check_finds_everything_against_a_plain_server(
        window: pygame.Surface, tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, plain=True, **FAST_SERVER) as server:
        assert server.service is not None and server.service.keys is None
        relay = Relay(int(server.address.rpartition(":")[2]))
        try:
            live = play_through(relay, None, window)
            wire = relay.wire()
            secrets = secrets_of(live, tmp_path)
            assert [what for what, value in secrets.items() if value in wire] == [
                "the seat token", "a sit's or create's key", "a hand as dealt"]
            assert len(frames_in_clear(live, wire)) > 20
            live.close()
        finally:
            relay.close()


def test_a_changed_byte_to_the_server_drops_the_connection_and_makes_no_move(
        tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, **FAST_SERVER) as server:
        relay = Relay(int(server.address.rpartition(":")[2]))
        try:
            with Connection(server.address) as host:
                created = host.request({"type": "create", "game": "hearts", "players": 4,
                                        "options": FAST_HEARTS})
                table = created["table"]["id"]
                ada = Person(relay.address, table, seat=0)
                fill_with_bots(host, table)
                wait_for(lambda: ada.refresh() and choose(ada.feed.view))
                hand = ada.feed.view["hand"]
                command = choose(ada.feed.view)
                relay.tamper("up")
                ada.connection.send({"type": "act", "table": table, "token": ada.token,
                                     "seq": ada.feed.seq, "cid": 1, "command": command})
                wait_for(lambda: "server" in relay.closed)
                # Back straight to the server: the seat still holds its cards, still to pass.
                ada.resume(server.address)
                ada.sync()
                assert ada.feed.view["hand"] == hand
                assert ada.feed.view["my_pass"] is None and ada.seat in ada.feed.view["to_act"]
                ada.close()
        finally:
            relay.close()


def test_a_changed_byte_to_the_client_drops_the_connection(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, **FAST_SERVER) as server:
        relay = Relay(int(server.address.rpartition(":")[2]))
        try:
            with Connection(relay.address) as ada:
                ada.request({"type": "hello", "name": "Ada"})
                relay.tamper("down")
                ada.send({"type": "ping"})
                wait_for(lambda: "client" in relay.closed)
                assert ada.receive(0.0) is None  # the changed pong was not taken
        finally:
            relay.close()


def test_a_key_query_is_answered_with_the_public_key_only(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as server:
        assert server.service is not None and server.service.keys is not None
        query = KeyQuery(server.address)
        try:
            heard = query.wait(10.0)
        finally:
            query.close()
        assert heard is not None and heard.key == server.service.keys.public
        assert heard.port == int(server.address.rpartition(":")[2])
