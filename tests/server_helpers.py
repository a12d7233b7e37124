"""Client-side helpers for the server tests: people who play from what the server shows
them, and a recorder that checks no message ever held a card hidden from its receiver."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from starhall.server.embed import EmbeddedServer
from starhall.shared import protocol
from starhall.shared.replay import load
from tests.connection import Connection, HeardServer, ServerListener, TableFeed

FAST_HEARTS = {"target": 10}
"""A game of one or two hands, so a full game stays quick."""

FAST_SERVER: dict[str, Any] = {"think": 0.0, "flood_rate": 10_000, "flood_burst": 10_000}
"""An embedded server whose bots do not wait and whose flood limits a test never meets."""


def address(server: EmbeddedServer) -> str:
    assert server.address is not None
    return server.address


def fill_with_bots(lobby: Connection | Participant, table: str,
                   seats: Iterable[int] = (1, 2, 3)) -> None:
    for seat in seats:
        reply = lobby.request({"type": "bot", "table": table, "seat": seat})
        assert reply["type"] == protocol.BOTTED, reply


def wait_for(condition: Any, timeout: float = 10.0, step: float = 0.01) -> Any:
    """Poll ``condition`` until it holds. The deadline only keeps a stuck server from hanging
    the suite; it measures nothing."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(step)
    raise TimeoutError("the condition never held: no progress")


def hear_one_server(listener: ServerListener) -> HeardServer:
    """The one server ``listener`` hears a beacon from, once it has heard one."""

    def heard() -> bool:
        listener.poll(0.05)
        return bool(listener.servers())

    wait_for(heard)
    (server,) = listener.servers()
    return server


def choose(view: dict[str, Any]) -> dict[str, Any] | None:
    """A legal Hearts command from a seat's view (the view lists what the seat may do)."""
    legal = view.get("legal") or {}
    if "play" in legal and legal["play"]:
        return {"type": "play", "data": {"card": legal["play"][0]}}
    if "pass" in legal:
        chosen = legal["pass"]["from"][: legal["pass"]["count"]]
        return {"type": "pass", "data": {"cards": chosen}}
    if "exchange" in legal:
        offer = legal["exchange"]
        if offer["may_decline"]:
            return {"type": "decline_exchange", "data": {}}
        return {"type": "take_exchange",
                "data": {"cards": offer["discard_from"][: offer["count"]]}}
    return None


class Participant:
    """A connection that keeps every message it received, for the recorder."""

    def __init__(self, address: str, name: str = "Ada") -> None:
        self.connection = Connection(address)
        self.name = name
        self.received: list[dict[str, Any]] = []

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = self.connection.request(message)
        self.received.append(reply)
        return reply

    def drain(self, timeout: float = 0.0) -> list[dict[str, Any]]:
        got = []
        while True:
            message = self.connection.receive(timeout)
            if message is None:
                return got
            self.received.append(message)
            got.append(message)
            timeout = 0.0

    def heard(self) -> list[dict[str, Any]]:
        """What the server has sent this participant until now, without waiting for a time:
        the server sends on a connection in order, so once the ``pong`` to a ``ping`` sent now
        has come, everything sent before it has come too."""
        self.request({"type": protocol.PING})
        return [m for m in self.drain() if m["type"] != protocol.PONG]

    def close(self) -> None:
        self.connection.close()


class Person(Participant):
    """A person at one seat who plays a legal move whenever the server says it is their turn."""

    def __init__(self, address: str, table: str, seat: int | None = None,
                 name: str = "Ada") -> None:
        super().__init__(address, name)
        request: dict[str, Any] = {"type": "sit", "table": table, "name": name}
        if seat is not None:
            request["seat"] = seat
        seated = self.request(request)
        assert seated["type"] == protocol.SEATED, seated
        self.table, self.seat, self.token = table, seated["seat"], seated["token"]
        self.feed = TableFeed(table, self.seat)
        self.cid = 0
        self.acks: list[dict[str, Any]] = []
        self.commands: dict[Any, dict[str, Any]] = {}
        self.viewed_seq = -1

    def resume(self, address: str) -> None:
        """Come back on a new connection."""
        self.connection.close()
        self.connection = Connection(address)
        reply = self.request({"type": "resume", "table": self.table, "seat": self.seat,
                              "token": self.token})
        assert reply["type"] == protocol.SEATED, reply
        self.feed = TableFeed(self.table, self.seat)
        self.viewed_seq = -1

    def pump(self, timeout: float = 0.0) -> None:
        for message in self.drain(timeout):
            if self.feed.apply(message) == "gap":
                self.sync()

    def sync(self) -> None:
        snapshot = self.request({"type": "sync", "table": self.table, "token": self.token})
        assert snapshot["type"] == protocol.SNAPSHOT, snapshot
        self.feed.apply(snapshot)
        self.viewed_seq = self.feed.seq

    @property
    def over(self) -> bool:
        return self.feed.view.get("phase") == "over"

    def refresh(self, timeout: float = 0.01) -> bool:
        """Read what arrived and bring the view up to date; whether it is this seat's turn."""
        self.pump(timeout)
        if self.feed.seq != self.viewed_seq:
            self.sync()  # updates carry events, the view carries what the seat may do
        return self.seat in self.feed.view.get("to_act", [])

    def step(self, timeout: float = 0.01) -> bool:
        """Read what arrived; move if it is this seat's turn. Whether a move was acked."""
        if not self.refresh(timeout):
            return False
        command = choose(self.feed.view)
        if command is None:
            return False
        reply = self.act(command)
        return reply["type"] == protocol.ACK

    def act(self, command: dict[str, Any], *, seq: int | None = None,
            cid: Any = None) -> dict[str, Any]:
        if cid is None:
            self.cid += 1
            cid = self.cid
        reply = self.request({"type": "act", "table": self.table, "token": self.token,
                              "seq": self.feed.seq if seq is None else seq, "cid": cid,
                              "command": command})
        if reply["type"] == protocol.ACK:
            self.acks.append(reply)
            self.commands[cid] = command
        return reply


