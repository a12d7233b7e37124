"""The trick games' table (Stars and Stardeck Hearts): drawing (``table``), choreography,
scores, and the hooks a table screen calls for them (``hooks``)."""

from __future__ import annotations

GAMES = ("hearts", "stars")
TABLE = None
"""The trick games have no ``GameTable`` of their own: ``TableView`` draws them, with
``hooks.TRICKS``."""
