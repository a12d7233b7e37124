"""Which tables this node serves, of the whole service's (JetStream's leases and owner
records; a folder's tables are all its own, so with files this has nothing to do): tables
another node took over are given up, a dead node's live tables are taken over, all at once,
and a table a client asks for at once; a dead node's finished tables are read by any node,
with no owner; this node's owner records describe its tables to the other nodes' lobbies,
and a request for a table served elsewhere is sent there (``elsewhere``).

Nothing here waits for NATS: a takeover claims and reads the table on the store's thread
(``LogStore.prefetch``), and the table's requests wait for it alone (``Waiting``).
"""

from __future__ import annotations

import concurrent.futures
import sys
from typing import TYPE_CHECKING, Any

from starhall.server.fields import RequestError
from starhall.server.tables import Listed, LiveTable, restore_from_store
from starhall.shared import protocol

if TYPE_CHECKING:
    from starhall.server.desk import Master


class Waiting(Exception):
    """A request's table is being taken over or read by this node: the request waits for
    it, and is handled once it has ended."""

    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.table_id = table_id


class Leases:
    def __init__(self, master: Master) -> None:
        self.master = master
        self.config = master.config
        self.store = master.store
        self._next_scan = 0.0
        self.taken_over = 0
        """Tables this node took over since it started (``/metrics``)."""
        self.lost_tables: set[str] = set()
        """Tables another node holds now (JetStream): given up at the next housekeeping."""

    def keep(self, now: float) -> None:
        """With JetStream: give up the tables another node took over (or whose stream it
        wrote), and take over, all at once, the live tables nobody alive holds (a node
        died). Never waits for NATS."""
        store = self.store
        if self.config.read_only:
            return
        lost = store.take_lost() | self.lost_tables
        self.lost_tables = {t for t in lost if t in self.master.frozen}  # given up after its commit
        for table_id in lost - self.lost_tables:
            table = self.master.tables.pop(table_id, None)
            store.release(table_id)
            if table is not None:
                self._given_up(table)
            holder = store.holder(table_id)
            if holder is not None and holder.get("node") == store.node:
                # Its stream moved on under this node, which still owns it (its own commit
                # that was said to fail landed, say): read again from the stream.
                self.take_over(table_id)
        if now >= self._next_scan:
            self._next_scan = now + self.config.lease_seconds / 2
            self.describe()
        for table_id in store.unheld():
            if table_id not in self.master.tables and table_id not in self.master.loading:
                self.take_over(table_id)

    def take_over(self, table_id: str) -> None:
        """Claim a table nobody alive holds and read it, off the loop; its requests wait."""
        future = self.store.prefetch(table_id, claim=True)
        if future is not None:
            self.master.await_store(future, lambda done: self._taken_over(table_id, done),
                                    table_id)

    def _taken_over(self, table_id: str, future: concurrent.futures.Future[bool]) -> None:
        store = self.store
        try:
            if not future.result():
                return  # another node was quicker
            live = restore_from_store(store, table_id)
        except Exception as error:  # noqa: BLE001 - one damaged table must not stop us
            store.release(table_id)
            print(f"starhall serve: cannot take table {table_id} over: "
                  f"{str(error) or type(error).__name__}", file=sys.stderr)
            return
        self.master.tables[table_id] = live
        self.taken_over += 1
        if live.create_key:
            self.master.created_keys[live.create_key] = table_id
        self.describe([live])
        print(f"starhall serve: took table {table_id} over at event {live.seq}",
              file=sys.stderr)
        self.master.advance(live)

    def _read_finished(self, table_id: str, future: concurrent.futures.Future[bool] | None
                       ) -> LiveTable | None:
        """A dead node's finished table, read here to be watched, with no owner."""
        try:
            if future is not None and not future.result():
                return None
            live = restore_from_store(self.store, table_id, read_only=True)
        except Exception as error:  # noqa: BLE001 - one damaged table must not stop us
            print(f"starhall serve: cannot read table {table_id}: {error}", file=sys.stderr)
            return None
        self.master.tables[table_id] = live
        return live

    def find(self, table_id: str) -> LiveTable:
        """A table this node does not serve yet, as a request asks for it: taken over at once
        if its node is dead (``Waiting`` while it is), read here if it is a dead node's
        finished one; else the error that says where it is (``not_here``)."""
        if table_id in self.master.loading:
            raise Waiting(table_id)
        orphan = self.store.orphan(table_id)
        if orphan == "live" and not self.config.read_only:
            self.take_over(table_id)
            raise Waiting(table_id)
        if orphan is not None:  # finished (or, read-only, any): any node reads it
            future = self.store.prefetch(table_id)
            if future is None or future.done():
                live = self._read_finished(table_id, future)
                if live is not None:
                    return live
            else:
                def read(done: concurrent.futures.Future[bool]) -> None:
                    self._read_finished(table_id, done)

                self.master.await_store(future, read, table_id)
                raise Waiting(table_id)
        raise self.not_here(table_id)

    def _given_up(self, table: LiveTable) -> None:
        """Forget a table another node holds now; whoever followed it here hears so, with an
        unasked ``elsewhere`` error (ask again, any node will say where it went)."""
        table.bot_due = None
        for identity in {*table.watchers, *(seat.session for seat in table.seats
                                             if seat.session is not None)}:
            session = self.master.sessions.get(identity)
            if session is not None:
                session.watching.discard(table.id)
                session.seats = {(t, n) for t, n in session.seats if t != table.id}
            self.master.send_error(identity, None, protocol.ELSEWHERE,
                                   f"table {table.id} is served by another node now: ask again",
                                   table=table.id, address=None)
        print(f"starhall serve: table {table.id}: another node holds it now; given up",
              file=sys.stderr)

    def describe(self, tables: list[LiveTable] | None = None) -> None:
        """Have this node's owner records tell the other nodes what their lobbies show of its
        tables (the whole service's lobby), at once for new ones."""
        describe = self.store.describe
        for table in self.master.tables.values() if tables is None else tables:
            describe(table.id, table.info(), table.create_key)
        if tables is not None:
            self.store.announce()

    def every_table(self) -> dict[str, LiveTable | Listed]:
        """The tables of the whole service: this node's, and (with JetStream) those other
        nodes hold, as their owner records last described them."""
        every: dict[str, LiveTable | Listed] = dict(self.master.tables)
        for table_id, lease in self.store.service_tables().items():
            info = lease.get("info")
            if table_id not in every and isinstance(info, dict):
                every[table_id] = Listed(table_id, str(info.get("status")), info)
        return every

    def made_elsewhere(self, hashed_key: str | None) -> dict[str, Any] | None:
        """The ``TableInfo`` of the table another node made for a keyed ``create``."""
        if hashed_key is None:
            return None
        for lease in self.store.service_tables().values():
            if lease.get("create_key") == hashed_key and isinstance(lease.get("info"), dict):
                info: dict[str, Any] = lease["info"]
                return info
        return None

    def not_here(self, table_id: str) -> RequestError:
        """The error for a table this node does not serve: ``elsewhere`` with the address of
        the node that does, or with none while it is being taken over; else ``no_table``."""
        store = self.store
        lease = store.holder(table_id)
        if lease is not None and lease.get("node") != store.node:
            address = lease.get("address")
            return RequestError(protocol.ELSEWHERE, f"table {table_id} is served by another "
                                f"node: ask {address}", table=table_id, address=address)
        if lease is not None or table_id in store.service_tables():
            return RequestError(protocol.ELSEWHERE, f"table {table_id} is being taken over "
                                "by a node: ask again in a moment", table=table_id,
                                address=None)
        return RequestError(protocol.NO_TABLE, f"no table {table_id!r}", table=table_id)
