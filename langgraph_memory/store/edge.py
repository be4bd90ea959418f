"""Embedded default backend: Qdrant's in-process Rust engine (``qdrant-edge-py``).

One shard per directory, persisted with a write-ahead log (writes survive a hard crash and are
replayed on open). The store directory is locked (``langgraph_memory.lock``, plus the engine's
own WAL lock): a second open of the same path, in this or another process, raises
:class:`~langgraph_memory.errors.StoreUnavailable` instead of risking corruption. Every
filtered field has a payload index, ``user_id`` as the tenant key.

Erasure. The engine's deletes are soft: a deleted point's payload stays in the WAL and in the
(LZ4-compressed) payload pages, its vector in the vector chunks and its values in the payload
indexes until the space is reused. :meth:`EdgeBackend.erase` therefore deletes the points,
then :meth:`EdgeBackend.vacuum` copies every live point into a fresh shard directory, commits
it by atomically replacing ``langgraph_memory.json`` (which names the current shard), and
removes the old directory. A crash before the commit leaves the old shard current (the half
built one is removed at the next open); after it, the new one (the old one is removed at the
next open); either way no live point is lost. The metadata marks an erasure as pending before
the delete, so an open after a crash finishes it before serving.

Vectors. New shards keep int8 codes of the dense vectors in RAM for converted segments and
the full-precision originals memory-mapped; dense queries rescore the best candidates with the
originals (:data:`~langgraph_memory.store.edge_convert.QUANTIZATION`). The metadata records the
setting a shard was created with (:attr:`EdgeBackend.quantization`).

Keyword channel. Every point carries the sparse vector
:data:`~langgraph_memory.store.keyword.SPARSE_VECTOR` (BM25 document weights, IDF modifier on),
and ``langgraph_memory.json`` records the weighting scheme (``keyword``). A store created
before (no ``keyword`` entry, no sparse vector) is migrated when opened: the same rewrite as a
vacuum, computing each point's sparse vector from its payload, committed by the same atomic
metadata replace (a crash mid-way leaves the old shard current and the migration reruns at the
next open; no point is lost either way).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import qdrant_edge as qe

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
from .edge_convert import (
    VECTOR,
    create_indexes,
    current_quantization,
    dense_of,
    dense_params,
    point,
    root_filter,
    shard_config,
    vectors,
)
from .edge_files import (
    DEFAULT_SHARD,
    IN_USE,
    META_FILE,
    ActivityLock,
    check_path,
    fsync_dir,
    release_lock,
    remove_leftovers,
    take_lock,
    write_meta,
)
from .filters import Cond
from .keyword import SPARSE_SCHEME, SPARSE_VECTOR

log = get_logger("store")

_COPY_BATCH = 512
AUTO_INDEX_POINTS = 2048
"""Points per segment. New points land in an appendable, unindexed segment; once it holds
this many, the next write converts it into a compact read-only segment (one short
``optimize()`` step, bounded by this size) and a fresh appendable one takes new points. So
the store is never more than one segment behind, and no step grows with the store."""
INDEX_IDLE_SECONDS = 1.0
"""The background indexer runs a step only after the store was unused this long."""
INDEX_BACKLOG_SEGMENTS = 2
"""With this many segments' worth unindexed (a writer that never pauses), writes index."""
INDEX_LAYOUT = "segments-v1"
"""Metadata marker of shards created with bounded segments (:data:`AUTO_INDEX_POINTS`)."""


def _crash_point(step: str) -> None:
    """No-op between the steps of a vacuum; crash tests replace it to kill the process there."""


MIGRATING = (
    "memory store at %s was created before the keyword channel moved into the engine; "
    "re-indexing it now (a one-time rewrite of every point, crash-safe)"
)
"""Logged when an old store is migrated on open."""
INDEXES_ADDED = "store %s: payload index(es) added for %s (built once from the stored payloads)"
"""Logged when an open adds a payload index the store was created without."""


