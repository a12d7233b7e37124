"""The table of "A card game – what else?" (``what_else``): the card to beat large in the
middle with the round's earlier plays behind it, the draw and discard piles, the star-token
supply, every seat's name plate (cards in hand, tokens, in the round / passed / out), the
user's hand with the cards that fit outlined, Pass and Draw buttons, and a line saying what
to do.

Like every table it only reads the server's view and sends commands. Which cards fit is
``view["legal"]["play"]``: those are outlined and a click on one sends ``play``; a click on
any other card sends nothing and says, from the view, why it is greyed ("7 does not fit on
12 red"). At the refill, clicks select cards to discard and the Draw button sends ``refill``
with them. A refusal from the server is shown as it comes.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.games.base import (
    ColourGroup,
    GameTable,
    Swatch,
    TableHost,
    back_key,
    hand_key,
    seat_group,
)
from starhall.client.games.table_parts import (
    SEAT_NOTE,
    draw_log,
    end_box_open,
    offers_panel,
    panel_room,
    panel_strip,
    pointed_card,
    side_panel,
    status_pill,
)
from starhall.client.games.what_else.cards import (
    ORDER,
    STYLES,
    WhatElseArt,
    card_words,
    draw_star,
    draw_token,
    symbol_name,
)
from starhall.client.games.what_else.choreography import (
    DISCARD,
    GAP,
    MARGIN,
    PILE_LABEL_SIZE,
    SWEPT,
    Hidden,
    WhatElseChoreographer,
    WhatElseGeometry,
    between,
    pile_key,
    round_ended,
    token_key,
)
from starhall.client.net.model import TableModel
from starhall.client.ui import fonts, theme
from starhall.client.ui.animation import Animator
from starhall.client.ui.fonts import wrap
from starhall.client.ui.layout import Layout
from starhall.client.ui.summary import Summary
from starhall.client.ui.table_art import Felt, draw_flights
from starhall.client.ui.table_ui import TableUi
from starhall.client.ui.widgets import Hotspots, blit_text, button, draw_connection, panel
from starhall.shared.games.what_else.rules import (
    COLOUR_NAMES,
    MAX_PLAYERS,
    WhatElseLegal,
    what_else_view,
)
from starhall.shared.games.what_else.rules import WhatElseView as Shown

if TYPE_CHECKING:
    from starhall.client.net.session import Batch

View = dict[str, Any]
"""A view or an event as it came from the server; ``Shown`` is a view read typed (the
engine's ``WhatElseView``: that name is this table's)."""

TITLE = "what else?"
NOTE_SECONDS = 3.5
HELP = "help"
"""``ui.overlay`` while the rules card is open."""
END_NARROWEST = 420
"""An end box narrower than this would squeeze its buttons and the log's path."""
PHASES = {"deal": "Dealing", "play": "Playing", "refill": "Refill", "over": "Game over"}


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def refill_words(selected: Any) -> str:
    """What the refill's button does with the cards chosen: its label, and the prompt's."""
    count = len(selected)
    return f"Discard {count}, draw" if count else "Keep all, draw"


def legal_of(model: TableModel, interactive: bool = True) -> WhatElseLegal:
    """What the seat may do now (every view says it, a spectator's too: nothing); nothing
    either when the table is not ``interactive``."""
    legal = what_else_view(model.view).get("legal") if interactive else None
    return legal if legal is not None else {"play": [], "pass": False, "refill": False}


