"""The memory store facade: records in, scoped hybrid recall out.

:class:`MemoryStore` keeps every :class:`~langgraph_memory.core.records.MemoryRecord` as one point
of a Qdrant collection: a dense vector, a sparse BM25 vector (the keyword channel, see
:mod:`langgraph_memory.store.keyword`) and the payload. Dense and keyword candidates come from
one batched engine call, with the keyword IDF computed over the caller's user only; the
collection is the single source of truth. A server collection created before the sparse
vector existed is served by the legacy path: an in-memory BM25+
:class:`~langgraph_memory.store.keyword.KeywordIndex` per user, rebuilt from the collection
on demand.

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

import asyncio
import bisect
import builtins
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.config import DEFAULT_PATH, LifecyclePolicy, MemoryConfig, RecallConfig
from ..core.logsafe import error_kind, get_logger
from ..core.records import (
    MAX_REASON_CHARS,
    MAX_TEXT_CHARS,
    MemoryRecord,
    Status,
    coerce_time,
    to_utc,
    utcnow,
)
from ..core.scope import Scope
from ..core.text import detect_language, split_long_text
from ..embeddings import Embedder, EmbeddingCache, LangChainEmbeddings, load_embedder
from ..errors import (
    ConfigError,
    FilterError,
    RecordNotFound,
    RecordValidationError,
    ScopeError,
    VersionConflict,
)
from ..lifecycle.audit import AuditLog
from ..lifecycle.forget import ForgetReceipt, forget_user
from ..lifecycle.forget_targets import UserHandles, UserJournal
from ..lifecycle.policy import default_ttl
from .backend import EngineQuery, ErasureReport, ScoredPayload, VectorBackend
from .filters import (
    And,
    Cond,
    Eq,
    HasId,
    IsEmpty,
    Not,
    listing_filter,
    recall_filter,
    scope_filter,
)
from .keyword import KeywordIndex, query_weights
from .ranking import Explanation, rerank_factors, rrf_fusion, weighted_fusion
from .status import evict_over_capacity, write_uses
from .uses import UseBuffer, Uses

log = get_logger("store")
_DEFAULT_LIFECYCLE = LifecyclePolicy()
recall_log = get_logger("recall")

_IMMUTABLE_FIELDS = {"id", "user_id", "version", "created_at"}
PENDING_SUPERSEDE = "_supersede_pending"
"""Payload-only marker (never part of a record) on a record whose supersession is in
flight: the id of the new record. Removed once the new record is written."""


def _closed_at(old: MemoryRecord, new: MemoryRecord, now: datetime) -> datetime:
    """``valid_to`` of ``old`` superseded by ``new``: when ``new`` became valid, never before
    ``old`` began."""
    start = new.valid_from or now
    return max(start, old.valid_from or start)


PENDING_VALID_TO = "_supersede_prev_valid_to"
"""Payload-only: the ``valid_to`` the old record had before the in-flight supersession."""
PENDING_AT = "_supersede_pending_at"
"""Payload-only: when the supersession started (epoch seconds)."""
CHUNK_CHARS = 8_000
"""Part size (characters) of a text over ``MAX_TEXT_CHARS`` given to ``add_many``."""
EMBED_BATCH = 64
"""Texts per embedding call when a write embeds many texts."""
EMBED_THREADS = max(1, min(4, (os.cpu_count() or 1) // 2))
"""Threads that embed the batches of one big write: half the cores (1 on 2 cores, where two
threads measured no faster than one: ``bench latency --tenants``, ingest case)."""
SUPERSEDE_GRACE_SECONDS = 300.0
"""With shared writers (a server), a pending marker younger than this may belong to a
supersession still running in another process and is not repaired."""


def _crash_point(step: str) -> None:
    """No-op between the steps of a multi-step write; crash tests replace it to kill the
    process exactly there."""


_ID_IN_USE = (
    "a record id given to add() cannot be used: add() needs new ids (leave id unset and the "
    "store generates one); change an existing record of yours with update()"
)


def _check_type(value: Any, kind: type, name: str) -> None:
    """``ConfigError`` unless ``value`` is ``None`` or a ``kind``."""
    if value is not None and not isinstance(value, kind):
        raise ConfigError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")


def _check_version(value: Any) -> int | None:
    """An ``expected_version`` argument: ``None`` or an int (not a bool, not a string)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordValidationError(
            f"expected_version must be an int, got {type(value).__name__} {value!r}"
        )
    return value


class SearchHit(BaseModel):
    """One recalled memory with the reasons it ranked where it did."""

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    score: float
    explanation: Explanation


FILTER_REASONS = {
    "status": "its status is {status}, recall wants active",
    "superseded_by": "it was superseded by {superseded_by}",
    "_valid_from": "its validity starts later ({valid_from})",
    "_valid_to": "its validity ended ({valid_to})",
    "_expire_at": "it expired ({expire_at})",
}
"""Why a visible record fails a recall condition, by the condition's payload field."""


