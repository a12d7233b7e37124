"""The ``starhall`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from shared.engine import OptionError
from shared.games import GAMES, UnknownGame
from shared.logfile import LogError
from shared.options import parse_assignments


def _game_arguments(parser: argparse.ArgumentParser, default: str | None) -> None:
    parser.add_argument("game", nargs="?" if default else None, default=default,
                        choices=sorted(GAMES), help=f"game id (default: {default})")
    parser.add_argument("--players", type=int, default=None, help="number of players")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a table option; repeat for more")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="starhall", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sim = commands.add_parser("sim", help="play games of bots and write their logs")
    _game_arguments(sim, None)
    sim.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    sim.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    sim.add_argument("--bots", default=None,
                     help="bot kind for every seat, or one per seat separated by commas "
                          "(default: the game's best bot)")
    sim.add_argument("--out", default="replays/sim", help="folder for the logs")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")

    replay = commands.add_parser("replay", help="check, show or view recorded games")
    replay_commands = replay.add_subparsers(dest="replay_command", required=True,
                                            metavar="ACTION")
    verify = replay_commands.add_parser(
        "verify", help="rebuild games, re-checking every move against the rules and checkpoints")
    verify.add_argument("paths", nargs="+", metavar="PATH",
                        help="log files, bug reports or folders of logs")
    verify.add_argument("--json", action="store_true", help="machine-readable output")
    show = replay_commands.add_parser("show", help="print a game's state after an event")
    show.add_argument("path", metavar="PATH")
    show.add_argument("--at", type=int, default=None, metavar="SEQ",
                      help="after this event (default: the last)")
    show.add_argument("--seat", default=None, metavar="N|all",
                      help="see as this seat, or everything (default: a spectator)")
    show.add_argument("--json", action="store_true", help="machine-readable output")
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
    diff = replay_commands.add_parser(
        "diff", help="the first event where two logs of the same table differ, and both states")
    diff.add_argument("first", metavar="A", help="a log file or a bug report")
    diff.add_argument("second", metavar="B", help="another log of the same table")
    diff.add_argument("--json", action="store_true", help="machine-readable output")

    serve = commands.add_parser("serve", help="run the game server")
    from server.serve import add_arguments

    add_arguments(serve)

    play = commands.add_parser("play", help="play at a table against bots (the main job)")
    _game_arguments(play, "stars")
    play.add_argument("--terminal", action="store_true",
                      help="no window: watch one game of bots in the terminal")
    play.add_argument("--slow", action="store_true", help="with --terminal: pause after tricks")
    play.add_argument("--deal", type=int, default=None, metavar="N",
                      help="a patience's deal number (the same as --option deal=N)")
    solve = commands.add_parser("solve", help="a patience's deals: winnable? the hints' win rate")
    from server.solve import add_arguments as add_solve_arguments

    add_solve_arguments(solve)
    join = commands.add_parser("join", help="connect to a server on the LAN")
    join.add_argument("address", nargs="?", default=None, metavar="ADDR")
    watch = commands.add_parser("watch", help="spectate a table live")
    watch.add_argument("address", metavar="ADDR")
    watch.add_argument("table", nargs="?", default=None, metavar="TABLE")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "option"):
            args.options = parse_assignments(args.option)
        if getattr(args, "deal", None) is not None and args.command == "play":
            args.options["deal"] = str(args.deal)
        if args.command == "solve":
            from server.solve import run_solve

            return run_solve(args)
        if args.command == "sim":
            from server.sim import run_sim

            return run_sim(args)
        if args.command == "replay" and args.replay_command in ("verify", "show", "diff"):
            from server import replay_cli

            return replay_cli.run(args)
        if args.command == "serve":
            from server.serve import run

            return run(args)
        if args.command == "play" and args.terminal:
            from server.terminal import run_terminal

            return run_terminal(args)
        import os

        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # one line per error
        from client import app

        return int(getattr(app, args.command if args.command != "replay"
                           else args.replay_command)(args))
    except LogError as error:  # a log that cannot be read or breaks the rules: check failed
        print(f"starhall: {error}", file=sys.stderr)
        return 1
    except (OptionError, UnknownGame, ValueError, OSError) as error:
        print(f"starhall: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
