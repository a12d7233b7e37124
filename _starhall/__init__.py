"""Starhall: play, watch and replay card games of stars on a LAN.

The one top-level package Starhall installs (pyproject.toml maps it to this folder): its
subpackages ``starhall.shared``, ``starhall.server`` and ``starhall.client`` are the
repository's ``shared/``, ``server/`` and ``client/``; ``starhall.cli`` is the ``starhall``
command (``python -m starhall`` too), the one module that knows both server and client."""
