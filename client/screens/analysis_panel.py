"""The replay viewer's analysis: at the event shown, what the Strong bot makes of each legal move
of the seat to move (from that seat's eyes only, ``shared/analysis.py``), the move played
marked; and the finished game's costliest decisions, each a jump to its event.

The weighing is done off the window's loop, in two daemon threads (one for the decision shown,
the latest asked for only; one for the whole game, with its progress), which hand their
results back under a lock; the window only reads them when it draws. The whole game's
analysis is the one ``starhall replay analyse`` keeps beside the log (``analysis_cache``): a
game analysed there opens here at once, and one analysed here is there for the command.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygame

from starhall.client.ui import fonts, theme
from starhall.client.ui.widgets import Hotspots, blit_text, button, fitted, panel
from starhall.shared import analysis_cache
from starhall.shared.analysis import (
    SMALLEST,
    Decision,
    NoAnalysis,
    Settings,
    analyse_at,
    analyse_game,
    analyser,
    costliest,
    decisions_to_weigh,
    plus_minus,
)
from starhall.shared.logfile import LogError
from starhall.shared.replay import Recording

PENDING = "pending"
"""``Analyst.decision``'s answer while the decision is being weighed."""
WIDTH = 470
ROW = 24
PAD = 14
COSTLIEST_PER_SEAT = 3
"""At most, each seat's; fewer when the panel has no room for them all."""
TOP_CLEAR = 48
NAME_ROW = 22
ENTRY = 40
"""A costly decision's two lines."""


class _Stopped(Exception):
    """The viewer closed while a whole game was being weighed."""


