"""Recall, step 2: fuse the two candidate lists, rerank, keep the top ``k`` (pure but for
the optional payload ``fetch``).

The formulas (weighted / DBSF / RRF fusion, recency, confidence and importance factors) are
in :mod:`langgraph_memory.store.ranking`; :func:`rank` applies them to one recall's
candidates and explains every hit it returns.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..core.config import RecallConfig
from ..core.records import MemoryRecord, utcnow
from ._common import Candidate, parse_time
from .ranking import Explanation, rerank_factors, rrf_fusion, weighted_fusion
from .results import SearchHit

PayloadFetch = Callable[[Sequence[str]], dict[str, dict[str, Any]]]
"""Whole payloads of the given ids that still exist (candidates without payloads)."""


def _best_first(item: tuple[float, str, float, tuple[float, float, float]]) -> tuple[float, str]:
    return (-item[0], item[1])


def rank(
    dense: list[Candidate],
    keyword: list[Candidate],
    k: int,
    cfg: RecallConfig,
    dense_extra: Mapping[str, float] | None = None,
    keyword_extra: Mapping[str, float] | None = None,
    *,
    now: datetime | None = None,
    fetch: PayloadFetch | None = None,
) -> list[SearchHit]:
    """Fuse, rerank and return the top ``k``.

    Every rerank factor is at most 1, so ``final <= fused``: candidates are visited in
    descending fused order and the walk stops once a fused score cannot beat the k-th best
    final score. Explanations and records are built for the returned hits only. Recency
    counts back from ``now`` (``as_of`` when given). With ``fetch``, candidates carry no
    payloads: they come from ``fetch`` in chunks of ``max(2k, 16)`` in fused order, as the
    walk reaches them (a candidate deleted in between is skipped)."""
    payloads = {doc_id: payload for doc_id, _, payload in keyword}
    payloads.update({doc_id: payload for doc_id, _, payload in dense})
    dense_rank = {doc_id: (i + 1, s) for i, (doc_id, s, _) in enumerate(dense)}
    kw_rank = {doc_id: (i + 1, s) for i, (doc_id, s, _) in enumerate(keyword)}
    dense_scores = {d: s for d, s, _ in dense}
    kw_scores = {d: s for d, s, _ in keyword}
    if cfg.fusion == "rrf":
        fused = rrf_fusion([[d for d, _, _ in dense], [d for d, _, _ in keyword]], cfg.rrf_k)
    else:
        if cfg.fusion == "union" and dense and keyword:
            # every candidate keeps both scores: none is penalised for missing one list
            dense_scores.update(dense_extra or {})
            kw_scores.update(keyword_extra or {})
        alpha = cfg.alpha if dense and keyword else (1.0 if dense else 0.0)
        fused = weighted_fusion(
            dense_scores, kw_scores, alpha, "dbsf" if cfg.fusion == "dbsf" else "weighted"
        )
    now = now or utcnow()
    best: list[tuple[float, str, float, tuple[float, float, float]]] = []
    ordered = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
    fetched = 0
    if fetch is not None:
        payloads = {}
    for pos, (doc_id, fused_score) in enumerate(ordered):
        if len(best) >= k and fused_score < best[-1][0]:
            break  # final <= fused: nothing further down can enter the top k
        if fetch is not None and pos >= fetched:  # the next chunk, in fused order
            chunk = [d for d, _ in ordered[pos : pos + max(2 * k, 16)]]
            payloads.update(fetch(chunk))
            fetched = pos + len(chunk)
        payload = payloads.get(doc_id)
        if payload is None:  # deleted since the candidate query
            continue
        factors = rerank_factors(
            created_at=parse_time(payload.get("created_at")) or now,
            last_accessed_at=parse_time(payload.get("last_accessed_at")),
            confidence=float(payload.get("confidence", 1.0)),
            importance=int(payload.get("importance", 5)),
            now=now,
            config=cfg,
            kind=payload.get("kind"),
        )
        final = fused_score * factors[0] * factors[1] * factors[2]
        bisect.insort(best, (final, doc_id, fused_score, factors), key=_best_first)
        del best[k:]
    hits: list[SearchHit] = []
    for final, doc_id, fused_score, (recency, confidence, importance) in best:
        d = dense_rank.get(doc_id)
        kw = kw_rank.get(doc_id)
        explanation = Explanation(
            dense_rank=d[0] if d else None,
            dense_score=dense_scores.get(doc_id),
            keyword_rank=kw[0] if kw else None,
            keyword_score=kw_scores.get(doc_id),
            fusion=cfg.fusion,
            fused=fused_score,
            recency=recency,
            confidence=confidence,
            importance=importance,
            final=final,
        )
        record = MemoryRecord.from_payload(payloads[doc_id])
        hits.append(SearchHit(record=record, score=final, explanation=explanation))
    return hits


__all__ = ["PayloadFetch", "rank"]
