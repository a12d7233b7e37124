"""A table screen: takes batches from the server, turns clicks and keys into commands.

The user's input goes to the server as commands and nothing else changes until the server
answers: a card clicked is sent even when it looks unplayable, so the server's reason for
refusing it is what the user reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from client import sound
from client.animation import Animator
from client.game_views import hooks_for, view_for
from client.layout import Layout
from client.model import TableModel, Update
from client.rules_screen import RulesOverlay
from client.session import Batch
from client.settings_screen import SettingsOverlay, table_button_rect
from client.table_view import TableView
from client.ui import TableUi

Send = Callable[[str, dict[str, Any]], None]


class TableScreen:
    def __init__(self, model: TableModel, send: Send | None, view: TableView | None = None,
                 size: tuple[int, int] = (1280, 720), footer: int = 0) -> None:
        self.model = model
        self.send = send
        """Where commands go; ``None`` when watching or replaying."""
        self.view = view_for(model.game, view)
        """What draws the table: ``TableView`` for trick games, else the game's own
        (``client.game_views``)."""
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

    # --- from the server ---------------------------------------------------------------

    def receive(self, batch: Batch) -> None:
        model = self.model
        before = model.view
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
                sound.attach(steps, self.hooks.sound_cues(event, shown, after))
                for step in steps:
                    self.animator.add(step)
                shown = after
            if not batch.events:
                self.animator.add_settled(batch.view)
            if self.interactive:
                sound.cue_turn(self.animator, before, batch.view)
            model.apply(Update(batch.seq, None, batch.view))
            model.events += batch.events
        for _, event in batch.events:
            line = self.hooks.describe(model, event)
            if line:
                self.ui.say(line)
        self._tidy_ui()
        self.hooks.received(self, batch)

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
            self.send(kind, data)

    def handle(self, event: pygame.event.Event, hotspots: Any) -> None:
        if self.settings.handle(event, hotspots) or self.rules.handle(event, hotspots):
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
        if name in ("sheet", "last"):
            self.ui.overlay = None if self.ui.overlay == name else name
        elif name == "close":
            self.ui.overlay = None
        elif name == "dismiss":
            self.ui.dismissed_game_over = True
        elif name == "leave":
            self.leaving = True

    def card(self, code: str) -> None:
        if not self.interactive or self.ui.overlay:
            return
        if self.hooks.choosing(self.model) is not None:
            self.ui.toggle(code)
        else:
            self.command("play", {"card": code})

    def key(self, key: int) -> None:
        if self.rules.key(key):
            return
        hand = self.model.hand
        if key == pygame.K_s:
            self.button("sheet")
        elif key == pygame.K_l:
            self.button("last")
        elif key == pygame.K_ESCAPE:
            if self.ui.overlay:
                self.ui.overlay = None
            elif self.model.over and not self.ui.dismissed_game_over:
                self.ui.dismissed_game_over = True
            else:
                self.leaving = True
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
        sound.play_all(self.animator.take_cues())
        self.model.tick(dt)
        self.hooks.update(self, dt)

    def draw(self, surface: pygame.Surface) -> Any:
        hotspots = self.view.draw(surface, self.layout, self.model, self.animator, self.ui,
                                  self.interactive)
        layout = self.layout
        self.rules.draw(surface, pygame.Rect(0, 0, layout.width, layout.height - layout.footer),
                        layout.table, hotspots)
        self.settings.draw(surface, pygame.Rect(0, 0, layout.width, layout.height - layout.footer),
                           hotspots, None if self.rules.open else table_button_rect(layout.table))
        return hotspots
