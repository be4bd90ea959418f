"""Child runs around the nodes' store calls, so recall and writes show in LangSmith (or any
LangChain callback handler).

:func:`traced` / :func:`atraced` open a run named :data:`RECALL_RUN` or :data:`WRITE_RUN`,
tagged :data:`TRACE_TAG`, under the current LangGraph run; :func:`recall_summary` and
:func:`write_summary` are its outputs (ids, counts, scores: never stored text). Outside a run
with callbacks they only call through.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager
from langchain_core.runnables import ensure_config

from ..core.logsafe import redact_value, scrub_text
from ..store import RecallResult
from ..write import WriteReport

TRACE_TAG = "langgraph_memory"
"""Tag of the runs the nodes open around their store calls (see :func:`traced`)."""
RECALL_RUN = "memory_recall"
WRITE_RUN = "memory_write"

T = TypeVar("T")


def _trace_managers(name: str, asynchronous: bool) -> CallbackManager | AsyncCallbackManager:
    """The callback manager of a child run named ``name`` under the current run, without its
    own metadata yet (:func:`_with_inputs` adds it once there is a handler to see it)."""
    config = ensure_config()
    manager_cls = AsyncCallbackManager if asynchronous else CallbackManager
    return manager_cls.configure(
        inheritable_callbacks=config.get("callbacks"),
        inheritable_tags=config.get("tags"),
        local_tags=[TRACE_TAG, name],
        inheritable_metadata=config.get("metadata"),
    )


def _with_inputs(
    manager: CallbackManager | AsyncCallbackManager, inputs: Mapping[str, Any]
) -> dict[str, Any]:
    """``inputs`` PII-redacted (once), added to ``manager`` as its run's own metadata exactly
    as ``configure(local_metadata=...)`` adds it (after the inherited metadata, not passed
    on to child runs); returns the redacted inputs for the run's start. Called only when the
    manager has handlers: without one nothing would ever read them."""
    redacted = redact_value(dict(inputs))
    manager.add_metadata(dict(redacted), inherit=False)
    return dict(redacted)


def traced(
    name: str,
    inputs: Mapping[str, Any],
    call: Callable[[], T],
    summary: Callable[[T], dict[str, Any]],
) -> T:
    """Run ``call()`` as a child run named ``name`` of the current LangChain/LangGraph run, so
    it shows in LangSmith (or any callback handler) with the tags ``["langgraph_memory",
    name]``, ``inputs`` as inputs and metadata, and ``summary(result)`` as outputs (ids,
    counts, scores: never stored text; strings PII-redacted). Outside a run (no callbacks)
    it only calls ``call()``. A failing ``call`` ends the run with the error and re-raises."""
    manager = _trace_managers(name, asynchronous=False)
    assert isinstance(manager, CallbackManager)
    if not manager.handlers:
        return call()
    run = manager.on_chain_start({"name": name}, _with_inputs(manager, inputs), name=name)
    try:
        result = call()
    except BaseException as exc:
        run.on_chain_error(exc)
        raise
    run.on_chain_end(redact_value(summary(result)))
    return result


async def atraced(
    name: str,
    inputs: Mapping[str, Any],
    call: Callable[[], Awaitable[T]],
    summary: Callable[[T], dict[str, Any]],
) -> T:
    """Async :func:`traced`."""
    manager = _trace_managers(name, asynchronous=True)
    assert isinstance(manager, AsyncCallbackManager)
    if not manager.handlers:
        return await call()
    run = await manager.on_chain_start({"name": name}, _with_inputs(manager, inputs), name=name)
    try:
        result = await call()
    except BaseException as exc:
        await run.on_chain_error(exc)
        raise
    await run.on_chain_end(redact_value(summary(result)))
    return result


def recall_summary(result: RecallResult) -> dict[str, Any]:
    return {
        "hits": len(result.hits),
        "ids": [h.record.id for h in result.hits],
        "scores": [round(float(h.score), 4) for h in result.hits],
        "degraded": bool(result.degraded),
    }


def write_summary(report: WriteReport) -> dict[str, Any]:
    decisions = [*report.decisions, *([report.episode] if report.episode else [])]
    return {
        "actions": [d.action for d in decisions],
        "reasons": [scrub_text(d.reason) for d in decisions],
        "record_ids": [d.record_id for d in decisions if d.record_id],
        "queued": report.queued,
    }


__all__ = [
    "RECALL_RUN",
    "TRACE_TAG",
    "WRITE_RUN",
    "atraced",
    "recall_summary",
    "traced",
    "write_summary",
]
