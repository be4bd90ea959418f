"""Embedded default backend: Qdrant's in-process Rust engine (``qdrant-edge-py``).

One shard per directory, persisted with a write-ahead log (writes survive a hard crash and are
replayed on open). The WAL holds an exclusive lock: a second open of the same path, in this or
another process, raises :class:`~langgraph_memory.errors.StoreUnavailable` instead of risking
corruption. Every filtered field has a payload index, ``user_id`` as the tenant key.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

from ..errors import ConfigError, StoreUnavailable
from ..logsafe import get_logger
from .backend import ScoredPayload, VectorBackend
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

log = get_logger("store")

VECTOR = "dense"
META_FILE = "langgraph_memory.json"


def _to_edge(cond: Cond) -> Any:
    """Translate a filter tree into a ``qdrant_edge.Filter`` (or condition)."""
    if isinstance(cond, And):
        return qe.Filter(must=[_to_edge(c) for c in cond.children])
    if isinstance(cond, Or):
        return qe.Filter(should=[_to_edge(c) for c in cond.children])
    if isinstance(cond, Not):
        return qe.Filter(must_not=[_to_edge(cond.child)])
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


def _root_filter(cond: Cond) -> Any:
    edge = _to_edge(cond)
    return edge if isinstance(edge, qe.Filter) else qe.Filter(must=[edge])


class EdgeBackend(VectorBackend):
    """A memory collection in a local directory, served by ``qdrant_edge.EdgeShard``."""

    def __init__(self, path: str | os.PathLike[str], dims: int, embedder_name: str) -> None:
        self.path = Path(path)
        self.dims = dims
        self._lock = threading.RLock()
        self._check_path()
        meta_path = self.path / META_FILE
        try:
            if meta_path.exists():
                meta = json.loads(meta_path.read_text())
                if meta.get("dims") != dims or meta.get("embedder") != embedder_name:
                    raise ConfigError(
                        f"store at {self.path} was built with embedder {meta.get('embedder')!r} "
                        f"({meta.get('dims')} dims); it cannot be opened with {embedder_name!r} "
                        f"({dims} dims). Use the same embedder or a new path."
                    )
                self._shard: Any = qe.EdgeShard.load(str(self.path / "shard"))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                config = qe.EdgeConfig(
                    vectors={VECTOR: qe.EdgeVectorParams(size=dims, distance=qe.Distance.Cosine)}
                )
                self._shard = qe.EdgeShard.create(str(self.path / "shard"), config)
                self._create_indexes()
                meta_path.write_text(json.dumps({"dims": dims, "embedder": embedder_name}))
        except ConfigError:
            raise
        except Exception as exc:  # the engine raises plain Exception with a message
            if "WouldBlock" in str(exc):
                raise StoreUnavailable(
                    f"memory store at {self.path} is already open (by this or another process); "
                    "the embedded engine allows one open handle per path. Share one MemoryStore, "
                    "or use a Qdrant server for several processes."
                ) from exc
            raise StoreUnavailable(f"cannot open memory store at {self.path}: {exc}") from exc

    def _check_path(self) -> None:
        raw = str(self.path)
        if not raw or "\x00" in raw:
            raise ConfigError("store path must be a non-empty path without NUL bytes")
        if self.path.exists() and not self.path.is_dir():
            raise ConfigError(f"store path {self.path} exists and is not a directory")

    def _create_indexes(self) -> None:
        self._shard.update(
            qe.UpdateOperation.create_field_index(
                TENANT_FIELD, qe.KeywordIndexParams(is_tenant=True)
            )
        )
        for field in KEYWORD_INDEXES:
            self._shard.update(
                qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword)
            )
        for field in FLOAT_INDEXES:
            self._shard.update(
                qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Float)
            )
        self._shard.update(
            qe.UpdateOperation.create_field_index("version", qe.PayloadSchemaType.Integer)
        )

    @staticmethod
    def _point(record_id: str, vector: np.ndarray, payload: dict[str, Any]) -> Any:
        return qe.Point(record_id, {VECTOR: np.asarray(vector, dtype=np.float32).tolist()}, payload)

    def upsert(self, points: Sequence[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """See :class:`VectorBackend`."""
        if not points:
            return
        with self._lock:
            self._shard.update(
                qe.UpdateOperation.upsert_points([self._point(i, v, p) for i, v, p in points])
            )

    def _conditional_write(
        self,
        record_id: str,
        payload: dict[str, Any],
        expected_version: int,
        vector: np.ndarray | None,
    ) -> None:
        version_is = qe.FieldCondition(key="version", match=qe.MatchValue(expected_version))
        with self._lock:
            if vector is None:
                where = qe.Filter(must=[qe.HasIdCondition({record_id}), version_is])
                self._shard.update(qe.UpdateOperation.overwrite_payload_by_filter(where, payload))
            else:
                self._shard.update(
                    qe.UpdateOperation.upsert_points(
                        [self._point(record_id, vector, payload)],
                        condition=qe.Filter(must=[version_is]),
                        update_mode=qe.UpdateMode.UpdateOnly,
                    )
                )

    def retrieve(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """See :class:`VectorBackend`."""
        if not ids:
            return []
        with self._lock:
            return [dict(r.payload or {}) for r in self._shard.retrieve(list(ids), True, False)]

    def retrieve_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """See :class:`VectorBackend`."""
        if not ids:
            return {}
        with self._lock:
            records = self._shard.retrieve(list(ids), False, True)
        out: dict[str, np.ndarray] = {}
        for r in records:
            vector: Any = r.vector
            out[str(r.id)] = np.asarray(vector[VECTOR], dtype=np.float32)
        return out

    def delete(self, ids: Sequence[str]) -> None:
        """See :class:`VectorBackend`."""
        if ids:
            with self._lock:
                self._shard.update(qe.UpdateOperation.delete_points(list(ids)))

    def delete_where(self, cond: Cond) -> None:
        """See :class:`VectorBackend`."""
        with self._lock:
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(_root_filter(cond)))

    def query(
        self, vector: np.ndarray, cond: Cond, limit: int, *, with_payload: bool = True
    ) -> list[ScoredPayload]:
        """See :class:`VectorBackend`."""
        request = qe.QueryRequest(
            query=qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=VECTOR),
            filter=_root_filter(cond),
            limit=limit,
            with_payload=with_payload,
        )
        with self._lock:
            hits = self._shard.query(request)
        return [ScoredPayload(str(h.id), float(h.score), dict(h.payload or {})) for h in hits]

    def scroll_page(
        self, cond: Cond, limit: int, offset: Any = None, fields: list[str] | None = None
    ) -> tuple[list[dict[str, Any]], Any]:
        """See :class:`VectorBackend`."""
        request = qe.ScrollRequest(
            filter=_root_filter(cond),
            limit=limit,
            offset=offset,
            with_payload=fields if fields is not None else True,
        )
        with self._lock:
            records, next_offset = self._shard.scroll(request)
        return [dict(r.payload or {}) for r in records], next_offset

    def count(self, cond: Cond) -> int:
        """See :class:`VectorBackend`."""
        with self._lock:
            return int(self._shard.count(qe.CountRequest(filter=_root_filter(cond))))

    def flush(self) -> None:
        """See :class:`VectorBackend`."""
        with self._lock:
            self._shard.flush()

    def optimize(self) -> bool:
        """Build the HNSW index now. Blocks (and holds the GIL) for seconds on large shards."""
        with self._lock:
            return bool(self._shard.optimize())

    def close(self) -> None:
        """See :class:`VectorBackend`."""
        with self._lock:
            shard = getattr(self, "_shard", None)
            if shard is not None:
                shard.close()
                self._shard = None


__all__ = ["EdgeBackend"]
