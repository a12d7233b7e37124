"""Helpers for tests: exact deals, tables driven to a given point, and windows driven by
clicks and frames."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from starhall.shared.bots import Bot, RandomBot
from starhall.shared.engine import Command, Game
from starhall.shared.games import get_game
from starhall.shared.observation import observe
from starhall.shared.table import Table

if TYPE_CHECKING:
    import pygame

HEARTS = get_game("hearts")


def deal_order(hands: Sequence[Sequence[str]], undealt: Sequence[str] = (), dealer: int = 0
               ) -> list[str]:
    """The shuffled order that deals ``hands`` (one card at a time, starting left of the
    dealer) and leaves ``undealt`` at the bottom."""
    players = len(hands)
    size = len(hands[0])
    order = []
    for position in range(players * size):
        seat = (dealer + 1 + position) % players
        order.append(hands[seat][position // players])
    return order + list(undealt)


def fill_hands(game_cards: Sequence[str], fixed: dict[int, Sequence[str]], players: int,
               size: int, undealt: Sequence[str] = ()) -> list[list[str]]:
    """Hands where the seats in ``fixed`` hold exactly those cards and the rest share the
    other cards in deck order."""
    used = {code for cards in fixed.values() for code in cards} | set(undealt)
    spare = [code for code in game_cards if code not in used]
    hands = []
    for seat in range(players):
        if seat in fixed:
            hands.append(list(fixed[seat]))
        else:
            hands.append(spare[:size])
            spare = spare[size:]
    return hands


def dealt_table(players: int, options: dict[str, Any], hands: Sequence[Sequence[str]],
                undealt: Sequence[str] = (), game: Game[Any] = HEARTS) -> Table[Any]:
    table = Table.new(game, players, options)
    request = game.chance(table.state)
    assert request is not None
    order = deal_order(hands, undealt, table.state.dealer)
    assert sorted(order) == sorted(request.items), "the hands must use exactly the game's cards"
    table.submit(Command("shuffle", None, {"order": order}))
    return table


def play(table: Table[Any], seat: int, code: str) -> None:
    table.submit(Command("play", seat, {"card": code}))


def play_randomly(table: Table[Any], rng: random.Random, until: Any = None) -> None:
    """Random legal play (random deals too) until ``until(state)`` holds or the game ends."""
    game = table.game
    bot = RandomBot(rng)
    while not game.outcome(table.state).over and not (until and until(table.state)):
        if game.chance(table.state) is not None:
            table.shuffle(rng.randrange(2**40))
            continue
        seat = game.to_act(table.state)[0]
        table.submit(ask(bot, game, table.state, seat, table))


def step_until(step: Callable[[], object], done: Callable[[], object], frames: int = 3000,
               pause: float = 0.002, patience: float = 120.0) -> None:
    """Run ``step`` (one frame of a screen) until ``done()``. The limit only keeps a screen
    that stopped making progress from hanging the suite; it measures nothing. It is ``frames``
    frames and ``patience`` seconds, whichever ends later: on a loaded machine the server's
    bots answer slowly, and a count of frames alone ran out while the game still moved."""
    deadline = time.monotonic() + patience
    count = 0
    while count < frames or time.monotonic() < deadline:
        if done():
            return
        step()
        count += 1
        time.sleep(pause)  # let the server's thread answer
    if not done():
        raise TimeoutError(f"still not there after {count} frames: no progress")


# --- a window's screens, as the user drives them ----------------------------------------------

def spot_of(hotspots: Any, *action: Any) -> pygame.Rect | None:
    """The topmost enabled hotspot whose action starts with ``action`` (``None``: none)."""
    import pygame

    for found in reversed(hotspots.spots if hotspots else []):
        if found.action[: len(action)] == action and found.enabled:
            return pygame.Rect(found.rect)
    return None


def click_live(live: Any, rect: pygame.Rect) -> None:
    """A left click in the middle of ``rect``, through pygame's event queue, handed to a
    window's screen (a ``LiveTable``: ``handle(event)``)."""
    import pygame

    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1))
    for event in pygame.event.get():
        live.handle(event)


def step_replay(viewer: Any, surface: pygame.Surface, steps: int = 8,
                frames: int = 30) -> None:
    """The replay viewer from its start, a few events stepped through with their animations
    drawn frame by frame."""
    viewer.seek(0)
    for _ in range(min(steps, len(viewer.states) - 1)):
        viewer.control("step")
        for _ in range(frames):
            viewer.frame(0.05)
            viewer.draw(surface)


def run_frames(live: Any, surface: pygame.Surface, until: Callable[[], object],
               dt: float = 0.05, frames: int = 4000) -> None:
    """Frames of ``dt`` seconds of every screen in ``live`` (one or a list), each drawn so its
    hotspots are current, until ``until()`` holds."""
    lives = live if isinstance(live, list) else [live]

    def frame() -> None:
        for each in lives:
            each.frame(dt)
            each.draw(surface)

    step_until(frame, until, frames)


def ask(bot: Bot, game: Game[Any], state: Any, seat: int,
        table: Table[Any] | None = None) -> Command:
    """``bot``'s move for ``seat`` at ``state``: given what the seat was shown at ``table``
    when the table kept it from its start (``Table.observe``), else (a state a test made) the
    seat's view and legal commands with no past events, which today's heuristic bots never
    read."""
    if table is not None and state is table.state and (table.memory or not table.seq):
        return bot.choose(table.observe(seat), 0.0)
    players = len(game.outcome(state).scores)
    options = table.options if table is not None else {}
    return bot.choose(observe(game, players, options, seat, state, ()), 0.0)
