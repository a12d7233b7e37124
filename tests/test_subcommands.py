"""Every ``starhall`` subcommand that reads a log, run on every golden replay as a user would:
a command users are told about must never crash untested."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from starhall.cli import main
from starhall.shared.games import GAMES
from starhall.shared.replay import load, log_files

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = log_files([str(ROOT / "replays" / "golden")])


def _ids(path: Path) -> str:
    return path.stem


@pytest.fixture(autouse=True)
def _headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


def _few_frames(monkeypatch: pytest.MonkeyPatch, frames: int = 5) -> list[Any]:
    """Let window commands run their real screen for a few frames, then stop."""
    from starhall.client import app

    screens: list[Any] = []
    real_run = app.run

    def run(screen: Any, frames_: int | None = None) -> int:
        screens.append(screen)
        return real_run(screen, frames=frames)

    monkeypatch.setattr(app, "run", run)
    return screens


def test_there_are_goldens_of_every_game() -> None:
    games = {load(path).game.id for path in GOLDENS}
    assert games == set(GAMES)


@pytest.mark.parametrize("path", GOLDENS, ids=_ids)
def test_every_reading_subcommand_runs_on_every_golden(
        path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    recording = load(path)
    last = recording.last_seq
    middle = last // 2
    assert main(["replay", "verify", str(path)]) == 0
    assert main(["replay", "verify", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert json.loads(out[out.index("{"):])["failed"] == 0
    for seat in ("all", "0", str(recording.players - 1), None):
        arguments = ["replay", "show", str(path), "--at", str(middle)]
        assert main(arguments + ([] if seat is None else ["--seat", seat])) == 0
    capsys.readouterr()
    assert main(["replay", "show", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["seq"] == last and shown["over"]
    assert main(["replay", "diff", str(path), str(path)]) == 0
    screens = _few_frames(monkeypatch)
    assert main(["replay", "view", str(path)]) == 0
    assert screens and screens[0].recording.path == str(path)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err



QUICK_OPTIONS = {"hearts": ["target=20"], "stars": ["target=100"]}
"""Shorter games where a game's default would make the test slow."""


@pytest.mark.parametrize("game", sorted(GAMES))
def test_play_in_the_terminal_runs_every_game(
        game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    options = [argument for pair in QUICK_OPTIONS.get(game, []) for argument in ("--option", pair)]
    assert main(["play", game, "--terminal", *options]) == 0
    out = capsys.readouterr().out
    assert "game over" in out
    (log,) = (tmp_path / "replays" / "terminal").glob("*.starhall")
    assert main(["replay", "verify", str(log)]) == 0


ANALYSED = {load(path).game.id: path for path in GOLDENS}
"""A golden of each game (the last found)."""


@pytest.mark.parametrize("game", sorted(ANALYSED))
def test_replay_analyse_runs_on_a_golden_of_every_game(
        game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / ANALYSED[game].name
    log.write_bytes(ANALYSED[game].read_bytes())
    assert main(["replay", "analyse", str(log), "--think", "0.01", "--seat", "0"]) == 0
    captured = capsys.readouterr()
    assert "seat 0" in captured.out and "kept in" in captured.out
    assert "Traceback" not in captured.out + captured.err
