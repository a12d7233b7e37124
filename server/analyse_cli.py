"""``starhall replay analyse``: each seat's costliest decisions in a recorded game, as the
Strong bot weighs them from that seat's eyes (``shared/analysis.py``), with a progress bar,
kept beside the log (``shared/analysis_cache.py``) for the next time and for the viewer."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from starhall.server.seats import known_seating
from starhall.shared import analysis_cache
from starhall.shared.analysis import (
    COSTLIEST,
    DEFAULT_THINK,
    Decision,
    Settings,
    analyse_game,
    analyser,
    costliest,
    decisions_to_weigh,
)
from starhall.shared.logfile import NotALog, is_log_file
from starhall.shared.protocol import MAX_THINK_SECONDS
from starhall.shared.replay import load
from starhall.shared.seating import describe_seat


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="a log file or a bug report")
    parser.add_argument("--seat", type=int, default=None, metavar="N",
                        help="only this seat's decisions (default: every seat's)")
    parser.add_argument("--think", type=float, default=DEFAULT_THINK, metavar="SECONDS",
                        help="the time the Strong bot weighs each decision "
                             f"(default {DEFAULT_THINK:g})")
    parser.add_argument("--count", type=int, default=COSTLIEST, metavar="K",
                        help=f"the decisions listed for each seat (default {COSTLIEST})")
    parser.add_argument("--json", action="store_true", help="machine-readable output: "
                        "every decision weighed, each move's value and spread")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run_analyse(args: argparse.Namespace) -> int:
    """Exit 0 when the analysis is printed (cached or not), 1 for a log that cannot be read
    or breaks the rules, 2 for a mistake in what was asked (no such file, not a log, a seat
    the table has not, a game no strong bot plays)."""
    path = Path(args.path)
    data = path.read_bytes()
    if not is_log_file(data):
        raise NotALog(args.path)
    if not 0 <= args.think <= MAX_THINK_SECONDS:
        raise ValueError(f"--think takes 0 to {MAX_THINK_SECONDS:g} seconds, not "
                         f"{args.think:g}")
    if args.count < 1:
        raise ValueError(f"--count takes 1 or more, not {args.count}")
    recording = load(args.path, data)
    game = recording.game
    analyser(game)  # a game no strong bot plays is refused before any work
    if args.seat is not None and not 0 <= args.seat < recording.players:
        raise ValueError(f"--seat takes a seat 0 to {recording.players - 1}, not {args.seat}")
    seats = list(range(recording.players)) if args.seat is None else [args.seat]
    settings = Settings(think=args.think)
    found = analysis_cache.cached(args.path, data, settings, seats)
    missing = [seat for seat in seats if seat not in found]
    kept_note = "read from " + str(analysis_cache.cache_path(args.path))
    if missing:
        with tqdm(total=decisions_to_weigh(recording, missing), desc="analysing",
                  unit="move", file=sys.stderr, disable=args.quiet) as bar:
            decisions = analyse_game(recording, settings, missing, progress=bar.update)
        fresh = {seat: [d for d in decisions if d.seat == seat] for seat in missing}
        found.update(fresh)
        try:
            analysis_cache.keep(args.path, data, settings, fresh)
            kept_note = "kept in " + str(analysis_cache.cache_path(args.path))
        except OSError as error:
            kept_note = (f"not cached: {analysis_cache.cache_path(args.path)} cannot be "
                         f"written ({error.strerror or error})")
    names = known_seating(recording.seats_at(), args.path)
    if args.json:
        print(json.dumps({
            "game": game.id, "think": settings.think, "cache": kept_note,
            "seats": {str(seat): {"costliest": [d.as_data() for d in
                                                costliest(found[seat], seat, args.count)],
                                  "decisions": [d.as_data() for d in found[seat]]}
                      for seat in seats}}, indent=2, ensure_ascii=False))
        return 0
    print(f"{args.path}: {game.title}, each decision weighed by the Strong bot for "
          f"{settings.think:g} s from its seat's eyes")
    for seat in seats:
        print(_seat_report(describe_seat(names[seat], seat), found[seat], seat, args.count))
    print(kept_note)
    return 0


def _seat_report(name: str, decisions: list[Decision], seat: int, count: int) -> str:
    dear = costliest(decisions, seat, count)
    if not decisions:
        return f"{name}: no decision the Strong bot weighs"
    if not dear:
        return f"{name}: {len(decisions)} decisions weighed, none cost anything"
    lines = [f"{name}: the costliest of {len(decisions)} decisions weighed"]
    lines += [f"  {decision.sentence()}" for decision in dear]
    return "\n".join(lines)
