"""Damaged logs: a record cut short, alone or followed by whole records (a file cut short
while its writer went on appending), is a torn tail, at every length it can be cut to; a
record with a damaged byte is damage, wherever the byte is (docs/replay-format.md section 1).
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starhall.server.sim import default_players, simulate
from starhall.server.tables import restore_tables
from starhall.shared.games import GAMES, get_game
from starhall.shared.logfile import LogError, read_records, scan, torn_tail
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
    assert len(torn_tail(damaged[good:], path).whole) == whole
    path.write_bytes(damaged)
    found = scan(path)
    assert found.torn and found.good_length == offset
    result = verify(path)
    assert isinstance(result, Verified) and result.torn


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


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_damaged_byte_anywhere_in_a_record_followed_by_whole_records_is_damage(
        game_id: str) -> None:
    """Never a torn tail: a torn tail is cut back, and would take the whole records after
    the damage with it."""
    log = game_log(game_id)
    bounds = record_bounds(log)
    for index in (1, len(bounds) // 2, len(bounds) - 3):
        for at in range(bounds[index], bounds[index + 1]):
            for flip in (0x01, 0x20, 0x80, 0xFF):
                damaged = bytearray(log)
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
