"""Real LangMem (``create_manage_memory_tool``, ``create_search_memory_tool``,
``create_memory_store_manager``) against the BaseStore adapter, with LangMem's default
namespace ``("memories", "{langgraph_user_id}")``: every memory lands under the right user
and ``forget_user`` erases it. The chat models are scripted fakes (no LLM); the store, the
engine and the embedder are real."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from qdrant_client import QdrantClient

from langgraph_memory import LangGraphMemoryStore, MemoryStore, Scope
from langgraph_memory.testing import ScriptedChatModel

from .fakes import FakeToolCallingChatModel

langmem = pytest.importorskip("langmem")
agents = pytest.importorskip("langchain.agents")

NAMESPACE = ("memories", "{langgraph_user_id}")
"""LangMem's default namespace."""


@pytest.fixture
def lg(embedder) -> Iterator[LangGraphMemoryStore]:  # type: ignore[no-untyped-def]
    mem = MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)
    yield LangGraphMemoryStore(mem, namespace_template=("memories", "{user_id}"))
    mem.close()


def _cfg(user: str) -> dict[str, Any]:
    return {"configurable": {"langgraph_user_id": user}}


def _agent(lg: LangGraphMemoryStore, script: list[Any]) -> Any:
    """A real ``create_agent`` graph with LangMem's tools; the model replays ``script``."""
    tools = [
        langmem.create_manage_memory_tool(namespace=NAMESPACE),
        langmem.create_search_memory_tool(namespace=NAMESPACE),
    ]
    model = FakeToolCallingChatModel(responses=script)
    return agents.create_agent(model, tools=tools, store=lg)


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


def test_langmem_tools_write_under_the_user_and_forget_erases(lg: LangGraphMemoryStore) -> None:
    ask = {"messages": [{"role": "user", "content": "remember this"}]}
    _agent(lg, [_call("manage_memory", content="User prefers dark mode"), "noted"]).invoke(
        ask, config=_cfg("alice")
    )
    _agent(lg, [_call("manage_memory", content="Bob plays the cello"), "noted"]).invoke(
        ask, config=_cfg("bob")
    )
    [item] = lg.search(("memories", "alice"))
    assert item.value == {"content": "User prefers dark mode"}  # LangMem's value, as put
    assert lg.store.count(scope=Scope("alice")) == 1
    assert lg.store.count(scope=Scope("memories")) == 0

    # the search tool, run by alice's agent, returns alice's memory only, with a score
    out = _agent(lg, [_call("search_memory", query="dark mode"), "done"]).invoke(
        ask, config=_cfg("alice")
    )
    found = json.loads(out["messages"][2].content)
    assert [m["key"] for m in found] == [item.key]
    assert found[0]["value"] == {"content": "User prefers dark mode"}
    assert isinstance(found[0]["score"], float) and found[0]["score"] > 0.3

    # update and delete through the tool, by id
    _agent(
        lg,
        [
            _call("manage_memory", content="User prefers light mode", action="update", id=item.key),
            "updated",
        ],
    ).invoke(ask, config=_cfg("alice"))
    updated = lg.get(("memories", "alice"), item.key)
    assert updated is not None and updated.value == {"content": "User prefers light mode"}

    receipt = lg.store.forget_user("alice")
    assert receipt["records"] == 1
    assert lg.search(("memories", "alice")) == []
    assert [i.value for i in lg.search(("memories", "bob"))] == [{"content": "Bob plays the cello"}]


def _doc_ids(messages: list[BaseMessage]) -> list[str]:
    """The ids of the existing memories trustcall shows the model."""
    return re.findall(r"<instance id=(\w+)", "\n".join(str(m.content) for m in messages))


def test_langmem_store_manager_creates_updates_and_deletes(lg: LangGraphMemoryStore) -> None:
    plan: dict[str, Any] = {"step": "create"}

    def responder(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> dict[str, Any]:
        ids = _doc_ids(messages)
        if plan["step"] == "create":
            return _call("Memory", content="User prefers dark mode in all apps")
        if plan["step"] == "update":
            patch = [{"op": "replace", "path": "/content", "value": "User prefers light mode"}]
            return _call("PatchDoc", json_doc_id=ids[0], planned_edits="swap", patches=patch)
        return _call("RemoveDoc", json_doc_id=ids[0])

    manager = langmem.create_memory_store_manager(
        ScriptedChatModel(responder=responder),
        namespace=NAMESPACE,
        store=lg,
        enable_deletes=True,
    )
    talk = {"messages": [{"role": "user", "content": "I like dark mode everywhere"}]}
    manager.invoke(talk, config=_cfg("alice"))
    [item] = lg.search(("memories", "alice"))
    said = "User prefers dark mode in all apps"
    assert item.value == {"kind": "Memory", "content": {"content": said}}
    record = lg.store.get(lg.record_id(item.namespace, item.key), scope=Scope("alice"))
    assert record.user_id == "alice" and record.text == "User prefers dark mode in all apps"

    plan["step"] = "update"  # the manager searches the adapter, finds it, patches it
    manager.invoke(
        {"messages": [{"role": "user", "content": "actually light mode suits me now"}]},
        config=_cfg("alice"),
    )
    [after] = lg.search(("memories", "alice"))
    assert after.key == item.key
    assert after.value == {"kind": "Memory", "content": {"content": "User prefers light mode"}}

    plan["step"] = "delete"
    manager.invoke(
        {"messages": [{"role": "user", "content": "forget my display preference"}]},
        config=_cfg("alice"),
    )
    assert lg.search(("memories", "alice")) == []
    assert lg.store.count(scope=Scope("alice"), current_only=False) == 0


async def test_langmem_store_manager_async_is_scoped(lg: LangGraphMemoryStore) -> None:
    def responder(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> dict[str, Any]:
        said = messages[-1].content
        return _call("Memory", content=f"memory of: {str(said).split('Human Message')[-1][-60:]}")

    manager = langmem.create_memory_store_manager(
        ScriptedChatModel(responder=responder), namespace=NAMESPACE, store=lg
    )
    await manager.ainvoke(
        {"messages": [{"role": "user", "content": "alice keeps bees"}]}, config=_cfg("alice")
    )
    await manager.ainvoke(
        {"messages": [{"role": "user", "content": "bob keeps goats"}]}, config=_cfg("bob")
    )
    alice = await lg.asearch(("memories", "alice"), query="bees")
    bob = await lg.asearch(("memories", "bob"), query="bees")
    assert len(alice) == 1 and "bees" in alice[0].value["content"]["content"]
    assert len(bob) == 1 and "goats" in bob[0].value["content"]["content"]
    assert lg.store.delete_user("alice") == 1
    assert await lg.asearch(("memories", "alice")) == []
