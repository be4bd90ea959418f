"""Embedders for the peers benchmark: one cache so every system gets bit-identical vectors, and
the LangChain ``Embeddings`` wrapper the peers accept."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from ...embeddings import Embedder
from ..pool import PooledEmbedder


class CachedEmbedder:
    """An :class:`Embedder` that embeds each distinct text once and serves repeats from memory,
    so every system of the recall section gets bit-identical vectors for the same text."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self.name = real.name
        self.dims = int(real.dims)
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """See :class:`Embedder`."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for start in range(0, len(missing), 256):
            chunk = missing[start : start + 256]
            for text, row in zip(chunk, self.real.encode(chunk), strict=True):
                self._cache[text] = np.asarray(row, dtype=np.float32)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._cache[text]
        return out


def langchain_embeddings(embedder: Embedder) -> Embeddings:
    """A LangChain ``Embeddings`` over ``embedder`` (what the peers accept).

    Rows are returned as Python lists, as the ``Embeddings`` contract says. For a
    :class:`PooledEmbedder` the list of a pool sentence is built once and shared by every
    ``"<sentence> #<n>"`` text (100k stored vectors would otherwise cost GBs of Python floats
    in ``InMemoryStore``); what the peer computes at search time is unchanged.
    """

    pooled = embedder if isinstance(embedder, PooledEmbedder) else None

    class _Wrapped(Embeddings):
        def __init__(self) -> None:
            self.shared: dict[str, list[float]] = {}

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            out: list[list[float] | None] = [None] * len(texts)
            todo: list[int] = []
            for i, text in enumerate(texts):
                base = text.rsplit(" #", 1)[0] if pooled is not None else None
                if base is not None and base in self.shared:
                    out[i] = self.shared[base]
                else:
                    todo.append(i)
            if todo:
                rows = embedder.encode([texts[i] for i in todo])
                for i, row in zip(todo, rows, strict=True):
                    vec = [float(x) for x in row]
                    out[i] = vec
                    if pooled is not None:
                        base = texts[i].rsplit(" #", 1)[0]
                        if base in pooled._cache:
                            self.shared[base] = vec
            return [v for v in out if v is not None]

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in embedder.encode([text])[0]]

    return _Wrapped()
