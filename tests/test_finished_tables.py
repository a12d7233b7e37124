"""A finished table keeps only what the lobby shows of it: once its game ends (its last events
durable and sent), the server drops the game's state, the seats' memory, the command ids, the
bots and the log writer (``LiveTable.rest``), in files and in JetStream alike. Everything that
needs the game later reads it back from the log, and answers as before: a watch, a seat's
sync, a resent command (acknowledged again as a duplicate at its seq), a new command (refused:
the game has ended), a bug report holding the whole log, and the log itself as a replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from starhall.server.embed import EmbeddedServer
from starhall.server.tables import LiveTable, shared_options
from starhall.shared import protocol
from starhall.shared.bugreport import read_bug_report
from starhall.shared.replay import Verified, load, verify
from tests.nats_helpers import jetstream_settings
from tests.server_helpers import (
    FAST_HEARTS,
    FAST_SERVER,
    Participant,
    Person,
    choose,
    fill_with_bots,
    log_of,
    play_until_over,
    wait_for,
)


def holds_no_game(live: LiveTable) -> bool:
    """Whether the table keeps nothing of its game but what the lobby shows."""
    return (live.loaded is None and live.finished is not None and live.log is None
            and not live.bots and live.before_batch is None)


@pytest.mark.parametrize("store", ["files", "jetstream"])
def test_a_finished_table_keeps_no_game_and_still_answers_from_its_log(
        store: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    config: dict[str, Any] = dict(FAST_SERVER)
    if store == "jetstream":
        config.update(jetstream_settings(request.getfixturevalue("nats_node"),
                                         request.node.name))
    with EmbeddedServer(tmp_path, **config) as server:
        assert server.address is not None and server.service is not None
        lobby = Participant(server.address)
        table = lobby.request({"type": "create", "game": "hearts", "players": 4,
                               "options": FAST_HEARTS})["table"]["id"]
        ada = Person(server.address, table, 0, "Ada")
        fill_with_bots(lobby, table)
        play_until_over([ada])
        live = server.service.tables[table]
        wait_for(lambda: holds_no_game(live))
        assert live._watchers is None  # nobody watched: not even an empty set is kept

        recording = load(log_of(server, table))
        assert isinstance(verify(log_of(server, table)), Verified)  # the replay is whole
        final = recording.state_at()
        game = recording.game
        assert recording.last_seq == live.seq
        listed = {t["id"]: t for t in lobby.request({"type": "list"})["tables"]}[table]
        assert listed["status"] == protocol.OVER and listed["seq"] == recording.last_seq
        assert listed["scores"] == list(game.outcome(final).scores)

        watcher = Participant(server.address, "Bo")
        assert watcher.request({"type": "watch", "table": table})["type"] == protocol.WATCHING
        snapshot = watcher.connection.receive(5.0)
        assert snapshot is not None and snapshot["type"] == protocol.SNAPSHOT, snapshot
        assert snapshot["seq"] == recording.last_seq
        assert snapshot["view"] == game.view(final, None)

        synced = ada.request({"type": "sync", "table": table, "token": ada.token})
        assert synced["type"] == protocol.SNAPSHOT, synced
        assert synced["seq"] == recording.last_seq and synced["view"] == game.view(final, 0)

        last = ada.acks[-1]  # Ada's last move, sent again as if its ack were lost
        again = ada.act(ada.commands[last["cid"]], seq=last["seq"] - 1, cid=last["cid"])
        assert again == {"type": protocol.ACK, "table": table, "cid": last["cid"],
                         "seq": last["seq"], "duplicate": True, "rid": again["rid"]}
        first = ada.acks[0]
        assert ada.act(ada.commands[first["cid"]], cid=first["cid"])["seq"] == first["seq"]
        late = ada.act(choose(game.view(final, 0)) or {"type": "play", "data": {"card": "2C"}})
        assert late["type"] == protocol.ERROR and late["code"] == protocol.TABLE_OVER, late

        reply = watcher.request({"type": "report", "table": table, "note": "after the end"})
        assert reply["type"] == protocol.REPORTED, reply
        assert read_bug_report(tmp_path / reply["path"])["log"] == \
            server.service.store.read(table)

        assert holds_no_game(live)  # read back for each of these, and not kept
        for person in (lobby, ada, watcher):
            person.close()
    if store == "jetstream":  # no summaries there: a restart reads it, then lets it rest
        with EmbeddedServer(tmp_path / "again", **config) as server:
            assert server.address is not None and server.service is not None
            assert holds_no_game(server.service.tables[table])
            watcher = Participant(server.address, "Cy")
            watcher.request({"type": "watch", "table": table})
            snapshot = watcher.connection.receive(5.0)
            assert snapshot is not None and snapshot["type"] == protocol.SNAPSHOT, snapshot
            assert snapshot["seq"] == recording.last_seq
            assert snapshot["view"] == game.view(final, None)
            watcher.close()


def test_finished_tables_share_equal_options_and_only_equal_ones() -> None:
    assert shared_options({"target": 100, "pass": True}) is \
        shared_options({"target": 100, "pass": True})
    for one, other in (({"x": True}, {"x": 1}), ({"x": 1}, {"x": 1.0}), ({"x": 0}, {"x": False})):
        kept = shared_options(one)
        assert kept == one and all(type(kept[k]) is type(one[k]) for k in one)
        assert shared_options(other) is not kept
    unhashable: dict[str, Any] = {"x": [1, 2]}
    assert shared_options(unhashable) is unhashable
