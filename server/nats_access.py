"""How a server logs in to NATS and checks it is talking to the right one (docs/scaling.md):
credentials (a user and password, a token, an NKey seed or a ``.creds`` file) and TLS (the CA
that signed the NATS servers' certificates, and a client certificate if they ask for one).

None of it is ever on the command line, where ``ps`` shows it to every user: it is read from
a TOML file that ``--store-access FILE`` (or ``$STARHALL_NATS_ACCESS``) names, readable by its
owner only, or from the environment (``STARHALL_NATS_USER`` … below). A value in the
environment wins over the file's.

    # starhall-nats.toml (chmod 600)
    user = "starhall"
    password = "…"             # or: token = "…", nkey_seed = "starhall.nk", creds = "x.creds"
    [tls]
    ca = "ca.pem"               # paths are relative to this file's folder
    cert = "starhall.pem"       # a client certificate, when the servers verify clients
    key = "starhall-key.pem"
"""

from __future__ import annotations

import os
import ssl
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

ACCESS_ENV = "STARHALL_NATS_ACCESS"
"""Names the access file when ``--store-access`` does not."""
ENVIRONMENT = {"user": "STARHALL_NATS_USER", "password": "STARHALL_NATS_PASSWORD",
               "token": "STARHALL_NATS_TOKEN", "nkey_seed": "STARHALL_NATS_NKEY_SEED",
               "creds": "STARHALL_NATS_CREDS", "ca": "STARHALL_NATS_CA",
               "cert": "STARHALL_NATS_CERT", "key": "STARHALL_NATS_KEY"}
"""Each setting's variable; ``nkey_seed``, ``creds``, ``ca``, ``cert`` and ``key`` name
files."""
SECRETS = ("password", "token")
FILES = ("nkey_seed", "creds", "ca", "cert", "key")


class AccessError(ValueError):
    """An access file or setting that cannot be used, in words."""


@dataclass(frozen=True, slots=True)
class NatsAccess:
    user: str | None = None
    password: str | None = None
    token: str | None = None
    nkey_seed: Path | None = None
    creds: Path | None = None
    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    def connect_options(self) -> dict[str, Any]:
        """Keyword arguments for ``nats.connect``."""
        options: dict[str, Any] = {}
        if self.user is not None:
            options["user"] = self.user
            options["password"] = self.password or ""
        if self.token is not None:
            options["token"] = self.token
        if self.nkey_seed is not None:
            options["nkeys_seed"] = str(self.nkey_seed)
        if self.creds is not None:
            options["user_credentials"] = str(self.creds)
        if self.ca is not None or self.cert is not None:
            context = ssl.create_default_context(
                cafile=None if self.ca is None else str(self.ca))
            if self.cert is not None:
                context.load_cert_chain(str(self.cert),
                                        None if self.key is None else str(self.key))
            options["tls"] = context
        return options

    def describe(self) -> str:
        """What is used, never a secret: for the line ``serve`` prints as it starts."""
        login = ("user " + self.user if self.user is not None else "a token" if self.token
                 else "an NKey" if self.nkey_seed else "a .creds file" if self.creds
                 else "no login")
        tls = "TLS" + (" with a client certificate" if self.cert else "") if (
            self.ca or self.cert) else "no TLS"
        return f"{login}, {tls}"


def load_access(file: str | Path | None = None,
                environment: Mapping[str, str] | None = None) -> NatsAccess:
    """The access ``file`` (or ``$STARHALL_NATS_ACCESS``'s) says, with the environment's
    settings over it; an ``AccessError`` saying what is wrong."""
    env = os.environ if environment is None else environment
    settings: dict[str, Any] = {}
    named = file or env.get(ACCESS_ENV) or None
    base = Path.cwd()
    if named is not None:
        path = Path(named).expanduser()
        settings, base = _read_file(path), path.parent
    for name, variable in ENVIRONMENT.items():
        if env.get(variable):
            settings[name] = env[variable]
    for name in FILES:
        if name in settings:
            found = base / Path(settings[name]).expanduser()
            if not found.is_file():
                raise AccessError(f"NATS {name}: no file {found}")
            settings[name] = found
    logins = [name for name in ("user", "token", "nkey_seed", "creds") if name in settings]
    if len(logins) > 1:
        raise AccessError(f"NATS access: give one way to log in, not {' and '.join(logins)}")
    if "password" in settings and "user" not in settings:
        raise AccessError("NATS access: a password needs its user")
    if "key" in settings and "cert" not in settings:
        raise AccessError("NATS access: a TLS key needs its certificate (cert)")
    return NatsAccess(**settings)


def _read_file(path: Path) -> dict[str, Any]:
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise AccessError(f"--store-access {path}: {error.strerror or error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise AccessError(f"--store-access {path}: not TOML ({error})") from None
    tls = data.pop("tls", {})
    if not isinstance(tls, dict):
        raise AccessError(f"--store-access {path}: [tls] must be a table")
    settings = {**data, **tls}
    known = {field.name for field in fields(NatsAccess)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise AccessError(f"--store-access {path}: unknown setting {unknown[0]!r} (known: "
                          f"{', '.join(sorted(known))})")
    for name, value in settings.items():
        if not isinstance(value, str):
            raise AccessError(f"--store-access {path}: {name} must be a string")
    if mode & 0o077 and any(name in settings for name in SECRETS):
        raise AccessError(f"--store-access {path}: holds a secret that others may read "
                          f"(mode {mode & 0o777:o}); chmod 600 it")
    return settings
