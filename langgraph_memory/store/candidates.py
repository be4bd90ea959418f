"""Recall, step 1: the dense and keyword candidates of a query (engine reads only).

Each retriever returns :data:`~langgraph_memory.store._common.Candidate` tuples, best first.
On an engine with the keyword channel inside (:attr:`VectorBackend.keyword_in_engine`) both
lists come from one batched engine call (:func:`engine_candidates`); otherwise dense hits
come from the vector query and keyword hits from the user's in-memory BM25 index
(:func:`dense_candidates`, :func:`keyword_candidates`). For ``union`` fusion the other
side's score of every one-sided candidate is fetched too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.config import RecallConfig
from ..core.logsafe import error_kind, get_logger
from ._common import Candidate
from .backend import EngineQuery, ScoredPayload, VectorBackend
from .filters import And, Eq, HasId
from .keyword import KeywordIndex, query_weights

log = get_logger("store")


@dataclass(frozen=True, slots=True)
class RecallSources:
    """What one recall reads: the engine, the recall settings, the embedder and the users'
    keyword indexes (built by the store for each call, so a changed config is seen)."""

    backend: VectorBackend
    config: RecallConfig
    embed: Callable[[Sequence[str]], np.ndarray]
    keyword_index: Callable[[str], KeywordIndex]


Candidates = tuple[list[Candidate], list[Candidate], dict[str, float], dict[str, float]]
"""Dense and keyword candidates plus, for ``union`` fusion, the dense and keyword scores of
the candidates only the other list holds."""


def engine_candidates(
    src: RecallSources,
    user_id: str,
    query: str,
    vector: np.ndarray | None,
    cond: And,
    limit: int,
    want_keyword: bool,
    degraded: list[str],
) -> Candidates:
    """Dense and keyword candidates (ids and scores) from the engine in one batched call,
    then, for ``union`` fusion, the other side's score of every
    candidate one list lacks (a second batched call filtered to those ids only: they passed
    ``cond`` in the first call, and what a hit shows is read by id afterwards either way, so
    repeating ``cond`` there changed no score and cost ~1 ms at 200 candidates; a candidate
    sharing no term with the query scores 0 on the keyword side, as BM25's term part
    does). Keyword IDF is computed over ``user_id``'s points only. If the batch fails,
    the keyword query is retried alone and dense recall reported degraded (in
    ``degraded``); if that fails too, keyword recall is reported degraded as well."""
    sparse = query_weights(query) if want_keyword else ([], [])
    corpus = Eq("user_id", user_id)
    dense_q = None if vector is None else EngineQuery(cond, limit, dense=vector, payload=False)
    sparse_q = (
        EngineQuery(cond, limit, sparse=sparse, idf_corpus=corpus, payload=False)
        if sparse[0]
        else None
    )

    def run(*queries: EngineQuery | None) -> list[list[Candidate]]:
        wanted = [q for q in queries if q is not None]
        answers: Iterator[list[ScoredPayload]] = iter(src.backend.query_many(wanted))
        return [
            [] if q is None else [(h.id, h.score, h.payload) for h in next(answers)]
            for q in queries
        ]

    try:
        dense, keyword = run(dense_q, sparse_q)
    except Exception as exc:
        if dense_q is None or sparse_q is None:
            side = "dense" if sparse_q is None else "keyword"
            degraded.append(f"{side} recall failed ({type(exc).__name__}: {exc})")
            log.error(
                "%s recall failed",
                side,
                extra={"event": "degraded", "user_id": user_id, "error": error_kind(exc)},
            )
            return [], [], {}, {}
        degraded.append(f"dense recall failed ({type(exc).__name__}: {exc})")
        log.warning(
            "dense recall unavailable, using BM25 only",
            extra={"event": "degraded", "user_id": user_id, "error": error_kind(exc)},
        )
        return engine_candidates(src, user_id, query, None, cond, limit, True, degraded)
    dense_extra: dict[str, float] = {}
    keyword_extra: dict[str, float] = {}
    if src.config.fusion == "union" and dense and keyword and vector is not None:
        dense_ids = {doc_id for doc_id, _, _ in dense}
        kw_ids = {doc_id for doc_id, _, _ in keyword}
        only_kw = tuple(sorted(kw_ids - dense_ids))
        only_dense = tuple(sorted(dense_ids - kw_ids))
        try:
            extra_dense, extra_kw = run(
                EngineQuery(
                    And((HasId(only_kw),)),
                    len(only_kw),
                    dense=vector,
                    payload=False,
                )
                if only_kw
                else None,
                EngineQuery(
                    And((HasId(only_dense),)),
                    len(only_dense),
                    sparse=sparse,
                    idf_corpus=corpus,
                    payload=False,
                )
                if only_dense
                else None,
            )
        except Exception as exc:  # fusion then scores as "weighted" would: never crash
            log.warning(
                "union scoring failed, fusing the two lists as they are",
                extra={"event": "degraded", "user_id": user_id, "error": error_kind(exc)},
            )
        else:
            dense_extra = {doc_id: score for doc_id, score, _ in extra_dense}
            keyword_extra = dict.fromkeys(only_dense, 0.0)
            keyword_extra.update({doc_id: score for doc_id, score, _ in extra_kw})
    return dense, keyword, dense_extra, keyword_extra


def fetch_payloads(backend: VectorBackend, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Whole payloads of the points among ``ids`` that still exist."""
    return {str(p["id"]): p for p in backend.retrieve(list(ids))}


