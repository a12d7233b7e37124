"""The tools on tables kept in NATS JetStream, on a real nats-server: ``store import`` and
``store export`` move logs in and out losslessly (replay verify and a byte comparison);
``replay export``, ``verify`` and ``show`` read a ``nats://…/TABLE`` address; a bad or
unreachable address is one line on stderr, never a traceback."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from starhall.cli import main
from starhall.server.embed import free_loopback_port
from starhall.shared.logfile import encode_record, read_records
from starhall.shared.table import state_hash
from tests.connection import Connection
from tests.nats_helpers import NatsNode, jetstream_settings, wait_for_port
from tests.test_damaged_logs import hostile_file

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"
LOGS = ["hearts_4p_deck-classic", "hearts_3p_mode-exchange"]


def stream_of(node: NatsNode, request: pytest.FixtureRequest) -> str:
    stream = jetstream_settings(node, request.node.name)["stream"]
    assert isinstance(stream, str)
    return stream


def test_import_then_export_is_lossless_and_the_readers_take_the_address(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest,
        capsys: pytest.CaptureFixture[str]) -> None:
    stream = ["--stream", stream_of(nats_node, request)]
    folder = tmp_path / "in"
    folder.mkdir()
    for name in LOGS:
        shutil.copy(GOLDEN / f"{name}.starhall", folder)
    address = f"nats://{nats_node.url}"
    assert main(["store", "import", str(folder), address, *stream]) == 0
    assert main(["store", "import", str(folder), address, *stream]) == 2  # there already
    assert "already holds" in capsys.readouterr().err
    table = f"{address}/{LOGS[0]}"
    capsys.readouterr()
    assert main(["replay", "verify", table, *stream]) == 0
    assert main(["replay", "show", table, *stream]) == 0
    said = capsys.readouterr().out  # named by its address, not by a file it was copied into
    assert said.startswith(f"ok {table}: ") and f"\n{table}: " in said
    assert "starhall-" not in said and "/tmp" not in said
    assert main(["replay", "diff", table, str(folder / f"{LOGS[0]}.starhall"), *stream]) == 0
    exported = tmp_path / "one.starhall"
    assert main(["replay", "export", table, str(exported), *stream]) == 0
    assert exported.read_bytes() == (folder / f"{LOGS[0]}.starhall").read_bytes()
    out = tmp_path / "out"
    assert main(["store", "export", address, str(out), *stream]) == 0
    for name in LOGS:
        assert (out / f"{name}.starhall").read_bytes() == \
            (folder / f"{name}.starhall").read_bytes()
    assert main(["replay", "verify", str(out)]) == 0


@pytest.mark.parametrize("argv", [
    ["replay", "verify", "nats://nowhere"],
    ["replay", "show", "nats://127.0.0.1:99999/0001"],
    ["replay", "export", "nats://127.0.0.1:4222/bad.table", "x.starhall"],
    ["replay", "export", "nats://127.0.0.1:4222", "x.starhall"],
    ["store", "export", "nats://host:port", "out"],
    ["store", "import", "no-such-folder", "nats://127.0.0.1:4222"],
])
def test_a_bad_address_is_one_line(argv: list[str], capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("starhall: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_an_unreachable_nats_is_one_line(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    nobody = f"nats://127.0.0.1:{free_loopback_port()}"
    assert main(["replay", "verify", f"{nobody}/0001"]) == 2
    assert main(["store", "export", nobody, str(tmp_path / "out")]) == 2
    assert main(["serve", "--store", nobody, "--data", str(tmp_path), "--bind",
                 "127.0.0.1:0", "--beacon", "off"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("starhall: ") for line in err), err
    assert all("cannot use NATS JetStream" in line for line in err), err


def test_store_without_an_action_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store"]) == 0
    assert "import" in capsys.readouterr().out


def starhall(*argv: str) -> subprocess.CompletedProcess[str]:
    """``starhall ARGV`` in a process of its own, for what it prints as it exits."""
    return subprocess.run([str(Path(sys.executable).with_name("starhall")), *argv],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "STARHALL_PURE_PYTHON": "1"}, check=False)


def test_the_tools_and_a_serving_node_exit_with_nothing_pending(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Closing the store cancels and awaits the NATS client's tasks before the loop stops:
    asyncio prints "Task was destroyed but it is pending!" for each one left otherwise."""
    stream = ["--stream", stream_of(nats_node, request)]
    address = f"nats://{nats_node.url}"
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(GOLDEN / f"{LOGS[0]}.starhall", folder)
    for argv in (["store", "import", str(folder), address], ["replay", "verify",
                 f"{address}/{LOGS[0]}"], ["store", "export", address, str(tmp_path / "out")]):
        done = starhall(*argv, *stream)
        assert (done.returncode, done.stderr) == (0, ""), argv
    port = free_loopback_port()
    serve = subprocess.Popen(
        [str(Path(sys.executable).with_name("starhall")), "serve", "--store", address,
         *stream, "--bind", f"127.0.0.1:{port}", "--data", str(tmp_path / "node"),
         "--beacon", "off"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "STARHALL_PURE_PYTHON": "1"})
    try:
        wait_for_port(port, timeout=60)
        with Connection(f"tcp://127.0.0.1:{port}") as lobby:  # a table: a lease to give back
            assert lobby.request({"type": "create", "game": "hearts", "players": 4})[
                "type"] == "created"
    finally:
        serve.send_signal(signal.SIGINT)
        _, stderr = serve.communicate(timeout=60)
    assert serve.returncode == 0
    restoring = re.compile(rf"starhall serve: restor(ing|ed) 1 tables? from {address}"
                           r"(…| \(.*\) in [0-9.]+ s)")
    assert all(restoring.fullmatch(line) for line in stderr.splitlines()), stderr


