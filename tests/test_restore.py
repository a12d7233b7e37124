"""Resuming from a snapshot: ``Game.restore`` is ``snapshot``'s exact inverse for every game
(the golden logs' checkpoints and random playouts: the restored state equals the folded one,
and play goes on from both identically), a snapshot that is no state of the game is refused in
one line, and ``Recording.resume`` starts from a log's last checkpoint (or, when it cannot,
folds the log from its start), reading only its tail (``load_tail``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starhall.shared.engine import Command, Game, SnapshotError
from starhall.shared.games import GAMES
from starhall.shared.logfile import LogError, LogWriter, read_records
from starhall.shared.replay import Recording, load, load_tail
from starhall.shared.shuffle import shuffle_command
from starhall.shared.table import Table, state_hash

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

GOLDEN = Path(__file__).resolve().parent.parent / "replays" / "golden"
GOLDENS = sorted(GOLDEN.glob("*.starhall"))
CONTINUE_STEPS = 150
"""Commands played on from a restored state and from the original, side by side."""


def restored(game: Game[Any], state: Any, players: int, options: Any) -> Any:
    """The state ``restore`` makes of ``state``'s snapshot, packed and unpacked as a log does."""
    snapshot = msgpack.unpackb(msgpack.packb(game.snapshot(state), use_bin_type=True), raw=False)
    return game.restore(snapshot, players, options)


def step(game: Game[Any], state: Any, rng: random.Random) -> Command | None:
    """A random next command: the host's shuffle when the game waits for one."""
    request = game.chance(state)
    if request is not None:
        return shuffle_command(request, rng.randrange(1, 2**40))
    seats = game.to_act(state)
    if not seats:
        return None
    return game.random_action(state, seats[int(rng.random() * len(seats))], rng)


def views(game: Game[Any], state: Any, players: int) -> list[dict[str, Any]]:
    return [game.view(state, viewer) for viewer in (None, *range(players))]


def play_on(game: Game[Any], state: Any, players: int, seed: int) -> list[Any]:
    """What happens over ``CONTINUE_STEPS`` random commands from ``state``: each command's
    events with every seat's view after them."""
    rng = random.Random(seed)
    seen: list[Any] = []
    for _ in range(CONTINUE_STEPS):
        command = step(game, state, rng)
        if command is None:
            break
        events = game.decide(state, command)
        for event in events:
            state = game.evolve(state, event)
        seen.append((events, views(game, state, players)))
    return seen


@pytest.mark.parametrize("path", GOLDENS, ids=[path.stem for path in GOLDENS])
def test_every_golden_checkpoint_restores_to_the_folded_state(path: Path) -> None:
    recording = load(path)
    game = recording.game
    assert recording.checkpoints, "a golden game ends with a checkpoint"
    for seq, state in recording.states(strict=False):
        checkpoint = recording.checkpoints.get(seq)
        if checkpoint is None:
            continue
        state_back = game.restore(checkpoint.state, recording.players, recording.options)
        assert state_back == state, f"after event {seq}"
        assert state_hash(game.snapshot(state_back)) == checkpoint.hash


def test_goldens_cover_every_game() -> None:
    assert {load(path).game.id for path in GOLDENS} == set(GAMES)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 6))
def test_random_playouts_restore_at_every_state_and_play_on_alike(
        game_id: str, seed: int, players: int) -> None:
    """Every state of a random game, not just the checkpoints: restored from its snapshot it
    equals the state, and at each checkpoint play goes on from both alike."""
    game = GAMES[game_id]
    players = min(max(players, game.min_players), game.max_players)
    options = game.make_options(players, {})
    rng = random.Random(seed)
    state = game.new_state(players, options)
    checkpoints = 0
    for _ in range(3000):
        assert restored(game, state, players, options) == state
        if game.is_checkpoint(state) and checkpoints < 3:
            checkpoints += 1
            again = restored(game, state, players, options)
            assert play_on(game, again, players, seed) == play_on(game, state, players, seed)
        command = step(game, state, rng)
        if command is None:
            break
        for event in game.decide(state, command):
            state = game.evolve(state, event)
    assert restored(game, state, players, options) == state


def golden_snapshot(game_id: str) -> tuple[Game[Any], dict[str, Any], int, Any]:
    """The first golden log of the game: its game, last checkpoint's snapshot, players and
    options."""
    path = next(path for path in GOLDENS if load(path).game.id == game_id)
    recording = load(path)
    last = recording.checkpoints[max(recording.checkpoints)]
    return recording.game, dict(last.state), recording.players, recording.options


