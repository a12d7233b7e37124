"""The Star's table (``star_patience``): the star of cards, the stock, the turned card, and
the patience's own controls (undo, redo, hint, new deal, restart, a deal number, statistics).

Like every table it only reads the server's view and sends commands: the highlighted cards
and places are ``view["legal"]``, a click sends ``pair`` or ``place`` (even one that looks
wrong, so the server's reason is what the player reads), and nothing moves until the
server's update arrives. The hint is worked out from the player's own view
(``hint_for_view``), so it knows only what the player sees. When the turned card has one
move only, the auto-play setting (on by default) sends it after a short pause.

New deal, Restart this deal and a chosen deal number ask the ``LiveTable`` for a new table
(``TableScreen.next_table``); an unfinished game left that way is given up first, so the log
and the statistics (``client.games.star_patience.stats``) count it as lost.

The statistics count a game only once it has a decision: a pairing or placing the player chose
among two or more. A deal the player never had to choose in (each move forced, auto-played or
not, or lost at the deal) was never really played, so leaving it, giving it up or losing it
changes no figure. Giving up asks first (the screen's question, ``TableHost.ask``), as does
leaving a game with a decision for another deal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.games.base import GameTable, TableHost
from starhall.client.games.star_patience.choreography import (
    LINES,
    REMOVED,
    TURNED,
    StarChoreographer,
    StarGeometry,
    between,
    place_key,
)
from starhall.client.games.star_patience.stats import StarStats, record_game
from starhall.client.net.model import TableModel
from starhall.client.ui import fonts, theme
from starhall.client.ui.animation import Animator
from starhall.client.ui.cardart import CardArt
from starhall.client.ui.faces import card_name
from starhall.client.ui.fonts import wrap
from starhall.client.ui.layout import GAME_OVER_PANEL_HEIGHT, Layout
from starhall.client.ui.table_art import Felt, draw_flights
from starhall.client.ui.table_ui import TableUi
from starhall.client.ui.widgets import Hotspots, blit_text, button, draw_connection, panel
from starhall.shared.games.star_patience.rules import (
    StarPatienceLegal,
    StarPatienceView,
    star_patience_view,
)

if TYPE_CHECKING:
    from starhall.client.net.session import Batch

AUTO_DELAY = 0.45
"""Seconds a forced move waits, once the table is still, before auto-play sends it."""
MAX_DEAL = 2**31 - 1
NEW_DEALS = 1_000_000
"""New deal picks a number below this: short enough to note down and type back."""
MAX_DIGITS = 10

STAR_FILL = (30, 108, 70)
STAR_EDGE = (120, 170, 110)
SLOT = (20, 80, 52)
PHASES = {"deal": "Dealing", "play": "Your move", "stuck": "Stuck", "over": "Game over"}


def rank_word(code: str) -> str:
    """``"9"``, ``"Queen"``: the rank as the prompt says it."""
    return card_name(code).split(" of ")[0]


def deal_words(view: Mapping[str, object]) -> str:
    """``"Deal 42"``; a deal the host shuffled keeps its number back until the game is over
    (it would give the stock's order away)."""
    number = view.get("deal_number")
    if number is not None:
        return f"Deal {number}"
    return "A random deal" if view.get("dealt_by") == "shuffle" else "A hand-made deal"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def where_is(view: StarPatienceView, code: str) -> str:
    """``"the outer NE place"``."""
    for ring, places in (("inner", view.get("inner") or []), ("outer", view.get("outer") or [])):
        if code in places:
            return f"the {ring} {LINES[places.index(code)]} place"
    return "the star"


def forced(legal: StarPatienceLegal) -> tuple[str, dict[str, Any]] | None:
    """The one pairing or placing open, when there is only one (the view says so)."""
    pairs, places = legal.get("pair") or [], legal.get("place") or []
    if len(pairs) == 1 and not places:
        return "pair", {"card": pairs[0]}
    if len(places) == 1 and not pairs:
        return "place", {"line": places[0]}
    return None


LABEL_SIZE = 14
"""The line names (N, NE, …) at the star's points."""
PROMPT_SMALLEST = 15
"""The prompt shrinks to this size before it takes a second line."""


def prompt_lines(geometry: StarGeometry, message: str, size: int) -> tuple[list[str], int]:
    """The prompt's lines and type size: one line, a little smaller if it must, else two."""
    room = geometry.table.w - 48
    for tried in range(size, PROMPT_SMALLEST - 1, -1):
        if fonts.font(tried).size(message)[0] <= room:
            return [message], tried
    return wrap(message, PROMPT_SMALLEST, room)[:2], PROMPT_SMALLEST


def prompt_box(geometry: StarGeometry, lines: list[str], size: int) -> pygame.Rect:
    """The pill round the line at the bottom of the felt that says what to do (or a
    refusal): its bottom stays where a one-line pill's is."""
    table = geometry.table
    width = max(fonts.font(size).size(line)[0] for line in lines) + 28
    height = len(lines) * fonts.font(size).get_linesize() + 12
    box = pygame.Rect(0, 0, min(width, table.w - 24), height)
    box.midbottom = (table.centerx, prompt_y(geometry) + 17)
    box.clamp_ip(table)
    return box


def prompt_y(geometry: StarGeometry) -> int:
    """The middle of a one-line prompt."""
    table = geometry.table
    return table.bottom - min(32, table.h // 18)


def draw_prompt_lines(surface: pygame.Surface, box: pygame.Rect, lines: list[str],
                      size: int) -> None:
    pitch = fonts.font(size).get_linesize()
    top = box.centery - pitch * len(lines) / 2
    for index, line in enumerate(lines):
        blit_text(surface, line, size, theme.TEXT, "midtop",
                  (box.centerx, top + index * pitch), max_width=box.w - 20)


def _kept_clear(geometry: StarGeometry) -> list[pygame.Rect]:
    """What a line's name must not cover or hide under: the felt's corner buttons (Rules,
    Settings, the bug report), the prompt's band across the bottom, every place of the star,
    the turned card, the stock and the removed pile with their captions."""
    from starhall.client.ui.layout import CORNER, CORNER_RIGHT

    table = geometry.table
    width, height = geometry.card_size
    clear = [pygame.Rect(table.x, table.y, *CORNER),
             pygame.Rect(table.right - CORNER_RIGHT[0], table.y, *CORNER_RIGHT)]
    band = prompt_y(geometry) - 20
    clear.append(pygame.Rect(table.x, band, table.w, table.bottom - band))
    clear += [geometry.place_rect(ring, line) for ring in ("inner", "outer") for line in LINES]
    clear.append(geometry.rect_at(geometry.centre, 1.08).inflate(12, 12))
    stock = geometry.rect_at(geometry.stock)
    clear.append(stock.union(stock.move(-10, -10)))
    removed = geometry.rect_at(geometry.removed, 0.75)
    clear.append(removed.inflate(round(removed.w * 0.5), 0))
    for pile in (stock, removed):  # the two caption lines under each
        caption = pygame.Rect(0, pile.bottom, max(60, width * 2), 40)
        caption.centerx = pile.centerx
        clear.append(caption)
    return clear


_LABELS: dict[tuple[int, ...], dict[str, pygame.Rect]] = {}


def line_labels(geometry: StarGeometry) -> dict[str, pygame.Rect]:
    """Where each line's name goes: at its point of the star, or the nearest place to it
    that nothing covers (a corner button, the prompt, a card); worked out once a size."""
    key = tuple(geometry.table)
    if key not in _LABELS:
        clear = _kept_clear(geometry)
        inside = geometry.table.inflate(-16, -16)
        reach = max(geometry.card_size)
        offsets = sorted(((dx, dy) for dx in range(-reach, reach + 1, 3)
                          for dy in range(-reach, reach + 1, 3)),
                         key=lambda d: d[0] * d[0] + d[1] * d[1])
        found: dict[str, pygame.Rect] = {}
        for line in LINES:
            rect = pygame.Rect((0, 0), fonts.font(LABEL_SIZE).size(line)).inflate(4, 2)
            x, y = geometry.tip(line, 2.62)
            rect.center = (round(x), round(y))
            ideal = rect.copy()
            for dx, dy in offsets:
                moved = ideal.move(dx, dy)
                if inside.contains(moved) and moved.collidelist(clear) < 0:
                    rect = moved
                    break
            else:
                rect.clamp_ip(inside)
            found[line] = rect.inflate(-4, -2)
            clear.append(rect)  # two names never share a place
        _LABELS[key] = found
    return _LABELS[key]


class StarView(GameTable):
    def __init__(self, art: CardArt | None = None) -> None:
        self.art = art or CardArt()
        self._felt = Felt()
        self.clock = 0.0
        stats = StarStats.load()
        self.autoplay = stats.autoplay
        """Play a forced move by itself (a setting, kept with the statistics)."""
        self.stats: StarStats | None = None
        """Loaded when first shown to a player (spectators and replays never read it)."""
        self.recorded: set[str] = set()
        """Tables whose result is in the statistics already."""
        self.decided: set[str] = set()
        """Tables where the player chose a move among two or more: they count."""
        self.seen: set[str] = set()
        self.from_deal: set[str] = set()
        """Tables seen from their deal on, so ``decided`` knows all their choices; of a table
        resumed mid-game, any move made is taken for a decision."""
        self._choice: tuple[str, int] | None = None
        """(table, seq) where the player last sent a move chosen among several."""
        self.hint: tuple[str, int, str, dict[str, Any], float] | None = None
        """(table, seq, command, data, chance): the hint asked for at that view."""
        self.hint_note: str | None = None
        self.entry: str | None = None
        """The deal number being typed, while the box is open."""
        self.dismissed: str | None = None
        """The table whose end banner was closed."""
        self._auto_sent = (-1, "")
        self._still = 0.0
        self._made: dict[str, list[bool]] = {}
        """Per table seen from its deal: the decisions in effect, oldest first, each ``True``
        when auto-play made it; and (``_undone``) those undone, the last undone last."""
        self._undone: dict[str, list[bool]] = {}
        self._undoing: tuple[str, int, int] | None = None
        """(table, seq, undos left): Ctrl+Z takes back the player's own last decision, so the
        forced moves auto-play made after it are undone first, one ``undo`` after another."""

    # --- hooks: from the server ------------------------------------------------------

    def choreographer(self, layout: Layout) -> StarChoreographer:
        return StarChoreographer(layout)

    def between(self, before: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        return between(before, event)

    def choosing(self, model: TableModel) -> tuple[str, int] | None:
        return None

    def describe(self, model: TableModel, event: dict[str, Any]) -> str | None:
        kind = event.get("type")
        data = event.get("data") or {}
        turned = data.get("turned")
        if kind == "deal":
            first = f", the {card_name(data['next'])} turned" if data.get("next") else ""
            return deal_words(data) + first
        if kind == "paired" and turned:
            moved = ", partner in" if data.get("moved_in") else ""
            return (f"{card_name(turned)} + {card_name(str(data.get('card')))} removed "
                    f"({data.get('ring')} {data.get('line')}{moved})")
        if kind == "placed" and turned:
            return f"{card_name(turned)} placed on outer {data.get('line')}"
        if kind == "undone":
            return "Undo"
        if kind == "redone":
            return "Redo"
        if kind == "gave_up":
            return "Given up"
        return None

    def sound_cues(self, event: dict[str, Any], before: dict[str, Any],
                   after: dict[str, Any]) -> tuple[str, ...]:
        # A pair removed, a card placed, an undo: a card laid down; a game won: a Star.
        kind = event.get("type")
        cues = ["deal"] if kind == "deal" else []
        if kind in ("paired", "placed", "undone", "redone"):
            cues.append("play")
        if after.get("phase") == "over" and before.get("phase") != "over":
            cues.append("star" if after.get("result") == "won" else "hand_end")
        return tuple(cues)

    def received(self, screen: TableHost, batch: Batch) -> None:
        model = screen.model
        view = star_patience_view(model.view)
        table = model.table
        if table not in self.seen:
            self.seen.add(table)
            if not (view.get("moves") or view.get("undos")):
                self.from_deal.add(table)
        if table in self.from_deal:
            made, undone = self._made.setdefault(table, []), self._undone.setdefault(table, [])
        else:  # resumed mid-game: what auto-play made before is not known
            made, undone = [], []
        for seq, event in batch.events:
            kind = event.get("type")
            if self._choice == (table, seq - 1) and kind in ("paired", "placed"):
                self.decided.add(table)
            if kind in ("paired", "placed"):
                made.append(self._auto_sent == (seq - 1, table))
                undone.clear()
            elif kind == "undone" and made:
                undone.append(made.pop())
            elif kind == "redone" and undone:
                made.append(undone.pop())
        if (screen.interactive and view.get("phase") == "over"
                and table not in self.recorded and self.has_decision(model)):
            self.recorded.add(table)
            self.stats = record_game(view.get("deal_number"), str(view.get("result")),
                                     int(view.get("cards_removed") or 0),
                                     int(view.get("undos") or 0))
        if batch.events and screen.ui.overlay is None:
            self._still = 0.0

    def has_decision(self, model: TableModel) -> bool:
        """Whether the game counts in the statistics (see the module's docstring)."""
        if model.table in self.decided:
            return True
        view = star_patience_view(model.view)
        return model.table not in self.from_deal and bool(view.get("moves") or view.get("undos"))

    # --- hooks: from the user --------------------------------------------------------

    def handle(self, screen: TableHost, event: pygame.event.Event, hotspots: Any) -> bool:
        if event.type != pygame.KEYDOWN:
            return False
        if self.entry is not None:
            self._type(screen, event)
            return True
        if not screen.interactive:
            return False
        ctrl = bool(event.mod & pygame.KMOD_CTRL)
        key = event.key
        if ctrl and key == pygame.K_z and event.mod & pygame.KMOD_SHIFT:
            return self.act(screen, ("star_button", "redo"))
        if ctrl and key in (pygame.K_z, pygame.K_y):
            return self.act(screen, ("star_button", "undo" if key == pygame.K_z else "redo"))
        keys = {pygame.K_h: "hint", pygame.K_n: "new", pygame.K_r: "restart",
                pygame.K_d: "choose", pygame.K_a: "auto", pygame.K_g: "give_up"}
        if key in keys and not ctrl:
            return self.act(screen, ("star_button", keys[key]))
        if key == pygame.K_ESCAPE and self._banner_open(screen):
            self.dismissed = screen.model.table
            return True
        return False

    def _type(self, screen: TableHost, event: pygame.event.Event) -> None:
        text = self.entry or ""
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.act(screen, ("star_button", "deal_ok"))
        elif event.key == pygame.K_ESCAPE:
            self.entry = None
        elif event.key == pygame.K_BACKSPACE:
            self.entry = text[:-1]
        elif event.unicode and event.unicode.isdigit() and len(text) < MAX_DIGITS:
            self.entry = (text + event.unicode).lstrip("0")

    def act(self, screen: TableHost, action: tuple[Any, ...]) -> bool:
        kind = action[0]
        if kind == "star" and screen.interactive:
            self.hint_note = None
            legal = screen.model.legal
            options = [("pair", code) for code in legal.get("pair") or []] + [
                ("place", line) for line in legal.get("place") or []]
            if len(options) > 1 and (action[1], action[2]) in options:
                self._choice = (screen.model.table, screen.model.seq)
            if action[1] == "pair":
                screen.command("pair", {"card": action[2]})
            else:
                screen.command("place", {"line": action[2]})
            return True
        if kind != "star_button":
            return False
        name: str = action[1]
        model = screen.model
        legal = model.legal
        if name == "dismiss":
            self.dismissed = model.table
        elif name == "deal_cancel":
            self.entry = None
        elif not screen.interactive:
            return name != "leave"
        elif name in ("undo", "redo"):
            if legal.get(name):
                screen.command(name, {})
                if name == "undo":
                    self._undo_own_move(model)
            else:
                undo_allowed = star_patience_view(model.view).get("undo_allowed", True)
                model.refuse(f"nothing to {name}" if undo_allowed else "undo is off at this table")
        elif name == "give_up":
            if legal.get("give_up"):
                screen.ask("Give up this game?", self._counted(model), "Give up", pygame.K_g,
                           lambda: self._give_up(screen))
        elif name == "hint":
            self._hint(model)
        elif name == "auto":
            self.autoplay = not self.autoplay
            self._save_setting()
        elif name == "new":
            self._new_table(screen, random.randrange(1, NEW_DEALS))
        elif name == "restart":
            number = star_patience_view(model.view).get("deal_number")
            if number is not None:
                self._new_table(screen, int(number))
        elif name == "choose":
            self.entry = ""
        elif name == "deal_ok":
            text = self.entry or ""
            if text.isdigit() and 1 <= int(text) <= MAX_DEAL:
                self.entry = None
                self._new_table(screen, int(text))
            else:
                model.refuse(f"a deal number is 1 to {MAX_DEAL}")
        return True

    def _counted(self, model: TableModel) -> str:
        """What giving up this game does to the statistics, for the question before it."""
        if self.has_decision(model):
            return "It counts as a lost game in your statistics."
        return "You have had no choice to make yet, so your statistics leave it out."

    @staticmethod
    def _give_up(screen: TableHost) -> None:
        if screen.interactive and screen.model.legal.get("give_up"):
            screen.command("give_up", {})

    def _hint(self, model: TableModel) -> None:
        from starhall.shared.games.star_patience.bots import chances

        view = star_patience_view(model.view)
        if view.get("phase") == "stuck":
            self.hint_note = "No move can save this card: Undo (Ctrl+Z) or Give up (G)."
            return
        if view.get("phase") != "play":
            self.hint_note = "Nothing to decide now."
            return
        best = None
        for command, chance in chances(view):  # the player's own view: the stock unknown
            if best is None or chance > best[1]:
                best = (command, chance)
        if best is None:
            return
        command, chance = best
        self.hint = (model.table, model.seq, command.type, dict(command.data), chance)
        self.hint_note = None

    def _current_hint(self, model: TableModel) -> tuple[str, dict[str, Any], float] | None:
        if self.hint is None:
            return None
        table, seq, kind, data, chance = self.hint
        if table != model.table or seq != model.seq:
            return None
        return kind, data, chance

    def _new_table(self, screen: TableHost, deal: int, asked: bool = False) -> None:
        model = screen.model
        view = star_patience_view(model.view)
        under_way = view.get("phase") in ("play", "stuck")
        if under_way and self.has_decision(model) and not asked:
            self.entry = None
            screen.ask(f"Give up this game for deal {deal}?", self._counted(model),
                       "Give up", pygame.K_g, lambda: self._new_table(screen, deal, True))
            return
        if under_way and (view.get("moves") or view.get("undos")):
            # Leaving a game under way: it is given up in the log, and in the statistics
            # when it had a decision.
            screen.command("give_up", {})
            if model.table not in self.recorded and self.has_decision(model):
                self.recorded.add(model.table)
                self.stats = record_game(view.get("deal_number"), "lost",
                                         int(view.get("cards_removed") or 0),
                                         int(view.get("undos") or 0))
        options: dict[str, Any] = {"deal": deal}
        if "undo_allowed" in view:
            options["undo"] = bool(view["undo_allowed"])
        screen.next_table = options
        self.hint, self.hint_note, self.entry = None, None, None

    def _save_setting(self) -> None:
        stats = StarStats.load()
        stats.autoplay = self.autoplay
        import contextlib

        with contextlib.suppress(OSError):
            stats.save()

    # --- hooks: every frame ----------------------------------------------------------

    def update(self, screen: TableHost, dt: float) -> None:
        self.clock += dt
        model = screen.model
        if screen.animator.busy or self.entry is not None or screen.asking:
            self._still = 0.0
            return
        self._still += dt
        undoing = self._undoing
        if undoing is not None and undoing[0] == model.table and model.seq > undoing[1]:
            self._undoing = None
            if model.legal.get("undo") and undoing[2] > 0:
                screen.command("undo", {})
                self._undoing = (model.table, model.seq, undoing[2] - 1)
            return
        view = star_patience_view(model.view)
        if not (self.autoplay and screen.interactive and view.get("phase") == "play"):
            return
        legal = view.get("legal") or {}
        move = forced(legal)
        # Never after an undo (redo waits): the player went back to look at this position.
        if move is None or legal.get("redo") or self._still < AUTO_DELAY:
            return
        if self._auto_sent == (model.seq, model.table):
            return
        self._auto_sent = (model.seq, model.table)
        screen.command(*move)

    def _undo_own_move(self, model: TableModel) -> None:
        """After the first ``undo`` is sent: the further undos that reach back past the
        forced moves auto-play made to the player's own last decision (sent in ``update``
        one by one, each once the one before is in)."""
        made = self._made.get(model.table) or []
        auto = len(made) - next((i for i in range(len(made) - 1, -1, -1) if not made[i]), -1) - 1
        further = min(auto, len(made) - 1)  # each auto move, then the player's own
        self._undoing = (model.table, model.seq, further) if further > 0 else None

    def redraw_after(self, screen: TableHost) -> float | None:
        """The playable places and pairs pulse (``glow``) and the deal number's caret blinks:
        drawn a dozen times a second then; otherwise only when something happens."""
        if self.entry is not None:
            return 0.1
        legal = screen.model.legal
        return 1 / 12 if legal.get("pair") or legal.get("place") else None

    plays_again = True  # New deal and Restart in the end box

    def game_over_panel(self, screen: TableHost) -> pygame.Rect | None:
        """The shared game-over panel, just under the end box while it is open."""
        if self.entry is not None or not self._banner_open(screen):
            return None
        box = self._end_box(StarGeometry.of(screen.layout), screen.interactive)
        return pygame.Rect(box.x, box.bottom + 8, box.w, GAME_OVER_PANEL_HEIGHT - 12)

    # --- the replay viewer -----------------------------------------------------------

    def replay_marks(self, game: Any, states: list[tuple[int, Any]]
                     ) -> tuple[tuple[str, list[int]], tuple[str, list[int]]]:
        """Small jumps: each pair removed (a pairing, or a redo of one). Big jumps: each undo
        or redo, where the game went back or forth."""
        pairs: list[int] = []
        turns: list[int] = []
        previous = (0, 0)
        for position, (_, state) in enumerate(states):
            view = game.view(state, None)
            now = (len(view.get("pairs") or []), int(view.get("undos", 0))
                   + int(view.get("redos", 0)))
            if now[0] > previous[0]:
                pairs.append(position)
            if now[1] > previous[1]:
                turns.append(position)
            previous = now
        return ("pair", pairs), ("undo", turns)

    # --- drawing ---------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, layout: Layout, model: TableModel,
             animator: Animator, ui: TableUi, interactive: bool = True) -> Hotspots:
        hotspots = Hotspots()
        geometry = StarGeometry.of(layout)
        shown: dict[str, Any] = animator.payload or model.view
        hidden = animator.hidden()
        settled = not animator.busy
        playing = interactive and model.seat is not None
        legal = model.legal if settled and playing else {}
        hint = self._current_hint(model) if settled else None
        surface.blit(self._felt.surface(layout), (0, 0))
        self._draw_star(surface, geometry)
        self._draw_places(surface, geometry, shown, hidden, legal, hint, hotspots, playing)
        self._draw_stock(surface, geometry, shown)
        self._draw_removed(surface, geometry, shown, hidden)
        self._draw_turned(surface, geometry, shown, hidden, bool(legal))
        self._draw_flights(surface, geometry, animator)
        self._draw_panel(surface, layout, model, shown, ui, hotspots, playing)
        # Stuck: what to do is said as soon as the card is turned, under the banner.
        stuck = star_patience_view(model.view).get("phase") == "stuck" and not hidden[TURNED]
        self._draw_prompt(surface, geometry, model, hint, playing, settled or stuck)
        if self.entry is not None:
            self._draw_entry(surface, layout, hotspots, ui)
        elif self._banner_open_for(model, playing) and settled:
            self._draw_end(surface, geometry, model, hotspots, ui, playing)
        if model.connection != "connected":
            draw_connection(surface, layout, model)
        return hotspots

    def _banner_open(self, screen: TableHost) -> bool:
        return self._banner_open_for(screen.model, screen.interactive)

    def _banner_open_for(self, model: TableModel, playing: bool) -> bool:
        return model.over and self.dismissed != model.table

    def _draw_star(self, surface: pygame.Surface, geometry: StarGeometry) -> None:
        """An eight-pointed star behind the places, and its eight lines from the centre."""
        cx, cy = geometry.centre
        sx, sy = geometry.step
        points = []
        order = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
        for index, line in enumerate(order):
            points.append(geometry.tip(line, 2.75))
            angle = math.radians(-90 + 45 * index + 22.5)
            points.append((cx + math.cos(angle) * sx * 0.95, cy + math.sin(angle) * sy * 0.95))
        bounds = pygame.Rect(geometry.table)
        layer = pygame.Surface(bounds.size, pygame.SRCALPHA)
        shifted = [(x - bounds.x, y - bounds.y) for x, y in points]
        pygame.draw.polygon(layer, (*STAR_FILL, 150), shifted)
        pygame.draw.polygon(layer, (*STAR_EDGE, 160), shifted, 2)
        centre = (cx - bounds.x, cy - bounds.y)
        for line in LINES:
            tx, ty = geometry.tip(line, 2.6)
            pygame.draw.line(layer, (*theme.GOLD, 110), centre, (tx - bounds.x, ty - bounds.y), 3)
        surface.blit(layer, bounds)
        for line, rect in line_labels(geometry).items():
            surface.blit(fonts.text(line, LABEL_SIZE, theme.TEXT_DIM), rect)

    def _draw_places(self, surface: pygame.Surface, geometry: StarGeometry,
                     shown: dict[str, Any], hidden: Any, legal: dict[str, Any],
                     hint: tuple[str, dict[str, Any], float] | None, hotspots: Hotspots,
                     playing: bool) -> None:
        width, height = geometry.card_size
        radius = max(3, width // 10)
        pairs = set(legal.get("pair") or [])
        places = set(legal.get("place") or [])
        deciding = bool(pairs or places)
        glow = 0.5 + 0.5 * math.sin(self.clock * 5)
        for ring in ("outer", "inner"):
            codes = shown.get(ring) or [None] * len(LINES)
            for line, code in zip(LINES, codes, strict=False):
                rect = geometry.place_rect(ring, line)
                hinted = hint is not None and (
                    (hint[0] == "pair" and code is not None and hint[1].get("card") == code)
                    or (hint[0] == "place" and ring == "outer" and code is None
                        and hint[1].get("line") == line))
                if code is None or hidden[place_key(ring, line)]:
                    if code is None:
                        self._draw_slot(surface, rect, ring, line in places, radius, glow)
                        if playing and ring == "outer":
                            hotspots.add(rect, "star", "place", line)
                    if hinted:
                        self._ring(surface, rect, theme.SELECTED, radius, 4 + 3 * glow)
                    continue
                surface.blit(self.art.face(code, width, height), rect)
                if code in pairs:
                    self._ring(surface, rect, theme.HIGHLIGHT, radius, 3 + 2 * glow)
                elif deciding:
                    surface.blit(self.art.shade(width, height, 90), rect)
                if hinted:
                    self._ring(surface, rect, theme.SELECTED, radius, 4 + 3 * glow)
                if playing:
                    hotspots.add(rect, "star", "pair", code)

    @staticmethod
    def _ring(surface: pygame.Surface, rect: pygame.Rect, colour: theme.Colour, radius: int,
              width: float) -> None:
        grow = round(width) + 2
        pygame.draw.rect(surface, colour, rect.inflate(grow * 2, grow * 2), round(width),
                         border_radius=radius + grow)

    def _draw_slot(self, surface: pygame.Surface, rect: pygame.Rect, ring: str, open_: bool,
                   radius: int, glow: float) -> None:
        layer = pygame.Surface(rect.size, pygame.SRCALPHA)
        if ring == "inner":
            # Emptied for good: a dark hollow with a cross.
            pygame.draw.rect(layer, (*theme.FELT_DARK, 200), layer.get_rect(),
                             border_radius=radius)
            w, h = rect.size
            pygame.draw.line(layer, (*theme.PANEL_EDGE, 150), (w * 0.3, h * 0.35),
                             (w * 0.7, h * 0.65), 2)
            pygame.draw.line(layer, (*theme.PANEL_EDGE, 150), (w * 0.7, h * 0.35),
                             (w * 0.3, h * 0.65), 2)
            surface.blit(layer, rect)
            return
        fill = (*theme.GOLD, round(40 + 50 * glow)) if open_ else (*SLOT, 170)
        pygame.draw.rect(layer, fill, layer.get_rect(), border_radius=radius)
        edge = theme.HIGHLIGHT if open_ else theme.PANEL_EDGE
        pygame.draw.rect(layer, (*edge, 255 if open_ else 170), layer.get_rect(),
                         3 if open_ else 2, border_radius=radius)
        surface.blit(layer, rect)
        if open_:
            blit_text(surface, "place", max(12, rect.w // 5), theme.TEXT, "center",
                      rect.center, max_width=rect.w - 6)
        else:
            blit_text(surface, "empty", max(12, rect.w // 6), theme.TEXT_DIM, "center",
                      rect.center, max_width=rect.w - 6)

    def _draw_stock(self, surface: pygame.Surface, geometry: StarGeometry,
                    shown: dict[str, Any]) -> None:
        width, height = geometry.card_size
        count = int(shown.get("stock_count") or 0)
        rect = geometry.rect_at(geometry.stock)
        if count:
            back = self.art.back(width, height)
            layers = min(count, 6)
            for i in range(layers):
                offset = (layers - 1 - i) * 2
                surface.blit(back, rect.move(-offset, -offset))
        else:
            pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 2, border_radius=width // 10)
        words = f"Stock: {plural(count, 'card')}" if count else "Stock used up"
        blit_text(surface, words, 15, theme.TEXT, "midtop",
                  (rect.centerx, rect.bottom + 6), max_width=max(60, width * 2))
        order = shown.get("stock")
        if not order:
            if count:
                blit_text(surface, "face down", 12, theme.TEXT_DIM, "midtop",
                          (rect.centerx, rect.bottom + 24), max_width=max(60, width * 2))
            return
        # Seeing everything (a replay): the face-down cards in order, the next to turn first.
        blit_text(surface, "next to turn, in order:", 12, theme.TEXT_DIM, "midtop",
                  (rect.centerx, rect.bottom + 24), max_width=max(60, width * 2))
        sw, sh = max(16, width // 2), max(22, height // 2)
        room = max(sw, 2 * (rect.centerx - geometry.table.x) - 24)
        step = min(sw * 0.55, (room - sw) / max(1, len(order) - 1))
        left = rect.centerx - (step * (len(order) - 1) + sw) / 2
        for i, code in enumerate(order):
            surface.blit(self.art.face(code, sw, sh), (round(left + i * step),
                                                       rect.bottom + 42))

    def _draw_removed(self, surface: pygame.Surface, geometry: StarGeometry,
                      shown: dict[str, Any], hidden: Any) -> None:
        width, height = geometry.card_size
        pairs = [list(pair) for pair in shown.get("pairs") or []]
        if hidden[REMOVED] and pairs:
            pairs = pairs[:-1]
        removed = 2 * len(pairs) + len(shown.get("cleared") or [])
        rect = geometry.rect_at(geometry.removed, 0.75)
        if pairs:
            for i, code in enumerate(pairs[-1]):
                surface.blit(self.art.face(code, rect.w, rect.h),
                             rect.move(round((i - 0.5) * rect.w * 0.45), 0))
        else:
            pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 2, border_radius=width // 10)
        blit_text(surface, f"Removed: {removed} of 32", 15, theme.TEXT, "midtop",
                  (rect.centerx, rect.bottom + 6), max_width=max(60, width * 2))
        if pairs:
            blit_text(surface, "last pair", 12, theme.TEXT_DIM, "midtop",
                      (rect.centerx, rect.bottom + 24))

    def _draw_turned(self, surface: pygame.Surface, geometry: StarGeometry,
                     shown: dict[str, Any], hidden: Any, deciding: bool) -> None:
        code = shown.get("turned")
        if not code or hidden[TURNED]:
            return
        # A little larger than the star's cards, on a light halo: the card to decide about
        # (the gold rings are the cards it may pair with).
        rect = geometry.rect_at(geometry.centre, 1.08)
        halo = rect.inflate(12, 12)
        layer = pygame.Surface(halo.size, pygame.SRCALPHA)
        pygame.draw.rect(layer, (*theme.PAPER, 150 if deciding else 70), layer.get_rect(),
                         border_radius=rect.w // 7)
        surface.blit(layer, halo)
        surface.blit(self.art.face(code, rect.w, rect.h), rect)

    def _draw_flights(self, surface: pygame.Surface, geometry: StarGeometry,
                      animator: Animator) -> None:
        draw_flights(surface, self.art, geometry.card_size, animator)

    # --- the side panel --------------------------------------------------------------

    def _draw_panel(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                    shown: dict[str, Any], ui: TableUi, hotspots: Hotspots,
                    playing: bool) -> None:
        area = layout.panel
        view = star_patience_view(model.view)
        pygame.draw.rect(surface, theme.PANEL, area)
        pygame.draw.line(surface, theme.PANEL_EDGE, area.topleft, area.bottomleft, 2)
        x, y = area.x + 16, area.y + 12
        inner = area.w - 32
        compact = area.h < 600
        blit_text(surface, "The Star", 24, theme.GOLD, "topleft", (x, y))
        y += 30
        number = view.get("deal_number")
        deal = deal_words(view)
        blit_text(surface, deal, 20, theme.TEXT, "topleft", (x, y), max_width=inner)
        y += 26
        phase = str(view.get("phase") or "")
        status = PHASES.get(phase, phase)
        if phase == "over":
            status = "Won" if view.get("result") == "won" else (
                "Given up" if view.get("gave_up") else "Lost")
        elif not playing and phase == "play":
            status = "Playing"
        blit_text(surface, status, 15, theme.HIGHLIGHT if phase in ("play", "stuck") else
                  theme.TEXT_DIM, "topleft", (x, y))
        y += 20
        blit_text(surface, f"Moves {view.get('moves', 0)} · undos {view.get('undos', 0)} · "
                           f"redos {view.get('redos', 0)}", 13, theme.TEXT_DIM, "topleft",
                  (x, y), max_width=inner)
        y += 22
        row = 28 if compact else 32
        pitch = row + (5 if compact else 8)
        mouse = ui.mouse
        half = (inner - 8) // 2

        def two(left: tuple[str, str, bool], right: tuple[str, str, bool]) -> None:
            nonlocal y
            for i, (label, name, enabled) in enumerate((left, right)):
                rect = pygame.Rect(x + i * (half + 8), y, half, row)
                button(surface, hotspots, rect, label, "star_button", name, enabled=enabled,
                       hovered=rect.collidepoint(mouse), size=14)
            y += pitch

        def one(label: str, *action: str, enabled: bool = True) -> None:
            nonlocal y
            rect = pygame.Rect(x, y, inner, row)
            button(surface, hotspots, rect, label, *action, enabled=enabled,
                   hovered=rect.collidepoint(mouse), size=14)
            y += pitch

        if playing:
            legal = model.legal
            two(("Undo  Ctrl+Z", "undo", bool(legal.get("undo"))),
                ("Redo  Ctrl+Y", "redo", bool(legal.get("redo"))))
            two(("Hint  H", "hint", phase in ("play", "stuck")),
                ("Give up", "give_up", bool(legal.get("give_up"))))
            one(f"Auto-play forced moves: {'on' if self.autoplay else 'off'}",
                "star_button", "auto")
            y += 4
            one("New deal  N", "star_button", "new")
            one("Restart this deal  R", "star_button", "restart", enabled=number is not None)
            one("Choose deal number…  D", "star_button", "choose")
        one("Leave  Esc", "button", "leave")
        y += 4
        if playing:
            stats = self._stats()
            rate = f" ({round(100 * stats.win_rate)}%)" if stats.played else ""
            lines = [f"Played {stats.played} · won {stats.won}{rate}",
                     f"Streak {stats.streak} · best {stats.best_streak}"]
            best = stats.best(number)
            lines.append(f"This deal: {best.describe()}" if best else
                         "This deal: not finished before")
            blit_text(surface, "Your statistics", 14, theme.GOLD, "topleft", (x, y))
            y += 19
            for line in lines:
                blit_text(surface, line, 13, theme.TEXT, "topleft", (x, y), max_width=inner)
                y += 18
            y += 6
        room = (area.bottom - y - 8) // 17 if area.bottom - y > 24 else 0
        # Long entries wrap (cards by name take room), the newest lines that fit shown.
        lines = [part for entry in ui.log for part in wrap(entry, 12, inner)]
        for line in lines[len(lines) - room:] if room > 0 else []:
            blit_text(surface, line, 12, theme.TEXT_DIM, "topleft", (x, y))
            y += 17

    def _stats(self) -> StarStats:
        if self.stats is None:
            self.stats = StarStats.load()
        return self.stats

    # --- words -----------------------------------------------------------------------

    def prompt(self, model: TableModel, hint: tuple[str, dict[str, Any], float] | None,
               playing: bool) -> str:
        view = star_patience_view(model.view)
        phase = view.get("phase")
        turned = view.get("turned")
        if not view:
            return "Waiting for the table…"
        if phase == "deal":
            return "Dealing…"
        if phase == "over":
            return "The game is won." if view.get("result") == "won" else "The game is lost."
        if not turned:
            return ""
        name = card_name(turned)
        if phase == "stuck":
            lead = f"The {name} has no {rank_word(turned)} to pair with and no empty outer place"
            return lead + (": Undo (Ctrl+Z) or Give up (G)." if playing else ".")
        if hint is not None:
            kind, data, chance = hint
            target = (f"pair it with the {card_name(data['card'])} on "
                      f"{where_is(view, data['card'])}" if kind == "pair"
                      else f"place it on the outer {data['line']} place")
            return f"Hint: {target}  (chance of winning {chance:.0%})"
        if self.hint_note and playing:
            return self.hint_note
        legal = model.legal
        pairs, places = legal.get("pair") or [], legal.get("place") or []
        if not playing:
            return f"Turned: the {name}."
        if len(pairs) == 1:
            return f"Turned: the {name}. Click the {rank_word(turned)} in the star to pair them."
        if pairs:
            return (f"Turned: the {name}. Choose which {rank_word(turned)} to pair it with "
                    "(H for a hint).")
        if places:
            return (f"Turned: the {name}. No {rank_word(turned)} in the star: click an empty "
                    "outer place for it.")
        return f"Turned: the {name}."

    def _draw_prompt(self, surface: pygame.Surface, geometry: StarGeometry, model: TableModel,
                     hint: tuple[str, dict[str, Any], float] | None, playing: bool,
                     settled: bool) -> None:
        if model.refusal:
            lines, size = prompt_lines(geometry, "Refused: " + model.refusal, 17)
            box = prompt_box(geometry, lines, size)
            pygame.draw.rect(surface, theme.ALERT, box, border_radius=10)
            draw_prompt_lines(surface, box, lines, size)
            return
        message = self.prompt(model, hint, playing) if settled else ""
        if message:
            lines, size = prompt_lines(geometry, message, 18)
            box = prompt_box(geometry, lines, size)
            layer = pygame.Surface(box.size, pygame.SRCALPHA)
            pygame.draw.rect(layer, (*theme.PANEL, 190), layer.get_rect(),
                             border_radius=min(box.h // 2, 18))
            surface.blit(layer, box)
            draw_prompt_lines(surface, box, lines, size)

    # --- boxes over the table --------------------------------------------------------

    def _draw_end(self, surface: pygame.Surface, geometry: StarGeometry, model: TableModel,
                  hotspots: Hotspots, ui: TableUi, playing: bool) -> None:
        view = star_patience_view(model.view)
        won = view.get("result") == "won"
        area = self._end_box(geometry, playing)
        panel(surface, area, 255)  # opaque: the star must not show through its text
        pygame.draw.rect(surface, theme.GOLD if won else theme.ALERT, area, 3, border_radius=12)
        hotspots.add(area, "star_button", "none")
        x, y = area.centerx, area.y + 14
        title = ("You won!" if won else "Lost") if playing else (
            "The player won" if won else "The game is lost")
        blit_text(surface, title, 34, theme.GOLD if won else theme.ALERT, "midtop", (x, y))
        y += 44
        number = view.get("deal_number")
        undos = int(view.get("undos") or 0)
        facts = [deal_words(view),
                 f"{view.get('cards_removed', 0)} of 32 cards removed",
                 plural(undos, "undo")]
        blit_text(surface, " · ".join(facts), 17, theme.TEXT, "midtop", (x, y),
                  max_width=area.w - 30)
        y += 26
        if not won:
            turned = view.get("turned")
            why = ("Given up." if view.get("gave_up") else
                   f"The {card_name(turned)} could neither pair nor go on an empty outer place."
                   if turned else "")
            if why:
                blit_text(surface, why, 15, theme.TEXT_DIM, "midtop", (x, y),
                          max_width=area.w - 30)
                y += 24
        if playing:
            stats = self._stats()
            rate = f" ({round(100 * stats.win_rate)}%)" if stats.played else ""
            blit_text(surface, f"Played {stats.played} · won {stats.won}{rate} · streak "
                               f"{stats.streak} · best streak {stats.best_streak}", 15,
                      theme.TEXT, "midtop", (x, y), max_width=area.w - 30)
            y += 22
            best = stats.best(number)
            if best is not None:
                blit_text(surface, f"Your best on deal {number}: {best.describe()}", 15,
                          theme.TEXT_DIM, "midtop", (x, y), max_width=area.w - 30)
            labels = [("New deal  N", "new"), ("Restart  R", "restart"),
                      ("Choose deal  D", "choose"), ("Close  Esc", "dismiss")]
        else:
            labels = [("Close", "dismiss")]
        gap = 10
        width = (area.w - 30 - gap * (len(labels) - 1)) // len(labels)
        bx = area.x + 15
        for label, name in labels:
            rect = pygame.Rect(bx, area.bottom - 54, width, 40)
            button(surface, hotspots, rect, label, "star_button", name,
                   enabled=name != "restart" or number is not None,
                   hovered=rect.collidepoint(ui.mouse), size=15)
            bx += width + gap

    @staticmethod
    def _end_box(geometry: StarGeometry, playing: bool) -> pygame.Rect:
        table = geometry.table
        tall = 226 if playing else 170
        area = pygame.Rect(0, 0, min(540, table.w - 40), min(tall, table.h - 40))
        area.center = (table.centerx, table.centery - 40)  # the shared panel goes under it
        return area

    def _draw_entry(self, surface: pygame.Surface, layout: Layout, hotspots: Hotspots,
                    ui: TableUi) -> None:
        table = layout.table
        width = min(440, table.w - 40)
        about = wrap(f"1 to {MAX_DEAL}: the same number is the same deal everywhere", 14,
                     width - 40)
        area = pygame.Rect(0, 0, width, 178 + 18 * len(about))
        area.center = table.center
        panel(surface, area, 255)
        hotspots.add(area, "star_button", "none")
        blit_text(surface, "Play a deal by its number", 22, theme.GOLD, "midtop",
                  (area.centerx, area.y + 14), max_width=area.w - 20)
        y = area.y + 46
        for line in about:
            blit_text(surface, line, 14, theme.TEXT_DIM, "midtop", (area.centerx, y))
            y += 18
        field = pygame.Rect(area.x + 30, y + 8, area.w - 60, 44)
        pygame.draw.rect(surface, theme.PAPER, field, border_radius=8)
        pygame.draw.rect(surface, theme.HIGHLIGHT, field, 2, border_radius=8)
        caret = "|" if int(self.clock * 2) % 2 == 0 else " "
        blit_text(surface, (self.entry or "") + caret, 26, theme.INK, "midleft",
                  (field.x + 12, field.centery))
        ok = pygame.Rect(0, 0, 150, 40)
        ok.topright = (area.centerx - 8, field.bottom + 18)
        text = self.entry or ""
        button(surface, hotspots, ok, "Play  Enter", "star_button", "deal_ok",
               enabled=text.isdigit() and 1 <= int(text) <= MAX_DEAL,
               hovered=ok.collidepoint(ui.mouse), size=15)
        cancel = pygame.Rect(0, 0, 150, 40)
        cancel.topleft = (area.centerx + 8, field.bottom + 18)
        button(surface, hotspots, cancel, "Cancel  Esc", "star_button", "deal_cancel",
               hovered=cancel.collidepoint(ui.mouse), size=15)
