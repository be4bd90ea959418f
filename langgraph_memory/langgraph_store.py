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
``put`` on an existing key updates the record in place (compare-and-set on its version).
``search(query=...)`` runs the store's hybrid recall (the same filters: active, not
superseded, valid, not expired) and returns each hit's fused score.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from .errors import RecordNotFound, ScopeError
from .records import MemoryRecord, utcnow
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
        self.prefix = tuple(prefix)

    # ------------------------------------------------------------------ namespace <-> scope
    def scope_of(self, namespace: tuple[str, ...]) -> Scope:
        """The scope a namespace names; :class:`ScopeError` if it names no user."""
        namespace = tuple(namespace)
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
    def _get(self, op: GetOp) -> Item | None:
        scope = self.scope_of(op.namespace)
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
        record_id = self.record_id(op.namespace, op.key)
        if op.value is None:
            self.store.delete(record_id, scope=scope)
            return
        value = dict(op.value)
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
            fields["expire_at"] = utcnow() + timedelta(minutes=float(ttl))
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
        scope = self.scope_of(tuple(prefixes[0]))
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
