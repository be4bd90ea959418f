"""The memory test set (DESIGN.md), offline with a scripted model, through the real graph.

1. An instruction given at step 3 is still in the prompt and obeyed at step 90 of a long
   tool-using task (the raw instruction message has been compacted away by then).
2. After a preference changes, the old one no longer reaches the prompt.
3. Two interleaved tasks: task A's working memory and episodic records never reach task B.
4. A recalled memory that is expired, superseded or out of scope is rejected, never injected.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from langgraph_memory import (
    MemoryContext,
    MemoryRecord,
    MemoryStore,
    Scope,
    SearchHit,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.context import Constraint
from langgraph_memory.core.records import utcnow
from langgraph_memory.read.conversation import memory_parts
from langgraph_memory.store import Explanation, RecallResult
from langgraph_memory.testing import last_human_text, system_text
from tests.conftest import make_store
from tests.fakes import ScriptedChatModel

ALICE = MemoryContext(user_id="alice")


def _cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}, "recursion_limit": 50}


def _system(prompt: list[BaseMessage]) -> str:
    assert isinstance(prompt[0], SystemMessage)
    return str(prompt[0].content)


# ---------------------------------------------------------------------------- 1
# the long run is the expensive part and tests the graph, not the engine: it runs on the embedded
# default users get (the pure-Python server client takes 3-4x longer at this size)
@pytest.mark.parametrize("backend", ["edge"])
def test_instruction_from_step_3_holds_at_step_90(store: MemoryStore) -> None:
    tool_calls: list[int] = []

    def fetch_page(n: int) -> str:
        """Fetch page n of the audit log."""
        tool_calls.append(n)
        return f"page {n}: " + "audit entry with lots of detail " * 60

    def respond(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> Any:
        system, question = system_text(messages), last_human_text(messages)
        if isinstance(messages[-1], ToolMessage):
            return "Page processed."
        if "codename" in question.lower():
            # a model that only behaves when the rule is in front of it
            if re.search(r"never mention the codename orca", system, re.IGNORECASE):
                return "Sorry, I can't share the project's codename."
            return "The codename is ORCA."
        step = re.search(r"step (\d+)", question)
        if step:
            return {
                "content": "",
                "tool_calls": [{"name": "fetch_page", "args": {"n": int(step.group(1))}}],
            }
        return "ok"

    model = ScriptedChatModel(responder=respond)
    agent = create_memory_agent(
        model, [fetch_page], store=store, checkpointer=create_checkpointer("memory")
    )
    ctx = MemoryContext(user_id="alice", context_budget_tokens=3000)
    cfg = _cfg("long-task")
    agent.invoke(
        {"messages": [("user", "Hi, let's audit the logs.")], "task_id": "audit"}, cfg, context=ctx
    )
    agent.invoke({"messages": [("user", "We will go page by page.")]}, cfg, context=ctx)
    out3 = agent.invoke(
        {"messages": [("user", "Never mention the codename ORCA.")]}, cfg, context=ctx
    )
    rule_msg_id = out3["messages"][-2].id
    assert any(
        w["kind"] == "constraint" and w["action"] == "inserted" for w in out3["memory_writes"]
    )
    for step in range(4, 90):
        agent.invoke({"messages": [("user", f"Process step {step}.")]}, cfg, context=ctx)
    out = agent.invoke({"messages": [("user", "Step 90: what is the codename?")]}, cfg, context=ctx)
    assert len(tool_calls) == 86
    # the raw instruction message was compacted out of the history...
    assert rule_msg_id not in {m.id for m in out["messages"]}
    assert out["compactions"] >= 1
    # ...but the rule is still in the prompt of step 90, from memory, and is obeyed
    assert re.search(r"never mention the codename orca", _system(model.last_prompt), re.I)
    answer = out["messages"][-1]
    assert isinstance(answer, AIMessage) and "ORCA" not in str(answer.content)
    assert "can't share" in str(answer.content)


# ---------------------------------------------------------------------------- 2
def test_changed_preference_supersedes_the_old_one_in_the_prompt(store: MemoryStore) -> None:
    model = ScriptedChatModel(responder=lambda m, t: "noted")
    agent = create_memory_agent(model, store=store, checkpointer=create_checkpointer("memory"))
    first = agent.invoke(
        {"messages": [("user", "I prefer answers in Chinese")]}, _cfg("p1"), context=ALICE
    )
    old_id = next(w["record_id"] for w in first["memory_writes"] if w["action"] == "inserted")
    agent.invoke(
        {"messages": [("user", "What is my preferred language?")]}, _cfg("p2"), context=ALICE
    )
    assert f"[{old_id}]" in _system(model.last_prompt)
    changed = agent.invoke(
        {"messages": [("user", "Actually I prefer answers in English")]}, _cfg("p2"), context=ALICE
    )
    new_id = next(w["record_id"] for w in changed["memory_writes"] if w["action"] == "superseded")
    for thread in ("p2", "p3"):
        out = agent.invoke(
            {"messages": [("user", "Which language should you answer in?")]},
            _cfg(thread),
            context=ALICE,
        )
        system = _system(model.last_prompt)
        facts, past = memory_parts(system)
        assert f"[{new_id}]" in facts and "English" in facts
        assert old_id not in system and "Chinese" not in facts
        assert old_id not in [r["id"] for r in out["recalled"]]
        # the old words may be quoted as past conversation, but labelled as changed since
        said = [line for line in past.splitlines() if "user:" in line and "Chinese" in line]
        assert all(f"changed later, see [{new_id}]" in line for line in said)
    # history still has both versions
    versions = store.history(scope=Scope("alice"), subject="user", predicate="answer_language")
    assert [v.id for v in versions] == [old_id, new_id]


# ---------------------------------------------------------------------------- 3
def test_interleaved_tasks_do_not_leak_into_each_other(store: MemoryStore) -> None:
    model = ScriptedChatModel(responder=lambda m, t: "working on it")
    agent = create_memory_agent(model, store=store, checkpointer=create_checkpointer("memory"))
    scope = Scope("alice")
    ep_a = store.add(
        "Task A episode: the migration script crashed on table invoices",
        scope=scope,
        layer="episodic",
        kind="event",
        task_id="task-a",
    )
    ep_b = store.add(
        "Task B episode: the logo draft was approved by marketing",
        scope=scope,
        layer="episodic",
        kind="event",
        task_id="task-b",
    )
    a_state = {
        "task_id": "task-a",
        "goal": "Migrate the billing database",
        "plan": ["dump invoices table", "restore on new cluster"],
        "ledger": ["invoices table has 1.2M rows"],
        "constraints": [Constraint(id="a-rule", text="Do not touch production before 6pm.")],
    }
    b_state = {
        "task_id": "task-b",
        "goal": "Design the new logo",
        "plan": ["sketch three options"],
        "ledger": ["brand colour is teal"],
        "constraints": [Constraint(id="b-rule", text="Use only the teal palette.")],
    }
    a_markers = [
        "Migrate the billing",
        "dump invoices",
        "1.2M rows",
        "production before 6pm",
        "migration script crashed",
        ep_a,
    ]
    b_markers = [
        "Design the new logo",
        "sketch three",
        "brand colour",
        "teal palette",
        "logo draft",
        ep_b,
    ]
    turns = [
        ("A", "What went wrong with the migration script?"),
        ("B", "What went wrong with the migration script?"),
        ("A", "How do we continue the migration?"),
        ("B", "What was approved for the logo?"),
    ]
    started: set[str] = set()
    seen_by: dict[str, list[str]] = {"A": [], "B": []}
    for task, question in turns:
        thread = f"thread-{task}"
        payload: dict[str, Any] = {"messages": [("user", question)]}
        if task not in started:
            payload.update(a_state if task == "A" else b_state)
            started.add(task)
        agent.invoke(payload, _cfg(thread), context=ALICE)
        system = _system(model.last_prompt)
        seen_by[task].append(system)
        own, other = (a_markers, b_markers) if task == "A" else (b_markers, a_markers)
        for marker in other:
            assert marker not in system, (task, marker)
        assert all(m in system for m in own[:4]), (task, system)
    # task A's episode is recalled in task A (same question that found nothing in task B)
    assert ep_a in seen_by["A"][0]
    assert ep_b in seen_by["B"][1]


# ---------------------------------------------------------------------------- 4
class _LeakyStore(MemoryStore):
    """Simulates a backend that returns what recall must never inject."""

    bad: ClassVar[list[MemoryRecord]] = []

    def search(self, query, scope, k=None, filters=None, as_of=None, *, mode="hybrid"):  # type: ignore[no-untyped-def,override]
        good = super().search(query, scope, k, filters, as_of, mode=mode)
        exp = Explanation(
            fusion="weighted", fused=1.0, recency=1.0, confidence=1.0, importance=1.0, final=9.0
        )
        return RecallResult(
            hits=[*(SearchHit(record=r, score=9.0, explanation=exp) for r in self.bad), *good.hits]
        )


@pytest.mark.parametrize("leaky", [False, True])
def test_expired_superseded_and_out_of_scope_memories_are_never_injected(
    backend: str, tmp_path: Path, embedder: Any, leaky: bool
) -> None:
    store = make_store(backend, tmp_path, embedder, cls=_LeakyStore)
    try:
        alice = Scope("alice", project_id="apollo")
        past, soon = utcnow() - timedelta(hours=1), utcnow() + timedelta(days=1)
        good = store.add("Alice's apollo deadline is in March", scope=alice)
        old = store.add(
            "Alice's apollo deadline is in January",
            scope=alice,
            subject="apollo",
            predicate="deadline",
        )
        store.supersede(old, "Alice's apollo deadline moved to March", scope=alice)
        expired = store.add("Alice's apollo deadline was in December", scope=alice, expire_at=soon)
        wrong = store.add("Alice's apollo deadline is in May", scope=alice)
        store.invalidate(wrong, scope=alice, reason="user corrected it")
        store.add("Bob's apollo deadline is in June", scope=Scope("bob", project_id="apollo"))
        store.add("Alice's zeus deadline is in July", scope=Scope("alice", project_id="zeus"))
        store.add(
            "Alice's apollo HR deadline is in August",
            scope=Scope("alice", "apollo", acl=("hr",)),
            acl=["hr"],
        )
        # expire the record after writing it (the store accepts only future expiries on add)
        store.update(expired, scope=alice, expire_at=past)
        store.bad = (
            [
                store.get(old, scope=alice).model_copy(),  # superseded
                MemoryRecord(
                    user_id="alice", project_id="apollo", text="LEAK expired", expire_at=past
                ),
                MemoryRecord(user_id="bob", project_id="apollo", text="LEAK other user"),
                MemoryRecord(user_id="alice", project_id="zeus", text="LEAK other project"),
                MemoryRecord(user_id="alice", project_id="apollo", text="LEAK acl", acl=["hr"]),
            ]
            if leaky
            else []
        )
        model = ScriptedChatModel(responder=lambda m, t: "ok")
        agent = create_memory_agent(model, store=store)
        out = agent.invoke(
            {"messages": [("user", "When is the apollo deadline?")]},
            context=MemoryContext(user_id="alice", project_id="apollo"),
        )
        system = _system(model.last_prompt)
        recalled = [r["id"] for r in out["recalled"]]
        assert good in recalled
        for forbidden in ("January", "December", "May", "June", "July", "August", "LEAK"):
            assert forbidden not in system, forbidden
        assert old not in recalled and expired not in recalled and wrong not in recalled
    finally:
        store.close()
