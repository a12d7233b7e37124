"""The servers' public keys this user has met, pinned as SSH pins hosts' keys.

``known_servers.json`` in the config folder maps a server's address (``tcp://HOST:PORT``) to
its public key in Z85, or to ``"plain"`` for a server that spoke plain ZeroMQ. The first key
heard from an address is kept; a different one later (or plain where a key was) is refused
with a warning until the user deletes the line, or gives the new key with ``--server-key``.
"""

from __future__ import annotations

import json
from pathlib import Path

from starhall.client.user.folders import config_dir
from starhall.shared.atomic_files import RenamedError, write_durably
from starhall.shared.curve import fingerprint, key_from_text, key_text

FILE = "known_servers.json"
PLAIN = "plain"


class KeyChanged(Exception):
    """A server answered with another key than the one pinned for its address."""


def _describe(key: bytes | None) -> str:
    return "no key (plain, unencrypted)" if key is None else f"the key {fingerprint(key)}"


class KnownServers:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / FILE

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise KeyChanged(f"{self.path} cannot be read ({error}): the servers' keys it pins "
                             "cannot be checked; repair or delete it") from None
        if not isinstance(data, dict):
            raise KeyChanged(f"{self.path} is not a map of addresses to keys; repair or "
                             "delete it")
        return {str(address): str(key) for address, key in data.items()}

    def pinned(self, address: str) -> bytes | None | str:
        """The key pinned for ``address``; ``PLAIN``; or ``""`` when none is."""
        text = self._read().get(address, "")
        if text in ("", PLAIN):
            return text
        try:
            return key_from_text(text)
        except ValueError:
            raise KeyChanged(f"{self.path}: the key of {address} is damaged; delete its "
                             "line") from None

    def check(self, address: str, key: bytes | None) -> None:
        """Pin ``key`` (``None``: plain) for ``address`` if none is pinned; ``KeyChanged``,
        saying what to do, if another is."""
        known = self.pinned(address)
        if known == "":
            self.pin(address, key)
            return
        if known == (PLAIN if key is None else key):
            return
        was = None if known == PLAIN else known
        assert not isinstance(was, str)
        raise KeyChanged(
            f"WARNING: the server at {address} now answers with {_describe(key)}, not "
            f"{_describe(was)} as before. Someone may be listening in between. If its owner "
            f"made a new key, delete its line in {self.path} or start with --server-key.")

    def pin(self, address: str, key: bytes | None) -> None:
        """Keep ``key`` for ``address``, replacing what was pinned (``--server-key``)."""
        known = self._read()
        known[address] = PLAIN if key is None else key_text(key)
        body = json.dumps(known, indent=1, sort_keys=True) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, body.encode("utf-8"))
        except RenamedError:
            pass  # in place; only the folder's sync failed
        except OSError:
            pass  # not kept: the next start trusts the first key again, as now
