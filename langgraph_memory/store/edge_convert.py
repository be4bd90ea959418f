"""Translation of the store's types into ``qdrant_edge`` ones (pure; no shard is opened).

Filter trees (:mod:`~langgraph_memory.store.filters`) become ``qdrant_edge.Filter``\\ s, records
become points with a dense and (when they have keyword tokens) a sparse BM25 vector, and a
new shard gets its collection config and payload indexes. Used by
:class:`~langgraph_memory.store.edge.EdgeBackend`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
import qdrant_edge as qe

from .filters import (
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
    TENANT_FIELD,
    And,
    Cond,
    Eq,
    HasId,
    In,
    IsEmpty,
    Not,
    Or,
    Range,
)
from .keyword import SPARSE_VECTOR, payload_weights

VECTOR = "dense"
"""Name of the dense vector of every point."""


def to_edge(cond: Cond) -> Any:
    """Translate a filter tree into a ``qdrant_edge.Filter`` (or condition)."""
    if isinstance(cond, And):
        return qe.Filter(must=[to_edge(c) for c in cond.children])
    if isinstance(cond, Or):
        return qe.Filter(should=[to_edge(c) for c in cond.children])
    if isinstance(cond, Not):
        return qe.Filter(must_not=[to_edge(cond.child)])
    if isinstance(cond, Eq):
        return qe.FieldCondition(key=cond.key, match=qe.MatchValue(cond.value))
    if isinstance(cond, In):
        return qe.FieldCondition(key=cond.key, match=qe.MatchAny(list(cond.values)))
    if isinstance(cond, Range):
        return qe.FieldCondition(
            key=cond.key, range=qe.RangeFloat(gte=cond.gte, gt=cond.gt, lte=cond.lte, lt=cond.lt)
        )
    if isinstance(cond, IsEmpty):
        return qe.IsEmptyCondition(key=cond.key)
    if isinstance(cond, HasId):
        return qe.HasIdCondition(set(cond.ids))
    raise TypeError(f"unsupported filter node {type(cond).__name__}")


def root_filter(cond: Cond) -> Any:
    """:func:`to_edge` as a top-level ``qdrant_edge.Filter``."""
    edge = to_edge(cond)
    return edge if isinstance(edge, qe.Filter) else qe.Filter(must=[edge])


def vectors(vector: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The named vectors of a point: the dense one and, when the payload has keyword tokens,
    the sparse BM25 one (computed from the payload)."""
    out: dict[str, Any] = {VECTOR: vector}
    weights = payload_weights(payload)
    if weights is not None:
        out[SPARSE_VECTOR] = qe.SparseVector(*weights)
    return out


def dense_of(named: Any) -> Any:
    """The dense vector among a record's named vectors."""
    return named[VECTOR] if isinstance(named, dict) else named


def point(record_id: str, vector: np.ndarray, payload: dict[str, Any]) -> Any:
    """The engine point of one record."""
    dense = np.asarray(vector, dtype=np.float32).tolist()
    return qe.Point(record_id, vectors(dense, payload), payload)


def shard_config(dims: int, segment_points: int) -> Any:
    """The config of a new shard: cosine dense vectors of ``dims``, the IDF-weighted sparse
    keyword vector, and bounded segments of ``segment_points`` points without an HNSW graph
    (``m=0``): a segment is converted in one short step and searched by an exact scan
    narrowed by the payload indexes. Measured on 2 shared cores (100k points, one tenant):
    an HNSW graph costs ~0.5 ms per point to build while holding the GIL (4096 points: 2-4 s
    per step) and, split over 25 segments, searched no faster than the scan; ``m=0`` steps
    cost ~25 us per point plus one fsync. See README "Indexing without optimize()"."""
    kb = max(1, segment_points * dims * 4 // 1024)
    return qe.EdgeConfig(
        vectors={VECTOR: qe.EdgeVectorParams(size=dims, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=kb, max_segment_size=kb),
    )


def create_indexes(shard: Any, existing: Collection[str] = ()) -> list[str]:
    """Create the payload indexes of a shard (``user_id`` as the tenant key) that are not
    among ``existing`` (all of them for a new shard); returns the fields indexed now. On an
    existing shard each new index is built once, from the stored payloads."""
    wanted: list[tuple[str, Any]] = [
        (TENANT_FIELD, qe.KeywordIndexParams(is_tenant=True)),
        *((field, qe.PayloadSchemaType.Keyword) for field in KEYWORD_INDEXES),
        *((field, qe.PayloadSchemaType.Float) for field in FLOAT_INDEXES),
        ("version", qe.PayloadSchemaType.Integer),
    ]
    created = [field for field, _ in wanted if field not in existing]
    for field, schema in wanted:
        if field in created:
            shard.update(qe.UpdateOperation.create_field_index(field, schema))
    return created


__all__ = [
    "VECTOR",
    "create_indexes",
    "dense_of",
    "point",
    "root_filter",
    "shard_config",
    "to_edge",
    "vectors",
]
