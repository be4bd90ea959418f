"""Resolve: turn an accepted candidate into store operations without losing history.

* Same scope + subject + predicate, different value → ``store.supersede`` (the old version
  keeps its text and gets ``superseded_by``/``valid_to``; ``store.history`` and
  ``search(as_of=...)`` still answer the past).
* Same value → reinforce (confidence and ``access_count`` go up, the turn is added to the
  evidence; nothing is inserted).
* A value that an older, superseded or invalidated version held → ``restored`` as a new
  version (``metadata.restored_from`` names the old record).
* Corrections ("不是X，是Y", "actually it's Y") invalidate the record they name (same
  subject and predicate, or the old value they quote) with a reason naming the source turn,
  then store the corrected value; "scratch that" invalidates what the previous user turn of
  the thread created (a record it superseded comes back), and "scratch that, <new value>"
  does so only when the new value names no stored fact; "you can use emojis now" withdraws
  the named constraint. Every withdrawal is logged at INFO with what and why.
  A correction of a generic attribute ("typo, it's Sarah": ``name``) with no record of its
  own hits the record of the owned form of that attribute (``wife_name``), the previous
  turn's first; a bare corrected value that matches nothing is kept in the user's words as
  a ``note`` (the new value is never dropped).
* Values are stored as said; ``metadata["canonical"]`` holds the lexicon's form when it
  differs ("冰美式" → ``coffee``, "Postgres 16" → ``PostgreSQL 16``).
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

import re
import unicodedata
from datetime import datetime
from typing import Any

from ..core.logsafe import get_logger, scrub_text
from ..core.records import LEDGER_SUBJECT, Kind, Layer, MemoryRecord, utcnow
from ..core.scope import Scope
from ..errors import RecordNotFound, VersionConflict
from ..store.memory_store import MemoryStore
from .lexicon import (
    MULTI_VALUED_PREDICATES,
    PROJECT_PREDICATES,
    canonical_value,
    same_plain_value,
    topic_of,
)
from .types import Candidate, WriteConfig, WriteDecision

log = get_logger("write")

MAX_NOTE_CHARS = 300
"""Longest clause kept as a ``note`` when a correction's value matches no stored fact."""
NOTE_KEPT = "kept in the user's words as a note"
"""Reason fragment of a correction that matched nothing and was stored as a note."""


def _dated(said_at: datetime | None) -> dict[str, datetime]:
    """``created_at`` / ``valid_from`` of a new fact: when its turn was said (dated or
    imported history), else now. One clock for a fact and its turn's episode: recency and
    ``as_of`` compare both by when they were said, never a fact by when it was stored."""
    if said_at is None:
        return {"valid_from": utcnow()}
    return {"created_at": said_at, "valid_from": said_at}


