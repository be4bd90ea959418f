"""One candidate through the gate and into the store: write (resolve, or correct), keep
pending (in the ledger), or refuse — each decision with its reason and its log line.

Also answers a turn already processed (:meth:`CandidateApplier.replay`: ``duplicate_turn``
decisions from its ledger entry) and confirms pending candidates.
"""

from __future__ import annotations

from ..core.records import MemoryRecord
from ..core.scope import Scope
from ..errors import RecordNotFound
from ..store.memory_store import MemoryStore
from .corrections import Corrector
from .decision_log import log_decision, log_duplicate
from .fact_record import stored_kind
from .gate import WriteGate
from .ledger import WriteLedger
from .locks import write_lock
from .resolve import Resolver
from .types import Candidate, WriteConfig, WriteDecision, WriteReport


def is_correction(candidate: Candidate) -> bool:
    """True when ``candidate`` replaces or withdraws a stored fact rather than stating one:
    "scratch that", a correction without its own kind, or a corrected value quoting the old
    one ("不对，…，不是 MySQL")."""
    return (
        candidate.retract
        or candidate.scratch
        or candidate.kind == "correction"
        or (candidate.correction and candidate.corrects is not None)
    )


def as_stated(decision: WriteDecision, previous_turn: str | None) -> WriteDecision:
    """``decision`` with its candidate as what was stored: a correction in the first user
    turn of a thread (``previous_turn`` is None) that replaced nothing (inserted, no earlier
    record) had nothing said before it to correct ("we just got a new puppy!! a little
    corgi", "来广州都快五年了"): it is a new fact of its own kind
    (:func:`~langgraph_memory.write.fact_record.stored_kind`, the kind of the record it
    wrote). After earlier turns a correction that matched nothing stays a correction (the
    user corrected something the write path did not find)."""
    cand = decision.candidate
    if (
        previous_turn is not None
        or decision.action != "inserted"
        or decision.previous_id is not None
        or cand.retract
        or not (cand.correction or cand.kind == "correction")
    ):
        return decision
    stated = cand.model_copy(
        update={"kind": stored_kind(cand, None).value, "correction": False, "corrects": None}
    )
    return decision.model_copy(update={"candidate": stated})


