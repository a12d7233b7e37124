"""The lobby's new-table form, built from what the server says about its games.

Nothing in it knows a game: the player count and every option come from the ``welcome``'s
``GameInfo`` (docs/protocol.md §3), so a game added to the server tomorrow gets its form
without a change here. A ``bool`` option is a switch, one with ``choices`` steps through
them, an ``int`` steps between its ``minimum`` and ``maximum`` (or is typed: click the
number), and its ``help`` says what it does. The server checks the result; its refusal is
shown under the form.
"""

from __future__ import annotations

from typing import Any

import pygame

from starhall.client.ui import fonts, theme
from starhall.client.ui.widgets import Hotspots, blit_text, button, panel

HOUSE_GAME = "stars"
"""The game the form starts on when the server has it."""
ROW = 36
HELP_SIZE = 13
LABEL_SIZE = 15


def humanise(name: str) -> str:
    """An option's or value's name as words: ``pass_cards`` → ``Pass cards``."""
    words = str(name).replace("_", " ").strip()
    return words[:1].upper() + words[1:]




def step_of(spec: dict[str, Any]) -> int:
    """How far one press of + or − moves an ``int`` option: by tens around a hundred, by ones
    for small numbers."""
    default = spec.get("default")
    magnitude = abs(default) if isinstance(default, int) else 0
    return int(10 ** max(0, len(str(magnitude)) - 2))


def clamp(spec: dict[str, Any], value: int) -> int:
    low, high = spec.get("minimum"), spec.get("maximum")
    if isinstance(low, int):
        value = max(low, value)
    if isinstance(high, int):
        value = min(high, value)
    return value


