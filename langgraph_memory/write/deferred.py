"""The deferred LLM pass: one model call over recent turns of a thread, after the rules.

The rules and the clause classifier decide a turn at once; a chat model is slower and costs
money, so :class:`~langgraph_memory.write.BackgroundWriter` (``defer_llm=True``) runs it later,
once a thread has gone quiet, over the burst of turns it has not read yet (like LangMem's
``ReflectionExecutor``). The pass is also usable on its own::

    from langgraph_memory.write import DeferredTurn, WritePipeline, run_llm_pass

    pipeline = WritePipeline(store, llm_extractor=chat_model)
    turns = [DeferredTurn(text, scope=alice, turn_id=f"t{i}", thread_id="th")
             for i, text in enumerate(["I use vim, not emacs.", "Our team deploys on Fridays."])]
    for report in run_llm_pass(pipeline, turns):        # one model call for both turns
        print(report.turn_key, [(d.action, d.reason) for d in report.decisions])

Guarantees:

* The model sees only redacted text (every turn is redacted again here; redaction is
  idempotent), and never a turn that is small talk, tries to instruct the assistant, or holds a
  secret whose PII policy is ``refuse``.
* Every fact then passes the gates of a live turn: the PII and injection flags are recomputed
  from the user's words, a quote found in no single turn (or a fact the model marks inferred)
  is ``source=model`` and rejected, the clause classifier reviews it (veto, hedge, retype),
  kind, confidence and evidence are checked, project facts wait for confirmation and implicit
  preferences for repetition.
* A fact the model read in an earlier turn never replaces a value that a later turn set: it is
  ``skipped`` with the reason (the rules of the later turn ran first).
* Facts the rules already decided for that turn are not decided twice.
* Idempotent per turn: a ledger entry (``llm:<turn>``) records that the pass ran and what it
  decided; running it again answers ``duplicate_turn``. Records carry the write keys
  ``<turn>#llm<n>``, so a replay after a crash reinforces nothing twice.
* A model failure changes nothing stored: :func:`run_llm_pass` returns reports with
  ``llm_pass="failed"`` and the reason; the rules' results stand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.logsafe import get_logger
from ..core.records import Evidence, MemoryRecord, Source
from ..core.scope import Scope
from ..errors import ConfigError
from .candidates import bound_candidates, flagged, pii_types
from .conversation import noise_reason
from .decide import apply_classifier
from .decision_log import log_plain
from .extract import LLMExtractor, detect_injection
from .ledger import turn_key_of
from .locks import write_lock
from .matching import norm_value, project_level, turn_of
from .pipeline import WritePipeline
from .types import Candidate, WriteDecision, WriteReport

log = get_logger("write")

NOT_SENT = "not sent to the LLM extractor: {why}"
INJECTION_NOT_SENT = "the turn tries to instruct the assistant ({why})"
REFUSED_NOT_SENT = "the turn holds a secret whose PII policy is refuse"
LLM_FAILED = "LLM extraction failed ({error}); nothing added by the model, the rule results stand"
NOTHING_MORE = "LLM pass: nothing more to remember in this turn"
LATER_VALUE = (
    "LLM pass: a later turn already set {predicate} to {value!r} (record {record_id}); "
    "the model's reading of this earlier turn does not replace it"
)
ALREADY_RAN = "the LLM pass of turn {key} already ran (was: {action})"
NO_EXTRACTOR = "the deferred LLM pass needs a WritePipeline with an llm_extractor"


@dataclass(frozen=True, slots=True)
class DeferredTurn:
    """One user turn waiting for the LLM pass.

    ``text`` is redacted again before use; ``done_at`` (epoch seconds) is when its rule pass
    finished, the fallback for ordering it against later turns when it has no ledger entry.
    """

    text: str
    scope: Scope
    turn_id: str
    thread_id: str | None = None
    message_id: str | None = None
    checkpoint_id: str | None = None
    task_id: str | None = None
    confirmed: bool = False
    source: Source = Source.USER
    done_at: float | None = None

    @property
    def key(self) -> str:
        """The turn's idempotence key (``<thread>:<turn>``)."""
        return turn_key_of(self.thread_id, self.turn_id) or "-"

    @property
    def evidence(self) -> Evidence:
        """Where the turn's facts come from."""
        return Evidence(
            turn_ids=[self.turn_id],
            message_ids=[self.message_id] if self.message_id else [],
            thread_id=self.thread_id,
            checkpoint_id=self.checkpoint_id,
        )


