"""A log names who sits where in itself, and is the one place a server keeps it: people
sitting, leaving and coming back, bots seated, standing in and taken out, each recorded between
the events they came between, against a real server on 127.0.0.1, and read back by every
reader of logs. A person's seat records its owner only as a salted token hash; a seat change
whose write fails changes nothing; an older server's seating file moves into the log."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from starhall.cli import main
from starhall.client.screens.replay_screen import ReplayScreen, log_names
from starhall.server import durability
from starhall.server.embed import EmbeddedServer
from starhall.server.seats import token_hash
from starhall.shared import protocol
from starhall.shared.bots import make_bot
from starhall.shared.games import get_game
from starhall.shared.logfile import encode_record, read_records
from starhall.shared.replay import Verified, load, verify
from starhall.shared.seating import (
    BOT,
    OWNER,
    PLAYER,
    SeatMap,
    free_seats,
    public_seat,
    seat_entry,
)
from starhall.shared.table import Table
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    Participant,
    Person,
    address,
    log_of,
    wait_for,
)
from tests.support import ask

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

KEY = "Zq0v3kT8yqf1WbqUu1V3m8cX"
SLOW_BOTS = 60.0
"""Bots that do not move while a test looks."""


def create(lobby: Participant, **options: Any) -> str:
    reply = lobby.request({"type": "create", "game": "hearts", "players": 4,
                           "options": {**FAST_HEARTS, **options}})
    assert reply["type"] == protocol.CREATED, reply
    table: str = reply["table"]["id"]
    return table


def bot(lobby: Participant, table: str, seat: int, **more: Any) -> None:
    reply = lobby.request({"type": "bot", "table": table, "seat": seat, "kind": "random",
                           **more})
    assert reply["type"] == protocol.BOTTED, reply


def seating_records(log: Path) -> list[tuple[int, int, dict[str, Any]]]:
    return load(log).seat_changes


def shown(seats: list[SeatMap | None]) -> list[SeatMap | None]:
    """Seats as people see them: without their owners."""
    return [None if seat is None else public_seat(seat) for seat in seats]


def legacy_seating_file(path: Path, name: str, seats: list[dict[str, Any]]) -> None:
    """A seating file as servers before seating records kept one beside a log (tokens as
    unsalted SHA-256 hashes)."""
    free = {"state": "free", "name": None, "token_sha256": None, "bot": None,
            "standin": False, "since": 0}
    path.write_text(json.dumps({"name": name, "seats": [{**free, **seat} for seat in seats]}))


def test_a_server_log_names_who_sat_where_without_the_seating_file(
        server: EmbeddedServer, capsys: pytest.CaptureFixture[str]) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    seated = lobby.request({"type": "sit", "table": table, "seat": 0, "name": "Ada", "key": KEY})
    assert seated["type"] == protocol.SEATED, seated
    for seat in (1, 2, 3):
        bot(lobby, table, seat)
    log = log_of(server, table)
    wait_for(lambda: load(log).last_seq >= 1)  # every seat filled: the deal

    raw = log.read_bytes()
    token = seated["token"]
    for secret in (token, KEY, token_hash(token)):  # what gives the seat, never in the log
        assert secret.encode() not in raw
    assert not list(log.parent.glob("*.seats.json"))  # the log is the one place
    recording = load(log)
    assert recording.header["seats"] == free_seats(4)  # as the table was created
    ada = seat_entry(PLAYER, "Ada")
    random_bot = seat_entry(BOT, "random bot", "random", level="easy")
    assert shown(recording.seats_at(0)) == [ada, random_bot, random_bot, random_bot]
    owner = recording.seats_at(0)[0][OWNER]  # the token salted and hashed, and when she sat
    salt = recording.header["token_salt"]
    assert owner["token_hash"] == token_hash(token, salt) != token_hash(token)
    assert owner["since"] == 0 and isinstance(owner["key_salt"], str)
    assert [(seq, seat) for seq, seat, _ in recording.seat_changes] == [
        (0, 0), (0, 1), (0, 2), (0, 3)]  # all before the deal
    # The viewer shows them as the table did (bots by their seats' names).
    assert log_names(recording, 1) == ["Ada", "Bruno (Easy)", "Clara (Easy)", "Dmitri (Easy)"]

    capsys.readouterr()
    assert main(["replay", "show", str(log), "--at", "1"]) == 0
    out = capsys.readouterr().out
    assert "seat 0: Ada\n" in out and "seat 3: a random (Easy) bot\n" in out
    assert main(["replay", "show", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seats"][0] == ada
    assert main(["replay", "verify", "--json", str(log)]) == 0
    assert json.loads(capsys.readouterr().out)["logs"][0]["seats"][1] == random_bot
    lobby.close()


def test_a_stand_in_and_a_return_are_logged_between_the_events_they_came_between(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    ada = Person(address(server), table, 0, "Ada")
    bruno = Person(address(server), table, 1, "Bruno")
    bot(lobby, table, 2)
    bot(lobby, table, 3)
    log = log_of(server, table)
    wait_for(lambda: load(log).last_seq >= 1)
    assert bruno.request({"type": "leave", "table": table, "token": bruno.token})["kept"]
    bot(ada, table, 1, token=ada.token)  # Ada hands Bruno's seat to a stand-in

    def standin_played() -> bool:
        ada.step()  # Ada plays on, so the stand-in gets its turns
        recording = load(log)
        (after, _, _), = [change for change in recording.seat_changes if change[0] > 0]
        return any(event.seat == 1 for seq, event in recording.events if seq > after)

    wait_for(standin_played)
    bruno.resume(address(server))  # Bruno is back: the stand-in goes
    recording = load(log)
    (standin_at, first, standin), (back_at, second, back) = [
        change for change in recording.seat_changes if change[0] > 0]
    assert first == second == 1 and 0 < standin_at < back_at
    assert public_seat(standin) == seat_entry(BOT, "Bruno", "random", standin=True,
                                              level="easy")
    assert public_seat(back) == seat_entry(PLAYER, "Bruno")
    assert standin[OWNER] == back[OWNER]  # the seat stays Bruno's while the bot plays
    assert shown(recording.seats_at(standin_at - 1))[1] == seat_entry(PLAYER, "Bruno")
    assert recording.seats_at(back_at - 1)[1] == standin
    assert all(event.seat != 1 for seq, event in recording.events if seq <= standin_at)
    assert isinstance(verify(log), Verified)
    for person in (lobby, ada, bruno):
        person.close()


def test_a_seat_freed_before_the_start_and_a_bot_taken_out_are_logged(
        server: EmbeddedServer) -> None:
    lobby = Participant(address(server))
    table = create(lobby)
    ada = Person(address(server), table, 0, "Ada")
    bot(lobby, table, 1)
    assert ada.request({"type": "leave", "table": table, "token": ada.token})["kept"] is False
    assert lobby.request({"type": "unbot", "table": table, "seat": 1})["type"] == (
        protocol.UNBOTTED)
    log = log_of(server, table)
    wait_for(lambda: len(seating_records(log)) == 4)
    assert load(log).seats_at() == free_seats(4)
    assert [seat for _, seat, _ in seating_records(log)] == [0, 1, 0, 1]
    for person in (lobby, ada):
        person.close()


def test_an_older_servers_seating_file_moves_into_the_log_at_a_restart(
        tmp_path: Path) -> None:
    """A table of a server from before seating records: its log names nobody, its seating
    file beside it has the seats and the token's unsalted hash. The next start records them
    in the log, owners and all, and forgets the file; the token works on, restart after
    restart."""
    folder = tmp_path / "tables"
    folder.mkdir()
    log = folder / "0001.starhall"
    made = Table.new(get_game("hearts"), 4, FAST_HEARTS, path=str(log), name="old")
    assert made.log is not None
    made.log.close()
    token = "an-older-servers-token-0123"
    legacy = log.with_name("0001.seats.json")
    legacy_seating_file(legacy, "old", [
        {"state": "player", "name": "Ada", "token_sha256": token_hash(token)},
        {"state": "bot", "name": "random bot", "bot": "random"}, {}, {}])
    for _ in range(2):
        with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
            assert not legacy.exists()
            ada = Participant(address(server))
            back = ada.request({"type": "resume", "table": "0001", "seat": 0, "token": token})
            assert back["type"] == protocol.SEATED, back
            ada.close()
    recording = load(log)
    assert shown(recording.seats_at()) == [
        seat_entry(PLAYER, "Ada"), seat_entry(BOT, "random bot", "random"),
        seat_entry(protocol.FREE), seat_entry(protocol.FREE)]
    assert recording.seats_at()[0][OWNER] == {"token_hash": token_hash(token), "since": 0}
    assert isinstance(verify(log), Verified)


def test_a_seat_change_whose_write_fails_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log's sync of a ``sit`` fails: the sitter gets a ``storage`` error, the seat is
    free as before, in the server and in its log, and the same ``sit`` works once the disk
    does; a restart then finds the seat as the reply said."""
    real_sync = durability._datasync
    failures: list[int] = []

    def sync_failing_once(fd: int) -> None:
        if armed and not failures:
            failures.append(fd)
            raise OSError(28, "No space left on device")
        real_sync(fd)

    monkeypatch.setattr(durability, "_datasync", sync_failing_once)
    armed = False
    with EmbeddedServer(tmp_path, **{**FAST_SERVER, "think": SLOW_BOTS}) as server:
        lobby = Participant(address(server))
        table = create(lobby)
        log = log_of(server, table)
        before = log.read_bytes()
        armed = True
        sit = {"type": "sit", "table": table, "seat": 0, "name": "Ada", "key": KEY}
        refused = lobby.request(sit)
        assert failures and refused["type"] == protocol.ERROR, refused
        assert refused["code"] == durability.STORAGE
        assert log.read_bytes() == before
        assert server.service is not None
        assert server.service.tables[table].seats[0].state == protocol.FREE
        listed = lobby.request({"type": "list"})["tables"]
        assert [t for t in listed if t["id"] == table][0]["seats"][0]["state"] == protocol.FREE
        seated = lobby.request(sit)
        assert seated["type"] == protocol.SEATED, seated
        lobby.close()
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        ada = Participant(address(server))
        back = ada.request({"type": "resume", "table": table, "seat": 0,
                            "token": seated["token"]})
        assert back["type"] == protocol.SEATED, back
        ada.close()
    assert shown(load(log).seats_at()) == [seat_entry(PLAYER, "Ada")] + free_seats(3)


