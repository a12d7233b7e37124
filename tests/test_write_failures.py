"""A disk that fails under the server: every request that writes, refused by a full disk (a
write, a partial write, a sync, a rename or a new file that fails with ENOSPC), answers
``error storage`` and changes nothing, in memory or on disk; once the disk has room again the
same request succeeds. A data folder the server cannot write stops ``serve`` at once, and
``serve --read-only`` shows the tables and writes nothing.

The failing disk is simulated: the server runs in this process (``EmbeddedServer``), and the
``os`` calls it writes with fail for files in the test's data folder only."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from starhall.cli import main as starhall
from starhall.server import durability
from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.shared import protocol
from starhall.shared.observation import SeatMemory
from starhall.shared.replay import Verified, load, log_files, verify
from tests.server_helpers import FAST_HEARTS, Participant, fill_with_bots, wait_for

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="finds a file's path from its descriptor in /proc")

KINDS = ("write", "partial", "fsync", "replace", "create")
"""How the full disk fails: every write; a write that gets half its bytes out, then none; a
sync of written data (delayed allocation); a rename into the folder; making a file there."""
LOG_KINDS = ("write", "partial", "fsync")
"""The failures an append to an open log can meet: every change of a seat is one (the log is
the one place the seating is kept)."""
SLOW_BOTS = 60.0
"""Bots that never move while a test looks: the folder changes only by the test's requests."""


class FailingDisk:
    """The disk holding ``folder``, which fails as ``failing`` says (``None``: it works)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
        self.root = str(folder.resolve())
        self.failing: str | None = None
        self.attempts = 0
        """Writes tried in the folder while it failed."""
        self._dirty: set[int] = set()
        """Descriptors of files with written data not yet synced (what ENOSPC at a sync needs)."""
        self._half_written: set[int] = set()
        self.real = {name: getattr(os, name) for name in
                     ("write", "fsync", "fdatasync", "replace", "open", "ftruncate", "close",
                      "unlink", "mkdir")}
        for name in self.real:
            monkeypatch.setattr(os, name, getattr(self, f"_{name}"))
        monkeypatch.setattr(durability, "_datasync", self._fdatasync)
        # Moves' logs are synced through _datasync too, not by the C thread, which os.* is not.
        monkeypatch.setattr(durability, "BackgroundSync", durability.SyncWhenWaited)

    def fail(self, kind: str) -> None:
        self.failing = kind
        self.attempts = 0
        self._half_written.clear()

    def recover(self) -> None:
        self.failing = None

    def _error(self) -> OSError:
        self.attempts += 1
        code = errno.EROFS if self.failing == "read_only" else errno.ENOSPC
        return OSError(code, os.strerror(code))

    def _here(self, path: Any) -> bool:
        if isinstance(path, int):
            try:
                path = os.readlink(f"/proc/self/fd/{path}")
            except OSError:
                return False
        target = str(os.path.realpath(os.fspath(path)))
        return target == self.root or target.startswith(self.root + os.sep)

    def _write(self, fd: int, data: Any) -> int:
        if self.failing is not None and self._here(fd):
            if self.failing in ("write", "read_only"):
                raise self._error()
            if self.failing == "partial":
                if fd in self._half_written or len(data) < 2:
                    raise self._error()
                self._half_written.add(fd)
                data = bytes(data)[: len(data) // 2]
        written: int = self.real["write"](fd, data)
        self._dirty.add(fd)
        return written

    def _sync(self, name: str, fd: int) -> None:
        if self.failing == "fsync" and fd in self._dirty and self._here(fd):
            raise self._error()
        self.real[name](fd)
        self._dirty.discard(fd)

    def _fsync(self, fd: int) -> None:
        self._sync("fsync", fd)

    def _fdatasync(self, fd: int) -> None:
        self._sync("fdatasync", fd)

    def _ftruncate(self, fd: int, length: int) -> None:
        if self.failing == "read_only" and self._here(fd):
            raise self._error()
        self.real["ftruncate"](fd, length)
        self._dirty.discard(fd)  # what was not yet on disk is gone: nothing left to allocate

    def _close(self, fd: int) -> None:
        self._dirty.discard(fd)
        self._half_written.discard(fd)
        self.real["close"](fd)

    def _replace(self, source: Any, target: Any, **kwargs: Any) -> None:
        if self.failing in ("replace", "read_only") and self._here(target):
            raise self._error()
        self.real["replace"](source, target, **kwargs)

    def _open(self, path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if self._here(path):
            if self.failing == "create" and flags & os.O_CREAT:
                raise self._error()
            if self.failing == "read_only" and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
                raise self._error()
        fd: int = self.real["open"](path, flags, mode, **kwargs)
        return fd

    def _unlink(self, path: Any, **kwargs: Any) -> None:
        if self.failing == "read_only" and self._here(path):
            raise self._error()
        self.real["unlink"](path, **kwargs)

    def _mkdir(self, path: Any, *args: Any, **kwargs: Any) -> None:
        if self.failing == "read_only" and self._here(path):
            raise self._error()
        self.real["mkdir"](path, *args, **kwargs)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FailingDisk:
    return FailingDisk(monkeypatch, tmp_path)


@pytest.fixture
def server(tmp_path: Path, disk: FailingDisk) -> Iterator[EmbeddedServer]:
    embedded = EmbeddedServer(tmp_path, think=SLOW_BOTS, flood_rate=10_000, flood_burst=10_000,
                              stall_retry=0.2)
    embedded.start()
    yield embedded
    embedded.stop()


def tables_folder(server: EmbeddedServer) -> Path:
    return server.config.data / "tables"


def files(folder: Path) -> dict[str, bytes]:
    """Every file of the folder and what it holds (but a hidden one: a running server's lock)."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())
            if path.is_file() and not path.name.startswith(".")}


