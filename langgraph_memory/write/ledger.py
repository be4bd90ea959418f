"""The write ledger: the write path's own bookkeeping, kept in the memory store itself.

Three kinds of entries, one record each (subject ``LEDGER_SUBJECT``, layer ``working``,
status ``archived``, an empty validity window in 1970, so recall, ``list()`` of current
memory and ``as_of`` never see them; ``delete_user`` removes them with the user):

* ``turn:<hash>`` — a processed turn: its key, thread, task and the decisions it got. It makes
  processing idempotent per ``(thread_id, turn_id)`` (also across pipelines and restarts) and
  gives each thread's turn order (:meth:`WriteLedger.previous_turn`: what "scratch that"
  withdraws).
* ``llm:<hash>`` — a turn whose deferred LLM pass ran (:mod:`~langgraph_memory.write.deferred`).
* ``pending:<hash>`` — a candidate waiting for repetition or confirmation, with the turns
  that stated it; marked ``resolved`` once written.

Nothing of a clause that held a refused secret is kept (:data:`REFUSED_TEXT` stands in).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from ..core.logsafe import get_logger
from ..core.records import (
    LEDGER_SUBJECT,  # the one import of the ledger's subject
    Kind,
    Layer,
    MemoryRecord,
    Source,
    Status,
    utcnow,
)
from ..core.scope import Scope
from ..errors import RecordNotFound
from ..store.memory_store import MemoryStore
from .gate import GateResult
from .matching import norm_value
from .types import Candidate, WriteDecision

log = get_logger("write")

EPOCH0 = datetime(1970, 1, 1, tzinfo=UTC)
"""Start and end of every ledger record's validity window (never current)."""

TURN_PREFIX = "turn:"
LLM_LEDGER_PREFIX = "llm:"
"""Ledger predicate prefix of a turn whose deferred LLM pass ran."""
PENDING_PREFIX = "pending:"

REFUSED_TEXT = "[withheld: the clause held a secret whose PII policy is refuse]"
"""What the write ledger keeps of a candidate whose clause held a refused secret."""


def turn_key_of(thread_id: str | None, turn_id: str | None) -> str | None:
    """The idempotence key of a turn, or None without a ``turn_id``."""
    if not turn_id:
        return None
    return f"{thread_id or '-'}:{turn_id}"