# --- reading: the viewer over time, and logs from before seating records ------------------

def played_log(path: Path, moves: int, *, changes: dict[int, list[tuple[int, Any]]]) -> Path:
    """A Hearts log of random bots' moves, written as a server writes one (``Table``), with the
    seats changed after the events ``changes`` names: ``{after event: [(seat, seat map)]}``."""
    game = get_game("hearts")
    table = Table.new(game, 4, FAST_HEARTS, path=str(path))
    rng = random.Random(5)
    bots = [make_bot(game, "random", random.Random(seat)) for seat in range(4)]
    for seat, entry in changes.get(0, []):
        table.reseat(seat, entry)
    while table.seq < moves:
        if game.chance(table.state) is not None:
            table.shuffle(rng.randrange(1 << 32))
        else:
            seat = game.to_act(table.state)[0]
            table.submit(ask(bots[seat], game, table.state, seat, table))
        for seat, entry in changes.get(table.seq, []):
            table.reseat(seat, entry)
    assert table.log is not None
    table.log.close()
    return path


def test_the_viewer_names_the_seats_as_they_were_at_each_event(
        tmp_path: Path, surface: Any) -> None:
    free, dee = seat_entry(protocol.FREE), seat_entry(PLAYER, "Dee")
    log = played_log(tmp_path / "0001.starhall", 30, changes={
        0: [(0, seat_entry(PLAYER, "Ada")),
            (1, seat_entry(BOT, "random bot", "random", level="easy")),
            (2, seat_entry(PLAYER, "Cy")),
            (3, seat_entry(BOT, "random bot", "random", level="easy"))],
        20: [(2, free), (2, dee)]})  # Cy gives the seat up, and Dee takes it
    assert isinstance(verify(log), Verified)
    viewer = ReplayScreen(load(log), (1280, 720))
    viewer.seek(10)
    assert viewer.table.model.names == ["Ada", "Bruno (Easy)", "Cy", "Dmitri (Easy)"]
    viewer.seek(19)
    viewer.step()  # event 20, after which Dee sits
    assert viewer.table.model.names[2] == "Dee"
    viewer.seek(0)
    assert viewer.table.model.names[2] == "Cy"
    viewer.close()


