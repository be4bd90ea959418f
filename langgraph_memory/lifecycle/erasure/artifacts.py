"""Which bytes betray a user in which store's files, and the scan of those files.

:func:`collect_needles` notes, **before** anything is deleted, the byte strings only the
user's data contains in each artifact (:class:`ForgetNeedles`); :func:`scan_files` reads every
byte of each given store's files afterwards and counts them per artifact (keys of
:data:`FILE_KEYS`). Used by :mod:`langgraph_memory.lifecycle.forget`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from ...core.scope import Scope
from ..audit import AuditLog
from ..forget_targets import MemoryArg, OwnedThreads, UserHandles, UserJournal, memory_of
from .needles import MIN_NEEDLE_BYTES, Needles, user_id_forms
from .scan import ArtifactScan, scan_paths

FILE_KEYS = ("engine_files", "checkpoint_files", "handle_files", "journal_file", "audit_log")
"""Residue counted in the raw bytes of each artifact's files (``None``: not readable here)."""


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
    memory = memory_of(store)
    engine = forms
    if memory is not None:
        ids = [record.id for record in memory.user_records(user, include_internal=True)]
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
    memory = memory_of(store)
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


__all__ = ["FILE_KEYS", "ForgetNeedles", "collect_needles", "scan_files"]
