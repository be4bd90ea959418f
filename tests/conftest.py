"""Shared fixtures: the real default embedder (loaded once) and a store on each backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qdrant_client import QdrantClient

from langgraph_memory import MemoryStore, Scope, USEEmbedder


@pytest.fixture(scope="session")
def embedder() -> USEEmbedder:
    """The real default embedder (USE multilingual, weights from the installed package)."""
    model = USEEmbedder()
    model.warmup()
    return model


BACKENDS = ["edge", "server"]


def make_store(kind: str, tmp_path, embedder) -> MemoryStore:  # type: ignore[no-untyped-def]
    """A fresh store on the embedded engine (``edge``) or a qdrant-client collection
    (``server``: ``QdrantClient(":memory:")``, the same client API as a real server)."""
    if kind == "edge":
        return MemoryStore(path=tmp_path / "mem", embedder=embedder)
    return MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)


@pytest.fixture
def mstore(embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    """A fresh MemoryStore on ``QdrantClient(":memory:")`` alone (tests of one graph path that
    need no second backend)."""
    st = MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)
    yield st
    st.close()


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    """A fresh MemoryStore, once per backend."""
    st = make_store(request.param, tmp_path, embedder)
    yield st
    st.close()


@pytest.fixture
def alice() -> Scope:
    return Scope(user_id="alice")


@pytest.fixture
def bob() -> Scope:
    return Scope(user_id="bob")


def records_checksum(store: MemoryStore, *users: str) -> str:
    """sha256 over every stored record of ``users`` (all statuses, sorted JSON): equal before and
    after a refused call means the call changed nothing."""
    import hashlib

    dumps = sorted(
        rec.model_dump_json()
        for user in users
        for rec in store.list(scope=Scope(user_id=user), current_only=False)
    )
    return hashlib.sha256("\n".join(dumps).encode()).hexdigest()
