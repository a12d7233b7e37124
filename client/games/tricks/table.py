"""Draws a Hearts or Stars table from a view: felt, seats, trick, hand, panel and dialogs.

It reads the model (the server's latest view), the animator (cards in flight and the scene
they lead to) and the user's own UI state, and returns the hotspots it drew. It changes
nothing. Where each thing goes is ``client.ui.layout``'s: nothing drawn at the same time
overlaps, at any player count and window size.
"""

from __future__ import annotations

from typing import Any

import pygame

from starhall.client.games.base import back_key, hand_key, pile_key, trick_key
from starhall.client.games.tricks.scores import draw_game_over, draw_score_sheet, hand_result_line
from starhall.client.games.tricks.views import TrickView, is_stars, legal_of, trick_view
from starhall.client.net.model import TableModel
from starhall.client.ui import fonts, theme
from starhall.client.ui.animation import Animator
from starhall.client.ui.cardart import CardArt
from starhall.client.ui.faces import card_name
from starhall.client.ui.fonts import wrap
from starhall.client.ui.layout import GAP, Layout
from starhall.client.ui.summary import fit_size
from starhall.client.ui.table_art import Felt, draw_flights
from starhall.client.ui.table_ui import TableUi
from starhall.client.ui.widgets import (
    Hotspots,
    blit_text,
    button,
    draw_connection,
    fitted,
    panel,
    shade,
)
from starhall.shared.games.stars.rules import StarsTrick

TITLES = {"hearts": "Stardeck Hearts", "stars": "Stars"}
PHASE_WORDS = {"deal": "Dealing", "exchange": "Exchange", "pass": "Passing", "play": "Playing",
               "bidding": "Bidding", "bury": "Burial", "over": "Game over"}
LOG_SIZE = 13
LOG_LINE = 17
PROMPT_SIZE = 19
REFUSAL_SIZES = (17, 15)
"""A refusal's font sizes, largest first: it is never cut, and never drawn below 15 px."""
NEW_TAG = "new"


