"""Test doubles: fake chat models (LLM only), a fake ``Runtime`` builder and state builders.

Only the LLM is faked. ``ScriptedChatModel`` (the package's clearly labelled offline model)
is re-exported; ``FakeToolCallingChatModel`` scripts tool calls; ``RuleFollowingChatModel``
obeys what reached its system prompt, so tests can tell whether memory was injected.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.runtime import ExecutionInfo, Runtime

from langgraph_memory.context.constraints import Constraint
from langgraph_memory.state import MemoryContext
from langgraph_memory.testing import ScriptedChatModel, last_human_text, system_text

__all__ = [
    "EventSink",
    "FakeToolCallingChatModel",
    "RuleFollowingChatModel",
    "ScriptedChatModel",
    "fake_runtime",
    "fake_state",
    "human",
    "tool_exchange",
]


class EventSink(list):  # type: ignore[type-arg]
    """Collects what nodes write to the custom stream."""

    def __call__(self, chunk: Any) -> None:
        self.append(chunk)

    def named(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self if isinstance(e, dict) and e.get("langgraph_memory") == name]


def fake_runtime(
    user_id: str | None = "alice",
    *,
    store: Any = None,
    thread_id: str | None = "thread-1",
    checkpoint_id: str = "ckpt-1",
    context: Any = ...,
    **ctx: Any,
) -> Runtime[MemoryContext]:
    """A LangGraph ``Runtime`` as a node sees it in a graph run (context, store, stream
    writer collecting into ``runtime.stream_writer`` (an :class:`EventSink`), execution info
    with thread/checkpoint ids). ``user_id=None`` gives a runtime without context."""
    if context is ...:
        context = None if user_id is None else MemoryContext(user_id=user_id, **ctx)
    return Runtime(
        context=context,
        store=store,
        stream_writer=EventSink(),
        execution_info=ExecutionInfo(
            checkpoint_id=checkpoint_id,
            checkpoint_ns="",
            task_id="task-" + uuid.uuid4().hex[:6],
            thread_id=thread_id,
        ),
    )


def human(text: str, *, id: str | None = None) -> HumanMessage:
    """A human message with an id (as ``add_messages`` would give it)."""
    return HumanMessage(content=text, id=id or str(uuid.uuid4()))


def tool_exchange(name: str, args: dict[str, Any], result: str) -> list[BaseMessage]:
    """An AI tool call and its tool result, ids set."""
    call_id = "call_" + uuid.uuid4().hex[:8]
    return [
        AIMessage(
            content="",
            tool_calls=[{"name": name, "args": args, "id": call_id}],
            id=str(uuid.uuid4()),
        ),
        ToolMessage(content=result, tool_call_id=call_id, id=str(uuid.uuid4())),
    ]


def fake_state(
    *turns: str | BaseMessage,
    goal: str | None = None,
    task_id: str | None = None,
    constraints: Iterable[Constraint | dict[str, Any] | str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """An ``AgentState``-shaped dict: strings become human messages with ids."""
    state: dict[str, Any] = {
        "messages": [human(t) if isinstance(t, str) else t for t in turns],
        "constraints": list(constraints),
        "plan": [],
        "ledger": [],
    }
    if goal is not None:
        state["goal"] = goal
    if task_id is not None:
        state["task_id"] = task_id
    state.update(extra)
    return state


class FakeToolCallingChatModel(ScriptedChatModel):
    """Scripted replies that may call tools: ``tool_calls`` entries like
    ``{"name": "search", "args": {...}}`` get ids; the model refuses tools it was not bound."""

    def _reply(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
        reply = super()._reply(messages, tools)
        if reply.tool_calls:
            bound = {t["function"]["name"] for t in tools}
            calls = []
            for call in reply.tool_calls:
                if call["name"] not in bound:
                    raise AssertionError(f"model called unbound tool {call['name']!r}")
                calls.append({**call, "id": call.get("id") or "call_" + uuid.uuid4().hex[:8]})
            reply = AIMessage(content=reply.content, tool_calls=calls)
        return reply


def _rule_responder(
    rules: Sequence[tuple[str, Callable[[str, str], str]]],
) -> Callable[[list[BaseMessage], list[dict[str, Any]]], str]:
    def respond(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str:
        system = system_text(messages)
        question = last_human_text(messages)
        for pattern, answer in rules:
            if re.search(pattern, question, re.IGNORECASE):
                return answer(system, question)
        return "ok"

    return respond


class RuleFollowingChatModel(ScriptedChatModel):
    """A scripted model whose answer depends on what memory reached its system prompt:
    ``rules`` map a question regex to ``answer(system_text, question)``."""

    def __init__(self, rules: Sequence[tuple[str, Callable[[str, str], str]]], **kwargs: Any):
        super().__init__(responder=_rule_responder(rules), **kwargs)