class RecallExplanation(BaseModel):
    """Why one record was (not) recalled for a query (:meth:`MemoryStore.explain`).

    ``recalled``: the record is among the top ``k`` for ``query``. ``reason``: one sentence
    (not visible to the scope; filtered out by status / supersession / validity / expiry /
    a caller filter, listed in ``filtered_by``; ranked below ``k``; not a candidate of
    either retriever). ``rank`` (1-based) and ``explanation`` (dense and keyword rank and
    score, fused score, rerank factors) when it was ranked; ``candidates``: how many records
    were ranked.
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    recalled: bool
    reason: str
    k: int
    filtered_by: list[str] = Field(default_factory=list)
    rank: int | None = None
    candidates: int = 0
    explanation: Explanation | None = None


class RecallResult(BaseModel):
    """The outcome of one recall: hits best first, and whether recall ran degraded."""

    model_config = ConfigDict(frozen=True)

    hits: list[SearchHit] = Field(default_factory=list)
    degraded: bool = False
    degraded_reason: str | None = None
    mode: str = "hybrid"
    elapsed_ms: float = 0.0

    def __iter__(self) -> Iterator[SearchHit]:  # type: ignore[override]
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index: int) -> SearchHit:
        return self.hits[index]

    @property
    def records(self) -> list[MemoryRecord]:
        """The recalled records, best first."""
        return [hit.record for hit in self.hits]

    @property
    def ids(self) -> list[str]:
        """The recalled record ids, best first."""
        return [hit.record.id for hit in self.hits]


def _coerce_scope(scope: Scope | Mapping[str, Any] | str | None) -> Scope:
    if scope is None:
        raise ScopeError(
            "a scope with a user_id is required: memory is never read or written globally"
        )
    return Scope.of(scope)  # type: ignore[arg-type]


class MemoryStore:
    """Scoped, versioned memory records with hybrid (dense + BM25) recall.

    ``MemoryStore()`` opens the embedded engine at ``./.langgraph_memory``;
    ``MemoryStore(path=...)`` picks the directory; ``MemoryStore(url=...)`` uses a Qdrant server;
    ``MemoryStore(client=QdrantClient(...))`` uses a ready client. Close it (or use ``with``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: str | Embedder | LangChainEmbeddings | None = None,
        url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        collection: str = "langgraph_memory",
        config: MemoryConfig | None = None,
        recall: RecallConfig | None = None,
        lifecycle: LifecyclePolicy | None = _DEFAULT_LIFECYCLE,
        audit: AuditLog | None = None,
    ) -> None:
        if path is not None and not os.fspath(path).strip():
            raise ConfigError("path must name a directory (got an empty path)")
        _check_type(config, MemoryConfig, "config")
        _check_type(recall, RecallConfig, "recall")
        _check_type(lifecycle, LifecyclePolicy, "lifecycle")
        _check_type(audit, AuditLog, "audit")
        if config is None:
            config = MemoryConfig.build(
                path=None if path is None else os.fspath(path),
                url=url,
                api_key=api_key,
                collection=collection,
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
        self._keyword: OrderedDict[str, KeywordIndex] = OrderedDict()
        self._keyword_built: dict[str, float] = {}
        self._keyword_skipped: dict[str, set[str]] = {}
        """Per user: ids kept out of the keyword index because they are valid at no instant."""
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

    def _open_backend(self, client: Any) -> VectorBackend:
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
            self._keyword_skipped.clear()
            self._forget_embeddings()
            self.backend.close()

    def flush(self) -> None:
        """Write pending uses (:meth:`record_use`) and persist segments now (writes are
        already durable through the engine's WAL)."""
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
        sc = _coerce_scope(scope)
        when = coerce_time(now, "now") if now is not None else utcnow()
        valid: builtins.list[str] = []
        for record_id in ids:
            try:
                valid.append(_canonical_id(record_id))
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

    # ------------------------------------------------------------------ helpers
    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; for an embedder that declares ``parallel_encode`` (the default
        numpy one: it releases the GIL in its matrix products), a batch of more than
        :data:`EMBED_BATCH` texts is split into batches embedded by up to
        :data:`EMBED_THREADS` threads, concatenated in order. Up to :data:`EMBED_BATCH` texts go
        through the embedding cache (one model call for those it does not hold); a bigger
        batch goes to the model directly."""
        texts = list(texts)
        model = self.embedder
        if len(texts) > EMBED_BATCH and isinstance(model, EmbeddingCache):
            model = model.inner  # a bulk write: its texts would only push a turn's out
        parallel = bool(getattr(model, "parallel_encode", False))
        if parallel and len(texts) > EMBED_BATCH and EMBED_THREADS > 1:
            from concurrent.futures import ThreadPoolExecutor

            batches = [texts[i : i + EMBED_BATCH] for i in range(0, len(texts), EMBED_BATCH)]
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
        wanted = [i for i, p in enumerate(payloads) if not _never_valid(p)]
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
        with self._write_lock:
            index = self._keyword.get(user_id)
            if index is not None and self.backend.shared_writers:
                # another process may have written this user's memory: rebuild on a size change
                # or after the refresh interval
                age = time.monotonic() - self._keyword_built.get(user_id, 0.0)
                fresh = age < self.config.keyword_refresh_seconds
                known = len(index) + len(self._keyword_skipped.get(user_id, ()))
                if not fresh or self.backend.count(Eq("user_id", user_id)) != known:
                    index = None
            if index is not None:
                self._keyword.move_to_end(user_id)
                return index
            index = KeywordIndex()
            skipped: set[str] = set()
            for payload in self.backend.scroll(Eq("user_id", user_id)):
                if _never_valid(payload):
                    skipped.add(payload["id"])
                else:
                    index.upsert(payload["id"], _index_text(payload), payload)
            self._keyword_skipped[user_id] = skipped
            self._keyword[user_id] = index
            self._keyword_built[user_id] = time.monotonic()
            while len(self._keyword) > self.config.keyword_cache_users:
                evicted, _ = self._keyword.popitem(last=False)
                self._keyword_built.pop(evicted, None)
                self._keyword_skipped.pop(evicted, None)
                log.debug("keyword index evicted", extra={"user_id": evicted})
            return index

    def _mirror(self, payloads: Iterable[dict[str, Any]], *, text_changed: bool = True) -> None:
        """Apply written payloads to loaded keyword indexes (unloaded users rebuild lazily)."""
        for payload in payloads:
            index = self._keyword.get(payload["user_id"])
            if index is None:
                continue
            if _never_valid(payload):
                self._keyword_skipped.setdefault(payload["user_id"], set()).add(payload["id"])
                if payload["id"] in index:
                    index.remove(payload["id"])
                continue
            self._keyword_skipped.get(payload["user_id"], set()).discard(payload["id"])
            if text_changed or payload["id"] not in index:
                index.upsert(payload["id"], _index_text(payload), payload)
            else:
                index.update_payload(payload["id"], payload)

    def _unmirror(self, user_id: str, ids: Iterable[str]) -> None:
        index = self._keyword.get(user_id)
        skipped = self._keyword_skipped.get(user_id, set())
        if index is not None:
            for record_id in ids:
                skipped.discard(record_id)
                index.remove(record_id)

    def _prepare(
        self, record: MemoryRecord | str, scope: Scope, fields: dict[str, Any]
    ) -> MemoryRecord:
        try:
            if isinstance(record, str):
                record = MemoryRecord(
                    **{"user_id": scope.user_id, "project_id": scope.project_id, **fields},
                    text=record,
                )
            elif isinstance(record, MemoryRecord):
                # always re-validated: a record built with model_construct() or changed without
                # validation must not reach the engine unchecked
                record = MemoryRecord.model_validate(
                    {**record.model_dump(warnings=False), **fields}
                )
            else:
                raise RecordValidationError(
                    f"expected a MemoryRecord or a text, got {type(record).__name__}"
                )
        except ValidationError as exc:
            raise RecordValidationError(f"invalid memory record: {exc}") from exc
        if record.user_id != scope.user_id:
            raise ScopeError(
                f"record belongs to user {record.user_id!r} but the scope is user "
                f"{scope.user_id!r}; a scope can only write its own memory"
            )
        if record.project_id is not None and record.project_id != scope.project_id:
            raise ScopeError(
                f"record belongs to project {record.project_id!r} but the scope is project "
                f"{scope.project_id!r}"
            )
        if record.language is None:
            record = record.model_copy(update={"language": detect_language(record.text)})
        if self.lifecycle is not None and record.expire_at is None:
            ttl = default_ttl(record, self.lifecycle)
            if ttl is not None:
                expire_at = record.created_at + ttl
                if expire_at <= utcnow():
                    raise RecordValidationError(
                        f"record created {record.created_at.isoformat()} would expire on "
                        f"arrival: the lifecycle TTL for {record.layer.value}/"
                        f"{record.kind.value} records ({ttl.days} days) ended "
                        f"{expire_at.isoformat()}; pass expire_at=..., or raise the TTL in "
                        "LifecyclePolicy to keep dated history"
                    )
                record = record.model_copy(update={"expire_at": expire_at})
        return record

    def _visible(self, payload: Mapping[str, Any], scope: Scope) -> bool:
        return And(tuple(scope_filter(scope))).matches(payload)

    def _load(self, record_id: str, scope: Scope) -> dict[str, Any]:
        record_id = _canonical_id(record_id)
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
        sc = _coerce_scope(scope)
        if isinstance(records, str | bytes | Mapping) or not isinstance(records, Sequence):
            raise RecordValidationError(
                f"add_many expects a list of records or texts, got {type(records).__name__}; "
                "use add() for one record"
            )
        results: builtins.list[str | RecordValidationError] = []
        prepared: builtins.list[MemoryRecord] = []
        for position, record in enumerate(records):
            try:
                parts = [self._prepare(r, sc, f) for r, f in _parts(record, fields)]
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
            self._mirror(payloads)
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
        return MemoryRecord.from_payload(self._load(record_id, _coerce_scope(scope)))

    def get_many(
        self, record_ids: Sequence[str], *, scope: Scope | Mapping[str, Any] | str
    ) -> builtins.list[MemoryRecord]:
        """The records among ``record_ids`` that ``scope`` can see (others are skipped, so
        another tenant's id and a missing id look the same), in the order asked."""
        self._check_open()
        sc = _coerce_scope(scope)
        ids = [_canonical_id(i) for i in record_ids]
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
        sc = _coerce_scope(scope)
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
        expected_version = _check_version(expected_version)
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
        if not _never_valid(payload) and (text_changed or _never_valid(loaded)):
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
            self._mirror([payload], text_changed=text_changed)
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
        sc = _coerce_scope(scope)
        expected_version = _check_version(expected_version)
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
            marker = {
                PENDING_SUPERSEDE: new.id,
                PENDING_VALID_TO: None if old.valid_to is None else old.valid_to.isoformat(),
                PENDING_AT: time.time(),
            }
            marked = self._cas_update(
                old.id,
                sc,
                expected_version if expected_version is not None else old.version,
                # the old value holds until the new one does (dated history: when it was said)
                {"superseded_by": new.id, "valid_to": _closed_at(old, new, now)},
                marker=marker,
            )
            _crash_point("supersede:marked")
            try:
                self.add(new, scope=sc)
            except BaseException:
                if not self.backend.retrieve([new.id]):  # not written: undo the mark
                    self._restore_superseded(marked, old.valid_to)
                raise
            _crash_point("supersede:written")
            self._clear_marker(marked)
        log.info(
            "memory superseded",
            extra={"event": "supersede", "user_id": sc.user_id, "old": old.id, "new": new.id},
        )
        return new

    def _restore_superseded(self, marked: MemoryRecord, valid_to: datetime | None) -> bool:
        """Make ``marked`` current again (its supersession never finished). CAS on the marked
        version: False when the record changed since, and then nothing is written."""
        restored = marked.model_copy(
            update={"superseded_by": None, "valid_to": valid_to, "version": marked.version + 1}
        )
        payload = restored.to_payload()
        if not self.backend.cas_write(marked.id, payload, marked.version):
            return False
        self._mirror([payload], text_changed=False)
        self.memory_version += 1
        log.warning(
            "interrupted supersede repaired: old version restored",
            extra={"event": "supersede_repaired", "user_id": marked.user_id, "id": marked.id},
        )
        return True

    def _clear_marker(self, marked: MemoryRecord) -> None:
        """Drop the pending marker of a finished supersession (same version: a marker-only
        change). Best effort: a stale marker whose target exists is harmless."""
        self.backend.cas_write(marked.id, marked.to_payload(), marked.version)

    def repair_interrupted_writes(self) -> int:
        """Finish or undo supersessions interrupted by a crash; returns how many records were
        restored as current. Runs at open; cheap: it reads only records with a pending
        marker. A marker whose new record exists is cleared (the supersession finished); one
        whose new record is missing restores the old record (``superseded_by`` cleared,
        ``valid_to`` as before). With shared writers, markers younger than
        :data:`SUPERSEDE_GRACE_SECONDS` are left alone (another process may be mid-write)."""
        self._check_open()
        restored = 0
        cutoff = time.time() - SUPERSEDE_GRACE_SECONDS
        with self._write_lock:
            pending = builtins.list(self.backend.scroll(Not(IsEmpty(PENDING_SUPERSEDE))))
            if not pending:
                return 0
            targets = {
                p["id"] for p in self.backend.retrieve([p[PENDING_SUPERSEDE] for p in pending])
            }
            for payload in pending:
                if self.backend.shared_writers and float(payload.get(PENDING_AT, 0)) > cutoff:
                    continue
                marked = MemoryRecord.from_payload(payload)
                finished = payload[PENDING_SUPERSEDE] in targets
                if finished or marked.superseded_by != payload[PENDING_SUPERSEDE]:
                    self._clear_marker(marked)
                    continue
                prev = _parse_time(payload.get(PENDING_VALID_TO))
                restored += self._restore_superseded(marked, prev)
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
        sc = _coerce_scope(scope)
        _check_version(expected_version)
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
        sc = _coerce_scope(scope)
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
            self._unmirror(sc.user_id, ids)
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
            self._keyword.pop(sc.user_id, None)
            self._keyword_skipped.pop(sc.user_id, None)
            self._keyword_built.pop(sc.user_id, None)
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
        self, user_id: str, *, where: Cond | None = None
    ) -> builtins.list[MemoryRecord]:
        """Every stored record of ``user_id``, newest first: every project, status and acl,
        the write path's bookkeeping included, optionally narrowed by ``where`` (evaluated in
        the engine). An administrative read for lifecycle sweeps, ``inspect`` and
        forget-user; an application reads through a scope (:meth:`list`)."""
        self._check_open()
        cond: Cond = Eq("user_id", Scope(user_id=user_id).user_id)
        if where is not None:
            cond = And((cond, _check_where(where)))
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
    ) -> builtins.list[MemoryRecord]:
        """Records ``scope`` can see, newest first. ``current_only`` keeps only what recall
        would consider (active, not superseded, valid now, not expired). ``where`` adds a
        filter tree evaluated inside the engine; ``all_projects=True`` reads every project of
        the scope's user (the user partition and acl still apply)."""
        self._check_open()
        sc = _coerce_scope(scope)
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 0
        ):
            raise RecordValidationError(f"limit must be a non-negative int or None, got {limit!r}")
        cond = _read_filter(sc, filters, current_only, where, all_projects)
        records = [MemoryRecord.from_payload(p) for p in self.backend.scroll(cond)]
        records.sort(key=lambda r: r.created_at, reverse=True)
        return records[:limit] if limit is not None else records

    def count(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
        where: Cond | None = None,
        all_projects: bool = False,
    ) -> int:
        """How many records :meth:`list` would return (counted inside the engine)."""
        self._check_open()
        sc = _coerce_scope(scope)
        cond = _read_filter(sc, filters, current_only, where, all_projects)
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
        sc = _coerce_scope(scope)
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
        started = time.perf_counter()
        sc = _coerce_scope(scope)
        query = _clean_query(query)
        if mode not in {"hybrid", "dense", "keyword"}:
            raise ConfigError(f"mode must be hybrid, dense or keyword, got {mode!r}")
        cfg = self.config.recall
        k = cfg.k if k is None else k
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 1000:
            raise ConfigError(f"k must be an integer in 1..1000, got {k!r}")
        when = coerce_time(as_of, "as_of") if as_of is not None else None
        cond = recall_filter(
            sc,
            as_of=when,
            filters=filters,
            all_projects=all_projects,
            extra=() if where is None else (_check_where(where),),
        )
        n_candidates = max(cfg.candidates, 4 * k)
        degraded: builtins.list[str] = []
        dense: builtins.list[tuple[str, float, dict[str, Any]]] = []
        keyword: builtins.list[tuple[str, float, dict[str, Any]]] = []
        if not query.strip():
            return RecallResult(mode=mode, elapsed_ms=(time.perf_counter() - started) * 1e3)

        vector: np.ndarray | None = None
        in_engine = self.backend.keyword_in_engine
        if mode in {"hybrid", "dense"}:
            try:
                vector = self._embed([query])[0]
                if not in_engine:
                    dense = self._dense_search(sc.user_id, vector, cond, n_candidates)
            except Exception as exc:  # degrade to keyword recall, never crash the graph
                degraded.append(f"dense recall failed ({type(exc).__name__}: {exc})")
                log.warning(
                    "dense recall unavailable, using BM25 only",
                    extra={"event": "degraded", "user_id": sc.user_id, "error": error_kind(exc)},
                )
        want_keyword = mode in {"keyword", "hybrid"} or (mode == "dense" and bool(degraded))
        dense_extra: dict[str, float] = {}
        keyword_extra: dict[str, float] = {}
        fetch: Callable[[Sequence[str]], dict[str, dict[str, Any]]] | None = None
        if in_engine:
            fetch = self._fetch_payloads
            dense, keyword, dense_extra, keyword_extra = self._engine_search(
                sc.user_id, query, vector, cond, n_candidates, want_keyword, degraded
            )
        elif want_keyword:
            try:
                keyword = self._keyword_search(sc.user_id, query, n_candidates, cond)
                if keyword and self.backend.shared_writers:
                    keyword = self._confirm(keyword, cond)
            except Exception as exc:
                degraded.append(f"keyword recall failed ({type(exc).__name__}: {exc})")
                log.error(
                    "keyword recall failed",
                    extra={"event": "degraded", "user_id": sc.user_id, "error": error_kind(exc)},
                )
        if not in_engine and cfg.fusion == "union" and dense and keyword and vector is not None:
            try:
                dense_extra, keyword_extra = self._score_other_side(
                    sc.user_id, query, vector, cond, dense, keyword
                )
            except Exception as exc:  # fusion then scores as "weighted" would: never crash
                log.warning(
                    "union scoring failed, fusing the two lists as they are",
                    extra={"event": "degraded", "user_id": sc.user_id, "error": error_kind(exc)},
                )
        hits = self._rank(dense, keyword, k, cfg, dense_extra, keyword_extra, now=when, fetch=fetch)
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
        sc = _coerce_scope(scope)
        cfg = self.config.recall
        k = cfg.k if k is None else k
        try:
            payload = self._load(record_id, sc)
        except RecordNotFound:
            return RecallExplanation(
                record_id=record_id,
                recalled=False,
                k=k,
                reason=f"no record {record_id} is visible to user {sc.user_id!r} "
                "(missing, or outside the scope: another user, project or ACL)",
            )
        record = MemoryRecord.from_payload(payload)
        when = coerce_time(as_of, "as_of") if as_of is not None else None
        cond = recall_filter(sc, as_of=when, filters=filters)
        failed = [c for c in cond.children if not c.matches(payload)]
        if failed:
            fields = [str(getattr(c, "key", type(c).__name__)) for c in failed]
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
        result = self.search(query, sc, k=limit, filters=filters, as_of=as_of)
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
        rank = ids.index(record.id) + 1
        hit = result.hits[rank - 1]
        scores = (
            f"dense rank {hit.explanation.dense_rank}, keyword rank "
            f"{hit.explanation.keyword_rank}, final score {hit.explanation.final:.3f}"
        )
        return RecallExplanation(
            record_id=record.id,
            recalled=rank <= k,
            k=k,
            rank=rank,
            candidates=len(ids),
            explanation=hit.explanation,
            reason=(
                f"recalled at rank {rank} of k={k} ({scores})"
                if rank <= k
                else f"ranked {rank}, below k={k} ({scores}; the k-th scored "
                f"{result.hits[k - 1].explanation.final:.3f})"
            ),
        )

    def _engine_search(
        self,
        user_id: str,
        query: str,
        vector: np.ndarray | None,
        cond: And,
        limit: int,
        want_keyword: bool,
        degraded: builtins.list[str],
    ) -> tuple[
        builtins.list[tuple[str, float, dict[str, Any]]],
        builtins.list[tuple[str, float, dict[str, Any]]],
        dict[str, float],
        dict[str, float],
    ]:
        """Dense and keyword candidates (ids and scores) from the engine in one batched call,
        then, for ``union`` fusion, the other side's score of every
        candidate one list lacks (a second batched call filtered to those ids; a candidate
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

        def run(
            *queries: EngineQuery | None,
        ) -> builtins.list[builtins.list[tuple[str, float, dict[str, Any]]]]:
            wanted = [q for q in queries if q is not None]
            answers: Iterator[builtins.list[ScoredPayload]] = iter(self.backend.query_many(wanted))
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
            return self._engine_search(user_id, query, None, cond, limit, True, degraded)
        dense_extra: dict[str, float] = {}
        keyword_extra: dict[str, float] = {}
        if self.config.recall.fusion == "union" and dense and keyword and vector is not None:
            dense_ids = {doc_id for doc_id, _, _ in dense}
            kw_ids = {doc_id for doc_id, _, _ in keyword}
            only_kw = tuple(sorted(kw_ids - dense_ids))
            only_dense = tuple(sorted(dense_ids - kw_ids))
            try:
                extra_dense, extra_kw = run(
                    EngineQuery(
                        And((*cond.children, HasId(only_kw))),
                        len(only_kw),
                        dense=vector,
                        payload=False,
                    )
                    if only_kw
                    else None,
                    EngineQuery(
                        And((*cond.children, HasId(only_dense))),
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

    def _fetch_payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Whole payloads of the points among ``ids`` that still exist."""
        return {str(p["id"]): p for p in self.backend.retrieve(builtins.list(ids))}

    def _dense_search(
        self, user_id: str, vector: np.ndarray, cond: And, limit: int
    ) -> builtins.list[tuple[str, float, dict[str, Any]]]:
        """Dense candidates ``(id, cosine, payload)``, best first.

        On the embedded engine (one writer: this process) the user's keyword index already
        mirrors every payload, so the engine returns ids and scores only and the payloads come
        from memory: converting hundreds of payloads per query was most of a deep query's cost.
        A hit the mirror lacks is fetched from the engine."""
        if self.backend.shared_writers:
            return [(h.id, h.score, h.payload) for h in self.backend.query(vector, cond, limit)]
        hits = self.backend.query(vector, cond, limit, with_payload=False)
        index = self._keyword_index(user_id)
        payloads = {h.id: index.payload(h.id) for h in hits}
        missing = [doc_id for doc_id, p in payloads.items() if p is None]
        if missing:
            payloads.update({p["id"]: p for p in self.backend.retrieve(missing)})
        out: builtins.list[tuple[str, float, dict[str, Any]]] = []
        for h in hits:
            payload = payloads.get(h.id)
            if payload is not None:  # deleted between the query and the fetch: skip it
                out.append((h.id, h.score, payload))
        return out

    def _score_other_side(
        self,
        user_id: str,
        query: str,
        vector: np.ndarray,
        cond: And,
        dense: builtins.list[tuple[str, float, dict[str, Any]]],
        keyword: builtins.list[tuple[str, float, dict[str, Any]]],
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
                for h in self.backend.query(vector, where, len(only_kw), with_payload=False)
            }
        keyword_extra = self._keyword_index(user_id).score_ids(query, only_dense)
        return dense_extra, keyword_extra

    def _keyword_search(
        self, user_id: str, query: str, limit: int, cond: And
    ) -> builtins.list[tuple[str, float, dict[str, Any]]]:
        """BM25 candidates for ``query`` in the user's partition that match ``cond``.

        The filter is evaluated on the best-scoring candidates, which nearly all pass; when it
        turns out selective (e.g. one task's records among thousands), the engine resolves it
        through its payload indexes and BM25 ranks only the ids it allows.
        """
        index = self._keyword_index(user_id)
        hits = index.search(query, limit, cond, max_checks=max(200, 4 * limit))
        if hits is None:  # the filter rejects most candidates: let the engine's indexes decide
            allowed = self.backend.ids(cond, len(index))
            hits = index.search(query, limit, cond, only=set(allowed))
        return hits or []

    def _confirm(
        self, hits: builtins.list[tuple[str, float, dict[str, Any]]], cond: And
    ) -> builtins.list[tuple[str, float, dict[str, Any]]]:
        """Keep the keyword hits the engine still holds and still matches ``cond`` (other
        processes may have deleted or changed them), with the engine's current payloads."""
        ids = tuple(doc_id for doc_id, _, _ in hits)
        current = {
            p["id"]: p for p in self.backend.scroll(And((*cond.children, HasId(ids))), len(ids))
        }
        return [(d, score, current[d]) for d, score, _ in hits if d in current]

    def _rank(
        self,
        dense: builtins.list[tuple[str, float, dict[str, Any]]],
        keyword: builtins.list[tuple[str, float, dict[str, Any]]],
        k: int,
        cfg: RecallConfig,
        dense_extra: Mapping[str, float] | None = None,
        keyword_extra: Mapping[str, float] | None = None,
        *,
        now: datetime | None = None,
        fetch: Callable[[Sequence[str]], dict[str, dict[str, Any]]] | None = None,
    ) -> builtins.list[SearchHit]:
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
        best: builtins.list[tuple[float, str, float, tuple[float, float, float]]] = []
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
                created_at=_parse_time(payload.get("created_at")) or now,
                last_accessed_at=_parse_time(payload.get("last_accessed_at")),
                confidence=float(payload.get("confidence", 1.0)),
                importance=int(payload.get("importance", 5)),
                now=now,
                config=cfg,
                kind=payload.get("kind"),
            )
            final = fused_score * factors[0] * factors[1] * factors[2]
            bisect.insort(best, (final, doc_id, fused_score, factors), key=_best_first)
            del best[k:]
        hits: builtins.list[SearchHit] = []
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

    # ------------------------------------------------------------------ async variants
    async def aadd(
        self, record: MemoryRecord | str, *, scope: Scope | Mapping[str, Any] | str, **fields: Any
    ) -> str:
        """Async :meth:`add` (runs in a worker thread)."""
        return await asyncio.to_thread(self.add, record, scope=scope, **fields)

    async def aadd_many(
        self,
        records: Sequence[MemoryRecord | str],
        *,
        scope: Scope | Mapping[str, Any] | str,
        **fields: Any,
    ) -> builtins.list[str]:
        """Async :meth:`add_many`."""
        return await asyncio.to_thread(self.add_many, records, scope=scope, **fields)

    async def aget(self, record_id: str, *, scope: Scope | Mapping[str, Any] | str) -> MemoryRecord:
        """Async :meth:`get`."""
        return await asyncio.to_thread(self.get, record_id, scope=scope)

    async def aupdate(
        self,
        record_id: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        expected_version: int | None = None,
        **changes: Any,
    ) -> MemoryRecord:
        """Async :meth:`update`."""
        return await asyncio.to_thread(
            self.update, record_id, scope=scope, expected_version=expected_version, **changes
        )

    async def asupersede(
        self,
        old_id: str,
        new_record: MemoryRecord | str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        expected_version: int | None = None,
        **fields: Any,
    ) -> MemoryRecord:
        """Async :meth:`supersede`."""
        return await asyncio.to_thread(
            self.supersede,
            old_id,
            new_record,
            scope=scope,
            expected_version=expected_version,
            **fields,
        )

    async def ainvalidate(
        self,
        record_id: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        reason: str,
        expected_version: int | None = None,
    ) -> MemoryRecord:
        """Async :meth:`invalidate`."""
        return await asyncio.to_thread(
            self.invalidate,
            record_id,
            scope=scope,
            reason=reason,
            expected_version=expected_version,
        )

    async def adelete(self, record_id: str, *, scope: Scope | Mapping[str, Any] | str) -> bool:
        """Async :meth:`delete`."""
        return await asyncio.to_thread(self.delete, record_id, scope=scope)

    async def asearch(
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
        """Async :meth:`search`."""
        return await asyncio.to_thread(
            self.search,
            query,
            scope,
            k,
            filters,
            as_of,
            mode=mode,
            where=where,
            all_projects=all_projects,
        )

    async def alist(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
        limit: int | None = None,
        where: Cond | None = None,
        all_projects: bool = False,
    ) -> builtins.list[MemoryRecord]:
        """Async :meth:`list`."""
        return await asyncio.to_thread(
            self.list,
            scope=scope,
            filters=filters,
            current_only=current_only,
            limit=limit,
            where=where,
            all_projects=all_projects,
        )

    async def acount(
        self,
        *,
        scope: Scope | Mapping[str, Any] | str,
        filters: Mapping[str, Any] | None = None,
        current_only: bool = True,
        where: Cond | None = None,
        all_projects: bool = False,
    ) -> int:
        """Async :meth:`count`."""
        return await asyncio.to_thread(
            self.count,
            scope=scope,
            filters=filters,
            current_only=current_only,
            where=where,
            all_projects=all_projects,
        )

    async def ahistory(
        self, *, scope: Scope | Mapping[str, Any] | str, subject: str, predicate: str
    ) -> builtins.list[MemoryRecord]:
        """Async :meth:`history`."""
        return await asyncio.to_thread(
            self.history, scope=scope, subject=subject, predicate=predicate
        )


def _check_where(where: Any) -> Cond:
    """A ``where=`` argument: a filter tree (:class:`~langgraph_memory.store.filters.Cond`)."""
    if not isinstance(where, Cond):
        raise FilterError(f"where must be a filter tree (Cond), got {type(where).__name__}")
    return where


def _read_filter(
    scope: Scope,
    filters: Mapping[str, Any] | None,
    current_only: bool,
    where: Cond | None,
    all_projects: bool,
) -> Cond:
    """The engine filter of :meth:`MemoryStore.list` and :meth:`MemoryStore.count`."""
    extra = () if where is None else (_check_where(where),)
    if current_only:
        return recall_filter(scope, filters=filters, all_projects=all_projects, extra=extra)
    return listing_filter(scope, filters=filters, all_projects=all_projects, extra=extra)


def _best_first(item: tuple[float, str, float, tuple[float, float, float]]) -> tuple[float, str]:
    return (-item[0], item[1])


def _clean_query(query: Any) -> str:
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


def _never_valid(payload: Mapping[str, Any]) -> bool:
    """True for a record valid at no instant (``valid_to <= valid_from``, e.g. the write
    path's bookkeeping ledger): no query can return it, so it stays out of the keyword index
    (where it would only shift BM25's document statistics)."""
    start, end = payload.get("_valid_from"), payload.get("_valid_to")
    return isinstance(start, int | float) and isinstance(end, int | float) and end <= start


def _index_text(payload: Mapping[str, Any]) -> str:
    text = str(payload.get("text", ""))
    context = payload.get("context")
    return f"{text}\n{context}" if context else text


def _parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return to_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        return None


def _parts(
    record: MemoryRecord | str, fields: dict[str, Any]
) -> builtins.list[tuple[MemoryRecord | str, dict[str, Any]]]:
    """The records to prepare for one input: itself, or the parts of an oversized text
    (linked by ``metadata["chunk_of"]``, the first part's id; see :meth:`MemoryStore.add_many`)."""
    if not isinstance(record, str) or len(record.strip()) <= MAX_TEXT_CHARS:
        return [(record, fields)]
    import uuid

    texts = split_long_text(record, CHUNK_CHARS)
    head = str(fields.get("id") or uuid.uuid4())
    metadata = fields.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        return [(record, fields)]  # let validation report the bad metadata
    log.info("a text of %d characters is stored as %d linked parts", len(record), len(texts))
    return [
        (
            text,
            {
                **fields,
                "id": head if k == 0 else str(uuid.uuid4()),
                "metadata": {**metadata, "chunk_of": head, "chunk": k, "chunks": len(texts)},
            },
        )
        for k, text in enumerate(texts)
    ]


def _canonical_id(record_id: Any) -> str:
    import uuid

    try:
        return str(uuid.UUID(str(record_id)))
    except (ValueError, TypeError) as exc:
        raise RecordNotFound(f"{record_id!r} is not a memory id") from exc


__all__ = ["MemoryStore", "RecallExplanation", "RecallResult", "SearchHit", "Status"]
