"""The base class of the five memory nodes."""

import asyncio
from collections.abc import Mapping
from typing import Any

from langgraph._internal._runnable import RunnableCallable
from langgraph.runtime import Runtime

from ..runtime import NodeRuntime
from ..state import MemoryContext


class MemoryNode(RunnableCallable):
    """Base of the memory nodes: a LangGraph runnable with a sync and an async path that is
    also directly callable with ``(state, runtime)``.

    A subclass implements ``_run`` (sync) and may implement ``_arun`` (async); without one,
    the async path runs ``_run`` in a worker thread (:func:`asyncio.to_thread`). Each node's
    docstring says which of its steps are truly async."""

    default_name = "memory_node"

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(self._func, self._afunc, name=name or self.default_name, trace=False)

    def __call__(self, state: Mapping[str, Any], runtime: Runtime[MemoryContext]) -> dict[str, Any]:
        """Run the node's sync variant on ``state`` (outside or inside a graph)."""
        return self._run(state, runtime)

    async def acall(
        self, state: Mapping[str, Any], runtime: Runtime[MemoryContext]
    ) -> dict[str, Any]:
        """Run the node's async variant on ``state``."""
        return await self._arun(state, runtime)

    def _func(self, state: Any, runtime: Runtime) -> dict[str, Any]:
        return self._run(state, runtime)

    async def _afunc(self, state: Any, runtime: Runtime) -> dict[str, Any]:
        return await self._arun(state, runtime)

    def _run(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        raise NotImplementedError

    async def _arun(self, state: Mapping[str, Any], runtime: NodeRuntime) -> dict[str, Any]:
        return await asyncio.to_thread(self._run, state, runtime)


__all__ = ["MemoryNode"]
