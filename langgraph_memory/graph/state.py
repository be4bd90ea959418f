"""Graph state and runtime context of a memory-enabled LangGraph agent.

* :class:`AgentState` is the state schema the nodes in :mod:`langgraph_memory.graph.nodes` read and
  write. Subclass it to add your own keys (a graph whose schema is your own TypedDict drops
  keys it does not declare, so declare ours by subclassing)::

      class MyState(AgentState, total=False):
          ticket_id: str

* :class:`MemoryContext` is the ``context_schema``: who the run is for (``user_id`` is
  required; memory is never read or written globally) and the budgets the nodes use::

      graph.invoke({"messages": [("user", "hi")]}, config,
                   context=MemoryContext(user_id="alice"))

A node run without a context raises :class:`~langgraph_memory.errors.ScopeError` naming the
missing ``user_id``. Note: this module must keep real (not stringified) annotations; it
does not use ``from __future__ import annotations``.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from ..context.constraints import Constraint
from ..core.scope import Scope, acl_labels
from ..errors import ConfigError, ScopeError


class RecalledMemory(TypedDict, total=False):
    """One recalled record as stored in ``state["recalled"]`` (JSON-serialisable).

    ``explanation`` holds the ranking factors (dense/keyword ranks and scores, fused score,
    recency, confidence, importance, final) so every injected memory can be traced; records
    injected regardless of similarity (constraints, procedural memory) have
    ``{"reason": "always"}``. ``checker`` (optional) is a constraint checker spec taken from
    ``record.metadata["checker"]``.
    """

    id: str
    text: str
    kind: str
    layer: str
    subject: str | None
    predicate: str | None
    object: str | None
    confidence: float
    importance: int
    task_id: str | None
    score: float
    explanation: dict[str, Any]
    checker: dict[str, Any]
    part: str
    """``"facts"`` (rendered under known facts) or ``"conversation"`` (a dated excerpt)."""
    said_at: str
    """Conversation excerpts: when it was said (ISO-8601)."""
    role: str
    """Conversation excerpts: ``"user"`` or ``"assistant"``."""
    thread_id: str | None
    clipped: bool
    """True when the block shows only the start of ``text`` (ending in an ellipsis): the
    single fact left under ``memory_budget_tokens`` was longer than the budget allowed."""


class AgentState(TypedDict, total=False):
    """State of a memory-enabled agent. Every key is optional on input.

    Conversation:
      ``messages`` — the chat history (``add_messages`` reducer).

    Working memory (typed, projected into the prompt every turn, never compacted):
      ``task_id`` — the current task; episodic recall is limited to it.
      ``goal`` — what the current task is for (also used as recall query context).
      ``plan`` — the steps of the current task.
      ``constraints`` — rules that must hold for the whole task (:class:`Constraint`;
      plain dicts are accepted on input).
      ``ledger`` — facts established during this task.

    Written by the nodes:
      ``recalled`` — records recalled this turn, with ids and explanations (load_memory).
      ``procedural`` — procedural records injected in full this turn (load_memory).
      ``memory_block`` — the rendered memory text injected next to the system prompt
      (load_memory, constraint_assert).
      ``missing_constraints`` — ids re-injected by constraint_assert this turn.
      ``dropped_for_budget`` — ids of recalled records, constraints and standing instructions
      left out of this turn's prompt for a token budget (load_memory, compact_if_needed); a
      constraint listed here is not re-asserted this turn, outputs are still checked on it.
      ``violations`` — constraint violations left after generation (generate).
      ``saved_message_ids`` — human message ids already processed by save_memory.
      ``memory_writes`` — what save_memory did on the last turn (decisions with reasons).
      ``compactions`` — how many times compact_if_needed compacted this thread.
    """

    messages: Annotated[list[AnyMessage], add_messages]
    task_id: str | None
    goal: str | None
    plan: list[str]
    constraints: list[Constraint]
    ledger: list[str]
    recalled: list[RecalledMemory]
    procedural: list[RecalledMemory]
    memory_block: str
    missing_constraints: list[str]
    dropped_for_budget: list[str]
    violations: list[dict[str, Any]]
    saved_message_ids: list[str]
    memory_writes: list[dict[str, Any]]
    compactions: int


@dataclass(frozen=True)
class MemoryContext:
    """Run context (``context_schema``) of a memory-enabled graph.

    ``user_id`` is required. ``project_id`` and ``acl`` narrow the scope (a bare string
    ``acl`` is one label; see
    :class:`~langgraph_memory.core.scope.Scope`). The rest tune the nodes for this run:

    * ``system_prompt`` — overrides the generate node's system prompt.
    * ``recall_k`` — records recalled per turn (3..5 recommended; 1..20 allowed).
    * ``memory_budget_tokens`` — cap on the rendered memory block without the conversation
      part (facts, constraints, procedural memory, task).
    * ``conversation_budget_tokens`` — cap on the "relevant past conversation" part.
    * ``context_budget_tokens`` — message-history budget for compact_if_needed.
    * ``task_id`` — default task when the state has none.
    * ``confirmed`` — the user confirmed project-scope writes this run (write gate).
    * ``save`` — set False to run without writing memory (e.g. an evaluation replay).
    """

    user_id: str
    project_id: str | None = None
    acl: tuple[str, ...] = field(default=())
    system_prompt: str | None = None
    recall_k: int = 5
    memory_budget_tokens: int = 1200
    conversation_budget_tokens: int = 1000
    context_budget_tokens: int = 16000
    task_id: str | None = None
    confirmed: bool = False
    save: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "acl", acl_labels(self.acl))
        Scope(user_id=self.user_id, project_id=self.project_id, acl=self.acl)
        if not 1 <= int(self.recall_k) <= 20:
            raise ConfigError(f"recall_k must be in 1..20, got {self.recall_k!r}")
        if self.memory_budget_tokens < 64 or self.context_budget_tokens < 256:
            raise ConfigError("memory_budget_tokens must be >= 64 and context_budget_tokens >= 256")
        if self.conversation_budget_tokens < 0:
            raise ConfigError("conversation_budget_tokens must be >= 0 (0: no excerpts)")

    @property
    def scope(self) -> Scope:
        """The tenant scope of this run."""
        return Scope(user_id=self.user_id, project_id=self.project_id, acl=self.acl)


_CONTEXT_FIELDS = {f.name for f in fields(MemoryContext)}


def require_context(context: object) -> MemoryContext:
    """Coerce a run context into a :class:`MemoryContext`, failing closed.

    Accepts a :class:`MemoryContext`, a mapping with ``user_id`` (extra keys ignored) or any
    object with a ``user_id`` attribute (and optionally the other fields). ``None`` or a
    missing/empty ``user_id`` raises :class:`ScopeError` naming ``user_id``.
    """
    if isinstance(context, MemoryContext):
        return context
    hint = (
        "pass context=MemoryContext(user_id=...) to graph.invoke/ainvoke/stream; memory is "
        "never read or written without a user_id"
    )
    if context is None:
        raise ScopeError(f"no run context: user_id is required ({hint})")
    if isinstance(context, Mapping):
        values = {k: v for k, v in context.items() if k in _CONTEXT_FIELDS}
    else:
        values = {
            name: getattr(context, name) for name in _CONTEXT_FIELDS if hasattr(context, name)
        }
    user_id = values.get("user_id")
    if not isinstance(user_id, str) or not user_id.strip():
        raise ScopeError(f"the run context has no user_id ({hint})")
    if values.get("acl") is None:
        values.pop("acl", None)
    return MemoryContext(**values)


__all__ = ["AgentState", "MemoryContext", "RecalledMemory", "require_context"]
