"""The table of A card game – what else?: drawing, choreography and card art."""

from __future__ import annotations

from starhall.client.games.what_else.table import WhatElseView

GAMES = ("what_else",)
TABLE = WhatElseView