@dataclass(frozen=True, slots=True)
class LLMBatch:
    """What the model said about a burst of turns, before any gate: ``(turn index, candidate)``
    pairs, and ``error`` when the call failed. JSON round-trips (it is journaled)."""

    candidates: tuple[tuple[int, Candidate], ...] = ()
    error: str | None = None
    sent: tuple[int, ...] = field(default=())
    """Indexes of the turns the model was shown."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe form (candidates hold only redacted text)."""
        return {
            "candidates": [[i, c.model_dump(mode="json")] for i, c in self.candidates],
            "error": self.error,
            "sent": list(self.sent),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LLMBatch:
        """Inverse of :meth:`to_json`."""
        return cls(
            candidates=tuple(
                (int(i), Candidate.model_validate(c)) for i, c in data.get("candidates", [])
            ),
            error=data.get("error"),
            sent=tuple(int(i) for i in data.get("sent", [])),
        )


# ---------------------------------------------------------------------- what the model sees
def skip_reason(pipeline: WritePipeline, text: str) -> str | None:
    """Why the (redacted) ``text`` is not sent to the model; ``None`` when it is."""
    injection = detect_injection(text)
    if injection is not None:
        return INJECTION_NOT_SENT.format(why=injection)
    _, refused = pii_types(text, [], [], pipeline.config)
    if refused:
        return REFUSED_NOT_SENT
    return noise_reason(text)


def wants_llm(pipeline: WritePipeline, report: WriteReport, *, source: Source) -> bool:
    """Whether a turn whose rule pass gave ``report`` is worth a deferred LLM pass, per
    ``config.llm_mode``: never for ``off`` or an assistant reply; for ``always`` every turn
    that may be sent (:func:`skip_reason`); for ``fallback`` only those whose rule pass
    stored nothing (no fact written, pending or kept in working memory)."""
    mode = pipeline.config.llm_mode
    if mode == "off" or source is Source.MODEL or pipeline.llm_extractor is None:
        return False
    if skip_reason(pipeline, report.redacted_text) is not None:
        return False
    if mode == "always":
        return True
    for d in report.decisions:
        if d.action == "duplicate_turn":  # replayed: the first run decided
            if d.candidate.kind != "none":
                return False
        elif d.action not in {"skipped", "rejected"}:
            return False
    return True


def _redacted(pipeline: WritePipeline, turns: Sequence[DeferredTurn]) -> list[DeferredTurn]:
    limit = pipeline.config.max_turn_chars
    return [replace(t, text=pipeline.redactor.redact(t.text[:limit]).text) for t in turns]


def _extractor(pipeline: WritePipeline) -> LLMExtractor:
    if pipeline.llm_extractor is None:
        raise ConfigError(NO_EXTRACTOR)
    return pipeline.llm_extractor


def _attributed(
    turns: Sequence[DeferredTurn], sent: Sequence[int], found: Sequence[tuple[int, Candidate]]
) -> LLMBatch:
    pairs = []
    for position, cand in found:
        turn = turns[sent[position]]
        if cand.source is not Source.MODEL:
            cand = cand.model_copy(update={"source": turn.source})
        pairs.append((sent[position], cand))
    return LLMBatch(candidates=tuple(pairs), sent=tuple(sent))


def _to_send(pipeline: WritePipeline, turns: Sequence[DeferredTurn]) -> list[int]:
    """Indexes of the turns the model may read: not excluded by :func:`skip_reason` and not
    read by an earlier pass (its ledger entry exists)."""
    return [
        i
        for i, t in enumerate(turns)
        if skip_reason(pipeline, t.text) is None
        and pipeline.ledger.llm_entry(t.scope, t.key) is None
    ]


def extract_batch(pipeline: WritePipeline, turns: Sequence[DeferredTurn]) -> LLMBatch:
    """One call of the pipeline's LLM extractor over the ``turns`` that may be sent (oldest
    first; a turn an earlier pass already read is not sent again); no model call when none
    may. Model errors propagate (callers retry or record the failure); nothing is stored."""
    extractor = _extractor(pipeline)
    turns = _redacted(pipeline, turns)
    sent = _to_send(pipeline, turns)
    if not sent:
        return LLMBatch()
    found = extractor.extract_turns(
        [turns[i].text for i in sent], evidence=[turns[i].evidence for i in sent]
    )
    return _attributed(turns, sent, found)


async def aextract_batch(pipeline: WritePipeline, turns: Sequence[DeferredTurn]) -> LLMBatch:
    """Async :func:`extract_batch` (awaits the model's async API)."""
    extractor = _extractor(pipeline)
    turns = _redacted(pipeline, turns)
    sent = await asyncio.to_thread(_to_send, pipeline, turns)
    if not sent:
        return LLMBatch()
    found = await extractor.aextract_turns(
        [turns[i].text for i in sent], evidence=[turns[i].evidence for i in sent]
    )
    return _attributed(turns, sent, found)


# ---------------------------------------------------------------------- gates and persist
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
    turns = _redacted(pipeline, turns)
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


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def run_llm_pass(pipeline: WritePipeline, turns: Sequence[DeferredTurn]) -> list[WriteReport]:
    """:func:`extract_batch` then :func:`apply_batch`: one model call over ``turns`` (oldest
    first), their facts gated and stored, one report per turn. A failing model yields
    ``llm_pass="failed"`` reports (logged), never an exception, and stores nothing."""
    try:
        batch = extract_batch(pipeline, turns)
    except ConfigError:
        raise
    except Exception as exc:  # the model is optional: report, never lose the rule results
        log.warning(
            "LLM extractor failed in the deferred pass: %s",
            type(exc).__name__,
            extra={"event": "llm_extract_failed", "error": type(exc).__name__},
        )
        batch = LLMBatch(error=_failure(exc))
    return apply_batch(pipeline, turns, batch)


async def arun_llm_pass(
    pipeline: WritePipeline, turns: Sequence[DeferredTurn]
) -> list[WriteReport]:
    """Async :func:`run_llm_pass` (the model through its async API)."""
    try:
        batch = await aextract_batch(pipeline, turns)
    except ConfigError:
        raise
    except Exception as exc:
        log.warning(
            "LLM extractor failed in the deferred pass: %s",
            type(exc).__name__,
            extra={"event": "llm_extract_failed", "error": type(exc).__name__},
        )
        batch = LLMBatch(error=_failure(exc))
    return await aapply_batch(pipeline, turns, batch)


__all__ = [
    "DeferredTurn",
    "LLMBatch",
    "aapply_batch",
    "aextract_batch",
    "apply_batch",
    "arun_llm_pass",
    "extract_batch",
    "run_llm_pass",
    "skip_reason",
    "wants_llm",
]