def dense_candidates(
    src: RecallSources, user_id: str, vector: np.ndarray, cond: And, limit: int
) -> list[Candidate]:
    """Dense candidates ``(id, cosine, payload)``, best first.

    On the embedded engine (one writer: this process) the user's keyword index already
    mirrors every payload, so the engine returns ids and scores only and the payloads come
    from memory: converting hundreds of payloads per query was most of a deep query's cost.
    A hit the mirror lacks is fetched from the engine."""
    backend = src.backend
    if backend.shared_writers:
        return [(h.id, h.score, h.payload) for h in backend.query(vector, cond, limit)]
    hits = backend.query(vector, cond, limit, with_payload=False)
    index = src.keyword_index(user_id)
    payloads = {h.id: index.payload(h.id) for h in hits}
    missing = [doc_id for doc_id, p in payloads.items() if p is None]
    if missing:
        payloads.update({p["id"]: p for p in backend.retrieve(missing)})
    out: list[Candidate] = []
    for h in hits:
        payload = payloads.get(h.id)
        if payload is not None:  # deleted between the query and the fetch: skip it
            out.append((h.id, h.score, payload))
    return out


def other_side_scores(
    src: RecallSources,
    user_id: str,
    query: str,
    vector: np.ndarray,
    cond: And,
    dense: list[Candidate],
    keyword: list[Candidate],
) -> tuple[dict[str, float], dict[str, float]]:
    """For ``union`` fusion: the cosine of every keyword-only candidate (one filtered engine
    query over those ids) and the BM25 score of every dense-only candidate (from the index's
    postings), so each candidate is fused on both of its scores."""
    dense_ids = {doc_id for doc_id, _, _ in dense}
    kw_ids = {doc_id for doc_id, _, _ in keyword}
    only_kw = tuple(sorted(kw_ids - dense_ids))
    only_dense = [doc_id for doc_id in dense_ids - kw_ids]
    dense_extra: dict[str, float] = {}
    if only_kw:
        where = And((*cond.children, HasId(only_kw)))
        dense_extra = {
            h.id: h.score
            for h in src.backend.query(vector, where, len(only_kw), with_payload=False)
        }
    keyword_extra = src.keyword_index(user_id).score_ids(query, only_dense)
    return dense_extra, keyword_extra


def keyword_candidates(
    src: RecallSources, user_id: str, query: str, limit: int, cond: And
) -> list[Candidate]:
    """BM25 candidates for ``query`` in the user's partition that match ``cond``.

    The filter is evaluated on the best-scoring candidates, which nearly all pass; when it
    turns out selective (e.g. one task's records among thousands), the engine resolves it
    through its payload indexes and BM25 ranks only the ids it allows.
    """
    index = src.keyword_index(user_id)
    hits = index.search(query, limit, cond, max_checks=max(200, 4 * limit))
    if hits is None:  # the filter rejects most candidates: let the engine's indexes decide
        allowed = src.backend.ids(cond, len(index))
        hits = index.search(query, limit, cond, only=set(allowed))
    return hits or []


def confirm(backend: VectorBackend, hits: list[Candidate], cond: And) -> list[Candidate]:
    """Keep the keyword hits the engine still holds and still matches ``cond`` (other
    processes may have deleted or changed them), with the engine's current payloads."""
    ids = tuple(doc_id for doc_id, _, _ in hits)
    current = {p["id"]: p for p in backend.scroll(And((*cond.children, HasId(ids))), len(ids))}
    return [(d, score, current[d]) for d, score, _ in hits if d in current]


__all__ = [
    "Candidates",
    "RecallSources",
    "confirm",
    "dense_candidates",
    "engine_candidates",
    "fetch_payloads",
    "keyword_candidates",
    "other_side_scores",
]
