"""The system text a memory-enabled model call gets: system prompt, memory block, and every
asserted constraint re-asserted when the block lacks it.

Shared by :class:`~langgraph_memory.graph.nodes.Generate`,
:class:`~langgraph_memory.graph.nodes.CompactIfNeeded` (which reserves exactly this text from
the context budget) and :class:`~langgraph_memory.graph.middleware.MemoryMiddleware`. Pure
apart from the re-injection log line (``emit``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..context.constraint_block import ensure_constraints
from ..context.constraints import Constraint
from .constraints import active_constraints, asserted_constraints

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with long-term memory. Use the remembered facts and "
    "preferences below when they are relevant, cite their ids like [id] when you rely on "
    "them, and follow every active constraint."
)


def system_text(
    system_prompt: str, state: Mapping[str, Any], *, emit: bool = True
) -> tuple[str, list[Constraint]]:
    """The system text the generate node sends: system prompt, memory block, and every
    asserted constraint (:func:`asserted_constraints`) re-asserted if missing; with the list
    of *all* active constraints (outputs are checked against every one, including those left
    out for the budget). ``emit=False`` sizes the text without logging a re-injection."""
    block = state.get("memory_block") or ""
    text = f"{system_prompt}\n\n{block}" if block else system_prompt
    constraints = active_constraints(state)
    text, _ = ensure_constraints(text, asserted_constraints(state, constraints), emit=emit)
    return text, constraints


__all__ = ["DEFAULT_SYSTEM_PROMPT", "system_text"]
