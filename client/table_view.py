"""Draws a Hearts or Stars table from a view: felt, seats, trick, hand, panel and dialogs.

It reads the model (the server's latest view), the animator (cards in flight and the scene
they lead to) and the user's own UI state, and returns the hotspots it drew. It changes
nothing.
"""

from __future__ import annotations

from typing import Any

import pygame

from client import fonts, theme
from client.animation import Animator
from client.cardart import CardArt
from client.choreography import back_key, hand_key, pile_key, trick_key
from client.faces import card_name
from client.layout import Layout
from client.model import TableModel
from client.scores import draw_game_over, draw_score_sheet
from client.ui import TableUi
from client.widgets import Hotspots, blit_text, button, panel, row_of_buttons

TITLES = {"hearts": "Stardeck Hearts", "stars": "Stars"}
PHASE_WORDS = {"deal": "Dealing", "exchange": "Exchange", "pass": "Passing", "play": "Playing",
               "bidding": "Bidding", "bury": "Burial", "over": "Game over"}


class TableView:
    def __init__(self, art: CardArt | None = None) -> None:
        self.art = art or CardArt()
        self._felt = Felt()
        self._playing = False

    # --- the whole frame -------------------------------------------------------------

    def draw(self, surface: pygame.Surface, layout: Layout, model: TableModel,
             animator: Animator, ui: TableUi, interactive: bool = True) -> Hotspots:
        hotspots = Hotspots()
        self._playing = interactive
        shown: dict[str, Any] = animator.payload or model.view
        hidden = animator.hidden()
        surface.blit(self._felt.surface(layout), (0, 0))
        self._draw_centre(surface, layout, shown, hidden)
        for seat in range(layout.players):
            if layout.relative(seat) != 0 or model.seat is None:
                self._draw_opponent(surface, layout, model, shown, seat, hidden)
            self._draw_pile(surface, layout, shown, seat, hidden)
        self._draw_my_plate(surface, layout, model, shown)
        if model.seat is not None:
            self._draw_hand(surface, layout, model, ui, hidden, hotspots, interactive)
        self._draw_flights(surface, layout, animator)
        self._draw_panel(surface, layout, model, shown, ui, hotspots)
        if interactive and model.seat is not None:
            self._draw_actions(surface, layout, model, ui, hotspots)
        self._draw_prompt(surface, layout, model, ui, interactive)
        if ui.overlay == "sheet":
            draw_score_sheet(surface, layout, model, hotspots, ui.mouse)
        elif ui.overlay == "last":
            self._draw_last_trick(surface, layout, model, hotspots)
        elif model.over and not ui.dismissed_game_over and not animator.busy:
            draw_game_over(surface, layout, model, hotspots, ui.mouse)
        if model.connection != "connected":
            self._draw_connection(surface, layout, model)
        return hotspots

    # --- background ------------------------------------------------------------------

    # --- table -----------------------------------------------------------------------

    def _draw_centre(self, surface: pygame.Surface, layout: Layout, shown: dict[str, Any],
                     hidden: Any) -> None:
        width, height = layout.card_size
        widow = int(shown.get("widow_count") or shown.get("undealt_count") or 0)
        if widow and shown.get("phase") in ("bidding", "exchange", "deal"):
            sw, sh = layout.small_card_size
            cx, cy = layout.centre
            back = self.art.back(sw, sh)
            for i in range(widow):
                surface.blit(back, back.get_rect(center=(cx + (i - (widow - 1) / 2) * sw * 0.4,
                                                          cy)))
            label = "widow" if shown.get("game") == "stars" else "undealt"
            blit_text(surface, label, 14, theme.TEXT_DIM, "midtop", (cx, cy + sh / 2 + 4))
        for seat, code in shown.get("trick") or []:
            if hidden[trick_key(code)]:
                continue
            face = self.art.face(code, width, height)
            surface.blit(face, face.get_rect(center=layout.trick_slot(seat)))

    def _draw_opponent(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                       shown: dict[str, Any], seat: int, hidden: Any) -> None:
        sizes = shown.get("hand_sizes") or []
        count = sizes[seat] if seat < len(sizes) else 0
        count = max(0, count - hidden[back_key(seat)])
        sw, sh = layout.small_card_size
        x, y = layout.seat_anchor(seat)
        hands = shown.get("hands")
        if hands and seat < len(hands):
            # Seeing everything (a replay): the seat's cards face up, spread to be read.
            cards = hands[seat]
            step = max(6, min(sw * 0.5, layout.table.w * 0.24 / max(1, len(cards))))
            left = x - (step * (len(cards) - 1) + sw) / 2
            for i, code in enumerate(cards):
                surface.blit(self.art.face(code, sw, sh), (round(left + i * step),
                                                           round(y - sh / 2)))
        else:
            back = self.art.back(sw, sh)
            step = max(4, min(sw * 0.28, 110 / max(1, count)))
            left = x - (step * (count - 1) + sw) / 2
            for i in range(count):
                surface.blit(back, (round(left + i * step), round(y - sh / 2)))
        plate = self._plate_rect(layout, seat)
        self._plate(surface, plate, model, shown, seat)

    def _plate_rect(self, layout: Layout, seat: int) -> pygame.Rect:
        x, y = layout.seat_anchor(seat)
        sw, sh = layout.small_card_size
        rect = pygame.Rect(0, 0, 168, 48)
        rect.midtop = (round(x), round(y + sh / 2 + 6))
        rect.clamp_ip(layout.table.inflate(-8, -8))
        return rect

    def _plate(self, surface: pygame.Surface, rect: pygame.Rect, model: TableModel,
               shown: dict[str, Any], seat: int) -> None:
        turn = seat in (shown.get("to_act") or [])
        panel(surface, rect, 200, radius=10)
        if turn:
            pygame.draw.rect(surface, theme.HIGHLIGHT, rect.inflate(4, 4), 3, border_radius=12)
        dot = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        pygame.draw.circle(surface, dot, (rect.x + 14, rect.y + 15), 6)
        name = model.name(seat) + (" (you)" if seat == model.seat and self._playing else "")
        blit_text(surface, name, 16, theme.TEXT, "midleft", (rect.x + 26, rect.y + 15),
                  max_width=rect.w - 70)
        totals = shown.get("totals") or []
        if seat < len(totals):
            blit_text(surface, str(totals[seat]), 18, theme.GOLD, "midright",
                      (rect.right - 10, rect.y + 15))
        blit_text(surface, self._seat_note(shown, seat), 13, theme.TEXT_DIM, "midleft",
                  (rect.x + 12, rect.y + 35), max_width=rect.w - 20)
        if shown.get("dealer") == seat:
            chip = pygame.Rect(rect.right - 22, rect.bottom - 20, 16, 16)
            pygame.draw.circle(surface, theme.PAPER, chip.center, 9)
            blit_text(surface, "D", 12, theme.INK, "center", chip.center)

    @staticmethod
    def _seat_note(shown: dict[str, Any], seat: int) -> str:
        """One short line under a name: the seat's bid, role or points this hand."""
        if shown.get("game") == "stars":
            if shown.get("declarer") == seat and shown.get("contract"):
                return f"declarer · bid {shown['contract'].get('bid')}"
            if shown.get("phase") == "bidding":
                if (shown.get("passed") or [False] * 8)[seat]:
                    return "passed"
                bids = [amount for who, amount in shown.get("bids") or [] if who == seat]
                return f"bid {bids[-1]}" if bids else "no bid yet"
            points = shown.get("hand_points") or []
            return f"{points[seat]} pts this hand" if seat < len(points) else ""
        taken = shown.get("taken_points") or []
        if shown.get("phase") == "pass":
            return "passed" if (shown.get("passed") or [False] * 8)[seat] else "choosing…"
        return f"{taken[seat]} pts this hand" if seat < len(taken) else ""

    def _draw_my_plate(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                       shown: dict[str, Any]) -> None:
        if model.seat is None:
            return
        width, height = layout.card_size
        rect = pygame.Rect(0, 0, 168, 48)
        rect.bottomleft = (layout.table.x + 14, layout.table.bottom - height - 34)
        self._plate(surface, rect, model, shown, model.seat)

    def _draw_pile(self, surface: pygame.Surface, layout: Layout, shown: dict[str, Any],
                   seat: int, hidden: Any) -> None:
        """A Stars seat's Star pile: small face-up cards and what they are worth."""
        piles = shown.get("star_piles") or []
        if seat >= len(piles) or not piles[seat]:
            return
        cards = [code for code in piles[seat] if not hidden[pile_key(code)]]
        if not cards:
            return
        sw, sh = layout.small_card_size
        x, y = layout.pile_slot(seat)
        for i, code in enumerate(cards):
            face = self.art.face(code, sw, sh)
            surface.blit(face, face.get_rect(center=(x + i * sw * 0.3 - len(cards) * sw * 0.15,
                                                     y)))
        points = (shown.get("star_pile_points") or [0] * 4)[seat]
        blit_text(surface, f"Star pile {points}", 13, theme.GOLD, "midtop", (x, y + sh / 2 + 2))

    def _draw_hand(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                   ui: TableUi, hidden: Any, hotspots: Hotspots, interactive: bool) -> None:
        hand = model.hand
        legal = model.legal
        playable = set(legal.get("play") or [])
        choosing = self.choosing(model)
        raised = {i for i, code in enumerate(hand) if code in ui.selected}
        hover_index = None
        rects = layout.hand_rects(len(hand))
        if interactive:
            for i in range(len(rects) - 1, -1, -1):
                if rects[i].collidepoint(ui.mouse):
                    hover_index = i
                    break
        if ui.focus is not None and 0 <= ui.focus < len(hand):
            hover_index = ui.focus
        if hover_index is not None and (playable or choosing):
            raised.add(hover_index)
        rects = layout.hand_rects(len(hand), raised)
        width, height = layout.card_size
        for i, (code, rect) in enumerate(zip(hand, rects, strict=True)):
            hotspots.add(rect.union(rect.move(0, height)), "card", code)
            if hidden[hand_key(code)]:
                continue
            surface.blit(self.art.face(code, width, height), rect)
            if code in ui.selected:
                pygame.draw.rect(surface, theme.SELECTED, rect.inflate(4, 4), 3,
                                 border_radius=width // 10)
            elif code in playable:
                pygame.draw.rect(surface, theme.HIGHLIGHT, rect.inflate(4, 4), 3,
                                 border_radius=width // 10)
            elif playable:
                surface.blit(self.art.shade(width, height), rect)
            if i == ui.focus:
                pygame.draw.rect(surface, theme.TEXT, rect.inflate(8, 8), 1,
                                 border_radius=width // 8)

    @staticmethod
    def choosing(model: TableModel) -> tuple[str, int] | None:
        """When the seat is choosing several cards: the command and how many it takes."""
        legal = model.legal
        if "pass" in legal and isinstance(legal["pass"], dict):
            return "pass", int(legal["pass"].get("count", 0))
        if "bury" in legal:
            return "bury", int(legal["bury"].get("count", 0))
        if "exchange" in legal and legal["exchange"].get("discard_from"):
            return "take_exchange", int(legal["exchange"].get("count", 0))
        return None

    def _draw_flights(self, surface: pygame.Surface, layout: Layout, animator: Animator) -> None:
        draw_flights(surface, self.art, layout.card_size, animator)

    # --- the side panel --------------------------------------------------------------

    def _draw_panel(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                    shown: dict[str, Any], ui: TableUi, hotspots: Hotspots) -> None:
        area = layout.panel
        pygame.draw.rect(surface, theme.PANEL, area)
        pygame.draw.line(surface, theme.PANEL_EDGE, area.topleft, area.bottomleft, 2)
        x = area.x + 16
        y = area.y + 14
        game = str(shown.get("game") or model.game)
        blit_text(surface, TITLES.get(game, game), 24, theme.GOLD, "topleft", (x, y))
        y += 32
        phase = PHASE_WORDS.get(str(shown.get("phase")), str(shown.get("phase") or ""))
        blit_text(surface, f"Hand {shown.get('hand_number', 0)} · {phase}", 15, theme.TEXT_DIM,
                  "topleft", (x, y))
        y += 22
        contract = shown.get("contract")
        if contract:
            blit_text(surface, f"{model.name(contract['declarer'])} bid {contract['bid']}", 15,
                      theme.TEXT, "topleft", (x, y), max_width=area.w - 32)
            y += 22
        elif shown.get("phase") == "bidding" and shown.get("high_bid"):
            blit_text(surface, f"High bid {shown['high_bid']}", 15, theme.TEXT, "topleft", (x, y))
            y += 22
        if shown.get("target"):
            blit_text(surface, f"Game to {shown['target']}", 13, theme.TEXT_DIM, "topleft",
                      (x, y))
            y += 20
        y += 6
        blit_text(surface, "Score", 15, theme.TEXT_DIM, "topleft", (x, y))
        blit_text(surface, "hand", 13, theme.TEXT_DIM, "topright", (area.right - 70, y + 2))
        blit_text(surface, "total", 13, theme.TEXT_DIM, "topright", (area.right - 16, y + 2))
        y += 22
        totals = shown.get("totals") or []
        hand_points = shown.get("hand_points") or shown.get("taken_points") or []
        for seat in range(layout.players):
            colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
            pygame.draw.circle(surface, colour, (x + 6, y + 9), 5)
            blit_text(surface, model.name(seat), 15, theme.TEXT, "topleft", (x + 18, y),
                      max_width=area.w - 130)
            if seat < len(hand_points):
                blit_text(surface, str(hand_points[seat]), 15, theme.TEXT_DIM, "topright",
                          (area.right - 70, y))
            if seat < len(totals):
                blit_text(surface, str(totals[seat]), 16, theme.GOLD, "topright",
                          (area.right - 16, y))
            y += 22
        y += 10
        buttons = [("Score sheet  [S]", "sheet"), ("Last trick  [L]", "last"),
                   ("Leave  [Esc]", "leave")]
        for label, action in buttons:
            rect = pygame.Rect(x, y, area.w - 32, 32)
            button(surface, hotspots, rect, label, "button", action,
                   hovered=rect.collidepoint(ui.mouse), size=15)
            y += 40
        y += 6
        lines = ui.log[-max(0, (area.bottom - y - 10) // 18):]
        for line in lines:
            blit_text(surface, line, 13, theme.TEXT_DIM, "topleft", (x, y), max_width=area.w - 32)
            y += 18

    # --- what the user can do --------------------------------------------------------

    def _draw_actions(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                      ui: TableUi, hotspots: Hotspots) -> None:
        legal = model.legal
        width, height = layout.card_size
        centre = (layout.table.centerx, round(layout.table.bottom - height * 1.35 - 36))
        labels: list[tuple[str, tuple[Any, ...], bool]] = []
        if "bid" in legal or legal.get("pass") is True:
            bid = legal.get("bid")
            if bid:
                amount = ui.bid if ui.bid is not None else int(bid["min"])
                labels += [("−5", ("bid_step", -5), amount - 5 >= bid["min"]),
                           ("−1", ("bid_step", -1), amount > bid["min"]),
                           (f"Bid {amount}", ("bid", amount), True),
                           ("+1", ("bid_step", 1), amount < bid["max"]),
                           ("+5", ("bid_step", 5), amount + 5 <= bid["max"])]
            if legal.get("pass") is True:
                labels.append(("Pass", ("bid_pass",), True))
        choosing = self.choosing(model)
        if choosing:
            command, count = choosing
            verb = {"pass": "Pass", "bury": "Bury", "take_exchange": "Take, discarding"}[command]
            labels.append((f"{verb} {len(ui.selected)}/{count}", ("choose", command),
                           len(ui.selected) == count))
        exchange = legal.get("exchange")
        if exchange and exchange.get("may_decline"):
            labels.append(("Decline", ("decline_exchange",), True))
        if labels:
            row_of_buttons(surface, hotspots, centre, labels, ui.mouse)

    def prompt(self, model: TableModel, interactive: bool) -> str:
        view = model.view
        legal = model.legal
        if not view:
            return "Waiting for the table…"
        if model.over:
            return "The game is over."
        names = model.name
        if interactive and legal:
            if "play" in legal:
                return "Your turn: play a card."
            if "bid" in legal or legal.get("pass") is True:
                return "Your bid. Choose an amount, or pass."
            if "bury" in legal:
                return f"You won the widow. Choose {legal['bury']['count']} cards to bury."
            if "pass" in legal and isinstance(legal["pass"], dict):
                offset = view.get("pass_offset") or 0
                to = (model.seat + offset) % model.players if model.seat is not None else 0
                return f"Choose {legal['pass']['count']} cards to pass to {names(to)}."
            if "exchange" in legal:
                count = legal["exchange"].get("count")
                cards = "card" if count == 1 else "cards"
                return f"Take the {count} undealt {cards}? Choose {count} {cards} to discard."
        waiting = view.get("to_act") or []
        if len(waiting) == 1:
            doing = {"bidding": "bid", "bury": "bury", "play": "play",
                     "exchange": "decide on the exchange"}.get(str(view.get("phase")), "act")
            return f"Waiting for {names(waiting[0])} to {doing}."
        if waiting:
            return "Waiting for " + ", ".join(names(s) for s in waiting) + "."
        return ""

    def _draw_prompt(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                     ui: TableUi, interactive: bool) -> None:
        width, height = layout.card_size
        y = layout.table.bottom - height * 1.35 - (80 if interactive and model.seat is not None
                                                   else 0)
        if model.seat is None:
            y = layout.centre[1] + height * 0.98  # below the trick: the bottom seat is a plate
        centre = (layout.table.centerx, y)
        if model.refusal:
            message = "Refused: " + model.refusal
            image = fonts.text(message, 18, theme.TEXT)
            box = image.get_rect(center=centre).inflate(28, 14).clamp(layout.table)
            pygame.draw.rect(surface, theme.ALERT, box, border_radius=10)
            blit_text(surface, message, 18, theme.TEXT, "center", box.center,
                      max_width=layout.table.w - 60)
            return
        message = self.prompt(model, interactive)
        if message:
            blit_text(surface, message, 19, (0, 0, 0), "center", (centre[0] + 1, centre[1] + 2))
            blit_text(surface, message, 19, theme.TEXT, "center", centre)

    def _draw_last_trick(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                         hotspots: Hotspots) -> None:
        view = model.view
        trick = view.get("last_trick") or []
        width, height = layout.card_size
        area = pygame.Rect(0, 0, max(360, (width + 16) * max(1, len(trick)) + 40), height + 110)
        area.center = layout.table.center
        panel(surface, area, 235)
        blit_text(surface, "Last trick", 22, theme.GOLD, "midtop", (area.centerx, area.y + 12))
        if not trick:
            blit_text(surface, "No trick has been played yet.", 16, theme.TEXT, "center",
                      area.center)
        x = area.centerx - ((width + 16) * len(trick) - 16) / 2
        for seat, code in trick:
            surface.blit(self.art.face(code, width, height), (x, area.y + 46))
            blit_text(surface, model.name(seat), 13, theme.TEXT_DIM, "midtop",
                      (x + width / 2, area.y + 50 + height), max_width=width + 12)
            x += width + 16
        winner = view.get("last_winner")
        if winner is not None and trick:
            blit_text(surface, f"led next: {model.name(winner)}", 14, theme.TEXT, "midbottom",
                      (area.centerx, area.bottom - 8))
        hotspots.add(area, "button", "close")

    def _draw_connection(self, surface: pygame.Surface, layout: Layout, model: TableModel) -> None:
        message = {"lost": "Connection lost, re-joining…", "closed": "Disconnected"}.get(
            model.connection, model.connection)
        rect = pygame.Rect(0, 0, 420, 44)
        rect.midtop = (layout.table.centerx, 12)
        pygame.draw.rect(surface, theme.ALERT, rect, border_radius=10)
        blit_text(surface, message, 18, theme.TEXT, "center", rect.center)


def describe(model: TableModel, event: dict[str, Any]) -> str | None:
    """A line for the panel's log, from an event as the server sent it."""
    kind = event.get("type")
    seat = event.get("seat")
    data = event.get("data") or {}
    who = model.name(seat) if isinstance(seat, int) else "The dealer"
    if kind == "played":
        return f"{who} plays {card_name(str(data.get('card')))}"
    if kind == "deal":
        return "New hand dealt"
    if kind == "bid":
        return f"{who} bids {data.get('amount')}"
    if kind == "bid_passed":
        return f"{who} passes"
    if kind == "buried":
        return f"{who} buries 3 cards"
    if kind == "passed":
        return f"{who} passes cards"
    if kind == "exchange_taken":
        return f"{who} takes the exchange"
    if kind == "exchange_declined":
        return f"{who} declines the exchange"
    return None


def draw_flights(surface: pygame.Surface, art: CardArt, card_size: tuple[int, int],
                 animator: Animator) -> None:
    """The cards in flight and the captions of an animation, for every game's table."""
    width, height = card_size
    for sprite in animator.sprites():
        pose = sprite.pose
        w, h = max(8, round(width * pose.scale)), max(11, round(height * pose.scale))
        image = art.back(w, h) if sprite.sprite == "back" else art.face(
            sprite.sprite, w, h)
        rect = image.get_rect(center=(round(pose.x), round(pose.y)))
        if sprite.flash > 0:
            glow = rect.inflate(10 + 14 * sprite.flash, 10 + 14 * sprite.flash)
            pygame.draw.rect(surface, theme.GOLD, glow, 0, border_radius=w // 6)
        if pose.alpha < 0.99:
            image.set_alpha(round(255 * max(0.0, pose.alpha)))
            surface.blit(image, rect)
            image.set_alpha(None)
        else:
            surface.blit(image, rect)
    for caption in animator.captions():
        pose = caption.pose
        size = round(22 * pose.scale)
        image = fonts.text(caption.text, size, theme.INK)
        bubble = image.get_rect(center=(round(pose.x), round(pose.y))).inflate(26, 14)
        layer = pygame.Surface(bubble.size, pygame.SRCALPHA)
        pygame.draw.rect(layer, (*theme.GOLD, round(240 * pose.alpha)), layer.get_rect(),
                         border_radius=bubble.h // 2)
        pygame.draw.rect(layer, (*theme.INK, round(200 * pose.alpha)), layer.get_rect(), 2,
                         border_radius=bubble.h // 2)
        surface.blit(layer, bubble)
        blit_text(surface, caption.text, size, theme.INK, "center", (pose.x, pose.y))


class Felt:
    """The table's felt for every game, drawn once per window size."""

    def __init__(self) -> None:
        self._drawn: dict[tuple[int, int, int], pygame.Surface] = {}

    def surface(self, layout: Layout) -> pygame.Surface:
        key = (layout.width, layout.height, layout.table.w)
        felt = self._drawn.get(key)
        if felt is not None:
            return felt
        felt = pygame.Surface((layout.width, layout.height))
        felt.fill(theme.FELT_DARK)
        table = layout.table
        # Concentric ellipses, lighter towards the middle: a lamp over green baize.
        steps = 24
        for i in range(steps):
            t = i / (steps - 1)
            colour = [round(a + (b - a) * t) for a, b in zip(theme.FELT_DARK, theme.FELT_LIGHT,
                                                             strict=True)]
            rect = table.inflate(-table.w * 0.7 * t, -table.h * 0.7 * t).move(0, -table.h * 0.05)
            pygame.draw.ellipse(felt, colour, rect.inflate(table.w * 0.25, table.h * 0.25))
        felt = pygame.transform.smoothscale(pygame.transform.smoothscale(
            felt, (max(1, layout.width // 8), max(1, layout.height // 8))), felt.get_size())
        border = pygame.Rect(table).inflate(-16, -16)
        pygame.draw.rect(felt, theme.FELT_LIGHT, border, 2, border_radius=28)
        self._drawn = {key: felt.convert() if pygame.display.get_surface() else felt}
        return self._drawn[key]
