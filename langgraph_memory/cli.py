"""Command-line interface: ``langgraph-memory demo | inspect | forget | audit | bench ...``
(``--version`` prints the package version).

Each sub-command lives in its own module and is imported only when used, so ``--help`` and
light commands do not pay for loading models.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

VERSION_TEXT = "langgraph-memory {version}"

_COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("langgraph_memory.demo", "offline scripted conversation across threads and users"),
    "inspect": ("langgraph_memory.admin:inspect_main", "what is stored for --user, with status"),
    "forget": ("langgraph_memory.admin:forget_main", "delete everything of --user, print receipt"),
    "audit": (
        "langgraph_memory.admin:audit_main",
        "transitions, evictions and deletions of --user",
    ),
    "train-classifier": (
        "langgraph_memory.eval.train_classifier",
        "train the write path's clause classifier on the dev sets (developers)",
    ),
    "bench": (
        "langgraph_memory.eval.cli",
        "benchmarks: locomo, agent-locomo, latency, ... (prints a table, writes JSON)",
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a sub-command's ``main(argv)`` and return its exit code."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="langgraph-memory", description="Long-term memory for LangGraph agents."
    )
    parser.add_argument(
        "--version", action="version", version=VERSION_TEXT.format(version=__version__)
    )
    parser.add_argument("command", choices=sorted(_COMMANDS), help="what to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the command")
    ns = parser.parse_args(argv)
    target = _COMMANDS[ns.command][0]
    module_name, _, func = target.partition(":")
    module = importlib.import_module(module_name)
    return int(getattr(module, func or "main")(ns.args) or 0)


__all__ = ["main"]
