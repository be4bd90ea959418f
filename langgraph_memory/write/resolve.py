"""Resolve: turn an accepted candidate into store operations without losing history.

* Same scope + subject + predicate, different value → ``store.supersede`` (the old version
  keeps its text and gets ``superseded_by``/``valid_to``; ``store.history`` and
  ``search(as_of=...)`` still answer the past).
* Same value → reinforce (confidence and ``access_count`` go up, the turn is added to the
  evidence; nothing is inserted).
* A value that an older, superseded or invalidated version held → ``restored`` as a new
  version (``metadata.restored_from`` names the old record).
* Values are stored as said; ``metadata["canonical"]`` holds the lexicon's form when it
  differs ("冰美式" → ``coffee``, "Postgres 16" → ``PostgreSQL 16``)
  (:mod:`~langgraph_memory.write.fact_record`).
* Multi-valued predicates (allergies, likes, must_not...) add values next to each other, and
  so does a value said as an addition (``Candidate.adds``: "I also drink coffee now").
* Replay-safe: records carry the write keys (``<thread>:<turn>#<candidate>``) that created or
  reinforced them, so re-running a turn whose ledger entry was lost changes nothing.

Corrections, "scratch that" and withdrawals build on these operations in
:mod:`~langgraph_memory.write.corrections`; which record a value or a correction refers to is
:mod:`~langgraph_memory.write.matching` (pure).

Concurrency: every change is a compare-and-set on ``version``. On
:class:`~langgraph_memory.errors.VersionConflict` the resolver re-reads the current state
and merges (re-applies its change on top of the winner): two reinforcements both count,
two different values end up as a supersede chain, never one overwriting the other. After an
insert it checks for a concurrent insert of the same ``(subject, predicate)`` and links the
two (older superseded by newer, or the same value merged into the older).
"""

from __future__ import annotations

from typing import Any

from ..core.logsafe import get_logger
from ..core.records import Kind, Layer, MemoryRecord, utcnow
from ..core.scope import Scope
from ..errors import RecordNotFound, VersionConflict
from ..store.memory_store import MemoryStore
from .fact_record import fact_record, stored_kind, used_at
from .lexicon import PROJECT_PREDICATES, same_plain_value
from .matching import norm_value, owned, project_level, turn_of
from .types import Candidate, WriteConfig, WriteDecision

log = get_logger("write")


