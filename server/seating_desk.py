"""Who sits where: ``sit`` (a keyed resend gets the seat its first sending took),
``resume``, ``leave``, ``bot`` and ``unbot`` (a bot in a free seat, or a stand-in for a
disconnected player), ``watch``, ``unwatch`` and ``sync``. Each change is made in memory and
recorded in the table's log with the batch (``TableMaster.reseated``), whose commit makes it
durable before anyone hears of it; a failed commit undoes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starhall.server import fields
from starhall.server.fields import RequestError
from starhall.server.seats import distinct_name, keyed_token, new_key_salt
from starhall.server.sessions import Session
from starhall.server.tables import LiveTable
from starhall.shared import protocol
from starhall.shared.bots import bot_kind
from starhall.shared.seating import BOT

if TYPE_CHECKING:
    from starhall.server.desk import Master


class SeatingDesk:
    def __init__(self, master: Master) -> None:
        self.master = master
        self.config = master.config

    def _seat_number(self, table: LiveTable, message: dict[str, Any]) -> int:
        seat = fields.whole(message, "seat", maximum=10_000)
        if seat >= len(table.seats):
            raise RequestError(protocol.BAD_SEAT,
                               f"table {table.id} has seats 0 to {len(table.seats) - 1}")
        return seat

    def sit(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message)
        name = fields.optional_text(message, "name", max_chars=protocol.MAX_NAME_CHARS)
        key = fields.request_key(message)
        if key is not None:
            for number, seat in enumerate(table.seats):
                token = keyed_token(key, table.id, number, seat.key_salt)
                if seat.holds(table.hash_token(token)):  # a resend: the seat its first sending took
                    self.take_back(session, table, number)
                    self.master.reply(session, rid, {"type": protocol.SEATED,
                                                      "table": table.id, "seat": number,
                                                      "token": token})
                    self.master.send_snapshot(session, rid, table, number)
                    return
        self.master.check_playable(table)
        if message.get("seat") is None:
            free = [i for i, seat in enumerate(table.seats) if seat.state == protocol.FREE]
            if not free:
                raise RequestError(protocol.TABLE_FULL, f"table {table.id} has no free seat")
            number = free[0]
        else:
            number = self._seat_number(table, message)
            if table.seats[number].state != protocol.FREE:
                raise RequestError(protocol.SEAT_TAKEN, f"seat {number} is not free")
        others = {seat.name for index, seat in enumerate(table.seats)
                  if index != number and seat.name}
        wanted = name or session.name or f"Player {number + 1}"
        salt = None if key is None else new_key_salt()
        token = table.seat_person(
            number, distinct_name(wanted, others), since=table.seq, key_salt=salt,
            token=None if key is None else keyed_token(key, table.id, number, salt))
        self._bind(session, table, number)
        self.master.reseated(table)
        self.master.reply(session, rid, {"type": protocol.SEATED, "table": table.id,
                                          "seat": number, "token": token})
        self.master.send_snapshot(session, rid, table, number)
        self.master.advance(table)

    def resume(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message)
        number = self._seat_number(table, message)
        if self.master.owned_seat(table, message) != number:
            raise RequestError(protocol.BAD_TOKEN, f"that is not seat {number}'s token")
        self.take_back(session, table, number)
        self.master.reply(session, rid, {"type": protocol.SEATED, "table": table.id,
                                          "seat": number, "token": message["token"]})
        self.master.send_snapshot(session, rid, table, number)

    def take_back(self, session: Session, table: LiveTable, number: int) -> None:
        """Bind an owned seat to this session, sending a stand-in bot away."""
        seat = table.seats[number]
        if seat.standin:
            table.end_standin(number)
        previous = seat.session
        if previous is not None and previous != session.identity:
            old = self.master.sessions.get(previous)
            if old is not None:
                old.seats.discard((table.id, number))
        self._bind(session, table, number)
        self.master.reseated(table)

    def _bind(self, session: Session, table: LiveTable, number: int) -> None:
        table.seats[number].session = session.identity
        session.seats.add((table.id, number))

    def leave(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        """Before the game starts (or with ``give_up``) the seat becomes free and its token
        void; once it has started the seat stays its person's, who comes back with ``resume``,
        and the others see it empty-handed (``connected: false``) until then."""
        table = self.master.find_table(message)
        give_up = fields.flag(message, "give_up")
        number = self.master.owned_seat(table, message)
        seat = table.seats[number]
        holder = seat.session
        kept = not give_up and table.status != protocol.WAITING
        if kept:
            seat.session = None
        else:
            table.free_seat(number)  # written with the batch: undone if that fails
        if holder is not None and holder in self.master.sessions:
            self.master.sessions[holder].seats.discard((table.id, number))
        self.master.reseated(table)
        self.master.reply(session, rid, {"type": protocol.LEFT, "table": table.id,
                                          "seat": number, "kept": kept})

    def watch(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message)
        self._add_watcher(session, table)
        self.master.reply(session, rid, {"type": protocol.WATCHING, "table": table.id})
        self.master.send_snapshot(session, rid, table, None)

    def _add_watcher(self, session: Session, table: LiveTable) -> None:
        if session.identity not in table.watchers:
            table.watchers.add(session.identity)
            session.watching.add(table.id)
            self.master.changed_rosters[table.id] = table

    def unwatch(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message)
        if session.identity in table.watchers:
            table.watchers.discard(session.identity)
            session.watching.discard(table.id)
            self.master.changed_rosters[table.id] = table
        self.master.reply(session, rid, {"type": protocol.UNWATCHED, "table": table.id})

    def sync(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message)
        if message.get("token") is None:
            self._add_watcher(session, table)
            self.master.send_snapshot(session, rid, table, None)
            return
        number = self.master.owned_seat(table, message)
        if table.seats[number].session != session.identity or table.seats[number].standin:
            self.take_back(session, table, number)
        self.master.send_snapshot(session, rid, table, number)

    def bot(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message, playable=True)
        number = self._seat_number(table, message)
        named = fields.text(message, "kind", max_chars=64, default="random")
        try:
            kind = bot_kind(table.game, named)  # a level (easy, normal, strong) or a kind
        except ValueError as error:
            raise RequestError(protocol.UNKNOWN_BOT, str(error)) from None
        seat = table.seats[number]
        if seat.state == protocol.FREE:
            standin = False
        elif seat.state == protocol.PLAYER and seat.session is None:
            if message.get("token") is None:
                raise RequestError(protocol.NOT_SEATED, "only a player at this table can hand "
                                   "a disconnected player's seat to a bot")
            if self.master.owned_seat(table, message) == number:
                raise RequestError(protocol.BAD_TOKEN, "use resume to come back to your seat")
            standin = True
        else:
            raise RequestError(protocol.SEAT_TAKEN, f"seat {number} holds a connected player "
                               "or a bot")
        table.put_bot(number, kind, standin=standin)
        self.master.reseated(table)
        self.master.reply(session, rid, {"type": protocol.BOTTED, "table": table.id,
                                          "seat": number, "kind": kind, "standin": standin})
        self.master.advance(table)

    def unbot(self, session: Session, message: dict[str, Any], rid: Any) -> None:
        table = self.master.find_table(message, playable=True)
        number = self._seat_number(table, message)
        seat = table.seats[number]
        if seat.state != BOT:
            raise RequestError(protocol.BAD_SEAT, f"no bot sits in seat {number}")
        if seat.standin or table.status != protocol.WAITING:
            if message.get("token") is None:
                raise RequestError(protocol.NOT_SEATED,
                                   "only a player at this table can take a bot out now")
            self.master.owned_seat(table, message)
        if seat.standin:
            table.end_standin(number)
        else:
            table.free_seat(number)
        self.master.reseated(table)
        self.master.reply(session, rid, {"type": protocol.UNBOTTED, "table": table.id,
                                          "seat": number})
