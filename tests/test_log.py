"""The log codec: records, torn tails, damage, deal numbers and golden replays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from starhall.server.sim import simulate
from starhall.shared.engine import Command, IllegalCommand
from starhall.shared.games import GAMES, get_game
from starhall.shared.logfile import LogError, LogWriter, encode_record, read_records, scan
from starhall.shared.replay import IllegalEvent, Mismatch, Verified, load, log_files, verify
from starhall.shared.shuffle import MAX_SEED, seeded_order, shuffle_command
from starhall.shared.table import state_hash

ROOT = Path(__file__).resolve().parent.parent
HEARTS = get_game("hearts")


@pytest.fixture
def game_log(tmp_path: Path) -> Path:
    _, (path,) = simulate(HEARTS, 4, {"target": 30}, 1, 3, "random", tmp_path)
    return path


def test_a_record_is_body_and_crc_and_plain_msgpack_reads_it() -> None:
    record = encode_record({"kind": "event", "seq": 1})
    body, crc = msgpack.unpackb(record)
    assert body == {"kind": "event", "seq": 1}
    assert record[0] == 0x92 and record[-5] == 0xCE
    import zlib

    assert crc == zlib.crc32(record[1:-5])


def test_deal_numbers_give_the_same_order_everywhere() -> None:
    # A pinned test vector: this order must never change, on any machine or Python version.
    cards = [f"{rank}C" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J")]
    assert seeded_order(cards, 20261120) == seeded_order(cards, 20261120)
    assert seeded_order(cards, 20261120) == [
        "8C", "9C", "10C", "5C", "7C", "2C", "3C", "4C", "JC", "6C"]
    assert seeded_order(cards, 1) != seeded_order(cards, 2)


def mersenne_twister_order(items: list[str], seed: int) -> list[str]:
    """The shuffle as docs/replay-format.md section 3 spells it for other languages, written
    from that text alone: MT19937 seeded by init_by_array with the seed's 32-bit words, least
    significant first; random() is genrand_res53; Fisher-Yates from the last item down."""
    mask = 0xFFFFFFFF
    state = [0] * 624
    state[0] = 19650218
    for i in range(1, 624):
        state[i] = (1812433253 * (state[i - 1] ^ (state[i - 1] >> 30)) + i) & mask
    key = [(seed >> shift) & mask for shift in range(0, max(seed.bit_length(), 1), 32)]
    i, j = 1, 0
    for _ in range(max(624, len(key))):
        state[i] = ((state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1664525))
                    + key[j] + j) & mask
        i, j = i + 1, j + 1
        if i >= 624:
            state[0], i = state[623], 1
        if j >= len(key):
            j = 0
    for _ in range(623):
        state[i] = ((state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1566083941)) - i) & mask
        i += 1
        if i >= 624:
            state[0], i = state[623], 1
    state[0] = 0x80000000
    index = 624

    def word() -> int:
        nonlocal index
        if index >= 624:
            for k in range(624):
                y = (state[k] & 0x80000000) | (state[(k + 1) % 624] & 0x7FFFFFFF)
                state[k] = state[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            index = 0
        y = state[index]
        index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        a, b = word() >> 5, word() >> 6
        j = int((a * 67108864 + b) / 9007199254740992 * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


def test_the_documented_shuffle_is_the_one_deal_numbers_give() -> None:
    """A reader in another language checks a seed by the algorithm the format describes."""
    cards = [f"card {number}" for number in range(65)]
    for seed in (0, 1, 7, 2**32 - 1, 2**32, 2**40 + 3, MAX_SEED):
        assert mersenne_twister_order(cards, seed) == seeded_order(cards, seed), seed


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_shuffle_seed_must_give_its_order_in_every_game(game_id: str) -> None:
    """One rule for every game: a seed, when a shuffle carries one, is a deal number whose
    order the shuffle holds; an order without a seed stands alone (dealt by hand)."""
    game = get_game(game_id)
    state = game.new_state(game.min_players, game.make_options(game.min_players))
    request = game.chance(state)
    assert request is not None
    good = shuffle_command(request, 5)
    number = good.data["seed"]
    order = list(good.data["order"])
    assert game.decide(state, good)[0].data == {"order": order, "seed": number}
    assert game.decide(state, Command("shuffle", None, {"order": order}))[0].data == {
        "order": order}
    swapped = [order[1], order[0], *order[2:]]
    highest = MAX_SEED if request.deals is None else request.deals
    lowest = 0 if request.deals is None else 1
    for data, words in (
            ({"order": order, "seed": number + 1},
             f"the order is not the one deal number {number + 1} gives"),
            ({"order": swapped, "seed": number},
             f"the order is not the one deal number {number} gives"),
            ({"order": order, "seed": lowest - 1},
             f"deal numbers run from {lowest} to {highest}, not {lowest - 1}"),
            ({"order": order, "seed": highest + 1},
             f"deal numbers run from {lowest} to {highest}, not {highest + 1}")):
        with pytest.raises(IllegalCommand) as refused:
            game.decide(state, Command("shuffle", None, data))
        assert (refused.value.code, refused.value.reason) == ("bad_shuffle", words), data


def test_a_whole_game_log_verifies(game_log: Path) -> None:
    result = verify(game_log)
    assert isinstance(result, Verified) and result.over and not result.torn
    assert result.checkpoints >= 2


def test_a_torn_tail_is_dropped_and_truncated_on_reopen(game_log: Path) -> None:
    whole = game_log.read_bytes()
    last_record = scan(game_log).records[-1][0]
    game_log.write_bytes(whole[: last_record + 7])  # a crash in the middle of the last write
    found = scan(game_log)
    assert found.torn and found.good_length == last_record
    assert isinstance(verify(game_log), Verified)
    writer, _ = LogWriter.reopen(game_log)
    writer.close()
    assert game_log.read_bytes() == whole[:last_record]


@pytest.mark.parametrize("where", [0.3, 0.6, 0.9])
def test_a_flipped_byte_is_reported_with_file_and_record(game_log: Path, where: float) -> None:
    data = bytearray(game_log.read_bytes())
    offset = int(len(data) * where)
    data[offset] ^= 0x20
    game_log.write_bytes(bytes(data))
    with pytest.raises(LogError) as damaged:
        load(game_log)
    assert str(game_log) in str(damaged.value)
    assert "record" in str(damaged.value)
    assert damaged.value.offset <= offset


def test_a_file_that_is_not_a_log_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.starhall"
    empty.write_bytes(b"")
    with pytest.raises(LogError, match="empty"):
        scan(empty)
    other = tmp_path / "other.starhall"
    other.write_bytes(encode_record({"kind": "header", "magic": "something else"}))
    with pytest.raises(LogError, match="not a Starhall log"):
        scan(other)
    junk = tmp_path / "junk.starhall"
    junk.write_bytes(b"\xc1" * 10)
    with pytest.raises(LogError):
        scan(junk)


def rewrite_event(path: Path, seq: int, change: dict[str, object]) -> None:
    """Alter one event and re-seal its CRC, as a buggy writer (not a bad disk) would."""
    data = path.read_bytes()
    records, _ = read_records(data, path)
    out = bytearray()
    for _, body in records:
        if body.get("kind") == "event" and body["seq"] == seq:
            body = {**body, **change}
        out += encode_record(body)
    path.write_bytes(bytes(out))


def test_verify_refuses_an_illegal_event_where_it_stands(game_log: Path) -> None:
    recording = load(game_log)
    index, (seq, event) = next((i, (s, e)) for i, (s, e) in enumerate(recording.events)
                               if e.type == "played")
    hand = recording.state_at(seq - 1).hands[event.seat]
    from starhall.shared.games.hearts.rules import STARDECK

    other = next(c for c in STARDECK.codes(hand) if c != event.data["card"])
    rewrite_event(game_log, seq, {"data": {"card": other}})
    with pytest.raises(IllegalEvent) as refused:
        verify(game_log)
    rewritten = load(game_log)
    record, offset = rewritten.record_number(index), rewritten.offsets[index]
    assert str(refused.value) == (
        f"{game_log}: record {record} (byte {offset}): event {seq} (played, seat {event.seat}): "
        "you must lead the 2 of Clubs: the first trick is led with the lowest Club in play")


def test_a_desync_names_the_first_event_after_the_last_agreeing_checkpoint(
        game_log: Path) -> None:
    """A checkpoint the engine no longer agrees with, as after a rule change."""
    data = game_log.read_bytes()
    records, _ = read_records(data, game_log)
    checkpoints = [body["seq"] for _, body in records if body.get("kind") == "checkpoint"]
    altered = checkpoints[1]
    out = bytearray()
    for _, body in records:
        if body.get("kind") == "checkpoint" and body["seq"] == altered:
            state = {**body["state"], "totals": [t + 1 for t in body["state"]["totals"]]}
            body = {**body, "state": state, "hash": state_hash(state)}
        out += encode_record(body)
    game_log.write_bytes(bytes(out))
    result = verify(game_log)
    assert isinstance(result, Mismatch)
    assert result.seq == altered and result.agreed == checkpoints[0]
    report = result.report()
    assert f"the first event after it is {checkpoints[0] + 1}: deal" in report
    assert "state.totals[0]: recorded" in report
    data = result.as_data()
    assert data["first_suspect_event"] == checkpoints[0] + 1
    assert data["differences"][0]["field"] == "state.totals[0]"


def test_log_files_finds_logs_in_folders(tmp_path: Path, game_log: Path) -> None:
    assert log_files([str(tmp_path)]) == [game_log]


def test_golden_replays_rebuild_exactly() -> None:
    goldens = log_files([str(ROOT / "replays" / "golden")])
    assert len(goldens) >= 16
    for path in goldens:
        result = verify(path)
        assert isinstance(result, Verified), result.report()  # type: ignore[union-attr]
        assert result.over


def test_the_same_log_gives_the_same_hashes_in_other_processes(game_log: Path) -> None:
    script = (
        "import sys; from shared.replay import load; from shared.table import state_hash\n"
        "r = load(sys.argv[1])\n"
        "print(state_hash(r.game.snapshot(r.state_at())))\n"
    )
    hashes = set()
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", script, str(game_log)], env=env,
                              cwd=ROOT, capture_output=True, text=True, check=True)
        hashes.add(done.stdout.strip())
    assert len(hashes) == 1


def test_sim_gives_the_same_events_in_other_processes(tmp_path: Path) -> None:
    outputs = []
    for hash_seed in ("0", "99"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-m", "starhall", "sim", "hearts", "--games", "2",
                        "--seed", "5", "--quiet", "--out", str(out)], env=env, cwd=ROOT,
                       check=True, capture_output=True)
        outputs.append([p.read_bytes() for p in sorted(out.iterdir())])
    assert outputs[0] == outputs[1]
