"""``starhall web`` in a real browser: Debian's chromium, headless, driven by Playwright,
against the real command (a subprocess) watching a real server on loopback.

Each game's table is opened live before its game starts and left open while the bots play it
to the end; each finished table is replayed from a link to a moment, stepped and jumped; the
lobby lists every table by game. Everything the browser was sent goes through the leak
recorder (``HiddenCards``): no card hidden from a spectator may reach a page. The
``history`` request the replays rest on is checked on its own first.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.shared import protocol
from starhall.shared.curve import key_text
from starhall.shared.replay import load
from tests.connection import Connection
from tests.server_helpers import FAST_SERVER, HiddenCards, log_of, strings, wait_for

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1920, "height": 1080}
GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    # The Star by number: a random deal may be lost at once, too short to step about in
    "stars": (4, {"target": 100}), "hearts": (4, {"target": 10}), "star_patience": (1, {"deal": 1}),
    "what_else": (4, {}), "stars_and_bars": (2, {}),
}
"""Each game with its player count and options for a short game."""


def make_table(lobby: Connection, game: str, *, bots: bool = True) -> str:
    players, options = GAMES[game]
    reply = lobby.request({"type": "create", "game": game, "players": players,
                           "options": options, "name": f"a game of {game}"})
    assert reply["type"] == protocol.CREATED, reply
    table = str(reply["table"]["id"])
    if bots:
        fill(lobby, table, players)
    return table


def fill(lobby: Connection, table: str, players: int) -> None:
    for seat in range(players):
        assert lobby.request({"type": "bot", "table": table, "seat": seat})["type"] == "botted"


def table_info(lobby: Connection, table: str) -> dict[str, Any]:
    reply = lobby.request({"type": "list"})
    return next(info for info in reply["tables"] if info["id"] == table)


def finished(lobby: Connection, table: str) -> dict[str, Any]:
    return wait_for(lambda: (info := table_info(lobby, table))["status"] == "over" and info,
                    timeout=120)


# --- the server's history ------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    with EmbeddedServer(tmp_path_factory.mktemp("web"), **FAST_SERVER) as embedded:
        yield embedded


@pytest.fixture(scope="module")
def lobby(server: EmbeddedServer) -> Iterator[Connection]:
    assert server.address is not None
    with Connection(server.address) as connection:
        yield connection


@pytest.fixture(scope="module")
def done(lobby: Connection) -> dict[str, str]:
    """A finished table of each game."""
    tables = {game: make_table(lobby, game) for game in GAMES}
    for table in tables.values():
        finished(lobby, table)
    return tables


def whole_history(lobby: Connection, table: str) -> list[dict[str, Any]]:
    pages, start = [], 0
    while True:
        reply = lobby.request({"type": "history", "table": table, "from": start})
        assert reply["type"] == protocol.HISTORY, reply
        assert len(protocol.encode(reply)) < protocol.MAX_MESSAGE_BYTES
        pages.append(reply)
        if not reply["steps"] or reply["steps"][-1]["seq"] >= reply["last"]:
            return pages
        start = reply["steps"][-1]["seq"]


@pytest.mark.parametrize("game", GAMES)
def test_history_is_every_event_as_a_spectator_sees_it(
        game: str, lobby: Connection, done: dict[str, str], server: EmbeddedServer) -> None:
    table = done[game]
    pages = whole_history(lobby, table)
    recording = load(log_of(server, table))
    steps = [step for page in pages for step in page["steps"]]
    assert [step["seq"] for step in steps] == list(range(1, recording.last_seq + 1))
    states = dict(recording.states())
    game_rules = recording.game
    assert pages[0]["view"] == game_rules.view(states[0], None)
    for step in steps:
        assert step["view"] == game_rules.view(states[step["seq"]], None)
    hidden = HiddenCards(log_of(server, table))
    as_updates = [{"type": "update", "table": table, "seat": None, "seq": step["seq"],
                   "events": [step["event"]] if step["event"] else [], "view": step["view"]}
                  for step in steps]
    assert hidden.leaks(as_updates, None, table) == []


def test_history_refuses_what_is_not_there(lobby: Connection, done: dict[str, str]) -> None:
    reply = lobby.request({"type": "history", "table": "9999"})
    assert reply["code"] == protocol.NO_TABLE
    table = done["hearts"]
    last = table_info(lobby, table)["seq"]
    reply = lobby.request({"type": "history", "table": table, "from": last + 1})
    assert (reply["code"], reply["field"]) == (protocol.BAD_FIELD, "from")
    reply = lobby.request({"type": "history", "table": table, "from": "3"})
    assert (reply["code"], reply["field"]) == (protocol.BAD_FIELD, "from")
    reply = lobby.request({"type": "history", "table": table, "from": last})
    assert reply["steps"] == [] and reply["last"] == last


def test_history_follows_a_table_that_plays_on(lobby: Connection) -> None:
    table = make_table(lobby, "what_else", bots=False)
    assert whole_history(lobby, table)[-1]["last"] == 0
    fill(lobby, table, GAMES["what_else"][0])
    last = finished(lobby, table)["seq"]
    pages = whole_history(lobby, table)
    assert pages[-1]["last"] == last and pages[-1]["steps"][-1]["seq"] == last


# --- the browser -----------------------------------------------------------------------------

@contextlib.contextmanager
def starhall_web(address: str, key: bytes | None = None) -> Iterator[str]:
    """``starhall web`` watching the server at ``address``, as a user starts it (given the
    server's ``key``, or asking for it); its pages' address."""
    given = [] if key is None else ["--server-key", key_text(key)]
    with tempfile.TemporaryFile("w+") as said:  # its stderr, for a start that fails
        process = subprocess.Popen(
            [sys.executable, "-m", "starhall", "web", "--server", address,
             "--bind", "127.0.0.1:0", *given], stdout=subprocess.PIPE, stderr=said, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line.startswith("starhall web: http://"):
                process.wait(60)
                said.seek(0)
                raise AssertionError(f"starhall web {given} did not start: {said.read()!r}")
            yield line.split()[2].rstrip("/")
        finally:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def web(server: EmbeddedServer) -> Iterator[str]:
    assert server.address is not None
    with starhall_web(server.address, server.public_key) as pages:  # as --server-key
        yield pages


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium here: `make test` installs Debian's package where it can "
                    "(.ci/chromium); without root and without it, these tests cannot run")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


class Page:
    """A browser page and every WebSocket message it received."""

    def __init__(self, browser: Any, size: dict[str, int]) -> None:
        self.page = browser.new_page(viewport=size)
        self.received: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.page.on("websocket", lambda socket: socket.on(
            "framereceived", lambda frame: self.received.append(json.loads(frame))))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, url: str) -> Any:
        self.page.goto(url)
        return self.page

    def seq(self) -> int:
        return int(self.page.get_attribute(".table-page", "data-seq") or -1)

    def leaks(self, hidden: HiddenCards, table: str) -> list[str]:
        """The recorder's check of what this page was sent about ``table``, each message
        read as the protocol updates it passes on; the faces a message describes must be
        of cards it shows."""
        found: list[str] = []
        updates: list[dict[str, Any]] = []
        for message in self.received:
            shown = {key: value for key, value in message.items() if key != "faces"}
            described = set(message.get("faces") or {}) - set(strings(shown))
            if described:
                found.append(f"{message['type']} describes {sorted(described)}")
            if message["type"] == "history":
                updates += [{"type": "update", "seat": None, "seq": step["seq"], "table": table,
                             "events": [step["event"]] if step["event"] else [],
                             "view": step["view"]} for step in message["steps"]]
                updates.append({"type": "snapshot", "seat": None, "seq": message["steps"][0][
                    "seq"] - 1 if message["steps"] else 0, "view": message["view"],
                    "table": table})
            elif message["type"] in ("state", "update"):
                updates.append({"type": "update", "seat": None, "seq": message["seq"],
                                "table": table, "events": message.get("events") or [],
                                "view": message["view"]})
            else:
                updates.append({**shown, "table": table})
        return found + hidden.leaks(updates, None, table)

    def close(self) -> None:
        self.page.close()


def no_overflow(page: Any) -> bool:
    """Nothing wider than the screen: a phone held upright reads it without scrolling
    sideways."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


@pytest.mark.parametrize("game", GAMES)
def test_a_page_left_open_follows_a_live_table_to_its_end(
        game: str, browser: Any, web: str, lobby: Connection, server: EmbeddedServer) -> None:
    """Opened before the game starts, the page shows each move as it happens, worded in the
    log, until the game is over; nothing hidden reaches it."""
    table = make_table(lobby, game, bots=False)
    page = Page(browser, PHONE)
    try:
        shown = page.open(f"{web}/table/{table}")
        shown.wait_for_selector(".table-page[data-mode='live'][data-seq='0']")
        fill(lobby, table, GAMES[game][0])
        last = finished(lobby, table)["seq"]
        shown.wait_for_selector(f".table-page[data-seq='{last}']")
        assert shown.get_attribute(".table-page", "data-game") == game
        updates = [m for m in page.received if m["type"] == "update"]
        assert updates, "the moves came one batch after another, not in one snapshot"
        worded = [event["line"] for m in updates for event in m["events"] if event["line"]]
        lines = shown.locator(".log li").all_inner_texts()
        assert worded and lines[-1] == worded[-1]
        assert "Game over" in shown.inner_text(".table-head")
        assert no_overflow(shown)
        assert page.errors == []
        assert page.leaks(HiddenCards(log_of(server, table)), table) == []
    finally:
        page.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_link_to_a_moment_replays_a_finished_table(
        game: str, browser: Any, web: str, done: dict[str, str], lobby: Connection,
        server: EmbeddedServer) -> None:
    table = done[game]
    last = table_info(lobby, table)["seq"]
    assert last >= 4, f"a game of {game} too short to step back and forth in ({last} events)"
    moment = last // 2
    recording = load(log_of(server, table))
    page = Page(browser, DESKTOP)
    try:
        shown = page.open(f"{web}/table/{table}?at={moment}")
        shown.wait_for_selector(f".table-page[data-mode='replay'][data-seq='{moment}']")
        shown.click("button[data-do='forward']")
        shown.wait_for_selector(f".table-page[data-seq='{moment + 1}']")
        assert shown.url.endswith(f"?at={moment + 1}")
        shown.click("button[data-do='back']")
        shown.click("button[data-do='back']")
        shown.wait_for_selector(f".table-page[data-seq='{moment - 1}']")
        shown.click("button[data-do='first']")
        shown.wait_for_selector(".table-page[data-seq='0']")
        starts = [seq for seq, event in recording.events
                  if event.type in ("deal", "shuffle", "shuffled")]
        shown.click("button[data-do='next-hand']")
        shown.wait_for_selector(f".table-page[data-seq='{starts[0]}']")
        if len(starts) > 1:
            shown.select_option("select.hands", str(starts[-1]))
            shown.wait_for_selector(f".table-page[data-seq='{starts[-1]}']")
        shown.click("button[data-do='last']")
        shown.wait_for_selector(f".table-page[data-seq='{last}']")
        assert no_overflow(shown)
        assert page.errors == []
        assert page.leaks(HiddenCards(log_of(server, table)), table) == []
    finally:
        page.close()


def test_the_lobby_lists_every_table_by_game_as_it_changes(
        browser: Any, web: str, done: dict[str, str], lobby: Connection) -> None:
    page = Page(browser, PHONE)
    try:
        shown = page.open(f"{web}/")
        for table in done.values():
            shown.wait_for_selector(f".table[data-table='{table}'][data-status='over']")
        titles = shown.locator(".lobby h2").all_inner_texts()
        assert {"Stars (White Star)", "Stardeck Hearts", "The Star"} <= set(titles)
        new = make_table(lobby, "hearts", bots=False)
        shown.wait_for_selector(f".table[data-table='{new}'][data-status='waiting']")
        fill(lobby, new, GAMES["hearts"][0])
        shown.wait_for_selector(f".table[data-table='{new}'][data-status='over']",
                                timeout=120_000)
        shown.click(f".table[data-table='{done['stars']}'] a")
        shown.wait_for_selector(".table-page[data-game='stars']")
        assert no_overflow(shown)
        assert page.errors == []
    finally:
        page.close()


def test_web_says_in_one_line_what_it_cannot_do(server: EmbeddedServer) -> None:
    for arguments, words in ((["--bind", "nowhere"], "--bind 'nowhere'"),
                             (["--server", "no such host:1"], "is not a server address"),
                             (["--server-key", "not-a-key"], "key")):
        result = subprocess.run([sys.executable, "-m", "starhall", "web", *arguments],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2
        assert words in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("drained", [False, True])
def test_a_watched_table_named_elsewhere_is_followed_there(
        server: EmbeddedServer, lobby: Connection, tmp_path: Path, drained: bool) -> None:
    """The node a table was asked of answers ``elsewhere`` with another node's address (a
    service of several nodes, docs/protocol.md §3b): the browsers watching it go on with
    the table as that node serves it; when that node dies, or says it is stopping
    (``draining``, naming the first node), the table is asked of the first node again (which
    here serves it itself)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from starhall.client.web.hub import Hub

    here = make_table(lobby, "hearts", bots=False)
    with EmbeddedServer(tmp_path, **FAST_SERVER) as other, Connection(
            str(other.address)) as there:
        while there.request({"type": "create", "game": "hearts", "players": 4,
                             "name": "over there"})["table"]["id"] != here:
            pass  # the same table id on the other node, named apart

        async def follow() -> list[dict[str, Any]]:
            assert server.address is not None and other.address is not None
            hub = Hub(server.address)
            running = asyncio.ensure_future(hub.run())
            queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            hub.follow(here, queue)
            seen = [await asyncio.wait_for(queue.get(), 30)]
            hub._dispatch(hub.primary, {"type": "error", "code": protocol.ELSEWHERE,
                                        "reason": "served elsewhere", "table": here,
                                        "address": other.address})
            while (seen[-1]["type"], seen[-1].get("info", {}).get("name")) != (
                    "state", "over there"):
                seen.append(await asyncio.wait_for(queue.get(), 30))
            if drained:  # the node stops on purpose and names the first node to go to
                hub._dispatch(hub._link(other.address), {
                    "type": protocol.DRAINING, "reason": "stopping",
                    "nodes": [{"address": server.address, "key": None}]})
            else:
                other.stop()
            while (seen[-1]["type"], seen[-1].get("info", {}).get("name")) != (
                    "state", "a game of hearts"):
                seen.append(await asyncio.wait_for(queue.get(), 30))
            running.cancel()
            hub.close()
            return seen

        with ThreadPoolExecutor(1) as thread:  # off Playwright's loop, should a page be open
            seen = thread.submit(asyncio.run, follow()).result()
    names = [message.get("info", {}).get("name") for message in seen]
    assert names[0] == "a game of hearts" and "over there" in names
    assert seen[-1]["type"] == "state" and seen[-1]["seq"] == 0


def test_a_page_says_when_the_server_stops_and_carries_on_when_it_is_back(
        browser: Any, tmp_path: Path) -> None:
    bind = f"tcp://127.0.0.1:{free_loopback_port()}"
    first = EmbeddedServer(tmp_path, bind=bind, **FAST_SERVER)
    first.start()
    try:
        with Connection(bind) as lobby:
            table = make_table(lobby, "stars_and_bars")
            finished(lobby, table)
        with starhall_web(bind) as pages:
            page = Page(browser, PHONE)
            shown = page.open(f"{pages}/table/{table}")
            shown.wait_for_selector(".table-page[data-mode='replay'][data-seq='0']")
            first.stop()
            shown.wait_for_function(
                "document.getElementById('connection').textContent.includes('not answering')")
            with EmbeddedServer(tmp_path, bind=bind, **FAST_SERVER):
                shown.wait_for_function(
                    "document.getElementById('connection').textContent === ''")
                shown.click("button[data-do='last']")
                shown.wait_for_selector(".table-page[data-seq]:not([data-seq='0'])")
            assert page.errors == []
            page.close()
    finally:
        first.stop()