def _used_at(said_at: datetime | None, last: datetime | None) -> datetime:
    """``last_accessed_at`` after a reinforcing turn: when that turn was said (else now),
    never earlier than the fact's last use so far (``last``)."""
    when = said_at if said_at is not None else utcnow()
    return when if last is None or when > last else last


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
        if candidate.episode_id:
            meta["episode_id"] = candidate.episode_id
        canonical = canonical_value(p, candidate.object) if p else None
        if canonical and canonical != candidate.object:
            meta["canonical"] = canonical  # the value as said is the object; this matches it
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
            **_dated(candidate.said_at),
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
                    last_accessed_at=_used_at(candidate.said_at, current.last_accessed_at),
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
        if (
            _depth == 0
            and candidate.correction
            and candidate.predicate
            and not candidate.multi_valued
            and not self.current(scope, candidate.subject, candidate.predicate, project)
        ):
            kin = _kin_record(self._semantic(scope), candidate.predicate, None)
            if kin is not None:
                # "wait no, her birthday is June 13th" after "my daughter's birthday is June
                # 3rd": the corrected attribute is the stored daughter_birthday
                log.info(
                    "correction of %s applied to the stored %s (record %s)",
                    candidate.predicate,
                    kin.predicate,
                    kin.id,
                    extra={"event": "correction_kin", "user_id": scope.user_id},
                )
                fixed = _owned(
                    candidate.model_copy(update={"predicate": kin.predicate}),
                    kin.subject or "user",
                )
                return self.apply(fixed, scope, turn_key, _depth=1)
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
            same = [
                r
                for r in current
                if norm_value(r.object) == want
                or same_plain_value(candidate.predicate, r.object or "", candidate.object)
            ]
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
                return _owned(candidate, subject)
        if scope.project_id and candidate.predicate in PROJECT_PREDICATES:
            return _owned(candidate, "project")
        return _owned(candidate, "user")

    def _semantic(self, scope: Scope) -> list[MemoryRecord]:
        """The user's current semantic records (the write ledger excluded)."""
        return [
            r
            for r in self.store.list(scope=scope, filters={"layer": Layer.SEMANTIC.value})
            if r.subject != LEDGER_SUBJECT
        ]

    def correct(
        self,
        candidate: Candidate,
        scope: Scope,
        turn_key: str,
        *,
        thread_id: str | None,
        previous_turn: str | None = None,
    ) -> list[WriteDecision]:
        """Apply a correction: find the record(s) it corrects, withdraw them, store the new
        value.

        The target is the record the correction names (same subject and predicate, or the
        one holding the old value it quotes: "不是MySQL", "not Lyon"); failing that, for
        "scratch that" and for a bare value ("Sorry, I meant Lille"), the records that
        ``previous_turn`` (the previous user turn of this thread, ``"<thread>:<turn>"``)
        created (what this turn stated before the correction comes first). Each withdrawal
        is logged at INFO with the record id, predicate, old value and why ("named" /
        "same turn" / "previous turn"). When nothing matches, the decision's reason says so
        and a correction with a predicate is stored anyway. ``thread_id`` is accepted for
        callers; the thread is already part of ``previous_turn``.

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
            return self.retract(candidate, scope, turn_key, previous_turn=previous_turn)
        if not candidate.predicate:
            return self._correct_bare(candidate, scope, turn_key, previous_turn)
        return self._correct_named(candidate, scope, turn_key, previous_turn)

    def _correct_bare(
        self, candidate: Candidate, scope: Scope, turn_key: str, previous_turn: str | None
    ) -> list[WriteDecision]:
        """A correction that names no predicate: the record holding the quoted old value
        ("Lille, not Lyon"), else the newest record the previous turn created ("Sorry, I
        meant Lille"); it takes that record's predicate."""
        everything = self._semantic(scope)
        if candidate.corrects:
            targets = [r for r in everything if names_value(candidate.corrects, r.object)]
            how, missing = "named", f"no stored value {candidate.corrects!r}"
        else:
            found, how = _unnamed(everything, turn_key, previous_turn)
            targets, missing = found[-1:], _previous_missing(previous_turn)
        if not targets:
            reason = f"correction names no fact and nothing matches: {missing}"
            log.info(
                "correction not applied: %s",
                scrub_text(reason),
                extra={"event": "correction_unmatched", "user_id": scope.user_id},
            )
            words = candidate.text.strip()[:MAX_NOTE_CHARS]
            if not words or candidate.object in {"", words}:
                return [WriteDecision(action="rejected", reason=reason, candidate=candidate)]
            # the new value is never dropped: the correction is kept in the user's words
            note = candidate.model_copy(
                update={"subject": "user", "predicate": "note", "object": words,
                        "multi_valued": True, "corrects": None}
            )  # fmt: skip
            done = self.apply(note, scope, turn_key)
            return [done.model_copy(update={"reason": f"{reason}; {NOTE_KEPT}: {done.reason}"})]
        target = targets[0]
        fixed = candidate.model_copy(
            update={
                "subject": target.subject or "user",
                "predicate": target.predicate or "note",
                "scope_level": "project" if target.project_id else "user",
            }
        )
        return self._replace(fixed, targets, how, scope, turn_key, missing="")

    def _correct_named(
        self, candidate: Candidate, scope: Scope, turn_key: str, previous_turn: str | None
    ) -> list[WriteDecision]:
        """A correction with a predicate: the current record of that ``(subject, predicate)``
        (for a multi-valued one only the value it quotes), or any record holding the quoted
        old value; for "scratch that, …" without such a record, what the previous turn
        created."""
        project = self._project_of(candidate, scope)
        current = self.current(scope, candidate.subject, candidate.predicate, project)
        multi = candidate.multi_valued or candidate.predicate in MULTI_VALUED_PREDICATES
        quoted = candidate.corrects
        matched = [r for r in current if quoted and names_value(quoted, r.object)]
        if quoted and not matched:
            matched = [r for r in self._semantic(scope) if names_value(quoted, r.object)]
        targets, how = matched or ([] if multi else current[:1]), "named"
        missing = f"no current {candidate.predicate}" + (f" {quoted!r}" if quoted else "")
        if not targets and not current:
            kin = _kin_record(self._semantic(scope), candidate.predicate, previous_turn)
            if kin is not None:
                # "typo, it's Sarah" after "my wife's name is Sara": the correction's generic
                # attribute (name) names the record of that attribute (wife_name)
                candidate = _owned(
                    candidate.model_copy(update={"predicate": kin.predicate}),
                    kin.subject or "user",
                )
                targets, how = [kin], "named"
        if not targets and candidate.scratch:
            targets, how = _unnamed(self._semantic(scope), turn_key, previous_turn)
            missing += f" and {_previous_missing(previous_turn)}"
        return self._replace(candidate, targets, how, scope, turn_key, missing=missing)

    def _replace(
        self,
        fixed: Candidate,
        targets: list[MemoryRecord],
        how: str,
        scope: Scope,
        turn_key: str,
        *,
        missing: str,
    ) -> list[WriteDecision]:
        """Withdraw ``targets`` (found ``how``) and store ``fixed``; the same value already
        stored is reinforced instead. ``missing`` says what was looked for when there are no
        targets."""
        new_value = norm_value(fixed.object)
        for target in targets:
            if target.predicate == fixed.predicate and norm_value(target.object) == new_value:
                return [self.reinforce(target, fixed, scope, turn_key)]
        decisions: list[WriteDecision] = []
        for target in targets:
            decisions.append(self._withdraw(target, fixed, scope, turn_key, how))
            if target.predicate != fixed.predicate:
                decisions.extend(self._restore_previous(target, fixed, scope, turn_key))
        same_fact = [t for t in targets if t.predicate == fixed.predicate]
        kind = same_fact[0].kind if same_fact else _stored_kind(fixed, None)
        multi = (
            bool(same_fact[0].metadata.get("multi_valued"))
            if same_fact
            else fixed.multi_valued or fixed.predicate in MULTI_VALUED_PREDICATES
        )
        stored = fixed.model_copy(update={"kind": kind.value, "multi_valued": multi})
        decision = self.apply(stored, scope, turn_key)
        meta_target = targets[0].id if targets else None
        if meta_target and decision.record_id and decision.action in {"inserted", "restored"}:
            self._mark_correction(decision.record_id, meta_target, scope)
        if targets:
            prefix = f"correction ({how}): "
        else:
            prefix = f"correction: nothing matched ({missing}); stored as a new value: "
            log.info(
                "correction matched nothing (%s); storing the %s value as a new value",
                scrub_text(missing),
                fixed.predicate,
                extra={
                    "event": "correction_unmatched",
                    "user_id": scope.user_id,
                    "predicate": fixed.predicate,
                },
            )
        decisions.append(
            decision.model_copy(
                update={
                    "candidate": fixed,
                    "previous_id": meta_target or decision.previous_id,
                    "reason": prefix + decision.reason,
                }
            )
        )
        return decisions

    def _mark_correction(self, record_id: str, corrected: str, scope: Scope) -> None:
        """Note on the new record which record it corrects."""
        try:
            rec = self.store.get(record_id, scope=scope)
            self.store.update(
                rec.id,
                scope=scope,
                expected_version=rec.version,
                metadata={**rec.metadata, "corrects": corrected},
            )
        except (VersionConflict, RecordNotFound):
            pass

    def _withdraw(
        self, target: MemoryRecord, candidate: Candidate, scope: Scope, turn_key: str, how: str
    ) -> WriteDecision:
        """Invalidate ``target`` because of ``candidate`` and log what was withdrawn and why."""
        written = turn_of((target.metadata.get("turn_keys") or ["?"])[0])
        why = "named by the correction" if how == "named" else f"written by the {how} {written}"
        log.info(
            "correction retracted record %s (%s, %s)",
            target.id,
            target.predicate,
            how,
            extra={
                "event": "correction_retracted",
                "user_id": scope.user_id,
                "record_id": target.id,
                "predicate": target.predicate,
                "how": how,
            },
        )
        if how == "named" or target.predicate == candidate.predicate:
            reason = f"user corrected {target.object!r} to {candidate.object!r} ({how})"
        else:
            reason = f"user retracted {target.object!r} (scratch that; {why})"
        return self.invalidate(target, candidate, scope, turn_key, reason)

    def _restore_previous(
        self, record: MemoryRecord, candidate: Candidate, scope: Scope, turn_key: str
    ) -> list[WriteDecision]:
        """After withdrawing ``record``, bring back the version it had superseded (or
        corrected), if any."""
        previous = record.metadata.get("supersedes") or record.metadata.get("corrects")
        if not previous:
            return []
        try:
            old = self.store.get(previous, scope=scope)
        except RecordNotFound:
            return []
        back = candidate.model_copy(
            update={
                "subject": old.subject or "",
                "predicate": old.predicate or "",
                "object": old.object or "",
                "kind": old.kind.value,
                "retract": False,
                "scratch": False,
                "text": old.text,
                "scope_level": "project" if old.project_id else "user",
            }
        )
        return [self.apply(back, scope, turn_key)]

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
        self,
        candidate: Candidate,
        scope: Scope,
        turn_key: str,
        *,
        previous_turn: str | None = None,
    ) -> list[WriteDecision]:
        """ "scratch that": invalidate what this turn stated before it, else what
        ``previous_turn`` (the previous user turn of this thread) created; a record it
        superseded comes back as a restored version. With a predicate, withdraw that named
        value instead ("you can use emojis now")."""
        if candidate.predicate:
            return self._lift(candidate, scope, turn_key)
        recent, how = _unnamed(self._semantic(scope), turn_key, previous_turn)
        if not recent:
            reason = f"nothing to retract: {_previous_missing(previous_turn)}"
            log.info(
                "retraction not applied: %s",
                scrub_text(reason),
                extra={"event": "correction_unmatched", "user_id": scope.user_id},
            )
            return [WriteDecision(action="rejected", reason=reason, candidate=candidate)]
        out: list[WriteDecision] = []
        for rec in recent:
            out.append(self._withdraw(rec, candidate, scope, turn_key, how))
            out.extend(self._restore_previous(rec, candidate, scope, turn_key))
        return out


