"""Memory tools for the hot path: the agent decides what to remember and what to look up.

::

    from langgraph_memory.graph.tools import create_manage_memory_tool, create_search_memory_tool

    tools = [create_manage_memory_tool(store), create_search_memory_tool(store)]
    agent = create_memory_agent(model, tools=tools, store=store)     # or memory_tools=True
    agent = create_agent(model, tools, middleware=[MemoryMiddleware(store, tools=True)],
                         context_schema=MemoryContext)

Both are LangChain tools whose arguments are only what the model should choose (what to
remember, what to search for). **Who** the memory belongs to never comes from the model: the
scope (``user_id``, ``project_id``, ``acl``), the task and the confirmation flag are read at
call time from the running graph's context (``context=MemoryContext(user_id=...)``), the
thread from its config. An argument the model adds (``user_id="bob"``) is not part of the
schema and is ignored; a call outside a graph run, or in a run without a user, fails closed
with :class:`~langgraph_memory.errors.ScopeError`.

* ``manage_memory(content, kind="stable_fact", action="create", id=None)`` writes through
  :meth:`WritePipeline.remember <langgraph_memory.write.WritePipeline.remember>`: PII is
  redacted first, then the write gates run (refused secrets, injection / permission
  widening, kinds, project confirmation); the write is explicit (the agent chose it), so an
  implicit-preference repetition is not needed. ``action="update"`` supersedes the record
  ``id`` (history kept), ``action="delete"`` deletes and erases it. Records are
  ``source=tool``, ``metadata["extractor"] == "tool"``, the tool call id as evidence.
* ``search_memory(query, k=5)`` runs the normal hybrid recall in the run's scope over facts
  and conversation episodes, re-checks each hit like ``load_memory`` does, and returns each as
  ``[id] kind: "quoted text" (score)``.

Unknown ids and out-of-scope ids give the same plain answer (nothing reveals whether another
user's record exists); gate refusals are answered with their reason so the model can react.
"""

from __future__ import annotations

import logging
from typing import Annotated, Literal

from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool

from ..core.logsafe import get_logger, scrub_text
from ..errors import ConfigError, RecordNotFound, ScopeError
from ..read.guard import RECALL_LAYERS, quote, reject_reason
from ..store import MemoryStore
from ..write import BackgroundWriter, WriteConfig, WritePipeline
from .runtime import NodeRuntime, emit, provenance, resolve_store
from .state import MemoryContext, require_context
from .write_path import pipeline_of

log = get_logger("tools")

MANAGE_DESCRIPTION = (
    "Save, update or delete a long-term memory about the user you are talking to. Use it when "
    "the user states a lasting preference, rule or fact worth remembering across "
    "conversations, or asks you to remember, correct or forget something. `content`: the memory "
    "in one sentence. `kind`: preference, constraint (a rule you must follow) or stable_fact. "
    "`action`: create (default), update (replace memory `id`) or delete (forget memory `id`)."
)
SEARCH_DESCRIPTION = (
    "Search the long-term memory of the user you are talking to (facts, preferences, rules and "
    "what was said in earlier conversations). Returns matching memories with their ids."
)
NOT_FOUND = "No memory with id {id!r} (unknown or not yours)."
NEEDS_ID = "action={action!r} needs the `id` of the memory to {action}."
NO_RESULTS = "No matching memories."
OUTSIDE_RUN = (
    "{tool} reads the user from the running graph's context and is not running inside a "
    "graph (invoke the agent with context=MemoryContext(user_id=...))"
)

MemoryKind = Literal["preference", "constraint", "stable_fact"]
ManageAction = Literal["create", "update", "delete"]


def _run_context(tool: str) -> tuple[MemoryContext, NodeRuntime]:
    """The run's :class:`MemoryContext` and runtime; fails closed outside a graph run."""
    try:
        from langgraph.runtime import get_runtime

        runtime = get_runtime()
    except Exception as exc:  # outside a graph run
        raise ScopeError(OUTSIDE_RUN.format(tool=tool)) from exc
    if runtime is None:
        raise ScopeError(OUTSIDE_RUN.format(tool=tool))
    return require_context(getattr(runtime, "context", None)), runtime


class _Tools:
    """Shared store / pipeline resolution of the two tools."""

    def __init__(
        self,
        store: MemoryStore | None,
        pipeline: WritePipeline | BackgroundWriter | None,
        config: WriteConfig | None,
    ) -> None:
        if isinstance(pipeline, BackgroundWriter):  # tool writes are synchronous: its pipeline
            pipeline = pipeline_of(pipeline)
        if store is not None and not isinstance(store, MemoryStore):
            raise ConfigError(f"store must be a MemoryStore, got {type(store).__name__}")
        if pipeline is not None and not isinstance(pipeline, WritePipeline):
            raise ConfigError(f"pipeline must be a WritePipeline, got {type(pipeline).__name__}")
        if pipeline is not None and config is not None:
            raise ConfigError("give either pipeline or write_config, not both")
        self.store = store if store is not None else (pipeline.store if pipeline else None)
        self.pipeline = pipeline
        self.config = config
        self._pipelines: dict[int, WritePipeline] = {}

    def memory(self, runtime: NodeRuntime) -> MemoryStore:
        return resolve_store(self.store, runtime)

    def writer(self, runtime: NodeRuntime) -> WritePipeline:
        if self.pipeline is not None:
            return self.pipeline
        store = self.memory(runtime)
        if id(store) not in self._pipelines:
            self._pipelines[id(store)] = WritePipeline(store, config=self.config)
        return self._pipelines[id(store)]


