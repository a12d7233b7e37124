"""The table log: one file per table, a stream of msgpack records.

Every record is a msgpack array of two items, ``[body, crc]``: ``body`` is a map and ``crc``
is always written as a msgpack uint32 (``0xce`` and four bytes, big-endian) holding the CRC-32
of the body's bytes exactly as they stand in the file. A record therefore starts with the
byte ``0x92`` and ends with the five bytes of the CRC. ``docs/replay-format.md`` has the rest.

A last record cut short (a crash in the middle of a write), alone or followed by whole records
(the file cut short while its writer went on appending), is a torn tail: readers drop it and a
writer reopening the file truncates it (``torn_tail`` says what it held, for a report). Any
other damage, a changed byte among it, raises ``LogError`` naming the file and the record, so a
damaged file never turns silently into a different game.
"""

from __future__ import annotations

import contextlib
import functools
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
    report does: a first record whose body bears the magic of one, as far as it is read up to
    its ``magic`` (what comes after it aside, and its checksum: a damaged log is still a log),
    or a record cut short before its ``magic`` or nothing at all (a log torn as its header was
    written, or too little of the file given to tell)."""
    if not data:
        return True
    if data[0] != 0x92:
        return False
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False,
                                max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    try:
        if unpacker.read_array_header() != 2:
            return False
        for _ in range(unpacker.read_map_header()):
            if unpacker.unpack() == "magic":
                return unpacker.unpack() in (MAGIC, BUG_MAGIC)
            unpacker.skip()
    except msgpack.OutOfData:
        return True
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        return _longer_than_the_data(error)
    return False


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
    the length of the good part read, which is shorter than ``data`` when the tail is torn: a
    record cut short, alone or followed by whole records (``cut_short_at``)."""
    records: list[tuple[int, dict[str, Any]]] = []
    try:
        start = _read_whole(data, path, records, limit)
    except LogError as error:
        if limit is None and cut_short_at(data, error.offset, path):
            return records, error.offset
        # A record cut short before the last byte of its CRC, when that byte is 0x92, is read
        # whole with the first byte of the record after it, which then looks damaged.
        if limit is None and records and cut_short_at(data, records[-1][0], path):
            return records[:-1], records[-1][0]
        raise
    if limit is None and start < len(data) and not cut_short_at(data, start, path):
        # a value that runs on to the end of the file, over whole records: a changed byte
        raise LogError(path, len(records), start,
                       "checksum mismatch: the record is damaged" if data[start] == 0x92
                       else "not a [body, crc] record")
    return records, start


