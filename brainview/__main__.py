"""``python -m brainview`` runs the CLI."""

from brainview.cli import main

raise SystemExit(main())
