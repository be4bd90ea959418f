"""The ``generate`` node: the chat model call, with memory in the system text and the output
checked against every active constraint (one regeneration allowed, a violating tool call
withheld)."""

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable

from ...context.checkers import check_output
from ...context.constraints import Constraint, Violation
from ...errors import ConfigError
from ...read.prompt import DEFAULT_SYSTEM_PROMPT, system_text
from ...read.query import content_text
from ..regenerate import aregenerate, regenerate, withhold
from ..runtime import NodeRuntime, emit, run_context
from ..state import MemoryContext
from ..toolcalls import (
    NOSTREAM_CONFIG,
    ToolChoice,
    ToolSpec,
    check_tool_choice,
    parse_text_tool_calls,
    tool_name,
    tool_result_since_user,
)
from .base import MemoryNode

NEGATIVE_REGENERATIONS = "max_regenerations must be >= 0"
NO_BIND_TOOLS = (
    "{model} has no bind_tools(); pass a chat model that supports tool calling, or no tools"
)
VIOLATION_MESSAGE = (
    "output still violates constraint(s) {ids} for user {user_id} after {regenerations} "
    "regeneration(s){withheld}"
)
WITHHELD_NOTE = "; tool call withheld"

ModelOutput = BaseMessage | str
"""What a model call returns: a message (chat model) or text (a plain runnable)."""


