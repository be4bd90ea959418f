"""Deprecated ``create_*`` factories of the five nodes: build the classes instead.

Kept for one release: each factory warns with :class:`DeprecationWarning`
(:data:`FACTORY_DEPRECATED`) and returns the node its class builds from the same arguments
(the signatures are the classes' own)::

    create_load_memory(store, k=6)   # warns; same as LoadMemory(store, k=6)
"""

import warnings
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from ...context.compaction import CompactionConfig
from ...context.compaction.summarizers import SummarizerLike
from ...context.handles import HandleStore
from ...context.tokens import CounterLike
from ...read.conversation import MAX_FREE_TEXT_FACTS
from ...store import MemoryStore
from ...write import WriteConfig
from ..toolcalls import ToolChoice, ToolSpec
from ..write_path import LLMOption, WritePath
from .compact_if_needed import CompactIfNeeded
from .constraint_assert import ConstraintAssert
from .generate import Generate
from .load_memory import LoadMemory
from .save_memory import SaveMemory

FACTORY_DEPRECATED = (
    "{factory}() is deprecated and goes in 0.3: use {cls}(...) (the same arguments) instead"
)


def _warn(factory: str, cls: type) -> None:
    warnings.warn(
        FACTORY_DEPRECATED.format(factory=factory, cls=cls.__name__),
        DeprecationWarning,
        stacklevel=3,
    )


def create_load_memory(
    store: MemoryStore | None = None,
    *,
    k: int | None = None,
    include_procedural: bool = True,
    always_include_constraints: bool = True,
    counter: CounterLike = None,
    touch_used: bool = True,
    min_facts: int = 2,
    neighbour_slots: int | None = None,
    max_free_text_facts: int | None = MAX_FREE_TEXT_FACTS,
    name: str | None = None,
) -> LoadMemory:
    """Deprecated: ``LoadMemory(store, ...)``."""
    _warn("create_load_memory", LoadMemory)
    return LoadMemory(
        store,
        k=k,
        include_procedural=include_procedural,
        always_include_constraints=always_include_constraints,
        counter=counter,
        touch_used=touch_used,
        min_facts=min_facts,
        neighbour_slots=neighbour_slots,
        max_free_text_facts=max_free_text_facts,
        name=name,
    )


def create_constraint_assert(*, name: str | None = None) -> ConstraintAssert:
    """Deprecated: ``ConstraintAssert()``."""
    _warn("create_constraint_assert", ConstraintAssert)
    return ConstraintAssert(name=name)


def create_compact_if_needed(
    budget_tokens: int | None = None,
    *,
    config: CompactionConfig | None = None,
    counter: CounterLike = None,
    summarizer: SummarizerLike = None,
    handle_store: HandleStore | None = None,
    system_prompt: str | None = None,
    min_history_ratio: float = 0.5,
    name: str | None = None,
) -> CompactIfNeeded:
    """Deprecated: ``CompactIfNeeded(budget_tokens, ...)``."""
    _warn("create_compact_if_needed", CompactIfNeeded)
    return CompactIfNeeded(
        budget_tokens,
        config=config,
        counter=counter,
        summarizer=summarizer,
        handle_store=handle_store,
        system_prompt=system_prompt,
        min_history_ratio=min_history_ratio,
        name=name,
    )


def create_generate(
    model: BaseChatModel | Runnable[Any, Any],
    tools: Sequence[ToolSpec] | None = None,
    *,
    system_prompt: str | None = None,
    max_regenerations: int = 1,
    check_constraints: bool = True,
    tool_choice: ToolChoice | None = None,
    parse_text_tool_calls: bool = True,
    hold_stream: bool = True,
    name: str | None = None,
) -> Generate:
    """Deprecated: ``Generate(model, tools, ...)``."""
    _warn("create_generate", Generate)
    return Generate(
        model,
        tools,
        system_prompt=system_prompt,
        max_regenerations=max_regenerations,
        check_constraints=check_constraints,
        tool_choice=tool_choice,
        parse_text_tool_calls=parse_text_tool_calls,
        hold_stream=hold_stream,
        name=name,
    )


def create_save_memory(
    pipeline: WritePath | None = None,
    *,
    store: MemoryStore | None = None,
    config: WriteConfig | None = None,
    llm_extractor: LLMOption | None = None,
    record_tool_failures: bool = True,
    keep_replies: bool = True,
    name: str | None = None,
) -> SaveMemory:
    """Deprecated: ``SaveMemory(pipeline, ...)``."""
    _warn("create_save_memory", SaveMemory)
    return SaveMemory(
        pipeline,
        store=store,
        config=config,
        llm_extractor=llm_extractor,
        record_tool_failures=record_tool_failures,
        keep_replies=keep_replies,
        name=name,
    )


__all__ = [
    "FACTORY_DEPRECATED",
    "create_compact_if_needed",
    "create_constraint_assert",
    "create_generate",
    "create_load_memory",
    "create_save_memory",
]
