"""The docs name every game the program offers: the README's list of games, the protocol's
table of view pages (§4), and a page for each game in docs/games/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from starhall.shared.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def section(text: str, start: str, end: str) -> str:
    """The part of ``text`` from the line starting with ``start`` to the next line starting
    with ``end``."""
    found = re.search(rf"^{re.escape(start)}.*?(?=^{re.escape(end)})", text, re.M | re.S)
    assert found is not None, f"no part from {start!r} to {end!r}"
    return found.group()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_readme_names_every_game_and_its_page(game_id: str) -> None:
    games = section((ROOT / "README.md").read_text(encoding="utf-8"), "Games:", "\n")
    assert f"`{game_id}`" in games
    assert f"`{game_id}.md`" in games


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_has_a_page(game_id: str) -> None:
    page = (DOCS / "games" / f"{game_id}.md").read_text(encoding="utf-8")
    title = page.splitlines()[0]
    assert f"game id `{game_id}`, rules version {GAMES[game_id].rules_version}" in title


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_protocol_links_every_games_view_page(game_id: str) -> None:
    snapshots = section((DOCS / "protocol.md").read_text(encoding="utf-8"), "## 4.", "## 5.")
    link = f"[docs/games/{game_id}.md](games/{game_id}.md)"
    assert f"| `{game_id}` | {GAMES[game_id].title} | {link} |" in snapshots
