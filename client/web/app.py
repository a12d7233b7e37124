"""``starhall web``: the pages and their WebSockets (aiohttp), over one ``Hub``.

``/`` is the lobby and ``/table/ID`` a table (``?at=SEQ``: a moment of its replay); both are
the one page in ``static/``, which draws what its WebSocket says: ``/ws/lobby`` the tables as
they change, ``/ws/table/ID`` the table's history and then its live updates. Nothing is
fetched from elsewhere: the page, its script and its style are this package's files.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from starhall.client.net.link import checked_address
from starhall.client.web.faces import seat_colours
from starhall.client.web.hub import HistoryError, Hub
from starhall.client.web.options import DEFAULT_BIND
from starhall.shared.curve import key_from_text

STATIC = Path(str(resources.files("starhall.client.web") / "static"))
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><polygon fill="#f2c440" '
           'points="5,0 6.2,3.6 10,3.8 7,6.1 8.1,9.8 5,7.6 1.9,9.8 3,6.1 0,3.8 3.8,3.6"/></svg>')
SENDING_QUEUE_LIMIT = 1000
"""A browser this far behind is dropped (it reconnects and starts from the table as it is)."""


def bind_address(bind: str) -> tuple[str, int]:
    host, sep, port = bind.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--bind {bind!r}: write HOST:PORT, such as {DEFAULT_BIND}")
    return host or "0.0.0.0", int(port)


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def hello(hub: Hub) -> dict[str, Any]:
    """What a page is told first: the server shown, the seats' colours, whether it answers."""
    return {"type": "hello", "server": hub.address, "seat_colours": seat_colours(),
            "connected": hub.connected}


async def page(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def favicon(request: web.Request) -> web.Response:
    """A browser asks for one on its own: a star, so nothing is missing."""
    return web.Response(body=FAVICON, content_type="image/svg+xml")


async def lobby_socket(request: web.Request) -> web.WebSocketResponse:
    hub = request.app[HUB]
    socket = web.WebSocketResponse(heartbeat=10.0)
    await socket.prepare(request)
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    hub.lobby_queues.add(queue)
    try:
        await socket.send_str(dumps(hello(hub)))
        if hub.lobby is not None:
            await socket.send_str(dumps(hub.lobby_message()))
        await _pass_on(socket, queue)
    finally:
        hub.lobby_queues.discard(queue)
    return socket


async def table_socket(request: web.Request) -> web.WebSocketResponse:
    """The table's history first (everything a replay steps through), then its live
    updates; the page may ask for the history again (``{"type": "history"}``)."""
    hub = request.app[HUB]
    table = request.match_info["table"]
    socket = web.WebSocketResponse(heartbeat=10.0)
    await socket.prepare(request)
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await socket.send_str(dumps(hello(hub)))

    async def send_history() -> None:
        try:
            await queue.put(await hub.history(table))
        except HistoryError as error:
            await queue.put({"type": "error", "reason": f"table {table}: {error}"})

    tasks = {asyncio.ensure_future(send_history())}
    hub.follow(table, queue)
    try:
        async def asked() -> None:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                with contextlib.suppress(ValueError):
                    if json.loads(message.data).get("type") == "history":
                        tasks.add(asyncio.ensure_future(send_history()))

        listening = asyncio.ensure_future(asked())
        await _pass_on(socket, queue, listening)
    finally:
        hub.unfollow(table, queue)
        for task in tasks:
            task.cancel()
    return socket


async def _pass_on(socket: web.WebSocketResponse, queue: asyncio.Queue[dict[str, Any]],
                   listening: asyncio.Future[None] | None = None) -> None:
    """Send what comes in ``queue`` until the browser goes."""
    if listening is None:
        listening = asyncio.ensure_future(_drain(socket))
    try:
        while not socket.closed and not listening.done():
            if queue.qsize() > SENDING_QUEUE_LIMIT:
                break
            getting = asyncio.ensure_future(queue.get())
            either: set[asyncio.Future[Any]] = {getting, listening}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if not getting.done():
                getting.cancel()
                break
            await socket.send_str(dumps(getting.result()))
    except (ConnectionError, RuntimeError):
        pass  # the browser went while a message was on its way
    finally:
        listening.cancel()
        await socket.close()


async def _drain(socket: web.WebSocketResponse) -> None:
    async for _ in socket:
        pass


def make_app(hub: Hub) -> web.Application:
    app = web.Application()
    app[HUB] = hub
    app.router.add_get("/", page)
    app.router.add_get("/favicon.ico", favicon)
    app.router.add_get("/table/{table}", page)
    app.router.add_get("/ws/lobby", lobby_socket)
    app.router.add_get("/ws/table/{table}", table_socket)
    app.router.add_static("/static/", STATIC)
    return app


async def serve(hub: Hub, host: str, port: int, started: asyncio.Event | None = None,
                stop: asyncio.Event | None = None) -> None:
    """Serve the pages until ``stop`` is set (or forever); ``started`` once listening."""
    runner = web.AppRunner(make_app(hub), access_log=None)
    await runner.setup()
    following = asyncio.ensure_future(hub.run())
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0]
        print(f"starhall web: http://{_shown_host(host)}:{bound[1]}/ shows {hub.address}",
              flush=True)
        if started is not None:
            started.set()
        await (stop or asyncio.Event()).wait()
    finally:
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await following
        await runner.cleanup()
        hub.close()


def _shown_host(host: str) -> str:
    return "localhost" if host in ("0.0.0.0", "") else host


def run(args: argparse.Namespace) -> int:
    address = checked_address(args.server)
    host, port = bind_address(args.bind)
    hub = Hub(address, key=None if args.server_key is None else key_from_text(args.server_key))

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, stop.set)
        await serve(hub, host, port, stop=stop)

    try:
        asyncio.run(main())
    except OSError as error:  # the port is taken, or the address is not this machine's
        print(f"starhall web: cannot listen on {host}:{port} ({error.strerror or error})",
              file=sys.stderr)
        return 2
    return 0
