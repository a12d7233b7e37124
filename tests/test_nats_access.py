"""A locked-down NATS: a real nats-server that requires TLS with client certificates and a
login into an account of Starhall's own (certificates made here, by ``cryptography``). A node
without the right credentials, CA or certificate is refused in one line; the node with them
plays on; another account's user sees none of Starhall's stream; and nothing secret is on a
``starhall serve`` command line."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nats
import nats.errors
import nats.js.errors
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from starhall.server.embed import EmbeddedServer, free_loopback_port
from starhall.server.nats_access import AccessError, load_access
from tests.connection import Connection
from tests.nats_helpers import NatsNode, wait_for_port
from tests.server_helpers import FAST_HEARTS, FAST_SERVER, Person, fill_with_bots, wait_for

pytestmark = pytest.mark.slow  # real NATS clusters: `make check` leaves this file out

DOCS = Path(__file__).resolve().parent.parent / "docs" / "scaling.md"
NODES = ("n1", "n2", "n3")
OTHERS = """
  OTHERS {
    jetstream: enabled
    users: [ { user: other, password: "other-password" } ]
  }
"""
"""An account beside Starhall's, whose user must see none of it."""


def docs_block(first_line: str) -> str:
    """The indented block of docs/scaling.md that starts with ``first_line``, dedented."""
    for paragraph in DOCS.read_text().split("\n\n"):
        if paragraph.startswith(f"    {first_line}"):
            return "\n".join(line[4:] for line in paragraph.splitlines())
    raise AssertionError(f"docs/scaling.md has no block starting {first_line!r}")


NATS_CONFIG = docs_block("# /etc/nats/nats.conf on n1")
ACCESS = docs_block("# /etc/starhall/nats.toml")
PASSWORD = re.search(r'password = "([^"]+)"', ACCESS).group(1)  # type: ignore[union-attr]


def node_config(name: str, folder: Path, ports: dict[str, tuple[int, int]]) -> str:
    """docs/scaling.md's configuration for the NATS server ``name`` of a cluster on this
    machine: its certificates in ``folder``, ``ports`` each node's client and route ports."""
    client_port, route_port = ports[name]
    routes = ", ".join(f'"nats-route://127.0.0.1:{route}"' for _, route in ports.values())
    config = (NATS_CONFIG.replace("n1", name).replace("/etc/nats/", f"{folder}/")
              .replace("/var/lib/nats", "{store}")
              .replace("listen: 0.0.0.0:4222", "listen: 127.0.0.1:{port}")
              .replace("listen: 0.0.0.0:6222", f"listen: 127.0.0.1:{route_port}")
              .replace("accounts {\n", "accounts {\n" + OTHERS))
    assert ports[name][0] == client_port
    return re.sub(r"routes: \[.*\]", f"routes: [ {routes} ]", config)


