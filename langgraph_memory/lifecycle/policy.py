"""The lifecycle rules, as pure functions: the status machine, decay and the capacity choice.

Nothing here reads or writes a store; every function maps records, configs and a clock to a
value, so the rules are unit-tested on their own and the store may use them
(:mod:`langgraph_memory.store.status` applies them). The TTL of a new record is
:func:`default_ttl` (from :meth:`LifecyclePolicy.ttl_for
<langgraph_memory.core.config.LifecyclePolicy.ttl_for>`), which the store stamps on it.

Guarantees:

* :func:`check_transition` allows only the moves of :data:`ALLOWED_TRANSITIONS`
  (``deleted -> *`` and ``X -> X`` are refused with :class:`IllegalTransition`).
* :func:`transition_metadata` keeps the latest :data:`MAX_TRANSITIONS_KEPT` steps.
* :func:`decay_factor` is 1.0 for a fresh record and halves every
  :func:`effective_half_life` days after its last use; decay lowers rank, it never deletes.
* :func:`capacity_evictions` picks the ``len(records) - cap`` records with the lowest
  :func:`eviction_score` (ties: oldest first, then id), so the choice is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from ..core.config import LifecyclePolicy, RecallConfig
from ..core.records import (
    MemoryRecord,
    Status,
    coerce_time,
    is_conversation_episode,
    to_utc,
    utcnow,
)
from ..errors import ConfigError, IllegalTransition

MAX_TRANSITIONS_KEPT = 100
"""How many transitions ``record.metadata["transitions"]`` keeps (the audit log keeps all)."""

ALLOWED_TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.ACTIVE: frozenset({Status.STALE, Status.ARCHIVED, Status.DELETED}),
    Status.STALE: frozenset({Status.ACTIVE, Status.ARCHIVED, Status.DELETED}),
    Status.ARCHIVED: frozenset({Status.ACTIVE, Status.DELETED}),
    Status.DELETED: frozenset(),
}
"""The status machine: ``ALLOWED_TRANSITIONS[from]`` is the set of statuses ``from`` may move to."""

DAY_SECONDS = 86400.0


def policy_arg(policy: object) -> LifecyclePolicy:
    """``policy`` or the default policy; ``ConfigError`` for anything but a LifecyclePolicy."""
    if policy is None:
        return LifecyclePolicy()
    if not isinstance(policy, LifecyclePolicy):
        raise ConfigError(f"policy must be a LifecyclePolicy, got {type(policy).__name__}")
    return policy


def clock(now: datetime | date | str | None) -> datetime:
    """``now`` as an aware UTC datetime (the current time when ``None``)."""
    return coerce_time(now, "now") if now is not None else utcnow()


# ---------------------------------------------------------------------------- TTL
def default_ttl(record: MemoryRecord, policy: LifecyclePolicy) -> timedelta | None:
    """The time-to-live ``policy`` gives ``record`` by its layer and kind (a conversation
    episode: ``conversation_ttl_days``); ``None``: it never expires. The store stamps
    ``created_at + default_ttl`` on new records that have no ``expire_at``."""
    return policy.ttl_for(record.layer, record.kind, conversation=is_conversation_episode(record))


def apply_default_ttl(
    record: MemoryRecord,
    policy: LifecyclePolicy | None = None,
    *,
    now: datetime | date | str | None = None,
) -> MemoryRecord:
    """``record`` with ``expire_at`` set from :func:`default_ttl`, counted from ``now``
    (default: the record's ``created_at``). A record that already has an ``expire_at``, or
    whose layer/kind has no TTL, is returned unchanged."""
    if record.expire_at is not None:
        return record
    ttl = default_ttl(record, policy_arg(policy))
    if ttl is None:
        return record
    start = coerce_time(now, "now") if now is not None else record.created_at
    return record.model_copy(update={"expire_at": start + ttl})


# ---------------------------------------------------------------------------- status machine
def check_transition(current: Status | str, to: Status | str) -> None:
    """Raise :class:`IllegalTransition` unless ``current -> to`` is allowed."""
    src, dst = Status(current), Status(to)
    if dst not in ALLOWED_TRANSITIONS[src]:
        allowed = sorted(s.value for s in ALLOWED_TRANSITIONS[src]) or "nothing"
        raise IllegalTransition(
            f"illegal lifecycle transition {src.value} -> {dst.value}; "
            f"{src.value} may move to {allowed}"
        )


def transition_metadata(
    record: MemoryRecord, to: Status, when: datetime, reason: str, actor: str
) -> dict[str, Any]:
    """``record.metadata`` with the step ``{from, to, at, reason, actor}`` appended to
    ``"transitions"`` (the latest :data:`MAX_TRANSITIONS_KEPT` kept)."""
    step = {
        "from": record.status.value,
        "to": to.value,
        "at": when.isoformat(),
        "reason": reason,
        "actor": actor,
    }
    history = [*record.metadata.get("transitions", []), step][-MAX_TRANSITIONS_KEPT:]
    return {**record.metadata, "transitions": history}


def stale_since(record: MemoryRecord) -> datetime:
    """When ``record`` last became ``stale`` (from its transitions; else its ``updated_at``)."""
    for step in reversed(record.metadata.get("transitions", [])):
        if step.get("to") == Status.STALE.value:
            try:
                return to_utc(datetime.fromisoformat(str(step["at"])))
            except (KeyError, ValueError):
                break
    return record.updated_at


# ---------------------------------------------------------------------------- decay
def effective_half_life(config: RecallConfig, kind: str | None, importance: int) -> float:
    """The recency half-life (days) of a record: its kind's entry in
    ``half_life_days_by_kind`` (else ``recency_half_life_days``), lengthened by importance as
    ``* (1 + decay_importance_scale * importance / 10)`` (importance clamped to 1..10). With
    the defaults (no per-kind entry, 180 days, scale 1.0) a record of importance 5 has a
    half-life of 270 days, one of importance 10 of 360 days; ``decay_importance_scale=0``
    makes it exactly ``recency_half_life_days``.

    >>> effective_half_life(RecallConfig(), "fact", 5)
    270.0
    >>> effective_half_life(RecallConfig(decay_importance_scale=0.0), "fact", 10)
    180.0
    """
    base = config.recency_half_life_days
    if kind is not None and config.half_life_days_by_kind:
        base = config.half_life_days_by_kind.get(str(kind), base)
    if config.decay_importance_scale:
        base *= 1.0 + config.decay_importance_scale * min(10, max(1, importance)) / 10.0
    return base


def decay_factor(
    record: MemoryRecord,
    now: datetime | date | str | None = None,
    config: RecallConfig | None = None,
) -> float:
    """``0.5 ** (age / half_life)`` of a record, where age counts from its last use (or
    creation) and the half-life is :func:`effective_half_life` of its kind and importance.
    1.0 for a fresh record; decay lowers rank, never deletes."""
    cfg = config or RecallConfig()
    at = clock(now)
    last = max(record.created_at, record.last_accessed_at or record.created_at)
    age_days = max(0.0, (at - last).total_seconds() / DAY_SECONDS)
    return math.pow(0.5, age_days / effective_half_life(cfg, record.kind.value, record.importance))


def eviction_score(
    record: MemoryRecord,
    now: datetime | date | str | None = None,
    config: RecallConfig | None = None,
) -> float:
    """``recency x confidence x use`` with ``use = 1 + ln(1 + access_count)``; the lowest
    score is evicted first."""
    use = 1.0 + math.log1p(record.access_count)
    return decay_factor(record, now, config) * record.confidence * use


# ---------------------------------------------------------------------------- capacity
def capacity_evictions(
    records: Sequence[MemoryRecord], cap: int, now: datetime, config: RecallConfig
) -> list[tuple[MemoryRecord, float]]:
    """The records to archive so that at most ``cap`` of ``records`` stay, with their
    :func:`eviction_score`, lowest score first (ties: oldest, then id). Empty when there is
    no overflow."""
    overflow = len(records) - cap
    if overflow <= 0:
        return []
    scored = [(record, eviction_score(record, now, config)) for record in records]
    scored.sort(key=lambda pair: (pair[1], pair[0].created_at, pair[0].id))
    return scored[:overflow]


__all__ = [
    "ALLOWED_TRANSITIONS",
    "DAY_SECONDS",
    "MAX_TRANSITIONS_KEPT",
    "apply_default_ttl",
    "capacity_evictions",
    "check_transition",
    "clock",
    "decay_factor",
    "default_ttl",
    "effective_half_life",
    "eviction_score",
    "policy_arg",
    "stale_since",
    "transition_metadata",
]
