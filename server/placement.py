"""Where a new table goes in a service of several nodes (docs/scaling.md): to the live node
serving the fewest open tables (waiting or playing), this node on a tie. By load rather than
by a hash of the table's id: a hash spreads new tables evenly whatever each node already
carries, so a node that joins (or comes back from a restart, its tables taken over by the
others) would stay the emptiest; by load it takes every new table until it carries its share.
The counts are what the leases last said (a few seconds old at most), which is close enough
for tables that live for minutes. A folder of files is one node: everything goes there."""

from __future__ import annotations

from collections import Counter

from starhall.server.stores import LogStore
from starhall.shared import protocol

OPEN_STATUSES = (protocol.WAITING, protocol.PLAYING)


def least_loaded(store: LogStore, own_open: int) -> str:
    """The address of the node a new table should be made on; ``own_open``: the open tables
    this node serves (it knows them better than its leases say)."""
    nodes = [str(node["address"]) for node in store.nodes()]
    load: Counter[str] = Counter({nodes[0]: own_open})
    for table_id, lease in store.service_tables().items():
        info = lease.get("info")
        if (isinstance(info, dict) and info.get("status") in OPEN_STATUSES
                and lease.get("node") != store.node and store.holder(table_id) is not None):
            load[str(lease.get("address"))] += 1
    # this node (first of nodes) wins a tie: a table made where it was asked costs no move
    return min(nodes, key=lambda address: (load[address], nodes.index(address)))
