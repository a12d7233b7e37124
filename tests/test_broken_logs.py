"""The corpus of broken logs (``tests/broken_logs.py``): every case is refused exactly where it
breaks, with the right reason, and no ``starhall replay`` subcommand prints a traceback on it."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from starhall.cli import main
from starhall.shared.games import GAMES
from starhall.shared.logfile import LogError, NoLogInside, NotALog
from starhall.shared.replay import IllegalEvent, Mismatch, load, verify
from tests.broken_logs import ILLEGAL, LOG, MISMATCH, NOT_LOG, Case, write_corpus

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

ROOT = Path(__file__).resolve().parent.parent
FOLDER = Path(tempfile.mkdtemp(prefix="starhall-broken-logs-"))
atexit.register(shutil.rmtree, FOLDER, True)
CASES = write_corpus(FOLDER)
atexit.register(shutil.rmtree, FOLDER.with_name(FOLDER.name + "-known-issues"), True)
REFUSED = [case for case in CASES if case.refusal != MISMATCH]
"""Cases no reader may open: an illegal event or a damaged file."""


def _id(case: Case) -> str:
    return case.file.stem


@pytest.fixture(autouse=True)
def _headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


def test_the_corpus_covers_every_game_with_rule_breaks_and_damage() -> None:
    assert len(CASES) >= 30
    for game in GAMES:
        kinds = {case.refusal for case in CASES if case.game == game}
        assert {ILLEGAL, LOG, MISMATCH} <= kinds <= {ILLEGAL, LOG, MISMATCH, NOT_LOG}, game
    assert {case.name for case in CASES if case.refusal == NOT_LOG} == {
        "not-a-starhall-log", "garbage"}
    for game in ("stars", "hearts"):
        assert sum(case.game == game and case.refusal == ILLEGAL for case in CASES) >= 15
    assert len({case.file for case in CASES}) == len(CASES)


def refusal(case: Case) -> LogError:
    with pytest.raises(LogError) as refused:
        verify(case.file)
    return refused.value


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_verify_refuses_each_case_where_it_breaks(case: Case) -> None:
    if case.refusal == MISMATCH:
        result = verify(case.file)
        assert isinstance(result, Mismatch)
        assert (result.path, result.seq, result.agreed) == (case.path, case.seq, case.agreed)
        assert case.reason in result.report()
        assert load(case.file).checkpoints[case.seq]  # the checkpoint named is in the file
        return
    error = refusal(case)
    assert (error.record, error.offset) == (case.record, case.offset)
    assert error.path == case.path
    if case.refusal == NOT_LOG:
        assert isinstance(error, NotALog)
        assert str(error) == f"{case.path} is not a Starhall log (nor a bug report)"
        return
    where = f"{case.path}: record {case.record} (byte {case.offset}): "
    assert str(error).startswith(where)
    if case.refusal == LOG:
        # the file, not a rule: no event is named (a report without its log says so)
        assert type(error) is (NoLogInside if case.name == "bug-report-no-log" else LogError)
        assert case.reason in error.problem
        return
    assert isinstance(error, IllegalEvent)
    assert error.seq == case.seq
    assert case.reason in error.reason
    who = "no seat" if error.event.seat is None else f"seat {error.event.seat}"
    assert str(error) == f"{where}event {case.seq} ({error.event.type}, {who}): {error.reason}"
    if not case.path.endswith("#log"):
        # The event named stands at that record and byte, and every event before it is legal.
        recording = load(case.file)
        index = case.seq - 1
        assert (recording.record_number(index), recording.offsets[index]) == (case.record,
                                                                             case.offset)
        assert recording.events[index] == (case.seq, error.event)
        assert case.file.read_bytes()[case.offset] == 0x92
        recording.state_at(case.seq - 1)


def _no_window(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a window was opened for a log that must be refused")


COMMANDS = {
    "verify": lambda path: ["replay", "verify", path],
    "show": lambda path: ["replay", "show", path],
    "show-json": lambda path: ["replay", "show", path, "--json"],
    "diff": lambda path: ["replay", "diff", path, path],
    "view": lambda path: ["replay", "view", path],
}


@pytest.mark.parametrize("case", REFUSED, ids=_id)
def test_every_reader_refuses_in_one_line_without_a_traceback(
        case: Case, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """verify, show, show --json, diff and view: exit 1, the refusal on one line, no window;
    a file that is no log at all is a mistake in the command (exit 2), said on one line."""
    from starhall.client import app

    capsys.readouterr()  # pygame's banner, printed once when it is first imported
    monkeypatch.setattr(app, "open_window", _no_window)
    monkeypatch.setattr(app, "run", _no_window)
    message = str(refusal(case))
    for command, argv in COMMANDS.items():
        code = main(argv(str(case.file)))
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, command
        if case.refusal == NOT_LOG:
            assert (code, out, err) == (2, "", f"starhall: {message}\n"), command
            continue
        if command == "verify" and case.name == "bug-report-no-log":  # nothing wrong with it
            assert (code, err) == (0, ""), out
            assert out == (f"not checked here {case.file}: {refusal(case).problem}\n0 of 1 "
                           "log(s) verified, 1 bug report(s) without their log\n"), out
            continue
        assert code == 1, (command, out + err)
        if command == "verify":
            assert (out, err) == (f"{message}\n0 of 1 log(s) verified, 1 failed\n", ""), command
        else:
            assert (out, err) == ("", f"starhall: {message}\n"), command


@pytest.mark.parametrize("case", [case for case in CASES if case.refusal == ILLEGAL], ids=_id)
def test_show_at_the_event_before_shows_and_at_the_event_refuses(
        case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    """How a developer looks at the state the illegal event was written in."""
    assert case.seq is not None
    path = str(case.file)
    assert main(["replay", "show", path, "--at", str(case.seq - 1), "--seat", "all"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and f"after event {case.seq - 1} of " in out
    assert main(["replay", "show", path, "--at", str(case.seq), "--json"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"starhall: {refusal(case)}\n")


@pytest.mark.parametrize("case", [case for case in CASES if case.refusal == MISMATCH], ids=_id)
def test_a_desync_fails_verify_with_a_report_and_no_traceback(
        case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "verify", str(case.file)]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{case.path}: the rebuilt game differs from the checkpoint after event " \
                       f"{case.seq}"
    assert all(line.startswith("  ") for line in lines[1:-1])
    assert lines[-1] == "0 of 1 log(s) verified, 1 failed"
    assert case.reason in out
    assert main(["replay", "verify", "--json", str(case.file)]) == 1
    assert '"last_agreeing_checkpoint": ' + str(case.agreed) in capsys.readouterr().out


def test_verify_a_folder_lists_every_file_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    logs = sorted([*FOLDER.glob("*.starhall"), *FOLDER.glob("*.starhall-bug")])
    assert any(log.suffix == ".starhall-bug" for log in logs)
    assert main(["replay", "verify", str(FOLDER)]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err == ""
    for log in logs:
        assert f"{log}" in out, log
    assert out.splitlines()[-1] == (f"0 of {len(logs)} log(s) verified, {len(logs) - 1} failed, "
                                    "1 bug report(s) without their log")


def test_the_script_writes_the_corpus(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "broken_logs.py"),
                           str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == sorted(case.file.name for case in CASES)
    assert done.stdout.splitlines()[-1] == f"{len(CASES)} broken logs in {tmp_path}"
