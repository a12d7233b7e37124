"""The lobby: a client's ``hello`` and ``ping``, the ``list`` of the whole service's tables
(paged by id) and ``create`` (a keyed resend gets the table its first sending made, on any
node)."""

from __future__ import annotations

import bisect
import concurrent.futures
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any

from starhall.server import fields
from starhall.server.durability import STORAGE, ReadOnly, StorageError
from starhall.server.fields import RequestError
from starhall.server.placement import least_loaded
from starhall.server.seats import new_token_salt, token_hash
from starhall.server.sessions import Session
from starhall.server.tables import LiveTable, create_table, next_table_id, table_header
from starhall.shared import protocol
from starhall.shared.engine import Game, OptionError
from starhall.shared.games import GAMES

if TYPE_CHECKING:
    from starhall.server.desk import Master

OPEN_STATUSES = (protocol.WAITING, protocol.PLAYING)


def listing_order(table_id: str) -> tuple[int, str]:
    """The order of tables in a ``list``: by id, numerically for the usual numbered ids."""
    return len(table_id), table_id


class Lobby:
    def __init__(self, master: Master) -> None:
        self.master = master
        self.config = master.config
        self.creating: dict[str, list[tuple[Session, Any]]] = {}
        """Keyed ``create`` requests whose table the store is making: a resend waits for
        the same table."""

    def hello(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        version = fields.optional_whole(message, "protocol", minimum=fields.SMALLEST_INT)
        if version is not None and version != protocol.PROTOCOL_VERSION:
            raise RequestError(protocol.BAD_PROTOCOL,
                               f"this server speaks protocol {protocol.PROTOCOL_VERSION}")
        session.name = fields.optional_text(message, "name", max_chars=protocol.MAX_NAME_CHARS)
        self.master.reply(session, rid, {
            "type": protocol.WELCOME, "server": self.config.name,
            "protocol": protocol.PROTOCOL_VERSION, "heartbeat": self.config.heartbeat,
            "timeout": self.config.timeout, "max_message": protocol.MAX_MESSAGE_BYTES,
            "games": self.master.games_info, "instance": self.master.instance,
            "service": self.master.store.service, "nodes": self.master.store.nodes(),
        })

    def ping(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """A ``pong`` with the ``seq`` of every table the session follows: a client whose
        last update was lost sees that it is behind."""
        followed = {table_id for table_id, number in session.seats
                    if table_id in self.master.tables
                    and self.master.tables[table_id].seats[number].session == session.identity}
        followed.update(table_id for table_id in session.watching if table_id in self.master.tables)
        seqs = {table_id: self._durable_seq(self.master.tables[table_id])
                for table_id in sorted(followed, key=listing_order)[:protocol.MAX_PONG_TABLES]}
        self.master.reply(session, rid, {"type": protocol.PONG, "time": time.time(),
                                          "seqs": seqs, "instance": self.master.instance})

    def _durable_seq(self, table: LiveTable) -> int:
        """The table's ``seq`` as far as it is durable: while a batch's events wait for their
        commit (perhaps held past this ``pong``), what the last commit left."""
        before = table.before_batch
        return table.seq if before is None else before[1]

    def list_tables(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """A page of the tables in the order of their ids, which never changes (a new table
        comes last), so paging by ``cursor`` lists each table once. The cursor is the id of
        the last table a page held: tables are never removed, so one that names no table was
        not given by this server."""
        cursor = fields.optional_text(message, "cursor", max_chars=64)
        offset = fields.optional_whole(message, "offset")
        wanted = fields.optional_choices(message, "status", protocol.STATUSES)
        if cursor is not None and offset is not None:
            raise RequestError(protocol.BAD_FIELD, "give 'cursor' or 'offset', not both",
                               field="offset")
        every = self.master.leases.every_table()
        if cursor is not None and cursor not in every:
            raise RequestError(protocol.BAD_FIELD, "'cursor' must be one a 'tables' reply of "
                               "this server gave (ask without it for the first page)",
                               field="cursor")
        ranked = sorted((t for t in every.values() if wanted is None or t.status in wanted),
                        key=lambda t: listing_order(t.id))
        start = offset or 0
        if cursor is not None:
            start = bisect.bisect_right(ranked, listing_order(cursor),
                                        key=lambda t: listing_order(t.id))
        listed: list[dict[str, Any]] = []
        size = 0
        budget = protocol.MAX_MESSAGE_BYTES - 4096
        for table in ranked[start:start + protocol.MAX_LIST_TABLES]:
            info = table.info()
            size += len(protocol.encode(info))
            if size > budget and listed:
                break
            listed.append(info)
        more = start + len(listed) < len(ranked)
        self.master.reply(session, rid, {
            "type": protocol.TABLES, "tables": listed, "total": len(ranked),
            "cursor": listed[-1]["id"] if more else None,
            "next": start + len(listed) if more else None,
        })

    def create(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        game_id = fields.text(message, "game", max_chars=64)
        players = fields.whole(message, "players", maximum=1000)
        options = fields.mapping(message, "options")
        name = fields.optional_text(message, "name", max_chars=protocol.MAX_NAME_CHARS)
        key = fields.request_key(message)
        think = message.get("think")
        if think is not None and (isinstance(think, bool) or not isinstance(think, int | float)
                                  or not 0 <= think <= protocol.MAX_THINK_SECONDS):
            raise RequestError(protocol.BAD_FIELD, "'think' must be seconds, 0 to "
                               f"{protocol.MAX_THINK_SECONDS:g}")
        hashed_key = None if key is None else token_hash(key)
        made = self.master.tables.get(self.master.created_keys.get(hashed_key or "", ""))
        if made is not None:  # a resend: the table its first sending made
            self.master.reply(session, rid, {"type": protocol.CREATED, "table": made.info()})
            return
        if hashed_key in self.creating:  # a resend while its table is being made
            self.creating[hashed_key].append((session, rid))
            return
        made_elsewhere = self.master.leases.made_elsewhere(hashed_key)
        if made_elsewhere is not None:  # a resend to another node of the service
            self.master.reply(session, rid, {"type": protocol.CREATED, "table": made_elsewhere})
            return
        if self.config.read_only:
            raise ReadOnly()
        if self.master.draining:
            raise RequestError(protocol.DRAINING, "this node is stopping: make the table on "
                               "another node of the service")
        anywhere = fields.flag(message, "anywhere")
        game = GAMES.get(game_id)
        if game is None:
            raise RequestError(protocol.UNKNOWN_GAME,
                               f"no game {game_id!r} (games: {', '.join(sorted(GAMES))})")
        try:
            game.make_options(players, options)
        except OptionError as error:
            raise RequestError(protocol.BAD_OPTIONS, str(error)) from None
        open_tables = sum(1 for t in self.master.tables.values() if t.status in OPEN_STATUSES)
        if anywhere:
            placed = least_loaded(self.master.store, open_tables)
            if placed != self.master.store.nodes()[0]["address"]:
                raise RequestError(protocol.ELSEWHERE, "the service places this table on "
                                   f"another node: ask {placed}", address=placed)
        if open_tables >= self.config.max_open_tables:
            raise RequestError(protocol.SERVER_FULL, "too many open tables; try again later")
        first_id = next_table_id(self.master.leases.every_table())
        keyed: dict[str, Any] = {} if hashed_key is None else {"create_key_sha256": hashed_key}
        keyed["token_salt"] = new_token_salt()  # in the header made off the loop, and the table
        if think is not None:
            keyed["think"] = float(think)

        def name_of(table_id: str) -> str:
            return name or f"{game.title} {table_id}"

        def header_for(table_id: str) -> dict[str, Any]:  # run on the store's thread
            return table_header(game, players, options, table_id, name_of(table_id), **keyed)

        # The store picks an id no node has, and makes its log durable, off the loop: this
        # request waits for it, nobody else does.
        waiters = [(session, rid)]
        if hashed_key is not None:
            self.creating[hashed_key] = waiters
        self.master.await_store(
            self.master.store.start_create(first_id, header_for),
            lambda made: self._made(made, game, players, options, name_of, keyed, waiters))

    def _made(self, made: concurrent.futures.Future[Any], game: Game[Any], players: int,
              options: dict[str, Any], name_of: Any, keyed: dict[str, Any],
              waiters: list[tuple[Session, Any]]) -> None:
        """The store has made a new table's log (or failed): the table, and its replies."""
        hashed_key = keyed.get("create_key_sha256")
        if hashed_key is not None:
            self.creating.pop(hashed_key, None)
        try:
            table_id, log = made.result()
            table = create_table(self.master.store, table_id, name_of(table_id), game,
                                 players, options, log=log, **keyed)
        except Exception as error:  # noqa: BLE001 - each waiter hears why, in one line
            if isinstance(error, OSError):
                failed = error if isinstance(error, StorageError) else StorageError(error)
                print(f"starhall serve: create: {failed.error}", file=sys.stderr)
                code, reason = STORAGE, str(failed)
            else:  # a bug must cost one request, never the server
                traceback.print_exception(error, file=sys.stderr)
                code, reason = protocol.INTERNAL, "the server failed on this request"
            for session, rid in waiters:
                self.master.send_error(session.identity, rid, code, reason)
            return
        self.master.tables[table_id] = table
        if hashed_key is not None:
            self.master.created_keys[hashed_key] = table_id
        self.master.leases.describe([table])
        for session, rid in waiters:
            self.master.reply(session, rid, {"type": protocol.CREATED, "table": table.info()})
