"""A node stopped on purpose (SIGTERM or Ctrl-C) loses nothing and stalls nobody: once its
commits under way have ended, it leaves the service's list of nodes, lets go of every table's
lease (the other nodes watch the leases and take a table let go at once) and tells each of its
clients ``draining``, naming the nodes to go to (``docs/protocol.md`` §3b, ``docs/scaling.md``).
A node alone in its service (a folder of files) keeps its tables: it has nobody to hand them to,
and its clients wait for it to come back as after any restart."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from starhall.shared import protocol

if TYPE_CHECKING:
    from starhall.server.desk import Master


def other_nodes(master: Master) -> list[dict[str, Any]]:
    """The service's live nodes but this one."""
    own = master.store.nodes()[:1]
    return [node for node in master.store.nodes() if node not in own]


def hand_over(master: Master) -> int:
    """Give every table up to the other nodes and send every client on; how many tables were
    handed over. Called once no commit is under way."""
    others = other_nodes(master)
    if not others:
        return 0
    store = master.store
    store.leave_service()
    handed = sorted(master.tables)
    for table_id in handed:
        master.tables.pop(table_id).bot_due = None
        store.release(table_id)
    for session in master.sessions.values():
        session.seats.clear()
        session.watching.clear()
        master.reply(session, None, {
            "type": protocol.DRAINING, "nodes": others,
            "reason": "this node is stopping: its tables go on at the service's other nodes"})
    tables = f"{len(handed)} table{'' if len(handed) == 1 else 's'}"
    print(f"starhall serve: stopping: {tables} handed to "
          f"{', '.join(str(node['address']) for node in others)}", file=sys.stderr, flush=True)
    return len(handed)