def play_until_over(people: Iterable[Person], timeout: float = 30.0) -> None:
    """Step everyone until the game is over. The deadline only keeps a server that stopped
    making progress from hanging the suite; it measures nothing."""
    people = list(people)
    deadline = time.monotonic() + timeout
    while not all(person.over for person in people):
        if time.monotonic() > deadline:
            raise TimeoutError("the game stopped making progress")
        for person in people:
            person.step()


# --- the recorder's check ----------------------------------------------------------------

def strings(value: Any) -> Iterable[str]:
    """Every string in a message or view, keys included (card codes are strings)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


class HiddenCards:
    """From a table's log, for any game: which cards each viewer may not know after each
    event. The deck is what the first shuffle held; a card is hidden from a viewer when the
    full snapshot holds it and the viewer's own view does not (a card the viewer saw played,
    passed or taken stays in its view)."""

    def __init__(self, log: Path) -> None:
        recording = load(log)
        game = recording.game
        self.deck: set[str] = next(set(event.data["order"]) for _, event in recording.events
                                   if event.seat is None and "order" in event.data)
        self.hidden_from: dict[tuple[int, int | None], set[str]] = {}
        self.seen_at: dict[tuple[int, int | None], set[str]] = {}
        for seq, state in recording.states():
            everything = self.deck & set(strings(game.snapshot(state)))
            for viewer in (None, *range(recording.players)):
                seen = self.deck & set(strings(game.view(state, viewer)))
                self.hidden_from[seq, viewer] = everything - seen
                self.seen_at[seq, viewer] = seen

    def hidden(self, seq: int, viewer: int | None) -> set[str]:
        return self.hidden_from[seq, viewer]

    def new_to(self, seq: int, viewer: int | None) -> set[str]:
        """The cards event ``seq`` may not show ``viewer``: hidden from it after the event and
        before it too (a seat's own event may name the cards it held, say those it
        discarded, though they then leave its view)."""
        return self.hidden(seq, viewer) - self.seen_at.get((seq - 1, viewer), set())

    def leaks(self, messages: Iterable[dict[str, Any]], viewer: int | None,
              table: str) -> list[str]:
        """Every card a message showed to ``viewer`` while it was hidden from it."""
        found = []
        for message in messages:
            if message.get("table") not in (table, None) and message.get("type") != "table":
                continue
            if message["type"] == protocol.UPDATE:
                for event in message["events"]:
                    cards = self.deck & set(strings(event))
                    bad = cards & self.new_to(event["seq"], message["seat"])
                    if bad:
                        found.append(f"event {event} shows {sorted(bad)}")
                if "view" in message:  # the table after the update's events
                    cards = self.deck & set(strings(message["view"]))
                    bad = cards & self.hidden(message["seq"], message["seat"])
                    if bad:
                        found.append(f"the view at {message['seq']} shows {sorted(bad)}")
            elif message["type"] == protocol.SNAPSHOT:
                cards = self.deck & set(strings(message["view"]))
                bad = cards & self.hidden(message["seq"], message["seat"])
                if bad:
                    found.append(f"snapshot at {message['seq']} shows {sorted(bad)}")
            else:
                cards = self.deck & set(strings(message))
                if cards:
                    found.append(f"{message['type']} message shows {sorted(cards)}")
        return found

def log_of(server: EmbeddedServer, table: str) -> Path:
    """The log file of ``table`` in ``server``'s data folder; for a server that keeps its
    tables in JetStream, the table's log read back from the stream into a file there (a log
    file byte for byte)."""
    if server.config.store is None:
        return server.config.data / "tables" / f"{table}.starhall"
    assert server.service is not None
    path = server.config.data / "exported" / f"{table}.starhall"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(server.service.store.read(table))
    return path
