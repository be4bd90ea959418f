"""The memory store facade: records in, scoped hybrid recall out.

:class:`MemoryStore` keeps every :class:`~langgraph_memory.core.records.MemoryRecord` as one point
of a Qdrant collection: a dense vector, a sparse BM25 vector (the keyword channel, see
:mod:`langgraph_memory.store.keyword`) and the payload. Dense and keyword candidates come from
one batched engine call, with the keyword IDF computed over the caller's user only; the
collection is the single source of truth. A server collection created before the sparse
vector existed is served by the legacy path: an in-memory BM25+
:class:`~langgraph_memory.store.keyword.KeywordIndex` per user, rebuilt from the collection
on demand.

This module is the facade: CRUD with compare-and-set, ``supersede``, erasure and listing.
It delegates validation and TTL stamping to :mod:`~langgraph_memory.store.prepare`, recall
to :mod:`~langgraph_memory.store.recall`, the keyword indexes to
:mod:`~langgraph_memory.store.keyword_cache` and supersession repair to
:mod:`~langgraph_memory.store.supersession`; the ``a*`` async twins are generated into
:mod:`~langgraph_memory.store.async_store`.

Guarantees:

* Every call takes a :class:`~langgraph_memory.core.scope.Scope`; there is no global scope.
* Recall filters (user, project, acl, status, not superseded, validity window, expiry, caller
  filters) run inside the vector query; the keyword side evaluates the same filter tree over
  the caller's own user partition only.
* Updates use compare-and-set on ``version``: a stale ``expected_version`` raises
  :class:`~langgraph_memory.errors.VersionConflict` and writes nothing.
* Nothing is overwritten by ``supersede``: the old version keeps its text and gets
  ``superseded_by`` and ``valid_to``; ``history`` and ``search(as_of=...)`` still see it.
* ``supersede`` never leaves two current versions, even if the process is killed mid-way:
  the old record is marked first (with a pending marker), the new one written second, the
  marker cleared third. A crash after the first step leaves the old record pointing at a
  record that does not exist (zero current versions, never two); opening the store repairs
  it (see :meth:`MemoryStore.repair_interrupted_writes`), so after a reopen there is exactly
  one current version per chain.
* If the embedder or the vector engine fails during recall, recall falls back to BM25 alone
  and says so (``RecallResult.degraded``) instead of raising.
"""

from __future__ import annotations

import builtins
import os
import threading
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import ValidationError

from ..core.config import DEFAULT_PATH, LifecyclePolicy, MemoryConfig, RecallConfig
from ..core.logsafe import get_logger
from ..core.records import MAX_REASON_CHARS, MemoryRecord, coerce_time, utcnow
from ..core.scope import Scope
from ..embeddings import Embedder, EmbeddingCache, LangChainEmbeddings, load_embedder
from ..errors import ConfigError, RecordNotFound, RecordValidationError, ScopeError, VersionConflict
from ..lifecycle.audit import AuditLog
from ..lifecycle.forget import ForgetReceipt, forget_user
from ..lifecycle.forget_targets import UserHandles, UserJournal
from ._common import (
    canonical_id,
    check_type,
    check_version,
    check_where,
    coerce_scope,
    payload_created_at,
)
from .async_store import AsyncMemoryStoreMixin
from .backend import ErasureReport, OrderedRead, VectorBackend
from .candidates import RecallSources
from .filters import And, Cond, Eq, listing_filter, recall_filter, scope_filter, user_filter
from .foreground import ForegroundGate, in_background_work
from .keyword import KeywordIndex, never_valid
from .keyword_cache import KeywordCache
from .prepare import prepare_record, record_parts
from .recall import explain as explain_recall
from .recall import search as recall_search
from .results import RecallExplanation, RecallResult
from .status import evict_over_capacity, write_uses
from .supersession import clear_marker, closed_at, repair_supersessions, restore_superseded
from .supersession import marker as pending_marker
from .uses import UseBuffer, Uses

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from qdrant_client import QdrantClient


def _owns(lock: object) -> bool:
    """Whether the current thread holds ``lock`` (a ``threading.RLock``)."""
    owned = getattr(lock, "_is_owned", None)
    return bool(owned()) if callable(owned) else False


log = get_logger("store")
_DEFAULT_LIFECYCLE = LifecyclePolicy()

_IMMUTABLE_FIELDS = {"id", "user_id", "version", "created_at"}
EMBED_BATCH = 64
"""Texts per embedding call when a write embeds many texts."""
EMBED_THREADS_ENV = "LGM_EMBED_THREADS"
"""Environment variable that sets :data:`EMBED_THREADS` (read at import)."""
BAD_EMBED_THREADS = "{env}={value!r} is not a positive integer; using {default} embedding threads"


def _embed_threads() -> int:
    """:data:`EMBED_THREADS`: ``$LGM_EMBED_THREADS`` when set, else one per core, up to 4."""
    default = max(1, min(4, os.cpu_count() or 1))
    value = os.environ.get(EMBED_THREADS_ENV)
    if value is None:
        return default
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        log.warning(BAD_EMBED_THREADS.format(env=EMBED_THREADS_ENV, value=value, default=default))
        return default
    return threads


