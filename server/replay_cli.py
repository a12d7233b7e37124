"""``starhall replay verify``, ``show`` and ``diff``: reading logs (and bug reports) from the
command line. Every reader rebuilds games strictly: each event is re-decided by the rules."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from starhall.server.seats import known_seating
from starhall.shared.logfile import LogError, NoLogInside, NotALog, is_log_file
from starhall.shared.replay import (
    Mismatch,
    Recording,
    Verified,
    differences,
    load,
    log_files,
    verify,
)
from starhall.shared.seating import describe_seat


def run(args: argparse.Namespace, stored: dict[str, bytes] | None = None) -> int:
    """``stored``: logs read from a store, by the address that names them (``nats://…/0001``),
    read and reported under that address."""
    if args.replay_command == "verify":
        return run_verify(args.paths, as_json=args.json, stored=stored)
    if args.replay_command == "diff":
        return run_diff(args.first, args.second, as_json=args.json, stored=stored)
    return run_show(args, stored)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=repr))


def _head(path: str, size: int = 1 << 16) -> bytes:
    """The first bytes of a file: enough to tell a log from another file."""
    with open(path, "rb") as file:
        return file.read(size)


def run_verify(paths: list[str], *, as_json: bool = False,
               stored: dict[str, bytes] | None = None) -> int:
    """Every log named (folders searched); exit 1 when any log fails, after checking all."""
    stored = stored or {}
    on_disk = [path for path in paths if path not in stored]
    missing = [path for path in on_disk if not Path(path).exists()]
    if missing:
        print(f"starhall: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    for name in paths:  # every file named is a log before any is verified
        if name not in stored and Path(name).is_dir():
            continue
        if not is_log_file(stored[name] if name in stored else _head(name)):
            print(f"starhall: {NotALog(name)}", file=sys.stderr)
            return 2
    files = [found for name in paths
             for found in ([name] if name in stored else log_files([name]))]
    if not files:
        print("starhall: no log files found", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    for path in files:
        try:
            result = verify(path, stored.get(str(path)))
        except NoLogInside as error:  # nothing wrong: its log is checked where it is kept
            results.append({"path": str(path), "ok": None, "problem": "no_log",
                            "error": error.problem})
            if not as_json:
                print(f"not checked here {path}: {error.problem}")
            continue
        except LogError as error:
            results.append({"path": str(path), "ok": False, "problem": "log", "error": str(error),
                            **_where(error)})
            if not as_json:
                print(error)
            continue
        except OSError as error:
            results.append({"path": str(path), "ok": False, "problem": "file",
                            "error": f"{path}: {error.strerror or error}"})
            if not as_json:
                print(results[-1]["error"])
            continue
        results.append(result.as_data())
        if isinstance(result, Verified) and str(path) not in stored:
            results[-1]["seats"] = known_seating(result.seats, path)  # an older log's, beside it
        if as_json:
            continue
        if isinstance(result, Mismatch):
            print(result.report())
            continue
        print(result.line())
    failed = sum(result["ok"] is False for result in results)
    elsewhere = sum(result["ok"] is None for result in results)
    if as_json:
        _print_json({"logs": results, "failed": failed, "not_checked": elsewhere})
    else:
        print(f"{len(files) - failed - elsewhere} of {len(files)} log(s) verified"
              + (f", {failed} failed" if failed else "")
              + (f", {elsewhere} bug report(s) without their log" if elsewhere else ""))
    return 1 if failed else 0


def _where(error: LogError) -> dict[str, Any]:
    where: dict[str, Any] = {"record": error.record, "offset": error.offset}
    seq = getattr(error, "seq", None)
    if seq is not None:
        where["seq"] = seq
        where["reason"] = getattr(error, "reason", "")
    return where


def _viewer(seat: str | None, players: int) -> int | str | None:
    if seat is None:
        return None
    if seat == "all":
        return "all"
    if not seat.isdigit() or int(seat) >= players:
        raise ValueError(f"--seat takes a seat 0 to {players - 1} or 'all', not {seat!r}")
    return int(seat)


def _seen(recording: Recording, state: Any, viewer: int | str | None) -> dict[str, Any]:
    game = recording.game
    if viewer == "all":
        return game.snapshot(state)
    return game.view(state, viewer if isinstance(viewer, int) else None)


def run_show(args: argparse.Namespace, stored: dict[str, bytes] | None = None) -> int:
    recording = load(args.path, (stored or {}).get(args.path))
    game = recording.game
    viewer = _viewer(args.seat, recording.players)
    last = recording.last_seq
    seq = last if args.at is None else args.at
    if not 0 <= seq <= last:
        raise ValueError(f"--at must be between 0 and {last}, the last event")
    state = recording.state_at(seq)
    outcome = game.outcome(state)
    view = _seen(recording, state, viewer)
    seats = known_seating(recording.seats_at(seq), args.path)
    report: dict[str, Any] = {
        "game": game.id,
        "seq": seq,
        "last_seq": last,
        "over": outcome.over,
        "scores": list(outcome.scores),
        "winners": None if outcome.winners is None else list(outcome.winners),
        "seats": seats,
        "viewer": viewer,
        "view": view,
    }
    if args.json:
        _print_json(report)
        return 0
    who = "a spectator" if viewer is None else "everyone" if viewer == "all" else f"seat {viewer}"
    print(f"{args.path}: {game.title}, after event {seq} of {last}, as {who}")
    if seq:
        print(f"last event: {game.describe_event(recording.events[seq - 1][1])}")
    print(f"scores: {report['scores']}" + ("" if not outcome.over else
                                          f", over, winners {report['winners']}"))
    for number, seat in enumerate(seats):
        print(describe_seat(seat, number))
    for key, value in view.items():
        print(f"  {key}: {value}")
    return 0


def _table_of(recording: Recording) -> tuple[Any, ...]:
    return recording.game.id, recording.players, dict(recording.options)


def run_diff(first: str, second: str, *, as_json: bool = False,
             stored: dict[str, bytes] | None = None) -> int:
    """The first event where two logs of the same table part ways, and both states there.
    Exit 0 when they record the same events, 1 when they differ. Both logs are rebuilt
    strictly first: an illegal event in either is refused (``IllegalEvent``, exit 1)."""
    stored = stored or {}
    a, b = load(first, stored.get(first)), load(second, stored.get(second))
    if _table_of(a) != _table_of(b):
        raise LogError(second, 0, 0, f"not the same table as {first}: game, players or options "
                                     f"differ ({_table_of(a)} and {_table_of(b)})")
    for log in (a, b):  # strict, like every reader: an illegal log is refused, not compared
        log.state_at()
    game = a.game
    shared_length = min(len(a.events), len(b.events))
    seq = next((i + 1 for i in range(shared_length) if a.events[i][1] != b.events[i][1]), None)
    if seq is None and len(a.events) == len(b.events):
        if as_json:
            _print_json({"same": True, "events": len(a.events)})
        else:
            print(f"the two logs record the same {len(a.events)} events")
        return 0
    if seq is None:  # one log goes on where the other ends
        seq = shared_length + 1
    states = [log.state_at(min(seq, log.last_seq)) for log in (a, b)]
    snapshots = [game.snapshot(state) for state in states]
    events = [log.events[seq - 1][1] if seq <= log.last_seq else None for log in (a, b)]
    described = [game.describe_event(event) if event is not None else "(the log has ended)"
                 for event in events]
    found = differences(snapshots[0], snapshots[1])
    if as_json:
        _print_json({
            "same": False, "seq": seq,
            "events": [None if e is None else {"type": e.type, "seat": e.seat,
                                               "data": dict(e.data)} for e in events],
            "states": snapshots,
            "differences": [{"field": d.field, "first": d.recorded, "second": d.rebuilt,
                             "only_in": {"recorded": "first", "rebuilt": "second"}.get(
                                 d.only_in or "")} for d in found],
        })
        return 1
    print(f"the logs agree up to event {seq - 1} and part ways at event {seq}:")
    print(f"  {first}: {described[0]}")
    print(f"  {second}: {described[1]}")
    print(f"the states after event {seq} ({first} / {second}):")
    for difference in found:
        print(f"  {difference.field}: {difference.recorded!r} / {difference.rebuilt!r}")
    if not found:
        print("  (the same)")
    return 1
