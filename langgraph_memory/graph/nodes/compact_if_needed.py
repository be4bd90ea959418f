"""The ``compact_if_needed`` node: keep the prompt under the context budget, memory block
included (trim it first when memory outgrows the budget), then compact the history."""

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from ...context.compaction import CompactionConfig, compact_messages
from ...context.compaction.summarizers import SummarizerLike
from ...context.handles import HandleStore
from ...context.tokens import CounterLike, as_token_counter
from ...errors import ConfigError
from ...read.budget import BlockFit, block_ids, fit_block, trim_order
from ...read.constraints import active_constraints, coerce_constraints
from ...read.prompt import DEFAULT_SYSTEM_PROMPT, system_text
from ..runtime import NodeRuntime, emit, provenance, run_context
from ..state import MemoryContext
from .base import MemoryNode

HISTORY_RATIO_ERROR = "min_history_ratio must be in [0, 1), got {value!r}"
FIXED_RESERVE_ERROR = (
    "budget_tokens ({budget}) must exceed the system prompt ({prompt} tokens) plus "
    "reserve_tokens ({reserve}): raise the budget, or shorten the system prompt"
)
TRIM_REASON = (
    "the memory block would have left the conversation less than {room} of the "
    "{budget}-token context budget"
)
TRIM_MESSAGE = (
    "trimmed the memory block to fit the context budget: system text {before} -> {after} "
    "tokens (limit {limit}), dropped {ids}; {reason}"
)
CONSTRAINTS_TRIMMED_WARNING = (
    "the constraints and standing instructions alone exceed what the context budget leaves "
    "next to the latest user message: only the ones that fit are in the prompt (the others "
    "are still checked on the output); raise the budget or shorten them"
)
HISTORY_FLOOR_TOKENS = 96
"""Tokens of history, besides the latest user message, that constraints never take (room
for the compaction summary and the kept tail)."""
BLOCK_TOO_LARGE_WARNING = (
    "the memory block still exceeds its share of the context budget with every recalled "
    "line and constraint dropped (the task's goal, plan and ledger, and lines without a "
    "record id, are never dropped); the conversation is compacted into what is left"
)


