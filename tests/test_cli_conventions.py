"""The ``starhall`` command keeps the conventions of a command-line tool: help for every command
and argument, ``--version``, a list of the games, one line and exit code 2 for every mistake a
person can type (no tracebacks), no hang without a display, and silence on a closed pipe."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from starhall.cli import build_parser, glued_key_values, main
from starhall.shared.bots import bot_kinds, bot_levels, default_bot, level_of
from starhall.shared.engine import OptionError, player_count
from starhall.shared.games import GAMES
from starhall.shared.replay import load

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

ROOT = Path(__file__).resolve().parent.parent
STARS = ROOT / "replays" / "golden" / "stars_4p.starhall"
WAIT = 120
"""Seconds a subprocess may take before it counts as hung (a guard, not a measurement)."""


@pytest.fixture(autouse=True)
def _headless(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


@pytest.fixture
def no_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command refused before its window would otherwise open one and wait for input."""
    from starhall.client import app

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a window opened for a refused command")

    monkeypatch.setattr(app, "open_window", refuse)
    monkeypatch.setattr(app, "run", refuse)


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
              ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every parser of the command, by the words that reach it (``()`` is ``starhall``)."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


COMMANDS = [path for path, _ in _commands(build_parser())]


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "starhall", *args], capture_output=True,
                          text=True, timeout=WAIT, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _one_line_error(code: int, out: str, err: str) -> str:
    assert "Traceback" not in out + err
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("starhall"), err
    return lines[0]


# --- help and version --------------------------------------------------------------------