def _read_whole(data: bytes, path: str | os.PathLike[str],
                records: list[tuple[int, dict[str, Any]]], limit: int | None) -> int:
    """Append each whole, sound record of ``data`` to ``records`` and return where the last
    one ends; ``LogError`` at the first that is not whole and sound but for a record cut short
    at the end."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    crc32 = zlib.crc32
    first = len(records)
    start = 0
    try:
        for item in unpacker:  # stops quietly at a record cut short at the end
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
            if limit is not None and len(records) - first >= limit:
                break
    # TypeError: damage can turn a map key into a list, which msgpack cannot hash.
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        if _longer_than_the_data(error):
            return start  # as a record cut short at the end: the caller says which it is
        raise LogError(path, len(records), start, f"not a msgpack record ({error})") from None
    return start


def _longer_than_the_data(error: Exception) -> bool:
    """Whether msgpack refused a string, bytes, list or map for claiming more than all the
    data it was given (its limits are the data's length): a value the data ends inside, as
    if cut short, which it is when the value is a record's header or body."""
    return type(error) is ValueError and "exceeds max_" in str(error)


def cut_short_at(data: bytes, start: int, path: str | os.PathLike[str]) -> bool:
    """Whether the bytes of ``data`` from ``start`` on are a torn tail: a record cut short
    (``0x92`` and bytes that end before a msgpack value does), then nothing or only whole,
    sound records, the first of them where the first sound record after ``start`` begins (a
    file cut short while its writer went on appending). A record whose bytes make a whole
    value but not a sound record, or are a whole record's but for one changed byte, is
    damage, not a torn tail."""
    if start >= len(data) or data[start] != 0x92:
        return False
    after = _first_sound_record(data, start + 1, path)
    chunk = data[start:after]
    if not _ends_early(chunk) or _one_byte_damaged(chunk):
        return False
    rest = data[after:]
    try:
        end = _read_whole(rest, path, [], None)
    except LogError:
        return False
    return end == len(rest) or rest[end] == 0x92


def _first_sound_record(data: bytes, start: int, path: str | os.PathLike[str]) -> int:
    """Where the first whole, sound record at or after ``start`` begins (its CRC matching: at
    any other place that is a one in four billion chance), or the end of ``data``."""
    while True:
        start = data.find(_ARRAY2, start)
        if start < 0:
            return len(data)
        if record_at(data, start, path) is not None:
            return start
        start += 1


def _one_byte_damaged(chunk: bytes) -> bool:
    """Whether ``chunk`` is a whole record but for one damaged byte: the CRC of its body is
    its last four bytes (the ``0xce`` before them damaged), or it ends as a record does
    (``0xce`` and four bytes) and its CRC is what the CRC of its body would be with one byte
    changed. A flipped byte that lengthens a string or map makes a record's bytes end before
    its value does, as a record cut short does; but a record cut short ends so only where its
    body held ``0xce`` (a deal number), and then its last four bytes are no such CRC."""
    if len(chunk) < 7:
        return False
    syndrome = zlib.crc32(chunk[1:-5]) ^ int.from_bytes(chunk[-4:], "big")
    if syndrome == 0:
        return True  # the body and its CRC are sound: the damaged byte is the 0xce
    if chunk[-5] != 0xCE:
        return False
    if any(syndrome == 0xFF << shift & syndrome for shift in (0, 8, 16, 24)):
        return True  # the damaged byte is one of the CRC's
    table, undo = _crc_tables()
    for _ in range(len(chunk) - 6):  # a byte d bytes before the body's end: d steps of zeros
        byte = undo[syndrome >> 24]
        if table[byte] == syndrome:
            return True
        syndrome = (syndrome ^ table[byte]) << 8 | byte
    return False


@functools.cache
def _crc_tables() -> tuple[list[int], list[int]]:
    """CRC-32's byte table, and which entry has each top byte (each has its own), which
    undoes one step of the CRC over a zero byte."""
    table = []
    for byte in range(256):
        value = byte
        for _ in range(8):
            value = value >> 1 ^ (0xEDB88320 if value & 1 else 0)
        table.append(value)
    undo = [0] * 256
    for byte, value in enumerate(table):
        undo[value >> 24] = byte
    return table, undo


def _ends_early(chunk: bytes) -> bool:
    """Whether ``chunk`` ends before the msgpack value it begins is whole."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False,
                                max_buffer_size=len(chunk) + 1)
    unpacker.feed(chunk)
    try:
        unpacker.skip()
    except msgpack.OutOfData:
        return True
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        return _longer_than_the_data(error)
    return False


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

    def words(self, kept: int) -> str:
        """What the tail held and what that means, in words every reader of logs uses
        (``kept``: the last event before it): a crash while a batch was written leaves a
        record cut short, of moves nobody was told of; whole records after it mean the file
        was cut short (or damaged) underneath its writer, which went on writing, and moves
        acknowledged then are lost with them."""
        kind = self.first.get("kind")
        if kind == "event" and "seq" in self.first:
            cut = f"event {self.first['seq']}" + (
                f", {self.first['type']}" if "type" in self.first else "")
        elif kind in ("checkpoint", "seating"):
            cut = f"the {kind} record after event {self.first.get('seq', kept)}"
        else:
            cut = "unreadable"
        held = f"a record cut short ({cut})"
        if not self.whole:
            return (f"{held}; a write a crash cut short (never acknowledged), or the file was "
                    "cut short")
        events = [body["seq"] for body in self.whole
                  if body.get("kind") == "event" and type(body.get("seq")) is int]
        count = len(self.whole)
        held += f", then {count} whole record{'s' if count > 1 else ''}"
        if events:
            held += (f" holding events {events[0]} to {events[-1]}" if len(events) > 1
                     else f" holding event {events[0]}")
        return (f"{held}; the file was cut short while the server wrote it, or damaged: the "
                "moves they held are lost, acknowledged or not")


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
    if not records and not is_log_file(data):
        raise NotALog(path)  # a first record cut short, but not one of a log's header
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
