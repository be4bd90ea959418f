"""The BaseStore adapter as a drop-in LangGraph store: namespace templates, values exactly as
put, ``index=``, prefix semantics, filters inside the engine, TTL, absolute scores, batch and
async twins, and the same answers as LangGraph's ``InMemoryStore`` for the same operations.
Real engine (both backends where it matters), real BM25, real default embedder."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore
from qdrant_client import QdrantClient

from langgraph_memory import LangGraphMemoryStore, MemoryStore, Scope
from langgraph_memory.core.records import utcnow
from langgraph_memory.errors import ConfigError, FilterError, ScopeError
from langgraph_memory.graph.langgraph_store import DEFAULT_TTL_CONFIG, NamespaceTemplateError

from .conftest import make_store

MANAGER_VALUE = {"kind": "Memory", "content": {"content": "User prefers dark mode in all apps"}}
"""A value in LangMem's store-manager format."""


@pytest.fixture
def mem(embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    """Server-API store (fast to open); the both-backend tests use ``store``."""
    st = MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)
    yield st
    st.close()


def _cos(embedder: Any, a: str, b: str) -> float:
    va, vb = embedder.encode([a, b])
    return float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)))


# ============================================================================ namespaces
def test_langmem_namespace_maps_to_the_user_and_forget_user_erases_it(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store, namespace_template=("memories", "{user_id}"))
    lg.put(("memories", "alice"), "m1", MANAGER_VALUE)
    lg.put(("memories", "alice"), "m2", {"content": "Alice's cat is called Miso"})
    lg.put(("memories", "bob"), "m1", {"content": "Bob plays chess"})
    rec = store.get(lg.record_id(("memories", "alice"), "m1"), scope=Scope("alice"))
    assert rec.user_id == "alice" and rec.project_id is None
    assert store.count(scope=Scope("memories")) == 0  # "memories" is not a user
    receipt = store.forget_user("alice")
    assert receipt["records"] == 2
    assert lg.search(("memories", "alice")) == []
    assert lg.get(("memories", "alice"), "m1") is None
    assert [i.key for i in lg.search(("memories", "bob"))] == ["m1"]


def test_default_template_refuses_layouts_it_cannot_scope(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem)
    with pytest.raises(NamespaceTemplateError, match="namespace_template=") as err:
        lg.put(("memories", "alice"), "k", MANAGER_VALUE)
    assert isinstance(err.value, ValueError) and isinstance(err.value, InvalidNamespaceError)
    assert isinstance(err.value, ScopeError)
    assert mem.count(scope=Scope("memories"), current_only=False) == 0
    assert mem.count(scope=Scope("alice"), current_only=False) == 0
    with pytest.raises(NamespaceTemplateError):
        lg.search(("memories", "alice"), query="dark mode")


def test_fixed_labels_are_matched_literally(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem, namespace_template=("memories", "{user_id}"))
    for bad in [("shared",), ("notes", "alice"), ("memories",)]:
        with pytest.raises(NamespaceTemplateError):
            lg.put(bad, "k", {"text": "a shared note"})
    with pytest.raises(NamespaceTemplateError, match="names no user"):
        lg.search(("memories",), query="note")
    with pytest.raises(NamespaceTemplateError):
        lg.list_namespaces(prefix=("memories",))
    assert mem.count(scope=Scope("shared"), current_only=False) == 0
    # a template that says so makes ("shared",) a user named "shared"
    bare = LangGraphMemoryStore(mem)
    bare.put(("shared",), "k", {"text": "a shared note"})
    assert mem.count(scope=Scope("shared")) == 1


@pytest.mark.parametrize(
    "template",
    [
        ("memories",),
        ("{user_id}", "{user_id}"),
        ("{project_id}", "{user_id}"),
        ("{tenant}", "{user_id}"),
        ("a.b", "{user_id}"),
        (),
        "memories",
    ],
)
def test_bad_templates_are_config_errors(mem: MemoryStore, template: Any) -> None:
    with pytest.raises(ConfigError):
        LangGraphMemoryStore(mem, namespace_template=template)


