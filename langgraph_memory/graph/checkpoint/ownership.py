"""Where ``thread_id -> user_id`` is kept: a dict, a table in the checkpoint SQLite file, or a
table in the checkpoint PostgreSQL database (stateful; every implementation is thread-safe)."""

from __future__ import annotations

import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ...errors import ScopeError

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

_OWNERS_TABLE = "lgm_thread_owners"


def _now() -> str:
    return datetime.now(UTC).isoformat()


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

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock) -> None:
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

    def __init__(self, pool: ConnectionPool[Any]) -> None:
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


__all__ = [
    "MemoryThreadOwnership",
    "PostgresThreadOwnership",
    "SqliteThreadOwnership",
    "ThreadOwnership",
]
