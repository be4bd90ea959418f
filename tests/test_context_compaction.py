"""compact_messages: reduce -> compress -> externalize, traceability, events, edge cases."""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from langgraph_memory.context import (
    META_KEY,
    CompactionConfig,
    HandleStore,
    acompact_messages,
    compact_messages,
    default_token_counter,
    find_orphans,
    is_summary,
    needs_compaction,
)
from langgraph_memory.errors import ConfigError, ScopeError

COUNTER = default_token_counter()


def tool_turn(i: int, size: int, *, zh: bool = False) -> list[BaseMessage]:
    body = ("航班数据，价格便宜。" * size) if zh else " ".join(f"row{i}-{j}" for j in range(size))
    return [
        AIMessage(
            content="",
            id=f"a{i}",
            tool_calls=[{"name": "search", "args": {"q": f"q{i}"}, "id": f"c{i}"}],
        ),
        ToolMessage(content=body, tool_call_id=f"c{i}", name="search", id=f"t{i}"),
        AIMessage(content=f"Looked at result {i}.", id=f"f{i}"),
    ]


def history(n: int, size: int, **kw: Any) -> list[BaseMessage]:
    msgs: list[BaseMessage] = [
        SystemMessage("You are a careful agent.", id="sys"),
        SystemMessage("Memory: user prefers aisle seats.", name="memory_block", id="mem"),
        HumanMessage("Find flights to Seattle. Never book red-eye flights.", id="h0"),
    ]
    for i in range(n):
        msgs.extend(tool_turn(i, size, **kw))
    return msgs


def test_under_threshold_is_a_no_op() -> None:
    msgs = history(2, 10)
    result = compact_messages(msgs, budget_tokens=10_000)
    assert not result.changed and result.update == [] and result.event is None
    assert result.messages == msgs and result.tokens_after == result.tokens_before
    assert not needs_compaction(msgs, budget_tokens=10_000)
    assert needs_compaction(msgs, budget_tokens=50)


def test_reduce_stubs_old_tool_outputs_only() -> None:
    store = HandleStore()
    msgs = history(6, 300)
    budget = COUNTER.count_messages(msgs)  # trigger by force, reduce alone is enough
    cfg = CompactionConfig(keep_last_turns=3, target_ratio=0.8)
    result = compact_messages(
        msgs, budget_tokens=budget, config=cfg, handle_store=store, scope="u", force=True
    )
    assert result.changed and result.event is not None
    assert result.event["stages"] == ["reduce"]
    assert result.tokens_after <= 0.8 * budget
    by_id = {m.id: m for m in result.messages}
    assert [m.id for m in result.messages] == [m.id for m in msgs]  # nothing removed
    # the last 3 turns (f4, a5+t5, f5) are untouched; older tool outputs are stubs
    assert by_id["t5"] is msgs[-2]
    stub = by_id["t0"]
    assert isinstance(stub, ToolMessage) and stub.tool_call_id == "c0" and stub.name == "search"
    handle = stub.additional_kwargs[META_KEY]["handle"]
    assert f'fetch_memory("{handle}")' in stub.content
    assert store.get("u", handle) == msgs[4].content
    assert result.event["stubbed_ids"][:1] == ["t0"]


def test_compress_builds_one_traceable_summary() -> None:
    store = HandleStore()
    msgs = history(12, 120)
    result = compact_messages(
        msgs,
        budget_tokens=1500,
        handle_store=store,
        scope="u",
        source_ref={"thread_id": "th-1", "checkpoint_id": "ck-9"},
    )
    assert result.fits and result.tokens_after <= 1500
    out = result.messages
    assert out[0] is msgs[0] and out[1] is msgs[1]  # system + memory block untouched
    assert out[2] is msgs[2]  # the latest user message is pinned
    summaries = [m for m in out if is_summary(m)]
    assert len(summaries) == 1
    summary = summaries[0]
    meta = summary.additional_kwargs[META_KEY]
    assert meta["thread_id"] == "th-1" and meta["checkpoint_id"] == "ck-9"
    first, last = meta["turn_range"]
    assert first == 1 and last > first
    assert f"turns {first}-{last}" in summary.content
    assert "checkpoint ck-9 of thread th-1" in summary.content
    removed = set(meta["message_ids"])
    assert removed == {m.id for m in msgs} - {m.id for m in out}
    # the raw transcript of everything summarised is behind the handle, verbatim
    transcript = json.loads(store.get("u", meta["transcript_handle"]))
    assert {row["id"] for row in transcript} == removed
    assert any(row["content"] == msgs[4].content for row in transcript)
    assert find_orphans(out) == ([], [])
    assert result.event is not None
    assert result.event["turn_range"] == [first, last]
    assert result.event["summary_id"] == summary.id
    assert set(result.event["removed_ids"]) == removed
    assert result.event["kept"]["protected_ids"] == ["sys", "mem"]


