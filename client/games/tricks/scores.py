"""The score sheet (each hand's scores), the hand summaries of the trick games, and the
game-over screen with a chart of the totals."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pygame

from starhall.client.games.tricks.views import TrickView, is_stars, trick_view
from starhall.client.net.model import TableModel
from starhall.client.ui import fonts, theme
from starhall.client.ui.faces import card_name
from starhall.client.ui.layout import GAME_OVER_PANEL_HEIGHT, Layout
from starhall.client.ui.summary import Summary
from starhall.client.ui.widgets import Hotspots, blit_text, button, fitted, panel, shade
from starhall.shared.games.hearts.rules import HeartsView
from starhall.shared.games.stars.rules import StarsHandResult, StarsView

View = TrickView
Names = Callable[[int], str]
MINUS = "\u2212"


def signed(value: int) -> str:
    """``+5``, ``−3`` (a real minus sign), ``0``."""
    return f"+{value}" if value > 0 else f"{MINUS}{-value}" if value < 0 else "0"


def hand_ended(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether the events between two views finished a hand: a row was added to the score
    sheet (every game with hands keeps one)."""
    return len(after.get("score_sheet") or []) > len(before.get("score_sheet") or [])


def hand_summary(names: Names, after: View) -> Summary | None:
    """The summary of the hand that ``after`` (the view at its end) has just scored."""
    sheet = after.get("score_sheet") or []
    if not sheet:
        return None
    if is_stars(after):
        return _stars_summary(names, after) if after.get("contracts") else _plain_summary(
            names, after)
    if after.get("game") == "hearts":
        return _hearts_summary(names, after)
    return _plain_summary(names, after)


def hand_result_line(names: Names, after: View) -> str:
    """The hand's result in one line, for the side log."""
    number = len(after.get("score_sheet") or [])
    if is_stars(after):
        contracts = after.get("contracts")
        if contracts:
            return f"Hand {number}: " + _contract_words(names, after, contracts[-1])
    moon = None if is_stars(after) else after.get("moon")
    if moon is not None:
        return f"Hand {number}: {names(moon)} shot the moon!"
    row = (after.get("score_sheet") or [[]])[-1]
    parts = ", ".join(f"{names(seat)} {points}" for seat, points in enumerate(row))
    return f"Hand {number}: {parts}"


def _seat_colour(seat: int) -> theme.Colour:
    return theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]


def _title(after: View, words: str) -> str:
    number = len(after.get("score_sheet") or [])
    last = " (the last)" if after.get("phase") == "over" else ""
    return f"Hand {number}{last}: {words}"


def _contract_words(names: Names, after: StarsView, contract: StarsHandResult) -> str:
    declarer = contract["declarer"]
    points = list(after.get("hand_scores") or [])
    scored = points[declarer] if declarer < len(points) else 0
    change = (after.get("score_sheet") or [[]])[-1]
    delta = change[declarer] if declarer < len(change) else 0
    made = "made" if contract.get("made") else "failed"
    return (f"{names(declarer)}'s contract {made}: {scored} of {contract['bid']}, "
            f"{signed(delta)}")


def _stars_summary(names: Names, after: StarsView) -> Summary:
    contract = after["contracts"][-1]
    players = int(after.get("players") or len(after.get("totals") or []))
    lines = [_contract_words(names, after, contract) + "."]
    tricks = after.get("tricks") or []
    piles = after.get("star_pile_points") or []
    for seat in range(players):
        stars = [t for t in tricks if t.get("star") and t.get("star_pile") == seat]
        if not stars:
            continue
        whites = sum(1 for t in stars if t.get("white"))
        what = f"{len(stars)} Star{'s' if len(stars) != 1 else ''}"
        if whites:
            what += f", {whites} of them White"
        value = piles[seat] if seat < len(piles) else 0
        lines.append(f"{names(seat)}'s Star pile ({what}) pays {value} to each other player.")
    for trick in tricks:
        sharers = trick.get("shared_by") or []
        if trick.get("star") and sharers:
            who = _join([names(s) for s in sharers])
            lines.append(f"A shared White Star scores {trick.get('paid')} for {who}.")
    if not any(t.get("star") for t in tricks):
        lines.append("No Star this hand.")
    points = list(after.get("hand_scores") or [])
    change = (after.get("score_sheet") or [[]])[-1]
    totals = after.get("totals") or []
    rows = []
    for seat in range(players):
        name = names(seat) + (" (declarer)" if seat == contract["declarer"] else "")
        rows.append([name, str(points[seat]) if seat < len(points) else "",
                     signed(change[seat]) if seat < len(change) else "",
                     str(totals[seat]) if seat < len(totals) else ""])
    made = "contract made" if contract.get("made") else "contract failed"
    return Summary(_title(after, made), lines, ["", "scored", "change", "total"], rows,
                   [_seat_colour(seat) for seat in range(players)])


