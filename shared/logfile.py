"""The table log: one file per table, a stream of msgpack records.

Every record is a msgpack array of two items, ``[body, crc]``: ``body`` is a map and ``crc``
is always written as a msgpack uint32 (``0xce`` and four bytes, big-endian) holding the CRC-32
of the body's bytes exactly as they stand in the file. A record therefore starts with the
byte ``0x92`` and ends with the five bytes of the CRC. ``docs/replay-format.md`` has the rest.

A last record cut short (a crash in the middle of a write) is a torn tail: readers drop it and
a writer reopening the file truncates it (``torn_tail`` says what it held, for a report). Any
other damage raises ``LogError`` naming the file and the record, so a damaged file never turns
silently into a different game.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import msgpack

from starhall.shared.seating import free_seats

FORMAT_VERSION = 2
"""The format a writer writes: 2 since logs record who sits where (``seating`` records)."""
READ_FORMATS = (1, 2)
"""The formats a reader reads: 1 is 2 without seating (a header's seats may be "Seat N")."""
MAGIC = "starhall-log"
SUFFIX = ".starhall"
BUG_MAGIC = "starhall-bug"
BUG_SUFFIX = ".starhall-bug"
"""A bug report (``shared.bugreport`` makes them) is one record holding a table's log: every
reader of logs takes it where it takes a log."""

OPEN_FLAGS = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
"""Flags for every ``os.open`` of the data folder: no inheritance by child processes; no
newline translation on Windows."""
_ARRAY2 = b"\x92"
_UINT32 = b"\xce"


class LogError(Exception):
    """A log that cannot be read as written: names the file, the record and what is wrong."""

    def __init__(self, path: str | os.PathLike[str], record: int, offset: int, problem: str):
        self.path = str(path)
        self.record = record
        self.offset = offset
        self.problem = problem
        super().__init__(f"{self.path}: record {record} (byte {offset}): {problem}")


class NotALog(LogError):
    """A file that is no Starhall log or bug report at all, rather than a damaged one: a
    mistake in what was named (``README.md``), which the command line answers as a usage
    error."""

    def __init__(self, path: str | os.PathLike[str]):
        super().__init__(path, 0, 0, "not a Starhall log")
        self.args = (str(self),)

    def __str__(self) -> str:
        return f"{self.path} is not a Starhall log (nor a bug report)"


class NoLogInside(LogError):
    """A bug report that holds no table log (a LAN client's: the server keeps the log, which
    holds every seat's hidden cards): nothing is wrong with it, but it cannot be replayed
    where it is."""

    def __init__(self, path: str | os.PathLike[str], body: Mapping[str, Any]):
        super().__init__(path, 0, 0, missing_log_reason(body))


def is_log_file(data: bytes) -> bool:
    """Whether ``data``, a file's bytes or the first of them, begins as a Starhall log or bug
    report does: a first record whose body bears the magic of one (its checksum aside: a
    damaged log is still a log), or a record cut short there or nothing at all (a log torn as
    its header was written, or too little of the file given to tell)."""
    if not data:
        return True
    if data[0] != 0x92:
        return False
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False,
                                max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    try:
        first = unpacker.unpack()
    except msgpack.OutOfData:
        return True
    except (ValueError, TypeError, msgpack.UnpackException):
        return False
    return (type(first) is list and len(first) == 2 and isinstance(first[0], dict)
            and first[0].get("magic") in (MAGIC, BUG_MAGIC))


def encode_record(body: Mapping[str, Any]) -> bytes:
    packed = msgpack.packb(body, use_bin_type=True)
    return b"".join((_ARRAY2, packed, _UINT32, zlib.crc32(packed).to_bytes(4, "big")))


@dataclass(frozen=True, slots=True)
class Scan:
    records: list[tuple[int, dict[str, Any]]]
    """Each whole record as ``(byte offset, body)``; record 0 is the header."""
    good_length: int
    """Bytes up to the end of the last whole record."""
    torn: bool
    """Whether bytes after ``good_length`` (a torn tail) were dropped."""
    source: str
    """What errors name: the file, or ``FILE#log`` for the log a bug report holds."""


def read_records(data: bytes, path: str | os.PathLike[str], limit: int | None = None
                 ) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """Every whole record of ``data`` (the first ``limit`` of them) as ``(offset, body)``, and
    the length of the good part read, which is shorter than ``data`` when the tail is torn."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    crc32 = zlib.crc32
    records: list[tuple[int, dict[str, Any]]] = []
    start = 0
    try:
        for item in unpacker:  # stops quietly at a record cut short: the torn tail
            end: int = unpacker.tell()
            if (
                data[start] != 0x92
                or data[end - 5] != 0xCE
                or type(item) is not list
                or type(item[0]) is not dict
            ):
                raise LogError(path, len(records), start, "not a [body, crc] record")
            if crc32(data[start + 1 : end - 5]) != item[1]:  # a copy costs less than a view
                raise LogError(path, len(records), start,
                               "checksum mismatch: the record is damaged")
            records.append((start, item[0]))
            start = end
            if limit is not None and len(records) >= limit:
                break
    # TypeError: damage can turn a map key into a list, which msgpack cannot hash.
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        raise LogError(path, len(records), start, f"not a msgpack record ({error})") from None
    return records, start


def is_bug_report(body: Mapping[str, Any]) -> bool:
    return body.get("kind") == "bug_report" and body.get("magic") == BUG_MAGIC


def embedded_log(body: Mapping[str, Any]) -> bytes | None:
    """The table log a bug report holds, or ``None`` when it holds none."""
    log = body.get("log")
    return log if isinstance(log, bytes) else None


def missing_log_reason(body: Mapping[str, Any]) -> str:
    why = body.get("log_note")
    return f"this bug report holds no table log ({why})" if isinstance(why, str) and why else (
        "this bug report holds no table log")


HEAD_OF_TORN = 4096
"""How much of a torn record is read for its first fields."""


@dataclass(frozen=True, slots=True)
class TornTail:
    """What the torn tail of a log holds, as far as it can be read (readers drop it)."""

    length: int
    """Its bytes."""
    first: dict[str, Any]
    """The fields of the record cut short that it starts with, as far as they are whole
    (``kind``, ``seq``, ``type``), before its data."""
    whole: list[dict[str, Any]]
    """The bodies of the whole, sound records found after that one: a log cut short while
    its writer went on appending."""


def torn_tail(data: bytes, path: str | os.PathLike[str]) -> TornTail:
    """What the bytes of a torn tail (``data``, from the first byte after the last whole
    record) hold: the first fields of the record cut short, and any whole records after it
    (found by their CRC wherever a record may start)."""
    first: dict[str, Any] = {}
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data[:HEAD_OF_TORN])
    with contextlib.suppress(Exception):  # it is cut short: read what is whole of it
        if unpacker.read_array_header() == 2:
            for _ in range(unpacker.read_map_header()):
                key = unpacker.unpack()
                if key not in ("kind", "seq", "type", "seat"):
                    break
                first[key] = unpacker.unpack()
    whole: list[dict[str, Any]] = []
    start = 1
    while True:
        start = data.find(_ARRAY2, start)
        if start < 0:
            break
        found = record_at(data, start, path)
        if found is None:
            start += 1
            continue
        body, start = found
        whole.append(body)
    return TornTail(len(data), first, whole)


def record_at(data: bytes, start: int, path: str | os.PathLike[str], size: int = 1 << 12
              ) -> tuple[dict[str, Any], int] | None:
    """The body of the whole, sound record at ``start`` and where it ends, or ``None``;
    ``size``: how much is read first (a record's likely size), 16 times more each time."""
    while True:
        try:
            records, end = read_records(data[start:start + size], path, limit=1)
        except LogError:
            return None
        if records:
            body = records[0][1]
            return (body, start + end) if isinstance(body, dict) else None
        if start + size >= len(data):
            return None
        size *= 16


def log_bytes(path: str | os.PathLike[str], data: bytes | None = None) -> tuple[str, bytes]:
    """The bytes of the log a file holds, and what errors in it are named: the file itself,
    or, for a bug report, the log inside it as ``FILE#log``. ``data``: the bytes, already
    read from elsewhere (a log store), which ``path`` names."""
    source, data, _, _ = _read_log(path, data)
    return source, data


def _read_log(path: str | os.PathLike[str], data: bytes | None = None
              ) -> tuple[str, bytes, list[tuple[int, dict[str, Any]]], int]:
    if data is None:
        data = Path(path).read_bytes()
    try:
        records, good_length = read_records(data, path)
    except LogError as error:
        if error.record == 0 and not is_log_file(data):
            raise NotALog(path) from None
        raise
    if records and records[0][1].get("magic") not in (MAGIC, BUG_MAGIC):
        raise NotALog(path)  # records, but neither a log's header nor a bug report first
    if records and is_bug_report(records[0][1]):
        log = embedded_log(records[0][1])
        if log is None:
            raise NoLogInside(path, records[0][1])
        source = f"{path}#log"
        return (source, log, *read_records(log, source))
    return str(path), data, records, good_length


def scan(path: str | os.PathLike[str], data: bytes | None = None) -> Scan:
    """Read every whole record of a log file, dropping a torn tail. A bug report
    (``shared.bugreport``) is read as the log it holds, named ``FILE#log`` in errors.
    ``data``: the log's bytes, read from elsewhere (a log store), which ``path`` names."""
    source, data, records, good_length = _read_log(path, data)
    if not records:
        raise LogError(source, 0, 0, "no header: the file is empty or not a Starhall log")
    check_header(records[0][1], source)
    return Scan(records, good_length, good_length < len(data), source)


def check_header(header: dict[str, Any], source: str) -> None:
    """``LogError`` unless record 0, ``header``, is a log header of the format this reads."""
    if header.get("kind") != "header" or header.get("magic") != MAGIC:
        raise LogError(source, 0, 0, "the first record is not a Starhall log header")
    if type(header.get("format")) is not int or header["format"] not in READ_FORMATS:
        raise LogError(
            source, 0, 0,
            f"format {header.get('format')!r} is not "
            f"{' or '.join(map(str, READ_FORMATS))}, which this reads",
        )


def make_header(
    game: str,
    rules: int,
    players: int,
    options: Mapping[str, Any],
    seats: list[dict[str, Any]] | None = None,
    **info: Any,
) -> dict[str, Any]:
    header: dict[str, Any] = {
        "kind": "header",
        "magic": MAGIC,
        "format": FORMAT_VERSION,
        "game": game,
        "rules": rules,
        "players": players,
        "options": dict(options),
        "seats": seats if seats is not None else free_seats(players),
    }
    header.update(info)
    return header


class TableLog(Protocol):
    """What a table's log is to the server, whichever store keeps it: ``LogWriter`` (a file)
    or the server's JetStream log (``server/jetstream.py``). Records are appended in memory;
    the store makes them durable (a commit), and what failed is rolled back."""

    durable_length: int
    written_length: int
    spill_bytes: int | None
    last_record: tuple[int, int] | None

    def append(self, body: Mapping[str, Any]) -> None: ...

    @property
    def appended_length(self) -> int: ...

    def abandon(self) -> None: ...

    def close(self) -> None: ...


class LogWriter:
    """Appends records to one table's log.

    ``append`` only encodes the record into memory, so it never fails on a full disk;
    ``flush`` hands what was appended to the operating system (it survives a crash of the
    process) and ``sync`` also fsyncs it (it survives a crash of the machine). ``durable_length``
    is how far the file is known to be on disk; after a failed write or sync, ``rollback``
    forgets what was appended since and cuts the file back to that length, so a write that
    failed leaves the log as it was.

    A writer that is not flushed by its owner writes what it holds once more than
    ``spill_bytes`` wait (a long ``starhall sim`` game need not sit in memory); the server sets
    it to ``None``, so that only its own flushes ever touch the disk.
    """

    def __init__(self, path: Path, fd: int, length: int,
                 spill_bytes: int | None = 1 << 20) -> None:
        self.path = path
        self._fd = fd
        self._pending = bytearray()
        self.durable_length = length
        """Bytes of the file known to be on disk (the last successful sync)."""
        self.written_length = length
        """Bytes of the file handed to the operating system."""
        self.spill_bytes = spill_bytes
        self.last_record: tuple[int, int] | None = None
        """Where the last record this writer appended starts, and its CRC."""

    @classmethod
    def create(cls, path: str | os.PathLike[str], header: Mapping[str, Any]) -> LogWriter:
        """A new log holding ``header``, written and synced; if that fails, no file is left."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | OPEN_FLAGS,
                     0o644)
        writer = cls(target, fd, 0)
        try:
            writer.append(header)
            writer.sync()
        except BaseException:
            writer.abandon()
            with contextlib.suppress(OSError):
                target.unlink()
            raise
        return writer

    @classmethod
    def reopen(cls, path: str | os.PathLike[str]) -> tuple[LogWriter, Scan]:
        """Open an existing log for appending, truncating a torn tail first."""
        target = Path(path)
        found = scan(target)
        return cls.reopen_at(target, found.good_length), found

    @classmethod
    def reopen_at(cls, path: str | os.PathLike[str], good_length: int) -> LogWriter:
        """Open an existing log for appending after its first ``good_length`` bytes (its whole
        records, as a reader found them), truncating anything after them (a torn tail)."""
        target = Path(path)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | OPEN_FLAGS)
        try:
            if os.fstat(fd).st_size != good_length:
                os.ftruncate(fd, good_length)
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        return cls(target, fd, good_length)

    def append(self, body: Mapping[str, Any]) -> None:
        record = encode_record(body)
        self.last_record = (self.appended_length,
                            int.from_bytes(record[-4:], "big"))
        self._pending += record
        if self.spill_bytes is not None and len(self._pending) > self.spill_bytes:
            self.flush()

    @property
    def appended_length(self) -> int:
        """Bytes of the log, counting what was appended and not yet written."""
        return self.written_length + len(self._pending)

    def flush(self) -> None:
        """Hand what was appended to the operating system (survives a process crash)."""
        pending = self._pending
        while pending:
            written = os.write(self._fd, pending)
            del pending[:written]
            self.written_length += written

    def sync(self) -> None:
        """Flush and fsync (survives a machine crash); a no-op when nothing is pending."""
        self.flush()
        if self.written_length != self.durable_length:
            os.fsync(self._fd)
            self.durable_length = self.written_length

    def synced(self) -> None:
        """Record that everything flushed is on disk (after the owner's own fsync of
        ``fileno()``)."""
        self.durable_length = self.written_length

    def rollback(self, sync: Callable[[int], None] = os.fsync) -> None:
        """Forget what was appended since the last successful sync, and cut the file back to
        ``durable_length``, syncing that with ``sync``. Raises ``OSError`` when the file cannot
        be cut back: then what is on disk past ``durable_length`` is unknown."""
        if self._pending or self.written_length != self.durable_length:
            self.last_record = None
        self._pending.clear()
        if self.written_length != self.durable_length:
            os.ftruncate(self._fd, self.durable_length)
            sync(self._fd)
            self.written_length = self.durable_length

    def fileno(self) -> int:
        return self._fd

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        """Sync what is pending and close the file (closed even when the sync fails)."""
        if self._fd >= 0:
            try:
                self.sync()
            finally:
                self.abandon()

    def abandon(self) -> None:
        """Close the file without writing what is pending."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            self._pending.clear()
            os.close(fd)

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
