"""The lifecycle operations on one store: status transitions, uses, capacity, the trail.

The status machine (README: "Lifecycle and forgetting"; the rules are in
:mod:`langgraph_memory.lifecycle.policy`)::

    active -> stale -> archived -> deleted        (plus stale -> active, archived -> active,
                                                    active -> archived, any -> deleted)

Guarantees:

* :func:`transition` allows only the moves in
  :data:`~langgraph_memory.lifecycle.policy.ALLOWED_TRANSITIONS`; anything else
  (``deleted -> *``, ``X -> X``) raises :class:`~langgraph_memory.errors.IllegalTransition`
  and writes nothing. Each move is a compare-and-set update that appends
  ``{from, to, at, reason, actor}`` to ``record.metadata["transitions"]``, and is written to an
  :class:`~langgraph_memory.lifecycle.audit.AuditLog`. Moving to ``deleted`` removes the
  record after auditing it.
* Only ``active`` records are recalled; ``stale`` and ``archived`` ones stay readable through
  ``store.history`` / ``store.list(current_only=False)``.
* :func:`touch` records a use (``last_accessed_at``, ``access_count``), which resets decay and
  re-activates a ``stale`` record.
* :func:`enforce_capacity` keeps at most ``LifecyclePolicy.max_records_per_scope`` current
  records per user + project, archiving the lowest ``recency x confidence x use`` first.
* Every operation here takes ``audit=``; without it the store's log
  (``MemoryStore(audit=...)``) gets the entry, so one durable log sees every change.

Time-driven moves (TTL expiry, archiving stale records, the end of a task) are in
:mod:`langgraph_memory.lifecycle.expiry`. Audit entries carry ids, statuses, reasons and actors,
never memory text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any, TypedDict

from ..core.config import LifecyclePolicy
from ..core.records import MemoryRecord, Status
from ..core.scope import Scope
from ..store import MemoryStore
from ..store.status import evict_over_capacity, move_status, write_uses
from .audit import AuditEvent, AuditLog, audit_arg
from .policy import clock


# ---------------------------------------------------------------------------- transitions
def transition(
    store: MemoryStore,
    record_id: str,
    to: Status | str,
    *,
    scope: Scope | Mapping[str, Any] | str,
    reason: str,
    actor: str,
    audit: AuditLog | None = None,
    event: AuditEvent = "transition",
    expected_version: int | None = None,
    now: datetime | date | str | None = None,
) -> MemoryRecord:
    """Move one record to status ``to`` and audit it.

    Compare-and-set on the record's version (``expected_version`` or the one just read):
    :class:`~langgraph_memory.errors.VersionConflict` if it changed meanwhile, and
    :class:`IllegalTransition` (a ``ValueError``) for a move the status machine forbids; in
    both cases nothing is written. ``to="deleted"`` audits a ``deletion`` then removes the
    record; the returned record then has status ``deleted`` but is no longer stored.
    Returns the new version of the record. Audited in ``audit`` (default: the store's
    log, :attr:`MemoryStore.audit <langgraph_memory.store.MemoryStore.audit>`).
    """
    sc = Scope.of(scope)  # type: ignore[arg-type]
    target = Status(to)
    record = store.get(record_id, scope=sc)
    when = clock(now)
    return move_status(
        store,
        record,
        target,
        scope=sc,
        reason=reason,
        actor=actor,
        audit=audit_arg(audit, store.audit),
        event=event,
        when=when,
        expected_version=expected_version,
    )


async def atransition(
    store: MemoryStore,
    record_id: str,
    to: Status | str,
    *,
    scope: Scope | Mapping[str, Any] | str,
    reason: str,
    actor: str,
    audit: AuditLog | None = None,
    event: AuditEvent = "transition",
    expected_version: int | None = None,
    now: datetime | date | str | None = None,
) -> MemoryRecord:
    """Async :func:`transition`: the same call in a worker thread (``asyncio.to_thread``)."""
    return await asyncio.to_thread(
        transition,
        store,
        record_id,
        to,
        scope=scope,
        reason=reason,
        actor=actor,
        audit=audit,
        event=event,
        expected_version=expected_version,
        now=now,
    )


# ---------------------------------------------------------------------------- use
def touch(
    store: MemoryStore,
    ids: Sequence[str],
    scope: Scope | Mapping[str, Any] | str,
    *,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "recall",
    retries: int = 3,
) -> list[MemoryRecord]:
    """Record that the memories ``ids`` were used (reached the prompt): ``last_accessed_at``
    becomes ``now`` (which restarts their decay) and ``access_count`` grows by one; a
    ``stale`` record becomes ``active`` again (audited). Archived records stay archived (restore
    them with :func:`transition`). Ids ``scope`` cannot see are skipped. Concurrent updates are
    retried up to ``retries`` times. Returns the updated records. Writes now; the recall nodes
    use :meth:`MemoryStore.record_use` instead, which coalesces uses and writes them later
    (both audit a reactivation in ``audit``, default the store's log)."""
    when = clock(now)
    uses = {record_id: (when, 1) for record_id in dict.fromkeys(ids)}
    sc = Scope.of(scope)  # type: ignore[arg-type]
    return write_uses(
        store, uses, sc, audit=audit_arg(audit, store.audit), actor=actor, retries=retries
    )


async def atouch(
    store: MemoryStore,
    ids: Sequence[str],
    scope: Scope | Mapping[str, Any] | str,
    *,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "recall",
) -> list[MemoryRecord]:
    """Async :func:`touch`: the same call in a worker thread (``asyncio.to_thread``)."""
    return await asyncio.to_thread(touch, store, ids, scope, audit=audit, now=now, actor=actor)


# ---------------------------------------------------------------------------- capacity
def enforce_capacity(
    store: MemoryStore,
    scope: Scope | Mapping[str, Any] | str,
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
    log). Returns the evicted ids, lowest score first. The store runs the same after every
    write that overflows its own ``lifecycle`` cap."""
    sc = Scope.of(scope)  # type: ignore[arg-type]
    return evict_over_capacity(
        store, sc, policy=policy, audit=audit_arg(audit, store.audit), now=now, actor=actor
    )


async def aenforce_capacity(
    store: MemoryStore,
    scope: Scope | Mapping[str, Any] | str,
    *,
    policy: LifecyclePolicy,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "capacity",
) -> list[str]:
    """Async :func:`enforce_capacity`: the same call in a worker thread
    (``asyncio.to_thread``)."""
    return await asyncio.to_thread(
        enforce_capacity, store, scope, policy=policy, audit=audit, now=now, actor=actor
    )


TransitionRow = TypedDict(
    "TransitionRow",
    {
        "record_id": str,
        "project_id": str | None,
        "event": str,
        "from": str | None,
        "to": str | None,
        "at": str | None,
        "reason": str | None,
        "actor": str | None,
    },
)
"""One step of a record's ``metadata["transitions"]``, as :func:`transitions_of` lists it."""


def transitions_of(store: MemoryStore, user_id: str) -> list[TransitionRow]:
    """The transitions recorded on the user's stored records (every project and status),
    oldest first: ``{record_id, project_id, event, from, to, at, reason, actor}``. Deleted
    records are gone, so their deletions are only in the :class:`AuditLog`."""
    rows: list[TransitionRow] = []
    for record in store.user_records(user_id):  # refuses empty ids and surrounding whitespace
        for step in record.metadata.get("transitions", []):
            rows.append(
                {
                    "record_id": record.id,
                    "project_id": record.project_id,
                    "event": "transition",
                    "from": step.get("from"),
                    "to": step.get("to"),
                    "at": step.get("at"),
                    "reason": step.get("reason"),
                    "actor": step.get("actor"),
                }
            )
    rows.sort(key=lambda row: (str(row["at"]), row["record_id"]))
    return rows


__all__ = [
    "TransitionRow",
    "aenforce_capacity",
    "atouch",
    "atransition",
    "enforce_capacity",
    "touch",
    "transition",
    "transitions_of",
]