def test_every_command_and_argument_says_what_it_is_for() -> None:
    parser = build_parser()
    assert "The ``starhall`` command" not in (parser.description or "")
    assert "``" not in (parser.description or "")  # people read it, not a docs builder
    for path, command in _commands(parser):
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, (path, choice.dest)
                continue
            assert action.help and action.help != argparse.SUPPRESS, (path, action.dest)


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "starhall")
def test_every_command_has_help(path: tuple[str, ...],
                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*path, "--help"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: {' '.join(('starhall', *path))}") and err == ""


@pytest.mark.parametrize("path", [(), ("replay",)], ids=["starhall", "replay"])
def test_a_command_without_its_subcommand_shows_the_help(
        path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(list(path)) == 0
    assert capsys.readouterr().out.startswith("usage: ")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    engines = r"(compiled engines, build [0-9a-f]{12}|pure Python engines)"
    assert re.fullmatch(rf"starhall \S+ \({engines}\)\n", out), out


# --- starhall games ----------------------------------------------------------------------


def test_player_counts_read_as_people_say_them() -> None:
    assert player_count(1, 1) == "1 player"
    assert player_count(4, 4) == "4 players"
    assert player_count(3, 6) == "3 to 6 players"
    for game in GAMES.values():
        with pytest.raises(OptionError) as refused:
            game.make_options(game.max_players + 1)
        assert player_count(game.min_players, game.max_players) in str(refused.value)
        assert f"{game.min_players} to {game.min_players} " not in str(refused.value)


def test_games_lists_every_game_with_its_options_and_bots(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    blocks = {block.split(":", 1)[0]: block for block in out.strip().split("\n\n")}
    assert set(blocks) == set(GAMES)
    for game_id, game in GAMES.items():
        block = blocks[game_id]
        assert f"{game.title}, {player_count(game.min_players, game.max_players)}" in block
        for spec in game.option_specs:
            default = str(spec.default).lower() if spec.kind is bool else str(spec.default)
            assert f"{spec.name}={default}" in block and spec.help.split()[0] in block
        bots = block.rsplit("bots (--bots KIND): ", 1)[1].split("\n")[0].split(", ")
        assert bots == [f"{kind} (default)" if kind == default_bot(game) else kind
                        for kind in bot_kinds(game)]
        levels = block.split("levels (--bots LEVEL): ", 1)[1].split("\n")[0].split(", ")
        assert levels == [f"{level.capitalize()} = {kind}"
                          for level, kind in bot_levels(game).items()]
    assert main(["games", "stars"]) == 0
    assert capsys.readouterr().out.startswith("stars: ")


def test_games_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--json"]) == 0
    listed = {game["id"]: game for game in json.loads(capsys.readouterr().out)["games"]}
    assert set(listed) == set(GAMES)
    for game_id, game in GAMES.items():
        info = listed[game_id]
        assert info["title"] == game.title
        assert (info["min_players"], info["max_players"]) == (game.min_players, game.max_players)
        assert info["players"] == player_count(game.min_players, game.max_players)
        assert [(o["name"], o["default"], o["help"]) for o in info["options"]] == [
            (spec.name, spec.default, spec.help) for spec in game.option_specs]
        assert info["bots"] == list(bot_kinds(game))
        assert info["default_bot"] == default_bot(game)
        assert info["levels"] == bot_levels(game)


def test_levels_are_easy_and_normal_and_strong_where_a_game_has_a_strong_bot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from starhall.shared.games.hearts import strong as hearts_strong

    monkeypatch.chdir(tmp_path)  # the terminal game's log

    assert bot_levels(GAMES["hearts"]) == {"easy": "random", "normal": "heuristic",
                                           "strong": "strong"}
    assert bot_levels(GAMES["stars_and_bars"])["easy"] == "greedy"
    assert bot_levels(GAMES["stars_and_bars"])["normal"] == "lookahead"
    assert bot_levels(GAMES["star_patience"])["strong"] == "strong"
    assert level_of(GAMES["star_patience"], "hint") == "strong"  # strong is hint renamed
    # Strong is offered exactly when the game's BOTS has a strong bot.
    with monkeypatch.context() as patched:
        patched.delitem(hearts_strong.BOTS, "strong")
        assert "strong" not in bot_levels(GAMES["hearts"])
        assert main(["games", "hearts"]) == 0
        assert "Strong" not in capsys.readouterr().out
    assert main(["games", "hearts"]) == 0
    assert "Strong = strong" in capsys.readouterr().out
    assert main(["sim", "hearts", "--quiet", "--bots", "Easy,normal,easy,heuristic",
                 "--option", "target=20", "--out", "sim"]) == 0
    (log,) = (tmp_path / "sim").glob("*.starhall")
    seats = load(log).seats_at(0)
    assert [(seat["bot"], seat.get("level")) for seat in seats if seat] == [
        ("random", "easy"), ("heuristic", "normal"), ("random", "easy"),
        ("heuristic", "normal")]
    assert main(["play", "hearts", "--terminal", "--bots", "normal",
                 "--option", "target=20"]) == 0
    assert "4 heuristic bots" in capsys.readouterr().out


# --- one line, exit code 2 ---------------------------------------------------------------


def _table_mistakes() -> Iterator[list[str]]:
    """Bad ``--players`` and ``--option`` for every command that takes them, every game."""
    for command in (["play"], ["play", "--terminal"], ["sim", "--quiet"]):
        for game_id, game in GAMES.items():
            table = [*command, game_id]
            yield [*table, "--players", "x"]
            yield [*table, "--players", "0"]
            yield [*table, "--players", str(game.max_players + 1)]
            yield [*table, "--option", "no_equals_sign"]
            yield [*table, "--option", "no_such_option=1"]
            checked = [spec for spec in game.option_specs
                       if spec.kind is not str or spec.choices is not None]
            if checked:
                yield [*table, "--option", f"{checked[0].name}=not a value"]


MISTAKES = [
    *_table_mistakes(),
    ["play", "no_such_game"],
    ["sim"],
    ["games", "no_such_game"],
    ["join", "127.0.0.1:notaport"],
    ["join", "127.0.0.1:0"],
    ["join", "tcp://"],
    ["watch", "127.0.0.1:notaport"],
    ["watch", "a host:47474"],
    ["watch", "127.0.0.1:99999", "T1"],
    ["watch"],
    ["serve", "--bind", "127.0.0.1:notaport"],
    ["serve", "--bind", "127.0.0.1:99999"],
    ["serve", "--think", "-1"],
    ["play", "hearts", "--bots", "no_such_bot"],
    ["play", "hearts", "--terminal", "--bots", "Strongest"],
    ["play", "hearts", "--think", "-1"],
    ["sim", "hearts", "--quiet", "--bots", "easy,no_such_bot,easy,easy"],
    ["sim", "hearts", "--quiet", "--think", "-1"],
    ["replay", "show", "missing.starhall"],
    ["replay", "show", str(STARS), "--at", "x"],
    ["replay", "show", str(STARS), "--at", "100000"],
    ["replay", "show", str(STARS), "--seat", "9"],
    ["replay", "view", "missing.starhall"],
    ["replay", "fork", "missing.starhall"],
    ["replay", "diff", "missing.starhall", str(STARS)],
    ["replay", "verify", "missing.starhall"],
    # Checked before any work starts: no progress bar before the refusal, which is one line.
    ["sim", "stars", "--bots", "no_such_bot"],
    ["sim", "stars", "--bots", "random,random,random,no_such_bot"],
    ["sim", "stars", "--out", str(ROOT / "README.md")],
    ["no_such_command"],
    ["--no-such-flag"],
]


@pytest.mark.parametrize("argv", MISTAKES, ids=" ".join)
def test_a_mistake_is_one_line_and_exit_code_2(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, no_window: None) -> None:
    monkeypatch.chdir(tmp_path)  # nothing a refused command might write lands in the repo
    code = main(argv)
    out, err = capsys.readouterr()
    _one_line_error(code, out, err)


DASHED_KEY = "-+:hH:.ajhKa&1Og2$%L6s$)dl>8jGT}0av&nRy9"
"""A server key whose Z85 text begins with ``-``, as one key in 85 does."""


@pytest.mark.parametrize("command", [["join", "127.0.0.1:1"], ["watch", "127.0.0.1:1"],
                                     ["web", "--server", "127.0.0.1:1"]], ids=" ".join)
def test_a_server_key_beginning_with_a_dash_is_taken_as_the_key(command: list[str]) -> None:
    parser = build_parser()
    for written in (["--server-key", DASHED_KEY], [f"--server-key={DASHED_KEY}"]):
        args = parser.parse_args(glued_key_values([*command, *written]))
        assert args.server_key == DASHED_KEY


NOT_LOGS = [["replay", "view", "README.md"], ["replay", "show", "README.md"],
            ["replay", "show", "pyproject.toml", "--json"], ["replay", "fork", "README.md"],
            ["replay", "diff", str(STARS), "README.md"], ["replay", "verify", "README.md"],
            ["replay", "verify", str(STARS.parent), "README.md"]]


@pytest.mark.parametrize("argv", NOT_LOGS, ids=" ".join)
def test_a_file_that_is_no_log_is_a_usage_mistake(
        argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        no_window: None) -> None:
    monkeypatch.chdir(ROOT)
    code = main(argv)
    out, err = capsys.readouterr()
    line = _one_line_error(code, out, err)
    named = next(arg for arg in reversed(argv) if arg.endswith((".md", ".toml")))
    assert line == f"starhall: {named} is not a Starhall log (nor a bug report)"


def test_a_log_folder_that_is_a_file_is_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code = main(["sim", "hearts", "--quiet", "--option", "target=10", "--out",
                 str(blocker / "logs")])
    out, err = capsys.readouterr()
    assert str(blocker) in _one_line_error(code, out, err)


def test_serve_where_it_cannot_listen_is_one_line(tmp_path: Path) -> None:
    """A port already taken, and an address no interface has. In subprocesses: a server that
    did start would run until stopped."""
    taken = zmq.Context.instance().socket(zmq.ROUTER)
    taken.setsockopt(zmq.LINGER, 0)
    try:
        port = taken.bind_to_random_port("tcp://127.0.0.1")
        for bind in (f"127.0.0.1:{port}", "999.1.1.1"):
            done = _run("serve", "--bind", bind, "--beacon", "off", "--data", str(tmp_path))
            line = _one_line_error(done.returncode, done.stdout, done.stderr)
            assert f"--bind {bind}" in line
    finally:
        taken.close()


# --- no display, closed pipes, a quiet start ---------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is an X11 matter")
@pytest.mark.parametrize("argv", [["play", "stars"], ["play", "hearts", "--players", "5"],
                                  ["replay", "view", str(STARS)], ["join", "127.0.0.1"],
                                  ["watch", "127.0.0.1", "T1"]], ids=" ".join)
@pytest.mark.parametrize("display", [None, ":987"], ids=["unset", "unreachable"])
def test_no_display_is_one_line_not_a_hang(argv: list[str], display: str | None,
                                           tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "SDL_AUDIODRIVER")}
    env |= {"PYTHONPATH": str(ROOT), "XDG_RUNTIME_DIR": str(tmp_path)}
    if display is not None:
        env["DISPLAY"] = display
    done = subprocess.run([sys.executable, "-m", "starhall", *argv], capture_output=True,
                          text=True, timeout=WAIT, cwd=tmp_path, env=env)
    line = _one_line_error(done.returncode, done.stdout, done.stderr)
    assert line.startswith("starhall: no display to open a window on: ")
    if argv[0] == "play":
        assert f"`starhall play {argv[1]} --terminal`" in line
    assert not list(tmp_path.rglob("*.starhall"))  # refused before any table started


@pytest.mark.parametrize("argv", [["replay", "show", str(STARS)],
                                  ["replay", "show", str(STARS), "--json", "--seat", "all"],
                                  ["games", "--json"], ["--version"], ["--help"]],
                         ids=" ".join)
def test_a_closed_pipe_is_met_in_silence(argv: list[str]) -> None:
    """Like ``starhall replay show … | head -1``: the reader has gone before the output."""
    reader = subprocess.Popen([sys.executable, "-m", "starhall", *argv], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()
    err = reader.stderr.read()
    reader.stderr.close()
    assert reader.wait(timeout=WAIT) in (0, 141)
    assert err == b""


def test_the_window_opens_no_audio_device() -> None:
    """No sound is played, so none is opened: ALSA prints nine lines when there is no card."""
    script = ("import os; os.environ['PYGAME_HIDE_SUPPORT_PROMPT'] = '1'\n"
              "import pygame\nfrom client.app import open_window\n"
              "open_window((64, 48))\nassert pygame.mixer.get_init() is None\npygame.quit()\n")
    env = {key: value for key, value in os.environ.items() if key != "SDL_AUDIODRIVER"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=WAIT, cwd=ROOT,
                          env={**env, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_python_m_starhall_runs_the_command(tmp_path: Path) -> None:
    # From a folder that is not the checkout: the installed `starhall` package answers.
    done = subprocess.run([sys.executable, "-m", "starhall", "--version"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("starhall "), done.stderr
