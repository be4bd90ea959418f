"""LangGraph ``SqliteStore`` (sqlite-vec) as a system of the peers benchmark."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph.store.base import PutOp

from ....embeddings import Embedder
from .._common import SQLS
from ..embedding import langchain_embeddings
from .base import System

SQLITE_NO_EXTENSIONS = (
    "this Python's sqlite3 cannot load extensions (sqlite-vec) and pysqlite3 is not installed "
    "(pip install pysqlite3-binary sqlite-vec)"
)


class SqliteStoreSystem(System):
    """LangGraph ``SqliteStore(conn, index={"embed": ..., "dims": ..., "fields": ["text"]})``
    over a file (vectors in sqlite-vec); one namespace ``(user, "memories")`` per user. The
    connection comes from ``pysqlite3`` when the interpreter's ``sqlite3`` cannot load
    extensions (as here: CPython built without them)."""

    name = SQLS

    def __init__(self, embedder: Embedder, root: Path) -> None:
        import sqlite3

        from langgraph.store.sqlite import SqliteStore

        driver: Any = sqlite3
        if not hasattr(sqlite3.Connection, "enable_load_extension"):
            try:
                import pysqlite3  # type: ignore[import-not-found]
            except ImportError as exc:
                raise RuntimeError(SQLITE_NO_EXTENSIONS) from exc
            driver = pysqlite3
        conn = driver.connect(
            str(root / f"sqlite-{uuid.uuid4().hex[:8]}.db"),
            check_same_thread=False,
            isolation_level=None,
        )
        self.store = SqliteStore(
            conn,
            index={
                "embed": langchain_embeddings(embedder),
                "dims": int(embedder.dims),
                "fields": ["text"],
            },
        )
        self.store.setup()
        self.has_batch = True

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        self.store.batch([PutOp((user, "memories"), key, {"text": text}) for key, text, _ in items])

    def add_one(self, user: str, key: str, text: str) -> None:
        self.store.put((user, "memories"), key, {"text": text})

    def search(self, user: str, query: str, k: int) -> list[str]:
        return [item.key for item in self.store.search((user, "memories"), query=query, limit=k)]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.store.conn.close()
