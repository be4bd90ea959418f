"""Compaction: keep a message history under a token budget without losing anything.

:func:`compact_messages` runs when the history's tokens exceed ``trigger_ratio`` of the
budget and applies, in this order, stopping as soon as the history is under
``target_ratio`` of the budget:

1. **reduce**: tool outputs (``ToolMessage``) older than the last ``keep_last_turns`` turns
   become short stubs naming a handle; the payload is kept in a
   :class:`~langgraph_memory.context.handles.HandleStore`.
2. **compress**: the *fewest oldest* turns that bring the history under the target (never
   the last ``keep_last_turns``) become *one* traceable summary message (a
   ``HumanMessage`` marked ``additional_kwargs["langgraph_memory"]["kind"] ==
   "compaction_summary"``, placed where the first summarised turn was) that records the
   turn range, the ids of every message it replaces, the handle of their raw transcript
   and the checkpoint reference. An earlier summary is folded into the next one (its ids
   and handles carry over). The summariser is pluggable (any chat model or callable); the
   default is extractive and offline.
3. **externalize**: any remaining message larger than ``externalize_min_tokens`` (or
   ``externalize_ratio`` of the budget) is replaced by a handle stub with a preview.

If that still does not fit the budget, the kept tail shrinks turn by turn down to
``min_keep_turns`` and the three steps run again. The guarantees, for any input history:

* an ``AIMessage`` is never separated from the ``ToolMessage`` s answering its
  ``tool_calls``: a turn (a human message, an assistant message, or an assistant
  tool-call message *with* its tool results) is kept, stubbed or summarised as a whole;
* ``SystemMessage`` s and messages marked as the memory/constraint block (``name`` in
  ``protected_names`` or ``additional_kwargs["langgraph_memory"]["protected"]``) are returned
  unchanged, in their order; so is the latest ``HumanMessage`` unless it alone is oversized
  (then it is externalized, keeping its id);
* messages of the kept tail keep their ids (and, unless externalized, their content);
* the result fits ``budget_tokens - reserve_tokens`` whenever the irreducible part does
  (protected messages, the pinned user message and the last ``min_keep_turns`` turns with
  oversized payloads externalized, plus a minimal summary header); otherwise the event
  says ``fits: False`` and gives ``irreducible_tokens``;
* every compaction emits a ``compaction`` event (log + LangGraph custom stream).

Compaction works on messages only: typed state fields (constraints, plan, ledger) are never
seen here, so they can never be compacted away.

Example (in a node, return ``{"messages": result.update}``)::

    >>> from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    >>> from langgraph_memory.context import HandleStore, compact_messages, find_orphans
    >>> history = [SystemMessage("You are an agent.", id="sys"), HumanMessage("Go.", id="h")]
    >>> for i in range(20):
    ...     call = {"name": "search", "args": {"q": str(i)}, "id": f"c{i}"}
    ...     history += [AIMessage("", tool_calls=[call], id=f"a{i}"),
    ...                 ToolMessage("result " * 300, tool_call_id=f"c{i}", id=f"t{i}")]
    >>> store = HandleStore()
    >>> result = compact_messages(history, budget_tokens=2000, handle_store=store, scope="alice")
    >>> result.changed, result.fits, result.tokens_after <= 2000, find_orphans(result.messages)
    (True, True, True, ([], []))
    >>> result.messages[0] is history[0]  # the system prompt is never touched
    True

Modules (pure transformations unless noted):

* :mod:`.api` — :func:`compact_messages`, :func:`acompact_messages`, :func:`needs_compaction`,
  what a node calls.
* :mod:`.config` — :class:`CompactionConfig`, :class:`CompactionResult`, :data:`META_KEY`.
* :mod:`.planner` — the reduce / compress / externalize steps of one attempt (stores payloads
  in a :class:`~langgraph_memory.context.handles.HandleStore`: the one stateful part).
* :mod:`.layout` — protected messages, the pinned user message, turns.
* :mod:`.summarizers` — :class:`ExtractiveSummarizer`, :class:`LLMSummarizer`,
  :func:`as_summarizer`.
* :mod:`.messages` — compaction marks, :func:`find_orphans`, :func:`truncate_to_tokens`.
"""

from .api import acompact_messages, compact_messages, needs_compaction
from .config import META_KEY, CompactionConfig, CompactionResult
from .messages import find_orphans, is_protected, is_summary, truncate_to_tokens
from .summarizers import ExtractiveSummarizer, LLMSummarizer, Summarizer, as_summarizer

__all__ = [
    "META_KEY",
    "CompactionConfig",
    "CompactionResult",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "acompact_messages",
    "as_summarizer",
    "compact_messages",
    "find_orphans",
    "is_protected",
    "is_summary",
    "needs_compaction",
    "truncate_to_tokens",
]