def create_manage_memory_tool(
    store: MemoryStore | None = None,
    *,
    pipeline: WritePipeline | BackgroundWriter | None = None,
    write_config: WriteConfig | None = None,
    name: str = "manage_memory",
) -> BaseTool:
    """The ``manage_memory`` tool (see the module docstring).

    ``store``: the :class:`MemoryStore` (``None``: the graph's store, ``compile(store=
    LangGraphMemoryStore(...))``). ``pipeline``: the :class:`WritePipeline` to write through
    (default: one over the store with ``write_config``; a ``BackgroundWriter``'s pipeline is
    used directly: the tool answers with the decision, so it writes in the call). The scope
    always comes from the run context, never from the tool's arguments.
    """
    tools = _Tools(store, pipeline, write_config)

    def manage(
        content: str,
        tool_call_id: Annotated[str, InjectedToolCallId],
        kind: MemoryKind = "stable_fact",
        action: ManageAction = "create",
        id: str | None = None,
    ) -> str:
        ctx, runtime = _run_context(name)
        scope = ctx.scope
        memory = tools.memory(runtime)
        thread_id, checkpoint_id = provenance(runtime)
        if action != "create" and not id:
            return NEEDS_ID.format(action=action)
        if action == "delete":
            assert id is not None
            try:
                memory.get(id, scope=scope)
                memory.delete(id, scope=scope)
            except RecordNotFound:
                return NOT_FOUND.format(id=id)
            emit(
                runtime,
                "memory_tool",
                {"user_id": ctx.user_id, "action": "deleted", "record_id": id, "tool": name},
                message=f"memory tool {name}: deleted record {id} for user {ctx.user_id}",
            )
            return f"Forgot memory [{id}]."
        try:
            report = tools.writer(runtime).remember(
                content,
                scope=scope,
                turn_id=tool_call_id or "tool-call",
                kind=kind,
                thread_id=thread_id,
                checkpoint_id=checkpoint_id,
                task_id=ctx.task_id,
                confirmed=ctx.confirmed,
                replaces=id if action == "update" else None,
            )
        except RecordNotFound:
            return NOT_FOUND.format(id=id)
        decision = report.decisions[0]
        reason = scrub_text(decision.reason)
        emit(
            runtime,
            "memory_tool",
            {
                "user_id": ctx.user_id,
                "action": decision.action,
                "reason": reason,
                "record_id": decision.record_id,
                "tool": name,
            },
            message=(
                f"memory tool {name}: {decision.action} {kind} for user {ctx.user_id}"
                f" (record {decision.record_id or '-'}): {reason}"
            ),
        )
        if decision.record_id and decision.action in {
            "inserted",
            "superseded",
            "reinforced",
            "restored",
            "duplicate_turn",
        }:
            return f"Remembered [{decision.record_id}] ({decision.action}: {reason})."
        return f"Not remembered ({decision.action}): {reason}."

    return StructuredTool.from_function(
        manage, name=name, description=MANAGE_DESCRIPTION, parse_docstring=False
    )


def create_search_memory_tool(
    store: MemoryStore | None = None,
    *,
    k: int = 5,
    name: str = "search_memory",
) -> BaseTool:
    """The ``search_memory`` tool (see the module docstring): hybrid recall in the run's
    scope, ``k`` hits by default (the model may ask for 1..20)."""
    if not 1 <= k <= 20:
        raise ConfigError(f"k must be in 1..20, got {k!r}")
    tools = _Tools(store, None, None)

    def search(query: str, k: int = k) -> str:
        ctx, runtime = _run_context(name)
        scope = ctx.scope
        limit = min(20, max(1, int(k)))
        result = tools.memory(runtime).search(
            query, scope, k=limit, filters={"layer": list(RECALL_LAYERS)}
        )
        lines: list[str] = []
        for hit in result.hits:
            if reject_reason(hit.record, scope, ctx.task_id, layers=RECALL_LAYERS) is not None:
                continue
            lines.append(
                f"[{hit.record.id}] {hit.record.kind}: {quote(hit.record.text)} "
                f"(score {hit.score:.2f})"
            )
        emit(
            runtime,
            "memory_tool",
            {"user_id": ctx.user_id, "action": "searched", "hits": len(lines), "tool": name},
            level=logging.INFO,
            message=f"memory tool {name}: {len(lines)} hit(s) for user {ctx.user_id}",
        )
        return "\n".join(lines) if lines else NO_RESULTS

    return StructuredTool.from_function(search, name=name, description=SEARCH_DESCRIPTION)


def _store_of(pipeline: WritePipeline | BackgroundWriter | None) -> MemoryStore | None:
    if isinstance(pipeline, BackgroundWriter):
        return pipeline.pipeline.store
    return pipeline.store if pipeline is not None else None


def create_memory_tools(
    store: MemoryStore | None = None,
    *,
    pipeline: WritePipeline | BackgroundWriter | None = None,
    write_config: WriteConfig | None = None,
    k: int = 5,
) -> list[BaseTool]:
    """``[manage_memory, search_memory]`` over one store (see the factories)."""
    return [
        create_manage_memory_tool(store, pipeline=pipeline, write_config=write_config),
        create_search_memory_tool(store if store is not None else _store_of(pipeline), k=k),
    ]


__all__ = [
    "MANAGE_DESCRIPTION",
    "SEARCH_DESCRIPTION",
    "create_manage_memory_tool",
    "create_memory_tools",
    "create_search_memory_tool",
]
