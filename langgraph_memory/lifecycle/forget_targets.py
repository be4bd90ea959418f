"""What forget-user needs of each store, as Protocols: the memory store (or its LangGraph
adapter), a checkpointer that records thread owners, a handle store and a background
writer's journal.

The classes of this package satisfy them (``MemoryStore``, ``LangGraphMemoryStore``,
``OwnedCheckpointSaver``, ``HandleStore``, ``BackgroundWriter``, ``OfflineJournal``); naming
the capabilities instead of the classes keeps :mod:`langgraph_memory.lifecycle.forget` free
of the store and graph packages, so ``MemoryStore.forget_user`` can delegate to it without an
import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from langgraph.checkpoint.base import BaseCheckpointSaver

from ..core.records import MemoryRecord
from .audit import AuditLog


class ErasureReceipt(Protocol):
    """How a store erased deleted data (``MemoryStore.last_erasure``)."""

    def to_json(self) -> dict[str, Any]: ...


class UserMemory(Protocol):
    """The memory store's side of forget-user (:class:`~langgraph_memory.store.MemoryStore`)."""

    @property
    def memory_version(self) -> int: ...

    @property
    def audit(self) -> AuditLog | None: ...

    @property
    def last_erasure(self) -> ErasureReceipt | None: ...

    def user_records(self, user_id: str, *, include_internal: bool = ...) -> list[MemoryRecord]: ...

    def user_footprint(self, user_id: str) -> dict[str, int]: ...

    def delete_user(self, user_id: str) -> int: ...

    def managed_paths(self) -> list[Path] | None: ...


@runtime_checkable
class WrapsMemory(Protocol):
    """A wrapper that holds the memory store as ``.store`` (the LangGraph ``BaseStore``
    adapter, :class:`~langgraph_memory.graph.langgraph_store.LangGraphMemoryStore`)."""

    @property
    def store(self) -> UserMemory: ...


@runtime_checkable
class OwnedThreads(Protocol):
    """A checkpointer that records thread owners
    (:class:`~langgraph_memory.graph.checkpoint.saver.OwnedCheckpointSaver`): its threads can
    be found, deleted and erased by user."""

    @property
    def last_erasure(self) -> dict[str, Any] | None: ...

    def threads_of(self, user_id: str) -> list[str]: ...

    def checkpoint_ids(self, thread_id: str) -> list[str]: ...

    def delete_user(self, user_id: str) -> list[str]: ...

    def managed_paths(self) -> list[Path] | None: ...

    def unscoped(self) -> BaseCheckpointSaver[Any]: ...


class UserHandles(Protocol):
    """Externalized payloads kept per user (:class:`~langgraph_memory.context.HandleStore`)."""

    def handles_of(self, user_id: str) -> list[str]: ...

    def delete_user(self, user_id: str) -> int: ...

    def managed_paths(self) -> list[Path]: ...


class UserJournal(Protocol):
    """Queued turns and their journal (a
    :class:`~langgraph_memory.write.BackgroundWriter`, or an
    :class:`~langgraph_memory.write.journal.OfflineJournal` of a stopped app)."""

    @property
    def path(self) -> Path: ...

    def purge_user(self, user_id: str) -> Mapping[str, int]: ...

    def queued_turns(self, user_id: str) -> int: ...


MemoryArg = UserMemory | WrapsMemory
"""The ``store=`` of forget-user: a ``MemoryStore`` or its LangGraph adapter."""


def memory_of(store: MemoryArg | None) -> UserMemory | None:
    """The memory store itself (unwrapped from its LangGraph adapter)."""
    return store.store if isinstance(store, WrapsMemory) else store


__all__ = [
    "ErasureReceipt",
    "MemoryArg",
    "OwnedThreads",
    "UserHandles",
    "UserJournal",
    "UserMemory",
    "WrapsMemory",
    "memory_of",
]
