"""PII redaction of the conversation data the package keeps at rest outside memory records:
messages in checkpoints (:func:`~langgraph_memory.graph.checkpoint.create_checkpointer`) and
payloads
behind compaction handles (:class:`~langgraph_memory.context.HandleStore`).

The write path decides what PII is and how each type is replaced
(:class:`~langgraph_memory.core.redact.Redactor` with :attr:`WriteConfig.pii_policy
<langgraph_memory.write.types.WriteConfig.pii_policy>`); this module applies that policy to
LangChain messages and JSON-like values:

* :meth:`TextRedactor.message` returns a copy of a message whose text is redacted: ``content``
  (a string, or the text of content blocks and the strings of tool-use/tool-result blocks),
  the arguments of ``tool_calls`` and ``invalid_tool_calls``, and the provider's raw
  ``additional_kwargs["tool_calls"]`` / ``["function_call"]`` arguments. The ``id``, type,
  ``name``, ``tool_call_id``, response metadata and the package's compaction metadata are kept,
  so ``add_messages`` still matches messages by id and tool calls keep their results. A message
  without PII is returned as is (the same object).
* :meth:`TextRedactor.json` redacts every string of a JSON-like value except the values of
  id-like keys (:data:`ID_KEYS`).
* :class:`CheckpointRedactor` applies both to what a checkpointer stores: the ``messages``
  channel, the free-text working-memory fields of :class:`~langgraph_memory.graph.state.AgentState`
  (``goal``, ``plan``, ``ledger``, ``memory_block``), the graph input and ``Send`` arguments,
  and messages held by any other channel.

Redaction never mutates its input (LangGraph keeps the live state in the same objects).
Results are cached by a digest of the text, never by the text itself.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

from ..errors import ConfigError

if TYPE_CHECKING:
    from langgraph.checkpoint.base import Checkpoint

    from ..core.redact import Redactor

__all__ = [
    "DEFAULT_MESSAGE_KEYS",
    "DEFAULT_TEXT_KEYS",
    "ID_KEYS",
    "CheckpointRedactor",
    "TextRedactor",
    "default_redactor",
    "text_redactor",
]

ID_KEYS = frozenset({"id", "type", "role", "tool_call_id", "langgraph_memory"})
"""Keys whose values :meth:`TextRedactor.json` leaves alone: ids, message types and roles, and
the package's own compaction metadata (ids, counts, handles)."""

DEFAULT_MESSAGE_KEYS: tuple[str, ...] = ("messages",)
"""State keys (channels) holding a message list."""

DEFAULT_TEXT_KEYS: tuple[str, ...] = ("goal", "plan", "ledger", "memory_block")
"""State keys holding free text (a string or a list of strings) of the working memory."""

_START = "__start__"
_MAX_DEPTH = 32
_CACHE_SIZE = 8192
_SKIP_BLOCK_KEYS = frozenset({"image_url", "source", "data", "url", "base64"})
"""Content-block fields never scanned: binary or URL payloads, not conversation text."""


def default_redactor() -> Redactor:
    """The write path's redactor with its default policy and salt (``WriteConfig()``)."""
    from ..core.redact import Redactor
    from .types import WriteConfig

    config = WriteConfig()
    return Redactor(config.pii_policy, salt=config.hash_salt)