def write_pem(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    os.chmod(path, 0o600)
    return path


def make_certificates(folder: Path) -> None:
    """A CA, a certificate for each NATS server on 127.0.0.1 (for its clients and its
    routes), and one for a Starhall node, in ``folder`` as docs/scaling.md names them
    (``ca.pem``, ``n1.pem``/``n1-key.pem`` …, ``node1.pem``/``node1-key.pem``), and a CA
    nobody trusts (``stranger-ca.pem``)."""
    now = datetime.datetime.now(datetime.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def authority(title: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (
            x509.CertificateBuilder().subject_name(name(title)).issuer_name(name(title))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
        return key, certificate

    ca_key, ca = authority("Starhall test CA")
    server_and_client = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    write_pem(folder / "ca.pem", ca.public_bytes(serialization.Encoding.PEM))
    _, stranger = authority("Somebody else's CA")
    write_pem(folder / "stranger-ca.pem", stranger.public_bytes(serialization.Encoding.PEM))
    for who, usage in [*((node, server_and_client) for node in NODES),
                       ("node1", [ExtendedKeyUsageOID.CLIENT_AUTH])]:
        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (
            x509.CertificateBuilder().subject_name(name(f"starhall {who}"))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.ExtendedKeyUsage(usage), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
        write_pem(folder / f"{who}.pem", certificate.public_bytes(serialization.Encoding.PEM))
        write_pem(folder / f"{who}-key.pem", key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[NatsNode, Path]]:
    """docs/scaling.md's cluster of three NATS servers that want TLS, a client certificate
    and a login, with TLS between them; the first node, and the certificates' folder."""
    folder = tmp_path_factory.mktemp("locked")
    make_certificates(folder)
    ports = {name: (free_loopback_port(), free_loopback_port()) for name in NODES}
    nodes = [NatsNode(folder / name, name, port=ports[name][0],
                      config=node_config(name, folder, ports)) for name in NODES]
    for node in nodes:
        node.start(wait=False)
    try:
        for node in nodes:
            wait_for_port(node.port)
        access = access_file(folder, "ready.toml", FULL_ACCESS)
        wait_for(lambda: asyncio.run(jetstream_ready(nodes[0], access)), timeout=60)
        yield nodes[0], folder
    finally:
        for node in nodes:
            node.stop()


async def jetstream_ready(node: NatsNode, access: Path) -> bool:
    """Whether the cluster has elected its JetStream leader (a request before then is lost)."""
    options = load_access(access, environment={}).connect_options()
    try:
        connection = await nats.connect(f"nats://{node.url}", allow_reconnect=False,
                                        **options)
    except (OSError, nats.errors.Error):
        return False
    try:
        await connection.jetstream(timeout=1.0).account_info()
        return True
    except (TimeoutError, nats.errors.Error):
        return False
    finally:
        await connection.close()


def access_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    os.chmod(path, 0o600)
    return path


FULL_ACCESS = ACCESS.replace("/etc/nats/", "").replace("/etc/starhall/", "")
"""docs/scaling.md's access file, its paths in the certificates' folder beside it."""


def test_the_node_with_credentials_and_tls_plays_on(locked: tuple[NatsNode, Path],
                                                      tmp_path: Path) -> None:
    node, folder = locked
    access = access_file(folder, "full.toml", FULL_ACCESS)
    with EmbeddedServer(tmp_path, store=f"nats://{node.url}", stream="STARHALL",
                        store_access=str(access), **FAST_SERVER) as server:
        assert server.address is not None and server.service is not None
        with Connection(server.address) as host:
            table = host.request({"type": "create", "game": "hearts", "players": 4,
                                  "options": FAST_HEARTS})["table"]["id"]
            ada = Person(server.address, table, seat=0)
            fill_with_bots(host, table)
            wait_for(lambda: ada.step() and len(ada.acks) >= 2, timeout=60)
            ada.close()
        assert server.service.store.read(table)  # the moves are in the locked stream


REFUSED = {
    "no login, no certificate": (None, "CERTIFICATE_VERIFY_FAILED"),
    "a wrong password": (FULL_ACCESS.replace(PASSWORD, "guess"), "NATS refused the login"),
    "no client certificate": (f'user = "starhall"\npassword = "{PASSWORD}"\n[tls]\n'
                              'ca = "ca.pem"\n', "CERTIFICATE_REQUIRED"),
    "a CA that did not sign the server's": (
        FULL_ACCESS.replace('"ca.pem"', '"stranger-ca.pem"'), "CERTIFICATE_VERIFY_FAILED"),
    "no login": ("[tls]" + FULL_ACCESS.split("[tls]")[1], "NATS refused the login"),
}


@pytest.mark.parametrize("missing", list(REFUSED))
def test_a_node_without_them_is_refused(locked: tuple[NatsNode, Path], tmp_path: Path,
                                        missing: str) -> None:
    node, folder = locked
    text, reason = REFUSED[missing]
    access = None if text is None else str(access_file(folder, "partial.toml", text))
    server = EmbeddedServer(tmp_path, store=f"nats://{node.url}", stream="STARHALL",
                            store_access=access)
    with pytest.raises(OSError, match=f"cannot use NATS JetStream at nats://{node.url}") as error:
        server.start()
    assert reason in str(error.value) and "--store-access FILE" in str(error.value)
    assert "\n" not in str(error.value)


def test_another_accounts_user_sees_none_of_the_stream(locked: tuple[NatsNode, Path],
                                                        tmp_path: Path) -> None:
    node, folder = locked
    access = access_file(folder, "full.toml", FULL_ACCESS)
    with EmbeddedServer(tmp_path, store=f"nats://{node.url}", stream="STARHALL",
                        store_access=str(access)):
        pass  # the stream is made

    async def look(user: str, password: str) -> bool:
        options = load_access(environment={
            "STARHALL_NATS_USER": user, "STARHALL_NATS_PASSWORD": password,
            "STARHALL_NATS_CA": str(folder / "ca.pem"),
            "STARHALL_NATS_CERT": str(folder / "node1.pem"),
            "STARHALL_NATS_KEY": str(folder / "node1-key.pem")}).connect_options()
        connection = await nats.connect(f"nats://{node.url}", allow_reconnect=False,
                                        **options)
        try:
            await connection.jetstream().stream_info("STARHALL")
            return True
        except nats.js.errors.NotFoundError:
            return False
        finally:
            await connection.close()

    assert asyncio.run(look("starhall", PASSWORD))
    assert not asyncio.run(look("other", "other-password"))


def test_starhalls_user_may_publish_only_on_its_subjects(locked: tuple[NatsNode, Path]) -> None:
    node, folder = locked
    options = load_access(access_file(folder, "full.toml", FULL_ACCESS),
                          environment={}).connect_options()

    async def publish(subject: str) -> list[str]:
        errors: list[str] = []

        async def heard(error: Exception) -> None:
            errors.append(str(error))

        connection = await nats.connect(f"nats://{node.url}", allow_reconnect=False,
                                        error_cb=heard, **options)
        try:
            await connection.publish(subject, b"x")
            await connection.flush()
            await connection.flush()  # the server's -ERR for the publish came before its PONG
        finally:
            await connection.close()
        return errors

    assert any("permissions violation" in error.lower()
               for error in asyncio.run(publish("games.x")))
    assert asyncio.run(publish("starhall.starhall.log.9999")) == []


def test_nothing_secret_is_on_the_command_line(locked: tuple[NatsNode, Path],
                                               tmp_path: Path) -> None:
    node, folder = locked
    access = access_file(folder, "full.toml", FULL_ACCESS)
    port = free_loopback_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("starhall")), "serve", "--store",
             f"nats://{node.url}", "--stream", "STARHALL", "--store-access", str(access), "--data",
             str(tmp_path / "data"), "--bind", f"127.0.0.1:{port}", "--beacon", "off"],
            stdout=output, stderr=output, env={**os.environ, "STARHALL_PURE_PYTHON": "1"})
    try:
        wait_for(lambda: "listening on" in log.read_text(), timeout=60)
        command_line = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert PASSWORD.encode() not in command_line
        assert b"BEGIN" not in command_line
    finally:
        process.terminate()
        process.wait(20)
    said = log.read_text()
    assert "user starhall, TLS with a client certificate" in said
    assert PASSWORD not in said


def test_an_access_file_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "ca.pem").write_text("x")
    shared = tmp_path / "shared.toml"
    shared.write_text('user = "a"\npassword = "b"\n')
    os.chmod(shared, 0o644)
    with pytest.raises(AccessError, match="others may read .* chmod 600"):
        load_access(shared, environment={})
    cases = {'token = "t"\nuser = "u"\n': "one way to log in, not user and token",
             'password = "p"\n': "a password needs its user",
             'tls = "x"\n': r"\[tls\] must be a table",
             'colour = "red"\n': "unknown setting 'colour'",
             '[tls]\nca = "missing.pem"\n': "no file .*missing.pem",
             'user = \n': "not TOML"}
    for text, why in cases.items():
        path = access_file(tmp_path, "access.toml", text)
        with pytest.raises(AccessError, match=why):
            load_access(path, environment={})
    found = load_access(access_file(tmp_path, "access.toml", '[tls]\nca = "ca.pem"\n'),
                        environment={"STARHALL_NATS_TOKEN": "from-env"})
    assert found.ca == tmp_path / "ca.pem" and found.token == "from-env"
    assert load_access(environment={}).connect_options() == {}
