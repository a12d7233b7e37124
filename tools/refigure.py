"""Run a page's figures again and write what they print now into it (the lines the page
keeps, matched by their label; ``…`` stays where it was): after a change that moves them, as
tests/test_doc_figures.py says. ``python -m tools.refigure PAGE [--slow]``; slow blocks only
with ``--slow``. Read the prose around the figures afterwards: it may speak of the old ones."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

from starhall.cli import main
from tests.test_doc_figures import ELIDED, FIGURES, Figure


def label(line: str) -> str:
    """What names a line of a summary: the words before its first figure."""
    return re.split(r"\s{2,}|\s\d", line.strip(), maxsplit=1)[0]


def run(command: str) -> list[str]:
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(out):
        here = os.getcwd()
        os.chdir(folder)
        try:
            assert main(shlex.split(command)[1:]) == 0, f"`{command}` failed"
        finally:
            os.chdir(here)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def refreshed(figure: Figure) -> list[str]:
    actual = run(figure.command)
    kept, at = [], 0
    for line in figure.output:
        if line == ELIDED:
            kept.append(line)
            continue
        while at < len(actual) and label(actual[at]) != label(line):
            at += 1
        if at == len(actual):
            raise SystemExit(f"{figure.name}: no line like {line!r} in what it prints now")
        kept.append(actual[at])
        at += 1
    return kept


def main_(page: str, slow: bool) -> None:
    path = Path(page).resolve()
    lines = path.read_text(encoding="utf-8").splitlines()
    for figure in sorted((f for f in FIGURES if f.page == path and (slow or not f.slow)),
                         key=lambda f: -f.line):
        start = figure.line  # the output follows the command's line (1-based)
        lines[start:start + len(figure.output)] = refreshed(figure)
        print(f"{figure.name}: done", file=sys.stderr)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main_(sys.argv[1], "--slow" in sys.argv[2:])
