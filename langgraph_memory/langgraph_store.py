"""The memory store exposed as a LangGraph ``BaseStore``.

``graph.compile(store=LangGraphMemoryStore(memory_store))`` makes the scoped, versioned
:class:`~langgraph_memory.store.MemoryStore` available as ``runtime.store`` to code written
against LangGraph's store API (``put``/``get``/``search``/``delete``, sync and async).

Namespaces map to scopes::

    (user_id,)              -> Scope(user_id)
    (user_id, project_id)   -> Scope(user_id, project_id)

optionally behind a fixed ``prefix`` (``LangGraphMemoryStore(store, prefix=("memories",))``
gives ``("memories", user_id[, project_id])``). There is no global namespace: a search or
listing that does not name a user raises :class:`~langgraph_memory.errors.ScopeError`
(fail closed). LangGraph forbids ``"."`` in namespace labels, so user ids containing a dot
cannot be used through this adapter (use :class:`MemoryStore` directly).

Values are dicts. ``value["text"]`` (or ``"content"``) is the memory text; keys that are
record fields (``kind``, ``layer``, ``subject``, ``predicate``, ``object``, ``confidence``,
``importance``, ``source``, ``task_id``, ``language``, ``context``) set those fields; anything
else is kept in ``record.metadata["value"]`` and returned unchanged. Keys that are UUIDs are
used as record ids; other keys map to a deterministic UUID of ``(namespace, key)``.

Inputs are refused, before anything is written, with a ``TypeError``/``ValueError`` naming
the problem: a namespace or ``prefix`` that is not a tuple of strings (a bare string such as
``"mem"`` would otherwise iterate as ``('m', 'e', 'm')``), a key that is not a non-empty string
(``None`` would otherwise alias the key ``"None"``), a value that is not plain JSON within the
limits of :func:`~langgraph_memory.records.check_json_value` (nesting depth
``MAX_JSON_DEPTH``, item count, ``MAX_METADATA_BYTES``), a ``ttl`` that is not a positive
number of minutes up to ``MAX_TTL_MINUTES``, and a negative ``offset``/``limit``.
``put`` on an existing key updates the record in place (compare-and-set on its version).
``search(query=...)`` runs the store's hybrid recall (the same filters: active, not
superseded, valid, not expired) and returns each hit's fused score.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any, Literal

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from .errors import RecordNotFound, RecordValidationError, ScopeError
from .records import MAX_METADATA_BYTES, MemoryRecord, check_json_value, utcnow
from .scope import Scope
from .store import MemoryStore
from .store.filters import FILTERABLE_FIELDS

_KEY_NAMESPACE = uuid.UUID("6f1d2b8e-4a0c-5d3e-9b7f-1c2d3e4f5a6b")
_RECORD_FIELDS = (
    "kind",
    "layer",
    "subject",
    "predicate",
    "object",
    "confidence",
    "importance",
    "source",
    "task_id",
    "language",
    "context",
)
_OPS = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"}

MAX_TTL_MINUTES = 100 * 365 * 24 * 60
"""Longest ``ttl`` (minutes) a ``put`` accepts: 100 years."""


def _check_labels(labels: Any, what: str) -> tuple[str, ...]:
    """``labels`` as a tuple of strings; ``TypeError`` for anything else (a bare string too)."""
    if not isinstance(labels, tuple):
        raise TypeError(
            f"{what} must be a tuple of strings, got {type(labels).__name__} {labels!r}"
            + (f"; write ({labels!r},) for one label" if isinstance(labels, str) else "")
        )
    for label in labels:
        if not isinstance(label, str):
            raise TypeError(f"{what} labels must be strings, got {type(label).__name__}")
    return labels


def _check_key(key: Any) -> str:
    """A BaseStore key: a non-empty string (``None`` would alias the key ``"None"``)."""
    if not isinstance(key, str):
        raise TypeError(f"key must be a string, got {type(key).__name__} {key!r}")
    if not key:
        raise ValueError("key must be a non-empty string")
    return key


def _check_count(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return value


def _check_ttl(ttl: Any) -> float:
    """A ttl in minutes: a finite number in (0, MAX_TTL_MINUTES]."""
    if not isinstance(ttl, int | float) or isinstance(ttl, bool):
        raise TypeError(f"ttl must be a number of minutes, got {type(ttl).__name__}")
    if not math.isfinite(ttl) or not 0 < ttl <= MAX_TTL_MINUTES:
        raise ValueError(
            f"ttl must be a positive number of minutes up to {MAX_TTL_MINUTES}, got {ttl!r}"
        )
    return float(ttl)


def _matches(value: Any, cond: Any) -> bool:
    if isinstance(cond, Mapping) and cond and set(cond) <= _OPS:
        for op, target in cond.items():
            try:
                ok = {
                    "$eq": lambda a, b: a == b,
                    "$ne": lambda a, b: a != b,
                    "$gt": lambda a, b: a > b,
                    "$gte": lambda a, b: a >= b,
                    "$lt": lambda a, b: a < b,
                    "$lte": lambda a, b: a <= b,
                }[op](value, target)
            except TypeError:
                ok = False
            if not ok:
                return False
        return True
    return bool(value == cond)


class LangGraphMemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by a :class:`MemoryStore` (see the module docstring).

    Guarantees: every operation runs inside one user's scope derived from the namespace;
    nothing is read across users; ``abatch`` runs ``batch`` in a worker thread.
    """

    supports_ttl: bool = True

    def __init__(self, store: MemoryStore, *, prefix: tuple[str, ...] = ()) -> None:
        if not isinstance(store, MemoryStore):
            raise TypeError(f"expected a MemoryStore, got {type(store).__name__}")
        self.store = store
        self.prefix = _check_labels(prefix, "prefix")

    # ------------------------------------------------------------------ namespace <-> scope
    def scope_of(self, namespace: tuple[str, ...]) -> Scope:
        """The scope a namespace names; :class:`ScopeError` if it names no user, ``TypeError``
        if it is not a tuple of strings."""
        namespace = _check_labels(namespace, "namespace")
        n = len(self.prefix)
        if namespace[:n] != self.prefix:
            raise ScopeError(
                f"namespace {namespace!r} is outside this store's prefix {self.prefix!r}"
            )
        rest = namespace[n:]
        if not rest:
            raise ScopeError(
                "a namespace must name a user: (user_id,) or (user_id, project_id); memory is "
                "never read or written globally"
            )
        if len(rest) > 2:
            raise InvalidNamespaceError(
                f"namespace {namespace!r} is too deep: use {(*self.prefix, 'user_id')!r} or "
                f"{(*self.prefix, 'user_id', 'project_id')!r}"
            )
        return Scope(user_id=rest[0], project_id=rest[1] if len(rest) > 1 else None)

    def namespace_of(self, record: MemoryRecord) -> tuple[str, ...]:
        """The namespace a record lives in."""
        tail = (
            (record.user_id,) if record.project_id is None else (record.user_id, record.project_id)
        )
        return self.prefix + tail

    @staticmethod
    def record_id(namespace: tuple[str, ...], key: str) -> str:
        """The record id a key maps to: the key itself when it is a UUID, else a UUID5."""
        try:
            return str(uuid.UUID(str(key)))
        except ValueError:
            return str(uuid.uuid5(_KEY_NAMESPACE, "\x1f".join((*namespace, str(key)))))

    def _item_parts(self, record: MemoryRecord) -> tuple[tuple[str, ...], str, dict[str, Any]]:
        meta = record.metadata or {}
        key = str(meta.get("lg_key") or record.id)
        value: dict[str, Any] = dict(meta.get("value") or {})
        value.update(
            {
                "text": record.text,
                "kind": record.kind.value,
                "layer": record.layer.value,
                "subject": record.subject,
                "predicate": record.predicate,
                "object": record.object,
                "confidence": record.confidence,
                "importance": record.importance,
                "source": record.source.value,
                "task_id": record.task_id,
                "id": record.id,
            }
        )
        return self.namespace_of(record), key, value

    def _to_item(self, record: MemoryRecord) -> Item:
        namespace, key, value = self._item_parts(record)
        return Item(
            value=value,
            key=key,
            namespace=namespace,
            created_at=record.created_at,
            updated_at=record.updated_at,
        )

    def _to_search_item(self, record: MemoryRecord, score: float | None) -> SearchItem:
        namespace, key, value = self._item_parts(record)
        return SearchItem(
            namespace=namespace,
            key=key,
            value=value,
            created_at=record.created_at,
            updated_at=record.updated_at,
            score=score,
        )

    # ------------------------------------------------------------------ operations
    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """BaseStore ``get``; refuses a key that is not a non-empty string."""
        return super().get(namespace, _check_key(key), refresh_ttl=refresh_ttl)

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """Async :meth:`get`."""
        return await super().aget(namespace, _check_key(key), refresh_ttl=refresh_ttl)

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """BaseStore ``put``; refuses a bad key before anything is written."""
        super().put(namespace, _check_key(key), value, index, ttl=ttl)

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """Async :meth:`put`."""
        await super().aput(namespace, _check_key(key), value, index, ttl=ttl)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """BaseStore ``delete``; refuses a key that is not a non-empty string."""
        super().delete(namespace, _check_key(key))

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Async :meth:`delete`."""
        await super().adelete(namespace, _check_key(key))

    def _get(self, op: GetOp) -> Item | None:
        scope = self.scope_of(op.namespace)
        _check_key(op.key)
        try:
            record = self.store.get(self.record_id(op.namespace, op.key), scope=scope)
        except RecordNotFound:
            return None
        if tuple(self.namespace_of(record)) != tuple(op.namespace):
            return None  # a project-less record is not an item of a project namespace
        if record.expire_at is not None and record.expire_at <= utcnow():
            return None  # expired (ttl): gone for the BaseStore API
        return self._to_item(record)

    def _put(self, op: PutOp) -> None:
        scope = self.scope_of(op.namespace)
        record_id = self.record_id(op.namespace, _check_key(op.key))
        if op.value is None:
            self.store.delete(record_id, scope=scope)
            return
        if not isinstance(op.value, Mapping):
            raise TypeError(f"a memory value must be a dict, got {type(op.value).__name__}")
        value = dict(op.value)
        try:
            check_json_value(value, "value", max_bytes=MAX_METADATA_BYTES)
        except ValueError as exc:
            raise RecordValidationError(str(exc)) from exc
        text = value.pop("text", None)
        if text is None:
            text = value.pop("content", None)
        if not isinstance(text, str) or not text.strip():
            raise ValueError("a memory value needs a non-empty string 'text' (or 'content') field")
        fields: dict[str, Any] = {k: value.pop(k) for k in _RECORD_FIELDS if k in value}
        value.pop("id", None)
        metadata: dict[str, Any] = {"value": value}
        if str(op.key) != record_id:
            metadata["lg_key"] = str(op.key)
        ttl = getattr(op, "ttl", None)
        if ttl is not None:
            fields["expire_at"] = utcnow() + timedelta(minutes=_check_ttl(ttl))
        try:
            current = self.store.get(record_id, scope=scope)
        except RecordNotFound:
            current = None
        if current is None:
            self.store.add(
                MemoryRecord(
                    id=record_id,
                    user_id=scope.user_id,
                    project_id=scope.project_id,
                    text=text,
                    metadata=metadata,
                    **fields,
                ),
                scope=scope,
            )
        else:
            self.store.update(
                record_id,
                scope=scope,
                expected_version=current.version,
                text=text,
                metadata={**current.metadata, **metadata},
                **fields,
            )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope = self.scope_of(op.namespace_prefix)
        _check_count(op.offset, "offset")
        _check_count(op.limit, "limit")
        store_filters: dict[str, Any] = {}
        post: dict[str, Any] = {}
        for key, cond in (op.filter or {}).items():
            if key in FILTERABLE_FIELDS and isinstance(cond, str):
                store_filters[key] = cond
            else:
                post[key] = cond
        want = op.offset + op.limit
        pairs: list[tuple[MemoryRecord, float | None]]
        if op.query:
            k = min(1000, max(want, 1) * (4 if post else 1))
            result = self.store.search(op.query, scope, k=k, filters=store_filters or None)
            pairs = [(hit.record, hit.score) for hit in result.hits]
        else:
            pairs = [(r, None) for r in self.store.list(scope=scope, filters=store_filters or None)]
        items: list[SearchItem] = []
        for record, score in pairs:
            item = self._to_search_item(record, score)
            if tuple(item.namespace[: len(op.namespace_prefix)]) != tuple(op.namespace_prefix):
                continue
            if all(_matches(item.value.get(k), c) for k, c in post.items()):
                items.append(item)
        return items[op.offset : want]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefixes = [c.path for c in op.match_conditions or () if c.match_type == "prefix"]
        if not prefixes or any("*" in p for p in prefixes):
            raise ScopeError(
                "list_namespaces needs prefix=(..., user_id): users are never enumerated"
            )
        scope = self.scope_of(prefixes[0])
        _check_count(op.offset, "offset")
        _check_count(op.limit, "limit")
        found = {self.namespace_of(r) for r in self.store.list(scope=scope)}
        out = sorted(ns for ns in found if all(ns[: len(p)] == tuple(p) for p in prefixes))
        if op.max_depth is not None:
            out = sorted({ns[: op.max_depth] for ns in out})
        return out[op.offset : op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order (each in its namespace's scope)."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:  # pragma: no cover - future op types
                raise NotImplementedError(f"unsupported store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async :meth:`batch` (runs in a worker thread)."""
        return await asyncio.to_thread(self.batch, list(ops))


__all__ = ["LangGraphMemoryStore"]
