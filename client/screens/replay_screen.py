"""The replay viewer: a recorded game on the table, with transport controls.

Stepping forward plays the event's animation; every other move (back, seek, jumps, another
seat's eyes) rebuilds the state from the log through ``shared.replay`` and shows it at once.
Opened from somewhere (a finished game's Watch the replay), Esc goes back there; opened on its
own (``starhall replay view``), Esc asks before the window closes (Esc first closes whatever is
open, and one press too many would end the program), while its Leave button and closing the
window close it at once (nothing is lost: the log stays where it is). F9 saves a bug report of the
event shown (``client.screens.bug_report``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pygame

from starhall.client.games import hooks_for, view_for
from starhall.client.games.tricks.table import TableView
from starhall.client.net.embedded import known_seating
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch, seat_label
from starhall.client.screens.analysis_panel import Analyst, draw_panel, shown_at
from starhall.client.screens.bug_report import BugReportBox, save_replay_bug_report
from starhall.client.screens.settings_screen import KEY as SETTINGS_KEY
from starhall.client.screens.table_screen import Question, TableScreen
from starhall.client.ui import theme
from starhall.client.ui.summary import DISMISS_KEYS, PASSED_KEYS
from starhall.client.ui.widgets import Hotspots, blit_text, button
from starhall.shared.bugreport import REPORTS_FOLDER
from starhall.shared.logfile import LogError
from starhall.shared.protocol import PLAYER
from starhall.shared.replay import Recording
from starhall.shared.seating import SeatMap, seat_entry

DEFAULT_DATA = "replays"
"""The data folder of the embedded server (``client.net.embedded``)."""
FOOTER = 92
"""The controls' band at the bottom with one row of buttons (a wide window)."""
BUTTON_ROW = 42
"""Each further row of buttons, in a window too narrow for one."""
SIDE = 24
GAP = 8
COUNTER_WIDTH = 130
"""Room right of the slider for the event counter."""
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0)
SECONDS_PER_EVENT = 0.8
EVERYTHING = "all"


def log_names(recording: Recording, seq: int | None = None,
              known: list[SeatMap | None] | None = None) -> list[str]:
    """The seats' names after event ``seq`` (default: the last) as the log records them, as a
    live table shows them. A seat an older log does not name takes its name from ``known``
    (default: the seating file a server keeps beside its log), else "Seat N"."""
    seats = recording.seats_at(seq)
    if None in seats:
        if known is None:
            known = known_seating(list(recording.seating), recording.path)
        seats = [seat if seat is not None else other
                 for seat, other in zip(seats, known, strict=True)]
    return [seat_label(seat, number) for number, seat in enumerate(seats)]


