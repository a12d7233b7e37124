"""``starhall web``'s command line, kept light: building the ``starhall`` parser imports it."""

from __future__ import annotations

import argparse

DEFAULT_BIND = "0.0.0.0:47480"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", default="127.0.0.1", metavar="ADDR",
                        help="the server or service node to watch, HOST or HOST:PORT "
                             "(default 127.0.0.1)")
    parser.add_argument("--server-key", default=None, metavar="KEY",
                        help="the server's public key (40 characters, from its "
                             "DATA/server.key); without it the server is asked for it, and "
                             "the answer trusted the first time")
    parser.add_argument("--bind", default=DEFAULT_BIND, metavar="HOST:PORT",
                        help=f"where the pages are served (default {DEFAULT_BIND}: every "
                             "address of this machine)")