def test_langmem_spelling_of_the_user_slot(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem, namespace_template=("memories", "{langgraph_user_id}"))
    lg.put(("memories", "carol"), "k", {"content": "Carol bikes to work"})
    assert mem.count(scope=Scope("carol")) == 1


# ============================================================================ values
@pytest.mark.parametrize(
    "value",
    [
        MANAGER_VALUE,
        {"content": "plain LangMem tool memory"},
        {"title": "日本語のメモ", "n": 3, "x": 1.5, "ok": True, "none": None, "tags": ["a", "b"]},
        {"deep": {"er": {"est": [1, {"k": "v"}]}}},
        {"text": "has text", "id": "my-own-id", "score": 0.3},
        {},
    ],
)
def test_values_come_back_exactly_as_put(mem: MemoryStore, value: dict[str, Any]) -> None:
    lg = LangGraphMemoryStore(mem)
    lg.put(("alice",), "k", value)
    item = lg.get(("alice",), "k")
    assert item is not None and item.value == value
    [hit] = lg.search(("alice",))
    assert hit.value == value and hit.key == "k" and hit.namespace == ("alice",)
    if value:
        [scored] = lg.search(("alice",), query="memory")
        assert scored.value == value


def test_langmem_content_is_embedded_and_recalled_by_the_memory_nodes(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem)
    lg.put(("alice",), "k", MANAGER_VALUE)
    rec = mem.get(lg.record_id(("alice",), "k"), scope=Scope("alice"))
    assert rec.text == "User prefers dark mode in all apps"
    assert mem.search("dark mode", Scope("alice")).ids == [rec.id]
    assert mem.search("dark mode", Scope("bob")).ids == []


# ============================================================================ index=
def test_index_false_is_not_ranked_nor_recalled(mem: MemoryStore, embedder: Any) -> None:
    lg = LangGraphMemoryStore(mem)
    lg.put(("alice",), "ranked", {"text": "Alice swims every morning"})
    lg.put(("alice",), "hidden", {"text": "Alice swims in the lake"}, index=False)
    hits = lg.search(("alice",), query="swimming", limit=5)
    assert [h.key for h in hits] == ["ranked", "hidden"]  # unindexed fills the page
    assert hits[0].score is not None and hits[1].score is None
    assert [h.key for h in lg.search(("alice",), query="swimming", limit=1)] == ["ranked"]
    hidden_id = lg.record_id(("alice",), "hidden")
    assert hidden_id not in mem.search("swims lake", Scope("alice"), k=10).ids
    assert lg.get(("alice",), "hidden") is not None
    # put again with index=None: now it is indexed and ranked by similarity
    lg.put(("alice",), "hidden", {"text": "Alice swims in the lake"})
    assert lg.search(("alice",), query="lake swim", limit=1)[0].key == "hidden"
    assert hidden_id in mem.search("swims lake", Scope("alice"), k=10).ids


def test_index_paths_choose_the_embedded_text(mem: MemoryStore, embedder: Any) -> None:
    lg = LangGraphMemoryStore(mem)
    value = {"title": "Kyoto trip in April", "body": "quarterly budget numbers", "n": 1}
    lg.put(("alice",), "k", value, index=["title"])
    rec = mem.get(lg.record_id(("alice",), "k"), scope=Scope("alice"))
    assert rec.text == "Kyoto trip in April"
    [hit] = lg.search(("alice",), query="travel to Japan")
    assert hit.score == pytest.approx(_cos(embedder, "travel to Japan", rec.text), abs=2e-3)
    by_default = LangGraphMemoryStore(mem, index_fields=["body"])
    by_default.put(("bob",), "k", value)
    assert mem.get(lg.record_id(("bob",), "k"), scope=Scope("bob")).text == value["body"]


