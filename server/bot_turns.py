"""When each table's bots move: the queue of tables whose bots are due (a quick bot waits
its table's think delay, so people can follow), the due bots' moves in a loop turn's budget
(stopping early when a client's message waits), and the moves of searching bots, which think
in worker processes (``server/thinking.py``) while the loop serves everyone else. A bot is
given its seat's observation only (``LiveTable.observe``), never the state; its move goes
through the master's pipeline (``TableMaster.submit``) like a person's.
"""

from __future__ import annotations

import heapq
import itertools
import random
import secrets
import sys
import time
from typing import TYPE_CHECKING

from starhall.server.fields import RequestError
from starhall.server.tables import LiveTable
from starhall.server.thinking import Thinkers, Thought, fallback_bot, searches
from starhall.shared import protocol
from starhall.shared.engine import Command, IllegalCommand
from starhall.shared.seating import BOT

if TYPE_CHECKING:
    from starhall.server.desk import Master


class BotTurns:
    def __init__(self, master: Master) -> None:
        self.master = master
        self.config = master.config
        self.bot_queue: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self.thinkers = Thinkers()
        """The worker processes searching bots think in."""
        self.thinking: dict[str, LiveTable] = {}
        """Tables whose searching bot thinks in a worker (``LiveTable.thought``)."""
        self._bot_rng = random.Random(secrets.randbits(64))

    def _think(self, table: LiveTable) -> float:
        """Seconds a bot takes for a move at ``table``."""
        return self.config.think if table.think is None else table.think

    def schedule(self, table: LiveTable) -> None:
        if (table.bot_due is not None or table.thought is not None or table.broken
                or table.status != protocol.PLAYING):
            return
        state = table.table.state
        if table.game.chance(state) is not None:
            return
        bots = [table.bots.get(s) for s in table.game.to_act(state)
                if table.seats[s].state == BOT]
        if bots:
            # A searching bot's thinking is its wait; a quick one waits so people can follow.
            wait = 0.0 if any(bot is not None and searches(bot) for bot in bots) \
                else self._think(table)
            table.bot_due = time.monotonic() + wait
            heapq.heappush(self.bot_queue, (table.bot_due, next(self._order), table.id))

    def run(self, budget: float) -> bool:
        """Let due bots move for about ``budget`` seconds; whether they stopped early, after
        ``people_wait``, because a message is waiting."""
        queue = self.bot_queue
        now = time.monotonic()
        deadline = now + budget
        listen_from = now + self.config.people_wait
        burst = self.config.bot_burst if self.config.think <= 0 else 1
        while queue and queue[0][0] <= now:
            due, _, table_id = heapq.heappop(queue)
            table = self.master.tables.get(table_id)
            if table is None or table.bot_due != due:
                continue  # rescheduled or gone
            table.bot_due = None
            if table_id in self.master.frozen:
                continue  # its commit is under way: scheduled again when it ends
            if table.memory_unread and self.master.read_ahead(table):
                continue  # its log is being read: scheduled again when it is
            for _ in range(burst):
                if not self._bot_moves(table):
                    break
                self.master.deal(table)
            self.schedule(table)
            clock = time.monotonic()
            if clock > deadline:
                return False
            if clock > listen_from and self.master.message_waiting():
                return True
        return False

    def _bot_moves(self, table: LiveTable) -> bool:
        """Every bot whose turn it is makes one move; whether any did."""
        if table.broken or table.status != protocol.PLAYING:
            return False
        try:
            if table.memory_unread and not table.read_memory():
                return False  # its bots' memory is read once this batch is in the log
        except RequestError:  # the log cannot be read: the table stopped
            return False
        game = table.game
        moved = False
        for number in game.to_act(table.table.state):
            bot = table.bots.get(number)
            if bot is None or table.seats[number].state != BOT:
                continue
            try:
                if searches(bot):
                    if table.thought is None:  # one thought at a time per table
                        kind = table.seats[number].bot_kind or "random"
                        table.thought = self.thinkers.ask(
                            kind, table.observe(number), self._think(table), self._bot_rng,
                            table.seq, table.id)
                        self.thinking[table.id] = table
                    continue
                command = bot.choose(table.observe(number), self._think(table))
                self.master.submit(table, command)
            except (IllegalCommand, RequestError) as error:
                self.master.break_table(table, error)
                return False
            except Exception as crash:  # a bot's bug stops its table, not the server
                self.master.break_table(table, crash)
                return False
            moved = True
        return moved

    def collect_thoughts(self) -> None:
        """Play the moves the workers have thought of, and a fallback move for each one
        still thinking past its budget and grace (said on stderr)."""
        now = time.monotonic()
        for table in list(self.thinking.values()):
            if table.id in self.master.frozen:
                continue  # its commit is under way: the move is played after it
            thought = table.thought
            if thought is None or table.broken:
                del self.thinking[table.id]
                table.thought = None
                continue
            if not thought.future.done() and now < thought.deadline:
                continue
            del self.thinking[table.id]
            table.thought = None
            seat = table.seats[thought.seat]
            if table.status != protocol.PLAYING or seat.state != BOT \
                    or thought.seat not in table.game.to_act(table.table.state):
                self.schedule(table)  # the seat's bot went, or its turn passed
                continue
            command = self._thought_move(table, thought)
            try:
                self.master.submit(table, command)
            except (IllegalCommand, RequestError) as error:
                if table.seq == thought.seq:
                    self.master.break_table(table, error)
                    continue
                # The table moved on while the bot thought (another seat's pass, say).
            except Exception as crash:  # a bot's bug stops its table, not the server
                self.master.break_table(table, crash)
                continue
            self.master.deal(table)
            self.schedule(table)

    def _thought_move(self, table: LiveTable, thought: Thought) -> Command:
        """The worker's move, or the fallback bot's when it has none in time."""
        future = thought.future
        why = "did not answer in time"
        if future.done():
            try:
                kind, seat, data = future.result()
                return Command(kind, seat, data)
            except Exception as error:
                why = f"failed ({error!r})"
            future.cancel()
        else:
            future.cancel()
        bot = fallback_bot(table.game, self._bot_rng)
        print(f"starhall serve: table {table.id}: the {table.seats[thought.seat].bot_kind} bot "
              f"of seat {thought.seat} {why}; played a {type(bot).__name__} move instead",
              file=sys.stderr)
        return bot.choose(table.observe(thought.seat), 0.0)