def stepped(spec: dict[str, Any], value: Any, direction: int) -> Any:
    """The option's next value in ``direction`` (+1 or −1)."""
    choices = spec.get("choices")
    if choices:
        index = choices.index(value) if value in choices else 0
        return choices[(index + direction) % len(choices)]
    kind = spec.get("kind")
    if kind == "bool":
        return not bool(value)
    if kind == "int":
        step = step_of(spec)
        whole = int(value)
        if whole % step == 0:
            moved = whole + direction * step
        else:  # a typed number steps to the nearest round one that way
            moved = (whole // step + (1 if direction > 0 else 0)) * step
        return clamp(spec, moved)
    return value


def shown(spec: dict[str, Any], value: Any) -> str:
    if spec.get("kind") == "bool":
        return "On" if value else "Off"
    if spec.get("choices"):
        return humanise(str(value))
    return str(value)


def player_counts(game: dict[str, Any]) -> tuple[int, int]:
    low = int(game.get("min_players") or 1)
    return low, max(low, int(game.get("max_players") or low))



def bot_choices(game: dict[str, Any]) -> list[tuple[str, str]]:
    """What the form offers for the bots, as (label, kind): the game's levels, Easy, Normal
    and Strong where it has one (``GameInfo.levels``), or its bot kinds from a server that
    names no levels."""
    levels = game.get("levels")
    if isinstance(levels, dict) and levels:
        return [(str(level).capitalize(), str(kind)) for level, kind in levels.items()]
    return [(str(kind), str(kind)) for kind in game.get("bots") or ["random"]]

class NewTableForm:
    """The choices for a new table: game, player count, options, and the empty seats."""

    def __init__(self, games: list[dict[str, Any]], preset: dict[str, Any] | None = None,
                 players: int = 4) -> None:
        self.games = [game for game in games if game.get("id")]
        self.preset = dict(preset or {})
        """Values to start from where the game has such an option (tests shorten games)."""
        ids = [game.get("id") for game in self.games]
        self.game_index = ids.index(HOUSE_GAME) if HOUSE_GAME in ids else 0
        self.wanted_players = players
        self.players = players
        self.values: dict[str, Any] = {}
        self.fill_with_bots = True
        """Bots take the empty seats at once (the game starts), or the table waits for people."""
        self.bot_kind = "random"
        self.editing: str | None = None
        """The option whose number is being typed."""
        self.typed = ""
        self.error = ""
        """The server's reason for refusing the last try."""
        self.hovered_help = ""
        self._choose_game(0)

    # --- the choices ---------------------------------------------------------------------

    @property
    def game(self) -> dict[str, Any]:
        return self.games[self.game_index] if self.games else {}

    @property
    def specs(self) -> list[dict[str, Any]]:
        return [spec for spec in self.game.get("options") or [] if spec.get("name")]

    def _choose_game(self, direction: int) -> None:
        if self.games:
            self.game_index = (self.game_index + direction) % len(self.games)
        low, high = player_counts(self.game)
        self.players = max(low, min(high, self.wanted_players))
        self.values = {}
        for spec in self.specs:
            value = self.preset.get(spec["name"], spec.get("default"))
            self.values[spec["name"]] = value
        choices = bot_choices(self.game)
        kinds = [kind for _, kind in choices]
        default = self.game.get("default_bot")
        self.bot_kind = default if default in kinds else kinds[0]
        self.editing = None
        self.error = ""

    def options(self) -> dict[str, Any]:
        """The options to ask for: every one the form shows, as chosen."""
        self.commit_typing()
        return dict(self.values)

    def act(self, action: tuple[Any, ...]) -> bool:
        """Apply a click on the form (``("form", what, …)``); whether it was the form's."""
        if not action or action[0] != "form":
            return False
        what = action[1]
        if what != "edit":
            self.commit_typing()
        if what == "game":
            self._choose_game(action[2])
        elif what == "players":
            low, high = player_counts(self.game)
            self.players = max(low, min(high, self.players + action[2]))
            self.wanted_players = self.players
        elif what == "option":
            spec = next(s for s in self.specs if s["name"] == action[2])
            self.values[spec["name"]] = stepped(spec, self.values.get(spec["name"]), action[3])
        elif what == "edit":
            self.commit_typing()
            self.editing, self.typed = action[2], ""
        elif what == "fill":
            self.fill_with_bots = not self.fill_with_bots
        elif what == "bot":
            kinds = [kind for _, kind in bot_choices(self.game)]
            index = kinds.index(self.bot_kind) if self.bot_kind in kinds else 0
            self.bot_kind = kinds[(index + action[2]) % len(kinds)]
        self.error = ""
        return True

    def key(self, event: pygame.event.Event) -> bool:
        """Typing into the number being edited; whether the key was the form's."""
        if self.editing is None:
            return False
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_TAB):
            self.commit_typing()
        elif event.key == pygame.K_ESCAPE:
            self.editing, self.typed = None, ""
        elif event.key == pygame.K_BACKSPACE:
            self.typed = self.typed[:-1]
        elif event.unicode and len(self.typed) < 12 and (
                event.unicode.isdigit() or (event.unicode == "-" and not self.typed)):
            self.typed += event.unicode
        return True

    def commit_typing(self) -> None:
        name, typed = self.editing, self.typed
        self.editing, self.typed = None, ""
        if name is None or typed in ("", "-"):
            return
        spec = next((s for s in self.specs if s["name"] == name), None)
        if spec is not None:
            self.values[name] = clamp(spec, int(typed))

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, area: pygame.Rect, hotspots: Hotspots,
             mouse: tuple[int, int], enabled: bool) -> None:
        panel(surface, area)
        x, right = area.x + 16, area.right - 16
        blit_text(surface, "New table", 19, theme.TEXT, "topleft", (x, area.y + 14))
        y = area.y + 48
        game = self.game
        self._stepper(surface, hotspots, mouse, "Game", str(game.get("title") or "—"),
                      ("form", "game"), y, x, right, enabled and len(self.games) > 1, wide=True)
        y += ROW + 4
        low, high = player_counts(game)
        self._stepper(surface, hotspots, mouse, "Players", str(self.players),
                      ("form", "players"), y, x, right, enabled and low < high,
                      minus=self.players > low, plus=self.players < high)
        y += ROW + 4
        specs = self.specs
        bottom_block = ROW * 2 + 8 + 24 + 48
        room = area.bottom - bottom_block - y
        full = sum(self._row_height(spec, right - x) for spec in specs) <= room
        self.hovered_help = ""
        for spec in specs:
            height = self._option(surface, hotspots, mouse, spec, y, x, right, enabled, full)
            if pygame.Rect(x, y, right - x, height).collidepoint(mouse) and spec.get("help"):
                self.hovered_help = f"{humanise(spec['name'])}: {spec['help']}"
            y += height
        if not specs:
            blit_text(surface, "This game has no options.", HELP_SIZE, theme.TEXT_DIM,
                      "topleft", (x, y + 4))
            y += 24
        if not full and specs:
            hint = self.hovered_help or "Point at an option to read what it does."
            for line in fonts.wrap(hint, HELP_SIZE, right - x)[:2]:
                blit_text(surface, line, HELP_SIZE, theme.TEXT_DIM, "topleft", (x, y))
                y += 16
        y = max(y + 6, area.bottom - bottom_block)
        pygame.draw.line(surface, theme.PANEL_EDGE, (x, y - 4), (right, y - 4))
        solo = self.players == 1  # a patience: no other seat, so nothing for bots to fill
        if not solo:
            y = self._empty_seats(surface, hotspots, mouse, y, x, right, enabled)
        if self.error:
            lines = fonts.wrap(self.error, HELP_SIZE, right - x)[:2]
            for index, line in enumerate(lines):
                blit_text(surface, line, HELP_SIZE, theme.ALERT, "topleft",
                          (x, y + index * 15))
        create = pygame.Rect(x, area.bottom - 52, right - x, 40)
        starts = solo or self.fill_with_bots
        label = "Create and play" if starts else "Create and wait for players"
        button(surface, hotspots, create, label, "create", starts,
               enabled=enabled, hovered=create.collidepoint(mouse), size=17)

    def _empty_seats(self, surface: pygame.Surface, hotspots: Hotspots, mouse: tuple[int, int],
                     y: int, x: int, right: int, enabled: bool) -> int:
        """What becomes of the seats nobody took, and which bots sit there; the next row's
        top."""
        game = self.game
        room = right - x - fonts.font(LABEL_SIZE).size("Empty seats")[0] - 12
        fill = pygame.Rect(right - min(200, room), y + 2, min(200, room), ROW - 6)
        blit_text(surface, "Empty seats", LABEL_SIZE, theme.TEXT, "midleft", (x, fill.centery))
        button(surface, hotspots, fill, "Bots fill them" if self.fill_with_bots
               else "Wait for people", "form", "fill", enabled=enabled,
               hovered=fill.collidepoint(mouse), size=15)
        y += ROW
        choices = bot_choices(game)
        shown = next((label for label, kind in choices if kind == self.bot_kind), self.bot_kind)
        self._stepper(surface, hotspots, mouse, "Bots", shown, ("form", "bot"), y, x,
                      right, enabled and len(choices) > 1, symbols=("<", ">"))
        return y + ROW + 2

    def _row_height(self, spec: dict[str, Any], width: int) -> int:
        help_text = str(spec.get("help") or "")
        return ROW + 2 + 15 * len(fonts.wrap(help_text, HELP_SIZE, width)) if help_text else ROW

    def _option(self, surface: pygame.Surface, hotspots: Hotspots, mouse: tuple[int, int],
                spec: dict[str, Any], y: int, x: int, right: int, enabled: bool,
                full: bool) -> int:
        name = spec["name"]
        value = self.values.get(name)
        changed = value != spec.get("default")
        label = humanise(name)
        if spec.get("kind") == "bool" and not spec.get("choices"):
            rect = pygame.Rect(right - 96, y + 3, 96, ROW - 6)
            blit_text(surface, label, LABEL_SIZE, theme.GOLD if changed else theme.TEXT,
                      "midleft", (x, rect.centery), max_width=rect.x - x - 10)
            button(surface, hotspots, rect, shown(spec, value), "form", "option", name, 1,
                   enabled=enabled, hovered=rect.collidepoint(mouse), size=15)
        else:
            symbols = ("<", ">") if spec.get("choices") else ("-", "+")
            editable = spec.get("kind") == "int" and not spec.get("choices")
            text = shown(spec, value)
            if self.editing == name:
                text = (self.typed or "") + "|"
            minus = plus = True
            if editable and isinstance(value, int):
                minus = clamp(spec, value - 1) != value
                plus = clamp(spec, value + 1) != value
            self._stepper(surface, hotspots, mouse, label, text, ("form", "option", name), y,
                          x, right, enabled, minus=minus, plus=plus, symbols=symbols,
                          edit=("form", "edit", name) if editable else None,
                          highlight=changed or self.editing == name)
        if not full:
            return ROW
        lines = fonts.wrap(str(spec.get("help") or ""), HELP_SIZE, right - x)
        for index, line in enumerate(lines):
            blit_text(surface, line, HELP_SIZE, theme.TEXT_DIM, "topleft",
                      (x, y + ROW - 4 + index * 15))
        return self._row_height(spec, right - x)

    def _stepper(self, surface: pygame.Surface, hotspots: Hotspots, mouse: tuple[int, int],
                 label: str, text: str, action: tuple[Any, ...], y: int, x: int, right: int,
                 enabled: bool, *, minus: bool = True, plus: bool = True,
                 symbols: tuple[str, str] = ("-", "+"), wide: bool = False,
                 edit: tuple[Any, ...] | None = None, highlight: bool = False) -> None:
        """``label``, then ``[-] text [+]`` at the right; each button moves ``action``."""
        width = 250 if wide else 200
        # The label whole at its size where the buttons can spare the room.
        width = min(width, right - x - 90,
                    max(150, right - x - fonts.font(LABEL_SIZE).size(label)[0] - 12))
        height = ROW - 6
        low = pygame.Rect(right - width, y + 3, height, height)
        high = pygame.Rect(right - height, y + 3, height, height)
        middle = pygame.Rect(low.right + 4, y + 3, high.x - low.right - 8, height)
        blit_text(surface, label, LABEL_SIZE, theme.GOLD if highlight else theme.TEXT,
                  "midleft", (x, middle.centery), max_width=low.x - x - 10)
        button(surface, hotspots, low, symbols[0], *action, -1, enabled=enabled and minus,
               hovered=low.collidepoint(mouse), size=17)
        button(surface, hotspots, high, symbols[1], *action, 1, enabled=enabled and plus,
               hovered=high.collidepoint(mouse), size=17)
        if edit is not None and enabled:
            pygame.draw.rect(surface, theme.FELT_DARK, middle, border_radius=6)
            if middle.collidepoint(mouse) or highlight:
                pygame.draw.rect(surface, theme.PANEL_EDGE, middle, 1, border_radius=6)
            hotspots.add(middle, *edit)
        colour = theme.GOLD if highlight else (theme.TEXT if enabled else theme.TEXT_DIM)
        blit_text(surface, text, 15, colour, "center", middle.center, max_width=middle.w - 6)
