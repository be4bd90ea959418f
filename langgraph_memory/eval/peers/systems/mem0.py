"""mem0 OSS as a system of the peers benchmark."""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
import warnings
from collections.abc import Sequence
from pathlib import Path

from ....embeddings import Embedder
from .._common import MEM0
from ..embedding import langchain_embeddings
from .base import System


class Mem0System(System):
    """mem0 OSS ``Memory`` with local Qdrant, our embedder through the ``langchain`` provider,
    ``infer=False`` (no LLM call) and ``threshold=0.0`` (no score cut-off)."""

    name = MEM0

    def __init__(self, embedder: Embedder, root: Path) -> None:
        os.environ["MEM0_TELEMETRY"] = "False"  # read when mem0 is imported: no PostHog
        os.environ.setdefault("MEM0_DIR", str(Path(tempfile.gettempdir()) / "lgm-bench-mem0"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from mem0 import Memory
            from qdrant_client import QdrantClient

            self.memory = Memory.from_config(
                {
                    "vector_store": {
                        "provider": "qdrant",
                        "config": {
                            "collection_name": f"bench_{uuid.uuid4().hex[:8]}",
                            "embedding_model_dims": int(embedder.dims),
                            "client": QdrantClient(location=":memory:"),
                        },
                    },
                    "embedder": {
                        "provider": "langchain",
                        "config": {
                            "model": langchain_embeddings(embedder),
                            "embedding_dims": int(embedder.dims),
                        },
                    },
                    # built but never called with infer=False; the default needs a key to build
                    "llm": {"provider": "openai", "config": {"api_key": "sk-unused-offline"}},
                    "history_db_path": str(root / f"mem0-history-{uuid.uuid4().hex[:8]}.db"),
                }
            )
        self.keys: dict[str, str] = {}
        self.has_batch = False

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        messages = [{"role": "user", "content": text} for _, text, _ in items]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = self.memory.add(messages, user_id=user, infer=False)
        added = result.get("results", []) if isinstance(result, dict) else result
        if len(added) != len(items):
            raise RuntimeError(f"mem0 stored {len(added)} of {len(items)} messages")
        for (key, _, _), entry in zip(items, added, strict=True):
            self.keys[str(entry["id"])] = key

    def search(self, user: str, query: str, k: int) -> list[str]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = self.memory.search(query, filters={"user_id": user}, top_k=k, threshold=0.0)
        return [self.keys.get(str(r["id"]), "") for r in result.get("results", [])]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.memory.close()
