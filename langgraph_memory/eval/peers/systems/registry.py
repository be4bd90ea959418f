"""Starting a peer by its key, and the versions/configuration of every system for the result."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ....embeddings import Embedder
from .._common import IMS, MEM0, OURS, SQLS, log
from .base import System
from .inmemory import InMemoryStoreSystem
from .mem0 import Mem0System
from .sqlite import SqliteStoreSystem


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def open_peer(key: str, embedder: Embedder, root: Path) -> tuple[System | None, str | None]:
    """Start one peer; ``(system, None)`` or ``(None, why it cannot run)``."""
    try:
        if key == "inmemory":
            return InMemoryStoreSystem(embedder), None
        if key == "sqlite":
            return SqliteStoreSystem(embedder, root), None
        if key == "mem0":
            if _version("mem0ai") is None:
                return None, "mem0ai is not installed (pip install mem0ai)"
            return Mem0System(embedder, root), None
    except Exception as exc:  # report, never fake: the reason goes into the output
        log.warning("peer %s failed to start", key, exc_info=True)
        return None, f"{type(exc).__name__}: {exc}"
    return None, f"unknown peer {key!r}"


def peer_info(peers: Sequence[str]) -> dict[str, Any]:
    """Versions and configuration of every system, for the result document."""
    info: dict[str, Any] = {
        OURS: {
            "version": _version("langgraph-memory"),
            "config": "MemoryStore(path=tmp) — embedded qdrant-edge + BM25, hybrid recall",
        },
        IMS: {
            "version": "langgraph " + str(_version("langgraph")),
            "config": 'InMemoryStore(index={"embed": <same embedder>, "dims": d, '
            '"fields": ["text"]}), namespace (user, "memories"). Bug found: one batch() with '
            "two puts of identical indexed text raises ValueError (embeddings vs indices count); "
            "such batches are written with put() one at a time here.",
            "requested": "inmemory" in peers,
        },
        MEM0: {
            "version": _version("mem0ai"),
            "config": 'Memory.from_config: qdrant QdrantClient(":memory:"), embedder provider '
            '"langchain" (<same embedder>), add(infer=False), search(threshold=0.0); '
            "MEM0_TELEMETRY=False. Offline, mem0's BM25 (needs fastembed + a hub download) and "
            "entity boost (needs a spaCy model download) are off, so it ranks by semantic "
            "score only.",
            "requested": "mem0" in peers,
        },
        SQLS: {
            "version": "langgraph-checkpoint-sqlite "
            + str(_version("langgraph-checkpoint-sqlite"))
            + ", sqlite-vec "
            + str(_version("sqlite-vec")),
            "config": 'SqliteStore(<file>, index={"embed": <same embedder>, "dims": d, '
            '"fields": ["text"]}), namespace (user, "memories"); pysqlite3 connection when '
            "the stdlib sqlite3 cannot load extensions.",
            "requested": "sqlite" in peers,
        },
    }
    return info
