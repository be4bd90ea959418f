"""Crash safety of ``supersede``: the pending marker and its repair (engine writes only).

``MemoryStore.supersede`` (1) marks the old record with the payload-only fields below (CAS),
(2) writes the new record, (3) clears the marker. :func:`repair_supersessions` finishes or
undoes what a crash interrupted: a marker whose new record exists is cleared, one whose new
record is missing makes the old record current again. The caller holds the store's write
lock and bumps its ``memory_version`` for every restored record.
"""

from __future__ import annotations

import time
from datetime import datetime

from ..core.logsafe import get_logger
from ..core.records import MemoryRecord
from ._common import parse_time
from .backend import VectorBackend
from .filters import IsEmpty, Not
from .keyword_cache import KeywordCache

log = get_logger("store")

PENDING_SUPERSEDE = "_supersede_pending"
"""Payload-only marker (never part of a record) on a record whose supersession is in
flight: the id of the new record. Removed once the new record is written."""
PENDING_VALID_TO = "_supersede_prev_valid_to"
"""Payload-only: the ``valid_to`` the old record had before the in-flight supersession."""
PENDING_AT = "_supersede_pending_at"
"""Payload-only: when the supersession started (epoch seconds)."""
SUPERSEDE_GRACE_SECONDS = 300.0
"""With shared writers (a server), a pending marker younger than this may belong to a
supersession still running in another process and is not repaired."""


def closed_at(old: MemoryRecord, new: MemoryRecord, now: datetime) -> datetime:
    """``valid_to`` of ``old`` superseded by ``new``: when ``new`` became valid, never before
    ``old`` began."""
    start = new.valid_from or now
    return max(start, old.valid_from or start)


def marker(new_id: str, old_valid_to: datetime | None) -> dict[str, str | float | None]:
    """The payload-only fields stored on the old record while its supersession runs."""
    return {
        PENDING_SUPERSEDE: new_id,
        PENDING_VALID_TO: None if old_valid_to is None else old_valid_to.isoformat(),
        PENDING_AT: time.time(),
    }


def restore_superseded(
    backend: VectorBackend,
    keywords: KeywordCache,
    marked: MemoryRecord,
    valid_to: datetime | None,
) -> bool:
    """Make ``marked`` current again (its supersession never finished). CAS on the marked
    version: False when the record changed since, and then nothing is written."""
    restored = marked.model_copy(
        update={"superseded_by": None, "valid_to": valid_to, "version": marked.version + 1}
    )
    payload = restored.to_payload()
    if not backend.cas_write(marked.id, payload, marked.version):
        return False
    keywords.mirror([payload], text_changed=False)
    log.warning(
        "interrupted supersede repaired: old version restored",
        extra={"event": "supersede_repaired", "user_id": marked.user_id, "id": marked.id},
    )
    return True


def clear_marker(backend: VectorBackend, marked: MemoryRecord) -> None:
    """Drop the pending marker of a finished supersession (same version: a marker-only
    change). Best effort: a stale marker whose target exists is harmless."""
    backend.cas_write(marked.id, marked.to_payload(), marked.version)


def repair_supersessions(backend: VectorBackend, keywords: KeywordCache) -> int:
    """Finish or undo interrupted supersessions; returns how many records were restored as
    current (see :meth:`~langgraph_memory.store.memory_store.MemoryStore.
    repair_interrupted_writes`). Reads only records with a pending marker."""
    restored = 0
    cutoff = time.time() - SUPERSEDE_GRACE_SECONDS
    pending = list(backend.scroll(Not(IsEmpty(PENDING_SUPERSEDE))))
    if not pending:
        return 0
    targets = {p["id"] for p in backend.retrieve([p[PENDING_SUPERSEDE] for p in pending])}
    for payload in pending:
        if backend.shared_writers and float(payload.get(PENDING_AT, 0)) > cutoff:
            continue
        marked = MemoryRecord.from_payload(payload)
        finished = payload[PENDING_SUPERSEDE] in targets
        if finished or marked.superseded_by != payload[PENDING_SUPERSEDE]:
            clear_marker(backend, marked)
            continue
        prev = parse_time(payload.get(PENDING_VALID_TO))
        restored += restore_superseded(backend, keywords, marked, prev)
    return restored


__all__ = [
    "PENDING_AT",
    "PENDING_SUPERSEDE",
    "PENDING_VALID_TO",
    "SUPERSEDE_GRACE_SECONDS",
    "clear_marker",
    "closed_at",
    "marker",
    "repair_supersessions",
    "restore_superseded",
]
