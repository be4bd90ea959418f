"""What a memory node reads from its LangGraph runtime, and the events it sends back.

Shared by the nodes (:mod:`langgraph_memory.graph.nodes`) and the memory tools
(:mod:`langgraph_memory.graph.tools`):

* :func:`run_context` — the run's :class:`~langgraph_memory.graph.state.MemoryContext`
  (:class:`~langgraph_memory.errors.ScopeError` without one).
* :func:`provenance` — ``(thread_id, checkpoint_id)`` of the running node.
* :func:`resolve_store` — the node's own store, else the graph's.
* :func:`emit` — one structured event: a log line and LangGraph's custom stream.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..core.logsafe import get_logger, redact_value
from ..errors import ConfigError
from ..store import MemoryStore
from .langgraph_store import LangGraphMemoryStore
from .state import MemoryContext, require_context

log = get_logger("graph")

NO_STORE_ERROR = (
    "no memory store: pass store=MemoryStore(...) to the node factory, or compile the "
    "graph with store=LangGraphMemoryStore(memory_store)"
)

NodeRuntime = Runtime[Any] | None
"""The runtime a node or tool receives (``None`` outside a graph run)."""

_LOG_RESERVED = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def emit(
    runtime: NodeRuntime,
    name: str,
    payload: dict[str, Any],
    level: int = logging.INFO,
    message: str | None = None,
) -> None:
    """Log one structured event (``message``, default the event name) and stream it on
    LangGraph's custom stream when running. Payloads carry ids, counts and scrubbed reasons;
    PII left in any string is replaced by placeholders first
    (:mod:`langgraph_memory.core.logsafe`)."""
    payload = redact_value(payload)
    extra = {k: v for k, v in payload.items() if k not in _LOG_RESERVED}
    log.log(level, message or name, extra={"event": name, **extra})
    writer = getattr(runtime, "stream_writer", None)
    if writer is not None:
        try:
            writer({"langgraph_memory": name, **payload})
        except Exception:  # a broken stream consumer must not break the agent
            log.debug("stream writer failed for %s", name, exc_info=True)


def run_context(runtime: NodeRuntime) -> MemoryContext:
    """The run's :class:`MemoryContext`; :class:`~langgraph_memory.errors.ScopeError` naming
    ``user_id`` when the run has none."""
    return require_context(getattr(runtime, "context", None) if runtime is not None else None)


def provenance(runtime: NodeRuntime) -> tuple[str | None, str | None]:
    """``(thread_id, checkpoint_id)`` of the running node, from the runtime or the config."""
    info = getattr(runtime, "execution_info", None)
    thread_id = getattr(info, "thread_id", None)
    checkpoint_id = getattr(info, "checkpoint_id", None)
    if thread_id is None:
        try:
            configurable = get_config().get("configurable") or {}
            thread_id = configurable.get("thread_id")
            checkpoint_id = checkpoint_id or configurable.get("checkpoint_id")
        except Exception:  # outside a graph run
            pass
    return (None if thread_id is None else str(thread_id)), checkpoint_id


def resolve_store(store: MemoryStore | None, runtime: NodeRuntime) -> MemoryStore:
    """The node's own store, else the graph's (``compile(store=LangGraphMemoryStore(...))``);
    :class:`~langgraph_memory.errors.ConfigError` when there is neither."""
    if store is not None:
        return store
    graph_store = getattr(runtime, "store", None)
    if isinstance(graph_store, LangGraphMemoryStore):
        return graph_store.store
    if isinstance(graph_store, MemoryStore):
        return graph_store
    raise ConfigError(NO_STORE_ERROR)


__all__ = ["NO_STORE_ERROR", "NodeRuntime", "emit", "provenance", "resolve_store", "run_context"]
