"""The window client on real pygame surfaces (SDL's dummy driver) against a real server."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from starhall.client.net.embedded import EmbeddedServer
from starhall.client.net.link import ServerLink
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch
from starhall.client.screens.hosted import wait_for_welcome
from starhall.client.screens.live import LiveTable
from starhall.client.screens.lobby import Lobby
from starhall.client.screens.replay_screen import ReplayScreen
from starhall.client.screens.table_screen import TableScreen
from starhall.client.ui.animation import MAX_BACKLOG, Animator, Flight, Pose, Step, ease_out_cubic
from starhall.client.ui.cardart import CardArt
from starhall.client.ui.symbols import SHAPES, draw_symbol
from starhall.server.embed import EmbeddedServer as ServerInThread
from starhall.server.embed import free_loopback_port
from starhall.shared import protocol
from starhall.shared.bots import make_bot
from starhall.shared.games import get_game
from starhall.shared.replay import load
from starhall.shared.table import Table
from tests.connection import Connection
from tests.server_helpers import wait_for
from tests.support import ask, run_frames
from tests.test_cluster_client import table_waiting_for_seat_0
from tests.test_roaming import Watched, my_turn
from tests.test_server_crash import start_server, stop

SIZE = (1280, 720)



def click(target: object, rect: pygame.Rect | None) -> None:
    """A real left click, through pygame's event queue, at the middle of the visible part;
    nothing when there is nothing to click (a button not shown while the deal still flies)."""
    if rect is None:
        return
    pos = (rect.x + min(rect.w // 2, 12), rect.y + 20)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
    for event in pygame.event.get():
        target.handle(event)  # type: ignore[attr-defined]


def press(target: object, key: int) -> None:
    """A real key press, through pygame's event queue."""
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="",
                                         scancode=0))
    for event in pygame.event.get():
        target.handle(event)  # type: ignore[attr-defined]


def spot(screen: Lobby, *action: object) -> pygame.Rect | None:
    hotspots = screen.live.hotspots if screen.live is not None else screen.hotspots
    for found in reversed(hotspots.spots if hotspots else []):
        if found.action[: len(action)] == action and found.enabled:
            return found.rect
    return None


def test_lobby_to_table_to_game_over(surface: pygame.Surface, tmp_path: object) -> None:
    with EmbeddedServer(str(tmp_path), think=0.0) as server:
        lobby = Lobby(SIZE, server.address, "Tester")
        # The game ends after the first hand in which one total leads alone: mostly the
        # first, but not when a contract fails (its three defenders score alike).
        lobby.options = {"target": 1}
        refused_seen = False
        greyed_held = False  # a deal may give the player no card it cannot play at its turns
        # Frames left to wait for the refusal of a greyed card clicked: a click while the
        # table animates sends nothing, so the card is clicked again after them.
        waiting = tries = 0
        # A deadline against a hang, not a speed check: on a loaded machine the bots' turns
        # take many frames, and a count of frames ran out before the hand did.
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            lobby.frame(0.5)  # long frames: animations finish at once
            lobby.draw(surface)
            live = lobby.live
            table = live.table if live is not None else None
            if live is None:
                create = spot(lobby, "create", True)
                if create is not None and lobby.games:
                    click(lobby, create)
            elif table is not None:
                model = table.model
                if model.over:
                    break
                legal = model.legal
                if table.summaries.shown is not None:
                    # A hand's summary holds the table until it is dismissed (the default
                    # summary_delay): the next hand's moves reach the model only then.
                    press(lobby, pygame.K_RETURN)
                elif live.session is not None and live.session._acts:
                    pass  # the last move's answer first: the view still shows the move to make
                elif "play" in legal:
                    illegal = [c for c in model.hand if c not in legal["play"]]
                    greyed_held = greyed_held or bool(illegal)
                    # A greyed-out card is sent: the server's reason comes back.
                    refused_seen = refused_seen or (model.refusal or "").startswith(
                        "you must follow suit")
                    trying = illegal and not refused_seen and tries < 5
                    if trying and waiting == 0:
                        greyed = spot(lobby, "card", illegal[0])
                        click(lobby, greyed)
                        waiting, tries = (6, tries + 1) if greyed is not None else (0, tries)
                    elif trying:
                        waiting -= 1
                    else:
                        click(lobby, spot(lobby, "card", legal["play"][0]))
                elif "bury" in legal and len(table.ui.selected) < 3:
                    code = next(c for c in model.hand if c not in table.ui.selected)
                    click(lobby, spot(lobby, "card", code))
                elif "bury" in legal:
                    click(lobby, spot(lobby, "choose"))
                elif legal.get("pass") is True:
                    click(lobby, spot(lobby, "bid_pass"))
                elif "bid" in legal:
                    click(lobby, spot(lobby, "bid"))
            time.sleep(0.001)
        assert lobby.live is not None and lobby.live.table is not None
        model = lobby.live.table.model
        assert model.over, "the game did not end"
        assert model.game == "stars" and model.seat == 0
        assert len(model.view["score_sheet"]) >= 1
        assert refused_seen or not greyed_held, "a greyed card was held: its refusal never came"
        lobby.close()


