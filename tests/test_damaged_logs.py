"""Damaged logs: a record cut short, alone or followed by whole records (a file cut short
while its writer went on appending), is a torn tail, at every length it can be cut to; a
record with a damaged byte is damage, wherever the byte is (docs/replay-format.md section 1).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from starhall.cli import main
from starhall.server.sim import default_players, simulate
from starhall.server.tables import restore_tables
from starhall.shared.bugreport import make_bug_report, write_bug_report
from starhall.shared.games import GAMES, get_game
from starhall.shared.logfile import (
    LogError,
    encode_record,
    is_log_file,
    read_records,
    scan,
    torn_tail,
)
from starhall.shared.replay import Verified, verify


@cache
def game_log(game_id: str) -> bytes:
    """A whole game's log (a short one where the game has a target)."""
    game = get_game(game_id)
    options = {"target": 30} if any(s.name == "target" for s in game.option_specs) else {}
    with tempfile.TemporaryDirectory() as folder:
        _, (path,) = simulate(game, default_players(game), options, 1, 5, "random",
                              Path(folder))
        return path.read_bytes()


def record_bounds(data: bytes) -> list[int]:
    """Where each record starts, and the end of the file."""
    records, good = read_records(data, "log")
    assert good == len(data)
    return [offset for offset, _ in records] + [len(data)]


def cut_then_whole(data: bytes, index: int, cut: int, first: int, count: int) -> bytes:
    """The log up to record ``index``, its first ``cut`` bytes, then ``count`` whole records
    from record ``first`` on (a writer going on after the file was cut)."""
    bounds = record_bounds(data)
    return (data[:bounds[index] + cut]
            + data[bounds[first]:bounds[min(first + count, len(bounds) - 1)]])


def assert_torn_at(damaged: bytes, index: int, offset: int, whole: int, path: Path) -> None:
    records, good = read_records(damaged, path)
    assert (len(records), good) == (index, offset)
    tail = torn_tail(damaged[good:], path)
    assert len(tail.whole) == whole
    path.write_bytes(damaged)
    found = scan(path)
    assert found.torn and found.good_length == offset
    result = verify(path)
    assert isinstance(result, Verified) and result.torn
    kept = result.events  # events are numbered from 1: the last one's seq
    assert result.left_out == (f"left out the last {len(damaged) - offset:,} bytes after event "
                               f"{kept}: {tail.words(kept)}")  # the server's words


@settings(max_examples=150, deadline=None)
@given(game_id=st.sampled_from(sorted(GAMES)), data=st.data())
def test_a_record_cut_at_any_length_then_any_whole_records_is_a_torn_tail(
        game_id: str, data: st.DataObject) -> None:
    log = game_log(game_id)
    bounds = record_bounds(log)
    records = len(bounds) - 1
    index = data.draw(st.integers(1, records - 1), label="record cut")
    cut = data.draw(st.integers(1, bounds[index + 1] - bounds[index] - 1), label="bytes kept")
    first = data.draw(st.integers(index + 1, records), label="first whole record after")
    count = data.draw(st.integers(0, records - first), label="whole records after")
    damaged = cut_then_whole(log, index, cut, first, count)
    with tempfile.TemporaryDirectory() as folder:
        assert_torn_at(damaged, index, bounds[index], count, Path(folder) / "t.starhall")


@pytest.mark.slow  # a sweep of every cut: make test's, make check has the property test above
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_cut_length_of_every_kind_of_record_then_the_next_is_a_torn_tail(
        game_id: str, tmp_path: Path) -> None:
    """The issue's measurement, for the first record of each kind (the deal, with its deal
    number, among them): cut at each length, followed by the next whole record."""
    log = game_log(game_id)
    bounds = record_bounds(log)
    records, _ = read_records(log, "log")
    seen: set[tuple[str, object]] = set()
    for index in range(1, len(records) - 1):
        body = records[index][1]
        kind = (body["kind"], body.get("type"))
        if kind in seen:
            continue
        seen.add(kind)
        for cut in range(1, bounds[index + 1] - bounds[index]):
            damaged = cut_then_whole(log, index, cut, index + 1, 1)
            try:
                found, good = read_records(damaged, "log")
            except LogError as error:
                pytest.fail(f"{kind} cut to {cut} bytes, then a whole record: {error}")
            assert (len(found), good) == (index, bounds[index]), (kind, cut)
    assert len(seen) >= 2


