"""``starhall games``: every game on offer, read from the engines themselves: its title, how
many players it takes, its table options and its bots. Nothing here is written per game, so a
new game in ``shared.games.GAMES`` is listed as soon as it is registered."""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap
from typing import Any

from starhall.shared.bots import bot_kinds, bot_levels, default_bot
from starhall.shared.engine import Game, player_count
from starhall.shared.games import GAMES, get_game
from starhall.shared.options import OptionSpec


def game_info(game: Game[Any]) -> dict[str, Any]:
    """One game as data: the fields of the server's ``welcome`` (docs/protocol.md) and the
    player count in words."""
    return {
        "id": game.id,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "players": player_count(game.min_players, game.max_players),
        "options": [{"name": spec.name, "kind": spec.kind.__name__, "default": spec.default,
                     "help": spec.help,
                     "choices": None if spec.choices is None else list(spec.choices),
                     "minimum": spec.minimum, "maximum": spec.maximum}
                    for spec in game.option_specs],
        "bots": list(bot_kinds(game)),
        "default_bot": default_bot(game),
        "levels": bot_levels(game),
    }


def _word(value: Any) -> str:
    """A value as it is typed after ``--option NAME=``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def accepted_values(spec: OptionSpec) -> str:
    """What an option takes, in words: its choices, or its kind and range."""
    if spec.choices is not None:
        words = [_word(choice) for choice in spec.choices]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    if spec.kind is bool:
        return "true or false"
    if spec.kind is int:
        if spec.minimum is not None and spec.maximum is not None:
            return f"whole number, {spec.minimum} to {spec.maximum}"
        if spec.minimum is not None:
            return f"whole number, at least {spec.minimum}"
        if spec.maximum is not None:
            return f"whole number, at most {spec.maximum}"
        return "whole number"
    return "word"


def describe(game: Game[Any]) -> list[str]:
    """The lines ``starhall games`` prints for one game."""
    lines = [f"{game.id}: {game.title}, {player_count(game.min_players, game.max_players)}"]
    if game.option_specs:
        lines.append("  options (--option NAME=VALUE), each at its default:")
        width = max(len(f"{spec.name}={_word(spec.default)}") for spec in game.option_specs)
        columns = max(60, shutil.get_terminal_size((100, 24)).columns - 1)
        for spec in game.option_specs:
            assignment = f"    {spec.name}={_word(spec.default)}"
            lines.extend(textwrap.wrap(
                f"{spec.help} [{accepted_values(spec)}]", columns,
                initial_indent=f"{assignment:<{width + 6}}", subsequent_indent=" " * (width + 6),
                break_on_hyphens=False))
    else:
        lines.append("  no options")
    best = default_bot(game)
    levels = ", ".join(f"{level.capitalize()} = {kind}" for level, kind in bot_levels(game).items())
    lines.append(f"  levels (--bots LEVEL): {levels}")
    kinds = [f"{kind} (default)" if kind == best else kind for kind in bot_kinds(game)]
    lines.append(f"  bots (--bots KIND): {', '.join(kinds)}")
    return lines


def run(args: argparse.Namespace) -> int:
    games = [get_game(args.game)] if args.game else [GAMES[game_id] for game_id in sorted(GAMES)]
    if args.json:
        print(json.dumps({"games": [game_info(game) for game in games]}, indent=2))
        return 0
    for number, game in enumerate(games):
        if number:
            print()
        print("\n".join(describe(game)))
    return 0
