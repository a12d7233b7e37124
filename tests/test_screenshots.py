"""``python -m tools.screenshots`` keeps working: run into a scratch folder, it saves
every screen a person looks at before a release (each game's table at its smallest and largest
player count in a large and a small window, the summaries, the rules pages, the settings and
colour check, the lobby waiting for players, the leave question and each game's end with the
shared game-over panel), numbered in order and at the size its name says."""

from __future__ import annotations

import re
from pathlib import Path

import pygame
import pytest

from starhall.shared.games import GAMES
from tools import screenshots

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

SMALL = "_800x600"

EXPECTED = {
    "lobby_tables", "lobby_new_table_form", "lobby_waiting_for_players",
    "lobby_waiting_for_players" + SMALL, "lobby_player_left",
    "stars_bidding", "stars_your_turn", "stars_your_turn" + SMALL, "stars_refused",
    "stars_hand_summary", "stars_hand_summary" + SMALL, "stars_leave_question",
    "stars_leave_question" + SMALL, "stars_bug_report_box", "stars_bug_report_saved",
    "stars_game_over", "stars_game_over" + SMALL, "stars_score_sheet",
    "hearts_your_turn_3p", "hearts_your_turn_3p" + SMALL, "hearts_your_turn_6p",
    "hearts_your_turn_6p" + SMALL, "hearts_hand_summary_3p", "hearts_hand_summary_6p",
    "hearts_hand_summary_moon_shot", "hearts_game_over_3p", "hearts_game_over_6p" + SMALL,
    "star_patience_in_progress", "star_patience_in_progress" + SMALL, "star_patience_won",
    "star_patience_lost" + SMALL,
    "what_else_your_turn_3p", "what_else_your_turn_3p" + SMALL, "what_else_six_players",
    "what_else_six_players" + SMALL, "what_else_round_summary_4p",
    "what_else_game_over_3p", "what_else_game_over_6p" + SMALL,
    "stars_and_bars_first_turn", "stars_and_bars_first_turn" + SMALL,
    "stars_and_bars_game_over", "stars_and_bars_game_over" + SMALL,
    "stars_replay_everything", "stars_replay_from_game_over",
    "settings_sheet", "settings_sheet" + SMALL,
}
"""Screens named in the issue that asked for them, without their ``NNN_`` number."""


def test_every_screen_is_saved_numbered_at_its_size(tmp_path: Path) -> None:
    assert screenshots.main([str(tmp_path)]) == 0

    files = sorted(tmp_path.glob("*.png"))
    numbers = [int(path.name[:3]) for path in files]
    assert numbers == list(range(1, len(files) + 1))
    names = {re.sub(r"^\d{3}_", "", path.stem) for path in files}
    assert not EXPECTED - names
    for game in GAMES:  # a game added later gets its pages here too
        assert {f"{game}_rules", f"{game}_rules{SMALL}",
                f"settings_colour_check_{game}"} <= names, game
        assert any(name.startswith(game) and SMALL in name for name in names), game
    for path in files:
        size = re.search(r"_(\d+)x(\d+)$", path.stem)
        expected = tuple(map(int, size.groups())) if size else screenshots.SIZE
        assert pygame.image.load(str(path)).get_size() == expected, path.name
