"""Stars and Bars' table (``stars_and_bars``): a teaching table for two.

The 4 × 4 board of landscape spaces (the centre 2 × 2 marked, stacks with their height, face-
down stacks as card backs), both open hands (the player's at the bottom, the opponent's at
the top), the deck and the discards, both scores, the round, and a status line saying what
to do now.

Like every table it only reads the server's view and sends commands. Choosing a card in the
hand lights the spaces ``view["legal"]["placements"]`` gives for it, each with the points it
would score there; a click on a lit space sends ``place``. The buttons beside the board (the
claims at the start of a turn, Take back, the duties after placing, End turn, Pass) are the
ones ``view["legal"]`` offers. Teacher mode (T) shows, over the space under the pointer, how
many attributes the chosen card differs by from each neighbour and from the card it would
cover, beside what each way of touching asks for; the counts use the engine's exported
``differences`` for display, and the points shown anywhere are the engine's.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pygame

from starhall.client.games.base import ColourGroup, GameTable, Swatch, TableHost, seat_group
from starhall.client.games.stars_and_bars.cards import (
    INK_OF,
    LABEL,
    BarsArt,
    a_card,
    card_words,
    symbol_name,
)
from starhall.client.games.stars_and_bars.choreography import (
    COLUMNS,
    BarsChoreographer,
    BarsGeometry,
    between,
    breakdown,
    claim_words,
    duty_words,
    hand_key,
    kind_of,
    points_of_claim,
    space_key,
    space_name,
    touch,
)
from starhall.client.games.table_parts import (
    SEAT_NOTE,
    draw_log,
    end_box_open,
    offers_panel,
    panel_room,
    panel_strip,
    side_panel,
    status_pill,
)
from starhall.client.net.model import TableModel
from starhall.client.ui import fonts, theme
from starhall.client.ui.animation import Animator, Banner
from starhall.client.ui.fonts import wrap
from starhall.client.ui.layout import Layout, settings_button_rect
from starhall.client.ui.summary import fit_size
from starhall.client.ui.table_art import Felt, draw_flights
from starhall.client.ui.table_ui import TableUi
from starhall.client.ui.widgets import Hotspots, blit_text, button, draw_connection, fitted, panel
from starhall.shared.games.stars_and_bars.rules import (
    ATTRIBUTE_VALUES,
    CENTRE,
    NEIGHBOUR_POINTS,
    NEIGHBOURS,
    SPACES,
    UNDER,
    BarsClaim,
    BarsDuty,
    BarsSpace,
    BarsTurn,
    StarsAndBarsLegal,
    differences,
    stars_and_bars_view,
)
from starhall.shared.games.stars_and_bars.rules import StarsAndBarsView as Shown

if TYPE_CHECKING:
    from starhall.client.net.session import Batch

View = dict[str, Any]
"""A view or an event as it came from the server; ``Shown`` is a view read typed
(``stars_and_bars_view``)."""

NOTE_SECONDS = 3.5
CENTRE_TINT = (196, 160, 60)
SLOT = (16, 70, 44)
MATCH = (60, 170, 90)
"""A teacher's count that is what its way of touching asks for."""
PHASES = {"deal": "Setting up", "play": "Playing", "over": "Game over"}
WINNING = ("To win: over 200 points and 15 ahead, or over 50 ahead, at the end of a round; "
           "else 15 ahead when no card can be placed.")
LEGEND_TITLE = "Differences to score (= points)"
PLATE_NAME_SIZE = 16
PLATE_NAME_SMALLEST = 12
LEGEND_LINES = ("Middle: the card it lies on. Sides 2, above and below 4, corners 3.",
                "Outer spaces must score with every card they touch; centre spaces need not.")


def settled(animator: Animator) -> bool:
    """Whether every card has landed: what is left to play, if anything, is words (the
    points rising from a placed card, a banner), which need not hold the player up."""
    return all(isinstance(item, Banner) or item.sprite.startswith(LABEL)
               for step in animator.queue for item in step.items)


def _hands(view: Shown) -> list[list[str]]:
    return [list(hand) for hand in view.get("hands") or [[], []]]


def placed_space(turn: BarsTurn | None) -> int | None:
    """The space a turn's card went to, if it placed one."""
    placed = turn["placed"] if turn else None
    return None if placed is None else placed["space"]


def legal_of(model: TableModel) -> StarsAndBarsLegal:
    """What the seat may do now (``{}``: nothing)."""
    return stars_and_bars_view(model.view).get("legal") or {}


def _names(model: TableModel, seats: list[int]) -> str:
    names = [model.name(seat) for seat in seats]
    return " and ".join(names)