class CompactIfNeeded(MemoryNode):
    """Keep the prompt under the token budget: trim the memory block if it has to, then
    compact the message history (the context helper's compaction).

    Inputs (state): ``messages``, ``memory_block``, ``constraints``, ``procedural``,
    ``recalled``, ``dropped_for_budget``. Outputs (state update): ``messages`` (a full
    replacement through the ``add_messages`` reducer, only when compaction changed something)
    and ``compactions``; when it trims the memory block, also ``memory_block``, ``recalled``
    (without the trimmed facts and excerpts) and ``dropped_for_budget`` (the trimmed ids
    added).

    The budget is ``budget_tokens`` or the context's ``context_budget_tokens``. The whole
    system text the generate node will send (system prompt + memory block + re-asserted
    constraints, see :func:`~langgraph_memory.read.prompt.system_text`) is reserved from it,
    so the prompt as sent fits the budget whenever that is possible. Pass the same
    ``system_prompt`` as to the generate node.

    Memory grows over a conversation; a budget that fits at turn 1 must not fail at turn N.
    The history is given the room it needs to stay under the compaction trigger, up to
    ``min_history_ratio`` of what the system prompt and ``config.reserve_tokens`` leave; when
    the memory block would take more, lines are dropped from it: lowest-scored conversation
    excerpts, then lowest-scored facts. Constraints and standing instructions may take that
    room, down to the latest user message plus :data:`HISTORY_FLOOR_TOKENS`; only when they
    alone do not fit even then are they dropped, keeping as many as fit (see
    :mod:`langgraph_memory.read.budget`).
    Each trim is logged and streamed as a ``memory_trimmed`` event (a warning when a
    constraint was dropped or the block still does not fit); a dropped constraint is not
    re-asserted this turn but outputs are still checked against it. Growing memory never
    makes this node raise. A budget not above the system prompt plus
    ``config.reserve_tokens`` is a configuration error
    (:class:`~langgraph_memory.errors.ConfigError`): raised by the constructor when the budget
    is given, else by the run (on every run alike, whatever the memory holds).

    Tool calls are never separated from their results; typed state fields are never compacted.

    Async path: there is no async compaction; the async path runs the sync one in a worker
    thread (a summarizer that calls a model is called synchronously there).

    Example::

        compact = CompactIfNeeded(8000, system_prompt=SYSTEM, handle_store=handles)
        builder.add_node("compact_if_needed", compact)
        builder.add_edge("constraint_assert", "compact_if_needed")
        builder.add_edge("tools", "compact_if_needed")   # long tool loops stay under budget
    """

    default_name = "compact_if_needed"

    def __init__(
        self,
        budget_tokens: int | None = None,
        *,
        config: CompactionConfig | None = None,
        counter: CounterLike = None,
        summarizer: SummarizerLike = None,
        handle_store: HandleStore | None = None,
        system_prompt: str | None = None,
        min_history_ratio: float = 0.5,
        name: str | None = None,
    ) -> None:
        if not 0 <= min_history_ratio < 1:
            raise ConfigError(HISTORY_RATIO_ERROR.format(value=min_history_ratio))
        self.budget_tokens = budget_tokens
        self.system_prompt = system_prompt or DEFAULT_SYSTEM_PROMPT
        self.config = config or CompactionConfig()
        self.counter = as_token_counter(counter)
        self.summarizer = summarizer
        self.handle_store = handle_store
        self.min_history_ratio = min_history_ratio
        if budget_tokens is not None:
            self._room(int(budget_tokens), self.system_prompt)
        super().__init__(name=name)

    def _system_tokens(self, text: str) -> int:
        """Tokens of ``text`` sent as the system message (message overhead included)."""
        return self.counter.count_messages([SystemMessage(content=text)])

    def _room(self, budget: int, prompt: str) -> int:
        """Tokens the budget leaves after the system prompt and ``reserve_tokens`` (> 0),
        else :class:`ConfigError`: that part of the prompt is fixed by the configuration."""
        prompt_tokens = self._system_tokens(prompt)
        room = budget - prompt_tokens - int(self.config.reserve_tokens)
        if room <= 0:
            raise ConfigError(
                FIXED_RESERVE_ERROR.format(
                    budget=budget, prompt=prompt_tokens, reserve=self.config.reserve_tokens
                )
            )
        return room

    def _history_room(self, room: int, messages: Sequence[BaseMessage]) -> int:
        """Tokens kept for the history: what it needs to stay under the compaction trigger,
        at most ``min_history_ratio`` of ``room``."""
        needed = math.ceil(self.counter.count_messages(messages) / self.config.trigger_ratio)
        return min(needed, math.ceil(self.min_history_ratio * room))

    def _rules_room(self, history_room: int, messages: Sequence[BaseMessage]) -> int:
        """Tokens of history constraints may not take: the latest user message (compaction
        keeps it) plus :data:`HISTORY_FLOOR_TOKENS`, at most ``history_room``."""
        latest = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        pinned = self.counter.count_messages([latest]) if latest is not None else 0
        return min(history_room, pinned + HISTORY_FLOOR_TOKENS)

    def _fit(self, state: Mapping[str, Any], prompt: str, limits: tuple[int, int]) -> BlockFit:
        """Trim the memory block until the system text is at most ``limits[0]`` tokens
        (recalled lines) or ``limits[1]`` (constraints, see :func:`fit_block`)."""
        block = state.get("memory_block") or ""
        left_out = list(state.get("dropped_for_budget") or [])

        def size(candidate: str, dropped: Sequence[str]) -> int:
            left = [*left_out, *dropped]
            trial = {**state, "memory_block": candidate, "dropped_for_budget": left}
            return self._system_tokens(system_text(prompt, trial, emit=False)[0])

        present = block_ids(block) | {c.id for c in active_constraints(state)}
        order = trim_order(
            state.get("recalled") or [],
            state.get("procedural") or [],
            [c.id for c in coerce_constraints(state.get("constraints"))],
            present=present - set(left_out),
        )
        return fit_block(block, order, size, limits[0], rules_limit=limits[1])

    def _trimmed(
        self,
        state: Mapping[str, Any],
        runtime: NodeRuntime,
        ctx: MemoryContext,
        fit: BlockFit,
        limits: tuple[int, int, int, int],
    ) -> dict[str, Any]:
        """The state update for a trimmed block (``{}`` when nothing was dropped), and its
        ``memory_trimmed`` event. ``limits``: ``(budget, history room, system text limit,
        system text limit for constraints)``."""
        if not fit.dropped and fit.fits:
            return {}
        budget, history_room, limit, rules_limit = limits
        ids = [d.id for d in fit.dropped]
        warnings = [CONSTRAINTS_TRIMMED_WARNING] if fit.dropped_constraints else []
        if not fit.fits:
            warnings.append(BLOCK_TOO_LARGE_WARNING)
        reason = "; ".join([TRIM_REASON.format(room=history_room, budget=budget), *warnings])
        emit(
            runtime,
            "memory_trimmed",
            {
                "user_id": ctx.user_id,
                "budget_tokens": budget,
                "history_room_tokens": history_room,
                "system_limit_tokens": limit,
                "constraints_limit_tokens": rules_limit,
                "system_tokens_before": fit.tokens_before,
                "system_tokens_after": fit.tokens_after,
                "fits": fit.fits,
                "dropped": [d.as_dict() for d in fit.dropped],
                "dropped_constraint_ids": [d.id for d in fit.dropped_constraints],
                "reason": reason,
            },
            logging.WARNING if warnings else logging.INFO,
            TRIM_MESSAGE.format(
                before=fit.tokens_before,
                after=fit.tokens_after,
                limit=limit,
                ids=", ".join(ids) or "nothing",
                reason=reason,
            ),
        )
        if not ids:
            return {}
        gone = {d.id for d in fit.dropped if d.part != "constraints"}
        recalled = [r for r in state.get("recalled") or [] if r.get("id") not in gone]
        left_out = list(state.get("dropped_for_budget") or [])
        return {
            "memory_block": fit.block,
            "recalled": recalled,
            "dropped_for_budget": left_out + [i for i in ids if i not in left_out],
        }

    def _run(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        ctx = run_context(runtime)
        messages = list(state.get("messages") or [])
        if not messages:
            return {}
        budget = int(self.budget_tokens or ctx.context_budget_tokens)
        prompt = ctx.system_prompt or self.system_prompt
        room = self._room(budget, prompt)
        history_room = self._history_room(room, messages)
        top = budget - int(self.config.reserve_tokens)
        limit, rules_limit = top - history_room, top - self._rules_room(history_room, messages)
        fit = self._fit(state, prompt, (limit, rules_limit))
        out = self._trimmed(state, runtime, ctx, fit, (budget, history_room, limit, rules_limit))
        # never above budget - 1: the history is then compacted as far as it goes and the
        # compaction event says it does not fit, instead of a ConfigError mid-conversation
        reserve = min(fit.tokens_after + int(self.config.reserve_tokens), budget - 1)
        cfg = self.config.model_copy(update={"reserve_tokens": reserve})
        thread_id, checkpoint_id = provenance(runtime)
        result = compact_messages(
            messages,
            budget_tokens=budget,
            config=cfg,
            counter=self.counter,
            summarizer=self.summarizer,
            handle_store=self.handle_store,
            scope=ctx.scope if self.handle_store is not None else None,
            source_ref={"thread_id": thread_id, "checkpoint_id": checkpoint_id},
        )
        if result.changed:
            # compact_messages already logged and streamed the compaction event
            out["messages"] = result.update
            out["compactions"] = int(state.get("compactions") or 0) + 1
        return out


__all__ = [
    "BLOCK_TOO_LARGE_WARNING",
    "CONSTRAINTS_TRIMMED_WARNING",
    "FIXED_RESERVE_ERROR",
    "HISTORY_FLOOR_TOKENS",
    "HISTORY_RATIO_ERROR",
    "TRIM_MESSAGE",
    "TRIM_REASON",
    "CompactIfNeeded",
]
