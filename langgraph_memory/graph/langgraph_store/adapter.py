"""The LangGraph ``BaseStore`` over a :class:`~langgraph_memory.store.MemoryStore`.

See the package docstring (:mod:`langgraph_memory.graph.langgraph_store`) for what is guaranteed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any, Literal

import numpy as np
from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.base import validate_op_namespace as _validate_op_namespace

from ...core.logsafe import error_kind, get_logger
from ...core.records import (
    MemoryRecord,
    Status,
    utcnow,
)
from ...core.scope import Scope
from ...errors import RecordNotFound, VersionConflict
from ...store import MemoryStore
from ...store.filters import And, Cond, Eq, HasId, IsEmpty, Not
from .checks import (
    MAX_QUERY_WINDOW,
    check_count,
    check_key,
    check_ttl,
    check_ttl_config,
    check_value,
)
from .items import (
    INDEXED_FIELD,
    PREFIXES_FIELD,
    is_live,
    item_meta,
    item_record_id,
    live_conds,
    matches_condition,
    put_fields,
    to_item,
    to_search_item,
)
from .namespaces import (
    DEFAULT_NAMESPACE_TEMPLATE,
    WILDCARD,
    NamespaceTemplate,
    NamespaceTemplateError,
    check_labels,
    prefix_token,
)
from .values import FilterPlan, check_index, index_text, plan_filter

log = get_logger("langgraph_store")


class LangGraphMemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by a :class:`MemoryStore` (see the package docstring).

    ``namespace_template`` says which namespace label names the user (and project);
    ``subnamespaces`` allows namespaces deeper than the template; ``prefix`` puts literal
    labels in front of the template (``prefix=("memories",)`` with the default template is
    ``("memories", "{user_id}")``); ``index_fields`` are the default JSON paths embedded on
    ``put(index=None)``; ``ttl_config`` is LangGraph's ``TTLConfig``.
    """

    supports_ttl: bool = True

    def __init__(
        self,
        store: MemoryStore,
        *,
        namespace_template: Sequence[str] | NamespaceTemplate = DEFAULT_NAMESPACE_TEMPLATE,
        subnamespaces: bool = False,
        prefix: tuple[str, ...] = (),
        index_fields: Sequence[str] | None = None,
        ttl_config: TTLConfig | None = None,
    ) -> None:
        if not isinstance(store, MemoryStore):
            raise TypeError(f"expected a MemoryStore, got {type(store).__name__}")
        self.store = store
        self.prefix = check_labels(prefix, "prefix")
        base = NamespaceTemplate.parse(namespace_template, subnamespaces=subnamespaces)
        self.template = NamespaceTemplate.parse(
            (*self.prefix, *base.segments), subnamespaces=base.subnamespaces
        )
        checked = check_index(list(index_fields) if index_fields is not None else None)
        self.index_fields: list[str] | None = None if checked is None else list(checked)  # type: ignore[arg-type]
        self.ttl_config = check_ttl_config(ttl_config)

    # ------------------------------------------------------------------ namespace <-> scope
    def scope_of(self, namespace: tuple[str, ...]) -> Scope:
        """The scope an item's namespace maps to; :class:`NamespaceTemplateError` (a
        ``ValueError``) when it does not fit the template, ``TypeError`` when it is not a
        tuple of strings."""
        return self.template.scope_of(namespace)

    @staticmethod
    def record_id(namespace: tuple[str, ...], key: str) -> str:
        """The id of the record holding item ``(namespace, key)``: a UUID5 of both, so the
        same key in two namespaces is two records."""
        return item_record_id(namespace, key)

    # ------------------------------------------------------------------ key checks up front
    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """BaseStore ``get``; refuses a key that is not a non-empty string."""
        return super().get(namespace, check_key(key), refresh_ttl=refresh_ttl)

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """Async :meth:`get`."""
        return await super().aget(namespace, check_key(key), refresh_ttl=refresh_ttl)

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
        super().put(namespace, check_key(key), value, index, ttl=ttl)

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
        await super().aput(namespace, check_key(key), value, index, ttl=ttl)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """BaseStore ``delete``: erases the item's record (see ``MemoryStore.delete``)."""
        super().delete(namespace, check_key(key))

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Async :meth:`delete`."""
        await super().adelete(namespace, check_key(key))

    # ------------------------------------------------------------------ operations
    def _get(self, op: GetOp) -> Item | None:
        scope = self.scope_of(op.namespace)
        key = check_key(op.key)
        try:
            record = self.store.get(self.record_id(op.namespace, key), scope=scope)
        except RecordNotFound:
            return None
        lg = item_meta(record)
        if lg is None or tuple(lg["ns"]) != tuple(op.namespace) or not is_live(record):
            return None
        if op.refresh_ttl:
            record = self._refresh([record])[0]
        return to_item(record, lg)

    def _put(self, op: PutOp) -> None:
        scope = self.scope_of(op.namespace)
        key = check_key(op.key)
        rid = self.record_id(op.namespace, key)
        if op.value is None:
            self.store.delete(rid, scope=scope)
            return
        value = check_value(op.value)
        index = check_index(op.index)
        paths = self.index_fields if index is None else index
        text = "" if index is False else index_text(value, paths)  # type: ignore[arg-type]
        ttl = None if op.ttl is None else check_ttl(op.ttl)
        now = utcnow()
        fields = put_fields(op.namespace, key, value, text, ttl, now)
        try:
            current = self.store.get(rid, scope=scope)
        except RecordNotFound:
            current = None
        if current is None:
            record = MemoryRecord(
                id=rid,
                user_id=scope.user_id,
                project_id=scope.project_id,
                created_at=now,
                updated_at=now,
                **fields,
            )
            self.store.add(record, scope=scope)
        else:
            self.store.update(
                rid,
                scope=scope,
                expected_version=current.version,
                status=Status.ACTIVE,
                superseded_by=None,
                **fields,
            )

    def _listing(
        self, user: str, conds: Sequence[Cond], plan: FilterPlan | None
    ) -> list[tuple[MemoryRecord, dict[str, Any]]]:
        """Live items of ``user`` matching ``conds`` (and ``plan``), oldest first."""
        records = self.store.list(
            scope=Scope(user_id=user),
            current_only=False,
            where=And((*conds, *live_conds())),
            all_projects=True,
        )
        out = [
            (r, lg)
            for r in records
            if (lg := item_meta(r)) is not None and (plan is None or plan.matches(lg["value"]))
        ]
        out.sort(key=lambda pair: (pair[0].created_at, str(pair[1]["key"])))
        return out

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        user = self.template.user_of_prefix(prefix)
        offset = check_count(op.offset, "offset")
        limit = check_count(op.limit, "limit")
        plan = plan_filter(op.filter)
        base: list[Cond] = [Eq(PREFIXES_FIELD, prefix_token(prefix)), *plan.conds]
        if limit == 0:
            return []
        if not op.query:
            page = self._listing(user, base, plan)[offset : offset + limit]
            found = [(r, to_search_item(r, lg, None)) for r, lg in page]
        else:
            found = self._query(op.query, user, base, plan, offset, limit)
        if op.refresh_ttl:
            self._refresh([r for r, _ in found])
        return [item for _, item in found]

    def _query(
        self, query: str, user: str, base: list[Cond], plan: FilterPlan, offset: int, limit: int
    ) -> list[tuple[MemoryRecord, SearchItem]]:
        want = offset + limit
        if want > MAX_QUERY_WINDOW:
            raise ValueError(
                f"a search with query returns at most {MAX_QUERY_WINDOW} items "
                f"(offset + limit), got {want}; page with a filter instead"
            )
        scope = Scope(user_id=user)

        def recall(where: list[Cond]) -> list[tuple[MemoryRecord, dict[str, Any], float | None]]:
            result = self.store.search(
                query, scope, k=want, where=And(tuple(where)), all_projects=True
            )
            return [
                (h.record, lg, h.explanation.dense_score)
                for h in result.hits
                if (lg := item_meta(h.record)) is not None
            ]

        def exact_ids() -> list[Cond]:
            ids = tuple(r.id for r, _ in self._listing(user, base, plan))
            return [*base, HasId(ids)] if ids else []

        where = base if plan.complete else exact_ids()
        hits = recall(where) if where else []
        kept = [h for h in hits if plan.matches(h[1]["value"])]
        if len(kept) < len(hits) and where is base:  # arrays matched the pushed part
            where = exact_ids()
            kept = recall(where) if where else []
        page = kept[offset:want]
        scores = self._cosines(query, page)
        found = [(r, to_search_item(r, lg, s)) for (r, lg, _), s in zip(page, scores, strict=True)]
        if len(found) < limit:  # like InMemoryStore: items without a vector fill the page
            unindexed = self._listing(user, [*base, Eq(INDEXED_FIELD, 0)], plan)
            found += [(r, to_search_item(r, lg, None)) for r, lg in unindexed[: limit - len(found)]]
        return found

    def _cosines(
        self, query: str, hits: Sequence[tuple[MemoryRecord, Any, float | None]]
    ) -> list[float | None]:
        """Cosine similarity of the query embedding with each hit's stored vector (the
        engine's dense score where recall already computed it)."""
        scores = [s for _, _, s in hits]
        missing = [r.id for (r, _, s) in hits if s is None]
        if missing:
            try:
                q = self.store.embedder.encode([query])[0]
                vectors = self.store.backend.retrieve_vectors(missing)
                qn = float(np.linalg.norm(q)) or 1.0
                cos = {
                    rid: float(np.dot(v, q) / ((float(np.linalg.norm(v)) or 1.0) * qn))
                    for rid, v in vectors.items()
                }
                scores = [cos.get(r.id) if s is None else s for (r, _, s) in hits]
            except Exception as exc:  # a degraded recall keeps its hits, without scores
                log.warning(
                    "search hits kept without scores: cosine of %d hits failed (%s)",
                    len(missing),
                    error_kind(exc),
                )
        return [None if s is None else float(s) for s in scores]

    # ------------------------------------------------------------------ ttl
    def _refresh(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Push back the expiry of records with a TTL (best effort: a concurrent write wins)."""
        out: list[MemoryRecord] = []
        now = utcnow()
        for record in records:
            ttl = (item_meta(record) or {}).get("ttl")
            if not ttl or record.expire_at is None:  # no ttl: nothing to refresh, no write
                out.append(record)
                continue
            new_expiry = now + timedelta(minutes=float(ttl))
            if (new_expiry - record.expire_at).total_seconds() < 1.0:
                out.append(record)
                continue
            scope = Scope(user_id=record.user_id, project_id=record.project_id)
            try:
                record = self.store.update(
                    record.id, scope=scope, expected_version=record.version, expire_at=new_expiry
                )
            except (VersionConflict, RecordNotFound) as exc:
                log.debug("ttl refresh of record %s skipped: %s", record.id, error_kind(exc))
            out.append(record)
        return out

    # ------------------------------------------------------------------ namespaces
    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = list(op.match_conditions or ())
        users: set[str] = set()
        anchor: tuple[str, ...] | None = None
        for cond in conditions:
            if cond.match_type != "prefix":
                continue
            path = check_labels(tuple(cond.path), "namespace prefix")
            users.add(self.template.user_of_prefix(path, wildcards=True))
            concrete = path[: path.index(WILDCARD)] if WILDCARD in path else path
            if anchor is None or len(concrete) > len(anchor):
                anchor = concrete
        if not users or anchor is None:
            raise NamespaceTemplateError(
                "list_namespaces needs prefix=(..., user_id) reaching the user label of the "
                f"template {self.template.segments!r}: users are never enumerated"
            )
        offset = check_count(op.offset, "offset")
        limit = check_count(op.limit, "limit")
        if len(users) > 1:
            return []
        found = {
            tuple(lg["ns"])
            for _, lg in self._listing(users.pop(), [self._prefix_cond(anchor)], None)
        }
        out = [ns for ns in found if all(matches_condition(c, ns) for c in conditions)]
        if op.max_depth is not None:
            out = list({ns[: op.max_depth] for ns in out})
        return sorted(out)[offset : offset + limit]

    @staticmethod
    def _prefix_cond(prefix: tuple[str, ...]) -> Cond:
        return Eq(PREFIXES_FIELD, prefix_token(prefix)) if prefix else Not(IsEmpty(PREFIXES_FIELD))

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order, each in the scope its namespace maps to (a ``put``
        is visible to the operations after it in the same batch)."""
        results: list[Result] = []
        for op in ops:
            _validate_op_namespace(op)
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
