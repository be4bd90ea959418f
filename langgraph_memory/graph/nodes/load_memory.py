"""The ``load_memory`` node: recall for this turn (facts, task episodes, conversation
excerpts, procedural memory, always-injected constraints) and render the memory block."""

import asyncio
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from ...context.tokens import CounterLike, as_token_counter
from ...core.logsafe import get_logger, scrub_text
from ...core.records import Kind, Layer, MemoryRecord
from ...core.scope import Scope
from ...errors import ConfigError, RecordNotFound
from ...read.conversation import (
    MAX_FREE_TEXT_FACTS,
    Excerpt,
    NeighbourReads,
    Thread,
    echoes_a_fact,
    expand_neighbours,
    follow_changes,
    is_conversation,
    render_conversation,
    represented_by_episodes,
    restated_episode,
    select_hits,
    thread_neighbours,
)
from ...read.guard import RECALL_LAYERS, quote, reject_reason
from ...read.query import build_query, turn_said_at
from ...read.render import render_memory_block
from ...store import MemoryStore, SearchHit
from ...store.filters import And, Cond, Eq, In, Or
from ..runtime import NodeRuntime, emit, provenance, resolve_store, run_context
from ..state import MemoryContext, RecalledMemory
from ..tracing import RECALL_RUN, atraced, recall_summary, traced
from .base import MemoryNode

log = get_logger("graph")

_MAX_ALWAYS_CONSTRAINTS = 20
_MAX_PROCEDURAL = 50
USE_MARK_FAILED = "could not mark recalled memories as used"
OUT_OF_RANGE = "{name} must be {range}, got {value!r}"


def _as_recalled(record: MemoryRecord, hit: SearchHit | None) -> RecalledMemory:
    item: RecalledMemory = {
        "id": record.id,
        "text": record.text,
        "kind": record.kind.value,
        "layer": record.layer.value,
        "subject": record.subject,
        "predicate": record.predicate,
        "object": record.object,
        "confidence": record.confidence,
        "importance": record.importance,
        "task_id": record.task_id,
        "score": float(hit.score) if hit is not None else 1.0,
        "explanation": hit.explanation.model_dump() if hit is not None else {"reason": "always"},
    }
    checker = (record.metadata or {}).get("checker")
    if isinstance(checker, dict):
        item["checker"] = checker
    if is_conversation(record):
        item["part"] = "conversation"
        item["said_at"] = record.created_at.isoformat()
        item["role"] = "assistant" if record.predicate == "replied" else "user"
        item["thread_id"] = record.evidence.thread_id
    else:
        item["part"] = "facts"
    return item


def _current(store: MemoryStore, ids: Sequence[str], scope: Scope) -> dict[str, MemoryRecord]:
    """Those of ``ids`` that are current records ``scope`` can see, by id."""
    return {r.id: r for r in store.get_many(list(ids), scope=scope) if r.is_current()}


def always_injected(record: MemoryRecord) -> bool:
    """True for a constraint that goes into every prompt: one a rule extracted or the user
    made explicit ("from now on…", "记住…"). A constraint only the clause classifier read into
    a clause without such a marker is a guess: it is recalled when relevant, like a fact, and
    never takes a place in every prompt."""
    meta = record.metadata or {}
    return not (meta.get("extractor") == "classifier" and not meta.get("explicit"))


class ListedOnUse(Mapping[str, Thread]):
    """The episodes of each thread in ``subjects``, read (``listing(subject)``) the first
    time a thread is asked for: recall fills its neighbour slots from the first hits'
    threads, and listing every thread a hit came from read the payloads of whole threads
    that were never consulted. The same threads as reading them all at once. Recall reads
    each thread around its hits (:func:`~langgraph_memory.read.conversation.
    thread_neighbours`), not as a whole listing."""

    def __init__(self, subjects: Sequence[str], listing: Callable[[str], Thread]) -> None:
        self._subjects = list(subjects)
        self._listing = listing
        self._listed: dict[str, Thread] = {}

    def __getitem__(self, subject: str) -> Thread:
        if subject not in self._subjects:
            raise KeyError(subject)
        found = self._listed.get(subject)
        if found is None:
            found = self._listed[subject] = self._listing(subject)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._subjects)

    def __len__(self) -> int:
        return len(self._subjects)

    @property
    def listed(self) -> list[str]:
        """The subjects listed so far."""
        return list(self._listed)


