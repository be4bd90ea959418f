"""The deferred LLM pass end to end: :func:`~.batch.extract_batch` (one model call), then
:func:`~.apply.apply_batch` (gates and persist); a failing model never raises."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.logsafe import get_logger
from ...errors import ConfigError
from ..pipeline import WritePipeline
from ..types import WriteReport
from .apply import aapply_batch, apply_batch
from .batch import DeferredTurn, LLMBatch, aextract_batch, extract_batch

log = get_logger("write")


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


__all__ = ["arun_llm_pass", "run_llm_pass"]
