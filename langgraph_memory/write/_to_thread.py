"""Async twins of the write path's synchronous methods, generated so they cannot drift.

The store and the extractors are synchronous, so an ``a*`` method of the write path is not
async I/O: it runs its sync twin in a worker thread (``asyncio.to_thread``), which only keeps
the event loop free while the turn is written.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


def in_worker_thread(
    method: Callable[Concatenate[S, P], R],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """The async twin of ``method``: same parameters, runs ``self.<method>`` (so an override
    is honoured) in a worker thread and returns its result."""
    name = method.__name__

    @functools.wraps(method)
    async def twin(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        sync: Callable[P, R] = getattr(self, name)
        return await asyncio.to_thread(sync, *args, **kwargs)

    twin.__name__ = "a" + name
    twin.__qualname__ = method.__qualname__.rsplit(".", 1)[0] + ".a" + name
    twin.__doc__ = (
        f":meth:`{name}` in a worker thread (``asyncio.to_thread``): a thread hop, not async "
        "I/O — the write path is synchronous; this only keeps the event loop free."
    )
    return twin


__all__ = ["in_worker_thread"]
