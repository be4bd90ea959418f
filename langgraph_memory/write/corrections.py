"""Corrections on top of :class:`~langgraph_memory.write.resolve.Resolver`: withdraw what
the user takes back, store what they meant, lose no history.

* Corrections ("不是X，是Y", "actually it's Y") invalidate the record they name (same
  subject and predicate, or the old value they quote) with a reason naming the source turn,
  then store the corrected value.
* "scratch that" invalidates what the previous user turn of the thread created (a record it
  superseded comes back), and "scratch that, <new value>" does so only when the new value
  names no stored fact; "you can use emojis now" withdraws the named constraint.
* A correction of a generic attribute ("typo, it's Sarah": ``name``) with no record of its
  own hits the record of the owned form of that attribute (``wife_name``), the previous
  turn's first; a bare corrected value that matches nothing is kept in the user's words as a
  ``note`` (the new value is never dropped).

Every withdrawal is logged at INFO with what and why. Which record a correction refers to is
decided by :mod:`~langgraph_memory.write.matching`.
"""

from __future__ import annotations

from ..core.logsafe import get_logger, scrub_text
from ..core.records import Layer, MemoryRecord
from ..core.scope import Scope
from ..errors import RecordNotFound, VersionConflict
from .fact_record import stored_kind
from .lexicon import MULTI_VALUED_PREDICATES
from .matching import (
    kin_record,
    names_value,
    norm_value,
    owned,
    previous_missing,
    project_level,
    turn_of,
    unnamed,
)
from .resolve import Resolver
from .slots.diet import diet_lifted
from .types import Candidate, WriteDecision

log = get_logger("write")

MAX_NOTE_CHARS = 300
"""Longest clause kept as a ``note`` when a correction's value matches no stored fact."""
NOTE_KEPT = "kept in the user's words as a note"
"""Reason fragment of a correction that matched nothing and was stored as a note."""


