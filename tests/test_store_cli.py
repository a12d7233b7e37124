"""The tools on tables kept in NATS JetStream, on a real nats-server: ``store import`` and
``store export`` move logs in and out losslessly (replay verify and a byte comparison);
``replay export``, ``verify`` and ``show`` read a ``nats://…/TABLE`` address; a bad or
unreachable address is one line on stderr, never a traceback."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from starhall.cli import main
from starhall.server.embed import free_loopback_port
from starhall.shared.logfile import encode_record, read_records
from starhall.shared.table import state_hash
from tests.connection import Connection
from tests.nats_helpers import NatsNode, jetstream_settings, wait_for_port

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
    assert main(["replay", "verify", table, *stream]) == 0
    assert main(["replay", "show", table, *stream]) == 0
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


def test_a_log_that_fails_verify_is_not_imported_and_says_so_in_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A checkpoint the engine disagrees with (as after a rule change) stops the import before
    any store is asked: the address here has nobody behind it."""
    folder = tmp_path / "in"
    folder.mkdir()
    log = folder / f"{LOGS[0]}.starhall"
    records, _ = read_records((GOLDEN / log.name).read_bytes(), log)
    altered = [body["seq"] for _, body in records if body.get("kind") == "checkpoint"][1]
    out = bytearray()
    for _, body in records:
        if body.get("kind") == "checkpoint" and body["seq"] == altered:
            state = {**body["state"], "totals": [t + 1 for t in body["state"]["totals"]]}
            body = {**body, "state": state, "hash": state_hash(state)}
        out += encode_record(body)
    log.write_bytes(bytes(out))
    nobody = f"nats://127.0.0.1:{free_loopback_port()}"
    assert main(["store", "import", str(folder), nobody]) == 2
    err = capsys.readouterr().err
    assert err == (f"starhall: {log}: does not pass replay verify (the rebuilt game differs "
                   f"from its checkpoint after event {altered}); nothing of it was moved\n")


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
    restoring = re.compile(rf"starhall serve: restor(ing|ed) 1 tables? from {address}…?")
    assert all(restoring.fullmatch(line) for line in stderr.splitlines()), stderr
