"""Builds the engine modules of ``shared/``, the bots with their search, and the server's
per-move path, to C with mypyc, when it can.

The engines are typed Python and stay the one source: mypyc compiles the same files, about
twice as fast, the way black and mypy ship. Without a C compiler (or with
``STARHALL_PURE_PYTHON=1``) the install goes on with the plain Python modules, which behave
identically; ``shared/__init__.py`` also falls back to them when a source differs from what
was compiled, so an edit is never shadowed by a stale build. One module is C from the start
(``NATIVE``: the thread that syncs a move's log while the server goes on), with a Python
stand-in in ``server/durability.py``.

mypy and mypyc name a module after its path, but ``shared/cards.py`` is installed as
``starhall.shared.cards`` (pyproject.toml's package-dir): so both read the sources through
``build/package-tree/starhall/``, a tree of links laid out as the installed package is.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The modules on the hot paths of play, simulation, replay and the strong bots' playouts, and
# the server's modules every move goes through (durability.py is left out: its errors derive
# from OSError, which mypyc cannot compile, and its work is a system call).
COMPILED = [
    "shared/cards.py",
    "shared/choices.py",
    "shared/commands.py",
    "shared/engine.py",
    "shared/logfile.py",
    "shared/observation.py",
    "shared/options.py",
    "shared/replay.py",
    "shared/sequences.py",
    "shared/shuffle.py",
    "shared/snapshots.py",
    "shared/table.py",
    "shared/tricks.py",
    "shared/search_flat.py",
    "shared/search.py",
    "shared/belief.py",
    "shared/games/hearts/rules.py",
    "shared/games/hearts/bots.py",
    "shared/games/hearts/strong.py",
    "shared/games/stars/rules.py",
    "shared/games/stars/bots.py",
    "shared/games/stars/strong.py",
    "shared/games/star_patience/rules.py",
    "shared/games/star_patience/bots.py",
    "shared/games/what_else/rules.py",
    "shared/games/what_else/bots.py",
    "shared/games/what_else/strong.py",
    "shared/games/stars_and_bars/rules.py",
    "shared/games/stars_and_bars/bots.py",
    "shared/games/stars_and_bars/strong.py",
    "server/fields.py",
    "server/rendering.py",
    "server/seats.py",
    "server/sessions.py",
    "server/tables.py",
    "server/bot_turns.py",
    "server/master.py",
    "server/service.py",
]

NATIVE = {"starhall.server.background_sync": "server/background_sync.c"}
"""Modules written in C (each beside the stub mypy reads), built with the compiled ones."""


PACKAGE_TREE = Path("build", "package-tree")
"""Links laid out as the installed ``starhall`` package (mypy's config reads it too)."""
PACKAGE_LINKS = {"__init__.py": "_starhall/__init__.py", "__main__.py": "_starhall/__main__.py",
                 "cli.py": "_starhall/cli.py", "shared": "shared", "server": "server",
                 "client": "client"}


def make_package_tree() -> Path:
    """``build/package-tree/starhall``: each entry a link to the folder or file it is
    installed from, made again on every run so that it always matches pyproject.toml."""
    package = PACKAGE_TREE / "starhall"
    package.mkdir(parents=True, exist_ok=True)
    for name, source in PACKAGE_LINKS.items():
        link = package / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(os.path.relpath(source, package))
    return package


# The compiled code of all those modules lives in one library, ``shared/engines__mypyc…``:
# inside the package, so it is found wherever the package is (mypyc's default name is a
# top-level module, which an editable install's console script cannot import).
GROUP = "starhall.shared.engines"
BUILD_RECORD = "engines_build.json"  # shared.BUILD_RECORD: setup.py cannot import the package


class OptionalBuildExt(build_ext):
    """A failed compile is a warning, not a failed install: the Python modules still work.
    The C files of one library are compiled side by side, one per core (setuptools compiles
    an extension's sources one after the other)."""

    def build_extension(self, ext: Any) -> None:
        compile_each = self.compiler.compile

        def compile_side_by_side(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                objects = pool.map(lambda source: compile_each([source], *args, **kwargs),
                                   sources)
                return [name for names in objects for name in names]

        self.compiler.compile = compile_side_by_side
        try:
            super().build_extension(ext)
        finally:
            self.compiler.compile = compile_each

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 — any compiler failure means "stay pure"
            _warn(f"could not compile the engines ({error}); using pure Python")
            for path in self._built_paths():  # never leave half a build, or an older one
                os.remove(path)
            return
        self._record_sources()

    def _record_sources(self) -> None:
        """Write what was compiled (each source's SHA-256, by its path in the package) in the
        package's ``shared/``, where shared/__init__.py compares it with the sources it
        finds: by content, because a copy into site-packages or a wheel gives every file a new
        time."""
        built = self._built_paths()
        if not built:
            return
        package = Path(self.get_ext_fullpath(f"{GROUP}__mypyc")).parent
        record = {"sources": {
            Path(source).as_posix():
                hashlib.sha256(Path(source).read_bytes()).hexdigest()
            for source in [*COMPILED, *NATIVE.values()]}}
        (package / BUILD_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n",
                                            encoding="utf-8")

    def _built_paths(self) -> list[str]:
        paths = (self.get_ext_fullpath(extension.name) for extension in self.extensions)
        return [path for path in paths if os.path.exists(path)]


def _warn(message: str) -> None:
    print(f"starhall: {message}", file=sys.stderr)


def _extensions() -> list[object]:
    make_package_tree()  # for mypy too, when nothing is compiled
    if os.environ.get("STARHALL_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not available; using pure Python")
        return []
    try:
        package = make_package_tree()
        sources = [str(package / source) for source in COMPILED]
        native = [Extension(name, [source]) for name, source in NATIVE.items()]
        # multi_file: a C file per module, not one whose single gcc runs for minutes.
        extensions = mypycify(sources, opt_level="3", group_name=GROUP, multi_file=True)
        for extension in extensions:
            # mypyc writes each module's C file in build/ and the library's headers, which
            # they include, in build/starhall/shared/: the compiler must look there too.
            extension.include_dirs.append(str(Path("build", *GROUP.split(".")[:-1])))
            if sys.platform != "win32":  # no debug information (Python's own flags ask for
                extension.extra_compile_args.append("-g0")  # it): a quarter of the compile
        return [*extensions, *native]
    except BaseException as error:  # noqa: BLE001 — mypyc exits on a type error
        _warn(f"mypyc could not translate the engines ({error!r}); using pure Python")
        return []


def _metadata_only() -> bool:
    """Whether setuptools runs this for the package's metadata alone (pip asks for it before
    it builds a wheel, in a run of its own): mypyc's type check and C would be made for
    nothing, and made again by the build."""
    commands = set(sys.argv[1:])
    return bool(commands & {"dist_info", "egg_info"}) and not commands & {
        "bdist_wheel", "build_ext", "build", "install", "develop", "editable_wheel"}


setup(ext_modules=[] if _metadata_only() else _extensions(),
      cmdclass={"build_ext": OptionalBuildExt})
