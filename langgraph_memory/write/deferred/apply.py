"""Gate and persist what the deferred LLM pass's model said: per turn, the PII and injection
flags recomputed, the rules' own decisions not repeated, a later turn's value never replaced,
every fact through the gates of a live turn, and one ledger entry (``llm:<turn>``) recording
that the pass ran."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ...core.logsafe import get_logger
from ...core.records import MemoryRecord
from ...core.scope import Scope
from ..candidates import bound_candidates, flagged, pii_types
from ..decide import apply_classifier
from ..decision_log import log_plain
from ..extract.injection import detect_injection
from ..locks import write_lock
from ..matching import norm_value, project_level, turn_of
from ..pipeline import WritePipeline
from ..types import Candidate, WriteDecision, WriteReport
from .batch import DeferredTurn, LLMBatch, redacted, skip_reason

log = get_logger("write")

NOT_SENT = "not sent to the LLM extractor: {why}"
LLM_FAILED = "LLM extraction failed ({error}); nothing added by the model, the rule results stand"
NOTHING_MORE = "LLM pass: nothing more to remember in this turn"
LATER_VALUE = (
    "LLM pass: a later turn already set {predicate} to {value!r} (record {record_id}); "
    "the model's reading of this earlier turn does not replace it"
)
ALREADY_RAN = "the LLM pass of turn {key} already ran (was: {action})"


def _empty(turn: DeferredTurn, text: str) -> Candidate:
    return Candidate(
        subject="",
        predicate="",
        object="",
        text=text[:200] or "-",
        kind="none",
        evidence=turn.evidence,
        source=turn.source,
        extractor="llm",
    )


def _stamp(pipeline: WritePipeline, scope: Scope, key: str | None) -> float | None:
    """When turn ``key``'s rule pass finished (its ledger entry), if known."""
    if not key:
        return None
    entry = pipeline.ledger.turn_entry(scope, key)
    return entry.created_at.timestamp() if entry is not None else None


def _later_value(
    pipeline: WritePipeline, cand: Candidate, scope: Scope, turn: DeferredTurn
) -> MemoryRecord | None:
    """A current record with another value for the candidate's ``(subject, predicate)`` that
    a turn processed after ``turn`` wrote (a later statement wins over the model's late
    reading of an earlier one)."""
    if cand.multi_valued or cand.retract or not cand.predicate:
        return None
    mine = _stamp(pipeline, scope, turn.key) or turn.done_at
    if mine is None:
        return None
    project = project_level(cand, scope)
    want = norm_value(cand.object)
    for rec in pipeline.resolver.current(scope, cand.subject, cand.predicate, project):
        if norm_value(rec.object) == want:
            continue
        keys = rec.metadata.get("turn_keys") or []
        origin = turn_of(str(keys[0])) if keys else None
        if origin == turn.key:
            continue  # this turn's own rule fact: the model's reading resolves as usual
        stamp = _stamp(pipeline, scope, origin) or rec.created_at.timestamp()
        if stamp > mine:
            return rec
    return None


def _screened(
    pipeline: WritePipeline, turn: DeferredTurn, cands: Sequence[Candidate]
) -> list[Candidate]:
    """The model's candidates for one turn with PII and injection flags recomputed from the
    user's words (the model's word is not trusted for them), minus what the turn's rule pass
    already decided, reviewed by the clause classifier."""
    pii, refused = pii_types(turn.text, [], [], pipeline.config)
    injection = detect_injection(turn.text)
    entry = pipeline.ledger.turn_entry(turn.scope, turn.key)
    seen = {
        (c["subject"], c["predicate"], norm_value(c["object"]))
        for c in (
            d.get("candidate", {}) for d in (entry.metadata.get("decisions", []) if entry else [])
        )
        if {"subject", "predicate", "object"} <= set(c)
    }
    out: list[Candidate] = []
    for cand in cands:
        key = (cand.subject, cand.predicate, norm_value(cand.object))
        if key in seen:  # the rules decided it already (or the model said it twice)
            continue
        seen.add(key)
        out.append(flagged(cand, pii, refused, injection))
    if pipeline.classifier is not None and out:
        out, _ = apply_classifier(
            turn.text,
            out,
            pipeline.classifier,
            evidence=turn.evidence,
            source=turn.source,
            pii=pii,
            refused=refused,
            injection=injection,
            extract=False,
        )
    return bound_candidates(out, pipeline.config, turn.scope, turn.key)


def _decide_turn(
    pipeline: WritePipeline, turn: DeferredTurn, cands: Sequence[Candidate]
) -> list[WriteDecision]:
    decisions: list[WriteDecision] = []
    for index, cand in enumerate(_screened(pipeline, turn, cands)):
        cand = pipeline.resolver.locate(cand, turn.scope)
        later = _later_value(pipeline, cand, turn.scope, turn)
        if later is not None:
            skipped = WriteDecision(
                action="skipped",
                reason=LATER_VALUE.format(
                    predicate=cand.predicate, value=later.object, record_id=later.id
                ),
                candidate=cand,
                record_id=later.id,
            )
            log_plain(skipped, turn.scope, turn.key, task_id=turn.task_id)
            decisions.append(skipped)
            continue
        decisions.extend(
            pipeline.applier.decide(
                cand,
                turn.scope,
                turn.key,
                confirmed=turn.confirmed,
                thread_id=turn.thread_id,
                task_id=turn.task_id,
                index=f"llm{index}",
            )
        )
    return decisions


