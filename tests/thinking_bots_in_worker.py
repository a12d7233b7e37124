"""Imported by the bot workers of tests/test_thinking.py (``server.thinking.WORKER_IMPORTS``):
the tests' bots join Hearts' bots there, as the tests' fixture adds them in the server."""

from starhall.shared.games.hearts import bots as hearts_bots
from tests.thinking_bots import BOTS

hearts_bots.BOTS.update(BOTS)
