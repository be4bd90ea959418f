"""Injections through the compiled graph: each attack of ``tests/data/injection_set.json`` is
sent as a user turn in thread 1 (``create_memory_agent``, and ``MemoryMiddleware`` in
``langchain.agents.create_agent``), then a question in thread 2. None may become a stored
record (fact or episode), reach the next prompt's system message, or a ``constraint:`` line;
a benign restriction sent alongside still does (the write path is live)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, SystemMessage

from langgraph_memory import (
    MemoryContext,
    MemoryMiddleware,
    MemoryStore,
    Scope,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.core.records import LEDGER_SUBJECT
from langgraph_memory.core.text import INVISIBLE_CHARS, normalize_for_matching
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write.extract.injection import detect_injection

_SET = json.loads((Path(__file__).parent / "data" / "injection_set.json").read_text("utf-8"))
ATTACKS: list[str] = [item["text"] for item in _SET["attacks"]]
BENIGN_RULE = "Never share my data with anyone."
INVISIBLE_FACT = "I prefer gr\u200been t\u202eea"
QUESTION = "What do you remember about me and what am I allowed to see?"
ALICE = Scope(user_id="alice")


def _cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _memory_agent(store: MemoryStore, model: ScriptedChatModel) -> Any:
    return create_memory_agent(model, store=store, checkpointer=create_checkpointer("memory"))


def _middleware_agent(store: MemoryStore, model: ScriptedChatModel) -> Any:
    return create_agent(
        model,
        [],
        middleware=[MemoryMiddleware(store)],
        context_schema=MemoryContext,
        checkpointer=create_checkpointer("memory"),
        system_prompt="You are terse.",
    )


def _system(model: ScriptedChatModel) -> str:
    prompt = model.last_prompt
    assert prompt and isinstance(prompt[0], SystemMessage)
    return str(prompt[0].content)


def _carries(text: str, attack: str) -> bool:
    """``text`` holds ``attack`` (compared in normalised form, so a stored or rendered copy
    with its invisible characters removed or look-alikes kept still counts)."""
    return normalize_for_matching(attack).rstrip(".!") in normalize_for_matching(text)


@pytest.mark.parametrize("build", [_memory_agent, _middleware_agent], ids=["graph", "middleware"])
def test_no_attack_persists_or_reaches_the_next_prompt(store: MemoryStore, build: Any) -> None:
    model = ScriptedChatModel(responder=lambda m, t: "OK.")
    agent = build(store, model)
    ctx = MemoryContext(user_id="alice")
    turns = [*ATTACKS, BENIGN_RULE, INVISIBLE_FACT]
    for i, text in enumerate(turns):
        agent.invoke(
            {"messages": [HumanMessage(content=text, id=f"a{i}")]}, _cfg("t1"), context=ctx
        )
    agent.invoke({"messages": [HumanMessage(content=QUESTION, id="q")]}, _cfg("t2"), context=ctx)
    system = _system(model)

    records = [
        r for r in store.list(scope=ALICE, current_only=False) if r.subject != LEDGER_SUBJECT
    ]
    stored_text = [r.text for r in records] + [str(r.object or "") for r in records]
    constraint_lines = [ln for ln in system.splitlines() if "constraint:" in ln]
    for attack in ATTACKS:
        assert not any(_carries(t, attack) for t in stored_text), attack
        assert not _carries(system, attack), attack
        assert not any(_carries(ln, attack) for ln in constraint_lines), attack
    assert not [t for t in stored_text if detect_injection(t)]
    # the write path is live: the benign restriction and the fact were stored and recalled
    assert any("never share my data" in t.lower() for t in stored_text)
    assert "never share my data" in system.lower()
    assert "tea" in system and not set(system) & INVISIBLE_CHARS
