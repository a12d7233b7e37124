"""Starhall: card games of stars. Play at a table against bots, run a game
server for your LAN and join or watch its tables, and check, show, replay or
play on from the log that every game writes."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from starhall.shared.engine import OptionError
from starhall.shared.games import GAMES, UnknownGame, get_game
from starhall.shared.logfile import LogError, NotALog
from starhall.shared.options import parse_assignments
from starhall.shared.protocol import MAX_THINK_SECONDS as MAX_THINK

EXAMPLES = """\
examples:
  starhall play stars                    Stars against three bots, in a window
  starhall play hearts --players 5 --option mode=blind_trick
  starhall games                         every game: players, options and bots
  starhall play stars --terminal         a game of bots in the terminal, no window needed
  starhall serve                         tables for your LAN; others run `starhall join`
  starhall replay view replays/tables/T.starhall
                                         step through a recorded game

`starhall COMMAND --help` says more about each command."""


class _Parser(argparse.ArgumentParser):
    """Mistakes on the command line in one line (not the whole usage), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from starhall.shared import build, build_id

    try:
        number = version("starhall")
    except PackageNotFoundError:  # run from a source tree that was never installed
        number = "(not installed)"
    engines = f"{build()} engines"
    if build() == "compiled":
        engines += f", build {build_id()}"
    return f"starhall {number} ({engines})"


