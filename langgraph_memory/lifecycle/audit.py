"""The audit log of lifecycle events: who moved which record where, and why.

Every mutating lifecycle operation appends here: :func:`~langgraph_memory.lifecycle.ops.transition`,
:func:`~langgraph_memory.lifecycle.expiry.sweep`, :func:`~langgraph_memory.lifecycle.ops.touch`
(and the store's background use writes), capacity evictions (explicit or after a store write)
and :func:`~langgraph_memory.lifecycle.forget.forget_user`. Each takes ``audit=``; without one
they use the store's log (``MemoryStore(audit=...)``), else the process-wide in-memory log of
:func:`default_audit_log` (forget-user then writes no entry, as it has no durable log to keep
one in).

Guarantees:

* ``AuditLog(path)`` is durable: one JSON line per entry, fsynced before ``append`` returns.
* ``AuditLog()`` is bounded: it keeps the latest ``max_entries`` entries
  (:data:`MEMORY_AUDIT_ENTRIES` by default) and drops the oldest first, so a long-running
  process does not grow without end. Give a path to keep every entry.
* Entries never hold memory text or a user id in clear (see :class:`AuditLog`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
from collections import deque
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.logsafe import get_logger
from ..core.records import MAX_REASON_CHARS, MemoryRecord, Status, utcnow
from ..errors import RecordValidationError

log = get_logger("lifecycle")

AuditEvent = Literal["transition", "eviction", "deletion", "ttl", "forget"]

MEMORY_AUDIT_ENTRIES = 10_000
"""How many entries an in-memory :class:`AuditLog` keeps by default (the oldest go first)."""


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
    returning, so an acknowledged entry survives a crash; ``AuditLog()`` keeps the latest
    ``max_entries`` entries in memory (tests, short-lived processes; older ones are dropped).
    Thread-safe. Entries are never rewritten, except by :meth:`pseudonymize_user`
    (forget-user), which replaces a user id written in clear by a log from before pseudonyms.

    The log never stores a user id: entries name the user by :meth:`pseudonym`, an
    HMAC-SHA256 of the id under a random key kept beside the log (``<path>.key``, mode 0600;
    in memory for an in-memory log). ``entries("alice")`` still finds alice's entries; the
    file alone does not say who alice is. Entries carry ids, statuses, reasons and counts,
    never memory text.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_entries: int = MEMORY_AUDIT_ENTRIES,
    ) -> None:
        if not isinstance(max_entries, int) or isinstance(max_entries, bool) or max_entries < 1:
            raise ValueError(f"max_entries must be a positive int, got {max_entries!r}")
        self.path = Path(path) if path is not None else None
        self.max_entries = max_entries
        """The in-memory log's bound (a file-backed log keeps every entry)."""
        self._memory: deque[AuditEntry] = deque(maxlen=max_entries)
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

    def log(
        self,
        event: AuditEvent,
        *,
        user_id: str,
        project_id: str | None = None,
        record_id: str | None = None,
        from_status: str | None = None,
        to_status: str | None = None,
        reason: str = "",
        actor: str = "system",
        at: datetime | None = None,
        details: dict[str, Any] | None = None,
    ) -> AuditEntry:
        """Build an :class:`AuditEntry` from these fields (``at`` defaults to now) and append
        it."""
        entry = AuditEntry(
            event=event,
            user_id=user_id,
            project_id=project_id,
            record_id=record_id,
            from_status=from_status,
            to_status=to_status,
            reason=reason,
            actor=actor,
            at=at if at is not None else utcnow(),
            details=details if details is not None else {},
        )
        return self.append(entry)

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
    """The process-wide in-memory audit log (bounded to :data:`MEMORY_AUDIT_ENTRIES`) that
    lifecycle operations write to when neither they nor the store were given one."""
    return _DEFAULT_AUDIT


def audit_arg(audit: object, configured: AuditLog | None = None) -> AuditLog:
    """The log an operation writes to: ``audit`` if given, else ``configured`` (the store's
    ``MemoryStore(audit=...)``), else :func:`default_audit_log`. ``TypeError`` for an
    ``audit`` that is not an AuditLog. (Never ``audit or ...``: an empty log is falsy.)"""
    if audit is None:
        return configured if configured is not None else _DEFAULT_AUDIT
    if not isinstance(audit, AuditLog):
        raise TypeError(f"audit must be an AuditLog, got {type(audit).__name__}")
    return audit


def transition_entry(
    record: MemoryRecord,
    to: Status,
    *,
    event: AuditEvent,
    reason: object,
    actor: object,
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


__all__ = [
    "MEMORY_AUDIT_ENTRIES",
    "PSEUDONYM_PREFIX",
    "AuditEntry",
    "AuditEvent",
    "AuditLog",
    "audit_arg",
    "default_audit_log",
    "transition_entry",
]