class ReplayScreen:
    def __init__(self, recording: Recording, size: tuple[int, int],
                 view: TableView | None = None, data: str = DEFAULT_DATA,
                 back: bool = False, names: list[str] | None = None) -> None:
        self.recording = recording
        self.known = known_seating(list(recording.seating), recording.path)
        """The seats at the start, those an older log does not name read from beside it once."""
        if names is not None:  # those the table showed: for the seats the log does not name
            self.known = [seat if seat is not None or number >= len(names)
                          else seat_entry(PLAYER, names[number])
                          for number, seat in enumerate(self.known)]
        self.back = back
        """Opened from another screen, which Esc goes back to; else Esc asks first."""
        self.quitting = False
        self._changed = True
        self.data = data
        """The data folder a fork's table goes in ("Play from here"), and bug reports in its
        ``bug-reports/``."""
        self.forked: Any = None
        """The live table of a fork played in this window; the viewer is back when it ends."""
        self.notice: str | None = None
        """Why the last "Play from here" failed."""
        self.game = recording.game
        # Every state, rebuilt once from the log: seeking is then a lookup.
        self.states: list[tuple[int, Any]] = list(recording.states())
        self.position = 0
        """Every replay opens at the start, however it is opened (End is one key away)."""
        self.viewer: int | str | None = EVERYTHING
        self.playing = False
        self.speed_index = 1
        self.clock = 0.0
        self.size = size
        self.view = view_for(self.game.id, view)
        self.done = False
        self.hotspots: Hotspots | None = None
        self.dragging = False
        self.bug_report = BugReportBox(self.save_bug_report)
        """F9 or its button: a report of the event shown, for a developer."""
        self.analyst = Analyst(recording)
        """The Strong bot's analysis, worked out off the window's loop."""
        self.analysis: str | None = None
        """The analysis panel's page ("move" or "costliest"), ``None`` while it is closed
        (A or its button opens it)."""
        self._analysis_seen = -1
        self._marks()
        self._rebuild()

    # --- what happened where ---------------------------------------------------------

    def _marks(self) -> None:
        """Positions for the jump buttons, from the game's table (``GameTable.replay_marks``):
        where a trick ends and a hand starts in a trick game; ``trick_ends`` and
        ``hand_starts`` hold the small and the big jumps, ``jump_words`` their names."""
        small, big = hooks_for(self.view).replay_marks(self.game, self.states)
        self.jump_words = (small[0], big[0])
        self.trick_ends: list[int] = small[1]
        self.hand_starts: list[int] = big[1]

    @property
    def seat(self) -> int | None:
        return self.viewer if isinstance(self.viewer, int) else None

    def view_at(self, position: int) -> dict[str, Any]:
        state = self.states[position][1]
        view = self.game.view(state, self.seat)
        if self.viewer == EVERYTHING:
            snapshot = self.game.snapshot(state)
            view["hands"] = snapshot.get("hands")
            if "stock" in snapshot:  # a patience's face-down stock, in order
                view["stock"] = snapshot["stock"]
        return view

    def _rebuild(self) -> None:
        """A fresh table at the current position: no animation."""
        seq = self.states[self.position][0]
        model = TableModel(self.game.id, self.seat, self.recording.players,
                           self.names_at(seq), table=self.recording.path)
        old = getattr(self, "table", None)
        self.table = TableScreen(model, None, self.view, self.size, footer_height(self.size[0]))
        if not self.back:
            self.table.ask_before_leaving = Question(
                "Close the replay?", "The log stays where it is:", yes="Close",
                yes_key=pygame.K_c, path=str(self.recording.path))
            self.table.only_esc_asks = True  # closing a replay loses nothing
        if old is not None:
            self.table.rules = old.rules  # the rules page stays open, and where it was read
            old.settings.on_save = self.table.settings.on_save  # saving lays out this table
            self.table.settings = old.settings  # and so does the settings sheet
            self.table.question = old.question
        self.table.receive(Batch([], self.view_at(self.position), seq, True))

    def names_at(self, seq: int) -> list[str]:
        """Who sat where after event ``seq``, by name."""
        return log_names(self.recording, seq, self.known)

    # --- moving ------------------------------------------------------------------------

    def seek(self, position: int) -> None:
        self.position = max(0, min(len(self.states) - 1, position))
        self.clock = 0.0
        self._rebuild()

    def step(self) -> None:
        """One event forward, animated."""
        if self.position >= len(self.states) - 1:
            self.playing = False
            return
        for held in self.table.summaries.skip():  # a step moves on past a hand's summary
            self.table.receive(held)
        before = self.states[self.position][1]
        self.position += 1
        seq, _ = self.states[self.position]
        event = self.recording.events[self.position - 1][1]
        shown = self.game.event_view(before, event, self.seat)
        events = [] if shown is None else [
            (seq, {"seq": seq, "type": shown.type, "seat": shown.seat, "data": dict(shown.data)})]
        self.table.model.names = self.names_at(seq)  # someone may have sat down meanwhile
        self.table.receive(Batch(events, self.view_at(self.position), seq, False))

    def jump(self, marks: list[int], forward: bool) -> None:
        if forward:
            target = next((m for m in marks if m > self.position), len(self.states) - 1)
        else:
            target = next((m for m in reversed(marks) if m < self.position), 0)
        self.seek(target)

    def next_viewer(self) -> None:
        order: list[int | str | None] = [EVERYTHING, None, *range(self.recording.players)]
        self.viewer = order[(order.index(self.viewer) + 1) % len(order)]
        self._rebuild()

    # --- the loop ----------------------------------------------------------------------

    # --- playing on from here ------------------------------------------------------

    @property
    def can_fork(self) -> bool:
        """Whether a game goes on after the current position (not over there)."""
        return not self.game.outcome(self.states[self.position][1]).over

    def play_from_here(self) -> None:
        """A live table in the state after the current event, the user in the seat being
        watched (seat 0 when watching as a spectator or seeing everything), bots around."""
        from starhall.client.screens.hosted import start_fork

        self.playing = False
        seq = self.states[self.position][0]
        seat = self.seat if self.seat is not None else 0
        try:
            self.forked = start_fork(self.recording.path, seq, seat, self.data, self.size,
                                     self.recording, open_replay=open_over_table)
        except (ValueError, OSError, LogError) as error:
            self.notice = str(error)
            return
        self.notice = None
        pygame.display.set_caption(f"Starhall — {self.forked.forked.name}")

    def save_bug_report(self, note: str) -> Path:
        return save_replay_bug_report(self.recording, self.states[self.position][0],
                                      self.viewer, note, Path(self.data) / REPORTS_FOLDER)

    def _back_from_fork(self) -> None:
        forked, self.forked = self.forked, None
        forked.close()
        if forked.live.quitting:  # the window was closed while the fork was played
            self.quitting = self.done = True
        pygame.display.set_caption(
            f"Starhall — replay of {os.path.basename(self.recording.path)}")
        self._rebuild()

    def frame(self, dt: float) -> None:
        if self.analysis is not None and self.analyst.version != self._analysis_seen:
            self._analysis_seen = self.analyst.version
            self._changed = True  # a result came back from the analysis
        if self.forked is not None:
            self.forked.frame(dt)
            if self.forked.done:
                self._back_from_fork()
                self._changed = True
            return
        shown = self.bug_report.message
        self.bug_report.tick(dt)
        if self.bug_report.message is not shown:
            self._changed = True
        self.table.update(dt)
        if self.table.leaving:
            self.done = True
            self.quitting = self.table.quitting
        if self.playing:
            speed = SPEEDS[self.speed_index]
            self.clock += dt * speed
            if (self.clock >= SECONDS_PER_EVENT and not self.table.animator.busy
                    and not self.table.summaries.active):  # playing waits for a summary
                self.clock = 0.0
                self.step()
            # Faster speeds also hurry the animations along.
            self.table.animator.advance(dt * (speed - 1) if speed > 1 else 0.0)

    # --- when to draw, and closing the window ---------------------------------------

    def redraw_after(self) -> float | None:
        """0 while playing, dragging or after a change; see ``TableScreen.redraw_after``."""
        if self.forked is not None:
            due: float | None = self.forked.redraw_after()
            return 0.0 if self._changed else due
        if self._changed or self.playing or self.dragging:
            return 0.0
        if self.bug_report.open:
            return 0.25  # its blinking caret
        if self.analysis is not None and self.analyst.busy:
            return 0.1  # its progress
        return self.table.redraw_after()

    def wait(self, timeout: float) -> None:
        if self.forked is not None:
            self.forked.wait(timeout)
        else:
            import time

            time.sleep(timeout)

    def quit_requested(self) -> bool:
        """Closing the window closes a replay at once (a fork played in it may ask first)."""
        self._changed = True
        if self.forked is not None:
            return bool(self.forked.quit_requested())
        self.done = self.quitting = True
        return True

    def resize(self, size: tuple[int, int]) -> None:
        self._changed = True
        self.size = size
        self.table.footer = footer_height(size[0])
        self.table.resize(size)
        if self.forked is not None:
            self.forked.resize(size)

    def handle(self, event: pygame.event.Event) -> None:
        self._changed = True
        if self.forked is not None:
            self.forked.handle(event)
            return
        if self.table.question is not None:  # it takes every input
            self.table.handle(event, self.hotspots)
            self.done = self.table.leaving
            self.quitting = self.table.quitting
            return
        if self.bug_report.handle(event, self.hotspots):
            self.playing = False  # the report is of the event shown when it was asked for
            return
        if self.table.settings.open or (event.type == pygame.KEYDOWN
                                        and event.key == SETTINGS_KEY):
            self.table.handle(event, self.hotspots)  # the sheet takes every input
            return
        if event.type == pygame.KEYDOWN and not self.table.rules.open:
            self.key(event.key, event.mod)
            return
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.hotspots:
            spot = self.hotspots.at(event.pos)
            if spot is not None and spot.action[0] == "replay":
                self.control(spot.action[1], event.pos)
                return
            if spot is not None and spot.action[0] == "analysis":
                self.analysis_action(*spot.action[1:])
                return
        if event.type == pygame.MOUSEBUTTONUP:
            self.dragging = False
        if event.type == pygame.MOUSEMOTION and self.dragging:
            self._slide(event.pos)
        self.table.handle(event, self.hotspots)
        if self.table.leaving:
            self.done = True

    def key(self, key: int, mod: int = 0) -> None:
        if key in DISMISS_KEYS and self.table.summaries.handle(
                pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod)):
            return  # Enter, Space or Esc closes a hand's summary first
        actions = {
            pygame.K_SPACE: "play", pygame.K_RIGHT: "step", pygame.K_LEFT: "back",
            pygame.K_RIGHTBRACKET: "next_trick", pygame.K_LEFTBRACKET: "previous_trick",
            pygame.K_PAGEDOWN: "next_hand", pygame.K_PAGEUP: "previous_hand",
            pygame.K_HOME: "start", pygame.K_END: "end", pygame.K_v: "viewer",
            pygame.K_f: "fork", pygame.K_a: "analysis",
            pygame.K_PLUS: "faster", pygame.K_EQUALS: "faster", pygame.K_KP_PLUS: "faster",
            pygame.K_MINUS: "slower", pygame.K_KP_MINUS: "slower",
        }
        if key in actions:
            self.control(actions[key])  # a step moves on past a hand's summary
        elif self.table.summaries.shown is None or key in PASSED_KEYS:
            # a summary up takes the table's own keys (S, L, B …), not F1's rules page
            self.table.key(key)
            self.done = self.table.leaving

    def control(self, name: str, pos: tuple[int, int] | None = None) -> None:
        if name == "play":
            self.playing = not self.playing
            if self.playing and self.position >= len(self.states) - 1:
                self.seek(0)
        elif name == "step":
            self.playing = False
            self.table.animator.skip_all()
            self.step()
        elif name == "back":
            self.playing = False
            self.seek(self.position - 1)
        elif name == "next_trick":
            self.jump(self.trick_ends, True)
        elif name == "previous_trick":
            self.jump(self.trick_ends, False)
        elif name == "next_hand":
            self.jump(self.hand_starts, True)
        elif name == "previous_hand":
            self.jump(self.hand_starts, False)
        elif name == "start":
            self.seek(0)
        elif name == "end":
            self.seek(len(self.states) - 1)
        elif name == "faster":
            self.speed_index = min(len(SPEEDS) - 1, self.speed_index + 1)
        elif name == "slower":
            self.speed_index = max(0, self.speed_index - 1)
        elif name == "viewer":
            self.next_viewer()
        elif name == "analysis":
            self.analysis = None if self.analysis is not None else "move"
        elif name == "fork" and self.can_fork:
            self.play_from_here()
        elif name == "slider" and pos is not None:
            self.dragging = True
            self._slide(pos)

    def analysis_action(self, name: str, *where: int) -> None:
        """A click in the analysis panel: a page, closing it, or a costly decision to jump
        to (seen through the eyes of the seat that made it)."""
        if name in ("move", "costliest"):
            self.analysis = name
        elif name == "close":
            self.analysis = None
        elif name == "jump":
            seq, seat = where
            self.playing = False
            self.viewer = seat
            self.analysis = "move"
            self.seek(next(i for i, (at, _) in enumerate(self.states) if at == seq))

    def _slider_rect(self, surface_size: tuple[int, int]) -> pygame.Rect:
        width, height = surface_size
        return pygame.Rect(SIDE, height - footer_height(width) + 14,
                           width - 2 * SIDE - COUNTER_WIDTH, 18)

    def _slide(self, pos: tuple[int, int]) -> None:
        rect = self._slider_rect(self.size)
        fraction = (pos[0] - rect.x) / max(1, rect.w)
        target = round(max(0.0, min(1.0, fraction)) * (len(self.states) - 1))
        if target != self.position:
            self.seek(target)

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        self._changed = False
        if self.forked is not None:
            self.forked.draw(surface)
            return
        hotspots = self.table.draw(surface, on_top=False)
        width, height = surface.get_size()
        footer = pygame.Rect(0, height - footer_height(width), width, footer_height(width))
        pygame.draw.rect(surface, theme.PANEL, footer)
        pygame.draw.line(surface, theme.PANEL_EDGE, footer.topleft, footer.topright, 2)
        slider = self._slider_rect((width, height))
        pygame.draw.rect(surface, theme.FELT_DARK, slider, border_radius=9)
        last = max(1, len(self.states) - 1)
        for mark in self.hand_starts:
            x = slider.x + slider.w * mark / last
            pygame.draw.line(surface, theme.PANEL_EDGE, (x, slider.y - 3), (x, slider.bottom + 3),
                             2)
        filled = slider.copy()
        filled.w = round(slider.w * self.position / last)
        pygame.draw.rect(surface, theme.FELT_LIGHT, filled, border_radius=9)
        knob = (slider.x + filled.w, slider.centery)
        pygame.draw.circle(surface, theme.GOLD, knob, 11)
        hotspots.add(slider.inflate(0, 16), "replay", "slider")
        mouse = pygame.mouse.get_pos()
        for rect, label, action, size in control_places(self.controls(), width,
                                                        footer.y + 46):
            button(surface, hotspots, rect, label, "replay", action,
                   enabled=action != "fork" or self.can_fork,
                   hovered=rect.collidepoint(mouse), size=size)
        seq = self.states[self.position][0]
        blit_text(surface, f"event {seq} / {self.recording.last_seq}", 15, theme.TEXT_DIM,
                  "midright", (width - 24, slider.centery))
        if self.notice:
            blit_text(surface, self.notice, 15, theme.ALERT, "midbottom",
                      (self.table.layout.table.centerx, footer.y - 8),
                      max_width=self.table.layout.table.w - 32)
        if self.analysis is not None and not self.table.sheet_open:
            seq, state = self.states[self.position]
            names = self.names_at(seq)
            draw_panel(surface, hotspots, self.table.layout.table, self.analyst, self.analysis,
                       shown_at(self.recording, self.game, state, seq, self.seat, names),
                       names, mouse)
        # As at a live table: no button over an open sheet (F9 still works).
        spots = hotspots if self.bug_report.open or not self.table.sheet_open else None
        self.bug_report.draw(surface, self.table.layout.table, spots, mouse)
        self.table.draw_on_top(surface, hotspots)
        self.hotspots = hotspots

    def controls(self) -> list[tuple[str, str, int]]:
        """The footer's buttons (label, action, font size), as wide as ``WIDTHS`` says: the
        transport first, then the speed, whose eyes the table is seen through, the analysis
        panel and Play from here."""
        small, big = self.jump_words
        transport = [(f"|< {big}", "previous_hand"), (f"< {small}", "previous_trick"),
                     ("< step", "back"), ("Pause" if self.playing else "Play", "play"),
                     ("step >", "step"), (f"{small} >", "next_trick"), (f"{big} >|", "next_hand")]
        seen = {EVERYTHING: "everything", None: "a spectator"}.get(
            self.viewer, self.table.model.name(self.viewer)  # type: ignore[arg-type]
            if isinstance(self.viewer, int) else "")
        return [*((label, action, 15) for label, action in transport),
                (f"speed ×{SPEEDS[self.speed_index]:g}", "faster", 15),
                (f"seeing: {seen}  [V]", "viewer", 14),
                ("Analysis  [A]", "analysis", 15),
                ("Play from here  [F]", "fork", 15)]

    def close(self) -> None:
        self.analyst.close()
        if self.forked is not None:
            forked, self.forked = self.forked, None
            forked.close()


