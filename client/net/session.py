"""One table as the server tells it: snapshots and updates become ``Batch``es for the screen,
the user's commands become ``act`` requests.

Each update carries the events since the last one and the view after them; events animate,
the view is the truth. After a gap the session asks for a ``sync`` and drops what it held.
A lost *last* update leaves no gap to see, so the session also reads the table's ``seq`` in
each ``pong``: when the server is further on, it syncs. After a reconnect, moves whose
``ack`` never came are sent again under their ``cid``: the server acknowledges one it
already made as a duplicate. A table that moves to another node of a service (an
``elsewhere`` answer, docs/protocol.md §3b) is followed the same way on a link to that node
(``move_to``): the token, the command ids and what was seen carry over.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from starhall.client.net.link import LOST, REJOINED, ServerLink
from starhall.client.net.model import TableModel
from starhall.shared import protocol
from starhall.shared.bots import bot_name


@dataclass(frozen=True, slots=True)
class Batch:
    events: list[tuple[int, dict[str, Any]]]
    """Events since the previous batch, as this seat sees them."""
    view: dict[str, Any]
    seq: int
    fresh: bool
    """A first view, a re-join or a gap: show it at once, without animation."""


def seat_names(info: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for entry in info.get("seats") or []:
        names.append(seat_label(entry, int(entry.get("seat", len(names)))))
    return names


def seat_label(entry: dict[str, Any] | None, seat: int) -> str:
    """What a seat is called at the table, from a ``TableInfo`` seat or a log's seat map (the
    same fields); "Seat N" when nobody knows (an older log)."""
    if entry is None:
        return f"Seat {seat}"
    name = entry.get("name")
    if entry.get("state") == "bot" and not entry.get("standin"):
        name = bot_name(seat)  # friendlier than the bot's kind
    elif not name:
        name = "(free seat)"
    level = entry.get("level") if entry.get("state") == "bot" else None
    return f"{name} ({str(level).capitalize()})" if isinstance(level, str) else str(name)


class TableSession:
    def __init__(self, link: ServerLink, table: str, seat: int | None = None,
                 token: str | None = None) -> None:
        self.link = link
        self.table = table
        self.seat = seat
        self.token = token
        self.model: TableModel | None = None
        self.info: dict[str, Any] = {}
        self.event_seq = -1
        self.view_seq = -1
        self.pending: list[tuple[int, dict[str, Any]]] = []
        self.syncing = False
        self.fresh = True
        self._cids = itertools.count(1)
        self._acts: dict[int, dict[str, Any]] = {}
        """Requests of moves awaiting their ``ack``, by ``rid``: resent once if stale."""
        self._asked = 0
        """The ``rid`` of the latest request whose answer the session waits for or had (a
        snapshot's or a ``sync``'s): a ``pong`` to an earlier ping says nothing new."""

    # --- requests ----------------------------------------------------------------------

    def watch(self) -> None:
        self._asked = self.link.send({"type": protocol.WATCH, "table": self.table})

    def resume(self) -> None:
        if self.token is None and self.link.pending_sit(self.table):
            return  # the link sends the sit again: its answer seats us
        if self.token is not None and self.seat is not None:
            self._asked = self.link.send({"type": protocol.RESUME, "table": self.table,
                                          "seat": self.seat, "token": self.token})
        else:
            self.watch()

    def _sync(self) -> None:
        if not self.syncing:
            self.syncing = True
            message: dict[str, Any] = {"type": protocol.SYNC, "table": self.table}
            if self.token is not None:
                message["token"] = self.token
            self._asked = self.link.send(message)

    def act(self, command: str, data: dict[str, Any] | None = None) -> None:
        """Ask the server to make a move; its answer (events or a refusal) comes later."""
        if self.token is None:
            return
        request = {"type": protocol.ACT, "table": self.table, "token": self.token,
                   "seq": max(0, self.event_seq), "cid": next(self._cids),
                   "command": {"type": command, "data": data or {}}}
        self._acts[self.link.send(request)] = request

    # --- what the server says ----------------------------------------------------------

    def handle(self, message: dict[str, Any]) -> Batch | None:
        kind = message.get("type")
        if kind == LOST:
            if self.model is not None:
                self.model.connection = "lost"
            return None
        if kind == REJOINED:
            self._rejoin()
            return None
        if kind == protocol.PONG:
            self._check_seq(message)
            return None
        if message.get("table") not in (None, self.table) and kind != protocol.TABLE:
            return None
        if kind == protocol.SEATED:
            self.seat, self.token = int(message["seat"]), str(message["token"])
        elif kind == protocol.TABLE:
            info = message.get("table") or {}
            if info.get("id") == self.table:
                self._take_info(info)
        elif kind == protocol.UPDATE and message.get("seat") == self.seat:
            return self._update(message)
        elif kind == protocol.SNAPSHOT and message.get("seat") == self.seat:
            return self._snapshot(message)
        elif kind == protocol.ACK:
            self._acts.pop(message.get("rid"), None)  # type: ignore[arg-type]
        elif kind == protocol.ERROR:
            self._error(message)
        return None

    def move_to(self, link: ServerLink) -> None:
        """Follow the table to ``link``: the node that serves it now, or the same node asked
        again after an ``elsewhere`` that named none. As after a reconnect, the seat is
        resumed with its token (or the table watched again), the moves not acknowledged are
        sent again with their command ids, and the snapshot that comes carries on from what
        was seen."""
        self.link = link
        self._rejoin()

    def _rejoin(self) -> None:
        self.syncing = False
        self.fresh = True
        self.resume()
        self._resend_acts()

    def _resend_acts(self) -> None:
        """Moves sent before the link was lost and never acknowledged, again with their own
        ``cid`` and ``seq``: one the server made is acknowledged as a duplicate, one it never
        got is made now (or refused as stale, and then retried as any stale move)."""
        for rid, request in list(self._acts.items()):
            del self._acts[rid]
            again = {k: v for k, v in request.items() if k != "retried"}
            self._acts[self.link.send(again)] = request

    def _check_seq(self, pong: dict[str, Any]) -> None:
        """A ``pong`` carries the ``seq`` of each table the session follows: one past what
        the session has means the last update was lost, and a sync whose snapshot has not
        come before a later ping's pong was lost too. Either way, sync. (A table missing from
        the pong is one this session no longer follows: its seat was taken up elsewhere. A
        server that restarted is noticed by the link, which rejoins.)"""
        rid, seqs = pong.get("rid"), pong.get("seqs")
        if self.model is None or type(rid) is not int or rid <= self._asked or not isinstance(
                seqs, dict):
            return
        known = seqs.get(self.table)
        if type(known) is int and (self.syncing or known > self.event_seq):
            self.fresh = True  # events were lost to us: show the table at once
            self.syncing = False
            self._sync()

    def _take_info(self, info: dict[str, Any]) -> None:
        self.info = info
        if self.model is not None:
            self.model.names = seat_names(info)

    def _update(self, message: dict[str, Any]) -> Batch | None:
        start, seq = int(message["from"]), int(message["seq"])
        if seq <= self.event_seq:
            return None
        if start != self.event_seq:
            self.fresh = True  # a gap: some events are lost to us, so nothing can animate
            self.pending.clear()
            self.event_seq = seq
            self._sync()
            return None
        self.pending += [(int(e["seq"]), e) for e in message.get("events") or []]
        self.event_seq = seq
        view = message.get("view")
        if view is None or self.model is None or self.syncing:
            self._sync()  # a server that sends no view, or a snapshot already on its way
            return None
        return self._take_view(seq, view)

    def _snapshot(self, message: dict[str, Any]) -> Batch | None:
        self.syncing = False
        if type(message.get("rid")) is int:
            self._asked = max(self._asked, message["rid"])
        seq = int(message["seq"])
        info = message.get("info") or {}
        if self.model is None:
            self.model = TableModel(game=str(info.get("game") or message["view"].get("game")),
                                    seat=self.seat, players=int(info.get("players") or
                                                                message["view"]["players"]),
                                    names=seat_names(info), table=self.table)
        if info:
            self._take_info(info)
        self.model.connection = "connected"
        batch = self._take_view(seq, message["view"])
        if self.pending:
            self._sync()
        return batch

    def _take_view(self, seq: int, view: dict[str, Any]) -> Batch | None:
        """The events up to ``seq`` that are waiting, with the view after them."""
        if seq < self.view_seq:
            return None
        events = [(s, e) for s, e in self.pending if self.view_seq < s <= seq]
        self.pending = [(s, e) for s, e in self.pending if s > seq]
        fresh = self.fresh or self.view_seq < 0
        self.fresh = False
        self.view_seq = seq
        self.event_seq = max(self.event_seq, seq)
        return Batch(events, view, seq, fresh)

    def _error(self, message: dict[str, Any]) -> None:
        if message.get("code") == protocol.ELSEWHERE:
            # Not refused: served by another node, or being taken over. The move stays in
            # ``_acts``, sent again (same ``cid``) where the table is followed to.
            return
        request = self._acts.pop(message.get("rid"), None)  # type: ignore[arg-type]
        if (message.get("code") == protocol.STALE and request is not None
                and not request.get("retried")):
            # Chosen on a view the table had moved past: the move may still be wanted (two
            # seats passing at once), so send it again on the current numbering; the server
            # refuses it with the rules' reason if it no longer fits.
            self._sync()
            retry = {k: v for k, v in request.items() if k not in ("rid", "retried")}
            retry["seq"] = int(message.get("seq", self.event_seq))
            retry["cid"] = next(self._cids)
            self._acts[self.link.send(retry)] = {**retry, "retried": True}
            return
        if self.model is not None and request is not None:
            self.model.refuse(str(message.get("reason") or message.get("code")))
        elif self.model is not None and message.get("code") in (protocol.NO_TABLE,
                                                                 protocol.BAD_TOKEN):
            self.model.refuse(str(message.get("reason")))
