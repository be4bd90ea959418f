"""The memory and cold-start measurements of the peers benchmark's latency section: the process
RSS a system adds per stored record, and the first (cold) query after a fill."""

from __future__ import annotations

import gc
import time

from ..scale import rss_bytes
from .systems.base import System

COLD_QUERY = "first query after the fill"


def rss_baseline() -> int:
    """The process RSS before a system is opened (after a garbage collection), in bytes."""
    gc.collect()
    return rss_bytes()


def rss_bytes_per_record(baseline: int, records: int) -> float:
    """Bytes of process RSS above ``baseline`` per stored record, now."""
    return (rss_bytes() - baseline) / records


def first_query_ms(system: System, user: str, k: int = 5) -> float:
    """Milliseconds of the first search of ``user``'s scope after a fill (caches still cold)."""
    t0 = time.perf_counter()
    system.search(user, COLD_QUERY, k)
    return (time.perf_counter() - t0) * 1e3
