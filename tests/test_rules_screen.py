"""The rules pages (docs/games/GAME_ID.md) and the window's rules overlay (F1 or "Rules" at
any table), on real pygame surfaces with SDL's dummy driver."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.client.app import open_window
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.client.screens.rules_screen import (
    PAGES_FOLDER,
    SYMBOL_SUITS,
    CodeBlock,
    Heading,
    ListBlock,
    Paragraph,
    Quote,
    RulesOverlay,
    Table,
    clean_mono,
    page_text,
    parse,
    plain,
)
from starhall.client.screens.table_screen import TableScreen
from starhall.client.ui import fonts
from starhall.shared.bots import make_bot
from starhall.shared.games import GAMES, get_game
from starhall.shared.replay import load
from starhall.shared.table import Table as GameTable
from tests.support import ask

ROOT = Path(__file__).resolve().parent.parent
SIZES = [(1280, 720), (800, 600)]


@pytest.fixture(scope="module")
def surface() -> pygame.Surface:
    return open_window(SIZES[0])


def key(target: Any, which: int) -> None:
    target.handle(pygame.event.Event(pygame.KEYDOWN, key=which, mod=0, unicode=""))


def table_key(screen: TableScreen, which: int, hotspots: Any = None) -> None:
    screen.handle(pygame.event.Event(pygame.KEYDOWN, key=which, mod=0, unicode=""), hotspots)


def spot(hotspots: Any, *action: object) -> pygame.Rect:
    for found in reversed(hotspots.spots):
        if found.action[: len(action)] == action:
            return found.rect
    raise AssertionError(f"no hotspot {action}")


def click(screen: TableScreen, hotspots: Any, pos: tuple[int, int]) -> None:
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1), hotspots)


def playing_table(game_id: str, seat: int | None = 0, players: int = 4,
                  sent: list[tuple[str, dict[str, Any]]] | None = None) -> TableScreen:
    """A TableScreen on a game played by random bots until seat 0 (or anyone) is to play."""
    game = get_game(game_id)
    players = players if game.min_players <= players <= game.max_players else game.min_players
    table = GameTable.new(game, players, {})
    bots = [make_bot(game, "random", random.Random(seat_index)) for seat_index in range(players)]
    for deal in range(1, 400):
        if game.chance(table.state) is not None:
            table.shuffle(deal)
            continue
        acting = game.to_act(table.state)
        if 0 in acting and "play" in str(game.legal_actions(table.state, 0)[0].type):
            break
        mover = acting[0]
        table.submit(ask(bots[mover], game, table.state, mover, table))
    model = TableModel(game.id, seat, players, [f"P{s}" for s in range(players)])
    send = None if sent is None else (lambda kind, data: sent.append((kind, data)))
    screen = TableScreen(model, send, size=SIZES[0])
    screen.receive(Batch([], game.view(table.state, seat), table.seq, True))
    return screen


# --- the pages ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_has_a_rules_page(game: str) -> None:
    page = PAGES_FOLDER / f"{game}.md"
    assert page.is_file(), f"{game} has no rules page: write docs/games/{game}.md"
    assert page_text(game) == page.read_text(encoding="utf-8")


def _text_of(blocks: list[Any]) -> str:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, Heading | Paragraph):
            parts.append(plain(block.inline))
        elif isinstance(block, ListBlock):
            for item in block.items:
                parts.append(_text_of(item))
        elif isinstance(block, Table):
            parts += [plain(cell) for row in [block.head, *block.rows] for cell in row]
        elif isinstance(block, CodeBlock):
            parts.append(clean_mono(block.text))
        elif isinstance(block, Quote):
            parts.append(_text_of(block.blocks))
    return "\n".join(parts)


def _pages() -> list[Path]:
    return sorted(PAGES_FOLDER.glob("*.md"))


@pytest.mark.parametrize("page", _pages(), ids=lambda path: path.stem)
def test_every_page_uses_letters_the_font_has(surface: pygame.Surface, page: Path) -> None:
    face = fonts.font(16)
    missing_box = face.metrics("\ue000")[0]  # a private-use character: the "no glyph" box
    text = _text_of(parse(page.read_text(encoding="utf-8")))
    missing = sorted({ch for ch in text if ch not in SYMBOL_SUITS and not ch.isspace()
                      and face.metrics(ch)[0] == missing_box})
    assert not missing, f"{page.name}: the bundled font cannot draw {' '.join(missing)}"


def test_the_player_pages_explain_the_cards() -> None:
    hearts = page_text("hearts") or ""
    for words in ("Stars", "trump", "Queen of Spades", "13 points", "Shooting the moon",
                  "exchange", "no_exchange", "anti_trump", "blind_trick", "deck=classic",
                  "Passing", "lowest total wins", "Ranks"):
        assert words in hearts, words
    stars = page_text("stars") or ""
    for words in ("The Star rule", "Skulls are trump", "Card points", "White Star", "Ranks"):
        assert words in stars, words
    patience = page_text("star_patience") or ""
    for words in ("rank", "no trumps and no card points", "Pairing"):
        assert words in patience, words


# --- the overlay on a table -------------------------------------------------------------


def test_f1_opens_the_rules_and_esc_closes_only_them(surface: pygame.Surface) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    screen = playing_table("hearts", sent=sent)
    hotspots = screen.draw(surface)
    assert not screen.rules.open
    table_key(screen, pygame.K_F1, hotspots)
    assert screen.rules.open
    hotspots = screen.draw(surface)
    spot(hotspots, "rules", "close")
    # Keys the table would use go to the page: no card is played, no overlay of the table opens.
    for which in (pygame.K_RETURN, pygame.K_s, pygame.K_RIGHT, pygame.K_p):
        table_key(screen, which, hotspots)
    assert sent == [] and screen.ui.overlay is None and screen.ui.focus is None
    table_key(screen, pygame.K_ESCAPE, hotspots)
    assert not screen.rules.open
    assert not screen.leaving, "Esc closed the rules and left the table too"
    table_key(screen, pygame.K_F1, hotspots)
    table_key(screen, pygame.K_F1, hotspots)
    assert not screen.rules.open, "F1 closes the page it opened"
    table_key(screen, pygame.K_ESCAPE, hotspots)
    assert screen.leaving, "with the rules closed, Esc leaves the table as before"


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_rules_scroll_with_wheel_keys_and_scrollbar(size: tuple[int, int]) -> None:
    surface = pygame.Surface(size)
    screen = playing_table("stars")
    screen.resize(size)
    table_key(screen, pygame.K_F1)
    hotspots = screen.draw(surface)
    rules = screen.rules
    assert rules.scroll == 0 and rules.max_scroll > 0
    table_key(screen, pygame.K_DOWN, hotspots)
    line = rules.scroll
    assert line > 0
    table_key(screen, pygame.K_PAGEDOWN, hotspots)
    assert rules.scroll > 2 * line
    paged = rules.scroll
    screen.handle(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-2), hotspots)
    assert rules.scroll > paged
    screen.handle(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1), hotspots)
    table_key(screen, pygame.K_PAGEUP, hotspots)
    assert rules.scroll < paged
    table_key(screen, pygame.K_END, hotspots)
    assert rules.scroll == rules.max_scroll
    table_key(screen, pygame.K_PAGEDOWN, hotspots)
    assert rules.scroll == rules.max_scroll, "scrolling stops at the end"
    table_key(screen, pygame.K_HOME, hotspots)
    assert rules.scroll == 0
    hotspots = screen.draw(surface)
    bar = spot(hotspots, "rules", "scrollbar")
    click(screen, hotspots, (bar.centerx, bar.bottom - 2))
    assert rules.scroll > rules.max_scroll // 2, "a click low on the scrollbar goes down"
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=bar.midbottom, button=1),
                  hotspots)
    assert rules.open


def test_the_rules_button_and_the_close_button(surface: pygame.Surface) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    screen = playing_table("stars", sent=sent)
    hotspots = screen.draw(surface)
    button = spot(hotspots, "rules", "open")
    assert button.colliderect(screen.layout.table)
    click(screen, hotspots, button.center)
    assert screen.rules.open
    hotspots = screen.draw(surface)
    # A click on the page over a card of the hand plays nothing.
    for found in hotspots.spots:
        if found.action[0] == "card":
            click(screen, hotspots, found.rect.center)
    assert sent == [] and screen.rules.open
    click(screen, hotspots, spot(hotspots, "rules", "close").center)
    assert not screen.rules.open and not screen.leaving
    hotspots = screen.draw(surface)
    spot(hotspots, "rules", "open")


def test_the_contents_jump_to_a_heading(surface: pygame.Surface) -> None:
    screen = playing_table("hearts")
    table_key(screen, pygame.K_F1)
    hotspots = screen.draw(surface)
    entry = next(found for found in hotspots.spots
                 if found.action[:2] == ("rules", "jump") and "star-rule" in found.action[2])
    click(screen, hotspots, entry.rect.center)
    laid = screen.rules._laid
    assert laid is not None
    assert screen.rules.scroll == laid.anchors[entry.action[2]] - 8


def test_a_spectator_has_the_rules_too(surface: pygame.Surface) -> None:
    screen = playing_table("hearts", seat=None)
    hotspots = screen.draw(surface)
    click(screen, hotspots, spot(hotspots, "rules", "open").center)
    assert screen.rules.open
    screen.draw(surface)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_page_renders(game: str, size: tuple[int, int]) -> None:
    """Each game's page (or the note that it has none) is drawn from top to bottom."""
    surface = pygame.Surface(size)
    rules = RulesOverlay(game)
    rules.show()
    from starhall.client.ui.widgets import Hotspots

    area = surface.get_rect()
    felt = pygame.Rect(0, 0, size[0] * 4 // 5, size[1])
    while True:
        hotspots = Hotspots()
        rules.draw(surface, area, felt, hotspots)
        spot(hotspots, "rules", "close")
        if rules.scroll >= rules.max_scroll:
            break
        before = rules.scroll
        rules.key(pygame.K_PAGEDOWN)
        assert rules.scroll > before
    laid = rules._laid
    assert laid is not None and laid.height > 200
    text = page_text(game)
    if text is not None:
        headings = [line for line in text.splitlines() if line.startswith("#")]
        assert len(laid.headings) == len(headings)


def test_a_game_without_a_page_says_so(surface: pygame.Surface) -> None:
    rules = RulesOverlay("no_such_game")
    assert "no rules page" in plain(rules.blocks[1].inline)  # type: ignore[union-attr]
    assert page_text("../README") is None


# --- the replay viewer -----------------------------------------------------------------------


def test_the_replay_viewer_shows_the_rules(surface: pygame.Surface) -> None:
    golden = sorted((ROOT / "replays" / "golden").glob("hearts_*.starhall"))[0]
    viewer = ReplayScreen(load(golden), SIZES[0])
    viewer.seek(len(viewer.states) // 2)
    viewer.draw(surface)
    key(viewer, pygame.K_F1)
    assert viewer.table.rules.open
    viewer.draw(surface)
    position = viewer.position
    key(viewer, pygame.K_PAGEDOWN)
    key(viewer, pygame.K_RIGHT)
    assert viewer.position == position, "keys scroll the rules, not the recording"
    assert viewer.table.rules.scroll > 0
    viewer.control("step")  # the controls below still work, and the page stays open
    viewer.seek(0)
    assert viewer.table.rules.open and viewer.table.rules.scroll > 0
    viewer.draw(surface)
    key(viewer, pygame.K_ESCAPE)
    assert not viewer.table.rules.open and not viewer.done
    viewer.draw(surface)
    click_at = spot(viewer.hotspots, "rules", "open").center
    viewer.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=click_at, button=1))
    assert viewer.table.rules.open