def received_cards(model: TableModel) -> set[str]:
    """Cards in the user's hand that came from someone else this hand (the Stars widow, the
    Hearts exchange or pass), until the first trick is over: the view's ``received`` (and
    ``widow``), and the ``taken`` cards of the user's own ``exchange_taken`` event for a
    server whose views do not list them."""
    view = trick_view(model.view)
    if view.get("tricks_played") or view.get("phase") not in ("bury", "pass", "play"):
        return set()
    found = set(view.get("received") or [])
    if is_stars(view):
        found |= set(view.get("widow") or [])
    for _, event in reversed(model.events):
        kind = event.get("type")
        if kind == "deal":
            break
        if kind == "exchange_taken" and event.get("seat") == model.seat:
            found |= set((event.get("data") or {}).get("taken") or [])
    return found & set(model.hand)


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
        scene: dict[str, Any] = animator.payload or model.view
        shown = trick_view(scene)
        # Every hand face up: the replay viewer's own key beside the view (view_at).
        hands: list[list[str]] | None = scene.get("hands")
        hidden = animator.hidden()
        surface.blit(self._felt.surface(layout), (0, 0))
        self._draw_centre(surface, layout, shown, hidden)
        seated = model.seat is not None
        for seat in range(layout.players):
            if layout.relative(seat) != 0 or not seated:
                self._draw_backs(surface, layout, shown, seat, hidden, hands)
            self._draw_pile(surface, layout, shown, seat, hidden)
            self._plate(surface, layout.plate_rect(seat), model, shown, seat)
        if seated:
            self._draw_hand(surface, layout, model, ui, hidden, hotspots, interactive)
        self._draw_flights(surface, layout, animator)
        self._draw_panel(surface, layout, model, shown, ui, hotspots)
        if not ui.overlay:
            # The buttons and the prompt follow the scene shown: none while the seat's turn
            # is not on the table yet, nor while its cards are still being dealt to it.
            dealing = seated and any(hidden[hand_key(code)] for code in model.hand)
            if (interactive and seated and not dealing
                    and model.seat in (shown.get("to_act") or [])):
                self._draw_actions(surface, layout, model, ui, hotspots)
            self._draw_prompt(surface, layout, model, shown, interactive and not dealing,
                              "Dealing…" if dealing else None)
        if ui.overlay == "sheet":
            draw_score_sheet(surface, layout, model, hotspots, ui.mouse)
        elif ui.overlay == "last":
            self._draw_last_trick(surface, layout, model, hotspots)
        elif ui.overlay == "buried":
            self._draw_buried(surface, layout, model, hotspots)
        elif not ui.overlay and model.over and not ui.dismissed_game_over and not animator.busy:
            draw_game_over(surface, layout, model, hotspots, ui.mouse)
        if model.connection != "connected":
            draw_connection(surface, layout, model)
        return hotspots

    # --- table -----------------------------------------------------------------------

    def _draw_centre(self, surface: pygame.Surface, layout: Layout, shown: TrickView,
                     hidden: Any) -> None:
        width, height = layout.card_size
        widow = (shown.get("widow_count") if is_stars(shown) else shown.get("undealt_count")) or 0
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

    def _draw_backs(self, surface: pygame.Surface, layout: Layout, shown: TrickView,
                    seat: int, hidden: Any, hands: list[list[str]] | None) -> None:
        """A seat's cards: face down, or face up where everything is seen (a replay)."""
        sizes = shown.get("hand_sizes") or []
        count = sizes[seat] if seat < len(sizes) else 0
        count = max(0, count - hidden[back_key(seat)])
        sw, sh = layout.small_card_size
        x, y = layout.seat_anchor(seat)
        room = (layout.hand_area.w * 0.7 if layout.relative(seat) == 0
                else layout.seat_box(seat).w)
        if hands and seat < len(hands):
            cards = hands[seat]
            step = min(sw * 0.55, (room - sw) / max(1, len(cards) - 1))
            left = x - (step * (len(cards) - 1) + sw) / 2
            if layout.relative(seat):  # kept inside the seat's box
                box = layout.seat_box(seat)
                left = max(box.x, min(left, box.right - step * (len(cards) - 1) - sw))
            for i, code in enumerate(cards):
                surface.blit(self.art.face(code, sw, sh), (round(left + i * step),
                                                           round(y - sh / 2)))
            return
        back = self.art.back(sw, sh)
        step = max(3.0, min(sw * 0.28, (min(room, 150) - sw) / max(1, count - 1)))
        left = x - (step * (count - 1) + sw) / 2
        for i in range(count):
            surface.blit(back, (round(left + i * step), round(y - sh / 2)))

    def _plate(self, surface: pygame.Surface, rect: pygame.Rect, model: TableModel,
               shown: TrickView, seat: int) -> None:
        # The highlight follows the scene on the table (as the prompt does), not the model,
        # which may be ahead of the animation.
        turn = seat in (shown.get("to_act") or [])
        panel(surface, rect, 200, radius=10)
        if turn:
            pygame.draw.rect(surface, theme.HIGHLIGHT, rect.inflate(4, 4), 3, border_radius=12)
        dot = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        pygame.draw.circle(surface, dot, (rect.x + 14, rect.y + 15), 6)
        name = model.name(seat) + (" (you)" if seat == model.seat and self._playing else "")
        totals = shown.get("totals") or []
        total = str(totals[seat]) if seat < len(totals) else ""
        total_width = fonts.font(18).size(total)[0]
        room = rect.w - 40 - total_width
        size = fit_size(name, 16, room, smallest=13)  # "Bruno (Normal)" whole, a little smaller
        blit_text(surface, fitted(name, size, room), size, theme.TEXT, "midleft",
                  (rect.x + 26, rect.y + 15))
        if total:
            blit_text(surface, total, 18, theme.GOLD, "midright", (rect.right - 10, rect.y + 15))
        note_room = rect.w - 24 - (24 if shown.get("dealer") == seat else 0)
        blit_text(surface, fitted(self._seat_note(shown, seat), 13, note_room), 13,
                  theme.TEXT_DIM, "midleft", (rect.x + 12, rect.y + 35))
        if shown.get("dealer") == seat:
            chip = pygame.Rect(rect.right - 22, rect.bottom - 20, 16, 16)
            pygame.draw.circle(surface, theme.PAPER, chip.center, 9)
            blit_text(surface, "D", 12, theme.INK, "center", chip.center)

    @staticmethod
    def _seat_note(shown: TrickView, seat: int) -> str:
        """One short line under a name: the seat's bid, role or points this hand."""
        if is_stars(shown):
            contract = shown.get("contract")
            if shown.get("declarer") == seat and contract:
                return f"declarer · bid {contract.get('bid')}"
            if shown.get("phase") == "bidding":
                if (shown.get("passed") or [False] * 8)[seat]:
                    return "passed"
                bids = [amount for who, amount in shown.get("bids") or [] if who == seat]
                return f"bid {bids[-1]}" if bids else "no bid yet"
        elif shown.get("phase") == "pass":
            return "passed" if (shown.get("passed") or [False] * 8)[seat] else "choosing…"
        points = shown.get("hand_scores") or []
        return f"{points[seat]} pts this hand" if seat < len(points) else ""

    def _draw_pile(self, surface: pygame.Surface, layout: Layout, shown: TrickView,
                   seat: int, hidden: Any) -> None:
        """A Stars seat's Star pile: small face-up cards and what they are worth."""
        if not is_stars(shown):
            return
        piles = shown.get("star_piles") or []
        if seat >= len(piles) or not piles[seat]:
            return
        cards = [code for code in piles[seat] if not hidden[pile_key(code)]]
        if not cards:
            return
        sw, sh = layout.small_card_size
        area = layout.pile_area(seat)
        step = min(sw * 0.45, (area.w - sw) / max(1, len(cards) - 1))
        left = area.centerx - (step * (len(cards) - 1) + sw) / 2
        for i, code in enumerate(cards):
            surface.blit(self.art.face(code, sw, sh), (round(left + i * step), area.y))
        points = (shown.get("star_pile_points") or [0] * 8)[seat]
        label = f"Star pile: {points} to each other player"
        if fonts.font(13).size(label)[0] > area.w:
            label = f"Star pile: {points} each"
        blit_text(surface, label, 13, theme.GOLD, "midtop", (area.centerx, area.y + sh + 2))

    def _draw_hand(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                   ui: TableUi, hidden: Any, hotspots: Hotspots, interactive: bool) -> None:
        hand = model.hand
        legal = legal_of(trick_view(model.view))
        playable = set(legal.get("play") or [])
        choosing = self.choosing(model)
        received = received_cards(model)
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
        if hover_index is not None and (playable or choosing) and (
                choosing or hand[hover_index] in playable):
            raised.add(hover_index)
        rects = layout.hand_rects(len(hand), raised)
        width, height = layout.card_size
        step = rects[1].x - rects[0].x if len(rects) > 1 else width
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
            if code in received:
                self._new_tag(surface, rect, min(step, width))
            if i == ui.focus:
                pygame.draw.rect(surface, theme.TEXT, rect.inflate(8, 8), 1,
                                 border_radius=width // 8)

    @staticmethod
    def _new_tag(surface: pygame.Surface, card: pygame.Rect, visible: int) -> None:
        """A received card's mark: a gold edge along its visible strip and a "new" tag low
        on it, clear of the rank in its corner."""
        pygame.draw.rect(surface, theme.GOLD, (card.x + 2, card.y - 5, max(8, visible - 4), 5),
                         border_radius=2)
        size = 12 if visible >= 30 else 10
        label = fonts.text(NEW_TAG, size, theme.INK)
        tag = label.get_rect().inflate(8, 4)
        tag.bottomleft = (card.x + 3, card.bottom - 8)
        pygame.draw.rect(surface, theme.GOLD, tag, border_radius=tag.h // 2)
        surface.blit(label, label.get_rect(center=tag.center))

    @staticmethod
    def choosing(model: TableModel) -> tuple[str, int] | None:
        """When the seat is choosing several cards: the command and how many it takes."""
        view = trick_view(model.view)
        if is_stars(view):
            bury = legal_of(view).get("bury")
            return None if bury is None else ("bury", bury["count"])
        legal = legal_of(view)
        passing = legal.get("pass")
        if passing is not None:
            return "pass", passing["count"]
        exchange = legal.get("exchange")
        if exchange is not None and exchange["discard_from"]:
            return "take_exchange", exchange["count"]
        return None

    def _draw_flights(self, surface: pygame.Surface, layout: Layout, animator: Animator) -> None:
        draw_flights(surface, self.art, layout.card_size, animator)

    # --- the side panel --------------------------------------------------------------

    def _draw_panel(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                    shown: TrickView, ui: TableUi, hotspots: Hotspots) -> None:
        area = layout.panel
        pygame.draw.rect(surface, theme.PANEL, area)
        pygame.draw.line(surface, theme.PANEL_EDGE, area.topleft, area.bottomleft, 2)
        x = area.x + 16
        inner = area.w - 32
        y = area.y + 14
        game = str(shown.get("game") or model.game)
        title = TITLES.get(game, game)
        blit_text(surface, title, fit_size(title, 24, inner), theme.GOLD, "topleft", (x, y))
        y += 32
        phase = PHASE_WORDS.get(str(shown.get("phase")), str(shown.get("phase") or ""))
        if shown.get("phase") == "deal" and len(shown.get("score_sheet") or []) >= int(
                shown.get("hand_number") or 0) > 0:
            phase = "Scored"  # the hand is over; the next one is not dealt yet
        blit_text(surface, f"Hand {shown.get('hand_number', 0)} · {phase}", 15, theme.TEXT_DIM,
                  "topleft", (x, y))
        y += 22
        contract = shown.get("contract") if is_stars(shown) else None
        if contract and contract["declarer"] is not None:
            line = fitted(f"{model.name(contract['declarer'])} bid {contract['bid']}", 15, inner)
            blit_text(surface, line, 15, theme.TEXT, "topleft", (x, y))
            y += 22
        elif is_stars(shown) and shown.get("phase") == "bidding" and shown.get("high_bid"):
            blit_text(surface, f"High bid {shown['high_bid']}", 15, theme.TEXT, "topleft", (x, y))
            y += 22
        if shown.get("target"):
            blit_text(surface, fitted(self.game_end_words(shown), 13, inner), 13,
                      theme.TEXT_DIM, "topleft", (x, y))
            y += 20
        y += 6
        blit_text(surface, "Score", 15, theme.TEXT_DIM, "topleft", (x, y))
        blit_text(surface, "hand", 13, theme.TEXT_DIM, "topright", (area.right - 70, y + 2))
        blit_text(surface, "total", 13, theme.TEXT_DIM, "topright", (area.right - 16, y + 2))
        y += 22
        totals = shown.get("totals") or []
        hand_points = shown.get("hand_scores") or []
        for seat in range(layout.players):
            colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
            pygame.draw.circle(surface, colour, (x + 6, y + 9), 5)
            blit_text(surface, fitted(model.name(seat), 15, area.w - 130), 15, theme.TEXT,
                      "topleft", (x + 18, y))
            if seat < len(hand_points):
                blit_text(surface, str(hand_points[seat]), 15, theme.TEXT_DIM, "topright",
                          (area.right - 70, y))
            if seat < len(totals):
                blit_text(surface, str(totals[seat]), 16, theme.GOLD, "topright",
                          (area.right - 16, y))
            y += 22
        y += 10
        buttons = [("Score sheet  [S]", "sheet"), ("Last trick  [L]", "last")]
        mine = trick_view(model.view)
        if is_stars(mine) and mine.get("buried"):
            buttons.append(("Buried cards  [B]", "buried"))
        buttons.append(("Leave  [Esc]", "leave"))
        for label, action in buttons:
            rect = pygame.Rect(x, y, inner, 32)
            button(surface, hotspots, rect, label, "button", action,
                   hovered=rect.collidepoint(ui.mouse), size=15)
            y += 40
        self._draw_log(surface, pygame.Rect(x, y + 6, inner, area.bottom - y - 16), ui.log)

    @staticmethod
    def game_end_words(shown: TrickView) -> str:
        """What ends the game and who wins it: "Game to 200", "Game to 100 · lowest wins"."""
        words = f"Game to {shown['target']}"
        return words + " · lowest wins" if shown.get("game") == "hearts" else words

    @staticmethod
    def _draw_log(surface: pygame.Surface, area: pygame.Rect, log: list[str]) -> None:
        """The newest happenings that fit whole, oldest at the top, in one font size: long
        lines wrapped and indented; an entry's later sentences (who took the trick, the
        hand's result) brighter, so they stand out."""
        room = max(0, area.h // LOG_LINE)
        lines: list[tuple[str, int, theme.Colour]] = []
        for entry in reversed(log):
            entry_lines: list[tuple[str, int, theme.Colour]] = []
            for number, sentence in enumerate(entry.split("\n")):
                indent = 0 if number == 0 else 10
                colour = theme.TEXT_DIM if number == 0 else theme.TEXT
                for part, text in enumerate(wrap(sentence, LOG_SIZE, area.w - indent - 10)):
                    entry_lines.append((text, indent + (10 if part else 0), colour))
            if len(lines) + len(entry_lines) > room:
                break
            lines = entry_lines + lines
        y = area.y
        for text, indent, colour in lines:
            blit_text(surface, text, LOG_SIZE, colour, "topleft", (area.x + indent, y))
            y += LOG_LINE

    # --- what the user can do --------------------------------------------------------

    def _draw_actions(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                      ui: TableUi, hotspots: Hotspots) -> None:
        view = trick_view(model.view)
        labels: list[tuple[str, tuple[Any, ...], bool]] = []
        steps: list[tuple[str, tuple[Any, ...], bool]] = []
        bidding = legal_of(view) if is_stars(view) else {}
        if "bid" in bidding or bidding.get("pass") is True:
            bid = bidding.get("bid")
            if bid:
                amount = ui.bid if ui.bid is not None else int(bid["min"])
                steps = [("−5", ("bid_step", -5), amount - 5 >= bid["min"]),
                         ("+5", ("bid_step", 5), amount + 5 <= bid["max"])]
                labels += [steps[0],
                           ("−1", ("bid_step", -1), amount > bid["min"]),
                           (f"Bid {amount}", ("bid", amount), True),
                           ("+1", ("bid_step", 1), amount < bid["max"]),
                           steps[1]]
            if bidding.get("pass") is True:
                labels.append(("Pass", ("bid_pass",), True))
        choosing = self.choosing(model)
        if choosing:
            command, count = choosing
            verb = {"pass": "Pass", "bury": "Bury", "take_exchange": "Take, discarding"}[command]
            labels.append((f"{verb} {len(ui.selected)}/{count}", ("choose", command),
                           len(ui.selected) == count))
        exchange = None if is_stars(view) else legal_of(view).get("exchange")
        if exchange and exchange["may_decline"]:
            labels.append(("Decline", ("decline_exchange",), True))
        if labels:
            room = self.actions_room(layout)
            button_row(surface, hotspots, room, labels, ui.mouse, optional=steps)

    @staticmethod
    def actions_room(layout: Layout) -> pygame.Rect:
        """The buttons' row, narrowed to keep clear of seats' boxes that reach down to it."""
        row = layout.actions_row
        left, right = row.x, row.right
        for seat in range(layout.players):
            if layout.relative(seat) == 0:
                continue
            box = layout.seat_box(seat)
            if box.bottom <= row.y or box.y >= row.bottom:
                continue
            if box.centerx < row.centerx:
                left = max(left, box.right + GAP)
            else:
                right = min(right, box.x - GAP)
        return pygame.Rect(left, row.y, max(0, right - left), row.h)

    def prompt(self, model: TableModel, interactive: bool,
               shown: TrickView | None = None) -> str:
        """What the status line says: what the user may do, or whom the table waits for,
        as the table now shows it (``shown``, which may be behind the model while cards
        fly)."""
        view = shown or trick_view(model.view)
        mine = trick_view(model.view)
        legal = legal_of(mine)
        if not view:
            return "Waiting for the table…"
        if model.over:
            return "The game is over."
        names = model.name
        waiting = view.get("to_act") or []
        if interactive and legal and model.seat in waiting:
            if "play" in legal:
                return "Your turn: play a card."
            if is_stars(mine):
                stars = legal_of(mine)
                if "bid" in stars and stars.get("pass") is not True:
                    return "Your bid: you must bid (the others passed)."
                if "bid" in stars or stars.get("pass") is True:
                    return "Your bid. Choose an amount, or pass."
                bury = stars.get("bury")
                if bury is not None:
                    return f"You won the widow. Choose {bury['count']} cards to bury."
            hearts = {} if is_stars(mine) else legal_of(mine)
            passing = hearts.get("pass")
            if passing is not None:
                offset = (0 if is_stars(view) else view.get("pass_offset")) or 0
                to = (model.seat + offset) % model.players if model.seat is not None else 0
                return f"Choose {passing['count']} cards to pass to {names(to)}."
            exchange = hearts.get("exchange")
            if exchange is not None:
                count = exchange["count"]
                cards = "card" if count == 1 else "cards"
                return f"Take the {count} undealt {cards}? Choose {count} {cards} to discard."
        if len(waiting) == 1:
            doing = {"bidding": "bid", "bury": "bury", "play": "play",
                     "exchange": "decide on the exchange"}.get(str(view.get("phase")), "act")
            return f"Waiting for {names(waiting[0])} to {doing}."
        if waiting:
            return "Waiting for " + ", ".join(names(s) for s in waiting) + "."
        return ""

    def _draw_prompt(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                     shown: TrickView, interactive: bool, instead: str | None = None
                     ) -> None:
        """The refusal, else the status line: ``instead``, or what the seat may do now or
        whom the table waits for."""
        area = layout.prompt_area
        if model.refusal:
            message = "Refused: " + model.refusal
            size, lines = self.refusal_lines(message, area.w - 28)
            line_height = size + 3
            width = max(fonts.font(size).size(line)[0] for line in lines) + 28
            box = pygame.Rect(0, 0, width, line_height * len(lines) + 12)
            box.center = area.center
            if box.h > area.h:  # a longer reason grows upwards, off the user's hand
                box.bottom = area.bottom
            pygame.draw.rect(surface, theme.ALERT, box, border_radius=10)
            for number, line in enumerate(lines):
                blit_text(surface, line, size, theme.TEXT, "midtop",
                          (box.centerx, box.y + 6 + line_height * number))
            return
        message = instead or self.prompt(model, interactive, shown)
        if not message:
            return
        size = PROMPT_SIZE
        lines = wrap(message, size, area.w)
        if len(lines) > 2:
            size = 16
            lines = wrap(message, size, area.w)[:2]
        top = area.centery - (len(lines) * (size + 4)) / 2
        for number, line in enumerate(lines):
            y = top + number * (size + 4)
            blit_text(surface, line, size, (0, 0, 0), "midtop", (area.centerx + 1, y + 2))
            blit_text(surface, line, size, theme.TEXT, "midtop", (area.centerx, y))

    @staticmethod
    def refusal_lines(message: str, width: int) -> tuple[int, list[str]]:
        """The font size and lines of a refusal in ``width`` pixels: two lines at the largest
        size that allows it, down to ``REFUSAL_SIZES``' smallest, and at that size as many
        lines as the whole reason takes."""
        for size in REFUSAL_SIZES:
            lines = wrap(message, size, width)
            if len(lines) <= 2:
                return size, lines
        return REFUSAL_SIZES[-1], lines

    # --- overlays --------------------------------------------------------------------

    def _overlay_box(self, surface: pygame.Surface, layout: Layout, cards: int,
                     title: str, footer: str, key: str) -> pygame.Rect:
        """A box over a shaded table for a row of cards, wide enough for ``footer`` and big
        enough to cover the trick, saying at its foot how it closes (``key``, Esc or a
        click); returns the room for its contents (title, cards, labels, footer line)."""
        width, height = layout.card_size
        shade(surface, layout.table)
        wanted = max(360, (width + 16) * max(1, cards) + 40, fonts.font(14).size(footer)[0] + 32)
        content = pygame.Rect(0, 0, min(layout.table.w - 24, wanted), height + 104)
        cover = layout.trick_area.inflate(16, 16).clip(layout.table.inflate(-12, -12))
        box = content.inflate(0, 22)
        box.center = cover.center
        box = box.union(cover)
        content.midtop = (box.centerx, box.y + (box.h - 22 - content.h) // 2)
        panel(surface, box, 255)
        blit_text(surface, title, 22, theme.GOLD, "midtop", (content.centerx, content.y + 12))
        blit_text(surface, f"{key}, Esc or a click closes it", 13, theme.TEXT_DIM, "midbottom",
                  (box.centerx, box.bottom - 8))
        return content

    def _draw_cards_row(self, surface: pygame.Surface, layout: Layout, area: pygame.Rect,
                        cards: list[str], labels: list[str]) -> None:
        width, height = layout.card_size
        step = min(width + 16, (area.w - 40 - width) / max(1, len(cards) - 1))
        x = area.centerx - (step * (len(cards) - 1) + width) / 2
        for code, label in zip(cards, labels, strict=True):
            surface.blit(self.art.face(code, width, height), (x, area.y + 46))
            if label:
                blit_text(surface, fitted(label, 13, round(step) - 4), 13, theme.TEXT_DIM,
                          "midtop", (x + width / 2, area.y + 50 + height))
            x += step

    @staticmethod
    def last_trick_words(model: TableModel) -> str:
        """What became of the last trick: who took it (a Star: whose Star pile it went to,
        or who shared it), and who leads next while the hand goes on."""
        view = trick_view(model.view)
        trick = view.get("last_trick") or []
        winner = view.get("last_winner")
        if not trick or winner is None:
            return ""
        star = view.get("last_star") if is_stars(view) else None
        if star:
            words = stars_trick_words(model, star)
        else:
            won_with = next((code for who, code in trick if who == winner), None)
            with_card = f" with the {card_name(won_with)}" if won_with else ""
            words = f"{model.name(winner)} took the trick{with_card}"
        going_on = view.get("phase") == "play" and any(view.get("hand_sizes") or [])
        if star and going_on:
            words += f"; {model.name(winner)} leads next"
        return words

    def _draw_last_trick(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                         hotspots: Hotspots) -> None:
        view = trick_view(model.view)
        trick = view.get("last_trick") or []
        words = self.last_trick_words(model)
        area = self._overlay_box(surface, layout, len(trick), "Last trick", words, "L")
        if not trick:
            blit_text(surface, "No trick has been played yet.", 16, theme.TEXT, "center",
                      area.center)
        self._draw_cards_row(surface, layout, area, [code for _, code in trick],
                             [model.name(seat) for seat, _ in trick])
        if words:
            blit_text(surface, fitted(words, 14, area.w - 16), 14, theme.TEXT, "midbottom",
                      (area.centerx, area.bottom - 8))
        hotspots.add(layout.table, "button", "close")

    def _draw_buried(self, surface: pygame.Surface, layout: Layout, model: TableModel,
                     hotspots: Hotspots) -> None:
        """The declarer's buried cards, which only the declarer sees."""
        view = trick_view(model.view)
        if not is_stars(view):
            return
        buried = list(view.get("buried") or [])
        seat = model.seat if model.seat is not None else -1
        together = view.get("my_hand_points")
        apart = (view.get("hand_points") or [])[seat] if 0 <= seat < len(
            view.get("hand_points") or []) else None
        worth = (f"Worth {together - apart} points, which count for you at the end of the "
                 f"hand." if isinstance(together, int) and isinstance(apart, int)
                 else "Their points count for you at the end of the hand.")
        area = self._overlay_box(surface, layout, len(buried), "Your buried cards", worth, "B")
        if not buried:
            blit_text(surface, "Nothing is buried.", 16, theme.TEXT, "center", area.center)
        self._draw_cards_row(surface, layout, area, buried, [""] * len(buried))
        worth = fitted(worth, 14, area.w - 16)
        blit_text(surface, worth, 14, theme.TEXT, "midbottom", (area.centerx, area.bottom - 8))
        hotspots.add(layout.table, "button", "close")



def button_row(surface: pygame.Surface, hotspots: Hotspots, room: pygame.Rect,
               labels: list[tuple[str, tuple[Any, ...], bool]], hover: tuple[int, int],
               optional: list[tuple[str, tuple[Any, ...], bool]] | None = None) -> pygame.Rect:
    """Buttons side by side, centred in ``room``: smaller when they do not fit, and without
    the ``optional`` ones (shortcuts that keys also give) when even that is too wide."""
    gap = 10
    for size, least, drop in ((18, 90, False), (15, 64, False), (15, 56, True)):
        shown = [item for item in labels if not (drop and optional and item in optional)]
        widths = [max(least, fonts.font(size).size(label)[0] + 24) for label, _, _ in shown]
        total = sum(widths) + gap * (len(widths) - 1)
        if total <= room.w:
            break
    x = room.centerx - total // 2
    area = pygame.Rect(x, room.y, total, room.h)
    for width, (label, action, enabled) in zip(widths, shown, strict=True):
        rect = pygame.Rect(x, room.y, width, room.h)
        button(surface, hotspots, rect, label, *action, enabled=enabled,
               hovered=rect.collidepoint(hover), size=size)
        x += width + gap
    return area


def describe(model: TableModel, event: dict[str, Any]) -> str | None:
    """A line for the panel's log, from an event as the server sent it (and the view after
    its batch): who played what, who took each trick, and each hand's result."""
    kind = event.get("type")
    seat = event.get("seat")
    data = event.get("data") or {}
    who = model.name(seat) if isinstance(seat, int) else "The dealer"
    if kind == "played":
        card = str(data.get("card"))
        line = f"{who} plays the {card_name(card)}"
        taken = trick_taken(model, seat, card)
        if taken:
            line += "\n" + taken
            view = trick_view(model.view)
            if view.get("phase") in ("deal", "over") and not any(view.get("hand_sizes") or []):
                line += "\n" + hand_result_line(model.name, view)
        return line
    if kind == "deal":
        return f"Hand {trick_view(model.view).get('hand_number', '')} dealt".replace("  ", " ")
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


def trick_taken(model: TableModel, seat: Any, card: str) -> str | None:
    """Who took the trick that ``card`` finished, in words, from the view after it; ``None``
    when the card did not finish the view's last trick."""
    view = trick_view(model.view)
    tricks = view.get("tricks") if is_stars(view) else None
    if tricks:  # Stars: each trick with where it went
        result = tricks[-1]
        plays = result["plays"]
        if not plays or plays[-1] != [seat, card]:
            return None
        return stars_trick_words(model, result)
    trick = view.get("last_trick") or []
    winner = view.get("last_winner")
    if not trick or trick[-1] != [seat, card] or winner is None:
        return None
    won_with = next((code for who, code in trick if who == winner), None)
    with_card = f" with the {card_name(won_with)}" if won_with else ""
    return f"{model.name(winner)} takes the trick{with_card}"


def stars_trick_words(model: TableModel, result: StarsTrick) -> str:
    names = model.name
    plays = result["plays"]
    if result.get("star"):
        star = "White Star" if result.get("white") else "Star"
        pile = result["star_pile"]
        if pile is not None:
            return (f"{star}! It goes to {names(pile)}'s Star pile: "
                    f"{result.get('paid')} points to each other player")
        sharers = result.get("shared_by") or []
        if sharers:
            who = ", ".join(names(s) for s in sharers)
            return f"{star}! {who} score {result.get('paid')} each"
    taker = result.get("taker")
    if taker is None:
        return ""
    won_with = next((code for who, code in plays if who == taker), None)
    with_card = f" with the {card_name(won_with)}" if won_with else ""
    star = "Star! " if result.get("star") else ""
    return f"{star}{names(taker)} takes the trick{with_card}"
