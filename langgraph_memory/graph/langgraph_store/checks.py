"""Input checks and limits of the BaseStore adapter (everything is refused before a write)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from langgraph.store.base import TTLConfig

from ...core.records import (
    MAX_JSON_DEPTH,
    MAX_METADATA_BYTES,
    Kind,
    Layer,
    Source,
    check_json_value,
)
from ...core.scope import Scope
from ...errors import ConfigError, RecordValidationError

MAX_TTL_MINUTES = 100 * 365 * 24 * 60
"""Longest ``ttl`` (minutes) a ``put`` accepts: 100 years."""
MAX_QUERY_WINDOW = 1000
"""Largest ``offset + limit`` of a search with ``query`` (the store's recall depth)."""
MAX_VALUE_BYTES = MAX_METADATA_BYTES - 4096
"""Largest value (UTF-8 JSON bytes); the rest of the record's metadata holds its namespace."""
MAX_VALUE_DEPTH = MAX_JSON_DEPTH - 2
"""Deepest nesting of a value (the record's metadata wraps it two levels deep)."""
DEFAULT_TTL_CONFIG: TTLConfig = {"refresh_on_read": True, "default_ttl": None}
"""``ttl_config`` when none is given: no default TTL; reads refresh the TTL of items that
have one."""
_TTL_KEYS = {"refresh_on_read", "default_ttl", "omit_expired", "sweep_interval_minutes"}
NO_SWEEPER = (
    "ttl_config['sweep_interval_minutes'] is not supported: expired items are hidden from "
    "every read as soon as they expire, and forget_user erases them with the rest"
)


def check_key(key: Any) -> str:
    """A BaseStore key: a non-empty string (``None`` would alias the key ``"None"``)."""
    if not isinstance(key, str):
        raise TypeError(f"key must be a string, got {type(key).__name__} {key!r}")
    if not key:
        raise ValueError("key must be a non-empty string")
    return key


def check_count(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return value


def check_ttl(ttl: Any) -> float:
    """A ttl in minutes: a finite number in (0, MAX_TTL_MINUTES]."""
    if not isinstance(ttl, int | float) or isinstance(ttl, bool):
        raise TypeError(f"ttl must be a number of minutes, got {type(ttl).__name__}")
    if not math.isfinite(ttl) or not 0 < ttl <= MAX_TTL_MINUTES:
        raise ValueError(
            f"ttl must be a positive number of minutes up to {MAX_TTL_MINUTES}, got {ttl!r}"
        )
    return float(ttl)


def check_ttl_config(config: Any) -> TTLConfig:
    if config is None:
        return dict(DEFAULT_TTL_CONFIG)  # type: ignore[return-value]
    if not isinstance(config, Mapping):
        raise ConfigError(f"ttl_config must be a dict (TTLConfig), got {type(config).__name__}")
    unknown = set(config) - _TTL_KEYS
    if unknown:
        raise ConfigError(f"unknown ttl_config keys {sorted(unknown)}; known: {sorted(_TTL_KEYS)}")
    if config.get("sweep_interval_minutes") is not None:
        raise ConfigError(NO_SWEEPER)
    for name in ("refresh_on_read", "omit_expired"):
        if name in config and not isinstance(config[name], bool):
            raise ConfigError(f"ttl_config[{name!r}] must be True or False")
    default = config.get("default_ttl")
    try:
        default = None if default is None else check_ttl(default)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"ttl_config['default_ttl']: {exc}") from exc
    return {"refresh_on_read": bool(config.get("refresh_on_read", True)), "default_ttl": default}


def check_value(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"a store value must be a dict, got {type(value).__name__}")
    value = dict(value)
    try:
        check_json_value(value, "value", max_depth=MAX_VALUE_DEPTH, max_bytes=MAX_VALUE_BYTES)
    except ValueError as exc:
        raise RecordValidationError(str(exc)) from exc
    return value


def record_fields(value: Mapping[str, Any]) -> dict[str, Any]:
    """Record fields a value sets by naming them with a valid value (``"kind": "preference"``,
    ``"layer"``, ``"source"``, ``"confidence"``, ``"importance"``, ``"task_id"``), so the
    memory nodes treat the item accordingly; anything else leaves the record's default. The
    value itself is stored unchanged either way."""
    fields: dict[str, Any] = {}
    for name, enum, default in (
        ("kind", Kind, Kind.STABLE_FACT),
        ("layer", Layer, Layer.SEMANTIC),
        ("source", Source, Source.USER),
    ):
        raw = value.get(name)
        fields[name] = enum(raw) if raw in {e.value for e in enum} else default
    conf = value.get("confidence")
    ok = isinstance(conf, int | float) and not isinstance(conf, bool) and 0 <= conf <= 1
    fields["confidence"] = float(conf) if ok else 1.0  # type: ignore[arg-type]
    imp = value.get("importance")
    ok = isinstance(imp, int) and not isinstance(imp, bool) and 1 <= imp <= 10
    fields["importance"] = imp if ok else 5
    task = value.get("task_id")
    try:
        fields["task_id"] = Scope(user_id=task).user_id if isinstance(task, str) else None
    except ValueError:
        fields["task_id"] = None
    return fields


__all__ = [
    "DEFAULT_TTL_CONFIG",
    "MAX_QUERY_WINDOW",
    "MAX_TTL_MINUTES",
    "MAX_VALUE_BYTES",
    "MAX_VALUE_DEPTH",
    "NO_SWEEPER",
    "check_count",
    "check_key",
    "check_ttl",
    "check_ttl_config",
    "check_value",
    "record_fields",
]
