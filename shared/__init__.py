"""Code used by both the Starhall server and client: cards, the engine contract, the log codec.

The install compiles the engine modules (and the server's per-move modules) with mypyc (see
setup.py) beside their sources, and records each compiled source's SHA-256 in
``BUILD_RECORD``. Python would import a compiled module even after its source was edited, so
when any source differs from what was compiled (by content: an install or a wheel gives every
file a new time), or the record is missing, or ``STARHALL_PURE_PYTHON`` is set, every module
of this package and of ``starhall.server`` is imported from its source instead: a stale build
never runs, and the two builds never mix (a compiled class cannot be subclassed by an
interpreted one, nor compiled code handed an interpreted one's objects).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
)
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent
"""The ``starhall`` package's folder: the compiled sources are named by their paths in it."""
COMPILED_FOLDERS = ("shared", "shared/games/*", "server")
"""Where compiled modules lie, in the ``starhall`` package (glob patterns: each game's folder)."""
COMPILED_PACKAGES = (__name__, __name__.rsplit(".", 1)[0] + ".server")


BUILD_RECORD = "engines_build.json"
"""Written by setup.py in this package's folder: ``{"sources": {path: sha256}}`` with paths
relative to the ``starhall`` package's folder (``shared/cards.py``, ``server/service.py``),
for every source the build compiled."""


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_record(root: Path = _ROOT) -> dict[str, str]:
    """The compiled sources' digests, or an empty map when there is no readable record."""
    try:
        sources = json.loads((root / "shared" / BUILD_RECORD).read_text("utf-8"))["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return sources if isinstance(sources, dict) else {}


def stale_builds(root: Path = _ROOT) -> list[Path]:
    """Sources whose content is not what was compiled (every compiled source, when the build
    left no record of what it compiled)."""
    suffix = EXTENSION_SUFFIXES[0]
    compiled = build_record(root)
    stale = []
    for folder in COMPILED_FOLDERS:
        for built in sorted(root.glob(f"{folder}/*{suffix}")):
            stem = built.name.removesuffix(suffix)
            source = next((path for path in (built.with_name(stem + ".py"),
                                             built.with_name(stem + ".c")) if path.exists()),
                          None)
            if source is None:
                continue
            key = source.relative_to(root).as_posix()
            if compiled.get(key) != source_digest(source):
                stale.append(source)
    return stale


class _SourcesFirst(MetaPathFinder):
    """Finds the modules of this package and of ``starhall.server`` as Python sources,
    passing over compiled ones (a module written in C is not found at all)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith(tuple(f"{package}." for package in COMPILED_PACKAGES)) \
                or not path:
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None:
                return spec
        if any((Path(entry) / f"{fullname.rpartition('.')[2]}.c").exists() for entry in path):
            raise ModuleNotFoundError(f"{fullname} is written in C, and runs only compiled",
                                      name=fullname)
        return None


def build() -> str:
    """Which build of the engines runs: ``compiled`` or ``pure Python``."""
    from starhall.shared import engine

    return "pure Python" if engine.__file__.endswith(".py") else "compiled"


def build_id(root: Path = _ROOT) -> str | None:
    """A short name for the compiled build (a digest of its record), or ``None`` without one."""
    compiled = build_record(root)
    if not compiled:
        return None
    text = json.dumps(compiled, sort_keys=True).encode("utf-8")
    return hashlib.sha256(text).hexdigest()[:12]


def _choose_build() -> None:
    if os.environ.get("STARHALL_PURE_PYTHON"):
        sys.meta_path.insert(0, _SourcesFirst())
        return
    stale = stale_builds()
    if stale:
        names = ", ".join(path.relative_to(_ROOT).as_posix() for path in stale)
        print(f"starhall: {names} changed since the engines were compiled; running them as "
              "pure Python (`make build` recompiles them)", file=sys.stderr)
        sys.meta_path.insert(0, _SourcesFirst())


_choose_build()