def test_externalize_large_payload_in_the_kept_tail() -> None:
    store = HandleStore()
    msgs = history(2, 20)
    msgs.extend(tool_turn(9, 4000))  # a huge fresh tool output
    result = compact_messages(msgs, budget_tokens=2000, handle_store=store, scope="u")
    assert result.fits
    t9 = next(m for m in result.messages if m.id == "t9")
    assert t9.additional_kwargs[META_KEY]["kind"] == "externalized"
    assert "externalize" in result.event["stages"]  # type: ignore[index]
    assert "t9" in result.event["externalized_ids"]  # type: ignore[index]
    assert store.get("u", t9.additional_kwargs[META_KEY]["handle"]) == msgs[-2].content
    assert "Preview: row9-0" in t9.content


def test_chinese_history_is_counted_honestly() -> None:
    msgs = history(8, 200, zh=True)
    from langchain_core.messages.utils import count_tokens_approximately

    approx = count_tokens_approximately(msgs)
    real = COUNTER.count_messages(msgs)
    assert real > 2.5 * approx  # the char/4 helper would think this fits a 6k budget
    result = compact_messages(msgs, budget_tokens=6000, handle_store=HandleStore(), scope="u")
    assert result.changed and result.fits and result.tokens_after <= 6000


def test_memory_block_marked_in_additional_kwargs_is_protected() -> None:
    block = HumanMessage("facts " * 50, id="blk", additional_kwargs={META_KEY: {"protected": True}})
    msgs = [*history(6, 200), block, *tool_turn(20, 200)]
    result = compact_messages(msgs, budget_tokens=1200, handle_store=HandleStore(), scope="u")
    assert any(m is block for m in result.messages)


def test_llm_and_callable_summarizers() -> None:
    msgs = history(10, 100)
    model = FakeListChatModel(responses=["- user wants Seattle flights, no red-eyes"])
    result = compact_messages(msgs, budget_tokens=1200, summarizer=model)
    summary = next(m for m in result.messages if is_summary(m))
    assert "no red-eyes" in summary.content
    seen: list[int] = []

    def mine(messages: list[BaseMessage]) -> str:
        seen.append(len(messages))
        return "custom summary"

    result = compact_messages(msgs, budget_tokens=1200, summarizer=mine)
    assert "custom summary" in next(m for m in result.messages if is_summary(m)).content
    assert seen and seen[0] > 0

    class Broken:
        def invoke(self, _: Any) -> Any:
            raise RuntimeError("model down")

    result = compact_messages(msgs, budget_tokens=1200, summarizer=Broken())
    text = next(m for m in result.messages if is_summary(m)).content
    assert "- " in text  # fell back to the extractive summary
    with pytest.raises(ConfigError):
        compact_messages(msgs, budget_tokens=1200, summarizer=42)


def test_extractive_summary_keeps_user_rules_first() -> None:
    msgs = history(30, 100)
    result = compact_messages(
        msgs,
        budget_tokens=900,
        config=CompactionConfig(pin_last_human=False, summary_max_tokens=60),
    )
    summary = next(m for m in result.messages if is_summary(m))
    assert "Never book red-eye flights" in summary.content


def test_irreducible_history_says_so() -> None:
    msgs = [SystemMessage("rule " * 900, id="sys"), *history(3, 50)[1:]]
    result = compact_messages(msgs, budget_tokens=500)
    assert not result.fits
    assert result.event is not None and result.event["fits"] is False
    assert result.event["irreducible_tokens"] > 500
    assert result.messages[0] is msgs[0]


def test_update_applies_through_add_messages_reducer() -> None:
    msgs = history(10, 100)
    result = compact_messages(msgs, budget_tokens=1000)
    merged = add_messages(msgs, result.update)
    assert [m.id for m in merged] == [m.id for m in result.messages]
    assert [m.content for m in merged] == [m.content for m in result.messages]


def test_configuration_errors() -> None:
    msgs = history(3, 10)
    with pytest.raises(ConfigError):
        compact_messages(msgs, budget_tokens=100, config=CompactionConfig(reserve_tokens=100))
    with pytest.raises(ScopeError):
        compact_messages(msgs, budget_tokens=100, handle_store=HandleStore())
    with pytest.raises(ValueError):
        CompactionConfig(target_ratio=0.9, trigger_ratio=0.5)


