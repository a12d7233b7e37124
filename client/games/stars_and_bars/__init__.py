"""The Stars and Bars table: drawing, choreography and card art."""

from __future__ import annotations

from starhall.client.games.stars_and_bars.table import BarsView

GAMES = ("stars_and_bars",)
TABLE = BarsView