TRANSPORT = 7
"""How many of the controls move through the game (the rest: speed, eyes, analysis, Play from
here)."""
WIDTHS = (86,) * TRANSPORT + (100, 170, 110, 160)
"""The controls' widths, in order."""


def _row_width(widths: list[int] | tuple[int, ...]) -> int:
    return sum(widths) + GAP * (len(widths) - 1)


def one_row(width: int) -> bool:
    """Whether every control fits one row in a window ``width`` pixels wide."""
    return _row_width(WIDTHS) <= width - 2 * SIDE


def footer_height(width: int) -> int:
    """The controls' band in a window ``width`` pixels wide: one row of buttons when they
    all fit, else two (the transport, then the rest)."""
    return FOOTER if one_row(width) else FOOTER + BUTTON_ROW


def control_places(controls: list[tuple[str, str, int]], width: int, top: int
                   ) -> list[tuple[pygame.Rect, str, str, int]]:
    """Each control's (label, action, font size) placed: its rectangle, label, action and
    size, in rows from ``top`` down, from the left, Play from here against the right edge;
    a row too wide for the window shares its width out evenly."""
    rows = [controls] if one_row(width) else [controls[:TRANSPORT], controls[TRANSPORT:]]
    places = []
    room = width - 2 * SIDE
    start = 0
    for number, row in enumerate(rows):
        widths = WIDTHS[start:start + len(row)]
        start += len(row)
        spare = room - GAP * (len(row) - 1)
        scale = min(1.0, spare / max(1, sum(widths)))
        x = SIDE
        for (label, action, size), wide in zip(row, widths, strict=True):
            rect = pygame.Rect(x, top + number * BUTTON_ROW, int(wide * scale), 34)
            if action == "fork":
                rect.right = max(rect.right, width - SIDE)
            places.append((rect, label, action, size))
            x = rect.right + GAP
    return places


def open_over_table(recording: Recording, size: tuple[int, int], names: list[str]
                    ) -> ReplayScreen:
    """The viewer on a game just played, opened over its table (``LiveTable``'s Watch the
    replay, a ``live.ReplayOpener``): Esc goes back to the table, and the seats are named as
    the table named them."""
    return ReplayScreen(recording, size, back=True, names=names)