def assert_logs_verify(folder: Path) -> None:
    """Every log in the folder is whole and verifies, as ``starhall replay verify`` says."""
    logs = log_files([str(folder)])
    for log in logs:
        assert log.stat().st_size > 0, f"{log.name} is empty"
        assert isinstance(verify(log), Verified), log
    if logs:
        assert starhall(["replay", "verify", str(folder)]) == 0


def info(lobby: Participant, table: str) -> dict[str, Any]:
    listed = lobby.request({"type": "list"})["tables"]
    found: list[dict[str, Any]] = [entry for entry in listed if entry["id"] == table]
    assert found, f"no table {table} in the list"
    return found[0]


def lobby_state(lobby: Participant) -> list[dict[str, Any]]:
    """What the lobby shows of every table: what a second request would see."""
    listed: list[dict[str, Any]] = lobby.request({"type": "list"})["tables"]
    return listed


def create(lobby: Participant, options: dict[str, Any] = FAST_HEARTS) -> str:
    reply = lobby.request({"type": "create", "game": "hearts", "players": 4,
                           "options": options})
    assert reply["type"] == protocol.CREATED, reply
    table: str = reply["table"]["id"]
    return table


def sit(lobby: Participant, table: str, seat: int) -> str:
    reply = lobby.request({"type": "sit", "table": table, "seat": seat, "name": f"P{seat}"})
    assert reply["type"] == protocol.SEATED, reply
    token: str = reply["token"]
    return token


# --- every request that writes -----------------------------------------------------------

@dataclass
class Case:
    """One writing request, ready to send at a table set up for it."""

    request: dict[str, Any]
    succeeds_with: str
    sender: Participant
    kinds: tuple[str, ...] = KINDS
    others: list[Participant] = field(default_factory=list)


def case_create(server: EmbeddedServer, lobby: Participant) -> Case:
    return Case({"type": "create", "game": "hearts", "players": 4, "options": FAST_HEARTS,
                 "name": "On a full disk"}, protocol.CREATED, lobby, (*LOG_KINDS, "create"))


def case_sit(server: EmbeddedServer, lobby: Participant) -> Case:
    table = create(lobby)
    return Case({"type": "sit", "table": table, "seat": 1, "name": "Bea"}, protocol.SEATED,
                lobby, LOG_KINDS)