class TextRedactor:
    """A :class:`~langgraph_memory.core.redact.Redactor` applied to strings, messages and
    JSON-like values, with a bounded cache keyed by a BLAKE2 digest of each text (the cache
    holds redacted text only). Thread-safe."""

    def __init__(self, redactor: Redactor, *, cache_size: int = _CACHE_SIZE) -> None:
        self.redactor = redactor
        self._cache: OrderedDict[bytes, str] = OrderedDict()
        self._cache_size = max(0, cache_size)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ strings
    def text(self, value: str) -> str:
        """``value`` with PII replaced (the same object when there was none)."""
        if not value:
            return value
        key = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
        if hit is None:
            hit = self.redactor.redact(value).text
            if self._cache_size:
                with self._lock:
                    self._cache[key] = hit
                    while len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
        return value if hit == value else hit

    def json_text(self, value: str) -> str:
        """A JSON document held in a string (tool-call arguments): parsed, redacted value by
        value and dumped again, so redaction cannot break its quoting; plain text otherwise."""
        try:
            parsed = json.loads(value)
        except (TypeError, ValueError):
            return self.text(value)
        red = self.json(parsed)
        return value if red is parsed else json.dumps(red, ensure_ascii=False)

    def json(self, value: Any, _depth: int = 0) -> Any:
        """Every string of a JSON-like value redacted, except under :data:`ID_KEYS` (dict keys
        are kept). The same object when nothing changed; never mutates ``value``."""
        if isinstance(value, str):
            return self.text(value)
        if _depth >= _MAX_DEPTH:
            return value
        if isinstance(value, Mapping):
            items = {k: v if k in ID_KEYS else self.json(v, _depth + 1) for k, v in value.items()}
            return value if all(items[k] is v for k, v in value.items()) else items
        if isinstance(value, list | tuple):
            seq = [self.json(v, _depth + 1) for v in value]
            if all(a is b for a, b in zip(seq, value, strict=True)):
                return value
            return tuple(seq) if isinstance(value, tuple) else seq
        return value

    # ------------------------------------------------------------------ messages
    def content(self, content: Any, _depth: int = 0) -> Any:
        """Message content: a string, or a list of strings and content blocks (``text``,
        tool-use ``input``/``args``, nested tool-result ``content``; images and other binary
        fields are left alone)."""
        if isinstance(content, str):
            return self.text(content)
        if not isinstance(content, list) or _depth >= _MAX_DEPTH:
            return content
        out = [self._block(b, _depth + 1) for b in content]
        return content if all(a is b for a, b in zip(out, content, strict=True)) else out

    def _block(self, block: Any, depth: int) -> Any:
        if isinstance(block, str):
            return self.text(block)
        if not isinstance(block, Mapping):
            return block
        changed: dict[str, Any] = {}
        for key, value in block.items():
            if key in ID_KEYS or key in _SKIP_BLOCK_KEYS:
                continue
            if key == "content":
                new = self.content(value, depth)
            elif key in {"input", "args"}:
                new = self.json(value)
            elif key in {"text", "partial_json", "arguments"} and isinstance(value, str):
                new = self.json_text(value) if key != "text" else self.text(value)
            else:
                continue
            if new is not value:
                changed[key] = new
        return {**block, **changed} if changed else block

    def message(self, message: BaseMessage) -> BaseMessage:
        """A copy of ``message`` with its text redacted (see the module docstring), or
        ``message`` itself when it holds no PII."""
        update: dict[str, Any] = {}
        content = self.content(message.content)
        if content is not message.content:
            update["content"] = content
        if isinstance(message, AIMessage):
            calls = [self._tool_call(c) for c in message.tool_calls]
            if any(a is not b for a, b in zip(calls, message.tool_calls, strict=True)):
                update["tool_calls"] = calls
            invalid = [self._invalid_call(c) for c in message.invalid_tool_calls]
            if any(a is not b for a, b in zip(invalid, message.invalid_tool_calls, strict=True)):
                update["invalid_tool_calls"] = invalid
        kwargs = self._provider_kwargs(message.additional_kwargs)
        if kwargs is not message.additional_kwargs:
            update["additional_kwargs"] = kwargs
        return message.model_copy(update=update) if update else message

    def _tool_call(self, call: Any) -> Any:
        args = call.get("args") if isinstance(call, Mapping) else None
        red = self.json(args) if args is not None else None
        return call if red is args else {**call, "args": red}

    def _invalid_call(self, call: Any) -> Any:
        args = call.get("args") if isinstance(call, Mapping) else None
        if not isinstance(args, str):
            return call
        red = self.json_text(args)
        return call if red is args else {**call, "args": red}

    def _provider_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``additional_kwargs`` with the raw tool-call arguments of OpenAI-style providers
        redacted (``tool_calls[*].function.arguments``, ``function_call.arguments``)."""
        changed: dict[str, Any] = {}
        raw_calls = kwargs.get("tool_calls")
        if isinstance(raw_calls, list):
            calls = [self._function_holder(c) for c in raw_calls]
            if any(a is not b for a, b in zip(calls, raw_calls, strict=True)):
                changed["tool_calls"] = calls
        function_call = kwargs.get("function_call")
        if isinstance(function_call, Mapping):
            red = self._function(function_call)
            if red is not function_call:
                changed["function_call"] = red
        return {**kwargs, **changed} if changed else kwargs

    def _function_holder(self, call: Any) -> Any:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            return call
        red = self._function(function)
        return call if red is function else {**call, "function": red}

    def _function(self, function: Mapping[str, Any]) -> Any:
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            return function
        red = self.json_text(arguments)
        return function if red is arguments else {**function, "arguments": red}

    def message_like(self, value: Any) -> Any:
        """One item of a messages update as ``add_messages`` accepts it: a message, a string,
        a ``(role, content)`` pair or a ``{"role", "content"}`` dict; redacted alike."""
        if isinstance(value, BaseMessage):
            return self.message(value)
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, tuple) and len(value) == 2:
            content = self.content(value[1])
            return value if content is value[1] else (value[0], content)
        if isinstance(value, Mapping) and "content" in value:
            red: dict[str, Any] = {}
            content = self.content(value["content"])
            if content is not value["content"]:
                red["content"] = content
            calls = value.get("tool_calls")
            if isinstance(calls, list):
                new_calls = [self._tool_call(c) for c in calls]
                if any(a is not b for a, b in zip(new_calls, calls, strict=True)):
                    red["tool_calls"] = new_calls
            return {**value, **red} if red else value
        return value


def text_redactor(redact: bool | Redactor) -> TextRedactor | None:
    """What a ``redact=`` argument means: ``True`` → the write path's default policy
    (:func:`default_redactor`), a :class:`~langgraph_memory.core.redact.Redactor` (e.g.
    ``pipeline.redactor``, to share a custom ``WriteConfig.pii_policy``) → that one, ``False``
    → no redaction (``None``). Anything else raises :class:`ConfigError`."""
    from ..core.redact import Redactor

    if redact is True:
        return TextRedactor(default_redactor())
    if redact is False:
        return None
    if isinstance(redact, Redactor):
        return TextRedactor(redact)
    raise ConfigError(
        f"redact must be True, False or a Redactor (e.g. pipeline.redactor), got {redact!r}"
    )


class CheckpointRedactor:
    """Redacts what a checkpointer stores (see the module docstring): checkpoints through
    :meth:`checkpoint`, pending writes through :meth:`writes`. ``message_keys``: channels that
    hold a message list; ``text_keys``: channels that hold free text."""

    def __init__(
        self,
        redactor: TextRedactor,
        *,
        message_keys: Sequence[str] = DEFAULT_MESSAGE_KEYS,
        text_keys: Sequence[str] = DEFAULT_TEXT_KEYS,
    ) -> None:
        self.redactor = redactor
        self.message_keys = frozenset(message_keys)
        self.text_keys = frozenset(text_keys)

    def checkpoint(self, checkpoint: Checkpoint) -> Checkpoint:
        """``checkpoint`` with its channel values redacted (a shallow copy when something
        changed, else the same object)."""
        values = checkpoint.get("channel_values") or {}
        red = {name: self.channel(name, value) for name, value in values.items()}
        if all(red[k] is v for k, v in values.items()):
            return checkpoint
        out = checkpoint.copy()
        out["channel_values"] = red
        return out

    def writes(self, writes: Sequence[tuple[str, Any]]) -> Sequence[tuple[str, Any]]:
        """Pending writes ``(channel, value)`` with their values redacted."""
        out = [(channel, self.channel(channel, value)) for channel, value in writes]
        if all(a[1] is b[1] for a, b in zip(out, writes, strict=True)):
            return writes
        return out

    def channel(self, name: str, value: Any) -> Any:
        """One channel's value, redacted by the channel's kind."""
        if name in self.message_keys:
            if isinstance(value, list):
                items = [self.redactor.message_like(v) for v in value]
                same = all(a is b for a, b in zip(items, value, strict=True))
                return value if same else items
            return self.redactor.message_like(value)
        if name in self.text_keys:
            return self._text(value)
        if name == _START and isinstance(value, Mapping):
            return self._input(value)
        return self._embedded(value, 0)

    def _text(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redactor.text(value)
        if isinstance(value, list):
            items = [self.redactor.text(v) if isinstance(v, str) else v for v in value]
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        return value

    def _input(self, value: Mapping[str, Any]) -> Any:
        red = {k: self.channel(k, v) for k, v in value.items()}
        return value if all(red[k] is v for k, v in value.items()) else red

    def _embedded(self, value: Any, depth: int) -> Any:
        """Messages anywhere inside another channel's value (and the input of a ``Send``)."""
        from langgraph.types import Send

        if isinstance(value, BaseMessage):
            return self.redactor.message(value)
        if depth >= _MAX_DEPTH:
            return value
        if isinstance(value, Send):
            arg = self._input(value.arg) if isinstance(value.arg, Mapping) else value.arg
            if arg is value.arg:
                return value
            sent = copy.copy(value)
            sent.arg = arg
            return sent
        if isinstance(value, Mapping):
            items = {k: self._embedded(v, depth + 1) for k, v in value.items()}
            return value if all(items[k] is v for k, v in value.items()) else items
        if isinstance(value, list | tuple):
            seq = [self._embedded(v, depth + 1) for v in value]
            if all(a is b for a, b in zip(seq, value, strict=True)):
                return value
            return tuple(seq) if isinstance(value, tuple) else seq
        return value