EMBED_THREADS = _embed_threads()
"""Threads that embed the parts of one big write (more than :data:`EMBED_BATCH` texts) when
the embedder declares ``parallel_encode`` (the default one does): one per core, up to 4, or
``$LGM_EMBED_THREADS``. Each thread runs single-threaded BLAS, so a busy machine loses
nothing to spin-waiting; on 2 free cores 2 threads embed whole chat sessions 1.7x faster
than one (``bench latency --tenants``, ingest case)."""


def _crash_point(step: str) -> None:
    """No-op between the steps of a multi-step write; crash tests replace it to kill the
    process exactly there."""


_ID_IN_USE = (
    "a record id given to add() cannot be used: add() needs new ids (leave id unset and the "
    "store generates one); change an existing record of yours with update()"
)


DEFAULT_COLLECTION = "langgraph_memory"
"""The collection name when neither ``collection`` nor a ``config`` names one."""
CONFLICTING_ARGUMENTS = (
    "MemoryStore got both config= and {names}: the config already holds these settings, "
    "so set them in the MemoryConfig (or drop config=)"
)


class MemoryStore(AsyncMemoryStoreMixin):
    """Scoped, versioned memory records with hybrid (dense + BM25) recall.

    ``MemoryStore()`` opens the embedded engine at ``./.langgraph_memory``;
    ``MemoryStore(path=...)`` picks the directory; ``MemoryStore(url=...)`` uses a Qdrant server;
    ``MemoryStore(client=QdrantClient(...))`` uses a ready client. Close it (or use ``with``).

    ``config=MemoryConfig(...)`` holds the storage settings itself: together with ``path``,
    ``url``, ``api_key``, ``collection``, ``recall`` or an embedder *name* it raises
    :class:`~langgraph_memory.errors.ConfigError` naming them, never picks one silently.
    An embedder *object*, ``client`` and ``lifecycle`` combine with a config.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: str | Embedder | LangChainEmbeddings | None = None,
        url: str | None = None,
        api_key: str | None = None,
        client: QdrantClient | None = None,
        collection: str | None = None,
        config: MemoryConfig | None = None,
        recall: RecallConfig | None = None,
        lifecycle: LifecyclePolicy | None = _DEFAULT_LIFECYCLE,
        audit: AuditLog | None = None,
    ) -> None:
        if path is not None and not os.fspath(path).strip():
            raise ConfigError("path must name a directory (got an empty path)")
        check_type(config, MemoryConfig, "config")
        check_type(recall, RecallConfig, "recall")
        check_type(lifecycle, LifecyclePolicy, "lifecycle")
        check_type(audit, AuditLog, "audit")
        if config is not None:
            given = {
                "path": path,
                "url": url,
                "api_key": api_key,
                "collection": collection,
                "recall": recall,
                "embedder": embedder if isinstance(embedder, str) else None,
            }
            conflicting = [name for name, value in given.items() if value is not None]
            if conflicting:
                raise ConfigError(CONFLICTING_ARGUMENTS.format(names=", ".join(conflicting)))
        if config is None:
            config = MemoryConfig.build(
                path=None if path is None else os.fspath(path),
                url=url,
                api_key=api_key,
                collection=DEFAULT_COLLECTION if collection is None else collection,
                embedder=embedder if isinstance(embedder, str) else "use-multilingual",
                **({"recall": recall} if recall is not None else {}),
            )
        self.config = config
        model = load_embedder(
            embedder if embedder is not None and not isinstance(embedder, str) else config.embedder
        )
        self.embedder: Embedder = (
            EmbeddingCache(model, config.embedding_cache)
            if config.embedding_cache and not isinstance(model, EmbeddingCache)
            else model
        )
        """The embedding model, behind an :class:`~langgraph_memory.embeddings.EmbeddingCache`
        of recent texts unless ``MemoryConfig(embedding_cache=0)``."""
        self.backend: VectorBackend = self._open_backend(client)
        self._write_lock = threading.RLock()
        self.foreground = ForegroundGate()
        """The recalls of this store a user waits for (``load_memory`` marks them); the
        store calls of background work (the background writer, the use flusher) wait for
        them at their start (see :mod:`~langgraph_memory.store.foreground`)."""
        self._keyword = KeywordCache(self.backend, self._write_lock)
        self._closed = False
        self.memory_version = 0
        """Bumped on every write; caches keyed on it never serve stale memory."""
        self.last_erasure: ErasureReport | None = None
        """How the latest delete made the records unreadable on disk, and what it cost."""
        self.lifecycle = lifecycle
        """Default TTLs per layer/kind applied to new records without ``expire_at``, and the
        optional capacity cap enforced after writes (``None``: store records as given)."""
        self.audit: AuditLog | None = audit
        """The audit log of this store: the lifecycle changes it makes itself (capacity
        evictions, stale records reactivated by :meth:`record_use`) and every lifecycle
        operation or :meth:`forget_user` given no ``audit=`` write to it. ``None``: they go
        to the bounded in-memory
        :func:`~langgraph_memory.lifecycle.audit.default_audit_log`."""
        self._uses = UseBuffer(
            self._write_uses,
            interval=config.use_flush_seconds,
            max_pending=config.use_flush_pending,
        )
        self.repair_interrupted_writes()

    def _open_backend(self, client: QdrantClient | None) -> VectorBackend:
        cfg = self.config
        dims = int(self.embedder.dims)
        if client is not None or cfg.url:
            from .server import QdrantServerBackend

            return QdrantServerBackend(
                dims,
                self.embedder.name,
                url=cfg.url,
                api_key=cfg.api_key,
                client=client,
                collection=cfg.collection,
            )
        from .edge import EdgeBackend

        return EdgeBackend(
            cfg.path or DEFAULT_PATH, dims, self.embedder.name, auto_index=cfg.auto_index
        )

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Write pending uses (:meth:`record_use`), flush and release the collection.
        Idempotent."""
        if not self._closed:
            self._uses.close()  # before the lock: the use writer takes it
        with self._write_lock:
            if self._closed:
                return
            self._closed = True
            self._keyword.clear()
            self._forget_embeddings()
            self.backend.close()

    def flush(self) -> None:
        """Write pending uses (:meth:`record_use`) and persist segments now (writes are
        already durable through the engine's WAL)."""
        self._check_open()
        self._uses.flush()
        self.backend.flush()

    def record_use(
        self,
        ids: Sequence[str],
        scope: Scope | Mapping[str, Any] | str,
        *,
        now: datetime | date | str | None = None,
    ) -> None:
        """Note that the records ``ids`` were used (reached a prompt) without writing now:
        uses are coalesced per record and written in the background within
        ``MemoryConfig.use_flush_seconds`` (or once ``use_flush_pending`` records wait), by
        :meth:`flush_uses`, :meth:`flush` and :meth:`close`, as
        :func:`~langgraph_memory.lifecycle.touch` would (``last_accessed_at``, one more
        ``access_count`` per use, stale -> active). Ids the scope cannot see, and records
        deleted before the write, are skipped; :meth:`delete_user` drops the user's pending
        uses. Use :func:`~langgraph_memory.lifecycle.touch` to write at once."""
        self._check_open()
        sc = coerce_scope(scope)
        when = coerce_time(now, "now") if now is not None else utcnow()
        valid: builtins.list[str] = []
        for record_id in ids:
            try:
                valid.append(canonical_id(record_id))
            except RecordNotFound:  # not an id: nothing to mark, as touch() skips it
                continue
        self._uses.add(valid, sc, when)

    def flush_uses(self) -> int:
        """Write the pending uses of :meth:`record_use` now; returns how many records."""
        self._check_open()
        return self._uses.flush()

    def _write_uses(self, scope: Scope, uses: Uses) -> None:
        if not self._closed:
            write_uses(self, uses, scope)

    def optimize(self) -> bool:
        """Optimize every segment now; returns whether it did anything. Not needed on the
        embedded engine (writes index new points in short steps, see
        ``MemoryConfig.auto_index``); on a store created before that, it blocks for seconds."""
        self._check_open()
        with self._write_lock:
            return self.backend.optimize()

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigError("this MemoryStore is closed")
        if self.foreground.active and in_background_work():
            self.foreground.yield_to_foreground(_owns(self._write_lock))

    # ------------------------------------------------------------------ helpers
    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``, rows in order. Up to :data:`EMBED_BATCH` texts go through the
        embedding cache (one model call for those it does not hold). A bigger batch goes to
        the model directly; for an embedder that declares ``parallel_encode`` (the default
        numpy one: it releases the GIL in its matrix products) it is cut into contiguous
        parts of about equal length in characters (the cost of a text is its length), at
        most :data:`EMBED_BATCH` texts each and a multiple of :data:`EMBED_THREADS` of
        them, embedded by that many threads and concatenated in order: the same rows as
        one call."""
        texts = list(texts)
        model = self.embedder
        if len(texts) > EMBED_BATCH and isinstance(model, EmbeddingCache):
            model = model.inner  # a bulk write: its texts would only push a turn's out
        parallel = bool(getattr(model, "parallel_encode", False))
        if parallel and len(texts) > EMBED_BATCH and EMBED_THREADS > 1:
            from concurrent.futures import ThreadPoolExecutor

            batches = _balanced_parts(texts, EMBED_THREADS, EMBED_BATCH)
            with ThreadPoolExecutor(min(EMBED_THREADS, len(batches))) as pool:
                vectors = np.concatenate(list(pool.map(model.encode, batches)))
        else:
            vectors = model.encode(texts)
        if vectors.shape != (len(texts), self.backend.dims):
            raise ConfigError(
                f"embedder {self.embedder.name!r} returned shape {vectors.shape}, "
                f"expected ({len(texts)}, {self.backend.dims})"
            )
        return vectors

    def _vectors_for(
        self, records: Sequence[MemoryRecord], payloads: Sequence[Mapping[str, Any]]
    ) -> np.ndarray:
        """The dense vectors of new records, in one model call. A record valid at no instant
        (the write path's ledger and pending entries) gets the all-zero placeholder instead
        of a model vector: no query returns it (every search filters on validity), so its
        vector is never compared, and embedding it was pure bookkeeping cost."""
        out = np.zeros((len(records), self.backend.dims), dtype=np.float32)
        wanted = [i for i, p in enumerate(payloads) if not never_valid(p)]
        if wanted:
            out[wanted] = self._embed([records[i].index_text() for i in wanted])
        return out

    def _forget_embeddings(self) -> None:
        """Empty the embedding cache: its keys are texts, and an erasure must not leave the
        erased texts in this process (the cache is not per user, so all of it goes)."""
        if isinstance(self.embedder, EmbeddingCache):
            self.embedder.clear()

    def prefetch_embeddings(self, texts: Sequence[str]) -> int:
        """Embed ``texts`` that are about to be written or searched in one model call, so
        the writes and searches that follow are served from the embedding cache; returns how
        many texts reached the model (0 when ``MemoryConfig(embedding_cache=0)``). Purely an
        optimisation: what is later written or found does not depend on it."""
        self._check_open()
        if not isinstance(self.embedder, EmbeddingCache):
            return 0
        return self.embedder.prefetch(texts)

    def _keyword_index(self, user_id: str) -> KeywordIndex:
        """The user's keyword index, built from the collection on first use (LRU-cached)."""
        return self._keyword.index(user_id, self.config)

    def _prepare(
        self, record: MemoryRecord | str, scope: Scope, fields: dict[str, Any]
    ) -> MemoryRecord:
        return prepare_record(record, scope, fields, self.lifecycle)

    def _visible(self, payload: Mapping[str, Any], scope: Scope) -> bool:
        return And(tuple(scope_filter(scope))).matches(payload)

    def _load(self, record_id: str, scope: Scope) -> dict[str, Any]:
        record_id = canonical_id(record_id)
        found = self.backend.retrieve([record_id])
        if not found or not self._visible(found[0], scope):
            raise RecordNotFound(f"no memory {record_id} in scope of user {scope.user_id!r}")
        return found[0]

    # ------------------------------------------------------------------ writes
    def add(
        self, record: MemoryRecord | str, *, scope: Scope | Mapping[str, Any] | str, **fields: Any
    ) -> str:
        """Store one new record and return its id. ``record`` may be a text; ``fields`` set or
        override record fields. The record must belong to ``scope``'s user (and project)."""
        return self.add_many([record], scope=scope, **fields)[0]

    def add_many(
        self,
        records: Sequence[MemoryRecord | str],
        *,
        scope: Scope | Mapping[str, Any] | str,
        **fields: Any,
    ) -> builtins.list[str]:
        """Store several new records (embedded in one batch; big batches on several threads
        where the embedder allows it, see :data:`EMBED_THREADS`). All or nothing on
        validation: if any record is invalid, none is written, and the error names the
        record (``record 3 of 10: ...``); :meth:`add_each` writes the valid ones and returns
        an error for each invalid one instead.

        A text longer than :data:`~langgraph_memory.core.records.MAX_TEXT_CHARS` is not refused:
        it is split at paragraph/sentence/word breaks into parts of at most
        :data:`CHUNK_CHARS` characters, stored as records that share
        ``metadata["chunk_of"]`` (the first part's id, which is the id returned for it) and
        carry ``metadata["chunk"]`` / ``metadata["chunks"]`` (position, count)."""
        results = self._add_batch(records, scope, fields, collect_errors=False)
        return [r for r in results if isinstance(r, str)]

    def add_each(
        self,
        records: Sequence[MemoryRecord | str],
        *,
        scope: Scope | Mapping[str, Any] | str,
        **fields: Any,
    ) -> builtins.list[str | RecordValidationError]:
        """As :meth:`add_many`, but an invalid record (an empty text, a bad field) does not
        stop the others: the result has one entry per record, in order, its id or the
        :class:`RecordValidationError` that kept it out. Scope errors still raise (nothing is
        written then), as do duplicate ids within the batch or ids already in use."""
        return self._add_batch(records, scope, fields, collect_errors=True)

    def _add_batch(
        self,
        records: Sequence[MemoryRecord | str],
        scope: Scope | Mapping[str, Any] | str,
        fields: dict[str, Any],
        *,
        collect_errors: bool,
    ) -> builtins.list[str | RecordValidationError]:
        self._check_open()
        sc = coerce_scope(scope)
        if isinstance(records, str | bytes | Mapping) or not isinstance(records, Sequence):
            raise RecordValidationError(
                f"add_many expects a list of records or texts, got {type(records).__name__}; "
                "use add() for one record"
            )
        results: builtins.list[str | RecordValidationError] = []
        prepared: builtins.list[MemoryRecord] = []
        for position, record in enumerate(records):
            try:
                parts = [self._prepare(r, sc, f) for r, f in record_parts(record, fields)]
            except RecordValidationError as exc:
                error = RecordValidationError(f"record {position} of {len(records)}: {exc}")
                if not collect_errors:
                    raise error from exc
                log.info("record %d of %d not written: %s", position, len(records), exc)
                results.append(error)
                continue
            results.append(parts[0].id)
            prepared.extend(parts)
        if not prepared:
            return results
        ids = [r.id for r in prepared]
        if len(set(ids)) != len(ids):
            raise RecordValidationError("duplicate record ids in one add_many call")
        payloads = [r.to_payload() for r in prepared]
        vectors = self._vectors_for(prepared, payloads)
        with self._write_lock:
            if self.backend.retrieve(ids):
                # one message whoever holds the id: it must not reveal other tenants' ids
                raise RecordValidationError(_ID_IN_USE)
            self.backend.upsert(list(zip(ids, vectors, payloads, strict=True)))
            self._keyword.mirror(payloads)
            self.memory_version += 1
        log.info(
            "memory written: %d record(s) for user %s",
            len(ids),
            sc.user_id,
            extra={"event": "write", "user_id": sc.user_id, "ids": ids, "count": len(ids)},
        )
        self._enforce_capacity(sc)
        return results

    def _enforce_capacity(self, scope: Scope) -> None:
        """Archive the lowest-value records when the scope is over the policy's cap."""
        policy = self.lifecycle
        cap = policy.max_records_per_scope if policy is not None else None
        if policy is None or cap is None or self.backend.count(recall_filter(scope)) <= cap:
            return
        evict_over_capacity(self, scope, policy=policy)

    def get(self, record_id: str, *, scope: Scope | Mapping[str, Any] | str) -> MemoryRecord:
        """The record with ``record_id`` if ``scope`` can see it, else :class:`RecordNotFound`."""
        self._check_open()
        return MemoryRecord.from_payload(self._load(record_id, coerce_scope(scope)))

    def get_many(
        self, record_ids: Sequence[str], *, scope: Scope | Mapping[str, Any] | str
    ) -> builtins.list[MemoryRecord]:
        """The records among ``record_ids`` that ``scope`` can see (others are skipped, so
        another tenant's id and a missing id look the same), in the order asked."""
        self._check_open()
        sc = coerce_scope(scope)
        ids = [canonical_id(i) for i in record_ids]
        found = {p["id"]: p for p in self.backend.retrieve(ids) if self._visible(p, sc)}
        return [MemoryRecord.from_payload(found[i]) for i in ids if i in found]

    def update(
        self,
        record_id: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        expected_version: int | None = None,
        **changes: Any,
    ) -> MemoryRecord:
        """Change fields of a record with compare-and-set on its version.

        With ``expected_version`` the write lands only if the stored version still equals it;
        without, the version just read is used. Either way a concurrent change makes this
        raise :class:`VersionConflict` and write nothing. Returns the new version.
        """
        self._check_open()
        sc = coerce_scope(scope)
        bad = _IMMUTABLE_FIELDS & set(changes)
        if bad:
            raise RecordValidationError(f"fields {sorted(bad)} cannot be changed by update()")
        if "project_id" in changes and changes["project_id"] not in (None, sc.project_id):
            raise ScopeError("update() cannot move a record into another project")
        return self._cas_update(record_id, sc, expected_version, changes)

    def _cas_update(
        self,
        record_id: str,
        scope: Scope,
        expected_version: int | None,
        changes: Mapping[str, Any],
        marker: Mapping[str, Any] | None = None,
    ) -> MemoryRecord:
        """CAS-write ``changes``; ``marker``: payload-only ``_`` fields stored with them
        (any later update drops them, as the record model does not carry them)."""
        expected_version = check_version(expected_version)
        loaded = self._load(record_id, scope)
        current = MemoryRecord.from_payload(loaded)
        expected = current.version if expected_version is None else expected_version
        if current.version != expected:
            raise VersionConflict(current.id, expected, current.version)
        try:
            updated = MemoryRecord.model_validate(
                {
                    **current.model_dump(),
                    **changes,
                    "version": expected + 1,
                    "updated_at": utcnow(),
                }
            )
        except ValidationError as exc:
            raise RecordValidationError(f"invalid update: {exc}") from exc
        text_changed = updated.index_text() != current.index_text()
        payload = {**updated.to_payload(), **(marker or {})}
        vector: np.ndarray | None = None
        if not never_valid(payload) and (text_changed or never_valid(loaded)):
            # a record that becomes valid had only the placeholder vector (see _vectors_for)
            vector = self._embed([updated.index_text()])[0]
        with self._write_lock:
            if not self.backend.cas_write(current.id, payload, expected, vector):
                stored = self.backend.retrieve([current.id])
                actual = stored[0].get("version") if stored else None
                log.info(
                    "memory update conflict",
                    extra={"event": "conflict", "user_id": scope.user_id, "id": current.id},
                )
                raise VersionConflict(current.id, expected, actual)
            self._keyword.mirror([payload], text_changed=text_changed)
            self.memory_version += 1
        log.info(
            "memory updated",
            extra={
                "event": "update",
                "user_id": scope.user_id,
                "id": current.id,
                "version": updated.version,
                "fields": sorted(changes),
            },
        )
        return updated

    def supersede(
        self,
        old_id: str,
        new_record: MemoryRecord | str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        expected_version: int | None = None,
        **fields: Any,
    ) -> MemoryRecord:
        """Replace a record by a new one without losing the old: the old one gets
        ``superseded_by`` and ``valid_to`` (compare-and-set), then the new record is stored.

        Crash-safe ordering: (1) mark the old record (CAS, with a pending marker), (2) write
        the new record, (3) clear the marker. A kill after (1) leaves zero current versions
        until the next open repairs the chain (the old record becomes current again); a kill
        after (2) leaves the finished supersession plus a stale marker, which the repair just
        clears. Recall can never see two current versions. On a version conflict nothing is
        written and :class:`VersionConflict` is raised; if writing the new record fails, the
        old record is restored and the error re-raised."""
        self._check_open()
        sc = coerce_scope(scope)
        expected_version = check_version(expected_version)
        old = MemoryRecord.from_payload(self._load(old_id, sc))
        if old.superseded_by is not None:
            raise VersionConflict(
                old.id, old.version if expected_version is None else expected_version, old.version
            )
        now = utcnow()
        inherit = {
            key: getattr(old, key)
            for key in ("layer", "kind", "subject", "predicate", "project_id", "acl", "task_id")
            if key not in fields and not isinstance(new_record, MemoryRecord)
        }
        new = self._prepare(new_record, sc, {**inherit, **fields})
        if new.valid_from is None:
            new = new.model_copy(update={"valid_from": now})
        with self._write_lock:
            if self.backend.retrieve([new.id]):
                raise RecordValidationError(_ID_IN_USE)
            marked = self._cas_update(
                old.id,
                sc,
                expected_version if expected_version is not None else old.version,
                # the old value holds until the new one does (dated history: when it was said)
                {"superseded_by": new.id, "valid_to": closed_at(old, new, now)},
                marker=pending_marker(new.id, old.valid_to),
            )
            _crash_point("supersede:marked")
            try:
                self.add(new, scope=sc)
            except BaseException:
                written = bool(self.backend.retrieve([new.id]))
                if not written and restore_superseded(  # not written: undo the mark
                    self.backend, self._keyword, marked, old.valid_to
                ):
                    self.memory_version += 1
                raise
            _crash_point("supersede:written")
            clear_marker(self.backend, marked)
        log.info(
            "memory superseded",
            extra={"event": "supersede", "user_id": sc.user_id, "old": old.id, "new": new.id},
        )
        return new

    def repair_interrupted_writes(self) -> int:
        """Finish or undo supersessions interrupted by a crash; returns how many records were
        restored as current. Runs at open; cheap: it reads only records with a pending
        marker. A marker whose new record exists is cleared (the supersession finished); one
        whose new record is missing restores the old record (``superseded_by`` cleared,
        ``valid_to`` as before). With shared writers, markers younger than
        :data:`~langgraph_memory.store.supersession.SUPERSEDE_GRACE_SECONDS` are left alone
        (another process may be mid-write)."""
        self._check_open()
        with self._write_lock:
            restored = repair_supersessions(self.backend, self._keyword)
            self.memory_version += restored
        return restored

    def invalidate(
        self,
        record_id: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        reason: str,
        expected_version: int | None = None,
        at: datetime | date | str | None = None,
    ) -> MemoryRecord:
        """Close a record's validity window (it stops being recalled; history keeps it) and
        record why. ``reason`` is a string of at most ``MAX_REASON_CHARS`` characters; ``at``
        a datetime, date or ISO-8601 string (default: now). Bad arguments write nothing."""
        self._check_open()
        sc = coerce_scope(scope)
        check_version(expected_version)
        if not isinstance(reason, str):
            raise RecordValidationError(f"reason must be a string, got {type(reason).__name__}")
        if len(reason) > MAX_REASON_CHARS:
            raise RecordValidationError(
                f"reason has {len(reason)} characters, more than {MAX_REASON_CHARS}"
            )
        when = coerce_time(at, "at") if at is not None else utcnow()
        current = MemoryRecord.from_payload(self._load(record_id, sc))
        meta = {**current.metadata, "invalidated": {"at": when.isoformat(), "reason": reason}}
        return self._cas_update(
            current.id,
            sc,
            expected_version,
            {"valid_to": max(when, current.valid_from or when), "metadata": meta},
        )

    def delete(self, record_id: str, *, scope: Scope | Mapping[str, Any] | str) -> bool:
        """Erase a record: remove it from the vector collection and the keyword index, and
        from the store's files (see :meth:`delete_many`). Returns False when no such record
        is visible in ``scope`` (then nothing is written)."""
        return self.delete_many([record_id], scope=scope) == 1

    def delete_many(
        self, record_ids: Sequence[str], *, scope: Scope | Mapping[str, Any] | str
    ) -> int:
        """Erase the records among ``record_ids`` that ``scope`` can see (others are skipped);
        returns how many. Deleting is erasing: on the embedded engine the shard is rewritten
        without them before this returns (:meth:`EdgeBackend.vacuum`), so no file of the store
        holds their text, vector or id; one call costs one rewrite of the live points, so
        delete in batches. Records to keep but not recall are *archived* instead
        (:func:`~langgraph_memory.lifecycle.transition`). :attr:`last_erasure` reports it."""
        self._check_open()
        sc = coerce_scope(scope)
        if isinstance(record_ids, str | bytes) or not isinstance(record_ids, Sequence):
            raise RecordValidationError(
                f"delete_many expects a list of ids, got {type(record_ids).__name__}"
            )
        ids: builtins.list[str] = []
        for record_id in dict.fromkeys(record_ids):
            try:
                ids.append(self._load(record_id, sc)["id"])
            except RecordNotFound:
                continue
        if not ids:
            return 0
        with self._write_lock:
            self.last_erasure = self.backend.erase(ids=ids)
            self._keyword.unmirror(sc.user_id, ids)
            self._forget_embeddings()
            self.memory_version += 1
        log.info(
            "memory erased",
            extra={"event": "delete", "user_id": sc.user_id, "ids": ids, "count": len(ids)},
        )
        return len(ids)

    def delete_user(self, user_id: str) -> int:
        """Erase every record of ``user_id`` (every project, status and acl) from the
        collection, the keyword index and the store's files (as :meth:`delete_many`).
        Returns how many records were removed; :attr:`last_erasure` says how they were
        erased. Part of :meth:`forget_user`, which also clears checkpoints, handles and
        journals and checks the files."""
        self._check_open()
        sc = Scope(user_id=user_id)
        where = Eq("user_id", sc.user_id)
        with self._write_lock:
            self._uses.discard_user(sc.user_id)
            removed = self.backend.count(where)
            self.last_erasure = self.backend.erase(cond=where)
            self._keyword.drop(sc.user_id)
            self._forget_embeddings()
            self.memory_version += 1
        log.info(
            "user memory erased",
            extra={"event": "delete_user", "user_id": sc.user_id, "count": removed},
        )
        return removed

    def managed_paths(self) -> builtins.list[Path] | None:
        """The files and directories this store keeps (the embedded engine's directory);
        ``[]`` when nothing is on disk, ``None`` when the storage is a server's."""
        return self.backend.managed_paths()

    def user_records(
        self, user_id: str, *, where: Cond | None = None, include_internal: bool = False
    ) -> builtins.list[MemoryRecord]:
        """Every stored record of ``user_id``, newest first: every project, status and acl
        (the write path's bookkeeping only with ``include_internal=True``), optionally
        narrowed by ``where`` (evaluated in the engine). An administrative read for lifecycle
        sweeps, ``inspect`` and forget-user; an application reads through a scope
        (:meth:`list`)."""
        self._check_open()
        cond: Cond = user_filter(Scope(user_id=user_id).user_id, include_internal=include_internal)
        if where is not None:
            cond = And((cond, check_where(where)))
        records = [MemoryRecord.from_payload(p) for p in self.backend.scroll(cond)]
        records.sort(key=lambda r: r.created_at, reverse=True)
        return records

    def user_footprint(self, user_id: str) -> dict[str, int]:
        """What the store holds of ``user_id``: ``{"records": points of the user (every
        project, status, acl), "keyword_index": documents of the user in the in-memory BM25
        index plus the user's points carrying a keyword (sparse) vector}``. Both are 0 after
        :meth:`delete_user`."""
        self._check_open()
        user = Scope(user_id=user_id).user_id
        where = Eq("user_id", user)
        index = self._keyword.get(user)
        return {
            "records": self.backend.count(where),
            "keyword_index": (len(index) if index is not None else 0)
            + self.backend.count_keyword(where),
        }

    def forget_user(
        self,
        user_id: str,
        *,
        checkpointer: BaseCheckpointSaver[Any] | None = None,
        handle_store: UserHandles | None = None,
        background_writer: UserJournal | None = None,
        audit: AuditLog | None = None,
    ) -> ForgetReceipt:
        """Forget a user from inside the running application (the embedded engine admits one
        process per path, so the ``langgraph-memory forget`` command cannot while the app
        holds the store): exactly :func:`langgraph_memory.lifecycle.forget.forget_user` over
        this store and the given checkpointer, handle store, background writer and audit
        log. Returns the receipt."""
        return forget_user(
            user_id,
            store=self,
            checkpointer=checkpointer,
            handle_store=handle_store,
            background_writer=background_writer,
            audit=audit,
        )

    # ------------------------------------------------------------------ reads
    def list(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
        limit: int | None = None,
        where: Cond | None = None,
        all_projects: bool = False,
        include_internal: bool = False,
    ) -> builtins.list[MemoryRecord]:
        """Records ``scope`` can see, newest first. ``current_only`` keeps only what recall
        would consider (active, not superseded, valid now, not expired). ``where`` adds a
        filter tree evaluated inside the engine; ``all_projects=True`` reads every project of
        the scope's user (the user partition and acl still apply). The write path's
        bookkeeping records (:data:`~langgraph_memory.core.records.LEDGER_SUBJECT`) are not
        memory and are left out inside the engine, unless ``include_internal=True``. The
        order is decided on the raw payloads and only the ``limit`` returned are parsed
        (:meth:`list_payloads`)."""
        self._check_open()
        sc = coerce_scope(scope)
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 0
        ):
            raise RecordValidationError(f"limit must be a non-negative int or None, got {limit!r}")
        payloads = self.list_payloads(
            scope=sc,
            filters=filters,
            current_only=current_only,
            where=where,
            all_projects=all_projects,
            include_internal=include_internal,
        )
        kept = payloads[:limit] if limit is not None else payloads
        return [MemoryRecord.from_payload(p) for p in kept]

    def list_payloads(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
        where: Cond | None = None,
        all_projects: bool = False,
        include_internal: bool = False,
    ) -> builtins.list[dict[str, Any]]:
        """The raw payloads (:meth:`MemoryRecord.to_payload` form) of what :meth:`list` would
        return, in the same order (newest first), none of them parsed: for readers that drop
        most of what they list, and parse only what they keep
        (:meth:`MemoryRecord.from_payload`)."""
        self._check_open()
        sc = coerce_scope(scope)
        cond = _read_filter(sc, filters, current_only, where, all_projects, include_internal)
        payloads = builtins.list(self.backend.scroll(cond))
        payloads.sort(key=payload_created_at, reverse=True)
        return payloads

    def ordered_payloads(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        key: str,
        reads: Sequence[tuple[Cond | None, int, bool]],
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
    ) -> builtins.list[builtins.list[dict[str, Any]]] | None:
        """For each read ``(where, limit, descending)``, at most ``limit`` raw payloads of
        what :meth:`list_payloads` would return for ``filters`` and that ``where``, ordered
        inside the engine by the range-indexed numeric field ``key`` (one of
        :data:`~langgraph_memory.store.filters.FLOAT_INDEXES`, e.g. ``_created``; ascending,
        ``descending`` largest first), all in one engine call where the engine batches and
        with one instant for "current": a reader that wants the few records next to a value
        reads those few, not every match. Equal values come in the engine's order (no
        promise): a reader that needs an exact order reads every record of the last value
        it got (a ``where`` on that value) before it relies on what comes after. ``None``
        when the engine cannot order by ``key`` (a server collection without a range index
        on it): the reader lists instead."""
        self._check_open()
        sc = coerce_scope(scope)
        for _, limit, _ in reads:
            if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
                raise RecordValidationError(f"limit must be a positive int, got {limit!r}")
        base = _read_filter(sc, filters, current_only, None, False, False)  # one "now"
        ordered = [
            OrderedRead(base, key, limit, descending)
            if where is None
            else OrderedRead(check_where(where), key, limit, descending, shared=base)
            for where, limit, descending in reads
        ]
        return self.backend.scroll_ordered(ordered)

    def count(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
        where: Cond | None = None,
        all_projects: bool = False,
        include_internal: bool = False,
    ) -> int:
        """How many records :meth:`list` would return (counted inside the engine)."""
        self._check_open()
        sc = coerce_scope(scope)
        cond = _read_filter(sc, filters, current_only, where, all_projects, include_internal)
        return self.backend.count(cond)

    def history(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        subject: str,
        predicate: str,
    ) -> builtins.list[MemoryRecord]:
        """Every version of ``(subject, predicate)`` in ``scope``, oldest first, superseded and
        invalidated ones included (deleted records are gone)."""
        self._check_open()
        sc = coerce_scope(scope)
        cond = listing_filter(sc, filters={"subject": subject, "predicate": predicate})
        records = [MemoryRecord.from_payload(p) for p in self.backend.scroll(cond)]
        records.sort(key=lambda r: (r.valid_from or r.created_at, r.created_at))
        return records

    def search(
        self,
        query: str,
        scope: Scope | Mapping[str, Any] | str,
        k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        as_of: datetime | date | str | None = None,
        *,
        mode: str = "hybrid",
        where: Cond | None = None,
        all_projects: bool = False,
    ) -> RecallResult:
        """Hybrid recall of at most ``k`` records ``scope`` may see, best first.

        ``mode`` is ``"hybrid"`` (default), ``"dense"`` or ``"keyword"``. ``as_of`` recalls what
        was valid at that instant (a datetime, a date or an ISO-8601 string; naive means UTC;
        a record is valid from its ``valid_from``, else from its ``created_at``), and recency
        decay counts back from it. Each hit carries an :class:`Explanation`. ``where`` adds a
        filter tree to the recall filter (inside the engine's query, and on the keyword side);
        ``all_projects=True`` recalls from every project of the scope's user (the user
        partition and acl still apply).
        """
        self._check_open()
        return recall_search(
            self._recall_sources(),
            query,
            coerce_scope(scope),
            k,
            filters,
            as_of,
            mode=mode,
            where=where,
            all_projects=all_projects,
        )

    def explain(
        self,
        query: str,
        record_id: str,
        scope: Scope | Mapping[str, Any] | str,
        *,
        k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        as_of: datetime | date | str | None = None,
    ) -> RecallExplanation:
        """Why ``record_id`` is (not) among the top ``k`` of :meth:`search` for ``query`` in
        ``scope`` (same ``filters`` / ``as_of``): invisible to the scope (another user's
        record reads exactly like a missing one), filtered out (which conditions), ranked
        below ``k`` (its rank and per-channel scores), or not a candidate at all. Runs one
        recall with every candidate ranked; nothing is written (no use is recorded)."""
        self._check_open()
        sc = coerce_scope(scope)
        try:
            payload: dict[str, Any] | None = self._load(record_id, sc)
        except RecordNotFound:
            payload = None
        return explain_recall(
            self._recall_sources(),
            query,
            record_id,
            payload,
            sc,
            k=k,
            filters=filters,
            as_of=as_of,
        )

    def _recall_sources(self) -> RecallSources:
        return RecallSources(self.backend, self.config.recall, self._embed, self._keyword_index)


