"""The web process's one spectator of the server: the lobby, the tables being watched, and
the histories asked for, shared by every browser.

It speaks the protocol through the window's own link and table session
(``client.net``: heartbeats, a lost server, gaps and syncs), watches a table only while a
browser looks at it, and follows a table to the node that serves it (``elsewhere``). What it
hands a browser is a spectator's: the snapshots and updates of a ``watch``, the ``history`` of
a table (docs/protocol.md), worded by ``words`` and with the faces of their cards.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from starhall.client.net.link import LOST, REJOINED, ServerLink, normalise_address
from starhall.client.net.session import Batch, TableSession, seat_names
from starhall.client.web.faces import faces_in
from starhall.client.web.words import Narrator
from starhall.shared import protocol

Message = dict[str, Any]
POLL_SECONDS = 0.03
LIST_SECONDS = 1.0
"""How often the lobby is asked for again (the protocol's lobby is asked, not pushed)."""
ASK_AGAIN_SECONDS = 0.5
"""How long to wait before asking again about a table no node serves for a moment."""
HISTORY_SECONDS = 15.0
"""How long a page of a history may take to come before the browser is told so."""
HAND_STARTS = frozenset({"deal", "shuffle", "shuffled"})
"""The events that begin a hand, a deal or a round: where "jump to a hand" lands."""


class HistoryError(Exception):
    """The server refused a history (``reason`` says why)."""


class Watch:
    """One table watched live for the browsers looking at it."""

    def __init__(self, table: str, link: ServerLink) -> None:
        self.table = table
        self.session = TableSession(link, table)
        self.narrator: Narrator | None = None
        self.last: Message | None = None
        """The table as last sent (a ``state`` message with the view), for a new browser."""
        self.queues: set[asyncio.Queue[Message]] = set()
        self.session.watch()

    def receive(self, message: Message) -> None:
        batch = self.session.handle(message)
        model = self.session.model
        if message.get("type") == protocol.TABLE and self.last is not None and model:
            self.last["info"] = self.session.info
            self.last["names"] = list(model.names)
            self.publish({"type": "info", "info": self.session.info, "names": model.names})
        if batch is None or model is None:
            return
        if self.narrator is None:
            self.narrator = Narrator(model.game, model.names)
        self.take(batch)

    def take(self, batch: Batch) -> None:
        model = self.session.model
        assert model is not None and self.narrator is not None
        names = list(model.names)
        events = [event for _, event in batch.events]
        lines = self.narrator.lines(events, batch.view, names)
        worded = [{**event, "line": line} for event, line in zip(events, lines, strict=True)]
        faces = faces_in(model.game, [batch.view, events])
        self.last = {"type": "state", "table": self.table, "game": model.game,
                     "seq": batch.seq, "view": batch.view, "names": names,
                     "info": self.session.info, "faces": faces}
        if batch.fresh:
            self.publish(self.last)
        else:
            self.publish({"type": "update", "table": self.table, "seq": batch.seq,
                          "events": worded, "view": batch.view, "names": names,
                          "faces": faces})

    def publish(self, message: Message) -> None:
        for queue in self.queues:
            queue.put_nowait(message)


class Hub:
    def __init__(self, address: str, name: str = "web", key: bytes | None = None) -> None:
        """``key``: the server's public key (``--server-key``), else asked of it."""
        self.address = address
        self.name = name
        self.key = key
        self.links: dict[str, ServerLink] = {}
        self.primary = self._link(address)
        self.lobby: list[Message] | None = None
        self.connected = True
        """Whether the server answers (it is told to the pages when that changes)."""
        self.lobby_queues: set[asyncio.Queue[Message]] = set()
        self.watches: dict[str, Watch] = {}
        self._replies: dict[tuple[str, int], Callable[[Message], None]] = {}
        self._listing: list[Message] = []
        self._listing_now = False
        self._asked_list = -LIST_SECONDS
        self._later: list[tuple[float, Callable[[], None]]] = []

    def _link(self, address: str) -> ServerLink:
        endpoint = normalise_address(address)
        link = self.links.get(endpoint)
        if link is None:
            key = self.key if endpoint == normalise_address(self.address) else None
            link = self.links[endpoint] = ServerLink(endpoint, self.name, key=key)
        return link

    # --- the loop --------------------------------------------------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            if now - self._asked_list >= LIST_SECONDS and not self._listing_now:
                self._asked_list = now
                self._ask_list(None)
            due = [task for task in self._later if task[0] <= now]
            self._later = [task for task in self._later if task[0] > now]
            for _, task in due:
                task()
            for link in list(self.links.values()):
                for message in link.poll():
                    self._dispatch(link, message)
            await asyncio.sleep(POLL_SECONDS)

    def close(self) -> None:
        for link in self.links.values():
            link.close()

    def _dispatch(self, link: ServerLink, message: Message) -> None:
        kind = message.get("type")
        rid = message.get("rid")
        if type(rid) is int:
            reply = self._replies.pop((link.address, rid), None)
            if reply is not None:
                reply(message)
                return
        if kind == protocol.ERROR and message.get("code") == protocol.ELSEWHERE:
            self._elsewhere(message)
            return
        if kind == protocol.DRAINING:
            self._drained(link, message)
            return
        if kind in (LOST, REJOINED) and link is self.primary:
            self._listing_now = False  # its reply went with the old session
            self.connected = kind == REJOINED
            notice = {"type": "server", "connected": self.connected}
            for queue in self.lobby_queues | {q for w in self.watches.values() for q in w.queues}:
                queue.put_nowait(notice)
        for watch in list(self.watches.values()):
            if watch.session.link is not link:
                continue
            if kind == LOST and link is not self.primary:
                # That node is gone: the node asked first sends the table on to whichever
                # node serves it now (elsewhere), as after a node's death in a service.
                watch.session.move_to(self.primary)
            else:
                watch.receive(message)

    def _ask(self, link: ServerLink, request: Message, reply: Callable[[Message], None]
             ) -> None:
        rid = link.send(request)
        self._replies[(link.address, rid)] = reply

    def _elsewhere(self, message: Message) -> None:
        """A watched table is served by another node (or none, for a moment): follow it."""
        watch = self.watches.get(str(message.get("table")))
        if watch is None:
            return
        address = message.get("address")
        if isinstance(address, str):
            watch.session.move_to(self._link(address))
            return
        self._later.append((asyncio.get_running_loop().time() + ASK_AGAIN_SECONDS,
                            lambda: watch.session.move_to(self.primary)))

    def _drained(self, link: ServerLink, message: Message) -> None:
        """A node stopping on purpose hands its tables to the others: the tables watched
        there are asked of the first node it names (the node asked first when it names
        none), which serves each or says where it went."""
        nodes = [node["address"] for node in message.get("nodes") or []
                 if isinstance(node, dict) and isinstance(node.get("address"), str)]
        target = self.primary
        if nodes:
            with contextlib.suppress(ValueError):
                target = self._link(nodes[0])
        for watch in self.watches.values():
            if watch.session.link is link and target is not link:
                watch.session.move_to(target)

    # --- the lobby -------------------------------------------------------------------------

    def _ask_list(self, cursor: str | None) -> None:
        request: Message = {"type": protocol.LIST}
        if cursor is not None:
            request["cursor"] = cursor
        else:
            self._listing = []
        self._listing_now = True
        self._ask(self.primary, request, self._listed)

    def _listed(self, reply: Message) -> None:
        if reply.get("type") != protocol.TABLES:
            self._listing_now = False
            return
        self._listing += list(reply.get("tables") or [])
        if reply.get("cursor"):
            self._ask_list(str(reply["cursor"]))
            return
        self._listing_now = False
        if self._listing != self.lobby:
            self.lobby = self._listing
            message = self.lobby_message()
            for queue in self.lobby_queues:
                queue.put_nowait(message)

    def lobby_message(self) -> Message:
        """The tables, each seat named as the window names it ("Ada (Easy)" for a bot)."""
        tables = self.lobby or []
        return {"type": "lobby", "tables": tables,
                "names": {info.get("id"): seat_names(info) for info in tables}}

    def info(self, table: str) -> Message | None:
        return next((info for info in self.lobby or [] if info.get("id") == table), None)

    # --- watching --------------------------------------------------------------------------

    def follow(self, table: str, queue: asyncio.Queue[Message]) -> None:
        watch = self.watches.get(table)
        if watch is None:
            watch = self.watches[table] = Watch(table, self.primary)
        elif watch.last is not None:
            queue.put_nowait(watch.last)
        watch.queues.add(queue)

    def unfollow(self, table: str, queue: asyncio.Queue[Message]) -> None:
        watch = self.watches.get(table)
        if watch is None:
            return
        watch.queues.discard(queue)
        if not watch.queues:
            del self.watches[table]
            with contextlib.suppress(Exception):
                watch.session.link.send({"type": protocol.UNWATCH, "table": table})

    # --- histories -------------------------------------------------------------------------

    async def history(self, table: str) -> Message:
        """The table's every event from the first, as a spectator sees it, each with the view
        after it and its line in words: what a replay steps through."""
        view: Message | None = None
        steps: list[Message] = []
        link = self.primary
        while True:
            start = steps[-1]["seq"] if steps else 0
            try:
                reply = await asyncio.wait_for(self._history_page(link, table, start),
                                               HISTORY_SECONDS)
            except TimeoutError:
                raise HistoryError("the server did not answer") from None
            if reply.get("type") == protocol.ERROR:
                address = reply.get("address")
                if reply.get("code") == protocol.ELSEWHERE and reply.get("address") is not None:
                    link = self._link(str(address))
                    continue
                if reply.get("code") == protocol.ELSEWHERE:
                    await asyncio.sleep(ASK_AGAIN_SECONDS)
                    continue
                raise HistoryError(str(reply.get("reason") or reply.get("code")))
            if view is None:
                view = reply["view"]
            steps += reply.get("steps") or []
            if not reply.get("steps") or steps[-1]["seq"] >= int(reply["last"]):
                break
        assert view is not None
        watch = self.watches.get(table)
        info = (watch.session.info if watch is not None else None) or self.info(table) or {}
        game = str(view.get("game") or info.get("game") or "")
        names = seat_names(info) if info else [
            f"Seat {seat}" for seat in range(int(view.get("players") or 0))]
        narrator = Narrator(game, names)
        for step in steps:
            event = step.get("event")
            step["line"] = narrator.lines([event], step["view"])[0] if event else None
        hands = [step["seq"] for step in steps
                 if step.get("event") and step["event"]["type"] in HAND_STARTS]
        faces = faces_in(game, [view, *(step["view"] for step in steps),
                                *(step["event"] for step in steps)])
        return {"type": "history", "table": table, "game": game, "names": names,
                "info": info, "view": view, "steps": steps, "hands": hands, "faces": faces}

    def _history_page(self, link: ServerLink, table: str, start: int
                      ) -> asyncio.Future[Message]:
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()

        def answered(reply: Message) -> None:
            if not future.done():
                future.set_result(reply)

        self._ask(link, {"type": protocol.HISTORY, "table": table, "from": start}, answered)
        return future
