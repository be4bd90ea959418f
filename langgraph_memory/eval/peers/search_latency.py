"""Section 2 of the peers benchmark: search latency p50/p95 per system and size in one user's
scope and the fill rate, with the :mod:`.footprint` measurements (first query, RSS per
record) of each case; also runs the graph-overhead cases at the sizes asked for."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ...embeddings import Embedder
from ..common import percentile
from ..pool import QUERIES, PooledEmbedder, sentence
from ._common import OURS, OURS_OPT, PEER_KEYS, log
from .footprint import first_query_ms, rss_baseline, rss_bytes_per_record
from .overhead import graph_overhead
from .systems.base import System
from .systems.ours import OursSystem
from .systems.registry import open_peer


def _queries(n: int) -> list[str]:
    return [QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}") for i in range(n)]


def _fill_to(
    system: System, user: str, have: int, target: int, pool: Sequence[str], progress: bool
) -> float:
    """Grow ``user``'s scope from ``have`` to ``target`` items; returns items/second."""
    rng = random.Random(target)
    batch = 1000 if getattr(system, "has_batch", True) else 100
    bar = tqdm(
        total=target - have, desc=f"fill {system.name} {target}", disable=not progress, unit="rec"
    )
    t0 = time.perf_counter()
    for start in range(have, target, batch):
        items = [
            (str(uuid.uuid4()), f"{rng.choice(pool)} #{i}", None)
            for i in range(start, min(target, start + batch))
        ]
        system.add_batch(user, items)
        bar.update(len(items))
    bar.close()
    return (target - have) / max(1e-9, time.perf_counter() - t0)


def _search_latency(system: System, user: str, queries: Sequence[str], k: int) -> list[float]:
    system.search(user, queries[0] + " warm-up", k)
    out = []
    for q in queries:
        t0 = time.perf_counter()
        system.search(user, q, k)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def run_latency(
    real: Embedder,
    sizes: Sequence[int],
    peers: Sequence[str],
    caps: dict[str, int],
    n_queries: int,
    peer_queries_large: int,
    overhead_sizes: Sequence[int],
    overhead_turns: int,
    root: Path,
    progress: bool,
    unavailable: dict[str, str],
    optimize_min: int | None = 10_000,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Search latency per system and size (one user's scope), and the graph overhead cases."""
    rng = random.Random(1)
    pool = sorted({sentence(rng) for _ in range(6000)})
    pooled = PooledEmbedder(real, pool)
    queries = _queries(n_queries)
    user = "bench-user"
    systems: dict[str, list[dict[str, Any]]] = {}
    overhead: list[dict[str, Any]] = []
    order: list[tuple[str, str]] = [("ours", OURS)] + [(k, PEER_KEYS[k]) for k in peers]
    rss_start_of: dict[str, int] = {}
    for key, name in order:
        cases: list[dict[str, Any]] = []
        systems[name] = cases
        rss_start_of[key] = rss_baseline()
        if key in unavailable:
            cases.extend({"memories": n, "skipped": unavailable[key]} for n in sizes)
            continue
        system: System | None
        if key == "ours":
            system = OursSystem(root, pooled)
        else:
            system, why = open_peer(key, pooled, root)
            if system is None:
                unavailable[key] = why or "failed to start"
                cases.extend({"memories": n, "skipped": unavailable[key]} for n in sizes)
                continue
        have = 0
        rss_start = rss_start_of[key]
        try:
            for n in sorted(sizes):
                cap = caps.get(key)
                if cap is not None and n > cap:
                    cases.append(
                        {
                            "memories": n,
                            "skipped": f"capped at {cap} memories (--{key}-max-size): filling "
                            f"{n} through its write API at the rate measured here "
                            f"({cases[-1].get('fill_records_per_s', float('nan')):.0f}/s) would "
                            "take too long for this run"
                            if cases and "fill_records_per_s" in cases[-1]
                            else f"capped at {cap} memories (--{key}-max-size)",
                        }
                    )
                    continue
                rate = _fill_to(system, user, have, n, pool, progress)
                have = n
                nq = (
                    n_queries if key == "ours" or n < 50_000 else min(n_queries, peer_queries_large)
                )
                first_ms = first_query_ms(system, user)
                lat = _search_latency(system, user, queries[:nq], 5)
                cases.append(
                    {
                        "memories": n,
                        "queries": len(lat),
                        "p50_ms": percentile(lat, 50),
                        "p95_ms": percentile(lat, 95),
                        "first_query_ms": first_ms,
                        "rss_bytes_per_record": rss_bytes_per_record(rss_start, n),
                        "fill_records_per_s": rate,
                    }
                )
                if key == "ours" and n in overhead_sizes and isinstance(system, OursSystem):
                    case = graph_overhead(system.store, user, overhead_turns, progress)
                    case["memories_in_scope"] = n
                    case["optimized"] = False
                    overhead.append(case)
            if (
                key == "ours"
                and optimize_min is not None
                and have >= optimize_min
                and isinstance(system, OursSystem)
            ):
                # what a user of a large store does after a bulk import: build the HNSW index
                t0 = time.perf_counter()
                system.store.optimize()
                optimize_s = time.perf_counter() - t0
                lat = _search_latency(system, user, queries, 5)
                systems[OURS_OPT] = [
                    {
                        "memories": have,
                        "queries": len(lat),
                        "p50_ms": percentile(lat, 50),
                        "p95_ms": percentile(lat, 95),
                        "optimize_seconds": optimize_s,
                    }
                ]
                if have in overhead_sizes:
                    case = graph_overhead(system.store, user, overhead_turns, progress)
                    case["memories_in_scope"] = have
                    case["optimized"] = True
                    overhead.append(case)
        except Exception as exc:
            log.warning("system %s failed during the latency run", name, exc_info=True)
            cases.append({"memories": None, "skipped": f"failed: {type(exc).__name__}: {exc}"})
        finally:
            system.close()
    ours = {c["memories"]: c for c in systems[OURS] if "p95_ms" in c}
    ratios: dict[str, dict[str, float]] = {}
    for name, cases in systems.items():
        if name in {OURS, OURS_OPT}:
            continue
        ratios[name] = {
            str(c["memories"]): c["p95_ms"] / ours[c["memories"]]["p95_ms"]
            for c in cases
            if "p95_ms" in c and c["memories"] in ours
        }
    return (
        {
            "k": 5,
            "scope": "all memories belong to one user (the queried scope)",
            "query_embedding": "included (real model call per query)",
            "fill": "pooled real vectors (PooledEmbedder); see write throughput for real embedding",
            "systems": systems,
            "p95_ratio_vs_ours": ratios,
        },
        overhead,
    )