class EdgeBackend(VectorBackend):
    """A memory collection in a local directory, served by ``qdrant_edge.EdgeShard``."""

    keyword_in_engine = True  # old stores are migrated on open

    def __init__(
        self,
        path: str | os.PathLike[str],
        dims: int,
        embedder_name: str,
        *,
        auto_index: bool = True,
    ) -> None:
        self.path = Path(path)
        self.dims = dims
        self._auto_index = auto_index
        self._unindexed = 0
        self._indexer: threading.Thread | None = None
        self._index_wanted = threading.Event()
        self._index_done = threading.Event()
        self._closing = False
        self.index_steps = 0
        """How many automatic indexing steps this handle ran (see :attr:`auto_index`)."""
        self.longest_index_step = 0.0
        """The longest automatic indexing step so far, in seconds."""
        self._lock = ActivityLock()
        self._shard: Any = None
        self._lock_file: IO[str] | None = None
        check_path(self.path)
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
                self._meta = meta
                self._take_lock()
                self._shard = qe.EdgeShard.load(str(self.path / self.shard_name))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self._meta = {
                    "dims": dims,
                    "embedder": embedder_name,
                    "shard": DEFAULT_SHARD,
                    "index_layout": INDEX_LAYOUT,
                    "keyword": SPARSE_SCHEME,
                    "quantization": current_quantization(),
                }
                self._take_lock()
                self._shard = qe.EdgeShard.create(str(self.path / DEFAULT_SHARD), self._config())
                create_indexes(self._shard)
                self._write_meta()
        except (ConfigError, StoreUnavailable):
            self._release_lock()
            raise
        except Exception as exc:  # the engine raises plain Exception with a message
            self._release_lock()
            if "WouldBlock" in str(exc):
                raise StoreUnavailable(IN_USE.format(path=self.path)) from exc
            raise StoreUnavailable(f"cannot open memory store at {self.path}: {exc}") from exc
        remove_leftovers(self.path, self.shard_name)
        info = self._shard.info()
        added = create_indexes(self._shard, set(info.payload_schema or {}))
        if added:  # a store from before an index was added: built once, now
            log.info(INDEXES_ADDED, self.path, ", ".join(added))
        self._unindexed = self._pending_points(info)
        if auto_index and self._meta.get("index_layout") != INDEX_LAYOUT:
            log.info(
                "store %s was created before automatic indexing; it is adopted at the next "
                "erasure (vacuum) or run optimize() once",
                self.path,
            )
        if self._meta.get("vacuum_pending"):
            log.warning(
                "an erasure of %s was interrupted; finishing it before the store is used",
                self.path,
            )
            self.vacuum()
        elif self._meta.get("keyword") != SPARSE_SCHEME:
            log.warning(MIGRATING, self.path)
            self.vacuum()

    @property
    def shard_name(self) -> str:
        """The directory (under :attr:`path`) of the current shard."""
        return str(self._meta.get("shard") or DEFAULT_SHARD)

    def _config(self) -> Any:
        """The config of a new shard (create, vacuum): bounded segments, quantization as
        :func:`~langgraph_memory.store.edge_convert.current_quantization` says now."""
        return shard_config(self.dims, AUTO_INDEX_POINTS, current_quantization())

    @property
    def quantization(self) -> str | None:
        """The dense-vector quantization of the current shard (``"int8"`` or None), as
        recorded in the metadata when the shard was created."""
        value = self._meta.get("quantization")
        return str(value) if value else None

    @property
    def auto_index(self) -> bool:
        """Whether writes index the store in steps (on for shards created with bounded
        segments, unless the store was opened with ``MemoryConfig(auto_index=False)``)."""
        return self._auto_index and self._meta.get("index_layout") == INDEX_LAYOUT

    def _pending_points(self, info: Any = None) -> int:
        """Points whose dense vector is not indexed yet (``info``: the shard's ``info()``
        when the caller just read it). The engine's ``indexed_vectors`` counts every sparse
        vector as indexed from the start (a sparse index needs no build), so those are
        subtracted: what is left is the indexed dense vectors."""
        info = self._shard.info() if info is None else info
        indexed = int(info.indexed_vectors_count) - self._sparse_points()
        return max(0, int(info.points_count) - max(0, indexed))

    def _sparse_points(self) -> int:
        """Points that carry the keyword sparse vector (0 on a shard without one)."""
        try:
            return int(
                self._shard.count(
                    qe.CountRequest(filter=qe.Filter(must=[qe.HasVectorCondition(SPARSE_VECTOR)]))
                )
            )
        except Exception:  # an old shard without the sparse vector config
            return 0

    def _after_write(self, points: int) -> None:
        """Count written points (caller holds the lock). Once a segment's worth is unindexed,
        the background indexer is woken to run a step when the store is idle; once
        :data:`INDEX_BACKLOG_SEGMENTS` segments' worth waits (a writer that never pauses),
        the step runs here, in the writer's thread, so the unindexed part stays bounded."""
        self._unindexed += points
        if not self.auto_index or self._unindexed < AUTO_INDEX_POINTS:
            return
        if self._unindexed >= INDEX_BACKLOG_SEGMENTS * AUTO_INDEX_POINTS:
            self._index_step()
            return
        if self._indexer is None:
            self._indexer = threading.Thread(
                target=self._index_when_idle, name="langgraph-memory-indexer", daemon=True
            )
            self._indexer.start()
        self._index_wanted.set()

    def _index_step(self) -> bool:
        """One indexing step if a segment's worth is unindexed (caller holds the lock).
        Holds the GIL for its duration: the engine's optimizer does not release it."""
        self._unindexed = self._pending_points()
        if self._unindexed < AUTO_INDEX_POINTS:
            return False
        started = time.perf_counter()
        self._shard.optimize()
        took = time.perf_counter() - started
        self.index_steps += 1
        self.longest_index_step = max(self.longest_index_step, took)
        self._unindexed = self._pending_points()
        log.debug("indexing step: %.0f ms, %d point(s) left unindexed", took * 1e3, self._unindexed)
        return True

    def _index_when_idle(self) -> None:
        """Background indexer: after a wake-up, wait until no call has used the store for
        :data:`INDEX_IDLE_SECONDS`, then run steps until less than a segment waits."""
        while True:
            self._index_wanted.wait()
            if self._closing:
                return
            quiet = time.monotonic() - self._lock.last_used
            if quiet < INDEX_IDLE_SECONDS:
                time.sleep(INDEX_IDLE_SECONDS - quiet)
                continue
            with self._lock:
                if self._closing or self._shard is None:
                    return
                if not self._index_step():
                    self._index_wanted.clear()
                    self._index_done.set()

    def wait_indexed(self, timeout: float | None = None) -> bool:
        """Block until the background indexer has nothing left to do (or ``timeout``
        seconds); True when nothing waits. For tests and benchmarks."""
        with self._lock:
            if not self.auto_index or self._pending_points() < AUTO_INDEX_POINTS:
                return True
            self._index_done.clear()
            self._index_wanted.set()
            if self._indexer is None:
                self._indexer = threading.Thread(
                    target=self._index_when_idle, name="langgraph-memory-indexer", daemon=True
                )
                self._indexer.start()
        return self._index_done.wait(timeout)

    def shard_info(self) -> dict[str, int]:
        """Segments, points and indexed dense vectors of the current shard (for tests and
        benches; sparse vectors, always indexed, are not counted)."""
        with self._lock:
            info = self._shard.info()
            sparse = self._sparse_points()
        return {
            "segments": int(info.segments_count),
            "points": int(info.points_count),
            "indexed_vectors": max(0, int(info.indexed_vectors_count) - sparse),
        }

    def _take_lock(self) -> None:
        self._lock_file = take_lock(self.path)

    def _release_lock(self) -> None:
        handle, self._lock_file = self._lock_file, None
        release_lock(handle)

    def _write_meta(self, **changes: Any) -> None:
        """Replace the metadata file atomically with ``changes`` applied."""
        meta = {**self._meta, **changes}
        write_meta(self.path, meta)
        self._meta = meta

    def upsert(self, points: Sequence[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """See :class:`VectorBackend`."""
        if not points:
            return
        with self._lock:
            # in segment-sized parts, so that a big batch is indexed in bounded steps too
            for start in range(0, len(points), AUTO_INDEX_POINTS):
                part = points[start : start + AUTO_INDEX_POINTS]
                self._shard.update(
                    qe.UpdateOperation.upsert_points([point(i, v, p) for i, v, p in part])
                )
                self._after_write(len(part))

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
                        [point(record_id, vector, payload)],
                        condition=qe.Filter(must=[version_is]),
                        update_mode=qe.UpdateMode.UpdateOnly,
                    )
                )
            self._after_write(1)  # either way the point moves into the appendable segment

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
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(root_filter(cond)))

    def query(
        self, vector: np.ndarray, cond: Cond, limit: int, *, with_payload: bool = True
    ) -> list[ScoredPayload]:
        """See :class:`VectorBackend`."""
        request = qe.QueryRequest(
            query=qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=VECTOR),
            filter=root_filter(cond),
            limit=limit,
            with_payload=with_payload,
            params=dense_params(self.quantization),
        )
        with self._lock:
            hits = self._shard.query(request)
        return [ScoredPayload(str(h.id), float(h.score), dict(h.payload or {})) for h in hits]

    def query_many(self, queries: Sequence[EngineQuery]) -> list[list[ScoredPayload]]:
        """See :class:`VectorBackend`: one ``query_batch`` call."""
        if not queries:
            return []
        requests = []
        converted: dict[int, Any] = {}  # id(cond) -> its engine filter: a recall's dense and
        # keyword queries share one filter tree (the queries keep every tree alive meanwhile)

        def edge_filter(cond: Cond) -> Any:
            found = converted.get(id(cond))
            if found is None:
                found = converted[id(cond)] = root_filter(cond)
            return found

        for q in queries:
            params = None
            if q.dense is not None:
                dense = np.asarray(q.dense, dtype=np.float32).tolist()
                query = qe.Query.Nearest(dense, using=VECTOR)
                params = dense_params(self.quantization)
            else:
                assert q.sparse is not None
                ids, weights = q.sparse
                query = qe.Query.Nearest(
                    qe.SparseVector(list(ids), list(weights)), using=SPARSE_VECTOR
                )
                if q.idf_corpus is not None:
                    params = qe.SearchParams(idf=qe.IdfParams(corpus=edge_filter(q.idf_corpus)))
            payload = q.payload if isinstance(q.payload, bool) else list(q.payload)
            requests.append(
                qe.QueryRequest(
                    query=query,
                    filter=edge_filter(q.cond),
                    limit=q.limit,
                    with_payload=payload,
                    params=params,
                )
            )
        with self._lock:
            results = self._shard.query_batch(qe.QueryBatchRequest(requests))
        return [
            [ScoredPayload(str(h.id), float(h.score), dict(h.payload or {})) for h in hits]
            for hits in results
        ]

    def scroll_page(
        self, cond: Cond, limit: int, offset: Any = None, fields: list[str] | None = None
    ) -> tuple[list[dict[str, Any]], Any]:
        """See :class:`VectorBackend`."""
        request = qe.ScrollRequest(
            filter=root_filter(cond),
            limit=limit,
            offset=offset,
            with_payload=fields if fields is not None else True,
        )
        with self._lock:
            records, next_offset = self._shard.scroll(request)
        return [dict(r.payload or {}) for r in records], next_offset

    def scroll_ordered(self, reads: Sequence[OrderedRead]) -> list[list[dict[str, Any]]] | None:
        """See :class:`VectorBackend`: one ``query_batch`` call of ``order_by`` queries (a key
        needs a range index, as every :data:`~langgraph_memory.store.filters.FLOAT_INDEXES`
        field has)."""
        if not reads:
            return []
        filters = ordered_read_filters(
            reads, root_filter, lambda common, own: qe.Filter(must=[common, own])
        )
        requests = [
            qe.QueryRequest(
                query=qe.OrderBy(r.key, qe.Direction.Desc if r.descending else qe.Direction.Asc),
                filter=where,
                limit=r.limit,
                with_payload=True,
            )
            for r, where in zip(reads, filters, strict=True)
        ]
        try:
            with self._lock:
                results = self._shard.query_batch(qe.QueryBatchRequest(requests))
        except Exception as exc:  # the engine raises plain Exception with a message
            if "order_by" in str(exc):
                return None
            raise
        return [[dict(h.payload or {}) for h in hits] for hits in results]

    def count(self, cond: Cond) -> int:
        """See :class:`VectorBackend`."""
        with self._lock:
            return int(self._shard.count(qe.CountRequest(filter=root_filter(cond))))

    def count_keyword(self, cond: Cond) -> int:
        """See :class:`VectorBackend`."""
        where = qe.Filter(must=[root_filter(cond), qe.HasVectorCondition(SPARSE_VECTOR)])
        with self._lock:
            return int(self._shard.count(qe.CountRequest(filter=where)))

    def flush(self) -> None:
        """See :class:`VectorBackend`."""
        with self._lock:
            self._shard.flush()

    def optimize(self) -> bool:
        """Build the HNSW index now. Blocks (and holds the GIL) for seconds on large shards."""
        with self._lock:
            return bool(self._shard.optimize())

    def erase(self, *, ids: Sequence[str] = (), cond: Cond | None = None) -> ErasureReport:
        """Delete the points ``ids`` and those matching ``cond``, then :meth:`vacuum`: when
        this returns, no file of the store holds their payloads, vectors or ids. The
        metadata marks the erasure pending before the delete, so a crash anywhere in between
        is finished at the next open. Blocks every other call on this store meanwhile."""
        with self._lock:
            started = time.perf_counter()
            before = int(self._shard.count(qe.CountRequest()))
            self._write_meta(vacuum_pending=True)
            if ids:
                self._shard.update(qe.UpdateOperation.delete_points(list(ids)))
            if cond is not None:
                self._shard.update(qe.UpdateOperation.delete_points_by_filter(root_filter(cond)))
            deleted_at = time.perf_counter()
            _crash_point("erase:deleted")
            report = self.vacuum()
            report.deleted = before - report.points_kept
            report.steps = {"delete": deleted_at - started, **report.steps}
            report.seconds = time.perf_counter() - started
            return report

    def vacuum(self) -> ErasureReport:
        """Rewrite the shard without its deleted points: copy every live point (payload and
        vector, ids unchanged) into a fresh shard directory, commit it by replacing the
        metadata file, then remove the old directory, WAL included. The copy is indexed in
        bounded steps as it is written (see :data:`AUTO_INDEX_POINTS`). Costs one read
        and one write of every live point; see README "Forgetting a user" for measurements.
        A shard without the keyword sparse vector (an old store, or another weighting scheme)
        gets it here, computed from each payload; the commit records the scheme."""
        with self._lock:
            started = time.perf_counter()
            reindex = self._meta.get("keyword") != SPARSE_SCHEME
            old_dir = self.path / self.shard_name
            new_name = f"{DEFAULT_SHARD}-{uuid.uuid4().hex[:12]}"
            new_dir = self.path / new_name
            new = qe.EdgeShard.create(str(new_dir), self._config())
            kept = 0
            since_step = 0
            try:
                create_indexes(new)
                offset: Any = None
                while True:
                    request = qe.ScrollRequest(
                        limit=_COPY_BATCH, offset=offset, with_payload=True, with_vector=True
                    )
                    records, offset = self._shard.scroll(request)
                    if records:
                        points = [
                            qe.Point(
                                r.id,
                                vectors(dense_of(r.vector), r.payload or {})
                                if reindex
                                else r.vector,
                                r.payload,
                            )
                            for r in records
                        ]
                        new.update(qe.UpdateOperation.upsert_points(points))
                        kept += len(records)
                        since_step += len(records)
                        if since_step >= AUTO_INDEX_POINTS:  # keep the copy's segments bounded
                            new.optimize()
                            since_step = 0
                    if offset is None or not records:
                        break
                _crash_point("vacuum:copied")
                new.flush()
            except BaseException:
                new.close()
                shutil.rmtree(new_dir, ignore_errors=True)
                raise
            copied_at = time.perf_counter()
            written = disk_bytes(new_dir)
            removed = disk_bytes(old_dir)
            # the commit point; the copy has bounded segments and the keyword scheme from here on
            self._write_meta(
                shard=new_name,
                vacuum_pending=False,
                index_layout=INDEX_LAYOUT,
                keyword=SPARSE_SCHEME,
                quantization=current_quantization(),
            )
            _crash_point("vacuum:committed")
            old, self._shard = self._shard, new  # the new shard serves from here on
            self._unindexed = self._pending_points()
            old.close()
            shutil.rmtree(old_dir)
            fsync_dir(self.path)
            done = time.perf_counter()
        log.info(
            "store vacuumed: %d live point(s) copied into %s, old shard removed (%.2fs)",
            kept,
            new_name,
            done - started,
        )
        return ErasureReport(
            mechanism="shard rewrite",
            physical=True,
            points_kept=kept,
            bytes_written=written,
            bytes_removed=removed,
            seconds=done - started,
            steps={"copy": copied_at - started, "swap": done - copied_at},
        )

    def managed_paths(self) -> list[Path]:
        """The whole store directory: shard(s), WAL, metadata."""
        return [self.path]

    def close(self) -> None:
        """See :class:`VectorBackend`."""
        self._closing = True
        self._index_wanted.set()
        indexer = self._indexer
        if indexer is not None and indexer is not threading.current_thread():
            indexer.join()
        with self._lock:
            shard = getattr(self, "_shard", None)
            if shard is not None:
                shard.close()
                self._shard = None
            self._release_lock()


__all__ = ["EdgeBackend"]
