"""The five memory nodes, one module each, and their base class.

Each node is a callable class (``node(state, runtime)`` runs its sync path, ``await
node.acall(state, runtime)`` its async one) and a LangGraph runnable: ``graph.invoke`` uses
the sync path, ``graph.ainvoke`` / ``astream`` the async one. Each node's docstring lists the
state keys it reads and writes and says which of its steps are truly async and which run a
sync call in a worker thread. Wire them into your own ``StateGraph(AgentState,
context_schema=MemoryContext)``, or take
:func:`langgraph_memory.graph.prebuilt.create_memory_agent`. Every node needs a run context
naming the user (``context=MemoryContext(user_id=...)``); a run without one raises
:class:`~langgraph_memory.errors.ScopeError` naming ``user_id``.

Modules (all stateful: they call the store or the model; the pure steps they use live in
:mod:`langgraph_memory.read`):

* :mod:`.load_memory` — :class:`LoadMemory`: recall, re-check, render the memory block.
* :mod:`.constraint_assert` — :class:`ConstraintAssert`: every active constraint in the block.
* :mod:`.compact_if_needed` — :class:`CompactIfNeeded`: trim the block, compact the history.
* :mod:`.generate` — :class:`Generate`: the model call, output checks, one regeneration
  (:mod:`langgraph_memory.graph.regenerate`, shared with the middleware).
* :mod:`.save_memory` — :class:`SaveMemory`: the write path with provenance.
* :mod:`.base` — :class:`MemoryNode`, their base.
* :mod:`.factories` — the deprecated ``create_*`` factories (one release).

The node modules deliberately do not use ``from __future__ import annotations``: LangGraph
inspects the node signatures at graph-build time.
"""

from .base import MemoryNode
from .compact_if_needed import CompactIfNeeded
from .constraint_assert import ConstraintAssert
from .factories import (
    create_compact_if_needed,
    create_constraint_assert,
    create_generate,
    create_load_memory,
    create_save_memory,
)
from .generate import Generate
from .load_memory import LoadMemory
from .save_memory import SaveMemory

__all__ = [
    "CompactIfNeeded",
    "ConstraintAssert",
    "Generate",
    "LoadMemory",
    "MemoryNode",
    "SaveMemory",
    "create_compact_if_needed",
    "create_constraint_assert",
    "create_generate",
    "create_load_memory",
    "create_save_memory",
]
