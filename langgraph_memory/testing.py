"""Offline stand-ins for a chat model, clearly labelled, for demos, examples and tests.

:class:`ScriptedChatModel` is a LangChain ``BaseChatModel`` that does not call any LLM: it
answers from a list of scripted replies or from a Python function of the prompt. It supports
``bind_tools`` (the bound tools are passed to the responder) and ``with_structured_output``,
and records every prompt it was called with (``model.calls``), so tests can assert what
reached the model. Its ``label`` is printed by the demo so nobody mistakes it for an LLM.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

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


__all__ = ["SCRIPTED_LABEL", "ScriptedChatModel", "last_human_text", "system_text"]
