"""How a BaseStore item is kept in a :class:`~langgraph_memory.core.records.MemoryRecord` (pure
mapping): the record id of ``(namespace, key)``, the ``metadata["lg"]`` layout, the record
fields a ``put`` writes, liveness, and the items read back."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from langgraph.store.base import Item, MatchCondition, SearchItem

from ...core.records import (
    MAX_METADATA_BYTES,
    MAX_TEXT_CHARS,
    MemoryRecord,
    Status,
    check_json_value,
    epoch,
    utcnow,
)
from ...errors import RecordValidationError
from ...store.filters import Cond, Eq, IsEmpty, Range
from .checks import record_fields
from .namespaces import WILDCARD, prefix_token, prefix_tokens

KEY_NAMESPACE = uuid.UUID("6f1d2b8e-4a0c-5d3e-9b7f-1c2d3e4f5a6b")
PREFIXES_FIELD = "metadata.lg.nsp"
INDEXED_FIELD = "metadata.lg.indexed"


def item_meta(record: MemoryRecord) -> dict[str, Any] | None:
    """The BaseStore part of a record's metadata (None for records not put through a
    BaseStore adapter: those are not items)."""
    meta = record.metadata.get("lg")
    if isinstance(meta, dict) and isinstance(meta.get("ns"), list) and "value" in meta:
        return meta
    return None


def live_conds() -> list[Cond]:
    """Engine conditions selecting live records: active, not superseded, not expired."""
    return [
        Eq("status", Status.ACTIVE.value),
        IsEmpty("superseded_by"),
        Range("_expire_at", gt=epoch(utcnow(), 0.0)),
    ]


def is_live(record: MemoryRecord) -> bool:
    """:func:`live_conds` checked on one record."""
    return (
        record.status is Status.ACTIVE
        and record.superseded_by is None
        and (record.expire_at is None or record.expire_at > utcnow())
    )


def matches_condition(cond: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """True when ``namespace`` satisfies a ``list_namespaces`` match condition."""
    path = tuple(cond.path)
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(p == WILDCARD or k == p for k, p in pairs)


def parse_time(value: object, default: datetime) -> datetime:
    """``value`` as an ISO datetime, ``default`` when it is not one."""
    try:
        return datetime.fromisoformat(str(value))
    except (TypeError, ValueError):
        return default


def item_record_id(namespace: tuple[str, ...], key: str) -> str:
    """The id of the record holding item ``(namespace, key)``: a UUID5 of both, so the same
    key in two namespaces is two records."""
    return str(uuid.uuid5(KEY_NAMESPACE, prefix_token((*namespace, str(key)))))


def to_item(record: MemoryRecord, lg: Mapping[str, Any]) -> Item:
    """The BaseStore item a record holds (``lg``: its :func:`item_meta`)."""
    return Item(
        value=lg["value"],
        key=str(lg["key"]),
        namespace=tuple(lg["ns"]),
        created_at=record.created_at,
        updated_at=parse_time(lg.get("updated_at"), record.updated_at),
    )


def to_search_item(record: MemoryRecord, lg: Mapping[str, Any], score: float | None) -> SearchItem:
    """:func:`to_item` with a search score."""
    item = to_item(record, lg)
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def put_fields(
    namespace: tuple[str, ...],
    key: str,
    value: dict[str, Any],
    text: str,
    ttl: float | None,
    now: datetime,
) -> dict[str, Any]:
    """The record fields a ``put`` of ``value`` writes (``text``: what is embedded, empty when
    the item is not indexed; ``ttl`` in minutes). Raises
    :class:`~langgraph_memory.errors.RecordValidationError` when value plus namespace are too
    large for the metadata."""
    metadata = {
        "lg": {
            "ns": list(namespace),
            "nsp": prefix_tokens(namespace),
            "key": key,
            "value": value,
            "indexed": 1 if text else 0,
            "ttl": ttl,
            "updated_at": now.isoformat(),
        }
    }
    try:
        check_json_value(metadata, "value", max_bytes=MAX_METADATA_BYTES)
    except ValueError as exc:
        raise RecordValidationError(f"{exc} (value plus namespace)") from exc
    fields: dict[str, Any] = {
        **record_fields(value),
        "text": text or json.dumps(value, ensure_ascii=False)[:MAX_TEXT_CHARS],
        "metadata": metadata,
        "expire_at": None if ttl is None else now + timedelta(minutes=ttl),
        # not indexed: valid at no instant, so recall (and BM25) never sees it
        "valid_from": None if text else now,
        "valid_to": None if text else now,
    }
    return fields


__all__ = [
    "INDEXED_FIELD",
    "KEY_NAMESPACE",
    "PREFIXES_FIELD",
    "is_live",
    "item_meta",
    "item_record_id",
    "live_conds",
    "matches_condition",
    "parse_time",
    "put_fields",
    "to_item",
    "to_search_item",
]