def test_without_a_handle_store_stubs_point_at_the_checkpoint() -> None:
    result = compact_messages(history(12, 200), budget_tokens=1500)
    text = "\n".join(str(m.content) for m in result.messages)
    assert "checkpoint history" in text
    assert result.fits and result.handles == []


def test_custom_counter_is_used() -> None:
    msgs = history(5, 50)
    chars = sum(len(str(m.content)) for m in msgs)
    result = compact_messages(msgs, budget_tokens=chars // 2, counter=len)
    assert result.changed
    assert result.tokens_after <= chars // 2


async def test_async_variant_matches_sync() -> None:
    msgs = history(10, 100)
    sync = compact_messages(msgs, budget_tokens=1000)
    asynchronous = await acompact_messages(msgs, budget_tokens=1000)
    assert sync.changed and sync.tokens_after < sync.tokens_before
    assert [m.id for m in sync.messages] == [m.id for m in asynchronous.messages]


class _S(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def test_event_is_logged_and_streamed_inside_a_graph(caplog: pytest.LogCaptureFixture) -> None:
    def compact(state: _S) -> dict[str, Any]:
        result = compact_messages(state["messages"], budget_tokens=1000)
        return {"messages": result.update} if result.changed else {}

    g = StateGraph(_S)
    g.add_node("compact", compact)
    g.add_edge(START, "compact")
    g.add_edge("compact", END)
    with caplog.at_level(logging.INFO, logger="langgraph_memory.context"):
        chunks = list(
            g.compile().stream({"messages": history(10, 100)}, stream_mode=["custom", "values"])
        )
    custom = [c for mode, c in chunks if mode == "custom"]
    assert len(custom) == 1 and custom[0]["langgraph_memory"] == "compaction"
    assert custom[0]["tokens_after"] <= 1000 < custom[0]["tokens_before"]
    logged = [r for r in caplog.records if getattr(r, "event", None) == "compaction"]
    assert len(logged) == 1 and logged[0].payload["tokens_after"] == custom[0]["tokens_after"]
    final = [c for mode, c in chunks if mode == "values"][-1]
    assert COUNTER.count_messages(final["messages"]) <= 1000


def _true_turns(full: list[BaseMessage]) -> dict[str, int]:
    """Reference numbering on the never-compacted history: one number per user message,
    assistant message (with its tool results) — protected messages excluded."""
    numbers: dict[str, int] = {}
    n = 0
    for m in full:
        if isinstance(m, SystemMessage):
            continue
        if isinstance(m, ToolMessage):
            continue
        numbers[str(m.id)] = n
        n += 1
    return numbers


def test_turn_ranges_stay_exact_over_repeated_compactions() -> None:
    full: list[BaseMessage] = [SystemMessage("sys", id="sys")]
    compacted: list[BaseMessage] = list(full)
    store = HandleStore()
    checked = 0
    for step in range(80):
        new: list[BaseMessage] = []
        if step % 9 == 0:
            new.append(HumanMessage(f"user turn {step}", id=f"h{step}"))
        new.extend(tool_turn(step, 60 + (step % 5) * 40))
        full.extend(new)
        compacted.extend(new)
        result = compact_messages(compacted, budget_tokens=900, handle_store=store, scope="u")
        compacted = result.messages
        truth = _true_turns(full)
        for m in compacted:
            if is_summary(m):
                meta = m.additional_kwargs[META_KEY]
                ids = [i for i in meta["message_ids"] if i in truth]
                assert meta["turn_range"] == [
                    min(truth[i] for i in ids),
                    max(truth[i] for i in ids),
                ]
                for mid, turn in meta["pinned_turns"].items():
                    assert truth[mid] == turn
                checked += 1
    assert checked > 40


def test_summary_line_tokens_caps_each_summary_line() -> None:
    msgs: list[BaseMessage] = [SystemMessage("You are a careful agent.", id="sys")]
    for i in range(12):
        words = " ".join(f"detail{i}x{j}" for j in range(60))
        msgs.append(HumanMessage(f"Note {i}: {words}", id=f"h{i}"))
        msgs.append(AIMessage(f"Noted {i}.", id=f"a{i}"))

    def longest_line(line_tokens: int) -> int:
        cfg = CompactionConfig(summary_line_tokens=line_tokens, summary_max_tokens=2000)
        out = compact_messages(msgs, budget_tokens=1500, config=cfg, force=True)
        summary = next(m for m in out.messages if is_summary(m))
        lines = [ln for ln in str(summary.content).splitlines() if ln.startswith("- ")]
        assert lines, summary.content
        return max(COUNTER.count_text(ln[2:]) for ln in lines)

    assert longest_line(12) <= 12 < longest_line(80)
