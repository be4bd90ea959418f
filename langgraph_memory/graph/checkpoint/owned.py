"""Checkpointers that remember which user owns each thread.

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
import logging
import os
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.memory import InMemorySaver

from ...core.logsafe import get_logger
from ...errors import ConfigError, ScopeError
from ...write.message_redaction import CheckpointRedactor, text_redactor
from .erasure import (
    CheckpointErasure,
    MemoryErasure,
    PostgresErasure,
    SqliteErasure,
)

if TYPE_CHECKING:
    from ...write.redact import Redactor

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


def _with_own_types(saver: BaseCheckpointSaver[Any]) -> BaseCheckpointSaver[Any]:
    """``saver`` with :data:`SERDE_TYPES` on its msgpack allowlist (``saver`` itself when
    its serializer allows every type, the default, or has no allowlist support)."""
    try:
        return saver.with_allowlist(SERDE_TYPES)
    except Exception:  # a saver without allowlist support: nothing to register
        return saver


try:  # the key under which LangGraph puts the run's Runtime into the config
    from langgraph._internal._constants import CONFIG_KEY_RUNTIME
except ImportError:  # pragma: no cover - older/newer layouts
    CONFIG_KEY_RUNTIME = "__pregel_runtime"

log = get_logger("checkpoint")

CheckpointerKind = Literal["sqlite", "postgres", "memory"]

_OWNERS_TABLE = "lgm_thread_owners"


def _now() -> str:
    return datetime.now(UTC).isoformat()


# ---------------------------------------------------------------------------- ownership tables
class ThreadOwnership(ABC):
    """Where ``thread_id -> user_id`` is kept. Implementations are thread-safe."""

    @abstractmethod
    def owner(self, thread_id: str) -> str | None:
        """The user owning ``thread_id``, or ``None`` if the thread is unknown."""

    @abstractmethod
    def _insert(self, thread_id: str, user_id: str) -> str:
        """Insert the row unless one exists; return the owner stored afterwards."""

    @abstractmethod
    def threads(self, user_id: str) -> list[str]:
        """Every thread id owned by ``user_id`` (sorted)."""

    @abstractmethod
    def forget_thread(self, thread_id: str) -> None:
        """Remove the ownership row of ``thread_id`` (no error if absent)."""

    def assign(self, thread_id: str, user_id: str) -> None:
        """Record that ``thread_id`` belongs to ``user_id``.

        Idempotent for the same owner; raises :class:`ScopeError` if the thread already belongs
        to another user (the other user's id is not revealed).
        """
        if not thread_id or not user_id:
            raise ScopeError("assigning a thread needs a thread_id and a user_id")
        stored = self._insert(str(thread_id), str(user_id))
        if stored != user_id:
            raise ScopeError(
                f"thread {thread_id!r} belongs to another user; a thread can only be used by "
                "the user it was created for (start a new thread_id for this user)"
            )

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (no-op by default)."""


class MemoryThreadOwnership(ThreadOwnership):
    """Ownership kept in a dict (for the in-memory saver and tests)."""

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}
        self._lock = threading.Lock()

    def owner(self, thread_id: str) -> str | None:
        return self._owners.get(thread_id)

    def _insert(self, thread_id: str, user_id: str) -> str:
        with self._lock:
            return self._owners.setdefault(thread_id, user_id)

    def threads(self, user_id: str) -> list[str]:
        with self._lock:
            return sorted(t for t, u in self._owners.items() if u == user_id)

    def forget_thread(self, thread_id: str) -> None:
        with self._lock:
            self._owners.pop(thread_id, None)


