"""What a wrapped saver can do, decided by the methods it implements (pure inspection).

:func:`is_sync_only` tells the owned checkpointer whether to serve the async API by running
the sync methods in a worker thread; :func:`overrides` whether the saver implements an
optional method (``prune``). Neither looks at class names: a subclass of ``SqliteSaver`` is
sync-only because the async methods it resolves to are ``SqliteSaver``'s "not supported"
stubs, and becomes async-capable as soon as it implements all of them.
"""

from __future__ import annotations

import sys
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

ASYNC_METHODS: tuple[str, ...] = ("aget_tuple", "alist", "aput", "aput_writes")
"""The async methods a graph run calls; a saver is async-capable only if it implements all."""

_SQLITE_MODULE = "langgraph.checkpoint.sqlite"


def _stubs() -> set[object]:
    """The functions that only raise ``NotImplementedError``: ``BaseCheckpointSaver``'s async
    methods and the "use AsyncSqliteSaver" stubs ``SqliteSaver`` defines. ``SqliteSaver`` is
    looked up only when its module is already imported (a saver built from it implies that),
    so this never imports a checkpoint backend."""
    stubs: set[object] = {vars(BaseCheckpointSaver)[m] for m in ASYNC_METHODS}
    module = sys.modules.get(_SQLITE_MODULE)
    sqlite_saver = getattr(module, "SqliteSaver", None)
    if isinstance(sqlite_saver, type):
        stubs.update(vars(sqlite_saver)[m] for m in ASYNC_METHODS if m in vars(sqlite_saver))
    return stubs


def _resolved(klass: type, method: str) -> object:
    """The function ``klass`` resolves ``method`` to (``None`` when no class defines it)."""
    for base in klass.__mro__:
        if method in vars(base):
            return vars(base)[method]
    return None


def is_sync_only(saver: BaseCheckpointSaver[Any]) -> bool:
    """True when any of :data:`ASYNC_METHODS` of ``saver`` is a stub that raises
    ``NotImplementedError`` (inherited from ``BaseCheckpointSaver`` or from ``SqliteSaver``),
    so its async API must be served by running the sync methods in a worker thread."""
    stubs = _stubs()
    return any(_resolved(type(saver), m) in stubs for m in ASYNC_METHODS)


def overrides(saver: BaseCheckpointSaver[Any], method: str) -> bool:
    """True when ``saver``'s class implements ``method`` itself rather than inheriting
    ``BaseCheckpointSaver``'s (e.g. ``prune``)."""
    return getattr(type(saver), method, None) is not getattr(BaseCheckpointSaver, method, None)


__all__ = ["ASYNC_METHODS", "is_sync_only", "overrides"]
