"""``python -m langgraph_memory bench <name> [options]``: run one benchmark."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..cli import PlainHelpFormatter
from ..errors import ConfigError

BENCHMARKS: dict[str, tuple[str, str]] = {
    "locomo": ("langgraph_memory.eval.locomo", "LoCoMo evidence recall: bm25 / dense / hybrid"),
    "agent-locomo": (
        "langgraph_memory.eval.agent_locomo",
        "LoCoMo replayed through the agent: evidence that reached the prompt",
    ),
    "recall": (
        "langgraph_memory.eval.recall",
        "evidence recall on LoCoMo dev/held-out + shipped zh and long-history sets",
    ),
    "latency": (
        "langgraph_memory.eval.latency",
        "search p50/p95 and write throughput vs size; --tenants: the scale cases",
    ),
    "turn": (
        "langgraph_memory.eval.turn_bench",
        "whole agent turn p50/p95 (load/generate/save) and MemoryMiddleware overhead",
    ),
    "write": ("langgraph_memory.eval.write_bench", "write gate precision/recall and PII leaks"),
    "context": ("langgraph_memory.eval.context_bench", "prompt tokens per turn with compaction"),
    "peers": ("langgraph_memory.eval.peers", "side by side with LangGraph InMemoryStore and mem0"),
    "forget": ("langgraph_memory.eval.forget_bench", "forget_user: time and bytes rewritten"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to ``langgraph_memory.eval.<name>.main``."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench",
        description="Benchmarks. Each prints a table and writes JSON (--out).",
        epilog="\n".join(f"{k}: {v[1]}" for k, v in BENCHMARKS.items()),
    )
    parser.add_argument("name", choices=sorted(BENCHMARKS))
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)
    module = importlib.import_module(BENCHMARKS[ns.name][0])
    try:
        return int(module.main(ns.args) or 0)
    except (FileNotFoundError, ConfigError) as exc:  # missing data, bad option: say so, exit 2
        print(f"langgraph-memory bench {ns.name}: {exc}", file=sys.stderr)
        return 2


__all__ = ["BENCHMARKS", "main"]
