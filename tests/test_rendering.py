"""The server's outbox and frames: an update's events are cut, and its view built, only when
the update is encoded, and the frame says exactly what cutting and building at once would."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from starhall.server.rendering import Frames, LaterEvents, LaterView
from starhall.server.sessions import Outbox
from starhall.shared import protocol
from starhall.shared.bots import make_bot
from starhall.shared.engine import Event
from starhall.shared.games import get_game
from starhall.shared.shuffle import shuffle_command
from starhall.shared.table import Table
from tests.support import ask

GAME = get_game("hearts")


def dealt_table() -> Table[Any]:
    table = Table.new(GAME, 4, {})
    table.shuffle(14)
    return table


def cut_now(before: Any, numbered: list[tuple[int, Event]], viewer: int | None
            ) -> list[dict[str, Any]]:
    """The events as the game shows them to ``viewer``, cut at once (what the frame must say)."""
    shown = []
    state = before
    for seq, event in numbered:
        seen = GAME.event_view(state, event, viewer)
        if seen is not None:
            shown.append({"seq": seq, "type": seen.type, "seat": seen.seat,
                          "data": dict(seen.data)})
        state = GAME.evolve(state, event)
    return shown


def befores_of(before: Any, numbered: list[tuple[int, Event]]) -> list[Any]:
    states = [before]
    for _, event in numbered[:-1]:
        states.append(GAME.evolve(states[-1], event))
    return states


@pytest.mark.parametrize("viewer", [0, 2, None])
def test_an_update_gathered_over_moves_is_cut_and_viewed_when_encoded(viewer: int | None
                                                                       ) -> None:
    table = dealt_table()
    bot = make_bot(GAME, "random", random.Random(3))
    outbox, identity = Outbox(), b"someone"
    expected: list[dict[str, Any]] = []
    first = table.seq
    for _ in range(6):
        before, seat = table.state, GAME.to_act(table.state)[0]
        numbered = table.submit(ask(bot, GAME, before, seat))
        expected += cut_now(before, numbered, viewer)
        outbox.events(identity, "0001", viewer, numbered[0][0] - 1, numbered[-1][0],
                      LaterEvents(GAME, numbered, befores_of(before, numbered), viewer),
                      LaterView(GAME, table.state, viewer))
    [(to, message)] = outbox.drain()
    assert to == identity
    sent = protocol.decode(Frames().encode(message))
    assert sent["from"] == first and sent["seq"] == table.seq
    assert sent["events"] == expected
    view = GAME.view(table.state, viewer)
    assert sent["view"] == msgpack.unpackb(msgpack.packb(view, use_bin_type=True), raw=False)


def test_a_deal_of_several_events_is_cut_from_the_state_before_each() -> None:
    table = Table.new(GAME, 4, {})
    request = GAME.chance(table.state)
    assert request is not None
    before = table.state
    numbered = table.submit(shuffle_command(request, 14))
    later = LaterEvents(GAME, numbered, befores_of(before, numbered), 1)
    assert later.cut() == cut_now(before, numbered, 1)
    assert later.cut() is later.cut()  # cut once, for every session with that viewer


def test_a_view_the_game_cannot_build_fails_the_encoding() -> None:
    """``TableMaster._frames`` stops the table then, instead of sending a wrong message."""
    not_a_state = object()  # what a game's bug might leave: Hearts cannot read it
    message = {"type": protocol.SNAPSHOT, "table": "0001", "seq": 0, "seat": 0,
               "view": LaterView(get_game("hearts"), not_a_state, 0)}
    with pytest.raises((AttributeError, TypeError)):
        Frames().encode(message)


def test_one_packer_encodes_a_batch_like_encode() -> None:
    encode = protocol.encoder()
    messages = [{"type": "a", "n": n, "list": list(range(n)), "text": "é" * n} for n in range(5)]
    assert [encode(message) for message in messages] == [protocol.encode(m) for m in messages]