def case_keyed_sit(server: EmbeddedServer, lobby: Participant) -> Case:
    table = create(lobby)
    return Case({"type": "sit", "table": table, "name": "Bea", "key": "bea-key-0123456789"},
                protocol.SEATED, lobby, LOG_KINDS)


def case_bot(server: EmbeddedServer, lobby: Participant) -> Case:
    table = create(lobby)
    return Case({"type": "bot", "table": table, "seat": 2}, protocol.BOTTED, lobby, LOG_KINDS)


def case_unbot(server: EmbeddedServer, lobby: Participant) -> Case:
    table = create(lobby)
    fill_with_bots(lobby, table, [2])
    return Case({"type": "unbot", "table": table, "seat": 2}, protocol.UNBOTTED, lobby, LOG_KINDS)


def case_leave(server: EmbeddedServer, lobby: Participant) -> Case:
    table = create(lobby)
    token = sit(lobby, table, 1)
    return Case({"type": "leave", "table": table, "token": token}, protocol.LEFT, lobby, LOG_KINDS)


def started(server: EmbeddedServer, lobby: Participant) -> tuple[str, list[Participant],
                                                                   list[str]]:
    """A started table with a person in every seat, each on their own connection."""
    table = create(lobby)
    people = [Participant(lobby.connection.address, f"P{seat}") for seat in range(4)]
    tokens = [sit(person, table, seat) for seat, person in enumerate(people)]
    wait_for(lambda: info(lobby, table)["seq"] > 0)  # dealt
    return table, people, tokens


def case_give_up(server: EmbeddedServer, lobby: Participant) -> Case:
    table, people, tokens = started(server, lobby)
    return Case({"type": "leave", "table": table, "token": tokens[1], "give_up": True},
                protocol.LEFT, people[1], LOG_KINDS, others=people)


def with_standin(server: EmbeddedServer, lobby: Participant) -> tuple[str, list[Participant],
                                                                        list[str]]:
    """A started table where seat 1's person left and a stand-in bot plays for them."""
    table, people, tokens = started(server, lobby)
    left = people[1].request({"type": "leave", "table": table, "token": tokens[1]})
    assert left["kept"] is True, left
    botted = people[0].request({"type": "bot", "table": table, "seat": 1, "token": tokens[0]})
    assert botted["type"] == protocol.BOTTED and botted["standin"], botted
    return table, people, tokens


def case_standin(server: EmbeddedServer, lobby: Participant) -> Case:
    table, people, tokens = started(server, lobby)
    left = people[1].request({"type": "leave", "table": table, "token": tokens[1]})
    assert left["kept"] is True, left
    return Case({"type": "bot", "table": table, "seat": 1, "token": tokens[0]},
                protocol.BOTTED, people[0], LOG_KINDS, others=people)


def case_resume(server: EmbeddedServer, lobby: Participant) -> Case:
    table, people, tokens = with_standin(server, lobby)
    return Case({"type": "resume", "table": table, "seat": 1, "token": tokens[1]},
                protocol.SEATED, people[1], LOG_KINDS, others=people)


def case_sync_takes_back(server: EmbeddedServer, lobby: Participant) -> Case:
    table, people, tokens = with_standin(server, lobby)
    return Case({"type": "sync", "table": table, "token": tokens[1]}, protocol.SNAPSHOT,
                people[1], LOG_KINDS, others=people)


def case_unbot_standin(server: EmbeddedServer, lobby: Participant) -> Case:
    table, people, tokens = with_standin(server, lobby)
    return Case({"type": "unbot", "table": table, "seat": 1, "token": tokens[0]},
                protocol.UNBOTTED, people[0], LOG_KINDS, others=people)


def case_act(server: EmbeddedServer, lobby: Participant) -> Case:
    table, people, tokens = started(server, lobby)
    for seat, person in enumerate(people):
        snapshot = person.request({"type": "sync", "table": table, "token": tokens[seat]})
        if seat in snapshot["view"]["to_act"]:
            command = choose_command(snapshot["view"])
            return Case({"type": "act", "table": table, "token": tokens[seat],
                         "seq": snapshot["seq"], "cid": f"move-{seat}", "command": command},
                        protocol.ACK, person, LOG_KINDS, others=people)
    raise AssertionError("nobody is to act")


