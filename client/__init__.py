"""The Starhall client: the Pygame window, its screens and tables.

Importing it keeps pygame's greeting off standard output (every entry point, the ``starhall``
command or a script, imports this package before pygame)."""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
