"""The settings, edited in the window: F2 or the Settings button at any table, and the
Settings button in the lobby.

A modal sheet over the screen: while it is open it takes every key and click. The rows are
the player's name (typed), animation speed, card size, sound, colour-blind marks and how
long a hand's summary stays; Up/Down or Tab move between rows, Left/Right change a row's
choice, Enter or Save writes them (``client.user.settings.save``) and closes, Esc or Cancel closes
without saving. A save that fails keeps the sheet open and says why in it.

Its second page is the colour check: for each game, everything it tells apart by colour
(``GameTable.colour_key``: the suits, the seats, a game's own coloured things) drawn as seen
normally and as seen with each kind of colour blindness (simulated with the matrices of
Machado, Oliveira and Fernandes, 2009) and without colour, each column saying which of them
come close and whether a shape or mark still tells those apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

import pygame

from starhall.client.ui import fonts, sound, theme
from starhall.client.ui.layout import SETTINGS_LABEL
from starhall.client.ui.symbols import draw_symbol
from starhall.client.ui.widgets import Hotspots, blit_text, button, fitted, panel
from starhall.client.user import settings
from starhall.client.user.settings import Settings, SettingsError

Colour = tuple[int, int, int]

KEY = pygame.K_F2
SHADE = (0, 0, 0, 150)

ROWS = ("name", "animation_speed", "card_size", "sound", "colour_blind", "summary_delay")
LABELS = {"name": "Your name", "animation_speed": "Animation speed", "card_size": "Card size",
          "sound": "Sound", "colour_blind": "Colour-blind marks",
          "summary_delay": "Hand summaries stay"}
CHOICES: dict[str, tuple[tuple[Any, str], ...]] = {
    "animation_speed": ((0.5, "Slower"), (1.0, "Normal"), (1.5, "Faster"), (2.0, "Fastest")),
    "card_size": (("small", "Small"), ("normal", "Normal"), ("large", "Large")),
    "sound": ((True, "On"), (False, "Off")),
    "colour_blind": ((False, "Off"), (True, "On")),
    "summary_delay": ((None, "Until dismissed"), (3.0, "3 seconds"), (5.0, "5 seconds"),
                      (10.0, "10 seconds")),
}
HINTS = {
    "name": "Shown to the others at the tables you sit at from now on. Empty: your login "
            "name, {login}.",
    "animation_speed": "How fast cards fly and tricks are gathered.",
    "card_size": "The size of the cards at trick tables (The Star's fill the table).",
    "sound": "Short sounds for the deal, plays, tricks, Stars, a hand's end and your turn.",
    "colour_blind": "Extra marks on colour-coded things, where a game has them.",
    "summary_delay": "How long a hand's result stays on the table before play goes on.",
}

VISIONS = ("normal", "protanopia", "deuteranopia", "tritanopia", "greyscale")
VISION_TITLES = {"normal": "Normal vision", "protanopia": "Red-blind",
                 "deuteranopia": "Green-blind", "tritanopia": "Blue-blind",
                 "greyscale": "No colour"}
_MATRICES = {
    # Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
CLOSE = 12.0
"""Colours nearer than this (CIE76 ΔE in Lab) count as hard to tell apart."""


# --- colour vision --------------------------------------------------------------------------


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> int:
    value = max(0.0, min(1.0, value))
    c = value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055
    return round(255 * c)


@lru_cache(maxsize=1024)
def simulate(colour: Colour, vision: str) -> Colour:
    """``colour`` as someone with ``vision`` (one of ``VISIONS``) sees it, roughly."""
    if vision == "normal":
        return colour
    rgb = [_linear(c) for c in colour]
    if vision == "greyscale":
        grey = _encoded(0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2])
        return grey, grey, grey
    matrix = _MATRICES[vision]
    r, g, b = (_encoded(sum(m * c for m, c in zip(row, rgb, strict=True))) for row in matrix)
    return r, g, b


def _lab(colour: Colour) -> tuple[float, float, float]:
    r, g, b = (_linear(c) for c in colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def distance(a: Colour, b: Colour) -> float:
    """How different two colours look (CIE76 ΔE)."""
    return math.dist(_lab(a), _lab(b))


def close_pairs(swatches: Sequence[Any], vision: str) -> list[tuple[Any, Any]]:
    """The pairs of swatches whose colours come close for ``vision``."""
    seen = [simulate(s.colour, vision) for s in swatches]
    return [(swatches[i], swatches[j]) for i in range(len(swatches))
            for j in range(i + 1, len(swatches)) if distance(seen[i], seen[j]) < CLOSE]


def told_apart(a: Any, b: Any, extra_marks: bool) -> bool:
    """Whether two swatches differ by more than colour: a shape, a mark, or (with the
    colour_blind setting on) an extra mark."""
    if (a.shape or "") != (b.shape or "") or a.mark != b.mark:
        return True
    return extra_marks and a.extra != b.extra


def verdict(swatches: Sequence[Any], vision: str, extra_marks: bool
            ) -> tuple[list[str], bool]:
    """A line or two on a column of the check, and whether all is told apart."""
    pairs = close_pairs(swatches, vision)
    if not pairs:
        return ["all distinct"], True
    first = f"{pairs[0][0].name} ~ {pairs[0][1].name}"
    more = f" and {len(pairs) - 1} more" if len(pairs) > 1 else ""
    if all(told_apart(a, b, extra_marks) for a, b in pairs):
        return [f"{first}{more}", "told apart by their marks"], True
    return [f"{first}{more}", "too alike: no mark"], False


def swatch_mark(swatch: Any, extra_marks: bool) -> str:
    """What the check writes on a swatch."""
    return " ".join(m for m in (swatch.mark, swatch.extra if extra_marks else "") if m)


@lru_cache(maxsize=512)
def chip(shape: str | None, colour: Colour, size: int, mark: str = "") -> pygame.Surface:
    """A swatch as the check shows it: the shape in its colour on card paper (a disc when it
    has no shape), with its mark when one is given."""
    scale = 3
    big = pygame.Surface((size * scale, size * scale), pygame.SRCALPHA)
    rect = big.get_rect()
    pygame.draw.rect(big, theme.PAPER, rect, border_radius=size * scale // 5)
    inner = rect.inflate(-rect.w // 4, -rect.h // 4)
    if shape:
        draw_symbol(big, shape, inner, colour)
    else:
        pygame.draw.circle(big, colour, inner.center, inner.w // 2)
    image = pygame.transform.smoothscale(big, (size, size))
    if mark:
        grey = sum(colour) / 3
        ink = theme.INK if grey > 140 or shape else theme.PAPER
        label = fonts.text(mark, max(9, size // 2), ink)
        image.blit(label, label.get_rect(center=(size // 2, size // 2 + (size // 8 if shape
                                                                          else 0))))
    return image


def colour_groups(game: str) -> list[Any]:
    """What ``game`` tells apart by colour (its table's ``colour_key``)."""
    from starhall.client.games import table_class
    from starhall.client.games.tricks.hooks import TRICKS

    cls = table_class(game)
    hooks = cls() if cls is not None else TRICKS
    return list(hooks.colour_key(game))


# --- the sheet ----------------------------------------------------------------------------


TAB_SIZE = 15


def tab_places(titles: list[str], row: pygame.Rect) -> list[pygame.Rect]:
    """The colour check's game tabs, left to right from ``row``'s top-left, in as many rows
    as its width needs (a small window takes two)."""
    places: list[pygame.Rect] = []
    x, y = row.x, row.y
    for title in titles:
        tab = pygame.Rect(x, y, fonts.font(TAB_SIZE).size(title)[0] + 28, 32)
        if tab.right > row.right and places:
            y += tab.h + 6
            tab.topleft = (row.x, y)
        places.append(tab)
        x = tab.right + 8
    return places


class SettingsOverlay:
    """The settings sheet over a table or the lobby, and the button that opens it."""

    def __init__(self, game: str | None = None,
                 on_save: Callable[[Settings], None] | None = None) -> None:
        self.game = game
        """The table's game (shown first in the colour check); ``None`` in the lobby."""
        self.on_save = on_save
        self.open = False
        self.page = "settings"
        """``settings`` or ``colours`` (the colour check)."""
        self.draft: Settings = settings.current()
        self.focus = 0
        """The row the keyboard works on (an index of ``ROWS``)."""
        self.message = ""
        self.failed = False
        """Whether ``message`` is an error."""
        self.mouse = (-1, -1)
        self.check_game = 0
        """Which game the colour check shows (an index of ``games()``)."""

    # --- opening, closing, saving ----------------------------------------------------

    def show(self) -> None:
        self.open = True
        self.page = "settings"
        self.draft = settings.current()
        self.focus = 0
        self.message, self.failed = "", False
        games = self.games()
        self.check_game = games.index(self.game) if self.game in games else 0
        if pygame.display.get_init():
            pygame.key.start_text_input()

    def cancel(self) -> None:
        self.open = False

    def toggle(self) -> None:
        if self.open:
            self.cancel()
        else:
            self.show()

    def save(self) -> bool:
        """Write the draft; closes on success, stays open saying why on failure."""
        try:
            settings.save(self.draft)
        except SettingsError as error:
            self.message, self.failed = str(error), True
            return False
        self.open = False
        if self.on_save is not None:
            self.on_save(settings.current())
        return True

    @staticmethod
    def games() -> list[str]:
        from starhall.shared.games import GAMES

        return list(GAMES)

    # --- editing ---------------------------------------------------------------------

    def choose(self, row: str, value: Any) -> None:
        self.draft = replace(self.draft, **{row: value})
        self.focus = ROWS.index(row)
        if row == "sound" and value:
            sound.prepare()

    def step_choice(self, step: int) -> None:
        row = ROWS[self.focus]
        choices = CHOICES.get(row)
        if not choices:
            return
        values = [value for value, _ in choices]
        current = getattr(self.draft, row)
        index = values.index(current) if current in values else 0
        self.choose(row, values[(index + step) % len(values)])

    def type_text(self, text: str) -> None:
        if ROWS[self.focus] != "name":
            return
        printable = "".join(ch for ch in text if ch.isprintable())
        name = (self.draft.name + printable)[: settings.NAME_LIMIT]
        self.draft = replace(self.draft, name=name.lstrip())

    def try_sound(self) -> None:
        if not self.draft.sound:
            self.message, self.failed = "Sound is off: turn it on to hear it.", False
        elif not sound.available():
            self.message, self.failed = "No audio device here: the sounds stay silent.", False
        else:
            sound.play_now("your_turn")  # the saved setting may still be off
            self.message, self.failed = "", False

    # --- input -----------------------------------------------------------------------

    def key(self, key: int, mod: int = 0) -> bool:
        """A key: ``True`` when the settings used it (F2 always; every key while open)."""
        if key == KEY:
            self.toggle()
            return True
        if not self.open:
            return False
        if self.page == "colours":
            games = self.games()
            if key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
                self.page = "settings"
            elif key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_TAB) and games:
                step = -1 if key == pygame.K_LEFT else 1
                self.check_game = (self.check_game + step) % len(games)
            return True
        if key == pygame.K_ESCAPE:
            self.cancel()
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.save()
        elif key == pygame.K_TAB:
            self.focus = (self.focus + (-1 if mod & pygame.KMOD_SHIFT else 1)) % len(ROWS)
        elif key == pygame.K_DOWN:
            self.focus = (self.focus + 1) % len(ROWS)
        elif key == pygame.K_UP:
            self.focus = (self.focus - 1) % len(ROWS)
        elif key in (pygame.K_LEFT, pygame.K_RIGHT):
            self.step_choice(-1 if key == pygame.K_LEFT else 1)
        elif key == pygame.K_BACKSPACE and ROWS[self.focus] == "name":
            cut = "" if mod & pygame.KMOD_CTRL else self.draft.name[:-1]
            self.draft = replace(self.draft, name=cut)
        return True

    def handle(self, event: pygame.event.Event, hotspots: Hotspots | None) -> bool:
        """An input event: ``True`` when the settings used it."""
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
            return self.open
        if event.type == pygame.KEYDOWN:
            return self.key(event.key, getattr(event, "mod", 0))
        if not self.open:
            if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and hotspots:
                spot = hotspots.at(event.pos)
                if spot is not None and spot.action == ("settings", "open"):
                    self.show()
                    return True
            return False
        if event.type == pygame.TEXTINPUT:
            self.type_text(event.text)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            spot = hotspots.at(event.pos) if hotspots else None
            if spot is not None and spot.enabled and spot.action[:1] == ("settings",):
                self.act(spot.action[1:])
        return True

    def act(self, action: tuple[Any, ...]) -> None:
        kind = action[0]
        if kind == "choose":
            self.choose(action[1], action[2])
        elif kind == "focus":
            self.focus = ROWS.index(action[1])
        elif kind == "save":
            self.save()
        elif kind == "cancel":
            self.cancel()
        elif kind == "try_sound":
            self.try_sound()
        elif kind == "colours":
            self.page = "colours"
        elif kind == "back":
            self.page = "settings"
        elif kind == "check_game":
            self.check_game = int(action[1])

    # --- drawing ---------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, area: pygame.Rect, hotspots: Hotspots,
             button_at: pygame.Rect | None = None) -> None:
        """The Settings button at ``button_at``, or the open sheet over ``area``."""
        if not self.open:
            if button_at is not None:
                button(surface, hotspots, button_at, SETTINGS_LABEL, "settings", "open",
                       hovered=button_at.collidepoint(self.mouse), size=14)
            return
        shade = pygame.Surface(area.size, pygame.SRCALPHA)
        shade.fill(SHADE)
        surface.blit(shade, area)
        hotspots.add(area, "settings", "sheet")  # nothing underneath takes a click
        if self.page == "colours":
            self._draw_colours(surface, area.inflate(-24, -24), hotspots)
        else:
            self._draw_settings(surface, area, hotspots)

    def _sheet(self, surface: pygame.Surface, sheet: pygame.Rect, title: str) -> None:
        panel(surface, sheet, 255, radius=10)  # opaque: the table must not show through
        blit_text(surface, title, 24, theme.GOLD, "topleft", (sheet.x + 22, sheet.y + 14))

    def _draw_settings(self, surface: pygame.Surface, area: pygame.Rect,
                       hotspots: Hotspots) -> None:
        sheet = pygame.Rect(0, 0, min(area.w - 24, 860), min(area.h - 24, 600))
        sheet.center = area.center
        self._sheet(surface, sheet, "Settings")
        keys = "Up/Down: row · Left/Right: change · Enter: save · Esc: cancel"
        room = sheet.w - 44 - fonts.font(24).size("Settings")[0] - 24
        blit_text(surface, fitted(keys, 13, room), 13, theme.TEXT_DIM, "topright",
                  (sheet.right - 22, sheet.y + 22))
        top, bottom = sheet.y + 60, sheet.bottom - 96
        row_height = min(72, (bottom - top) // len(ROWS))
        hints = row_height >= 56
        widest = max(fonts.font(17).size(label)[0] for label in LABELS.values()) + 24
        label_width = max(widest, min(210, sheet.w // 4))  # a label is never squeezed
        for index, row in enumerate(ROWS):
            rect = pygame.Rect(sheet.x + 12, top + index * row_height, sheet.w - 24,
                               row_height - 4)
            self._draw_row(surface, hotspots, row, rect, label_width, hints,
                           focused=index == self.focus)
        if self.message:
            blit_text(surface, self.message, 15, theme.ALERT if self.failed else theme.TEXT,
                      "midleft", (sheet.x + 24, sheet.bottom - 78), max_width=sheet.w - 48)
        cancel = pygame.Rect(0, 0, 150, 40)
        cancel.bottomright = (sheet.right - 22, sheet.bottom - 18)
        save = pygame.Rect(0, 0, 150, 40)
        save.bottomright = (cancel.x - 14, cancel.bottom)
        button(surface, hotspots, save, "Save  [Enter]", "settings", "save",
               hovered=save.collidepoint(self.mouse), size=16)
        button(surface, hotspots, cancel, "Cancel  [Esc]", "settings", "cancel",
               hovered=cancel.collidepoint(self.mouse), size=16)
        blit_text(surface, f"Saved in {settings.settings_path()}", 12, theme.TEXT_DIM,
                  "midleft", (sheet.x + 24, save.centery), max_width=save.x - sheet.x - 40)

    def _draw_row(self, surface: pygame.Surface, hotspots: Hotspots, row: str,
                  rect: pygame.Rect, label_width: int, hints: bool, focused: bool) -> None:
        if focused:
            pygame.draw.rect(surface, theme.FELT_DARK, rect, border_radius=8)
            pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 1, border_radius=8)
        hotspots.add(rect, "settings", "focus", row)
        control_height = min(34, rect.h - (22 if hints else 6))
        y = rect.y + (6 if hints else (rect.h - control_height) // 2)
        blit_text(surface, LABELS[row], 17, theme.TEXT if focused else theme.TEXT_DIM,
                  "midleft", (rect.x + 12, y + control_height // 2), max_width=label_width - 16)
        x = rect.x + label_width
        if hints:
            hint = HINTS[row].format(login=settings.login_name())
            blit_text(surface, hint, 13, theme.TEXT_DIM, "topleft",
                      (x, y + control_height + 3), max_width=rect.right - x - 12)
        if row == "name":
            self._draw_name(surface, pygame.Rect(x, y, min(360, rect.right - x - 12),
                                                 control_height), focused)
            return
        for value, label in CHOICES[row]:
            width = fonts.font(15).size(label)[0] + 28
            choice = pygame.Rect(x, y, width, control_height)
            chosen = getattr(self.draft, row) == value
            hovered = choice.collidepoint(self.mouse)
            fill = theme.GOLD if chosen else (theme.BUTTON_HOVER if hovered else theme.BUTTON)
            pygame.draw.rect(surface, fill, choice, border_radius=7)
            pygame.draw.rect(surface, theme.PANEL_EDGE, choice, 1, border_radius=7)
            blit_text(surface, label, 15, theme.INK if chosen else theme.TEXT, "center",
                      choice.center)
            hotspots.add(choice, "settings", "choose", row, value)
            x = choice.right + 8
        extra = {"sound": ("Try it", "try_sound"),
                 "colour_blind": ("Check the colours…", "colours")}.get(row)
        if extra is not None:
            width = fonts.font(15).size(extra[0])[0] + 28
            rect_extra = pygame.Rect(x + 16, y, width, control_height)
            if rect_extra.right <= rect.right - 8:
                button(surface, hotspots, rect_extra, extra[0], "settings", extra[1],
                       hovered=rect_extra.collidepoint(self.mouse), size=15)

    def _draw_name(self, surface: pygame.Surface, field: pygame.Rect, focused: bool) -> None:
        pygame.draw.rect(surface, theme.PAPER, field, border_radius=6)
        pygame.draw.rect(surface, theme.GOLD if focused else theme.PANEL_EDGE, field, 2,
                         border_radius=6)
        name = self.draft.name
        inner = field.inflate(-20, 0)
        if name:
            drawn = blit_text(surface, name, 17, theme.INK, "midleft", (inner.x, inner.centery),
                              max_width=inner.w - 4)
            caret_x = drawn.right + 2
        else:
            blit_text(surface, f"{settings.login_name()} (your login name)", 16,
                      theme.CARD_EDGE, "midleft", (inner.x + 8, inner.centery),
                      max_width=inner.w - 12)
            caret_x = inner.x
        if focused:
            pygame.draw.line(surface, theme.INK, (caret_x, field.y + 7),
                             (caret_x, field.bottom - 7), 2)

    # --- the colour check --------------------------------------------------------------

    def _draw_colours(self, surface: pygame.Surface, sheet: pygame.Rect,
                      hotspots: Hotspots) -> None:
        from starhall.shared.games import GAMES

        self._sheet(surface, sheet, "Colour check")
        back = pygame.Rect(0, 0, fonts.font(15).size("Back  [Esc]")[0] + 28, 34)
        back.topright = (sheet.right - 16, sheet.y + 12)
        button(surface, hotspots, back, "Back  [Esc]", "settings", "back",
               hovered=back.collidepoint(self.mouse), size=15)
        # The middle of the title bar stays free: a live table's bug report button is there.
        marks = "on" if self.draft.colour_blind else "off"
        footer = fonts.wrap(f"Colour-blind marks: {marks} (a setting). Left/Right or a tab: "
                            "another game. Simulated with Machado et al. (2009); a close pair "
                            "is fine when a shape or mark tells it apart.", 13, sheet.w - 44)
        bottom = sheet.bottom - 10 - 16 * len(footer)
        for number, line in enumerate(footer):
            blit_text(surface, line, 13, theme.TEXT_DIM, "topleft",
                      (sheet.x + 22, bottom + 4 + 16 * number))
        games = self.games()
        tabs = tab_places([str(GAMES[game_id].title) for game_id in games],
                          pygame.Rect(sheet.x + 22, sheet.y + 56, sheet.w - 44, 0))
        for index, (game_id, tab) in enumerate(zip(games, tabs, strict=True)):
            title = str(GAMES[game_id].title)
            chosen = index == self.check_game
            fill = theme.GOLD if chosen else (
                theme.BUTTON_HOVER if tab.collidepoint(self.mouse) else theme.BUTTON)
            pygame.draw.rect(surface, fill, tab, border_radius=7)
            blit_text(surface, title, TAB_SIZE, theme.INK if chosen else theme.TEXT, "center",
                      tab.center)
            hotspots.add(tab, "settings", "check_game", index)
        if not games:
            return
        game = games[self.check_game % len(games)]
        top = tabs[-1].bottom + 14
        body = pygame.Rect(sheet.x + 22, top, sheet.w - 44, bottom - 6 - top)
        self._draw_check(surface, body, colour_groups(game))

    def _draw_check(self, surface: pygame.Surface, body: pygame.Rect,
                    groups: list[Any]) -> None:
        from starhall.client.ui.cardart import CardArt

        label_width = min(250, body.w // 5)
        column = (body.w - label_width) / len(VISIONS)
        for index, vision in enumerate(VISIONS):
            blit_text(surface, VISION_TITLES[vision], 15, theme.TEXT, "midtop",
                      (body.x + label_width + column * (index + 0.5), body.y),
                      max_width=int(column) - 8)
        y = body.y + 28
        room = body.bottom - y
        per_group = min(200, room // max(1, len(groups)))
        art = _art(CardArt)
        for group in groups:
            rect = pygame.Rect(body.x, y, body.w, per_group - 10)
            pygame.draw.rect(surface, theme.FELT_DARK, rect, border_radius=8)
            blit_text(surface, group.title, 17, theme.GOLD, "topleft", (rect.x + 12, rect.y + 8))
            below = _wrapped(surface, group.note, 13, theme.TEXT_DIM,
                             pygame.Rect(rect.x + 12, rect.y + 32, label_width - 24,
                                         rect.h - 40))
            if group.cards:
                self._draw_cards(surface, art, group.cards,
                                 pygame.Rect(rect.x + 12, below + 6, label_width - 24,
                                             rect.bottom - below - 14))
            swatches = list(group.swatches)
            count = max(1, len(swatches))
            size = int(max(24, min(40, (column - 16) / min(count, 4) - 6)))
            per_line = max(1, int((column - 12) // (size + 6)))
            for index, vision in enumerate(VISIONS):
                left = rect.x + label_width + column * index
                cx = left + column / 2
                lines = (len(swatches) + per_line - 1) // per_line
                for n, swatch in enumerate(swatches):
                    line, at = divmod(n, per_line)
                    in_line = min(per_line, len(swatches) - line * per_line)
                    sx = cx - (in_line * (size + 6) - 6) / 2 + at * (size + 6)
                    sy = rect.y + 12 + line * (size + 6)
                    mark = swatch_mark(swatch, self.draft.colour_blind)
                    surface.blit(chip(swatch.shape, simulate(swatch.colour, vision), size, mark),
                                 (round(sx), sy))
                words, good = verdict(swatches, vision, self.draft.colour_blind)
                below = rect.y + 16 + lines * (size + 6)
                ink = theme.TEXT_DIM if good else theme.ALERT
                for said in words:
                    below = _wrapped(surface, said, 12, ink,
                                     pygame.Rect(left + 4, below, column - 8, rect.bottom - below),
                                     centred=True)
            y += per_group

    def _draw_cards(self, surface: pygame.Surface, art: Any, cards: Sequence[str],
                    area: pygame.Rect) -> None:
        """The group's cards as the table draws them, where there is room."""
        height = min(84, area.h)
        if height < 40:
            return
        width = round(height / theme.CARD_RATIO)
        step = min(width + 4, (area.w - width) / max(1, len(cards) - 1))
        for n, code in enumerate(cards):
            surface.blit(art.face(code, width, height), (round(area.x + n * step), area.y))


_ART: list[Any] = []


def _art(cls: Any) -> Any:
    if not _ART:
        _ART.append(cls())
    return _ART[0]


def _wrapped(surface: pygame.Surface, text: str, size: int, colour: Colour,
             area: pygame.Rect, centred: bool = False) -> int:
    """``text`` wrapped into ``area``'s width, as many lines as fit (the last one ending in
    an ellipsis when some is left out); returns the y below."""
    pitch = fonts.font(size).get_linesize()
    lines = fonts.wrap(text, size, area.w)
    fit = max(0, min(len(lines), (area.bottom - area.y) // pitch))
    shown = lines[:fit]
    if 0 < fit < len(lines):
        shown[-1] = fitted(" ".join(lines[fit - 1:]), size, area.w)
    anchor, x = ("midtop", area.centerx) if centred else ("topleft", area.x)
    y = area.y
    for line in shown:
        blit_text(surface, line, size, colour, anchor, (x, y))
        y += pitch
    return y
