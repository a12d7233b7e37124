"""A restart of the server: finished tables listed from their summaries without folding their
logs, live tables rebuilt from their logs to exactly the state a full, strict rebuild gives,
and whatever a crash or a person did to the files (a torn tail, a summary missing, damaged or
of another log, logs from before summaries existed) restored correctly all the same."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from starhall.server.embed import EmbeddedServer
from starhall.server.stores import SUMMARY_SUFFIX
from starhall.server.tables import LiveTable, create_table, restore_tables
from starhall.shared import protocol
from starhall.shared.games import GAMES
from starhall.shared.logfile import encode_record, scan
from starhall.shared.replay import Verified, load, load_tail, log_files, verify
from starhall.shared.table import state_hash
from tests.server_helpers import FAST_HEARTS, Participant, Person, fill_with_bots, wait_for

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"
SLOW_BOTS = 60.0
"""Bots that do not move while a test looks."""
SHOWN = ("name", "game", "players", "options", "status", "seq", "seats", "to_act", "scores",
         "winners")
"""What the lobby shows of a table, which a restart must keep (not who is connected)."""


def listing(address: str) -> dict[str, dict[str, Any]]:
    lobby = Participant(address)
    try:
        tables: list[dict[str, Any]] = lobby.request({"type": "list"})["tables"]
    finally:
        lobby.close()
    shown = {}
    for table in tables:
        seats = [{k: v for k, v in seat.items() if k != "connected"} for seat in table["seats"]]
        shown[table["id"]] = {**{key: table[key] for key in SHOWN}, "seats": seats}
    return shown


def rebuilt_hash(log: Path) -> str:
    """The hash of the state a full, strict rebuild of the log gives."""
    recording = load(log)
    return state_hash(recording.game.snapshot(recording.state_at()))


def live_hash(table: LiveTable) -> str:
    return state_hash(table.game.snapshot(table.table.state))


@pytest.fixture
def history(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A data folder with two finished games (Hearts and The Star), a game of people under way
    and one of bots under way (their bots stopped), and a table still waiting."""
    tables: dict[str, str] = {}
    with EmbeddedServer(tmp_path, think=0.0) as server:
        assert server.address is not None
        lobby = Participant(server.address)
        for name, game, players, options in (("hearts over", "hearts", 4, FAST_HEARTS),
                                             ("star over", "star_patience", 1, {})):
            created = lobby.request({"type": "create", "game": game, "players": players,
                                     "options": options, "name": name})
            tables[name] = created["table"]["id"]
            fill_with_bots(lobby, tables[name], range(players))
        for name in ("hearts over", "star over"):
            wait_for(lambda name=name: listing(server.address or "")[tables[name]]["status"]
                     == protocol.OVER, timeout=60)
        lobby.close()
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None
        lobby = Participant(server.address)
        for name in ("people", "bots", "waiting"):
            tables[name] = lobby.request({"type": "create", "game": "hearts", "players": 4,
                                          "options": {"target": 1000}, "name": name}
                                         )["table"]["id"]
        people = [Person(server.address, tables["people"], seat, f"P{seat}")
                  for seat in range(4)]
        for _ in range(60):  # a few tricks
            for person in people:
                person.step()
        fill_with_bots(lobby, tables["bots"], range(4))
        Person(server.address, tables["waiting"], 2, "Early")
        lobby.close()
    yield tables


def test_a_restart_lists_every_table_as_it_was(tmp_path: Path, history: dict[str, str]) -> None:
    folder = tmp_path / "tables"
    for name in ("hearts over", "star over"):
        assert (folder / f"{history[name]}{SUMMARY_SUFFIX}").exists(), name
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None and server.service is not None
        before = listing(server.address)
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None and server.service is not None
        assert listing(server.address) == before
        tables = server.service.tables
        for name in ("hearts over", "star over"):
            assert tables[history[name]].loaded is None, f"{name}: its log was folded"
            assert before[history[name]]["status"] == protocol.OVER
            # The winners listed from the summary are the log's (The Star may be lost: none).
            recording = load(folder / f"{history[name]}.starhall")
            outcome = recording.game.outcome(recording.state_at())
            assert before[history[name]]["winners"] == list(outcome.winners or ())
        assert before[history["hearts over"]]["winners"]
        for name in ("people", "bots"):
            table = tables[history[name]]
            assert table.loaded is not None and table.status == protocol.PLAYING
            assert live_hash(table) == rebuilt_hash(folder / f"{table.id}.starhall"), name
        assert before[history["waiting"]]["status"] == protocol.WAITING
        assert before[history["waiting"]]["seats"][2]["name"] == "Early"


def test_live_tables_play_on_exactly(tmp_path: Path, history: dict[str, str]) -> None:
    with EmbeddedServer(tmp_path, think=0.0) as server:
        assert server.address is not None and server.service is not None
        table = server.service.tables[history["bots"]]
        seq = table.seq
        wait_for(lambda: table.seq > seq + 50)  # the bots play on where they were
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None and server.service is not None
        for name in ("people", "bots"):
            live = server.service.tables[history[name]]
            assert live_hash(live) == rebuilt_hash(tmp_path / "tables" / f"{live.id}.starhall")
    for log in log_files([str(tmp_path / "tables")]):
        assert isinstance(verify(log), Verified), log