class Generate(MemoryNode):
    """Call the chat model with system prompt + memory block + conversation.

    Inputs (state): ``messages``, ``memory_block``, ``constraints``, ``procedural``,
    ``recalled``. Outputs (state update): ``messages`` (the AI message) and ``violations``
    (what still broke a constraint after the allowed regeneration; ``[]`` when compliant; a
    violation left is logged and streamed as ``constraint_violation``).

    Any LangChain ``BaseChatModel`` works; with ``tools`` it is bound via ``bind_tools``.
    Missing constraints are re-asserted into the system text (defence in depth even without
    a constraint_assert node). After the model answers, each constraint's checker runs on
    the output (text and tool calls); on violations the model is asked once more
    (``max_regenerations``) with the broken rules added to the system text. A tool call that
    still violates a constraint is withheld: the AI message then explains instead of calling.

    ``tool_choice`` (see :data:`~langgraph_memory.graph.toolcalls.ToolChoice`) is passed to
    ``bind_tools`` for the first model call of a turn only: once a tool result has come back
    since the latest user message, the model is called without it, so a forced tool runs
    once and the next generation may answer (the loop ends). ``parse_text_tool_calls``
    (default on) turns a reply that is only a JSON tool call naming a bound tool into a real
    tool call (:func:`~langgraph_memory.graph.toolcalls.parse_text_tool_calls`), for integrations
    that leave it as text.

    ``hold_stream`` (default on): while output checks are active (a constraint with a
    checker applies this turn), the model is called under LangGraph's ``nostream`` tag, so
    ``stream_mode="messages"`` receives no token of a draft that might still fail its check;
    the checked final message is streamed whole once the node returns. The trade-off: no
    token-by-token streaming on turns with checked constraints. ``hold_stream=False`` streams
    tokens live, and a client may then see a violating draft before its regeneration.

    The async path awaits the model's ``ainvoke`` (no worker thread).

    Example::

        generate = Generate(init_chat_model("openai:gpt-4o-mini"), [get_weather],
                            system_prompt="You are a support agent.")
        builder.add_node("generate", generate)
        builder.add_conditional_edges("generate", tools_condition,
                                      {"tools": "tools", END: "save_memory"})
    """

    default_name = "generate"

    def __init__(
        self,
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
    ) -> None:
        if max_regenerations < 0:
            raise ConfigError(NEGATIVE_REGENERATIONS)
        self.model = model
        self.tools = list(tools or [])
        self.tool_names = frozenset(tool_name(t) for t in self.tools)
        self.tool_choice = check_tool_choice(tool_choice, self.tool_names)
        self.forced: Runnable[Any, Any] | None = None
        if self.tools:
            bind = getattr(model, "bind_tools", None)
            if bind is None:
                raise ConfigError(NO_BIND_TOOLS.format(model=type(model).__name__))
            self.bound: Runnable[Any, Any] = bind(self.tools)
            if self.tool_choice is not None:
                self.forced = bind(self.tools, tool_choice=self.tool_choice)
        else:
            self.bound = model
        self.system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        self.max_regenerations = max_regenerations
        self.check_constraints = check_constraints
        self.parse_text_tool_calls = parse_text_tool_calls
        self.hold_stream = hold_stream
        super().__init__(name=name)

    def _runnable(
        self, state: Mapping[str, Any], constraints: list[Constraint]
    ) -> Runnable[Any, Any]:
        """The model for this call: forced ``tool_choice`` on the first call of a turn only,
        under the ``nostream`` tag while output checks are active and ``hold_stream`` is on."""
        messages = list(state.get("messages") or [])
        runnable = self.bound
        if self.forced is not None and not tool_result_since_user(messages):
            runnable = self.forced
        checked = self.check_constraints and any(c.checker for c in constraints)
        if self.hold_stream and checked:
            runnable = runnable.with_config(NOSTREAM_CONFIG)
        return runnable

    def _parsed(self, ai: ModelOutput, state: Mapping[str, Any]) -> ModelOutput:
        if not self.parse_text_tool_calls or not isinstance(ai, BaseMessage):
            return ai
        return parse_text_tool_calls(ai, self.tool_names, list(state.get("messages") or []))

    def _prompt(self, state: Mapping[str, Any], ctx: MemoryContext) -> tuple[str, list[Constraint]]:
        return system_text(ctx.system_prompt or self.system_prompt, state)

    @staticmethod
    def _messages(system: str, state: Mapping[str, Any]) -> list[BaseMessage]:
        """One leading system message (ours, then any the conversation starts with: several
        providers reject a system message that is not first), then the conversation."""
        messages = list(state.get("messages") or [])
        leading: list[str] = []
        while messages and isinstance(messages[0], SystemMessage):
            leading.append(content_text(messages.pop(0)))
        text = "\n\n".join([system, *leading]) if leading else system
        return [SystemMessage(content=text), *messages]

    def _check(self, ai: ModelOutput, constraints: list[Constraint]) -> list[Violation]:
        if not self.check_constraints or not constraints or not isinstance(ai, BaseMessage):
            return []
        return check_output(ai, constraints)

    def _final(
        self,
        runtime: NodeRuntime,
        ctx: MemoryContext,
        ai: ModelOutput,
        violations: list[Violation],
        regenerations: int,
    ) -> dict[str, Any]:
        message = ai if isinstance(ai, BaseMessage) else AIMessage(content=str(ai))
        withheld = False
        if isinstance(message, AIMessage):
            kept = withhold(message, violations)
            withheld, message = kept is not message, kept
        if violations:
            emit(
                runtime,
                "constraint_violation",
                {
                    "user_id": ctx.user_id,
                    "violations": [v.as_event() for v in violations],
                    "regenerations": regenerations,
                },
                logging.WARNING,
                message=VIOLATION_MESSAGE.format(
                    ids=", ".join(sorted({v.constraint_id for v in violations})),
                    user_id=ctx.user_id,
                    regenerations=regenerations,
                    withheld=WITHHELD_NOTE if withheld else "",
                ),
            )
        return {"messages": [message], "violations": [v.model_dump() for v in violations]}

    def _run(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        ctx = run_context(runtime)
        system, constraints = self._prompt(state, ctx)
        model = self._runnable(state, constraints)

        def call(text: str) -> ModelOutput:
            return self._parsed(model.invoke(self._messages(text, state)), state)

        ai, violations, tries = regenerate(
            call,
            lambda out: self._check(out, constraints),
            system,
            constraints,
            self.max_regenerations,
        )
        return self._final(runtime, ctx, ai, violations, tries)

    async def _arun(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        ctx = run_context(runtime)
        system, constraints = self._prompt(state, ctx)
        model = self._runnable(state, constraints)

        async def call(text: str) -> ModelOutput:
            return self._parsed(await model.ainvoke(self._messages(text, state)), state)

        ai, violations, tries = await aregenerate(
            call,
            lambda out: self._check(out, constraints),
            system,
            constraints,
            self.max_regenerations,
        )
        return self._final(runtime, ctx, ai, violations, tries)


__all__ = [
    "NEGATIVE_REGENERATIONS",
    "NO_BIND_TOOLS",
    "VIOLATION_MESSAGE",
    "WITHHELD_NOTE",
    "Generate",
    "ModelOutput",
]
