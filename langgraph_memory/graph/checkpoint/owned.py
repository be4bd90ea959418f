"""The sync half of the owned checkpointer: ownership recording, the read checks, redaction of
what is stored, forget-user, and the sync checkpoint API (stateful; wraps any LangGraph saver).

:class:`~langgraph_memory.graph.checkpoint.saver.OwnedCheckpointSaver` adds the async twins;
use that class (this one is its base, not meant to be built directly).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from ...core.logsafe import get_logger
from ...errors import ScopeError
from ...write.message_redaction import CheckpointRedactor
from ._runconfig import (
    NO_USER_HINT,
    config_thread_id,
    config_user_id,
    thread_configs,
    user_arg,
)
from .capabilities import is_sync_only
from .erasure import CheckpointErasure
from .ownership import MemoryThreadOwnership, ThreadOwnership
from .serde import SERDE_TYPES, with_own_types

log = get_logger("checkpoint")


class OwnedSaverCore(BaseCheckpointSaver[Any]):
    """Everything of :class:`~langgraph_memory.graph.checkpoint.saver.OwnedCheckpointSaver` but
    the async checkpoint API: the constructor, the owner checks (``get_tuple``/``list``/``put``
    refuse exactly as documented there), forget-user and the sync checkpoint API."""

    def __init__(
        self,
        inner: BaseCheckpointSaver[Any],
        ownership: ThreadOwnership | None = None,
        *,
        async_via_threads: bool | None = None,
        closer: Callable[[], None] | None = None,
        scoped: bool = True,
        redactor: CheckpointRedactor | None = None,
        erasure: CheckpointErasure | None = None,
    ) -> None:
        # Do not call super().__init__: serde is the inner saver's (see the property).
        self.inner = with_own_types(inner)
        self.ownership = ownership or MemoryThreadOwnership()
        if async_via_threads is None:
            async_via_threads = is_sync_only(inner)
        self.async_via_threads = async_via_threads
        self._closer = closer
        self.scoped = scoped
        self.redactor = redactor
        self.erasure = erasure
        """How deleted rows are erased from the files (``None``: a wrapped saver of unknown
        storage; :meth:`delete_user` then deletes rows only and says so)."""
        self.last_erasure: dict[str, Any] | None = None

    # ------------------------------------------------------------------ plumbing
    @property  # type: ignore[override]
    def serde(self) -> SerializerProtocol:
        """The wrapped saver's serializer."""
        return self.inner.serde

    @serde.setter
    def serde(self, value: SerializerProtocol) -> None:
        self.inner.serde = value

    @property
    def config_specs(self) -> list:
        """The wrapped saver's config specs."""
        return self.inner.config_specs

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found normally: forward to the wrapped saver.
        if name in {
            "inner",
            "ownership",
            "async_via_threads",
            "_closer",
            "scoped",
            "redactor",
            "erasure",
            "last_erasure",
        }:
            raise AttributeError(name)
        return getattr(self.inner, name)

    def get_next_version(self, current: Any, channel: None) -> Any:
        """The wrapped saver's version scheme (string versions for SQLite/Postgres/memory)."""
        return self.inner.get_next_version(current, channel)

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> Self:
        """A clone whose wrapped saver has the derived msgpack allowlist; ownership is shared."""
        inner = self.inner.with_allowlist(tuple({*extra_allowlist, *SERDE_TYPES}))
        if inner is self.inner:
            return self
        return type(self)(
            inner,
            self.ownership,
            async_via_threads=self.async_via_threads,
            closer=None,
            scoped=self.scoped,
            redactor=self.redactor,
            erasure=self.erasure,
        )

    def unscoped(self) -> Self:
        """The admin escape hatch: a view over the same saver and ownership table that does
        not require a ``user_id`` on reads and lists every thread (a read naming a user other
        than the owner is still refused). Writes still record owners. Closing the view does
        not close this checkpointer. Never hand it to a graph that serves users."""
        return type(self)(
            self.inner,
            self.ownership,
            async_via_threads=self.async_via_threads,
            closer=None,
            scoped=False,
            redactor=self.redactor,
            erasure=self.erasure,
        )

    def _redacted(self, checkpoint: Checkpoint) -> Checkpoint:
        return checkpoint if self.redactor is None else self.redactor.checkpoint(checkpoint)

    def _redacted_writes(self, writes: Sequence[tuple[str, Any]]) -> Sequence[tuple[str, Any]]:
        return writes if self.redactor is None else self.redactor.writes(writes)

    def _record_owner(self, config: RunnableConfig) -> None:
        thread_id = config_thread_id(config)
        user_id = config_user_id(config)
        if thread_id is not None and user_id is not None:
            self.ownership.assign(thread_id, user_id)

    def _check_owner(self, config: RunnableConfig | None) -> None:
        """Refuse a read of an owned thread by another user, or (scoped) by no named user."""
        thread_id = config_thread_id(config)
        if thread_id is None:
            return
        user_id = config_user_id(config)
        if user_id is None and not self.scoped:
            return
        owner = self.ownership.owner(thread_id)
        if owner is None:
            return
        if user_id is None:
            raise ScopeError(
                f"reading thread {thread_id!r} needs the user_id of its owner; {NO_USER_HINT}"
            )
        if owner != user_id:
            raise ScopeError(
                f"thread {thread_id!r} belongs to another user; a thread can only be used by "
                "the user it was created for (start a new thread_id for this user)"
            )

    def _owned_threads(self, config: RunnableConfig | None) -> builtins.list[str] | None:
        """For a listing without ``thread_id``: the threads it may cover (``None``: all, for
        an unscoped view). Raises :class:`ScopeError` when a scoped listing names no user."""
        user_id = config_user_id(config)
        if user_id is None:
            if not self.scoped:
                return None
            raise ScopeError(f"listing checkpoints across threads needs a user_id; {NO_USER_HINT}")
        return self.ownership.threads(user_id)

    def _list_threads(
        self,
        config: RunnableConfig | None,
        threads: builtins.list[str],
        *,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Iterator[CheckpointTuple]:
        """The checkpoints of ``threads`` (thread by thread), at most ``limit`` in all."""
        left = limit
        for conf in thread_configs(config, threads):
            if left is not None and left <= 0:
                return
            for item in self.inner.list(conf, filter=filter, before=before, limit=left):
                yield item
                if left is not None:
                    left -= 1

    # ------------------------------------------------------------------ ownership API
    def assign_thread(self, thread_id: str, user_id: str) -> None:
        """Record that ``thread_id`` belongs to ``user_id`` (done automatically on ``put`` during
        a run whose context names a ``user_id``). Raises :class:`ScopeError` on a conflict."""
        self.ownership.assign(thread_id, user_id)

    def thread_owner(self, thread_id: str) -> str | None:
        """The user owning ``thread_id``, or ``None``."""
        return self.ownership.owner(thread_id)

    def threads_of(self, user_id: str) -> list[str]:
        """The threads owned by ``user_id``."""
        return self.ownership.threads(user_id)

    def delete_user(self, user_id: str) -> list[str]:
        """Delete every checkpoint and pending write of every thread ``user_id`` owns, then the
        ownership rows, then erase the deleted rows from the storage's files
        (:attr:`erasure`; its report is :attr:`last_erasure`). Returns the deleted thread ids
        (the forget-user receipt)."""
        threads = self.ownership.threads(user_arg(user_id, "delete_user"))
        for thread_id in threads:
            self.delete_thread(thread_id)
        self.last_erasure = self.erase_deleted()
        log.info(
            "user threads deleted",
            extra={"event": "delete_user_threads", "user_id": user_id, "threads": threads},
        )
        return threads

    def erase_deleted(self) -> dict[str, Any]:
        """Make the rows deleted so far unreadable in the storage's files (see
        :mod:`langgraph_memory.graph.checkpoint.erasure`); a report of how."""
        if self.erasure is None:
            return {
                "mechanism": "rows deleted only",
                "note": "a wrapped saver of unknown storage: build it with create_checkpointer "
                "(or pass erasure=) for physical erasure",
            }
        return self.erasure.erase()

    def managed_paths(self) -> list[Path] | None:
        """The files of the checkpoint storage (``[]``: in memory; ``None``: a server's, or
        unknown)."""
        return None if self.erasure is None else self.erasure.paths()

    def checkpoint_ids(self, thread_id: str) -> list[str]:
        """Every checkpoint id of ``thread_id`` in every namespace (an admin read, used to
        check after a forget that none is left in the files)."""
        config: RunnableConfig = {"configurable": {"thread_id": str(thread_id)}}
        ids = []
        for item in self.inner.list(config):
            value = (item.config.get("configurable") or {}).get("checkpoint_id")
            if value:
                ids.append(str(value))
        return ids

    # ------------------------------------------------------------------ sync API
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Forwarded; refuses (ScopeError) a read of an owned thread by another user or, when
        scoped, by no named user."""
        self._check_owner(config)
        return self.inner.get_tuple(config)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints, newest first per thread. With a ``thread_id``: the owner check of
        :meth:`get_tuple`. Without: only the named user's threads (``ScopeError`` when no user
        is named, unless this is an :meth:`unscoped` view, which lists every thread). The
        check runs when ``list`` is called, before the first item is requested."""
        if config_thread_id(config) is not None:
            self._check_owner(config)
            return self.inner.list(config, filter=filter, before=before, limit=limit)
        threads = self._owned_threads(config)
        if threads is None:
            return self.inner.list(config, filter=filter, before=before, limit=limit)
        return self._list_threads(config, threads, filter=filter, before=before, limit=limit)

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Record the thread's owner (from the run's context), then forward (redacted)."""
        self._record_owner(config)
        return self.inner.put(config, self._redacted(checkpoint), metadata, new_versions)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Forwarded (values redacted)."""
        self.inner.put_writes(config, self._redacted_writes(writes), task_id, task_path)

    def delete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes, then its ownership row."""
        self.inner.delete_thread(thread_id)
        self.ownership.forget_thread(str(thread_id))

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Forwarded after the owner check of :meth:`get_tuple`."""
        self._check_owner(config)
        return self.inner.get_delta_channel_history(config=config, channels=channels)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the connection/pool this checkpointer opened (no-op for wrapped savers)."""
        closer, self._closer = self._closer, None
        if closer is not None:
            closer()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
