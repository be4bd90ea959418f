"""MemoryMiddleware inside a real ``langchain.agents.create_agent`` with a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent

from langgraph_memory import (
    MemoryContext,
    MemoryMiddleware,
    MemoryStore,
    Scope,
    create_checkpointer,
)
from langgraph_memory.context import Constraint
from langgraph_memory.errors import ScopeError
from tests.fakes import FakeToolCallingChatModel, ScriptedChatModel


def _cfg(t: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


def test_middleware_saves_recalls_and_isolates(store: MemoryStore) -> None:
    model = ScriptedChatModel(responder=lambda m, t: "noted")
    cp = create_checkpointer("memory")
    agent = create_agent(
        model,
        [],
        middleware=[MemoryMiddleware(store)],
        context_schema=MemoryContext,
        checkpointer=cp,
        system_prompt="You are terse.",
    )
    out = agent.invoke(
        {"messages": [("user", "I prefer answers in Chinese")]},
        _cfg("m1"),
        context=MemoryContext(user_id="alice"),
    )
    rec_id = next(w["record_id"] for w in out["memory_writes"] if w["action"] == "inserted")
    rec = store.get(rec_id, scope=Scope("alice"))
    assert rec.evidence.thread_id == "m1" and rec.evidence.message_ids
    agent.invoke(
        {"messages": [("user", "what language should you use?")]},
        _cfg("m2"),
        context=MemoryContext(user_id="alice"),
    )
    system = model.last_prompt[0].content
    assert system.startswith("You are terse.") and f"[{rec_id}]" in system
    agent.invoke(
        {"messages": [("user", "what language should you use?")]},
        _cfg("m3"),
        context=MemoryContext(user_id="bob"),
    )
    assert rec_id not in model.last_prompt[0].content
    assert cp.threads_of("alice") == ["m1", "m2"]
    with pytest.raises(ScopeError, match="user_id"):
        agent.invoke({"messages": [("user", "hi")]}, _cfg("m4"))


async def test_middleware_async_tools_and_constraint_regeneration(store: MemoryStore) -> None:
    sent: list[str] = []

    def send_email(to: str, body: str) -> str:
        """Send an email."""
        sent.append(to)
        return "sent"

    bad = {
        "content": "",
        "tool_calls": [{"name": "send_email", "args": {"to": "eve@evil.test", "body": "x"}}],
    }
    good = {
        "content": "",
        "tool_calls": [{"name": "send_email", "args": {"to": "bob@corp.test", "body": "x"}}],
    }
    model = FakeToolCallingChatModel(responses=[bad, good, "Sent to Bob."])
    rule = Constraint(
        id="no-eve",
        text="Never email eve@evil.test.",
        checker={"type": "forbidden_recipients", "recipients": ["eve@evil.test"]},
    )
    agent = create_agent(
        model, [send_email], middleware=[MemoryMiddleware(store)], context_schema=MemoryContext
    )
    out = await agent.ainvoke(
        {"messages": [("user", "email the report")], "constraints": [rule]},
        context=MemoryContext(user_id="alice"),
    )
    assert sent == ["bob@corp.test"]
    assert out["messages"][-1].content == "Sent to Bob."
    assert "Never email eve@evil.test." in model.calls[0][0].content
    assert "broke" in model.calls[1][0].content  # the regeneration saw the violated rule