class Resolver:
    """Applies accepted candidates to a :class:`MemoryStore` (see module docstring); the
    corrections built on it are :class:`~langgraph_memory.write.corrections.Corrector`."""

    def __init__(self, store: MemoryStore, config: WriteConfig | None = None) -> None:
        self.store = store
        self.config = config or WriteConfig()

    # ------------------------------------------------------------------ reads
    def current(
        self, scope: Scope, subject: str, predicate: str, project_id: str | None
    ) -> list[MemoryRecord]:
        """Current semantic records for ``(subject, predicate)`` at this project level, newest
        first."""
        records = self.store.list(
            scope=scope,
            filters={"subject": subject, "predicate": predicate, "layer": Layer.SEMANTIC.value},
        )
        return [r for r in records if r.project_id == project_id]

    def past(
        self, scope: Scope, subject: str, predicate: str, project_id: str | None
    ) -> list[MemoryRecord]:
        """Every version of ``(subject, predicate)`` at this project level, oldest first."""
        return [
            r
            for r in self.store.history(scope=scope, subject=subject, predicate=predicate)
            if r.project_id == project_id and r.layer is Layer.SEMANTIC
        ]

    # ------------------------------------------------------------------ record building
    def new_record(
        self,
        candidate: Candidate,
        scope: Scope,
        turn_key: str,
        *,
        kind: Kind | None = None,
        extra_meta: dict[str, Any] | None = None,
        subject: str | None = None,
        predicate: str | None = None,
    ) -> MemoryRecord:
        """A semantic record for ``candidate`` (not yet stored; see
        :func:`~langgraph_memory.write.fact_record.fact_record`)."""
        return fact_record(
            candidate,
            scope,
            turn_key,
            importance=self.config.importance,
            kind=kind,
            extra_meta=extra_meta,
            subject=subject,
            predicate=predicate,
        )

    # ------------------------------------------------------------------ operations
    def reinforce(
        self,
        record: MemoryRecord,
        candidate: Candidate,
        scope: Scope,
        turn_key: str,
        *,
        _depth: int = 0,
    ) -> WriteDecision:
        """Bump confidence/access of ``record`` and add the turn to its evidence; re-read and
        re-apply on version conflicts (both reinforcements count)."""
        current = record
        for _ in range(self.config.max_conflict_retries * 4):
            keys = list(current.metadata.get("turn_keys", []))
            if turn_key in keys:
                return WriteDecision(
                    action="duplicate_turn",
                    reason="this turn is already part of the record's evidence",
                    candidate=candidate,
                    record_id=current.id,
                )
            evidence = current.evidence.model_copy(
                update={
                    "turn_ids": append_unique(
                        current.evidence.turn_ids, candidate.evidence.turn_ids
                    ),
                    "message_ids": append_unique(
                        current.evidence.message_ids, candidate.evidence.message_ids
                    ),
                }
            )
            confidence = min(
                0.99,
                max(current.confidence, candidate.confidence)
                + 0.5 * (1 - max(current.confidence, candidate.confidence)) * 0.2,
            )
            try:
                updated = self.store.update(
                    current.id,
                    scope=scope,
                    expected_version=current.version,
                    confidence=confidence,
                    access_count=current.access_count + 1,
                    last_accessed_at=used_at(candidate.said_at, current.last_accessed_at),
                    evidence=evidence,
                    metadata={**current.metadata, "turn_keys": [*keys, turn_key][-50:]},
                )
            except VersionConflict:
                log.info(
                    "reinforce conflict, re-reading",
                    extra={
                        "event": "write_conflict",
                        "op": "reinforce",
                        "record_id": current.id,
                        "user_id": scope.user_id,
                    },
                )
                try:
                    current = self.store.get(current.id, scope=scope)
                except RecordNotFound:
                    break
                if not current.is_current():
                    break
                continue
            return WriteDecision(
                action="reinforced",
                reason=(
                    "same value already stored; confidence "
                    f"{current.confidence:.2f}→{updated.confidence:.2f}"
                ),
                candidate=candidate,
                record_id=updated.id,
                previous_id=updated.id,
            )
        # the record stopped being current while we merged: resolve again from scratch
        return self.apply(candidate, scope, turn_key, _depth=_depth + 1)

    def apply(
        self, candidate: Candidate, scope: Scope, turn_key: str, *, _depth: int = 0
    ) -> WriteDecision:
        """Store an accepted (non-correction) candidate: insert, supersede, restore or reinforce.

        Raises :class:`VersionConflict` only when ``max_conflict_retries`` re-reads in a row
        lost the race (the caller, e.g. the background writer, may retry the turn)."""
        if _depth > self.config.max_conflict_retries:
            raise VersionConflict(candidate.predicate or "?", -1, None)
        project = project_level(candidate, scope)
        want = norm_value(candidate.object)
        history = self.past(scope, candidate.subject, candidate.predicate, project)
        replayed = [
            r
            for r in history
            if turn_key in r.metadata.get("turn_keys", [])
            and (not (candidate.multi_valued or candidate.adds) or norm_value(r.object) == want)
        ]
        if replayed:
            # this exact write already happened (a replay after a crash before the ledger
            # entry): the value may since have been superseded by a later turn
            return WriteDecision(
                action="duplicate_turn",
                reason="this turn's write is already in the fact's history",
                candidate=candidate,
                record_id=replayed[-1].id,
            )
        for attempt in range(self.config.max_conflict_retries):
            current = self.current(scope, candidate.subject, candidate.predicate, project)
            same = [
                r
                for r in current
                if norm_value(r.object) == want
                or same_plain_value(candidate.predicate, r.object or "", candidate.object)
            ]
            if same:
                return self.reinforce(same[-1], candidate, scope, turn_key, _depth=_depth)
            # the first attempt reuses the history read above (nothing was written since);
            # a retry after a conflict reads it again
            versions = (
                history
                if attempt == 0
                else self.past(scope, candidate.subject, candidate.predicate, project)
            )
            older = [r for r in versions if norm_value(r.object) == want]
            restored_from = older[-1] if older else None
            extra = {"restored_from": restored_from.id} if restored_from else {}
            if candidate.multi_valued or candidate.adds or not current:
                record = self.new_record(
                    candidate,
                    scope,
                    turn_key,
                    kind=stored_kind(candidate, restored_from),
                    extra_meta=extra,
                )
                self.store.add(record, scope=scope)
                merged = self._merge_concurrent(record, candidate, scope)
                if merged is not None:
                    return merged
                return WriteDecision(
                    action="restored" if restored_from else "inserted",
                    reason=(
                        f"re-asserts value of earlier record {restored_from.id}; "
                        "restored as a new version"
                        if restored_from
                        else "new fact"
                    ),
                    candidate=candidate,
                    record_id=record.id,
                    previous_id=restored_from.id if restored_from else None,
                )
            target = current[0]
            record = self.new_record(
                candidate,
                scope,
                turn_key,
                kind=target.kind,
                extra_meta={**extra, "supersedes": target.id},
            )
            try:
                new = self.store.supersede(
                    target.id, record, scope=scope, expected_version=target.version
                )
            except VersionConflict:
                log.info(
                    "supersede conflict, re-reading and merging",
                    extra={
                        "event": "write_conflict",
                        "op": "supersede",
                        "record_id": target.id,
                        "user_id": scope.user_id,
                        "attempt": attempt,
                    },
                )
                continue
            # a concurrent writer that read the slot while this supersession was in flight
            # (old marked, new not yet stored: zero current versions) inserted a head of its
            # own; whichever of the two checks last sees both and links them into one chain
            merged = self._merge_concurrent(new, candidate, scope)
            if merged is not None:
                return merged
            return WriteDecision(
                action="restored" if restored_from else "superseded",
                reason=(
                    f"value changed from {target.object!r}; "
                    f"restores earlier record {restored_from.id}"
                    if restored_from
                    else f"value changed from {target.object!r}; old version kept in history"
                ),
                candidate=candidate,
                record_id=new.id,
                previous_id=target.id,
            )
        raise VersionConflict(candidate.predicate, -1, None)

    def _merge_concurrent(
        self, record: MemoryRecord, candidate: Candidate, scope: Scope
    ) -> WriteDecision | None:
        """After an insert or a supersession of a single-valued fact, link any concurrent
        insert of the same ``(subject, predicate)``: the newer supersedes the older (same
        value: merged into the older one). Each writer checks after its own write is stored,
        so the later of two concurrent checks sees both heads. Returns a decision when this
        write was merged away."""
        if candidate.multi_valued or candidate.adds:
            return None  # added next to the others: two current values are meant
        current = self.current(
            scope, record.subject or "", record.predicate or "", record.project_id
        )
        if len(current) <= 1:
            return None
        ordered = sorted(current, key=lambda r: (r.created_at, r.id))
        newest = ordered[-1]
        for old in ordered[:-1]:
            if norm_value(old.object) == norm_value(newest.object) and old.id != newest.id:
                continue
            self._link(old, newest, scope)
        # same-value duplicates: keep the oldest, mark the rest superseded by it
        same_value = [r for r in ordered if norm_value(r.object) == norm_value(newest.object)]
        keeper = same_value[0]
        for dup in same_value[1:]:
            self._link(dup, keeper, scope, merged=True)
        if record.id != keeper.id and norm_value(record.object) == norm_value(keeper.object):
            decision = self.reinforce(
                keeper, candidate, scope, (record.metadata.get("turn_keys") or ["?"])[0]
            )
            return decision.model_copy(
                update={"reason": "concurrent write of the same value merged: " + decision.reason}
            )
        return None

    def _link(
        self, old: MemoryRecord, new: MemoryRecord, scope: Scope, *, merged: bool = False
    ) -> None:
        for _ in range(self.config.max_conflict_retries):
            try:
                fresh = self.store.get(old.id, scope=scope)
            except RecordNotFound:
                return
            if fresh.superseded_by is not None:
                return
            meta = {**fresh.metadata, **({"merged_into": new.id} if merged else {})}
            try:
                self.store.update(
                    fresh.id,
                    scope=scope,
                    expected_version=fresh.version,
                    superseded_by=new.id,
                    # closed when the newer value was said (its valid_from), never before
                    # the old one began
                    valid_to=max(new.valid_from or utcnow(), fresh.valid_from or utcnow()),
                    metadata=meta,
                )
                return
            except VersionConflict:
                continue

    def invalidate(
        self, record: MemoryRecord, candidate: Candidate, scope: Scope, turn_key: str, why: str
    ) -> WriteDecision:
        """Close ``record``'s validity window because the user corrected it."""
        reason = f"{why} (turn {turn_of(turn_key)})"
        for _ in range(self.config.max_conflict_retries):
            try:
                self.store.invalidate(
                    record.id, scope=scope, reason=reason, expected_version=record.version
                )
                break
            except VersionConflict:
                record = self.store.get(record.id, scope=scope)
                if not record.is_current():
                    break
        try:
            fresh = self.store.get(record.id, scope=scope)
            self.store.update(
                fresh.id,
                scope=scope,
                expected_version=fresh.version,
                metadata={
                    **fresh.metadata,
                    "invalidated_by_turn": turn_of(turn_key),
                    "invalidated_by_key": turn_key,
                    "correction_text": candidate.text,
                },
            )
        except (VersionConflict, RecordNotFound):
            pass
        return WriteDecision(
            action="invalidated",
            reason=reason,
            candidate=candidate,
            record_id=record.id,
            previous_id=record.id,
        )

    def locate(self, candidate: Candidate, scope: Scope) -> Candidate:
        """``candidate`` with its owner filled in when the user left it unstated ("数据库已经
        换成 Postgres 了", "we deploy on Fridays": subject ``""``): the owner of the current
        record with that predicate (the user's, else the project's), else the project when
        the scope has one and the predicate describes a project, else the user."""
        if candidate.subject or not candidate.predicate:
            return candidate
        levels = [("user", None)] + ([("project", scope.project_id)] if scope.project_id else [])
        for subject, project in levels:
            if self.current(scope, subject, candidate.predicate, project):
                return owned(candidate, subject)
        if scope.project_id and candidate.predicate in PROJECT_PREDICATES:
            return owned(candidate, "project")
        return owned(candidate, "user")

    def semantic(self, scope: Scope) -> list[MemoryRecord]:
        """The user's current semantic records (the store leaves the write ledger out)."""
        return self.store.list(scope=scope, filters={"layer": Layer.SEMANTIC.value})


def append_unique(base: list[str], extra: list[str]) -> list[str]:
    """``base`` with the items of ``extra`` it lacks appended (the last 50 kept)."""
    out = list(base)
    for item in extra:
        if item not in out:
            out.append(item)
    return out[-50:]


__all__ = ["Resolver", "append_unique"]
