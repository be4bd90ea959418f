"""Child process of the crash tests: builds supersession chains on an embedded store and is
killed with SIGKILL at a chosen step of a multi-step write (``_crash_point`` replaced).

Run as ``python -m tests.crash_child PATH STEP``; STEP is a ``_crash_point`` name such as
``supersede:marked`` (between marking the old record and writing the new one)."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
from collections.abc import Sequence

import numpy as np

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.store import memory_store

SCOPE = Scope("alice")
CHAINS = ("drink", "city", "editor")


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder (no model load: the child starts fast)."""

    name = "test-hash-32"
    dims = 32

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hashlib.sha1(word.encode()).digest()[0] % self.dims] += 1.0
            out[row, 0] += 1e-3
        norms: np.ndarray = np.linalg.norm(out, axis=1, keepdims=True)
        return out / norms


def main(path: str, step: str) -> None:
    store = MemoryStore(path=path, embedder=HashEmbedder())
    ids = {}
    for chain in CHAINS:
        ids[chain] = store.add(f"{chain} version 1", scope=SCOPE, subject="user", predicate=chain)
    # complete supersessions first, so each chain already has history
    for chain in CHAINS:
        ids[chain] = store.supersede(ids[chain], f"{chain} version 2", scope=SCOPE).id

    def die(at: str) -> None:
        if at == step:
            print("dying", at, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    memory_store._crash_point = die  # type: ignore[attr-defined]
    store.supersede(ids[CHAINS[-1]], f"{CHAINS[-1]} version 3", scope=SCOPE)
    print("survived", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
