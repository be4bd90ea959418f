"""Forget a user: delete everything kept about them, erase it from the files, and prove it.

:func:`forget_user` is the one call (the ``langgraph-memory forget`` command and
:meth:`MemoryStore.forget_user` run it). It

1. notes, before deleting anything, the byte strings that only the user's data contains
   (:class:`~langgraph_memory.lifecycle.erasure.artifacts.ForgetNeedles`: ids of the user's
   records, checkpoints and handles, and the user id as the stores serialize it);
2. purges the background writer (queued turns dropped, a turn in flight waited for, the journal
   rewritten without the user's lines);
3. erases the memory records (the embedded engine's shard is rewritten without them, see
   :meth:`~langgraph_memory.store.edge.EdgeBackend.vacuum`), the checkpointed threads (SQLite
   ``secure_delete`` + ``VACUUM`` + WAL truncation, PostgreSQL ``VACUUM FULL``) and the handle
   files; the audit log keeps ids and counts under a keyed hash of the user id;
4. checks: the logical counts of :func:`verify_forgotten` and a scan of every byte of every file
   those stores keep (engine pages decompressed), per artifact.

The receipt (:class:`ForgetReceipt`) reports both; ``residue`` is all zeros (``None`` where an
artifact has no files this package can read, e.g. a Qdrant or PostgreSQL server) when nothing
of the user is left. The stores are typed by what forget needs of them
(:mod:`langgraph_memory.lifecycle.forget_targets`), so this module imports neither the store
nor the graph package.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from ..core.logsafe import get_logger
from ..core.scope import Scope
from ..errors import ScopeError
from .audit import AuditLog
from .erasure import ArtifactScan
from .erasure.artifacts import FILE_KEYS, ForgetNeedles, collect_needles, scan_files
from .forget_targets import (
    MemoryArg,
    OwnedThreads,
    UserHandles,
    UserJournal,
    UserMemory,
    memory_of,
)

log = get_logger("lifecycle")

LOGICAL_KEYS = ("records", "keyword_index", "threads", "handles", "queued_turns")
"""Residue counted through the stores' own APIs."""


class ForgetReceipt(TypedDict):
    """What :func:`forget_user` returns (a plain dict, JSON-serialisable, keys in this
    order): what was deleted, how it was erased, and what is left."""

    user_id: str
    records: int
    """Memory records deleted (every project, status and acl; write ledger included)."""
    queued_turns: int
    """Unprocessed background turns dropped."""
    journal_lines: int
    """Journal lines of the user removed from the file."""
    threads: list[str] | None
    """Threads deleted; ``None`` when the checkpointer does not record owners."""
    handles: int
    """Externalized payloads deleted."""
    memory_version: int
    """The store's version after the delete (caches keyed on it drop the user's data)."""
    erasure: dict[str, Any]
    """How each store erased (``engine``, ``checkpoints``, ``audit_log``) and what it cost."""
    residue: dict[str, int | None]
    """Counts of :data:`LOGICAL_KEYS` and :data:`FILE_KEYS`; all 0 (or ``None``: not
    checked) when nothing of the user is left."""
    scan: dict[str, dict[str, Any]]
    """Per artifact of :data:`FILE_KEYS`: files and bytes read, and which files hit."""
    elapsed_s: float


def _thread_residue(
    checkpointer: BaseCheckpointSaver[Any], user_id: str, threads: Iterable[str]
) -> int:
    """Threads still owned by ``user_id``, plus those of ``threads`` that still have a
    checkpoint in any namespace."""
    left = 0
    reader = checkpointer
    if isinstance(checkpointer, OwnedThreads):
        left += len(checkpointer.threads_of(user_id))
        # an admin scan: the unscoped view reads threads without naming their owner
        reader = checkpointer.unscoped()
    for thread_id in dict.fromkeys(threads):
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        if next(iter(reader.list(config, limit=1)), None) is not None:
            left += 1
    return left


