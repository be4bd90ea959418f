"""Tool calling and output holding that work with any LangChain chat model.

Three things the generate node and :class:`~langgraph_memory.graph.middleware.MemoryMiddleware`
share:

* **Forcing a tool** (``tool_choice``). Some integrations (e.g. ``ChatLlamaCpp``) emit tool
  calls only when one is forced. A forced choice applies to the *first* model call of a turn
  only: once a tool result has come back since the latest user message
  (:func:`tool_result_since_user`), the model is called without it, so it can answer and the
  tool loop ends (forcing on every call would loop until LangGraph's recursion limit).
* **Tool calls written as text** (:func:`parse_text_tool_calls`). A model whose integration
  does not parse tool calls may answer with ``{"name": ..., "arguments": {...}}`` (or a list
  of them, in a ````json`` fence or ``<tool_call>`` tags; stray closing brackets after the
  JSON are tolerated). When every call in such a reply names a bound tool, the reply becomes
  a real ``AIMessage.tool_calls``; anything else stays text. A call identical to one already
  made this turn stays text too (a small model that repeats itself must not loop).
* **Holding the token stream** (:func:`held_config`). LangGraph's ``stream_mode="messages"``
  streams chat-model tokens through callbacks as they are generated, before any output check
  has run. A model call made under the ``nostream`` tag emits no tokens; the checked final
  message then reaches the client from the node's output (whole, once). The tag is LangGraph's
  ``stream_mode="messages"`` contract; ``astream_events`` and tracers still see every model
  run (they are for operators, not end users).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config, var_child_runnable_config
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.constants import TAG_NOSTREAM

from ..core.logsafe import get_logger
from ..errors import ConfigError

log = get_logger("graph")

ToolChoice = str | dict[str, Any]
"""What ``bind_tools(tools, tool_choice=...)`` accepts: ``"auto"``, ``"any"``,
``"required"``, ``"none"``, a bound tool's name, or a provider dict such as
``{"type": "function", "function": {"name": "search"}}`` (what ``ChatLlamaCpp`` needs)."""

ToolSpec = BaseTool | type | Callable[..., Any] | Mapping[str, Any]
"""A tool as ``bind_tools`` accepts it: a ``BaseTool``, a function, a schema class or a provider
dict."""

TOOL_CHOICE_KEYWORDS = frozenset({"auto", "any", "required", "none"})
TOOL_CHOICE_WITHOUT_TOOLS = "tool_choice={choice!r} needs tools: bind at least one tool"
UNKNOWN_TOOL_CHOICE = (
    "tool_choice={choice!r} is neither one of {keywords} nor the name of a bound tool "
    "(bound: {names})"
)
BAD_TOOL_CHOICE = "tool_choice must be a str or a dict, got {type}"
PARSED_TOOL_CALLS = "parsed {count} tool call(s) from the model's text reply: {names}"

_FENCE = re.compile(r"\A\s*```[\w-]*\s*\n?(.*?)\n?\s*```\s*\Z", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_STRAY_CLOSERS = "}] \t\r\n"
"""Left after a complete JSON value, these are a small model's unbalanced closers (seen from
Qwen2.5-Coder-0.5B: ``{"name": ..., "arguments": {...}}}``), not more text."""


def tool_name(tool: ToolSpec) -> str:
    """The name a chat model sees for ``tool`` (a ``BaseTool``, a function, a schema or a
    provider dict)."""
    if isinstance(tool, Mapping):
        function = tool.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            return str(function["name"])
        if isinstance(tool.get("name"), str):
            return str(tool["name"])
    name = getattr(tool, "name", None)
    if isinstance(name, str):
        return name
    return str(convert_to_openai_tool(tool)["function"]["name"])


def check_tool_choice(choice: object, names: Collection[str]) -> ToolChoice | None:
    """``choice`` if it is valid for tools named ``names``; raises
    :class:`~langgraph_memory.errors.ConfigError` otherwise (no tools, an unknown tool name,
    a value that is neither a str nor a dict). ``None`` passes through."""
    if choice is None:
        return None
    if not isinstance(choice, str | dict):
        raise ConfigError(BAD_TOOL_CHOICE.format(type=type(choice).__name__))
    if not names:
        raise ConfigError(TOOL_CHOICE_WITHOUT_TOOLS.format(choice=choice))
    if isinstance(choice, str) and choice not in TOOL_CHOICE_KEYWORDS and choice not in names:
        raise ConfigError(
            UNKNOWN_TOOL_CHOICE.format(
                choice=choice, keywords=sorted(TOOL_CHOICE_KEYWORDS), names=sorted(names)
            )
        )
    return choice


def _since_user(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages after the latest human message (all of them when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index + 1 :])
    return list(messages)


def tool_result_since_user(messages: Sequence[BaseMessage]) -> bool:
    """True when a tool result (``ToolMessage``) came back after the latest human message:
    the next model call is not the first of its turn, so a forced ``tool_choice`` is
    lifted."""
    return any(isinstance(m, ToolMessage) for m in _since_user(messages))


def _calls_made(messages: Sequence[BaseMessage]) -> set[str]:
    return {
        _call_key(call["name"], call.get("args") or {})
        for m in _since_user(messages)
        if isinstance(m, AIMessage)
        for call in m.tool_calls
    }


def _call_key(name: str, args: Mapping[str, Any]) -> str:
    return json.dumps([name, args], sort_keys=True, default=str)


def _text(message: AIMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(
        b if isinstance(b, str) else str(b.get("text", ""))
        for b in message.content
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
    )


def _payloads(text: str) -> list[Any] | None:
    """The JSON values a tool-call reply consists of, or ``None`` when it is not only that."""
    body = text.strip()
    if not body:
        return None
    tagged = _TAGGED.findall(body)
    if tagged:
        if _TAGGED.sub("", body).strip():
            return None  # prose around the tags: an answer, not a call
        chunks = list(tagged)
    else:
        fenced = _FENCE.match(body)
        chunks = [fenced.group(1) if fenced else body]
    values: list[Any] = []
    decoder = json.JSONDecoder()
    for chunk in chunks:
        chunk = chunk.strip()
        try:
            value, end = decoder.raw_decode(chunk)
        except json.JSONDecodeError:
            return None
        if chunk[end:].strip(_STRAY_CLOSERS):  # text after the JSON: not only a call
            return None
        values.extend(value if isinstance(value, list) else [value])
    return values or None


def _as_call(value: Any, names: Collection[str]) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    function = value.get("function")
    if isinstance(function, Mapping):  # OpenAI style {"type": "function", "function": {...}}
        value = function
    name = value.get("name")
    if not isinstance(name, str) or name not in names:
        return None
    args: Any = next((value[k] for k in ("arguments", "args", "parameters") if k in value), {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}


def parse_text_tool_calls(
    message: BaseMessage,
    names: Collection[str],
    history: Sequence[BaseMessage] = (),
) -> BaseMessage:
    """``message`` with tool calls written as JSON text turned into real ``tool_calls``.

    Applies only to an ``AIMessage`` without tool calls whose whole text is a JSON object
    ``{"name": ..., "arguments"|"args"|"parameters": {...}}`` (or the OpenAI
    ``{"function": {...}}`` form), a list of them, either in a ````json`` fence or in
    ``<tool_call>...</tool_call>`` tags. Every call must name one of ``names`` (the bound
    tools) and none may repeat a call already made since the latest human message of
    ``history``; otherwise the message is returned unchanged (the text is the answer). The
    converted message keeps the id, name and metadata and has empty content."""
    if not isinstance(message, AIMessage) or message.tool_calls or not names:
        return message
    values = _payloads(_text(message))
    if values is None:
        return message
    calls = [_as_call(v, names) for v in values]
    if any(c is None for c in calls):
        return message
    made = _calls_made(history)
    ready = [c for c in calls if c is not None]
    if any(_call_key(c["name"], c["args"]) in made for c in ready):
        return message
    log.info(
        PARSED_TOOL_CALLS.format(count=len(ready), names=", ".join(c["name"] for c in ready)),
        extra={"event": "text_tool_calls", "tools": [c["name"] for c in ready]},
    )
    return AIMessage(
        content="",
        tool_calls=ready,
        id=message.id,
        name=message.name,
        response_metadata=dict(message.response_metadata),
        usage_metadata=message.usage_metadata,
    )


def _held(config: RunnableConfig) -> RunnableConfig:
    tags = list(config.get("tags") or [])
    return {**config, "tags": [*tags, TAG_NOSTREAM] if TAG_NOSTREAM not in tags else tags}


@contextmanager
def held_config() -> Iterator[None]:
    """Within this block, chat models invoked without an explicit config (as
    ``create_agent``'s model node does) carry the ``nostream`` tag: LangGraph's
    ``stream_mode="messages"`` receives none of their tokens."""
    token = var_child_runnable_config.set(_held(ensure_config()))
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)


NOSTREAM_CONFIG: RunnableConfig = {"tags": [TAG_NOSTREAM]}
"""``runnable.with_config(**NOSTREAM_CONFIG)``: its chat-model calls stream no tokens."""


__all__ = [
    "NOSTREAM_CONFIG",
    "TOOL_CHOICE_KEYWORDS",
    "ToolChoice",
    "ToolSpec",
    "check_tool_choice",
    "held_config",
    "parse_text_tool_calls",
    "tool_name",
    "tool_result_since_user",
]
