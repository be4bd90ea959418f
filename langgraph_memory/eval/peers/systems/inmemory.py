"""LangGraph ``InMemoryStore`` as a system of the peers benchmark."""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from ....embeddings import Embedder
from .._common import IMS
from ..embedding import langchain_embeddings
from .base import System


class InMemoryStoreSystem(System):
    """LangGraph ``InMemoryStore(index={"embed": ..., "dims": ..., "fields": ["text"]})``;
    one namespace ``(user, "memories")`` per user, as LangMem lays memories out."""

    name = IMS

    def __init__(self, embedder: Embedder) -> None:
        self.store = InMemoryStore(
            index={
                "embed": langchain_embeddings(embedder),
                "dims": int(embedder.dims),
                "fields": ["text"],
            }
        )
        self.has_batch = True
        self.dup_text_batches = 0

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        texts = [text for _, text, _ in items]
        if len(set(texts)) < len(texts):
            # langgraph 1.2.24: one batch() with two puts of the same indexed text raises
            # "Number of embeddings (n-1) does not match number of indices (n)"; LoCoMo repeats
            # short turns ("Bye!"), so such batches go in one put() at a time.
            self.dup_text_batches += 1
            for key, text, _ in items:
                self.add_one(user, key, text)
            return
        self.store.batch([PutOp((user, "memories"), key, {"text": text}) for key, text, _ in items])

    def add_one(self, user: str, key: str, text: str) -> None:
        self.store.put((user, "memories"), key, {"text": text})

    def search(self, user: str, query: str, k: int) -> list[str]:
        return [item.key for item in self.store.search((user, "memories"), query=query, limit=k)]
