"""Status changes of stored records: the one audited compare-and-set move every lifecycle
operation goes through, and the two the store makes by itself.

* :func:`move_status` moves one record along the status machine of
  :mod:`langgraph_memory.lifecycle.policy` and appends the move to an
  :class:`~langgraph_memory.lifecycle.audit.AuditLog`;
* :func:`write_uses` writes coalesced uses (``MemoryStore.record_use``): ``last_accessed_at``,
  ``access_count``, and ``stale -> active`` for a used stale record;
* :func:`evict_over_capacity` archives the lowest-value records of a scope over
  ``LifecyclePolicy.max_records_per_scope`` (run after every write that overflows the cap).

The public lifecycle API (:mod:`langgraph_memory.lifecycle`) is built on these. They work on
any :class:`StatusStore` (the :class:`~langgraph_memory.store.memory_store.MemoryStore` is
one), use only its public methods, and take the rules from the pure
:mod:`~langgraph_memory.lifecycle.policy`, so the store never depends on the lifecycle
operations above it.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Protocol

from ..core.config import LifecyclePolicy, MemoryConfig
from ..core.logsafe import get_logger
from ..core.records import ANY, MemoryRecord, Status
from ..core.scope import Scope
from ..errors import RecordNotFound, VersionConflict
from ..lifecycle.audit import AuditEvent, AuditLog, audit_arg, transition_entry
from ..lifecycle.policy import (
    capacity_evictions,
    check_transition,
    clock,
    policy_arg,
    transition_metadata,
)
from .filters import And, Cond, Eq

log = get_logger("lifecycle")

Uses = Mapping[str, tuple[datetime, int]]
"""``record id -> (last use, number of uses)``."""


class StatusStore(Protocol):
    """What the status changes need of a store (``MemoryStore`` has all of it)."""

    @property
    def config(self) -> MemoryConfig: ...

    @property
    def audit(self) -> AuditLog | None: ...

    def get(self, record_id: str, *, scope: Scope | Mapping[str, Any] | str) -> MemoryRecord: ...

    def update(
        self,
        record_id: str,
        *,
        scope: Scope | Mapping[str, Any] | str,
        expected_version: int | None = None,
        **changes: Any,
    ) -> MemoryRecord: ...

    def delete(self, record_id: str, *, scope: Scope | Mapping[str, Any] | str) -> bool: ...

    def user_records(
        self, user_id: str, *, where: Cond | None = None, include_internal: bool = ...
    ) -> builtins.list[MemoryRecord]: ...


def record_scope(record: MemoryRecord) -> Scope:
    """A scope that sees exactly this record (its user, project and acl)."""
    return Scope(user_id=record.user_id, project_id=record.project_id, acl=tuple(record.acl))


def _version_arg(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected_version must be an int, got {type(value).__name__} {value!r}")
    return value


def move_status(
    store: StatusStore,
    record: MemoryRecord,
    to: Status,
    *,
    scope: Scope,
    reason: str,
    actor: str,
    audit: AuditLog,
    event: AuditEvent,
    when: datetime,
    expected_version: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> MemoryRecord:
    """Move ``record`` to ``to`` with compare-and-set on its version and audit the move.

    The audit entry is built (and so validated) before anything is written: a bad reason,
    actor or event is refused with nothing changed, never "changed but unaudited". Moving to
    ``deleted`` audits a ``deletion`` and removes the record; any other move appends the step
    to ``metadata["transitions"]`` (plus the fields of ``extra``). Raises
    :class:`~langgraph_memory.errors.IllegalTransition` or
    :class:`~langgraph_memory.errors.VersionConflict` with nothing written."""
    check_transition(record.status, to)
    if not isinstance(audit, AuditLog):
        raise TypeError(f"audit must be an AuditLog, got {type(audit).__name__}")
    version = _version_arg(record.version if expected_version is None else expected_version)
    entry = transition_entry(
        record,
        to,
        event="deletion" if to is Status.DELETED and event == "transition" else event,
        reason=reason,
        actor=actor,
        when=when,
    )
    if to is Status.DELETED:
        if record.version != version:
            raise VersionConflict(record.id, version, record.version)
        audit.append(entry)
        store.delete(record.id, scope=scope)
        return record.model_copy(update={"status": Status.DELETED})
    changes: dict[str, Any] = {
        "status": to,
        "metadata": transition_metadata(record, to, when, reason, actor),
        **(extra or {}),
    }
    updated = store.update(record.id, scope=scope, expected_version=version, **changes)
    audit.append(entry)
    return updated


def write_uses(
    store: StatusStore,
    uses: Uses,
    scope: Scope,
    *,
    audit: AuditLog | None = None,
    actor: str = "recall",
    retries: int = 3,
) -> list[MemoryRecord]:
    """Write coalesced uses: for each ``id -> (last use, number of uses)``,
    ``last_accessed_at`` becomes the later of the stored value and the last use, and
    ``access_count`` grows by the number of uses; a ``stale`` record becomes ``active``
    (audited in ``audit``, default the store's log, see
    :func:`~langgraph_memory.lifecycle.audit.audit_arg`). Ids that ``scope`` cannot see, or that
    were deleted meanwhile, are skipped: a use never recreates a record (updates are
    compare-and-set on an existing point). Returns the updated records."""
    log_to = audit_arg(audit, store.audit)
    out: list[MemoryRecord] = []
    for record_id, (when, count) in uses.items():
        for attempt in range(retries + 1):
            try:
                record = store.get(record_id, scope=scope)
            except RecordNotFound:
                break
            last = record.last_accessed_at
            use = {
                "last_accessed_at": when if last is None or when > last else last,
                "access_count": record.access_count + count,
            }
            try:
                if record.status is Status.STALE:
                    updated = move_status(
                        store,
                        record,
                        Status.ACTIVE,
                        scope=scope,
                        reason="used",
                        actor=actor,
                        audit=log_to,
                        event="transition",
                        when=when,
                        extra=use,
                    )
                else:
                    updated = store.update(
                        record.id, scope=scope, expected_version=record.version, **use
                    )
            except RecordNotFound:  # deleted between the read and the write
                break
            except VersionConflict:
                if attempt == retries:
                    raise
                continue
            out.append(updated)
            break
    return out


def evict_over_capacity(
    store: StatusStore,
    scope: Scope,
    *,
    policy: LifecyclePolicy,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "capacity",
) -> list[str]:
    """Keep at most ``policy.max_records_per_scope`` current records in the user + project of
    ``scope`` (records of exactly that project, every acl). On overflow the records with the
    lowest :func:`~langgraph_memory.lifecycle.policy.eviction_score` (ties: oldest first) are
    moved to ``archived``, each audited as an ``eviction`` in ``audit`` (default: the store's
    log). Returns the evicted ids, lowest score first."""
    cap = policy_arg(policy).max_records_per_scope
    when = clock(now)
    log_to = audit_arg(audit, store.audit)
    if cap is None:
        return []
    cond = And((Eq("_project", scope.project_id or ANY), Eq("status", Status.ACTIVE.value)))
    current = [r for r in store.user_records(scope.user_id, where=cond) if r.is_current(when)]
    if len(current) <= cap:
        return []
    evicted: list[str] = []
    for record, score in capacity_evictions(current, cap, when, store.config.recall):
        try:
            move_status(
                store,
                record,
                Status.ARCHIVED,
                scope=record_scope(record),
                reason=f"capacity {cap} exceeded (score {score:.4g})",
                actor=actor,
                audit=log_to,
                event="eviction",
                when=when,
            )
        except (VersionConflict, RecordNotFound):
            log.info("eviction skipped a record changed meanwhile", extra={"id": record.id})
            continue
        evicted.append(record.id)
    log.info(
        "capacity enforced",
        extra={"event": "eviction", "user_id": scope.user_id, "evicted": len(evicted), "cap": cap},
    )
    return evicted


__all__ = [
    "StatusStore",
    "Uses",
    "evict_over_capacity",
    "move_status",
    "record_scope",
    "write_uses",
]