def desynced_copy(source: Path, target: Path) -> None:
    """A log whose last checkpoint holds a field the rebuilt game does not have (re-sealed:
    its CRC and hash are sound), so that ``replay verify`` fails with a report."""
    records, _ = read_records(source.read_bytes(), source)
    last = max(i for i, (_, body) in enumerate(records) if body.get("kind") == "checkpoint")
    bodies = [body for _, body in records]
    state = {**bodies[last]["state"], "not_in_the_engine": 1}
    bodies[last] = {**bodies[last], "state": state, "hash": state_hash(state)}
    target.write_bytes(b"".join(encode_record(body) for body in bodies))


def test_import_of_a_log_verify_fails_with_a_report_is_refused_in_its_first_line(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest,
        capsys: pytest.CaptureFixture[str]) -> None:
    stream = ["--stream", stream_of(nats_node, request)]
    folder = tmp_path / "in"
    folder.mkdir()
    log = folder / f"{LOGS[0]}.starhall"
    desynced_copy(GOLDEN / f"{LOGS[0]}.starhall", log)
    assert main(["replay", "verify", str(log)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert main(["store", "import", str(folder), f"nats://{nats_node.url}", *stream]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == f"starhall: {first}; nothing of {log} was moved\n"


def test_import_of_a_log_cut_then_written_on_says_what_it_left_out_as_verify_does(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest,
        capsys: pytest.CaptureFixture[str]) -> None:
    stream = ["--stream", stream_of(nats_node, request)]
    folder = tmp_path / "in"
    folder.mkdir()
    whole = (GOLDEN / f"{LOGS[0]}.starhall").read_bytes()
    records, _ = read_records(whole, "golden")
    cut, after = records[20][0], records[23][0]
    log = folder / f"{LOGS[0]}.starhall"
    log.write_bytes(whole[:cut + 9] + whole[after:])  # a record cut short, then written on
    assert main(["replay", "verify", str(log)]) == 0
    verified = capsys.readouterr().out.splitlines()[0]
    left_out = verified.partition("; ")[2]
    assert left_out.startswith(f"left out the last {len(whole) - after + 9:,} bytes after event")
    address = f"nats://{nats_node.url}"
    assert main(["store", "import", str(folder), address, *stream]) == 0
    assert capsys.readouterr().out == (
        f"{log} -> {address}/{LOGS[0]}: 20 records, checked; {left_out}\n")
    exported = tmp_path / "back.starhall"
    assert main(["replay", "export", f"{address}/{LOGS[0]}", str(exported), *stream]) == 0
    assert exported.read_bytes() == whole[:cut]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hostile_file())
def test_import_answers_a_hostile_file_in_one_line_as_verify_does(
        data: bytes, nats_node: NatsNode, tmp_path_factory: pytest.TempPathFactory,
        request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> None:
    """``store import`` over the damaged and hostile files every reader is fuzzed with
    (tests/test_damaged_logs.py): the exit status ``replay verify`` gives, in one line, and
    only what verify finds good arrives."""
    stream = ["--stream", stream_of(nats_node, request)]
    folder = tmp_path_factory.mktemp("in")
    log = folder / f"{folder.name}.starhall"
    log.write_bytes(data)
    capsys.readouterr()
    verified = main(["replay", "verify", str(log)])
    capsys.readouterr()
    address = f"nats://{nats_node.url}"
    code = main(["store", "import", str(folder), address, *stream])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == verified, (code, verified, err)
    assert err.count("\n") == (0 if code == 0 else 1), err
    if code == 0:
        exported = folder / "back.bin"
        assert main(["replay", "export", f"{address}/{folder.name}", str(exported),
                     *stream]) == 0
        assert exported.read_bytes() == data[:read_records(data, log)[1]]


def test_an_export_hands_on_the_logs_alone_and_no_token(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A table where a person sits, imported and exported: the exported folder holds its log
    alone (who sits where is in it), with no token and no hash of one that is not salted."""
    from starhall.server.embed import EmbeddedServer
    from tests.server_helpers import Participant

    with EmbeddedServer(tmp_path, think=60.0) as server:
        assert server.address is not None
        ada = Participant(server.address, "Ada")
        table = ada.request({"type": "create", "game": "hearts", "players": 4})["table"]["id"]
        token = ada.request({"type": "sit", "table": table, "seat": 0})["token"]
        ada.close()
    stream = ["--stream", stream_of(nats_node, request)]
    address = f"nats://{nats_node.url}"
    assert main(["store", "import", str(tmp_path / "tables"), address, *stream]) == 0
    out = tmp_path / "out"
    assert main(["store", "export", address, str(out), *stream]) == 0
    assert [path.name for path in out.iterdir()] == [f"{table}.starhall"]
    data = (out / f"{table}.starhall").read_bytes()
    assert data == (tmp_path / "tables" / f"{table}.starhall").read_bytes()
    assert token.encode() not in data and b"token_hash" in data
    assert hashlib.sha256(token.encode()).hexdigest().encode() not in data


def test_an_older_folders_seating_file_imported_moves_into_the_log(
        nats_node: NatsNode, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A folder of a server from before seating records: its log names nobody, its seating
    file has Ada's seat and her token's unsalted hash. Imported, the file waits in the
    seating bucket; the first node that serves the table records it in the log, owners and
    all, forgets the bucket's copy, and Ada's token holds her seat."""
    import json

    from starhall.server.embed import EmbeddedServer
    from starhall.server.seats import token_hash
    from starhall.server.store_cli import open_store
    from starhall.shared.games import get_game
    from starhall.shared.replay import load
    from starhall.shared.table import Table
    from tests.nats_helpers import jetstream_settings
    from tests.server_helpers import Participant

    folder = tmp_path / "in"
    folder.mkdir()
    made = Table.new(get_game("hearts"), 4, {}, path=str(folder / "0001.starhall"), name="old")
    assert made.log is not None
    made.log.close()
    token = "an-older-servers-token-0123"
    free = {"state": "free", "name": None, "token_sha256": None, "bot": None,
            "standin": False, "since": 0}
    (folder / "0001.seats.json").write_text(json.dumps({"name": "old", "seats": [
        {**free, "state": "player", "name": "Ada", "token_sha256": token_hash(token)},
        free, free, free]}))
    settings = jetstream_settings(nats_node, request.node.name)
    stream = ["--stream", str(settings["stream"])]
    address = f"nats://{nats_node.url}"
    assert main(["store", "import", str(folder), address, *stream]) == 0
    for _ in range(2):  # moved at the first start; the log alone at the second
        with EmbeddedServer(tmp_path / "node", think=60.0, **settings) as server:
            assert server.address is not None
            ada = Participant(server.address, "Ada")
            back = ada.request({"type": "resume", "table": "0001", "seat": 0, "token": token})
            assert back["type"] == "seated", back
            ada.close()
    exported = tmp_path / "back.starhall"
    assert main(["replay", "export", f"{address}/0001", str(exported), *stream]) == 0
    assert load(exported).seats_at()[0]["owner"]["token_hash"] == token_hash(token)
    store, _ = open_store(address, str(settings["stream"]))
    try:
        assert store.legacy_seating("0001", 4) is None  # the bucket's copy is gone
    finally:
        store.close()