def choose_command(view: dict[str, Any]) -> dict[str, Any]:
    from tests.server_helpers import choose

    command = choose(view)
    assert command is not None, view
    return command


CASES: dict[str, Callable[[EmbeddedServer, Participant], Case]] = {
    "create": case_create, "sit": case_sit, "sit with a key": case_keyed_sit,
    "bot": case_bot, "unbot": case_unbot, "leave": case_leave, "give up": case_give_up,
    "stand-in bot": case_standin, "resume from a stand-in": case_resume,
    "sync from a stand-in": case_sync_takes_back, "unbot a stand-in": case_unbot_standin,
    "act": case_act,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_write_that_fails_changes_nothing_and_succeeds_once_the_disk_recovers(
        server: EmbeddedServer, disk: FailingDisk, name: str, kind: str) -> None:
    lobby = Participant(server.address or "", "Lobby")
    case = CASES[name](server, lobby)
    if kind not in case.kinds:
        pytest.skip(f"{name} writes only to an open log, which a {kind} failure does not touch")
    folder = tables_folder(server)
    for participant in {id(p): p for p in [lobby, case.sender, *case.others]}.values():
        participant.heard()  # what the case's making sent
    shown, kept = lobby_state(lobby), files(folder)

    disk.fail(kind)
    reply = case.sender.request(case.request)
    assert reply["type"] == protocol.ERROR and reply["code"] == durability.STORAGE, reply
    assert "No space left on device" in reply["reason"], reply
    if case.request["type"] == "act":
        assert reply["cid"] == case.request["cid"]
    assert disk.attempts > 0
    assert lobby_state(lobby) == shown  # memory: a second look sees nothing changed
    assert files(folder) == kept  # the disk: not a byte, not a file more (no temp, no 0-byte log)
    for participant in case.others:  # nobody heard of a change
        heard = [m for m in participant.heard() if m["type"] in (protocol.UPDATE, protocol.ACK)]
        assert not heard, heard
    assert_logs_verify(folder)

    disk.recover()
    again = case.sender.request(case.request)
    assert again["type"] == case.succeeds_with, again
    if case.request["type"] == "act":
        assert again["duplicate"] is False
    assert_logs_verify(folder)
    for participant in {id(p): p for p in [lobby, case.sender, *case.others]}.values():
        participant.close()


def test_bots_on_a_full_disk_wait_and_play_on_once_it_has_room(
        tmp_path: Path, disk: FailingDisk) -> None:
    """Bots' moves and deals that cannot be written are undone; the table tries again now and
    then, writing nothing meanwhile, and plays on when the disk has room."""
    with EmbeddedServer(tmp_path, think=0.0, stall_retry=0.1) as server:
        assert server.service is not None and server.address is not None
        lobby = Participant(server.address)
        table = create(lobby, {"target": 1_000_000})  # bots that never finish
        fill_with_bots(lobby, table, range(4))
        live = server.service.tables[table]
        wait_for(lambda: live.seq > 30)
        disk.fail("write")
        wait_for(lambda: live.stalled is not None)
        seq, kept = live.seq, files(tables_folder(server))
        wait_for(lambda: disk.attempts >= 3)  # it tried again, twice, and failed
        assert live.seq == seq and not live.broken
        assert files(tables_folder(server)) == kept
        assert_logs_verify(tables_folder(server))
        disk.recover()
        wait_for(lambda: live.seq > seq + 10 and live.stalled is None)
        assert_logs_verify(tables_folder(server))
        lobby.close()


def test_what_bots_were_shown_forgets_the_moves_a_full_disk_undid(
        tmp_path: Path, disk: FailingDisk) -> None:
    """Bots that read what their seats were shown (strong ones): the moves a failed commit
    undid leave their memory too, which is read again from the log, cut back."""
    with EmbeddedServer(tmp_path, think=0.0, stall_retry=0.1) as server:
        assert server.service is not None and server.address is not None
        lobby = Participant(server.address)
        table = create(lobby, {"target": 1_000_000})
        for seat in range(4):
            botted = lobby.request({"type": "bot", "table": table, "seat": seat,
                                    "kind": "strong"})
            assert botted["type"] == protocol.BOTTED, botted
        live = server.service.tables[table]
        wait_for(lambda: live.seq > 30, timeout=60)
        disk.fail("write")
        wait_for(lambda: live.stalled is not None)
        seq = live.seq
        disk.recover()
        wait_for(lambda: live.seq > seq + 10 and live.stalled is None, timeout=60)
        lobby.close()
    memory = live.table.memory
    assert memory is not None and memory.seats == {0, 1, 2, 3}
    log = tables_folder(server) / f"{table}.starhall"
    recording = load(log)
    assert recording.last_seq == live.seq
    rebuilt = SeatMemory(live.game, 4, live.table.options)
    states = recording.states(strict=False)
    _, before = next(states)
    for (_, event), (_, after) in zip(recording.events, states, strict=True):
        rebuilt.add(before, event)
        before = after
    assert memory.shown == rebuilt.shown


def test_a_silent_player_on_a_full_disk_keeps_the_seat(tmp_path: Path,
                                                       disk: FailingDisk) -> None:
    """A person who goes silent at a waiting table loses the seat, unless that cannot be
    written: then the seat stays theirs (as on disk), shown disconnected, and the token still
    works."""
    with EmbeddedServer(tmp_path, think=SLOW_BOTS, timeout=0.3, heartbeat=0.1) as server:
        assert server.address is not None
        lobby = Participant(server.address)
        table = create(lobby)
        silent = Participant(server.address, "Silent")
        token = sit(silent, table, 1)
        kept = files(tables_folder(server))
        disk.fail("write")
        wait_for(lambda: not info(lobby, table)["seats"][1]["connected"])
        # The server forgot the silent session in one step: it tried to write the seat free,
        # could not, and kept the seat its person's; nothing later frees it.
        assert disk.attempts >= 1
        seat = info(lobby, table)["seats"][1]
        assert seat["state"] == protocol.PLAYER and seat["name"] == "P1", seat
        assert files(tables_folder(server)) == kept
        disk.recover()
        back = silent.request({"type": "resume", "table": table, "seat": 1, "token": token})
        assert back["type"] == protocol.SEATED, back
        for participant in (lobby, silent):
            participant.close()


def test_a_failed_create_leaves_nothing_for_the_next_start(
        tmp_path: Path, disk: FailingDisk, capsys: pytest.CaptureFixture[str]) -> None:
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None
        lobby = Participant(server.address)
        create(lobby)
        for kind in (*LOG_KINDS, "create"):  # (a create writes its log alone: no rename)
            disk.fail(kind)
            reply = lobby.request({"type": "create", "game": "hearts", "players": 4})
            assert reply["code"] == durability.STORAGE, (kind, reply)
        disk.recover()
        lobby.close()
    assert sorted(files(tmp_path / "tables")) == ["0001.starhall"]
    capsys.readouterr()
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as again:
        assert again.service is not None and list(again.service.tables) == ["0001"]
    assert "skipping" not in capsys.readouterr().err
    assert_logs_verify(tmp_path / "tables")


def test_a_start_clears_what_a_crash_left_half_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A crash in the middle of a create (a log with no whole header, and an older server's
    seating file beside it) or of a summary's write (a temporary file) leaves nothing behind
    after the next start."""
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as server:
        assert server.address is not None
        lobby = Participant(server.address)
        table = create(lobby)
        sit(lobby, table, 0)
        lobby.close()
    folder = tmp_path / "tables"
    whole = (folder / f"{table}.starhall").read_bytes()
    (folder / "0002.starhall").write_bytes(b"")
    (folder / "0003.starhall").write_bytes(whole[:20])  # a header cut short
    (folder / "0003.seats.json").write_text('{"name": "x", "seats": []}')
    (folder / f"{table}.seats.tmp").write_bytes(b"")
    capsys.readouterr()
    with EmbeddedServer(tmp_path, think=SLOW_BOTS) as again:
        assert again.service is not None and list(again.service.tables) == [table]
    err = capsys.readouterr().err
    assert "skipping" not in err and "creation never finished" in err
    assert sorted(files(folder)) == [f"{table}.starhall"]
    assert_logs_verify(folder)


# --- a folder the server cannot write ------------------------------------------------------

def test_serve_refuses_a_folder_it_cannot_write(
        tmp_path: Path, disk: FailingDisk, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tables").mkdir()
    disk.fail("read_only")
    code = starhall(["serve", "--data", str(tmp_path), "--bind",
                     f"127.0.0.1:{free_loopback_port()}", "--beacon", "off"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert "cannot write the data folder" in err and "Read-only file system" in err
    assert "--read-only" in err
    with pytest.raises(OSError, match="cannot write the data folder"):
        EmbeddedServer(tmp_path).start()


def test_serve_refuses_a_full_disk(tmp_path: Path, disk: FailingDisk) -> None:
    disk.fail("write")
    with pytest.raises(OSError, match=r"cannot write the data folder .*No space left"):
        EmbeddedServer(tmp_path).start()
    assert not (tmp_path / "tables").exists() or not any((tmp_path / "tables").iterdir())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes into a read-only folder anyway")
def test_serve_refuses_a_folder_without_write_permission(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH
                 | stat.S_IXOTH)
    try:
        with pytest.raises(OSError, match="cannot write the data folder"):
            EmbeddedServer(tmp_path).start()
    finally:
        folder.chmod(0o755)


def test_read_only_shows_the_tables_and_refuses_every_change(
        tmp_path: Path, disk: FailingDisk) -> None:
    with EmbeddedServer(tmp_path, think=0.0) as server:
        assert server.address is not None
        lobby = Participant(server.address)
        finished = create(lobby)
        fill_with_bots(lobby, finished, range(4))
        wait_for(lambda: info(lobby, finished)["status"] == protocol.OVER, timeout=60)
        playing = create(lobby)
        token = sit(lobby, playing, 0)
        fill_with_bots(lobby, playing)
        waiting = create(lobby)
        wait_for(lambda: info(lobby, playing)["to_act"] == [0])
        shown = {t["id"]: t for t in lobby_state(lobby)}
        lobby.close()
    folder = tmp_path / "tables"
    kept = files(folder)
    disk.fail("read_only")  # any write at all would fail: the server must try none
    with EmbeddedServer(tmp_path, think=0.0, read_only=True) as server:
        assert server.address is not None
        viewer = Participant(server.address)
        listed = {t["id"]: t for t in lobby_state(viewer)}
        assert set(listed) == {finished, playing, waiting}
        for table_id, table in listed.items():
            for key in ("status", "seq", "scores", "winners", "to_act", "game", "name"):
                assert table[key] == shown[table_id][key], (table_id, key)
        watched = viewer.request({"type": "watch", "table": finished})
        assert watched["type"] == protocol.WATCHING
        snapshot = viewer.connection.receive(5.0)
        assert snapshot is not None and snapshot["type"] == protocol.SNAPSHOT
        assert snapshot["seq"] == shown[finished]["seq"]
        for request in (
                {"type": "create", "game": "hearts", "players": 4},
                {"type": "sit", "table": waiting, "seat": 0},
                {"type": "bot", "table": waiting, "seat": 0},
                {"type": "act", "table": playing, "token": token, "seq": listed[playing]["seq"],
                 "cid": 1, "command": {"type": "play", "data": {"card": "2C"}}},
                {"type": "leave", "table": playing, "token": token, "give_up": True},
                {"type": "report", "table": finished, "note": "it froze"}):
            reply = viewer.request(request)
            assert reply["type"] == protocol.ERROR, reply
            assert reply["code"] == durability.READ_ONLY, reply
            assert "--read-only" in reply["reason"]
        # No bot will move: a read-only server wakes none (none is due at any table).
        service = server.service
        assert not service.master.bot_turns.bot_queue
        assert all(table.bot_due is None for table in service.tables.values())
        assert {t["id"]: t["seq"] for t in lobby_state(viewer)} == {
            t: shown[t]["seq"] for t in shown}
        viewer.close()
    assert disk.attempts == 0
    assert files(folder) == kept
