"""Forgetting: lifecycle states, TTL, decay on use, capacity caps, audit, forget-user checks.

Memory that only grows becomes wrong. This module moves records through the status machine
(README: "Lifecycle and forgetting")::

    active -> stale -> archived -> deleted        (plus stale -> active, archived -> active,
                                                    active -> archived, any -> deleted)

Guarantees:

* :func:`transition` allows only the moves in :data:`ALLOWED_TRANSITIONS`; anything else
  (``deleted -> *``, ``X -> X``) raises :class:`~langgraph_memory.errors.IllegalTransition`
  and writes nothing. Each move is a compare-and-set update that appends
  ``{from, to, at, reason, actor}`` to ``record.metadata["transitions"]``, and is written to an
  :class:`AuditLog`. Moving to ``deleted`` removes the record after auditing it.
* Only ``active`` records are recalled; ``stale`` and ``archived`` ones stay readable through
  ``store.history`` / ``store.list(current_only=False)``.
* :func:`sweep` moves expired active records to ``stale`` (reason ``"ttl"``) and records stale
  for longer than ``LifecyclePolicy.archive_after_days`` to ``archived``.
* :func:`touch` records a use (``last_accessed_at``, ``access_count``), which resets decay and
  re-activates a ``stale`` record.
* :func:`enforce_capacity` keeps at most ``LifecyclePolicy.max_records_per_scope`` current
  records per user + project, archiving the lowest ``recency x confidence x use`` first.
* :func:`verify_forgotten` scans every store again after a forget-user and counts what is left.

Audit entries carry ids, statuses, reasons and actors, never memory text.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import math
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.config import LifecyclePolicy, RecallConfig
from ..core.logsafe import get_logger
from ..core.records import (
    ANY,
    MAX_REASON_CHARS,
    Layer,
    MemoryRecord,
    Status,
    coerce_time,
    to_utc,
    utcnow,
)
from ..core.scope import Scope
from ..errors import (
    ConfigError,
    IllegalTransition,
    RecordNotFound,
    RecordValidationError,
    VersionConflict,
)
from ..store import MemoryStore
from ..store.filters import INTERNAL_RECORDS, And, Cond, Eq, Not, listing_filter, user_filter
from ..store.ranking import effective_half_life

log = get_logger("lifecycle")


MAX_TRANSITIONS_KEPT = 100
"""How many transitions ``record.metadata["transitions"]`` keeps (the audit log keeps all)."""

ALLOWED_TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.ACTIVE: frozenset({Status.STALE, Status.ARCHIVED, Status.DELETED}),
    Status.STALE: frozenset({Status.ACTIVE, Status.ARCHIVED, Status.DELETED}),
    Status.ARCHIVED: frozenset({Status.ACTIVE, Status.DELETED}),
    Status.DELETED: frozenset(),
}
"""The status machine: ``ALLOWED_TRANSITIONS[from]`` is the set of statuses ``from`` may move to."""

AuditEvent = Literal["transition", "eviction", "deletion", "ttl", "forget"]


# ---------------------------------------------------------------------------- audit log
class AuditEntry(BaseModel):
    """One audited lifecycle event. Never holds memory text: ids, statuses, reason, actor."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    user_id: str
    project_id: str | None = None
    record_id: str | None = None
    event: AuditEvent
    from_status: str | None = Field(default=None, alias="from")
    to_status: str | None = Field(default=None, alias="to")
    reason: str = ""
    actor: str = "system"
    at: datetime = Field(default_factory=utcnow)
    details: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON form written to the log (keys ``from``/``to``)."""
        return self.model_dump(mode="json", by_alias=True)


PSEUDONYM_PREFIX = "u_"
"""Stored audit entries name the user as ``u_`` + 32 hex digits: a keyed hash of the id."""


class AuditLog:
    """Append-only audit trail of lifecycle events.

    ``AuditLog(path)`` appends one JSON line per entry to ``path`` and fsyncs it before
    returning, so an acknowledged entry survives a crash; ``AuditLog()`` keeps entries in
    memory (tests, short-lived processes). Thread-safe. Entries are never rewritten, except by
    :meth:`pseudonymize_user` (forget-user), which replaces a user id written in clear by a
    log from before pseudonyms.

    The log never stores a user id: entries name the user by :meth:`pseudonym`, an
    HMAC-SHA256 of the id under a random key kept beside the log (``<path>.key``, mode 0600;
    in memory for an in-memory log). ``entries("alice")`` still finds alice's entries; the
    file alone does not say who alice is. Entries carry ids, statuses, reasons and counts,
    never memory text.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._memory: list[AuditEntry] = []
        self._lock = threading.Lock()
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._key = self._load_key()

    def _load_key(self) -> bytes:
        if self.path is None:
            return os.urandom(32)
        key_path = self.path.with_name(self.path.name + ".key")
        try:
            fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return bytes.fromhex(key_path.read_text("ascii").strip())
        key = os.urandom(32)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(key.hex())
            fh.flush()
            os.fsync(fh.fileno())
        return key

    def pseudonym(self, user_id: str) -> str:
        """The name this log gives ``user_id`` (stable for one log, unlinkable without its
        key)."""
        digest = hmac.new(self._key, user_id.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return PSEUDONYM_PREFIX + digest.hexdigest()[:32]

    def append(self, entry: AuditEntry) -> AuditEntry:
        """Record ``entry`` durably (fsync when file-backed), its user id (and an actor that is
        the user) replaced by :meth:`pseudonym`, and return the stored entry."""
        name = self.pseudonym(entry.user_id)
        update = {"user_id": name}
        if entry.actor == entry.user_id:  # the user acted on their own memory
            update["actor"] = name
        stored = entry.model_copy(update=update)
        with self._lock:
            if self.path is None:
                self._memory.append(stored)
            else:
                line = json.dumps(stored.to_json(), ensure_ascii=False, sort_keys=True)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
        log.info(
            "audit: %s of record %s (%s -> %s)",
            stored.event,
            stored.record_id or "-",
            stored.from_status or "-",
            stored.to_status or "-",
            extra={"audit": stored.to_json()},
        )
        return stored

    def log(self, event: AuditEvent, *, user_id: str, **fields: Any) -> AuditEntry:
        """Build an :class:`AuditEntry` from keyword fields (``from``/``to`` may be given as
        ``from_status``/``to_status``) and append it."""
        return self.append(AuditEntry(event=event, user_id=user_id, **fields))

    def pseudonymize_user(self, user_id: str) -> int:
        """Rewrite entries that name ``user_id`` in clear as user or actor (written before
        pseudonyms) with its pseudonym, atomically; returns how many. Part of forget-user."""
        with self._lock:
            if self.path is None:
                name = self.pseudonym(user_id)
                clear = [i for i, e in enumerate(self._memory) if user_id in (e.user_id, e.actor)]
                for i in clear:
                    e = self._memory[i]
                    self._memory[i] = e.model_copy(
                        update={
                            "user_id": name if e.user_id == user_id else e.user_id,
                            "actor": name if e.actor == user_id else e.actor,
                        }
                    )
                return len(clear)
            if not self.path.exists():
                return 0
            lines = self.path.read_text("utf-8").splitlines()
            changed = 0
            out = []
            for line in lines:
                try:
                    item = json.loads(line)
                except ValueError:
                    out.append(line)
                    continue
                if isinstance(item, dict) and user_id in (item.get("user_id"), item.get("actor")):
                    if item.get("actor") == user_id:
                        item["actor"] = self.pseudonym(user_id)
                    if item.get("user_id") == user_id:
                        item["user_id"] = self.pseudonym(user_id)
                    line = json.dumps(item, ensure_ascii=False, sort_keys=True)
                    changed += 1
                out.append(line)
            if changed:
                tmp = self.path.with_name(self.path.name + ".tmp")
                with open(tmp, "w", encoding="utf-8") as fh:
                    fh.write("".join(f"{line}\n" for line in out))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self.path)
            return changed

    def managed_paths(self) -> list[Path]:
        """The log file (``[]`` for an in-memory log)."""
        return [] if self.path is None else [self.path]

    def _all(self) -> list[AuditEntry]:
        with self._lock:
            if self.path is None:
                return list(self._memory)
            if not self.path.exists():
                return []
            out: list[AuditEntry] = []
            path = self.path
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        out.append(AuditEntry.model_validate(json.loads(line)))
                    except ValueError:  # a torn last line was never acknowledged
                        log.warning("skipping unreadable audit line", extra={"path": str(path)})
            return out

    def entries(
        self,
        user_id: str | None = None,
        *,
        events: Iterable[str] | None = None,
        record_id: str | None = None,
    ) -> list[AuditEntry]:
        """Entries in the order they were written, optionally only those of ``user_id``,
        of the given ``events`` and/or of one ``record_id``. Stored entries name the user by
        :meth:`pseudonym`."""
        wanted = set(events) if events is not None else None
        names = None if user_id is None else {user_id, self.pseudonym(user_id)}
        return [
            e
            for e in self._all()
            if (names is None or e.user_id in names)
            and (wanted is None or e.event in wanted)
            and (record_id is None or e.record_id == record_id)
        ]

    def __len__(self) -> int:
        return len(self._all())


