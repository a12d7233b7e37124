"""A table screen: takes batches from the server, turns clicks and keys into commands.

The user's input goes to the server as commands and nothing else changes until the server
answers. A greyed-out card (not in the view's playable cards) is sent like any other: the
server's refusal says why it may not be played ("you must follow suit: …"); the client does
not work out a reason of its own.

Esc closes what is on top (a question, the rules page, an overlay, the game-over box) and only
then offers to leave; leaving a game that is not over asks first (``Question``), and so does
closing the window. When a game ends, the game's own end box can make room for the shared
``GameOverPanel``: Play again, Watch the replay, and where the game's log was saved.

The screen is drawn only when something changed or moves (``redraw_after``): input, a batch
from the server, an animation, or a timer a game's table asks for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pygame

from starhall.client.games import hooks_for, view_for
from starhall.client.games.tricks.scores import hand_ended
from starhall.client.games.tricks.table import TableView
from starhall.client.net.model import TableModel, Update
from starhall.client.net.session import Batch
from starhall.client.screens.rules_screen import RulesOverlay
from starhall.client.screens.settings_screen import SettingsOverlay
from starhall.client.ui import fonts, sound, theme
from starhall.client.ui.animation import Animator, Step
from starhall.client.ui.layout import Layout, settings_button_rect
from starhall.client.ui.summary import SummaryGate
from starhall.client.ui.table_ui import TableUi
from starhall.client.ui.widgets import Hotspots, blit_text, button, fitted, panel, shade, short_path

Send = Callable[[str, dict[str, Any]], None]
View = dict[str, Any]

LOG_SIZE = 14
"""The game-over panel's line saying where the log is: cut, never shrunk below it."""


