"""Which messages of a thread are turns for the write path, and which of them are new.

Pure functions over messages (no I/O), used by :class:`~langgraph_memory.graph.nodes.SaveMemory`:
a turn is a real user message, an assistant text reply (``keep_replies``) or a failed tool
result (``record_tool_failures``); messages this package marked (compaction summaries) never
are. Each turn has a stable id (the message id, else a digest of its position and text), the
previous meaningful turn of the thread (an episode's retrieval context) and its order.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from ..read.query import content_text, is_marked
from ..write.conversation import noise_reason


class Turn(NamedTuple):
    """A message save_memory has not processed yet."""

    turn_id: str
    message: BaseMessage
    previous: str | None
    """The previous meaningful turn of the thread ("user: …" / "assistant: …")."""
    seq: int
    """Its order: microseconds at the scan plus its index in the thread."""


def turn_id(message: BaseMessage, index: int) -> str:
    """The message id, else ``turn-<digest of index and text>``."""
    if message.id:
        return str(message.id)
    digest = hashlib.sha1(f"{index}\x00{content_text(message)}".encode()).hexdigest()[:16]
    return f"turn-{digest}"


@dataclass(frozen=True)
class TurnSelector:
    """What counts as a turn: user messages always, assistant text replies with
    ``keep_replies``, failed tool results with ``record_tool_failures``."""

    keep_replies: bool = True
    record_tool_failures: bool = True

    def is_turn(self, message: BaseMessage) -> bool:
        """True for a message the write path processes."""
        if is_marked(message):
            return False
        if isinstance(message, HumanMessage):
            return True
        if isinstance(message, AIMessage):
            return self.keep_replies and bool(content_text(message).strip())
        return (
            self.record_tool_failures
            and isinstance(message, ToolMessage)
            and getattr(message, "status", "success") == "error"
        )

    def turn_ids(self, messages: Sequence[BaseMessage]) -> set[str]:
        """The ids of every turn in ``messages``."""
        return {turn_id(m, i) for i, m in enumerate(messages) if self.is_turn(m)}

    def new_turns(self, messages: Sequence[BaseMessage], saved: Collection[str]) -> list[Turn]:
        """The turns whose id is not in ``saved``, in order, each with the previous
        meaningful turn of the thread and its order."""
        turns: list[Turn] = []
        base = int(time.time() * 1e6)
        for index, message in enumerate(messages):
            if not self.is_turn(message):
                continue
            tid = turn_id(message, index)
            if tid not in saved:
                previous = self.previous_meaningful(messages, index)
                turns.append(Turn(tid, message, previous, base + index))
        return turns

    def previous_meaningful(self, messages: Sequence[BaseMessage], index: int) -> str | None:
        """The last user turn or reply before ``messages[index]`` that is not noise, as
        ``"user: …"`` / ``"assistant: …"`` (scanned backwards: only new turns pay for it)."""
        for at in range(index - 1, -1, -1):
            message = messages[at]
            if isinstance(message, ToolMessage) or not self.is_turn(message):
                continue
            text = content_text(message)
            if noise_reason(text) is None:
                speaker = "assistant" if isinstance(message, AIMessage) else "user"
                return f"{speaker}: {text}"
        return None


__all__ = ["Turn", "TurnSelector", "turn_id"]