_DEFAULT_AUDIT = AuditLog()


def default_audit_log() -> AuditLog:
    """The process-wide in-memory audit log used when a function is given none."""
    return _DEFAULT_AUDIT


# ---------------------------------------------------------------------------- policy
_DAY = 86400.0


def apply_default_ttl(
    record: MemoryRecord,
    policy: LifecyclePolicy | None = None,
    *,
    now: datetime | date | str | None = None,
) -> MemoryRecord:
    """``record`` with ``expire_at`` set from the policy's TTL for its layer/kind, counted from
    ``now`` (default: the record's ``created_at``). A record that already has an ``expire_at``,
    or whose layer/kind has no TTL, is returned unchanged."""
    if record.expire_at is not None:
        return record
    ttl = _policy_arg(policy).ttl_for(record.layer, record.kind)
    if ttl is None:
        return record
    start = coerce_time(now, "now") if now is not None else record.created_at
    return record.model_copy(update={"expire_at": start + ttl})


# ---------------------------------------------------------------------------- transitions
def _policy_arg(policy: Any) -> LifecyclePolicy:
    """``policy`` or the default policy; ``ConfigError`` for anything but a LifecyclePolicy."""
    if policy is None:
        return LifecyclePolicy()
    if not isinstance(policy, LifecyclePolicy):
        raise ConfigError(f"policy must be a LifecyclePolicy, got {type(policy).__name__}")
    return policy


