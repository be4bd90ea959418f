"""Slow suite (``pytest -m slow``; not in the default run): soak and the 10,000-case fuzz."""

from __future__ import annotations

import gc
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from langgraph_memory import MemoryStore, Scope

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_soak_100k_writes_and_100k_searches(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """100k writes, then 100k searches in one process. Searching must not grow memory (no
    unbounded cache): RSS after the second 50k searches stays within 50 MB of RSS after the
    first 50k. Memory per stored record is reported."""
    rng = random.Random(3)
    words = ["tea", "coffee", "kyoto", "budget", "meeting", "绿茶", "会议", "hiking", "report"]
    n_users, batches, per_batch = 20, 100, 1000
    with MemoryStore(path=tmp_path / "soak", embedder=embedder) as store:
        gc.collect()
        rss = [_rss_mb()]
        for batch in range(batches):
            texts = [" ".join(rng.choices(words, k=6)) + f" #{batch}-{i}" for i in range(per_batch)]
            store.add_many(texts, scope=Scope(f"u{batch % n_users}"))
        for _ in range(2):
            for _ in range(50_000):
                user = f"u{rng.randrange(n_users)}"
                store.search(" ".join(rng.choices(words, k=3)), Scope(user), k=5)
            gc.collect()
            rss.append(_rss_mb())
        total = sum(store.count(scope=Scope(f"u{u}"), current_only=False) for u in range(n_users))
        per_record_kb = (rss[1] - rss[0]) * 1024 / total
        print(
            f"soak: {total} records, RSS {rss[0]:.0f} -> {rss[1]:.0f} MB after writes + 50k "
            f"searches ({per_record_kb:.1f} KB/record), {rss[2]:.0f} MB after 50k more searches"
        )
        assert total == batches * per_batch  # no lost write
        assert rss[2] - rss[1] < 50, rss  # searches do not grow memory
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


def test_fuzz_10k_examples() -> None:
    """The tenant-isolation fuzz of test_reliability_store with 10,000 examples per backend."""
    env = {**os.environ, "LGM_FUZZ_EXAMPLES": "10000"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_reliability_store.py::test_fuzz_no_result_outside_scope",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "2 passed" in proc.stdout
