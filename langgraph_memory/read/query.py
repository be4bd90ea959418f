"""What recall is asked, read from the graph state: the latest real user turn and the task goal.

Pure functions over messages (no I/O):

* :func:`build_query` — the recall query.
* :func:`turn_said_at` — when the latest user turn was said (uses of memory are dated by it).
* :func:`is_marked` — a message this package wrote (compaction summary, re-injected block):
  never a user turn.
* :func:`content_text` — a message's content as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from ..context.tokens import message_text
from ..write.conversation import turn_time


def content_text(message: BaseMessage) -> str:
    """The message's content when it is a string, else everything in it that reaches the model
    (:func:`~langgraph_memory.context.tokens.message_text`)."""
    content = message.content
    if isinstance(content, str):
        return content
    return message_text(message)


def is_marked(message: BaseMessage) -> bool:
    """True for a message marked by this package (``additional_kwargs["langgraph_memory"]``)."""
    meta = (message.additional_kwargs or {}).get("langgraph_memory")
    return isinstance(meta, dict) and bool(meta)


def build_query(state: Mapping[str, Any]) -> str:
    """The recall query: the latest real human turn, plus the task goal when there is one."""
    latest = ""
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) and not is_marked(message):
            latest = content_text(message)
            break
    goal = state.get("goal") or ""
    return "\n".join(part for part in (latest.strip(), str(goal).strip()) if part)


def turn_said_at(state: Mapping[str, Any]) -> datetime | None:
    """When the latest real human turn was said, from its metadata (``None``: not given).

    A use of a memory is dated by the turn that used it: replaying or importing dated
    history marks the facts it recalls as used *then*, on the clock their turns were said
    on, not on the wall clock of the replay."""
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) and not is_marked(message):
            return turn_time(message.additional_kwargs, message.response_metadata)
    return None


__all__ = ["build_query", "content_text", "is_marked", "turn_said_at"]
