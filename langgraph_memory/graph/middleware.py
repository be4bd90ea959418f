"""Memory for ``langchain.agents.create_agent``: one middleware, the same behaviour as the
memory nodes.

::

    from langchain.agents import create_agent
    from langgraph_memory.graph.middleware import MemoryMiddleware
    from langgraph_memory.graph.state import MemoryContext

    agent = create_agent(model, tools, middleware=[MemoryMiddleware(store)],
                         context_schema=MemoryContext, checkpointer=checkpointer)
    agent.invoke({"messages": [("user", "hi")]}, config, context=MemoryContext(user_id="alice"))

Hooks (each with an async twin: the async hooks call the nodes' async paths, whose
docstrings say which steps await an async API and which run sync code in a worker thread,
and await the async model handler):

* ``before_agent`` — :class:`~langgraph_memory.graph.nodes.LoadMemory` then
  :class:`~langgraph_memory.graph.nodes.ConstraintAssert` (recall, memory block, constraints).
* ``before_model`` — :class:`~langgraph_memory.graph.nodes.CompactIfNeeded` (when a budget is set
  or the context has one), before every model call of the tool loop: trims the memory block
  when memory outgrows the budget, then compacts the history.
* ``wrap_model_call`` — appends the memory block to the system message, re-asserts every
  active constraint, checks the output and regenerates once on a violation (a tool call that
  still violates is withheld), with the same loop as :class:`~langgraph_memory.graph.nodes.Generate`
  (:mod:`langgraph_memory.graph.regenerate`);
  also its ``tool_choice`` (first model call of a turn only), tool calls written as JSON
  text, and ``hold_stream`` (no token of an unchecked draft reaches
  ``stream_mode="messages"`` while a checked constraint applies).
* ``tools=True`` — adds the ``manage_memory`` / ``search_memory`` tools
  (:mod:`langgraph_memory.graph.tools`) to the agent.
* ``after_agent`` — :class:`~langgraph_memory.graph.nodes.SaveMemory` (write path + provenance);
  ``llm_extractor=`` adds the LLM extractor (``MemoryMiddleware(store,
  llm_extractor=chat_model)``), a ``BackgroundWriter(..., defer_llm=True)`` as
  ``write_pipeline`` runs it after the thread goes quiet.

This module does not use ``from __future__ import annotations`` (LangGraph inspects hook
signatures).
"""

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, NotRequired

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.runtime import Runtime

from ..context.checkers import check_output
from ..context.compaction.summarizers import SummarizerLike
from ..context.constraints import Constraint, Violation
from ..context.handles import HandleStore
from ..read.prompt import DEFAULT_SYSTEM_PROMPT, system_text
from ..store import MemoryStore
from ..write import WriteConfig
from .nodes import CompactIfNeeded, ConstraintAssert, LoadMemory, SaveMemory
from .regenerate import aregenerate, regenerate, withhold
from .state import MemoryContext, RecalledMemory, require_context
from .toolcalls import (
    ToolChoice,
    check_tool_choice,
    held_config,
    parse_text_tool_calls,
    tool_name,
    tool_result_since_user,
)
from .tools import create_memory_tools
from .write_path import LLMOption, WritePath


class MemoryAgentState(AgentState[Any]):
    """``create_agent``'s state plus the memory keys (see
    :class:`langgraph_memory.graph.state.AgentState`)."""

    task_id: NotRequired[str | None]
    goal: NotRequired[str | None]
    plan: NotRequired[list[str]]
    constraints: NotRequired[list[Constraint]]
    ledger: NotRequired[list[str]]
    recalled: NotRequired[list[RecalledMemory]]
    procedural: NotRequired[list[RecalledMemory]]
    memory_block: NotRequired[str]
    missing_constraints: NotRequired[list[str]]
    dropped_for_budget: NotRequired[list[str]]
    violations: NotRequired[list[dict[str, Any]]]
    saved_message_ids: NotRequired[list[str]]
    memory_writes: NotRequired[list[dict[str, Any]]]
    compactions: NotRequired[int]


