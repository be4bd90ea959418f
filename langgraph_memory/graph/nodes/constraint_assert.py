"""The ``constraint_assert`` node: every active constraint is in the memory block before the
model is called."""

import logging
from collections.abc import Mapping
from typing import Any

from ...context.constraint_block import ensure_constraints
from ...read.constraints import active_constraints
from ..runtime import NodeRuntime, emit, run_context
from .base import MemoryNode

REINJECTED_MESSAGE = (
    "re-injected {count} constraint(s) missing from the memory block for user {user_id}: {ids}"
)


class ConstraintAssert(MemoryNode):
    """Before generation: every active constraint must be in the memory block.

    Inputs (state): ``memory_block``, ``constraints``, ``procedural``, ``recalled``.
    Outputs (state update): ``memory_block`` (only when a constraint was missing: the missing
    ones are appended in a marked block) and ``missing_constraints`` (ids re-injected this
    turn); a re-injection is logged and streamed as ``constraints_reinjected``. After
    generation, :class:`~langgraph_memory.graph.nodes.Generate` runs the output checks (one
    regeneration allowed). No I/O: the async path runs the sync one inline.

    Example::

        builder.add_node("constraint_assert", ConstraintAssert())
        builder.add_edge("load_memory", "constraint_assert")
    """

    default_name = "constraint_assert"

    def _run(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        ctx = run_context(runtime)
        constraints = active_constraints(state)
        block = state.get("memory_block") or ""
        text, missing = ensure_constraints(block, constraints, emit=False)
        if missing:  # one event, with the user, instead of the helper's own
            emit(
                runtime,
                "constraints_reinjected",
                {"user_id": ctx.user_id, "ids": [c.id for c in missing]},
                logging.WARNING,
                message=REINJECTED_MESSAGE.format(
                    count=len(missing),
                    user_id=ctx.user_id,
                    ids=", ".join(c.id for c in missing),
                ),
            )
            return {"memory_block": text, "missing_constraints": [c.id for c in missing]}
        return {"missing_constraints": []}

    async def _arun(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        return self._run(state, runtime)


__all__ = ["ConstraintAssert"]