@dataclass(slots=True)
class Question:
    """A yes-or-no question over the table, such as "Leave the table?". The safe answer is
    the default: Esc, Enter and Space give it; the other needs its button or its key."""

    title: str
    detail: str
    yes: str = "Leave"
    """The label of the answer that does it."""
    no: str = "Stay"
    yes_key: int = pygame.K_l
    quitting: bool = False
    """Asked because the window is being closed: yes ends the program."""
    path: str = ""
    """A file the question is about, on a line of its own under ``detail``: cut in its middle
    when long, so its name stays in view."""
    focus: str = "no"
    mouse: tuple[int, int] = (-1, -1)

    def answer(self, event: pygame.event.Event, hotspots: Hotspots | None) -> str | None:
        """``"yes"``, ``"no"`` or ``None`` (not answered yet) for an input event; every
        event stops here while the question is open."""
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                return "no"
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
                return self.focus
            if event.key == self.yes_key:
                return "yes"
            if event.key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_TAB):
                self.focus = "yes" if self.focus == "no" else "no"
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and hotspots:
            spot = hotspots.at(event.pos)
            if spot is not None and spot.action[:1] == ("question",) and spot.action[1] in (
                    "yes", "no"):
                return str(spot.action[1])
        return None

    def draw(self, surface: pygame.Surface, area: pygame.Rect, hotspots: Hotspots) -> None:
        shade(surface, area)
        hotspots.add(area, "question", "shade")  # nothing underneath takes a click
        box = pygame.Rect(0, 0, min(600, area.w - 32), 196)
        box.center = area.center
        panel(surface, box, 255)
        pygame.draw.rect(surface, theme.GOLD, box, 2, border_radius=12)
        blit_text(surface, self.title, 26, theme.GOLD, "midtop", (box.centerx, box.y + 20),
                  max_width=box.w - 32)
        lines = fonts.wrap(self.detail, 17, box.w - 48)[:2 if self.path else 3]
        if self.path:
            lines.append(short_path(self.path, 17, box.w - 48))
        for number, line in enumerate(lines):
            blit_text(surface, line, 17, theme.TEXT, "midtop",
                      (box.centerx, box.y + 64 + 22 * number), max_width=box.w - 32)
        key_name = pygame.key.name(self.yes_key).upper()
        answers = [(f"{self.no}  Esc", "no"), (f"{self.yes}  {key_name}", "yes")]
        width = min(200, (box.w - 60) // 2)
        x = box.centerx - width - 10
        for label, name in answers:
            rect = pygame.Rect(x, box.bottom - 58, width, 40)
            button(surface, hotspots, rect, label, "question", name,
                   hovered=rect.collidepoint(self.mouse), size=16)
            if name == self.focus:  # where Enter goes
                pygame.draw.rect(surface, theme.HIGHLIGHT, rect.inflate(6, 6), 2,
                                 border_radius=10)
            x += width + 20




@dataclass(slots=True)
class GameOverPanel:
    """What to do once a game is over, for every game: Play again (a new table of the same
    game, players and options), Watch the replay (the viewer on the game's log), and where
    the log was saved. A game's end box leaves room for it (``GameTable.game_over_panel``);
    the screen's owner fills it in and answers the requests."""

    log: str | None = None
    """The log's path when this process can read it (its own server's table)."""
    where: str = ""
    """Where the log is when it is not here (a LAN server keeps it)."""
    play_again: bool = True
    """Whether a new table can be opened from here."""
    mouse: tuple[int, int] = (-1, -1)

    def draw(self, surface: pygame.Surface, rect: pygame.Rect, hotspots: Hotspots,
             again: bool = True) -> None:
        """In ``rect``; ``again=False`` leaves Play again out (the game's box has its own)."""
        pygame.draw.rect(surface, theme.FELT_DARK, rect, border_radius=10)
        pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 1, border_radius=10)
        inner = rect.inflate(-24, -16)
        labels = [("Play again  N", "play_again", self.play_again)] if again else []
        labels.append(("Watch the replay  W", "watch_replay", self.log is not None))
        width = min(200, (inner.w - 12) // 2)
        x = inner.x
        for label, name, enabled in labels:
            button_rect = pygame.Rect(x, inner.y, width, 36)
            button(surface, hotspots, button_rect, label, "game_over", name, enabled=enabled,
                   hovered=enabled and button_rect.collidepoint(self.mouse), size=15)
            x += width + 12
        if self.log:
            label = "Log saved: "
            room = inner.w - 4 - fonts.font(LOG_SIZE).size(label)[0]
            where = label + short_path(self.log, LOG_SIZE, room)
        else:
            where = fitted(self.where, LOG_SIZE, inner.w - 4)
        if where:
            blit_text(surface, where, LOG_SIZE, theme.TEXT_DIM, "topleft",
                      (inner.x + 2, inner.y + 44))


SCORE_KEYS = ("phase", "totals", "score_sheet", "contracts", "contract", "declarer", "dealer",
              "moon")
"""What a trick game's view says of a hand's result and of the scores."""


def scores_after_animation(steps: list[Step], before: View) -> list[Step]:
    """The steps of the event that ends a hand, showing the scores as they were (``before``):
    the side panel and the plates do not give the hand's result away while its last trick is
    gathered, before the summary tells it. (Once they have played, the table shows the
    server's view again: ``TableScreen.update``.)"""
    kept = {key: before[key] for key in SCORE_KEYS if key in before}
    for step in steps:
        if step.payload is not None:
            step.payload = {**step.payload, **kept}
    return steps


class TableScreen:
    def __init__(self, model: TableModel, send: Send | None, view: TableView | None = None,
                 size: tuple[int, int] = (1280, 720), footer: int = 0) -> None:
        self.model = model
        self.send = send
        """Where commands go; ``None`` when watching or replaying."""
        self.view = view_for(model.game, view)
        """What draws the table: ``TableView`` for trick games, else the game's own
        (``client.games.base``)."""
        self.hooks = hooks_for(self.view)
        self.animator = Animator()
        self.ui = TableUi()
        self.footer = footer
        self.layout = self._layout(size)
        self.choreographer = self.hooks.choreographer(self.layout)
        self.leaving = False
        self.next_table: dict[str, Any] | None = None
        """Set by a game's table to ask for a new table of the same game with these options
        (a patience's New deal or Restart); ``LiveTable`` opens it."""
        self.rules = RulesOverlay(model.game)
        """The game's rules page (F1 or the Rules button): while open it takes every input."""
        self.settings = SettingsOverlay(model.game, on_save=lambda _: self.resize(
            (self.layout.width, self.layout.height)))
        """The settings (F2 or the Settings button): while open it takes every input."""
        sound.prepare()
        self.ask_before_leaving: Question | None = None
        """What to ask before leaving (set by the screen's owner while leaving would cost
        something, such as a seat at a game not over); ``None``: leave at once."""
        self.only_esc_asks = False
        """The question guards only against one Esc too many (Esc closes what is open first),
        so a click on Leave leaves at once: where leaving loses nothing, as in a replay."""
        self.question: Question | None = None
        """The question open over the table, if any: it takes every input."""
        self._then: Callable[[], None] | None = None
        """What yes to the open question does, when a game's table asked it (else: leave)."""
        self.quitting = False
        """Left by closing the window: the program ends, not only the table."""
        self.game_over: GameOverPanel | None = None
        """The shared game-over panel, when the owner offers one."""
        self.wants: str | None = None
        """What the user asked the owner for: ``"play_again"`` or ``"watch_replay"``."""
        self.summaries = SummaryGate()
        """A hand's summary: shown once the hand's last trick has played, it holds the
        batches after it (the next deal) until the player dismisses it."""
        self._scores_held = False
        """Steps showing the scores from before a hand's end are queued (see
        ``scores_after_animation``)."""
        self._log_after: list[tuple[Step | None, str]] = []
        """Lines for the side log, each waiting for the last animation step of its event
        (``None``: none) to have played."""
        self._game_over_shown = False
        self._changed = True
        self._looks: tuple[Any, ...] = ()

    @property
    def sheet_open(self) -> bool:
        """Whether a sheet that takes the input is open over the table: the rules page, the
        settings, a hand's summary or a question (buttons of the felt's corners are hidden
        or covered meanwhile)."""
        return (self.rules.open or self.settings.open or self.summaries.shown is not None
                or self.question is not None)

    @property
    def interactive(self) -> bool:
        return self.send is not None and self.model.seat is not None

    def _layout(self, size: tuple[int, int]) -> Layout:
        bottom = self.model.seat if self.model.seat is not None else 0
        return Layout(size[0], size[1], self.model.players, bottom, self.footer)

    def resize(self, size: tuple[int, int]) -> None:
        self.layout = self._layout(size)
        self.choreographer = self.hooks.choreographer(self.layout)
        self.animator.skip_all()  # flights were aimed at the old geometry
        self._changed = True

    # --- when to draw ------------------------------------------------------------------

    def changed(self) -> None:
        """Something shown changed: draw again at the next frame."""
        self._changed = True

    def redraw_after(self) -> float | None:
        """Seconds after the last drawing when the table must be drawn again though nothing
        happens: 0 while something changed or moves, else what the game's table asks for (a
        pulsing glow, a blinking caret), ``None`` when it looks the same until something
        happens."""
        if self._changed or self.animator.busy:
            return 0.0
        return self.hooks.redraw_after(self)

    def _appearance(self) -> tuple[Any, ...]:
        """What can change on screen with time alone: compared before and after each frame."""
        model = self.model
        return (model.refusal, model.connection, self.summaries.looks())

    # --- from the server ---------------------------------------------------------------

    def receive(self, batch: Batch) -> None:
        if self.summaries.hold(batch):
            return
        model = self.model
        before = model.view
        ends: list[Step | None] = [None] * len(batch.events)
        if batch.fresh or not before:
            model.apply(Update(batch.seq, None, batch.view))
            model.events += batch.events
            self.animator.skip_all()
            self.animator.add_settled(batch.view)
        else:
            shown = before
            for index, (_seq, event) in enumerate(batch.events):
                last = index == len(batch.events) - 1
                after = batch.view if last else self.hooks.between(shown, event)
                steps = self.choreographer.steps(shown, event, after)
                if isinstance(self.view, TableView) and hand_ended(shown, after):
                    steps = scores_after_animation(steps, shown)
                    self._scores_held = True
                sound.attach(steps, self.hooks.sound_cues(event, shown, after))
                for step in steps:
                    self.animator.add(step)
                ends[index] = steps[-1] if steps else None
                shown = after
            if not batch.events:
                self.animator.add_settled(batch.view)
            if self.interactive:
                sound.cue_turn(self.animator, before, batch.view)
            model.apply(Update(batch.seq, None, batch.view))
            model.events += batch.events
        for (_, event), end in zip(batch.events, ends, strict=True):
            line = self.hooks.describe(model, event)
            if line:
                self._log_after.append((end, line))
        self._say_shown()
        self._tidy_ui()
        if not batch.fresh and before:
            self.summaries.offer(self.hooks.summary(model, before, batch.view))
        self.hooks.received(self, batch)
        self._changed = True

    def say(self, line: str) -> None:
        """Put ``line`` in the side log after the lines of the events taken so far, once
        their animation has played (a round's result after the move that ended it)."""
        self._log_after.append((None, line))
        self._say_shown()

    def _say_shown(self) -> None:
        """Put in the side log the lines of the events whose animation has played (a card
        once it lands, a trick's taker and the hand's result once the trick is gathered)."""
        queued = {id(step) for step in self.animator.queue}
        while self._log_after and (self._log_after[0][0] is None
                                   or id(self._log_after[0][0]) not in queued):
            self.ui.say(self._log_after.pop(0)[1])
            self._changed = True

    def _tidy_ui(self) -> None:
        """Forget choices that no longer fit what the server says the seat may do."""
        hand = set(self.model.hand)
        if self.hooks.choosing(self.model) is None:
            self.ui.selected.clear()
        self.ui.selected = [code for code in self.ui.selected if code in hand]
        bid = self.model.legal.get("bid")
        if not bid:
            self.ui.bid = None
        elif self.ui.bid is None or not bid["min"] <= self.ui.bid <= bid["max"]:
            self.ui.bid = int(bid["min"])
        if self.ui.focus is not None and self.ui.focus >= len(hand):
            self.ui.focus = len(hand) - 1 if hand else None

    # --- from the user -----------------------------------------------------------------

    def command(self, kind: str, data: dict[str, Any]) -> None:
        if self.send is not None:
            self.model.forget_refusal()  # a new move: the server answers it afresh
            self.send(kind, data)

    def handle(self, event: pygame.event.Event, hotspots: Any) -> None:
        self._changed = True
        if self.question is not None:
            self._answer(self.question.answer(event, hotspots))
            return
        if self._game_over_shown and self.game_over is not None:
            if event.type == pygame.MOUSEMOTION:
                self.game_over.mouse = event.pos
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and hotspots:
                spot = hotspots.at(event.pos)
                if spot is not None and spot.action[:1] == ("game_over",):
                    if spot.enabled:
                        self.wants = str(spot.action[1])
                    return
        if self.settings.handle(event, hotspots) or self.rules.handle(event, hotspots):
            return
        if self.summaries.handle(event):
            return
        if self.hooks.handle(self, event, hotspots):
            return
        if event.type == pygame.MOUSEMOTION:
            self.ui.mouse = event.pos
            self.ui.focus = None
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            spot = hotspots.at(event.pos) if hotspots else None
            if spot is not None and spot.enabled:
                self.act(spot.action)
            elif spot is None and self.ui.overlay:
                self.ui.overlay = None
        elif event.type == pygame.KEYDOWN:
            self.key(event.key)

    def act(self, action: tuple[Any, ...]) -> None:
        if self.hooks.act(self, action):
            return
        kind = action[0]
        if kind == "card":
            self.card(action[1])
        elif kind == "bid_step":
            bid = self.model.legal.get("bid") or {}
            if bid and self.ui.bid is not None:
                self.ui.bid = max(int(bid["min"]), min(int(bid["max"]), self.ui.bid + action[1]))
        elif kind == "bid":
            self.command("bid", {"amount": int(action[1])})
        elif kind == "bid_pass":
            self.command("pass", {})
        elif kind == "choose":
            self.command(action[1], {"cards": list(self.ui.selected)})
        elif kind == "decline_exchange":
            self.command("decline_exchange", {})
        elif kind == "button":
            self.button(action[1])

    def button(self, name: str) -> None:
        if name in ("sheet", "last", "buried"):
            self.ui.overlay = None if self.ui.overlay == name else name
        elif name == "close":
            self.ui.overlay = None
        elif name == "dismiss":
            self.ui.dismissed_game_over = True
        elif name == "leave":
            self.leave(clicked=True)

    # --- leaving -----------------------------------------------------------------------

    def leave(self, quitting: bool = False, clicked: bool = False) -> None:
        """Leave the table, asking first when the owner says leaving costs something (a
        click on Leave too, unless ``only_esc_asks``)."""
        if self.ask_before_leaving is None or (clicked and self.only_esc_asks):
            self.leaving, self.quitting = True, quitting
            return
        self.question = replace(self.ask_before_leaving, quitting=quitting, focus="no")
        self._then = None
        self._changed = True

    def quit_requested(self) -> bool:
        """The window is being closed: ``True`` to let it close now, else the question is
        open (closing it again while it is asked closes the window)."""
        if self.ask_before_leaving is None or (self.question is not None
                                               and self.question.quitting):
            self.leaving = self.quitting = True
            return True
        self.leave(quitting=True)
        return False

    def ask(self, title: str, detail: str, yes: str, yes_key: int,
            then: Callable[[], None]) -> None:
        """A question of the game's table (``TableHost.ask``): yes calls ``then``."""
        self.question = Question(title, detail, yes=yes, no="Keep playing", yes_key=yes_key)
        self._then = then
        self._changed = True

    @property
    def asking(self) -> bool:
        return self.question is not None

    def _answer(self, answer: str | None) -> None:
        if answer is None or self.question is None:
            return
        question, self.question = self.question, None
        then, self._then = self._then, None
        if answer != "yes":
            return
        if then is not None:
            then()
        else:
            self.leaving, self.quitting = True, question.quitting

    def escape(self) -> None:
        """Esc: close the topmost thing open, and only with nothing open offer to leave."""
        if self.ui.overlay:
            self.ui.overlay = None
        elif self.model.over and not self.ui.dismissed_game_over:
            self.ui.dismissed_game_over = True
        else:
            self.leave()

    def card(self, code: str) -> None:
        if not self.interactive or self.ui.overlay:
            return
        if self.hooks.choosing(self.model) is not None:
            self.ui.toggle(code)
            return
        # Greyed out or not: the server says whether it may be played, and if not, why.
        self.command("play", {"card": code})

    def key(self, key: int) -> None:
        if self.rules.key(key):
            return
        hand = self.model.hand
        panel = self.game_over if self._game_over_shown else None
        if panel is not None and key == pygame.K_w:
            if panel.log is not None:
                self.wants = "watch_replay"
            return
        if panel is not None and key == pygame.K_n and not self.hooks.plays_again:
            if panel.play_again:
                self.wants = "play_again"
            return
        if key == pygame.K_s:
            self.button("sheet")
        elif key == pygame.K_l:
            self.button("last")
        elif key == pygame.K_b and self.model.view.get("buried"):
            self.button("buried")
        elif key == pygame.K_ESCAPE:
            self.escape()
        elif key in (pygame.K_LEFT, pygame.K_RIGHT) and hand:
            step = -1 if key == pygame.K_LEFT else 1
            start = self.ui.focus if self.ui.focus is not None else (
                -1 if step > 0 else len(hand))
            self.ui.focus = (start + step) % len(hand)
        elif key in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_KP_ENTER):
            if self.ui.focus is not None and self.ui.focus < len(hand):
                self.card(hand[self.ui.focus])
            elif self.hooks.choosing(self.model) is not None:
                choosing = self.hooks.choosing(self.model)
                assert choosing is not None
                self.command(choosing[0], {"cards": list(self.ui.selected)})
            elif self.ui.bid is not None:
                self.command("bid", {"amount": self.ui.bid})
        elif key in (pygame.K_UP, pygame.K_DOWN) and self.ui.bid is not None:
            self.act(("bid_step", 1 if key == pygame.K_UP else -1))
        elif key == pygame.K_p and self.model.legal.get("pass") is True:
            self.command("pass", {})

    # --- every frame -------------------------------------------------------------------

    def update(self, dt: float) -> None:
        self.animator.advance(dt)
        if self._scores_held and not self.animator.busy:
            # The hand's end has played: the scores its steps held back show now.
            self.animator.settled_payload = self.model.view
            self._scores_held = False
            self._changed = True
        self._say_shown()
        for batch in self.summaries.update(dt, self.animator.busy):
            self.receive(batch)
        up = self.summaries.shown is not None  # an overlay: no prompt, no game-over box
        if up and not self.ui.overlay:
            self.ui.overlay = "summary"
        elif not up and self.ui.overlay == "summary":
            self.ui.overlay = None
        sound.play_all(self.animator.take_cues())
        self.model.tick(dt)
        self.hooks.update(self, dt)
        looks = self._appearance()
        if looks != self._looks:
            self._looks = looks
            self._changed = True

    def draw(self, surface: pygame.Surface, on_top: bool = True) -> Any:
        """The table and what is open over it; ``on_top=False`` leaves an open question to
        ``draw_on_top``, for an owner that draws its own things over the table first."""
        self._changed = False
        hotspots = self.view.draw(surface, self.layout, self.model, self.animator, self.ui,
                                  self.interactive)
        layout = self.layout
        place = None
        if (self.game_over is not None and self.model.over and not self.animator.busy
                and not self.summaries.active):
            place = self.hooks.game_over_panel(self)
        self._game_over_shown = place is not None
        if place is not None and self.game_over is not None:
            self.game_over.draw(surface, place, hotspots, again=not self.hooks.plays_again)
        self.summaries.draw(surface, layout.table, hotspots)
        whole = pygame.Rect(0, 0, layout.width, layout.height - layout.footer)
        self.rules.draw(surface, whole, layout.table, hotspots)
        self.settings.draw(surface, whole, hotspots,
                           None if self.rules.open else settings_button_rect(layout.table))
        if on_top:
            self.draw_on_top(surface, hotspots)
        return hotspots

    def draw_on_top(self, surface: pygame.Surface, hotspots: Hotspots) -> None:
        """The question, if one is open, over everything in the window."""
        if self.question is not None:
            layout = self.layout
            self.question.draw(surface, pygame.Rect(0, 0, layout.width, layout.height),
                               hotspots)
