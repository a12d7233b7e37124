"""``starhall store import|export`` and ``starhall replay export``: tables moved between a
folder of log files and NATS JetStream, losslessly: each log is checked by ``replay verify``
first, and what arrives is read back and compared byte for byte with what was sent."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from starhall.server.jetstream import (
    DEFAULT_STREAM,
    AddressError,
    JetStreamStore,
    StreamLog,
    is_address,
    parse_address,
)
from starhall.server.seats import SEATING_SUFFIX, load_legacy_seating
from starhall.shared.logfile import SUFFIX, read_records
from starhall.shared.replay import Mismatch, Verified, verify

BATCH_RECORDS = 500
"""Records per atomic batch of an import (JetStream takes up to 1000)."""


def open_store(address: str, stream: str = DEFAULT_STREAM) -> tuple[JetStreamStore, str]:
    """The store at a ``nats://`` address, and the table it names ('' if none)."""
    _, table = parse_address(address)
    hosts = "nats://" + address[len("nats://"):].partition("/")[0]
    return JetStreamStore(hosts, stream=stream), table


def read_address(address: str, stream: str = DEFAULT_STREAM) -> bytes:
    """A table's log, read from ``nats://…/TABLE``."""
    if not parse_address(address)[1]:
        raise AddressError(f"{address}: name the table: nats://HOST:PORT/TABLE")
    store, table = open_store(address, stream)
    try:
        return store.read(table)
    finally:
        store.close()


def run_replay_export(args: argparse.Namespace) -> int:
    data = read_address(args.address, args.stream)
    Path(args.file).write_bytes(data)
    print(f"{args.file}: table {parse_address(args.address)[1]} from {args.address}, "
          f"{len(data):,} bytes")
    return 0


def run_store(args: argparse.Namespace) -> int:
    try:
        if args.store_command == "import":
            return run_import(Path(args.folder), args.address, args.stream)
        return run_export(args.address, Path(args.folder), args.stream)
    except NotVerified as failed:
        print(f"starhall: {failed}", file=sys.stderr)
        return 1


def _checked(path: Path) -> Verified:
    """``replay verify``'s answer for a log that passes it; ``LogError`` (damage, an illegal
    event) or ``NotVerified`` (a checkpoint the rules disagree with) for one that does not."""
    result = verify(path)
    if isinstance(result, Mismatch):
        raise NotVerified(f"{result.line()}; nothing of {path} was moved")
    return result


class NotVerified(Exception):
    """A log ``replay verify`` fails with a report (a checkpoint the rebuilt game disagrees
    with) rather than at a record: said in the report's first line, with exit status 1, as
    ``replay verify`` does."""


def run_import(folder: Path, address: str, stream: str) -> int:
    if not folder.is_dir():
        raise OSError(f"{folder}: no such folder")
    logs = sorted(folder.glob(f"*{SUFFIX}"))
    if not logs:
        raise ValueError(f"{folder}: no {SUFFIX} logs to import")
    checked = {path: _checked(path) for path in logs}
    store, _ = open_store(address, stream)
    try:
        present = set(store.table_ids())
        for path in logs:
            table_id = path.name[: -len(SUFFIX)]
            if table_id in present:
                raise ValueError(f"{address}: already holds a table {table_id}; nothing of "
                                 f"{path} was imported")
            data = path.read_bytes()
            records, good = read_records(data, path)
            store.claim(table_id, must=True)
            try:
                log = StreamLog(table_id, store.subject(table_id), 0, 0)
                ends = [offset for offset, _ in records[1:]] + [good]
                pieces = [data[offset:end] for (offset, _), end in zip(records, ends,
                                                                        strict=True)]
                for start in range(0, len(pieces), BATCH_RECORDS):
                    log.pending = pieces[start:start + BATCH_RECORDS]
                    failed = store.commit([log])
                    if failed:
                        raise failed[0][1]
                # An older server's seating file: the table's seating until a server
                # records it in the log (checked first: a damaged one is not carried over).
                seating = folder / f"{table_id}{SEATING_SUFFIX}"
                if load_legacy_seating(seating, records[0][1]["players"]) is not None:
                    store.save_legacy_seating(table_id, seating.read_bytes())
            finally:
                store.release(table_id)
            if store.read(table_id) != data[:good]:
                raise OSError(f"{address}/{table_id}: read back, it is not {path} byte for byte")
            left_out = checked[path].left_out
            print(f"{path} -> {address}/{table_id}: {len(records)} records, checked"
                  + (f"; {left_out}" if left_out else ""))
    finally:
        store.close()
    return 0


def run_export(address: str, folder: Path, stream: str) -> int:
    store, only = open_store(address, stream)
    try:
        tables = [only] if only else store.table_ids()
        folder.mkdir(parents=True, exist_ok=True)
        for table_id in tables:
            data = store.read(table_id)
            path = folder / f"{table_id}{SUFFIX}"
            if path.exists():
                raise ValueError(f"{path} exists already; export into a new folder")
            path.write_bytes(data)
            _checked(path)
            records, _ = read_records(data, path)
            # The log alone: it says who sits where (owners only as salted token hashes).
            if path.read_bytes() != store.read(table_id):
                raise OSError(f"{path}: not the table's log byte for byte")
            print(f"{address}/{table_id} -> {path}: {len(records)} records, checked")
    finally:
        store.close()
    return 0


def read_addresses(names: list[str], stream: str) -> dict[str, bytes]:
    """The logs of the ``nats://…/TABLE`` addresses among ``names``, by address."""
    return {name: read_address(name, stream) for name in names if is_address(name)}
