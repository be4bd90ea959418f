"""Turn analysis (pure): which messages are protected, which user message is pinned, and how
the rest groups into turns (an assistant tool-call message with its tool results is one turn)."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from .config import CompactionConfig
from .messages import is_protected, is_summary, meta_of


@dataclass(slots=True)
class Unit:
    """One turn: indices of its messages in the input (AI tool calls + their results)."""

    indices: list[int]
    turn_start: int
    turn_end: int


@dataclass(slots=True)
class Layout:
    """A history split into protected indices, the pinned user message and turns."""

    messages: list[BaseMessage]
    protected: set[int]
    pinned: int | None
    units: list[Unit]
    pinned_turn: int | None = None


def analyze(messages: list[BaseMessage], cfg: CompactionConfig) -> Layout:
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
            for key, value in (meta_of(m).get("pinned_turns") or {}).items():
                known[str(key)] = int(value)
    owner: dict[str, int] = {}  # tool_call_id -> unit position
    units: list[Unit] = []
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
            rng = meta_of(message).get("turn_range") or [turn, turn]
            start, end = int(rng[0]), int(rng[1])
            units.append(Unit([i], start, end))
            turn = max(turn, end + 1)
            continue
        n = number(message)
        units.append(Unit([i], n, n))
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call.get("id"):
                    owner[str(call["id"])] = len(units) - 1
    return Layout(messages, protected, pinned, units, pinned_turn)


__all__ = ["Layout", "Unit", "analyze"]