class Corrector:
    """Applies corrections, retractions and withdrawals through a :class:`Resolver` (see
    module docstring)."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.store = resolver.store

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

        Replay-safe: if this candidate of the turn already invalidated something (a crash
        between the write and the ledger entry), nothing is done again; another correction of
        the same turn ("I'm on pacific time … back home in Oakland now") still applies, unless
        it restates the value the turn withdrew ("emacs, not vim. no idea why I said vim")."""
        this_turn = [
            r
            for r in self.store.list(
                scope=scope, filters={"layer": Layer.SEMANTIC.value}, current_only=False
            )
            if r.metadata.get("invalidated_by_turn") == turn_of(turn_key)
        ]
        done = [r for r in this_turn if r.metadata.get("invalidated_by_key", turn_key) == turn_key]
        done += [  # "emacs, not vim. no idea why I said vim": the value this turn withdrew
            r
            for r in this_turn
            if r not in done
            and r.predicate == candidate.predicate
            and norm_value(r.object) == norm_value(candidate.object)
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

    def kin_target(
        self, candidate: Candidate, scope: Scope, turn_key: str, previous_turn: str | None
    ) -> Candidate:
        """``candidate`` moved onto the kin record it corrects, else unchanged: a correction
        of a generic attribute with no record of its own ("typo, it's Sarah": ``name``) after
        "my wife's name is Sara" corrects ``wife_name`` (see
        :func:`~langgraph_memory.write.matching.kin_record`: never when the words name the
        user's own attribute, and only the previous turn's record unless they name someone
        else). Decided once, before the correction is applied: a value the correction has
        just withdrawn never sends its replacement to another slot."""
        if not (candidate.correction and candidate.predicate) or candidate.multi_valued:
            return candidate
        project = project_level(candidate, scope)
        if self.resolver.current(scope, candidate.subject, candidate.predicate, project):
            return candidate
        kin = kin_record(
            self.resolver.semantic(scope),
            candidate.predicate,
            previous_turn,
            text=candidate.text,
            turn=turn_of(turn_key),
        )
        if kin is None:
            return candidate
        # "wait no, her birthday is June 13th" after "my daughter's birthday is June 3rd":
        # the corrected attribute is the stored daughter_birthday
        log.info(
            "correction of %s applied to the stored %s (record %s)",
            candidate.predicate,
            kin.predicate,
            kin.id,
            extra={"event": "correction_kin", "user_id": scope.user_id},
        )
        return owned(
            candidate.model_copy(update={"predicate": kin.predicate}), kin.subject or "user"
        )

    def _correct_bare(
        self, candidate: Candidate, scope: Scope, turn_key: str, previous_turn: str | None
    ) -> list[WriteDecision]:
        """A correction that names no predicate: the record holding the quoted old value
        ("Lille, not Lyon"), else the newest record the previous turn created ("Sorry, I
        meant Lille"); it takes that record's predicate."""
        everything = self.resolver.semantic(scope)
        if candidate.corrects:
            targets = [r for r in everything if names_value(candidate.corrects, r.object)]
            how, missing = "named", f"no stored value {candidate.corrects!r}"
        else:
            found, how = unnamed(everything, turn_key, previous_turn)
            targets, missing = found[-1:], previous_missing(previous_turn)
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
            done = self.resolver.apply(note, scope, turn_key)
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
        project = project_level(candidate, scope)
        current = self.resolver.current(scope, candidate.subject, candidate.predicate, project)
        multi = candidate.multi_valued or candidate.predicate in MULTI_VALUED_PREDICATES
        quoted = candidate.corrects
        matched = [r for r in current if quoted and names_value(quoted, r.object)]
        if quoted and not matched:
            matched = [r for r in self.resolver.semantic(scope) if names_value(quoted, r.object)]
        targets, how = matched or ([] if multi else current[:1]), "named"
        missing = f"no current {candidate.predicate}" + (f" {quoted!r}" if quoted else "")
        if not targets and candidate.scratch:
            targets, how = unnamed(self.resolver.semantic(scope), turn_key, previous_turn)
            missing += f" and {previous_missing(previous_turn)}"
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
                return [self.resolver.reinforce(target, fixed, scope, turn_key)]
        decisions: list[WriteDecision] = []
        for target in targets:
            decisions.append(self._withdraw(target, fixed, scope, turn_key, how))
            if target.predicate != fixed.predicate:
                decisions.extend(self._restore_previous(target, fixed, scope, turn_key))
        same_fact = [t for t in targets if t.predicate == fixed.predicate]
        kind = same_fact[0].kind if same_fact else stored_kind(fixed, None)
        multi = (
            bool(same_fact[0].metadata.get("multi_valued"))
            if same_fact
            else fixed.multi_valued or fixed.predicate in MULTI_VALUED_PREDICATES
        )
        stored = fixed.model_copy(update={"kind": kind.value, "multi_valued": multi})
        decision = self.resolver.apply(stored, scope, turn_key)
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
        return self.resolver.invalidate(target, candidate, scope, turn_key, reason)

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
        return [self.resolver.apply(back, scope, turn_key)]

    def _lift(self, candidate: Candidate, scope: Scope, turn_key: str) -> list[WriteDecision]:
        """Withdraw a named value ("you can use emojis now" lifts ``must_not emoji``); a
        ``diet`` withdrawal names a diet or a food eaten again and withdraws every current diet
        it ends (:func:`~.slots.diet.diet_lifted`: "I eat fish again" ends vegan)."""
        project = project_level(candidate, scope)
        want = norm_value(candidate.object)
        targets = [
            r
            for r in self.resolver.current(scope, candidate.subject, candidate.predicate, project)
            if norm_value(r.object) == want
            or (candidate.predicate == "diet" and diet_lifted(r.object or "", candidate.object))
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
            self.resolver.invalidate(t, candidate, scope, turn_key, f"user withdrew {t.object!r}")
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
        recent, how = unnamed(self.resolver.semantic(scope), turn_key, previous_turn)
        if not recent:
            reason = f"nothing to retract: {previous_missing(previous_turn)}"
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


__all__ = ["MAX_NOTE_CHARS", "NOTE_KEPT", "Corrector"]
