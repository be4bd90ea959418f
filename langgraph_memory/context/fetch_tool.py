"""The ``fetch_memory(handle, offset=0)`` tool: what the agent calls to read back a payload that
compaction moved into a :class:`~langgraph_memory.context.handles.HandleStore`, chunked to a
token limit, scoped to the running user."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.runtime import get_runtime

from ..core.scope import Scope
from ..errors import ConfigError, RecordNotFound, ScopeError
from .handles import HandleStore, handle_scope
from .tokens import CounterLike, TokenCounter, as_token_counter


def _prefix_within(text: str, max_tokens: int, counter: TokenCounter) -> str:
    """Longest prefix of ``text`` counted at most ``max_tokens`` (at least one character)."""
    if counter.count_text(text) <= max_tokens:
        return text
    lo, hi = 1, min(len(text), max_tokens * 8)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count_text(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def _runtime_scope() -> Scope:
    """The scope of the running LangGraph graph: its context's ``scope`` or ``user_id``."""
    try:
        context = get_runtime().context
    except Exception as exc:  # outside a graph run
        raise ScopeError(
            "fetch_memory was created without a scope and is not running inside a graph "
            "with a context naming the user (context=MemoryContext(user_id=...))"
        ) from exc
    if context is None:
        raise ScopeError("fetch_memory needs a run context with user_id; none was passed")
    scope = getattr(context, "scope", None)
    if isinstance(scope, Scope):
        return scope
    if isinstance(context, dict):
        return Scope.of({k: v for k, v in context.items() if k in {"user_id", "project_id", "acl"}})
    return Scope(
        user_id=getattr(context, "user_id", None),  # type: ignore[arg-type]
        project_id=getattr(context, "project_id", None),
        acl=tuple(getattr(context, "acl", ()) or ()),
    )


def create_fetch_memory_tool(
    handle_store: HandleStore,
    scope: Scope | dict[str, Any] | str | None = None,
    *,
    max_tokens: int = 800,
    counter: CounterLike = None,
    name: str = "fetch_memory",
) -> BaseTool:
    """A LangChain tool ``fetch_memory(handle, offset=0)`` bound to ``scope``.

    Returns the payload behind a handle that compaction put in the context, at most
    ``max_tokens`` tokens at a time (counted with ``counter``, default the package counter);
    the tail says which ``offset`` continues it. Keep ``max_tokens`` below the compaction's
    externalize limit, or a fetched chunk is externalized again before the model reads it.
    Unknown or out-of-scope handles give a plain message, not an exception, so the model
    can recover; the tool never reveals whether another tenant's handle exists.

    With ``scope=None`` the scope is read at call time from the running graph's context
    (``context=MemoryContext(user_id=...)``, or any context with ``user_id``/``scope``), so
    one tool instance serves every user; without such a context the call fails closed
    with :class:`~langgraph_memory.errors.ScopeError`.
    """
    bound = handle_scope(scope) if scope is not None else None
    tc = as_token_counter(counter)
    if max_tokens < 1:
        raise ConfigError("max_tokens must be >= 1")

    def fetch_memory(handle: str, offset: int = 0) -> str:
        """Fetch the full text that was moved out of the conversation behind a handle
        (e.g. 'h_0123abcd...'). Use it when a message says content was stored under a
        handle and you need that content. `offset` continues a long payload."""
        try:
            content = handle_store.get(bound if bound is not None else _runtime_scope(), handle)
        except RecordNotFound:
            return f"No stored content for handle {handle!r} (unknown or not yours)."
        start = min(max(0, int(offset)), len(content))
        chunk = _prefix_within(content[start:], max_tokens, tc) if start < len(content) else ""
        end = start + len(chunk)
        if end < len(content):
            chunk += (
                f"\n[... {len(content) - end} more characters; call "
                f"{name}(handle={handle!r}, offset={end}) for the rest]"
            )
        return chunk

    return StructuredTool.from_function(fetch_memory, name=name)


__all__ = ["create_fetch_memory_tool"]