class Analyst:
    """The analysis of one recording, worked out in threads and read by the window."""

    def __init__(self, recording: Recording, settings: Settings | None = None) -> None:
        self.recording = recording
        self.settings = settings or Settings()
        self._lock = threading.Condition()
        self._decisions: dict[tuple[int, int], Decision | None | str] = {}
        """Each decision asked for: weighed, nothing to weigh, or why it could not be."""
        self._wanted: tuple[int, int] | None = None
        self._single: threading.Thread | None = None
        self._whole: threading.Thread | None = None
        self._cache_read = False
        self._closed = False
        self.game: dict[int, list[Decision]] | None = None
        """Every seat's decisions of the whole game, once weighed (or read from the cache)."""
        self.progress: tuple[int, int] | None = None
        """Decisions weighed of the whole game, and how many there are, while it is weighed."""
        self.note: str | None = None
        """Why the whole game's analysis could not be kept beside the log, if it could not."""
        self.problem: str | None = None
        """Why the game cannot be analysed at all (no strong bot plays it, a broken log)."""
        self.version = 0
        """Grows with every result handed back: the window draws again."""
        try:
            analyser(recording.game)
        except NoAnalysis as error:
            self.problem = str(error)

    # --- asked by the window -------------------------------------------------------------

    def decision(self, seq: int, seat: int) -> Decision | None | str:
        """The decision of ``seat`` after event ``seq``: ``PENDING`` while it is weighed (it
        is then asked for, the latest asked for first), ``None`` when there is nothing to
        weigh, else why it could not be weighed."""
        with self._lock:
            key = (seq, seat)
            if key in self._decisions:
                return self._decisions[key]
            if self.problem is not None:
                return None
            self._wanted = key
            if self._single is None:
                self._single = threading.Thread(target=self._weigh_singles, daemon=True,
                                                 name="analysis of a decision")
                self._single.start()
            self._lock.notify_all()
        return PENDING

    def weigh_game(self) -> None:
        """Weigh every decision of the game (once), in the background."""
        with self._lock:
            if self._whole is not None or self.problem is not None:
                return
            self.progress = (0, decisions_to_weigh(self.recording))
            self._whole = threading.Thread(target=self._weigh_game, daemon=True,
                                           name="analysis of the game")
            self._whole.start()

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._wanted is not None or self.progress is not None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    # --- in the threads ------------------------------------------------------------------

    def _read_cache(self) -> bytes | None:
        """The log's bytes, and what the cache holds of it taken in (once)."""
        try:
            data = Path(self.recording.path).read_bytes()
        except OSError:
            return None
        with self._lock:
            if self._cache_read:
                return data
            self._cache_read = True
        seats = range(self.recording.players)
        kept = analysis_cache.cached(self.recording.path, data, self.settings, seats)
        with self._lock:
            for found in kept.values():
                for decision in found:
                    self._decisions.setdefault((decision.seq, decision.seat), decision)
            if len(kept) == self.recording.players:
                self.game = kept
                self.progress = None
            self.version += 1
        return data

    def _weigh_singles(self) -> None:
        self._read_cache()
        while True:
            with self._lock:
                while self._wanted is None and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                key = self._wanted
                assert key is not None
                if key in self._decisions:
                    self._wanted = None
                    continue
            problem = None
            try:
                found = analyse_at(self.recording, key[0], key[1], self.settings)
            except (LogError, ValueError) as error:
                found, problem = None, str(error)
            except Exception as error:  # a bot's fault: said in the panel, never a traceback
                found, problem = None, f"the analysis failed here: {error!r}"
            with self._lock:
                self._decisions[key] = found if problem is None else problem
                if self._wanted == key:
                    self._wanted = None
                self.version += 1

    def _weigh_game(self) -> None:
        data = self._read_cache()
        with self._lock:
            if self.game is not None:
                return
        seats = range(self.recording.players)
        kept = analysis_cache.cached(self.recording.path, data, self.settings, seats) \
            if data is not None else {}
        missing = [seat for seat in seats if seat not in kept]
        done = 0

        def tick() -> None:
            nonlocal done
            done += 1
            with self._lock:
                if self._closed:
                    raise _Stopped
                self.progress = (done, self.progress[1] if self.progress else done)
                self.version += 1

        with self._lock:
            self.progress = (0, decisions_to_weigh(self.recording, missing))
        try:
            found = analyse_game(self.recording, self.settings, missing, progress=tick)
        except _Stopped:
            return
        except Exception as error:  # a broken log, or a bot's fault: said in the panel
            words = str(error) if isinstance(error, LogError | ValueError) else \
                f"the analysis failed: {error!r}"
            with self._lock:
                self.problem, self.progress = words, None
                self.version += 1
            return
        fresh = {seat: [d for d in found if d.seat == seat] for seat in missing}
        note = None
        if data is not None and fresh:
            try:
                analysis_cache.keep(self.recording.path, data, self.settings, fresh)
            except OSError as error:
                note = (f"not kept beside the log: {error.strerror or error}")
        with self._lock:
            for decision in found:
                self._decisions[(decision.seq, decision.seat)] = decision
            self.game = {**kept, **fresh}
            self.progress, self.note = None, note
            self.version += 1


@dataclass(frozen=True, slots=True)
class Shown:
    """What the panel shows at an event: the seat whose decision it is, and its name."""

    seq: int
    seat: int | None
    name: str
    to_move: bool
    over: bool = False
    choices: int = 0
    """The seat's legal moves there."""


