"""Every measured figure in the docs names the command that produced it, and the tests run
that command again, so a figure cannot drift from the program.

The convention, in README.md and docs/**/*.md: figures live in a ```` ```console ```` block
right after the marker line ``<!-- figures: rerun by tests/test_doc_figures.py -->``. In it,
a line ``$ starhall …`` is a command, the lines after it (up to the next ``$``) its output
exactly, and a line ``…`` stands for any number of output lines left out. A run too slow for
every test run (a thousand games) is marked ``<!-- figures, slow: … -->`` instead: it is run
again only with ``STARHALL_SLOW_FIGURES=1``, and the same page must show a cheap twin of each
of its commands, the same command with a smaller ``--games`` or ``--deals``. The twin plays
the first games of the same run, so any change that moves the slow figures (an engine, a bot,
the seeding, the summary) changes the twin's output too and fails the test; then run the slow
ones again (``STARHALL_SLOW_FIGURES=1 pytest tests/test_doc_figures.py``) and update them."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from starhall.cli import main

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MARKER = re.compile(r"<!-- figures(?P<slow>, slow)?: .*-->")
ELIDED = "…"
SIZES = ("--games", "--deals")
"""The options that set how big a run is: a cheap twin differs from its slow run in these."""
MEASURED = re.compile(r"\b\d+\.\d+ ?%")
"""A measured rate, as ``sim`` and ``solve`` print them (an even share or a threshold the
rules fix is written otherwise)."""


@dataclass(frozen=True)
class Figure:
    page: Path
    line: int
    """The command's line in the page, 1-based."""
    command: str
    output: tuple[str, ...]
    slow: bool

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[tuple[bool, int, list[str]]]:
    """Each marked block of a page: whether it is slow, the line after its opening fence,
    and its lines. Fails on a ``console`` block without a marker (nobody would check it)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found = []
    for index, line in enumerate(lines):
        if line.strip() != "```console":
            continue
        marker = MARKER.fullmatch(lines[index - 1].strip()) if index else None
        assert marker is not None, (f"{page.relative_to(ROOT)}:{index + 1}: a console block "
                                    f"without a figures marker on the line before it")
        end = lines.index("```", index + 1)
        found.append((marker["slow"] is not None, index + 2, lines[index + 1:end]))
    return found


def figures() -> list[Figure]:
    found = []
    for page in PAGES:
        for slow, first, lines in blocks(page):
            assert lines and lines[0].startswith("$ "), f"{page}:{first}: no command first"
            starts = [at for at, line in enumerate(lines) if line.startswith("$ ")]
            for at, end in zip(starts, [*starts[1:], len(lines)], strict=True):
                found.append(Figure(page, first + at, lines[at][2:], tuple(lines[at + 1:end]),
                                    slow))
    return found


FIGURES = figures()


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """Whether the output lines are the expected ones, each ``…`` any run of lines."""
    pattern = "".join(r"(?:.*\n)*?" if line == ELIDED else re.escape(line) + r"\n"
                      for line in expected)
    return re.fullmatch(pattern, "".join(f"{line}\n" for line in actual)) is not None


def rerun(figure: Figure, capsys: pytest.CaptureFixture[str]) -> None:
    words = shlex.split(figure.command)
    assert words[0] == "starhall", f"{figure.name}: a figure comes from a `starhall` command"
    capsys.readouterr()
    assert main(words[1:]) == 0, f"{figure.name}: `{figure.command}` failed"
    actual = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    if not matches(figure.output, actual):
        pytest.fail(f"{figure.name}: `{figure.command}` no longer prints what the page says; "
                    "it prints:\n" + "\n".join(actual), pytrace=False)


@pytest.fixture
def in_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that writes (logs) writes into a folder of the test's own."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("in_empty_folder")
@pytest.mark.parametrize("figure", [f for f in FIGURES if not f.slow], ids=lambda f: f.name)
def test_the_figures_come_out_of_their_command_again(
        figure: Figure, capsys: pytest.CaptureFixture[str]) -> None:
    rerun(figure, capsys)


@pytest.mark.skipif(os.environ.get("STARHALL_SLOW_FIGURES") != "1",
                    reason="slow figures are rerun with STARHALL_SLOW_FIGURES=1 (minutes)")
@pytest.mark.usefixtures("in_empty_folder")
@pytest.mark.parametrize("figure", [f for f in FIGURES if f.slow], ids=lambda f: f.name)
def test_the_slow_figures_come_out_of_their_command_again(
        figure: Figure, capsys: pytest.CaptureFixture[str]) -> None:
    rerun(figure, capsys)


def run_shape(command: str) -> list[str]:
    """The command with the values that size its run left out."""
    words = shlex.split(command)
    return [word for at, word in enumerate(words) if at == 0 or words[at - 1] not in SIZES]


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.slow], ids=lambda f: f.name)
def test_every_slow_figure_has_a_cheap_twin_on_its_page(figure: Figure) -> None:
    twins = [other for other in FIGURES if not other.slow and other.page == figure.page
             and run_shape(other.command) == run_shape(figure.command)]
    assert twins, f"{figure.name}: no cheap run of `{figure.command}` on the page"


def test_figures_are_found() -> None:
    assert sum(not f.slow for f in FIGURES) >= 5 and any(f.slow for f in FIGURES)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_measured_rate_is_in_a_figures_block(page: Path) -> None:
    """A rate written anywhere else would name no command, and nothing would rerun it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    inside = {first + at for _, first, block in blocks(page) for at in range(len(block))}
    loose = [f"{number}: {line}" for number, line in enumerate(lines, 1)
             if MEASURED.search(line) and number not in inside]
    assert not loose, "rates outside a figures block:\n" + "\n".join(loose)
