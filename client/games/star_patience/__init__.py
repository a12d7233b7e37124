"""The Star's table: its star of cards, its choreography and its statistics."""

from __future__ import annotations

from starhall.client.games.star_patience.table import StarView

GAMES = ("star_patience",)
TABLE = StarView