class _VersionAction(argparse.Action):
    """``--version``, worked out only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> NoReturn:
        print(_version())
        parser.exit()


def player_number(text: str) -> int:
    """``--players``: a whole number from 1 (each game's own range is checked by the game)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a number of players such as 4, not {text!r}")
    return int(text)


def _game_arguments(parser: argparse.ArgumentParser, default: str | None) -> None:
    games = ", ".join(sorted(GAMES))
    parser.add_argument("game", nargs="?" if default else None, default=default,
                        choices=sorted(GAMES), metavar="GAME",
                        help=f"the game: {games}" + (f" (default: {default})" if default else "")
                             + "; `starhall games` describes them")
    parser.add_argument("--players", type=player_number, default=None, metavar="N",
                        help="how many players (default: 4 if the game allows, else the "
                             "nearest it allows; `starhall games` says how many each takes)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a table option, such as target=50; repeat for more "
                             "(`starhall games` lists each game's options and defaults)")


KEY_OPTIONS = ("--server-key",)
"""Options whose value may begin with ``-`` (a Z85 key may): argparse would take such a value
for an option of its own and refuse the line, so it is glued to its option first."""
SERVER_KEY_HELP = ("the server's public key (40 characters, from its DATA/server.key), pinned "
                   "for ADDR; without it the key is the one pinned, or the first one heard")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="starhall", description=__doc__, epilog=EXAMPLES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_VersionAction,
                        help="print the version and whether the engines run compiled or as "
                             "pure Python, and exit")
    parser.set_defaults(print_help=parser.print_help)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = commands.add_parser("play", help="play at a table against bots, in a window",
                               description="Sit at a new table against bots, in a window, on a "
                                           "server of your own that stops when you leave.")
    _game_arguments(play, "stars")
    play.add_argument("--terminal", action="store_true",
                      help="no window: watch one game of bots in the terminal")
    play.add_argument("--slow", action="store_true", help="with --terminal: pause after tricks")
    play.add_argument("--bots", default=None, metavar="LEVEL|KIND",
                      help="the bots' level, Easy, Normal or Strong (where the game has a "
                           "strong bot), or a bot kind (default: the game's default bot; "
                           "`starhall games` lists each game's levels and bots)")
    play.add_argument("--think", type=float, default=None, metavar="SECONDS",
                      help="the time a bot takes for a move: a searching bot thinks that "
                           "long, a quick one waits it out so you can follow (default 0.6)")
    play.add_argument("--deal", type=int, default=None, metavar="N",
                      help="a patience's deal number (the same as --option deal=N)")
    play.add_argument("--resume", nargs="?", const="", default=None, metavar="NAME",
                      help="sit back at your latest unfinished game (games you leave are "
                           "kept); NAME picks another: a game such as hearts, or a "
                           "FOLDER/TABLE as listed")

    games = commands.add_parser(
        "games", help="list the games: players, table options and bots",
        description="Every game Starhall offers: how many players it takes, its table options "
                    "(with their defaults and the values they take) and its bots.")
    games.add_argument("game", nargs="?", default=None, choices=sorted(GAMES), metavar="GAME",
                       help="only this game (default: all of them)")
    games.add_argument("--json", action="store_true", help="machine-readable output")

    sim = commands.add_parser("sim", help="play games of bots and write their logs",
                              description="Games of bots, each written to its own log, with a "
                                          "summary of wins and scores: a win is a game won "
                                          "alone, and a tie (a win shared) is counted apart, "
                                          "as the tie rate. The same command gives the same "
                                          "games.")
    _game_arguments(sim, None)
    sim.add_argument("--games", type=int, default=1, metavar="K",
                     help="how many games (default 1)")
    sim.add_argument("--seed", type=int, default=0, metavar="S",
                     help="the run's seed (default 0)")
    sim.add_argument("--bots", default=None, metavar="KIND[,KIND…]",
                     help="bot level (easy, normal, strong) or kind for every seat, or one "
                          "per seat separated by commas (default: the game's default bot; "
                          "`starhall games` lists them)")
    logs = sim.add_mutually_exclusive_group()
    logs.add_argument("--out", default="replays/sim", metavar="DIR",
                      help="folder for the logs (default: replays/sim)")
    logs.add_argument("--no-logs", action="store_true",
                      help="play the games without writing their logs: only the summary")
    sim.add_argument("--think", type=float, default=1.0, metavar="SECONDS",
                     help="the time a searching bot takes for a move (default 1); quick bots "
                          "take no time")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")

    replay = commands.add_parser("replay", help="check, show, view, fork, analyse or compare "
                                                "recorded games",
                                 description="Read the logs games write (and bug reports): "
                                             "every reader re-checks each move against the "
                                             "rules.")
    replay.set_defaults(print_help=replay.print_help)
    replay_commands = replay.add_subparsers(dest="replay_command", metavar="ACTION")
    verify = replay_commands.add_parser(
        "verify", help="rebuild games, re-checking every move against the rules and checkpoints")
    verify.add_argument("paths", nargs="+", metavar="PATH",
                        help="log files, bug reports or folders of logs")
    verify.add_argument("--json", action="store_true", help="machine-readable output")
    show = replay_commands.add_parser("show", help="print a game's state after an event")
    show.add_argument("path", metavar="PATH", help="a log file or a bug report")
    show.add_argument("--at", type=int, default=None, metavar="SEQ",
                      help="after this event (default: the last)")
    show.add_argument("--seat", default=None, metavar="N|all",
                      help="see as this seat, or everything (default: a spectator)")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    export = replay_commands.add_parser(
        "export", help="write the log of a table kept in NATS JetStream to a file")
    export.add_argument("address", metavar="nats://HOST:PORT[,…]/TABLE",
                        help="the NATS servers and the table")
    export.add_argument("file", metavar="FILE", help="the log file to write")
    for reader in (verify, show, export):
        reader.add_argument("--stream", default="STARHALL",
                            help="the JetStream stream of a nats:// address (default STARHALL)")
    view = replay_commands.add_parser("view", help="open a recorded game in a window")
    view.add_argument("path", metavar="PATH", help="a log file or a bug report")
    fork = replay_commands.add_parser(
        "fork", help="play on from an event of a recorded game: you in one seat, bots around")
    fork.add_argument("path", metavar="PATH", help="a log file or a bug report")
    fork.add_argument("--at", type=int, default=None, metavar="SEQ",
                      help="after this event (default: the last)")
    fork.add_argument("--seat", type=int, default=0, metavar="N",
                      help="your seat (default 0)")
    fork.add_argument("--data", default=None, metavar="DIR",
                      help="the embedded server's data folder; the new log goes in DIR/tables "
                           "(default: replays)")
    analyse = replay_commands.add_parser(
        "analyse", help="each seat's costliest decisions, as the Strong bot weighs them",
        description="Weigh every decision of a recorded game with the Strong bot, from the "
                    "seat's eyes (only what it was shown), and list each seat's costliest. "
                    "The analysis is kept beside the log (PATH.analysis) for the next time "
                    "and the replay viewer. Exit 0: printed; 1: the log cannot be read or "
                    "breaks the rules; 2: a mistake in what was asked.")
    from starhall.server.analyse_cli import add_arguments as add_analyse_arguments

    add_analyse_arguments(analyse)
    diff = replay_commands.add_parser(
        "diff", help="the first event where two logs of the same table differ, and both states")
    diff.add_argument("first", metavar="A", help="a log file, a bug report or nats://…/TABLE")
    diff.add_argument("second", metavar="B", help="another log of the same table")
    diff.add_argument("--json", action="store_true", help="machine-readable output")
    diff.add_argument("--stream", default="STARHALL",
                      help="the JetStream stream of a nats:// address (default STARHALL)")

    serve = commands.add_parser("serve", help="run the game server for your LAN",
                                description="The game server: tables for everyone on the LAN "
                                            "(they run `starhall join`), one log per table, "
                                            "rebuilt from the logs when it starts again.")
    from starhall.server.serve import add_arguments

    add_arguments(serve)
    join = commands.add_parser("join", help="the lobby of a server on your LAN, in a window",
                               description="Open the lobby of a Starhall server: its tables to "
                                           "join or watch, and new tables to start.")
    join.add_argument("address", nargs="?", default=None, metavar="ADDR",
                      help="the server, HOST or HOST:PORT (default: pick one of the servers "
                           "heard on the LAN)")
    join.add_argument("--server-key", default=None, metavar="KEY", help=SERVER_KEY_HELP)
    watch = commands.add_parser("watch", help="spectate a table live, in a window",
                                description="Watch a table of a Starhall server as a "
                                            "spectator, live, in a window: you see what every "
                                            "spectator may see, never a hidden hand.")
    watch.add_argument("address", metavar="ADDR", help="the server, HOST or HOST:PORT")
    watch.add_argument("table", nargs="?", default=None, metavar="TABLE",
                       help="the table's id (default: the first table playing)")
    watch.add_argument("--server-key", default=None, metavar="KEY", help=SERVER_KEY_HELP)
    web = commands.add_parser("web", help="watch and replay the tables from any browser on the LAN",
                              description="A read-only web page of a Starhall server's tables: "
                                          "its lobby, each table live as a spectator sees it, "
                                          "and every finished game's replay, moment by moment.")
    from starhall.client.web.options import add_arguments as add_web_arguments

    add_web_arguments(web)
    store = commands.add_parser("store", help="move tables between a folder and NATS JetStream")
    store.set_defaults(print_help=store.print_help)
    store_commands = store.add_subparsers(dest="store_command", metavar="ACTION")
    imported = store_commands.add_parser(
        "import", help="copy a folder's table logs (and seating) into JetStream, checked")
    imported.add_argument("folder", metavar="DIR", help="a folder of .starhall logs")
    imported.add_argument("address", metavar="nats://HOST:PORT[,…]", help="the NATS servers")
    exported = store_commands.add_parser(
        "export", help="copy JetStream's tables (or one: …/TABLE) into a folder, checked")
    exported.add_argument("address", metavar="nats://HOST:PORT[,…][/TABLE]",
                          help="the NATS servers (and one table)")
    exported.add_argument("folder", metavar="DIR", help="the folder to write the logs to")
    for moving in (imported, exported):
        moving.add_argument("--stream", default="STARHALL",
                            help="the JetStream stream of the tables (default STARHALL)")
    solve = commands.add_parser("solve", help="a patience's deals: winnable? the hints' win rate")
    from starhall.server.solve import add_arguments as add_solve_arguments

    add_solve_arguments(solve)
    return parser