class CandidateApplier:
    """Gate → resolve / correct / pending for one candidate at a time (see module
    docstring)."""

    def __init__(
        self,
        store: MemoryStore,
        config: WriteConfig,
        gate: WriteGate,
        resolver: Resolver,
        ledger: WriteLedger,
    ) -> None:
        self.store = store
        self.config = config
        self.gate = gate
        self.resolver = resolver
        self.corrector = Corrector(resolver)
        self.ledger = ledger

    def decide(
        self,
        candidate: Candidate,
        scope: Scope,
        key: str,
        *,
        confirmed: bool,
        thread_id: str | None,
        task_id: str | None = None,
        repeats: int | None = None,
        pending_entry: MemoryRecord | None = None,
        index: int | str = "confirm",
    ) -> list[WriteDecision]:
        """Gate ``candidate`` (turn ``key``) and act on the verdict; every decision is logged.

        ``repeats``: how many turns stated it (counted from its pending entry when None, for
        implicit preferences); ``index``: the candidate's place in its turn (its write key is
        ``<key>#<index>``)."""
        # records remember the write key "<turn key>#<candidate index>": a replay of the
        # turn repeats the same keys, while two candidates of one turn stay distinct
        write_key = f"{key}#{index}"
        candidate = self.resolver.locate(candidate, scope)  # "数据库换成了…": whose database
        previous_turn = (
            self.ledger.previous_turn(scope, thread_id, key)
            if candidate.correction or is_correction(candidate)
            else None
        )
        candidate = self.corrector.kin_target(candidate, scope, write_key, previous_turn)
        if repeats is None:
            needs_count = (
                candidate.kind == "preference"
                and not candidate.explicit
                and not candidate.correction
            )
            repeats, pending_entry = (
                self._repeats(scope, candidate, key) if needs_count else (1, None)
            )
        if candidate.scope_level == "project" and pending_entry is None:
            pending_entry = self.ledger.pending_entry(scope, candidate)
        result = self.gate.check(candidate, scope=scope, confirmed=confirmed, repeats=repeats)
        decisions: list[WriteDecision]
        if result.verdict == "write":
            if is_correction(candidate):
                decisions = self.corrector.correct(
                    candidate,
                    scope,
                    write_key,
                    thread_id=thread_id,
                    previous_turn=previous_turn,
                )
            else:
                decisions = [self.resolver.apply(candidate, scope, write_key)]
            decisions = [
                as_stated(d, previous_turn).model_copy(
                    update={"reason": f"{result.reason}; {d.reason}"}
                )
                if d.action != "rejected"
                else d
                for d in decisions
            ]
            if pending_entry is not None:
                self.ledger.resolve_pending(scope, pending_entry, decisions)
        elif result.verdict == "pending":
            pending_id = self.ledger.save_pending(scope, candidate, key, result, pending_entry)
            decisions = [
                WriteDecision(
                    action="pending",
                    reason=result.reason,
                    candidate=candidate,
                    pending_id=pending_id,
                )
            ]
        else:
            decisions = [
                WriteDecision(action=result.verdict, reason=result.reason, candidate=candidate)
            ]
        for d in decisions:
            log_decision(d, scope, key, result, task_id=task_id)
        return decisions

    def _repeats(
        self, scope: Scope, candidate: Candidate, key: str
    ) -> tuple[int, MemoryRecord | None]:
        entry = self.ledger.pending_entry(scope, candidate)
        keys = set(entry.metadata.get("turn_keys", [])) if entry is not None else set()
        keys.add(key)
        return len(keys), entry

    def replace(
        self,
        candidate: Candidate,
        old: MemoryRecord,
        scope: Scope,
        key: str,
        *,
        confirmed: bool,
        task_id: str | None,
    ) -> WriteDecision:
        """The agent's explicit replacement of record ``old`` by ``candidate`` (every gate
        applies): ``superseded``, or the gate's verdict."""
        result = self.gate.check(candidate, scope=scope, confirmed=confirmed)
        if result.verdict != "write":
            decision = WriteDecision(
                action=result.verdict, reason=result.reason, candidate=candidate
            )
        else:
            record = self.resolver.new_record(
                candidate, scope, f"{key}#0", kind=old.kind, extra_meta={"supersedes": old.id}
            )
            new = self.store.supersede(old.id, record, scope=scope, expected_version=old.version)
            decision = WriteDecision(
                action="superseded",
                reason=f"{result.reason}; the agent replaced record {old.id}",
                candidate=candidate,
                record_id=new.id,
                previous_id=old.id,
            )
        log_decision(decision, scope, key, result, task_id=task_id)
        return decision

    def confirm(self, pending_id: str, scope: Scope) -> WriteReport:
        """Write the pending candidate ``pending_id`` (all other gates still apply); raises
        :class:`~langgraph_memory.errors.RecordNotFound` when it is not a pending write."""
        rec = self.ledger.pending(scope, pending_id)
        cand = Candidate.model_validate(rec.metadata["candidate"])
        key = str(rec.metadata.get("turn_keys", ["-"])[-1])
        report = WriteReport(turn_key=key, redacted_text=cand.text)
        if rec.metadata.get("resolved"):
            report.decisions.append(
                WriteDecision(
                    action="duplicate_turn",
                    reason="this pending write was already confirmed",
                    candidate=cand,
                    record_id=(rec.metadata["resolved"] or [None])[0],
                )
            )
            return report
        with write_lock(self.store, scope.user_id, serialize=self.config.serialize_writes):
            report.decisions.extend(
                self.decide(
                    cand,
                    scope,
                    key,
                    confirmed=True,
                    thread_id=cand.evidence.thread_id,
                    repeats=10**6,
                    pending_entry=rec,
                )
            )
        return report

    def replay(
        self, entry: MemoryRecord, scope: Scope, key: str, report: WriteReport, *, confirmed: bool
    ) -> WriteReport:
        """``report`` answering turn ``key`` again from its ledger ``entry``: one
        ``duplicate_turn`` per decision it got, except that ``confirmed`` confirms the
        project facts it left pending."""
        decisions: list[WriteDecision] = []
        for item in entry.metadata.get("decisions", []):
            cand = Candidate.model_validate(item["candidate"])
            if (
                confirmed
                and item["action"] == "pending"
                and item.get("pending_id")
                and cand.scope_level == "project"
            ):
                try:
                    decisions.extend(self.confirm(item["pending_id"], scope).decisions)
                    continue
                except RecordNotFound:
                    pass
            decisions.append(
                WriteDecision(
                    action="duplicate_turn",
                    reason=f"turn {key} was already processed (was: {item['action']})",
                    candidate=cand,
                    record_id=item.get("record_id"),
                )
            )
        if not decisions:
            decisions.append(
                WriteDecision(
                    action="duplicate_turn",
                    reason=f"turn {key} was already processed (nothing to remember)",
                    candidate=Candidate(subject="", predicate="", object="", text="", kind="none"),
                )
            )
        for d in decisions:
            if d.action == "duplicate_turn":
                log_duplicate(d, scope, key)
        report.decisions = decisions
        return report


__all__ = ["CandidateApplier", "as_stated", "is_correction"]
