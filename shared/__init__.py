"""Code used by both the Starhall server and client: cards, the engine contract, the log codec.

The install compiles the engine modules with mypyc (see setup.py) beside their sources. Python
would import a compiled module even after its source was edited, so when any source here is
newer than its compiled module, or ``STARHALL_PURE_PYTHON`` is set, every module of this
package is imported from its source instead: a stale build never runs, and the two builds never
mix (a compiled class cannot be subclassed by an interpreted one).
"""

from __future__ import annotations

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


def stale_builds(package: Path = _HERE) -> list[Path]:
    """Sources edited since they were compiled."""
    suffix = EXTENSION_SUFFIXES[0]
    stale = []
    for folder in (package, package / "games"):
        for built in sorted(folder.glob(f"*{suffix}")):
            source = built.with_name(built.name.removesuffix(suffix) + ".py")
            if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
                stale.append(source)
    return stale


class _SourcesFirst(MetaPathFinder):
    """Finds this package's modules as Python sources, passing over compiled ones."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith(f"{__name__}.") or not path:
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None:
                return spec
        return None


def build() -> str:
    """Which build of the engines runs: ``compiled`` or ``pure Python``."""
    from shared import engine

    return "pure Python" if engine.__file__.endswith(".py") else "compiled"


def _choose_build() -> None:
    if os.environ.get("STARHALL_PURE_PYTHON"):
        sys.meta_path.insert(0, _SourcesFirst())
        return
    stale = stale_builds()
    if stale:
        names = ", ".join(str(path.relative_to(_HERE.parent)) for path in stale)
        print(f"starhall: {names} changed since the engines were compiled; running them as "
              "pure Python (`make build` recompiles them)", file=sys.stderr)
        sys.meta_path.insert(0, _SourcesFirst())


_choose_build()
