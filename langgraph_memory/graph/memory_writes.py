"""The ``memory_writes`` entries save_memory puts in the state: one per write decision.

Pure functions (no I/O): :func:`report_writes` turns a
:class:`~langgraph_memory.write.WriteReport` into entries (``turn_id``, ``action``,
``reason``, ``record_id``, ``text``, ``kind``, ``extractor``), adding a ``queued`` entry for a
turn a background writer took (:data:`QUEUED_REASON`) and a ``truncated`` one for a turn cut
to the write limit (:data:`TRUNCATED_REASON`); :func:`action_counts` summarises them for a
log line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..write import BackgroundWriter, WriteReport
from .write_path import WritePath, pipeline_of

QUEUED_REASON = (
    "queued for the background writer (journal entry {entry}); its decisions arrive in "
    "BackgroundWriter.reports"
)
LLM_DEFERRED_NOTE = (
    "; the deferred LLM pass (llm_mode={mode}) runs once the thread has been quiet for {after:g} s"
)
TRUNCATED_REASON = "turn of {chars} characters cut to the write limit"


def _note(turn_id: str, action: str, reason: str) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "action": action,
        "reason": reason,
        "record_id": None,
        "text": None,
        "kind": None,
        "extractor": None,
    }


def report_writes(
    turn_id: str, report: WriteReport, pipeline: WritePath | None = None, *, user: bool = True
) -> list[dict[str, Any]]:
    """The entries of one turn's report (its episode last). ``pipeline`` and ``user`` word the
    ``queued`` entry: a user turn queued on a deferring writer says when its LLM pass runs."""
    decisions = [*report.decisions, *([report.episode] if report.episode else [])]
    writes = [
        {
            "turn_id": turn_id,
            "action": d.action,
            "reason": d.reason,
            "record_id": d.record_id,
            "text": d.candidate.text,
            "kind": d.candidate.kind,
            "extractor": d.candidate.extractor,
        }
        for d in decisions
    ]
    if report.queued:  # a background writer took the turn: say so (every turn a decision)
        reason = QUEUED_REASON.format(entry=report.queued)
        if user and isinstance(pipeline, BackgroundWriter) and pipeline.defer_llm:
            reason += LLM_DEFERRED_NOTE.format(
                mode=pipeline_of(pipeline).config.llm_mode, after=pipeline.llm_after_s
            )
        writes.append(_note(turn_id, "queued", reason))
    truncated = getattr(report, "truncated_from", None)
    if truncated is not None:  # the turn was cut for extraction: say so, never raise
        writes.append(_note(turn_id, "truncated", TRUNCATED_REASON.format(chars=truncated)))
    return writes


def action_counts(writes: Sequence[Mapping[str, Any]]) -> str:
    """``"2 inserted, 1 skipped"`` (``"no decision"`` when empty)."""
    counts: dict[str, int] = {}
    for w in writes:
        counts[str(w["action"])] = counts.get(str(w["action"]), 0) + 1
    return ", ".join(f"{n} {a}" for a, n in counts.items()) or "no decision"


__all__ = [
    "LLM_DEFERRED_NOTE",
    "QUEUED_REASON",
    "TRUNCATED_REASON",
    "action_counts",
    "report_writes",
]
