"""``starhall replay verify`` and ``starhall replay show``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from shared.replay import Mismatch, load, log_files, verify


def run(args: argparse.Namespace) -> int:
    if args.replay_command == "verify":
        return run_verify(args.paths)
    return run_show(args)


def run_verify(paths: list[str]) -> int:
    files = log_files(paths)
    if not files:
        print("starhall: no log files found", file=sys.stderr)
        return 2
    for path in files:
        result = verify(path)
        if isinstance(result, Mismatch):
            print(result.report())
            return 1
        torn = " (a torn last record was dropped)" if result.torn else ""
        state = "over" if result.over else "in progress"
        print(f"ok {path}: {result.events} events, {result.checkpoints} checkpoints, "
              f"game {state}{torn}")
    print(f"{len(files)} log(s) verified")
    return 0


def _viewer(seat: str | None, players: int) -> int | str | None:
    if seat is None:
        return None
    if seat == "all":
        return "all"
    if not seat.isdigit() or int(seat) >= players:
        raise ValueError(f"--seat takes a seat 0 to {players - 1} or 'all', not {seat!r}")
    return int(seat)


def run_show(args: argparse.Namespace) -> int:
    recording = load(args.path)
    game = recording.game
    viewer = _viewer(args.seat, recording.players)
    last = recording.last_seq
    seq = last if args.at is None else args.at
    if not 0 <= seq <= last:
        raise ValueError(f"--at must be between 0 and {last}, the last event")
    state = recording.state_at(seq)
    outcome = game.outcome(state)
    view = game.snapshot(state) if viewer == "all" else game.view(state, viewer)  # type: ignore[arg-type]
    report: dict[str, Any] = {
        "game": game.id,
        "seq": seq,
        "last_seq": last,
        "over": outcome.over,
        "scores": list(outcome.scores),
        "winners": None if outcome.winners is None else list(outcome.winners),
        "viewer": viewer,
        "view": view,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    who = {None: "a spectator", "all": "everyone"}.get(viewer, f"seat {viewer}")  # type: ignore[call-overload]
    print(f"{args.path}: {game.title}, after event {seq} of {last}, as {who}")
    if seq:
        print(f"last event: {game.describe_event(recording.events[seq - 1][1])}")
    print(f"scores: {report['scores']}" + ("" if not outcome.over else
                                          f", over, winners {report['winners']}"))
    for key, value in view.items():
        print(f"  {key}: {value}")
    return 0
