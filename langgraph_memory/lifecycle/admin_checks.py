"""Checks the admin commands run on their arguments before they open anything.

An operator who mistypes a path must hear so: every check here raises :class:`AdminRefusal`
(a :class:`~langgraph_memory.errors.ConfigError`) with a message naming the option, and none of
them creates, opens for writing or changes anything. Without these checks the stores would
create what is missing (an empty store directory, an empty SQLite file) and report zero.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = [
    "AdminRefusal",
    "check_audit_log",
    "check_audit_log_target",
    "check_checkpoints_file",
    "check_collection",
    "check_handles_dir",
    "check_postgres",
    "check_store_dir",
]

SQLITE_MAGIC = b"SQLite format 3\x00"
CHECKPOINT_TABLE = "checkpoints"
OWNERS_TABLE = "lgm_thread_owners"

NO_STORE = (
    "no memory store at {path}: the directory does not exist (check --path; nothing was created)"
)
NOT_A_STORE = (
    "{path} is not a langgraph-memory store: it has no {meta} (check --path; nothing was changed)"
)
NO_CHECKPOINTS = "no checkpoint file at {path} (check --checkpoints; nothing was created)"
NOT_SQLITE = "{path} is not a SQLite database (check --checkpoints)"
NOT_CHECKPOINTS = "{path} holds no LangGraph checkpoints (no {table!r} table; check --checkpoints)"
NO_OWNERS = (
    "{what} has no thread-ownership table ({table!r}): its threads were not written through "
    "create_checkpointer, so they cannot be found by user"
)
NO_HANDLES = "no handle directory at {path} (check --handles; nothing was created)"
NO_AUDIT_LOG = "no audit log at {path} (check --audit-log)"
NO_AUDIT_DIR = "the directory of --audit-log {path} does not exist (nothing was created)"
NO_COLLECTION = "no collection {collection!r} on the Qdrant server (check --collection / --url)"
NO_SERVER = "cannot reach the Qdrant server at --url ({error})"
NO_POSTGRES = "cannot read the PostgreSQL checkpointer at --postgres-dsn ({error})"


class AdminRefusal(ConfigError):
    """An admin command refused its arguments; nothing was created or changed."""


def check_store_dir(path: str | os.PathLike[str], meta_file: str) -> Path:
    """``path`` is an existing embedded store: a directory holding ``meta_file``."""
    folder = Path(path)
    if not folder.exists():
        raise AdminRefusal(NO_STORE.format(path=folder))
    if not folder.is_dir() or not (folder / meta_file).is_file():
        raise AdminRefusal(NOT_A_STORE.format(path=folder, meta=meta_file))
    return folder


def check_collection(client: Any, collection: str) -> None:
    """The Qdrant server behind ``client`` answers and has ``collection``."""
    try:
        exists = bool(client.collection_exists(collection))
    except Exception as exc:  # connection refused, auth, DNS: say so without a traceback
        raise AdminRefusal(NO_SERVER.format(error=type(exc).__name__)) from exc
    if not exists:
        raise AdminRefusal(NO_COLLECTION.format(collection=collection))


def check_checkpoints_file(path: str | os.PathLike[str]) -> Path:
    """``path`` is an existing SQLite file with LangGraph checkpoints and the ownership table
    of :func:`~langgraph_memory.graph.checkpoint.create_checkpointer` (read-only check)."""
    file = Path(path)
    if not file.is_file():
        raise AdminRefusal(NO_CHECKPOINTS.format(path=file))
    with open(file, "rb") as fh:
        if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise AdminRefusal(NOT_SQLITE.format(path=file))
    conn = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise AdminRefusal(NOT_SQLITE.format(path=file)) from exc
    finally:
        conn.close()
    if CHECKPOINT_TABLE not in tables:
        raise AdminRefusal(NOT_CHECKPOINTS.format(path=file, table=CHECKPOINT_TABLE))
    if OWNERS_TABLE not in tables:
        raise AdminRefusal(NO_OWNERS.format(what=file, table=OWNERS_TABLE))
    return file


def check_postgres(dsn: str) -> None:
    """The PostgreSQL database at ``dsn`` answers and has the ownership table (the DSN is
    never echoed: it may hold a password)."""
    try:
        import psycopg

        with psycopg.connect(dsn, connect_timeout=10) as conn:
            row = conn.execute("SELECT to_regclass(%s)", (OWNERS_TABLE,)).fetchone()
    except Exception as exc:
        raise AdminRefusal(NO_POSTGRES.format(error=type(exc).__name__)) from exc
    if row is None or row[0] is None:
        raise AdminRefusal(NO_OWNERS.format(what="the --postgres-dsn database", table=OWNERS_TABLE))


def check_handles_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` is an existing directory (a persistent HandleStore)."""
    folder = Path(path)
    if not folder.is_dir():
        raise AdminRefusal(NO_HANDLES.format(path=folder))
    return folder


def check_audit_log(path: str | os.PathLike[str]) -> Path:
    """``path`` is an existing audit log file (to read)."""
    file = Path(path)
    if not file.is_file():
        raise AdminRefusal(NO_AUDIT_LOG.format(path=file))
    return file


def check_audit_log_target(path: str | os.PathLike[str]) -> Path:
    """``path`` can receive an entry: its directory exists (the file itself may be new)."""
    file = Path(path)
    if file.exists() and not file.is_file():
        raise AdminRefusal(NO_AUDIT_LOG.format(path=file))
    if not file.parent.is_dir():
        raise AdminRefusal(NO_AUDIT_DIR.format(path=file))
    return file
