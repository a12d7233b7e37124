"""Each game's view has a type (a ``TypedDict`` in its rules module) that the engine returns
and the bots and the client read, so that a misspelt key is a type error. Here: the types say
what the engines really put in a view, seat's and spectator's, over random games, key for key
both ways (a key a view holds is declared, and a declared key turns up in some view), and
mypy refuses a misspelt key."""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
import types
from functools import cache
from pathlib import Path
from typing import (
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

import pytest

from starhall.shared.engine import Game
from starhall.shared.games import get_game
from starhall.shared.table import Table

ROOT = Path(__file__).resolve().parent.parent


def _types_of(game: str) -> types.ModuleType:
    """A game's rules module read from its Python source, whatever build runs: compiled by
    mypyc, a TypedDict keeps only the keys it declares itself, not those it inherits."""
    spec = importlib.util.spec_from_file_location(
        f"_typed_views_{game}", ROOT / "shared" / "games" / game / "rules.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


HeartsView = _types_of("hearts").HeartsView
StarPatienceView = _types_of("star_patience").StarPatienceView
StarsView = _types_of("stars").StarsView
StarsAndBarsView = _types_of("stars_and_bars").StarsAndBarsView
WhatElseView = _types_of("what_else").WhatElseView


@cache
def _fields(typed: Any) -> dict[str, tuple[Any, bool]]:
    """Each key of a TypedDict: its type and whether it is required. (Worked out from the
    hints: with postponed annotations, Python 3.11's ``__required_keys__`` takes every
    ``NotRequired`` key for a required one.)"""
    fields = {}
    for key, hint in get_type_hints(typed, include_extras=True).items():
        required = typed.__total__
        while get_origin(hint) in (NotRequired, Required):
            required = get_origin(hint) is Required
            hint = get_args(hint)[0]
        fields[key] = (hint, required)
    return fields


def declared(hint: Any, path: str = "") -> set[str]:
    """Every key path a type declares (``legal.pass.from``, ``tricks[].plays``)."""
    if is_typeddict(hint):
        paths = set()
        for key, (inner, _) in _fields(hint).items():
            paths.add(f"{path}.{key}")
            paths |= declared(inner, f"{path}.{key}")
        return paths
    if get_origin(hint) in (Union, types.UnionType):
        return set().union(*(declared(arm, path) for arm in get_args(hint)))
    if get_origin(hint) is list:
        return declared(get_args(hint)[0], f"{path}[]")
    if get_origin(hint) is dict:
        return declared(get_args(hint)[1], f"{path}{{}}")
    return set()


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the kind ``hint`` names, at its top (a union's arm is chosen by
    it; what is inside is checked by ``check``)."""
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    if is_typeddict(hint):
        return isinstance(value, dict)
    origin = get_origin(hint)
    if origin is Literal:
        return value in get_args(hint)
    if origin is list:
        return isinstance(value, list)
    if origin is dict:
        return isinstance(value, dict)
    if hint is float:
        return type(value) in (int, float)
    return type(value) is hint  # so a bool is no int


def check(value: Any, hint: Any, path: str, seen: set[str]) -> None:
    """``value`` is what ``hint`` says, every key declared and every required key there; the
    key paths met are added to ``seen``."""
    if get_origin(hint) in (Union, types.UnionType):
        arms = [arm for arm in get_args(hint) if _fits(value, arm)]
        assert arms, f"{path}: {value!r} is none of {hint}"
        check(value, arms[0], path, seen)
        return
    assert _fits(value, hint), f"{path}: {value!r} is not {hint}"
    if is_typeddict(hint):
        fields = _fields(hint)
        undeclared = set(value) - set(fields)
        assert not undeclared, f"{path}: keys not declared: {undeclared}"
        missing = {key for key, (_, required) in fields.items() if required} - set(value)
        assert not missing, f"{path}: required keys missing: {missing}"
        for key, item in value.items():
            seen.add(f"{path}.{key}")
            check(item, fields[key][0], f"{path}.{key}", seen)
    elif get_origin(hint) is list:
        for item in value:
            check(item, get_args(hint)[0], f"{path}[]", seen)
    elif get_origin(hint) is dict:
        key_type, value_type = get_args(hint)
        for key, item in value.items():
            check(key, key_type, f"{path}{{}}", seen)
            check(item, value_type, f"{path}{{}}", seen)


def play_viewing(game: Game[Any], players: int, options: dict[str, Any], seed: int,
                 typed: Any, seen: set[str]) -> None:
    """A random game, every seat's view and a spectator's checked at every state."""
    rng = random.Random(seed)
    table = Table.new(game, players, options)
    while True:
        for viewer in (*range(players), None):
            check(game.view(table.state, viewer), typed, "", seen)
        if game.outcome(table.state).over:
            return
        if game.chance(table.state) is not None:
            table.shuffle(rng.randrange(2**40))
            continue
        seat = game.to_act(table.state)[0]
        table.submit(game.random_action(table.state, seat, rng))


PLAYTHROUGHS: dict[str, tuple[Any, list[tuple[int, dict[str, Any]]]]] = {
    "hearts": (HeartsView, [
        (4, {"mode": "exchange", "target": 30}), (5, {"mode": "no_exchange", "target": 30}),
        (3, {"mode": "blind_trick", "target": 30}), (6, {"mode": "blind_trick", "target": 30}),
        (3, {"mode": "anti_trump", "target": 30}), (4, {"deck": "classic", "target": 30}),
        (4, {"pass_cards": 0, "target": 30}),
    ]),
    "stars": (StarsView, [(4, {"target": 60}), (4, {"target": 60, "colored_star": True})]),
    "star_patience": (StarPatienceView, [(1, {}), (1, {"undo": False}), (1, {"deal": 7})]),
    "what_else": (WhatElseView, [(3, {}), (4, {"voluntary_pass": True}),
                                 (6, {"star_table": "spread", "opener": 2})]),
    "stars_and_bars": (StarsAndBarsView, [(2, {}), (2, {})]),
}


@pytest.mark.parametrize("game_id", sorted(PLAYTHROUGHS))
def test_a_games_views_hold_the_keys_its_type_declares_and_no_other(game_id: str) -> None:
    game = get_game(game_id)
    typed, setups = PLAYTHROUGHS[game_id]
    seen: set[str] = set()
    for seed, (players, options) in enumerate(setups * 2):
        play_viewing(game, players, options, seed, typed, seen)
    assert declared(typed) - seen == set(), "declared, never in a view"


def test_the_checker_finds_an_undeclared_a_missing_and_a_mistyped_key() -> None:
    game = get_game("hearts")
    view = game.view(Table.new(game, 4, {}).state, 0)
    check(view, HeartsView, "", set())
    for broken in ({**view, "hand_size": 3}, {key: value for key, value in view.items()
                                               if key != "phase"}, {**view, "phase": 3}):
        with pytest.raises(AssertionError):
            check(broken, HeartsView, "", set())


# --- mypy refuses a misspelt key ----------------------------------------------------------

READERS = {
    "hearts": ("starhall.shared.games.hearts.rules", "hearts_view", "hand_sizes"),
    "stars": ("starhall.shared.games.stars.rules", "stars_view", "widow_count"),
    "star_patience": ("starhall.shared.games.star_patience.rules", "star_patience_view",
                      "stock_count"),
    "what_else": ("starhall.shared.games.what_else.rules", "what_else_view", "draw_count"),
    "stars_and_bars": ("starhall.shared.games.stars_and_bars.rules", "stars_and_bars_view",
                       "discards"),
}


def test_mypy_refuses_a_misspelt_key_of_each_games_view(tmp_path: Path) -> None:
    tree = ROOT / "build" / "package-tree" / "starhall"
    if not tree.exists():  # as the Makefile lays it out for mypy: links, nothing compiled
        subprocess.run([sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"],
                       cwd=ROOT, env={**os.environ, "STARHALL_PURE_PYTHON": "1"}, check=True)
    lines = ["from typing import Any"]
    wrong = {}
    for game_id, (module, reader, key) in READERS.items():
        lines += [f"from {module} import {reader}",
                  f"def read_{game_id}(sent: dict[str, Any]) -> None:",
                  f"    view = {reader}(sent)",
                  f"    print(view[{key!r}])",
                  f"    print(view[{key[:-1]!r}])"]
        wrong[len(lines)] = key[:-1]
    snippet = tmp_path / "reader.py"
    snippet.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "--strict",
         str(snippet)], cwd=ROOT, capture_output=True, text=True)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 1, done.stdout + done.stderr
    assert {int(line.split(":")[1]) for line in errors} == set(wrong), done.stdout
    for line in errors:
        assert f'has no key "{wrong[int(line.split(":")[1])]}"' in line, line