def draw_panel(surface: pygame.Surface, hotspots: Hotspots, area: pygame.Rect,
               analyst: Analyst, mode: str, shown: Shown, names: list[str],
               mouse: tuple[int, int]) -> pygame.Rect:
    """The panel at the right of ``area`` (the table): ``mode`` "move" (the decision shown)
    or "costliest" (the game's); returns where it went."""
    width = min(WIDTH, area.w - 2 * PAD)
    top = area.y + TOP_CLEAR  # below the table's own buttons at its top right
    rect = pygame.Rect(area.right - width - PAD, top, width, area.bottom - PAD - top)
    if mode == "move" and analyst.problem is None:  # as tall as its page: the table shows
        rect.h = min(rect.h, _move_height(analyst, shown, rect.w - 2 * PAD))
    panel(surface, rect, alpha=235)
    hotspots.add(rect, "analysis", "panel")  # a click on it is the panel's, not the table's
    x, y = rect.x + PAD, rect.y + PAD
    inner = rect.w - 2 * PAD
    tab_w = (inner - 2 * 8 - 84) // 2
    tabs = [("This move", "move"), ("Costliest decisions", "costliest")]
    for index, (label, name) in enumerate(tabs):
        tab = pygame.Rect(x + index * (tab_w + 8), y, tab_w, 30)
        button(surface, hotspots, tab, label, "analysis", name,
               hovered=tab.collidepoint(mouse) or mode == name, size=15)
        if mode == name:
            pygame.draw.line(surface, theme.GOLD, (tab.x + 6, tab.bottom - 3),
                             (tab.right - 6, tab.bottom - 3), 3)
    close = pygame.Rect(rect.right - PAD - 84, y, 84, 30)
    button(surface, hotspots, close, "Close  [A]", "analysis", "close",
           hovered=close.collidepoint(mouse), size=14)
    y += 42
    if analyst.problem is not None:
        _lines(surface, analyst.problem, x, y, inner, theme.ALERT)
        return rect
    if mode == "costliest":
        _draw_costliest(surface, hotspots, rect, analyst, names, x, y, inner, mouse)
    else:
        _draw_move(surface, rect, analyst, shown, x, y, inner)
    return rect


def _move_height(analyst: Analyst, shown: Shown, width: int) -> int:
    """The height the "This move" page takes (all its moves shown)."""
    found = analyst.decision(shown.seq, shown.seat) if shown.seat is not None and \
        shown.to_move else None
    if not isinstance(found, Decision):
        return 2 * PAD + 42 + 70
    rows = sum(len(_wrapped(move.words, 16, _words_width(found, width)))
               for move in found.moves)
    played = _played_words(found)
    played_height = 6 + len(_wrapped(played, 15, width)) * (15 + 6) if played else 0
    return 2 * PAD + 42 + 26 + 64 + 24 + rows * ROW + played_height


def rows_shown(found: Decision, lines_of: list[list[str]], rows: int) -> list[int]:
    """Which moves the list shows in ``rows`` rows (a line of "… more" where some are left
    out): the best ones in order, and the move played always, last if it comes later."""
    count = len(found.moves)
    if sum(len(lines) for lines in lines_of) <= rows:
        return list(range(count))
    rows -= 1  # for "… and N more"
    played = next((index for index, move in enumerate(found.moves) if move.played), None)
    shown: list[int] = []
    used = 0
    for index in range(count):
        if used + len(lines_of[index]) > rows:
            break
        shown.append(index)
        used += len(lines_of[index])
    if played is not None and played not in shown:
        rows -= 1  # for "… more" before it
        while shown and used + len(lines_of[played]) > rows:
            used -= len(lines_of[shown.pop()])
        shown.append(played)
    return shown


def _words_width(found: Decision, width: int) -> int:
    """The width of the moves' words in the list (their value and its spread at the right)."""
    return width - (8 if found.exact else 70) - 80 - 62