class SqliteThreadOwnership(ThreadOwnership):
    """Ownership kept in a table of the checkpoint SQLite database (shares its lock)."""

    def __init__(self, conn: sqlite3.Connection, lock: Any) -> None:
        self._conn = conn
        self._lock = lock
        with self._lock:
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS {_OWNERS_TABLE} ("
                "thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at TEXT NOT NULL)"
            )
            self._conn.execute(
                f"CREATE INDEX IF NOT EXISTS {_OWNERS_TABLE}_user ON {_OWNERS_TABLE}(user_id)"
            )
            self._conn.commit()

    def owner(self, thread_id: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT user_id FROM {_OWNERS_TABLE} WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def _insert(self, thread_id: str, user_id: str) -> str:
        with self._lock:
            self._conn.execute(
                f"INSERT OR IGNORE INTO {_OWNERS_TABLE} (thread_id, user_id, created_at) "
                "VALUES (?, ?, ?)",
                (thread_id, user_id, _now()),
            )
            self._conn.commit()
            row = self._conn.execute(
                f"SELECT user_id FROM {_OWNERS_TABLE} WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return str(row[0])

    def threads(self, user_id: str) -> list[str]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT thread_id FROM {_OWNERS_TABLE} WHERE user_id = ? ORDER BY thread_id",
                (user_id,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def forget_thread(self, thread_id: str) -> None:
        with self._lock:
            self._conn.execute(f"DELETE FROM {_OWNERS_TABLE} WHERE thread_id = ?", (thread_id,))
            self._conn.commit()


class PostgresThreadOwnership(ThreadOwnership):
    """Ownership kept in a table of the checkpoint PostgreSQL database."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        with self._pool.connection() as conn:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {_OWNERS_TABLE} ("
                "thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, "
                "created_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS {_OWNERS_TABLE}_user ON {_OWNERS_TABLE}(user_id)"
            )

    def _one(self, sql: str, params: Sequence[Any]) -> Any:
        with self._pool.connection() as conn:
            row = conn.execute(sql, params).fetchone()
        if row is None:
            return None
        return row["user_id"] if isinstance(row, Mapping) else row[0]

    def owner(self, thread_id: str) -> str | None:
        value = self._one(f"SELECT user_id FROM {_OWNERS_TABLE} WHERE thread_id = %s", (thread_id,))
        return None if value is None else str(value)

    def _insert(self, thread_id: str, user_id: str) -> str:
        with self._pool.connection() as conn:
            conn.execute(
                f"INSERT INTO {_OWNERS_TABLE} (thread_id, user_id) VALUES (%s, %s) "
                "ON CONFLICT (thread_id) DO NOTHING",
                (thread_id, user_id),
            )
        return str(self.owner(thread_id))

    def threads(self, user_id: str) -> list[str]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT thread_id FROM {_OWNERS_TABLE} WHERE user_id = %s ORDER BY thread_id",
                (user_id,),
            ).fetchall()
        return [str(r["thread_id"] if isinstance(r, Mapping) else r[0]) for r in rows]

    def forget_thread(self, thread_id: str) -> None:
        with self._pool.connection() as conn:
            conn.execute(f"DELETE FROM {_OWNERS_TABLE} WHERE thread_id = %s", (thread_id,))


# ---------------------------------------------------------------------------- the wrapper
def _user_value(value: Any) -> str | None:
    """A config's ``user_id`` value: ``None`` when absent/empty; never rewritten (an id with
    surrounding whitespace is refused, so ``" alice"`` cannot alias ``"alice"``)."""
    if not isinstance(value, str) or not value.strip():
        return None
    if value != value.strip():
        raise ScopeError(f"user_id {value!r} has leading or trailing whitespace; pass it exactly")
    return value


def _user_arg(user_id: Any, what: str) -> str:
    """A ``user_id`` argument of an admin call: a non-empty string, exactly as stored."""
    value = _user_value(user_id)
    if value is None:
        raise ScopeError(f"{what} needs a non-empty user_id")
    return value


def _run_user_id(config: RunnableConfig | None) -> str | None:
    """The ``user_id`` of the run that produced ``config``: the runtime context first, then
    ``configurable["user_id"]`` / ``metadata["user_id"]``. ``None`` when none is named."""
    if not config:
        return None
    configurable = config.get("configurable") or {}
    runtime = configurable.get(CONFIG_KEY_RUNTIME)
    context = getattr(runtime, "context", None)
    if context is not None:
        value = _user_value(
            context.get("user_id")
            if isinstance(context, Mapping)
            else getattr(context, "user_id", None)
        )
        if value is not None:
            return value
    for source in (configurable, config.get("metadata") or {}):
        value = _user_value(source.get("user_id"))
        if value is not None:
            return value
    return None


_NO_USER_HINT = (
    "pass the owner's user_id in config['configurable']['user_id'] (or the run's context=); "
    "admin code that must read every thread uses checkpointer.unscoped()"
)


def _thread_configs(
    config: RunnableConfig | None, threads: Sequence[str]
) -> builtins.list[RunnableConfig]:
    """One listing config per thread, keeping the caller's ``checkpoint_ns`` if it gave one."""
    namespace = (config or {}).get("configurable", {}).get("checkpoint_ns")
    out: builtins.list[RunnableConfig] = []
    for thread_id in threads:
        conf: dict[str, Any] = {"thread_id": thread_id}
        if namespace is not None:
            conf["checkpoint_ns"] = namespace
        out.append({"configurable": conf})
    return out


def _thread_id(config: RunnableConfig | None) -> str | None:
    if not config:
        return None
    value = (config.get("configurable") or {}).get("thread_id")
    return None if value is None else str(value)


class OwnedCheckpointSaver(BaseCheckpointSaver[Any]):
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
    """

    def __init__(
        self,
        inner: BaseCheckpointSaver[Any],
        ownership: ThreadOwnership | None = None,
        *,
        async_via_threads: bool | None = None,
        closer: Any = None,
        scoped: bool = True,
        redactor: CheckpointRedactor | None = None,
        erasure: CheckpointErasure | None = None,
    ) -> None:
        # Do not call super().__init__: serde is the inner saver's (see the property).
        self.inner = _with_own_types(inner)
        self.ownership = ownership or MemoryThreadOwnership()
        if async_via_threads is None:
            async_via_threads = _is_sync_only(inner)
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
    def serde(self) -> Any:
        """The wrapped saver's serializer."""
        return self.inner.serde

    @serde.setter
    def serde(self, value: Any) -> None:
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

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> OwnedCheckpointSaver:
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

    def unscoped(self) -> OwnedCheckpointSaver:
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
        thread_id = _thread_id(config)
        user_id = _run_user_id(config)
        if thread_id is not None and user_id is not None:
            self.ownership.assign(thread_id, user_id)

    def _check_owner(self, config: RunnableConfig | None) -> None:
        """Refuse a read of an owned thread by another user, or (scoped) by no named user."""
        thread_id = _thread_id(config)
        if thread_id is None:
            return
        user_id = _run_user_id(config)
        if user_id is None and not self.scoped:
            return
        owner = self.ownership.owner(thread_id)
        if owner is None:
            return
        if user_id is None:
            raise ScopeError(
                f"reading thread {thread_id!r} needs the user_id of its owner; {_NO_USER_HINT}"
            )
        if owner != user_id:
            raise ScopeError(
                f"thread {thread_id!r} belongs to another user; a thread can only be used by "
                "the user it was created for (start a new thread_id for this user)"
            )

    def _owned_threads(self, config: RunnableConfig | None) -> builtins.list[str] | None:
        """For a listing without ``thread_id``: the threads it may cover (``None``: all, for
        an unscoped view). Raises :class:`ScopeError` when a scoped listing names no user."""
        user_id = _run_user_id(config)
        if user_id is None:
            if not self.scoped:
                return None
            raise ScopeError(f"listing checkpoints across threads needs a user_id; {_NO_USER_HINT}")
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
        for conf in _thread_configs(config, threads):
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
        threads = self.ownership.threads(_user_arg(user_id, "delete_user"))
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

    async def adelete_user(self, user_id: str) -> list[str]:
        """Async :meth:`delete_user`."""
        if self.async_via_threads:
            return await asyncio.to_thread(self.delete_user, user_id)
        threads = await asyncio.to_thread(self.ownership.threads, _user_arg(user_id, "delete_user"))
        for thread_id in threads:
            await self.adelete_thread(thread_id)
        self.last_erasure = await asyncio.to_thread(self.erase_deleted)
        return threads

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
        if _thread_id(config) is not None:
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

    def get_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Any:
        """Forwarded after the owner check of :meth:`get_tuple`."""
        self._check_owner(config)
        return self.inner.get_delta_channel_history(config=config, channels=channels)

    # ------------------------------------------------------------------ async API
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
        if _thread_id(config) is not None:
            await asyncio.to_thread(self._check_owner, config)
            threads: builtins.list[str] | None = None
        else:
            threads = await asyncio.to_thread(self._owned_threads, config)
        if threads is None:
            async for item in self.inner.alist(config, filter=filter, before=before, limit=limit):
                yield item
            return
        left = limit
        for conf in _thread_configs(config, threads):
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
    ) -> Any:
        """Async :meth:`get_delta_channel_history`."""
        if self.async_via_threads:
            return await asyncio.to_thread(
                self.get_delta_channel_history, config=config, channels=channels
            )
        await asyncio.to_thread(self._check_owner, config)
        return await self.inner.aget_delta_channel_history(config=config, channels=channels)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the connection/pool this checkpointer opened (no-op for wrapped savers)."""
        closer, self._closer = self._closer, None
        if closer is not None:
            closer()

    def __enter__(self) -> OwnedCheckpointSaver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _PruningOwnedCheckpointSaver(OwnedCheckpointSaver):
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


def _overrides(saver: BaseCheckpointSaver[Any], method: str) -> bool:
    return getattr(type(saver), method, None) is not getattr(BaseCheckpointSaver, method, None)


_SYNC_ONLY_ASYNC_STUBS = {
    ("langgraph.checkpoint.sqlite", "SqliteSaver"),
    ("langgraph.checkpoint.postgres", "PostgresSaver"),
    ("langgraph.checkpoint.postgres.shallow", "ShallowPostgresSaver"),
}
"""Classes whose ``aget_tuple`` is a "not supported, use the async class" stub."""


def _is_sync_only(saver: BaseCheckpointSaver[Any]) -> bool:
    """True when the saver has no working async methods: the ``aget_tuple`` it inherits is
    ``BaseCheckpointSaver``'s ``NotImplementedError`` one or a sync saver's stub. Decided by
    where the method is defined, not by the class name, so a subclass of ``SqliteSaver`` is
    sync-only unless it implements ``aget_tuple`` itself."""
    for klass in type(saver).__mro__:
        if "aget_tuple" in vars(klass):
            return klass is BaseCheckpointSaver or (
                (klass.__module__, klass.__qualname__) in _SYNC_ONLY_ASYNC_STUBS
            )
    return True


def wrap_checkpointer(
    inner: BaseCheckpointSaver[Any],
    ownership: ThreadOwnership | None = None,
    *,
    async_via_threads: bool | None = None,
    closer: Any = None,
    redact: bool | Redactor | CheckpointRedactor = False,
    erasure: CheckpointErasure | None = None,
) -> OwnedCheckpointSaver:
    """Wrap any saver in the ownership-recording wrapper, exposing exactly the optional
    capabilities (``prune``) the wrapped saver implements. ``redact``: as for
    :func:`create_checkpointer`, but off by default (a saver you wrap yourself stores what
    it is given unless you ask). ``erasure``: how deleted rows are erased from its files
    (see :mod:`langgraph_memory.graph.checkpoint.erasure`; ``None``: rows are deleted only)."""
    sync_only = _is_sync_only(inner) if async_via_threads is None else async_via_threads
    prunes = _overrides(inner, "prune" if sync_only else "aprune")
    cls = _PruningOwnedCheckpointSaver if prunes else OwnedCheckpointSaver
    return cls(
        inner,
        ownership,
        async_via_threads=sync_only,
        closer=closer,
        redactor=_checkpoint_redactor(redact),
        erasure=erasure,
    )


def _checkpoint_redactor(
    redact: bool | Redactor | CheckpointRedactor,
) -> CheckpointRedactor | None:
    if isinstance(redact, CheckpointRedactor):
        return redact
    text = text_redactor(redact)
    return None if text is None else CheckpointRedactor(text)


def create_checkpointer(
    kind: CheckpointerKind = "sqlite",
    *,
    path: str | os.PathLike[str] | None = None,
    dsn: str | None = None,
    pool_size: int = 4,
    redact: bool | Redactor | CheckpointRedactor = True,
) -> OwnedCheckpointSaver:
    """Create a checkpointer that records thread ownership and redacts PII before storing.

    * ``"sqlite"`` (default): a SQLite file at ``path`` (default ``./checkpoints.sqlite``;
      ``":memory:"`` works), via ``langgraph-checkpoint-sqlite``.
    * ``"postgres"``: PostgreSQL at ``dsn`` (or ``$LGM_POSTGRES_DSN``) through a connection pool,
      via ``langgraph-checkpoint-postgres`` (``pip install langgraph-memory[postgres]``). Tables
      are created if missing.
    * ``"memory"``: in-process, for tests.

    ``redact`` (default ``True``): PII in stored messages (text and tool-call arguments), in
    the working-memory text fields and in pending writes is replaced with the write path's
    default policy (``WriteConfig().pii_policy``: ``[PHONE]``, ``[EMAIL]``, ...) before it is
    written. Pass a :class:`~langgraph_memory.write.redact.Redactor` (e.g.
    ``pipeline.redactor``) to use a custom policy, a
    :class:`~langgraph_memory.write.message_redaction.CheckpointRedactor` for other channel names,
    or
    ``False`` to store the conversation as it was said. Later turns and resumed runs read the
    redacted history, so the model sees ``[EMAIL]`` where the user once typed an address; a
    graph that interrupts before a tool call and needs the raw arguments on resume must keep
    them outside the messages or opt out.

    The result works with both ``graph.invoke`` and ``graph.ainvoke``. Close it when done
    (``close()`` or ``with``).
    """
    redactor = _checkpoint_redactor(redact)  # a bad value fails before anything is opened
    if kind == "memory":
        return wrap_checkpointer(
            InMemorySaver(),
            MemoryThreadOwnership(),
            redact=redactor or False,
            erasure=MemoryErasure(),
        )
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        target = os.fspath(path) if path is not None else "checkpoints.sqlite"
        conn = sqlite3.connect(target, check_same_thread=False)
        saver = SqliteSaver(conn)
        saver.setup()
        ownership = SqliteThreadOwnership(conn, saver.lock)
        erasure = SqliteErasure(conn, saver.lock, target)
        return wrap_checkpointer(
            saver,
            ownership,
            async_via_threads=True,
            closer=conn.close,
            redact=redactor or False,
            erasure=erasure,
        )
    if kind == "postgres":
        dsn = dsn or os.environ.get("LGM_POSTGRES_DSN")
        if not dsn:
            raise ConfigError(
                "create_checkpointer('postgres') needs dsn=... (or $LGM_POSTGRES_DSN), e.g. "
                "'postgresql://user:pass@localhost:5432/db'"
            )
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise ConfigError(
                "the postgres checkpointer needs the extra: "
                "pip install 'langgraph-memory[postgres]'"
            ) from exc
        pool: Any = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            open=True,
        )
        try:
            pg_saver = PostgresSaver(pool)
            pg_saver.setup()
            pg_ownership = PostgresThreadOwnership(pool)
        except Exception:
            pool.close()
            raise
        return wrap_checkpointer(
            pg_saver,
            pg_ownership,
            async_via_threads=True,
            closer=pool.close,
            redact=redactor or False,
            erasure=PostgresErasure(pool),
        )
    raise ConfigError(f"checkpointer kind must be 'sqlite', 'postgres' or 'memory', got {kind!r}")


@contextmanager
def checkpointer(
    kind: CheckpointerKind = "sqlite", **kwargs: Any
) -> Iterator[OwnedCheckpointSaver]:
    """``with checkpointer("sqlite", path=...) as cp:`` — :func:`create_checkpointer`, closed
    on exit."""
    saver = create_checkpointer(kind, **kwargs)
    try:
        yield saver
    finally:
        saver.close()


__all__ = [
    "SERDE_TYPES",
    "CheckpointerKind",
    "MemoryThreadOwnership",
    "OwnedCheckpointSaver",
    "PostgresThreadOwnership",
    "SqliteThreadOwnership",
    "ThreadOwnership",
    "checkpointer",
    "create_checkpointer",
    "wrap_checkpointer",
]
