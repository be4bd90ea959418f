"""A testing kit for memory-enabled graphs: an offline chat model, runtimes, states, a store.

* :class:`ScriptedChatModel` is a LangChain ``BaseChatModel`` that does not call any LLM: it
  answers from a list of scripted replies or from a Python function of the prompt. It supports
  ``bind_tools`` (the bound tools are passed to the responder) and ``with_structured_output``,
  and records every prompt it was called with (``model.calls``), so tests can assert what
  reached the model. Its ``label`` is printed by the demo so nobody mistakes it for an LLM.
* :func:`fake_runtime` and :func:`fake_state` build what a node receives in a graph run, so
  each node can be tested alone (``LoadMemory(store)(fake_state("hi"), fake_runtime("alice"))``);
  :func:`human` and :func:`tool_exchange` make messages with ids; :class:`EventSink` collects
  what nodes stream.
* :func:`in_memory_store` is a real :class:`~langgraph_memory.store.MemoryStore` (real Qdrant
  engine in memory, real BM25, the real default embedder) that writes nothing to disk, so a
  test never leaves ``./.langgraph_memory`` in the working directory.

::

    from langgraph_memory.graph.nodes import LoadMemory
    from langgraph_memory.testing import fake_runtime, fake_state, in_memory_store

    with in_memory_store() as store:
        store.add("Alice prefers tea", scope="alice", kind="preference")
        out = LoadMemory(store)(fake_state("what do I drink?"), fake_runtime("alice"))
        assert "tea" in out["memory_block"]
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.runtime import ExecutionInfo, Runtime
from pydantic import ConfigDict, Field, PrivateAttr

from .context.constraints import Constraint
from .embeddings import Embedder
from .graph.state import MemoryContext
from .store import MemoryStore

SCRIPTED_LABEL = "scripted model (no LLM)"

Responder = Callable[[list[BaseMessage], list[dict[str, Any]]], "str | AIMessage | dict[str, Any]"]
"""``(prompt messages, bound tools as OpenAI tool dicts) -> reply``."""


def last_human_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message in ``messages`` ('' if none)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            content = message.content
            if isinstance(content, str):
                return content
            return " ".join(
                part.get("text", "") if isinstance(part, dict) else str(part) for part in content
            )
    return ""


def system_text(messages: Sequence[BaseMessage]) -> str:
    """All system message text in ``messages``, joined."""
    return "\n".join(
        m.content if isinstance(m.content, str) else str(m.content)
        for m in messages
        if isinstance(m, SystemMessage)
    )


class ScriptedChatModel(BaseChatModel):
    """A chat model that replays a script instead of calling an LLM (see module docstring).

    ``responses``: replies used in order (a ``str``, an ``AIMessage`` or a dict with
    ``content``/``tool_calls``); when exhausted, ``responder`` (if any) answers, else an
    error says the script ran out. ``responder``: a function of ``(messages, tools)``.
    Without either, the model echoes the last human message.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responses: list[Any] = Field(default_factory=list)
    responder: Callable[..., Any] | None = None
    label: str = SCRIPTED_LABEL
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    _cursor: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    @property
    def last_prompt(self) -> list[BaseMessage]:
        """The messages of the most recent call (``[]`` before the first call)."""
        return self.calls[-1] if self.calls else []

    def _reply(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> AIMessage:
        if self._cursor < len(self.responses):
            raw = self.responses[self._cursor]
            self._cursor += 1
            if callable(raw):
                raw = raw(messages, tools)
        elif self.responder is not None:
            raw = self.responder(messages, tools)
        elif self.responses:
            raise RuntimeError(
                f"{self.label}: the script has only {len(self.responses)} replies and no "
                "responder; add replies or a responder"
            )
        else:
            raw = f"(echo) {last_human_text(messages)}"
        if isinstance(raw, AIMessage):
            return raw
        if isinstance(raw, dict):
            calls = [
                {**call, "id": call.get("id") or f"call_{uuid.uuid4().hex[:12]}"}
                for call in raw.get("tool_calls", [])
            ]
            return AIMessage(content=raw.get("content", ""), tool_calls=calls)
        return AIMessage(content=str(raw))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append(list(messages))
        message = self._reply(list(messages), list(kwargs.get("tools") or []))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools the way real chat models do: they reach the responder as OpenAI dicts."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """Parse the scripted reply (a dict, a JSON string or an instance) into ``schema``."""

        def parse(value: LanguageModelInput) -> Any:
            messages = self._convert_input(value).to_messages()
            self.calls.append(list(messages))
            if self._cursor < len(self.responses):
                raw = self.responses[self._cursor]
                self._cursor += 1
            elif self.responder is not None:
                raw = self.responder(messages, [])
            else:
                raise RuntimeError(f"{self.label}: no structured reply scripted")
            if isinstance(raw, AIMessage):
                raw = raw.content
            if isinstance(raw, str):
                raw = json.loads(raw)
            parsed = raw
            if isinstance(schema, type) and hasattr(schema, "model_validate"):
                parsed = raw if isinstance(raw, schema) else schema.model_validate(raw)
            if include_raw:
                return {"raw": AIMessage(content=json.dumps(raw, default=str)), "parsed": parsed}
            return parsed

        return RunnableLambda(parse)


class EventSink(list):  # type: ignore[type-arg]
    """Collects what nodes write to the custom stream (``runtime.stream_writer``)."""

    def __call__(self, chunk: Any) -> None:
        self.append(chunk)

    def named(self, name: str) -> list[dict[str, Any]]:
        """The events named ``name`` (``{"langgraph_memory": name, ...}``)."""
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
    """A LangGraph ``Runtime`` as a node sees it in a graph run: the context
    (``MemoryContext(user_id=user_id, **ctx)``, or ``context`` as given), ``store``, a stream
    writer collecting into ``runtime.stream_writer`` (an :class:`EventSink`), and execution
    info with the thread and checkpoint ids. ``user_id=None`` gives a runtime without a
    context (the nodes then raise :class:`~langgraph_memory.errors.ScopeError`)."""
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
    """An AI message calling tool ``name`` and the tool's result, ids set."""
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
    """An ``AgentState``-shaped dict: strings become human messages with ids; ``extra`` keys
    are added as given."""
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


def in_memory_store(embedder: str | Embedder | None = None) -> MemoryStore:
    """A :class:`MemoryStore` over Qdrant's in-memory engine (``QdrantClient(":memory:")``):
    real vector search, real BM25, the real default embedder (or ``embedder``), and nothing
    written to disk or the working directory. Close it (or use ``with``)."""
    from qdrant_client import QdrantClient

    return MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)


__all__ = [
    "SCRIPTED_LABEL",
    "EventSink",
    "ScriptedChatModel",
    "fake_runtime",
    "fake_state",
    "human",
    "in_memory_store",
    "last_human_text",
    "system_text",
    "tool_exchange",
]