def _oserror_text(error: OSError) -> str:
    """``missing.starhall: No such file or directory`` rather than ``[Errno 2] …``."""
    if error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error)


def _silence_stdout() -> None:
    """The reader of our output has gone (``| head``): whatever is left goes nowhere, so the
    flush at exit does not complain either."""
    with contextlib.suppress(OSError, ValueError):  # stdout may be no file at all
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            code = _main(argv)
        except SystemExit as leaving:  # --help, --version or a mistake on the command line
            code = leaving.code if isinstance(leaving.code, int) else int(bool(leaving.code))
        sys.stdout.flush()  # a closed pipe is noticed here, not in the flush at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 141  # as if ended by SIGPIPE, like other tools in a pipeline


def glued_key_values(argv: Sequence[str]) -> list[str]:
    """``--server-key -x…`` as ``--server-key=-x…``: one argument argparse cannot misread."""
    glued: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":  # what follows is positional, as written
            return [*glued, word, *words]
        if word in KEY_OPTIONS:
            value = next(words, None)
            glued.append(word if value is None else f"{word}={value}")
        else:
            glued.append(word)
    return glued


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(glued_key_values(sys.argv[1:] if argv is None else argv))
    if (args.command is None or getattr(args, "replay_command", "") is None
            or getattr(args, "store_command", "") is None):
        args.print_help()  # `starhall` or `starhall replay` alone: what is there to do
        return 0
    try:
        return _dispatch(args)
    except NotALog as error:  # a file named that is no log at all: a usage mistake
        print(f"starhall: {error}", file=sys.stderr)
        return 2
    except LogError as error:  # a log that cannot be read or breaks the rules: check failed
        print(f"starhall: {error}", file=sys.stderr)
        return 1
    except (OptionError, UnknownGame, ValueError) as error:
        print(f"starhall: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as error:
        print(f"starhall: {_oserror_text(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    if hasattr(args, "option") and getattr(args, "resume", None) is None:
        args.options = parse_assignments(args.option)
        if getattr(args, "deal", None) is not None:
            args.options["deal"] = str(args.deal)
        from starhall.server.sim import default_players

        game = get_game(args.game)  # the table is refused before any work starts
        game.make_options(args.players or default_players(game), args.options)
        if args.command == "play":
            from starhall.shared.bots import bot_kind, default_bot

            args.bot_kind = bot_kind(game, args.bots) if args.bots else default_bot(game)
            if args.think is not None and not 0 <= args.think <= MAX_THINK:
                raise ValueError(f"--think takes 0 to {MAX_THINK:g} seconds, not {args.think:g}")
    if args.command == "games":
        from starhall.server.games_cli import run as run_games

        return run_games(args)
    if args.command == "solve":
        from starhall.server.solve import run_solve

        return run_solve(args)
    if args.command == "sim":
        from starhall.server.sim import run_sim

        return run_sim(args)
    if args.command == "store" or (args.command == "replay" and args.replay_command == "export"):
        from starhall.server import store_cli

        return (store_cli.run_store(args) if args.command == "store"
                else store_cli.run_replay_export(args))
    if args.command == "replay" and args.replay_command == "analyse":
        from starhall.server.analyse_cli import run_analyse

        return run_analyse(args)
    if args.command == "replay" and args.replay_command in ("verify", "show", "diff"):
        from starhall.server import replay_cli

        named = [*getattr(args, "paths", []), getattr(args, "path", ""),
                 getattr(args, "first", ""), getattr(args, "second", "")]
        if not any(name.startswith("nats://") for name in named):
            return replay_cli.run(args)
        from starhall.server import store_cli

        return replay_cli.run(args, store_cli.read_addresses(named, args.stream))
    if args.command == "web":
        from starhall.client.web.app import run as run_web

        return run_web(args)
    if args.command == "serve":
        from starhall.server.serve import run

        return run(args)
    if args.command == "play" and args.terminal and getattr(args, "resume", None) is None:
        from starhall.server.terminal import run_terminal

        return run_terminal(args)
    from starhall.client import app

    return int(getattr(app, args.command if args.command != "replay"
                       else args.replay_command)(args))


if __name__ == "__main__":
    sys.exit(main())
