"""Scale cases of ``python -m langgraph_memory bench latency --tenants`` (issue 16).

* **tenants**: ``N`` records over ``U`` users (default 1,000,000 over 1,000; ``--quick``: 5,000
  over 50). Fill rate and the longest pause of a 10 ms ticker thread while filling; disk size;
  then, in a *fresh process* (so memory is the store's, not the fill's): reopen time, the
  first search of each of 50 users (cold: nothing of that user loaded yet) and warm searches
  p50/p95, RSS after reopen + 50 users searched (absolute, and above the process with the
  embedder loaded, per record) and the probe's peak RSS.
* **one scope**: ``M`` records in one user's scope (default 100,000; ``--quick``: 10,000),
  filled with **no** ``optimize()`` call: the longest ticker pause while filling, the
  automatic indexing steps (count, longest), segments and indexed vectors, then p50/p95.
* **ingest**: whole chat sessions of the shipped long-history set (one record per session,
  real embeddings) through ``add_many``: records/s with ``max(2, EMBED_THREADS)`` embedding
  threads and with one thread, same run.

Bulk fills reuse real vectors of a sentence pool (:class:`~.pool.PooledEmbedder`); every
query is embedded for real.

JSON keys (``tenants``): ``memories, users, fill_records_per_s, fill_longest_pause_ms,
disk_bytes, disk_bytes_per_record, reopen_s, cold_user_p50_ms, cold_user_p95_ms,
warm_p50_ms, warm_p95_ms, rss_after_mb, rss_store_bytes_per_record, peak_rss_mb``;
(``one_scope``): ``memories, fill_records_per_s, fill_longest_pause_ms, index_steps,
longest_index_step_ms, unindexed_after_fill, background_index_wait_s, segments,
indexed_vectors, p50_ms, p95_ms, optimize_called, searches_while_indexing,
search_while_indexing_p50_ms, search_while_indexing_max_ms`` (a search every 1.25 s while
filling and indexing: the max is how long a search waits behind an indexing step);
(``ingest``): ``sessions, mean_chars, records_per_s, records_per_s_one_thread,
embed_threads``.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from ..core.scope import Scope
from ..embeddings import Embedder, load_embedder
from ..store import MemoryStore
from ..store.backend import disk_bytes
from .common import percentile
from .pool import QUERIES, PooledEmbedder, fill, sentence

TICK_SECONDS = 0.01
SEARCH_EVERY_SECONDS = 1.25
"""Period of :class:`Searcher`: longer than the indexer's idle wait
(:data:`~langgraph_memory.store.edge.INDEX_IDLE_SECONDS`), which a store searched more often
never reaches (its backlog is then indexed by writes, bounded to two segments)."""
DATA = Path(__file__).parent / "data" / "longmem_en.json"


def rss_bytes() -> int:
    """Resident set size of this process now."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize()


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class _BackgroundLoop:
    """A daemon thread running ``_run`` while a ``with x.running():`` block runs; ``_run``
    returns once ``_stop`` is set."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        raise NotImplementedError

    @contextmanager
    def running(self) -> Iterator[Self]:
        """Run the loop while the block runs."""
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()


class Ticker(_BackgroundLoop):
    """A thread that wakes every 10 ms; :attr:`longest_pause_ms` is the longest extra delay
    it saw (how long the process stopped running Python threads)."""

    def __init__(self) -> None:
        self.longest_pause_ms = 0.0
        self.pauses_over_50ms = 0
        super().__init__()

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(TICK_SECONDS)
            now = time.perf_counter()
            pause = (now - last - TICK_SECONDS) * 1e3
            self.longest_pause_ms = max(self.longest_pause_ms, pause)
            self.pauses_over_50ms += pause > 50
            last = now


class Searcher(_BackgroundLoop):
    """A thread that searches ``store`` every :data:`SEARCH_EVERY_SECONDS` while a block runs
    (``fill`` and automatic indexing included); :attr:`longest_ms` is the slowest search it
    saw, i.e. how long a search issued while indexing runs can wait."""

    def __init__(self, store: MemoryStore, scope: Scope, queries: Sequence[str]) -> None:
        self.latencies_ms: list[float] = []
        self._store, self._scope, self._queries = store, scope, queries
        super().__init__()

    @property
    def longest_ms(self) -> float:
        """The slowest search so far (0 before the first)."""
        return max(self.latencies_ms, default=0.0)

    def _run(self) -> None:
        i = 0
        while True:  # one search at once, then one per period
            t0 = time.perf_counter()
            self._store.search(self._queries[i % len(self._queries)], self._scope, k=5)
            self.latencies_ms.append((time.perf_counter() - t0) * 1e3)
            i += 1
            if self._stop.wait(SEARCH_EVERY_SECONDS):
                return


def _pool(real: Embedder) -> tuple[list[str], PooledEmbedder]:
    rng = random.Random(1)
    pool = sorted({sentence(rng) for _ in range(6000)})
    return pool, PooledEmbedder(real, pool)


def _queries(n: int) -> list[str]:
    return [QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}") for i in range(n)]


def tenants_case(
    real: Embedder, root: Path, n: int, n_users: int, n_queries: int, progress: bool
) -> dict[str, Any]:
    """Fill ``n`` records over ``n_users`` users, then probe a reopen in a fresh process."""
    pool, pooled = _pool(real)
    users = [f"user-{i:04d}" for i in range(n_users)]
    path = root / f"tenants-{n}-{n_users}"
    store = MemoryStore(path=path, embedder=pooled)
    with Ticker().running() as ticker:
        rate = fill(store, users, n, pool, random.Random(7), progress)
    store.close()
    size = disk_bytes(path)
    command = [sys.executable, "-m", "langgraph_memory.eval.scale", "--probe", str(path)]
    probe = subprocess.run(
        [*command, "--users", str(n_users), "--queries", str(n_queries)],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        raise RuntimeError(f"reopen probe failed: {probe.stderr[-2000:]}")
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    return {
        "memories": n,
        "users": n_users,
        "fill_records_per_s": rate,
        "fill_longest_pause_ms": ticker.longest_pause_ms,
        "fill_pauses_over_50ms": ticker.pauses_over_50ms,
        "disk_bytes": size,
        "disk_bytes_per_record": size / n,
        **found,
        "rss_store_bytes_per_record": found["rss_store_bytes"] / n,
    }


def probe(path: Path, n_users: int, n_queries: int, cold_users: int = 50) -> dict[str, Any]:
    """Run in a fresh process: reopen ``path``, first search of ``cold_users`` users, warm
    searches; times and RSS."""
    real = load_embedder("use-multilingual")
    real.encode(["warm up"])
    base = rss_bytes()
    t0 = time.perf_counter()
    store = MemoryStore(path=path, embedder=real)
    reopen = time.perf_counter() - t0
    users = [f"user-{i:04d}" for i in range(n_users)][:cold_users]
    queries = _queries(max(n_queries, len(users)))
    cold: list[float] = []
    for i, user in enumerate(users):
        t0 = time.perf_counter()
        store.search(queries[i], Scope(user_id=user), k=5)
        cold.append((time.perf_counter() - t0) * 1e3)
    after = rss_bytes()
    warm: list[float] = []
    for i in range(n_queries):
        t0 = time.perf_counter()
        store.search(queries[i], Scope(user_id=users[i % len(users)]), k=5)
        warm.append((time.perf_counter() - t0) * 1e3)
    store.close()
    return {
        "reopen_s": reopen,
        "cold_users": len(cold),
        "cold_user_p50_ms": percentile(cold, 50),
        "cold_user_p95_ms": percentile(cold, 95),
        "warm_p50_ms": percentile(warm, 50),
        "warm_p95_ms": percentile(warm, 95),
        "rss_baseline_mb": base / 2**20,
        "rss_after_mb": after / 2**20,
        "rss_store_bytes": after - base,
        "peak_rss_mb": peak_rss_bytes() / 2**20,
    }


def one_scope_case(
    real: Embedder, root: Path, n: int, n_queries: int, progress: bool
) -> dict[str, Any]:
    """``n`` records in one scope, never calling ``optimize()``."""
    pool, pooled = _pool(real)
    store = MemoryStore(path=root / f"one-scope-{n}", embedder=pooled)
    scope = Scope(user_id="solo")
    queries = _queries(n_queries)
    try:
        store.add_many(pool[:16], scope=scope)  # something to find from the first search on
        with Ticker().running() as ticker, Searcher(store, scope, queries).running() as during:
            rate = fill(store, ["solo"], n, pool, random.Random(3), progress)
            backend: Any = store.backend
            filled = backend.shard_info()
            t0 = time.perf_counter()
            backend.wait_indexed(timeout=600)  # the background indexer, once the store is idle
            waited = time.perf_counter() - t0
        info = backend.shard_info()
        store.search(queries[0], scope, k=5)
        lat: list[float] = []
        for q in queries:
            t0 = time.perf_counter()
            store.search(q, scope, k=5)
            lat.append((time.perf_counter() - t0) * 1e3)
        return {
            "memories": n,
            "optimize_called": False,
            "fill_records_per_s": rate,
            "fill_longest_pause_ms": ticker.longest_pause_ms,
            "fill_pauses_over_50ms": ticker.pauses_over_50ms,
            "searches_while_indexing": len(during.latencies_ms),
            "search_while_indexing_p50_ms": percentile(during.latencies_ms, 50),
            "search_while_indexing_max_ms": during.longest_ms,
            "index_steps": backend.index_steps,
            "longest_index_step_ms": backend.longest_index_step * 1e3,
            "unindexed_after_fill": filled["points"] - filled["indexed_vectors"],
            "background_index_wait_s": waited,
            "segments": info["segments"],
            "indexed_vectors": info["indexed_vectors"],
            "p50_ms": percentile(lat, 50),
            "p95_ms": percentile(lat, 95),
        }
    finally:
        store.close()


def sessions(limit: int) -> list[str]:
    """Whole chat sessions of the shipped long-history set, one text each."""
    data = json.loads(DATA.read_text())
    out: list[str] = []
    for sample in data["samples"]:
        conv = sample["conversation"]
        for key in sorted(k for k in conv if k.startswith("session_") and k[8:].isdigit()):
            out.append(" ".join(f"{t['speaker']}: {t['text']}" for t in conv[key]))
    return out[:limit]


def ingest_case(real: Embedder, root: Path, limit: int) -> dict[str, Any]:
    """``add_many`` of whole sessions with real embeddings: threaded vs one thread."""
    from ..store import memory_store

    texts = sessions(limit)
    rates: dict[int, float] = {}
    threads = max(2, memory_store.EMBED_THREADS)
    default = memory_store.EMBED_THREADS
    for workers in (threads, 1):
        memory_store.EMBED_THREADS = workers
        try:
            with MemoryStore(path=root / f"ingest-{workers}", embedder=real) as store:
                t0 = time.perf_counter()
                for start in range(0, len(texts), 256):
                    store.add_many(texts[start : start + 256], scope=Scope(user_id="importer"))
                rates[workers] = len(texts) / (time.perf_counter() - t0)
        finally:
            memory_store.EMBED_THREADS = default
    return {
        "sessions": len(texts),
        "mean_chars": sum(map(len, texts)) / max(1, len(texts)),
        "embed_threads": threads,
        "records_per_s": rates[threads],
        "records_per_s_one_thread": rates[1],
    }


def run_scale(
    *,
    tenants: tuple[int, int],
    one_scope: int,
    n_queries: int,
    ingest: int,
    root: Path,
    progress: bool,
    embedder: str = "use-multilingual",
) -> dict[str, Any]:
    """Every scale case; the ``scale`` section of the latency result."""
    real = load_embedder(embedder)
    return {
        "one_scope": one_scope_case(real, root, one_scope, n_queries, progress),
        "ingest": ingest_case(real, root, ingest),
        "tenants": tenants_case(real, root, tenants[0], tenants[1], n_queries, progress),
    }


def rows(scale: dict[str, Any]) -> dict[str, tuple[list[str], list[list[Any]]]]:
    """Tables for the report: title -> (columns, rows)."""
    t, o, i = scale["tenants"], scale["one_scope"], scale["ingest"]
    return {
        "tenants (fresh-process reopen probe)": (
            [
                "memories",
                "users",
                "warm p50/p95 ms",
                "cold user p50/p95 ms",
                "reopen s",
                "RSS MB (B/record)",
                "peak MB",
                "disk B/record",
                "fill rec/s",
                "longest pause ms",
            ],
            [
                [
                    t["memories"],
                    t["users"],
                    f"{t['warm_p50_ms']:.1f} / {t['warm_p95_ms']:.1f}",
                    f"{t['cold_user_p50_ms']:.1f} / {t['cold_user_p95_ms']:.1f}",
                    t["reopen_s"],
                    f"{t['rss_after_mb']:.0f} ({t['rss_store_bytes_per_record']:.0f})",
                    t["peak_rss_mb"],
                    t["disk_bytes_per_record"],
                    t["fill_records_per_s"],
                    t["fill_longest_pause_ms"],
                ]
            ],
        ),
        "one scope, no optimize()": (
            [
                "memories",
                "p50 ms",
                "p95 ms",
                "index steps",
                "longest step ms",
                "longest pause ms",
                "search during indexing p50 / max ms",
                "segments",
                "indexed",
                "fill rec/s",
            ],
            [
                [
                    o["memories"],
                    o["p50_ms"],
                    o["p95_ms"],
                    o["index_steps"],
                    o["longest_index_step_ms"],
                    o["fill_longest_pause_ms"],
                    f"{o['search_while_indexing_p50_ms']:.1f} / "
                    f"{o['search_while_indexing_max_ms']:.0f}",
                    o["segments"],
                    o["indexed_vectors"],
                    o["fill_records_per_s"],
                ]
            ],
        ),
        "ingest of whole sessions (real embeddings)": (
            ["sessions", "mean chars", "threads", "rec/s", "rec/s one thread"],
            [
                [
                    i["sessions"],
                    i["mean_chars"],
                    i["embed_threads"],
                    i["records_per_s"],
                    i["records_per_s_one_thread"],
                ]
            ],
        ),
    }


def _probe_main(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="langgraph_memory.eval.scale")
    parser.add_argument("--probe", required=True)
    parser.add_argument("--users", type=int, required=True)
    parser.add_argument("--queries", type=int, default=200)
    ns = parser.parse_args(argv)
    print(json.dumps(probe(Path(ns.probe), ns.users, ns.queries)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_probe_main(sys.argv[1:]))

__all__ = [
    "Searcher",
    "Ticker",
    "ingest_case",
    "one_scope_case",
    "run_scale",
    "sessions",
    "tenants_case",
]
