"""The nodes inside compiled graphs: prebuilt agent, custom wiring, sync and async, save_memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph

from langgraph_memory import (
    AgentState,
    BackgroundWriter,
    Generate,
    LangGraphMemoryStore,
    LoadMemory,
    MemoryContext,
    MemoryStore,
    SaveMemory,
    Scope,
    WritePipeline,
    create_checkpointer,
    create_memory_agent,
    forget_user,
)
from langgraph_memory.context import Constraint
from langgraph_memory.errors import ScopeError
from langgraph_memory.write.pipeline import MODEL_REPLY
from tests.fakes import FakeToolCallingChatModel, ScriptedChatModel, fake_runtime, fake_state, human

ALICE = MemoryContext(user_id="alice")


def _cfg(thread: str, user_id: str | None = None) -> dict[str, Any]:
    """A run config; reads of an owned thread (get_state) must name its owner's user_id."""
    if user_id is None:
        return {"configurable": {"thread_id": thread}}
    return {"configurable": {"thread_id": thread, "user_id": user_id}}


# ---------------------------------------------------------------------------- save_memory alone
def test_save_memory_alone_records_provenance_and_is_idempotent(store: MemoryStore) -> None:
    node = SaveMemory(WritePipeline(store))
    msg = human("I prefer answers in Chinese", id="m-1")
    state = fake_state(msg, AIMessage(content="ok", id="a-1"))
    runtime = fake_runtime("alice", thread_id="th-9", checkpoint_id="ck-3")
    out = node(state, runtime)
    assert out["saved_message_ids"] == ["m-1", "a-1"]  # the reply is kept as an episode
    written = [w for w in out["memory_writes"] if w["action"] == "inserted"]
    assert written, out["memory_writes"]
    rec = store.get(written[0]["record_id"], scope=Scope("alice"))
    assert rec.kind.value == "preference"
    assert rec.evidence.thread_id == "th-9" and rec.evidence.checkpoint_id == "ck-3"
    assert "m-1" in rec.evidence.message_ids
    # same state again: nothing new is processed
    state["saved_message_ids"] = out["saved_message_ids"]
    again = node(state, runtime)
    assert again == {"memory_writes": []}
    # even without the state marker the pipeline dedups the (thread, turn)
    state["saved_message_ids"] = []
    replay = node(state, runtime)
    assert [w["action"] for w in replay["memory_writes"] if w["turn_id"] == "m-1"] == [
        "duplicate_turn",  # the preference
        "duplicate_turn",  # its episode
    ]
    assert [w["reason"] for w in replay["memory_writes"] if w["turn_id"] == "a-1"] == [
        MODEL_REPLY,  # a reply is never a user fact...
        "nothing to keep: a greeting or acknowledgement",  # ...and "ok" is not even an episode
    ]
    assert store.count(scope=Scope("alice"), filters={"kind": "preference"}) == 1


async def test_save_memory_async_and_disabled(store: MemoryStore) -> None:
    node = SaveMemory(store=store)  # builds its own WritePipeline
    state = fake_state(human("I prefer tea over coffee", id="m-2"))
    out = await node.acall(state, fake_runtime("alice"))
    assert any(w["action"] == "inserted" for w in out["memory_writes"])
    assert (
        node(fake_state(human("I prefer jazz", id="m-3")), fake_runtime("alice", save=False)) == {}
    )
    with pytest.raises(ScopeError, match="user_id"):
        node(state, fake_runtime(None))


