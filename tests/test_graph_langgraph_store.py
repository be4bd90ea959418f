"""The MemoryStore as a LangGraph BaseStore: namespaces are scopes, runtime.store works."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, InvalidNamespaceError

from langgraph_memory import LangGraphMemoryStore, MemoryStore, Scope
from langgraph_memory.errors import ScopeError


def test_put_get_update_delete(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store)
    assert isinstance(lg, BaseStore)
    lg.put(
        ("alice",),
        "lang",
        {"text": "Alice prefers answers in Chinese", "kind": "preference", "tag": "x"},
    )
    item = lg.get(("alice",), "lang")
    assert item is not None and item.key == "lang" and item.namespace == ("alice",)
    assert item.value == {
        "text": "Alice prefers answers in Chinese",
        "kind": "preference",
        "tag": "x",
    }  # exactly as put: no added keys
    # it is a real memory record of alice's scope, and "kind" set the record's kind
    rid = lg.record_id(("alice",), "lang")
    rec = store.get(rid, scope=Scope("alice"))
    assert rec.kind.value == "preference" and rec.text == "Alice prefers answers in Chinese"
    # put on the same key updates in place (one record, version 2)
    lg.put(("alice",), "lang", {"text": "Alice prefers answers in English"})
    again = lg.get(("alice",), "lang")
    assert again is not None and again.value == {"text": "Alice prefers answers in English"}
    assert store.get(rid, scope=Scope("alice")).version == 2
    assert store.count(scope=Scope("alice")) == 1
    # another user's namespace never sees it
    assert lg.get(("bob",), "lang") is None
    lg.delete(("alice",), "lang")
    assert lg.get(("alice",), "lang") is None


def test_search_is_scoped_and_filtered(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store, prefix=("memories",))
    lg.put(("memories", "alice"), "a", {"text": "Alice likes green tea", "kind": "preference"})
    lg.put(
        ("memories", "alice"),
        "b",
        {"text": "Alice works at a bakery", "kind": "stable_fact", "n": 3},
    )
    lg.put(("memories", "bob"), "c", {"text": "Bob likes green tea too"})
    hits = lg.search(("memories", "alice"), query="what tea does she like?", limit=5)
    assert hits and hits[0].key == "a" and hits[0].score is not None
    assert {h.namespace for h in hits} == {("memories", "alice")}
    assert all("Bob" not in h.value["text"] for h in hits)
    only_facts = lg.search(("memories", "alice"), filter={"kind": "stable_fact"})
    assert [h.key for h in only_facts] == ["b"]
    by_value = lg.search(("memories", "alice"), filter={"n": {"$gte": 2}})
    assert [h.key for h in by_value] == ["b"]
    assert lg.search(("memories", "alice"), limit=1, offset=1)[0].key in {"a", "b"}
    assert lg.list_namespaces(prefix=("memories", "alice")) == [("memories", "alice")]


def test_fail_closed_namespaces(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store)
    with pytest.raises(ScopeError):
        lg.search((), query="anything")
    with pytest.raises(ScopeError):
        lg.list_namespaces()
    with pytest.raises(InvalidNamespaceError):  # deeper than the default template allows
        lg.put(("alice", "proj", "extra"), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        lg.put(("alice.smith",), "k", {"text": "x"})  # LangGraph forbids '.' in labels
    assert store.count(scope=Scope("alice")) == 0  # nothing was written


def test_project_namespace(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store, namespace_template=("{user_id}", "{project_id}"))
    lg.put(("alice", "apollo"), "k", {"text": "The apollo project deploys on Fridays"})
    assert lg.get(("alice", "apollo"), "k") is not None
    assert lg.get(("alice", "zeus"), "k") is None
    assert lg.search(("alice", "zeus"), query="deploys Fridays") == []
    # prefix semantics (as InMemoryStore): the user's prefix includes the project's items
    assert [h.key for h in lg.search(("alice",), query="deploys Fridays")] == ["k"]
    # and the record is in project apollo for the memory nodes' recall too
    rec = store.get(lg.record_id(("alice", "apollo"), "k"), scope=Scope("alice", "apollo"))
    assert rec.project_id == "apollo"
    assert store.search("deploys Fridays", Scope("alice", "zeus")).hits == []


@dataclass
class _Ctx:
    user_id: str


class _S(TypedDict, total=False):
    question: str
    answer: str


def _node(state: _S, runtime: Runtime[_Ctx]) -> dict[str, Any]:
    assert runtime.store is not None
    ns = (runtime.context.user_id,)
    runtime.store.put(ns, "fav", {"text": "favourite colour is teal", "kind": "preference"})
    hits = runtime.store.search(ns, query=state["question"], limit=1)
    return {"answer": hits[0].value["text"] if hits else ""}


async def _anode(state: _S, runtime: Runtime[_Ctx]) -> dict[str, Any]:
    assert runtime.store is not None
    hits = await runtime.store.asearch((runtime.context.user_id,), query=state["question"], limit=1)
    return {"answer": hits[0].value["text"] if hits else ""}


async def test_runtime_store_in_compiled_graph(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store)
    graph = (
        StateGraph(_S, context_schema=_Ctx)
        .add_node("n", _node)
        .set_entry_point("n")
        .set_finish_point("n")
        .compile(store=lg)
    )
    out = graph.invoke({"question": "which colour?"}, context=_Ctx("alice"))
    assert out["answer"] == "favourite colour is teal"
    agraph = (
        StateGraph(_S, context_schema=_Ctx)
        .add_node("n", _anode)
        .set_entry_point("n")
        .set_finish_point("n")
        .compile(store=lg)
    )
    assert (await agraph.ainvoke({"question": "colour"}, context=_Ctx("alice")))["answer"]
    assert (await agraph.ainvoke({"question": "colour"}, context=_Ctx("bob")))["answer"] == ""
    assert await lg.aget(("alice",), "fav") is not None


def test_runtime_store_on_edge(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    with MemoryStore(path=tmp_path / "edge", embedder=embedder) as edge:
        lg = LangGraphMemoryStore(edge)
        lg.put(("alice",), "k", {"text": "Alice keeps bees", "kind": "stable_fact"})
        assert [h.key for h in lg.search(("alice",), query="bees")] == ["k"]
        assert lg.search(("bob",), query="bees") == []


def test_ttl_expires_items(store: MemoryStore) -> None:
    import time

    lg = LangGraphMemoryStore(store)
    assert lg.supports_ttl
    lg.put(("alice",), "short", {"text": "a short-lived note"}, ttl=0.005)  # 0.3 s
    lg.put(("alice",), "long", {"text": "a long-lived note"}, ttl=60)
    assert lg.get(("alice",), "short") is not None
    time.sleep(0.4)
    assert lg.get(("alice",), "short") is None
    assert lg.get(("alice",), "long") is not None
    assert [h.key for h in lg.search(("alice",), query="note")] == ["long"]