def refusal(game: Game[Any], snapshot: Any, players: int, options: Any) -> str:
    with pytest.raises(SnapshotError) as caught:
        game.restore(snapshot, players, options)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{game.id} snapshot")
    return message


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_snapshot_that_is_no_state_is_refused_in_one_line(game_id: str) -> None:
    game, snapshot, players, options = golden_snapshot(game_id)
    for key in ("phase", "hands" if "hands" in snapshot else "stock"):
        without = {k: v for k, v in snapshot.items() if k != key}
        assert f"{key} is missing" in refusal(game, without, players, options)
    assert "phase must be" in refusal(game, {**snapshot, "phase": 3}, players, options)
    assert "phase must be one of" in refusal(game, {**snapshot, "phase": "lunch"}, players,
                                             options)
    if "hands" in snapshot:
        hands = [["XX"] + list(snapshot["hands"][0]), *snapshot["hands"][1:]]
        assert "'XX' is not a card" in refusal(game, {**snapshot, "hands": hands}, players,
                                               options)
    # Each field well formed, but one that the others do not give: who is to act follows from
    # the rest in every game.
    message = refusal(game, {**snapshot, "to_act": [0, 0]}, players, options)
    assert "to_act does not follow from the rest" in message
    for nonsense in (None, 7, "state", ["phase"]):
        assert "must be a map" in refusal(game, nonsense, players, options)


# --- Recording.resume: the server's way back in ------------------------------------------------


def long_log(path: Path, hands: int = 6) -> Table[Any]:
    """A log of a Hearts game several hands long and under way (a checkpoint after each
    hand, some plays after the last)."""
    game = GAMES["hearts"]
    table = Table.new(game, 4, {"target": 10_000}, path=str(path))
    rng = random.Random(14)
    finished = 0
    while finished < hands or table.seq % 7:
        command = step(game, table.state, rng)
        assert command is not None
        table.submit(command)
        finished += game.is_checkpoint(table.state)
    assert table.log is not None
    table.log.close()
    return table


def test_resume_starts_from_the_last_checkpoint(tmp_path: Path) -> None:
    table = long_log(tmp_path / "long.starhall")
    recording = load(tmp_path / "long.starhall")
    resumed = recording.resume()
    assert resumed.problem is None
    assert resumed.since == max(recording.checkpoints) > 0
    assert recording.last_seq - resumed.since < 70  # only the last hand's plays are folded
    assert resumed.state == table.state == recording.state_at()


def test_resume_of_a_finished_game_folds_nothing() -> None:
    path = next(path for path in GOLDENS if path.name.startswith("stars_4p"))
    recording = load(path)
    resumed = recording.resume()
    assert resumed.since == recording.last_seq
    assert resumed.state == recording.state_at()


def rewrite_last_checkpoint(path: Path, change: Any) -> None:
    """Write the log again with its last checkpoint's record changed by ``change``."""
    records, _ = read_records(path.read_bytes(), path)
    bodies = [body for _, body in records]
    last = max(i for i, body in enumerate(bodies) if body.get("kind") == "checkpoint")
    change(bodies[last])
    path.unlink()
    writer = LogWriter.create(str(path), bodies[0])
    for body in bodies[1:]:
        writer.append(body)
    writer.close()


@pytest.mark.parametrize("damage", ["old snapshot", "wrong hash"])
def test_resume_folds_the_whole_log_when_the_checkpoint_will_not_do(
        tmp_path: Path, damage: str) -> None:
    """A checkpoint written before snapshots held all they hold now, or not matching its hash,
    is passed over with a reason: the log is folded from its start."""
    path = tmp_path / "long.starhall"
    table = long_log(path)

    def spoil(body: dict[str, Any]) -> None:
        if damage == "old snapshot":
            del body["state"]["out_of_play"]
        else:
            body["hash"] = "0" * 32

    rewrite_last_checkpoint(path, spoil)
    resumed: Any = load(path).resume()
    assert resumed.since == 0 and resumed.state == table.state
    assert resumed.problem is not None and "\n" not in resumed.problem
    assert ("out_of_play is missing" if damage == "old snapshot" else "hash") in resumed.problem


def test_resume_without_a_checkpoint_folds_from_the_start(tmp_path: Path) -> None:
    game = GAMES["hearts"]
    table = Table.new(game, 4, {}, path=str(tmp_path / "short.starhall"))
    rng = random.Random(3)
    for _ in range(20):
        command = step(game, table.state, rng)
        assert command is not None
        table.submit(command)
    assert table.log is not None
    table.log.close()
    recording: Recording = load(tmp_path / "short.starhall")
    assert not recording.checkpoints
    resumed = recording.resume()
    assert resumed.since == 0 and resumed.problem is None and resumed.state == table.state



# --- load_tail: a log read from a checkpoint near its end -----------------------------------


