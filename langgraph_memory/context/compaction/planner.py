"""Compaction: keep a message history under a token budget without losing anything.

:func:`compact_messages` runs when the history's tokens exceed ``trigger_ratio`` of the
budget and applies, in this order, stopping as soon as the history is under
``target_ratio`` of the budget:

1. **reduce**: tool outputs (``ToolMessage``) older than the last ``keep_last_turns`` turns
   become short stubs naming a handle; the payload is kept in a
   :class:`~langgraph_memory.context.handles.HandleStore`.
2. **compress**: the *fewest oldest* turns that bring the history under the target (never
   the last ``keep_last_turns``) become *one* traceable summary message (a
   ``HumanMessage`` marked ``additional_kwargs["langgraph_memory"]["kind"] ==
   "compaction_summary"``, placed where the first summarised turn was) that records the
   turn range, the ids of every message it replaces, the handle of their raw transcript
   and the checkpoint reference. An earlier summary is folded into the next one (its ids
   and handles carry over). The summariser is pluggable (any chat model or callable); the
   default is extractive and offline.
3. **externalize**: any remaining message larger than ``externalize_min_tokens`` (or
   ``externalize_ratio`` of the budget) is replaced by a handle stub with a preview.

If that still does not fit the budget, the kept tail shrinks turn by turn down to
``min_keep_turns`` and the three steps run again. The guarantees, for any input history:

* an ``AIMessage`` is never separated from the ``ToolMessage`` s answering its
  ``tool_calls``: a turn (a human message, an assistant message, or an assistant
  tool-call message *with* its tool results) is kept, stubbed or summarised as a whole;
* ``SystemMessage`` s and messages marked as the memory/constraint block (``name`` in
  ``protected_names`` or ``additional_kwargs["langgraph_memory"]["protected"]``) are returned
  unchanged, in their order; so is the latest ``HumanMessage`` unless it alone is oversized
  (then it is externalized, keeping its id);
* messages of the kept tail keep their ids (and, unless externalized, their content);
* the result fits ``budget_tokens - reserve_tokens`` whenever the irreducible part does
  (protected messages, the pinned user message and the last ``min_keep_turns`` turns with
  oversized payloads externalized, plus a minimal summary header); otherwise the event
  says ``fits: False`` and gives ``irreducible_tokens``;
* every compaction emits a ``compaction`` event (log + LangGraph custom stream).

Compaction works on messages only: typed state fields (constraints, plan, ledger) are never
seen here, so they can never be compacted away.

Example (in a node, return ``{"messages": result.update}``)::

    >>> from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    >>> from langgraph_memory.context import HandleStore, compact_messages, find_orphans
    >>> history = [SystemMessage("You are an agent.", id="sys"), HumanMessage("Go.", id="h")]
    >>> for i in range(20):
    ...     call = {"name": "search", "args": {"q": str(i)}, "id": f"c{i}"}
    ...     history += [AIMessage("", tool_calls=[call], id=f"a{i}"),
    ...                 ToolMessage("result " * 300, tool_call_id=f"c{i}", id=f"t{i}")]
    >>> store = HandleStore()
    >>> result = compact_messages(history, budget_tokens=2000, handle_store=store, scope="alice")
    >>> result.changed, result.fits, result.tokens_after <= 2000, find_orphans(result.messages)
    (True, True, True, ([], []))
    >>> result.messages[0] is history[0]  # the system prompt is never touched
    True
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..core.logsafe import error_kind, get_logger
from ..core.scope import Scope
from ..errors import ConfigError
from .events import emit_event
from .handles import HandleStore
from .tokens import TokenCounter, as_token_counter, message_text

logger = get_logger("context")

__all__ = [
    "META_KEY",
    "CompactionConfig",
    "CompactionResult",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "acompact_messages",
    "as_summarizer",
    "compact_messages",
    "find_orphans",
    "is_protected",
    "is_summary",
    "needs_compaction",
    "truncate_to_tokens",
]

META_KEY = "langgraph_memory"
"""Key in ``additional_kwargs`` under which compaction marks what it created."""

_RULE_WORDS = re.compile(
    r"\b(must|never|always|only|don't|do not|forbid|avoid|remember|from now on|prefer)\b"
    r"|不要|必须|永远|记住|以后|禁止|只能|务必|别|请勿|偏好|喜欢",
    re.IGNORECASE,
)


class CompactionConfig(BaseModel):
    """When and how hard :func:`compact_messages` compacts.

    ``trigger_ratio``: compact when tokens > this share of the budget.
    ``target_ratio``: stop compacting once under this share (hysteresis, so a long run does
    not compact on every step). ``keep_last_turns``: turns always left raw at the end
    (more are kept when they fit the target);
    ``min_keep_turns``: the least it may shrink to when the budget is tight.
    ``tool_stub_min_tokens``: smaller tool outputs are not worth stubbing.
    ``externalize_min_tokens`` / ``externalize_ratio``: a message above
    ``min(externalize_min_tokens, externalize_ratio * budget)`` tokens is externalized.
    ``summary_max_tokens``: cap on the summary message. ``summary_line_tokens``: cap on each
    line of the extractive summary (one line per kept turn). ``preview_tokens``: preview length
    in stubs. ``reserve_tokens``: tokens of the prompt that are not in ``messages`` (system
    prompt added at call time, output budget) subtracted from the budget.
    ``protected_names``: message ``name`` s never touched (the memory block).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    trigger_ratio: float = Field(default=0.8, gt=0, le=1)
    target_ratio: float = Field(default=0.6, gt=0, le=1)
    keep_last_turns: int = Field(default=4, ge=0)
    min_keep_turns: int = Field(default=1, ge=0)
    tool_stub_min_tokens: int = Field(default=48, ge=0)
    externalize_min_tokens: int = Field(default=1024, ge=1)
    externalize_ratio: float = Field(default=0.25, gt=0, le=1)
    summary_max_tokens: int = Field(default=512, ge=16)
    summary_line_tokens: int = Field(default=40, ge=8)
    preview_tokens: int = Field(default=24, ge=0)
    reserve_tokens: int = Field(default=0, ge=0)
    protected_names: tuple[str, ...] = ("memory_block", "constraint_block", "system_prompt")
    pin_last_human: bool = True

    @model_validator(mode="after")
    def _ratios(self) -> CompactionConfig:
        if self.target_ratio > self.trigger_ratio:
            raise ValueError("target_ratio must be <= trigger_ratio")
        if self.min_keep_turns > self.keep_last_turns:
            raise ValueError("min_keep_turns must be <= keep_last_turns")
        return self


