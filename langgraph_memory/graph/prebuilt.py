"""A ready memory agent, built only from public parts you could wire by hand.

::

    from langgraph_memory import MemoryStore
    from langgraph_memory.graph.checkpoint import create_checkpointer
    from langgraph_memory.graph.prebuilt import create_memory_agent
    from langgraph_memory.graph.state import MemoryContext

    checkpointer = create_checkpointer("sqlite", path="checkpoints.sqlite")
    agent = create_memory_agent(model, tools=[get_weather], store=MemoryStore(path="./memory"),
                                checkpointer=checkpointer, memory_tools=True)
    agent.invoke({"messages": [("user", "I prefer short answers")]},
                 {"configurable": {"thread_id": "t1"}},
                 context=MemoryContext(user_id="alice"))

``model`` is any chat model; ``memory_tools=True`` also gives it the ``manage_memory`` /
``search_memory`` tools (:mod:`langgraph_memory.graph.tools`). The graph is
``START → load_memory → constraint_assert → compact_if_needed → generate``; ``generate``
either calls tools (``tools → compact_if_needed → generate``, so long tool loops stay under
budget) or finishes through ``save_memory → END``.

With a chat model for memory extraction (it may be the agent's own model)::

    agent = create_memory_agent(model, store=store, llm_extractor=extraction_model)  # in the turn
    writer = BackgroundWriter(WritePipeline(store, llm_extractor=extraction_model),
                              "memory.journal", defer_llm=True)                    # later
    agent = create_memory_agent(model, store=store, write_pipeline=writer)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from ..context.compaction.summarizers import SummarizerLike
from ..context.handles import HandleStore
from ..core.logsafe import get_logger
from ..lifecycle.forget import forget_user  # noqa: F401 - the 0.1 path langgraph_memory.prebuilt.forget_user
from ..store import MemoryStore
from ..write import WriteConfig
from .langgraph_store import LangGraphMemoryStore
from .nodes import CompactIfNeeded, ConstraintAssert, Generate, LoadMemory, SaveMemory
from .state import AgentState, MemoryContext
from .toolcalls import ToolChoice
from .tools import create_memory_tools
from .write_path import LLMOption, WritePath

log = get_logger("graph")

ToolErrorHandling = bool | str | Callable[..., str] | type[Exception] | tuple[type[Exception], ...]
"""What ``ToolNode(handle_tool_errors=...)`` accepts."""


def create_memory_agent(
    model: BaseChatModel,
    tools: Sequence[BaseTool | Callable[..., Any]] | None = None,
    *,
    store: MemoryStore | LangGraphMemoryStore | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    system_prompt: str | None = None,
    state_schema: type[Any] = AgentState,
    write_pipeline: WritePath | None = None,
    write_config: WriteConfig | None = None,
    llm_extractor: LLMOption | None = None,
    compaction_budget_tokens: int | None = None,
    handle_store: HandleStore | None = None,
    summarizer: SummarizerLike = None,
    recall_k: int | None = None,
    max_regenerations: int = 1,
    tool_choice: ToolChoice | None = None,
    hold_stream: bool = True,
    handle_tool_errors: ToolErrorHandling = True,
    memory_tools: bool = False,
    name: str = "memory_agent",
) -> CompiledStateGraph[Any, MemoryContext, Any, Any]:
    """Build and compile the memory agent (see the module docstring).

    ``store``: the :class:`MemoryStore` (or its :class:`LangGraphMemoryStore` adapter; the
    compiled graph exposes it as ``runtime.store`` either way). ``None`` opens the default
    embedded store at ``./.langgraph_memory``. ``checkpointer``: any LangGraph saver; use
    :func:`langgraph_memory.graph.checkpoint.create_checkpointer` to also record thread
    owners.
    ``state_schema``: :class:`AgentState` or your subclass of it. ``write_pipeline``: a
    configured ``WritePipeline``, or a ``BackgroundWriter`` (``defer_llm=True`` runs its LLM
    extractor after the thread goes quiet); default: one over ``store`` built from
    ``write_config`` and ``llm_extractor`` (a chat model with ``with_structured_output`` or an
    ``LLMExtractor``, run per ``write_config.llm_mode`` in the turn); giving
    ``write_pipeline`` with either raises :class:`~langgraph_memory.errors.ConfigError`.
    ``compaction_budget_tokens``:
    overrides the context's ``context_budget_tokens``. ``handle_store``: where compaction
    moves large payloads (tools can fetch them back with
    :func:`langgraph_memory.context.create_fetch_memory_tool`). ``handle_tool_errors``: passed
    to ``ToolNode`` (default ``True``: a failing tool becomes an error ``ToolMessage`` the
    model can react to, and ``save_memory`` records it as an episodic event of the task).
    ``memory_tools``: also give the model the ``manage_memory`` and ``search_memory`` tools
    (:mod:`langgraph_memory.graph.tools`: the agent decides what to remember; scoped by the run
    context, written through the write gates).
    ``tool_choice``: forces a tool on the first model call of each turn (``"any"``, a tool
    name, or a provider dict such as ``{"type": "function", "function": {"name": "search"}}``
    for ``ChatLlamaCpp``); after the tool result the model answers freely, so the loop ends.
    ``hold_stream``: see :class:`~langgraph_memory.graph.nodes.Generate` (no token of a draft that
    fails its constraint check reaches ``stream_mode="messages"``).

    Invoke it with ``context=MemoryContext(user_id=...)``; runs without a user fail with
    :class:`~langgraph_memory.errors.ScopeError`.
    """
    if store is None:
        store = MemoryStore()
    memory = store.store if isinstance(store, LangGraphMemoryStore) else store
    graph_store = store if isinstance(store, LangGraphMemoryStore) else LangGraphMemoryStore(store)
    tools = list(tools or [])
    if memory_tools:
        tools.extend(
            create_memory_tools(
                memory,
                pipeline=write_pipeline,
                write_config=write_config if write_pipeline is None else None,
            )
        )

    builder = StateGraph(state_schema, context_schema=MemoryContext)
    builder.add_node("load_memory", LoadMemory(memory, k=recall_k))
    builder.add_node("constraint_assert", ConstraintAssert())
    builder.add_node(
        "compact_if_needed",
        CompactIfNeeded(
            compaction_budget_tokens,
            handle_store=handle_store,
            summarizer=summarizer,
            system_prompt=system_prompt,
        ),
    )
    builder.add_node(
        "generate",
        Generate(
            model,
            tools or None,
            system_prompt=system_prompt,
            max_regenerations=max_regenerations,
            tool_choice=tool_choice,
            hold_stream=hold_stream,
        ),
    )
    builder.add_node(
        "save_memory",
        SaveMemory(write_pipeline, store=memory, config=write_config, llm_extractor=llm_extractor),
    )
    builder.add_edge(START, "load_memory")
    builder.add_edge("load_memory", "constraint_assert")
    builder.add_edge("constraint_assert", "compact_if_needed")
    builder.add_edge("compact_if_needed", "generate")
    if tools:
        builder.add_node("tools", ToolNode(tools, handle_tool_errors=handle_tool_errors))
        builder.add_conditional_edges(
            "generate", tools_condition, {"tools": "tools", END: "save_memory"}
        )
        builder.add_edge("tools", "compact_if_needed")
    else:
        builder.add_edge("generate", "save_memory")
    builder.add_edge("save_memory", END)
    return builder.compile(checkpointer=checkpointer, store=graph_store, name=name)


__all__ = ["create_memory_agent"]