def test_watching_a_finished_table_reads_its_log(tmp_path: Path,
                                                 history: dict[str, str]) -> None:
    table_id = history["hearts over"]
    log = tmp_path / "tables" / f"{table_id}.starhall"
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None and server.service is not None
        watcher = Participant(server.address)
        assert watcher.request({"type": "watch", "table": table_id})["type"] == \
            protocol.WATCHING
        snapshot = watcher.connection.receive(5.0)
        assert snapshot is not None and snapshot["type"] == protocol.SNAPSHOT
        recording = load(log)
        assert snapshot["seq"] == recording.last_seq
        assert snapshot["view"] == recording.game.view(recording.state_at(), None)
        live = server.service.tables[table_id]
        # Read for the snapshot, not kept: a finished table holds only what the lobby shows.
        assert live.loaded is None and live_hash(live) == rebuilt_hash(log)
        refused = watcher.request({"type": "sit", "table": table_id, "seat": 0})
        assert refused["code"] == protocol.TABLE_OVER
        watcher.close()


def damage_summary(summary: Path, how: str, other: Path) -> None:
    body = json.loads(summary.read_text())
    if how == "missing":
        summary.unlink()
    elif how == "torn":
        summary.write_bytes(summary.read_bytes()[:40])
    elif how == "empty":
        summary.write_bytes(b"")
    elif how == "another table's":
        shutil.copy(other, summary)
    elif how == "scores changed":
        body["scores"] = [0] * len(body["scores"])  # its check no longer agrees
        summary.write_text(json.dumps(body))
    elif how.startswith("wrong "):
        key = how.removeprefix("wrong ")
        body[key] += 1
        from starhall.server.tables import _summary_check

        body["check"] = _summary_check(body)  # a consistent summary of some other log
        summary.write_text(json.dumps(body))
    else:
        raise AssertionError(how)


@pytest.mark.parametrize("how", ["missing", "torn", "empty", "another table's", "scores changed",
                                 "wrong log_bytes", "wrong last_record", "wrong last_crc",
                                 "wrong seq"])
def test_a_summary_out_of_step_with_its_log_is_not_believed(
        tmp_path: Path, history: dict[str, str], how: str) -> None:
    folder = tmp_path / "tables"
    table_id = history["hearts over"]
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        before = listing(server.address or "")
    summary = folder / f"{table_id}{SUMMARY_SUFFIX}"
    good = summary.read_bytes()
    damage_summary(summary, how, folder / f"{history['star over']}{SUMMARY_SUFFIX}")
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.service is not None
        # Folded (its summary is written again, below), then rested as a finished table.
        assert server.service.tables[table_id].loaded is None
        assert listing(server.address or "") == before
    assert summary.read_bytes() == good  # written again
    restored = restore_tables(folder, read_only=True)
    assert restored[table_id].loaded is None  # believed again