def _wrapped(text: str, size: int, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` (a word wider than that, on its own line)."""
    font = fonts.font(size)
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if font.size(trial)[0] > width and line:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def _lines(surface: pygame.Surface, text: str, x: int, y: int, width: int,
           colour: theme.Colour, size: int = 15) -> int:
    """``text`` wrapped to ``width``; returns the y below it."""
    for line in _wrapped(text, size, width):
        blit_text(surface, line, size, colour, "topleft", (x, y))
        y += size + 6
    return y


def _played_words(found: Decision) -> str:
    """What the move played came to, against the best, in a sentence ("" if none was)."""
    played = found.played
    if played is None:
        return ""
    if played is found.best:
        return f"Played: {played.words}, the best move."
    if found.cost < SMALLEST:
        return f"Played: {played.words}, as good as the best."
    sure = "" if found.exact else f" ({plus_minus(found.cost_spread)})"
    return (f"Played: {played.words}, about {found.cost:.1f} {found.unit} below "
            f"{found.best.words}{sure}.")


def _draw_move(surface: pygame.Surface, rect: pygame.Rect, analyst: Analyst, shown: Shown,
               x: int, y: int, width: int) -> None:
    if shown.seat is None:
        _lines(surface, "The game is over here: Costliest decisions lists what each seat's "
                        "choices cost." if shown.over else "No seat decides here (the cards "
                        "are dealt): step on.", x, y, width, theme.TEXT_DIM)
        return
    if not shown.to_move:
        _lines(surface, f"{shown.name} has nothing to decide here. Step on to their next move, "
                        "or see through another seat's eyes [V].", x, y, width, theme.TEXT_DIM)
        return
    found = analyst.decision(shown.seq, shown.seat)
    if found == PENDING:
        _lines(surface, f"The Strong bot is weighing {shown.name}'s moves, from what "
                        f"{shown.name} could see…", x, y, width, theme.TEXT_DIM)
        return
    if isinstance(found, str):
        _lines(surface, found, x, y, width, theme.ALERT)
        return
    if not isinstance(found, Decision):
        _lines(surface, f"{shown.name} has a single legal move here: nothing to weigh."
               if shown.choices == 1 else
               f"Nothing to weigh for {shown.name} here: the Strong bot does not search this "
               "kind of choice.", x, y, width, theme.TEXT_DIM)
        return
    blit_text(surface, fitted(f"{found.where}: {shown.name} to move", 17, width), 17,
              theme.TEXT, "topleft", (x, y))
    y += 26
    deals = max(move.worlds for move in found.moves)
    legend = (f"As {shown.name} saw it: each move's exact {found.unit}, over every order of "
              f"the cards {shown.name} could not see (higher is better)." if found.exact else
              f"As {shown.name} saw it: what the Strong bot expects each move to be worth, in "
              f"{found.unit} (higher is better), ± how sure, from {deals} deals of the cards "
              f"{shown.name} could not see.")
    y = _lines(surface, legend, x, y, width, theme.TEXT_DIM, 14)
    y += 4
    spread_x = x + width - (8 if found.exact else 70)  # exact values have no spread
    signed = "+.1f" if any(move.value < 0 for move in found.moves) else ".1f"
    blit_text(surface, "move", 13, theme.TEXT_DIM, "topleft", (x + 62, y))
    blit_text(surface, found.unit, 13, theme.TEXT_DIM, "topright", (spread_x - 8, y))
    y += 20
    played_words = _played_words(found)
    played_height = len(_wrapped(played_words, 15, width)) * (15 + 6) + 6
    words_width = _words_width(found, width)
    lines_of = [_wrapped(move.words, 16, words_width) for move in found.moves]
    listed = rows_shown(found, lines_of, (rect.bottom - PAD - played_height - y) // ROW)
    for order, index in enumerate(listed):
        move, lines = found.moves[index], lines_of[index]
        if index > (listed[order - 1] + 1 if order else 0):  # moves left out before this one
            left_out = index - (listed[order - 1] + 1 if order else 0)
            blit_text(surface, f"… {left_out} more", 14, theme.TEXT_DIM, "topleft",
                      (x + 62, y))
            y += ROW
        colour = theme.GOLD if move.played else theme.TEXT
        if move.played:
            pygame.draw.rect(surface, theme.FELT_DARK,
                             pygame.Rect(x - 4, y - 2, width + 8, len(lines) * ROW),
                             border_radius=6)
        tag = "played" if move.played else "best" if index == 0 else ""
        blit_text(surface, tag, 13, theme.GOLD if move.played else theme.HIGHLIGHT, "topleft",
                  (x, y + 2))
        for number, line in enumerate(lines):
            blit_text(surface, fitted(line, 16, words_width), 16, colour, "topleft",
                      (x + 62, y + number * ROW))
        value = "all alike" if found.all_alike else format(move.value, signed)
        blit_text(surface, value, 16, colour, "topright", (spread_x - 8, y))
        if not found.all_alike and not found.exact:
            blit_text(surface, plus_minus(move.spread), 14, theme.TEXT_DIM, "topleft",
                      (spread_x, y + 1))
        y += len(lines) * ROW
    if listed and listed[-1] < len(found.moves) - 1:
        blit_text(surface, f"… and {len(found.moves) - 1 - listed[-1]} more", 14,
                  theme.TEXT_DIM, "topleft", (x + 62, y))
        y += ROW
    if played_words:
        _lines(surface, played_words, x, y + 6, width, theme.GOLD, 15)


def _draw_costliest(surface: pygame.Surface, hotspots: Hotspots, rect: pygame.Rect,
                    analyst: Analyst, names: list[str], x: int, y: int, width: int,
                    mouse: tuple[int, int]) -> None:
    game = analyst.game
    if game is None:
        analyst.weigh_game()
        done, total = analyst.progress or (0, 1)
        y = _lines(surface, "The Strong bot weighs every decision of the game, each from its "
                            "seat's eyes…", x, y, width, theme.TEXT_DIM)
        bar = pygame.Rect(x, y + 6, width, 18)
        pygame.draw.rect(surface, theme.FELT_DARK, bar, border_radius=9)
        filled = bar.copy()
        filled.w = round(bar.w * done / max(1, total))
        pygame.draw.rect(surface, theme.FELT_LIGHT, filled, border_radius=9)
        blit_text(surface, f"{done} / {total} moves", 14, theme.TEXT, "center", bar.center)
        return
    y = _lines(surface, "Each seat's dearest choices: the move played, not the Strong bot's "
                        "best, and what it cost. Click one to see it.", x, y, width,
               theme.TEXT_DIM, 14)
    room = rect.bottom - PAD - y - len(names) * NAME_ROW  # beside the names
    each = max(1, min(COSTLIEST_PER_SEAT, room // (ENTRY * max(1, len(names)))))
    for seat, name in enumerate(names):
        if y > rect.bottom - PAD - 2 * ROW:
            break
        dear = costliest(game.get(seat, []), seat, each)
        blit_text(surface, name, 16, theme.HIGHLIGHT, "topleft", (x, y + 2))
        y += NAME_ROW
        if not dear:
            blit_text(surface, "no choice cost anything", 14, theme.TEXT_DIM, "topleft",
                      (x + 12, y))
            y += ROW
        for decision in dear:
            if y > rect.bottom - PAD - ENTRY:
                break
            line = pygame.Rect(x, y - 2, width, ENTRY - 2)
            hovered = line.collidepoint(mouse)
            if hovered:
                pygame.draw.rect(surface, theme.FELT_DARK, line, border_radius=6)
            played = decision.played
            words = played.words if played is not None else "?"
            blit_text(surface, fitted(f"{decision.where}: {words}, not {decision.best.words}",
                                      15, width - 16), 15, theme.TEXT, "topleft", (x + 12, y))
            sure = "" if decision.exact else f" ({plus_minus(decision.cost_spread)})"
            blit_text(surface, fitted(f"cost about {decision.cost:.1f} {decision.unit}{sure}",
                                      14, width - 16), 14,
                      theme.GOLD if hovered else theme.TEXT_DIM, "topleft",
                      (x + 12, y + ENTRY // 2 - 2))
            hotspots.add(line, "analysis", "jump", decision.seq, decision.seat)
            y += ENTRY
    if analyst.note:
        blit_text(surface, fitted(analyst.note, 13, width), 13, theme.TEXT_DIM, "bottomleft",
                  (x, rect.bottom - PAD))


def shown_at(recording: Recording, game: Any, state: Any, seq: int, viewer: int | None,
             names: list[str]) -> Shown:
    """Whose decision the panel shows after event ``seq``: the seat seen through, else the
    seat that moved next (the game's end: none)."""
    seat = viewer
    if seat is None and seq < recording.last_seq:
        seat = recording.event(seq + 1).seat
    if seat is None:
        return Shown(seq, None, "", False, seq >= recording.last_seq)
    choices = len(game.legal_actions(state, seat))
    return Shown(seq, seat, names[seat] if seat < len(names) else f"Seat {seat}", choices > 0,
                 choices=choices)