def _owned(candidate: Candidate, subject: str) -> Candidate:
    """``candidate`` owned by ``subject``, at the project level when that is the project."""
    level = "project" if subject == "project" else "user"
    return candidate.model_copy(update={"subject": subject, "scope_level": level})


def names_value(quoted: str | None, stored: str | None) -> bool:
    """True when the old value a correction quotes ("MySQL", "Postgres") names the stored
    value ("MySQL 8.0", "PostgreSQL 16"): the same value, the stored one with more words
    after it (a version), or the same known tool."""
    want, have = norm_value(quoted), norm_value(stored)
    if not want or not have:
        return False
    if want == have or have.startswith(want + " "):
        return True
    a, b = topic_of(quoted or ""), topic_of(stored or "")
    return a is not None and a == b


def _kin_record(
    records: list[MemoryRecord], predicate: str, previous_turn: str | None
) -> MemoryRecord | None:
    """The record a correction of ``predicate`` means when no record has that predicate but
    one has a kin predicate — one is the other with an owner in front (``name`` /
    ``wife_name``, ``birthday`` / ``daughter_birthday``): the previous turn's, else the
    newest. None when there is none or the predicate is empty."""
    if not predicate:
        return None
    kin = [
        r
        for r in records
        if r.predicate
        and r.predicate != predicate
        and (r.predicate.endswith("_" + predicate) or predicate.endswith("_" + r.predicate))
    ]
    if not kin:
        return None
    recent = _created_by(kin, previous_turn)
    return (recent or sorted(kin, key=lambda r: (r.created_at, r.id)))[-1]


