"""``starhall web``: a read-only web page on the LAN for watching and replaying tables.

A spectator of a Starhall server like ``starhall watch``, it speaks the protocol through the
window's own link (``client.net``), words the moves with the window's own sentences (the
games' hooks) and draws each game in a browser: ``hub`` follows the server, ``app`` serves
the pages (aiohttp: HTTP and WebSocket), ``faces`` says what each card shows, ``words`` what
each event says, and ``static/`` is the page itself (no build step, nothing from the internet).
"""
