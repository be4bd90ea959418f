"""Building owned checkpointers: :func:`create_checkpointer` opens a SQLite, PostgreSQL or
in-memory saver with its ownership table, erasure and redaction; :func:`wrap_checkpointer` wraps
a saver you built yourself, picking the wrapper class from what the saver implements.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from ...errors import ConfigError
from ...write.message_redaction import CheckpointRedactor, text_redactor
from .capabilities import is_sync_only, overrides
from .erasure import CheckpointErasure, MemoryErasure, PostgresErasure, SqliteErasure
from .ownership import (
    MemoryThreadOwnership,
    PostgresThreadOwnership,
    SqliteThreadOwnership,
    ThreadOwnership,
)
from .saver import OwnedCheckpointSaver, PruningOwnedCheckpointSaver

if TYPE_CHECKING:
    from ...core.redact import Redactor

CheckpointerKind = Literal["sqlite", "postgres", "memory"]


def wrap_checkpointer(
    inner: BaseCheckpointSaver[Any],
    ownership: ThreadOwnership | None = None,
    *,
    async_via_threads: bool | None = None,
    closer: Callable[[], None] | None = None,
    redact: bool | Redactor | CheckpointRedactor = False,
    erasure: CheckpointErasure | None = None,
) -> OwnedCheckpointSaver:
    """Wrap any saver in the ownership-recording wrapper, exposing exactly the optional
    capabilities (``prune``) the wrapped saver implements. With ``async_via_threads=None``
    the async API runs the sync methods in a worker thread when the saver does not implement
    every async method itself (:func:`~langgraph_memory.graph.checkpoint.capabilities.is_sync_only`:
    a ``SqliteSaver`` subclass is sync-only, an ``AsyncSqliteSaver`` subclass is not).
    ``redact``: as for :func:`create_checkpointer`, but off by default (a saver you wrap
    yourself stores what it is given unless you ask). ``erasure``: how deleted rows are
    erased from its files (see :mod:`langgraph_memory.graph.checkpoint.erasure`; ``None``:
    rows are deleted only)."""
    sync_only = is_sync_only(inner) if async_via_threads is None else async_via_threads
    prunes = overrides(inner, "prune" if sync_only else "aprune")
    cls = PruningOwnedCheckpointSaver if prunes else OwnedCheckpointSaver
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
    written. Pass a :class:`~langgraph_memory.core.redact.Redactor` (e.g.
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
        pool: ConnectionPool[Any] = ConnectionPool(
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
    kind: CheckpointerKind = "sqlite",
    *,
    path: str | os.PathLike[str] | None = None,
    dsn: str | None = None,
    pool_size: int = 4,
    redact: bool | Redactor | CheckpointRedactor = True,
) -> Iterator[OwnedCheckpointSaver]:
    """``with checkpointer("sqlite", path=...) as cp:`` — :func:`create_checkpointer` (same
    arguments), closed on exit."""
    saver = create_checkpointer(kind, path=path, dsn=dsn, pool_size=pool_size, redact=redact)
    try:
        yield saver
    finally:
        saver.close()


__all__ = ["CheckpointerKind", "checkpointer", "create_checkpointer", "wrap_checkpointer"]
