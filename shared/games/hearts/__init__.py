"""Stardeck Hearts (and classic Hearts): ``rules`` is the engine, ``bots`` its bots, ``strong`` the
bot that searches."""

from starhall.shared.games.hearts import bots, strong
from starhall.shared.games.hearts.rules import GAME

BOT_MODULES = (bots, strong)
"""Where the game's bots are registered: each module's ``BOTS``, read when a bot is asked for (so
a test may add one); the first module's ``LEVELS`` names the bots Easy and Normal play."""

__all__ = ["BOT_MODULES", "GAME"]
