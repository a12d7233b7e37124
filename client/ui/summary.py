"""The hand (or round) summary every game's table can show: a titled panel of lines and a
small table of seats, which stays until the player dismisses it (a click, Enter, Space or
Esc) or, when the player's settings say so, for ``summary_delay`` seconds.

A table screen keeps a ``SummaryGate``: a game offers a summary when a batch ends a hand; the
gate shows it once the animation before it has played, and holds the batches that come
after it (the next deal) until the summary is gone, so nothing of the next hand moves while
the player reads the last one. The game's table (``GameTable.summary``) builds the summary
from the view at the hand's end; see ``client.games.tricks.scores.hand_summary`` for the trick
games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pygame

from starhall.client.ui import fonts, theme
from starhall.client.ui.widgets import Hotspots, blit_text, panel, shade

DISMISS_KEYS = (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE, pygame.K_ESCAPE)
PASSED_KEYS = (pygame.K_F1, pygame.K_F2, pygame.K_F9)
"""Keys a summary lets through: the rules page, the settings and a bug report."""
LINE_SIZE = 17
ROW_SIZE = 16
TITLE_SIZE = 26


def default_delay() -> float | None:
    """The player's ``summary_delay`` setting; ``None`` (until dismissed) when there are no
    settings to read."""
    try:
        from starhall.client.user import settings

        delay = settings.current().summary_delay
    except Exception:  # no settings module yet, or an unreadable one: keep the panel up
        return None
    return float(delay) if isinstance(delay, int | float) and delay > 0 else None




def fit_size(text: str, size: int, width: int, smallest: int = 11) -> int:
    """The largest font size up to ``size`` at which ``text`` fits ``width`` pixels (text is
    drawn smaller, never squeezed)."""
    while size > smallest and fonts.font(size).size(text)[0] > width:
        size -= 1
    return size


@dataclass
class Summary:
    """A hand's result, as lines of words and a table of seats."""

    title: str
    lines: list[str] = field(default_factory=list)
    """Sentences, each wrapped to the panel's width: "Contract failed: 54 of 57, −3"."""
    header: list[str] = field(default_factory=list)
    """The table's column names (the first is the seats' column)."""
    rows: list[list[str]] = field(default_factory=list)
    """One row per seat: its name, then one cell per column."""
    colours: list[theme.Colour | None] = field(default_factory=list)
    """Each row's seat colour, drawn as a dot before its name."""
    coming: str = "hand"
    """What comes next, as the countdown says it: "next hand in 3 s", "next round in 3 s"."""
    delay: float | None = field(default_factory=default_delay)
    """Seconds it stays; ``None`` until dismissed."""
    left: float | None = None
    done: bool = False

    def __post_init__(self) -> None:
        self.left = self.delay

    def update(self, dt: float) -> None:
        if self.left is not None and not self.done:
            self.left -= max(0.0, dt)
            if self.left <= 0:
                self.done = True

    def dismiss(self) -> None:
        self.done = True

    def handle(self, event: pygame.event.Event) -> bool:
        """Takes every click and every key but ``PASSED_KEYS`` (it is modal: the table's own
        keys, such as S for the score sheet, wait until it is gone); a click and the
        ``DISMISS_KEYS`` close it. ``True`` when it used the event."""
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.dismiss()
            return True
        if event.type == pygame.KEYDOWN and event.key not in PASSED_KEYS:
            if event.key in DISMISS_KEYS:
                self.dismiss()
            return True
        return False

    # --- drawing ----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, area: pygame.Rect, hotspots: Hotspots | None = None
             ) -> pygame.Rect:
        """The panel in the middle of ``area`` (the table, not the score panel); returns it."""
        shade(surface, area)
        width = min(area.w - 24, 680)
        inner = width - 48
        lines = [part for line in self.lines for part in fonts.wrap(line, LINE_SIZE, inner)]
        columns = self._columns(inner)
        title_size = fit_size(self.title, TITLE_SIZE, inner)
        height = 20 + 36 + len(lines) * 24 + (14 if lines else 0)
        if self.rows:
            height += 26 * (len(self.rows) + (1 if self.header else 0)) + 8
        height += 40
        height = min(height, area.h - 16)
        rect = pygame.Rect(0, 0, width, height)
        rect.center = area.center
        panel(surface, rect, 255, radius=14)
        if hotspots is not None:
            hotspots.add(rect, "summary", "dismiss")
        x, y = rect.x + 24, rect.y + 18
        blit_text(surface, self.title, title_size, theme.GOLD, "midtop", (rect.centerx, y))
        y += 40
        for line in lines:
            if y + 22 > rect.bottom - 40:
                break
            blit_text(surface, line, LINE_SIZE, theme.TEXT, "topleft", (x, y))
            y += 24
        if lines:
            y += 14
        if self.rows:
            y = self._draw_rows(surface, x, y, columns, rect.bottom - 40)
        hint = "Click, Enter or Space to continue"
        if self.left is not None and self.delay:
            hint += f" · next {self.coming} in {max(0, int(self.left + 0.999))} s"
        blit_text(surface, hint, 14, theme.TEXT_DIM, "midbottom", (rect.centerx, rect.bottom - 12))
        if self.left is not None and self.delay:
            bar = pygame.Rect(rect.x + 24, rect.bottom - 6, round(inner * self.left / self.delay),
                              3)
            pygame.draw.rect(surface, theme.PANEL_EDGE, bar)
        return rect

    def _columns(self, inner: int) -> list[tuple[int, int, str]]:
        """(right edge or left edge, size, anchor) of each column, the seat's first."""
        cells = max((len(row) for row in [self.header, *self.rows]), default=0)
        if cells <= 1:
            return [(0, inner, "topleft")]
        sizes = [max(fonts.font(ROW_SIZE).size(row[i])[0] if i < len(row) else 0
                     for row in [self.header, *self.rows]) for i in range(cells)]
        name_width = min(sizes[0] + 34, inner // 3)
        rest = [max(50, size + 18) for size in sizes[1:]]
        spare = max(0, inner - name_width - sum(rest))
        columns = [(0, name_width, "topleft")]
        edge = name_width
        for width in rest:
            width += spare // len(rest)
            edge += width
            columns.append((edge, width, "topright"))
        return columns

    def _draw_rows(self, surface: pygame.Surface, x: int, y: int,
                   columns: Sequence[tuple[int, int, str]], bottom: int) -> int:
        if self.header:
            for index, cell in enumerate(self.header):
                if index < len(columns):
                    edge, width, anchor = columns[index]
                    at = (x + 22, y) if index == 0 else (x + edge, y)
                    blit_text(surface, cell, 14, theme.TEXT_DIM, anchor, at)
            y += 24
            pygame.draw.line(surface, theme.PANEL_EDGE, (x, y - 4), (x + columns[-1][0], y - 4))
        for number, row in enumerate(self.rows):
            if y + 22 > bottom:
                break
            colour = self.colours[number] if number < len(self.colours) else None
            if colour is not None:
                pygame.draw.circle(surface, colour, (x + 7, y + 9), 6)
            for index, cell in enumerate(row):
                if index >= len(columns):
                    break
                edge, width, anchor = columns[index]
                if index == 0:
                    size = fit_size(cell, ROW_SIZE, width - 26)
                    blit_text(surface, cell, size, theme.TEXT, "topleft", (x + 22, y))
                else:
                    size = fit_size(cell, ROW_SIZE, width - 8)
                    tone = theme.GOLD if index == len(row) - 1 else theme.TEXT
                    blit_text(surface, cell, size, tone, anchor, (x + edge, y))
            y += 26
        return y


class SummaryGate:
    """Between a table screen and the batches it gets: a summary offered waits until the
    animation before it has played, shows, and holds every later batch until it is gone."""

    def __init__(self) -> None:
        self.pending: Summary | None = None
        self.shown: Summary | None = None
        self.held: list[Any] = []

    @property
    def active(self) -> bool:
        return self.pending is not None or self.shown is not None

    def offer(self, summary: Summary | None) -> None:
        if summary is not None:
            self.pending = summary

    def hold(self, batch: Any) -> bool:
        """Keep ``batch`` for later when a summary is waiting or up; ``True`` when kept."""
        if not self.active:
            return False
        self.held.append(batch)
        return True

    def update(self, dt: float, busy: bool) -> list[Any]:
        """Time passes; returns the held batches to take now that no summary is up."""
        if self.shown is None and self.pending is not None and not busy:
            self.shown, self.pending = self.pending, None
        if self.shown is not None:
            self.shown.update(dt)
            if self.shown.done:
                self.shown = None
        if self.active or not self.held:
            return []
        released, self.held = self.held, []
        return released

    def handle(self, event: pygame.event.Event) -> bool:
        if self.shown is None:
            return False
        used = self.shown.handle(event)
        if self.shown.done:
            self.shown = None
        return used

    def draw(self, surface: pygame.Surface, area: pygame.Rect,
             hotspots: Hotspots | None = None) -> None:
        if self.shown is not None:
            self.shown.draw(surface, area, hotspots)

    def skip(self) -> list[Any]:
        """Forget the summary (the player moved on, as a replay's step does) and give back
        the batches it held, to be taken now."""
        self.pending = self.shown = None
        released, self.held = self.held, []
        return released

    def looks(self) -> tuple[Any, ...]:
        """What changes the picture by itself: which summary is up and its seconds left."""
        shown = self.shown
        if shown is None:
            return (None,)
        return (id(shown), None if shown.left is None else int(shown.left + 0.999))

    def clear(self) -> None:
        """Forget the summary and what it held (a fresh view replaces everything)."""
        self.pending = self.shown = None
        self.held.clear()
