"""Context events: one structured log record + one LangGraph custom-stream chunk each.

Every event goes to the ``langgraph_memory.context`` logger with ``extra={"event": name,
**payload}`` and, when called inside a running LangGraph node, to the graph's custom
stream as ``{"langgraph_memory": name, **payload}`` (see ``graph.stream(...,
stream_mode="custom")``). Outside a graph the stream part is skipped silently.

Payloads carry ids, counts and reasons; PII in any string of a payload is replaced by
placeholders before it is logged or streamed (:func:`~langgraph_memory.core.logsafe.redact_value`).

Every custom-stream event of :mod:`langgraph_memory.context` (``compaction``,
``constraints_reinjected``, ``output_violations``) goes through :func:`emit_event`, so they
share this one log shape: the message, ``extra["event"]`` (the name) and
``extra["payload"]`` (the redacted payload).
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.config import get_stream_writer

from ..core.logsafe import get_logger, redact_value

logger = get_logger("context")

EVENT_KEY = "langgraph_memory"


def emit_event(
    name: str,
    payload: dict[str, Any],
    *,
    level: int = logging.INFO,
    message: str | None = None,
) -> dict[str, Any]:
    """Log ``payload`` under ``name`` and write it to the LangGraph custom stream if any.

    Returns the event dict that was streamed (``{"langgraph_memory": name, **payload}``, PII
    redacted). Never raises because no graph is running.
    """
    payload = redact_value(payload)
    event = {EVENT_KEY: name, **payload}
    logger.log(level, message or name, extra={"event": name, "payload": payload})
    try:
        writer = get_stream_writer()
    except Exception:  # outside a runnable context there is no writer
        writer = None
    if writer is not None:
        try:
            writer(event)
        except Exception:  # a broken consumer must not break the agent
            logger.debug("custom stream writer failed for %s", name, exc_info=True)
    return event


__all__ = ["EVENT_KEY", "emit_event"]