def test_a_finished_lan_game_says_which_server_keeps_its_log(surface: pygame.Surface,
                                                             tmp_path: Path) -> None:
    """At a server of another process (a LAN's), the game-over panel's line under its buttons
    says where the log is, the table first, then the server; the log is not here to replay."""
    port = free_loopback_port()
    server = start_server(tmp_path / "server", port)
    live: LiveTable | None = None
    try:
        link = ServerLink(f"tcp://127.0.0.1:{port}", name="Tester")
        live = LiveTable(link, SIZE)
        wait_for_welcome(link)
        live.start_game("star_patience", 1, {"deal": 5}, "random", "Tester")
        run_frames(live, surface, lambda: live is not None and live.table is not None
                   and bool(live.table.model.legal) and not live.table.animator.busy)
        table = live.table
        assert table is not None and live.session is not None
        table.command("give_up", {})
        run_frames(live, surface, lambda: table.model.over and table._game_over_shown)
        panel = table.game_over
        assert panel is not None and panel.log is None
        assert panel.where == (f"Log kept by the server: table {live.session.table} "
                               f"at 127.0.0.1:{port}")
        live.draw(surface)
        assert live.hotspots is not None
        replay = [spot for spot in live.hotspots.spots
                  if spot.action == ("game_over", "watch_replay")]
        assert len(replay) == 1 and not replay[0].enabled
    finally:
        if live is not None:
            live.close()
        stop(server)


def _recorded_game(path: str, game_id: str = "stars", seed: int = 5) -> str:
    game = get_game(game_id)
    table = Table.new(game, 4, {"target": 40} if game_id == "stars" else {"target": 30},
                      path=path)
    bots = [make_bot(game, "random", random.Random(seed + s)) for s in range(4)]
    deal = seed
    while not table.outcome().over:
        if game.chance(table.state) is not None:
            table.shuffle(deal)
            deal += 1
            continue
        seat = game.to_act(table.state)[0]
        table.submit(ask(bots[seat], game, table.state, seat, table))
    table.log.close()  # type: ignore[union-attr]
    return path


def test_a_replay_opens_at_the_start_however_it_is_opened(surface: pygame.Surface,
                                                           tmp_path: object) -> None:
    from starhall.client.screens.replay_screen import open_over_table

    recording = load(_recorded_game(f"{tmp_path}/game.starhall"))
    # `starhall replay view LOG` makes the viewer so; W at a finished table, open_over_table.
    for viewer in (ReplayScreen(recording, SIZE), open_over_table(recording, SIZE, [])):
        assert viewer.position == 0
        assert not viewer.table.model.over and not viewer.game.outcome(
            viewer.states[0][1]).over
        viewer.draw(surface)
        viewer.key(pygame.K_END)
        assert viewer.position == len(viewer.states) - 1 and viewer.table.model.over


def test_replay_seek_rebuilds_without_animation(surface: pygame.Surface, tmp_path: object) -> None:
    path = _recorded_game(f"{tmp_path}/game.starhall")
    recording = load(path)
    viewer = ReplayScreen(recording, SIZE)
    middle = len(viewer.states) // 2
    viewer.seek(middle)
    seq, state = viewer.states[middle]
    assert seq == recording.events[middle - 1][0]
    expected = recording.game.view(recording.state_at(seq), None)
    shown = dict(viewer.table.model.view)
    shown.pop("hands")
    assert shown == expected
    assert not viewer.table.animator.busy
    viewer.control("step")  # forward is animated …
    assert viewer.table.animator.busy or viewer.position == middle + 1
    viewer.control("back")  # … back is rebuilt at once
    assert viewer.position == middle and not viewer.table.animator.busy
    viewer.control("next_hand")
    assert viewer.position in viewer.hand_starts or viewer.position == len(viewer.states) - 1
    viewer.control("viewer")  # now as a spectator: no hand is shown
    assert viewer.table.model.seat is None and "hands" not in viewer.table.model.view
    viewer.draw(surface)


def _mid_trick_state() -> tuple[object, object]:
    game = get_game("stars")
    table = Table.new(game, 4, {})
    bots = [make_bot(game, "random", random.Random(s)) for s in range(4)]
    table.shuffle(11)
    state = table.state
    while not (state.phase == "play" and len(state.trick) >= 2 and state.turn == 0):
        seat = game.to_act(state)[0]
        table.submit(ask(bots[seat], game, state, seat))
        state = table.state
        if game.chance(state) is not None:
            table.shuffle(12)
            state = table.state
    return game, state


