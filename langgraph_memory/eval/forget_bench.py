"""``python -m langgraph_memory bench forget``: what forgetting a user costs on the embedded
engine, and how long the residue scan of the receipt takes.

For each size N a fresh store holds N records of the user to forget plus ``--others`` records
of 20 other users (real record payloads, 512-dimensional random unit vectors: forgetting never
embeds, and the engine's cost depends on the dimension, not on the model), flushed as an app
would leave it. ``forget_user`` then runs once and the table reports: the whole call; the
soft delete, the copy of the live points into a fresh shard and the swap (the shard rewrite);
the byte scan of every file of the store (pages decompressed); the bytes the rewrite wrote and
removed (allocated on disk); and the residue (must be 0). Default sizes 10k; ``--full`` adds
100k (about 1.5 min on 2 cores, most of it inserting).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..cli import PlainHelpFormatter
from ..core.records import MemoryRecord
from ..core.scope import Scope
from .common import machine_info, make_console, print_table, write_json

DIMS = 512
"""The default embedder's dimension (USE multilingual)."""
OTHER_USERS = 20
BATCH = 1024


class RandomUnitEmbedder:
    """Random unit vectors of :data:`DIMS` dimensions (the bench never searches)."""

    name = f"bench-random-{DIMS}"
    dims = DIMS

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self._rng.standard_normal((len(texts), DIMS)).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _fill(store: Any, user: str, n: int, embedder: RandomUnitEmbedder, tag: str) -> None:
    for start in range(0, n, BATCH):
        records = [
            MemoryRecord(
                user_id=user,
                text=f"{tag} {i}: I prefer green tea in the morning and short answers",
                kind="preference",
            )
            for i in range(start, min(n, start + BATCH))
        ]
        vectors = embedder.encode([r.text for r in records])
        store.backend.upsert(
            [(r.id, v, r.to_payload()) for r, v in zip(records, vectors, strict=True)]
        )


def measure(size: int, others: int, root: Path) -> dict[str, Any]:
    """Forget a user with ``size`` records from a store that also holds ``others``."""
    from ..lifecycle.forget import forget_user, has_residue
    from ..store import MemoryStore
    from ..store.backend import disk_bytes

    embedder = RandomUnitEmbedder()
    path = root / f"store-{size}"
    store = MemoryStore(path=path, embedder=embedder, lifecycle=None)  # type: ignore[arg-type]
    t0 = time.perf_counter()
    _fill(store, "forgotten-user", size, embedder, "forgotten")
    per_other = max(1, others // OTHER_USERS)
    for u in range(OTHER_USERS):
        _fill(store, f"other-{u:02d}", per_other, embedder, f"other {u}")
    store.flush()
    filled = time.perf_counter() - t0
    before = disk_bytes(path)
    receipt = forget_user("forgotten-user", store=store)
    engine = receipt["erasure"]["engine"]
    scan = receipt["scan"]["engine_files"]
    kept = store.count(scope=Scope("other-00"), current_only=False)
    store.close()
    return {
        "records_forgotten": receipt["records"],
        "records_kept": engine["points_kept"],
        "fill_s": round(filled, 3),
        "store_bytes_before": before,
        "forget_s": receipt["elapsed_s"],
        "delete_s": engine["steps"].get("delete", 0.0),
        "copy_s": engine["steps"].get("copy", 0.0),
        "swap_s": engine["steps"].get("swap", 0.0),
        "rewrite_s": engine["seconds"],
        "bytes_written": engine["bytes_written"],
        "bytes_removed": engine["bytes_removed"],
        "scan_files": scan["files"],
        "scan_bytes": scan["bytes"],
        "scan_values_decoded": scan.get("decoded_values", 0),
        "residue": receipt["residue"],
        "clean": not has_residue(receipt["residue"]) and kept == per_other,
    }


def run(sizes: Sequence[int], others: int) -> dict[str, Any]:
    """Measure every size; the JSON result."""
    root = Path(tempfile.mkdtemp(prefix="lgm-forget-bench-"))
    try:
        rows = [{"size": n, **measure(n, others, root)} for n in sizes]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "benchmark": "forget",
        "dims": DIMS,
        "others": others,
        "other_users": OTHER_USERS,
        "machine": machine_info(),
        "rows": rows,
    }


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f}"


def report(console: Any, result: dict[str, Any]) -> None:
    """Print the table."""
    print_table(
        console,
        f"forget_user on the embedded engine ({result['others']} records of other users kept, "
        f"{result['dims']}-d vectors)",
        (
            "user records",
            "forget s",
            "delete s",
            "copy s",
            "swap s",
            "MiB written",
            "MiB removed",
            "scan MiB",
            "ids+scan s",
            "residue",
        ),
        [
            (
                r["records_forgotten"],
                r["forget_s"],
                r["delete_s"],
                r["copy_s"],
                r["swap_s"],
                _mib(r["bytes_written"]),
                _mib(r["bytes_removed"]),
                _mib(r["scan_bytes"]),
                round(r["forget_s"] - r["rewrite_s"], 3),
                "0" if r["clean"] else "LEFT",
            )
            for r in result["rows"]
        ],
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; exit 1 if any run left residue."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench forget",
        description=__doc__,
    )
    parser.add_argument("--sizes", default="10000", help="records of the forgotten user")
    parser.add_argument("--full", action="store_true", help="add the 100k size (slow)")
    parser.add_argument("--others", type=int, default=10_000, help="records of other users")
    parser.add_argument("--out", default="bench-results/forget.json")
    ns = parser.parse_args(argv)
    sizes = [int(s) for s in ns.sizes.split(",") if s]
    if ns.full and 100_000 not in sizes:
        sizes.append(100_000)
    result = run(sizes, ns.others)
    console = make_console()
    report(console, result)
    written = write_json(ns.out, result)
    if written:
        console.print(f"results written to {written}")
    return 0 if all(r["clean"] for r in result["rows"]) else 1


__all__ = ["main", "measure", "run"]