def _logical_residue(
    user: str,
    *,
    store: UserMemory | None,
    checkpointer: BaseCheckpointSaver[Any] | None,
    handle_store: UserHandles | None,
    background_writer: UserJournal | None,
    threads: Iterable[str],
) -> dict[str, int]:
    residue = dict.fromkeys(LOGICAL_KEYS, 0)
    if store is not None:
        footprint = store.user_footprint(user)
        residue["records"] = footprint["records"]
        residue["keyword_index"] = footprint["keyword_index"]
    if checkpointer is not None:
        residue["threads"] = _thread_residue(checkpointer, user, threads)
    if handle_store is not None:
        residue["handles"] = len(handle_store.handles_of(user))
    if background_writer is not None:
        residue["queued_turns"] = background_writer.queued_turns(user)
    return residue


def verify_forgotten(
    user_id: str,
    *,
    store: MemoryArg | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    handle_store: UserHandles | None = None,
    background_writer: UserJournal | None = None,
    threads: Iterable[str] = (),
    audit: AuditLog | None = None,
    needles: ForgetNeedles | None = None,
) -> dict[str, int | None]:
    """Scan every store again for anything left of ``user_id`` and count it per store::

        {"records": 0, "keyword_index": 0, "threads": 0, "handles": 0, "queued_turns": 0,
         "engine_files": 0, "checkpoint_files": 0, "handle_files": 0, "journal_file": 0,
         "audit_log": 0}

    Logical counts: ``records``: points of the user in the vector collection (every project,
    status, acl); ``keyword_index``: documents in the store's in-memory BM25 partition of the
    user; ``threads``: threads the checkpointer still lists as the user's, plus ``threads``
    (e.g. the ones just deleted) that still have checkpoints; ``handles``: externalized
    payloads of the user (memory and disk); ``queued_turns``: turns of the user still queued
    in a ``BackgroundWriter``.

    File counts (``*_files``, ``journal_file``, ``audit_log``): occurrences of the user's
    needles (:func:`collect_needles`; without ``needles`` only the serialized user id is
    known) in the raw bytes of every file of that store, the engine's LZ4 pages decompressed.
    ``None``: no such store was given, or its files are a server's (not readable here).
    All zero means nothing of the user is left."""
    return _residue(
        user_id,
        store=store,
        checkpointer=checkpointer,
        handle_store=handle_store,
        background_writer=background_writer,
        threads=threads,
        audit=audit,
        needles=needles,
    )[0]


def _residue(
    user_id: str,
    *,
    store: MemoryArg | None,
    checkpointer: BaseCheckpointSaver[Any] | None,
    handle_store: UserHandles | None,
    background_writer: UserJournal | None,
    threads: Iterable[str],
    audit: AuditLog | None,
    needles: ForgetNeedles | None,
) -> tuple[dict[str, int | None], dict[str, ArtifactScan]]:
    user = Scope(user_id=user_id).user_id
    memory = memory_of(store)
    residue: dict[str, int | None] = {
        **_logical_residue(
            user,
            store=memory,
            checkpointer=checkpointer,
            handle_store=handle_store,
            background_writer=background_writer,
            threads=threads,
        )
    }
    scans = scan_files(
        user,
        store=memory,
        checkpointer=checkpointer,
        handle_store=handle_store,
        background_writer=background_writer,
        audit=audit,
        needles=needles or collect_needles(user),
    )
    for key in FILE_KEYS:
        scan = scans.get(key)
        residue[key] = scan.hits if scan is not None and scan.scanned else None
    return residue, scans


def has_residue(residue: dict[str, int | None]) -> bool:
    """True when any count of a residue dict is above zero (``None``: not checked)."""
    return any(value for value in residue.values() if value is not None)


