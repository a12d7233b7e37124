"""Starhall as a user installs it: a wheel with one top-level name, ``starhall``, whose
compiled engines run from a fresh environment with nothing said on standard error."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import tomllib
import venv
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from starhall.client.screens.rules_screen import PAGES_FOLDER, page_text
from tests.wheel_build import STARTED, build_wheel, wait_for_wheel

pytestmark = pytest.mark.slow  # `make check` leaves this file out; `make test` runs it

ROOT = Path(__file__).resolve().parent.parent
DEVELOPER_TOOLS = ("screenshots.py", "make_goldens.py", "connection.py")
"""tools/ and the tests' scripted client: for a checkout only, never installed."""


def test_pyproject_lists_every_package_and_ships_the_pages() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders_of = {folder: package for package, folder in config["package-dir"].items()}
    listed = set(config["packages"])
    for path in (ROOT / top for top in ("shared", "server", "client")):
        for file in path.rglob("*"):
            if (file.is_file() and "__pycache__" not in file.parts
                    and file.suffix in (".py", ".ttf") and "_starhall" not in file.parts):
                folder = file.parent.relative_to(ROOT).as_posix()
                top, _, rest = folder.partition("/")
                package = ".".join(filter(None, (folders_of[top], rest.replace("/", "."))))
                assert package in listed, f"add {package} to pyproject.toml's packages"
    assert config["package-dir"]["starhall.client.rules"] == "docs/games"
    assert {package.split(".")[0] for package in listed} == {"starhall"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``pip wheel .`` builds from a clean copy of the sources, engines compiled from
    scratch (tests/wheel_build.py): the one ``make test`` started first, or one built here."""
    pytest.importorskip("mypyc")
    started = os.environ.get(STARTED)
    if started:
        return wait_for_wheel(Path(started))
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_has_one_top_level_name_and_everything_in_it(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert tops == {"starhall"}
    for page in sorted(PAGES_FOLDER.glob("*.md")):
        assert f"starhall/client/rules/{page.name}" in names
    for expected in ("starhall/__main__.py", "starhall/client/screens/rules_screen.py",
                     "starhall/client/ui/assets/freesansbold.ttf",
                     "starhall/shared/engines_build.json",
                     f"starhall/shared/games/hearts/rules{EXTENSION_SUFFIXES[0]}",
                     f"starhall/server/service{EXTENSION_SUFFIXES[0]}",
                     f"starhall/server/background_sync{EXTENSION_SUFFIXES[0]}",
                     "starhall/server/background_sync.c", "starhall/client/web/static/index.html",
                     "starhall/client/web/static/app.js"):
        assert expected in names
    shipped = {name.rsplit("/", 1)[-1] for name in names}
    assert not shipped & set(DEVELOPER_TOOLS), "a developer tool is in the wheel"
    assert not [name for name in names if name.startswith(("starhall/tools/", "starhall/tests/"))]


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed by pip; the dependencies come from
    this environment's site-packages (a path line, so none of its ``.pth`` hooks run)."""
    folder = tmp_path_factory.mktemp("venv")
    venv.create(folder, with_pip=False)
    python = folder / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path("
                              "'purelib'))"], capture_output=True, text=True, check=True)
    Path(purelib.stdout.strip(), "dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    return folder / "bin"


def run_installed(bin_folder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("STARHALL_PURE_PYTHON", "PYTHONPATH", "PYGAME_HIDE_SUPPORT_PROMPT")}
    return subprocess.run([str(bin_folder / args[0]), *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_installed_command_runs_the_compiled_engines_quietly(installed: Path,
                                                                  tmp_path: Path) -> None:
    version = run_installed(installed, "starhall", "--version", cwd=tmp_path)
    assert (version.returncode, version.stderr) == (0, "")
    assert "compiled engines, build " in version.stdout
    played = run_installed(installed, "starhall", "sim", "hearts", "--games", "2", "--quiet",
                           "--out", str(tmp_path / "logs"), cwd=tmp_path)
    assert (played.returncode, played.stderr) == (0, "")
    checked = run_installed(installed, "python", "-m", "starhall", "replay", "verify",
                            str(tmp_path / "logs"), cwd=tmp_path)
    assert (checked.returncode, checked.stderr) == (0, "")
    assert checked.stdout.strip().endswith("2 log(s) verified")


def test_the_installed_package_has_no_generic_names_and_its_own_pages(installed: Path,
                                                                       tmp_path: Path) -> None:
    for generic in ("shared", "server", "client"):
        found = run_installed(installed, "python", "-c", f"import {generic}", cwd=tmp_path)
        assert found.returncode != 0, f"{generic} is importable"
    script = ("from starhall.client.screens.rules_screen import page_text, pages_folder; "
              "print(pages_folder()); print(len(page_text('hearts') or ''))")
    shown = run_installed(installed, "python", "-c", script, cwd=tmp_path)
    folder, length = shown.stdout.split()
    assert "site-packages" in folder and Path(folder).name == "rules"
    assert int(length) == len(page_text("hearts") or "")