# ============================================================================ prefixes
def test_deep_namespaces_and_prefix_semantics(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store, subnamespaces=True)
    lg.put(("alice",), "top", {"text": "Alice lives in Lisbon"})
    lg.put(("alice", "proj1"), "p", {"text": "proj1 deploys on Fridays"})
    lg.put(("alice", "proj1", "notes", "2024"), "n", {"text": "proj1 retro notes"})
    lg.put(("bob", "proj1"), "p", {"text": "bob's proj1 deploys on Mondays"})
    assert lg.get(("alice", "proj1", "notes", "2024"), "n") is not None
    assert lg.get(("alice", "proj1", "notes"), "n") is None  # the namespace is exact for get
    assert {(h.namespace, h.key) for h in lg.search(("alice",))} == {
        (("alice",), "top"),
        (("alice", "proj1"), "p"),
        (("alice", "proj1", "notes", "2024"), "n"),
    }
    assert {h.key for h in lg.search(("alice", "proj1"), query="deploys")} == {"p", "n"}
    assert all(h.namespace[0] == "alice" for h in lg.search(("alice",), query="deploys"))
    assert lg.list_namespaces(prefix=("alice",)) == [
        ("alice",),
        ("alice", "proj1"),
        ("alice", "proj1", "notes", "2024"),
    ]
    assert lg.list_namespaces(prefix=("alice",), max_depth=2) == [("alice",), ("alice", "proj1")]
    assert lg.list_namespaces(prefix=("alice",), suffix=("2024",)) == [
        ("alice", "proj1", "notes", "2024")
    ]
    assert lg.list_namespaces(prefix=("alice", "*", "notes")) == [
        ("alice", "proj1", "notes", "2024")
    ]
    with pytest.raises(ScopeError):
        lg.list_namespaces(prefix=("*", "proj1"))  # users are never enumerated


def test_all_projects_read_keeps_the_user_partition(mem: MemoryStore) -> None:
    mem.add("alice apollo note", scope=Scope("alice", "apollo"))
    mem.add("bob apollo note", scope=Scope("bob", "apollo"))
    got = mem.search("apollo note", Scope("alice"), k=10, all_projects=True)
    assert [r.user_id for r in got.records] == ["alice"]
    assert mem.search("apollo note", Scope("alice"), k=10).hits == []  # default: no project
    assert [r.user_id for r in mem.list(scope=Scope("alice"), all_projects=True)] == ["alice"]


