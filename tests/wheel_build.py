"""The wheel ``pip wheel .`` builds from a clean copy of the sources, the engines compiled from
scratch: tests/test_packaging.py builds it, or waits for the one ``make test`` started in the
background before anything else, beside lint and the type checks. When the engines in the
checkout are not compiled (a fresh clone, an edited engine), ``make test`` lays the wheel's
compiled modules in place instead of compiling the same sources a second time: one compile,
not two side by side on the same cores.

    python -m tests.wheel_build FOLDER   # FOLDER/dist/starhall-*.whl; FOLDER/done says how it ended
    python -m tests.wheel_build --lay-in-place FOLDER   # its compiled modules into the checkout
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "setup.py", "README.md")
FOLDERS = ("_starhall", "shared", "server", "client", "docs", "tools", "tests")
"""What the wheel is built from: the package's folders, and the developer tools and tests it
must leave out."""
STARTED = "STARHALL_TEST_WHEEL_BUILD"
"""The folder of the build ``make test`` started (its ``pid`` file written beside)."""
DONE = "done"
"""Written last, at once: ``{"wheel": path}`` or ``{"error": what went wrong}``."""


def build_wheel(folder: Path) -> Path:
    source = folder / "src"
    source.mkdir()
    for name in SOURCES:
        shutil.copy(ROOT / name, source / name)
    for name in FOLDERS:
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns(
            "__pycache__", "*.so", "engines_build.json"))
    env = {key: value for key, value in os.environ.items() if key != "STARHALL_PURE_PYTHON"}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-q", "-w", str(folder / "dist"),
                            str(source)], env=env, capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise RuntimeError(f"pip wheel failed ({built.returncode}):\n{built.stdout}{built.stderr}")
    return next((folder / "dist").glob("starhall-*.whl"))


def wait_for_wheel(folder: Path) -> Path:
    """The wheel of the build started in ``folder``, once it has ended: its ``done`` file is
    its end, or its process gone without one (killed)."""
    done = folder / DONE
    pid = int((folder / "pid").read_text())
    while not done.exists():
        if not _running(pid) and not done.exists():
            raise RuntimeError(f"the wheel's build in {folder} ended without a word; see "
                               f"{folder / 'log'}")
        time.sleep(0.2)  # polls for the end of a compile of a minute or more
    outcome = json.loads(done.read_text())
    if "error" in outcome:
        raise RuntimeError(outcome["error"])
    return Path(outcome["wheel"])


COMPILED_MEMBER = re.compile(r"starhall/((?:shared|server)/(?:.*\.so|engines_build\.json))")
"""A compiled module in the wheel (and the record of the sources it was compiled from, which
shared/__init__.py checks before it loads any), by its path in the checkout: the package's
``shared`` and ``server`` are installed from the folders of the same names."""


def lay_in_place(folder: Path) -> int:
    """Copies the compiled modules of the wheel built in ``folder`` into the checkout, each
    replacing its file at once (a process that has the old one loaded keeps it); how many."""
    laid = 0
    with zipfile.ZipFile(wait_for_wheel(folder)) as wheel:
        for name in wheel.namelist():
            match = COMPILED_MEMBER.fullmatch(name)
            if match:
                target = ROOT / match.group(1)
                partial = target.with_name(f".{target.name}.partial")
                partial.write_bytes(wheel.read(name))
                partial.replace(target)
                laid += 1
    return laid


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if Path(f"/proc/{pid}/stat").exists():  # a finished child not yet reaped is a zombie
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def main(argv: list[str]) -> int:
    if argv[:1] == ["--lay-in-place"]:
        return _lay_in_place_main(Path(argv[1]))
    folder = Path(argv[0])
    try:
        outcome = {"wheel": str(build_wheel(folder))}
    except Exception as error:  # noqa: BLE001 - whatever it is, the waiting test reports it
        outcome = {"error": str(error)}
    partial = folder / f"{DONE}.tmp"
    partial.write_text(json.dumps(outcome))
    partial.replace(folder / DONE)
    return 0 if "wheel" in outcome else 1


def _lay_in_place_main(folder: Path) -> int:
    print("starhall: waiting for the wheel's compile, to run the tests on its compiled engines",
          flush=True)
    try:
        laid = lay_in_place(folder)
    except (OSError, RuntimeError, zipfile.BadZipFile) as error:
        print(f"starhall: the wheel's compiled engines are not there ({error}); compiling here",
              file=sys.stderr)
        return 1
    if not laid:
        print("starhall: the wheel holds no compiled engines; compiling here", file=sys.stderr)
        return 1
    from starhall.shared import stale_builds  # after the laying: its import checks the build

    if stale := stale_builds():
        print(f"starhall: the wheel's engines were compiled from other sources than these "
              f"({len(stale)} differ, {stale[0]} first); compiling here", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
