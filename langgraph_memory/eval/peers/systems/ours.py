"""This package's ``MemoryStore`` as a system of the peers benchmark."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from ....core.records import MemoryRecord
from ....core.scope import Scope
from ....embeddings import Embedder
from ....store import MemoryStore
from .._common import OURS
from .base import System


class OursSystem(System):
    """langgraph-memory ``MemoryStore`` (embedded engine) with a given recall mode."""

    def __init__(self, root: Path, embedder: Embedder, mode: str = "hybrid", name: str = OURS):
        self.name = name
        self.mode = mode
        self.store = MemoryStore(path=root / f"ours-{uuid.uuid4().hex[:8]}", embedder=embedder)
        self.has_batch = True

    def add_records(self, user: str, records: Sequence[MemoryRecord]) -> None:
        """Store ready records (LoCoMo turns)."""
        for start in range(0, len(records), 256):
            self.store.add_many(list(records[start : start + 256]), scope=Scope(user_id=user))

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        records = [
            MemoryRecord(id=key, user_id=user, text=text, context=ctx) for key, text, ctx in items
        ]
        self.add_records(user, records)

    def add_one(self, user: str, key: str, text: str) -> None:
        self.store.add(MemoryRecord(id=key, user_id=user, text=text), scope=Scope(user_id=user))

    def search(self, user: str, query: str, k: int) -> list[str]:
        return list(self.store.search(query, Scope(user_id=user), k=k, mode=self.mode).ids)

    def close(self) -> None:
        self.store.close()
