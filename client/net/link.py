"""The client's one connection to a server: a ZeroMQ DEALER speaking docs/protocol.md.

``ServerLink.poll()`` is called once a frame: it never blocks, sends heartbeats, and notices
a server that has gone quiet. A lost link is replaced by a fresh one at once, and when the
server answers again ``poll`` hands back a ``{"type": "_rejoined"}`` message so the screens
can resume their seats and watch again (a reconnect is a new session on the server).

A dead server is noticed within about ``ALIVE_INTERVAL + ALIVE_TIMEOUT`` seconds, not only
after the protocol's ``timeout`` of silence: the socket sends ZeroMQ's own heartbeats (ZMTP
PING), which the server's ZeroMQ I/O thread answers by itself, however long its loop is busy
or a commit waits for the store; a connection ZeroMQ drops (no answer, or the peer's process
gone: kill -9 closes its sockets) is taken as lost at once, since a reconnected socket is a
new session the server does not know anyway. A busy server thus stays connected, and a server
whose loop hangs while its process lives is still noticed after ``timeout`` (docs/protocol.md
§7). A link that itself sent nothing for that long (its window starved of CPU, a laptop that
slept) says hello again and rejoins likewise, even though what the server sent before is still
there to read: the server has forgotten the session meanwhile.

Every ``sit`` and ``create`` goes with a random ``key``; one whose reply has not come when the
link is lost is sent again, key and ``rid`` unchanged, once the server answers: the server
gives a resent request the answer it gave the first (the same seat and token, the same table),
so a reply lost with the connection leaves no seat nobody holds.
"""

from __future__ import annotations

import contextlib
import itertools
import select
import socket
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import zmq
from zmq.utils.monitor import parse_monitor_message

from starhall.client.user.known_servers import KeyChanged, KnownServers
from starhall.shared import protocol
from starhall.shared.curve import KeyQuery, host_and_port, secure_client

Clock = Callable[[], float]
LOST = "_lost"
REJOINED = "_rejoined"
KEY_REFUSED = "_key_refused"
"""What ``poll`` hands back once when the server's key is not the one pinned for it (its
``message`` says so); the link then stays silent."""
KEY_ASK_SECONDS = 0.5
"""How often a link that does not know the server's key asks for it again."""
RECORD_MESSAGES = 5000
"""How many of the last messages, sent and received, a link keeps for a bug report."""
ALIVE_INTERVAL = 1.0
"""Seconds between ZeroMQ's heartbeats (ZMTP PING) on the link: a few bytes each way."""
ALIVE_TIMEOUT = 1.0
"""Seconds a heartbeat waits for any answer before ZeroMQ drops the connection."""


def normalise_address(address: str) -> str:
    """``host``, ``host:port`` or a full ``tcp://host:port`` into a ZeroMQ endpoint; anything
    else is refused with a ``ValueError`` that says how an address is written."""
    scheme, sep, rest = address.partition("://")
    if sep and scheme != "tcp":
        return address  # another ZeroMQ transport (ipc://, inproc://): ZeroMQ checks it
    host, sep, port = (rest if sep else address).strip().rpartition(":")
    if not sep:
        host, port = port, str(protocol.DEFAULT_PORT)
    if not host or any(char.isspace() for char in host) or not (
            port.isdigit() and 1 <= int(port) <= 65535):
        raise ValueError(f"{address!r} is not a server address: write HOST or HOST:PORT, "
                         f"such as 192.168.1.20:{protocol.DEFAULT_PORT} (the port is 1 to 65535)")
    return f"tcp://{host}:{port}"


def checked_address(address: str) -> str:
    """An address typed on the command line, as a ZeroMQ endpoint, once its host is known to
    exist (a ``ValueError`` otherwise): ZeroMQ would keep trying an unknown host in silence."""
    endpoint = normalise_address(address)
    if endpoint.startswith("tcp://"):
        host = endpoint[len("tcp://"):].rpartition(":")[0]
        try:
            socket.getaddrinfo(host.strip("[]"), None)
        except (OSError, UnicodeError):
            raise ValueError(f"cannot find a host named {host!r}") from None
    return endpoint


