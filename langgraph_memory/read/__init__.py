"""The read path after retrieval: turning ranked hits into what the model sees.

Pure transformations (no I/O unless noted):

* :mod:`.guard` — which recalled records may reach the prompt (:func:`~.guard.reject_reason`)
  and the prompt-injection defence of their text (:func:`~.guard.neutralize`,
  :func:`~.guard.quote`).
* :mod:`.query` — the recall query and the turn's time, read from the graph state.
* :mod:`.conversation` — conversation excerpts: hit selection, neighbouring turns, rendering
  (:func:`~.conversation.thread_episodes` reads the store).
* :mod:`.constraints` — the constraints a turn must honour, merged from working memory,
  procedural and recalled records.
* :mod:`.render` — the memory block (sections, budget, clipping).
* :mod:`.budget` — trimming a rendered block to fit the context budget.
* :mod:`.prompt` — the system text sent to the model (system prompt + block + re-asserted
  constraints).

The stateful steps that use them (store calls, model calls) are the nodes in
:mod:`langgraph_memory.graph.nodes`.
"""

from .conversation import memory_parts

__all__ = ["memory_parts"]
