"""The ``starhall`` command line, run as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from starhall.cli import main
from starhall.server.sim import simulate
from starhall.shared.games import get_game
from starhall.shared.replay import load


def test_sim_writes_one_log_per_game_and_a_summary(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sim", "hearts", "--players", "5", "--games", "2", "--seed", "4", "--quiet",
                 "--bots", "heuristic,random,random,random,random", "--option", "target=40",
                 "--out", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    assert "games 2" in out and "wins" in out and "hands" in out
    logs = sorted(tmp_path.glob("*.starhall"))
    assert len(logs) == 2
    recording = load(logs[0])
    assert recording.players == 5
    names = [seat["name"] for seat in recording.header["seats"]]
    assert len(set(names)) == 5 and names[0] == "Ada (heuristic)" and names[1] == "Bruno (random)"


def test_sim_rotates_mixed_bots_and_sums_up_each_kind(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "hearts", "--players", "3", "--games", "3", "--quiet", "--option",
                 "target=30", "--bots", "heuristic,random,random", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "by bot kind" in out and "heuristic" in out
    first_seats = [load(log).header["seats"][0]["bot"] for log in sorted(tmp_path.iterdir())]
    assert first_seats == ["heuristic", "random", "random"]


def test_sim_without_logs_gives_the_same_summary_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    command = ["sim", "what_else", "--players", "3", "--games", "3", "--quiet", "--bots",
               "heuristic,random,random"]
    assert main([*command, "--no-logs"]) == 0
    *summary, last = capsys.readouterr().out.splitlines()
    assert last == "logs: none written (--no-logs)" and not list(tmp_path.iterdir())
    assert main(command) == 0
    *logged, last = capsys.readouterr().out.splitlines()
    assert logged == summary and last == "logs: 3 in replays/sim/"
    assert len(list((tmp_path / "replays" / "sim").glob("*.starhall"))) == 3
    assert main([*command, "--no-logs", "--out", "elsewhere"]) == 2
    assert "not allowed with" in capsys.readouterr().err


def test_sim_counts_a_tie_apart_from_the_wins(capsys: pytest.CaptureFixture[str]) -> None:
    """A game two seats won together is a tie, not a win for both: the summary's wins, its
    tie rate and ``Summary.wins`` all say so, so wins and ties add up to the games."""
    games = 8
    summary, _ = simulate(get_game("stars_and_bars"), 2, {}, games, 0, "greedy", None)
    tied = summary.ties[0]
    assert tied == summary.ties[1] > 0  # these greedy games hold ties
    assert sum(summary.wins) + tied == games
    lines = summary.lines()
    assert row(lines, "wins") == [str(wins) for wins in summary.wins]
    assert row(lines, "tie rate") == [f"{tied / games:.1%}"] * 2


def row(lines: list[str], label: str) -> list[str]:
    """The cells of the summary's first row named ``label``."""
    found = next(line for line in lines if line.startswith(f"{label}  "))
    return found[len(label):].split()


def test_sim_twice_gives_the_same_events(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        main(["sim", "hearts", "--games", "2", "--seed", "9", "--quiet",
              "--out", str(tmp_path / folder)])
    first = [p.read_bytes() for p in sorted((tmp_path / "a").iterdir())]
    second = [p.read_bytes() for p in sorted((tmp_path / "b").iterdir())]
    assert first == second


def test_replay_verify_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["sim", "hearts", "--games", "1", "--quiet", "--option", "target=30",
          "--out", str(tmp_path)])
    capsys.readouterr()
    assert main(["replay", "verify", str(tmp_path)]) == 0
    assert "1 log(s) verified" in capsys.readouterr().out
    (log,) = tmp_path.glob("*.starhall")
    assert main(["replay", "show", str(log), "--json"]) == 0
    final = json.loads(capsys.readouterr().out)
    assert final["game"] == "hearts" and final["over"] is True
    assert len(final["scores"]) == 4 and final["winners"]
    assert main(["replay", "show", str(log), "--at", "20", "--seat", "2", "--json"]) == 0
    early = json.loads(capsys.readouterr().out)
    assert early["seq"] == 20 and early["over"] is False and early["winners"] is None
    assert "hand" in early["view"] and "hands" not in early["view"]
    assert main(["replay", "show", str(log), "--at", "20", "--seat", "all", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["view"]["hands"]) == 4
    assert main(["replay", "show", str(log), "--at", "20"]) == 0
    assert "after event 20" in capsys.readouterr().out


def test_bad_input_gets_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "hearts", "--players", "9", "--quiet", "--out", str(tmp_path)]) == 2
    assert "3 to 6 players" in capsys.readouterr().err
    assert main(["sim", "hearts", "--option", "mode", "--out", str(tmp_path)]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["sim", "hearts", "--bots", "genius", "--quiet", "--out", str(tmp_path)]) == 2
    assert "no bot" in capsys.readouterr().err
    junk = tmp_path / "junk.starhall"
    junk.write_bytes(b"not a log")  # no log at all: a mistake in what was named
    assert main(["replay", "verify", str(junk)]) == 2
    assert "junk.starhall is not a Starhall log" in capsys.readouterr().err
    assert main(["replay", "show", str(tmp_path / "missing.starhall")]) == 2
    assert main(["replay", "verify", str(tmp_path / "empty-folder-that-is-missing")]) == 2


def test_play_in_the_terminal_writes_its_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["play", "hearts", "--terminal", "--option", "target=20"]) == 0
    out = capsys.readouterr().out
    assert "trick" in out and "game over" in out
    (log,) = (tmp_path / "replays" / "terminal").glob("*.starhall")
    assert str(log.relative_to(tmp_path)) in out
