"""The head start of a move's sync: ``BackgroundSync`` (C, a thread without the GIL) and its
Python stand-in ``SyncWhenWaited`` keep one contract, and ``GroupCommit`` reports a log
durable only once a sync that began after its last write has ended, and reports a failed one
as failed, whichever of the two ran it."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from starhall import shared
from starhall.server import durability
from starhall.shared.logfile import LogWriter

Syncer = durability.BackgroundSync | durability.SyncWhenWaited
KINDS: list[Callable[[], Syncer]] = [durability.SyncWhenWaited]
if durability.BackgroundSync is not durability.SyncWhenWaited:
    KINDS.append(durability.BackgroundSync)


@pytest.fixture(params=KINDS, ids=lambda kind: kind.__name__)
def kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
         ) -> Callable[[], Syncer]:
    made: Callable[[], Syncer] = request.param
    monkeypatch.setattr(durability, "BackgroundSync", made)
    return made


@pytest.fixture
def syncer(kind: Callable[[], Syncer]) -> Iterator[Syncer]:
    made = kind()
    yield made
    made.close()


def test_the_compiled_build_syncs_on_its_own_thread() -> None:
    made = durability.BackgroundSync()
    expected = "BackgroundSync" if shared.build() == "compiled" else "SyncWhenWaited"
    assert type(made).__name__ == expected
    made.close()


def test_a_sync_is_started_then_waited_for_once(syncer: Syncer, tmp_path: Path) -> None:
    with open(tmp_path / "log", "wb") as file:
        file.write(b"a record")
        file.flush()
        assert not syncer.busy
        syncer.start(file.fileno())
        assert syncer.busy
        with pytest.raises(RuntimeError, match="already under way"):
            syncer.start(file.fileno())
        syncer.wait()
        assert not syncer.busy
        with pytest.raises(RuntimeError, match="no sync was started"):
            syncer.wait()
        syncer.start(file.fileno())  # and again
        syncer.wait()


def test_the_stand_in_never_runs_a_sync_before_it_is_waited_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(durability, "_datasync", synced.append)
    syncer = durability.SyncWhenWaited()
    with open(tmp_path / "log", "wb") as file:
        syncer.start(file.fileno())
        assert syncer.busy and not synced
        syncer.wait(spin=0.5)  # nothing to poll for: it syncs at once
        assert synced == [file.fileno()]


def test_a_failed_sync_raises_its_error_when_waited_for(syncer: Syncer) -> None:
    reading, writing = os.pipe()  # a pipe cannot be synced: EINVAL
    try:
        syncer.start(writing)
        with pytest.raises(OSError) as raised:
            syncer.wait()
        assert raised.value.errno == errno.EINVAL
        assert not syncer.busy
    finally:
        os.close(reading)
        os.close(writing)


@pytest.mark.parametrize("spin", [0.0, 1e-6, 0.05])
def test_a_wait_may_poll_before_it_sleeps(syncer: Syncer, tmp_path: Path, spin: float) -> None:
    with open(tmp_path / "log", "wb") as file:
        file.write(b"a record")
        file.flush()
        syncer.start(file.fileno())
        syncer.wait(spin=spin)
        assert not syncer.busy
    reading, writing = os.pipe()
    try:
        syncer.start(writing)
        with pytest.raises(OSError) as raised:
            syncer.wait(spin=spin)
        assert raised.value.errno == errno.EINVAL
    finally:
        os.close(reading)
        os.close(writing)


@pytest.mark.parametrize("spin", [-0.001, 1.5, float("nan")])
def test_a_spin_is_seconds_from_0_to_1(syncer: Syncer, spin: float) -> None:
    with pytest.raises(ValueError, match="spin is seconds"):
        syncer.wait(spin=spin)


def test_closing_waits_for_the_sync_under_way(syncer: Syncer, tmp_path: Path) -> None:
    with open(tmp_path / "log", "wb") as file:
        file.write(b"a record")
        file.flush()
        syncer.start(file.fileno())
        syncer.close()
        syncer.close()  # again: nothing
        assert not syncer.busy
    if isinstance(syncer, durability.SyncWhenWaited):
        return
    with pytest.raises(ValueError, match="closed"):
        syncer.wait()
    with pytest.raises(ValueError, match="closed"):
        syncer.start(0)


def new_log(folder: Path) -> LogWriter:
    return LogWriter.create(folder / "table.starhall", {"kind": "header"})


def test_a_head_start_makes_the_commit_only_wait(kind: Callable[[], Syncer],
                                                 tmp_path: Path) -> None:
    committer = durability.GroupCommit()
    log = new_log(tmp_path)
    try:
        log.append({"kind": "event", "seq": 1})
        assert not committer.head_started
        committer.head_start(log)
        assert committer.head_started
        assert log.written_length == log.appended_length == (tmp_path / log.path.name).stat(
            ).st_size
        assert committer.commit([log]) == []
        assert log.durable_length == log.appended_length
        assert not committer.head_started
    finally:
        committer.close()
        log.close()


def test_what_is_appended_after_the_head_start_is_synced_by_the_commit(
        kind: Callable[[], Syncer], tmp_path: Path) -> None:
    committer = durability.GroupCommit()
    log, other = new_log(tmp_path), LogWriter.create(tmp_path / "other.starhall", {"k": 1})
    try:
        log.append({"kind": "event", "seq": 1})
        committer.head_start(log)
        started = log.written_length
        log.append({"kind": "event", "seq": 2})  # a deal, say, in the same batch
        other.append({"kind": "event", "seq": 1})
        committer.head_start(other)  # one at a time: this one waits for the commit
        assert other.written_length < other.appended_length
        assert committer.commit([log, other]) == []
        assert log.durable_length == log.written_length > started
        assert other.durable_length == other.written_length
    finally:
        committer.close()
        log.close()
        other.close()


def test_a_head_start_whose_sync_fails_is_reported_by_the_commit(
        kind: Callable[[], Syncer], tmp_path: Path) -> None:
    reading, writing = os.pipe()
    committer = durability.GroupCommit()
    piped = LogWriter(tmp_path / "piped.starhall", writing, 0)
    try:
        piped.append({"kind": "event", "seq": 1})
        committer.head_start(piped)
        [(failed, error)] = committer.commit([piped])
        assert failed is piped and error.errno == errno.EINVAL
        assert piped.durable_length == 0  # never said to be on disk
        piped.append({"kind": "event", "seq": 2})
        committer.head_start(piped)
        piped.append({"kind": "event", "seq": 3})  # synced again by the commit: failing twice
        assert [failed for failed, _ in committer.commit([piped])] == [piped]  # said once
    finally:
        committer.close()
        os.close(reading)
        os.close(writing)


@pytest.mark.skipif(durability.BackgroundSync is durability.SyncWhenWaited
                    or not hasattr(os, "fork"),
                    reason="the C thread is not built here")
def test_a_forked_child_refuses_the_parents_sync_thread_and_closes_quietly(
        tmp_path: Path) -> None:
    syncer = durability.BackgroundSync()
    pid = os.fork()
    if pid == 0:  # the child: a start would wait for ever on a thread it does not have
        try:
            syncer.start(0)
        except RuntimeError:
            try:
                syncer.wait()
            except RuntimeError:
                syncer.close()
                os._exit(0)
        os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with open(tmp_path / "log", "wb") as file:  # the parent's thread still works
        file.write(b"a record")
        file.flush()
        syncer.start(file.fileno())
        syncer.wait()
    syncer.close()
