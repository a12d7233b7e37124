"""The score sheet (each hand's scores) and the game-over screen with a chart of the totals."""

from __future__ import annotations

from typing import Any

import pygame

from client import theme
from client.layout import Layout
from client.model import TableModel
from client.widgets import Hotspots, blit_text, button, panel


def running_totals(score_sheet: list[list[int]], players: int) -> list[list[int]]:
    """Each seat's total after every hand, starting from 0 before the first."""
    totals = [[0] for _ in range(players)]
    for row in score_sheet:
        for seat in range(players):
            totals[seat].append(totals[seat][-1] + (row[seat] if seat < len(row) else 0))
    return totals


def draw_score_sheet(surface: pygame.Surface, layout: Layout, model: TableModel,
                     hotspots: Hotspots, mouse: tuple[int, int]) -> None:
    view = model.view
    sheet: list[list[int]] = view.get("score_sheet") or []
    area = layout.table.inflate(-60, -60)
    panel(surface, area, 252)
    hotspots.add(area, "button", "none")
    blit_text(surface, "Score sheet", 26, theme.GOLD, "midtop", (area.centerx, area.y + 14))
    _sheet_table(surface, pygame.Rect(area.x + 24, area.y + 60, area.w - 48, area.h - 130),
                 model, view, sheet)
    close = pygame.Rect(0, 0, 140, 38)
    close.midbottom = (area.centerx, area.bottom - 14)
    button(surface, hotspots, close, "Close  [S]", "button", "close",
           hovered=close.collidepoint(mouse))


def _sheet_table(surface: pygame.Surface, area: pygame.Rect, model: TableModel,
                 view: dict[str, Any], sheet: list[list[int]]) -> None:
    players = model.players
    contracts = {c.get("hand_number"): c for c in view.get("contracts") or []}
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


GAME_OVER_PANEL_HEIGHT = 84
"""The box's bottom strip, left free for the table screen's shared game-over panel."""


def game_over_box(layout: Layout) -> pygame.Rect:
    return layout.table.inflate(-50, -40)


def game_over_panel_rect(layout: Layout) -> pygame.Rect:
    """Where the shared game-over panel (Play again, Watch the replay, the log) goes."""
    area = game_over_box(layout)
    return pygame.Rect(area.x + 16, area.bottom - GAME_OVER_PANEL_HEIGHT, area.w - 32,
                       GAME_OVER_PANEL_HEIGHT - 12)


def draw_game_over(surface: pygame.Surface, layout: Layout, model: TableModel,
                   hotspots: Hotspots, mouse: tuple[int, int]) -> None:
    view = model.view
    area = game_over_box(layout)
    room = GAME_OVER_PANEL_HEIGHT
    panel(surface, area, 252)
    hotspots.add(area, "button", "none")
    totals = view.get("totals") or []
    best = (min(totals) if view.get("game") == "hearts" else max(totals)) if totals else 0
    winners = [model.name(s) for s, t in enumerate(totals) if t == best]
    title = ("You win!" if model.seat is not None and totals and totals[model.seat] == best
             else f"{' and '.join(winners)} win{'s' if len(winners) == 1 else ''}")
    blit_text(surface, "Game over", 18, theme.TEXT_DIM, "midtop", (area.centerx, area.y + 12))
    blit_text(surface, title, 30, theme.GOLD, "midtop", (area.centerx, area.y + 34))
    chart = pygame.Rect(area.x + 30, area.y + 84, area.w - 60, int((area.h - room) * 0.55))
    draw_totals_chart(surface, chart, model, view.get("score_sheet") or [])
    y = chart.bottom + 16
    order = sorted(range(len(totals)), key=lambda s: totals[s],
                   reverse=view.get("game") != "hearts")
    for rank, seat in enumerate(order, start=1):
        colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        text = f"{rank}. {model.name(seat)}  {totals[seat]}"
        column = rank - 1
        blit_text(surface, text, 17, colour, "midtop",
                  (area.x + area.w * (column + 0.5) / max(1, len(order)), y))
    buttons = [("Score sheet", "sheet"), ("Close", "dismiss")]
    x = area.centerx - 150
    for label, action in buttons:
        rect = pygame.Rect(x, area.bottom - room - 50, 140, 38)
        button(surface, hotspots, rect, label, "button", action, hovered=rect.collidepoint(mouse))
        x += 160


def draw_totals_chart(surface: pygame.Surface, area: pygame.Rect, model: TableModel,
                      sheet: list[list[int]]) -> None:
    """A line per seat of its total after each hand; lines end in the seat's name, so the
    chart reads without telling colours apart."""
    series = running_totals(sheet, model.players)
    pygame.draw.rect(surface, theme.FELT_DARK, area, border_radius=8)
    plot = area.inflate(-90, -40).move(-20, 0)
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
    for seat, values in enumerate(series):
        colour = theme.SEAT_COLOURS[seat % len(theme.SEAT_COLOURS)]
        points = [point(hand, value) for hand, value in enumerate(values)]
        if len(points) > 1:
            pygame.draw.lines(surface, colour, False, points, 3)
        for x, y in points:
            pygame.draw.circle(surface, colour, (x, y), 4)
        end = points[-1]
        blit_text(surface, model.name(seat), 13, colour, "midleft", (end[0] + 8, end[1]),
                  max_width=80)
