"""Section 3 of the peers benchmark: write throughput with real embedding."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...embeddings import Embedder
from ..common import percentile
from ..pool import sentence
from ._common import OURS, PEER_KEYS
from .systems.base import System
from .systems.ours import OursSystem
from .systems.registry import open_peer


def run_writes(
    real: Embedder, peers: Sequence[str], n: int, root: Path, unavailable: dict[str, str]
) -> dict[str, Any]:
    """Write throughput with real embedding: ``n`` single writes and, where there is a batch
    API, ``n`` texts in batches of 100 (distinct texts per system; no cache)."""
    rng = random.Random(3)
    out: dict[str, Any] = {}
    order: list[tuple[str, str]] = [("ours", OURS)] + [(k, PEER_KEYS[k]) for k in peers]
    for idx, (key, name) in enumerate(order):
        if key in unavailable:
            out[name] = {"skipped": unavailable[key]}
            continue
        system: System | None
        if key == "ours":
            system = OursSystem(root, real)
        else:
            system, why = open_peer(key, real, root)
            if system is None:
                out[name] = {"skipped": why}
                continue
        texts = [f"{sentence(rng)} (w{idx}-{i})" for i in range(2 * n)]
        try:
            system.add_one("writer", str(uuid.uuid4()), "warm up write")
            single: list[float] = []
            for text in texts[:n]:
                t0 = time.perf_counter()
                system.add_one("writer", str(uuid.uuid4()), text)
                single.append((time.perf_counter() - t0) * 1e3)
            entry: dict[str, Any] = {
                "single_p50_ms": percentile(single, 50),
                "single_p95_ms": percentile(single, 95),
                "single_per_s": len(single) / (sum(single) / 1e3),
                "batch_per_s": None,
            }
            if getattr(system, "has_batch", False):
                t0 = time.perf_counter()
                rest = texts[n:]
                for start in range(0, len(rest), 100):
                    system.add_batch(
                        "writer", [(str(uuid.uuid4()), t, None) for t in rest[start : start + 100]]
                    )
                entry["batch_per_s"] = len(rest) / (time.perf_counter() - t0)
            else:
                entry["batch_note"] = "no batch write API (add() embeds and inserts one by one)"
            out[name] = entry
        except Exception as exc:
            out[name] = {"skipped": f"failed: {type(exc).__name__}: {exc}"}
        finally:
            system.close()
    base = out.get(OURS, {})
    ratios = {
        name: {
            "single_ours_over_peer": base["single_per_s"] / e["single_per_s"],
            "batch_ours_over_peer": (base["batch_per_s"] / e["batch_per_s"])
            if e.get("batch_per_s")
            else None,
        }
        for name, e in out.items()
        if name != OURS and "single_per_s" in e and "single_per_s" in base
    }
    return {"writes": n, "systems": out, "ratios": ratios}