def test_rendered_table_shows_hand_trick_and_legal_cards(surface: pygame.Surface) -> None:
    game, state = _mid_trick_state()
    view = game.view(state, 0)
    sent: list[tuple[str, dict[str, object]]] = []
    model = TableModel("stars", 0, 4, ["You", "Ada", "Bruno", "Clara"])
    screen = TableScreen(model, lambda kind, data: sent.append((kind, data)), size=SIZE)
    screen.receive(Batch([], view, 1, True))
    hotspots = screen.draw(surface)
    felt_samples = {tuple(surface.get_at((20, 200)))[:3]}
    layout = screen.layout
    # Every hand card is drawn: its top-left index area is card stock, not felt.
    rects = layout.hand_rects(len(view["hand"]))
    for rect in rects:
        colour = tuple(surface.get_at((rect.x + rect.w // 2 if rect is rects[-1] else rect.x + 6,
                                       rect.bottom - 8)))[:3]
        assert colour not in felt_samples and sum(colour) > 300, colour
    # Both trick cards lie at their seats' places in the middle.
    for seat, _code in view["trick"]:
        x, y = layout.trick_slot(seat)
        assert sum(tuple(surface.get_at((int(x), int(y) + layout.card_size[1] // 3)))[:3]) > 400
    # Legal cards are outlined in the highlight colour; the others are shaded.
    legal = set(view["legal"]["play"])
    for code, rect in zip(view["hand"], rects, strict=True):
        edge = tuple(surface.get_at((rect.x - 1, rect.y + rect.h // 2)))[:3]
        if code in legal:
            assert edge == (255, 214, 72)
    # A click on a playable card sends the command (a greyed-out one sends nothing:
    # tests/test_trick_table.py); nothing changes until the server answers.
    target = next(c for c in view["hand"] if c in legal)
    screen.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1,
                                     pos=next(s.rect for s in hotspots.spots
                                              if s.action == ("card", target)).move(4, 4).topleft),
                  hotspots)
    assert sent == [("play", {"card": target})]
    assert model.view == view


def test_animation_catches_up_and_hides_cards_in_flight() -> None:
    animator = Animator()
    flight = Flight("QS", Pose(0, 0), Pose(100, 0), duration=1.0, easing=ease_out_cubic,
                    hides="trick:QS")
    animator.add(Step([flight], payload="after"))
    assert animator.hidden()["trick:QS"] == 1
    animator.advance(0.5)
    (sprite,) = animator.sprites()
    assert 50 < sprite.pose.x < 100  # eased: past halfway at half time
    animator.advance(0.6)
    assert not animator.busy and animator.payload == "after" and not animator.hidden()
    for index in range(MAX_BACKLOG + 5):
        animator.add(Step([flight], payload=index))
    assert len(animator.queue) <= MAX_BACKLOG
    assert animator.speed > 1  # a backlog plays faster


def test_suit_symbols_have_distinct_silhouettes() -> None:
    """Suits must differ in shape, not only colour: compare their black-on-white masks."""
    masks = {}
    for shape in ("club", "diamond", "heart", "spade", "star", "skull", "shield", "wand",
                  "leaf"):
        assert shape in SHAPES
        canvas = pygame.Surface((64, 64))
        canvas.fill((255, 255, 255))
        draw_symbol(canvas, shape, pygame.Rect(0, 0, 64, 64), (0, 0, 0))
        masks[shape] = pygame.mask.from_threshold(canvas, (0, 0, 0), (60, 60, 60, 255))
    names = list(masks)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            overlap = masks[a].overlap_area(masks[b], (0, 0))
            differ = masks[a].count() + masks[b].count() - 2 * overlap
            assert differ > 200, (a, b, differ)  # 5% of the square at least


def test_card_surfaces_are_cached(surface: pygame.Surface) -> None:
    art = CardArt()
    assert art.face("Kk", 90, 126) is art.face("Kk", 90, 126)
    assert art.back(45, 63) is art.back(45, 63)


def test_a_window_starved_past_the_session_timeout_catches_up(tmp_path: Path) -> None:
    """A window that draws no frame for longer than the server's ``timeout`` (a laptop that
    slept, a window starved of CPU) has been forgotten by the server (docs/protocol.md §7),
    though ZeroMQ kept its connection and the updates sent before are still there to read: it
    says hello again and watches again, or resumes its seat, and goes on to the table's last
    move, rather than showing the table as it was when the server forgot it."""
    with ServerInThread(tmp_path, think=0.0, heartbeat=0.2, timeout=1.0) as server:
        assert server.address is not None
        lobby = Connection(server.address)
        table = table_waiting_for_seat_0(server.address)

        def listed() -> dict[str, Any]:
            tables = lobby.request({"type": protocol.LIST})["tables"]
            return next(info for info in tables if info["id"] == table)

        ada, spectator = Watched(server.address), Watched(server.address)
        ada.live.sit(table, 0, "Ada")
        ada.play(2)
        spectator.live.watch(table)
        spectator.until(lambda: spectator.live.table is not None)
        ada.until(lambda: ada._move_if_mine() and listed()["spectators"] == 0)  # forgotten
        ada.play(2)
        seen = ada.live.table.model.seq  # type: ignore[union-attr]
        spectator.until(lambda: spectator.live.table.model.seq >= seen)  # type: ignore[union-attr]
        assert listed()["spectators"] == 1

        ada.until(lambda: my_turn(ada))
        ada._move_if_mine()  # the bots' answers come while her window draws nothing
        wait_for(lambda: not listed()["seats"][0]["connected"])  # forgotten
        ada.play(2)
        assert ada.errors == [] and spectator.errors == []
        for each in (ada, spectator):
            each.close()
        lobby.close()
