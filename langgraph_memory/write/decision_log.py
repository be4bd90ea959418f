"""The log line of a write decision (logger ``langgraph_memory.write``, event
``write_decision``): readable without ``extra``, never the raw turn text (reasons are
scrubbed of quotes and PII). Nothing is built for a line the logger would drop (INFO
disabled, the default): the scrubbing costs a PII scan per decision."""

from __future__ import annotations

import logging

from ..core.logsafe import get_logger, scrub_text
from ..core.scope import Scope
from .gate import GateResult
from .types import WriteDecision

log = get_logger("write")


def log_plain(d: WriteDecision, scope: Scope, key: str, *, task_id: str | None) -> None:
    """Log a decision that passed no gate (an episode, or "nothing to remember")."""
    if not log.isEnabledFor(logging.INFO):
        return
    reason = scrub_text(d.reason)
    log.info(
        "write decision: %s %s for user %s (turn %s, record %s): %s",
        d.action,
        d.candidate.kind,
        scope.user_id,
        key,
        d.record_id or "-",
        reason,
        extra={
            "event": "write_decision",
            "action": d.action,
            "reason": reason,
            "user_id": scope.user_id,
            "turn_key": key,
            "task_id": task_id,
            "kind": d.candidate.kind,
            "record_id": d.record_id,
        },
    )


def log_decision(
    d: WriteDecision, scope: Scope, key: str, result: GateResult, *, task_id: str | None
) -> None:
    """Log a decision taken after the gate (``result``)."""
    if not log.isEnabledFor(logging.INFO):
        return
    c = d.candidate
    reason = scrub_text(d.reason)
    log.info(
        "write decision: %s %s %s/%s (gate %s, %s extractor, record %s): %s",
        d.action,
        c.kind,
        c.subject,
        c.predicate,
        result.gate,
        c.extractor,
        d.record_id or d.pending_id or "-",
        reason,
        extra={
            "event": "write_decision",
            "action": d.action,
            "reason": reason,
            "gate": result.gate,
            "user_id": scope.user_id,
            "project_id": scope.project_id,
            "turn_key": key,
            "task_id": task_id,
            "kind": c.kind,
            "predicate": c.predicate,
            "confidence": round(c.confidence, 3),
            "record_id": d.record_id,
            "previous_id": d.previous_id,
            "pending_id": d.pending_id,
            "pii": c.pii,
            "extractor": c.extractor,
        },
    )


def log_duplicate(d: WriteDecision, scope: Scope, key: str) -> None:
    """Log the ``duplicate_turn`` answer to a turn already processed."""
    if not log.isEnabledFor(logging.INFO):
        return
    log.info(
        "write decision",
        extra={
            "event": "write_decision",
            "action": d.action,
            "reason": scrub_text(d.reason),
            "user_id": scope.user_id,
            "turn_key": key,
        },
    )


__all__ = ["log_decision", "log_duplicate", "log_plain"]