# ---------------------------------------------------------------------------- prebuilt agent
def test_prebuilt_agent_end_to_end(store: MemoryStore) -> None:
    model = ScriptedChatModel(responder=lambda msgs, tools: "noted")
    cp = create_checkpointer("memory")
    agent = create_memory_agent(model, store=store, checkpointer=cp)
    assert set(agent.get_graph().nodes) >= {
        "load_memory",
        "constraint_assert",
        "compact_if_needed",
        "generate",
        "save_memory",
    }
    out = agent.invoke(
        {"messages": [("user", "I prefer answers in Chinese")]}, _cfg("t1"), context=ALICE
    )
    assert out["messages"][-1].content == "noted"
    rec_id = next(w["record_id"] for w in out["memory_writes"] if w["action"] == "inserted")
    rec = store.get(rec_id, scope=Scope("alice"))
    assert rec.evidence.thread_id == "t1" and rec.evidence.checkpoint_id
    assert rec.evidence.message_ids == [out["messages"][0].id]
    # a new thread of the same user recalls it, and the prompt carries its id
    out2 = agent.invoke(
        {"messages": [("user", "Which language do I want?")]}, _cfg("t2"), context=ALICE
    )
    assert rec_id in [r["id"] for r in out2["recalled"]]
    assert f"[{rec_id}]" in model.last_prompt[0].content
    # bob sees nothing of it, and cannot use alice's thread
    model.calls.clear()
    out3 = agent.invoke(
        {"messages": [("user", "Which language do I want?")]},
        _cfg("t3"),
        context=MemoryContext(user_id="bob"),
    )
    assert out3["recalled"] == [] and "Chinese" not in model.last_prompt[0].content
    with pytest.raises(ScopeError):
        agent.invoke({"messages": [("user", "hi")]}, _cfg("t1"), context=MemoryContext("bob"))
    # forget alice: records and threads
    receipt = forget_user("alice", store=store, checkpointer=cp)
    assert receipt["records"] >= 1 and sorted(receipt["threads"]) == ["t1", "t2"]
    assert store.count(scope=Scope("alice"), current_only=False) == 0
    assert agent.get_state(_cfg("t1")).values == {}


def test_graph_without_context_fails_closed(store: MemoryStore) -> None:
    agent = create_memory_agent(ScriptedChatModel(), store=store)
    with pytest.raises(ScopeError, match="user_id"):
        agent.invoke({"messages": [("user", "hi")]})


