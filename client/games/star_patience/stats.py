"""The Star's local statistics: games played and won, streaks, and each deal number's best
(and the table's auto-play setting).

Kept in ``stats/star_patience.json`` under the user's data folder (``platformdirs``'
``user_data_dir("starhall")``, or ``$STARHALL_DATA_DIR`` when set, which tests use). The file
is written whole to a temporary file beside it and moved into place (``os.replace``), so a
crash never leaves half a file; an unreadable file counts as no statistics yet.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from starhall.client.user.folders import data_dir
from starhall.shared.atomic_files import write_durably

FILE = Path("stats") / "star_patience.json"




def stats_path() -> Path:
    return data_dir() / FILE


@dataclass(slots=True)
class DealBest:
    """The best game of one deal number: a win beats a loss, then more cards removed, then
    fewer undos."""

    result: str
    cards_removed: int
    undos: int
    played: int = 1
    won: int = 0

    def beaten_by(self, result: str, cards_removed: int, undos: int) -> bool:
        mine = (self.result == "won", self.cards_removed, -self.undos)
        return (result == "won", cards_removed, -undos) > mine

    def describe(self) -> str:
        if self.result == "won":
            return "won" + (f" with {self.undos} undo{'s' if self.undos != 1 else ''}"
                            if self.undos else " without undo")
        return f"lost, {self.cards_removed} of 32 cards removed"


@dataclass(slots=True)
class StarStats:
    played: int = 0
    won: int = 0
    streak: int = 0
    """Games won in a row up to the last one (0 after a loss)."""
    best_streak: int = 0
    deals: dict[str, DealBest] = field(default_factory=dict)
    """By deal number (a string: JSON keys are strings)."""
    autoplay: bool = True
    """The table's setting: play a forced move by itself."""

    def record(self, deal: int | None, result: str, cards_removed: int, undos: int) -> None:
        """One finished game (``result`` ``won`` or ``lost``; a game given up, or left
        unfinished after a decision, is lost)."""
        self.played += 1
        if result == "won":
            self.won += 1
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
        else:
            self.streak = 0
        if deal is None:
            return
        best = self.deals.get(str(deal))
        if best is None:
            best = self.deals[str(deal)] = DealBest(result, cards_removed, undos, 0, 0)
        elif best.beaten_by(result, cards_removed, undos):
            best.result, best.cards_removed, best.undos = result, cards_removed, undos
        best.played += 1
        best.won += int(result == "won")

    def best(self, deal: int | None) -> DealBest | None:
        return None if deal is None else self.deals.get(str(deal))

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0

    # --- the file ------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["version"] = 1
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StarStats:
        deals = {}
        for key, entry in (data.get("deals") or {}).items():
            try:
                deals[str(key)] = DealBest(str(entry["result"]), int(entry["cards_removed"]),
                                           int(entry["undos"]), int(entry.get("played", 1)),
                                           int(entry.get("won", 0)))
            except (KeyError, TypeError, ValueError):
                continue
        return cls(int(data.get("played", 0)), int(data.get("won", 0)),
                   int(data.get("streak", 0)), int(data.get("best_streak", 0)), deals,
                   bool(data.get("autoplay", True)))

    @classmethod
    def load(cls, path: Path | None = None) -> StarStats:
        path = path or stats_path()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls.from_json(data) if isinstance(data, dict) else cls()
        except (OSError, ValueError, TypeError):
            return cls()

    def save(self, path: Path | None = None) -> Path:
        path = path or stats_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps(self.to_json(), indent=1, sort_keys=True)
        write_durably(path, body.encode("utf-8"))
        return path


def record_game(deal: int | None, result: str, cards_removed: int, undos: int,
                path: Path | None = None) -> StarStats:
    """Read the file, add one game, write it back; returns the new statistics. A file that
    cannot be written leaves the statistics in memory only (the game is not lost for it)."""
    stats = StarStats.load(path)
    stats.record(deal, result, cards_removed, undos)
    with contextlib.suppress(OSError):
        stats.save(path)
    return stats