def _balanced_parts(texts: Sequence[str], threads: int, most: int) -> builtins.list[list[str]]:
    """``texts`` cut, in order, into ``threads x k`` contiguous parts (the least ``k`` that
    keeps parts to about ``most`` texts) of about equal total length in characters; none
    empty, together exactly ``texts``."""
    rounds = -(-len(texts) // (threads * most))
    count = min(len(texts), threads * rounds)
    ends = np.cumsum([len(t) + 1 for t in texts])
    cuts = np.searchsorted(ends, ends[-1] * np.arange(1, count) / count, side="left") + 1
    bounds = [0, *sorted({int(c) for c in cuts if 0 < c < len(texts)}), len(texts)]
    return [list(texts[a:b]) for a, b in pairwise(bounds) if b > a]


def _read_filter(
    scope: Scope,
    filters: Mapping[str, Any] | None,
    current_only: bool,
    where: Cond | None,
    all_projects: bool,
    include_internal: bool,
) -> Cond:
    """The engine filter of :meth:`MemoryStore.list` and :meth:`MemoryStore.count`."""
    extra = () if where is None else (check_where(where),)
    build = recall_filter if current_only else listing_filter
    return build(
        scope,
        filters=filters,
        all_projects=all_projects,
        extra=extra,
        include_internal=include_internal,
    )


__all__ = ["MemoryStore"]
