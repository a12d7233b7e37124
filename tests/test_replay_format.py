"""docs/replay-format.md against the engines: every game has its entry in section 5, naming
its rules version, every option in the header with its type and default, every event type
with every data key real logs hold, and every key of its checkpoints' snapshots in order; and
section 6 maps every event to its command as the engine does."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from starhall.shared.engine import Game
from starhall.shared.games import GAMES, get_game
from starhall.shared.replay import load, log_files

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "replay-format.md").read_text(encoding="utf-8")
GOLDEN = ROOT / "replays" / "golden"


def section(number: int) -> str:
    start = DOC.index(f"\n## {number}. ")
    return DOC[start:DOC.index("\n## ", start + 1)]


def entry(game: Game[Any]) -> str:
    """The game's entry in section 5: from its heading to the next."""
    games = section(5)
    heading = re.search(rf"^### .+ — game id `{game.id}`, rules version (\d+)$", games,
                        re.MULTILINE)
    assert heading is not None, f"section 5 has no entry for {game.id}"
    assert int(heading.group(1)) == game.rules_version, game.id
    end = games.find("\n### ", heading.end())
    return games[heading.end():end if end >= 0 else len(games)]


def recorded(game_id: str) -> tuple[dict[str, set[str]], list[list[str]]]:
    """Every data key each event type has in the golden replays of the game, and the key
    lists of their checkpoints' snapshots."""
    data_keys: dict[str, set[str]] = defaultdict(set)
    snapshots: list[list[str]] = []
    for path in log_files([str(GOLDEN)]):
        if not path.name.startswith(f"{game_id}_") or not re.match(
                rf"{game_id}_\d+p", path.name):
            continue
        recording = load(path)
        for _, event in recording.events:
            data_keys[event.type] |= set(event.data)
        snapshots += [list(checkpoint.state) for checkpoint in recording.checkpoints.values()]
    assert snapshots, f"no golden replay of {game_id}"
    return data_keys, snapshots


def shown_default(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f"`{value}`" if isinstance(value, str) else str(value)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_has_an_entry_with_its_options_events_and_snapshot(game_id: str) -> None:
    game = get_game(game_id)
    text = entry(game)
    if game.option_specs:
        for spec in game.option_specs:
            row = (f"| `{spec.name}` | {spec.kind.__name__} | {shown_default(spec.default)} |")
            assert row in text, f"{game_id}: no options row {row!r}"
    else:
        assert "the header's `options` is `{}`" in text, game_id
    data_keys, snapshots = recorded(game_id)
    rows = {match.group(1): match.group(0)
            for match in re.finditer(r"^\| `(\w+)` \|.*$", text, re.MULTILINE)}
    for event_type in game.event_commands:
        assert event_type in rows, f"{game_id}: no row for event {event_type}"
        for key in data_keys.get(event_type, ()):
            assert f"`{key}`" in rows[event_type], f"{game_id} {event_type}: no {key}"
    assert set(data_keys) <= set(game.event_commands)
    snapshot = text[text.index("**Snapshot**"):]
    for keys in snapshots:
        at = 0
        for key in keys:  # each key named, after the one before it
            found = snapshot.find(f"`{key}`", at)
            assert found >= 0, f"{game_id}: the snapshot's {key!r} is missing or out of order"
            at = found + len(key) + 2


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_section_6_maps_every_event_to_its_command(game_id: str) -> None:
    game = get_game(game_id)
    row = re.search(rf"^\| `{game_id}` \| (.+) \|$", section(6), re.MULTILINE)
    assert row is not None, f"section 6 has no row for {game_id}"
    pairs = dict(re.findall(r"`(\w+)` → `(\w+)`", row.group(1)))
    assert pairs == dict(game.event_commands)


def test_section_3_names_each_games_shuffle_event() -> None:
    chance = section(3)
    for game_id in GAMES:
        game = get_game(game_id)
        shuffle = [kind for kind, command in game.event_commands.items() if command == "shuffle"]
        assert len(shuffle) == 1
        named = re.search(rf"`{shuffle[0]}` in ([^—]+?)(?:, `\w+` in|\s+—)", chance)
        assert named is not None and f"`{game_id}`" in named.group(1), game_id


# --- what the doc says a reader does, against what the program does ---------------------------


def words(text: str) -> str:
    return " ".join(text.split())


def test_section_1_says_how_a_file_that_is_no_log_and_an_empty_file_are_answered(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from starhall.cli import main

    damage = words(section(1))
    readme = tmp_path / "README.starhall"
    readme.write_bytes(b"# Not a log\n")
    empty = tmp_path / "empty.starhall"
    empty.write_bytes(b"")
    assert "`FILE is not a Starhall log (nor a bug report)` and exits 2" in damage
    assert ("`record 0 (byte 0): no header: the file is empty or not a Starhall log`"
            in damage)
    for command in ("verify", "show"):
        capsys.readouterr()
        assert main(["replay", command, str(readme)]) == 2
        assert capsys.readouterr().err == (
            f"starhall: {readme} is not a Starhall log (nor a bug report)\n")
        assert main(["replay", command, str(empty)]) == 1
        said = capsys.readouterr()
        assert (f"{empty}: record 0 (byte 0): no header: the file is empty or not a Starhall "
                "log\n") in said.out + said.err


def test_section_2_says_what_a_format_1_seat_named_seat_n_reads_as(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from starhall.cli import main
    from starhall.shared.logfile import encode_record, read_records

    source = GOLDEN / "hearts_4p_deck-classic.starhall"
    records, _ = read_records(source.read_bytes(), source)
    header = {**records[0][1], "seats": [{"name": f"Seat {n}"} for n in range(4)]}
    assert header["format"] == 1
    old = tmp_path / "old.starhall"
    old.write_bytes(b"".join(encode_record(body)
                             for body in [header, *(body for _, body in records[1:])]))
    assert main(["replay", "show", str(old), "--at", "3"]) == 0
    shown = capsys.readouterr().out
    assert "seat 2: not recorded" in shown
    assert "`seat N: not recorded`" in words(section(2))


def test_section_1_says_a_log_may_end_mid_game_and_verify_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from starhall.cli import main
    from starhall.shared.logfile import read_records

    source = GOLDEN / "hearts_4p_deck-classic.starhall"
    data = source.read_bytes()
    records, _ = read_records(data, source)
    mid = tmp_path / "mid.starhall"
    mid.write_bytes(data[:records[40][0]])  # the header and 39 events, whole
    assert main(["replay", "verify", str(mid)]) == 0
    assert capsys.readouterr().out.startswith(
        f"ok {mid}: 39 events, 0 checkpoints, game in progress\n")
    order = words(section(1))
    assert "may **end after any record**, the game over or not" in order
    assert "`replay verify` says `game in progress`" in order
