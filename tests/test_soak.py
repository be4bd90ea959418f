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
    """Memory growth stays bounded: after the store holds its data, another 50k searches and
    writes' worth of work must not grow RSS by more than a small, fixed amount."""
    rng = random.Random(3)
    words = [
        "tea",
        "coffee",
        "kyoto",
        "budget",
        "meeting",
        "绿茶",
        "会议",
        "hiking",
        "dentist",
        "report",
        "python",
    ]
    n_users = 20
    with MemoryStore(path=tmp_path / "soak", embedder=embedder) as store:
        rss: list[float] = []
        for half in range(2):
            for batch in range(50):
                user = f"u{batch % n_users}"
                texts = [
                    " ".join(rng.choices(words, k=6)) + f" #{half}-{batch}-{i}" for i in range(1000)
                ]
                store.add_many(texts, scope=Scope(user))
            for _ in range(50_000):
                store.search(
                    " ".join(rng.choices(words, k=3)), Scope(f"u{rng.randrange(n_users)}"), k=5
                )
            gc.collect()
            rss.append(_rss_mb())
        growth = rss[1] - rss[0]
        print(
            f"soak RSS after half 1: {rss[0]:.0f} MB, after half 2: {rss[1]:.0f} MB, "
            f"growth {growth:.0f} MB"
        )
        assert store.count(scope=Scope("u0"), current_only=False) == 100_000 // n_users
        # the second half adds 50k records (payloads + keyword postings): allow ~2 KB per record
        assert growth < 100 + 50_000 * 2 / 1024, rss
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
