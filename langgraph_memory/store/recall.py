"""The read path: one hybrid recall, candidates -> fuse -> rerank (engine reads only).

:func:`search` checks the query, builds the recall filter (tenant, validity, caller
filters, internal records out), draws dense and keyword candidates
(:mod:`~langgraph_memory.store.candidates`), fuses and reranks them
(:func:`~langgraph_memory.store.fusion.rank`) and logs one ``recall`` line. If the embedder
or the engine fails, it degrades to keyword recall and says so instead of raising.
:func:`explain` says why one record is (not) recalled. :class:`~langgraph_memory.store.
memory_store.MemoryStore` calls both (``search`` / ``explain``) after its open check.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import numpy as np

from ..core.logsafe import error_kind, get_logger
from ..core.records import MAX_TEXT_CHARS, MemoryRecord, coerce_time
from ..core.scope import Scope
from ..errors import ConfigError, RecordValidationError
from ._common import Candidate, check_where
from .candidates import (
    RecallSources,
    confirm,
    dense_candidates,
    engine_candidates,
    fetch_payloads,
    keyword_candidates,
    other_side_scores,
)
from .filters import Cond, Not, recall_filter
from .fusion import PayloadFetch, rank
from .results import FILTER_REASONS, RecallExplanation, RecallResult

log = get_logger("store")
recall_log = get_logger("recall")

MODES = ("hybrid", "dense", "keyword")
"""The recall modes :func:`search` accepts."""


def clean_query(query: object) -> str:
    """A search query as safe text: control characters dropped; wrong types, lone surrogates
    and oversized queries refused with :class:`RecordValidationError`."""
    if not isinstance(query, str):
        raise RecordValidationError(f"query must be a string, got {type(query).__name__}")
    if len(query) > MAX_TEXT_CHARS:
        raise RecordValidationError(
            f"query has {len(query)} characters, more than {MAX_TEXT_CHARS}; search with a "
            "shorter query (e.g. the latest user turn)"
        )
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in query):
        raise RecordValidationError("query contains lone surrogate code points")
    return "".join(ch for ch in query if ch in "\n\t" or not (ord(ch) < 32 or ord(ch) == 127))


def _field_of(cond: Cond) -> str:
    """The payload field a failed recall condition tests (a negation: its child's)."""
    inner = cond.child if isinstance(cond, Not) else cond
    return str(getattr(inner, "key", type(cond).__name__))


def search(
    src: RecallSources,
    query: str,
    sc: Scope,
    k: int | None,
    filters: Mapping[str, Any] | None,
    as_of: datetime | date | str | None,
    *,
    mode: str,
    where: Cond | None,
    all_projects: bool,
) -> RecallResult:
    """Hybrid recall of at most ``k`` records ``sc`` may see, best first (the arguments of
    :meth:`~langgraph_memory.store.memory_store.MemoryStore.search`)."""
    started = time.perf_counter()
    query = clean_query(query)
    if mode not in MODES:
        raise ConfigError(f"mode must be hybrid, dense or keyword, got {mode!r}")
    cfg = src.config
    k = cfg.k if k is None else k
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 1000:
        raise ConfigError(f"k must be an integer in 1..1000, got {k!r}")
    when = coerce_time(as_of, "as_of") if as_of is not None else None
    cond = recall_filter(
        sc,
        as_of=when,
        filters=filters,
        all_projects=all_projects,
        extra=() if where is None else (check_where(where),),
    )
    n_candidates = max(cfg.candidates, 4 * k)
    degraded: list[str] = []
    dense: list[Candidate] = []
    keyword: list[Candidate] = []
    if not query.strip():
        return RecallResult(mode=mode, elapsed_ms=(time.perf_counter() - started) * 1e3)

    vector: np.ndarray | None = None
    backend = src.backend
    in_engine = backend.keyword_in_engine
    if mode in {"hybrid", "dense"}:
        try:
            vector = src.embed([query])[0]
            if not in_engine:
                dense = dense_candidates(src, sc.user_id, vector, cond, n_candidates)
        except Exception as exc:  # degrade to keyword recall, never crash the graph
            degraded.append(f"dense recall failed ({type(exc).__name__}: {exc})")
            log.warning(
                "dense recall unavailable, using BM25 only",
                extra={"event": "degraded", "user_id": sc.user_id, "error": error_kind(exc)},
            )
    want_keyword = mode in {"keyword", "hybrid"} or (mode == "dense" and bool(degraded))
    dense_extra: dict[str, float] = {}
    keyword_extra: dict[str, float] = {}
    fetch: PayloadFetch | None = None
    if in_engine:
        fetch = functools.partial(fetch_payloads, backend)
        dense, keyword, dense_extra, keyword_extra = engine_candidates(
            src, sc.user_id, query, vector, cond, n_candidates, want_keyword, degraded
        )
    elif want_keyword:
        try:
            keyword = keyword_candidates(src, sc.user_id, query, n_candidates, cond)
            if keyword and backend.shared_writers:
                keyword = confirm(backend, keyword, cond)
        except Exception as exc:
            degraded.append(f"keyword recall failed ({type(exc).__name__}: {exc})")
            log.error(
                "keyword recall failed",
                extra={"event": "degraded", "user_id": sc.user_id, "error": error_kind(exc)},
            )
    if not in_engine and cfg.fusion == "union" and dense and keyword and vector is not None:
        try:
            dense_extra, keyword_extra = other_side_scores(
                src, sc.user_id, query, vector, cond, dense, keyword
            )
        except Exception as exc:  # fusion then scores as "weighted" would: never crash
            log.warning(
                "union scoring failed, fusing the two lists as they are",
                extra={"event": "degraded", "user_id": sc.user_id, "error": error_kind(exc)},
            )
    hits = rank(dense, keyword, k, cfg, dense_extra, keyword_extra, now=when, fetch=fetch)
    elapsed = (time.perf_counter() - started) * 1e3
    result = RecallResult(
        hits=hits,
        degraded=bool(degraded),
        degraded_reason="; ".join(degraded) or None,
        mode=mode if not degraded else ("keyword" if keyword or not dense else mode),
        elapsed_ms=elapsed,
    )
    recall_log.info(
        "recall for user %s: %d of k=%d hit(s) (%d dense, %d keyword candidates)%s in %.1f ms",
        sc.user_id,
        len(result.hits),
        k,
        len(dense),
        len(keyword),
        f", degraded ({'; '.join(degraded)})" if degraded else "",
        elapsed,
        extra={
            "event": "recall",
            "user_id": sc.user_id,
            "project_id": sc.project_id,
            "k": k,
            "ids": result.ids,
            "degraded": result.degraded,
            "ms": round(elapsed, 2),
        },
    )
    return result


def explain(
    src: RecallSources,
    query: str,
    record_id: str,
    payload: Mapping[str, Any] | None,
    sc: Scope,
    *,
    k: int | None,
    filters: Mapping[str, Any] | None,
    as_of: datetime | date | str | None,
) -> RecallExplanation:
    """Why ``record_id`` (whose stored ``payload`` ``sc`` can see; ``None``: it cannot) is
    (not) among the top ``k`` of :func:`search` (the arguments of
    :meth:`~langgraph_memory.store.memory_store.MemoryStore.explain`)."""
    cfg = src.config
    k = cfg.k if k is None else k
    if payload is None:
        return RecallExplanation(
            record_id=record_id,
            recalled=False,
            k=k,
            reason=f"no record {record_id} is visible to user {sc.user_id!r} "
            "(missing, or outside the scope: another user, project or ACL)",
        )
    record = MemoryRecord.from_payload(dict(payload))
    when = coerce_time(as_of, "as_of") if as_of is not None else None
    cond = recall_filter(sc, as_of=when, filters=filters)
    failed = [c for c in cond.children if not c.matches(payload)]
    if failed:
        fields = [_field_of(c) for c in failed]
        values = record.model_dump(mode="json")
        reasons = [
            FILTER_REASONS[f].format(**values) if f in FILTER_REASONS else f"filter on {f}"
            for f in fields
        ]
        return RecallExplanation(
            record_id=record.id,
            recalled=False,
            k=k,
            filtered_by=fields,
            reason="filtered out before ranking: " + "; ".join(reasons),
        )
    limit = min(1000, max(cfg.candidates, 4 * k))
    result = search(
        src, query, sc, limit, filters, as_of, mode="hybrid", where=None, all_projects=False
    )
    ids = result.ids
    if record.id not in ids:
        return RecallExplanation(
            record_id=record.id,
            recalled=False,
            k=k,
            candidates=len(ids),
            reason=f"not a candidate: neither the dense nor the keyword retriever put it "
            f"among their top {limit} for this query",
        )
    rank_ = ids.index(record.id) + 1
    hit = result.hits[rank_ - 1]
    scores = (
        f"dense rank {hit.explanation.dense_rank}, keyword rank "
        f"{hit.explanation.keyword_rank}, final score {hit.explanation.final:.3f}"
    )
    return RecallExplanation(
        record_id=record.id,
        recalled=rank_ <= k,
        k=k,
        rank=rank_,
        candidates=len(ids),
        explanation=hit.explanation,
        reason=(
            f"recalled at rank {rank_} of k={k} ({scores})"
            if rank_ <= k
            else f"ranked {rank_}, below k={k} ({scores}; the k-th scored "
            f"{result.hits[k - 1].explanation.final:.3f})"
        ),
    )


__all__ = ["MODES", "clean_query", "explain", "search"]