@dataclass(slots=True)
class CompactionResult:
    """What :func:`compact_messages` did.

    ``messages`` is the new full history. ``update`` is what a node returns for an
    ``add_messages`` channel: ``[RemoveMessage(id=REMOVE_ALL_MESSAGES), *messages]`` when
    ``changed``, else ``[]``. ``event`` is the emitted compaction event (``None`` when no
    compaction was needed).
    """

    changed: bool
    messages: list[BaseMessage]
    update: list[BaseMessage]
    event: dict[str, Any] | None
    tokens_before: int
    tokens_after: int
    fits: bool = True
    handles: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def _meta(message: BaseMessage) -> dict[str, Any]:
    value = message.additional_kwargs.get(META_KEY) if message.additional_kwargs else None
    return value if isinstance(value, dict) else {}


def is_summary(message: BaseMessage) -> bool:
    """True for a summary message created by :func:`compact_messages`."""
    return _meta(message).get("kind") == "compaction_summary"


def is_protected(message: BaseMessage, config: CompactionConfig | None = None) -> bool:
    """True for messages compaction never touches: system messages and the memory block."""
    cfg = config or _DEFAULT_CONFIG
    if isinstance(message, SystemMessage):
        return True
    if message.name and message.name in cfg.protected_names:
        return True
    meta = _meta(message)
    if meta.get("protected") or meta.get("kind") in {"memory_block", "constraint_block"}:
        return True
    return bool(message.additional_kwargs and message.additional_kwargs.get("memory_block"))


