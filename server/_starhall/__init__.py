"""The ``starhall`` name for ``python -m starhall`` (the same as the ``starhall`` command).

Installed as the top-level package ``starhall`` (pyproject.toml maps it to this folder), so
``python -m starhall`` works wherever Starhall is installed."""
