"""Use bookkeeping off the read path: record uses now, write them in one batch later.

Every recall turn marks the facts that reached the prompt as used (``last_accessed_at``,
``access_count``; see :func:`langgraph_memory.lifecycle.touch`). Writing that at once costs a
read and a compare-and-set write per fact on every turn. :class:`UseBuffer` instead keeps the
uses in memory, coalesced per record (the latest time and the number of uses), and writes them
from a background thread every ``interval`` seconds, as soon as ``max_pending`` records wait,
on :meth:`UseBuffer.flush` and on :meth:`UseBuffer.close`.

Guarantees:

* Nothing is lost by a clean shutdown: :meth:`UseBuffer.close` writes every pending use before
  it returns (``MemoryStore.close`` calls it first).
* Nothing is resurrected: the write is a compare-and-set update of an existing record, which
  skips ids that were deleted meanwhile; :meth:`UseBuffer.discard_user` drops a forgotten
  user's pending uses before the erasure.
* A pending use is at most ``interval`` seconds late. Ranking decays by age in days, so the
  delay moves no score measurably; the record's stored ``last_accessed_at`` and
  ``access_count`` show the use after the flush.
* A failed write is logged (bookkeeping never fails a turn); those uses are dropped.
* Uses recorded in the last ``interval`` seconds before a process ends *without* closing the
  store are lost (only their bookkeeping: the records themselves are untouched).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import datetime

from ..core.logsafe import get_logger
from ..core.scope import Scope
from .foreground import background_work

log = get_logger("store")

Uses = dict[str, tuple[datetime, int]]
"""Record id -> (time of its latest use, number of uses)."""
UseWriter = Callable[[Scope, Uses], None]
"""Writes one scope's coalesced uses (``store.status.write_uses`` over the store)."""

USE_WRITE_FAILED = "could not record %d use(s) of memories of user %s; they are dropped"


class UseBuffer:
    """Pending record uses, coalesced per (scope, record), written in the background."""

    def __init__(self, write: UseWriter, *, interval: float, max_pending: int) -> None:
        self._write = write
        self.interval = interval
        self.max_pending = max_pending
        self._pending: dict[Scope, Uses] = {}
        self._count = 0
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None

    @property
    def pending(self) -> int:
        """How many (scope, record) uses wait to be written."""
        with self._lock:
            return self._count

    def add(self, ids: Iterable[str], scope: Scope, when: datetime) -> None:
        """Record one use of each of ``ids`` at ``when``; returns at once (no write)."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("the use buffer is closed")
            uses = self._pending.setdefault(scope, {})
            for record_id in ids:
                seen = uses.get(record_id)
                if seen is None:
                    uses[record_id] = (when, 1)
                    self._count += 1
                else:
                    uses[record_id] = (max(seen[0], when), seen[1] + 1)
            full = self._count >= self.max_pending
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="langgraph-memory-uses", daemon=True
                )
                self._thread.start()
        if full:
            self._wake.set()

    def discard_user(self, user_id: str) -> int:
        """Drop the pending uses of ``user_id`` (before their records are erased); returns
        how many."""
        with self._lock:
            dropped = 0
            for scope in [s for s in self._pending if s.user_id == user_id]:
                dropped += len(self._pending.pop(scope))
            self._count -= dropped
            return dropped

    def flush(self) -> int:
        """Write every pending use now, in the caller's thread; returns how many records."""
        with self._flush_lock:
            with self._lock:
                batch, self._pending, self._count = self._pending, {}, 0
            written = 0
            for scope, uses in batch.items():
                try:
                    self._write(scope, uses)
                    written += len(uses)
                except Exception:  # bookkeeping: logged, never raised into a turn
                    log.warning(USE_WRITE_FAILED, len(uses), scope.user_id, exc_info=True)
            return written

    def _run(self) -> None:
        while True:
            self._wake.wait(self.interval)
            self._wake.clear()
            with self._lock:
                if self._stopped:
                    return
            with background_work():  # a recall in flight goes first (see .foreground)
                self.flush()

    def close(self) -> int:
        """Stop the background thread and write what is pending; idempotent. Returns how many
        records were written by this call."""
        with self._lock:
            self._stopped = True
            thread, self._thread = self._thread, None
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        return self.flush()


__all__ = ["USE_WRITE_FAILED", "UseBuffer", "UseWriter", "Uses"]
