"""A log names who sits where in itself: people sitting, leaving and coming back, bots seated,
standing in and taken out, each recorded between the events they came between, against a real
server on 127.0.0.1, and read back by every reader of logs without the seating file beside it.
A restart or a failed write never leaves the log saying other than the seating file."""

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
from starhall.server.seats import SeatRecord, save_seating
from starhall.shared import protocol
from starhall.shared.bots import make_bot
from starhall.shared.games import get_game
from starhall.shared.logfile import encode_record, read_records
from starhall.shared.replay import Verified, load, verify
from starhall.shared.seating import BOT, PLAYER, free_seats, seat_entry
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
    for secret in (seated["token"], KEY):  # what gives the seat, never in the log
        assert secret.encode() not in raw
    log.with_name(f"{table}.seats.json").unlink()  # the log alone, as in a bug report
    recording = load(log)
    assert recording.header["seats"] == free_seats(4)  # as the table was created
    ada = seat_entry(PLAYER, "Ada")
    random_bot = seat_entry(BOT, "random bot", "random", level="easy")
    assert recording.seats_at(0) == [ada, random_bot, random_bot, random_bot]
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
    assert standin == seat_entry(BOT, "Bruno", "random", standin=True, level="easy")
    assert back == seat_entry(PLAYER, "Bruno")
    assert recording.seats_at(standin_at - 1)[1] == seat_entry(PLAYER, "Bruno")
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


def test_a_restart_records_the_seats_its_log_missed(tmp_path: Path) -> None:
    """A crash between the seating file's write and the log's: the file wins, and the restarted
    server writes the log's missing seating records before anything else happens there."""
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        lobby = Participant(address(server))
        table = create(lobby)
        Person(address(server), table, 0, "Ada").close()
        lobby.close()
    log = log_of(server, table)
    seating = log.with_name(f"{table}.seats.json")
    body = json.loads(seating.read_text())
    body["seats"][2] = {"state": "bot", "name": "random bot", "token_sha256": None,
                        "bot": "random", "standin": False, "since": 0}
    seating.write_text(json.dumps(body))  # as a `bot` whose log write a crash lost
    assert load(log).seats_at()[2] == seat_entry(protocol.FREE)
    with EmbeddedServer(tmp_path, think=SLOW_BOTS):
        # (a seating file from before levels: the bot has none)
        assert load(log).seats_at()[2] == seat_entry(BOT, "random bot", "random")
    assert load(log).seat_changes[-1] == (0, 2, seat_entry(BOT, "random bot", "random"))


def test_a_seating_record_whose_commit_failed_is_written_again_before_the_next_events(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seating file took the change, the log's sync failed (its batch is undone): the log
    records the seat once it can write again, and before the events that follow."""
    real_sync = durability._datasync
    failures: list[int] = []

    def sync_failing_once(fd: int) -> None:
        if armed and not failures:
            failures.append(fd)
            raise OSError(28, "No space left on device")
        real_sync(fd)

    monkeypatch.setattr(durability, "_datasync", sync_failing_once)
    armed = False
    with EmbeddedServer(tmp_path, **{**FAST_SERVER, "stall_retry": 0.05}) as server:
        lobby = Participant(address(server))
        table = create(lobby)
        for seat in (1, 2, 3):
            bot(lobby, table, seat)
        armed = True
        seated = lobby.request({"type": "sit", "table": table, "seat": 0, "name": "Ada"})
        assert seated["type"] == protocol.SEATED, seated  # the seating file has it
        log = log_of(server, table)
        wait_for(lambda: load(log).last_seq >= 1)
        assert failures  # the log's first sync of it failed
        recording = load(log)
        assert recording.seat_changes[-1] == (0, 0, seat_entry(PLAYER, "Ada"))
        assert isinstance(verify(log), Verified)
        lobby.close()


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
    seats = [SeatRecord() for _ in range(4)]
    seats[0].seat_person("Ada")
    seats[1].seat_bot("random", standin=False)
    save_seating(log.with_name("0001.seats.json"), "old table", seats)
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
