"""``python -m pi_cli`` runs the same entry point as the ``pi`` script."""

from pi_cli.cli import main

raise SystemExit(main())