def older_log(log: Path) -> Path:
    """``log`` as a server wrote logs before they recorded seating (format 1): "Seat N" in the
    header, no seating records, no seats in checkpoints."""
    data = log.read_bytes()
    records, _ = read_records(data, log)
    header = {**records[0][1], "format": 1, "seats": [{"name": f"Seat {n}"} for n in range(4)]}
    bodies = [{k: v for k, v in body.items() if k != "seats"} for _, body in records[1:]
              if body["kind"] != "seating"]
    log.write_bytes(b"".join(encode_record(body) for body in [header, *bodies]))
    return log


def test_an_older_log_reads_with_the_names_beside_it_or_seat_n(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = older_log(played_log(tmp_path / "0001.starhall", 12, changes={}))
    recording = load(log)
    assert recording.format == 1 and recording.seats_at() == [None] * 4
    assert isinstance(verify(log), Verified)
    assert log_names(recording) == ["Seat 0", "Seat 1", "Seat 2", "Seat 3"]
    capsys.readouterr()
    assert main(["replay", "show", str(log)]) == 0
    assert "seat 2: not recorded" in capsys.readouterr().out
    legacy_seating_file(log.with_name("0001.seats.json"), "old table", [
        {"state": "player", "name": "Ada", "token_sha256": token_hash("a token")},
        {"state": "bot", "name": "random bot", "bot": "random"}, {}, {}])
    assert log_names(load(log))[:3] == ["Ada", "Bruno", "(free seat)"]
    assert main(["replay", "show", str(log)]) == 0
    out = capsys.readouterr().out
    assert "seat 0: Ada\n" in out and "seat 1: a random bot\n" in out and "seat 2: free" in out


def test_a_bot_whose_kind_is_its_level_is_named_once() -> None:
    from starhall.shared.seating import describe_seat

    strong = seat_entry(BOT, "strong bot", "strong", level="strong")
    assert describe_seat(strong, 1) == "seat 1: a strong bot"  # not "a strong (Strong) bot"
    heuristic = seat_entry(BOT, "Bruno", "heuristic", level="normal")
    assert describe_seat(heuristic, 2) == "seat 2: Bruno, a heuristic (Normal) bot"
