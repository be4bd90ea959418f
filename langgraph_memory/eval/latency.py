"""Latency benchmark: ``python -m langgraph_memory bench latency``.

Measures, side by side in one run:

* ``search`` p50/p95 (hybrid recall including the query's real embedding) with 1k, 10k and
  100k memories in the queried user's scope, and with 100k memories spread over 100 users;
* the same queries through qdrant-client's local mode (``QdrantClient(path=...)``), the
  pure-Python engine our embedded default replaces, printed as ratios;
* write throughput: ``add_many`` batches and single ``add`` calls with real embedding.

Filling 100k memories with real embeddings would take minutes of model time that says nothing
about the store, so the bulk fill reuses the real vectors of a pool of distinct sentences
(:class:`PooledEmbedder`); every query is embedded for real, and write throughput is measured
separately with real embeddings.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from ..cli import PlainHelpFormatter
from ..core.scope import Scope
from ..embeddings import Embedder, load_embedder
from ..store import MemoryStore
from .common import machine_info, make_console, percentile, print_table, write_json
from .pool import QUERIES, PooledEmbedder, fill, sentence


def _query_latency(store: MemoryStore, user: str, queries: Sequence[str]) -> list[float]:
    scope = Scope(user_id=user)
    store.search(queries[0], scope, k=5)  # builds the keyword index; measured separately
    out = []
    for q in queries:
        t0 = time.perf_counter()
        store.search(q, scope, k=5)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def _open(kind: str, root: Path, name: str, embedder: Embedder) -> MemoryStore:
    if kind == "edge":
        return MemoryStore(path=root / name, embedder=embedder)
    from qdrant_client import QdrantClient

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = QdrantClient(path=str(root / f"{name}-local"))
    return MemoryStore(client=client, embedder=embedder)


def run_case(
    kind: str,
    n: int,
    n_users: int,
    embedder: Embedder,
    pool: Sequence[str],
    queries: Sequence[str],
    root: Path,
    progress: bool,
    seed: int = 7,
) -> dict[str, Any]:
    """Fill one store and time its queries."""
    rng = random.Random(seed)
    users = [f"user-{i:03d}" for i in range(n_users)]
    store = _open(kind, root, f"{kind}-{n}-{n_users}", embedder)
    try:
        fill_rate = fill(store, users, n, pool, rng, progress)
        t0 = time.perf_counter()
        store.search(queries[0], Scope(user_id=users[0]), k=5)
        cold_ms = (time.perf_counter() - t0) * 1e3
        lat = _query_latency(store, users[0], queries)
        optimized: dict[str, Any] = {}
        if kind == "edge" and n >= 5000:
            t0 = time.perf_counter()
            store.optimize()
            optimize_s = time.perf_counter() - t0
            lat_opt = _query_latency(store, users[0], queries)
            optimized = {
                "optimize_seconds": optimize_s,
                "p50_ms": percentile(lat_opt, 50),
                "p95_ms": percentile(lat_opt, 95),
            }
    finally:
        store.close()
    return {
        "backend": "qdrant-edge (embedded default)"
        if kind == "edge"
        else "qdrant-client local mode",
        "kind": kind,
        "memories": n,
        "users": n_users,
        "in_scope": n // n_users,
        "fill_records_per_s": fill_rate,
        "first_query_ms": cold_ms,
        "queries": len(lat),
        "p50_ms": percentile(lat, 50),
        "p95_ms": percentile(lat, 95),
        "after_optimize": optimized,
    }


def write_throughput(embedder: Embedder, root: Path, n: int, rng: random.Random) -> dict[str, Any]:
    """Real-embedding write speed: one ``add_many`` of ``n`` texts and ``n // 10`` single adds."""
    texts = [f"{sentence(rng)} ({i})" for i in range(n)]
    with MemoryStore(path=root / "writes", embedder=embedder) as store:
        scope = Scope(user_id="writer")
        t0 = time.perf_counter()
        for start in range(0, n, 256):
            store.add_many(texts[start : start + 256], scope=scope)
        batch_rate = n / (time.perf_counter() - t0)
        single = []
        for text in texts[: max(10, n // 10)]:
            t0 = time.perf_counter()
            store.add(text + " again", scope=scope)
            single.append((time.perf_counter() - t0) * 1e3)
    return {
        "batch_records_per_s": batch_rate,
        "single_add_p50_ms": percentile(single, 50),
        "single_add_p95_ms": percentile(single, 95),
    }


def run(
    *,
    sizes: Sequence[int] = (1000, 10_000, 100_000),
    spread: tuple[int, int] | None = (100_000, 100),
    local_max: int = 10_000,
    n_queries: int = 200,
    local_queries: int = 20,
    embedder: str = "use-multilingual",
    writes: int = 2000,
    progress: bool = True,
) -> dict[str, Any]:
    """Run every case; returns the result document."""
    rng = random.Random(1)
    real = load_embedder(embedder)
    pool = sorted({sentence(rng) for _ in range(6000)})
    pooled = PooledEmbedder(real, pool)
    queries = [
        QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}") for i in range(n_queries)
    ]
    cases: list[dict[str, Any]] = []
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="lgm-latency-") as tmp:
        root = Path(tmp)
        plan: list[tuple[int, int]] = [(n, 1) for n in sizes]
        if spread:
            plan.append(spread)
        for n, n_users in plan:
            edge = run_case("edge", n, n_users, pooled, pool, queries, root, progress)
            cases.append(edge)
            if n <= local_max:
                local = run_case(
                    "local", n, n_users, pooled, pool, queries[:local_queries], root, progress
                )
                local["p95_ratio_vs_edge"] = local["p95_ms"] / edge["p95_ms"]
                local["p50_ratio_vs_edge"] = local["p50_ms"] / edge["p50_ms"]
                cases.append(local)
            else:
                skipped.append(
                    f"qdrant-client local mode not run at {n} memories ({n_users} users): above "
                    f"--local-max {local_max}; it scans in Python (about 2.5 s per "
                    "filtered query at 100k on this machine), so the fill and queries alone "
                    "would take tens of minutes"
                )
        throughput = write_throughput(real, root, writes, rng)
    return {
        "benchmark": "latency",
        "embedder": real.name,
        "cases": cases,
        "writes": throughput,
        "not_run": skipped,
        "target": "p95 <= 50 ms at 100k memories in scope (2 cores)",
        "machine": machine_info(),
    }


