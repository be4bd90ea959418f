"""Test doubles: fake chat models (LLM only), a fake ``Runtime`` builder and state builders.

Only the LLM is faked. ``ScriptedChatModel`` (the package's clearly labelled offline model),
``fake_runtime``, ``fake_state``, ``human``, ``tool_exchange``, ``EventSink`` and
``in_memory_store`` come from :mod:`langgraph_memory.testing` (the kit ships in the wheel) and
are re-exported; ``FakeToolCallingChatModel`` scripts tool calls; ``RuleFollowingChatModel``
obeys what reached its system prompt, so tests can tell whether memory was injected;
``FakeStructuredChatModel`` answers ``with_structured_output`` calls (the LLM extractor) from
a table of sentences, records every prompt and can fail on purpose.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from langgraph_memory.testing import (
    EventSink,
    ScriptedChatModel,
    fake_runtime,
    fake_state,
    human,
    in_memory_store,
    last_human_text,
    system_text,
    tool_exchange,
)

__all__ = [
    "EventSink",
    "FakeStructuredChatModel",
    "FakeToolCallingChatModel",
    "ForcedToolChatModel",
    "RuleFollowingChatModel",
    "ScriptedChatModel",
    "fact",
    "fake_runtime",
    "fake_state",
    "human",
    "in_memory_store",
    "tool_exchange",
]


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


def fact(
    quote: str,
    predicate: str,
    obj: str,
    *,
    kind: str = "stable_fact",
    confidence: float = 0.95,
    subject: str = "user",
    **extra: Any,
) -> dict[str, Any]:
    """One fact as the LLM extractor's schema (``ExtractedFact``) has it."""
    return {
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "kind": kind,
        "quote": quote,
        "confidence": confidence,
        **extra,
    }


class FakeStructuredChatModel(BaseChatModel):
    """A fake LLM for the LLM extractor: ``with_structured_output(schema)`` answers each prompt
    with ``{"facts": [...]}`` built from ``table`` (sentence found in the prompt's human text →
    the facts it yields, in table order), or from ``responder(messages)`` when given. With
    ``fail`` set, every call raises it (a model outage). Records every prompt (``prompts``) and
    counts sync and async calls; thread-safe (the background writer calls it from a thread).
    Plain generation is not supported: it is an extraction model only."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    table: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    responder: Callable[[list[BaseMessage]], Any] | None = None
    fail: Exception | None = None
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    sync_calls: int = 0
    async_calls: int = 0
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "fake-structured-chat-model"

    @property
    def calls(self) -> int:
        """Model calls so far (sync + async)."""
        return self.sync_calls + self.async_calls

    @property
    def human_texts(self) -> list[str]:
        """The human text of each prompt, in call order."""
        return [last_human_text(p) for p in self.prompts]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NotImplementedError("FakeStructuredChatModel only answers with_structured_output")

    def _answer(self, value: LanguageModelInput, schema: Any, asynchronous: bool) -> Any:
        messages = self._convert_input(value).to_messages()
        with self._lock:
            self.prompts.append(list(messages))
            if asynchronous:
                self.async_calls += 1
            else:
                self.sync_calls += 1
        if self.fail is not None:
            raise self.fail
        if self.responder is not None:
            raw = self.responder(messages)
        else:
            text = last_human_text(messages)
            raw = {"facts": [f for key, facts in self.table.items() if key in text for f in facts]}
        if (
            isinstance(raw, Mapping)
            and isinstance(schema, type)
            and hasattr(schema, "model_validate")
        ):
            return schema.model_validate(raw)
        return raw

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """A runnable with real sync and async paths answering in ``schema``."""

        def sync(value: LanguageModelInput) -> Any:
            return self._answer(value, schema, asynchronous=False)

        async def asynchronous(value: LanguageModelInput) -> Any:
            return self._answer(value, schema, asynchronous=True)

        return RunnableLambda(sync, afunc=asynchronous)


class ForcedToolChatModel(ScriptedChatModel):
    """Behaves like integrations that emit tool calls only when one is *forced* (e.g.
    ``ChatLlamaCpp``): bound with a ``tool_choice`` naming a tool (a dict
    ``{"type": "function", "function": {"name": ...}}`` or the name), it calls that tool with
    ``args``; unforced (or ``"auto"``) it answers from its script/responder as text (which
    may itself be a JSON blob). Records the ``tool_choice`` of every call in ``choices``."""

    args: dict[str, Any] = Field(default_factory=dict)
    choices: list[Any] = Field(default_factory=list)

    def bind_tools(  # type: ignore[override]
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        choice = kwargs.get("tool_choice")
        self.choices.append(choice)
        tools = list(kwargs.get("tools") or [])
        if isinstance(choice, dict):
            name: str | None = choice["function"]["name"]
        elif choice in ("any", "required") and tools:
            name = tools[0]["function"]["name"]
        elif isinstance(choice, str) and choice not in ("auto", "none"):
            name = choice
        else:
            name = None
        if name is None:
            return super()._generate(messages, stop, run_manager, **kwargs)
        self.calls.append(list(messages))
        call = {"name": name, "args": dict(self.args), "id": "call_" + uuid.uuid4().hex[:8]}
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))]
        )
