"""How each checkpointer kind makes deleted checkpoints unreadable on disk.

Deleting a thread's rows is not erasing them: SQLite keeps deleted cells in free pages unless
``secure_delete`` is on (upstream's default is off; some builds turn it on), and keeps old
page images in its ``-wal`` file until a checkpoint; PostgreSQL keeps dead tuples in the
table's pages until they are reused. :class:`OwnedCheckpointSaver.delete_user` therefore ends
with :meth:`CheckpointErasure.erase`:

* :class:`SqliteErasure`: ``PRAGMA secure_delete=ON`` on the connection from the start (every
  delete zeroes the cells), then ``VACUUM`` (the file is rebuilt: no free page is left) with
  ``temp_store=MEMORY`` (the rebuild's temporary copy never touches the disk), then
  ``PRAGMA wal_checkpoint(TRUNCATE)`` (the ``-wal`` file, which held the old pages, is emptied).
* :class:`PostgresErasure`: ``VACUUM FULL`` of the checkpoint tables (each table and its TOAST
  table is rewritten into new files without dead tuples; it takes an exclusive lock on them
  meanwhile). The server's own WAL, replicas and backups keep what they keep, by their
  retention: they are the database operator's, not this package's files.
* :class:`MemoryErasure`: the in-memory saver has nothing on disk.
"""

from __future__ import annotations

import abc
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

POSTGRES_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "lgm_thread_owners")
"""The tables ``VACUUM FULL`` rewrites (LangGraph's checkpoint tables and the owners table)."""


class CheckpointErasure(abc.ABC):
    """Physical erasure of deleted rows for one checkpointer's storage."""

    mechanism: str

    @abc.abstractmethod
    def erase(self) -> dict[str, Any]:
        """Make rows deleted so far unreadable in the storage's files; returns a report
        (``mechanism``, ``seconds`` and what was checked)."""

    @abc.abstractmethod
    def paths(self) -> list[Path] | None:
        """The files this package manages for the storage (``[]``: nothing on disk;
        ``None``: a server's files, not readable here)."""


class MemoryErasure(CheckpointErasure):
    """The in-memory saver: deleted is gone."""

    mechanism = "in memory"

    def erase(self) -> dict[str, Any]:
        return {"mechanism": self.mechanism, "seconds": 0.0}

    def paths(self) -> list[Path]:
        return []


class SqliteErasure(CheckpointErasure):
    """``secure_delete`` + ``VACUUM`` + WAL truncation for a SQLite checkpoint file."""

    mechanism = "sqlite secure_delete + VACUUM + wal_checkpoint(TRUNCATE)"

    def __init__(
        self, conn: sqlite3.Connection, lock: threading.Lock | None, path: str | os.PathLike[str]
    ) -> None:
        self._conn = conn
        self._lock = lock if lock is not None else threading.Lock()
        self.path = os.fspath(path)
        with self._lock:
            conn.execute("PRAGMA secure_delete=ON")
            conn.execute("PRAGMA temp_store=MEMORY")

    def erase(self) -> dict[str, Any]:
        started = time.perf_counter()
        with self._lock:
            conn = self._conn
            conn.commit()
            conn.execute("PRAGMA secure_delete=ON")  # in case someone turned it off
            conn.execute("PRAGMA temp_store=MEMORY")
            conn.execute("VACUUM")
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
        return {
            "mechanism": self.mechanism,
            "free_pages": free,
            "wal_truncated": not busy,
            "seconds": round(time.perf_counter() - started, 4),
        }

    def paths(self) -> list[Path]:
        if self.path == ":memory:" or self.path.startswith("file::memory:"):
            return []
        return [Path(self.path + suffix) for suffix in ("", "-wal", "-shm", "-journal")]


class PostgresErasure(CheckpointErasure):
    """``VACUUM FULL`` of the checkpoint tables of a PostgreSQL database."""

    mechanism = "postgres VACUUM FULL " + ", ".join(POSTGRES_TABLES)

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool

    def erase(self) -> dict[str, Any]:
        started = time.perf_counter()
        with self._pool.connection() as conn:  # autocommit: VACUUM cannot run in a transaction
            conn.execute(f"VACUUM (FULL) {', '.join(POSTGRES_TABLES)}")
        return {
            "mechanism": self.mechanism,
            "note": "the server's WAL, replicas and backups follow their own retention",
            "seconds": round(time.perf_counter() - started, 4),
        }

    def paths(self) -> None:
        return None


__all__ = [
    "POSTGRES_TABLES",
    "CheckpointErasure",
    "MemoryErasure",
    "PostgresErasure",
    "SqliteErasure",
]
