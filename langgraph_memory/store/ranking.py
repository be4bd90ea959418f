"""Fusion of dense and keyword candidates, and the rerank by recency, confidence, importance.

Pure functions over plain numbers, so the math is unit-tested on its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from ..core.config import RecallConfig
from ..lifecycle.policy import effective_half_life


class Explanation(BaseModel):
    """Why a memory was recalled: each retriever's rank and score, the fused score and every
    rerank factor. ``final = fused * recency * confidence * importance``."""

    model_config = ConfigDict(frozen=True)

    dense_rank: int | None = None
    dense_score: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None
    fusion: str
    fused: float
    recency: float
    confidence: float
    importance: float
    final: float


def min_max(scores: Mapping[str, float]) -> dict[str, float]:
    """Scale scores to [0, 1]; a single (or all-equal) list maps to 1.0."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - lo) / (hi - lo) for key, value in scores.items()}


def dbsf(scores: Mapping[str, float]) -> dict[str, float]:
    """Distribution-based score normalisation (Qdrant's DBSF): map ``mean - 3σ .. mean + 3σ``
    of the candidates' scores to ``0 .. 1`` (clipped); a single (or all-equal) list maps to 1.0.

    Unlike :func:`min_max`, the scale does not hinge on the single best and worst candidate: a
    list whose top score stands far above the rest keeps that gap, and a flat list (every
    candidate about equally similar, as dense cosines often are) stays flat instead of being
    stretched to span the whole 0..1 range.
    """
    if not scores:
        return {}
    values = list(scores.values())
    n = len(values)
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    if std < 1e-12:
        return dict.fromkeys(scores, 1.0)
    lo, span = mean - 3.0 * std, 6.0 * std
    return {key: min(1.0, max(0.0, (value - lo) / span)) for key, value in scores.items()}


NORMALISERS = {"weighted": min_max, "dbsf": dbsf}


def weighted_fusion(
    dense: Mapping[str, float],
    keyword: Mapping[str, float],
    alpha: float,
    normalise: str = "weighted",
) -> dict[str, float]:
    """``alpha * norm(dense) + (1 - alpha) * norm(keyword)`` with ``norm`` min-max
    (``"weighted"``) or :func:`dbsf` (``"dbsf"``); a side that did not return a candidate
    counts 0 for it."""
    norm = NORMALISERS[normalise]
    d, k = norm(dense), norm(keyword)
    return {key: alpha * d.get(key, 0.0) + (1 - alpha) * k.get(key, 0.0) for key in {*d, *k}}


def rrf_fusion(rankings: Sequence[Sequence[str]], k: int) -> dict[str, float]:
    """Reciprocal rank fusion: ``sum(1 / (k + rank))`` with ranks starting at 1."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused


def recency_factor(
    last_used: datetime, now: datetime, half_life_days: float, weight: float
) -> float:
    """``(1 - weight) + weight * 0.5 ** (age / half_life)``: 1.0 when fresh, never below
    ``1 - weight`` (decay lowers rank, it never removes a memory)."""
    age_days = max(0.0, (now - last_used).total_seconds() / 86400.0)
    return (1.0 - weight) + weight * math.pow(0.5, age_days / half_life_days)


def linear_factor(value: float, weight: float) -> float:
    """``(1 - weight) + weight * value`` for ``value`` in [0, 1]."""
    return (1.0 - weight) + weight * min(1.0, max(0.0, value))


def rerank_factors(
    *,
    created_at: datetime,
    last_accessed_at: datetime | None,
    confidence: float,
    importance: int,
    now: datetime,
    config: RecallConfig,
    kind: str | None = None,
) -> tuple[float, float, float]:
    """The three rerank multipliers (recency, confidence, importance) for one record.
    Recency decays from the last use (or creation) with
    :func:`~langgraph_memory.lifecycle.policy.effective_half_life`."""
    last_used = max(created_at, last_accessed_at) if last_accessed_at else created_at
    half_life = effective_half_life(config, kind, importance)
    return (
        recency_factor(last_used, now, half_life, config.recency_weight),
        linear_factor(confidence, config.confidence_weight),
        linear_factor(importance / 10.0, config.importance_weight),
    )


__all__ = [
    "Explanation",
    "dbsf",
    "linear_factor",
    "min_max",
    "recency_factor",
    "rerank_factors",
    "rrf_fusion",
    "weighted_fusion",
]
