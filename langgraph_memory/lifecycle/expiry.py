"""Time-driven lifecycle moves: TTL expiry, archiving what stayed stale, the end of a task.

Guarantees:

* :func:`sweep` moves expired active records to ``stale`` (event ``ttl``, reason ``"ttl"``)
  and records stale for ``LifecyclePolicy.archive_after_days`` or more to ``archived``;
  records changed concurrently are skipped this time, never overwritten.
* :func:`end_task` expires the working memory of one task now (the "until task end" TTL).
* Every move is audited in ``audit=`` (default: the store's log, ``MemoryStore(audit=...)``).

The store stamps the TTLs on new records (:func:`~langgraph_memory.lifecycle.policy.default_ttl`);
the rules (``stale_since``, the status machine) are in :mod:`langgraph_memory.lifecycle.policy`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from ..core.config import LifecyclePolicy
from ..core.logsafe import get_logger
from ..core.records import Layer, MemoryRecord, Status
from ..core.scope import Scope
from ..errors import RecordNotFound, VersionConflict
from ..store import MemoryStore
from ..store.filters import In, listing_filter
from ..store.status import move_status, record_scope
from .audit import AuditLog, audit_arg
from .policy import clock, policy_arg, stale_since

log = get_logger("lifecycle")


class SweepReport(BaseModel):
    """What one :func:`sweep` did: ids moved to stale (expired) and to archived."""

    staled: list[str] = Field(default_factory=list)
    archived: list[str] = Field(default_factory=list)


def _user_records(
    store: MemoryStore, target: Scope | str, statuses: Sequence[Status]
) -> list[MemoryRecord]:
    """The records of ``statuses`` that ``target`` (a scope, or every scope of a user) holds."""
    if isinstance(target, Scope):
        return store.user_records(target.user_id, where=listing_filter(target, statuses=statuses))
    return store.user_records(target, where=In("status", tuple(s.value for s in statuses)))


def sweep(
    store: MemoryStore,
    scope_or_user: Scope | Mapping[str, Any] | str,
    *,
    policy: LifecyclePolicy | None = None,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "sweep",
) -> SweepReport:
    """Move on what time has passed by, for one scope (or, given a ``user_id`` string, every
    project and acl of that user): active records whose ``expire_at <= now`` become ``stale``
    (event ``ttl``, reason ``"ttl"``); records stale for ``archive_after_days`` or more become
    ``archived``. Each move is audited. Records changed concurrently are skipped this time."""
    pol = policy_arg(policy)
    when = clock(now)
    log_to = audit_arg(audit, store.audit)
    target: Scope | str = (
        scope_or_user if isinstance(scope_or_user, str) else Scope.of(scope_or_user)  # type: ignore[arg-type]
    )
    report = SweepReport()
    records = _user_records(store, target, (Status.ACTIVE, Status.STALE))
    for record in sorted(records, key=lambda r: (r.created_at, r.id)):
        try:
            if (
                record.status is Status.ACTIVE
                and record.expire_at is not None
                and record.expire_at <= when
            ):
                move_status(
                    store,
                    record,
                    Status.STALE,
                    scope=record_scope(record),
                    reason="ttl",
                    actor=actor,
                    audit=log_to,
                    event="ttl",
                    when=when,
                )
                report.staled.append(record.id)
            elif (
                record.status is Status.STALE
                and pol.archive_after_days is not None
                and when - stale_since(record) >= timedelta(days=pol.archive_after_days)
            ):
                move_status(
                    store,
                    record,
                    Status.ARCHIVED,
                    scope=record_scope(record),
                    reason=f"stale for {pol.archive_after_days:g} days",
                    actor=actor,
                    audit=log_to,
                    event="transition",
                    when=when,
                )
                report.archived.append(record.id)
        except (VersionConflict, RecordNotFound):
            log.info("sweep skipped a record changed meanwhile", extra={"id": record.id})
    log.info(
        "sweep",
        extra={"event": "sweep", "staled": len(report.staled), "archived": len(report.archived)},
    )
    return report


async def asweep(
    store: MemoryStore,
    scope_or_user: Scope | Mapping[str, Any] | str,
    *,
    policy: LifecyclePolicy | None = None,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "sweep",
) -> SweepReport:
    """Async :func:`sweep`: the same call in a worker thread (``asyncio.to_thread``)."""
    return await asyncio.to_thread(
        sweep, store, scope_or_user, policy=policy, audit=audit, now=now, actor=actor
    )


def end_task(
    store: MemoryStore,
    scope: Scope | Mapping[str, Any] | str,
    task_id: str,
    *,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "task_end",
) -> list[str]:
    """The working-memory TTL "until task end": every current working-layer record of
    ``task_id`` in ``scope`` expires now and becomes ``stale`` (event ``ttl``). Returns their
    ids."""
    sc = Scope.of(scope)  # type: ignore[arg-type]
    when = clock(now)
    log_to = audit_arg(audit, store.audit)
    done: list[str] = []
    for record in store.list(scope=sc, filters={"layer": Layer.WORKING.value, "task_id": task_id}):
        move_status(
            store,
            record,
            Status.STALE,
            scope=sc,
            reason=f"task {task_id} ended",
            actor=actor,
            audit=log_to,
            event="ttl",
            when=when,
            extra={"expire_at": when},
        )
        done.append(record.id)
    return done


__all__ = ["SweepReport", "asweep", "end_task", "sweep"]