DAMAGE_MASKS = (0x01, 0x20, 0x80, 0xFF)
"""A bit low and high in a byte, the top bit (a msgpack type's) and every bit."""


@pytest.mark.slow  # a sweep of every byte: make test's
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_damaged_byte_anywhere_in_a_record_whole_records_after_it_or_not_is_damage(
        game_id: str) -> None:
    """Never a torn tail: a torn tail is cut back, and would take the record (an
    acknowledged move) and the whole records after it with it. Every byte of the record is
    damaged, by each of four masks in turn. The log is read to the end of the whole record
    after the damaged one (its end, for the last two records), so that a damaged length runs
    past the end of the file in some cases and into whole records in others."""
    log = game_log(game_id)
    bounds = record_bounds(log)
    for index in (1, len(bounds) // 2, len(bounds) - 3, len(bounds) - 2):  # the last too
        read_to = bounds[min(index + 2, len(bounds) - 1)]
        for at in range(bounds[index], bounds[index + 1]):
            flip = DAMAGE_MASKS[at % len(DAMAGE_MASKS)]
            damaged = bytearray(log[:read_to])
            damaged[at] ^= flip
            with pytest.raises(LogError) as refused:
                read_records(bytes(damaged), "log")
            assert refused.value.offset <= at, (index, at, flip)


def test_a_server_restores_a_table_whose_log_was_cut_then_written_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's table 0002, skipped at the next start (its log refused as damaged) and
    gone: it is restored from before the record cut short, and stderr says what was lost."""
    log = game_log("hearts")
    bounds = record_bounds(log)
    records, _ = read_records(log, "log")
    index = next(i for i, (_, body) in enumerate(records)
                 if body.get("kind") == "event" and body["seq"] == 20)
    folder = tmp_path / "tables"
    folder.mkdir()
    path = folder / "0002.starhall"
    path.write_bytes(cut_then_whole(log, index, 30, index + 1, 2))
    capsys.readouterr()
    tables = restore_tables(folder)
    said = capsys.readouterr().err
    assert "skipping" not in said
    assert tables["0002"].seq == 19
    kept = path.read_bytes()
    assert kept.startswith(log[:bounds[index]])  # cut back (a restart may write on)
    assert not scan(path).torn
    dropped = 30 + bounds[index + 3] - bounds[index + 1]
    assert (f"starhall serve: table 0002: dropped the last {dropped} bytes of its log after "
            "event 19: a record cut short (event 20, played), then 2 "
            "whole records holding events 21 to 22; the file was cut short while the server "
            "wrote it, or damaged: the moves they held are lost, acknowledged or not; the table "
            "goes on from event 19") in said, said


# --- every command that reads a log, over damaged and hostile files -------------------------

JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats()
    | st.text(max_size=8) | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6) | st.integers(-5, 5), inner, max_size=4),
    max_leaves=8)
"""Any msgpack value (its integers are int64 and uint64): what a hostile writer may seal into a
record with a good CRC."""


def small_log(game_id: str) -> bytes:
    """A short log: a whole game of The Star, or the first 60 records of another game."""
    log = game_log(game_id)
    return log[:record_bounds(log)[min(60, len(record_bounds(log)) - 1)]]


@st.composite
def hostile_file(draw: st.DrawFn) -> bytes:
    """Random bytes, or a real log damaged, cut, spliced or re-sealed with junk."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=200))
    log = small_log(draw(st.sampled_from(["star_patience", "what_else", "stars_and_bars"])))
    bounds = record_bounds(log)
    records, _ = read_records(log, "log")
    at = draw(st.integers(0, len(log)))
    how = draw(st.sampled_from(["cut", "flip", "insert", "delete", "append", "reseal",
                                "reseal-key", "swap", "twice"]))
    if how == "cut":
        return log[:at]
    if how == "flip" and at < len(log):
        return log[:at] + bytes([log[at] ^ draw(st.integers(1, 255))]) + log[at + 1:]
    if how == "insert":
        return log[:at] + draw(st.binary(min_size=1, max_size=20)) + log[at:]
    if how == "delete":
        return log[:at] + log[at + draw(st.integers(1, 80)):]
    if how == "append":
        return log + draw(st.binary(min_size=1, max_size=40))
    index = draw(st.integers(0, len(records) - 1))
    body = records[index][1]
    if how == "reseal":
        key = draw(st.sampled_from(sorted(body)))
        body = {**body, key: draw(JUNK)}
    elif how == "reseal-key":
        body = {**body, draw(st.text(max_size=6)): draw(JUNK)}
    elif how in ("swap", "twice") and index + 1 < len(records):
        first, second = log[bounds[index]:bounds[index + 1]], log[bounds[index + 1]:
                                                                  bounds[index + 2]]
        middle = second + first if how == "swap" else first + first + second
        return log[:bounds[index]] + middle + log[bounds[index + 2]:]
    return log[:bounds[index]] + encode_record(body) + log[bounds[index + 1]:]


READERS = {
    "verify": lambda path: ["replay", "verify", path],
    "verify-json": lambda path: ["replay", "verify", "--json", path],
    "show": lambda path: ["replay", "show", path],
    "show-json": lambda path: ["replay", "show", path, "--json", "--at", "3", "--seat", "all"],
    "diff": lambda path: ["replay", "diff", path, path],
    "view": lambda path: ["replay", "view", path],
    "fork": lambda path: ["replay", "fork", path, "--at", "2"],
}
"""Every command that reads a log file (``store import`` too, on a real NATS:
tests/test_store_cli.py)."""


@pytest.fixture(scope="module")
def no_window() -> Iterator[None]:
    """``replay view`` and ``fork`` read the log and stop where the window would open."""
    from starhall.client import app

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app, "require_display", lambda *args, **kwargs: None)
        patch.setattr(app, "run_in_window", lambda *args, **kwargs: 0)
        yield


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hostile_file(), bug_report=st.booleans())
def test_every_reader_answers_a_hostile_file_in_one_line_with_its_documented_status(
        data: bytes, bug_report: bool, no_window: None, tmp_path_factory: pytest.TempPathFactory,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "hostile.starhall"
    path.write_bytes(data)
    if bug_report:
        path = folder / "hostile.starhall-bug"
        write_bug_report(path, make_bug_report("fuzz", {"table": "t1"}, data, "", [], 0.0))
    not_a_log = not bug_report and not is_log_file(data) or (
        not bug_report and _first_record_is_not_a_header(data))
    capsys.readouterr()
    for command, argv in READERS.items():
        code = main(argv(str(path)))
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, (command, err)
        assert code in (0, 1, 2), (command, code, err)
        assert err.count("\n") <= 1, (command, err)
        if not_a_log:
            assert (code, err) == (2, f"starhall: {path} is not a Starhall log (nor a bug "
                                      "report)\n"), (command, out, err)
        elif code == 2:
            assert err.startswith("starhall: ") and command in ("show-json", "fork"), (
                command, err)  # --at 3 or --at 2 past the log's end: a mistake in the command
        elif code == 1 and command == "verify-json":
            assert json.loads(out)["failed"] == 1, out
        elif code == 1:
            said = err or out.splitlines()[0]
            assert str(path) in said, (command, out, err)


def _first_record_is_not_a_header(data: bytes) -> bool:
    """A first record read whole whose body bears no log's nor bug report's magic."""
    try:
        records, _ = read_records(data, "file", limit=1)
    except LogError:
        return False
    return bool(records) and records[0][1].get("magic") not in ("starhall-log", "starhall-bug")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hostile_file())
