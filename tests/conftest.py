"""Shared fixtures: the real default embedder (loaded once) and a store on each backend."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.core import LifecyclePolicy
from langgraph_memory.embeddings import Embedder, USEEmbedder


def current_slots(mem: MemoryStore, user: str, turns: list[str]) -> set[tuple[str, str]]:
    """The (predicate, object) pairs current for ``user`` after the write pipeline processed
    ``turns`` in one thread."""
    from langgraph_memory import WritePipeline

    pipeline = WritePipeline(mem)
    for i, text in enumerate(turns):
        pipeline.process_turn(text, scope=Scope(user_id=user), turn_id=f"t{i}", thread_id="th")
    return {((r.predicate or ""), (r.object or "")) for r in mem.list(scope=Scope(user_id=user))}


@pytest.fixture(scope="session")
def embedder() -> USEEmbedder:
    """The real default embedder (USE multilingual, weights from the installed package)."""
    model = USEEmbedder()
    model.warmup()
    return model


BACKENDS = ["edge", "server"]
"""The two backends every store-backed test runs on: the embedded engine users get by default
(``MemoryStore(path=...)``) and the qdrant-client API (``QdrantClient(":memory:")``, the same
client calls as a real server)."""


def copy_sparse(source: Path, target: Path) -> None:
    """Copy a store directory keeping its files sparse. An empty embedded store is ~0.6 MB on
    disk but ~245 MB of preallocated (sparse) pages; ``shutil.copytree`` writes the holes out as
    zeros, which filled a 100 GB disk over one test run."""
    subprocess.run(["cp", "-r", "--sparse=always", str(source), str(target)], check=True)


def make_store(
    kind: str,
    tmp_path: Path,
    embedder: Embedder,
    *,
    template: Path | None = None,
    cls: type[MemoryStore] = MemoryStore,
    lifecycle: LifecyclePolicy | None = None,
) -> MemoryStore:
    """A fresh ``cls`` store on the embedded engine (``edge``) or a qdrant-client collection
    (``server``). With ``template`` (an edge store directory that was created and closed), the
    edge store is a copy of it opened with ``MemoryStore(path=...)``: the same on-disk store,
    without paying the payload-index creation for every test. ``lifecycle`` replaces the
    store's default policy when given."""
    options = {} if lifecycle is None else {"lifecycle": lifecycle}
    if kind == "edge":
        path = tmp_path / "mem"
        if template is not None:
            copy_sparse(template, path)
        return cls(path=path, embedder=embedder, **options)
    if kind != "server":
        raise ValueError(f"unknown backend {kind!r}; choose from {BACKENDS}")
    return cls(client=QdrantClient(":memory:"), embedder=embedder, **options)


@pytest.fixture(scope="session")
def edge_template(tmp_path_factory: pytest.TempPathFactory, embedder: USEEmbedder) -> Path:
    """An empty embedded store, created (indexes and all) once per session and closed."""
    path = tmp_path_factory.mktemp("edge-template") / "mem"
    MemoryStore(path=path, embedder=embedder).close()
    return path


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend of this test run (see :data:`BACKENDS`): the one parametrization point for
    tests that build their own store (a subclass, other options) with :func:`make_store`."""
    return str(request.param)


@pytest.fixture
def store(
    backend: str, tmp_path: Path, embedder: USEEmbedder, edge_template: Path
) -> Iterator[MemoryStore]:
    """A fresh, empty MemoryStore, once per backend."""
    st = make_store(backend, tmp_path, embedder, template=edge_template)
    yield st
    st.close()


@pytest.fixture
def mem(embedder: USEEmbedder) -> Iterator[MemoryStore]:
    """A store over qdrant-client's in-memory engine with the real embedder: for write-path
    tests that check what is extracted and stored, not the backend (files that need a
    particular backend define their own ``mem``)."""
    st = MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)
    yield st
    st.close()


@pytest.fixture
def mstore(tmp_path: Path, embedder: USEEmbedder, edge_template: Path) -> Iterator[MemoryStore]:
    """One fresh embedded store (the default users get), for tests of one path that need no
    second backend (security, task-bound, drop-in checks); graph and node tests use ``store``."""
    st = make_store("edge", tmp_path, embedder, template=edge_template)
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
