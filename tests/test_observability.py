"""Observability people can read: plain log lines say what happened, stream events carry
reasons, store calls show as traced runs, and ``explain`` says why a record was (not)
recalled."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from langgraph_memory import (
    MemoryContext,
    MemoryStore,
    Scope,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.core.records import utcnow
from langgraph_memory.graph.tracing import RECALL_RUN, TRACE_TAG, WRITE_RUN
from langgraph_memory.testing import ScriptedChatModel


def _agent(store: MemoryStore) -> Any:
    return create_memory_agent(
        ScriptedChatModel(responder=lambda m, t: "noted"),
        store=store,
        checkpointer=create_checkpointer("memory"),
    )


def test_plain_log_lines_say_action_reason_and_counts(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="langgraph_memory")
    agent = _agent(store)
    ctx = MemoryContext(user_id="alice")
    agent.invoke(
        {"messages": [("user", "I prefer answers in Chinese")]},
        {"configurable": {"thread_id": "o1"}},
        context=ctx,
    )
    agent.invoke(
        {"messages": [("user", "thanks")]}, {"configurable": {"thread_id": "o1"}}, context=ctx
    )
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("langgraph_memory")]
    bare = [
        line
        for line in lines
        if line in {"recall", "write decision", "memory_loaded", "memory_saved", "memory written"}
    ]
    assert bare == [], bare
    assert any(line.startswith("recall for user alice: ") and "hit(s)" in line for line in lines)
    assert any(
        line.startswith("memory loaded for user alice: ") and "fact(s)" in line for line in lines
    )
    assert any(
        line.startswith("write decision: inserted preference") and "gate passed" in line
        for line in lines
    )
    # a turn with nothing to remember still gets a decision line saying so
    assert any(line.startswith("write decision: skipped") and "nothing" in line for line in lines)
    assert any(line.startswith("memory saved for user alice: 2 turn(s)") for line in lines)


def test_memory_saved_event_carries_each_decision_with_its_reason(store: MemoryStore) -> None:
    agent = _agent(store)
    events = [
        chunk
        for chunk in agent.stream(
            {"messages": [("user", "I prefer answers in Chinese")]},
            {"configurable": {"thread_id": "o2"}},
            context=MemoryContext(user_id="alice"),
            stream_mode="custom",
        )
        if chunk.get("langgraph_memory") == "memory_saved"
    ]
    (saved,) = events
    inserted = [d for d in saved["decisions"] if d["action"] == "inserted"]
    assert inserted and inserted[0]["kind"] == "preference" and inserted[0]["reason"]
    assert len(saved["reasons"]) == len(saved["decisions"])


class RunRecorder(BaseCallbackHandler):
    """Records every chain run a graph starts (what a tracer such as LangSmith sees)."""

    def __init__(self) -> None:
        self.runs: dict[UUID, dict[str, Any]] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.runs[run_id] = {
            "name": kw.get("name"),
            "tags": kw.get("tags") or [],
            "metadata": kw.get("metadata") or {},
            "inputs": inputs,
            "parent": kw.get("parent_run_id"),
        }

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.runs[run_id]["outputs"] = outputs

    def named(self, name: str) -> list[dict[str, Any]]:
        return [r for r in self.runs.values() if r["name"] == name]


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_store_calls_are_traced_runs(store: MemoryStore, asynchronous: bool) -> None:
    rid = store.add("Alice prefers answers in Chinese", scope=Scope("alice"), kind="preference")
    recorder = RunRecorder()
    agent = _agent(store)
    args = (
        {"messages": [("user", "which language should you use?")]},
        {"configurable": {"thread_id": "o3"}, "callbacks": [recorder], "tags": ["app"]},
    )
    if asynchronous:
        await agent.ainvoke(*args, context=MemoryContext(user_id="alice"))
    else:
        agent.invoke(*args, context=MemoryContext(user_id="alice"))
    recalls = recorder.named(RECALL_RUN)
    assert recalls and all(TRACE_TAG in r["tags"] and "app" in r["tags"] for r in recalls)
    assert recalls[0]["metadata"]["user_id"] == "alice" and recalls[0]["parent"] is not None
    assert any(rid in r["outputs"]["ids"] for r in recalls)
    writes = recorder.named(WRITE_RUN)
    assert writes and writes[0]["outputs"]["actions"] and writes[0]["outputs"]["reasons"]
    assert all("Chinese" not in str(r["outputs"]) for r in recalls)  # ids, not stored text


def test_explain_says_why_a_record_was_or_was_not_recalled(store: MemoryStore) -> None:
    alice = Scope("alice")
    tea = store.add("Alice drinks green tea every morning", scope=alice)
    for i in range(8):
        store.add(f"Alice drinks green tea with friend number {i}", scope=alice)
    far = store.add("Alice owns a red bicycle", scope=alice)
    old = store.add(
        "Alice drank coffee",
        scope=alice,
        valid_to=utcnow() - timedelta(days=1),
        valid_from=utcnow() - timedelta(days=9),
    )
    bobs = store.add("Bob drinks green tea", scope=Scope("bob"))

    hit = store.explain("green tea every morning", tea, alice, k=3)
    assert hit.recalled and hit.rank == 1 and hit.explanation is not None
    assert hit.explanation.keyword_rank is not None and "rank 1" in hit.reason

    low = store.explain("green tea every morning", far, alice, k=3)
    assert not low.recalled and (low.rank is None or low.rank > 3)

    expired = store.explain("coffee", old, alice)
    assert not expired.recalled and "_valid_to" in expired.filtered_by
    assert "validity ended" in expired.reason

    other = store.explain("green tea", bobs, alice)
    assert not other.recalled and "no record" in other.reason
    assert other.explanation is None and other.rank is None

    store.supersede(tea, "Alice drinks black tea every morning", scope=alice)
    gone = store.explain("green tea every morning", tea, alice)
    assert not gone.recalled and "superseded_by" in gone.filtered_by


def test_a_bare_label_gets_its_fields_and_other_messages_stay(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from langgraph_memory.core.logsafe import get_logger

    log = get_logger("test_readable")
    caplog.set_level(logging.INFO, logger="langgraph_memory.test_readable")
    log.info("memory updated", extra={"event": "update", "user_id": "alice", "ids": ["a", "b"]})
    log.info("kept %s as written", "this", extra={"user_id": "alice"})
    first, second = (r.getMessage() for r in caplog.records)
    assert first == "memory updated (user_id=alice, ids=2 item(s))"
    assert second == "kept this as written"
