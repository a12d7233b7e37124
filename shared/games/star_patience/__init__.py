"""The Star, a patience: ``rules`` is the engine, ``bots`` its bots (its ``bots`` module holds the
hint bot that plays as Strong)."""

from starhall.shared.games.star_patience import bots
from starhall.shared.games.star_patience.rules import GAME

BOT_MODULES = (bots,)
"""Where the game's bots are registered: each module's ``BOTS``, read when a bot is asked for (so
a test may add one); the first module's ``LEVELS`` names the bots Easy and Normal play."""

__all__ = ["BOT_MODULES", "GAME"]
