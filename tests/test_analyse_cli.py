"""``starhall replay analyse``: the costliest decisions in words, a progress bar, the analysis
kept beside the log (and read from there the next time), and bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from starhall.cli import main
from starhall.shared.analysis_cache import cache_path

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"


@pytest.fixture
def log(tmp_path: Path) -> Path:
    copy = tmp_path / "hearts.starhall"
    copy.write_bytes((GOLDEN / "hearts_4p_mode-exchange.starhall").read_bytes())
    return copy


def test_the_costliest_decisions_in_words_kept_beside_the_log(
        log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "analyse", str(log), "--think", "0.02"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "Stardeck Hearts" in lines[0]
    for seat in range(4):
        assert any(line.startswith(f"seat {seat}: ") for line in lines)
    costs = [line for line in lines if "cost about" in line]
    assert costs and all(line.startswith("  hand ") and " points this hand (± " in line
                         and "would have kept them" in line for line in costs)
    assert "analysing" in captured.err and "move" in captured.err  # tqdm's bar
    assert lines[-1] == f"kept in {cache_path(log)}"
    kept = json.loads(cache_path(log).read_text())
    assert set(kept["analyses"]["v3,think=0.02,worlds=None,seed=0"]) == {"0", "1", "2", "3"}
    # The second time it is read back, no bar, the same lines.
    assert main(["replay", "analyse", str(log), "--think", "0.02"]) == 0
    again = capsys.readouterr()
    assert again.out.splitlines()[:-1] == lines[:-1] and "analysing" not in again.err
    assert again.out.splitlines()[-1] == f"read from {cache_path(log)}"


def test_one_seat_as_json(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "analyse", str(log), "--think", "0", "--seat", "2", "--json",
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert list(data["seats"]) == ["2"] and captured.err == ""
    decisions = data["seats"]["2"]["decisions"]
    assert decisions and all(decision["seat"] == 2 for decision in decisions)


def test_a_cache_that_cannot_be_written_still_prints(
        log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache_path(log).mkdir()  # in its place a folder: no file can be written there (root too)
    assert main(["replay", "analyse", str(log), "--think", "0", "--seat", "1"]) == 0
    captured = capsys.readouterr()
    assert "seat 1: " in captured.out
    assert captured.out.splitlines()[-1].startswith(f"not cached: {cache_path(log)} cannot be "
                                                    "written")
    assert "Traceback" not in captured.out + captured.err


def test_a_changed_log_is_analysed_afresh(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "analyse", str(log), "--think", "0", "--seat", "0", "--quiet"]) == 0
    log.write_bytes((GOLDEN / "hearts_4p_mode-no_exchange.starhall").read_bytes())
    capsys.readouterr()
    assert main(["replay", "analyse", str(log), "--think", "0", "--seat", "0", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("kept in")


@pytest.mark.parametrize(("arguments", "code", "message"), [
    (["missing.starhall"], 2, "missing.starhall: No such file or directory"),
    (["--seat", "7"], 2, "--seat takes a seat 0 to 3, not 7"),
    (["--think", "-1"], 2, "--think takes 0 to 60 seconds, not -1"),
    (["--count", "0"], 2, "--count takes 1 or more, not 0"),
])
def test_bad_input_gets_one_line(log: Path, arguments: list[str], code: int, message: str,
                                 capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(log.parent)
    named = [] if arguments[0].endswith(".starhall") else [log.name]
    assert main(["replay", "analyse", *named, *arguments]) == code
    err = capsys.readouterr().err
    assert err == f"starhall: {message}\n"


def test_not_a_log_and_a_game_without_a_strong_bot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    assert main(["replay", "analyse", str(other)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    from starhall.shared import analysis

    with monkeypatch.context() as patched:  # every game has one today
        patched.setattr(analysis, "bot_kinds", lambda game: {})
        assert main(["replay", "analyse", str(GOLDEN / "stars_4p.starhall")]) == 2
    assert capsys.readouterr().err == ("starhall: Stars (White Star) has no strong bot to "
                                       "analyse its moves with\n")
    broken = tmp_path / "broken.starhall"
    data = (GOLDEN / "stars_4p.starhall").read_bytes()
    broken.write_bytes(data[:len(data) // 2] + b"\xff" * 40 + data[len(data) // 2 + 40:])
    assert main(["replay", "analyse", str(broken)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("starhall: ")
