"""Turning write arguments into records the engine may store (pure; no engine access).

:func:`prepare_record` validates a record or text against the writing scope, detects its
language and stamps the lifecycle TTL (``expire_at``); :func:`record_parts` splits an
oversized text into linked parts. Every write of :class:`~langgraph_memory.store.memory_store.
MemoryStore` goes through both, so nothing unvalidated reaches the engine.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..core.config import LifecyclePolicy
from ..core.logsafe import get_logger
from ..core.records import MAX_TEXT_CHARS, MemoryRecord, utcnow
from ..core.scope import Scope
from ..core.text import detect_language, split_long_text
from ..errors import RecordValidationError, ScopeError
from ..lifecycle.policy import default_ttl

log = get_logger("store")

CHUNK_CHARS = 8_000
"""Part size (characters) of a text over ``MAX_TEXT_CHARS`` given to ``add_many``."""


def prepare_record(
    record: MemoryRecord | str,
    scope: Scope,
    fields: Mapping[str, Any],
    lifecycle: LifecyclePolicy | None,
) -> MemoryRecord:
    """The validated record to write: ``record`` (or a new one with text ``record``) with
    ``fields`` applied, owned by ``scope``'s user and project, its language detected, and,
    without an ``expire_at``, the ``lifecycle`` TTL of its layer/kind stamped on it.

    Raises :class:`RecordValidationError` for an invalid record or one that would expire on
    arrival, :class:`ScopeError` for a record of another user or project."""
    try:
        if isinstance(record, str):
            record = MemoryRecord(
                **{"user_id": scope.user_id, "project_id": scope.project_id, **fields},
                text=record,
            )
        elif isinstance(record, MemoryRecord):
            # always re-validated: a record built with model_construct() or changed without
            # validation must not reach the engine unchecked
            record = MemoryRecord.model_validate({**record.model_dump(warnings=False), **fields})
        else:
            raise RecordValidationError(
                f"expected a MemoryRecord or a text, got {type(record).__name__}"
            )
    except ValidationError as exc:
        raise RecordValidationError(f"invalid memory record: {exc}") from exc
    if record.user_id != scope.user_id:
        raise ScopeError(
            f"record belongs to user {record.user_id!r} but the scope is user "
            f"{scope.user_id!r}; a scope can only write its own memory"
        )
    if record.project_id is not None and record.project_id != scope.project_id:
        raise ScopeError(
            f"record belongs to project {record.project_id!r} but the scope is project "
            f"{scope.project_id!r}"
        )
    if record.language is None:
        record = record.model_copy(update={"language": detect_language(record.text)})
    if lifecycle is not None and record.expire_at is None:
        ttl = default_ttl(record, lifecycle)
        if ttl is not None:
            expire_at = record.created_at + ttl
            if expire_at <= utcnow():
                raise RecordValidationError(
                    f"record created {record.created_at.isoformat()} would expire on "
                    f"arrival: the lifecycle TTL for {record.layer.value}/"
                    f"{record.kind.value} records ({ttl.days} days) ended "
                    f"{expire_at.isoformat()}; pass expire_at=..., or raise the TTL in "
                    "LifecyclePolicy to keep dated history"
                )
            record = record.model_copy(update={"expire_at": expire_at})
    return record


def record_parts(
    record: MemoryRecord | str, fields: dict[str, Any]
) -> list[tuple[MemoryRecord | str, dict[str, Any]]]:
    """The records to prepare for one input: itself, or the parts of an oversized text
    (linked by ``metadata["chunk_of"]``, the first part's id; see
    :meth:`~langgraph_memory.store.memory_store.MemoryStore.add_many`)."""
    if not isinstance(record, str) or len(record.strip()) <= MAX_TEXT_CHARS:
        return [(record, fields)]
    texts = split_long_text(record, CHUNK_CHARS)
    head = str(fields.get("id") or uuid.uuid4())
    metadata = fields.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        return [(record, fields)]  # let validation report the bad metadata
    log.info("a text of %d characters is stored as %d linked parts", len(record), len(texts))
    return [
        (
            text,
            {
                **fields,
                "id": head if k == 0 else str(uuid.uuid4()),
                "metadata": {**metadata, "chunk_of": head, "chunk": k, "chunks": len(texts)},
            },
        )
        for k, text in enumerate(texts)
    ]


__all__ = ["CHUNK_CHARS", "prepare_record", "record_parts"]
