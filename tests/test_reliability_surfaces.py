"""Tenant isolation through every surface besides MemoryStore.search: LangGraph BaseStore
namespaces, history, handles; and no lost update under concurrent read-merge-retry writers
(threads and asyncio.gather), on both backends."""

from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import GetOp, SearchOp

from langgraph_memory import LangGraphMemoryStore, MemoryStore, Scope
from langgraph_memory.context import HandleStore
from langgraph_memory.errors import RecordNotFound, ScopeError, VersionConflict

from .conftest import BACKENDS, make_store

USERS = [f"user{i}" for i in range(8)]
PROJECTS = [None, "alpha", "beta"]
TOPICS = ["green tea", "kyoto trip", "budget review", "绿茶", "会议记录"]


def _ns(user: str, project: str | None) -> tuple[str, ...]:
    return (user,) if project is None else (user, project)


@pytest.fixture(scope="module", params=BACKENDS)
def world(request, tmp_path_factory, embedder):  # type: ignore[no-untyped-def]
    store = make_store(request.param, tmp_path_factory.mktemp("surfaces"), embedder)
    lg = LangGraphMemoryStore(store, namespace_template=("{user_id}", "{project_id}"))
    handles = HandleStore()
    owned_handles: dict[str, tuple[str, str | None]] = {}
    for user in USERS:
        for project in PROJECTS:
            for i, topic in enumerate(TOPICS):
                lg.put(_ns(user, project), f"k{i}", {"text": f"{topic} shared wording {i}"})
            scope = Scope(user, project_id=project)
            store.add(f"{user} lives in city A", scope=scope, subject="user", predicate="city")
            h = handles.put(scope, f"tool output of the same shape for {project}")
            owned_handles[h] = (user, project)
    yield store, lg, handles, owned_handles
    store.close()


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    reader=st.sampled_from(USERS),
    project=st.sampled_from(PROJECTS),
    owner=st.sampled_from(USERS),
    owner_project=st.sampled_from(PROJECTS),
    topic=st.sampled_from(TOPICS),
    key=st.integers(0, len(TOPICS) - 1),
)
def test_no_surface_crosses_tenants(
    world, reader, project, owner, owner_project, topic, key
) -> None:  # type: ignore[no-untyped-def]
    store, lg, handles, owned_handles = world
    scope = Scope(reader, project_id=project)
    ns = _ns(reader, project)
    # BaseStore search: only namespaces under the reader's prefix (InMemoryStore semantics)
    [items] = lg.batch([SearchOp(namespace_prefix=ns, query=topic, limit=20)])
    for item in items:
        assert item.namespace[0] == reader
        assert item.namespace[: len(ns)] == ns
    # BaseStore get: the same key in two namespaces is two records; the namespace decides
    [got] = lg.batch([GetOp(namespace=_ns(owner, owner_project), key=f"k{key}")])
    assert got is not None and got.namespace == _ns(owner, owner_project)
    [mine] = lg.batch([GetOp(namespace=ns, key=f"k{key}")])
    assert mine is not None and mine.namespace == ns
    assert store.get(lg.record_id(ns, f"k{key}"), scope=scope).user_id == reader
    # history never returns another tenant's versions
    for rec in store.history(scope=scope, subject="user", predicate="city"):
        assert scope.can_read(rec.user_id, rec.project_id, rec.acl)
        assert rec.text.startswith(reader)
    # handles: another tenant's handle reads as not found
    for handle, (u, p) in list(owned_handles.items())[:6]:
        if scope.can_read(u, p, []):
            assert "tool output" in handles.get(scope, handle)
        else:
            with pytest.raises(RecordNotFound):
                handles.get(scope, handle)


def test_basestore_refuses_global_namespaces(world) -> None:  # type: ignore[no-untyped-def]
    _, lg, _, _ = world
    for bad in [(), ("",)]:
        with pytest.raises((ScopeError, ValueError)):
            lg.batch([SearchOp(namespace_prefix=bad, query="tea", limit=5)])


@pytest.mark.parametrize("kind", BACKENDS)
def test_eight_threads_read_merge_retry_lose_no_update(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    store: MemoryStore = make_store(kind, tmp_path, embedder)
    scope = Scope("alice")
    rid = store.add("counter record", scope=scope, metadata={"count": 0})
    conflicts: list[int] = []
    per_thread = 10

    def worker() -> None:
        done = 0
        while done < per_thread:
            current = store.get(rid, scope=scope)
            try:
                store.update(
                    rid,
                    scope=scope,
                    expected_version=current.version,
                    metadata={"count": current.metadata["count"] + 1},
                )
                done += 1
            except VersionConflict:
                conflicts.append(1)  # surfaced; re-read and merge

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.get(rid, scope=scope)
    store.close()
    assert final.metadata["count"] == 8 * per_thread  # no lost update
    assert final.version == 1 + 8 * per_thread


@pytest.mark.parametrize("kind", BACKENDS)
def test_asyncio_gather_writers_lose_no_update(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    store: MemoryStore = make_store(kind, tmp_path, embedder)
    scope = Scope("alice")
    rid = store.add("async counter", scope=scope, metadata={"count": 0})

    async def writer(n: int) -> int:
        conflicts = 0
        for _ in range(n):
            while True:
                current = await store.aget(rid, scope=scope)
                try:
                    await store.aupdate(
                        rid,
                        scope=scope,
                        expected_version=current.version,
                        metadata={"count": current.metadata["count"] + 1},
                    )
                    break
                except VersionConflict:
                    conflicts += 1
        return conflicts

    async def main() -> list[int]:
        return await asyncio.gather(*(writer(5) for _ in range(8)))

    asyncio.run(main())
    final = store.get(rid, scope=scope)
    store.close()
    assert final.metadata["count"] == 40
    assert final.version == 41
