"""The node-facing compaction API: :func:`needs_compaction`, :func:`compact_messages` (plan,
pick the best attempt, emit the ``compaction`` event) and :func:`acompact_messages`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from ...core.scope import Scope
from ...errors import ConfigError
from ..events import emit_event
from ..handles import HandleStore, handle_scope
from ..tokens import CounterLike, as_token_counter
from .config import DEFAULT_CONFIG, CompactionConfig, CompactionResult
from .layout import analyze
from .planner import Compactor, PlanState
from .summarizers import SummarizerLike, as_summarizer


def needs_compaction(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    config: CompactionConfig | None = None,
    counter: CounterLike = None,
) -> bool:
    """True when ``messages`` exceed ``trigger_ratio`` of the effective budget."""
    cfg = config or DEFAULT_CONFIG
    budget = budget_tokens - cfg.reserve_tokens
    return as_token_counter(counter).count_messages(list(messages)) > cfg.trigger_ratio * budget


def compact_messages(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    config: CompactionConfig | None = None,
    counter: CounterLike = None,
    summarizer: SummarizerLike = None,
    handle_store: HandleStore | None = None,
    scope: Scope | dict[str, Any] | str | None = None,
    force: bool = False,
    source_ref: dict[str, Any] | None = None,
) -> CompactionResult:
    """Compact ``messages`` to fit ``budget_tokens`` (see the module docstring).

    ``counter``: a :class:`TokenCounter`, tokenizer or callable (default: the calibrated
    counter). ``summarizer``: a chat model, a callable or ``None`` (extractive).
    ``handle_store`` + ``scope``: where payloads go (without a store, stubs point at the
    checkpoint history instead, and nothing is lost as long as checkpoints are kept).
    ``source_ref``: e.g. ``{"thread_id": ..., "checkpoint_id": ...}``, recorded in summaries
    and stubs as where the raw text is. ``force``: compact even under the trigger.

    Raises :class:`~langgraph_memory.errors.ConfigError` for a non-positive effective
    budget and :class:`~langgraph_memory.errors.ScopeError` for a store without a scope.
    """
    cfg = config or DEFAULT_CONFIG
    tc = as_token_counter(counter)
    budget = int(budget_tokens) - cfg.reserve_tokens
    if budget <= 0:
        raise ConfigError(
            f"budget_tokens ({budget_tokens}) must exceed reserve_tokens ({cfg.reserve_tokens})"
        )
    sc: Scope | None = None
    if handle_store is not None:
        sc = handle_scope(scope)
    msgs = list(messages)
    before = tc.count_messages(msgs)
    if not msgs or (not force and before <= cfg.trigger_ratio * budget):
        return CompactionResult(False, msgs, [], None, before, before)

    layout = analyze(msgs, cfg)
    compactor = Compactor(
        layout,
        budget=budget,
        cfg=cfg,
        counter=tc,
        summarizer=as_summarizer(summarizer, tc, line_tokens=cfg.summary_line_tokens),
        handle_store=handle_store,
        scope=sc,
        source_ref=source_ref,
    )
    best: tuple[PlanState, int, int] | None = None
    start_keep = min(cfg.keep_last_turns, len(layout.units))
    for keep in range(start_keep, min(cfg.min_keep_turns, start_keep) - 1, -1):
        st, tokens = compactor.attempt(keep)
        if best is None or tokens < best[1]:
            best = (st, tokens, keep)
        if tokens <= budget:
            best = (st, tokens, keep)
            break
    assert best is not None
    st, after, keep = best
    new_messages = st.messages()
    changed = [m.id for m in new_messages] != [m.id for m in msgs] or any(
        a is not b for a, b in zip(new_messages, msgs, strict=False)
    )
    fits = after <= budget
    protected_ids = [str(msgs[i].id) for i in sorted(layout.protected)]
    tail_units = layout.units[max(0, len(layout.units) - keep) :]
    tail_ids = [str(msgs[i].id) for u in tail_units for i in u.indices]
    payload: dict[str, Any] = {
        "tokens_before": before,
        "tokens_after": after,
        "budget_tokens": budget,
        "fits": fits,
        "stages": st.stages,
        "turn_range": st.turn_range,
        "removed_ids": st.removed,
        "stubbed_ids": st.stubbed,
        "externalized_ids": st.externalized,
        "summary_id": st.summary.id if st.summary is not None else None,
        "summarized_message_ids": len(st.summarized_ids),
        "handles": sorted(set(st.handles)),
        "kept": {
            "protected_ids": protected_ids,
            "pinned_id": str(msgs[layout.pinned].id) if layout.pinned is not None else None,
            "tail_turns": keep,
            "tail_ids": tail_ids,
        },
    }
    if st.summarizer_error:
        payload["summarizer_error"] = st.summarizer_error
    if not fits:
        payload["irreducible_tokens"] = after
        payload["reason"] = (
            "the protected messages and minimal stubs alone exceed the budget; "
            "raise budget_tokens or shorten the system prompt / memory block"
        )
    event = emit_event(
        "compaction",
        payload,
        level=logging.INFO if fits else logging.WARNING,
        message=(
            f"compacted {before} -> {after} tokens (budget {budget}, stages {st.stages})"
            if fits
            else f"compaction could not fit the budget: {after} > {budget} tokens"
        ),
    )
    update: list[BaseMessage] = (
        [RemoveMessage(id=REMOVE_ALL_MESSAGES), *new_messages] if changed else []
    )
    return CompactionResult(
        changed=changed,
        messages=new_messages,
        update=update,
        event=event,
        tokens_before=before,
        tokens_after=after,
        fits=fits,
        handles=sorted(set(st.handles)),
    )


async def acompact_messages(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    config: CompactionConfig | None = None,
    counter: CounterLike = None,
    summarizer: SummarizerLike = None,
    handle_store: HandleStore | None = None,
    scope: Scope | dict[str, Any] | str | None = None,
    force: bool = False,
    source_ref: dict[str, Any] | None = None,
) -> CompactionResult:
    """:func:`compact_messages` for async callers; not natively async. A summariser that has
    ``ainvoke`` (a chat model) is still called through its sync ``invoke``: the whole
    compaction then runs in a worker thread (``asyncio.to_thread``) so the event loop is not
    blocked while the model answers. Without such a summariser, compaction is CPU-bound and
    runs inline on the event loop."""
    if summarizer is not None and hasattr(summarizer, "ainvoke"):
        return await asyncio.to_thread(
            compact_messages,
            messages,
            budget_tokens=budget_tokens,
            config=config,
            counter=counter,
            summarizer=summarizer,
            handle_store=handle_store,
            scope=scope,
            force=force,
            source_ref=source_ref,
        )
    return compact_messages(
        messages,
        budget_tokens=budget_tokens,
        config=config,
        counter=counter,
        summarizer=summarizer,
        handle_store=handle_store,
        scope=scope,
        force=force,
        source_ref=source_ref,
    )


__all__ = ["acompact_messages", "compact_messages", "needs_compaction"]
