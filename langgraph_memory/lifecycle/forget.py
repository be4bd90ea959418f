"""Forget a user: delete everything kept about them, erase it from the files, and prove it.

:func:`forget_user` is the one call (the ``langgraph-memory forget`` command and
:meth:`MemoryStore.forget_user` run it). It

1. notes, before deleting anything, the byte strings that only the user's data contains
   (:class:`ForgetNeedles`: ids of the user's records, checkpoints and handles, and the user id
   as the stores serialize it);
2. purges the background writer (queued turns dropped, a turn in flight waited for, the journal
   rewritten without the user's lines);
3. erases the memory records (the embedded engine's shard is rewritten without them, see
   :meth:`~langgraph_memory.store.edge.EdgeBackend.vacuum`), the checkpointed threads (SQLite
   ``secure_delete`` + ``VACUUM`` + WAL truncation, PostgreSQL ``VACUUM FULL``) and the handle
   files; the audit log keeps ids and counts under a keyed hash of the user id;
4. checks: the logical counts of :func:`verify_forgotten` and a scan of every byte of every file
   those stores keep (engine pages decompressed), per artifact.

The receipt reports both; ``residue`` is all zeros (``None`` where an artifact has no files
this package can read, e.g. a Qdrant or PostgreSQL server) when nothing of the user is left.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypedDict, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from ..core.logsafe import get_logger
from ..core.records import MemoryRecord
from ..core.scope import Scope
from ..errors import ScopeError
from .audit import AuditLog
from .erasure import ArtifactScan, Needles, scan_paths, user_id_forms
from .erasure.needles import MIN_NEEDLE_BYTES

log = get_logger("lifecycle")

LOGICAL_KEYS = ("records", "keyword_index", "threads", "handles", "queued_turns")
"""Residue counted through the stores' own APIs."""
FILE_KEYS = ("engine_files", "checkpoint_files", "handle_files", "journal_file", "audit_log")
"""Residue counted in the raw bytes of each artifact's files (``None``: not readable here)."""


# ---------------------------------------------------------------------------- what forget needs
class ErasureReceipt(Protocol):
    """How a store erased deleted data (``MemoryStore.last_erasure``)."""

    def to_json(self) -> dict[str, Any]: ...


class UserMemory(Protocol):
    """The memory store's side of forget-user (:class:`~langgraph_memory.store.MemoryStore`)."""

    @property
    def memory_version(self) -> int: ...

    @property
    def audit(self) -> AuditLog | None: ...

    @property
    def last_erasure(self) -> ErasureReceipt | None: ...

    def user_records(self, user_id: str) -> list[MemoryRecord]: ...

    def user_footprint(self, user_id: str) -> dict[str, int]: ...

    def delete_user(self, user_id: str) -> int: ...

    def managed_paths(self) -> list[Path] | None: ...


@runtime_checkable
class WrapsMemory(Protocol):
    """A wrapper that holds the memory store as ``.store`` (the LangGraph ``BaseStore``
    adapter, :class:`~langgraph_memory.graph.langgraph_store.LangGraphMemoryStore`)."""

    @property
    def store(self) -> UserMemory: ...


@runtime_checkable
class OwnedThreads(Protocol):
    """A checkpointer that records thread owners
    (:class:`~langgraph_memory.graph.checkpoint.saver.OwnedCheckpointSaver`): its threads can
    be found, deleted and erased by user."""

    @property
    def last_erasure(self) -> dict[str, Any] | None: ...

    def threads_of(self, user_id: str) -> list[str]: ...

    def checkpoint_ids(self, thread_id: str) -> list[str]: ...

    def delete_user(self, user_id: str) -> list[str]: ...

    def managed_paths(self) -> list[Path] | None: ...

    def unscoped(self) -> BaseCheckpointSaver[Any]: ...


class UserHandles(Protocol):
    """Externalized payloads kept per user (:class:`~langgraph_memory.context.HandleStore`)."""

    def handles_of(self, user_id: str) -> list[str]: ...

    def delete_user(self, user_id: str) -> int: ...

    def managed_paths(self) -> list[Path]: ...


class UserJournal(Protocol):
    """Queued turns and their journal (a
    :class:`~langgraph_memory.write.BackgroundWriter`, or an
    :class:`~langgraph_memory.write.journal.OfflineJournal` of a stopped app)."""

    @property
    def path(self) -> Path: ...

    def purge_user(self, user_id: str) -> Mapping[str, int]: ...

    def queued_turns(self, user_id: str) -> int: ...


MemoryArg = UserMemory | WrapsMemory
"""The ``store=`` of forget-user: a ``MemoryStore`` or its LangGraph adapter."""


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