def find_orphans(messages: Sequence[BaseMessage]) -> tuple[list[str], list[str]]:
    """``(orphan_tool_message_ids_or_call_ids, unanswered_tool_call_ids)``.

    The first list names ``ToolMessage`` s whose ``tool_call_id`` matches no earlier
    ``AIMessage`` tool call; the second, tool calls with no ``ToolMessage`` after them
    (except the calls of the final message, which may legitimately await execution).
    """
    calls: dict[str, int] = {}
    answered: set[str] = set()
    orphans: list[str] = []
    for i, message in enumerate(messages):
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call.get("id"):
                    calls[str(call["id"])] = i
        elif isinstance(message, ToolMessage):
            if message.tool_call_id in calls:
                answered.add(message.tool_call_id)
            else:
                orphans.append(message.tool_call_id)
    last = len(messages) - 1
    unanswered = [cid for cid, i in calls.items() if cid not in answered and i != last]
    return orphans, unanswered


def truncate_to_tokens(text: str, max_tokens: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text`` (whole characters, at most ``8 * max_tokens``) whose
    count is ``<= max_tokens``, with ``…`` appended when something was cut."""
    if max_tokens <= 0:
        return ""
    cut = len(text) > max_tokens * 8  # no tokenizer packs more than ~8 chars a token here
    text = text[: max_tokens * 8]
    if not cut and counter.count_text(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count_text(text[:mid] + "…") <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else ""


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _content_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(parts)


def _role(message: BaseMessage) -> str:
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    return message.type


# --------------------------------------------------------------------------- summarizers


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
            text = _one_line(_content_text(message))
            if is_summary(message):
                for line in _content_text(message).splitlines():
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
                handle = _meta(message).get("handle")
                name = message.name or "tool"
                ref = f" [full output: handle {handle}]" if handle else ""
                preview = text if not _meta(message).get("kind") else ""
                body = f"{name} returned: {preview}{ref}" if preview else f"{name} returned{ref}"
                lines.append((4, body))
            elif text:
                lines.append((3, f"{_role(message)}: {text}"))
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
        model: Any,
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
            f"{_role(m)}: {_one_line(message_text(m))}" for m in messages if message_text(m)
        )
        prompt = self.prompt.format(max_tokens=max_tokens, transcript=transcript)
        try:
            if hasattr(self.model, "invoke"):
                reply = self.model.invoke([HumanMessage(content=prompt)])
                text = _content_text(reply) if isinstance(reply, BaseMessage) else str(reply)
            else:
                text = str(self.model(prompt))
        except Exception as exc:  # the agent must not fail because the summariser did
            logger.warning(
                "LLM summariser failed; using extractive summary",
                extra={"error": error_kind(exc)},
            )
            return self.fallback(messages, max_tokens=max_tokens)
        return text.strip()


def as_summarizer(
    summarizer: Any, counter: TokenCounter | None = None, *, line_tokens: int = 40
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
    if hasattr(summarizer, "invoke"):
        return LLMSummarizer(summarizer, counter=counter, line_tokens=line_tokens)
    if callable(summarizer):
        try:
            params = inspect.signature(summarizer).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        if "max_tokens" in params or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
        ):
            return summarizer  # type: ignore[no-any-return]
        func: Callable[[Sequence[BaseMessage]], str] = summarizer

        def wrapped(messages: Sequence[BaseMessage], *, max_tokens: int) -> str:
            return str(func(messages))

        return wrapped
    raise ConfigError(f"summarizer must be None, a chat model or a callable; got {summarizer!r}")


# --------------------------------------------------------------------------- layout


@dataclass(slots=True)
class _Unit:
    """One turn: indices of its messages in the input (AI tool calls + their results)."""

    indices: list[int]
    turn_start: int
    turn_end: int


@dataclass(slots=True)
class _Layout:
    messages: list[BaseMessage]
    protected: set[int]
    pinned: int | None
    units: list[_Unit]
    pinned_turn: int | None = None


def _analyze(messages: list[BaseMessage], cfg: CompactionConfig) -> _Layout:
    """Split ``messages`` into protected messages, the pinned user message and turns.

    Turns are numbered in conversation order (a summary stands for its recorded range).
    A message kept *after* a summary although it is older than part of the summarised
    range (the pinned user message) keeps the number recorded in the summary's
    ``pinned_turns``, so numbers stay stable across repeated compactions.
    """
    protected = {i for i, m in enumerate(messages) if is_protected(m, cfg)}
    pinned: int | None = None
    if cfg.pin_last_human:
        for i in range(len(messages) - 1, -1, -1):
            m = messages[i]
            if isinstance(m, HumanMessage) and i not in protected and not is_summary(m):
                pinned = i
                break
    known: dict[str, int] = {}
    for m in messages:
        if is_summary(m):
            for key, value in (_meta(m).get("pinned_turns") or {}).items():
                known[str(key)] = int(value)
    owner: dict[str, int] = {}  # tool_call_id -> unit position
    units: list[_Unit] = []
    turn = 0
    pinned_turn: int | None = None

    def number(message: BaseMessage) -> int:
        nonlocal turn
        if message.id is not None and str(message.id) in known:
            value = known[str(message.id)]
            turn = max(turn, value + 1)
            return value
        value = turn
        turn += 1
        return value

    for i, message in enumerate(messages):
        if i in protected:
            continue
        if i == pinned:
            pinned_turn = number(message)
            continue
        if isinstance(message, ToolMessage) and message.tool_call_id in owner:
            units[owner[message.tool_call_id]].indices.append(i)
            continue
        if is_summary(message):
            rng = _meta(message).get("turn_range") or [turn, turn]
            start, end = int(rng[0]), int(rng[1])
            units.append(_Unit([i], start, end))
            turn = max(turn, end + 1)
            continue
        n = number(message)
        units.append(_Unit([i], n, n))
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call.get("id"):
                    owner[str(call["id"])] = len(units) - 1
    return _Layout(messages, protected, pinned, units, pinned_turn)


# --------------------------------------------------------------------------- attempt


@dataclass(slots=True)
class _State:
    """A candidate history: per input index, the replacement (or None = dropped)."""

    slots: list[BaseMessage | None]
    summary: BaseMessage | None = None
    summary_at: int | None = None
    stubbed: list[str] = field(default_factory=list)
    externalized: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    handles: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)
    turn_range: list[int] | None = None
    summarized_ids: list[str] = field(default_factory=list)
    summarizer_error: str | None = None

    def copy(self) -> _State:
        return _State(
            slots=list(self.slots),
            summary=self.summary,
            summary_at=self.summary_at,
            stubbed=list(self.stubbed),
            externalized=list(self.externalized),
            removed=list(self.removed),
            handles=list(self.handles),
            stages=list(self.stages),
            turn_range=self.turn_range,
            summarized_ids=list(self.summarized_ids),
            summarizer_error=self.summarizer_error,
        )

    def messages(self) -> list[BaseMessage]:
        out: list[BaseMessage] = []
        for i, m in enumerate(self.slots):
            if i == self.summary_at and self.summary is not None:
                out.append(self.summary)
            if m is not None:
                out.append(m)
        return out


class _Compactor:
    def __init__(
        self,
        layout: _Layout,
        *,
        budget: int,
        cfg: CompactionConfig,
        counter: TokenCounter,
        summarizer: Summarizer,
        handle_store: HandleStore | None,
        scope: Scope | None,
        source_ref: dict[str, Any] | None,
    ) -> None:
        self.layout = layout
        self.budget = budget
        self.cfg = cfg
        self.counter = counter
        self.summarizer = summarizer
        self.store = handle_store
        self.scope = scope
        self.source_ref = dict(source_ref or {})
        self.target = math.floor(cfg.target_ratio * budget)
        self.ext_limit = max(
            1, min(cfg.externalize_min_tokens, math.floor(cfg.externalize_ratio * budget))
        )

    # -- storage ------------------------------------------------------------------------
    def _store(self, content: str | list[Any], meta: dict[str, Any]) -> str | None:
        if self.store is None or self.scope is None:
            return None
        return self.store.put(self.scope, content, meta)

    def _where(self, message: BaseMessage, handle: str | None) -> str:
        if handle:
            return f'fetch_memory("{handle}") returns it'
        ref = f"message id {message.id}" if message.id else "the original message"
        return f"the raw text is {ref} in the checkpoint history"

    def _stub(self, message: BaseMessage, kind: str) -> tuple[BaseMessage, str | None]:
        text = message_text(message) if isinstance(message, ToolMessage) else _content_text(message)
        tokens = self.counter.count_text(text)
        meta = {
            "kind": kind,
            "message_id": message.id,
            "role": _role(message),
            "name": message.name,
            "tokens": tokens,
            **self.source_ref,
        }
        raw: str | list[Any] = message.content
        if not isinstance(raw, str):  # content blocks (images...): keep them all, as JSON
            meta["content_format"] = "json"
        handle = self._store(raw, meta)
        preview = truncate_to_tokens(_one_line(text), self.cfg.preview_tokens, self.counter)
        label = f"tool output of {message.name}" if isinstance(message, ToolMessage) else "content"
        body = f"[{label} ({tokens} tokens) moved out of context; {self._where(message, handle)}."
        body += f" Preview: {preview}]" if preview else "]"
        kwargs = dict(message.additional_kwargs)
        kwargs[META_KEY] = {"kind": kind, "handle": handle, "tokens": tokens}
        return message.model_copy(update={"content": body, "additional_kwargs": kwargs}), handle

    def _payload_text(self, message: BaseMessage) -> str:
        return message_text(message) if isinstance(message, ToolMessage) else _content_text(message)

    def _externalizable(self, message: BaseMessage) -> bool:
        return (
            not is_protected(message, self.cfg)
            and not _meta(message).get("kind")
            and self.counter.count_text(self._payload_text(message)) > self.ext_limit
        )

    # -- stages -------------------------------------------------------------------------
    def reduce(self, st: _State, old: list[_Unit]) -> None:
        for unit in old:
            for i in unit.indices:
                m = st.slots[i]
                if not isinstance(m, ToolMessage) or _meta(m).get("kind"):
                    continue
                if self.counter.count_text(message_text(m)) <= self.cfg.tool_stub_min_tokens:
                    continue
                new, handle = self._stub(m, "tool_stub")
                st.slots[i] = new
                st.stubbed.append(str(m.id))
                if handle:
                    st.handles.append(handle)
        if "reduce" not in st.stages:
            st.stages.append("reduce")

    def compress(self, st: _State, old: list[_Unit]) -> None:
        if not old:
            return
        covered = sorted(i for u in old for i in u.indices)
        originals = [self.layout.messages[i] for i in covered]
        current = [st.slots[i] for i in covered]
        current_msgs = [m for m in current if m is not None]
        turn_range = [min(u.turn_start for u in old), max(u.turn_end for u in old)]
        ids = [str(m.id) for m in originals if m.id]
        nested_ids: list[str] = []
        nested_handles: list[str] = []
        for m in originals:
            if is_summary(m):
                nested_ids.extend(_meta(m).get("message_ids", []))
                nested_handles.extend(_meta(m).get("nested_transcript_handles", []))
                if _meta(m).get("transcript_handle"):
                    nested_handles.append(_meta(m)["transcript_handle"])
        all_ids = [*nested_ids, *[i for i in ids if not i.startswith("lgm-summary-")]]
        transcript = [_dump(m) for m in originals]  # the store keeps it as JSON text
        handle = self._store(
            transcript,
            {
                "kind": "transcript",
                "turn_range": turn_range,
                "message_ids": all_ids,
                **self.source_ref,
            },
        )
        covered_set = set(covered)
        rest = [m for j, m in enumerate(st.slots) if j not in covered_set and m is not None]
        rest_tokens = self.counter.count_messages(rest)
        # messages the externalize step will shrink to a stub do not eat the summary's room
        for m in rest:
            if self._externalizable(m):
                size = self.counter.count_text(self._payload_text(m))
                rest_tokens -= max(0, size - self.cfg.preview_tokens - 48)
        header = self._summary_header(turn_range, len(all_ids), handle)
        overhead = self.counter.count_messages([HumanMessage(content=header)])
        # aim at the target (so the next step does not compact again at once), but allow a
        # short summary up to the hard budget rather than none
        room = max(
            self.target - rest_tokens - overhead,
            min(64, self.budget - rest_tokens - overhead - 2),
        )
        cap = max(0, min(self.cfg.summary_max_tokens, room))
        body = ""
        if cap >= 8:
            try:
                body = self.summarizer(current_msgs, max_tokens=cap)
            except Exception as exc:
                st.summarizer_error = error_kind(exc)
                logger.warning("summariser failed", extra={"error": st.summarizer_error})
                body = ExtractiveSummarizer(self.counter, self.cfg.summary_line_tokens)(
                    current_msgs, max_tokens=cap
                )
            body = truncate_to_tokens(body.strip(), cap, self.counter)
        content = header + ("\n" + body if body else "")
        pinned_turns: dict[str, int] = {}
        for m in originals:  # carry forward numbers of messages that are still kept
            if is_summary(m):
                pinned_turns.update(_meta(m).get("pinned_turns") or {})
        kept_ids = {
            str(m.id) for j, m in enumerate(st.slots) if m is not None and j not in covered_set
        }
        pinned_turns = {k: v for k, v in pinned_turns.items() if k in kept_ids}
        lay = self.layout
        if lay.pinned is not None and lay.pinned_turn is not None and lay.pinned > covered[0]:
            pinned_turns[str(lay.messages[lay.pinned].id)] = lay.pinned_turn
        meta = {
            "kind": "compaction_summary",
            "turn_range": turn_range,
            "pinned_turns": pinned_turns,
            "message_ids": all_ids,
            "transcript_handle": handle,
            "nested_transcript_handles": nested_handles,
            **self.source_ref,
        }
        digest = hashlib.sha256("\x00".join(ids or [content]).encode("utf-8")).hexdigest()[:16]
        st.summary = HumanMessage(
            content=content, id=f"lgm-summary-{digest}", additional_kwargs={META_KEY: meta}
        )
        st.summary_at = covered[0]
        for i in covered:
            st.slots[i] = None
        st.removed.extend(ids)
        st.summarized_ids = all_ids
        st.turn_range = turn_range
        if handle:
            st.handles.append(handle)
        st.stages.append("compress")

    def _summary_header(self, turn_range: list[int], count: int, handle: str | None) -> str:
        where = f'raw transcript: fetch_memory("{handle}")' if handle else ""
        ref = self.source_ref
        parts = []
        if ref.get("checkpoint_id"):
            parts.append(f"checkpoint {ref['checkpoint_id']}")
        if ref.get("thread_id"):
            parts.append(f"thread {ref['thread_id']}")
        if parts:
            ckpt = " of ".join(parts) + " history"
            where = f"{where}; also in {ckpt}" if where else f"raw text in {ckpt}"
        if not where:
            where = "raw text in the checkpoint history"
        return (
            f"[Summary of earlier conversation, turns {turn_range[0]}-{turn_range[1]} "
            f"({count} messages compacted; {where})]"
        )

    def externalize(self, st: _State) -> None:
        for i, m in enumerate(st.slots):
            if m is None or i in self.layout.protected or not self._externalizable(m):
                continue
            new, handle = self._stub(m, "externalized")
            st.slots[i] = new
            st.externalized.append(str(m.id))
            if handle:
                st.handles.append(handle)
        st.stages.append("externalize")

    def _cost(self, message: BaseMessage | None) -> int:
        """Planning estimate of a message's tokens, counting an externalizable message as
        the stub it will become (so the plan does not compress turns to make room that
        externalizing frees anyway)."""
        if message is None:
            return 0
        if self._externalizable(message):
            return self.cfg.preview_tokens + 48
        return self.counter.count_messages([message])

    def attempt(self, keep: int) -> tuple[_State, int]:
        """One plan with at least ``keep`` recent turns raw: reduce, then compress the
        *fewest* oldest turns that bring the history under the target, then externalize."""
        units = self.layout.units
        split = max(0, len(units) - keep)
        old = units[:split]
        st = _State(slots=list(self.layout.messages))
        self.reduce(st, old)
        tokens = self.counter.count_messages(st.messages())
        if tokens <= self.target or not old:
            if tokens > self.target:
                self.externalize(st)
                tokens = self.counter.count_messages(st.messages())
            return st, tokens
        # how many of the oldest turns to summarise: enough to leave room for the summary
        estimate = sum(self._cost(m) for m in st.slots)
        reserve = min(self.cfg.summary_max_tokens, max(32, self.budget // 7)) + 64
        need = estimate - (self.target - reserve)
        costs = [sum(self._cost(st.slots[i]) for i in u.indices) for u in old]
        k, acc = 0, 0
        while k < len(old) and acc < need:
            acc += costs[k]
            k += 1
        k = max(k, 1)
        best: tuple[_State, int] | None = None
        for take in sorted({k, k + (len(old) - k) // 2, len(old)}):
            trial = st.copy()
            self.compress(trial, old[:take])
            compressed = self.counter.count_messages(trial.messages())
            if compressed > tokens:  # a summary longer than what it replaces helps nobody
                continue
            if best is None or compressed < best[1]:
                best = (trial, compressed)
            if compressed <= self.target:
                break
        if best is not None:
            st, tokens = best
        if tokens <= self.target:
            return st, tokens
        self.externalize(st)
        return st, self.counter.count_messages(st.messages())


def _dump(message: BaseMessage) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": message.id,
        "type": message.type,
        "content": message.content,
    }
    if message.name:
        data["name"] = message.name
    if isinstance(message, AIMessage) and message.tool_calls:
        data["tool_calls"] = message.tool_calls
    if isinstance(message, ToolMessage):
        data["tool_call_id"] = message.tool_call_id
    if _meta(message):
        data[META_KEY] = _meta(message)
    return data


# --------------------------------------------------------------------------- public API

_DEFAULT_CONFIG = CompactionConfig()


def needs_compaction(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    config: CompactionConfig | None = None,
    counter: Any = None,
) -> bool:
    """True when ``messages`` exceed ``trigger_ratio`` of the effective budget."""
    cfg = config or _DEFAULT_CONFIG
    budget = budget_tokens - cfg.reserve_tokens
    return as_token_counter(counter).count_messages(list(messages)) > cfg.trigger_ratio * budget


def compact_messages(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    config: CompactionConfig | None = None,
    counter: Any = None,
    summarizer: Any = None,
    handle_store: HandleStore | None = None,
    scope: Scope | dict[str, Any] | str | None = None,
    force: bool = False,
    source_ref: dict[str, Any] | None = None,
) -> CompactionResult:
    """Compact ``messages`` to fit ``budget_tokens`` (see the module docstring).

    ``counter``: a :class:`TokenCounter`, tokenizer or callable (default: the calibrated
    counter). ``summarizer``: a chat model, a callable or ``None`` (extractive).
    ``handle_store`` + ``scope``: where payloads go (without a store, stubs point at the
    checkpoint history instead, and nothing is lost as long as checkpoints are kept).
    ``source_ref``: e.g. ``{"thread_id": ..., "checkpoint_id": ...}``, recorded in summaries
    and stubs as where the raw text is. ``force``: compact even under the trigger.

    Raises :class:`~langgraph_memory.errors.ConfigError` for a non-positive effective
    budget and :class:`~langgraph_memory.errors.ScopeError` for a store without a scope.
    """
    cfg = config or _DEFAULT_CONFIG
    tc = as_token_counter(counter)
    budget = int(budget_tokens) - cfg.reserve_tokens
    if budget <= 0:
        raise ConfigError(
            f"budget_tokens ({budget_tokens}) must exceed reserve_tokens ({cfg.reserve_tokens})"
        )
    sc: Scope | None = None
    if handle_store is not None:
        sc = HandleStore._scope(scope)
    msgs = list(messages)
    before = tc.count_messages(msgs)
    if not msgs or (not force and before <= cfg.trigger_ratio * budget):
        return CompactionResult(False, msgs, [], None, before, before)

    layout = _analyze(msgs, cfg)
    compactor = _Compactor(
        layout,
        budget=budget,
        cfg=cfg,
        counter=tc,
        summarizer=as_summarizer(summarizer, tc, line_tokens=cfg.summary_line_tokens),
        handle_store=handle_store,
        scope=sc,
        source_ref=source_ref,
    )
    best: tuple[_State, int, int] | None = None
    start_keep = min(cfg.keep_last_turns, len(layout.units))
    for keep in range(start_keep, min(cfg.min_keep_turns, start_keep) - 1, -1):
        st, tokens = compactor.attempt(keep)
        if best is None or tokens < best[1]:
            best = (st, tokens, keep)
        if tokens <= budget:
            best = (st, tokens, keep)
            break
    assert best is not None
    st, after, keep = best
    new_messages = st.messages()
    changed = [m.id for m in new_messages] != [m.id for m in msgs] or any(
        a is not b for a, b in zip(new_messages, msgs, strict=False)
    )
    fits = after <= budget
    protected_ids = [str(msgs[i].id) for i in sorted(layout.protected)]
    tail_units = layout.units[max(0, len(layout.units) - keep) :]
    tail_ids = [str(msgs[i].id) for u in tail_units for i in u.indices]
    payload: dict[str, Any] = {
        "tokens_before": before,
        "tokens_after": after,
        "budget_tokens": budget,
        "fits": fits,
        "stages": st.stages,
        "turn_range": st.turn_range,
        "removed_ids": st.removed,
        "stubbed_ids": st.stubbed,
        "externalized_ids": st.externalized,
        "summary_id": st.summary.id if st.summary is not None else None,
        "summarized_message_ids": len(st.summarized_ids),
        "handles": sorted(set(st.handles)),
        "kept": {
            "protected_ids": protected_ids,
            "pinned_id": str(msgs[layout.pinned].id) if layout.pinned is not None else None,
            "tail_turns": keep,
            "tail_ids": tail_ids,
        },
    }
    if st.summarizer_error:
        payload["summarizer_error"] = st.summarizer_error
    if not fits:
        payload["irreducible_tokens"] = after
        payload["reason"] = (
            "the protected messages and minimal stubs alone exceed the budget; "
            "raise budget_tokens or shorten the system prompt / memory block"
        )
    event = emit_event(
        "compaction",
        payload,
        level=logging.INFO if fits else logging.WARNING,
        message=(
            f"compacted {before} -> {after} tokens (budget {budget}, stages {st.stages})"
            if fits
            else f"compaction could not fit the budget: {after} > {budget} tokens"
        ),
    )
    update: list[BaseMessage] = (
        [RemoveMessage(id=REMOVE_ALL_MESSAGES), *new_messages] if changed else []
    )
    return CompactionResult(
        changed=changed,
        messages=new_messages,
        update=update,
        event=event,
        tokens_before=before,
        tokens_after=after,
        fits=fits,
        handles=sorted(set(st.handles)),
    )


async def acompact_messages(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    config: CompactionConfig | None = None,
    counter: Any = None,
    summarizer: Any = None,
    handle_store: HandleStore | None = None,
    scope: Scope | dict[str, Any] | str | None = None,
    force: bool = False,
    source_ref: dict[str, Any] | None = None,
) -> CompactionResult:
    """Async :func:`compact_messages`. A summariser with ``ainvoke`` is awaited; everything
    else is CPU-bound and runs inline."""
    import asyncio

    if summarizer is not None and hasattr(summarizer, "ainvoke"):
        return await asyncio.to_thread(
            compact_messages,
            messages,
            budget_tokens=budget_tokens,
            config=config,
            counter=counter,
            summarizer=summarizer,
            handle_store=handle_store,
            scope=scope,
            force=force,
            source_ref=source_ref,
        )
    return compact_messages(
        messages,
        budget_tokens=budget_tokens,
        config=config,
        counter=counter,
        summarizer=summarizer,
        handle_store=handle_store,
        scope=scope,
        force=force,
        source_ref=source_ref,
    )
