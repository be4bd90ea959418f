"""Foreground first: background work on a store yields to the recalls a user is waiting for.

A turn's recall (``load_memory``, ``MemoryMiddleware``) runs inside
:meth:`ForegroundGate.serving`. Work marked with :func:`background_work` (the
:class:`~langgraph_memory.write.background.BackgroundWriter`'s worker, the store's use
flusher) waits at the start of each store call while a recall of the same store is in flight,
instead of competing with it for the GIL and the CPU: with an instant model (a benchmark, a
cached reply) the writer processes turn *n* while turn *n + 1* recalls, and a recall that
shared the cores with it took about twice as long.

Guarantees:

* Results never change: only *when* a background store call starts moves.
* No deadlock and no starvation: a background thread that holds the store's write lock never
  waits (a recall may need that lock); one wait lasts at most ``max_wait_s``; and one piece of
  background work (one journal entry, one flush) waits at most ``budget_s`` in all, after which
  it runs at full speed until its end, however busy the foreground is (the background writer
  also gives up waiting altogether while its queue is backing up, see
  :data:`~langgraph_memory.write.background.CATCH_UP_AFTER`).
* Free when idle: with no recall in flight, or on a thread that is not background work, the
  check is one thread-local read and one integer test, no lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

FOREGROUND_MAX_WAIT_S = 0.05
"""Longest single wait of a background store call for the recalls in flight (seconds)."""
BACKGROUND_BUDGET_S = 0.25
"""Most one piece of background work waits for recalls in all (seconds)."""

_local = threading.local()


@contextmanager
def background_work(budget_s: float | None = None) -> Iterator[None]:
    """Mark the current thread's store calls as background work for the duration, with a
    wait budget of ``budget_s`` seconds (default :data:`BACKGROUND_BUDGET_S`; nested: the
    outer mark and budget stay)."""
    if getattr(_local, "budget", None) is not None:
        yield
        return
    _local.budget = BACKGROUND_BUDGET_S if budget_s is None else budget_s
    try:
        yield
    finally:
        _local.budget = None


def in_background_work() -> bool:
    """True on a thread inside :func:`background_work`."""
    return getattr(_local, "budget", None) is not None


class ForegroundGate:
    """The recalls of one store in flight, and the place background calls wait for them."""

    def __init__(self, max_wait_s: float = FOREGROUND_MAX_WAIT_S) -> None:
        self.max_wait_s = max_wait_s
        self._active = 0
        self._cond = threading.Condition(threading.Lock())
        self.waits = 0
        """Background store calls that waited for a recall (a count, for benchmarks)."""

    @property
    def active(self) -> int:
        """Recalls in flight now."""
        return self._active

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Mark a recall a user waits for (nested and concurrent recalls count each)."""
        with self._cond:
            self._active += 1
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                if self._active == 0:
                    self._cond.notify_all()

    def yield_to_foreground(self, holding_write_lock: bool = False) -> None:
        """Called at the start of a store call: on a background thread, wait (within its
        budget, at most ``max_wait_s``) until no recall is in flight. A thread holding the
        store's write lock (``holding_write_lock``) never waits."""
        if self._active == 0 or holding_write_lock:
            return
        budget = getattr(_local, "budget", None)
        if budget is None or budget <= 0:
            return
        started = time.monotonic()
        limit = min(self.max_wait_s, budget)
        with self._cond:
            if self._active:
                self.waits += 1
                self._cond.wait_for(lambda: self._active == 0, timeout=limit)
        _local.budget = budget - (time.monotonic() - started)


__all__ = [
    "BACKGROUND_BUDGET_S",
    "FOREGROUND_MAX_WAIT_S",
    "ForegroundGate",
    "background_work",
    "in_background_work",
]
