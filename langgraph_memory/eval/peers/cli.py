"""``python -m langgraph_memory bench peers``: the command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ...cli import PlainHelpFormatter
from ..common import make_console
from .report import report
from .runner import run

DESCRIPTION = (
    "Side-by-side benchmark against peer memory systems: "
    "``python -m langgraph_memory bench peers``."
    """

One run, the same data and the same embedding model for every system:

* **langgraph-memory** (this package; embedded Qdrant engine + BM25, hybrid recall);
* **LangGraph ``InMemoryStore``** with ``index={"embed": ..., "dims": ...}`` (what LangMem's
  memory tools store into);
* **mem0 OSS** (``mem0ai``): local Qdrant (``QdrantClient(":memory:")``), embedder provider
  ``"langchain"`` wrapping our embedder, ``infer=False`` (no LLM), ``threshold=0.0``,
  telemetry off. If it cannot be imported or started, the result says exactly why.

Sections:

1. **LoCoMo evidence recall** (``recall_any@5/@10``, ``recall_all@5/@10``, per category). Every
   system stores each turn's text (``"<speaker>: <text> [shares a photo of ...]"``). Ours is
   reported twice: with ``context="none"`` (identical indexed text: the fair comparison) and
   with ``context="neighbor"`` (the record's ``context`` field also indexes the previous turn
   of the session and the session date — what ``bench locomo`` uses by default). Ours in
   dense-only mode is listed as a sanity check (same vectors as the peers). Text and query
   vectors are computed once and shared by all systems, so the per-query latency of this
   section excludes embedding for everyone.
2. **Search latency** p50/p95 at 1k/10k/100k memories in one user's scope, query embedding
   included. Bulk fills reuse the real vectors of a pool of sentences
   (:class:`~langgraph_memory.eval.latency.PooledEmbedder`); peers that cannot reach a size
   in reasonable time are capped and the reason is printed.
3. **Write throughput** with real embedding: single writes and, where the system has one, a
   batch API.
4. **Per-turn overhead of our graph**: p50/p95 of the ``load_memory`` and ``save_memory``
   nodes (built with :mod:`langgraph_memory.graph.nodes` factories) inside a compiled LangGraph
   graph with a scripted model (no LLM), at 1k and 100k memories in scope, measured from
   LangGraph's own node callbacks.
5. **Prompt tokens per turn**: LoCoMo conversations replayed through
   :func:`~langgraph_memory.graph.prebuilt.create_memory_agent` (scripted model answering with the
   real other speaker's turns) against full-history prompting, counted with
   :func:`~langgraph_memory.context.tokens.default_token_counter`.

Outputs go to ``--out-dir`` (default ``bench-results/``): ``peers.json`` and PNG plots
(``peers_latency.png``, ``peers_recall.png``, ``peers_tokens.png``). ``--quick`` finishes in
about a minute for CI smoke; the default (full) mode takes tens of minutes on 2 cores.
"""
)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench peers",
        description=DESCRIPTION,
    )
    parser.add_argument("--data", default=None, help="path to locomo10.json")
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument(
        "--peers", default="inmemory,mem0,sqlite", help="comma list: inmemory,mem0,sqlite"
    )
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--turn-limit", type=int, default=None, help="first N turns per conv")
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--peer-queries-large", type=int, default=20, help="peer queries ≥50k")
    parser.add_argument("--mem0-max-size", type=int, default=100_000)
    parser.add_argument("--inmemory-max-size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--overhead-sizes", default="1000,100000")
    parser.add_argument("--overhead-turns", type=int, default=40)
    parser.add_argument("--token-conversations", type=int, default=2)
    parser.add_argument("--token-exchanges", type=int, default=None)
    parser.add_argument("--budget", type=int, default=4096, help="compaction budget (tokens)")
    parser.add_argument("--quick", action="store_true", help="CI smoke: small everything")
    parser.add_argument("--out-dir", default="bench-results")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument(
        "--optimize-min",
        type=int,
        default=10_000,
        help="measure ours after optimize() at the largest size if it has at least this many "
        "memories (0: always; -1: never)",
    )
    parser.add_argument(
        "--from-json", default=None, help="only print the report of an earlier peers.json"
    )
    parser.add_argument("--no-progress", action="store_true")
    ns = parser.parse_args(list(argv) if argv is not None else None)
    if ns.from_json:
        import json

        console = make_console()
        earlier = json.loads(Path(ns.from_json).read_text())
        report(console, earlier)
        return 1 if earlier.get("errors") else 0
    sizes = [int(s) for s in ns.sizes.split(",") if s.strip()]
    overhead_sizes = [int(s) for s in ns.overhead_sizes.split(",") if s.strip()]
    if ns.quick:
        ns.conversations = ns.conversations or 1
        ns.turn_limit = ns.turn_limit or 250
        ns.max_questions = ns.max_questions or 60
        sizes, overhead_sizes = [1000], [1000]
        ns.queries, ns.writes, ns.overhead_turns = 20, 30, 8
        ns.token_conversations, ns.token_exchanges = 1, ns.token_exchanges or 15
        ns.mem0_max_size = min(ns.mem0_max_size, 1000)
    result = run(
        ns.data,
        quick=ns.quick,
        embedder=ns.embedder,
        peers=[p.strip() for p in ns.peers.split(",") if p.strip()],
        conversations=ns.conversations,
        turn_limit=ns.turn_limit,
        max_questions=ns.max_questions,
        sizes=sizes,
        queries=ns.queries,
        peer_queries_large=ns.peer_queries_large,
        caps={"mem0": ns.mem0_max_size, "inmemory": ns.inmemory_max_size},
        writes=ns.writes,
        overhead_sizes=overhead_sizes,
        overhead_turns=ns.overhead_turns,
        token_conversations=ns.token_conversations,
        token_exchanges=ns.token_exchanges,
        budget_tokens=ns.budget,
        out_dir=ns.out_dir,
        plots=not ns.no_plots,
        progress=not ns.no_progress,
        optimize_min=None if ns.optimize_min < 0 else ns.optimize_min,
    )
    console = make_console()
    report(console, result)
    console.print(f"results written to {result.get('json')}; plots: {result.get('plots')}")
    return 1 if result["errors"] else 0
