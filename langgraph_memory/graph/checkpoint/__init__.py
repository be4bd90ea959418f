"""Checkpointers that own their threads: tenant-checked ``get``/``list``/``put``, PII redaction at
rest, and erasure of a user's threads.

Modules (the names callers outside this package need are re-exported here):

* :mod:`.factory` — :func:`create_checkpointer` / :func:`checkpointer` (open a SQLite,
  PostgreSQL or in-memory saver with ownership, erasure and redaction) and
  :func:`wrap_checkpointer` (wrap a saver you built).
* :mod:`.saver` — :class:`OwnedCheckpointSaver`, the wrapper graphs use (stateful); the read
  rules are in its module docstring. Its async twins live here.
* :mod:`.owned` — its sync half: owner checks, redaction of what is stored, forget-user.
* :mod:`.ownership` — where ``thread_id -> user_id`` is kept (dict, SQLite table, PostgreSQL
  table).
* :mod:`.capabilities` — sync-only / ``prune`` detection from the methods a saver implements
  (pure).
* :mod:`.serde` — the package's own types on the msgpack allowlist (pure registration).
* :mod:`.erasure` — making deleted rows unreadable in the storage's files.
* :mod:`._runconfig` — reading the run's user and thread from a ``RunnableConfig`` (pure).
"""

from .factory import CheckpointerKind, checkpointer, wrap_checkpointer
from .factory import create_checkpointer as create_checkpointer  # exported from the root
from .ownership import (
    MemoryThreadOwnership,
    PostgresThreadOwnership,
    SqliteThreadOwnership,
    ThreadOwnership,
)
from .saver import OwnedCheckpointSaver
from .serde import SERDE_TYPES

__all__ = [
    "SERDE_TYPES",
    "CheckpointerKind",
    "MemoryThreadOwnership",
    "OwnedCheckpointSaver",
    "PostgresThreadOwnership",
    "SqliteThreadOwnership",
    "ThreadOwnership",
    "checkpointer",
    "wrap_checkpointer",
]
