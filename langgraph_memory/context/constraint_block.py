"""The prompt side of constraint safety (pure): the marked block that carries the active
constraints, :func:`ensure_constraints` (re-inject the ones missing from the prompt) and
:func:`format_violations` (the correction instruction for a regeneration)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from .constraints import Constraint, Violation, constraint_present
from .events import emit_event

__all__ = [
    "CONSTRAINT_BLOCK_END",
    "CONSTRAINT_BLOCK_START",
    "ensure_constraints",
    "format_constraint_block",
    "format_violations",
]

CONSTRAINT_BLOCK_START = "<active_constraints>"
CONSTRAINT_BLOCK_END = "</active_constraints>"
_BLOCK_HEADER = "You must follow every rule below for the rest of this conversation:"


def format_constraint_block(constraints: Sequence[Constraint]) -> str:
    """The marked block :func:`ensure_constraints` appends: one ``[id] text`` line each."""
    lines = [CONSTRAINT_BLOCK_START, _BLOCK_HEADER]
    lines.extend(f"[{c.id}] {c.text.strip()}" for c in constraints)
    lines.append(CONSTRAINT_BLOCK_END)
    return "\n".join(lines)


def ensure_constraints(
    prompt_text: str, constraints: Sequence[Constraint], *, emit: bool = True
) -> tuple[str, list[Constraint]]:
    """Guarantee every constraint is in the prompt text.

    Returns ``(text, missing)``. ``missing`` lists the constraints whose text was not in
    ``prompt_text`` (deduplicated by id, order kept). When it is empty, ``text`` is
    ``prompt_text`` unchanged; otherwise ``text`` is ``prompt_text`` followed by one
    :func:`format_constraint_block` holding exactly the missing ones, so afterwards
    ``constraint_present(text, c)`` holds for every ``c`` in ``constraints``.
    Each re-injection is logged (warning on ``langgraph_memory.context``) and streamed as a
    ``constraints_reinjected`` event, unless ``emit=False`` (a dry run, e.g. to size a prompt).
    """
    missing: list[Constraint] = []
    seen: set[str] = set()
    for constraint in constraints:
        if constraint.id in seen:
            continue
        seen.add(constraint.id)
        if not constraint_present(prompt_text, constraint):
            missing.append(constraint)
    if not missing:
        return prompt_text, []
    block = format_constraint_block(missing)
    text = f"{prompt_text.rstrip()}\n\n{block}" if prompt_text.strip() else block
    if not emit:
        return text, missing
    emit_event(
        "constraints_reinjected",
        {
            "missing_ids": [c.id for c in missing],
            "sources": [c.source for c in missing],
            "total_constraints": len(seen),
        },
        level=logging.WARNING,
        message=f"re-injected {len(missing)} constraint(s) missing from the prompt",
    )
    return text, missing


def format_violations(violations: Sequence[Violation], constraints: Sequence[Constraint]) -> str:
    """A correction instruction for one regeneration: each violated rule and what was wrong."""
    by_id = {c.id: c for c in constraints}
    lines = ["Your previous answer broke these rules. Rewrite it so that it follows them:"]
    for v in violations:
        rule = by_id.get(v.constraint_id)
        rule_text = rule.text if rule else v.constraint_id
        lines.append(f"- [{v.constraint_id}] {rule_text} -> {v.detail}")
    return "\n".join(lines)
