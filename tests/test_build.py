"""The engines' two builds: compiled by mypyc at install, and pure Python. They must play the
same games, and a source edited after compiling must never be shadowed by its older build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from starhall import shared

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], *, pure: bool) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "STARHALL_PURE_PYTHON"}
    if pure:
        env["STARHALL_PURE_PYTHON"] = "1"
    return subprocess.run([sys.executable, *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, check=True)


def test_pure_python_runs_on_request() -> None:
    # The server's compiled modules follow the engines' build, even imported first.
    # The module written in C is not run either: its Python stand-in is.
    script = ("import starhall.server.service as s; "
              "import starhall.shared.games.hearts.rules as h; from starhall import shared; "
              "from starhall.server import durability as d; "
              "print(shared.build(), h.__file__, s.__file__, "
              "d.BackgroundSync.__name__, sep='|')")
    build, *paths, syncer = run(["-c", script], pure=True).stdout.strip().split("|")
    assert build == "pure Python"
    assert [Path(path).name for path in paths] == ["rules.py", "service.py"]
    assert syncer == "SyncWhenWaited"
    if shared.build() == "compiled":  # and the compiled build runs both compiled
        build, *paths, syncer = run(["-c", script], pure=False).stdout.strip().split("|")
        assert not any(path.endswith(".py") for path in paths)
        assert syncer == "BackgroundSync"


def test_the_build_is_found_from_any_folder(tmp_path: Path) -> None:
    # As a console script runs it: the repository is not on sys.path, only the installed
    # packages are, so the compiled library must live inside one.
    script = "from starhall import shared; print(shared.build())"
    done = subprocess.run([sys.executable, "-c", script],
                          cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == shared.build()


def test_both_builds_play_the_same_games(tmp_path: Path) -> None:
    logs = {}
    for pure in (False, True):
        out = tmp_path / str(pure)
        for game in ("hearts", "stars"):
            run(["-m", "starhall", "sim", game, "--games", "2", "--seed", "11", "--quiet",
                 "--bots", "heuristic,random,random,random", "--out", str(out / game)],
                pure=pure)
        logs[pure] = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*.starhall"))}
    assert len(logs[True]) == 4
    assert logs[False] == logs[True]


def test_pure_python_verifies_the_golden_replays() -> None:
    done = run(["-m", "starhall", "replay", "verify", "replays/golden"], pure=True)
    assert done.stdout.strip().endswith("log(s) verified")


def test_a_build_is_stale_when_a_source_differs_from_what_was_compiled(tmp_path: Path) -> None:
    suffix = EXTENSION_SUFFIXES[0]
    for folder in ("shared/games/hearts", "server"):
        (tmp_path / folder).mkdir(parents=True)
    fresh_source, fresh_build = tmp_path / "shared/cards.py", tmp_path / f"shared/cards{suffix}"
    edited_source = tmp_path / "shared/games/hearts/rules.py"
    old_build = tmp_path / "shared/games/hearts" / f"rules{suffix}"
    server_source = tmp_path / "server/service.py"
    server_build = tmp_path / f"server/service{suffix}"
    c_source = tmp_path / "server/background_sync.c"  # a module written in C
    c_build = tmp_path / f"server/background_sync{suffix}"
    for path in (fresh_source, fresh_build, edited_source, old_build, server_source,
                 server_build, c_source, c_build):
        path.write_text("x = 1\n")
    # Everything compiled has no record yet: every compiled source counts as stale.
    assert shared.stale_builds(tmp_path) == [fresh_source, edited_source, c_source,
                                             server_source]
    record = {"shared/cards.py": shared.source_digest(fresh_source),
              "shared/games/hearts/rules.py": shared.source_digest(edited_source),
              "server/service.py": shared.source_digest(server_source),
              "server/background_sync.c": shared.source_digest(c_source)}
    (tmp_path / "shared" / shared.BUILD_RECORD).write_text(json.dumps({"sources": record}))
    # File times say nothing (a wheel's install gives every file a new one) ...
    os.utime(fresh_source, (9_000, 9_000))
    os.utime(fresh_build, (1_000, 1_000))
    assert shared.stale_builds(tmp_path) == []
    # ... content does, in the server's compiled modules too.
    edited_source.write_text("x = 2\n")
    server_source.write_text("x = 2\n")
    assert shared.stale_builds(tmp_path) == [edited_source, server_source]
    c_source.write_text("int x = 2;\n")
    assert shared.stale_builds(tmp_path) == [edited_source, c_source, server_source]
    (tmp_path / "shared" / shared.BUILD_RECORD).write_text("{not json")
    assert shared.stale_builds(tmp_path) == [fresh_source, edited_source, c_source,
                                             server_source]
