"""``python -m starhall …`` runs the ``starhall`` command."""

from starhall.server.cli import main

raise SystemExit(main())
