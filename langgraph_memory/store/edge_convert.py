"""Translation of the store's types into ``qdrant_edge`` ones (pure; no shard is opened).

Filter trees (:mod:`~langgraph_memory.store.filters`) become ``qdrant_edge.Filter``\\ s, records
become points with a dense and (when they have keyword tokens) a sparse BM25 vector, and a
new shard gets its collection config and payload indexes. Used by
:class:`~langgraph_memory.store.edge.EdgeBackend`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Hashable
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
QUANTIZATION: str | None = "int8"
"""Quantization of the dense vectors of new shards: ``"int8"`` (scalar codes kept in RAM,
built for converted segments; searches rescore the best candidates with full precision) or
None. Measured at 100k records in one scope (README "Memory per record"): resident memory
after reopen + 400 searches 704 -> 559 MB with the originals :data:`ORIGINALS_MEMORY`;
LoCoMo conversations 0-4 recall (dense and hybrid, @5 and @10) unchanged; top 10 of 30k one
scope 99.8% identical. Stores record theirs in ``langgraph_memory.json``; an older store
adopts the current setting at its next vacuum."""
OVERSAMPLING = 2.0
"""Quantized candidates rescored with full precision, as a multiple of the limit."""
ORIGINALS_MEMORY: Any = qe.Memory.Cold
"""Placement of the full-precision dense vectors of new shards: ``Cold`` (memory-mapped,
read on demand): with int8 codes only the rescored candidates' originals are read, so they
need not stay resident (``None``: the engine default, ``Cached``)."""


CONVERTED_NODES = 1024
"""Filter nodes whose ``qdrant_edge`` translation is remembered (:func:`to_edge`, least
recently used first out)."""

_converted: OrderedDict[Hashable, Any] = OrderedDict()
_converted_lock = threading.Lock()


def _exact_key(cond: Cond) -> Hashable | None:
    """A key that equals another node's only when the two translate to the same engine
    condition, or None for a node that is not remembered. The filter dataclasses compare
    ``True == 1`` and ``1 == 1.0``, which the engine does not (``MatchValue(True)`` matches a
    boolean, ``MatchValue(1)`` an integer), so every value goes in with its type. Id lists
    (:class:`HasId`: hundreds of ids, different on every call), ranges (the validity bounds of
    a read are the time of the read) and trees holding either are not remembered."""
    kind = type(cond)
    if kind is Eq:
        value = cond.value  # type: ignore[attr-defined]
        return (kind, cond.key, type(value), value)  # type: ignore[attr-defined]
    if kind is In:
        values = cond.values  # type: ignore[attr-defined]
        return (kind, cond.key, tuple((type(v), v) for v in values))  # type: ignore[attr-defined]
    if kind is IsEmpty:
        return (kind, cond.key)  # type: ignore[attr-defined]
    if kind is Not:
        child = _exact_key(cond.child)  # type: ignore[attr-defined]
        return None if child is None else (kind, child)
    return None  # Range (a recall's validity bounds move with the clock), And / Or, HasId


def to_edge(cond: Cond) -> Any:
    """Translate a filter tree into a ``qdrant_edge.Filter`` (or condition).

    The translation of a leaf condition and of a negated one is remembered by its exact
    value (:func:`_exact_key`; :data:`CONVERTED_NODES` of them): building an engine
    condition costs microseconds each (``FieldCondition(match=MatchAny(...))`` ~5 µs) and
    every read's filter holds the same tenant, project, acl, status and layer conditions.
    The engine objects are immutable and copied into each filter built from them, so one
    serves any number of filters and threads."""
    key = _exact_key(cond)
    if key is None:
        return _translate(cond)
    try:
        hash(key)
    except TypeError:  # a value the filter types do not allow (a list): translate it only
        return _translate(cond)
    with _converted_lock:
        edge = _converted.get(key)
        if edge is not None:
            _converted.move_to_end(key)
            return edge
    edge = _translate(cond)
    with _converted_lock:
        _converted[key] = edge
        if len(_converted) > CONVERTED_NODES:
            _converted.popitem(last=False)
    return edge


def _translate(cond: Cond) -> Any:
    """:func:`to_edge` of one node (its children through :func:`to_edge`)."""
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


def shard_config(dims: int, segment_points: int, quantization: str | None = None) -> Any:
    """The config of a new shard: cosine dense vectors of ``dims``, the IDF-weighted sparse
    keyword vector, and bounded segments of ``segment_points`` points without an HNSW graph
    (``m=0``): a segment is converted in one short step and searched by an exact scan
    narrowed by the payload indexes. Measured on 2 shared cores (100k points, one tenant):
    an HNSW graph costs ~0.5 ms per point to build while holding the GIL (4096 points: 2-4 s
    per step) and, split over 25 segments, searched no faster than the scan; ``m=0`` steps
    cost ~25 us per point plus one fsync. See README "Indexing without optimize()". With
    ``quantization="int8"`` converted segments also keep int8 codes in RAM and the
    originals :data:`ORIGINALS_MEMORY`."""
    kb = max(1, segment_points * dims * 4 // 1024)
    codes = (
        qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Pinned)
        if quantization == "int8"
        else None
    )
    return qe.EdgeConfig(
        vectors={
            VECTOR: qe.EdgeVectorParams(
                size=dims,
                distance=qe.Distance.Cosine,
                memory=ORIGINALS_MEMORY if codes is not None else None,
            )
        },
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
        quantization_config=codes,
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=kb, max_segment_size=kb),
    )


def current_quantization() -> str | None:
    """:data:`QUANTIZATION` as set now (what a new shard gets; tests and benches patch it)."""
    return QUANTIZATION


def dense_params(quantization: str | None) -> Any:
    """Search params of a dense query on a shard with ``quantization``: on quantized
    segments, score the codes, then rescore the best ``OVERSAMPLING`` x limit with the
    full-precision vectors (None, for an unquantized shard: engine defaults)."""
    if quantization is None:
        return None
    return qe.SearchParams(
        quantization=qe.QuantizationSearchParams(rescore=True, oversampling=OVERSAMPLING)
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
    "current_quantization",
    "dense_of",
    "dense_params",
    "point",
    "root_filter",
    "shard_config",
    "to_edge",
    "vectors",
]
