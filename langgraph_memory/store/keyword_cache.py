"""The per-user in-memory BM25 indexes the store keeps beside the collection (stateful).

:class:`KeywordCache` builds a user's :class:`~langgraph_memory.store.keyword.KeywordIndex`
from the collection on first use (LRU over users), mirrors every write into the indexes it
holds, and rebuilds one when another process may have written (shared writers). The
collection stays the single source of truth: a dropped index is rebuilt from it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from ..core.config import MemoryConfig
from ..core.logsafe import get_logger
from .backend import VectorBackend
from .filters import Eq
from .keyword import KeywordIndex, index_text, never_valid

log = get_logger("store")


class KeywordCache:
    """Keyword indexes of recently used users, mirrored from ``backend``'s collection.

    Records valid at no instant (the write path's ledger) stay out of the indexes (they
    would only shift BM25's document statistics); their ids are remembered so that the
    index size can be compared with the engine's count."""

    def __init__(self, backend: VectorBackend, lock: threading.RLock) -> None:
        self._backend = backend
        self._lock = lock
        self._indexes: OrderedDict[str, KeywordIndex] = OrderedDict()
        self._built: dict[str, float] = {}
        self._skipped: dict[str, set[str]] = {}
        """Per user: ids kept out of the keyword index because they are valid at no instant."""

    def get(self, user_id: str) -> KeywordIndex | None:
        """The user's index if it is loaded (never builds one)."""
        return self._indexes.get(user_id)

    def index(self, user_id: str, config: MemoryConfig) -> KeywordIndex:
        """The user's keyword index, built from the collection on first use (LRU-cached, at
        most ``config.keyword_cache_users`` users)."""
        with self._lock:
            index = self._indexes.get(user_id)
            if index is not None and self._backend.shared_writers:
                # another process may have written this user's memory: rebuild on a size change
                # or after the refresh interval
                age = time.monotonic() - self._built.get(user_id, 0.0)
                fresh = age < config.keyword_refresh_seconds
                known = len(index) + len(self._skipped.get(user_id, ()))
                if not fresh or self._backend.count(Eq("user_id", user_id)) != known:
                    index = None
            if index is not None:
                self._indexes.move_to_end(user_id)
                return index
            index = KeywordIndex()
            skipped: set[str] = set()
            for payload in self._backend.scroll(Eq("user_id", user_id)):
                if never_valid(payload):
                    skipped.add(payload["id"])
                else:
                    index.upsert(payload["id"], index_text(payload), payload)
            self._skipped[user_id] = skipped
            self._indexes[user_id] = index
            self._built[user_id] = time.monotonic()
            while len(self._indexes) > config.keyword_cache_users:
                evicted, _ = self._indexes.popitem(last=False)
                self._built.pop(evicted, None)
                self._skipped.pop(evicted, None)
                log.debug("keyword index evicted", extra={"user_id": evicted})
            return index

    def mirror(self, payloads: Iterable[dict[str, Any]], *, text_changed: bool = True) -> None:
        """Apply written payloads to loaded keyword indexes (unloaded users rebuild lazily)."""
        for payload in payloads:
            index = self._indexes.get(payload["user_id"])
            if index is None:
                continue
            if never_valid(payload):
                self._skipped.setdefault(payload["user_id"], set()).add(payload["id"])
                if payload["id"] in index:
                    index.remove(payload["id"])
                continue
            self._skipped.get(payload["user_id"], set()).discard(payload["id"])
            if text_changed or payload["id"] not in index:
                index.upsert(payload["id"], index_text(payload), payload)
            else:
                index.update_payload(payload["id"], payload)

    def unmirror(self, user_id: str, ids: Iterable[str]) -> None:
        """Remove deleted records from the user's index, if loaded."""
        index = self._indexes.get(user_id)
        skipped = self._skipped.get(user_id, set())
        if index is not None:
            for record_id in ids:
                skipped.discard(record_id)
                index.remove(record_id)

    def drop(self, user_id: str) -> None:
        """Forget the user's index (it is rebuilt from the collection if asked again)."""
        self._indexes.pop(user_id, None)
        self._skipped.pop(user_id, None)
        self._built.pop(user_id, None)

    def clear(self) -> None:
        """Forget every index (each is rebuilt from the collection when next asked)."""
        self._indexes.clear()
        self._skipped.clear()
        self._built.clear()


__all__ = ["KeywordCache"]