def _hearts_summary(names: Names, after: HeartsView) -> Summary:
    row = list(after.get("hand_scores") or [])
    players = len(row)
    totals = after.get("totals") or []
    taken = after.get("taken") or []
    moon = after.get("moon")
    lines = []
    if moon is not None:
        others = [p for s, p in enumerate(row) if s != moon]
        lines.append(f"{names(moon)} took every point card and shot the moon: everyone else "
                     f"takes {others[0] if others else 0} points.")
    else:
        clean = [names(s) for s, points in enumerate(row) if points == 0]
        if clean:
            lines.append(f"{_join(clean)} took no points.")
    rows = []
    for seat in range(players):
        cards = taken[seat] if seat < len(taken) else []
        rows.append([names(seat), _penalty_words(cards), str(row[seat]),
                     str(totals[seat]) if seat < len(totals) else ""])
    title = f"{names(moon)} shot the moon!" if moon is not None else "points taken"
    return Summary(_title(after, title), lines, ["", "point cards", "points", "total"], rows,
                   [_seat_colour(seat) for seat in range(players)])


def _penalty_words(cards: list[str]) -> str:
    """The point cards among a seat's won cards, in words: "Queen of Spades, 4 Hearts"."""
    parts = []
    if "QS" in cards:
        parts.append(card_name("QS"))
    hearts = sum(1 for code in cards if code.endswith("H"))
    if hearts:
        parts.append(f"{hearts} Heart{'s' if hearts != 1 else ''}")
    return ", ".join(parts) or "none"


def _plain_summary(names: Names, after: View) -> Summary:
    row = (after.get("score_sheet") or [[]])[-1]
    totals = after.get("totals") or []
    rows = [[names(seat), signed(points), str(totals[seat]) if seat < len(totals) else ""]
            for seat, points in enumerate(row)]
    return Summary(_title(after, "scores"), [], ["", "this hand", "total"], rows,
                   [_seat_colour(seat) for seat in range(len(row))])


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def running_totals(score_sheet: list[list[int]], players: int) -> list[list[int]]:
    """Each seat's total after every hand, starting from 0 before the first."""
    totals = [[0] for _ in range(players)]
    for row in score_sheet:
        for seat in range(players):
            totals[seat].append(totals[seat][-1] + (row[seat] if seat < len(row) else 0))
    return totals


def draw_score_sheet(surface: pygame.Surface, layout: Layout, model: TableModel,
                     hotspots: Hotspots, mouse: tuple[int, int]) -> None:
    view = trick_view(model.view)
    sheet: list[list[int]] = view.get("score_sheet") or []
    shade(surface, layout.table)
    area = layout.box_area
    panel(surface, area, 255)
    hotspots.add(area, "button", "none")
    blit_text(surface, "Score sheet", 26, theme.GOLD, "midtop", (area.centerx, area.y + 14))
    _sheet_table(surface, pygame.Rect(area.x + 24, area.y + 60, area.w - 48, area.h - 130),
                 model, view, sheet)
    close = pygame.Rect(0, 0, 140, 38)
    close.midbottom = (area.centerx, area.bottom - 14)
    button(surface, hotspots, close, "Close  [S]", "button", "close",
           hovered=close.collidepoint(mouse))


