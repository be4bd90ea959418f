"""Resolve: turn an accepted candidate into store operations without losing history.

* Same scope + subject + predicate, different value → ``store.supersede`` (the old version
  keeps its text and gets ``superseded_by``/``valid_to``; ``store.history`` and
  ``search(as_of=...)`` still answer the past).
* Same value → reinforce (confidence and ``access_count`` go up, the turn is added to the
  evidence; nothing is inserted).
* A value that an older, superseded or invalidated version held → ``restored`` as a new
  version (``metadata.restored_from`` names the old record).
* Corrections ("不是X，是Y", "actually it's Y") invalidate the corrected record with a reason
  naming the source turn, then store the corrected value; "scratch that" invalidates what the
  thread's last writing turn created (a record it superseded comes back); "you can use
  emojis now" withdraws the named constraint.
* Multi-valued predicates (allergies, likes, must_not...) add values next to each other.
* Replay-safe: records carry the write keys (``<thread>:<turn>#<candidate>``) that created or
  reinforced them, so re-running a turn whose ledger entry was lost changes nothing.

Concurrency: every change is a compare-and-set on ``version``. On
:class:`~langgraph_memory.errors.VersionConflict` the resolver re-reads the current state
and merges (re-applies its change on top of the winner): two reinforcements both count,
two different values end up as a supersede chain, never one overwriting the other. After an
insert it checks for a concurrent insert of the same ``(subject, predicate)`` and links the
two (older superseded by newer, or the same value merged into the older).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from typing import Any

from ..errors import RecordNotFound, VersionConflict
from ..records import Kind, Layer, MemoryRecord, utcnow
from ..scope import Scope
from ..store.memory_store import MemoryStore
from .lexicon import MULTI_VALUED_PREDICATES
from .types import Candidate, WriteConfig, WriteDecision

log = logging.getLogger("langgraph_memory.write")

LEDGER_SUBJECT = "__write_ledger__"


def turn_of(key: str) -> str:
    """The turn part of a write key (``"<thread>:<turn>#<candidate index>"``)."""
    return key.rsplit("#", 1)[0] if "#" in key else key


def norm_value(value: str | None) -> str:
    """Comparison form of an object value: NFKC, case-folded, spaces and punctuation collapsed."""
    if not value:
        return ""
    text = unicodedata.normalize("NFKC", value).casefold()
    return re.sub(r"[\s\W_]+", " ", text).strip()


def _stored_kind(candidate: Candidate, target: MemoryRecord | None) -> Kind:
    if target is not None:
        return target.kind
    if candidate.kind in {k.value for k in Kind}:
        kind = Kind(candidate.kind)
        if kind is Kind.CORRECTION and candidate.predicate:
            return (
                Kind.PREFERENCE
                if candidate.subject == "user" and candidate.predicate in _PREFERENCE_PREDICATES
                else Kind.STABLE_FACT
            )
        return kind
    return Kind.STABLE_FACT


_IMPORTANCE_BONUS = {"constraint": 2, "correction": 1, "preference": 0, "stable_fact": 0}
"""Constraints rank above preferences and facts in recall (importance is a rerank factor)."""

_PREFERENCE_PREDICATES = {
    "answer_language",
    "response_length",
    "drink",
    "editor",
    "ui_theme",
    "indentation",
    "units",
    "programming_language",
    "operating_system",
    "likes",
    "dislikes",
    "cuisine",
}


class Resolver:
    """Applies accepted candidates to a :class:`MemoryStore` (see module docstring)."""

    def __init__(self, store: MemoryStore, config: WriteConfig | None = None) -> None:
        self.store = store
        self.config = config or WriteConfig()

    # ------------------------------------------------------------------ reads
    def _project_of(self, candidate: Candidate, scope: Scope) -> str | None:
        return scope.project_id if candidate.scope_level == "project" else None

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
        """A semantic record for ``candidate`` (not yet stored)."""
        s = subject or candidate.subject
        p = predicate or candidate.predicate
        meta: dict[str, Any] = {
            "turn_keys": [turn_key],
            "extractor": candidate.extractor,
            "explicit": candidate.explicit,
            "scope_level": candidate.scope_level,
            "multi_valued": candidate.multi_valued,
        }
        if candidate.pii:
            meta["pii_redacted"] = list(candidate.pii)
        if extra_meta:
            meta.update(extra_meta)
        return MemoryRecord(
            user_id=scope.user_id,
            project_id=self._project_of(candidate, scope),
            layer=Layer.SEMANTIC,
            kind=kind or _stored_kind(candidate, None),
            subject=s,
            predicate=p,
            object=candidate.object,
            text=candidate.text,
            context=f"{s} {p} {candidate.object}",
            language=candidate.language,
            confidence=candidate.confidence,
            importance=min(10, self.config.importance + _IMPORTANCE_BONUS.get(candidate.kind, 0)),
            evidence=candidate.evidence,
            source=candidate.source,
            valid_from=utcnow(),
            metadata=meta,
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
                    "turn_ids": _append_unique(
                        current.evidence.turn_ids, candidate.evidence.turn_ids
                    ),
                    "message_ids": _append_unique(
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
                    last_accessed_at=utcnow(),
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
        project = self._project_of(candidate, scope)
        want = norm_value(candidate.object)
        history = self.past(scope, candidate.subject, candidate.predicate, project)
        replayed = [
            r
            for r in history
            if turn_key in r.metadata.get("turn_keys", [])
            and (not candidate.multi_valued or norm_value(r.object) == want)
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
            same = [r for r in current if norm_value(r.object) == want]
            if same:
                return self.reinforce(same[-1], candidate, scope, turn_key, _depth=_depth)
            older = [
                r
                for r in self.past(scope, candidate.subject, candidate.predicate, project)
                if norm_value(r.object) == want
            ]
            restored_from = older[-1] if older else None
            extra = {"restored_from": restored_from.id} if restored_from else {}
            if candidate.multi_valued or not current:
                record = self.new_record(
                    candidate,
                    scope,
                    turn_key,
                    kind=_stored_kind(candidate, restored_from),
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
        """After an insert of a single-valued fact, link any concurrent insert of the same
        ``(subject, predicate)``: the newer supersedes the older (same value: merged into the
        older one). Returns a decision when this insert was merged away."""
        if candidate.multi_valued:
            return None
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
                    valid_to=max(utcnow(), fresh.valid_from or utcnow()),
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

    def correct(
        self,
        candidate: Candidate,
        scope: Scope,
        turn_key: str,
        *,
        thread_id: str | None,
    ) -> list[WriteDecision]:
        """Apply a correction: find what it corrects, invalidate it, store the right value.

        Replay-safe: if this turn already invalidated something (a crash between the write
        and the ledger entry), nothing is done again."""
        done = [
            r
            for r in self.store.list(
                scope=scope, filters={"layer": Layer.SEMANTIC.value}, current_only=False
            )
            if r.metadata.get("invalidated_by_turn") == turn_of(turn_key)
        ]
        if done:
            return [
                WriteDecision(
                    action="duplicate_turn",
                    reason="this turn's correction was already applied",
                    candidate=candidate,
                    record_id=r.id,
                )
                for r in done
            ]
        if candidate.retract:
            return self.retract(candidate, scope, turn_key, thread_id=thread_id)
        subject, predicate = candidate.subject, candidate.predicate
        targets: list[MemoryRecord] = []
        everything: list[MemoryRecord] | None = None
        if not predicate:
            everything = [
                r for r in self.store.list(scope=scope, filters={"layer": Layer.SEMANTIC.value})
            ]
            if candidate.corrects:
                # "it's Globex, not Initech": the record holding the corrected value
                wanted = norm_value(candidate.corrects)
                targets = [r for r in everything if norm_value(r.object) == wanted]
            else:
                # "Sorry, I meant Rust": the fact this thread touched last
                targets = _latest_turn_records(everything, thread_id)[:1]
            if not targets:
                return [
                    WriteDecision(
                        action="rejected",
                        reason=(
                            "correction names no fact and no stored fact matches the corrected "
                            "value"
                        ),
                        candidate=candidate,
                    )
                ]
            subject, predicate = targets[0].subject or "user", targets[0].predicate or "note"
        else:
            project = self._project_of(candidate, scope)
            current = self.current(scope, subject, predicate, project)
            multi = candidate.multi_valued or predicate in MULTI_VALUED_PREDICATES
            matched = []
            if candidate.corrects:
                wanted = norm_value(candidate.corrects)
                matched = [r for r in current if norm_value(r.object) == wanted]
            # a single-valued fact has one current value to correct; a multi-valued one only
            # loses the value the user named
            targets = matched or ([] if multi else current[:1])
        fixed = candidate.model_copy(update={"subject": subject, "predicate": predicate})
        decisions: list[WriteDecision] = []
        new_value = norm_value(fixed.object)
        kind = targets[0].kind if targets else _stored_kind(fixed, None)
        for target in targets:
            if norm_value(target.object) == new_value:
                decisions.append(self.reinforce(target, fixed, scope, turn_key))
                return decisions
        for target in targets:
            decisions.append(
                self.invalidate(
                    target,
                    fixed,
                    scope,
                    turn_key,
                    f"user corrected {target.object!r} to {fixed.object!r}",
                )
            )
        multi = (
            bool(targets[0].metadata.get("multi_valued"))
            if targets
            else fixed.multi_valued or fixed.predicate in MULTI_VALUED_PREDICATES
        )
        stored = fixed.model_copy(update={"kind": kind.value, "multi_valued": multi})
        decision = self.apply(stored, scope, turn_key)
        meta_target = targets[0].id if targets else None
        if meta_target and decision.record_id and decision.action in {"inserted", "restored"}:
            try:
                rec = self.store.get(decision.record_id, scope=scope)
                self.store.update(
                    rec.id,
                    scope=scope,
                    expected_version=rec.version,
                    metadata={**rec.metadata, "corrects": meta_target},
                )
            except (VersionConflict, RecordNotFound):
                pass
        decisions.append(
            decision.model_copy(
                update={
                    "candidate": fixed,
                    "previous_id": meta_target or decision.previous_id,
                    "reason": ("correction: " + decision.reason) if targets else decision.reason,
                }
            )
        )
        return decisions

    def _lift(self, candidate: Candidate, scope: Scope, turn_key: str) -> list[WriteDecision]:
        """Withdraw a named value ("you can use emojis now" lifts ``must_not emoji``)."""
        project = self._project_of(candidate, scope)
        want = norm_value(candidate.object)
        targets = [
            r
            for r in self.current(scope, candidate.subject, candidate.predicate, project)
            if norm_value(r.object) == want
        ]
        if not targets:
            return [
                WriteDecision(
                    action="rejected",
                    reason=f"no current {candidate.predicate} {candidate.object!r} to withdraw",
                    candidate=candidate,
                )
            ]
        return [
            self.invalidate(t, candidate, scope, turn_key, f"user withdrew {t.object!r}")
            for t in targets
        ]

    def retract(
        self, candidate: Candidate, scope: Scope, turn_key: str, *, thread_id: str | None
    ) -> list[WriteDecision]:
        """ "scratch that": invalidate what the previous turn of this thread stored; a record
        it superseded comes back as a restored version."""
        if candidate.predicate:
            return self._lift(candidate, scope, turn_key)
        everything = self.store.list(scope=scope, filters={"layer": Layer.SEMANTIC.value})
        recent = _latest_turn_records(everything, thread_id, first_writer=True)
        if not recent:
            return [
                WriteDecision(
                    action="rejected",
                    reason=("nothing to retract: the last turn of this thread stored no new fact"),
                    candidate=candidate,
                )
            ]
        out: list[WriteDecision] = []
        for rec in recent:
            out.append(
                self.invalidate(rec, candidate, scope, turn_key, "user retracted it (scratch that)")
            )
            previous = rec.metadata.get("supersedes") or rec.metadata.get("corrects")
            if previous:
                try:
                    old = self.store.get(previous, scope=scope)
                except RecordNotFound:
                    continue
                back = candidate.model_copy(
                    update={
                        "subject": old.subject or "",
                        "predicate": old.predicate or "",
                        "object": old.object or "",
                        "kind": old.kind.value,
                        "retract": False,
                        "text": old.text,
                    }
                )
                out.append(self.apply(back, scope, turn_key))
        return out


def _append_unique(base: list[str], extra: list[str]) -> list[str]:
    out = list(base)
    for item in extra:
        if item not in out:
            out.append(item)
    return out[-50:]


def _latest_turn_records(
    records: list[MemoryRecord], thread_id: str | None, *, first_writer: bool = False
) -> list[MemoryRecord]:
    """The current record of ``thread_id`` (any thread if None) touched last; with
    ``first_writer``: every record *created* by the turn that touched a record last (empty
    when that turn only reinforced existing facts)."""
    mine = [
        r
        for r in records
        if r.subject != LEDGER_SUBJECT and (thread_id is None or r.evidence.thread_id == thread_id)
    ]
    if not mine:
        return []
    newest = max(mine, key=lambda r: (r.updated_at, r.created_at))
    if not first_writer:
        return [newest]
    last_turn = turn_of((newest.metadata.get("turn_keys") or ["?"])[-1])
    return [r for r in mine if turn_of((r.metadata.get("turn_keys") or ["?"])[0]) == last_turn]


__all__ = ["LEDGER_SUBJECT", "Resolver", "norm_value"]
