"""The table log: one file per table, a stream of msgpack records.

Every record is a msgpack array of two items, ``[body, crc]``: ``body`` is a map and ``crc``
is always written as a msgpack uint32 (``0xce`` and four bytes, big-endian) holding the CRC-32
of the body's bytes exactly as they stand in the file. A record therefore starts with the
byte ``0x92`` and ends with the five bytes of the CRC. ``docs/replay-format.md`` has the rest.

A last record cut short (a crash in the middle of a write) is a torn tail: readers drop it and
a writer reopening the file truncates it. Any other damage raises ``LogError`` naming the file
and the record, so a damaged file never turns silently into a different game.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgpack

from shared.bugreport import embedded_log, is_bug_report, missing_log_reason

FORMAT_VERSION = 1
MAGIC = "starhall-log"
SUFFIX = ".starhall"

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


def read_records(data: bytes, path: str | os.PathLike[str]) -> tuple[list[tuple[int, Any]], int]:
    """Every whole record of ``data`` as ``(offset, body)``, and the length of the good part,
    which is shorter than ``data`` when the tail is torn."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    view = memoryview(data)
    crc32 = zlib.crc32
    records: list[tuple[int, Any]] = []
    append = records.append
    start = 0
    try:
        for item in unpacker:  # stops quietly at a record cut short: the torn tail
            end = unpacker.tell()
            if (
                data[start] != 0x92
                or data[end - 5] != 0xCE
                or type(item) is not list
                or type(item[0]) is not dict
            ):
                raise LogError(path, len(records), start, "not a [body, crc] record")
            if crc32(view[start + 1 : end - 5]) != item[1]:
                raise LogError(path, len(records), start,
                               "checksum mismatch: the record is damaged")
            append((start, item[0]))
            start = end
    # TypeError: damage can turn a map key into a list, which msgpack cannot hash.
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        raise LogError(path, len(records), start, f"not a msgpack record ({error})") from None
    return records, start


def log_bytes(path: str | os.PathLike[str]) -> tuple[str, bytes]:
    """The bytes of the log a file holds, and what errors in it are named: the file itself,
    or, for a bug report, the log inside it as ``FILE#log``."""
    source, data, _, _ = _read_log(path)
    return source, data


def _read_log(path: str | os.PathLike[str]
              ) -> tuple[str, bytes, list[tuple[int, Any]], int]:
    data = Path(path).read_bytes()
    records, good_length = read_records(data, path)
    if records and is_bug_report(records[0][1]):
        log = embedded_log(records[0][1])
        if log is None:
            raise LogError(path, 0, 0, missing_log_reason(records[0][1]))
        source = f"{path}#log"
        return (source, log, *read_records(log, source))
    return str(path), data, records, good_length


def scan(path: str | os.PathLike[str]) -> Scan:
    """Read every whole record of a log file, dropping a torn tail. A bug report
    (``shared.bugreport``) is read as the log it holds, named ``FILE#log`` in errors."""
    source, data, records, good_length = _read_log(path)
    if not records:
        raise LogError(source, 0, 0, "no header: the file is empty or not a Starhall log")
    header = records[0][1]
    if header.get("kind") != "header" or header.get("magic") != MAGIC:
        raise LogError(source, 0, 0, "the first record is not a Starhall log header")
    if type(header.get("format")) is not int or header["format"] != FORMAT_VERSION:
        raise LogError(
            source, 0, 0,
            f"format {header.get('format')!r} is not {FORMAT_VERSION}, which this reads",
        )
    return Scan(records, good_length, good_length < len(data), source)


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
        "seats": seats if seats is not None else [{"name": f"Seat {i}"} for i in range(players)],
    }
    header.update(info)
    return header


class LogWriter:
    """Appends records to one table's log. ``sync()`` makes what was appended durable."""

    def __init__(self, path: Path, file: IO[bytes]) -> None:
        self.path = path
        self._file = file
        self._dirty = False

    @classmethod
    def create(cls, path: str | os.PathLike[str], header: Mapping[str, Any]) -> LogWriter:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        writer = cls(target, open(target, "xb"))  # noqa: SIM115 - the writer owns the file
        writer.append(header)
        writer.sync()
        return writer

    @classmethod
    def reopen(cls, path: str | os.PathLike[str]) -> tuple[LogWriter, Scan]:
        """Open an existing log for appending, truncating a torn tail first."""
        target = Path(path)
        found = scan(target)
        file = open(target, "r+b")  # noqa: SIM115 - the writer owns the file
        if found.torn:
            file.truncate(found.good_length)
            os.fsync(file.fileno())
        file.seek(found.good_length)
        return cls(target, file), found

    def append(self, body: Mapping[str, Any]) -> None:
        self._file.write(encode_record(body))
        self._dirty = True

    def flush(self) -> None:
        """Hand what was appended to the operating system (survives a process crash)."""
        self._file.flush()

    def sync(self) -> None:
        """Flush and fsync (survives a machine crash); a no-op when nothing is pending."""
        if self._dirty:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._dirty = False

    def fileno(self) -> int:
        return self._file.fileno()

    def close(self) -> None:
        if not self._file.closed:
            self.sync()
            self._file.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