def report(console: Console, result: dict[str, Any]) -> None:
    """Print the latency table and the write throughput."""
    rows = []
    for c in result["cases"]:
        opt = c["after_optimize"]
        rows.append(
            [
                c["backend"],
                c["memories"],
                c["users"],
                c["in_scope"],
                c["p50_ms"],
                c["p95_ms"],
                opt.get("p95_ms", float("nan")),
                c["first_query_ms"],
                c["fill_records_per_s"],
                c.get("p95_ratio_vs_edge", float("nan")),
            ]
        )
    print_table(
        console,
        f"search latency (hybrid, k=5, query embedding included) — embedder {result['embedder']}",
        [
            "backend",
            "memories",
            "users",
            "in scope",
            "p50 ms",
            "p95 ms",
            "p95 optimized",
            "first query ms",
            "fill rec/s",
            "p95 × edge",
        ],
        rows,
    )
    for line in result.get("not_run", []):
        console.print(f"[yellow]not run:[/yellow] {line}")
    w = result["writes"]
    print_table(
        console,
        "writes with real embedding",
        ["add_many rec/s", "single add p50 ms", "single add p95 ms"],
        [[w["batch_records_per_s"], w["single_add_p50_ms"], w["single_add_p95_ms"]]],
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench latency",
        description=__doc__,
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--spread", default="100000x100", help="N x users, or 'none'")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--local-queries", type=int, default=20)
    parser.add_argument(
        "--local-max", type=int, default=10_000, help="largest size run on local mode"
    )
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--quick", action="store_true", help="1k and 2k/10-user cases only")
    parser.add_argument("--out", default=None, help="default bench-results/latency.json")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--tenants",
        nargs="?",
        const="1000000x1000",
        default=None,
        help="run the scale cases instead (see langgraph_memory.eval.scale): N x users "
        "(default 1000000x1000), the one-scope case without optimize() and session ingest",
    )
    parser.add_argument("--one-scope", type=int, default=100_000, help="with --tenants")
    parser.add_argument("--ingest", type=int, default=200, help="with --tenants: sessions")
    ns = parser.parse_args(argv)
    if ns.tenants is not None:
        return _scale_main(ns)
    ns.out = ns.out or "bench-results/latency.json"
    sizes = [int(s) for s in ns.sizes.split(",") if s]
    spread: tuple[int, int] | None = None
    if ns.spread != "none":
        total, users = (int(x) for x in ns.spread.split("x"))
        spread = (total, users)
    if ns.quick:
        sizes, spread, ns.queries, ns.local_queries, ns.writes = [1000], (2000, 10), 50, 10, 200
    result = run(
        sizes=sizes,
        spread=spread,
        local_max=ns.local_max,
        n_queries=ns.queries,  # type: ignore[arg-type]
        local_queries=ns.local_queries,
        embedder=ns.embedder,
        writes=ns.writes,
        progress=not ns.no_progress,
    )
    console = make_console()
    report(console, result)
    written = write_json(ns.out, result)
    if written:
        console.print(f"results written to {written}")
    return 0


def _scale_main(ns: argparse.Namespace) -> int:
    from .scale import rows, run_scale

    total, users = (int(x) for x in ns.tenants.split("x"))
    one_scope, queries, ingest = ns.one_scope, ns.queries, ns.ingest
    if ns.quick:
        total, users, one_scope, queries, ingest = 5000, 50, 10_000, 50, 32
    with tempfile.TemporaryDirectory(prefix="lgm-scale-") as tmp:
        scale = run_scale(
            tenants=(total, users),
            one_scope=one_scope,
            n_queries=queries,
            ingest=ingest,
            root=Path(tmp),
            progress=not ns.no_progress,
            embedder=ns.embedder,
        )
    result = {
        "benchmark": "latency-scale",
        "scale": scale,
        "targets": {
            "tenants": "warm p50/p95 <= 10/15 ms, cold user <= 15/30 ms, RSS <= 1.5 GB at 1M, "
            "reopen <= 2 s",
            "one_scope": "p95 <= 20 ms at 100k with no optimize(), no pause > 50 ms",
            "ingest": ">= 200 records/s",
        },
        "machine": machine_info(),
    }
    console = make_console()
    for title, (columns, table) in rows(scale).items():
        print_table(console, title, columns, table)
    written = write_json(ns.out or "bench-results/latency_scale.json", result)
    if written:
        console.print(f"results written to {written}")
    return 0


__all__ = ["PooledEmbedder", "main", "run"]