def _sheet_table(surface: pygame.Surface, area: pygame.Rect, model: TableModel,
                 view: View, sheet: list[list[int]]) -> None:
    players = model.players
    contracts = {c["hand_number"]: c for c in
                 (view.get("contracts") if is_stars(view) else None) or []}
    column = (area.w - 70 - (120 if contracts else 0)) / max(1, players)
    x0 = area.x + 70
    blit_text(surface, "Hand", 15, theme.TEXT_DIM, "topleft", (area.x, area.y))
    for seat in range(players):
        colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        blit_text(surface, model.name(seat), 15, colour, "midtop",
                  (x0 + column * (seat + 0.5), area.y), max_width=int(column) - 6)
    if contracts:
        blit_text(surface, "Contract", 15, theme.TEXT_DIM, "topright", (area.right, area.y))
    row_height = 22
    visible = max(1, (area.h - 60) // row_height)
    shown = list(enumerate(sheet, start=1))[-visible:]
    y = area.y + 28
    pygame.draw.line(surface, theme.PANEL_EDGE, (area.x, y - 4), (area.right, y - 4))
    for number, row in shown:
        blit_text(surface, str(number), 15, theme.TEXT_DIM, "topleft", (area.x + 8, y))
        for seat in range(players):
            value = row[seat] if seat < len(row) else 0
            blit_text(surface, f"{value:+d}" if contracts else str(value), 15, theme.TEXT,
                      "midtop", (x0 + column * (seat + 0.5), y))
        contract = contracts.get(number)
        if contract:
            made = "made" if contract.get("made") else "failed"
            blit_text(surface, f"{model.name(contract['declarer'])[:8]} {contract['bid']} {made}",
                      13, theme.TEXT_DIM, "topright", (area.right, y + 1))
        y += row_height
    pygame.draw.line(surface, theme.PANEL_EDGE, (area.x, y + 2), (area.right, y + 2))
    blit_text(surface, "Total", 15, theme.TEXT_DIM, "topleft", (area.x + 8, y + 8))
    for seat, total in enumerate(view.get("totals") or []):
        blit_text(surface, str(total), 17, theme.GOLD, "midtop",
                  (x0 + column * (seat + 0.5), y + 8))
    if not sheet:
        blit_text(surface, "No hand has been scored yet.", 16, theme.TEXT_DIM, "center",
                  (area.centerx, area.y + 60))


"""The box's bottom strip, left free for the table screen's shared game-over panel."""
RANK_SIZE = 17
RANK_ROW = 24
LABEL_SIZE = 13
LABEL_ROOM = 80
"""The chart's end labels: their font size and the room right of the lines for them."""


def game_over_box(layout: Layout) -> pygame.Rect:
    return layout.box_area


def game_over_panel_rect(layout: Layout) -> pygame.Rect:
    """Where the shared game-over panel (Play again, Watch the replay, the log) goes."""
    area = game_over_box(layout)
    return pygame.Rect(area.x + 16, area.bottom - GAME_OVER_PANEL_HEIGHT, area.w - 32,
                       GAME_OVER_PANEL_HEIGHT - 12)


def ranking_places(texts: list[str], area: pygame.Rect) -> list[pygame.Rect]:
    """Where each line of the ranking goes, in order, under the chart in ``area``'s width: one
    row of equal columns when every line fits its column, else as few rows as that takes
    (six players in a small window: two rows of three)."""
    if not texts:
        return []
    widths = [fonts.font(RANK_SIZE).size(text)[0] for text in texts]
    per_row = len(texts)
    while per_row > 1 and area.w / per_row < max(widths) + 16:
        per_row -= 1
    rows = -(-len(texts) // per_row)
    per_row = -(-len(texts) // rows)  # rows as even as can be: 3 and 3, not 4 and 2
    places = []
    for index, width in enumerate(widths):
        row, column = divmod(index, per_row)
        in_row = min(per_row, len(texts) - row * per_row)
        centre = area.x + area.w * (column + 0.5) / in_row
        rect = pygame.Rect(0, 0, min(width, area.w // in_row - 8), RANK_SIZE + 4)
        rect.midtop = (round(centre), area.y + row * RANK_ROW)
        places.append(rect)
    return places


def draw_game_over(surface: pygame.Surface, layout: Layout, model: TableModel,
                   hotspots: Hotspots, mouse: tuple[int, int]) -> None:
    view = trick_view(model.view)
    shade(surface, layout.table)
    area = game_over_box(layout)
    room = GAME_OVER_PANEL_HEIGHT
    panel(surface, area, 255)
    hotspots.add(area, "button", "none")
    totals = view.get("totals") or []
    best = (min(totals) if view.get("game") == "hearts" else max(totals)) if totals else 0
    winners = [model.name(s) for s, t in enumerate(totals) if t == best]
    title = ("You win!" if model.seat is not None and totals and totals[model.seat] == best
             else f"{' and '.join(winners)} win{'s' if len(winners) == 1 else ''}")
    blit_text(surface, "Game over", 18, theme.TEXT_DIM, "midtop", (area.centerx, area.y + 10))
    blit_text(surface, title, 30, theme.GOLD, "midtop", (area.centerx, area.y + 32))
    order = sorted(range(len(totals)), key=lambda s: totals[s],
                   reverse=view.get("game") != "hearts")
    texts = [f"{rank}. {model.name(seat)}  {totals[seat]}"
             for rank, seat in enumerate(order, start=1)]
    row = pygame.Rect(area.x + 16, 0, area.w - 32, 0)
    rows = len({place.y for place in ranking_places(texts, row)})
    buttons_y = area.bottom - room - 50
    chart_top = area.y + 76
    chart_bottom = buttons_y - 12 - rows * RANK_ROW - 8
    chart = pygame.Rect(area.x + 30, chart_top, area.w - 60, max(60, chart_bottom - chart_top))
    draw_totals_chart(surface, chart, model, view.get("score_sheet") or [])
    row.y = chart.bottom + 10
    for text, place, seat in zip(texts, ranking_places(texts, row), order, strict=True):
        colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        blit_text(surface, fitted(text, RANK_SIZE, place.w), RANK_SIZE, colour, "midtop",
                  place.midtop)
    buttons = [("Score sheet", "sheet"), ("Close", "dismiss")]
    x = area.centerx - 150
    for label, action in buttons:
        rect = pygame.Rect(x, buttons_y, 140, 38)
        button(surface, hotspots, rect, label, "button", action, hovered=rect.collidepoint(mouse))
        x += 160


def spread(wanted: list[float], gap: float, low: float, high: float) -> list[float]:
    """Heights for labels that want to be at ``wanted`` (in any order), moved apart as
    little as possible so that any two are at least ``gap`` apart, within ``low`` ..
    ``high`` when there is room for them all."""
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    placed = [min(max(wanted[i], low), high) for i in order]
    for k in range(1, len(placed)):  # downwards: each below the one above it
        placed[k] = max(placed[k], placed[k - 1] + gap)
    if placed and placed[-1] > high:  # too low at the bottom: push back up
        placed[-1] = high
        for k in range(len(placed) - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - gap)
    if placed and placed[0] < low:  # no room for them all: from the top, evenly
        placed = [low + k * gap for k in range(len(placed))]
    result = [0.0] * len(wanted)
    for k, i in enumerate(order):
        result[i] = placed[k]
    return result


def draw_totals_chart(surface: pygame.Surface, area: pygame.Rect, model: TableModel,
                      sheet: list[list[int]]) -> None:
    """A line per seat of its total after each hand; lines end in the seat's name, so the
    chart reads without telling colours apart. Names of close totals are moved apart, with
    a short stroke from the line's end to its name."""
    series = running_totals(sheet, model.players)
    pygame.draw.rect(surface, theme.FELT_DARK, area, border_radius=8)
    plot = pygame.Rect(area.x + 44, area.y + 16, area.w - 44 - LABEL_ROOM - 20, area.h - 40)
    low = min(0, *(min(s) for s in series))
    high = max(1, *(max(s) for s in series))
    hands = max(1, len(sheet))

    def point(hand: int, value: int) -> tuple[float, float]:
        return (plot.x + plot.w * hand / hands,
                plot.bottom - plot.h * (value - low) / (high - low))

    for fraction in (0.0, 0.25, 0.5, 0.75, 1.0):
        value = round(low + (high - low) * fraction)
        y = point(0, value)[1]
        pygame.draw.line(surface, theme.FELT, (plot.x, y), (plot.right, y))
        blit_text(surface, str(value), 12, theme.TEXT_DIM, "midright", (plot.x - 6, y))
    zero_y = point(0, 0)[1]
    pygame.draw.line(surface, theme.PANEL_EDGE, (plot.x, zero_y), (plot.right, zero_y))
    for hand in range(hands + 1):
        if hands <= 20 or hand % 5 == 0:
            blit_text(surface, str(hand), 12, theme.TEXT_DIM, "midtop",
                      (point(hand, low)[0], plot.bottom + 4))
    ends = []
    for seat, values in enumerate(series):
        colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        points = [point(hand, value) for hand, value in enumerate(values)]
        if len(points) > 1:
            pygame.draw.lines(surface, colour, False, points, 3)
        for x, y in points:
            pygame.draw.circle(surface, colour, (x, y), 4)
        ends.append(points[-1])
    for (rect, seat), end in zip(chart_labels(area, plot, model, ends), ends, strict=True):
        colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        if abs(rect.centery - end[1]) > 3:
            pygame.draw.line(surface, colour, (end[0] + 4, end[1]),
                             (rect.x - 2, rect.centery), 1)
        blit_text(surface, fitted(model.name(seat), LABEL_SIZE, rect.w), LABEL_SIZE, colour,
                  "midleft", rect.midleft)


def chart_labels(area: pygame.Rect, plot: pygame.Rect, model: TableModel,
                 ends: list[tuple[float, float]]) -> list[tuple[pygame.Rect, int]]:
    """Where each seat's name goes at the end of its line: beside it, moved up or down so no
    two names overlap; (its rectangle, the seat) per seat."""
    height = fonts.font(LABEL_SIZE).get_linesize()
    heights = spread([y for _, y in ends], height + 1, area.y + 2 + height / 2,
                     area.bottom - 2 - height / 2)
    labels = []
    for seat, ((x, _), y) in enumerate(zip(ends, heights, strict=True)):
        rect = pygame.Rect(0, 0, min(LABEL_ROOM, area.right - 6 - round(x) - 12), height)
        rect.midleft = (round(x) + 12, round(y))
        labels.append((rect, seat))
    return labels