async def test_ainvoke_runs_the_async_variants(store: MemoryStore, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def boom(self: Any, state: Any, runtime: Any) -> Any:
        raise AssertionError("sync variant used under ainvoke")

    for cls in (LoadMemory, Generate, SaveMemory):
        monkeypatch.setattr(cls, "_run", boom)
    model = ScriptedChatModel(responder=lambda m, t: "async ok")
    agent = create_memory_agent(model, store=store, checkpointer=create_checkpointer("memory"))
    out = await agent.ainvoke(
        {"messages": [("user", "I prefer green tea")]}, _cfg("a1"), context=ALICE
    )
    assert out["messages"][-1].content == "async ok"
    assert any(w["action"] == "inserted" for w in out["memory_writes"])
    with pytest.raises(AssertionError, match="sync variant"):
        agent.invoke({"messages": [("user", "hello")]}, _cfg("a2"), context=ALICE)


def test_tool_loop_and_custom_stream(store: MemoryStore) -> None:
    calls: list[str] = []

    def lookup_weather(city: str) -> str:
        """Weather for a city."""
        calls.append(city)
        return f"sunny in {city}"

    model = FakeToolCallingChatModel(
        responses=[
            {"content": "", "tool_calls": [{"name": "lookup_weather", "args": {"city": "Oslo"}}]},
            "It is sunny in Oslo.",
        ]
    )
    agent = create_memory_agent(model, [lookup_weather], store=store)
    chunks = list(
        agent.stream(
            {"messages": [("user", "weather in Oslo?")]},
            context=ALICE,
            stream_mode=["custom", "values"],
        )
    )
    custom = [c for mode, c in chunks if mode == "custom"]
    final = [c for mode, c in chunks if mode == "values"][-1]
    assert calls == ["Oslo"] and final["messages"][-1].content == "It is sunny in Oslo."
    names = [c["langgraph_memory"] for c in custom]
    assert "memory_loaded" in names and "memory_saved" in names


# ---------------------------------------------------------------------------- custom wiring
class TicketState(AgentState, total=False):
    ticket_id: str


def test_custom_state_graph_with_subclassed_state_and_sqlite_checkpoints(
    store: MemoryStore, tmp_path: Any
) -> None:
    model = ScriptedChatModel(responder=lambda m, t: "fine")
    builder = StateGraph(TicketState, context_schema=MemoryContext)
    builder.add_node("load_memory", LoadMemory())  # store comes from runtime.store
    builder.add_node("generate", Generate(model))
    builder.add_node("save_memory", SaveMemory())
    builder.add_edge(START, "load_memory")
    builder.add_edge("load_memory", "generate")
    builder.add_edge("generate", "save_memory")
    builder.add_edge("save_memory", END)
    cp = create_checkpointer("sqlite", path=tmp_path / "cp.sqlite")
    graph = builder.compile(checkpointer=cp, store=LangGraphMemoryStore(store))
    rule = Constraint(id="no-caps", text="Never answer in capital letters.")
    out = graph.invoke(
        {
            "messages": [("user", "I prefer metric units")],
            "ticket_id": "T-1",
            "constraints": [rule],
            "plan": ["read ticket", "answer"],
        },
        _cfg("c1"),
        context=ALICE,
    )
    assert out["ticket_id"] == "T-1"
    assert "Never answer in capital letters." in model.last_prompt[0].content
    assert "plan step 1" in model.last_prompt[0].content
    # constraints survive a checkpoint round trip as typed objects (allowlist forwarded)
    again = graph.get_state(_cfg("c1", "alice")).values
    assert again["constraints"] == [rule] and isinstance(again["constraints"][0], Constraint)
    json.dumps(again["recalled"])
    out2 = graph.invoke(
        {"messages": [("user", "which units do I like?")]}, _cfg("c1"), context=ALICE
    )
    assert any("metric" in r["text"] for r in out2["recalled"])
    assert len(out2["saved_message_ids"]) == 4  # two user turns and two replies
    cp.close()


def test_human_message_helpers_have_ids() -> None:
    assert isinstance(human("x"), HumanMessage) and human("x").id


def test_tool_failures_become_episodic_memory_of_their_task(store: MemoryStore) -> None:
    def deploy(service: str) -> str:
        """Deploy a service."""
        raise RuntimeError(f"disk full on host-7 while deploying {service}; mail ops@corp.test")

    def respond(messages: list[Any], tools: list[Any]) -> Any:
        from langchain_core.messages import ToolMessage

        if isinstance(messages[-1], ToolMessage):
            return "The deploy failed."
        if "deploy" in messages[-1].content.lower():
            return {"content": "", "tool_calls": [{"name": "deploy", "args": {"service": "api"}}]}
        return "ok"

    model = FakeToolCallingChatModel(responder=respond)
    agent = create_memory_agent(
        model, [deploy], store=store, checkpointer=create_checkpointer("memory")
    )
    out = agent.invoke(
        {"messages": [("user", "Please deploy the api")], "task_id": "release-1"},
        _cfg("r1"),
        context=ALICE,
    )
    event = next(w for w in out["memory_writes"] if w["kind"] == "event")
    assert event["action"] == "inserted" and "disk full" in event["text"]
    rec = store.get(event["record_id"], scope=Scope("alice"))
    assert rec.layer.value == "episodic" and rec.task_id == "release-1"
    assert rec.source.value == "tool" and rec.evidence.thread_id == "r1"
    assert "ops@corp.test" not in rec.text  # redacted like any other write
    # recalled later in the same task (another thread), never in another task
    agent.invoke(
        {"messages": [("user", "why did the last deploy fail?")], "task_id": "release-1"},
        _cfg("r2"),
        context=ALICE,
    )
    assert f"[{rec.id}]" in model.last_prompt[0].content
    agent.invoke(
        {"messages": [("user", "why did the last deploy fail?")], "task_id": "other"},
        _cfg("r3"),
        context=ALICE,
    )
    assert rec.id not in model.last_prompt[0].content
    # saving the same state again does not duplicate the event
    state = agent.get_state(_cfg("r1", "alice")).values
    again = SaveMemory(store=store)(
        {**state, "saved_message_ids": []}, fake_runtime("alice", thread_id="r1")
    )
    assert [w["action"] for w in again["memory_writes"] if w["kind"] == "event"] == [
        "duplicate_turn"
    ]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_background_writer_save_memory_records_a_failed_tool_call(
    store: MemoryStore, tmp_path: Path, mode: str
) -> None:
    """The documented setup ``SaveMemory(BackgroundWriter(...))`` (here through
    ``create_memory_agent(write_pipeline=writer)``) with a failing tool: the failure is
    stored through the writer's own pipeline (a BackgroundWriter has no ``.store``), the
    user's turn is queued in the journal."""

    def deploy(service: str) -> str:
        """Deploy a service."""
        raise RuntimeError(f"disk full on host-7 while deploying {service}")

    def respond(messages: list[Any], tools: list[Any]) -> Any:
        if isinstance(messages[-1], ToolMessage):
            return "The deploy failed."
        return {"content": "", "tool_calls": [{"name": "deploy", "args": {"service": "api"}}]}

    with BackgroundWriter(WritePipeline(store), tmp_path / "journal.jsonl") as writer:
        agent = create_memory_agent(
            FakeToolCallingChatModel(responder=respond),
            [deploy],
            store=store,
            write_pipeline=writer,
            checkpointer=create_checkpointer("memory"),
        )
        state = {"messages": [("user", "Please deploy the api")], "task_id": "release-2"}
        if mode == "invoke":
            out = agent.invoke(state, _cfg(f"bw-{mode}"), context=ALICE)
        else:
            out = await agent.ainvoke(state, _cfg(f"bw-{mode}"), context=ALICE)
        writes = out["memory_writes"]
        event = next(w for w in writes if w["kind"] == "event")
        assert event["action"] == "inserted" and "disk full" in event["text"], writes
        assert "queued" in [w["action"] for w in writes]  # the user turn went to the journal
        rec = store.get(event["record_id"], scope=Scope("alice"))
        assert rec.source.value == "tool" and rec.task_id == "release-2"
        assert rec.evidence.thread_id == f"bw-{mode}"
        assert writer.flush(timeout=60)


def test_tool_failure_without_task_is_a_redacted_summary_of_its_thread(
    store: MemoryStore,
) -> None:
    def lookup(customer: str) -> str:
        """Look up a customer."""
        raise ValueError(f"no customer record for {customer!r}\nTraceback: internal detail")

    def respond(messages: list[Any], tools: list[Any]) -> Any:
        from langchain_core.messages import ToolMessage

        if isinstance(messages[-1], ToolMessage):
            return "The lookup failed."
        if "look up" in messages[-1].content.lower():
            args = {"customer": "Zebulon Quartermaine"}
            return {"content": "", "tool_calls": [{"name": "lookup", "args": args}]}
        return "ok"

    model = FakeToolCallingChatModel(responder=respond)
    agent = create_memory_agent(
        model, [lookup], store=store, checkpointer=create_checkpointer("memory")
    )
    out = agent.invoke(
        {"messages": [("user", "Please look up my account")]}, _cfg("n1"), context=ALICE
    )
    event = next(w for w in out["memory_writes"] if w["kind"] == "event")
    rec = store.get(event["record_id"], scope=Scope("alice"))
    assert "Zebulon" not in rec.text and "Quartermaine" not in rec.text  # the raw argument
    assert "Traceback" not in rec.text and rec.text.startswith("Tool lookup failed: ")
    assert "[arg]" in rec.text
    assert rec.task_id == "thread:n1"
    question = {"messages": [("user", "why did the lookup of my account fail?")]}
    agent.invoke(question, _cfg("n1"), context=ALICE)
    assert f"[{rec.id}]" in model.last_prompt[0].content  # its own thread recalls it
    agent.invoke(question, _cfg("n2"), context=ALICE)
    assert rec.id not in model.last_prompt[0].content  # another thread does not