@pytest.mark.parametrize("cids", [False, True])
def test_a_log_read_from_its_tail_resumes_alike(tmp_path: Path, cids: bool) -> None:
    path = tmp_path / "long.starhall"
    table = long_log(path, hands=12)
    whole = load(path)
    tail = load_tail(path, cids=cids)
    assert tail.start == max(whole.checkpoints) > 0  # no command ids: nothing further back
    assert tail.last_seq == whole.last_seq
    assert tail.events == whole.events[tail.start:]
    assert (tail.good_length, tail.last_record, tail.torn) == (
        whole.good_length, whole.last_record, whole.torn)
    assert tail.resume().state == whole.resume().state == table.state
    with pytest.raises(ValueError, match="read from its tail"):
        tail.state_at()


class People:
    """Commands for a table where people hold seats 0 and 1, each sending command ids from a
    counter (seat 1's person gives the seat up now and then: the next one counts from 1
    again), and bots play seats 2 and 3."""

    def __init__(self, game: Game[Any], seed: int) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.counters = [0, 0]

    def next(self, state: Any) -> tuple[Command, int | str | None]:
        command = step(self.game, state, self.rng)
        assert command is not None
        seat = command.seat
        if seat not in (0, 1):
            return command, None
        if seat == 1 and self.rng.random() < 0.002:
            self.counters[1] = 0  # a new person in seat 1
        self.counters[seat] += 1
        cid: int | str = self.counters[seat] if seat == 0 else f"c{self.counters[seat]}"
        return command, cid


def test_a_log_read_for_its_command_ids_remembers_exactly_what_the_table_did(
        tmp_path: Path) -> None:
    """Wherever the log is cut (a crash), reading it from its tail for the command ids gives
    the memory the table had then, the same ids in the same order (seat 0 makes more than
    1024 moves: its oldest ids were forgotten), and reads no more of it than those need."""
    path = tmp_path / "people.starhall"
    game = GAMES["hearts"]
    table = Table.new(game, 4, {"target": 10_000}, path=str(path))
    assert table.log is not None
    people = People(game, 5)
    cuts = 0
    while table.seq < 6000:
        command, cid = people.next(table.state)
        table.submit(command, cid)
        if table.seq % 397 == 0 or (game.is_checkpoint(table.state)
                                     and table.state.hand_number % 8 == 0):
            table.log.flush()
            recording = load_tail(path, cids=True)
            assert recording.holds_cids and recording.last_seq == table.seq
            assert recording.command_memory().seats == table.commands.seats, table.seq
            needed = recording.checkpoints[max(recording.checkpoints)].cids_from
            assert needed is not None
            if recording.start:  # from the last checkpoint before the first id it needs
                assert recording.start < needed
                assert not [seq for seq in recording.checkpoints
                            if recording.start < seq < needed]
            cuts += 1
    assert len(table.commands.seats[0]) == 1024 and cuts > 20
    assert load_tail(path, cids=True).start > 0  # read from a checkpoint, not whole
    assert load_tail(path).start == max(load(path).checkpoints)


def test_a_log_from_before_cids_from_is_read_whole_for_its_command_ids(tmp_path: Path) -> None:
    """Checkpoints written before they said ``cids_from``: every event is read."""
    path = tmp_path / "people.starhall"
    game = GAMES["hearts"]
    table = Table.new(game, 4, {"target": 10_000}, path=str(path))
    people = People(game, 6)
    while table.seq < 800 or table.seq % 5:
        table.submit(*people.next(table.state))
    assert table.log is not None
    table.log.close()
    records, _ = read_records(path.read_bytes(), path)
    bodies = [{k: v for k, v in body.items() if k != "cids_from"} for _, body in records]
    path.unlink()
    writer = LogWriter.create(str(path), bodies[0])
    for body in bodies[1:]:
        writer.append(body)
    writer.close()
    old = load_tail(path, cids=True)
    assert old.start == 0 and old.command_memory().seats == table.commands.seats
    assert load_tail(path).start == max(old.checkpoints)  # its state: from the last one


def test_a_log_without_checkpoints_is_read_whole_by_load_tail(tmp_path: Path) -> None:
    path = tmp_path / "short.starhall"
    game = GAMES["hearts"]
    table = Table.new(game, 4, {}, path=str(path))
    table.shuffle(5)
    assert table.log is not None
    table.log.close()
    recording = load_tail(path)
    assert recording.start == 0 and recording.last_seq == 1 and not recording.checkpoints


def test_a_damaged_tail_is_reported_as_load_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "long.starhall"
    long_log(path)
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # inside the last record: its checksum no longer matches
    path.write_bytes(bytes(data))
    with pytest.raises(LogError) as by_load:
        load(path)
    with pytest.raises(LogError) as by_tail:
        load_tail(path)
    assert str(by_tail.value) == str(by_load.value)