def test_a_restarting_server_restores_cuts_back_or_skips_a_hostile_log_in_one_line(
        data: bytes, tmp_path_factory: pytest.TempPathFactory,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``serve``'s restore: a log with a torn tail is cut back to its whole records, any other
    damaged or hostile one is skipped, in one line on stderr, and left as it was."""
    folder = tmp_path_factory.mktemp("tables")
    path = folder / "0001.starhall"
    path.write_bytes(data)
    try:
        kept: int | None = read_records(data, path)[1]
    except LogError:
        kept = None  # damage: never cut back
    capsys.readouterr()
    tables = restore_tables(folder)
    said = [line for line in capsys.readouterr().err.splitlines() if "table 0001" in line]
    assert len(said) <= 1, said
    if "0001" in tables:
        log = tables["0001"].table.log if tables["0001"].table is not None else None
        if log is not None:
            log.close()
        # (Damage before a log's last checkpoint is not read: a restart reads from there.)
        written = path.read_bytes()
        assert written.startswith(data[:kept] if kept is not None else data)
        # restored: silently, or saying what it cut back, or that a checkpoint it could not
        # resume from made it fold the whole log instead
        assert not said or "dropped the last" in said[0] or (
            "folded its whole log instead" in said[0]), said
    elif path.exists():
        assert path.read_bytes() == data, said  # skipped: left as it was
        assert said and (said[0].startswith("starhall serve: skipping table 0001: ")), said