class ServerLink:
    def __init__(self, address: str, name: str = "Player", clock: Clock = time.monotonic,
                 context: Any = None, *, key: bytes | None = None,
                 known: KnownServers | None = None) -> None:
        """``key``: the server's public key, when known (``--server-key``, a beacon, the
        server in this process); asked of the server otherwise (``shared/curve.py``).
        ``known``: the pinned keys a key not given is checked against, and pinned in."""
        self.address = normalise_address(address)
        self.server_key = key
        self.known = known
        self.refusal: str | None = None
        """Why the link will not talk to this server (a changed key), once it is refused."""
        self._query: KeyQuery | None = None
        self._asked = -float("inf")
        self._plain = False
        """Whether the server said it speaks plain ZeroMQ."""
        self._learned = False
        """Whether the key (or plain) was the server's answer, not given: asked again after a
        lost link."""
        self._unsent: list[bytes] = []
        """Frames sent while the key was being asked, for the socket once it connects (as a
        socket keeps what is sent before it connects)."""
        if key is not None and known is not None:
            self._trust(key)
        self.name = name[: protocol.MAX_NAME_CHARS] or "Player"
        self.clock = clock
        self.context = context or zmq.Context.instance()
        self.heartbeat = protocol.HEARTBEAT_SECONDS
        self.timeout = protocol.TIMEOUT_SECONDS
        self.welcome: dict[str, Any] | None = None
        self.state = "connecting"
        """``connecting`` (no answer yet), ``connected`` or ``lost``."""
        self._rids = itertools.count(1)
        self.record: deque[tuple[float, str, bytes]] = deque(maxlen=RECORD_MESSAGES)
        """The last messages as ``(time.time(), "sent" | "received", frame)``."""
        self._socket: Any = None
        self._monitor: Any = None
        """The socket's connection events: whether ZeroMQ dropped the connection."""
        self._handshaken = False
        """Whether the socket's connection to the server was ever made (its handshake)."""
        self._ever_connected = False
        self._keyed: dict[int, tuple[dict[str, Any], int, float]] = {}
        """``sit`` and ``create`` requests awaiting their reply, by ``rid``, each with the
        socket it last went out on (a count of the sockets opened) and when."""
        self._sockets = 0
        self._open()

    def _open(self) -> None:
        self._close_socket(linger=0)
        now = self.clock()
        self.last_heard = now
        self.last_sent = now
        if self.refusal is not None:
            return
        if self.server_key is None and not self._plain and host_and_port(self.address):
            if self._query is None:
                self._query = KeyQuery(self.address)
            self._ask()
            return
        self._connect()

    def _connect(self) -> None:
        self._socket = self.context.socket(zmq.DEALER)
        self._sockets += 1
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.RECONNECT_IVL, 200)
        self._socket.setsockopt(zmq.MAXMSGSIZE, protocol.MAX_MESSAGE_BYTES)
        self._socket.setsockopt(zmq.HEARTBEAT_IVL, int(ALIVE_INTERVAL * 1000))
        self._socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, int(ALIVE_TIMEOUT * 1000))
        self._monitor = self._socket.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED)
        self._handshaken = False
        if self.server_key is not None:
            secure_client(self._socket, self.server_key)
        self._socket.connect(self.address)
        unsent, self._unsent = self._unsent, []
        self.send({"type": protocol.HELLO, "name": self.name,
                   "protocol": protocol.PROTOCOL_VERSION})
        for frame in unsent:
            self._put(frame)

    def _ask(self) -> None:
        assert self._query is not None
        self._query.ask()
        self._asked = self.clock()

    def _trust(self, key: bytes | None) -> bool:
        """Check ``key`` (``None``: plain) against the pinned one; ``False`` and
        ``refusal`` set when it differs."""
        if self.known is None:
            return True
        try:
            self.known.check(self.address, key)
        except KeyChanged as changed:
            self.refusal = str(changed)
            self.state = "refused"
            return False
        return True

    def _hear_key(self) -> list[dict[str, Any]]:
        """While the key is not known: read the server's answer, or ask again."""
        assert self._query is not None
        heard = self._query.answer()
        if heard is None:
            if self.clock() - self._asked >= KEY_ASK_SECONDS:
                self._ask()
            return []
        self._query.close()
        self._query = None
        if not self._trust(heard.key):
            return [{"type": KEY_REFUSED, "message": self.refusal}]
        self.server_key = heard.key
        self._plain = heard.key is None
        self._learned = True
        self._connect()
        return []

    def send(self, message: dict[str, Any]) -> int:
        """Send a request; returns the ``rid`` it carries. A ``sit`` or ``create`` gets a
        ``key`` (unless it has one) and is sent again after a reconnect until answered."""
        rid = next(self._rids)
        message = {**message, "rid": rid}
        if message["type"] in (protocol.SIT, protocol.CREATE):
            message.setdefault("key", protocol.new_key())
            self._keyed[rid] = (message, self._sockets, self.clock())
        self._send_frame(message)
        return rid

    def pending_sit(self, table: str) -> bool:
        """Whether a ``sit`` at ``table`` still waits for its reply."""
        return any(m["type"] == protocol.SIT and m.get("table") == table
                   for m, _, _ in self._keyed.values())

    def _restarted(self, pong: dict[str, Any]) -> bool:
        """Whether a ``pong`` comes from another run of the server than the ``welcome``."""
        known = (self.welcome or {}).get("instance")
        return self.state == "connected" and known is not None and pong.get(
            "instance") not in (None, known)

    def _forgotten(self, now: float) -> bool:
        """Whether the server has forgotten this session: the link sent nothing for about the
        server's ``timeout`` (a window starved of CPU, a laptop that slept), after which the
        server drops a session (docs/protocol.md §7) though ZeroMQ keeps the connection, and
        what the server sent before, read only now, looks like a live session. A heartbeat's
        margin (at most half the ``timeout``) stands for a message the server read late."""
        margin = min(self.heartbeat, self.timeout / 2)
        return self.state == "connected" and now - self.last_sent > self.timeout - margin

    def _hello_again(self) -> None:
        """The server does not know this session (any more): say hello; its ``welcome``
        rejoins as after a lost link (``REJOINED``: seats resumed, tables watched again)."""
        self.state = "connecting"
        self.send({"type": protocol.HELLO, "name": self.name,
                   "protocol": protocol.PROTOCOL_VERSION})

    def _resend_keyed(self, *, everything: bool = False) -> None:
        """Send again the keyed requests a lost socket took with it, or whose reply has not
        come for ``timeout`` seconds, or (``everything``) all of them after a reconnect: the
        server answers a resend as it answered the first."""
        now = self.clock()
        for rid, (request, socket_number, sent) in list(self._keyed.items()):
            if everything or socket_number != self._sockets or now - sent > self.timeout:
                self._keyed[rid] = (request, self._sockets, now)
                self._send_frame(request)

    def _send_frame(self, message: dict[str, Any]) -> None:
        frame = protocol.encode(message)
        if self._socket is None:  # the key is being asked
            self._unsent.append(frame)
        else:
            self._put(frame)
        self.last_sent = self.clock()

    def _put(self, frame: bytes) -> None:
        assert self._socket is not None
        self.record.append((time.time(), "sent", frame))
        # When the link is down the send fails; the heartbeat logic notices and starts over.
        with contextlib.suppress(zmq.Again):
            self._socket.send(frame, zmq.NOBLOCK)

    def _dropped(self) -> bool:
        """Whether ZeroMQ dropped the connection it had made: the server's process is gone
        (its sockets closed), or it left a heartbeat unanswered for ``ALIVE_TIMEOUT``."""
        dropped = False
        while True:
            try:
                event = parse_monitor_message(self._monitor.recv_multipart(zmq.NOBLOCK))
            except zmq.Again:
                return dropped
            if event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._handshaken = True
            elif event["event"] == zmq.EVENT_DISCONNECTED and self._handshaken:
                dropped = True

    def _receive(self, received: list[dict[str, Any]]) -> None:
        """Take every frame waiting on the socket."""
        assert self._socket is not None
        while True:
            try:
                frame = self._socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            self.record.append((time.time(), "received", frame))
            try:
                message = protocol.decode(frame)
            except protocol.ProtocolError:
                continue
            self.last_heard = self.clock()
            rid = message.get("rid")
            if type(rid) is int:
                self._keyed.pop(rid, None)
            if message["type"] == protocol.WELCOME:
                self.welcome = message
                self.heartbeat = float(message.get("heartbeat", self.heartbeat))
                self.timeout = float(message.get("timeout", self.timeout))
                if self.state != "connected":
                    if self._ever_connected:
                        received.append({"type": REJOINED})
                    self._resend_keyed(everything=self._ever_connected)
                    self.state = "connected"
                    self._ever_connected = True
            elif message["type"] == protocol.PONG and self._restarted(message):
                # The server restarted between two heartbeats and knows nothing of this
                # session.
                self._hello_again()
            received.append(message)

    def poll(self) -> list[dict[str, Any]]:
        if self.refusal is not None:
            return []
        if self._socket is None:
            received = self._hear_key()
            if self._socket is None:
                if self.refusal is None and self.clock() - self.last_heard > self.timeout:
                    if self.state != "lost":
                        received.append({"type": LOST})
                    self.state = "lost"
                    self.last_heard = self.clock()
                return received
        else:
            received = []
        self._receive(received)
        dropped = self._dropped()
        if dropped:
            self._receive(received)  # what came before the connection ended
        now = self.clock()
        if dropped or now - self.last_heard > self.timeout:
            if self.state != "lost":
                received.append({"type": LOST})
            self.state = "lost"
            if self._learned:
                # Asked again: a server that came back with another key is then refused with
                # a warning, rather than failing its handshakes in silence.
                self.server_key, self._plain, self._learned = None, False, False
            self._open()  # a new session; hello is sent again, and again until answered
        else:
            if self._forgotten(now):
                self._hello_again()
            if self.state == "connected" and self._keyed:
                self._resend_keyed()
            if now - self.last_sent > self.heartbeat:
                self.send({"type": protocol.PING})
        return received

    def _close_socket(self, linger: int) -> None:
        if self._monitor is not None:
            self._socket.disable_monitor()
            self._monitor.close(linger=0)
            self._monitor = None
        if self._socket is not None:
            self._socket.close(linger=linger)
            self._socket = None

    def wait(self, timeout: float) -> bool:
        """Sleep until a message is waiting or ``timeout`` seconds pass (an idle window waits
        here rather than spinning); ``True`` when one is waiting."""
        if self._socket is None:
            if self._query is None:
                time.sleep(timeout)
                return False
            return bool(select.select([self._query.fileno()], [], [], timeout)[0])
        try:
            return bool(self._socket.poll(max(0, int(timeout * 1000)), zmq.POLLIN))
        except zmq.ZMQError:
            return False

    def messages(self) -> list[dict[str, Any]]:
        """What was recorded, oldest first, as ``{"time", "direction", "message"}`` maps (a
        frame that does not decode is kept as ``{"undecodable": bytes}``)."""
        found = []
        for when, direction, frame in list(self.record):
            try:
                message: dict[str, Any] = protocol.decode(frame)
            except protocol.ProtocolError:
                message = {"undecodable": bytes(frame)}
            if message.get("type") == protocol.SIT and "key" in message:
                message["key"] = "<key>"  # as secret as the token it gives
            found.append({"time": when, "direction": direction, "message": message})
        return found

    def close(self, linger: float = 0.0) -> None:
        """Close the socket; ``linger`` seconds let the last requests (a ``leave``) go out."""
        self._close_socket(linger=int(linger * 1000))
        if self._query is not None:
            self._query.close()
            self._query = None