def _audit_arg(audit: Any) -> AuditLog:
    """``audit`` or the default log; ``TypeError`` for anything but an AuditLog."""
    if audit is None:
        return _DEFAULT_AUDIT
    if not isinstance(audit, AuditLog):
        raise TypeError(f"audit must be an AuditLog, got {type(audit).__name__}")
    return audit


def check_transition(current: Status | str, to: Status | str) -> None:
    """Raise :class:`IllegalTransition` unless ``current -> to`` is allowed."""
    src, dst = Status(current), Status(to)
    if dst not in ALLOWED_TRANSITIONS[src]:
        allowed = sorted(s.value for s in ALLOWED_TRANSITIONS[src]) or "nothing"
        raise IllegalTransition(
            f"illegal lifecycle transition {src.value} -> {dst.value}; "
            f"{src.value} may move to {allowed}"
        )


def _record_scope(record: MemoryRecord) -> Scope:
    """A scope that sees exactly this record (its user, project and acl)."""
    return Scope(user_id=record.user_id, project_id=record.project_id, acl=tuple(record.acl))


def _transition_meta(
    record: MemoryRecord, to: Status, when: datetime, reason: str, actor: str
) -> dict[str, Any]:
    step = {
        "from": record.status.value,
        "to": to.value,
        "at": when.isoformat(),
        "reason": reason,
        "actor": actor,
    }
    history = [*record.metadata.get("transitions", []), step][-MAX_TRANSITIONS_KEPT:]
    return {**record.metadata, "transitions": history}


