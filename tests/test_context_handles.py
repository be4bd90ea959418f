"""HandleStore (scoped payloads behind handles) and the fetch_memory tool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode

from langgraph_memory import MemoryContext, Scope
from langgraph_memory.context import HandleStore, create_fetch_memory_tool, is_handle
from langgraph_memory.errors import RecordNotFound, ScopeError


class _S(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def test_put_get_roundtrip_and_content_addressing() -> None:
    store = HandleStore()
    h = store.put("alice", "payload 载荷", {"kind": "tool_stub"})
    assert is_handle(h)
    assert store.get(Scope(user_id="alice"), h) == "payload 载荷"
    assert store.get_meta({"user_id": "alice"}, h) == {"kind": "tool_stub"}
    assert store.put("alice", "payload 载荷") == h  # same content, same scope -> same handle
    assert store.put("bob", "payload 载荷") != h
    assert len(store) == 2


def test_scope_isolation_never_leaks_existence() -> None:
    store = HandleStore()
    h = store.put("alice", "secret")
    with pytest.raises(RecordNotFound):
        store.get("bob", h)
    with pytest.raises(RecordNotFound):
        store.get("alice", "h_" + "0" * 20)
    with pytest.raises(ScopeError):
        store.get(None, h)  # type: ignore[arg-type]
    with pytest.raises(ScopeError):
        store.put("", "x")
    # project rules follow Scope: project-less payloads are visible inside projects, not vice versa
    hp = store.put(Scope(user_id="alice", project_id="p1"), "project secret")
    assert store.contains(Scope(user_id="alice", project_id="p1"), hp)
    assert not store.contains(Scope(user_id="alice", project_id="p2"), hp)
    assert not store.contains("alice", hp)
    assert store.contains(Scope(user_id="alice", project_id="p1"), h)
    # acl labels
    ha = store.put(Scope(user_id="alice", acl=("hr",)), "hr only")
    assert not store.contains("alice", ha)
    assert store.contains(Scope(user_id="alice", acl=("hr", "eng")), ha)


def test_delete_and_delete_user(tmp_path: Path) -> None:
    store = HandleStore(path=tmp_path / "handles")
    a1 = store.put("alice", "one")
    store.put("alice", "two")
    b1 = store.put("bob", "bob's")
    assert store.delete("bob", a1) is False  # not bob's to delete
    assert store.delete("alice", a1) is True
    assert store.list("alice") != [] and a1 not in store.list("alice")
    assert store.delete_user("alice") == 1
    assert store.list("alice") == []
    assert store.get("bob", b1) == "bob's"
    with pytest.raises(ScopeError):
        store.delete_user(" ")
    # forget-user removes the files too
    reopened = HandleStore(path=tmp_path / "handles")
    assert reopened.list("alice") == []
    assert reopened.get("bob", b1) == "bob's"


def test_directory_persistence_survives_restart(tmp_path: Path) -> None:
    first = HandleStore(path=tmp_path)
    h = first.put("alice", "x" * 10_000, {"message_id": "m1"})
    second = HandleStore(path=tmp_path)
    assert second.get("alice", h) == "x" * 10_000
    assert second.get_meta("alice", h)["message_id"] == "m1"
    assert second.list("alice") == [h]
    with pytest.raises(RecordNotFound):
        second.get("mallory", h)
    assert second.delete_user("alice") == 1


async def test_async_twins() -> None:
    store = HandleStore()
    h = await store.aput("alice", "async payload")
    assert await store.aget("alice", h) == "async payload"
    assert await store.adelete_user("alice") == 1


def test_fetch_memory_tool_pages_by_tokens_and_respects_scope() -> None:
    store = HandleStore()
    big = " ".join(f"word{i}" for i in range(3000))
    h = store.put("alice", big)
    tool = create_fetch_memory_tool(store, "alice", max_tokens=200)
    assert tool.name == "fetch_memory"
    assert "handle" in tool.args
    first = tool.invoke({"handle": h})
    assert first.startswith("word0 word1")
    assert "more characters" in first and "offset=" in first
    offset = int(first.rsplit("offset=", 1)[1].split(")")[0])
    second = tool.invoke({"handle": h, "offset": offset})
    assert big[offset : offset + 20] in second
    # paging through returns the whole payload, byte for byte
    collected, off = "", 0
    while True:
        page = tool.invoke({"handle": h, "offset": off})
        body = page.split("\n[... ", 1)[0]
        collected += body
        if "\n[... " not in page:
            break
        off = int(page.rsplit("offset=", 1)[1].split(")")[0])
    assert collected == big
    # other users' tools cannot read it and get a plain message (no exception)
    bobs = create_fetch_memory_tool(store, "bob")
    assert "No stored content" in bobs.invoke({"handle": h})
    small = store.put("alice", "短内容")
    assert tool.invoke({"handle": small}) == "短内容"


def test_fetch_memory_tool_reads_the_scope_from_the_graph_context() -> None:
    store = HandleStore()
    h = store.put("alice", "alice's payload")
    tool = create_fetch_memory_tool(store)  # no scope: taken from the run context

    g = StateGraph(_S, context_schema=MemoryContext)
    g.add_node("tools", ToolNode([tool]))
    g.add_edge(START, "tools")
    g.add_edge("tools", END)
    app = g.compile()
    call = AIMessage(
        content="", tool_calls=[{"name": "fetch_memory", "args": {"handle": h}, "id": "c1"}]
    )
    out = app.invoke({"messages": [call]}, context=MemoryContext(user_id="alice"))
    assert out["messages"][-1].content == "alice's payload"
    out = app.invoke({"messages": [call]}, context=MemoryContext(user_id="bob"))
    assert "No stored content" in out["messages"][-1].content
    with pytest.raises(ScopeError):  # outside a graph there is no user: fail closed
        tool.invoke({"handle": h})
