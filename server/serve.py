"""``starhall serve``: being written (issue 4)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bind", default=None, metavar="ADDR")
    parser.add_argument("--data", default="replays", metavar="DIR")


def run(args: argparse.Namespace) -> int:
    raise SystemExit("starhall serve is not built yet")
