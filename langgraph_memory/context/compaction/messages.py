"""Reading messages the way compaction sees them (pure): compaction marks, protected messages,
orphaned tool calls, text and role of a message, token-bounded truncation, the JSON form of a
message kept in a transcript."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from ..tokens import TokenCounter
from .config import DEFAULT_CONFIG, META_KEY, CompactionConfig


def meta_of(message: BaseMessage) -> dict[str, Any]:
    """The compaction marks of ``message`` (``{}`` when it has none)."""
    value = message.additional_kwargs.get(META_KEY) if message.additional_kwargs else None
    return value if isinstance(value, dict) else {}


def is_summary(message: BaseMessage) -> bool:
    """True for a summary message created by :func:`compact_messages`."""
    return meta_of(message).get("kind") == "compaction_summary"


def is_protected(message: BaseMessage, config: CompactionConfig | None = None) -> bool:
    """True for messages compaction never touches: system messages and the memory block."""
    cfg = config or DEFAULT_CONFIG
    if isinstance(message, SystemMessage):
        return True
    if message.name and message.name in cfg.protected_names:
        return True
    meta = meta_of(message)
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


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def content_text(message: BaseMessage) -> str:
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


def role_of(message: BaseMessage) -> str:
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    return message.type


def dump_message(message: BaseMessage) -> dict[str, Any]:
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
    if meta_of(message):
        data[META_KEY] = meta_of(message)
    return data


__all__ = [
    "content_text",
    "dump_message",
    "find_orphans",
    "is_protected",
    "is_summary",
    "meta_of",
    "one_line",
    "role_of",
    "truncate_to_tokens",
]