class BarsView(GameTable):
    def __init__(self, art: BarsArt | None = None) -> None:
        self.art = art or BarsArt()
        self._felt = Felt()
        self.clock = 0.0
        self.teacher = False
        """Teacher mode: differences shown over the space under the pointer."""
        self.selected: str | None = None
        """The hand card chosen to place (the user's own, never sent)."""
        self.note: tuple[str, float] | None = None
        """A remark of the table's own (a click on a space that is not lit) and its expiry."""
        self.panel_offered = False
        """Whether the screen offers the shared game-over panel: the end box makes room."""

    # --- hooks: from the server ------------------------------------------------------

    def choreographer(self, layout: Layout) -> BarsChoreographer:
        return BarsChoreographer(layout)

    def between(self, before: View, event: View) -> View:
        return between(before, event)

    def choosing(self, model: TableModel) -> tuple[str, int] | None:
        return None

    def received(self, screen: TableHost, batch: Batch) -> None:
        if self.selected is not None and self.selected not in self._placements(
                screen.model):
            self.selected = None

    def sound_cues(self, event: View, before: View, after: View) -> tuple[str, ...]:
        # The set-up and a card drawn at a turn's end: dealt cards; a card placed or taken
        # back: played; a duty done to a full stack: gathered like a trick; a claim (the
        # other player's forgotten duty): a Star; the game's end: its end.
        kind = kind_of(event)
        drew = isinstance((event.get("data") or {}).get("drew"), str)
        cue = {"shuffle": "deal", "place": "play", "take_back": "play", "turn_over": "trick",
               "clear_centre": "trick", "remove": "trick", "claim": "star"}.get(kind)
        if kind in ("end_turn", "pass") and drew:
            cue = "deal"
        cues = [cue] if cue else []
        ended = stars_and_bars_view(after).get("phase") == "over"
        if ended and stars_and_bars_view(before).get("phase") != "over":
            cues = [c for c in cues if c != "deal"] + ["hand_end"]
        return tuple(cues)

    def colour_key(self, game: str) -> list[ColourGroup]:
        names = ATTRIBUTE_VALUES["colour"]
        colours = ColourGroup(
            "Card colours",
            tuple(Swatch(names[letter].capitalize(), INK_OF[letter], symbol_name(letter),
                         letter) for letter in INK_OF),
            note="Each colour has its own texture (red diagonal hatching, yellow dots, blue "
                 "horizontal lines) and its initial in two corners of every card.")
        return [colours, replace(seat_group(2), note=SEAT_NOTE)]

    def describe(self, model: TableModel, event: View) -> str | None:
        kind = kind_of(event)
        seat = event.get("seat")
        data = event.get("data") or {}
        who = model.name(seat) if isinstance(seat, int) else "The table"
        space = data.get("space")
        where = space_name(space) if isinstance(space, int) else "?"
        if kind == "shuffle":
            starter = data.get("starter", stars_and_bars_view(model.view).get("starter"))
            first = f"; {model.name(starter)} begins" if isinstance(starter, int) else ""
            return f"Shuffled and set up{first}"
        if kind == "place":
            line = f"{who} places {a_card(str(data.get('card')))} on {where}"
            if data.get("points") is None:
                return line
            detail = breakdown(list(data.get("scoring") or []))
            return f"{line}: +{data['points']}" + (f" ({detail})" if detail else "")
        if kind == "take_back":
            card = data.get("card")
            return f"{who} takes back the {card_words(str(card))}" if card else (
                f"{who} takes the card back")
        if kind in ("turn_over", "clear_centre", "remove"):
            return f"{who} {duty_words({'kind': kind, **data}, third_person=True)}"
        if kind == "claim":
            return f"{who} claims: {claim_words(data, points_of_claim(model.view, data))}"
        if kind in ("end_turn", "pass"):
            verb = "ends the turn" if kind == "end_turn" else "passes (no card fits)"
            points = data.get("points")
            line = f"{who} {verb}" + (f" (+{points})" if points is not None else "")
            forgotten = [duty_words(duty) for duty in data.get("forgotten") or []]
            if forgotten:
                line += "; forgot to " + " and ".join(forgotten)
            return line
        return None

    # --- hooks: from the user --------------------------------------------------------

    def handle(self, screen: TableHost, event: pygame.event.Event, hotspots: Any) -> bool:
        if event.type != pygame.KEYDOWN:
            return False
        key = event.key
        if key == pygame.K_t:
            self.teacher = not self.teacher
            return True
        if key in (pygame.K_s, pygame.K_l):
            return True  # the trick games' score sheet and last trick: nothing here
        if key == pygame.K_ESCAPE and self.selected is not None:
            self.selected = None
            return True
        if not screen.interactive:
            return False
        legal = legal_of(screen.model)
        hand = self._my_hand(screen.model)
        digits = (pygame.K_1, pygame.K_2, pygame.K_3, pygame.K_4)
        if key in digits and digits.index(key) < len(hand):
            return self.act(screen, ("bars_card", hand[digits.index(key)]))
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER) and legal.get("end_turn"):
            screen.command("end_turn", {})
            return True
        if key == pygame.K_BACKSPACE and legal.get("take_back"):
            screen.command("take_back", {})
            return True
        if key == pygame.K_p and legal.get("pass"):  # the "Pass  [P]" button's key
            screen.command("pass", {})
            return True
        return False

    def act(self, screen: TableHost, action: tuple[Any, ...]) -> bool:
        kind = action[0]
        if kind == "bars_teacher":
            self.teacher = not self.teacher
            return True
        if kind not in ("bars_card", "bars_space", "bars_command"):
            return False
        if not screen.interactive:
            return True
        model = screen.model
        if kind == "bars_card":
            code = str(action[1])
            self.selected = None if self.selected == code else code
            self.note = None
            if self.selected is not None and not self._placements(model).get(code):
                self._say(self._why_not_now(model, code))
        elif kind == "bars_space":
            space = int(action[1])
            lit = dict(self._lit(model))
            if self.selected is not None and space in lit:
                screen.command("place", {"card": self.selected, "space": space})
                self.selected = None
            elif self.selected is not None:
                self._say(f"{space_name(space)} is not open for the {card_words(self.selected)}"
                          ": choose a lit space.")
            elif self._placements(model):
                self._say("First choose a card from your hand.")
        else:
            screen.command(str(action[1]), dict(action[2]) if len(action) > 2 else {})
        return True

    def _say(self, text: str) -> None:
        self.note = (text, self.clock + NOTE_SECONDS)

    def _why_not_now(self, model: TableModel, code: str) -> str:
        turn = stars_and_bars_view(model.view).get("turn")
        if turn and turn["placed"]:
            return "You have placed your card this turn: End turn, or Take back to change it."
        if not legal_of(model):
            return "It is not your turn."
        return f"The {card_words(code)} fits on no space now: choose another card."

    # --- hooks: every frame, the replay viewer ---------------------------------------

    def update(self, screen: TableHost, dt: float) -> None:
        self.clock += dt
        if self.note is not None and self.clock >= self.note[1]:
            self.note = None
            screen.changed()
        self.panel_offered = offers_panel(screen, self.panel_offered)

    def redraw_after(self, screen: TableHost) -> float | None:
        """The lit spaces of the chosen card and the stacks a claim or a duty is about pulse:
        drawn a dozen times a second then; otherwise only when something happens (the points
        rising from a placed card and the banners are animation steps, drawn anyway)."""
        legal = legal_of(screen.model) if screen.interactive else {}
        if self._lit(screen.model) or legal.get("claims") or legal.get("duties"):
            return 1 / 12
        return None

    def game_over_panel(self, screen: TableHost) -> pygame.Rect | None:
        """The shared game-over panel, in the end box's bottom strip while the box is open."""
        if not end_box_open(screen):
            return None
        return panel_strip(self._end_area(BarsGeometry.of(screen.layout)))

    def replay_marks(self, game: Any, states: list[tuple[int, Any]]
                     ) -> tuple[tuple[str, list[int]], tuple[str, list[int]]]:
        """Small jumps: where a turn begins. Big jumps: where a round begins."""
        turns: list[int] = []
        rounds: list[int] = []
        previous: tuple[Any, Any] | None = None
        for position, (_, state) in enumerate(states):
            view = stars_and_bars_view(game.view(state, None))
            now = (view.get("round"), tuple(view.get("to_act") or ()))
            if previous is not None and now[1] and now[1] != previous[1]:
                turns.append(position)
            if previous is not None and now[0] != previous[0] and view.get("phase") == "play":
                rounds.append(position)
            previous = now
        return ("turn", turns), ("round", rounds)

    # --- what the view offers --------------------------------------------------------

    @staticmethod
    def _placements(model: TableModel) -> dict[str, list[list[int]]]:
        placements: dict[str, list[list[int]]] = legal_of(model).get("placements") or {}
        return placements

    def _lit(self, model: TableModel) -> list[tuple[int, int]]:
        """(space, points) for the chosen card, as ``legal.placements`` gives them."""
        if self.selected is None:
            return []
        return [(int(space), int(points)) for space, points in
                self._placements(model).get(self.selected) or []]

    @staticmethod
    def _my_hand(model: TableModel) -> list[str]:
        hands = _hands(stars_and_bars_view(model.view))
        seat = model.seat
        return hands[seat] if seat is not None and 0 <= seat < len(hands) else []

    def buttons(self, model: TableModel) -> list[tuple[str, str, dict[str, Any]]]:
        """(label, command, data) of each move the view offers besides placing."""
        legal = legal_of(model)
        found: list[tuple[str, str, dict[str, Any]]] = []
        for claim in legal.get("claims") or []:
            data = {key: value for key, value in claim.items() if key != "points"}
            found.append((f"Claim +{points_of_claim({}, claim)}: {claim_label(claim)}",
                          "claim", data))
        if legal.get("take_back"):
            found.append(("Take back  [Backspace]", "take_back", {}))
        for duty in legal.get("duties") or []:
            found.append(duty_label(duty))
        if legal.get("end_turn"):
            found.append(("End turn  [Enter]", "end_turn", {}))
        if legal.get("pass"):
            found.append(("Pass  [P]", "pass", {}))
        return found

    # --- words -----------------------------------------------------------------------

    def status(self, model: TableModel, playing: bool) -> str:
        view = stars_and_bars_view(model.view)
        if not view:
            return "Waiting for the table…"
        phase = view.get("phase")
        if phase == "deal":
            return "Shuffling and setting up…"
        if phase == "over":
            return result_line(model)
        to_act = list(view.get("to_act") or [])
        if not playing or model.seat not in to_act:
            if not to_act:
                return ""
            waiting = f"{_names(model, to_act)}'s turn"
            return waiting + ("…" if playing else "")
        legal = legal_of(model)
        placements = self._placements(model)
        turn = view.get("turn")
        placed = turn["placed"] if turn else None
        if legal.get("pass") and not placements:
            return "None of your cards fits on any space: press Pass (P)."
        if placed:
            scored = f"You scored +{placed['points']}. "
            duties = legal.get("duties") or []
            if duties:
                return (f"{scored}Your duty: {duty_words(duties[0])} (forget it and it can "
                        "be claimed).")
            return f"{scored}End turn (Enter), or Take back to choose again."
        if self.selected is not None:
            lit = self._lit(model)
            if not lit:
                return f"The {card_words(self.selected)} fits nowhere: choose another card."
            best = max(points for _, points in lit)
            return (f"Click a lit space to place the {card_words(self.selected)} "
                    f"(each shows its points; best +{best}).")
        if legal.get("claims"):
            return ("You may claim first (buttons on the right), then choose a card to "
                    "place.")
        return "Your turn: choose a card from your hand to see where it scores."

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, layout: Layout, model: TableModel,
             animator: Animator, ui: TableUi, interactive: bool = True) -> Hotspots:
        hotspots = Hotspots()
        geometry = BarsGeometry.of(layout)
        scene: View = animator.payload or model.view
        shown = stars_and_bars_view(scene)
        hidden = animator.hidden()
        playing = interactive and model.seat is not None
        if not settled(animator):
            # Cards still on their way: what the table offers waits for the scene to catch
            # up with the server's view (the words and buttons follow the scene shown).
            model = replace(model, view={**scene, "legal": {}})
        else:
            # Only words left to play (points rising, a banner): the table is the server's
            # view, plates and turn box included, as the status line and the buttons are;
            # a word-only step's payload may still be the other seat's turn
            shown = stars_and_bars_view(model.view)
        surface.blit(self._felt.surface(layout), (0, 0))
        hover = geometry.space_at(ui.mouse) if ui.mouse != (-1, -1) else None
        lit = dict(self._lit(model)) if playing else {}
        self._draw_board(surface, geometry, shown, hidden, lit, hover, hotspots, playing)
        if playing:
            self._draw_offers(surface, geometry, model)
        end_open = model.over and not ui.dismissed_game_over
        if self.teacher and hover is not None and not end_open:
            self._draw_teacher(surface, geometry, shown, hover)
        self._draw_piles(surface, geometry, shown)
        self._draw_legend(surface, geometry)
        for seat in range(len(_hands(shown))):
            self._draw_hand(surface, geometry, model, shown, seat, hidden, hotspots, playing)
            self._draw_plate(surface, geometry, model, shown, seat, playing)
        self._draw_turn_box(surface, geometry, model, shown, ui, hotspots, playing, hover)
        draw_flights(surface, self.art, geometry.card_size, animator)
        end_open = model.over and not ui.dismissed_game_over and not ui.overlay and (
            not animator.busy)
        if not end_open:  # the end box says who won and why
            self._draw_status(surface, geometry, model, ui, playing)
        self._draw_panel(surface, layout, model, shown, ui, hotspots, playing)
        if end_open:
            self._draw_end(surface, geometry, model, ui, hotspots, playing)
        if model.connection != "connected":
            draw_connection(surface, layout, model)
        return hotspots

    # --- the board ---------------------------------------------------------------------

    def _draw_board(self, surface: pygame.Surface, geometry: BarsGeometry, shown: Shown,
                    hidden: Any, lit: dict[int, int], hover: int | None, hotspots: Hotspots,
                    playing: bool) -> None:
        width, height = geometry.card_size
        board = shown.get("board") or []
        # The centre 2 × 2: a warm ground behind its four spaces, named.
        block = geometry.centre_block.inflate(geometry.gap * 2 + 6, geometry.gap * 2 + 6)
        layer = pygame.Surface(block.size, pygame.SRCALPHA)
        pygame.draw.rect(layer, (*CENTRE_TINT, 70), layer.get_rect(), border_radius=14)
        pygame.draw.rect(layer, (*CENTRE_TINT, 200), layer.get_rect(), 2, border_radius=14)
        surface.blit(layer, block)
        for column, letter in enumerate(COLUMNS):
            rect = geometry.space_rect(column)
            blit_text(surface, letter, 15, theme.TEXT_DIM, "midbottom",
                      (rect.centerx, rect.y - 3))
        for row in range(4):
            rect = geometry.space_rect(row * 4)
            blit_text(surface, str(row + 1), 15, theme.TEXT_DIM, "midright",
                      (rect.x - 8, rect.centery))
        glow = 0.5 + 0.5 * math.sin(self.clock * 5)
        mine, last = placed_space(shown.get("turn")), placed_space(shown.get("last_turn"))
        for space in range(SPACES):
            rect = geometry.space_rect(space)
            entry = board[space] if space < len(board) and not hidden[space_key(space)] else None
            self._draw_stack(surface, rect, entry, space)
            if space == mine and entry and entry["top"]:
                self._ring(surface, rect, theme.SELECTED, 3)
            elif space == last and entry and entry["top"]:
                self._ring(surface, rect, theme.PANEL_EDGE, 2)
            if lit:
                if space in lit:
                    self._ring(surface, rect, theme.HIGHLIGHT, 3 + 2 * glow)
                    if space == hover and self.selected is not None:
                        ghost = self.art.face(self.selected, width, height)
                        ghost.set_alpha(150)
                        surface.blit(ghost, rect)
                        ghost.set_alpha(255)  # not None: that would drop its transparency
                    self._points_badge(surface, rect, lit[space])
                else:
                    surface.blit(self.art.shade(width, height, 120), rect)
            if playing:
                hotspots.add(rect, "bars_space", space)
        if hover is not None and (lit or self.teacher):
            rect = geometry.space_rect(hover)
            pygame.draw.rect(surface, theme.TEXT, rect.inflate(6, 6), 1,
                             border_radius=width // 12)

    def _draw_stack(self, surface: pygame.Surface, rect: pygame.Rect, entry: BarsSpace | None,
                    space: int) -> None:
        """A space's stack, or the empty space (``entry`` ``None``: a card still on its way)."""
        width, height = rect.size
        count = entry["height"] if entry else 0
        radius = max(3, height // 12)
        if count <= 0:
            layer = pygame.Surface(rect.size, pygame.SRCALPHA)
            pygame.draw.rect(layer, (*SLOT, 170), layer.get_rect(), border_radius=radius)
            edge = CENTRE_TINT if space in CENTRE else theme.PANEL_EDGE
            pygame.draw.rect(layer, (*edge, 170), layer.get_rect(), 2, border_radius=radius)
            surface.blit(layer, rect)
            blit_text(surface, space_name(space), max(12, height // 6), theme.TEXT_DIM,
                      "center", rect.center)
            return
        # Lower cards peek out under the top one, one edge per card (three at most).
        for layer_index in range(min(count - 1, 3), 0, -1):
            under = rect.move(layer_index * 2, layer_index * 2)
            pygame.draw.rect(surface, theme.PAPER, under, border_radius=radius)
            pygame.draw.rect(surface, theme.CARD_EDGE, under, 1, border_radius=radius)
        top = entry["top"] if entry else None
        face_down = bool(entry and entry["face_down"]) or not top
        image = self.art.back(width, height) if face_down else self.art.face(str(top), width,
                                                                             height)
        surface.blit(image, rect)
        if count >= 2 or face_down:
            full = count >= 4
            centre = (rect.right - max(10, height // 7), rect.y + max(10, height // 7))
            size = max(10, height // 8)
            pygame.draw.circle(surface, theme.GOLD if full else theme.PANEL, centre, size)
            pygame.draw.circle(surface, theme.INK if full else theme.PANEL_EDGE, centre, size, 2)
            blit_text(surface, str(count), max(12, height // 6),
                      theme.INK if full else theme.TEXT, "center", centre)
        if face_down:
            blit_text(surface, "face down", max(12, height // 8), theme.TEXT, "midbottom",
                      (rect.centerx, rect.bottom - 4), max_width=width - 8)

    def _draw_offers(self, surface: pygame.Surface, geometry: BarsGeometry, model: TableModel
                     ) -> None:
        """The stacks a claim or a duty the view offers is about, ringed and named."""
        glow = 0.5 + 0.5 * math.sin(self.clock * 4)
        for rect, words, tag, size in offer_marks(geometry, legal_of(model)):
            self._ring(surface, rect, theme.ALERT, 3 + 2 * glow)
            image = fonts.text(words, size, theme.TEXT)
            if image.get_width() > tag.w - 8:
                image = pygame.transform.smoothscale_by(image, (tag.w - 8) / image.get_width())
            pygame.draw.rect(surface, theme.ALERT, tag, border_radius=tag.h // 2)
            surface.blit(image, image.get_rect(center=tag.center))

    @staticmethod
    def _ring(surface: pygame.Surface, rect: pygame.Rect, colour: theme.Colour,
              width: float) -> None:
        grow = round(width) + 2
        pygame.draw.rect(surface, colour, rect.inflate(grow * 2, grow * 2), round(width),
                         border_radius=rect.h // 10 + grow)

    @staticmethod
    def _points_badge(surface: pygame.Surface, rect: pygame.Rect, points: int) -> None:
        text = f"+{points}"
        size = max(14, rect.h // 4)
        image = fonts.text(text, size, theme.INK)
        pill = image.get_rect(center=(rect.centerx, rect.bottom - image.get_height() // 2 - 2))
        pill = pill.inflate(16, 4)
        pygame.draw.rect(surface, theme.HIGHLIGHT, pill, border_radius=pill.h // 2)
        pygame.draw.rect(surface, theme.INK, pill, 2, border_radius=pill.h // 2)
        surface.blit(image, image.get_rect(center=pill.center))

    # --- teacher mode ------------------------------------------------------------------

    def comparing(self, shown: Shown, hover: int) -> tuple[str, str] | None:
        """The card teacher mode compares with what touches ``hover``: the chosen card (as
        if placed there), else the face-up card lying there; and how to say which."""
        board = shown.get("board") or []
        if self.selected is not None:
            return self.selected, (f"your {card_words(self.selected)}, if placed on "
                                   f"{space_name(hover)}")
        entry = board[hover] if hover < len(board) else None
        top = entry["top"] if entry and not entry["face_down"] else None
        if top:
            return top, f"the {card_words(top)} on {space_name(hover)}"
        return None

    def teacher_counts(self, shown: Shown, hover: int) -> list[tuple[int, str, int, int]]:
        """(space, way, differences, needed) for each face-up card the compared card touches:
        the card under it (the chosen card would cover the top; a top covers the card below
        it) and its neighbours. ``needed`` is the rules' table, as the engine exports it."""
        compared = self.comparing(shown, hover)
        if compared is None:
            return []
        card = compared[0]
        board = shown.get("board") or []
        counts = []
        entry = board[hover] if hover < len(board) else None
        face_up = entry is not None and not entry["face_down"]
        stack = list(entry["cards"]) if entry and face_up else []
        if not stack and entry and face_up and entry["top"]:
            stack = [entry["top"]]  # a view without whole stacks: the top at least
        under = (stack[-1] if self.selected is not None else stack[-2]) if (
            len(stack) >= (1 if self.selected is not None else 2)) else None
        if under is not None:
            counts.append((hover, "under", differences(card, under), NEIGHBOUR_POINTS[UNDER]))
        for space, kind, needed in NEIGHBOURS[hover]:
            other = board[space] if space < len(board) else None
            top = other["top"] if other and not other["face_down"] else None
            if top:
                counts.append((space, touch(kind), differences(card, top), needed))
        return counts

    def _draw_teacher(self, surface: pygame.Surface, geometry: BarsGeometry, shown: Shown,
                      hover: int) -> None:
        for space, way, count, needed in self.teacher_counts(shown, hover):
            rect = geometry.space_rect(space)
            match = count == needed
            big = fonts.text(f"{count} diff.", 15, theme.TEXT)
            small = fonts.text(("under it: " if way == "under" else "") + f"needs {needed}"
                               + (" ok" if match else ""), 12, theme.TEXT)
            box = pygame.Rect(0, 0, min(rect.w - 6, max(big.get_width(), small.get_width())
                                        + 12), big.get_height() + small.get_height() + 6)
            box.center = rect.center
            if way == "under":
                box.top = rect.y + 3
            layer = pygame.Surface(box.size, pygame.SRCALPHA)
            pygame.draw.rect(layer, (*(MATCH if match else theme.PANEL), 235), layer.get_rect(),
                             border_radius=8)
            pygame.draw.rect(layer, (*theme.TEXT, 200), layer.get_rect(), 1, border_radius=8)
            surface.blit(layer, box)
            blit_text(surface, f"{count} diff.", 15, theme.TEXT, "midtop",
                      (box.centerx, box.y + 3), max_width=box.w - 6)
            blit_text(surface, ("under it: " if way == "under" else "") + f"needs {needed}"
                      + (" ok" if match else ""), 12, theme.TEXT, "midbottom",
                      (box.centerx, box.bottom - 3), max_width=box.w - 6)

    # --- piles and the legend ----------------------------------------------------------

    def _draw_piles(self, surface: pygame.Surface, geometry: BarsGeometry, shown: Shown
                    ) -> None:
        width, height = geometry.pile_size
        for rect, count, word in ((geometry.deck_rect, int(shown.get("deck") or 0), "Deck"),
                                  (geometry.discard_rect, int(shown.get("discards") or 0),
                                   "Discards")):
            if count:
                layers = min(count, 5)
                for i in range(layers):
                    offset = (layers - 1 - i) * 2
                    surface.blit(self.art.back(width, height), rect.move(-offset, -offset))
            else:
                pygame.draw.rect(surface, theme.PANEL_EDGE, rect, 2, border_radius=height // 10)
            blit_text(surface, f"{word}: {count}", 15, theme.TEXT, "midtop",
                      (rect.centerx, rect.bottom + 5), max_width=geometry.left_column.w)

    def _draw_legend(self, surface: pygame.Surface, geometry: BarsGeometry) -> None:
        """The scoring rule as a picture: the card placed in the middle, on each neighbour the
        differences it must have (which are also the points it then gives)."""
        column = geometry.left_column
        top = geometry.discard_rect.bottom + 30
        bottom = geometry.status_centre[1] - 18
        if bottom - top < 100:
            return
        for line in wrap(LEGEND_TITLE, 13, column.w):  # wrapped in a narrow column
            blit_text(surface, line, 13, theme.TEXT, "topleft", (column.x, top))
            top += 17
        cell_w = min(42, (column.w - 8) // 3)
        cell_h = round(cell_w / 1.4)
        grid = pygame.Rect(0, 0, cell_w * 3 + 8, cell_h * 3 + 8)
        grid.midtop = (column.centerx, top + 3)
        numbers = (("3", "4", "3"), ("2", "1", "2"), ("3", "4", "3"))
        for row in range(3):
            for col in range(3):
                cell = pygame.Rect(grid.x + col * (cell_w + 4), grid.y + row * (cell_h + 4),
                                   cell_w, cell_h)
                middle = row == 1 and col == 1
                pygame.draw.rect(surface, theme.PAPER if middle else SLOT, cell,
                                 border_radius=4)
                pygame.draw.rect(surface, theme.PANEL_EDGE, cell, 1, border_radius=4)
                blit_text(surface, numbers[row][col], 15, theme.INK if middle else theme.GOLD,
                          "center", cell.center)
        y = grid.bottom + 6
        for text in LEGEND_LINES:
            lines = wrap(text, 12, column.w)
            if y + 15 * len(lines) > bottom:
                return  # a sentence whole or not at all
            for line in lines:
                blit_text(surface, line, 12, theme.TEXT_DIM, "topleft", (column.x, y),
                          max_width=column.w)
                y += 15

    # --- hands and name plates ---------------------------------------------------------

    def _draw_hand(self, surface: pygame.Surface, geometry: BarsGeometry, model: TableModel,
                   shown: Shown, seat: int, hidden: Any, hotspots: Hotspots, playing: bool
                   ) -> None:
        hand = _hands(shown)[seat]
        rects = geometry.hand_rects(seat, len(hand))
        mine = playing and seat == model.seat
        placements = self._placements(model) if mine else {}
        choosing = mine and bool(placements)
        for code, rect in zip(hand, rects, strict=True):
            if hidden[hand_key(seat, code)]:
                continue
            lifted = rect.move(0, -12) if code == self.selected and mine else rect
            surface.blit(self.art.face(code, rect.w, rect.h), lifted)
            if mine:
                hotspots.add(rect.union(lifted), "bars_card", code)
            if code == self.selected and mine:
                self._ring(surface, lifted, theme.SELECTED, 3)
            elif choosing and placements.get(code):
                self._ring(surface, lifted, theme.HIGHLIGHT, 2)
            elif choosing:
                surface.blit(self.art.shade(rect.w, rect.h), lifted)
            if choosing:
                options = placements.get(code) or []
                best = max((int(points) for _, points in options), default=None)
                words = f"up to +{best}" if best is not None else "fits nowhere"
                blit_text(surface, words, 13, theme.GOLD if best is not None else
                          theme.TEXT_DIM, "midbottom", (lifted.centerx, lifted.y - 2))
        if choosing and hand:
            blit_text(surface, "keys 1-4 choose", 12, theme.TEXT_DIM, "topleft",
                      (rects[-1].right + 10, rects[-1].bottom - 14))

    def _draw_plate(self, surface: pygame.Surface, geometry: BarsGeometry, model: TableModel,
                    shown: Shown, seat: int, playing: bool) -> None:
        rect = geometry.plate_rect(seat)
        to_act = seat in (shown.get("to_act") or [])
        panel(surface, rect, 205, radius=10)
        if to_act and shown.get("phase") == "play":
            pygame.draw.rect(surface, theme.HIGHLIGHT, rect.inflate(4, 4), 3, border_radius=12)
        dot = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        pygame.draw.circle(surface, dot, (rect.x + 14, rect.y + 16), 6)
        scores = shown.get("scores") or []
        score = str(scores[seat]) if seat < len(scores) else ""
        room = rect.w - 26 - 16 - fonts.font(22).size(score)[0]
        name, size, aside = plate_name(model, seat, playing, room)
        blit_text(surface, name, size, theme.TEXT, "midleft", (rect.x + 26, rect.y + 16))
        if score:
            blit_text(surface, score, 22, theme.GOLD, "midright", (rect.right - 10, rect.y + 17))
        notes = [aside] if aside else []
        if to_act and shown.get("phase") == "play":
            notes.append("to play")
        if shown.get("starter") == seat:
            notes.append("began")
        note = " · ".join(notes)
        blit_text(surface, note, 13, theme.HIGHLIGHT if to_act else theme.TEXT_DIM, "midleft",
                  (rect.x + 12, rect.y + 40), max_width=rect.w - 20)

    # --- the turn box beside the board -------------------------------------------------

    def _draw_turn_box(self, surface: pygame.Surface, geometry: BarsGeometry,
                       model: TableModel, shown: Shown, ui: TableUi, hotspots: Hotspots,
                       playing: bool, hover: int | None) -> None:
        column = geometry.right_column
        x, y = column.x, column.y

        def lines(texts: list[str], size: int, colour: theme.Colour) -> None:
            nonlocal y
            for text in texts:
                for index, line in enumerate(wrap(text, size, column.w - 10)):
                    blit_text(surface, line, size, colour, "topleft",
                              (x + (10 if index else 0), y), max_width=column.w)
                    y += size + 4

        turn = shown.get("turn")
        if stars_and_bars_view(model.view).get("phase") == "play" and turn is not None:
            seat = turn["seat"]
            whose = "Your turn" if playing and seat == model.seat else (
                f"{model.name(seat)}'s turn")
            blit_text(surface, whose, 18, theme.GOLD, "topleft", (x, y), max_width=column.w)
            y += 24
            lines(turn_lines(turn), 13, theme.TEXT)
            y += 6
        if playing:
            for label, command, data in self.buttons(model):
                rect = pygame.Rect(x, y, column.w, 32)
                if rect.bottom > column.bottom + 30:
                    break
                button(surface, hotspots, rect, label, "bars_command", command, data,
                       hovered=rect.collidepoint(ui.mouse), size=14)
                y += 38
        last = shown.get("last_turn")
        if last is not None and y + 60 < column.bottom:
            y += 8
            blit_text(surface, f"Last turn: {model.name(last['seat'])}", 14,
                      theme.TEXT_DIM, "topleft", (x, y), max_width=column.w)
            y += 18
            lines(turn_lines(last), 12, theme.TEXT_DIM)
        if self.teacher:
            self._draw_teacher_notes(surface, geometry, shown, hover, y + 10)

    def _draw_teacher_notes(self, surface: pygame.Surface, geometry: BarsGeometry,
                            shown: Shown, hover: int | None, top: int) -> None:
        column = geometry.right_column
        x = column.x
        y = max(top, column.bottom - 150)
        blit_text(surface, "Teacher", 15, theme.GOLD, "topleft", (x, y))
        y += 19
        compared = self.comparing(shown, hover) if hover is not None else None
        if compared is None:
            texts = ["Point at a space to count the differences with the cards around it."]
            if self.selected is None:
                texts.append("Choose a card to compare it.")
        else:
            texts = [f"Comparing {compared[1]}:"]
            for space, way, count, needed in self.teacher_counts(shown, hover or 0):
                verdict = "ok" if count == needed else "no"
                texts.append(f"{space_name(space)} {way}: {count} (needs {needed}) {verdict}")
            if len(texts) == 1:
                texts.append("no face-up card touches it")
        for text in texts:
            for line in wrap(text, 12, column.w):
                if y + 14 > geometry.status_centre[1] - 18:
                    return
                blit_text(surface, line, 12, theme.TEXT, "topleft", (x, y), max_width=column.w)
                y += 15

    # --- the status line ---------------------------------------------------------------

    def _draw_status(self, surface: pygame.Surface, geometry: BarsGeometry, model: TableModel,
                     ui: TableUi, playing: bool) -> None:
        if model.refusal:
            message, fill, alpha = "Refused: " + model.refusal, theme.ALERT, 255
        elif self.note is not None:
            message, fill, alpha = self.note[0], theme.PANEL, 235
        else:
            message, fill, alpha = self.status(model, playing), theme.PANEL, 200
            if model.over and ui.dismissed_game_over:
                message += "  ·  Esc leaves"
        status_pill(surface, message, geometry.status_centre, geometry.table.w - 40, fill,
                    alpha)

    # --- the side panel ----------------------------------------------------------------

    def _draw_panel(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                    shown: Shown, ui: TableUi, hotspots: Hotspots, playing: bool) -> None:
        area = side_panel(surface, layout)
        x, y = area.x + 16, area.y + 12
        inner = area.w - 32
        blit_text(surface, "Stars and Bars", 24, theme.GOLD, "topleft", (x, y))
        y += 32
        phase = str(shown.get("phase") or "")
        blit_text(surface, f"Round {shown.get('round', 0)} · {PHASES.get(phase, phase)}", 15,
                  theme.TEXT, "topleft", (x, y), max_width=inner)
        y += 24
        scores = shown.get("scores") or []
        to_act = shown.get("to_act") or []
        for seat in range(model.players):
            colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
            pygame.draw.circle(surface, colour, (x + 6, y + 9), 5)
            name = model.name(seat) + (" (you)" if playing and seat == model.seat else "")
            acting = seat in to_act and phase == "play"
            if acting:  # a pointer at the seat whose turn it is
                pygame.draw.polygon(surface, theme.HIGHLIGHT, [(x - 10, y + 4), (x - 3, y + 9),
                                                               (x - 10, y + 14)])
            blit_text(surface, name, 15, theme.HIGHLIGHT if acting else theme.TEXT, "topleft",
                      (x + 18, y), max_width=inner - 60)
            if seat < len(scores):
                blit_text(surface, str(scores[seat]), 17, theme.GOLD, "topright",
                          (area.right - 16, y))
            y += 22
        blit_text(surface, f"Deck {shown.get('deck', 0)} · discards {shown.get('discards', 0)}",
                  13, theme.TEXT_DIM, "topleft", (x, y + 2), max_width=inner)
        y += 26
        rect = pygame.Rect(x, y, inner, 32)
        button(surface, hotspots, rect, f"Teacher: {'on' if self.teacher else 'off'}  [T]",
               "bars_teacher", hovered=rect.collidepoint(ui.mouse), size=15)
        y += 40
        rect = pygame.Rect(x, y, inner, 32)
        button(surface, hotspots, rect, "Leave  [Esc]", "button", "leave",
               hovered=rect.collidepoint(ui.mouse), size=15)
        y += 42
        for line in wrap(WINNING, 12, inner):
            blit_text(surface, line, 12, theme.TEXT_DIM, "topleft", (x, y), max_width=inner)
            y += 15
        draw_log(surface, ui.log, x, y + 8, inner, area.bottom - 6)

    # --- the end -----------------------------------------------------------------------

    def _draw_end(self, surface: pygame.Surface, geometry: BarsGeometry, model: TableModel,
                  ui: TableUi, hotspots: Hotspots, playing: bool) -> None:
        view = stars_and_bars_view(model.view)
        result = view.get("result")
        winners = list(result["winners"]) if result else []
        area = self._end_area(geometry)
        panel(surface, area, 255)  # opaque: no card shows through its text
        won = playing and winners == [model.seat]
        colour = theme.GOLD if won or not playing or len(winners) != 1 else theme.ALERT
        pygame.draw.rect(surface, colour, area, 3, border_radius=12)
        hotspots.add(area, "bars_end", "none")
        if len(winners) == 1:
            title = "You win!" if won else f"{model.name(winners[0])} wins"
        else:
            title = "A tie"
        blit_text(surface, title, 34, colour, "midtop", (area.centerx, area.y + 14),
                  max_width=area.w - 30)
        y = area.y + 56
        reason = result_line(model).partition(": ")[2]
        for line in wrap(reason[:1].upper() + reason[1:] + ".", 16, area.w - 40)[:2]:
            blit_text(surface, line, 16, theme.TEXT, "midtop", (area.centerx, y),
                      max_width=area.w - 30)
            y += 21
        y += 8
        scores = view.get("scores") or []
        final = " · ".join(f"{model.name(seat)} {points}" for seat, points in enumerate(scores))
        blit_text(surface, f"Final score: {final}", 16, theme.TEXT, "midtop",
                  (area.centerx, y), max_width=area.w - 30)
        y += 24
        blit_text(surface, end_facts(view), 14, theme.TEXT_DIM, "midtop", (area.centerx, y),
                  max_width=area.w - 30)
        # Look at the board (Esc) here; Play again and Watch the replay are the shared
        # panel's, in the strip below when the screen offers it; Leave is the side panel's.
        rect = pygame.Rect(0, 0, min(260, area.w - 30), 38)
        rect.midbottom = (area.centerx, area.bottom - panel_room(self.panel_offered) - 14)
        button(surface, hotspots, rect, "Look at the board  [Esc]", "button", "dismiss",
               hovered=rect.collidepoint(ui.mouse), size=15)

    def _end_area(self, geometry: BarsGeometry) -> pygame.Rect:
        table = geometry.table
        tall = 214 + panel_room(self.panel_offered)
        # Nearly the felt's width (a small window): all of it, so nothing peeks out beside.
        wide = 560 if table.w - 40 > 560 else table.w - 16
        area = pygame.Rect(0, 0, wide, min(tall, table.h - 20))
        area.center = geometry.board.center
        corner = settings_button_rect(table)  # Rules and Settings: not under the box
        if area.left < corner.right:
            area.top = max(area.top, corner.bottom + 8)
        area.clamp_ip(table)
        return area


# --- words shared by the drawing and the log ---------------------------------------------

def plate_name(model: TableModel, seat: int, playing: bool, room: int
               ) -> tuple[str, int, str]:
    """A seat's name on its plate, its font size, and what goes on the plate's second line
    instead: the player's own with "(you)" when it fits at ``PLATE_NAME_SIZE`` (the side panel
    says it too); a longer name ("Bruno (Strong)") a little smaller; where even that does not
    fit (a small window), the bot's level on the second line ("Bruno", "Strong"); cut only
    when the name alone is too long."""
    name = model.name(seat)
    mine = f"{name} (you)"
    if playing and seat == model.seat and fonts.font(PLATE_NAME_SIZE).size(mine)[0] <= room:
        return mine, PLATE_NAME_SIZE, ""
    size = fit_size(name, PLATE_NAME_SIZE, room, smallest=PLATE_NAME_SMALLEST)
    level = re.fullmatch(r"(.+) \(([^()]+)\)", name)
    if fonts.font(size).size(name)[0] > room and level is not None:
        name, aside = level.groups()
        size = fit_size(name, PLATE_NAME_SIZE, room, smallest=PLATE_NAME_SMALLEST)
        return fitted(name, size, room), size, aside
    return fitted(name, size, room), size, ""


def claim_label(claim: BarsClaim) -> str:
    space = claim.get("space")
    where = space_name(space) if isinstance(space, int) else ""
    return {"turn_over": f"turn over {where}", "clear": "clear the centre",
            "turn_over_and_clear": f"turn over {where}, clear centre",
            "remove": f"remove {where}"}.get(str(claim.get("kind")), str(claim.get("kind")))


OFFER_TAG_SIZE = 13


def offer_marks(geometry: BarsGeometry, legal: StarsAndBarsLegal
                ) -> list[tuple[pygame.Rect, str, pygame.Rect, int]]:
    """(ringed rect, words, tag, font size) for each claim and duty ``legal`` offers. The tag
    naming it lies inside its own stack (or the centre block), across its middle: above the
    stack, it covered the stack over it ("face down" at that one's foot)."""
    marks: list[tuple[pygame.Rect, str]] = []
    for claim in legal.get("claims") or []:
        space = claim.get("space")
        words = f"claim +{points_of_claim({}, claim)}"
        if claim.get("kind") in ("clear", "turn_over_and_clear"):
            marks.append((geometry.centre_block, words if not isinstance(space, int)
                          else "then clear"))
        if isinstance(space, int):
            marks.append((geometry.space_rect(space), words))
    for duty in legal.get("duties") or []:
        space = duty.get("space")
        word = {"turn_over": "turn over", "remove": "remove"}.get(str(duty.get("kind")),
                                                                   "clear")
        rect = geometry.space_rect(space) if isinstance(space, int) else (
            geometry.centre_block)
        marks.append((rect, f"your duty: {word}"))
    found = []
    for rect, words in marks:
        size = OFFER_TAG_SIZE
        width, height = fonts.font(size).size(words)
        tag = pygame.Rect(0, 0, min(width + 12, rect.w - 6), height + 4)
        tag.center = rect.center
        found.append((rect, words, tag, size))
    return found


def duty_label(duty: BarsDuty) -> tuple[str, str, dict[str, Any]]:
    """(label, command, data) of a duty the view lists after a placing."""
    command = str(duty.get("kind"))
    data = {key: value for key, value in duty.items() if key != "kind"}
    words = duty_words(duty)
    return words[0].upper() + words[1:], command, data


def turn_lines(turn: BarsTurn) -> list[str]:
    """What a turn did so far, one short line each."""
    lines = []
    for claim in turn.get("claims") or []:
        lines.append(f"Claim +{claim.get('points', 0)}: {claim_label(claim)}")
    placed = turn.get("placed")
    if placed:
        where = space_name(int(placed["space"])) if isinstance(placed.get("space"), int) else "?"
        lines.append(f"Placed on {where}: +{placed.get('points', 0)}")
        detail = breakdown(list(placed.get("scoring") or []))
        if detail:
            lines.append(f"  ({detail})")
    for duty in turn.get("duties") or []:
        lines.append(duty_label(duty)[0].replace("Turn over", "Turned over").replace(
            "Remove ", "Removed ").replace("Clear the", "Cleared the"))
    if lines:
        lines.append(f"Turn total: +{turn.get('points', 0)}")
    return lines


def end_facts(view: Shown) -> str:
    """``"21 rounds · 0 cards left in the deck · 30 discarded"``: the rounds the engine counts
    as played (a last one the game ended in the middle of is not)."""
    rounds = view.get("rounds", 0)
    return (f"{rounds} round{'' if rounds == 1 else 's'} · {view.get('deck', 0)} cards left "
            f"in the deck · {view.get('discards', 0)} discarded")


def result_line(model: TableModel) -> str:
    """``"Ada wins: ahead by over 50"``: who won and why, in the players' names."""
    view = stars_and_bars_view(model.view)
    result = view.get("result")
    winners = list(result["winners"]) if result else []
    scores = list(view.get("scores") or [])
    lead = max(scores) - min(scores) if scores else 0
    kind = result["kind"] if result else None
    if len(winners) == 1:
        head = f"{model.name(winners[0])} wins"
        why = {"over_200": f"over 200 points and ahead by {lead} (15 needed)",
               "lead_50": f"ahead by over 50 ({lead}) at the end of round "
                          f"{view.get('round', '?')}",
               "end": f"ahead by {lead} (at least 15) when no more cards could be placed"
               }.get(str(kind))
    elif winners:
        head = "A tie"
        why = {"tie_over_200": f"both over 200 points, only {lead} apart (15 needed to win)",
               "tie_end": f"no more cards could be placed and the scores are only {lead} "
                          "apart (15 needed to win)"}.get(str(kind))
    else:
        return "Game over"
    if why is None:  # a reason this table has no words for: the engine's, with names
        why = result["reason"] if result else ""
        for seat in range(model.players):
            why = why.replace(f"seat {seat}", model.name(seat))
    return f"{head}: {why}" if why else head
