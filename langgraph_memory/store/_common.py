"""Small argument checks shared by the store's modules (pure; no engine access)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..core.records import MemoryRecord, to_utc
from ..core.scope import Scope
from ..errors import ConfigError, FilterError, RecordNotFound, RecordValidationError, ScopeError
from .filters import Cond

Candidate = tuple[str, float, dict[str, Any]]
"""One retriever hit: ``(record id, score, payload)`` (the payload may be empty when the
engine was asked for ids and scores only)."""


def coerce_scope(scope: Scope | Mapping[str, Any] | str | None) -> Scope:
    """The :class:`Scope` of a ``scope`` argument; ``None`` is refused (no global scope)."""
    if scope is None:
        raise ScopeError(
            "a scope with a user_id is required: memory is never read or written globally"
        )
    return Scope.of(scope)  # type: ignore[arg-type]


def check_type(value: object, kind: type, name: str) -> None:
    """``ConfigError`` unless ``value`` is ``None`` or a ``kind``."""
    if value is not None and not isinstance(value, kind):
        raise ConfigError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")


def check_version(value: object) -> int | None:
    """An ``expected_version`` argument: ``None`` or an int (not a bool, not a string)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordValidationError(
            f"expected_version must be an int, got {type(value).__name__} {value!r}"
        )
    return value


def check_where(where: object) -> Cond:
    """A ``where=`` argument: a filter tree (:class:`~langgraph_memory.store.filters.Cond`)."""
    if not isinstance(where, Cond):
        raise FilterError(f"where must be a filter tree (Cond), got {type(where).__name__}")
    return where


def parse_time(value: Any) -> datetime | None:
    """A payload's ISO-8601 timestamp as an aware UTC datetime; ``None`` when absent or bad."""
    if not value:
        return None
    try:
        return to_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        return None


def payload_created_at(payload: Mapping[str, Any]) -> datetime:
    """A record payload's ``created_at``: the same instant the parsed record holds, read
    without parsing the record (:meth:`MemoryStore.list` sorts on it). A payload without a
    readable time is parsed, so a bad one fails as it would as a record."""
    at = parse_time(payload.get("created_at"))
    return at if at is not None else MemoryRecord.from_payload(dict(payload)).created_at


def canonical_id(record_id: object) -> str:
    """``record_id`` as the canonical UUID string; :class:`RecordNotFound` if it is none."""
    try:
        return str(uuid.UUID(str(record_id)))
    except (ValueError, TypeError) as exc:
        raise RecordNotFound(f"{record_id!r} is not a memory id") from exc


__all__ = [
    "Candidate",
    "canonical_id",
    "check_type",
    "check_version",
    "check_where",
    "coerce_scope",
    "parse_time",
    "payload_created_at",
]
