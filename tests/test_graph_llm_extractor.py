"""The LLM extractor where the product runs: the compiled prebuilt agent, the middleware of
``langchain.agents.create_agent`` and the save_memory node, sync and async, in the turn and
deferred behind a BackgroundWriter. The extraction model is a fake
(``FakeStructuredChatModel``); store, embedder, graphs and gates are real."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent

from langgraph_memory import (
    BackgroundWriter,
    MemoryContext,
    MemoryMiddleware,
    MemoryStore,
    SaveMemory,
    Scope,
    WritePipeline,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.errors import ConfigError
from langgraph_memory.write import LLMExtractor, WriteConfig
from tests.fakes import FakeStructuredChatModel, ScriptedChatModel, fact, fake_runtime, fake_state

HENRIK = "The quarterly report goes to Henrik first, his address is henrik@example.com"
PLANT = "The office plant is called Fernando and needs water on Mondays"


def _extraction() -> FakeStructuredChatModel:
    return FakeStructuredChatModel(
        table={
            "quarterly report goes to Henrik": [
                fact("The quarterly report goes to Henrik first", "report_recipient", "Henrik")
            ],
            "office plant is called Fernando": [
                fact("The office plant is called Fernando", "plant_name", "Fernando")
            ],
        }
    )


def _cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _objects(store: MemoryStore, predicate: str, user: str = "alice") -> list[str]:
    return [r.object or "" for r in store.list(scope=Scope(user), filters={"predicate": predicate})]


def _llm_writes(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [w for w in out["memory_writes"] if w.get("extractor") == "llm"]


def _assert_llm_fact_written(
    store: MemoryStore, model: FakeStructuredChatModel, out: dict[str, Any]
) -> None:
    assert model.calls == 1, "the LLM extractor was not consulted exactly once"
    assert _objects(store, "report_recipient") == ["Henrik"]
    (written,) = _llm_writes(out)
    assert written["action"] == "inserted" and written["record_id"]
    record = store.get(written["record_id"], scope=Scope("alice"))
    assert record.metadata["extractor"] == "llm" and record.evidence.thread_id == "g1"
    sent = model.human_texts[0]  # redacted before the model saw it
    assert "henrik@example.com" not in sent and "[EMAIL]" in sent


# ---------------------------------------------------------------------- create_memory_agent
def test_prebuilt_agent_runs_the_llm_extractor_in_the_turn(store: MemoryStore) -> None:
    model, extraction = ScriptedChatModel(responder=lambda m, t: "noted"), _extraction()
    agent = create_memory_agent(
        model, store=store, checkpointer=create_checkpointer("memory"), llm_extractor=extraction
    )
    chunks = list(
        agent.stream(
            {"messages": [("user", HENRIK)]},
            _cfg("g1"),
            context=MemoryContext(user_id="alice"),
            stream_mode=["custom", "values"],
        )
    )
    out = [c for mode, c in chunks if mode == "values"][-1]
    _assert_llm_fact_written(store, extraction, out)
    saved = [
        c for mode, c in chunks if mode == "custom" and c["langgraph_memory"] == "memory_saved"
    ]
    assert any("passed all gates" in r for r in saved[0]["reasons"])
    # fallback mode: a turn the rules understand costs no model call
    agent.invoke(
        {"messages": [("user", "I prefer tea")]}, _cfg("g1"), context=MemoryContext("alice")
    )
    assert extraction.calls == 1 and _objects(store, "drink") == ["tea"]


async def test_prebuilt_agent_llm_extractor_async(store: MemoryStore) -> None:
    model, extraction = ScriptedChatModel(responder=lambda m, t: "noted"), _extraction()
    agent = create_memory_agent(
        model,
        store=store,
        checkpointer=create_checkpointer("memory"),
        llm_extractor=extraction,
        write_config=WriteConfig(llm_mode="always"),
    )
    out = await agent.ainvoke(
        {"messages": [("user", HENRIK)]}, _cfg("g1"), context=MemoryContext(user_id="alice")
    )
    _assert_llm_fact_written(store, extraction, out)
    await agent.ainvoke(
        {"messages": [("user", "I prefer tea")]}, _cfg("g1"), context=MemoryContext("alice")
    )
    assert extraction.calls == 2  # llm_mode="always" reached the node's pipeline


def test_write_options_are_checked_when_the_agent_is_built(store: MemoryStore) -> None:
    model = ScriptedChatModel()
    with pytest.raises(ConfigError, match="with_structured_output"):
        create_memory_agent(model, store=store, llm_extractor="openai:gpt-4o-mini")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not both"):
        create_memory_agent(
            model, store=store, write_pipeline=WritePipeline(store), llm_extractor=_extraction()
        )
    with pytest.raises(ConfigError, match="WriteConfig"):
        create_memory_agent(model, store=store, write_config={"llm_mode": "always"})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="WritePipeline or a BackgroundWriter"):
        SaveMemory(pipeline=store)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not both"):
        MemoryMiddleware(store, write_pipeline=WritePipeline(store), write_config=WriteConfig())
    # an LLMExtractor is taken as is
    extractor = LLMExtractor(_extraction())
    assert SaveMemory(store=store, llm_extractor=extractor).llm_extractor is extractor


async def test_save_memory_node_reaches_the_llm_sync_and_async(store: MemoryStore) -> None:
    extraction = _extraction()
    node = SaveMemory(store=store, llm_extractor=extraction)
    node(fake_state(HENRIK), fake_runtime("alice", thread_id="g1"))
    await node.acall(fake_state(PLANT), fake_runtime("alice", thread_id="g2"))
    assert extraction.calls == 2
    assert _objects(store, "report_recipient") == ["Henrik"]
    assert _objects(store, "plant_name") == ["Fernando"]


# ---------------------------------------------------------------------- MemoryMiddleware
def _middleware_agent(store: MemoryStore, extraction: FakeStructuredChatModel) -> Any:
    return create_agent(
        ScriptedChatModel(responder=lambda m, t: "noted"),
        [],
        middleware=[MemoryMiddleware(store, llm_extractor=extraction)],
        context_schema=MemoryContext,
        checkpointer=create_checkpointer("memory"),
    )


def test_middleware_runs_the_llm_extractor(store: MemoryStore) -> None:
    extraction = _extraction()
    agent = _middleware_agent(store, extraction)
    out = agent.invoke(
        {"messages": [("user", HENRIK)]}, _cfg("g1"), context=MemoryContext(user_id="alice")
    )
    _assert_llm_fact_written(store, extraction, out)


async def test_middleware_runs_the_llm_extractor_async(store: MemoryStore) -> None:
    extraction = _extraction()
    agent = _middleware_agent(store, extraction)
    out = await agent.ainvoke(
        {"messages": [("user", HENRIK)]}, _cfg("g1"), context=MemoryContext(user_id="alice")
    )
    _assert_llm_fact_written(store, extraction, out)


# ---------------------------------------------------------------------- deferred, in the graph
def _deferring_writer(store: MemoryStore, path: Path, model: FakeStructuredChatModel) -> Any:
    pipeline = WritePipeline(store, WriteConfig(llm_mode="always"), llm_extractor=model)
    return BackgroundWriter(pipeline, path, defer_llm=True, llm_after_s=60)


def _deferred_run_checks(
    store: MemoryStore,
    extraction: FakeStructuredChatModel,
    first: dict[str, Any],
    second_chunks: list[tuple[str, Any]],
) -> None:
    user_turn = first["messages"][0].id
    (queued,) = [
        w for w in first["memory_writes"] if w["action"] == "queued" and w["turn_id"] == user_turn
    ]
    assert (
        "deferred LLM pass (llm_mode=always) runs once the thread has been quiet for 60 s"
        in (queued["reason"])
    )
    reply = [w for w in first["memory_writes"] if w["action"] == "queued" and w is not queued]
    assert reply and "LLM pass" not in reply[0]["reason"]  # replies are never read by it
    second = [c for mode, c in second_chunks if mode == "values"][-1]
    deferred = [w for w in second["memory_writes"] if w.get("deferred")]
    assert [(w["action"], w["extractor"]) for w in deferred] == [("inserted", "llm")]
    assert deferred[0]["turn_id"] == queued["turn_id"]  # the first turn's decision
    (event,) = [
        c
        for mode, c in second_chunks
        if mode == "custom" and c["langgraph_memory"] == "memory_llm_pass"
    ]
    assert event["written_ids"] == [deferred[0]["record_id"]]
    assert _objects(store, "report_recipient") == ["Henrik"]
    assert extraction.calls == 1


def test_deferred_llm_through_the_compiled_agent(store: MemoryStore, tmp_path: Path) -> None:
    extraction = _extraction()
    writer = _deferring_writer(store, tmp_path / "j.jsonl", extraction)
    agent = create_memory_agent(
        ScriptedChatModel(responder=lambda m, t: "noted"),
        store=store,
        checkpointer=create_checkpointer("memory"),
        write_pipeline=writer,
    )
    ctx = MemoryContext(user_id="alice")
    first = agent.invoke({"messages": [("user", HENRIK)]}, _cfg("g1"), context=ctx)
    assert writer.flush(timeout=60)
    assert extraction.calls == 0  # the turn was written; the model waits for a quiet thread
    assert writer.flush_llm(timeout=60)
    chunks = list(
        agent.stream(
            {"messages": [("user", "thanks, what else?")]},
            _cfg("g1"),
            context=ctx,
            stream_mode=["custom", "values"],
        )
    )
    _deferred_run_checks(store, extraction, first, chunks)
    writer.close()


async def test_deferred_llm_through_the_middleware_async(
    store: MemoryStore, tmp_path: Path
) -> None:
    extraction = _extraction()
    writer = _deferring_writer(store, tmp_path / "j.jsonl", extraction)
    agent = create_agent(
        ScriptedChatModel(responder=lambda m, t: "noted"),
        [],
        middleware=[MemoryMiddleware(store, write_pipeline=writer)],
        context_schema=MemoryContext,
        checkpointer=create_checkpointer("memory"),
    )
    ctx = MemoryContext(user_id="alice")
    first = await agent.ainvoke({"messages": [("user", HENRIK)]}, _cfg("g1"), context=ctx)
    assert await writer.aflush_llm(timeout=60)
    chunks = [
        chunk
        async for chunk in agent.astream(
            {"messages": [("user", "thanks, what else?")]},
            _cfg("g1"),
            context=ctx,
            stream_mode=["custom", "values"],
        )
    ]
    _deferred_run_checks(store, extraction, first, chunks)
    writer.close()
