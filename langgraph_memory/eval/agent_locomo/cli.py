"""``python -m langgraph_memory bench agent-locomo``: the command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ...cli import PlainHelpFormatter
from ..common import make_console, write_json
from ..locomo import DEFAULT_DATA
from .replay import DEFAULT_K
from .report import report
from .runner import run

DESCRIPTION = (
    "End-to-end LoCoMo benchmark through the agent: "
    "``python -m langgraph_memory bench agent-locomo``."
)
"""The first line of the package docstring: the command's ``--help`` description."""


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench agent-locomo",
        description=DESCRIPTION,
    )
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="path to locomo10.json")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help="recall_k of question turns")
    parser.add_argument(
        "--conversations",
        default=None,
        help="a count (the first N conversations) or comma-separated ids (conv-26,conv-30)",
    )
    parser.add_argument("--max-sessions", type=int, default=None, help="first N sessions each")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="CI: 1 conversation, its first 2 sessions, questions with evidence in them",
    )
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--out", default="bench-results/agent_locomo.json")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--per-question",
        default=None,
        help="also write one JSON line per question (scores, evidence, memory part of the "
        "prompt) to this path, to diff two runs question by question",
    )
    ns = parser.parse_args(argv)
    if ns.quick:
        ns.conversations = ns.conversations or "1"
        ns.max_sessions = ns.max_sessions or 2
    result = run(
        ns.data,
        k=ns.k,
        conversations=ns.conversations,
        max_sessions=ns.max_sessions,
        embedder=ns.embedder,
        progress=not ns.no_progress,
        quick=ns.quick,
        per_question=ns.per_question,
    )
    console = make_console()
    report(console, result)
    written = write_json(ns.out, result)
    if written:
        console.print(f"results written to {written}")
    return 0
