"""``python -m starhall …`` runs the ``starhall`` command."""

from starhall.cli import main

raise SystemExit(main())
