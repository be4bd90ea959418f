"""What the deferred LLM pass sends: the turns waiting for it, which of them the model may
read, and one model call over them (nothing is stored here)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...core.records import Evidence, Source
from ...core.scope import Scope
from ...errors import ConfigError
from ..candidates import pii_types
from ..conversation import noise_reason
from ..extract.injection import detect_injection
from ..extract.llm import LLMExtractor
from ..ledger import turn_key_of
from ..pipeline import WritePipeline
from ..types import Candidate, WriteReport

INJECTION_NOT_SENT = "the turn tries to instruct the assistant ({why})"
REFUSED_NOT_SENT = "the turn holds a secret whose PII policy is refuse"
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


def redacted(pipeline: WritePipeline, turns: Sequence[DeferredTurn]) -> list[DeferredTurn]:
    """``turns`` cut to ``max_turn_chars`` and redacted again (redaction is idempotent)."""
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
    turns = redacted(pipeline, turns)
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
    turns = redacted(pipeline, turns)
    sent = await asyncio.to_thread(_to_send, pipeline, turns)
    if not sent:
        return LLMBatch()
    found = await extractor.aextract_turns(
        [turns[i].text for i in sent], evidence=[turns[i].evidence for i in sent]
    )
    return _attributed(turns, sent, found)


__all__ = [
    "DeferredTurn",
    "LLMBatch",
    "aextract_batch",
    "extract_batch",
    "redacted",
    "skip_reason",
    "wants_llm",
]
