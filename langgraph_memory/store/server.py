"""Scale-out backend: a Qdrant server or cluster through ``qdrant-client``.

``user_id`` is a keyword payload index with ``is_tenant=True`` so the server co-locates each
tenant's points; every other filtered field is indexed too. The same class runs against
``QdrantClient(":memory:")``, which speaks the same API, in the test suite.

Keyword channel. A collection created by this version has the sparse vector
:data:`~langgraph_memory.store.keyword.SPARSE_VECTOR` (IDF modifier) and records the weighting
scheme in its metadata (``keyword``); keyword queries then run on the server with the IDF corpus
restricted to the caller's user. Qdrant cannot add a named vector to an existing collection
(``update_collection`` refuses an unknown vector name, here and in local mode), so a collection
created before is served by the legacy path, an in-process BM25 index per user, with a logged
notice; re-ingest into a new collection to move it into the engine.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from ..core.logsafe import get_logger
from ..errors import ConfigError, StoreUnavailable
from .backend import (
    EngineQuery,
    ErasureReport,
    OrderedRead,
    ScoredPayload,
    VectorBackend,
    disk_bytes,
    ordered_read_filters,
)
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
from .keyword import SPARSE_SCHEME, SPARSE_VECTOR, payload_weights

log = get_logger("store")

VECTOR = "dense"

LEGACY_KEYWORD = (
    "Qdrant collection %r has no keyword sparse vector (created by an earlier version, or with "
    "another weighting scheme); keyword recall uses an in-process BM25 index per user, rebuilt "
    "from a scroll. Re-ingest into a new collection to serve keyword recall from the server."
)
"""Logged once when a collection is served by the legacy keyword path."""


def _vectors(vector: np.ndarray, payload: dict[str, Any]) -> dict[str, Any]:
    """Named vectors of a point: dense, plus the sparse BM25 one when the payload has tokens."""
    out: dict[str, Any] = {VECTOR: np.asarray(vector, dtype=np.float32).tolist()}
    weights = payload_weights(payload)
    if weights is not None:
        out[SPARSE_VECTOR] = qm.SparseVector(indices=weights[0], values=weights[1])
    return out


def _to_qdrant(cond: Cond) -> Any:
    """Translate a filter tree into ``qdrant_client.models`` conditions."""
    if isinstance(cond, And):
        return qm.Filter(must=[_to_qdrant(c) for c in cond.children])
    if isinstance(cond, Or):
        return qm.Filter(should=[_to_qdrant(c) for c in cond.children])
    if isinstance(cond, Not):
        return qm.Filter(must_not=[_to_qdrant(cond.child)])
    if isinstance(cond, Eq):
        return qm.FieldCondition(key=cond.key, match=qm.MatchValue(value=cond.value))
    if isinstance(cond, In):
        return qm.FieldCondition(key=cond.key, match=qm.MatchAny(any=list(cond.values)))
    if isinstance(cond, Range):
        return qm.FieldCondition(
            key=cond.key, range=qm.Range(gt=cond.gt, gte=cond.gte, lt=cond.lt, lte=cond.lte)
        )
    if isinstance(cond, IsEmpty):
        return qm.IsEmptyCondition(is_empty=qm.PayloadField(key=cond.key))
    if isinstance(cond, HasId):
        return qm.HasIdCondition(has_id=list(cond.ids))
    raise TypeError(f"unsupported filter node {type(cond).__name__}")


def _root_filter(cond: Cond) -> qm.Filter:
    out = _to_qdrant(cond)
    return out if isinstance(out, qm.Filter) else qm.Filter(must=[out])


class QdrantServerBackend(VectorBackend):
    """A memory collection on a Qdrant server (``url=``) or any ready ``QdrantClient``."""

    shared_writers = True

    def __init__(
        self,
        dims: int,
        embedder_name: str,
        *,
        url: str | None = None,
        api_key: str | None = None,
        client: QdrantClient | None = None,
        collection: str = "langgraph_memory",
    ) -> None:
        if client is None and not url:
            raise ConfigError("QdrantServerBackend needs url= (or a ready client=)")
        if not collection or not collection.replace("_", "").replace("-", "").isalnum():
            raise ConfigError(f"invalid collection name {collection!r}")
        self.dims = dims
        self.collection = collection
        self._owns_client = client is None
        self._lock = threading.RLock()
        try:
            self._client = client if client is not None else QdrantClient(url=url, api_key=api_key)
            self._ensure_collection(embedder_name)
        except ConfigError:
            raise
        except Exception as exc:
            raise StoreUnavailable(f"cannot reach Qdrant collection {collection!r}: {exc}") from exc

    def _ensure_collection(self, embedder_name: str) -> None:
        client = self._client
        if client.collection_exists(self.collection):
            info = client.get_collection(self.collection)
            vectors = info.config.params.vectors
            size = vectors[VECTOR].size if isinstance(vectors, dict) and VECTOR in vectors else None
            if size != self.dims:
                raise ConfigError(
                    f"collection {self.collection!r} has dense size {size}, embedder "
                    f"{embedder_name!r} produces {self.dims}; use the same embedder or a new "
                    "collection"
                )
            sparse = info.config.params.sparse_vectors or {}
            scheme = (info.config.metadata or {}).get("keyword")
            self.keyword_in_engine = SPARSE_VECTOR in sparse and scheme == SPARSE_SCHEME
            if not self.keyword_in_engine:
                log.warning(LEGACY_KEYWORD, self.collection)
            indexed = set(info.payload_schema or {})
            with warnings.catch_warnings():  # local mode warns that payload indexes are no-ops
                warnings.simplefilter("ignore")
                for field in KEYWORD_INDEXES:  # one added since the collection was created
                    if field not in indexed:
                        client.create_payload_index(
                            self.collection, field, qm.PayloadSchemaType.KEYWORD
                        )
            return
        client.create_collection(
            self.collection,
            vectors_config={VECTOR: qm.VectorParams(size=self.dims, distance=qm.Distance.COSINE)},
            sparse_vectors_config={SPARSE_VECTOR: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
            metadata={"embedder": embedder_name, "keyword": SPARSE_SCHEME},
        )
        self.keyword_in_engine = True
        with warnings.catch_warnings():  # local mode warns that payload indexes are no-ops
            warnings.simplefilter("ignore")
            client.create_payload_index(
                self.collection,
                TENANT_FIELD,
                qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True),
            )
            for field in KEYWORD_INDEXES:
                client.create_payload_index(self.collection, field, qm.PayloadSchemaType.KEYWORD)
            for field in FLOAT_INDEXES:
                client.create_payload_index(self.collection, field, qm.PayloadSchemaType.FLOAT)
            client.create_payload_index(self.collection, "version", qm.PayloadSchemaType.INTEGER)

    def upsert(self, points: Sequence[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """See :class:`VectorBackend`."""
        if not points:
            return
        structs = [
            qm.PointStruct(id=i, vector=self._vectors(v, p), payload=p) for i, v, p in points
        ]
        with self._lock:
            self._client.upsert(self.collection, structs, wait=True)

    def _conditional_write(
        self,
        record_id: str,
        payload: dict[str, Any],
        expected_version: int,
        vector: np.ndarray | None,
    ) -> None:
        version_is = qm.FieldCondition(key="version", match=qm.MatchValue(value=expected_version))
        with self._lock:
            if vector is None:
                self._client.overwrite_payload(
                    self.collection,
                    payload=payload,
                    points=qm.Filter(must=[qm.HasIdCondition(has_id=[record_id]), version_is]),
                    wait=True,
                )
            else:
                point = qm.PointStruct(
                    id=record_id, vector=self._vectors(vector, payload), payload=payload
                )
                self._client.upsert(
                    self.collection,
                    [point],
                    wait=True,
                    update_filter=qm.Filter(must=[version_is]),
                    update_mode=qm.UpdateMode.UPDATE_ONLY,
                )

    def retrieve(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """See :class:`VectorBackend`."""
        if not ids:
            return []
        with self._lock:
            points = self._client.retrieve(self.collection, list(ids), with_payload=True)
        return [dict(p.payload or {}) for p in points]

    def retrieve_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """See :class:`VectorBackend`."""
        if not ids:
            return {}
        with self._lock:
            points = self._client.retrieve(
                self.collection, list(ids), with_payload=False, with_vectors=True
            )
        out: dict[str, np.ndarray] = {}
        for p in points:
            vec = p.vector[VECTOR] if isinstance(p.vector, dict) else p.vector
            out[str(p.id)] = np.asarray(vec, dtype=np.float32)
        return out

    def delete(self, ids: Sequence[str]) -> None:
        """See :class:`VectorBackend`."""
        if ids:
            with self._lock:
                self._client.delete(self.collection, qm.PointIdsList(points=list(ids)), wait=True)

    def delete_where(self, cond: Cond) -> None:
        """See :class:`VectorBackend`."""
        with self._lock:
            self._client.delete(
                self.collection, qm.FilterSelector(filter=_root_filter(cond)), wait=True
            )

    def query(
        self, vector: np.ndarray, cond: Cond, limit: int, *, with_payload: bool = True
    ) -> list[ScoredPayload]:
        """See :class:`VectorBackend`."""
        with self._lock:
            response = self._client.query_points(
                self.collection,
                query=np.asarray(vector, dtype=np.float32).tolist(),
                using=VECTOR,
                query_filter=_root_filter(cond),
                limit=limit,
                with_payload=with_payload,
            )
        return [
            ScoredPayload(str(p.id), float(p.score), dict(p.payload or {})) for p in response.points
        ]

    def _vectors(self, vector: np.ndarray, payload: dict[str, Any]) -> Any:
        if self.keyword_in_engine:
            return _vectors(vector, payload)
        return {VECTOR: np.asarray(vector, dtype=np.float32).tolist()}

    def query_many(self, queries: Sequence[EngineQuery]) -> list[list[ScoredPayload]]:
        """See :class:`VectorBackend`: one ``query_batch_points`` call."""
        if not queries:
            return []
        requests = []
        for q in queries:
            params = None
            query: Any
            if q.dense is not None:
                query, using = np.asarray(q.dense, dtype=np.float32).tolist(), VECTOR
            else:
                assert q.sparse is not None
                if not self.keyword_in_engine:
                    raise ConfigError(LEGACY_KEYWORD % self.collection)
                ids, weights = q.sparse
                query = qm.SparseVector(indices=list(ids), values=list(weights))
                using = SPARSE_VECTOR
                if q.idf_corpus is not None:
                    corpus = qm.IdfCorpusParams(corpus=_root_filter(q.idf_corpus))
                    params = qm.SearchParams(idf=corpus)
            requests.append(
                qm.QueryRequest(
                    query=query,
                    using=using,
                    filter=_root_filter(q.cond),
                    limit=q.limit,
                    with_payload=q.payload if isinstance(q.payload, bool) else list(q.payload),
                    params=params,
                )
            )
        with self._lock, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # local mode: search params other than idf are no-ops
            responses = self._client.query_batch_points(self.collection, requests)
        return [
            [ScoredPayload(str(p.id), float(p.score), dict(p.payload or {})) for p in r.points]
            for r in responses
        ]

    def scroll_page(
        self, cond: Cond, limit: int, offset: Any = None, fields: list[str] | None = None
    ) -> tuple[list[dict[str, Any]], Any]:
        """See :class:`VectorBackend`."""
        with self._lock:
            points, next_offset = self._client.scroll(
                self.collection,
                scroll_filter=_root_filter(cond),
                limit=limit,
                offset=offset,
                with_payload=fields if fields is not None else True,
            )
        return [dict(p.payload or {}) for p in points], next_offset

    def scroll_ordered(self, reads: Sequence[OrderedRead]) -> list[list[dict[str, Any]]] | None:
        """See :class:`VectorBackend`: one ``query_batch_points`` call of ``order_by``
        queries (a key needs a range index, as every
        :data:`~langgraph_memory.store.filters.FLOAT_INDEXES` field has in a collection this
        package created)."""
        if not reads:
            return []
        filters = ordered_read_filters(
            reads, _root_filter, lambda common, own: qm.Filter(must=[common, own])
        )
        requests = [
            qm.QueryRequest(
                query=qm.OrderByQuery(
                    order_by=qm.OrderBy(
                        key=r.key, direction=qm.Direction.DESC if r.descending else qm.Direction.ASC
                    )
                ),
                filter=where,
                limit=r.limit,
                with_payload=True,
            )
            for r, where in zip(reads, filters, strict=True)
        ]
        try:
            with self._lock:
                responses = self._client.query_batch_points(self.collection, requests)
        except Exception as exc:  # a server without a range index on a key answers 400
            if "order_by" in str(exc):
                return None
            raise
        return [[dict(p.payload or {}) for p in r.points] for r in responses]

    def count(self, cond: Cond) -> int:
        """See :class:`VectorBackend`."""
        with self._lock:
            return int(
                self._client.count(
                    self.collection, count_filter=_root_filter(cond), exact=True
                ).count
            )

    def count_keyword(self, cond: Cond) -> int:
        """See :class:`VectorBackend`."""
        if not self.keyword_in_engine:
            return 0
        has = qm.HasVectorCondition(has_vector=SPARSE_VECTOR)
        where = qm.Filter(must=[_root_filter(cond), has])
        with self._lock:
            return int(self._client.count(self.collection, count_filter=where, exact=True).count)

    def _local_storage(self) -> Any:
        """qdrant-client's local-mode persistence of this collection (its SQLite file), when
        the client is a local one with ``path=``; ``None`` for a server or ``":memory:"``."""
        local = getattr(self._client, "_client", None)
        collections = getattr(local, "collections", None)
        if not getattr(local, "persistent", False) or not isinstance(collections, dict):
            return None
        collection = collections.get(self.collection)
        storage = getattr(collection, "storage", None)
        conn = getattr(storage, "storage", None)
        return storage if conn is not None and hasattr(storage, "location") else None

    def erase(self, *, ids: Sequence[str] = (), cond: Cond | None = None) -> ErasureReport:
        """Delete through the client, then: for qdrant-client's local mode with ``path=``,
        ``VACUUM`` its SQLite file with ``secure_delete`` on (no free page keeps a deleted
        point); for ``":memory:"`` nothing is on disk; for a server, the files are the
        server's (its optimizer vacuums segments with deleted points, its WAL is its own)
        and the report says so (``physical=False``)."""
        with self._lock:
            started = time.perf_counter()
            before = self.count(And(()))
            if ids:
                self.delete(ids)
            if cond is not None:
                self.delete_where(cond)
            after = self.count(And(()))
            storage = self._local_storage()
            if storage is not None:
                conn = storage.storage
                conn.commit()
                conn.execute("PRAGMA secure_delete=ON")
                conn.execute("VACUUM")
                path = Path(storage.location)
                return ErasureReport(
                    mechanism="sqlite vacuum",
                    physical=True,
                    deleted=before - after,
                    points_kept=after,
                    bytes_written=disk_bytes(path.parent),
                    seconds=time.perf_counter() - started,
                )
            local = getattr(self._client, "_client", None)
            in_memory = getattr(local, "persistent", None) is False
            return ErasureReport(
                mechanism="in-memory delete" if in_memory else "server delete",
                physical=in_memory,
                deleted=before - after,
                points_kept=after,
                seconds=time.perf_counter() - started,
                note=""
                if in_memory
                else "the Qdrant server's segments and WAL are the server's to vacuum",
            )

    def managed_paths(self) -> list[Path] | None:
        """The local-mode SQLite directory of the collection; ``[]`` for ``":memory:"``
        (nothing on disk); ``None`` for a server (not this package's files)."""
        storage = self._local_storage()
        if storage is not None:
            return [Path(storage.location).parent]
        local = getattr(self._client, "_client", None)
        return [] if getattr(local, "persistent", None) is False else None

    def flush(self) -> None:
        """Writes are issued with ``wait=True``; nothing is buffered client-side."""

    def close(self) -> None:
        """Close the client if this backend created it."""
        with self._lock:
            if self._owns_client:
                self._client.close()


__all__ = ["QdrantServerBackend"]