def ledger_hash(value: str) -> str:
    """The short hash naming a ledger entry (of a turn key or a pending identity)."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


def _ledger_candidate(candidate: Candidate) -> dict[str, Any]:
    """The candidate as the ledger keeps it: nothing of a clause that held a refused secret
    (not even its redacted text) is stored."""
    if candidate.refused_pii:
        candidate = candidate.model_copy(update={"text": REFUSED_TEXT, "object": ""})
    return candidate.model_dump(mode="json")


def _entry_meta(
    key: str,
    decisions: Sequence[WriteDecision],
    *,
    thread_id: str | None,
    task_id: str | None,
) -> dict[str, Any]:
    return {
        "turn_key": key,
        "thread_id": thread_id,
        "task_id": task_id,
        "decisions": [
            {
                "action": d.action,
                "record_id": d.record_id,
                "pending_id": d.pending_id,
                "reason": d.reason,
                "candidate": _ledger_candidate(d.candidate),
            }
            for d in decisions
        ],
    }


def _pending_predicate(candidate: Candidate) -> str:
    ident = "|".join(
        (
            candidate.scope_level,
            candidate.subject,
            candidate.predicate,
            norm_value(candidate.object),
        )
    )
    return PENDING_PREFIX + ledger_hash(ident)


class WriteLedger:
    """Reads and writes the ledger entries of a :class:`MemoryStore` (see module docstring)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # ------------------------------------------------------------------ records
    def record(
        self, scope: Scope, predicate: str, text: str, metadata: dict[str, Any]
    ) -> MemoryRecord:
        """A ledger record (not yet stored)."""
        return MemoryRecord(
            user_id=scope.user_id,
            project_id=scope.project_id,
            layer=Layer.WORKING,
            kind=Kind.EVENT,
            subject=LEDGER_SUBJECT,
            predicate=predicate,
            text=text,
            status=Status.ARCHIVED,
            valid_from=EPOCH0,
            valid_to=EPOCH0,
            importance=1,
            source=Source.IMPORT,
            metadata=metadata,
        )

    def entries(self, scope: Scope, predicate: str | None = None) -> list[MemoryRecord]:
        """The ledger entries of ``scope`` (its project level only), all or one predicate."""
        filters: dict[str, Any] = {"subject": LEDGER_SUBJECT, "layer": Layer.WORKING.value}
        if predicate is not None:
            filters["predicate"] = predicate
        records = self.store.list(
            scope=scope, filters=filters, current_only=False, include_internal=True
        )
        return [r for r in records if r.project_id == scope.project_id]

    # ------------------------------------------------------------------ processed turns
    def _entry(self, scope: Scope, prefix: str, key: str) -> MemoryRecord | None:
        found = self.entries(scope, prefix + ledger_hash(key))
        return found[0] if found else None

    def _write_entry(
        self,
        scope: Scope,
        prefix: str,
        label: str,
        key: str,
        decisions: Sequence[WriteDecision],
        *,
        task_id: str | None,
        thread_id: str | None,
    ) -> None:
        meta = _entry_meta(key, decisions, thread_id=thread_id, task_id=task_id)
        name = ledger_hash(key)
        self.store.add(
            self.record(scope, prefix + name, f"{label} {name}", meta),
            scope=scope,
        )

    def turn_entry(self, scope: Scope, key: str) -> MemoryRecord | None:
        """The entry of the processed turn ``key``, or None when it was not processed."""
        return self._entry(scope, TURN_PREFIX, key)

    def write_turn(
        self,
        scope: Scope,
        key: str,
        decisions: Sequence[WriteDecision],
        *,
        task_id: str | None,
        thread_id: str | None,
    ) -> None:
        """Record that turn ``key`` was processed with ``decisions``."""
        self._write_entry(
            scope,
            TURN_PREFIX,
            "write ledger entry",
            key,
            decisions,
            task_id=task_id,
            thread_id=thread_id,
        )

    def previous_turn(self, scope: Scope, thread_id: str | None, key: str) -> str | None:
        """The key of the user turn before ``key`` in ``thread_id``: the latest turn of the
        thread in the ledger that came before ``key`` (before ``key``'s own entry when it
        has one, e.g. a pending write confirmed later); None when there is none."""
        prefix = f"{thread_id or '-'}:"

        def in_thread(rec: MemoryRecord) -> bool:
            if "thread_id" in rec.metadata:
                return bool(rec.metadata["thread_id"] == thread_id)
            return str(rec.metadata.get("turn_key", "")).startswith(prefix)

        entries = sorted(
            (
                r
                for r in self.entries(scope)
                if (r.predicate or "").startswith(TURN_PREFIX) and in_thread(r)
            ),
            key=lambda r: (r.created_at, r.id),
        )
        keys = [str(r.metadata.get("turn_key")) for r in entries]
        if key in keys:
            keys = keys[: keys.index(key)]
        return keys[-1] if keys else None

    # ------------------------------------------------------------------ deferred LLM passes
    def llm_entry(self, scope: Scope, key: str) -> MemoryRecord | None:
        """The entry of turn ``key``'s deferred LLM pass, or None when it has not run."""
        return self._entry(scope, LLM_LEDGER_PREFIX, key)

    def write_llm_pass(
        self,
        scope: Scope,
        key: str,
        decisions: Sequence[WriteDecision],
        *,
        task_id: str | None,
        thread_id: str | None,
    ) -> None:
        """Record that turn ``key``'s deferred LLM pass ran with ``decisions``."""
        self._write_entry(
            scope,
            LLM_LEDGER_PREFIX,
            "llm pass ledger entry",
            key,
            decisions,
            task_id=task_id,
            thread_id=thread_id,
        )

    # ------------------------------------------------------------------ pending candidates
    def pending_entry(self, scope: Scope, candidate: Candidate) -> MemoryRecord | None:
        """The unresolved pending entry of ``candidate``'s statement, if any."""
        found = [
            r
            for r in self.entries(scope, _pending_predicate(candidate))
            if not r.metadata.get("resolved")
        ]
        return found[0] if found else None

    def pending(self, scope: Scope, pending_id: str) -> MemoryRecord:
        """The pending entry ``pending_id``; raises
        :class:`~langgraph_memory.errors.RecordNotFound` when it is not one."""
        rec = self.store.get(pending_id, scope=scope)
        if rec.subject != LEDGER_SUBJECT or not (rec.predicate or "").startswith(PENDING_PREFIX):
            raise RecordNotFound(f"{pending_id} is not a pending write")
        return rec

    def pending_items(self, scope: Scope) -> list[WriteDecision]:
        """Unresolved pending candidates of ``scope`` as ``pending`` decisions."""
        out: list[WriteDecision] = []
        for rec in self.entries(scope):
            if not (rec.predicate or "").startswith(PENDING_PREFIX) or rec.metadata.get("resolved"):
                continue
            cand = Candidate.model_validate(rec.metadata["candidate"])
            out.append(
                WriteDecision(
                    action="pending",
                    reason=str(rec.metadata.get("reason", "pending")),
                    candidate=cand,
                    pending_id=rec.id,
                )
            )
        return out

    def save_pending(
        self,
        scope: Scope,
        candidate: Candidate,
        key: str,
        result: GateResult,
        entry: MemoryRecord | None,
    ) -> str:
        """Keep ``candidate`` pending (a new entry, or turn ``key`` added to ``entry``);
        returns the entry's id."""
        if entry is None:
            predicate = _pending_predicate(candidate)
            record = self.record(
                scope,
                predicate,
                f"pending write {predicate[len(PENDING_PREFIX) :]}",
                {
                    "candidate": candidate.model_dump(mode="json"),
                    "turn_keys": [key],
                    "needs": result.needs,
                    "reason": result.reason,
                },
            )
            return self.store.add(record, scope=scope)
        keys = list(entry.metadata.get("turn_keys", []))
        if key not in keys:
            keys.append(key)
        try:
            self.store.update(
                entry.id,
                scope=scope,
                expected_version=entry.version,
                metadata={**entry.metadata, "turn_keys": keys[-20:], "reason": result.reason},
            )
        except Exception as exc:  # a concurrent update of the same entry: both are pending
            log.info(
                "pending entry update skipped",
                extra={"event": "pending_conflict", "error": type(exc).__name__},
            )
        return entry.id

    def resolve_pending(
        self, scope: Scope, entry: MemoryRecord, decisions: Sequence[WriteDecision]
    ) -> None:
        """Mark ``entry`` resolved by the records ``decisions`` wrote."""
        try:
            fresh = self.store.get(entry.id, scope=scope)
            self.store.update(
                fresh.id,
                scope=scope,
                expected_version=fresh.version,
                metadata={**fresh.metadata, "resolved": [d.record_id for d in decisions]},
            )
        except Exception as exc:
            log.info(
                "pending entry not marked resolved",
                extra={"event": "pending_conflict", "error": type(exc).__name__},
            )

    # ------------------------------------------------------------------ maintenance
    def prune(self, scope: Scope, *, older_than_days: float) -> int:
        """Delete the turn and LLM-pass entries, and the resolved pending entries, last
        updated more than ``older_than_days`` ago; returns how many were removed (one
        erasure). Unresolved pending entries are kept."""
        cutoff = utcnow() - timedelta(days=older_than_days)
        doomed = []
        for rec in self.entries(scope):
            is_turn = (rec.predicate or "").startswith((TURN_PREFIX, LLM_LEDGER_PREFIX))
            resolved = bool(rec.metadata.get("resolved"))
            if (is_turn or resolved) and rec.updated_at <= cutoff:
                doomed.append(rec.id)
        removed = self.store.delete_many(doomed, scope=scope) if doomed else 0
        log.info(
            "write ledger pruned",
            extra={"event": "ledger_pruned", "user_id": scope.user_id, "count": removed},
        )
        return removed


__all__ = [
    "EPOCH0",
    "LLM_LEDGER_PREFIX",
    "PENDING_PREFIX",
    "REFUSED_TEXT",
    "TURN_PREFIX",
    "WriteLedger",
    "ledger_hash",
    "turn_key_of",
]
