"""Write the golden replays in replays/golden/: short games covering every game, mode and
player count. The test suite verifies them, so an engine change that alters a recorded game
fails loudly. Change a rule on purpose: bump the game's rules_version, then run
``.venv/bin/python tools/make_goldens.py`` and commit the new files."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from starhall.server.sim import simulate  # noqa: E402
from starhall.shared.games import get_game  # noqa: E402

GOLDEN = ROOT / "replays" / "golden"

# (game, players, options, bots), optionally with a sim seed (default 1) and a label for the
# file name when one game and options are recorded more than once — short targets keep the
# files small.
GOLDENS: list[tuple[Any, ...]] = [
    *[("hearts", players, {"mode": mode, "target": 30}, "heuristic")
      for mode in ("exchange", "no_exchange", "blind_trick") for players in (3, 4, 5, 6)],
    *[("hearts", players, {"mode": "anti_trump", "target": 30}, "heuristic")
      for players in (3, 6)],
    ("hearts", 4, {"deck": "classic", "target": 30}, "heuristic"),
    ("hearts", 4, {"qs_breaks_hearts": True, "pass_cards": 0, "target": 30}, "random"),
    ("stars", 4, {"target": 100}, "heuristic"),
    ("stars", 4, {"colored_star": True, "target": 100}, "heuristic"),
    ("star_patience", 1, {"deal": 1}, "hint"),  # won
    ("star_patience", 1, {"deal": 113}, "hint"),  # stuck, then given up
    ("star_patience", 1, {"deal": 113, "undo": False}, "hint"),  # lost
    ("star_patience", 1, {"deal": 2, "undo": True}, "fickle"),  # won, with undos and redos
    *[("what_else", players, {}, "heuristic") for players in (3, 4, 5, 6)],
    ("what_else", 4, {"voluntary_pass": True}, "heuristic,random,heuristic,random"),
    ("what_else", 5, {"star_table": "spread", "opener": 2}, "heuristic,random,heuristic,random,"
                                                            "random"),
    ("stars_and_bars", 2, {}, "greedy,lookahead", 7, "over_200"),  # over 200, ahead by 15+
    ("stars_and_bars", 2, {}, "lookahead,greedy", 304, "lead_50"),  # ahead by over 50
    ("stars_and_bars", 2, {}, "greedy,greedy", 100, "tie"),  # both over 200, under 15 apart
    ("stars_and_bars", 2, {}, "lookahead,random", 1, "claims"),  # random forgets, it claims
]


def golden_name(game: str, players: int, options: dict[str, Any]) -> str:
    parts = [game, f"{players}p", *(f"{k}-{v}" for k, v in sorted(options.items())
                                     if k != "target")]
    return "_".join(str(part).replace(" ", "") for part in parts)


def main(only: list[str]) -> None:
    """Rewrite every golden, or with game ids given, only those games' goldens."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for old in GOLDEN.glob("*.starhall"):
        game_of_file = re.match(r"(.+?)_\d+p", old.name)
        if not only or (game_of_file is not None and game_of_file.group(1) in only):
            old.unlink()
    for game_id, players, options, bots, *more in GOLDENS:
        if only and game_id not in only:
            continue
        seed = more[0] if more else 1
        label = more[1] if len(more) > 1 else ""
        game = get_game(game_id)
        folder = GOLDEN / "tmp"
        _, (path,) = simulate(game, players, options, 1, seed, bots, folder)
        name = golden_name(game_id, players, options) + (f"_{label}" if label else "")
        target = GOLDEN / f"{name}.starhall"
        path.rename(target)
        folder.rmdir()
        print(target.relative_to(ROOT))


if __name__ == "__main__":
    main(sys.argv[1:])