def _merge(*updates: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for update in updates:
        if update:
            out.update(update)
    return out


class MemoryMiddleware(AgentMiddleware[MemoryAgentState, MemoryContext, Any]):
    """Adds long-term memory to an agent built with ``langchain.agents.create_agent``.

    ``store``: the :class:`MemoryStore`. ``write_pipeline``: a configured ``WritePipeline`` or
    ``BackgroundWriter`` (default: one over ``store`` built from ``write_config`` and
    ``llm_extractor``, a chat model with ``with_structured_output`` or an ``LLMExtractor``;
    giving ``write_pipeline`` with either raises ``ConfigError``)::

        MemoryMiddleware(store, llm_extractor=init_chat_model("openai:gpt-4o-mini"))

    ``compaction_budget_tokens``: compact the history before
    each model call when set (``None``: use the context's ``context_budget_tokens``;
    ``0``: never compact). ``max_regenerations``: regenerations allowed after a constraint
    violation. ``tools=True`` gives the agent the ``manage_memory`` and ``search_memory``
    tools (:mod:`langgraph_memory.graph.tools`; scoped by the run context, writes through the
    write gates). Runs need ``context=MemoryContext(user_id=...)``
    (``context_schema=MemoryContext``).

    ``tool_choice``: set on the first model call of each turn (when no other middleware set
    one), lifted once a tool result has come back, so a forced tool runs and the loop ends.
    ``parse_text_tool_calls``: a reply that is only a JSON tool call naming one of the
    request's tools becomes a real tool call. ``hold_stream`` (default on): while a
    constraint with a checker applies, the model is called under LangGraph's ``nostream``
    tag and only the checked final message is streamed (no token streaming on those
    calls); ``False`` streams tokens live, violating drafts included.
    """

    state_schema = MemoryAgentState

    def __init__(
        self,
        store: MemoryStore,
        *,
        write_pipeline: WritePath | None = None,
        write_config: WriteConfig | None = None,
        llm_extractor: LLMOption | None = None,
        recall_k: int | None = None,
        compaction_budget_tokens: int | None = None,
        handle_store: HandleStore | None = None,
        summarizer: SummarizerLike = None,
        max_regenerations: int = 1,
        system_prompt: str | None = None,
        tools: bool = False,
        tool_choice: ToolChoice | None = None,
        parse_text_tool_calls: bool = True,
        hold_stream: bool = True,
    ) -> None:
        if tool_choice is not None and not isinstance(tool_choice, str | dict):
            check_tool_choice(tool_choice, ())  # raises the type error
        super().__init__()
        self.store = store
        self.tools = (
            create_memory_tools(
                store,
                pipeline=write_pipeline,
                write_config=write_config if write_pipeline is None else None,
            )
            if tools
            else []
        )
        self._load = LoadMemory(store, k=recall_k)
        self._assert = ConstraintAssert()
        self._compact = (
            None
            if compaction_budget_tokens == 0
            else CompactIfNeeded(
                compaction_budget_tokens,
                handle_store=handle_store,
                summarizer=summarizer,
                system_prompt=system_prompt,
            )
        )
        self._save = SaveMemory(
            write_pipeline, store=store, config=write_config, llm_extractor=llm_extractor
        )
        self.max_regenerations = max_regenerations
        self.system_prompt = system_prompt
        self.tool_choice = tool_choice
        self.parse_text_tool_calls = parse_text_tool_calls
        self.hold_stream = hold_stream

    # ------------------------------------------------------------------ agent start / end
    def before_agent(
        self, state: MemoryAgentState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Recall memory and assert constraints (once per invocation)."""
        loaded = self._load(state, runtime)
        asserted = self._assert({**state, **loaded}, runtime)
        return _merge(loaded, asserted)

    async def abefore_agent(
        self, state: MemoryAgentState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_agent`."""
        loaded = await self._load.acall(state, runtime)
        asserted = await self._assert.acall({**state, **loaded}, runtime)
        return _merge(loaded, asserted)

    def before_model(
        self, state: MemoryAgentState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Compact the history when it is over budget."""
        if self._compact is None:
            require_context(runtime.context)
            return None
        return self._compact(state, runtime) or None

    async def abefore_model(
        self, state: MemoryAgentState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_model`."""
        if self._compact is None:
            require_context(runtime.context)
            return None
        return (await self._compact.acall(state, runtime)) or None

    def after_agent(
        self, state: MemoryAgentState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Run the write path on the new human turns."""
        return self._save(state, runtime) or None

    async def aafter_agent(
        self, state: MemoryAgentState, runtime: Runtime[MemoryContext]
    ) -> dict[str, Any] | None:
        """Async :meth:`after_agent`."""
        return (await self._save.acall(state, runtime)) or None

    # ------------------------------------------------------------------ model call
    def _system(self, request: ModelRequest[Any]) -> tuple[str, list[Constraint]]:
        require_context(request.runtime.context if request.runtime is not None else None)
        state = request.state or {}
        base = ""
        if request.system_message is not None:
            content = request.system_message.content
            base = content if isinstance(content, str) else str(content)
        base = base or self.system_prompt or DEFAULT_SYSTEM_PROMPT
        return system_text(base, state)

    @staticmethod
    def _last_ai(response: ModelResponse[Any]) -> AIMessage | None:
        for message in reversed(response.result):
            if isinstance(message, AIMessage):
                return message
        return None

    def _violations(
        self, response: ModelResponse[Any], constraints: list[Constraint]
    ) -> list[Violation]:
        ai = self._last_ai(response)
        if ai is None or not constraints:
            return []
        return check_output(ai, constraints)

    @staticmethod
    def _withhold(response: ModelResponse[Any], violations: list[Violation]) -> ModelResponse[Any]:
        if not violations:
            return response
        result = [
            withhold(message, violations) if isinstance(message, AIMessage) else message
            for message in response.result
        ]
        return ModelResponse(result=result, structured_response=response.structured_response)

    def _request(self, request: ModelRequest[Any], text: str) -> ModelRequest[Any]:
        """The request with our system text and, on the first call of a turn, the forced
        ``tool_choice`` (never over one another middleware set)."""
        override: dict[str, Any] = {"system_message": SystemMessage(content=text)}
        if (
            self.tool_choice is not None
            and request.tool_choice is None
            and not tool_result_since_user(request.messages)
        ):
            names = {tool_name(t) for t in request.tools}
            override["tool_choice"] = check_tool_choice(self.tool_choice, names)
        return request.override(**override)

    def _parsed(
        self, request: ModelRequest[Any], response: ModelResponse[Any]
    ) -> ModelResponse[Any]:
        if not self.parse_text_tool_calls or not request.tools:
            return response
        names = {tool_name(t) for t in request.tools}
        result = [parse_text_tool_calls(m, names, request.messages) for m in response.result]
        if all(a is b for a, b in zip(result, response.result, strict=True)):
            return response
        return ModelResponse(result=result, structured_response=response.structured_response)

    def _held(self, constraints: list[Constraint]) -> AbstractContextManager[None]:
        if self.hold_stream and any(c.checker for c in constraints):
            return held_config()
        return nullcontext()

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Inject memory + constraints, check the output, regenerate once on a violation."""
        text, constraints = self._system(request)

        def call(system: str) -> ModelResponse[Any]:
            return self._parsed(request, handler(self._request(request, system)))

        with self._held(constraints):
            response, violations, _ = regenerate(
                call,
                lambda out: self._violations(out, constraints),
                text,
                constraints,
                self.max_regenerations,
            )
        return self._withhold(response, violations)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async :meth:`wrap_model_call`."""
        text, constraints = self._system(request)

        async def call(system: str) -> ModelResponse[Any]:
            return self._parsed(request, await handler(self._request(request, system)))

        with self._held(constraints):
            response, violations, _ = await aregenerate(
                call,
                lambda out: self._violations(out, constraints),
                text,
                constraints,
                self.max_regenerations,
            )
        return self._withhold(response, violations)


__all__ = ["MemoryAgentState", "MemoryMiddleware"]
