"""Property tests (hypothesis): compaction invariants hold for any history and budget.

Invariants checked on random histories with system prompts, memory blocks, human/assistant
turns, multi-call tool turns, oversized payloads, Chinese and English text:

* no orphan ToolMessages and no unanswered tool_calls in the result;
* system messages and the memory block come back unchanged (same objects, same order);
* the budget is met whenever it is feasible (protected part + minimal stubs fit);
* kept messages keep their ids, in their original order; the last turn is kept;
* every message that left the context is traceable: its id is in a summary's
  ``message_ids`` and its raw text is behind a handle;
* ``tokens_after`` is the real count of the result.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from langgraph_memory.context import (
    META_KEY,
    CompactionConfig,
    HandleStore,
    compact_messages,
    default_token_counter,
    find_orphans,
    is_protected,
    is_summary,
)

COUNTER = default_token_counter()

_WORDS = ["alpha", "flight", "budget", "Seattle", "report", "42", "never", "email", "data"]
_ZH = ["机票", "预算", "以后", "中文", "报告", "数据", "不要", "邮件", "上海"]


@st.composite
def texts(draw: st.DrawFn, max_words: int = 40) -> str:
    size = draw(st.sampled_from([0, 1, 3, 8, max_words, max_words * 20]))
    lang = draw(st.sampled_from(["en", "zh", "mix"]))
    if size == 0:
        return ""
    vocab = _WORDS if lang == "en" else _ZH if lang == "zh" else _WORDS + _ZH
    words = draw(st.lists(st.sampled_from(vocab), min_size=size, max_size=size))
    return (" " if lang == "en" else "").join(words)


@st.composite
def histories(draw: st.DrawFn) -> list[BaseMessage]:
    counter = iter(range(10_000))

    def mid(prefix: str) -> str:
        return f"{prefix}{next(counter)}"

    messages: list[BaseMessage] = []
    if draw(st.booleans()):
        messages.append(SystemMessage(content=draw(texts(12)), id=mid("sys")))
    if draw(st.booleans()):
        messages.append(
            SystemMessage(content="Memory: " + draw(texts(8)), name="memory_block", id=mid("mem"))
        )
    n_turns = draw(st.integers(min_value=0, max_value=18))
    for _ in range(n_turns):
        kind = draw(st.sampled_from(["human", "ai", "tool", "tool", "memory"]))
        if kind == "human":
            messages.append(HumanMessage(content=draw(texts()) or "hi", id=mid("h")))
        elif kind == "ai":
            messages.append(AIMessage(content=draw(texts()), id=mid("a")))
        elif kind == "memory":
            messages.append(
                HumanMessage(
                    content="[memory] " + draw(texts(6)),
                    id=mid("m"),
                    additional_kwargs={META_KEY: {"kind": "memory_block"}},
                )
            )
        else:
            n_calls = draw(st.integers(min_value=1, max_value=3))
            calls = [
                {
                    "name": "search",
                    "args": {"q": draw(texts(3))},
                    "id": mid("call"),
                    "type": "tool_call",
                }
                for _ in range(n_calls)
            ]
            messages.append(AIMessage(content=draw(texts(4)), tool_calls=calls, id=mid("a")))
            for call in calls:
                messages.append(
                    ToolMessage(
                        content=draw(texts(60)), tool_call_id=call["id"], name="search", id=mid("t")
                    )
                )
    if draw(st.booleans()):  # a final assistant message whose calls still await execution
        cid = mid("call")
        messages.append(
            AIMessage(
                content="", tool_calls=[{"name": "search", "args": {}, "id": cid}], id=mid("a")
            )
        )
    return messages


def _summaries_ids(messages: list[BaseMessage]) -> set[str]:
    ids: set[str] = set()
    for m in messages:
        if is_summary(m):
            ids.update(m.additional_kwargs[META_KEY]["message_ids"])
    return ids


def _check_invariants(
    before: list[BaseMessage], result: Any, budget: int, cfg: CompactionConfig, store: HandleStore
) -> None:
    after: list[BaseMessage] = result.messages
    # 1. no orphans (the inputs have none)
    assert find_orphans(before) == ([], [])
    assert find_orphans(after) == ([], []), [type(m).__name__ for m in after]
    # 2. protected messages untouched, same order
    prot_before = [m for m in before if is_protected(m, cfg)]
    prot_after = [m for m in after if is_protected(m, cfg)]
    assert len(prot_before) == len(prot_after)
    assert all(a is b for a, b in zip(prot_before, prot_after, strict=True))
    # 3. real token count reported
    assert result.tokens_after == COUNTER.count_messages(after)
    # 4. kept ids in original order, nothing invented except summaries
    positions = {m.id: i for i, m in enumerate(before)}
    kept = [m for m in after if not is_summary(m)]
    assert all(m.id in positions for m in kept)
    order = [positions[m.id] for m in kept]
    assert order == sorted(order)
    # 5. traceable: each message that left is in a summary and its transcript handle
    # (an earlier summary that is re-summarised passes its ids on to the new one)
    gone = {m.id for m in before if not is_summary(m)} - {m.id for m in after}
    covered = _summaries_ids(after)
    assert gone <= covered, gone - covered
    for m in after:
        meta = m.additional_kwargs.get(META_KEY, {}) if m.additional_kwargs else {}
        handle = meta.get("handle") or meta.get("transcript_handle")
        if handle:
            assert store.get("u1", handle)  # fetchable in the run's scope
    # 6. budget met when feasible
    if result.changed or result.tokens_before > budget:
        assert result.event is not None
        assert result.event["fits"] == result.fits
        if not result.fits:
            assert result.event["irreducible_tokens"] > budget
    else:
        assert result.tokens_after <= budget
    protected_tokens = COUNTER.count_messages(prot_before)
    if result.event is not None and cfg.min_keep_turns == 0 and protected_tokens + 200 <= budget:
        assert result.fits, (protected_tokens, budget, result.event)
    if result.fits:
        assert result.tokens_after <= budget


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    history=histories(),
    budget=st.integers(min_value=60, max_value=6000),
    keep=st.integers(min_value=0, max_value=5),
)
def test_compaction_invariants_hold_for_any_history_and_budget(
    history: list[BaseMessage], budget: int, keep: int
) -> None:
    cfg = CompactionConfig(keep_last_turns=keep, min_keep_turns=0)
    store = HandleStore()
    result = compact_messages(
        history, budget_tokens=budget, config=cfg, handle_store=store, scope="u1"
    )
    _check_invariants(history, result, budget, cfg, store)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(history=histories(), budget=st.integers(min_value=60, max_value=6000))
def test_default_config_keeps_last_turn_and_repeated_compaction_is_stable(
    history: list[BaseMessage], budget: int
) -> None:
    cfg = CompactionConfig()
    store = HandleStore()
    first = compact_messages(history, budget_tokens=budget, handle_store=store, scope="u1")
    _check_invariants(history, first, budget, cfg, store)
    # the last non-protected message is kept with its id (min_keep_turns=1)
    tail = [m for m in history if not is_protected(m, cfg)]
    if tail:
        assert tail[-1].id in {m.id for m in first.messages}
    # compacting again (e.g. the next step) keeps every invariant, traced through summaries
    second = compact_messages(
        first.messages, budget_tokens=budget, handle_store=store, scope="u1", force=True
    )
    _check_invariants(first.messages, second, budget, cfg, store)
    gone = {m.id for m in history if not is_summary(m)} - {m.id for m in second.messages}
    assert gone <= _summaries_ids(second.messages)


@st.composite
def interleaved_histories(draw: st.DrawFn) -> list[BaseMessage]:
    """Histories where a call's results arrive late, after other messages (still valid)."""
    base = draw(histories())
    out: list[BaseMessage] = []
    pending: list[ToolMessage] = []
    for m in base:
        if isinstance(m, ToolMessage) and draw(st.booleans()):
            pending.append(m)  # deliver later
            continue
        out.append(m)
        if (
            pending
            and isinstance(m, HumanMessage | AIMessage)
            and not getattr(m, "tool_calls", None)
        ):
            out.extend(pending)
            pending = []
    out.extend(pending)
    return out


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    history=interleaved_histories(),
    budget=st.integers(min_value=60, max_value=4000),
    summary_words=st.integers(min_value=0, max_value=3000),
    fail=st.booleans(),
)
def test_invariants_with_late_tool_results_and_any_summarizer(
    history: list[BaseMessage], budget: int, summary_words: int, fail: bool
) -> None:
    if find_orphans(history) != ([], []):
        return  # delivering late can put a result before its call: not a valid history
    cfg = CompactionConfig(min_keep_turns=0)

    def summarizer(messages: list[BaseMessage], *, max_tokens: int) -> str:
        if fail:
            raise RuntimeError("summariser down")
        return "word " * summary_words  # may ignore max_tokens entirely

    store = HandleStore()
    result = compact_messages(
        history,
        budget_tokens=budget,
        config=cfg,
        summarizer=summarizer,
        handle_store=store,
        scope="u1",
    )
    _check_invariants(history, result, budget, cfg, store)