@dataclass(frozen=True)
class ForgetNeedles:
    """What betrays the user in each artifact's bytes (see
    :mod:`langgraph_memory.lifecycle.erasure`).

    ``engine``: the user's record ids and serialized user id; ``checkpoints``: the ids of the
    user's checkpoints, ``thread_id`` + ``user_id`` as an owners row stores them, and the
    serialized user id; ``handles``: the user's handle names and serialized user id;
    ``user``: the serialized user id, all the journal can hold; the audit log is also read for
    the user as ``actor`` (it may keep record ids: ids and counts are what it is for)."""

    user: Needles
    engine: Needles = field(default_factory=Needles)
    checkpoints: Needles = field(default_factory=Needles)
    handles: Needles = field(default_factory=Needles)


def _long_enough(values: Iterable[str]) -> list[bytes]:
    out = []
    for value in values:
        raw = value.encode("utf-8", "surrogatepass")
        if len(raw) >= MIN_NEEDLE_BYTES:
            out.append(raw)
    return out


def _memory_store(store: MemoryArg | None) -> UserMemory | None:
    return store.store if isinstance(store, WrapsMemory) else store


def collect_needles(
    user_id: str,
    *,
    store: MemoryArg | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    handle_store: UserHandles | None = None,
) -> ForgetNeedles:
    """The needles of ``user_id``, read from the stores **before** anything is deleted."""
    user = Scope(user_id=user_id).user_id
    forms = Needles(user_id_forms(user))
    memory = _memory_store(store)
    engine = forms
    if memory is not None:
        ids = [record.id for record in memory.user_records(user)]
        engine = forms | Needles.of_text(ids)
    checkpoints = forms
    if isinstance(checkpointer, OwnedThreads):
        threads = checkpointer.threads_of(user)
        ids = [cid for thread in threads for cid in checkpointer.checkpoint_ids(thread)]
        rows = [thread + user for thread in threads]  # an owners row: thread_id then user_id
        checkpoints = forms | Needles(_long_enough([*ids, *rows]))
    handles = forms
    if handle_store is not None:
        handles = forms | Needles(_long_enough(handle_store.handles_of(user)))
    return ForgetNeedles(user=forms, engine=engine, checkpoints=checkpoints, handles=handles)


def _scan(artifact: str, paths: list[Path] | None, needles: Needles, where: str) -> ArtifactScan:
    if paths is None:
        return ArtifactScan.not_scanned(artifact, f"{where}: not files this package can read")
    report = scan_paths(artifact, paths, needles)
    if not paths:
        report.note = "nothing on disk"
    return report


def scan_files(
    user_id: str,
    *,
    store: MemoryArg | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    handle_store: UserHandles | None = None,
    background_writer: UserJournal | None = None,
    audit: AuditLog | None = None,
    needles: ForgetNeedles | None = None,
) -> dict[str, ArtifactScan]:
    """Read every byte of the files of each given store and count the user's needles, per
    artifact (keys of :data:`FILE_KEYS`; stores not given are left out)."""
    found = needles or collect_needles(user_id)  # without noted ids: the serialized user id
    out: dict[str, ArtifactScan] = {}
    memory = _memory_store(store)
    if memory is not None:
        out["engine_files"] = _scan(
            "engine", memory.managed_paths(), found.engine, "the Qdrant server's storage"
        )
    if checkpointer is not None:
        # a plain LangGraph saver does not say where its files are
        paths = checkpointer.managed_paths() if isinstance(checkpointer, OwnedThreads) else None
        out["checkpoint_files"] = _scan(
            "checkpoints", paths, found.checkpoints, "the checkpoint database server's storage"
        )
    if handle_store is not None:
        out["handle_files"] = _scan(
            "handles", handle_store.managed_paths(), found.handles, "an unknown handle store"
        )
    if background_writer is not None:
        journal = Path(background_writer.path)
        paths = [journal, journal.with_name(journal.name + ".tmp")]
        out["journal_file"] = _scan("journal", paths, found.user, "the journal")
    if audit is not None:
        named = found.user | Needles(user_id_forms(user_id, key="actor"))
        out["audit_log"] = _scan("audit_log", audit.managed_paths(), named, "the audit log")
    return out


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
    memory = _memory_store(store)
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
    memory = _memory_store(store)
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
    "FILE_KEYS",
    "LOGICAL_KEYS",
    "ErasureReceipt",
    "ForgetNeedles",
    "ForgetReceipt",
    "MemoryArg",
    "OwnedThreads",
    "UserHandles",
    "UserJournal",
    "UserMemory",
    "WrapsMemory",
    "collect_needles",
    "forget_user",
    "has_residue",
    "scan_files",
    "verify_forgotten",
]
