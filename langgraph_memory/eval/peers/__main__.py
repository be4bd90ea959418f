"""``python -m langgraph_memory.eval.peers``: the same as ``bench peers``."""

from .cli import main

raise SystemExit(main())
