"""The constraints a turn must honour, merged from every place they come from.

Pure functions over the graph state (no I/O):

* :func:`coerce_constraints` — working-memory constraints (``Constraint``, dict or str) as
  :class:`~langgraph_memory.context.constraints.Constraint`.
* :func:`active_constraints` — working memory + procedural records + recalled constraint
  records, deduplicated by id: what outputs are checked against.
* :func:`asserted_constraints` — the active ones the prompt must carry (all but those
  compact_if_needed left out for the context budget).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..context.constraints import Constraint
from ..errors import ConfigError
from .guard import neutralize

ConstraintLike = Constraint | Mapping[str, Any] | str
"""One working-memory constraint as a state may hold it."""


def coerce_constraints(items: Iterable[ConstraintLike] | None) -> list[Constraint]:
    """``items`` as :class:`Constraint` objects (a dict is validated, a string gets the id
    ``c-<sha1 prefix>``); anything else raises :class:`~langgraph_memory.errors.ConfigError`."""
    out: list[Constraint] = []
    for item in items or []:
        if isinstance(item, Constraint):
            out.append(item)
        elif isinstance(item, Mapping):
            out.append(Constraint.model_validate(dict(item)))
        elif isinstance(item, str):
            digest = hashlib.sha1(item.encode("utf-8")).hexdigest()[:8]
            out.append(Constraint(id=f"c-{digest}", text=item))
        else:
            raise ConfigError(f"constraints must be Constraint, dict or str, got {type(item)}")
    return out


def active_constraints(state: Mapping[str, Any]) -> list[Constraint]:
    """Every constraint that must hold this turn, deduplicated by id:

    the state's ``constraints`` (working memory), procedural records of kind ``constraint``
    or ``instruction`` and recalled/always-injected records of kind ``constraint`` (their text
    neutralized exactly as rendered in the memory block; a ``checker`` spec is taken from
    ``record.metadata["checker"]``).
    """
    result = coerce_constraints(state.get("constraints"))
    for key, source in (("procedural", "procedural"), ("recalled", "recalled")):
        for item in state.get(key) or []:
            if item.get("kind") not in {"constraint", "instruction"} and source == "recalled":
                continue
            checker = item.get("checker")
            result.append(
                Constraint(
                    id=str(item["id"]),
                    text=neutralize(item["text"]),
                    source=source,  # type: ignore[arg-type]
                    checker=checker if isinstance(checker, dict) and checker.get("type") else None,
                )
            )
    seen: set[str] = set()
    unique = []
    for c in result:
        if c.id not in seen:
            seen.add(c.id)
            unique.append(c)
    return unique


def asserted_constraints(
    state: Mapping[str, Any], constraints: Sequence[Constraint] | None = None
) -> list[Constraint]:
    """The active constraints (``constraints``, default :func:`active_constraints`) the prompt
    must carry: all but those compact_if_needed left out of this turn's prompt to fit the
    context budget (their ids are in ``state["dropped_for_budget"]``)."""
    active = active_constraints(state) if constraints is None else list(constraints)
    left_out = set(state.get("dropped_for_budget") or ())
    return [c for c in active if c.id not in left_out]


__all__ = ["ConstraintLike", "active_constraints", "asserted_constraints", "coerce_constraints"]
