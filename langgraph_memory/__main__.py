"""``python -m langgraph_memory ...`` runs the command-line interface."""

from .cli import main

raise SystemExit(main())
