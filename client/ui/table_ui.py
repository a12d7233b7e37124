"""The user's own state at a table, which the server never sees: what is selected, hovered,
which overlay is open, the bid being composed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class TableUi:
    selected: list[str] = field(default_factory=list)
    """Cards chosen for a pass, a burial or an exchange's discard, in the order chosen."""
    focus: int | None = None
    """The hand card the keyboard points at."""
    mouse: tuple[int, int] = (-1, -1)
    bid: int | None = None
    overlay: str | None = None
    """``"sheet"``, ``"last"``, ``"help"`` or ``None``."""
    dismissed_game_over: bool = False
    log: list[str] = field(default_factory=list)
    """Recent happenings, one line each, newest last."""

    def say(self, line: str, keep: int = 40) -> None:
        self.log.append(line)
        del self.log[:-keep]

    def toggle(self, code: str) -> None:
        if code in self.selected:
            self.selected.remove(code)
        else:
            self.selected.append(code)