def _created_by(records: list[MemoryRecord], turn: str | None) -> list[MemoryRecord]:
    """The records among ``records`` that ``turn`` (``"<thread>:<turn>"``) created, oldest
    first (a record only reinforced by it is not among them)."""
    if turn is None:
        return []
    mine = [r for r in records if turn_of((r.metadata.get("turn_keys") or ["?"])[0]) == turn]
    return sorted(mine, key=lambda r: (r.created_at, r.id))


def _unnamed(
    records: list[MemoryRecord], turn_key: str, previous_turn: str | None
) -> tuple[list[MemoryRecord], str]:
    """What a correction that names nothing refers to, and how it was found: what this turn
    already stored before it ("my name is Bob. No, it's Rob"), else what the previous turn
    of the thread created."""
    here = _created_by(records, turn_of(turn_key))
    if here:
        return here, "same turn"
    return _created_by(records, previous_turn), "previous turn"


def _previous_missing(previous_turn: str | None) -> str:
    """Why the previous turn offers nothing to withdraw."""
    if previous_turn is None:
        return "this thread has no earlier user turn"
    return f"the previous turn ({previous_turn}) stored no new fact"


def _append_unique(base: list[str], extra: list[str]) -> list[str]:
    out = list(base)
    for item in extra:
        if item not in out:
            out.append(item)
    return out[-50:]


__all__ = ["LEDGER_SUBJECT", "Resolver", "names_value", "norm_value"]