# ============================================================================ filters
def test_filters_are_pushed_into_the_engine(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    lg = LangGraphMemoryStore(store)
    notes = 120  # more than the recall's candidate depth (100): post-filtering would miss
    for i in range(notes):
        lg.put(("alice",), f"tea{i}", {"text": f"Alice drinks green tea, cup {i}", "kind": "note"})
    lg.put(("alice",), "f1", {"text": "Alice owns a red bicycle", "kind": "fact", "n": 3})
    lg.put(("alice",), "f2", {"text": "Alice speaks Portuguese", "kind": "fact", "n": 7})
    lg.put(("bob",), "f3", {"text": "Bob drinks tea", "kind": "fact", "n": 5})
    calls: list[str] = []
    for name in ("search", "list"):
        real = getattr(store, name)
        monkeypatch.setattr(
            store, name, lambda *a, _n=name, _f=real, **k: calls.append(_n) or _f(*a, **k)
        )
    hits = lg.search(("alice",), query="green tea", filter={"kind": "fact"}, limit=2)
    assert {h.key for h in hits} == {"f1", "f2"}  # 2 matching among 122
    assert calls == ["search"]  # one engine query with the filter inside: no listing pass
    monkeypatch.undo()
    assert all(h.score is not None for h in hits)
    assert {h.key for h in lg.search(("alice",), filter={"kind": "fact"})} == {"f1", "f2"}
    assert [h.key for h in lg.search(("alice",), filter={"n": {"$gt": 3}})] == ["f2"]
    assert [h.key for h in lg.search(("alice",), filter={"n": {"$gte": 3, "$lt": 7}})] == ["f1"]
    assert [h.key for h in lg.search(("alice",), filter={"n": {"$lte": 3}})] == ["f1"]
    assert [h.key for h in lg.search(("alice",), filter={"n": {"$eq": 7}})] == ["f2"]
    not_notes = lg.search(("alice",), query="tea", filter={"kind": {"$ne": "note"}}, limit=5)
    assert {h.key for h in not_notes} == {"f1", "f2"}
    assert len(lg.search(("alice",), filter={"kind": "note"}, limit=500)) == notes
    assert [h.key for h in lg.search(("alice",), filter={"kind": "fact"}, offset=1)] == ["f2"]


def test_bad_inputs_write_nothing(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem)
    with pytest.raises(TypeError, match="index"):
        lg.put(("alice",), "k", {"text": "x"}, index="text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dict"):
        lg.put(("alice",), "k", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="JSON"):
        lg.put(("alice",), "k", {"when": object()})
    assert mem.count(scope=Scope("alice"), current_only=False) == 0
    with pytest.raises(ValueError, match="at most 1000"):
        lg.search(("alice",), query="x", offset=990, limit=20)
    with pytest.raises(FilterError):
        lg.search(("alice",), filter=["kind"])  # type: ignore[arg-type]


def test_filter_semantics_match_in_memory_store(mem: MemoryStore) -> None:
    ours = LangGraphMemoryStore(mem)
    ref = InMemoryStore()
    values = {
        "a": {"text": "tea", "tags": ["x", "y"], "meta": {"lang": "en", "v": 2}, "flag": True},
        "b": {"text": "coffee", "tags": "x", "meta": [{"lang": "en"}], "flag": 1},
        "c": {"text": "juice", "odd key": "yes", "meta": {"lang": "fr"}, "none": None},
    }
    for key, value in values.items():
        ours.put(("alice",), key, value)
        ref.put(("alice",), key, value)
    filters: list[dict[str, Any]] = [
        {"tags": "x"},
        {"tags": ["x", "y"]},
        {"meta": {"lang": "en"}},
        {"meta": {"lang": "en", "v": 2}},
        {"odd key": "yes"},
        {"none": None},
        {"flag": True},
        {"text": {"$ne": "tea"}},
        {"missing": {"$ne": 1}},
        {"meta": {"v": {"$gte": 2}}},
    ]
    by_design = {
        repr({"flag": True}): {"a"},  # True equals only True (InMemoryStore also matches 1)
        repr({"meta": {"v": {"$gte": 2}}}): {"a"},  # InMemoryStore raises on the missing "v"
    }
    for f in filters:
        want = by_design.get(repr(f)) or {i.key for i in ref.search(("alice",), filter=f)}
        assert {i.key for i in ours.search(("alice",), filter=f)} == want, f
        assert {i.key for i in ours.search(("alice",), query="drink", filter=f)} == want, f
    with pytest.raises(FilterError, match="operator"):
        ours.search(("alice",), filter={"n": {"$in": [1]}})
    with pytest.raises(FilterError, match="numbers"):
        ours.search(("alice",), filter={"n": {"$gt": "3"}})


# ============================================================================ scores
def test_scores_are_absolute_cosine_similarities(mem: MemoryStore, embedder: Any) -> None:
    lg = LangGraphMemoryStore(mem)
    texts = {"a": "Alice likes green tea", "b": "Alice works at a bakery", "c": "It rained"}
    for key, text in texts.items():
        lg.put(("alice",), key, {"text": text})
    query = "what tea does she like?"
    hits = lg.search(("alice",), query=query, limit=3)
    assert hits[0].key == "a" and len(hits) == 3
    for hit in hits:
        assert hit.score == pytest.approx(_cos(embedder, query, texts[hit.key]), abs=2e-3)
    assert hits[-1].score != 0.0  # not min-max normalised
    # the same item scores the same whatever else the store holds
    lg.put(("alice",), "d", {"text": "Alice drinks green tea every morning"})
    again = {h.key: h.score for h in lg.search(("alice",), query=query, limit=4)}
    assert again["a"] == pytest.approx(hits[0].score, abs=1e-4)


# ============================================================================ ttl
def test_ttl_config_refresh_and_default_ttl(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem)
    assert lg.supports_ttl and lg.ttl_config == DEFAULT_TTL_CONFIG
    lg.put(("alice",), "k", {"text": "a note that lives an hour"}, ttl=60)
    rid = lg.record_id(("alice",), "k")
    scope = Scope("alice")
    expiry = mem.get(rid, scope=scope).expire_at
    assert expiry is not None
    assert abs((expiry - utcnow()) - timedelta(minutes=60)) < timedelta(seconds=30)

    def shorten() -> None:
        mem.update(rid, scope=scope, expire_at=utcnow() + timedelta(minutes=5))

    def remaining() -> timedelta:
        at = mem.get(rid, scope=scope).expire_at
        assert at is not None
        return at - utcnow()

    shorten()
    assert lg.get(("alice",), "k", refresh_ttl=False) is not None
    assert remaining() < timedelta(minutes=6)
    assert lg.get(("alice",), "k") is not None  # refresh_on_read by default
    assert remaining() > timedelta(minutes=59)
    shorten()
    assert [h.key for h in lg.search(("alice",), query="note", refresh_ttl=False)] == ["k"]
    assert remaining() < timedelta(minutes=6)
    assert [h.key for h in lg.search(("alice",), query="note")] == ["k"]
    assert remaining() > timedelta(minutes=59)
    shorten()
    lg.search(("alice",))  # a listing refreshes too
    assert remaining() > timedelta(minutes=59)
    # an item without ttl never gets one from a read
    lg.put(("alice",), "forever", {"text": "no ttl"})
    lg.get(("alice",), "forever")
    assert mem.get(lg.record_id(("alice",), "forever"), scope=scope).expire_at is None

    cfg = LangGraphMemoryStore(mem, ttl_config={"default_ttl": 30, "refresh_on_read": False})
    cfg.put(("bob",), "k", {"text": "default ttl applies"})
    bob_expiry = mem.get(cfg.record_id(("bob",), "k"), scope=Scope("bob")).expire_at
    assert bob_expiry is not None and bob_expiry - utcnow() < timedelta(minutes=31)
    for bad in [{"sweep_interval_minutes": 5}, {"default_ttl": -1}, {"unknown": 1}]:
        with pytest.raises(ConfigError):
            LangGraphMemoryStore(mem, ttl_config=bad)  # type: ignore[arg-type]


# ============================================================================ batch / async
async def test_batch_abatch_and_async_twins_agree(mem: MemoryStore) -> None:
    lg = LangGraphMemoryStore(mem, namespace_template=("memories", "{user_id}"))
    ns = ("memories", "alice")
    await lg.aput(ns, "a", {"content": "Alice likes green tea", "kind": "fact"})
    lg.put(ns, "b", {"content": "Alice runs marathons", "kind": "hobby"})
    reads = [
        GetOp(ns, "a"),
        SearchOp(ns, {"kind": "fact"}, 10, 0, None),
        SearchOp(ns, None, 10, 0, "tea"),
    ]
    got_sync = lg.batch(reads)
    got_async = await lg.abatch(reads)
    assert got_sync[0] == got_async[0] and got_sync[0] is not None

    def keys(result: Any) -> list[str]:
        return [i.key for i in result]

    assert keys(got_sync[1]) == keys(got_async[1]) == ["a"]
    assert keys(got_sync[2]) == keys(got_async[2]) == ["a", "b"]
    # a put is visible to the reads after it in the same batch
    put_then_get = [PutOp(ns, "c", {"content": "Alice reads sci-fi"}), GetOp(ns, "c")]
    assert (await lg.abatch(put_then_get))[1] is not None
    assert (await lg.aget(ns, "a")) == lg.get(ns, "a")
    tea = keys(lg.search(ns, query="tea"))
    assert tea[:1] == ["a"] and keys(await lg.asearch(ns, query="tea")) == tea
    assert await lg.alist_namespaces(prefix=ns) == lg.list_namespaces(prefix=ns) == [ns]
    await asyncio.gather(lg.adelete(ns, "a"), lg.adelete(ns, "b"))
    assert keys(lg.search(ns)) == ["c"]


# ============================================================================ side by side
def test_same_answers_as_in_memory_store(tmp_path: Any, embedder: Any) -> None:
    """The same operations on InMemoryStore (same embedder) and the adapter give the same
    items; query searches agree on the best hit and on the set of hits."""

    def embed(texts: list[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in embedder.encode(texts)]

    ref = InMemoryStore(
        index={"dims": embedder.dims, "embed": embed, "fields": ["text", "content.content"]}
    )
    with make_store("edge", tmp_path, embedder) as mstore:
        ours = LangGraphMemoryStore(mstore, subnamespaces=True)
        puts: list[tuple[tuple[str, ...], str, dict[str, Any] | None, Any]] = [
            (("alice",), "a", {"text": "Alice likes green tea", "kind": "fact", "n": 1}, None),
            (("alice", "p1"), "b", {"text": "Project one ships on Fridays", "n": 5}, None),
            (("alice", "p1", "notes"), "c", MANAGER_VALUE, None),
            (("alice",), "d", {"text": "an unindexed scratch note", "kind": "fact"}, False),
            (("bob",), "a", {"text": "Bob likes black coffee", "kind": "fact"}, None),
            (("alice",), "a", {"text": "Alice likes jasmine tea", "kind": "fact", "n": 2}, None),
            (("alice", "p1"), "gone", {"text": "to be deleted"}, None),
            (("alice", "p1"), "gone", None, None),
        ]
        for store in (ref, ours):
            for ns, key, value, index in puts:
                if value is None:
                    store.delete(ns, key)
                else:
                    store.put(ns, key, value, index=index)

        def triples(items: list[Any]) -> list[tuple[Any, ...]]:
            return sorted((tuple(i.namespace), i.key, repr(i.value)) for i in items)

        for ns, key, _, _ in puts:
            a, b = ref.get(ns, key), ours.get(ns, key)
            assert (a is None) == (b is None) and (a is None or a.value == b.value), (ns, key)
        for prefix, f in [
            (("alice",), None),
            (("alice", "p1"), None),
            (("alice",), {"kind": "fact"}),
            (("alice",), {"content": {"content": MANAGER_VALUE["content"]["content"]}}),  # type: ignore[index]
            (("bob",), None),
        ]:
            assert triples(ours.search(prefix, filter=f, limit=50)) == triples(
                ref.search(prefix, filter=f, limit=50)
            ), (prefix, f)
        for query in ["jasmine tea", "dark mode apps", "release day"]:
            r, o = (
                ref.search(("alice",), query=query, limit=10),
                ours.search(("alice",), query=query, limit=10),
            )
            assert triples(o) == triples(r), query
            assert (o[0].namespace, o[0].key) == (r[0].namespace, r[0].key), query
            assert [i.score is None for i in o] == [i.score is None for i in r], query
        assert ours.list_namespaces(prefix=("alice",)) == ref.list_namespaces(prefix=("alice",))
        assert ours.list_namespaces(prefix=("alice",), max_depth=2) == ref.list_namespaces(
            prefix=("alice",), max_depth=2
        )
        assert ours.list_namespaces(prefix=("alice",), suffix=("notes",)) == ref.list_namespaces(
            prefix=("alice",), suffix=("notes",)
        )


def test_readme_store_snippet_runs(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's "LangGraph store API" example runs as printed."""
    import re
    import tempfile
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### LangGraph store API") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    exec(compile(code.group(1), "README.md", "exec"), {})
