"""Summarisers for the compress step: the offline :class:`ExtractiveSummarizer` (the default),
:class:`LLMSummarizer` over a chat model, and :func:`as_summarizer`, which turns what a caller
passes into a :class:`Summarizer`."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Sequence
from typing import Protocol, cast, runtime_checkable

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from ...core.logsafe import error_kind, get_logger
from ...errors import ConfigError
from ..tokens import TokenCounter, as_token_counter, message_text
from .messages import content_text, is_summary, meta_of, one_line, role_of, truncate_to_tokens

logger = get_logger("context")


@runtime_checkable
class ChatModelLike(Protocol):
    """A LangChain chat model or runnable: anything with ``invoke(messages)``."""

    def invoke(self, input: list[BaseMessage], /) -> object:
        """The model's reply to ``input`` (a message, or anything ``str()`` makes text of)."""
        ...


_RULE_WORDS = re.compile(
    r"\b(must|never|always|only|don't|do not|forbid|avoid|remember|from now on|prefer)\b"
    r"|不要|必须|永远|记住|以后|禁止|只能|务必|别|请勿|偏好|喜欢",
    re.IGNORECASE,
)


@runtime_checkable
class Summarizer(Protocol):
    """Turns older messages into summary text of at most ``max_tokens`` tokens (the caller
    truncates anything longer)."""

    def __call__(self, messages: Sequence[BaseMessage], *, max_tokens: int) -> str: ...


class ExtractiveSummarizer:
    """Offline default: one line per message, ranked and cut to fit ``max_tokens``.

    Lines are kept in chronological order; when they do not all fit, the user's lines that
    state rules or preferences come first, then other user lines, tool calls, assistant
    text and tool results. Lines of an earlier summary being re-compressed are carried over
    with their priority.
    """

    def __init__(self, counter: TokenCounter | None = None, line_tokens: int = 40) -> None:
        self.counter = as_token_counter(counter)
        self.line_tokens = line_tokens

    def _lines(self, messages: Sequence[BaseMessage]) -> list[tuple[int, str]]:
        lines: list[tuple[int, str]] = []
        for message in messages:
            text = one_line(content_text(message))
            if is_summary(message):
                for line in content_text(message).splitlines():
                    if line.startswith("- "):
                        body = line[2:]
                        if body.startswith("user:"):
                            prio = 0 if _RULE_WORDS.search(body) else 1
                        elif body.startswith("assistant called"):
                            prio = 2
                        elif body.startswith("assistant:"):
                            prio = 3
                        else:
                            prio = 4
                        lines.append((prio, body))
                continue
            if isinstance(message, HumanMessage):
                prio = 0 if _RULE_WORDS.search(text) else 1
                if text:
                    lines.append((prio, f"user: {text}"))
            elif isinstance(message, AIMessage):
                if text:
                    lines.append((3, f"assistant: {text}"))
                for call in message.tool_calls:
                    args = json.dumps(call.get("args", {}), ensure_ascii=False, default=str)
                    lines.append((2, f"assistant called {call.get('name')}({args})"))
            elif isinstance(message, ToolMessage):
                handle = meta_of(message).get("handle")
                name = message.name or "tool"
                ref = f" [full output: handle {handle}]" if handle else ""
                preview = text if not meta_of(message).get("kind") else ""
                body = f"{name} returned: {preview}{ref}" if preview else f"{name} returned{ref}"
                lines.append((4, body))
            elif text:
                lines.append((3, f"{role_of(message)}: {text}"))
        return [
            (prio, truncate_to_tokens(line, self.line_tokens, self.counter)) for prio, line in lines
        ]

    def __call__(self, messages: Sequence[BaseMessage], *, max_tokens: int) -> str:
        lines = self._lines(messages)
        order = sorted(range(len(lines)), key=lambda i: (lines[i][0], -i))
        chosen: set[int] = set()
        used = 0
        for i in order:
            cost = self.counter.count_text("- " + lines[i][1] + "\n")
            if used + cost > max_tokens:
                continue
            chosen.add(i)
            used += cost
        return "\n".join("- " + lines[i][1] for i in sorted(chosen))


_SUMMARY_PROMPT = (
    "Summarise the conversation excerpt below for an assistant that will continue it. "
    "Keep every rule, preference, decision, open task, name, number and identifier; drop "
    "chit-chat. Write terse bullet lines starting with '- ', in the language of the "
    "conversation, at most {max_tokens} tokens.\n\n{transcript}"
)


class LLMSummarizer:
    """Summarises with a LangChain chat model (anything with ``invoke``) or a callable
    ``str -> str``. Falls back to :class:`ExtractiveSummarizer` if the model fails."""

    def __init__(
        self,
        model: ChatModelLike | Callable[[str], object],
        *,
        prompt: str = _SUMMARY_PROMPT,
        counter: TokenCounter | None = None,
        line_tokens: int = 40,
    ) -> None:
        self.model = model
        self.prompt = prompt
        self.fallback = ExtractiveSummarizer(counter, line_tokens)

    def __call__(self, messages: Sequence[BaseMessage], *, max_tokens: int) -> str:
        transcript = "\n".join(
            f"{role_of(m)}: {one_line(message_text(m))}" for m in messages if message_text(m)
        )
        prompt = self.prompt.format(max_tokens=max_tokens, transcript=transcript)
        try:
            if isinstance(self.model, ChatModelLike):  # has invoke
                reply = self.model.invoke([HumanMessage(content=prompt)])
                text = content_text(reply) if isinstance(reply, BaseMessage) else str(reply)
            else:
                text = str(self.model(prompt))
        except Exception as exc:  # the agent must not fail because the summariser did
            logger.warning(
                "LLM summariser failed; using extractive summary",
                extra={"error": error_kind(exc)},
            )
            return self.fallback(messages, max_tokens=max_tokens)
        return text.strip()


SummarizerLike = Summarizer | ChatModelLike | Callable[[Sequence[BaseMessage]], str] | None
"""What :func:`as_summarizer` accepts: a summariser, a chat model, a ``messages -> str``
callable, or ``None`` for the extractive default."""


def as_summarizer(
    summarizer: SummarizerLike, counter: TokenCounter | None = None, *, line_tokens: int = 40
) -> Summarizer:
    """``None`` -> :class:`ExtractiveSummarizer`; a chat model / runnable (has ``invoke``)
    -> :class:`LLMSummarizer`; a callable taking ``(messages, max_tokens=...)`` -> itself;
    a callable taking only messages -> wrapped. Anything else -> ``ConfigError``.
    ``line_tokens`` caps each line of the extractive summary (the default and every fallback
    an LLM summariser falls back to)."""
    if summarizer is None:
        return ExtractiveSummarizer(counter, line_tokens)
    if isinstance(summarizer, ExtractiveSummarizer | LLMSummarizer):
        return summarizer
    if isinstance(summarizer, ChatModelLike):  # has invoke
        return LLMSummarizer(summarizer, counter=counter, line_tokens=line_tokens)
    if callable(summarizer):
        try:
            params = inspect.signature(summarizer).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        if "max_tokens" in params or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
        ):
            return cast(Summarizer, summarizer)
        func = cast(Callable[[Sequence[BaseMessage]], str], summarizer)

        def wrapped(messages: Sequence[BaseMessage], *, max_tokens: int) -> str:
            return str(func(messages))

        return wrapped
    raise ConfigError(f"summarizer must be None, a chat model or a callable; got {summarizer!r}")


__all__ = [
    "ChatModelLike",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "SummarizerLike",
    "as_summarizer",
]
