"""Tables on a server this window runs itself: ``starhall play`` (and a game resumed from the
lobby or with ``--resume``) and a fork of a recorded game (``starhall replay fork``, the replay
viewer's Play from here). Each is a ``LiveTable`` on an embedded server
(``client.net.embedded``) whose leaving ends it, and closing it stops the server.

A table's Watch the replay opens the replay viewer, whose Play from here opens a fork here: so
the viewer is handed down (``open_replay``) by whoever opens these tables, never imported.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pygame

from starhall.client.net.embedded import (
    EmbeddedServer,
    new_games_folder,
    plan_fork,
    write_fork,
)
from starhall.client.net.link import ServerLink
from starhall.client.screens.live import LiveTable, ReplayOpener
from starhall.client.user.settings import player_name

DEFAULT_BOT = "heuristic"  # the fallback when the server names no bots
BOT_THINK = 0.6
"""Seconds the bots of ``starhall play`` wait before they move, so the user can follow."""


def _bot_kind(link: ServerLink, game: str) -> str:
    games = (link.welcome or {}).get("games") or []
    info: dict[str, Any] = next((g for g in games if g.get("id") == game), {})
    if isinstance(info.get("default_bot"), str):
        return str(info["default_bot"])
    kinds = info.get("bots") or []
    return DEFAULT_BOT if DEFAULT_BOT in kinds or not kinds else "random"


def wait_for_welcome(link: ServerLink, tries: int = 200) -> None:
    """Let the hello's answer arrive (a few milliseconds on loopback) before the first request,
    so the bots asked for are kinds the server has."""
    for _ in range(tries):
        for message in link.poll():
            if message.get("type") == "welcome":
                return
        time.sleep(0.01)


class _Leaving:
    """Adapts a ``LiveTable`` whose leaving ends the program."""

    def __init__(self, live: Any) -> None:
        self.live = live

    @property
    def done(self) -> bool:
        return bool(self.live.done)

    def redraw_after(self) -> float | None:
        due: float | None = self.live.redraw_after()
        return due

    def wait(self, timeout: float) -> None:
        self.live.wait(timeout)

    def quit_requested(self) -> bool:
        return bool(self.live.quit_requested())

    def frame(self, dt: float) -> None:
        self.live.frame(dt)

    def handle(self, event: pygame.event.Event) -> None:
        self.live.handle(event)

    def draw(self, surface: pygame.Surface) -> None:
        self.live.draw(surface)

    def resize(self, size: tuple[int, int]) -> None:
        self.live.resize(size)

    def close(self) -> None:
        self.live.close()


KEPT_FOR_RESUME = ("The game is kept: resume it from the lobby (starhall join) or with "
                   "starhall play --resume.")
"""On screen, so plain words: no Markdown backticks."""


class HostedTable(_Leaving):
    """A table on a server this process runs (``starhall play``), in a games folder of the
    user's data folder that it keeps locked; the user's seats are written down there, so a
    game left unfinished can be sat back at later (``HostedTable.resume``, ``starhall play
    --resume``). ``done`` when the user leaves; closing stops the server."""

    def __init__(self, folder: Path, size: tuple[int, int],
                 open_replay: ReplayOpener | None = None, think: float | None = None) -> None:
        self.server = EmbeddedServer(folder, think=BOT_THINK if think is None else think,
                                     lock=True)
        try:
            link = ServerLink(self.server.address, name=player_name(), key=self.server.key)
            self.live = LiveTable(link, size, kept=KEPT_FOR_RESUME, open_replay=open_replay)
            self.live.seat_book = self.server.seats
            wait_for_welcome(link)
        except BaseException:
            self.server.stop()
            raise

    @classmethod
    def new(cls, game: str, players: int, options: dict[str, Any], size: tuple[int, int],
            root: Path | None = None, open_replay: ReplayOpener | None = None,
            bot: str | None = None, think: float | None = None) -> HostedTable:
        """A new table of ``game`` in a new games folder (under ``root``, by default the
        user's data folder), bots of kind ``bot`` (default: the game's) in every other seat,
        each taking ``think`` seconds a move (default ``BOT_THINK``)."""
        hosted = cls(new_games_folder(root), size, open_replay, think)
        hosted.live.start_game(game, players, options, bot or _bot_kind(hosted.live.link, game),
                               player_name())
        return hosted

    @classmethod
    def resume(cls, entry: Any, size: tuple[int, int],
               open_replay: ReplayOpener | None = None) -> HostedTable:
        """Back at an ``UnfinishedTable`` (``client.net.embedded.unfinished_tables``): its folder's
        server restores the table from its log, and the kept token opens the seat again
        (``FolderBusy`` if another window plays in that folder)."""
        hosted = cls(entry.folder, size, open_replay)
        seat = entry.seat
        hosted.live.resume_table(seat.table, seat.seat, seat.token, seat.name or player_name(),
                                 seat.bot, seat.options)
        return hosted

    def close(self) -> None:
        try:
            self.live.close()
        finally:
            self.server.stop()


class ForkedTable(_Leaving):
    """A fork of a recorded game, played in this window: its own embedded server on the data
    folder holding the fork's log, and the user seated with bots around; ``done`` when the
    user leaves, and closing stops the server."""

    def __init__(self, forked: Any, data: str, size: tuple[int, int],
                 open_replay: ReplayOpener | None = None) -> None:
        self.forked = forked
        self.server = EmbeddedServer(data)
        try:
            link = ServerLink(self.server.address, name=player_name(), key=self.server.key)
            kept = f"Leaving ends this fork; its log stays in {forked.path}."
            self.live = LiveTable(link, size, banner=forked.name, kept=kept,
                                  open_replay=open_replay)
            wait_for_welcome(link)
            self.live.join_table(forked.table_id, forked.seat, player_name(),
                                 _bot_kind(link, forked.game), forked.players)
        except BaseException:
            self.server.stop()
            raise

    def close(self) -> None:
        try:
            self.live.close()
        finally:
            self.server.stop()


def start_fork(path: str, at: int | None, seat: int, data: str, size: tuple[int, int],
               recording: Any = None, open_replay: ReplayOpener | None = None) -> ForkedTable:
    """Write a fork of the log at ``path`` after event ``at`` into ``data`` and open it
    (``ForkError``, a ``ValueError``, when it cannot be made)."""
    forked = write_fork(plan_fork(path, at, seat, recording), data)
    return ForkedTable(forked, data, size, open_replay)