def test_a_torn_tail_is_cut_off_live_or_finished(tmp_path: Path, history: dict[str, str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "tables"
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        before = listing(server.address or "")
    logs = {name: folder / f"{history[name]}.starhall" for name in ("hearts over", "people")}
    whole = {name: log.read_bytes() for name, log in logs.items()}
    torn = encode_record({"kind": "event", "seq": 10_000, "type": "played", "seat": 0,
                          "data": {"card": "2C"}})[:-3]
    for log in logs.values():
        with open(log, "ab") as file:
            file.write(torn)
    capsys.readouterr()
    restore_tables(folder, read_only=True)  # says so too, and cuts nothing
    said = capsys.readouterr().err
    for name, log in logs.items():
        assert log.read_bytes() == whole[name] + torn
        assert f"table {history[name]}: leaves out the last {len(torn)} bytes of its log " \
               f"after event {load(log).last_seq} (--read-only: the file is not cut back)" in said
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.service is not None
        assert listing(server.address or "") == before
        people = server.service.tables[history["people"]]
        assert live_hash(people) == rebuilt_hash(logs["people"])
    said = capsys.readouterr().err.splitlines()
    for name, log in logs.items():
        assert log.read_bytes() == whole[name], name  # the torn record is gone
        assert not scan(log).torn
        kept = load(log).last_seq
        assert f"starhall serve: table {history[name]}: dropped the last {len(torn)} bytes of " \
               f"its log after event {kept}: a record cut short (event 10000, played); a write " \
               "a crash cut short (never acknowledged), or the file was cut short; the table " \
               f"goes on from event {kept}" in said, name


def test_a_crash_s_leftovers_go_and_hidden_files_stay(tmp_path: Path,
                                                      history: dict[str, str]) -> None:
    folder = tmp_path / "tables"
    leftover = folder / f"{history['people']}.seats.tmp"  # a write a crash cut short
    leftover.write_bytes(b'{"name": "peo')
    hidden = folder / f".{history['hearts over']}.starhall"  # an editor's copy, say
    shutil.copy(folder / f"{history['hearts over']}.starhall", hidden)
    tables = restore_tables(folder)
    assert sorted(tables) == sorted(history.values())
    assert not leftover.exists() and hidden.exists()
    assert restore_tables(folder, read_only=True).keys() == tables.keys()


def test_the_log_alone_keeps_every_seat_and_its_owner(tmp_path: Path,
                                                     history: dict[str, str]) -> None:
    """No file but the logs (and the finished games' summaries) holds who sits where, and a
    restart finds every seat, person and bot, and every token's hash as they were."""
    folder = tmp_path / "tables"
    assert not list(folder.glob("*.seats.json"))
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.service is not None
        before = {table_id: [(seat.state, seat.name, seat.bot_kind, seat.token_sha256,
                              seat.since) for seat in table.seats]
                  for table_id, table in server.service.tables.items()}
    assert all(seat[3] for seat in before[history["people"]])
    assert [seat[0] for seat in before[history["hearts over"]]] == ["bot"] * 4
    tables = restore_tables(folder, read_only=True)
    for name in ("hearts over", "people"):  # one listed from its summary, one rebuilt
        assert [(seat.state, seat.name, seat.bot_kind, seat.token_sha256, seat.since)
                for seat in tables[history[name]].seats] == before[history[name]]


def test_logs_from_before_summaries_load(tmp_path: Path) -> None:
    """Logs with no summary, no seating file and no command ids (the goldens, written by
    earlier versions) are listed as their rebuilt games say; their summaries are written."""
    folder = tmp_path / "tables"
    folder.mkdir()
    goldens = sorted(GOLDEN.glob("*.starhall"))[:6]
    assert goldens
    for number, golden in enumerate(goldens, 1):
        shutil.copy(golden, folder / f"{number:04d}.starhall")
    lines: list[str] = []
    with EmbeddedServer(tmp_path, think=SLOW_BOTS, say=lines.append) as server:
        assert server.address is not None
        shown = listing(server.address)
    assert lines[0].startswith(f"restoring {len(goldens)} tables")
    assert lines[-1].startswith(f"restored {len(goldens)} tables")
    assert sorted(shown) == [f"{n:04d}" for n in range(1, len(goldens) + 1)]
    for number, golden in enumerate(goldens, 1):
        recording = load(golden)
        outcome = recording.game.outcome(recording.state_at())
        table = shown[f"{number:04d}"]
        assert table["seq"] == recording.last_seq
        assert table["status"] == (protocol.OVER if outcome.over else protocol.PLAYING)
        assert table["scores"] == list(outcome.scores)
        if outcome.over:
            assert (folder / f"{number:04d}{SUMMARY_SUFFIX}").exists()
    lines.clear()
    with EmbeddedServer(tmp_path, think=SLOW_BOTS, say=lines.append) as server:
        assert listing(server.address or "") == shown
    finished = sum(1 for table in shown.values() if table["status"] == protocol.OVER)
    assert f"{finished} from summaries" in lines[-1]


def test_the_command_ids_of_people_are_read_when_first_needed(tmp_path: Path) -> None:
    """A restart reads a table of people from its last checkpoint only; the command ids they
    may send again, logged before it, are read when a command is checked or before the table
    moves on (stand-in bots play here), and the checkpoints written then say rightly from
    where they are remembered."""
    folder = tmp_path / "tables"
    folder.mkdir()
    live = create_table(folder, "0001", "people", GAMES["hearts"], 4, {"target": 10_000})
    for seat in range(4):
        live.seat_person(seat, f"P{seat}")
    for seat in range(4):
        live.put_bot(seat, "random", standin=True)  # their people are away
    live.record_seating()  # (a server's master records the seats with the batch)
    table, rng, sent = live.table, random.Random(8), [0] * 4
    while table.seq < 3000 or table.game.to_act(table.state) == ():
        request = table.game.chance(table.state)
        if request is not None:
            table.shuffle(rng.randrange(1, 2**40))
            continue
        seat = table.game.to_act(table.state)[0]
        sent[seat] += 1
        table.submit(table.game.random_action(table.state, seat, rng), sent[seat])
    assert table.log is not None
    table.log.close()
    memory = table.commands.seats

    restored = restore_tables(folder, read_only=True)["0001"]
    assert restored.commands_unread and restored.table.commands.seats != memory
    first = next(iter(memory[2].items()))
    assert restored.command_done(2, first[0]) == first[1]  # read now
    assert not restored.commands_unread and restored.table.commands.seats == memory

    with EmbeddedServer(tmp_path, think=0.0) as server:
        assert server.service is not None
        playing = server.service.tables["0001"]
        seq = playing.seq
        wait_for(lambda: playing.seq > seq + 200)  # a few hands: checkpoints written
    log = folder / "0001.starhall"
    assert max(load(log).checkpoints) > seq
    assert load_tail(log, cids=True).command_memory().seats == load(log).command_memory().seats
