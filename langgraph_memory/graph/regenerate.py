"""Check a model's answer against the active constraints, regenerate on a violation, withhold a
tool call that still breaks one.

One implementation for :class:`~langgraph_memory.graph.nodes.Generate` and
:class:`~langgraph_memory.graph.middleware.MemoryMiddleware`: both hand :func:`regenerate` (or
:func:`aregenerate`) a ``call(system_text)`` that runs the model once and a ``check(result)``
that lists the violations; the loop asks once more per allowed regeneration with the broken
rules added to the system text (:func:`fix_prompt`). :func:`withhold` replaces an
``AIMessage`` whose tool calls still violate a constraint by :data:`WITHHELD_TEXT`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from langchain_core.messages import AIMessage

from ..context.constraint_block import format_violations
from ..context.constraints import Constraint, Violation

WITHHELD_TEXT = "I can't do that: the action would break constraint(s) [{ids}]."
"""What the user sees instead of a tool call that still violates a constraint."""

R = TypeVar("R")


def fix_prompt(
    system: str, violations: Sequence[Violation], constraints: Sequence[Constraint]
) -> str:
    """``system`` plus the correction instruction for one regeneration."""
    return f"{system}\n\n{format_violations(violations, constraints)}"


def regenerate(
    call: Callable[[str], R],
    check: Callable[[R], list[Violation]],
    system: str,
    constraints: Sequence[Constraint],
    max_regenerations: int,
) -> tuple[R, list[Violation], int]:
    """``call(system)``, then up to ``max_regenerations`` more calls while ``check`` finds
    violations. Returns the last result, its violations (``[]``: compliant) and the number of
    regenerations made."""
    result = call(system)
    violations = check(result)
    tries = 0
    while violations and tries < max_regenerations:
        tries += 1
        result = call(fix_prompt(system, violations, constraints))
        violations = check(result)
    return result, violations, tries


async def aregenerate(
    call: Callable[[str], Awaitable[R]],
    check: Callable[[R], list[Violation]],
    system: str,
    constraints: Sequence[Constraint],
    max_regenerations: int,
) -> tuple[R, list[Violation], int]:
    """:func:`regenerate` with an async ``call`` (awaited; ``check`` runs inline)."""
    result = await call(system)
    violations = check(result)
    tries = 0
    while violations and tries < max_regenerations:
        tries += 1
        result = await call(fix_prompt(system, violations, constraints))
        violations = check(result)
    return result, violations, tries


def withhold(message: AIMessage, violations: Sequence[Violation]) -> AIMessage:
    """``message`` itself when it calls no tool or nothing is violated, else an answer without
    the tool call that names the violated constraints (same message id)."""
    if not violations or not message.tool_calls:
        return message
    ids = ", ".join(sorted({v.constraint_id for v in violations}))
    return AIMessage(content=WITHHELD_TEXT.format(ids=ids), id=message.id)


__all__ = ["WITHHELD_TEXT", "aregenerate", "fix_prompt", "regenerate", "withhold"]