def forget_user(
    user_id: str,
    *,
    store: MemoryArg,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    handle_store: UserHandles | None = None,
    background_writer: UserJournal | None = None,
    audit: AuditLog | None = None,
) -> ForgetReceipt:
    """Delete and erase everything kept about ``user_id`` (see the module docstring): memory
    records (vectors, keyword index, episodes, summaries, write ledger), the threads the
    checkpointer recorded for the user, payloads compaction stored under handles, and the
    background writer's queued turns and journal lines. Returns the receipt
    (:class:`ForgetReceipt`, a plain dict)::

        {"user_id": "alice", "records": 12, "threads": ["t1", "t2"], "handles": 3,
         "queued_turns": 0, "journal_lines": 4, "memory_version": 41, "elapsed_s": 0.4,
         "erasure": {"engine": {...}, "checkpoints": {...}},
         "residue": {"records": 0, ..., "engine_files": 0, ..., "audit_log": 0},
         "scan": {"engine_files": {"files": 190, "bytes": ..., "hits": 0, ...}, ...}}

    ``residue`` is returned, not raised, so callers decide (the ``forget`` CLI exits 1 on
    residue; :func:`has_residue`). ``memory_version`` is the store's bumped version (caches
    keyed on it drop the user's data). With ``audit`` (default: the store's
    ``MemoryStore(audit=...)``, if any) a ``forget`` entry with counts only is appended,
    under the log's pseudonym of the user, and entries the log wrote with the user id in
    clear (before pseudonyms) are rewritten. With a checkpointer that does not record
    owners (a plain LangGraph saver), threads cannot be found by user: ``"threads": None``.

    While it runs, the store serves nothing else (the engine's rewrite holds its lock): on the
    embedded engine it costs one copy of every other user's records (README "Forgetting a
    user" has measurements).
    """
    if not isinstance(user_id, str) or not user_id.strip():
        raise ScopeError("forget_user needs a non-empty user_id")
    if audit is not None and not isinstance(audit, AuditLog):
        raise TypeError(f"audit must be an AuditLog, got {type(audit).__name__}")
    started = time.perf_counter()
    memory = memory_of(store)
    if memory is None:
        raise ScopeError("forget_user needs store=")
    if audit is None:
        audit = memory.audit  # the store's own durable log, if it has one
    user = Scope(user_id=user_id).user_id
    needles = collect_needles(
        user, store=memory, checkpointer=checkpointer, handle_store=handle_store
    )
    purge: Mapping[str, int] = (
        background_writer.purge_user(user)
        if background_writer is not None
        else {"queued_turns": 0, "journal_lines": 0}
    )
    records = memory.delete_user(user)
    erasure: dict[str, Any] = {}
    if memory.last_erasure is not None:
        erasure["engine"] = memory.last_erasure.to_json()
    threads: list[str] | None = None
    if isinstance(checkpointer, OwnedThreads):
        threads = checkpointer.delete_user(user)
        erasure["checkpoints"] = checkpointer.last_erasure
    handles = handle_store.delete_user(user) if handle_store is not None else 0
    if audit is not None:
        erasure["audit_log"] = {"rewritten_entries": audit.pseudonymize_user(user)}
    memory_version = memory.memory_version
    residue, scans = _residue(
        user,
        store=memory,
        checkpointer=checkpointer,
        handle_store=handle_store,
        background_writer=background_writer,
        threads=threads or (),
        audit=None,
        needles=needles,
    )
    if audit is not None:
        audit.log(
            "forget",
            user_id=user,
            reason="forget_user",
            actor="forget_user",
            details={
                "records": records,
                "threads": len(threads or []),
                "handles": handles,
                "queued_turns": purge["queued_turns"],
                "journal_lines": purge["journal_lines"],
                "residue": dict(residue),
            },
        )
        scans["audit_log"] = scan_files(user, audit=audit, needles=needles)["audit_log"]
        residue["audit_log"] = scans["audit_log"].hits
    receipt: ForgetReceipt = {
        "user_id": user,
        "records": records,
        "queued_turns": purge["queued_turns"],
        "journal_lines": purge["journal_lines"],
        "threads": threads,
        "handles": handles,
        "memory_version": memory_version,
        "erasure": erasure,
        "residue": residue,
        "scan": {key: scan.to_json() for key, scan in scans.items()},
        "elapsed_s": round(time.perf_counter() - started, 6),
    }
    log.info(
        "user forgotten: %d record(s), %d thread(s), %d handle(s), %d queued turn(s); %s",
        records,
        len(threads or []),
        handles,
        receipt["queued_turns"],
        "residue left" if has_residue(residue) else "no residue",
        extra={"event": "forget_user", "residue": residue, "elapsed_s": receipt["elapsed_s"]},
    )
    return receipt


__all__ = [
    "LOGICAL_KEYS",
    "ForgetReceipt",
    "forget_user",
    "has_residue",
    "verify_forgotten",
]