class LoadMemory(MemoryNode):
    """Recall memory for this turn and render the memory block.

    Inputs (state): ``messages`` (latest human turn), ``goal``, ``task_id``, ``plan``,
    ``ledger``, ``constraints``. Outputs (state update): ``recalled`` (every recalled record
    that reached the memory block, with ids, scores, explanations and ``part``: ``"facts"``
    or ``"conversation"``), ``procedural`` (procedural records, injected in full),
    ``memory_block``, ``dropped_for_budget`` (ids left out for ``memory_budget_tokens`` /
    ``conversation_budget_tokens``; compact_if_needed adds what it trims for the context
    budget).

    Recall runs inside the run's scope (``user_id``/``project_id``/``acl`` from the context).
    One hybrid search ranks facts (semantic layer), task episodes and conversation episodes
    together, so each gets the ``k`` slots it earns; a fact that matches the query is never
    displaced by episodes (up to ``min_facts`` are kept, see
    :func:`~langgraph_memory.read.conversation.select_hits`); only the
    ``max_free_text_facts`` best free-text facts (the user's own clauses, ``note`` /
    ``prefers`` / ``likes``, whose turns are kept as episodes) compete for the slots
    (:data:`~langgraph_memory.read.conversation.MAX_FREE_TEXT_FACTS`; ``None``: no cap;
    structured facts and constraints are never capped); ``neighbour_slots`` of the ``k``
    slots go to the turns adjacent to the conversation hits in their thread; the always-injected
    constraints (standing rules, like procedural memory) never take one of the ``k`` slots:
    ``k`` is what recall ranks, the rules come on top. Facts are rendered first under "Known
    constraints & facts" (budget ``memory_budget_tokens``), then "Relevant past conversation" as
    dated, quoted excerpts (own budget, ``conversation_budget_tokens``). With a task set, task
    episodes are recalled only within it; what the user said is recalled across tasks and
    threads. Procedural memory is never retrieved by similarity, it is listed and injected in
    full; current records of kind ``constraint`` are always injected (up to 20; see
    :func:`always_injected`: not those only the clause classifier guessed). Each recalled
    record is checked again before injection (scope, status, supersession, validity window,
    expiry, layer, task) and rejected with a logged reason if it fails. With ``touch_used``
    (default), the facts that reached the memory block are marked as used (``last_accessed_at``,
    ``access_count``; a stale record becomes active again), which restarts their decay: the
    uses are noted with :meth:`MemoryStore.record_use` and written in the background (coalesced,
    within ``MemoryConfig.use_flush_seconds``), so a turn does not pay for the bookkeeping; a
    failure to mark is logged, never raised. Each load is logged and streamed as
    ``memory_loaded`` (and ``recall_rejected`` when a record was refused).

    The procedural records and the always-injected constraints come from one listing (the
    same records, in the same order, as one listing each). While the node recalls, the store's
    background work (a :class:`~langgraph_memory.write.background.BackgroundWriter` processing
    an earlier turn, the use flusher) waits at the start of each store call, within a bounded
    budget (:mod:`~langgraph_memory.store.foreground`): the user waits for the recall, not for
    the bookkeeping.

    Async path: the searches and listings await the store's async API (the searches run
    concurrently); the look-up of restated episodes and the reads of neighbouring turns
    run the sync store calls in worker threads; rendering is inline.

    Neighbouring turns are read around each hit, not by listing its thread
    (:func:`~langgraph_memory.read.conversation.thread_neighbours`: a few records per hit
    where the thread's turns were said at distinct instants; every record of an instant the
    hit shares; one listing of the thread for a store whose payloads lack the ordering
    field): the same neighbours, in the same order, as the thread's listing gives.

    Example::

        load = LoadMemory(store, k=6)        # store=None: the graph's LangGraphMemoryStore
        builder.add_node("load_memory", load)
        builder.add_edge(START, "load_memory")
    """

    default_name = "load_memory"

    def __init__(
        self,
        store: MemoryStore | None = None,
        *,
        k: int | None = None,
        include_procedural: bool = True,
        always_include_constraints: bool = True,
        counter: CounterLike = None,
        touch_used: bool = True,
        min_facts: int = 2,
        neighbour_slots: int | None = None,
        max_free_text_facts: int | None = MAX_FREE_TEXT_FACTS,
        name: str | None = None,
    ) -> None:
        if max_free_text_facts is not None and not 0 <= max_free_text_facts <= 20:
            raise ConfigError(
                OUT_OF_RANGE.format(
                    name="max_free_text_facts", range="None or in 0..20", value=max_free_text_facts
                )
            )
        if k is not None and not 1 <= k <= 20:
            raise ConfigError(OUT_OF_RANGE.format(name="k", range="in 1..20", value=k))
        if not 0 <= min_facts <= 20:
            raise ConfigError(
                OUT_OF_RANGE.format(name="min_facts", range="in 0..20", value=min_facts)
            )
        if neighbour_slots is not None and not 0 <= neighbour_slots <= 20:
            raise ConfigError(
                OUT_OF_RANGE.format(name="neighbour_slots", range="in 0..20", value=neighbour_slots)
            )
        self.store = store
        self.k = k
        self.touch_used = touch_used
        self.include_procedural = include_procedural
        self.always_include_constraints = always_include_constraints
        self.min_facts = min_facts
        self.neighbour_slots = neighbour_slots
        self.max_free_text_facts = max_free_text_facts
        self.counter = as_token_counter(counter)
        super().__init__(name=name)

    def _plan(
        self, state: Mapping[str, Any], runtime: NodeRuntime
    ) -> tuple[MemoryContext, str, str | None, int]:
        ctx = run_context(runtime)
        task_id = state.get("task_id") or ctx.task_id
        return ctx, build_query(state), task_id, self.k or ctx.recall_k

    def _reserve(self, k: int) -> int:
        """Slots of ``k`` kept for neighbouring turns (default: a third)."""
        return k // 3 if self.neighbour_slots is None else min(self.neighbour_slots, k - 1)

    @staticmethod
    def _trace_inputs(
        ctx: MemoryContext, query: str, task_id: str | None, search: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "user_id": ctx.user_id,
            "project_id": ctx.project_id,
            "task_id": task_id,
            "query": query,
            "k": search["k"],
            "layers": search["filters"].get("layer"),
        }

    @staticmethod
    def _candidate_searches(query: str, task_id: str | None, k: int) -> list[dict[str, Any]]:
        """``(filters, k)`` of the similarity searches to run: one over facts and episodes
        together, plus the current task's episodes when there is a task."""
        if not query:
            return []
        searches: list[dict[str, Any]] = [
            {"filters": {"layer": list(RECALL_LAYERS)}, "k": max(3 * k, 20)}
        ]
        if task_id is not None:
            searches.append(
                {"filters": {"layer": Layer.EPISODIC.value, "task_id": task_id}, "k": k}
            )
        return searches

    def _select(
        self,
        hits: list[SearchHit],
        scope: Scope,
        task_id: str | None,
        k: int,
        shown_anyway: set[str],
        thread_id: str | None = None,
    ) -> tuple[list[SearchHit], list[dict[str, str]]]:
        """Scope-check, deduplicate and choose the hits that get one of the ``k`` slots; a
        record injected regardless of similarity (``shown_anyway``: the always-injected
        constraints) never takes a slot."""
        rejected: list[dict[str, str]] = []
        accepted: list[SearchHit] = []
        seen: set[str] = set(shown_anyway)
        for hit in sorted(hits, key=lambda h: -h.score):
            reason = reject_reason(
                hit.record, scope, task_id, layers=RECALL_LAYERS, thread_id=thread_id
            )
            if reason is not None:
                rejected.append({"id": hit.record.id, "reason": reason})
                continue
            if hit.record.id in seen:
                continue
            seen.add(hit.record.id)
            accepted.append(hit)
        chosen = select_hits(
            accepted,
            k,
            min_facts=self.min_facts,
            reserve=self._reserve(k),
            max_free_text=self.max_free_text_facts,
        )
        return chosen, rejected

    @staticmethod
    def _episode(store: MemoryStore, record_id: str, scope: Scope) -> MemoryRecord | None:
        """The record ``record_id`` of ``scope``, or None when it is gone (a turn that changed
        an excerpt: :func:`~langgraph_memory.read.conversation.follow_changes`)."""
        try:
            return store.get(record_id, scope=scope)
        except RecordNotFound:
            return None

    def _first_reads(
        self, store: MemoryStore, scope: Scope, chosen: list[SearchHit], k: int
    ) -> NeighbourReads:
        """The first neighbour reads of the hits whose neighbours fill the neighbour slots
        (the best ``reserve`` episode hits: each brings up to two), one engine call; a hit
        consulted beyond them reads its own."""
        episode_hits = [h for h in chosen if is_conversation(h.record)]
        return NeighbourReads(store, scope, episode_hits[: self._reserve(k)])

    @staticmethod
    def _threads_needed(chosen: list[SearchHit]) -> list[str]:
        subjects: list[str] = []
        for hit in chosen:
            subject = hit.record.subject or ""
            if is_conversation(hit.record) and subject not in subjects:
                subjects.append(subject)
        return subjects

    def _finish(
        self,
        store: MemoryStore,
        state: Mapping[str, Any],
        runtime: NodeRuntime,
        ctx: MemoryContext,
        task_id: str | None,
        k: int,
        chosen: list[SearchHit],
        rejected: list[dict[str, str]],
        threads: Mapping[str, Thread],
        procedural: list[MemoryRecord],
        constraints: list[MemoryRecord],
        degraded: str | None,
    ) -> dict[str, Any]:
        scope = ctx.scope
        thread_id = provenance(runtime)[0]
        facts = [_as_recalled(h.record, h) for h in chosen if not is_conversation(h.record)]
        seen = {f["id"] for f in facts}
        episode_hits = [h for h in chosen if is_conversation(h.record)]
        slots = len(episode_hits) + self._reserve(k)
        excerpts: list[Excerpt] = []
        chosen_facts = [h.record for h in chosen if not is_conversation(h.record)]
        shown = expand_neighbours(episode_hits, threads, slots)
        for excerpt in follow_changes(shown, partial(self._episode, store, scope=scope)):
            if echoes_a_fact(excerpt.record, chosen_facts):
                continue
            reason = reject_reason(
                excerpt.record, scope, task_id, layers=RECALL_LAYERS, thread_id=thread_id
            )
            if reason is None:
                excerpts.append(excerpt)
            else:
                rejected.append({"id": excerpt.record.id, "reason": reason})
        for record in constraints:
            if record.id in seen:
                continue
            reason = reject_reason(
                record, scope, task_id, layers=RECALL_LAYERS, thread_id=thread_id
            )
            if reason is not None:
                rejected.append({"id": record.id, "reason": reason})
                continue
            seen.add(record.id)
            facts.append(_as_recalled(record, None))
        proc: list[RecalledMemory] = []
        for record in procedural:
            reason = reject_reason(record, scope, None, layers=(Layer.PROCEDURAL.value,))
            if reason is not None:
                rejected.append({"id": record.id, "reason": reason})
                continue
            proc.append(_as_recalled(record, None))
        past, kept, dropped_past = render_conversation(
            excerpts,
            quote=quote,
            budget_tokens=ctx.conversation_budget_tokens,
            counter=self.counter,
        )
        block, dropped, clipped = render_memory_block(
            procedural=proc,
            recalled=facts,
            state=state,
            budget_tokens=ctx.memory_budget_tokens,
            counter=self.counter,
            conversation=past,
        )
        hit_by_id = {h.record.id: h for h in episode_hits}
        left_out = set(dropped)
        recalled = [
            {**f, "clipped": True} if f["id"] in clipped else f
            for f in facts
            if f["id"] not in left_out
        ]
        recalled.extend(
            _with_score(_as_recalled(e.record, hit_by_id.get(e.record.id)), e)
            for e in sorted(kept, key=lambda e: -e.score)
        )
        if rejected:
            reasons = sorted({r["reason"] for r in rejected})
            emit(
                runtime,
                "recall_rejected",
                {"user_id": ctx.user_id, "rejected": rejected},
                logging.WARNING,
                message=(
                    f"recall rejected {len(rejected)} record(s) for user {ctx.user_id} before "
                    f"injection: {', '.join(reasons)}"
                ),
            )
        n_facts = sum(1 for r in recalled if r.get("part") == "facts")
        n_excerpts = sum(1 for r in recalled if r.get("part") == "conversation")
        emit(
            runtime,
            "memory_loaded",
            {
                "user_id": ctx.user_id,
                "task_id": task_id,
                "recalled_ids": [r["id"] for r in recalled],
                "fact_ids": [r["id"] for r in recalled if r.get("part") == "facts"],
                "excerpt_ids": [r["id"] for r in recalled if r.get("part") == "conversation"],
                "procedural_ids": [p["id"] for p in proc],
                "dropped_for_budget": dropped + dropped_past,
                "degraded": scrub_text(degraded) if degraded else degraded,
            },
            message=(
                f"memory loaded for user {ctx.user_id}"
                + (f" (task {task_id})" if task_id else "")
                + f": {n_facts} fact(s), {n_excerpts} excerpt(s), {len(proc)} procedural, "
                f"{len(dropped) + len(dropped_past)} dropped for budget, "
                f"{len(rejected)} rejected"
                + (f"; recall degraded: {scrub_text(degraded)}" if degraded else "")
                + ("" if block else "; no memory block (nothing to show)")
            ),
        )
        return {
            "recalled": recalled,
            "procedural": proc,
            "memory_block": block,
            "dropped_for_budget": dropped + dropped_past,
        }

    @property
    def _standing_where(self) -> Cond | None:
        """What :meth:`_standing` needs, as one listing: procedural records and current
        constraints of the recall layers (the procedural layer is not one of them)."""
        parts: list[Cond] = []
        if self.include_procedural:
            parts.append(Eq("layer", Layer.PROCEDURAL.value))
        if self.always_include_constraints:
            parts.append(And((Eq("kind", Kind.CONSTRAINT.value), In("layer", RECALL_LAYERS))))
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def _standing(
        self, listed: Sequence[MemoryRecord]
    ) -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        """The procedural records (up to 50) and the always-injected constraints (of the 20
        newest current constraints) out of one listing, newest first: the same records, in
        the same order, as a listing of each (a listing is sorted by ``created_at``, stably
        over the engine's id order, so a part keeps its order within the whole)."""
        procedural = (
            [r for r in listed if r.layer is Layer.PROCEDURAL][:_MAX_PROCEDURAL]
            if self.include_procedural
            else []
        )
        rules = [r for r in listed if r.kind is Kind.CONSTRAINT and r.layer.value in RECALL_LAYERS]
        constraints = (
            [r for r in rules[:_MAX_ALWAYS_CONSTRAINTS] if always_injected(r)]
            if self.always_include_constraints
            else []
        )
        return procedural, constraints

    @staticmethod
    def _touched(out: Mapping[str, Any]) -> list[str]:
        """Ids to mark as used: the facts that reached the prompt (episodes are history;
        touching them would only cost a write per excerpt)."""
        return [r["id"] for r in out["recalled"] if r.get("part") != "conversation"]

    def _mark_used(
        self, store: MemoryStore, scope: Scope, state: Mapping[str, Any], out: Mapping[str, Any]
    ) -> None:
        """Note the uses of the facts that reached the prompt (``touch_used``): queued with
        :meth:`MemoryStore.record_use`, written in the background; a failure is logged."""
        touched = self._touched(out)
        if self.touch_used and touched:
            try:
                store.record_use(touched, scope, now=turn_said_at(state))
            except Exception:  # marking use is bookkeeping: never fail the turn for it
                log.warning(USE_MARK_FAILED, exc_info=True)

    def _run(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        store = resolve_store(self.store, runtime)
        with store.foreground.serving():  # background writes of this store wait meanwhile
            return self._recall(state, runtime, store)

    def _recall(
        self, state: Mapping[str, Any], runtime: NodeRuntime, store: MemoryStore
    ) -> dict[str, Any]:
        ctx, query, task_id, k = self._plan(state, runtime)
        scope = ctx.scope
        hits: list[SearchHit] = []
        degraded: list[str] = []
        for search in self._candidate_searches(query, task_id, k):
            result = traced(
                RECALL_RUN,
                self._trace_inputs(ctx, query, task_id, search),
                partial(store.search, query, scope, k=search["k"], filters=search["filters"]),
                recall_summary,
            )
            hits.extend(result.hits)
            if result.degraded:
                degraded.append(str(result.degraded_reason))
        where = self._standing_where
        procedural, constraints = self._standing(
            store.list(scope=scope, where=where) if where is not None else []
        )
        hits = represented_by_episodes(hits, lambda ids: _current(store, ids, scope))
        chosen, rejected = self._select(
            hits, scope, task_id, k, {r.id for r in constraints}, provenance(runtime)[0]
        )
        batch = self._first_reads(store, scope, chosen, k)
        threads = ListedOnUse(
            self._threads_needed(chosen), partial(thread_neighbours, store, scope, batch=batch)
        )
        out = self._finish(
            store,
            state,
            runtime,
            ctx,
            task_id,
            k,
            chosen,
            rejected,
            threads,
            procedural,
            constraints,
            "; ".join(degraded) or None,
        )
        self._mark_used(store, scope, state, out)
        return out

    async def _arun(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        store = resolve_store(self.store, runtime)
        with store.foreground.serving():
            return await self._arecall(state, runtime, store)

    async def _arecall(
        self, state: Mapping[str, Any], runtime: NodeRuntime, store: MemoryStore
    ) -> dict[str, Any]:
        ctx, query, task_id, k = self._plan(state, runtime)
        scope = ctx.scope
        searches = self._candidate_searches(query, task_id, k)
        results = await asyncio.gather(
            *(
                atraced(
                    RECALL_RUN,
                    self._trace_inputs(ctx, query, task_id, s),
                    partial(store.asearch, query, scope, k=s["k"], filters=s["filters"]),
                    recall_summary,
                )
                for s in searches
            )
        )
        hits = [h for r in results for h in r.hits]
        degraded = "; ".join(str(r.degraded_reason) for r in results if r.degraded) or None
        where = self._standing_where
        procedural, constraints = self._standing(
            await store.alist(scope=scope, where=where) if where is not None else []
        )
        links = sorted({e for h in hits if (e := restated_episode(h.record))})
        alive = await asyncio.to_thread(_current, store, links, scope) if links else {}
        hits = represented_by_episodes(hits, lambda ids: alive)
        chosen, rejected = self._select(
            hits, scope, task_id, k, {r.id for r in constraints}, provenance(runtime)[0]
        )
        batch = self._first_reads(store, scope, chosen, k)
        threads = {
            s: thread_neighbours(store, scope, s, batch=batch) for s in self._threads_needed(chosen)
        }
        episode_hits = [h for h in chosen if is_conversation(h.record)]
        # the reads rendering will make, made first in a worker thread (then remembered)
        await asyncio.to_thread(
            expand_neighbours, episode_hits, threads, len(episode_hits) + self._reserve(k)
        )
        out = self._finish(
            store,
            state,
            runtime,
            ctx,
            task_id,
            k,
            chosen,
            rejected,
            threads,
            procedural,
            constraints,
            degraded,
        )
        self._mark_used(store, scope, state, out)
        return out


def _with_score(item: RecalledMemory, excerpt: Excerpt) -> RecalledMemory:
    """A recalled excerpt carries the score it was ranked with (a neighbour: its hit's, a
    little lower) and, for a neighbour, the id of the hit it came with."""
    item["score"] = float(excerpt.score)
    if excerpt.anchor != excerpt.record.id:
        item["explanation"] = {"reason": "neighbour", "of": excerpt.anchor}
    return item


__all__ = ["OUT_OF_RANGE", "USE_MARK_FAILED", "LoadMemory", "always_injected"]
