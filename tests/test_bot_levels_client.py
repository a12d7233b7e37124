"""The window offers bots by level and shows each bot's level beside its name."""

from __future__ import annotations

from starhall.client.net.session import seat_label
from starhall.client.screens.new_table import bot_choices
from starhall.server.games_cli import game_info
from starhall.shared.games import GAMES


def test_the_new_table_form_offers_the_games_levels() -> None:
    info = game_info(GAMES["hearts"])
    assert bot_choices(info) == [("Easy", "random"), ("Normal", "heuristic")]
    assert [label for label, _ in bot_choices(game_info(GAMES["star_patience"]))] == [
        "Easy", "Normal", "Strong"]
    # A server from before levels: its bot kinds.
    assert bot_choices({"bots": ["random", "heuristic"]}) == [
        ("random", "random"), ("heuristic", "heuristic")]


def test_a_bots_level_is_shown_beside_its_name() -> None:
    bot = {"state": "bot", "name": "heuristic bot", "bot": "heuristic", "standin": False,
           "level": "normal"}
    assert seat_label(bot, 1) == "Bruno (Normal)"
    assert seat_label({**bot, "name": "Ada", "standin": True}, 0) == "Ada (Normal)"
    del bot["level"]  # an older log, or a kind that is no level
    assert seat_label(bot, 1) == "Bruno"
