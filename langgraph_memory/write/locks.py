"""The per-user write lock of this process (``WriteConfig.serialize_writes``).

One re-entrant lock per ``(store, user_id)``, shared by every pipeline over that store (and by
the deferred LLM pass): a turn of a user is processed whole — ledger read, extraction, episode,
gates, resolve, ledger write — before the next turn of the same user starts; turns of
different users run in parallel. Writes from other processes are merged through
``expected_version`` instead.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import AbstractContextManager, nullcontext

from ..store.memory_store import MemoryStore

_LOCKS: weakref.WeakKeyDictionary[MemoryStore, dict[str, threading.RLock]] = (
    weakref.WeakKeyDictionary()
)
_LOCKS_GUARD = threading.Lock()


def user_lock(store: MemoryStore, user_id: str) -> threading.RLock:
    """The lock of ``user_id``'s writes to ``store`` in this process."""
    with _LOCKS_GUARD:
        table = _LOCKS.setdefault(store, {})
        return table.setdefault(user_id, threading.RLock())


def write_lock(
    store: MemoryStore, user_id: str, *, serialize: bool
) -> AbstractContextManager[object]:
    """:func:`user_lock` when ``serialize`` (``WriteConfig.serialize_writes``), else a no-op
    context manager."""
    return user_lock(store, user_id) if serialize else nullcontext()


__all__ = ["user_lock", "write_lock"]