def _replayed(entry: MemoryRecord, turn: DeferredTurn) -> list[WriteDecision]:
    decisions = [
        WriteDecision(
            action="duplicate_turn",
            reason=ALREADY_RAN.format(key=turn.key, action=item["action"]),
            candidate=Candidate.model_validate(item["candidate"]),
            record_id=item.get("record_id"),
        )
        for item in entry.metadata.get("decisions", [])
    ]
    return decisions or [
        WriteDecision(
            action="duplicate_turn",
            reason=ALREADY_RAN.format(key=turn.key, action="nothing more to remember"),
            candidate=_empty(turn, ""),
        )
    ]


def _apply_turn(
    pipeline: WritePipeline,
    turn: DeferredTurn,
    cands: Sequence[Candidate],
    *,
    sent: bool,
    error: str | None,
) -> WriteReport:
    report = WriteReport(
        turn_key=turn.key, redacted_text=turn.text, llm_pass="failed" if error else "ran"
    )
    scope = turn.scope
    with write_lock(pipeline.store, scope.user_id, serialize=pipeline.config.serialize_writes):
        found = pipeline.ledger.llm_entry(scope, turn.key)
        if found is not None:
            report.decisions = _replayed(found, turn)
            return report
        if error is not None:
            failed = WriteDecision(
                action="skipped", reason=LLM_FAILED.format(error=error), candidate=_empty(turn, "")
            )
            log_plain(failed, scope, turn.key, task_id=turn.task_id)
            report.decisions = [failed]
            return report  # no ledger entry: a later pass may still read the turn
        if not sent:
            why = skip_reason(pipeline, turn.text) or "nothing to send"
            skipped = WriteDecision(
                action="skipped",
                reason=NOT_SENT.format(why=why),
                candidate=_empty(turn, turn.text),
            )
            log_plain(skipped, scope, turn.key, task_id=turn.task_id)
            report.decisions = [skipped]
            return report
        decisions = _decide_turn(pipeline, turn, cands)
        pipeline.ledger.write_llm_pass(
            scope, turn.key, decisions, task_id=turn.task_id, thread_id=turn.thread_id
        )
        pipeline.episodes.mark_outdated(scope, decisions)
        if not decisions:
            nothing = WriteDecision(
                action="skipped", reason=NOTHING_MORE, candidate=_empty(turn, turn.text)
            )
            log_plain(nothing, scope, turn.key, task_id=turn.task_id)
            decisions = [nothing]
        report.decisions = decisions
    return report


def apply_batch(
    pipeline: WritePipeline, turns: Sequence[DeferredTurn], batch: LLMBatch
) -> list[WriteReport]:
    """Gate and persist what the model said (``batch``, from :func:`extract_batch` over the
    same ``turns``): one report per turn, in order (see the module docstring)."""
    turns = redacted(pipeline, turns)
    by_turn: dict[int, list[Candidate]] = {}
    for index, cand in batch.candidates:
        if 0 <= index < len(turns):
            by_turn.setdefault(index, []).append(cand)
    sent = set(batch.sent)
    reports = [
        _apply_turn(pipeline, turn, by_turn.get(i, []), sent=i in sent, error=batch.error)
        for i, turn in enumerate(turns)
    ]
    _log_pass(turns, batch, reports)
    return reports


async def aapply_batch(
    pipeline: WritePipeline, turns: Sequence[DeferredTurn], batch: LLMBatch
) -> list[WriteReport]:
    """Async :func:`apply_batch` (runs in a worker thread; the store is synchronous)."""
    return await asyncio.to_thread(apply_batch, pipeline, turns, batch)


def _log_pass(
    turns: Sequence[DeferredTurn], batch: LLMBatch, reports: Sequence[WriteReport]
) -> None:
    written = sum(len(r.written_ids) for r in reports)
    first = turns[0] if turns else None
    log.info(
        "deferred LLM pass over %d turn(s) of thread %s: %d fact(s) proposed, %d written%s",
        len(turns),
        first.thread_id if first else "-",
        len(batch.candidates),
        written,
        f"; model failed: {batch.error}" if batch.error else "",
        extra={
            "event": "llm_pass",
            "user_id": first.scope.user_id if first else None,
            "thread_id": first.thread_id if first else None,
            "turns": len(turns),
            "sent": len(batch.sent),
            "proposed": len(batch.candidates),
            "written": written,
            "error": batch.error,
        },
    )


__all__ = ["aapply_batch", "apply_batch"]
