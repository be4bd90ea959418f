"""The owned checkpointer: a LangGraph saver wrapper that remembers which user owns each thread.

:func:`create_checkpointer` returns an :class:`OwnedCheckpointSaver`: a LangGraph checkpoint
saver (SQLite file by default, PostgreSQL for scale, in-memory for tests) wrapped so that

* every checkpoint written during a run with a ``context=`` that names a ``user_id`` records
  ``thread_id -> user_id`` in an ownership table kept beside the checkpoints (same SQLite file,
  same PostgreSQL database, or a dict for the in-memory saver);
* a run of user B on a thread owned by user A fails with
  :class:`~langgraph_memory.errors.ScopeError` before any node sees A's conversation;
* every read of an owned thread (``get_tuple``, ``list``, delta-channel history, so also
  ``graph.get_state`` and ``graph.get_state_history``, sync and async) must name the owner:
  another user's ``user_id`` **or no user_id at all** raises ``ScopeError``. Name the user in
  ``config["configurable"]["user_id"]`` (or ``metadata["user_id"]``, or the run's
  ``context=``). Threads nobody owns (written without a ``user_id``) stay readable;
* ``list`` without a ``thread_id`` yields only the checkpoints of the named user's threads,
  and refuses (``ScopeError``) when no user is named;
* :meth:`OwnedCheckpointSaver.delete_user` deletes every thread of a user (forget-user) and
  then erases the deleted rows from the files (see
  :mod:`langgraph_memory.graph.checkpoint.erasure`);
* with a :class:`~langgraph_memory.write.message_redaction.CheckpointRedactor` (the default of
  :func:`create_checkpointer`), PII in what is stored is replaced by the write path's
  placeholders before it reaches the wrapped saver: message text and tool-call arguments, the
  working-memory text fields, the graph input and pending writes (see
  :mod:`langgraph_memory.write.message_redaction`). Ids, types and tool-call ids are kept, so the
  graph
  resumes from a redacted checkpoint as from a raw one; the values returned by the run itself
  are not touched (only what is written is redacted).

Admin code that must see every thread (migrations, audits, the conformance suite) uses the
explicit escape hatch :meth:`OwnedCheckpointSaver.unscoped` (a view over the same saver and
ownership table without the read checks) or the wrapped saver itself (``.inner``).

The wrapper forwards everything the graph calls (``get_tuple``, ``list``, ``put``,
``put_writes``, ``delete_thread``, ``get_next_version``, ``with_allowlist``, ``serde``,
``config_specs``, delta-channel history, their async twins) and any other attribute to the
wrapped saver. Sync savers (``SqliteSaver``, ``PostgresSaver``) get working async methods by
running the sync call in a worker thread, so one checkpointer serves ``invoke`` and
``ainvoke``. It passes ``langgraph-checkpoint-conformance``
(see ``tests/test_graph_checkpoint.py``).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)

from ._runconfig import config_thread_id, thread_configs, user_arg
from .owned import OwnedSaverCore


class OwnedCheckpointSaver(OwnedSaverCore):
    """A checkpoint saver wrapper that records and enforces thread ownership.

    Build one with :func:`create_checkpointer`, or wrap any saver:
    ``OwnedCheckpointSaver(InMemorySaver(), MemoryThreadOwnership())``.
    ``async_via_threads=True`` makes the async methods call the sync ones in a worker thread
    (for savers that only implement sync methods, like ``SqliteSaver`` and ``PostgresSaver``).

    ``scoped=True`` (the default) enforces the read rules of the module docstring;
    ``scoped=False`` (what :meth:`unscoped` returns) only refuses a read that names a user other
    than the thread's owner, and lists every thread.

    ``redactor``: redacts checkpoints and pending writes before they are stored (``None``:
    stored as given).

    The sync API, ownership and forget-user come from
    :class:`~langgraph_memory.graph.checkpoint.owned.OwnedSaverCore`; this class adds the
    async twins (a worker-thread hop for sync-only savers, else the
    wrapped saver's own async methods after the same owner checks).
    """

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Async :meth:`get_tuple`."""
        if self.async_via_threads:
            return await asyncio.to_thread(self.get_tuple, config)
        await asyncio.to_thread(self._check_owner, config)
        return await self.inner.aget_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Async :meth:`list` (the same owner checks)."""
        if self.async_via_threads:
            items = await asyncio.to_thread(
                lambda: builtins.list(self.list(config, filter=filter, before=before, limit=limit))
            )
            for item in items:
                yield item
            return
        if config_thread_id(config) is not None:
            await asyncio.to_thread(self._check_owner, config)
            threads: builtins.list[str] | None = None
        else:
            threads = await asyncio.to_thread(self._owned_threads, config)
        if threads is None:
            async for item in self.inner.alist(config, filter=filter, before=before, limit=limit):
                yield item
            return
        left = limit
        for conf in thread_configs(config, threads):
            if left is not None and left <= 0:
                return
            async for item in self.inner.alist(conf, filter=filter, before=before, limit=left):
                yield item
                if left is not None:
                    left -= 1

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Async :meth:`put`."""
        if self.async_via_threads:
            return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)
        await asyncio.to_thread(self._record_owner, config)
        return await self.inner.aput(config, self._redacted(checkpoint), metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Async :meth:`put_writes`."""
        if self.async_via_threads:
            await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)
            return
        await self.inner.aput_writes(config, self._redacted_writes(writes), task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        """Async :meth:`delete_thread`."""
        if self.async_via_threads:
            await asyncio.to_thread(self.delete_thread, thread_id)
            return
        await self.inner.adelete_thread(thread_id)
        await asyncio.to_thread(self.ownership.forget_thread, str(thread_id))

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Async :meth:`get_delta_channel_history`."""
        if self.async_via_threads:
            return await asyncio.to_thread(
                self.get_delta_channel_history, config=config, channels=channels
            )
        await asyncio.to_thread(self._check_owner, config)
        return await self.inner.aget_delta_channel_history(config=config, channels=channels)

    async def adelete_user(self, user_id: str) -> list[str]:
        """Async :meth:`delete_user`."""
        if self.async_via_threads:
            return await asyncio.to_thread(self.delete_user, user_id)
        threads = await asyncio.to_thread(self.ownership.threads, user_arg(user_id, "delete_user"))
        for thread_id in threads:
            await self.adelete_thread(thread_id)
        self.last_erasure = await asyncio.to_thread(self.erase_deleted)
        return threads


class PruningOwnedCheckpointSaver(OwnedCheckpointSaver):
    """The wrapper for savers that also implement ``prune`` (e.g. ``PostgresSaver``)."""

    def prune(
        self,
        thread_ids: Sequence[str],
        *,
        strategy: str = "keep_latest",
    ) -> None:
        """Forwarded unchanged."""
        self.inner.prune(thread_ids, strategy=strategy)

    async def aprune(
        self,
        thread_ids: Sequence[str],
        *,
        strategy: str = "keep_latest",
    ) -> None:
        """Async :meth:`prune`."""
        if self.async_via_threads:
            await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)
            return
        await self.inner.aprune(thread_ids, strategy=strategy)


__all__ = ["OwnedCheckpointSaver", "PruningOwnedCheckpointSaver"]
