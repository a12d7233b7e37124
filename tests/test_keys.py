"""The server's key pair in its data folder, the keys a window pins, and the lobby that shows
a server's fingerprint and refuses a changed key (docs/protocol.md §1)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import zmq

from starhall.client.net.link import KEY_REFUSED, ServerLink
from starhall.client.user.known_servers import KeyChanged, KnownServers
from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.server.keys import PUBLIC_FILE, SECRET_FILE, load_or_create
from starhall.shared import protocol
from starhall.shared.curve import fingerprint, key_from_text, key_text
from tests.connection import Connection, ConnectionTimeout, server_key
from tests.server_helpers import wait_for
from tests.test_lobby_flow import Window


def test_the_key_pair_is_made_once_private_and_kept(tmp_path: Path) -> None:
    first = load_or_create(tmp_path)
    assert first.kept
    assert stat.S_IMODE((tmp_path / SECRET_FILE).stat().st_mode) == 0o600
    public_text = (tmp_path / PUBLIC_FILE).read_text()
    assert key_text(first.public) in public_text and key_text(first.secret) not in public_text
    assert load_or_create(tmp_path) == first
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_secret_key_others_may_read_is_refused(tmp_path: Path) -> None:
    load_or_create(tmp_path)
    os.chmod(tmp_path / SECRET_FILE, 0o644)
    with pytest.raises(PermissionError, match="chmod 600"):
        load_or_create(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_folder_that_cannot_be_written_gets_a_key_for_this_run(tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o500)
    try:
        keys = load_or_create(tmp_path)
    finally:
        os.chmod(tmp_path, 0o700)
    assert not keys.kept and not (tmp_path / SECRET_FILE).exists()


def test_a_z85_key_is_read_back_and_a_bad_one_said_in_one_line() -> None:
    public, _ = zmq.curve_keypair()
    assert key_text(key_from_text(public.decode())) == public.decode()
    with pytest.raises(ValueError, match="40 characters of Z85"):
        key_from_text("not a key")
    assert len(fingerprint(b"\0" * 32)) == 19


def test_a_beacon_carries_the_key_and_a_plain_ones_bytes_are_unchanged() -> None:
    public = b"\x01" * 32
    plain = protocol.encode_beacon(protocol.Beacon(47474, "den"))
    assert plain == b"STARHALL\x01\xb9\x72den"
    assert protocol.decode_beacon(plain) == protocol.Beacon(47474, "den", None)
    keyed = protocol.decode_beacon(protocol.encode_beacon(protocol.Beacon(1, "den", public)))
    assert keyed == protocol.Beacon(1, "den", public)
    assert protocol.decode_beacon(plain + b"\0short") is None


def test_pins_keep_the_first_key_and_refuse_another_or_plain(tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known.json")
    first, other = b"\x01" * 32, b"\x02" * 32
    known.check("tcp://den:47474", first)
    known.check("tcp://den:47474", first)
    with pytest.raises(KeyChanged, match=f"now answers with the key {fingerprint(other)}"):
        known.check("tcp://den:47474", other)
    with pytest.raises(KeyChanged, match="plain, unencrypted"):
        known.check("tcp://den:47474", None)
    known.check("tcp://hall:47474", None)  # a plain server is pinned as plain
    with pytest.raises(KeyChanged):
        known.check("tcp://hall:47474", first)
    known.pin("tcp://den:47474", other)  # --server-key replaces the pin
    known.check("tcp://den:47474", other)


def test_a_plain_client_hears_nothing_from_a_curve_server(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as server:
        assert server.address is not None
        with Connection(server.address, plain=True) as plain, pytest.raises(ConnectionTimeout):
            plain.request({"type": "hello", "name": "Old"}, timeout=1.0)
        with Connection(server.address) as curve:
            assert curve.request({"type": "hello", "name": "New"})["type"] == protocol.WELCOME


def test_a_plain_server_is_for_plain_clients(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, plain=True) as server:
        assert server.address is not None
        assert server_key(server.address) is None
        assert not (tmp_path / SECRET_FILE).exists()
        with Connection(server.address, plain=True) as old:
            assert old.request({"type": "hello", "name": "Old"})["type"] == protocol.WELCOME


def test_a_link_refuses_a_server_whose_key_changed(tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known.json")
    with EmbeddedServer(tmp_path / "data") as server:
        assert server.address is not None
        known.pin(server.address, b"\x07" * 32)  # what an earlier key would have left
        link = ServerLink(server.address, "Ada", known=known)
        heard = wait_for(link.poll)
        assert heard[0]["type"] == KEY_REFUSED
        assert "Someone may be listening in between" in heard[0]["message"]
        assert link.refusal is not None and link.poll() == [] and link.state == "refused"
        link.close()


def test_the_lobby_shows_the_servers_fingerprint_and_pins_it(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as server:
        assert server.address is not None and server.public_key is not None
        window = Window(server.address, "Ada")
        try:
            window.until(lambda: window.lobby.ever_connected)
            assert f"encrypted, key {fingerprint(server.public_key)}" in window.lobby.message
            assert KnownServers().pinned(server.address) == server.public_key
        finally:
            window.close()


def test_the_lobby_warns_of_a_changed_key_and_does_not_connect(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as server:
        assert server.address is not None
        KnownServers().pin(server.address, b"\x07" * 32)
        window = Window(server.address, "Ada")
        try:
            window.until(lambda: window.lobby.refused)
            assert "now answers with the key" in window.lobby.message
            assert window.spot("lost", "back") is not None
            assert not window.lobby.ever_connected
        finally:
            window.close()


def test_starhall_plays_window_and_its_server_speak_only_curve() -> None:
    from starhall.client.screens.hosted import HostedTable

    hosted = HostedTable.new("hearts", 4, {"target": 1000}, (1280, 720))
    try:
        assert hosted.server.key is not None
        assert hosted.live.link.server_key == hosted.server.key
        wait_for(lambda: (hosted.frame(0.5), hosted.live.table is not None)[1])
        with Connection(hosted.server.address, plain=True) as plain, \
                pytest.raises(ConnectionTimeout):
            plain.request({"type": "hello", "name": "Old"}, timeout=1.0)
    finally:
        hosted.close()


def test_a_server_back_with_another_key_is_refused_after_the_link_is_lost(
        tmp_path: Path) -> None:
    known = KnownServers(tmp_path / "known.json")
    port = free_loopback_port()
    bind = f"tcp://127.0.0.1:{port}"
    with EmbeddedServer(tmp_path / "first", bind=bind, heartbeat=0.2, timeout=1.0) as first:
        link = ServerLink(first.address or "", "Ada", known=known)
        wait_for(lambda: (link.poll(), link.state == "connected")[1])
    with EmbeddedServer(tmp_path / "second", bind=bind):  # a new data folder: a new key
        heard: list[dict[str, object]] = []
        wait_for(lambda: heard.extend(link.poll()) or any(
            message["type"] == KEY_REFUSED for message in heard))
        assert link.state == "refused"
        link.close()


def test_server_key_is_pinned_over_an_old_pin_and_checked_in_one_line(tmp_path: Path) -> None:
    import argparse

    from starhall.client.app import given_key
    from starhall.client.screens.lobby import Lobby

    with pytest.raises(ValueError, match="needs the server's address"):
        given_key(argparse.Namespace(server_key="x" * 40), None)
    with pytest.raises(ValueError, match="is not a server key"):
        given_key(argparse.Namespace(server_key="short"), "den")
    with EmbeddedServer(tmp_path) as server:
        assert server.address is not None and server.public_key is not None
        KnownServers().pin(server.address, b"\x07" * 32)  # an old key, replaced by the owner
        text = key_text(server.public_key)
        key = given_key(argparse.Namespace(server_key=text), server.address)
        lobby = Lobby((1280, 720), server.address, "Ada", server_key=key)
        try:
            wait_for(lambda: (lobby.frame(0.1), lobby.ever_connected)[1])
            assert KnownServers().pinned(server.address) == server.public_key
        finally:
            lobby.close()


def test_the_lobby_hears_each_servers_key_in_its_beacon() -> None:
    from starhall.client.screens.lobby import Discovery
    from starhall.server.beacon import BeaconSender

    port = free_loopback_port()  # a UDP port of its own, as the tests' listeners use
    discovery = Discovery(port)
    key = b"\x05" * 32
    sender = BeaconSender(47474, "den", target="127.0.0.1", target_port=port, interval=0.05,
                          key=key)
    sender.start()
    try:
        wait_for(lambda: discovery.poll() or discovery.servers)
        assert discovery.keys == {"tcp://127.0.0.1:47474": key}
    finally:
        sender.stop()
        discovery.close()


def test_serve_plain_warns_and_speaks_to_old_clients(tmp_path: Path) -> None:
    import subprocess
    import sys

    port = free_loopback_port()
    serve = subprocess.Popen(
        [str(Path(sys.executable).with_name("starhall")), "serve", "--plain", "--bind",
         f"127.0.0.1:{port}", "--data", str(tmp_path), "--beacon", "off"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "STARHALL_PURE_PYTHON": "1"})
    try:
        assert serve.stdout is not None and "listening on" in serve.stdout.readline()
        with Connection(f"tcp://127.0.0.1:{port}", plain=True) as old:
            assert old.request({"type": "hello", "name": "Old"})["type"] == protocol.WELCOME
    finally:
        serve.terminate()
        _, errors = serve.communicate(timeout=30)
    assert "--plain: clients talk to this server unencrypted" in errors
    assert not (tmp_path / SECRET_FILE).exists()
