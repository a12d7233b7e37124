"""The Starhall server and the command line.

Some of these modules are compiled with the engines (setup.py): ``starhall.shared`` chooses
the build, compiled or pure Python, for both packages, so it is imported before any of them.
"""

from starhall import shared  # noqa: F401