def joined(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class WhatElseView(GameTable):
    def __init__(self, art: WhatElseArt | None = None) -> None:
        self.art = art or WhatElseArt()
        self._felt = Felt()
        self.clock = 0.0
        self.names: list[str] = []
        self.me: int | None = None
        """The seat being played (``None`` when watching): "you" in words."""
        self.note: str | None = None
        """A short local hint after a click that was not sent (a greyed card)."""
        self.note_left = 0.0
        self._said: tuple[str, int] = ("", 0)
        """The table and round whose result went into the log."""
        self.panel_offered = False
        """Whether the screen offers the shared game-over panel: the end box makes room."""

    # --- words -----------------------------------------------------------------------

    def name(self, seat: int | None, start: bool = True) -> str:
        """A seat as a sentence names it: its player's name, or "You" ("you" inside a
        sentence, ``start=False``) for the user's own seat."""
        if seat is None:
            return "?"
        if seat == self.me:
            return "You" if start else "you"
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"Seat {seat}"

    def plate_name(self, seat: int) -> str:
        """A seat as its name plate says it: its player's name, "(you)" after the user's."""
        name = self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat}"
        return name + (" (you)" if seat == self.me else "")

    def _know(self, model: TableModel, interactive: bool) -> None:
        self.names = list(model.names)
        self.me = model.seat if interactive else None

    def round_summary(self, view: Shown) -> list[str]:
        """The last round in two lines: who took the star and why."""
        result = view.get("last_round")
        if result is None:
            return []
        winner = result["winner"]
        tokens = list(view.get("tokens") or [])
        have = tokens[winner] if winner < len(tokens) else 0
        target = int(view.get("target") or 3)
        who = self.name(winner)
        take = "take" if winner == self.me else "takes"
        ended = result["ended"]
        lines = [f"{who} laid last and {take} a star: {have} of {target}."]
        if ended == "all passed":
            lines.append("No one else could lay a card after that.")
        elif ended == "last card":
            lines.append("It was your last card." if winner == self.me
                         else f"It was {who}'s last card.")
        elif ended:
            lines.append(ended[:1].upper() + ended[1:] + ".")
        return lines

    def round_table(self, view: Shown) -> Summary | None:
        """The shared summary panel (``client.ui.summary``) for the round ``view`` reports as
        over: who took the star and why, and every seat's stars."""
        result = view.get("last_round")
        lines = self.round_summary(view)
        if result is None or not lines:
            return None
        winner = result["winner"]
        verb = "take" if winner == self.me else "takes"
        title = f"Round {result['round']}: {self.name(winner)} {verb} a star"
        if view.get("phase") == "over":
            lines.append(self.winners_line(view))
        tokens = list(view.get("tokens") or [])
        target = int(view.get("target") or 3)
        players = len(view.get("hand_counts") or tokens)
        rows = [[self.plate_name(seat), "+1 star" if seat == winner else "",
                 f"{tokens[seat] if seat < len(tokens) else 0} of {target}"]
                for seat in range(players)]
        colours: list[theme.Colour | None] = [theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
                                              for seat in range(players)]
        return Summary(title, lines, ["Player", "This round", "Stars"], rows, colours,
                       coming="round")

    def winners_line(self, view: Shown) -> str:
        winners = [int(s) for s in view.get("winners") or []]
        if not winners:
            return "The game is over."
        if winners == [self.me]:
            return "You win the game!"
        names = [self.name(s) for s in winners]
        return f"{joined(names)} {'wins' if len(names) == 1 else 'win'} the game!"

    def prompt(self, model: TableModel, interactive: bool, selected: list[str]) -> str:
        """What the user should do now, or what the table waits for."""
        view = what_else_view(model.view)
        if not view:
            return "Waiting for the table…"
        phase = view.get("phase")
        if phase == "over":
            return self.winners_line(view)
        if phase == "deal":
            return "Dealing…"
        legal = legal_of(model, interactive)
        top = view.get("top")
        if legal.get("refill"):
            if selected:
                return (f"Discarding {plural(len(selected), 'card')}: click "
                        f'"{refill_words(selected)}" (D), or click a card again to keep it.')
            return f'Your refill: click the cards to discard, or "{refill_words(selected)}" (D).'

        fits = list(legal.get("play") or [])
        if fits or legal.get("pass"):
            if top is None:
                return "Your turn: open the round with any card."
            target = card_words(top)
            if fits and legal.get("pass"):
                return f"Your turn: play a card that fits on {target}, or pass."
            if fits:
                return f"Your turn: play a card that fits on {target}."
            return f"Nothing in your hand fits on {target}: pass."
        waiting = [int(s) for s in view.get("to_act") or []]
        names = joined([self.name(s) for s in waiting])
        if phase == "refill":
            if not waiting:
                return ""
            verb = "are" if len(waiting) > 1 or waiting == [self.me] else "is"
            return f"{names} {verb} discarding and drawing…"
        status = list(view.get("status") or [])
        mine = status[self.me] if self.me is not None and self.me < len(status) else "in"
        lead = {"passed": "You passed this round. ",
                "out": "You have no cards left this round. "}.get(mine, "")
        if not waiting:
            return lead.strip()
        if top is None:
            return f"{lead}{names} opens the round with any card…"
        return f"{lead}Waiting for {names} to play on {card_words(top)}…"

    def why_not(self, model: TableModel, code: str) -> str:
        """Why a click on ``code`` sent nothing, in the view's own terms."""
        reason = self._why_not(model, code)
        return reason[:1].upper() + reason[1:]

    def _why_not(self, model: TableModel, code: str) -> str:
        view = what_else_view(model.view)
        legal = legal_of(model)
        top = view.get("top")
        if view.get("phase") == "over":
            return "The game is over."
        if legal.get("play") and top:
            return f"{card_words(code)} does not fit on {card_words(top)}."
        if legal.get("pass") and top:
            return f"Nothing in your hand fits on {card_words(top)}: pass."
        waiting = [int(s) for s in view.get("to_act") or []]
        status = list(view.get("status") or [])
        mine = status[self.me] if self.me is not None and self.me < len(status) else "in"
        if view.get("phase") == "play" and mine == "passed":
            return "You passed: you are out of this round."
        if waiting:
            return f"Not your turn: waiting for {joined([self.name(s) for s in waiting])}."
        return "Not your turn."

    # --- hooks: from the server ------------------------------------------------------

    def choreographer(self, layout: Layout) -> WhatElseChoreographer:
        return WhatElseChoreographer(layout, self.name)

    def between(self, before: View, event: View) -> View:
        return between(before, event)

    def choosing(self, model: TableModel) -> tuple[str, int] | None:
        """At the refill the user picks any number of cards: keep the selection."""
        return ("refill", 0) if legal_of(model).get("refill") else None

    def summary(self, model: TableModel, before: View, after: View) -> Summary | None:
        """A round's end: its summary, shown once the pile is swept and the star has flown;
        the next round waits for it (the player's summary_delay setting, or a click)."""
        if not round_ended(before, after):
            return None
        self.names = list(model.names)
        return self.round_table(what_else_view(after))

    def describe(self, model: TableModel, event: View) -> str | None:
        kind = event.get("type")
        seat = event.get("seat")
        data = event.get("data") or {}
        self.names = list(model.names)  # a log is worded before the table is drawn (web)
        who = self.name(seat) if isinstance(seat, int) else ""
        if kind == "played":
            return f"{who} played {card_words(str(data.get('card')))}"
        if kind == "passed":
            return f"{who} passed"
        if kind == "refilled":
            discard = [card_words(str(c)) for c in data.get("discard") or []]
            return (f"{who} discarded {', '.join(discard)} and drew" if discard
                    else f"{who} kept all and drew")
        if kind == "shuffled":
            view = what_else_view(model.view)
            return ("Shuffled and dealt" if view.get("round", 1) <= 1
                    and not view.get("discard_pile") else "Discard pile reshuffled")
        return None

    def sound_cues(self, event: View, before: View, after: View) -> tuple[str, ...]:
        # Cards dealt, a reshuffle, a refill's draws: dealt cards; a card laid: played; a
        # round won: the star token it earns (on the last pass, when a pass decided it); the
        # game's last round: the end instead. A pass makes no sound.
        kind = event.get("type")
        cues = ["deal"] if kind in ("shuffled", "refilled") else (
            ["play"] if kind == "played" else [])
        if round_ended(before, after):
            cues.append("hand_end" if what_else_view(after).get("phase") == "over" else "star")
        return tuple(cues)

    def colour_key(self, game: str) -> list[ColourGroup]:
        stars = ColourGroup(
            "Star colours",
            tuple(Swatch(COLOUR_NAMES[key].capitalize(), STYLES[key].colour, symbol_name(key),
                         STYLES[key].letter) for key in ORDER),
            note="Each colour's star has a shape of its own (red five points, yellow six, "
                 "green four, blue eight, violet a round seal) and its letter inside it.")
        return [stars, replace(seat_group(MAX_PLAYERS), note=SEAT_NOTE)]

    def received(self, screen: TableHost, batch: Batch) -> None:
        model = screen.model
        self._know(model, screen.interactive)
        view = what_else_view(model.view)
        result = view.get("last_round")
        number = None if result is None else result["round"]
        if number is not None and self._said != (model.table, number):
            self._said = (model.table, number)
            for line in self.round_summary(view)[:1]:
                screen.say(f"Round {number}: {line}")
        if view.get("phase") == "over" and batch.events:
            screen.say(self.winners_line(view))

    # --- hooks: from the user --------------------------------------------------------

    def handle(self, screen: TableHost, event: pygame.event.Event, hotspots: Any) -> bool:
        if event.type != pygame.KEYDOWN:
            return False
        ui = screen.ui
        key = event.key
        if ui.overlay == HELP and key in (pygame.K_ESCAPE, pygame.K_h):
            ui.overlay = None
            return True
        if key == pygame.K_h:
            ui.overlay = HELP
            return True
        if key in (pygame.K_s, pygame.K_l):
            return True  # no score sheet or last trick here
        if key == pygame.K_p:
            return self.act(screen, ("we_button", "pass"))
        if key == pygame.K_d:
            return self.act(screen, ("we_button", "refill"))
        if key in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_KP_ENTER):
            hand = screen.model.hand
            if ui.focus is not None and 0 <= ui.focus < len(hand):
                return self.act(screen, ("we_card", hand[ui.focus]))
            if legal_of(screen.model).get("refill"):
                return self.act(screen, ("we_button", "refill"))
            return True
        return False

    def act(self, screen: TableHost, action: tuple[Any, ...]) -> bool:
        kind = action[0]
        if kind == "we_card":
            self._card(screen, str(action[1]))
            return True
        if kind != "we_button":
            return False
        name = action[1]
        model, ui = screen.model, screen.ui
        if name == HELP:
            ui.overlay = None if ui.overlay == HELP else HELP
        elif not screen.interactive or ui.overlay:
            return True
        elif name == "pass" and legal_of(model).get("pass"):
            self.note = None
            screen.command("pass", {})
        elif name == "refill" and legal_of(model).get("refill"):
            self.note = None
            hand = model.hand
            screen.command("refill", {"discard": [c for c in hand if c in ui.selected]})
        return True

    def _card(self, screen: TableHost, code: str) -> None:
        model, ui = screen.model, screen.ui
        if not screen.interactive or ui.overlay:
            return
        legal = legal_of(model)
        if legal.get("refill"):
            ui.toggle(code)
            return
        if code in (legal.get("play") or []):
            self.note = None
            screen.command("play", {"card": code})
            return
        self.note = self.why_not(model, code)
        self.note_left = NOTE_SECONDS

    # --- hooks: every frame ----------------------------------------------------------

    def update(self, screen: TableHost, dt: float) -> None:
        self.clock += dt
        if self.note is not None:
            self.note_left -= dt
            if self.note_left <= 0:
                self.note = None
                screen.changed()
        self.panel_offered = offers_panel(screen, self.panel_offered)

    def redraw_after(self, screen: TableHost) -> float | None:
        """The seat to act glows on its plate, and so do the cards that fit: drawn a dozen
        times a second while someone is to act; otherwise only when something happens."""
        view = what_else_view(screen.model.view)
        if view.get("phase") in ("play", "refill") and view.get("to_act"):
            return 1 / 12
        return None

    # --- the shared game-over panel ----------------------------------------------------

    def game_over_panel(self, screen: TableHost) -> pygame.Rect | None:
        """In the end box's bottom strip, while the box is open."""
        if not end_box_open(screen):
            return None
        return panel_strip(self._end_area(WhatElseGeometry.of(screen.layout),
                                          screen.model.players))

    # --- the replay viewer -----------------------------------------------------------

    def replay_marks(self, game: Any, states: list[tuple[int, Any]]
                     ) -> tuple[tuple[str, list[int]], tuple[str, list[int]]]:
        """Small jumps: each play or pass. Big jumps: each round's end."""
        turns: list[int] = []
        rounds: list[int] = []
        previous: tuple[int, int, Any] = (0, 0, None)
        for position, (_, state) in enumerate(states):
            view = what_else_view(game.view(state, None))
            result = view["last_round"]
            now = (len(view["pile"]), sum(1 for s in view["status"] if s == "passed"),
                   None if result is None else result["round"])
            if now[2] != previous[2]:
                rounds.append(position)
                turns.append(position)
            elif now[0] > previous[0] or now[1] > previous[1]:
                turns.append(position)
            previous = now
        return ("turn", turns), ("round", rounds)

    # --- drawing ---------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, layout: Layout, model: TableModel,
             animator: Animator, ui: TableUi, interactive: bool = True) -> Hotspots:
        hotspots = Hotspots()
        self._know(model, interactive)
        geometry = WhatElseGeometry.of(layout)
        scene: View = animator.payload or model.view
        shown = what_else_view(scene)  # with the scene's own keys (STEP, a replay's hands)
        hidden = Hidden(animator.hidden(), scene)
        settled = not animator.busy
        playing = interactive and model.seat is not None
        surface.blit(self._felt.surface(layout), (0, 0))
        self._draw_draw_pile(surface, geometry, shown)
        self._draw_discard_pile(surface, geometry, shown, hidden)
        self._draw_pile(surface, geometry, shown, hidden)
        self._draw_supply(surface, geometry, shown)
        for seat in range(layout.players):
            if layout.relative(seat) != 0:
                self._draw_seat(surface, geometry, shown, seat, hidden)
        bottom = layout.bottom_seat
        self._plate(surface, geometry, shown, bottom, hidden)
        self._draw_hand(surface, geometry, model, shown, ui, hidden, hotspots, playing, settled)
        if playing and not ui.overlay:  # nothing to press under the summary or the rules
            self._draw_buttons(surface, geometry, model, ui, hotspots, settled)
        draw_flights(surface, self.art, geometry.card_size, animator)
        end_open = not ui.overlay and model.over and not ui.dismissed_game_over and settled
        if not end_open and not ui.overlay:  # the end box says who won; a summary, what was
            self._draw_status(surface, geometry, model, ui, playing, settled)
        self._draw_panel(surface, layout, model, shown, ui, hotspots, hidden)
        if ui.overlay == HELP:
            self._draw_help(surface, geometry, shown, hotspots, ui)
        elif end_open:
            self._draw_game_over(surface, geometry, model, hotspots, ui)
        if model.connection != "connected":
            draw_connection(surface, layout, model)
        return hotspots

    # --- the middle ------------------------------------------------------------------

    @staticmethod
    def _label(surface: pygame.Surface, geometry: WhatElseGeometry, text: str,
               rect: pygame.Rect) -> None:
        """A pile's caption under it, whole and inside the felt."""
        image = fonts.text(text, PILE_LABEL_SIZE, theme.TEXT_DIM)
        where = image.get_rect(midtop=(rect.centerx, rect.bottom + 5))
        where.clamp_ip(geometry.table.inflate(-2 * MARGIN, 0))
        surface.blit(image, where)

    def _draw_draw_pile(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                        shown: Shown) -> None:
        rect = geometry.draw_pile
        count = int(shown.get("draw_count") or 0)
        if count:
            back = self.art.back(rect.w, rect.h)
            layers = min(count, 5)
            for i in range(layers):
                offset = (layers - 1 - i) * 2
                surface.blit(back, rect.move(-offset, -offset))
        else:
            pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 2, border_radius=rect.w // 10)
        self._label(surface, geometry, f"Draw pile: {count}", rect)

    def _draw_discard_pile(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                           shown: Shown, hidden: Hidden) -> None:
        rect = geometry.discard_pile
        cards = list(shown.get("discard_pile") or [])
        landed = cards[: max(0, len(cards) - hidden[DISCARD] - hidden[SWEPT])]
        if landed:
            layers = min(len(landed), 4)
            for i in range(layers - 1):
                offset = (layers - 1 - i) * 2
                pygame.draw.rect(surface, theme.CARD_EDGE, rect.move(-offset, -offset),
                                 border_radius=rect.w // 10)
            surface.blit(self.art.face(landed[-1], rect.w, rect.h), rect)
        else:
            pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 2, border_radius=rect.w // 10)
        self._label(surface, geometry, f"Discard pile: {len(landed)}", rect)

    def _draw_pile(self, surface: pygame.Surface, geometry: WhatElseGeometry, shown: Shown,
                   hidden: Hidden) -> None:
        pile = [(int(seat), str(code)) for seat, code in shown.get("pile") or []]
        if not pile:
            if not hidden[SWEPT] and shown.get("phase") == "play":
                self._draw_empty_pile(surface, geometry)
            return
        rects = geometry.pile_rects(len(pile))
        last = len(pile) - 1
        for index, ((_, code), rect) in enumerate(zip(pile, rects, strict=True)):
            if hidden[pile_key(index)]:
                continue
            surface.blit(self.art.face(code, rect.w, rect.h), rect)
        seat = pile[last][0]
        top = rects[last]
        if not hidden[pile_key(last)]:
            pygame.draw.rect(surface, theme.GOLD, top.inflate(6, 6), 2,
                             border_radius=top.w // 9)
            blit_text(surface, f"laid by {self.name(seat, start=False)}", 14, theme.TEXT,
                      "midtop",
                      (top.centerx, top.bottom + 6), max_width=top.w + 60)
        if len(pile) > 1:
            # Under the fan, ending short of the top card, where the felt is free.
            label = f"this round: {plural(len(pile), 'card')}"
            right = top.left - 6
            if right - fonts.font(12).size(label)[0] >= geometry.fan_left - GAP:
                blit_text(surface, label, 12, theme.TEXT_DIM, "topright",
                          (right, rects[0].bottom + 4))

    def _draw_empty_pile(self, surface: pygame.Surface, geometry: WhatElseGeometry) -> None:
        """Where the round's first card goes: any card opens it."""
        rect = geometry.top_rect
        layer = pygame.Surface(rect.size, pygame.SRCALPHA)
        pygame.draw.rect(layer, (*theme.FELT_DARK, 150), layer.get_rect(),
                         border_radius=rect.w // 9)
        surface.blit(layer, rect)
        pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 2, border_radius=rect.w // 9)
        blit_text(surface, "any card", 14, theme.TEXT_DIM, "center", rect.center,
                  max_width=rect.w - 8)

    def _draw_supply(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                     shown: Shown) -> None:
        count = int(shown.get("supply") or 0)
        cx, cy = geometry.supply_centre
        radius = geometry.token_radius
        first = geometry.supply_point(0, max(1, count))
        for index in range(count):
            draw_token(surface, geometry.supply_point(index, count), radius)
        blit_text(surface, f"Star supply: {count}", 13, theme.TEXT_DIM, "midright",
                  (first[0] - radius - 8, cy))

    # --- the seats -------------------------------------------------------------------

    def _draw_seat(self, surface: pygame.Surface, geometry: WhatElseGeometry, shown: Shown,
                   seat: int, hidden: Hidden) -> None:
        counts = list(shown.get("hand_counts") or [])
        count = max(0, (counts[seat] if seat < len(counts) else 0) - hidden[back_key(seat)])
        hands = shown.get("hands")
        faces = list(hands[seat]) if isinstance(hands, list) and seat < len(hands) else None
        if faces is not None:
            count = len(faces)
        rects = geometry.small_rects(seat, count, spread=faces is not None)
        width, height = geometry.small_size
        status = self._status(shown, seat)
        for i, rect in enumerate(rects):
            if faces is not None:
                surface.blit(self.art.face(faces[i], width, height), rect)
            else:
                surface.blit(self.art.back(width, height), rect)
            if status == "passed":
                surface.blit(self.art.shade(width, height, 120), rect)
        self._plate(surface, geometry, shown, seat, hidden)

    @staticmethod
    def _status(shown: Shown, seat: int) -> str:
        status = list(shown.get("status") or [])
        return str(status[seat]) if seat < len(status) else "in"

    def _seat_words(self, shown: Shown, seat: int) -> tuple[str, theme.Colour]:
        """The plate's second line: where the seat stands in the round."""
        phase = shown.get("phase")
        waiting = seat in (shown.get("to_act") or [])
        if phase == "over":
            won = seat in (shown.get("winners") or [])
            return ("winner!" if won else "", theme.GOLD)
        if phase == "refill":
            if waiting:
                return "discarding…", theme.HIGHLIGHT
            if seat in (shown.get("refill_order") or []):
                return "to refill", theme.TEXT_DIM
            return "ready", theme.TEXT_DIM
        if phase == "deal":
            return "", theme.TEXT_DIM
        if waiting:
            return ("to open" if shown.get("top") is None else "to play"), theme.HIGHLIGHT
        status = self._status(shown, seat)
        words = {"passed": "passed", "out": "out of cards"}.get(status, "in the round")
        if shown.get("pile") and shown.get("last_player") == seat:
            words = "laid last" if status == "in" else f"{words} · laid last"
        return words, theme.ALERT if status == "passed" else theme.TEXT_DIM

    def _plate(self, surface: pygame.Surface, geometry: WhatElseGeometry, shown: Shown,
               seat: int, hidden: Hidden) -> None:
        rect = geometry.seat_plate(seat)
        waiting = seat in (shown.get("to_act") or []) and shown.get("phase") != "over"
        status = self._status(shown, seat)
        out = shown.get("phase") == "play" and status in ("passed", "out")
        panel(surface, rect, 150 if out else 215, radius=10)
        if waiting:
            glow = 0.5 + 0.5 * math.sin(self.clock * 4)
            pygame.draw.rect(surface, theme.HIGHLIGHT, rect.inflate(6, 6), 2 + round(2 * glow),
                             border_radius=13)
        dot = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        pygame.draw.circle(surface, dot, (rect.x + 13, rect.y + 17), 6)
        tokens = list(shown.get("tokens") or [])
        have = max(0, (tokens[seat] if seat < len(tokens) else 0) - hidden[token_key(seat)])
        target = int(shown.get("target") or 3)
        slots = max(target, have)
        radius = geometry.token_radius
        right = rect.right - 10
        room = round(geometry.token_point(seat, 0, slots)[0]) - radius - 6 - (rect.x + 25)
        blit_text(surface, self.plate_name(seat), 16, theme.TEXT_DIM if out else theme.TEXT,
                  "midleft", (rect.x + 25, rect.y + 17), max_width=max(30, room))
        for i in range(slots):
            draw_token(surface, geometry.token_point(seat, i, slots), radius, filled=i < have)
        words, colour = self._seat_words(shown, seat)
        counts = list(shown.get("hand_counts") or [])
        count = max(0, (counts[seat] if seat < len(counts) else 0) - hidden[back_key(seat)])
        cards = plural(count, "card")
        blit_text(surface, cards, 13, theme.TEXT_DIM, "midright", (right, rect.y + 41))
        width = fonts.font(13).size(cards)[0]
        if words:
            blit_text(surface, words, 13, colour, "midleft", (rect.x + 12, rect.y + 41),
                      max_width=max(30, rect.w - width - 34))

    # --- the user's hand and buttons -------------------------------------------------

    def _draw_hand(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                   model: TableModel, shown: Shown, ui: TableUi, hidden: Hidden,
                   hotspots: Hotspots, playing: bool, settled: bool) -> None:
        width, height = geometry.card_size
        bottom = geometry.layout.bottom_seat
        hands = shown.get("hands")
        if model.seat is None:
            # Watching: seat 0's cards, face up when everything is seen (a replay).
            if isinstance(hands, list) and bottom < len(hands):
                for code, rect in zip(hands[bottom], geometry.hand_rects(len(hands[bottom])),
                                      strict=True):
                    surface.blit(self.art.face(code, width, height), rect)
                return
            counts = list(shown.get("hand_counts") or [])
            count = max(0, (counts[bottom] if bottom < len(counts) else 0)
                        - hidden[back_key(bottom)])
            for rect in geometry.hand_rects(count):
                surface.blit(self.art.back(width, height), rect)
            return
        hand = [str(code) for code in shown.get("hand") or []]
        legal = legal_of(model, playing)
        fits = set(legal.get("play") or []) if settled else set()
        choosing = bool(legal.get("refill"))
        my_turn = bool(fits or legal.get("pass")) and settled
        hover = pointed_card(geometry.hand_rects(len(hand)),
                             ui.mouse if playing and ui.overlay is None else None, ui.focus)
        raised = {i for i, code in enumerate(hand) if code in ui.selected and choosing}
        if hover is not None and (hand[hover] in fits or choosing):
            raised.add(hover)
        rects = geometry.hand_rects(len(hand), raised)
        lift = geometry.raise_by // 3
        for i, code in enumerate(hand):
            if code in fits and i not in raised:  # cards that fit stand up a little
                rects[i] = rects[i].move(0, -lift)
        glow = 0.5 + 0.5 * math.sin(self.clock * 5)
        for i, (code, rect) in enumerate(zip(hand, rects, strict=True)):
            if playing and ui.overlay is None:
                hotspots.add(rect.union(rect.move(0, geometry.raise_by)), "we_card", code)
            if hidden[hand_key(code)]:
                continue
            surface.blit(self.art.face(code, width, height), rect)
            if code in ui.selected and choosing:
                pygame.draw.rect(surface, theme.SELECTED, rect.inflate(6, 6), 4,
                                 border_radius=width // 9)
                surface.blit(self.art.shade(width, height, 60), rect)
                tag = pygame.Rect(rect.x, rect.bottom - 26, rect.w, 22)
                pygame.draw.rect(surface, theme.SELECTED, tag)
                blit_text(surface, "discard", 14, theme.INK, "center", tag.center,
                          max_width=rect.w - 6)
            elif code in fits:
                # Outside the card, clear of the coloured band inside its edge.
                ring = rect.inflate(12, 12)
                pygame.draw.rect(surface, theme.INK, ring.inflate(2, 2), 2,
                                 border_radius=width // 7)
                pygame.draw.rect(surface, theme.HIGHLIGHT, ring, 3 + round(2 * glow),
                                 border_radius=width // 7)
            elif my_turn:
                surface.blit(self.art.shade(width, height, 120), rect)
            if i == ui.focus:
                pygame.draw.rect(surface, theme.TEXT, rect.inflate(10, 10), 1,
                                 border_radius=width // 8)
        if not hand and shown.get("phase") == "play":
            area = geometry.hand_area
            blit_text(surface, "no cards left this round", 15, theme.TEXT_DIM, "center",
                      area.center)

    def _draw_buttons(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                      model: TableModel, ui: TableUi, hotspots: Hotspots, settled: bool) -> None:
        legal = legal_of(model)
        area = geometry.buttons
        rect = pygame.Rect(area.x, area.centery - 22, area.w, 44)
        phase = what_else_view(model.view).get("phase")
        if legal.get("refill"):
            label = refill_words(ui.selected) + "  D"
            size = next((size for size in (15, 14) if fonts.font(size).size(label)[0]
                         <= rect.w - 12), 13)
            button(surface, hotspots, rect, label, "we_button", "refill",
                   hovered=rect.collidepoint(ui.mouse), size=size)
        elif phase == "play":
            enabled = bool(legal.get("pass"))
            button(surface, hotspots, rect, "Pass  P", "we_button", "pass", enabled=enabled,
                   hovered=enabled and rect.collidepoint(ui.mouse), size=17)

    def _draw_status(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                     model: TableModel, ui: TableUi, playing: bool, settled: bool) -> None:
        if model.refusal:
            message, fill, size = "Refused: " + model.refusal, theme.ALERT, 17
        elif self.note:
            message, fill, size = self.note, (150, 96, 20), 17
        else:
            message = self.prompt(model, playing, ui.selected) if settled else ""
            fill, size = theme.PANEL, 18
            if model.over and ui.dismissed_game_over:
                message += "  ·  Esc leaves"
        status_pill(surface, message, geometry.status_centre, geometry.table.w - 24, fill,
                    size=size)

    # --- the side panel --------------------------------------------------------------

    def _draw_panel(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                    shown: Shown, ui: TableUi, hotspots: Hotspots, hidden: Hidden) -> None:
        area = side_panel(surface, layout)
        x, y = area.x + 16, area.y + 10
        inner = area.w - 32
        blit_text(surface, "A card game –", 14, theme.TEXT_DIM, "topleft", (x, y))
        y += 18
        blit_text(surface, TITLE, 24, theme.GOLD, "topleft", (x, y), max_width=inner)
        y += 32
        phase = str(shown.get("phase") or "")
        blit_text(surface, f"Round {shown.get('round', 1)} · {PHASES.get(phase, phase)}", 15,
                  theme.TEXT, "topleft", (x, y), max_width=inner)
        y += 20
        target = int(shown.get("target") or 3)
        blit_text(surface, f"First to {target} stars wins", 13, theme.TEXT_DIM, "topleft",
                  (x, y), max_width=inner)
        y += 24
        tokens = list(shown.get("tokens") or [])
        waiting = shown.get("to_act") or []
        for seat in range(layout.players):
            colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
            pygame.draw.circle(surface, colour, (x + 6, y + 9), 5)
            if seat in waiting and phase != "over":
                pygame.draw.polygon(surface, theme.HIGHLIGHT,
                                    [(x - 12, y + 3), (x - 4, y + 9), (x - 12, y + 15)])
            name = self.names[seat] if seat < len(self.names) else f"Seat {seat}"
            blit_text(surface, name, 15, theme.TEXT, "topleft", (x + 18, y),
                      max_width=inner - 18 - target * 16 - 6)
            have = max(0, (tokens[seat] if seat < len(tokens) else 0) - hidden[token_key(seat)])
            for i in range(max(target, have)):
                draw_token(surface, (area.right - 22 - (max(target, have) - 1 - i) * 16, y + 9),
                           6, filled=i < have)
            y += 22
        y += 8
        for label, action in (("How to play  H", ("we_button", HELP)),
                              ("Leave  Esc", ("button", "leave"))):
            rect = pygame.Rect(x, y, inner, 32)
            button(surface, hotspots, rect, label, *action, hovered=rect.collidepoint(ui.mouse),
                   size=15)
            y += 40
        draw_log(surface, ui.log, x, y + 4, inner, area.bottom - 8, 13, 17)

    # --- boxes over the table --------------------------------------------------------

    def _draw_game_over(self, surface: pygame.Surface, geometry: WhatElseGeometry,
                        model: TableModel, hotspots: Hotspots, ui: TableUi) -> None:
        view = what_else_view(model.view)
        players = model.players
        area = self._end_area(geometry, players)
        panel(surface, area, 255)  # opaque: the piles must not show through its text
        pygame.draw.rect(surface, theme.GOLD, area, 3, border_radius=12)
        hotspots.add(area, "we_button", "none")
        x, y = area.centerx, area.y + 14
        blit_text(surface, self.winners_line(view), 28, theme.GOLD, "midtop", (x, y),
                  max_width=area.w - 30)
        y += 40
        blit_text(surface, f"after {plural(int(view.get('round') or 1), 'round')}", 15,
                  theme.TEXT_DIM, "midtop", (x, y))
        y += 26
        tokens = list(view.get("tokens") or [])
        order = sorted(range(players), key=lambda s: (-(tokens[s] if s < len(tokens) else 0), s))
        for seat in order:
            have = tokens[seat] if seat < len(tokens) else 0
            blit_text(surface, self.name(seat), 16, theme.TEXT, "midright", (x - 10, y + 9),
                      max_width=area.w // 2 - 30)
            for i in range(have):
                draw_token(surface, (x + 12 + i * 20, y + 9), 8)
            if not have:
                blit_text(surface, "no stars", 13, theme.TEXT_DIM, "midleft", (x + 4, y + 9))
            y += 26
        # Close (Esc) here; Play again and Watch the replay are the shared panel's, in the
        # strip below when the screen offers it; Leave is the side panel's.
        rect = pygame.Rect(0, 0, min(220, area.w - 40), 38)
        rect.midbottom = (area.centerx, area.bottom - panel_room(self.panel_offered) - 14)
        button(surface, hotspots, rect, "Close  Esc", "button", "dismiss",
               hovered=rect.collidepoint(ui.mouse), size=15)

    def _end_area(self, geometry: WhatElseGeometry, players: int) -> pygame.Rect:
        """Over the middle, below the row of seats: wide enough to cover the piles when the
        seats flank it (their labels would peek out), else no wider than it needs."""
        table, middle = geometry.table, geometry.centre_area
        tall = 150 + 26 * players + panel_room(self.panel_offered)
        wide = middle.w + 8 if geometry.sides else 560
        if wide < END_NARROWEST:  # a narrow middle: over the side plates rather than squeezed
            wide = 560
        if wide >= table.w - 40:  # nearly the felt's width: all of it, so nothing peeks out
            wide = table.w - 16
        area = pygame.Rect(0, 0, min(wide, 620), 0)
        area.centerx = table.centerx
        # Below the top row, and above the user's hand when it fits: else higher up.
        floor = geometry.hand_area.y - geometry.raise_by - 6
        area.y = max(table.y + 10, min(middle.y - 6, floor - tall))
        area.h = min(tall, table.bottom - 10 - area.y)
        return area

    def _draw_help(self, surface: pygame.Surface, geometry: WhatElseGeometry, shown: Shown,
                   hotspots: Hotspots, ui: TableUi) -> None:
        table = geometry.table
        area = table.inflate(-min(120, table.w // 8), -min(80, table.h // 8))
        inner = area.w - 48
        options = shown.get("options") or {}
        target = int(shown.get("target") or 3)
        lines = [
            "Lay a card that fits on the top card of the pile: a higher number, or a star of a "
            "colour the top card shows (or both).",
            "A star joker has no number and all five colours: it fits only on a card with a "
            "star, and only a card with a star fits on it.",
            "Nothing fits? Pass: you are out of this round."
            + (" (At this table you may pass anyway.)" if options.get("voluntary_pass") else ""),
            "The last player to lay a card wins the round and takes a star. "
            f"First to {target} stars wins the game.",
            "After a round the winner draws back to 5 cards; every other player may discard "
            "any cards first, then draws back to 5. The winner opens the next round.",
        ]
        size = 15 if area.h > 380 else 13
        wrapped = [wrap(line, size, inner) for line in lines]
        height = 36 + sum(len(w) * (size + 5) + 6 for w in wrapped) + 2 * size + 90
        area.h = min(area.h, height)
        area.centery = table.centery
        panel(surface, area, 255)
        hotspots.add(area, "we_button", HELP)
        x, y = area.x + 24, area.y + 16
        blit_text(surface, "How to play", 24, theme.GOLD, "topleft", (x, y))
        y += 36
        for parts in wrapped:
            for part in parts:
                blit_text(surface, part, size, theme.TEXT, "topleft", (x, y))
                y += size + 5
            y += 6
        y += 4
        blit_text(surface, "The star colours, each with its own shape and letter:", size,
                  theme.TEXT_DIM, "topleft", (x, y))
        y += size + 22
        step = inner / len(ORDER)
        for i, key in enumerate(ORDER):
            cx = x + step * (i + 0.5)
            draw_star(surface, key, (cx - 30, y), 13)
            blit_text(surface, COLOUR_NAMES.get(key, key), 15, theme.TEXT, "midleft",
                      (cx - 12, y))
        y += 30
        if area.bottom - y > 20:
            blit_text(surface, "Click or press H to close.", 13, theme.TEXT_DIM, "topleft",
                      (x, y))