def _apply(
    store: MemoryStore,
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
    check_transition(record.status, to)
    if not isinstance(audit, AuditLog):
        raise TypeError(f"audit must be an AuditLog, got {type(audit).__name__}")
    version = _version_arg(record.version if expected_version is None else expected_version)
    # the audit entry is built (and so validated) before anything is written: a bad reason,
    # actor or event is refused with nothing changed, never "changed but unaudited"
    entry = _audit_entry(
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
        "metadata": _transition_meta(record, to, when, reason, actor),
        **(extra or {}),
    }
    updated = store.update(record.id, scope=scope, expected_version=version, **changes)
    audit.append(entry)
    return updated


def _version_arg(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected_version must be an int, got {type(value).__name__} {value!r}")
    return value


def _audit_entry(
    record: MemoryRecord,
    to: Status,
    *,
    event: AuditEvent,
    reason: Any,
    actor: Any,
    when: datetime,
) -> AuditEntry:
    """The audit entry of one transition, validated; ``ValueError``/``TypeError`` if invalid."""
    if not isinstance(reason, str):
        raise TypeError(f"reason must be a string, got {type(reason).__name__}")
    if len(reason) > MAX_REASON_CHARS:
        raise ValueError(f"reason has {len(reason)} characters, more than {MAX_REASON_CHARS}")
    if not isinstance(actor, str) or not actor.strip():
        raise TypeError(f"actor must be a non-empty string, got {actor!r}")
    try:
        return AuditEntry(
            event=event,
            user_id=record.user_id,
            project_id=record.project_id,
            record_id=record.id,
            from_status=record.status.value,
            to_status=to.value,
            reason=reason,
            actor=actor,
            at=when,
        )
    except ValidationError as exc:
        raise RecordValidationError(f"invalid audit entry: {exc}") from exc


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
    Returns the new version of the record.
    """
    sc = Scope.of(scope)  # type: ignore[arg-type]
    target = Status(to)
    record = store.get(record_id, scope=sc)
    when = coerce_time(now, "now") if now is not None else utcnow()
    return _apply(
        store,
        record,
        target,
        scope=sc,
        reason=reason,
        actor=actor,
        audit=_audit_arg(audit),
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
    """Async :func:`transition` (runs in a worker thread)."""
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


# ---------------------------------------------------------------------------- use / decay
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
    use :meth:`MemoryStore.record_use` instead, which coalesces uses and writes them later."""
    when = coerce_time(now, "now") if now is not None else utcnow()
    uses = {record_id: (when, 1) for record_id in dict.fromkeys(ids)}
    return apply_uses(store, uses, scope, audit=audit, actor=actor, retries=retries)


def apply_uses(
    store: MemoryStore,
    uses: Mapping[str, tuple[datetime, int]],
    scope: Scope | Mapping[str, Any] | str,
    *,
    audit: AuditLog | None = None,
    actor: str = "recall",
    retries: int = 3,
) -> list[MemoryRecord]:
    """Write coalesced uses: for each ``id -> (last use, number of uses)``,
    ``last_accessed_at`` becomes the later of the stored value and the last use, and
    ``access_count`` grows by the number of uses; a ``stale`` record becomes ``active`` (as
    :func:`touch`). Ids that ``scope`` cannot see, or that were deleted meanwhile, are
    skipped: a use never recreates a record (updates are compare-and-set on an existing
    point). Returns the updated records."""
    sc = Scope.of(scope)  # type: ignore[arg-type]
    log_to = _audit_arg(audit)
    out: list[MemoryRecord] = []
    for record_id, (when, count) in uses.items():
        for attempt in range(retries + 1):
            try:
                record = store.get(record_id, scope=sc)
            except RecordNotFound:
                break
            last = record.last_accessed_at
            use = {
                "last_accessed_at": when if last is None or when > last else last,
                "access_count": record.access_count + count,
            }
            try:
                if record.status is Status.STALE:
                    updated = _apply(
                        store,
                        record,
                        Status.ACTIVE,
                        scope=sc,
                        reason="used",
                        actor=actor,
                        audit=log_to,
                        event="transition",
                        when=when,
                        extra=use,
                    )
                else:
                    updated = store.update(
                        record.id, scope=sc, expected_version=record.version, **use
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


async def atouch(
    store: MemoryStore,
    ids: Sequence[str],
    scope: Scope | Mapping[str, Any] | str,
    *,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "recall",
) -> list[MemoryRecord]:
    """Async :func:`touch`."""
    return await asyncio.to_thread(touch, store, ids, scope, audit=audit, now=now, actor=actor)


def decay_factor(
    record: MemoryRecord,
    now: datetime | date | str | None = None,
    config: RecallConfig | None = None,
) -> float:
    """``0.5 ** (age / half_life)`` of a record, where age counts from its last use (or
    creation) and the half-life is :func:`~langgraph_memory.store.ranking.effective_half_life`
    of its kind and importance. 1.0 for a fresh record; decay lowers rank, never deletes."""
    cfg = config or RecallConfig()
    at = coerce_time(now, "now") if now is not None else utcnow()
    last = max(record.created_at, record.last_accessed_at or record.created_at)
    age_days = max(0.0, (at - last).total_seconds() / _DAY)
    return math.pow(0.5, age_days / effective_half_life(cfg, record.kind.value, record.importance))


def eviction_score(
    record: MemoryRecord,
    now: datetime | date | str | None = None,
    config: RecallConfig | None = None,
) -> float:
    """``recency x confidence x use`` with ``use = 1 + ln(1 + access_count)``; the lowest
    score is evicted first."""
    use = 1.0 + math.log1p(record.access_count)
    return decay_factor(record, now, config) * record.confidence * use


# ---------------------------------------------------------------------------- sweep / TTL
class SweepReport(BaseModel):
    """What one :func:`sweep` did: ids moved to stale (expired) and to archived."""

    staled: list[str] = Field(default_factory=list)
    archived: list[str] = Field(default_factory=list)


def _user_filter(target: Scope | str, statuses: Sequence[Status]) -> Cond:
    if isinstance(target, Scope):
        return listing_filter(target, statuses=statuses)
    user = Scope(user_id=target).user_id  # validates
    return user_filter(user, statuses=statuses)


def _stale_since(record: MemoryRecord) -> datetime:
    for step in reversed(record.metadata.get("transitions", [])):
        if step.get("to") == Status.STALE.value:
            try:
                return to_utc(datetime.fromisoformat(str(step["at"])))
            except (KeyError, ValueError):
                break
    return record.updated_at


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
    pol = _policy_arg(policy)
    when = coerce_time(now, "now") if now is not None else utcnow()
    log_to = _audit_arg(audit)
    target: Scope | str = (
        scope_or_user if isinstance(scope_or_user, str) else Scope.of(scope_or_user)  # type: ignore[arg-type]
    )
    report = SweepReport()
    cond = _user_filter(target, (Status.ACTIVE, Status.STALE))
    records = [MemoryRecord.from_payload(p) for p in store.backend.scroll(cond)]
    for record in sorted(records, key=lambda r: (r.created_at, r.id)):
        try:
            if (
                record.status is Status.ACTIVE
                and record.expire_at is not None
                and record.expire_at <= when
            ):
                _apply(
                    store,
                    record,
                    Status.STALE,
                    scope=_record_scope(record),
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
                and when - _stale_since(record) >= timedelta(days=pol.archive_after_days)
            ):
                _apply(
                    store,
                    record,
                    Status.ARCHIVED,
                    scope=_record_scope(record),
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
    """Async :func:`sweep`."""
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
    when = coerce_time(now, "now") if now is not None else utcnow()
    log_to = _audit_arg(audit)
    done: list[str] = []
    for record in store.list(scope=sc, filters={"layer": Layer.WORKING.value, "task_id": task_id}):
        _apply(
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
    lowest :func:`eviction_score` (ties: oldest first) are moved to ``archived``, each audited
    as an ``eviction``. Returns the evicted ids, lowest score first."""
    sc = Scope.of(scope)  # type: ignore[arg-type]
    cap = _policy_arg(policy).max_records_per_scope
    when = coerce_time(now, "now") if now is not None else utcnow()
    log_to = _audit_arg(audit)
    if cap is None:
        return []
    cond = And(
        (
            Eq("user_id", sc.user_id),
            Eq("_project", sc.project_id or ANY),
            Eq("status", Status.ACTIVE.value),
            Not(INTERNAL_RECORDS),
        )
    )
    current = [
        r
        for r in (MemoryRecord.from_payload(p) for p in store.backend.scroll(cond))
        if r.is_current(when)
    ]
    overflow = len(current) - cap
    if overflow <= 0:
        return []
    cfg = store.config.recall
    ranked = sorted(current, key=lambda r: (eviction_score(r, when, cfg), r.created_at, r.id))
    evicted: list[str] = []
    for record in ranked[:overflow]:
        score = eviction_score(record, when, cfg)
        try:
            _apply(
                store,
                record,
                Status.ARCHIVED,
                scope=_record_scope(record),
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
        extra={"event": "eviction", "user_id": sc.user_id, "evicted": len(evicted), "cap": cap},
    )
    return evicted


async def aenforce_capacity(
    store: MemoryStore,
    scope: Scope | Mapping[str, Any] | str,
    *,
    policy: LifecyclePolicy,
    audit: AuditLog | None = None,
    now: datetime | date | str | None = None,
    actor: str = "capacity",
) -> list[str]:
    """Async :func:`enforce_capacity`."""
    return await asyncio.to_thread(
        enforce_capacity, store, scope, policy=policy, audit=audit, now=now, actor=actor
    )


# ---------------------------------------------------------------------------- forget-user
def verify_forgotten(user_id: str, **stores: Any) -> dict[str, int | None]:
    """See :func:`langgraph_memory.lifecycle.forget.verify_forgotten` (logical counts and a scan of
    every byte of the stores' files)."""
    from .forget import verify_forgotten as verify

    return verify(user_id, **stores)


def transitions_of(store: MemoryStore, user_id: str) -> list[dict[str, Any]]:
    """The transitions recorded on the user's stored records (every project and status),
    oldest first: ``{record_id, project_id, from, to, at, reason, actor}``. Deleted records are
    gone, so their deletions are only in the :class:`AuditLog`."""
    user = Scope(user_id=user_id).user_id  # refuses empty ids and surrounding whitespace
    rows: list[dict[str, Any]] = []
    for payload in store.backend.scroll(user_filter(user)):
        record = MemoryRecord.from_payload(payload)
        for step in record.metadata.get("transitions", []):
            rows.append(
                {
                    "record_id": record.id,
                    "project_id": record.project_id,
                    "event": "transition",
                    **{k: step.get(k) for k in ("from", "to", "at", "reason", "actor")},
                }
            )
    rows.sort(key=lambda row: (str(row["at"]), row["record_id"]))
    return rows


__all__ = [
    "ALLOWED_TRANSITIONS",
    "AuditEntry",
    "AuditEvent",
    "AuditLog",
    "LifecyclePolicy",
    "SweepReport",
    "aenforce_capacity",
    "apply_default_ttl",
    "apply_uses",
    "asweep",
    "atouch",
    "atransition",
    "check_transition",
    "decay_factor",
    "default_audit_log",
    "end_task",
    "enforce_capacity",
    "eviction_score",
    "sweep",
    "touch",
    "transition",
    "transitions_of",
    "verify_forgotten",
]
