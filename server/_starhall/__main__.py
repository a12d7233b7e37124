"""``python -m starhall …`` runs the ``starhall`` command."""

from server.cli import main

raise SystemExit(main())
