"""Dead code and drift: every function and class the package defines is used somewhere, every
file its code cites exists, and what the games package says a new game needs is what
docs/architecture.md lists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ("server", "client", "shared", "_starhall")
"""The folders installed as the package ``starhall``."""
USERS = (*PACKAGE, "tests", "tools", "bench")
CITED = re.compile(r"(?<![\w/.])((?:bench|tests|tools|docs|replays)/[\w/.-]*\w\.(?:py|md))")
"""A path in the repository named in the code: ``bench/thinking.py``."""
PLACEHOLDERS = ("GAME", "GAME_ID")
"""Parts of a cited path that stand for any game's (``docs/games/GAME_ID.md``)."""


def sources(folders: tuple[str, ...]) -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8")
            for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))}


def test_every_function_and_class_of_the_package_is_used_somewhere() -> None:
    """A module-level function or class whose name appears nowhere but in its own ``def``
    (in the package, the tests, the tools or the benchmarks) is dead code."""
    package = sources(PACKAGE)
    everything = "\n".join(sources(USERS).values()) + (ROOT / "setup.py").read_text()
    words: dict[str, int] = {}
    for word in re.findall(r"\w+", everything):
        words[word] = words.get(word, 0) + 1
    unused = [f"{path.relative_to(ROOT)}: {node.name}"
              for path, text in package.items()
              for node in ast.parse(text).body
              if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
              and words.get(node.name, 0) <= 1]
    assert unused == []


def test_every_file_the_code_cites_exists() -> None:
    cited = {(str(path.relative_to(ROOT)), found)
             for path, text in sources(PACKAGE).items() for found in CITED.findall(text)}
    missing = sorted((path, found) for path, found in cited
                     if not any(part in PLACEHOLDERS for part in re.split(r"[/.]", found))
                     and not (ROOT / found).exists())
    assert missing == []


def test_the_games_package_says_what_a_new_game_needs_where_the_architecture_lists_it() -> None:
    said = ast.get_docstring(ast.parse(
        (ROOT / "shared" / "games" / "__init__.py").read_text(encoding="utf-8"))) or ""
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (heading,) = re.findall(r'docs/architecture\.md``, "([^"]+)"', said)
    assert f"\n## {heading}\n" in architecture
    assert "nothing else" not in said
