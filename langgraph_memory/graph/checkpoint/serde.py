"""The package's own types in checkpoints: the msgpack allowlist entries and the log filter.

Pure registration, no storage: :data:`SERDE_TYPES` lists the types of graph state that a
checkpoint may hold; :func:`with_own_types` puts them on a saver's allowlist; importing this
module installs the filter that keeps LangGraph's serializer from warning about them.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

SERDE_TYPES: tuple[tuple[str, str], ...] = (
    ("langgraph_memory.context.constraints", "Constraint"),
    ("langgraph_memory.context.constraints", "Violation"),
)
"""The package's own types that can sit in graph state (and so in checkpoints): registered
with the serializer's msgpack allowlist of every checkpointer this module builds or wraps
(``with_allowlist``, which LangGraph applies under ``LANGGRAPH_STRICT_MSGPACK``)."""

_SERDE_LOGGER = "langgraph.checkpoint.serde.jsonplus"
_UNREGISTERED_PREFIX = "Deserializing unregistered type"


class _OwnTypesRegistered(logging.Filter):
    """Drops LangGraph's "Deserializing unregistered type ..." warning for the package's own
    :data:`SERDE_TYPES` only. In its default (permissive) mode the serializer warns for
    every type outside its built-in safe set, even an allowlisted one, so a resume of any
    graph whose state holds a :class:`~langgraph_memory.context.Constraint` logged it;
    warnings about any other type pass unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(_UNREGISTERED_PREFIX):
            return True
        args = record.args if isinstance(record.args, tuple) else ()
        return tuple(str(a) for a in args[:2]) not in SERDE_TYPES


def _register_serde_types() -> None:
    logger = logging.getLogger(_SERDE_LOGGER)
    if not any(isinstance(f, _OwnTypesRegistered) for f in logger.filters):
        logger.addFilter(_OwnTypesRegistered())


_register_serde_types()


def with_own_types(saver: BaseCheckpointSaver[Any]) -> BaseCheckpointSaver[Any]:
    """``saver`` with :data:`SERDE_TYPES` on its msgpack allowlist (``saver`` itself when
    its serializer allows every type, the default, or has no allowlist support)."""
    try:
        return saver.with_allowlist(SERDE_TYPES)
    except Exception:  # a saver without allowlist support: nothing to register
        return saver


__all__ = ["SERDE_TYPES", "with_own_types"]
