"""Recall filters as a small typed expression tree.

One tree is built per read from the caller's :class:`~langgraph_memory.core.scope.Scope` and
options. Each vector backend translates it into its own engine filter, so the filter runs
*inside* the engine's query; the keyword index evaluates the very same tree with
:meth:`Cond.matches`, over the caller's user partition only. Tests check both give the
same answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..core.records import ANY, LEDGER_SUBJECT, Kind, Layer, Source, Status, epoch, utcnow
from ..core.scope import Scope
from ..errors import FilterError


def field_value(payload: Mapping[str, Any], key: str) -> Any:
    """``payload[key]``; a dotted ``key`` (``"metadata.lg.kind"``) walks nested mappings the
    way the engines' nested-key filters do (missing or non-mapping steps give ``None``)."""
    if key in payload or "." not in key:
        return payload.get(key)
    node: Any = payload
    for part in key.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


class Cond:
    """Base class of filter nodes. A node's ``key`` may be a dotted path into nested payload
    objects (both engines and :meth:`matches` resolve it; see :func:`field_value`)."""

    def matches(self, payload: Mapping[str, Any]) -> bool:
        """Evaluate the condition against one stored payload."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Eq(Cond):
    """``payload[key] == value`` (for list-valued fields: ``value`` is one of the items)."""

    key: str
    value: str | int | bool

    def matches(self, payload: Mapping[str, Any]) -> bool:
        got = field_value(payload, self.key)
        if isinstance(got, list):
            return self.value in got
        return got == self.value


@dataclass(frozen=True, slots=True)
class In(Cond):
    """``payload[key]`` (or one of its items) is in ``values``."""

    key: str
    values: tuple[str, ...]

    def matches(self, payload: Mapping[str, Any]) -> bool:
        got = field_value(payload, self.key)
        if isinstance(got, list):
            return any(v in self.values for v in got)
        return got in self.values


@dataclass(frozen=True, slots=True)
class Range(Cond):
    """Numeric range on ``payload[key]``; a missing value never matches."""

    key: str
    gt: float | None = None
    gte: float | None = None
    lt: float | None = None
    lte: float | None = None

    def matches(self, payload: Mapping[str, Any]) -> bool:
        got = field_value(payload, self.key)
        if not isinstance(got, int | float) or isinstance(got, bool):
            return False
        return not (
            (self.gt is not None and not got > self.gt)
            or (self.gte is not None and not got >= self.gte)
            or (self.lt is not None and not got < self.lt)
            or (self.lte is not None and not got <= self.lte)
        )


@dataclass(frozen=True, slots=True)
class IsEmpty(Cond):
    """``payload[key]`` is missing, ``None`` or an empty list."""

    key: str

    def matches(self, payload: Mapping[str, Any]) -> bool:
        got = field_value(payload, self.key)
        return got is None or got == []


@dataclass(frozen=True, slots=True)
class HasId(Cond):
    """The point id is one of ``ids``."""

    ids: tuple[str, ...]

    def matches(self, payload: Mapping[str, Any]) -> bool:
        return payload.get("id") in self.ids


@dataclass(frozen=True, slots=True)
class And(Cond):
    """All children match."""

    children: tuple[Cond, ...]

    def matches(self, payload: Mapping[str, Any]) -> bool:
        return all(c.matches(payload) for c in self.children)


@dataclass(frozen=True, slots=True)
class Or(Cond):
    """At least one child matches."""

    children: tuple[Cond, ...]

    def matches(self, payload: Mapping[str, Any]) -> bool:
        return any(c.matches(payload) for c in self.children)


@dataclass(frozen=True, slots=True)
class Not(Cond):
    """The child does not match."""

    child: Cond

    def matches(self, payload: Mapping[str, Any]) -> bool:
        return not self.child.matches(payload)


FILTERABLE_FIELDS: dict[str, type | None] = {
    "layer": Layer,
    "kind": Kind,
    "source": Source,
    "status": Status,
    "task_id": None,
    "subject": None,
    "predicate": None,
    "language": None,
}
"""Record fields a caller may filter on (all keyword-indexed in both backends)."""

KEYWORD_INDEXES = (
    "_project",
    "_acl",
    "status",
    "superseded_by",
    "layer",
    "kind",
    "source",
    "task_id",
    "subject",
    "predicate",
    "language",
    "_supersede_pending",  # supersession.PENDING_SUPERSEDE: the repair at open reads it only
)
"""Keyword-indexed payload fields. ``_supersede_pending`` is the in-flight supersession
marker: indexed, the repair every open runs finds the marked records from the index instead
of scanning every payload (a full scan took 1-10 s at 100k records, growing with the store)."""
FLOAT_INDEXES = ("_valid_from", "_valid_to", "_expire_at", "_created")
TENANT_FIELD = "user_id"


def _user_filters(filters: Mapping[str, Any] | None) -> list[Cond]:
    if not filters:
        return []
    if not isinstance(filters, Mapping):
        raise FilterError("filters must be a mapping of field name to value(s)")
    conds: list[Cond] = []
    for key, value in filters.items():
        if key not in FILTERABLE_FIELDS:
            raise FilterError(
                f"cannot filter on {key!r}; filterable fields: {sorted(FILTERABLE_FIELDS)}"
            )
        enum = FILTERABLE_FIELDS[key]
        values = list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
        if not values:
            raise FilterError(f"filter {key!r} has an empty list of values")
        checked: list[str] = []
        for item in values:
            if not isinstance(item, str):
                raise FilterError(f"filter {key!r} takes strings, got {type(item).__name__}")
            if enum is not None:
                try:
                    item = enum(item).value
                except ValueError as exc:
                    allowed = [e.value for e in enum]  # type: ignore[attr-defined]
                    raise FilterError(f"{key}={item!r} is not one of {allowed}") from exc
            checked.append(item)
        conds.append(Eq(key, checked[0]) if len(checked) == 1 else In(key, tuple(checked)))
    return conds


def scope_filter(scope: Scope, *, all_projects: bool = False) -> list[Cond]:
    """The tenant part of every filter: user, project visibility and acl (see ``Scope``).
    ``all_projects=True`` drops the project part (every project of the user is visible; the
    user partition and acl still apply), for callers that select by their own field, such
    as the BaseStore adapter's namespace prefix."""
    projects = (ANY,) if scope.project_id is None else (ANY, scope.project_id)
    conds: list[Cond] = [Eq(TENANT_FIELD, scope.user_id)]
    if not all_projects:
        conds.append(In("_project", projects))
    conds.append(In("_acl", (ANY, *scope.acl)))
    return conds


INTERNAL_RECORDS = Eq("subject", LEDGER_SUBJECT)
"""Matches the write path's bookkeeping records (:data:`~langgraph_memory.core.records.
LEDGER_SUBJECT`): internal, never memory."""


def _internal_part(include_internal: bool) -> list[Cond]:
    return [] if include_internal else [Not(INTERNAL_RECORDS)]


def user_filter(
    user_id: str,
    *,
    statuses: Iterable[Status] | None = None,
    include_internal: bool = False,
) -> And:
    """Every record of ``user_id`` in every project and acl, whatever its validity (for
    whole-user operations: sweeps, transitions, exports), internal records excluded unless
    ``include_internal=True``."""
    conds: list[Cond] = [Eq(TENANT_FIELD, user_id)]
    if statuses is not None:
        conds.append(In("status", tuple(Status(s).value for s in statuses)))
    return And((*conds, *_internal_part(include_internal)))


def validity(at: float) -> tuple[Cond, ...]:
    """Inside the validity window at epoch second ``at`` and not expired, written as
    negations: *not* ``_valid_from > at``, *not* ``_valid_to <= at``, *not*
    ``_expire_at <= at``. Every record carries the three fields (a missing bound is written
    as 0 or :data:`~langgraph_memory.core.records.FAR_FUTURE_EPOCH`), so this matches
    exactly the points ``_valid_from <= at < _valid_to, at < _expire_at`` does; a point
    without a field counts as unbounded on that side. The negated form is what the engine
    evaluates fast: a range that matches nearly every point (``_valid_from <= now``, distinct
    values) cost ~7 ms per dense query over 20k points of one scope, its negation (which
    matches nearly none) ~1 ms (see README "Recall filters in the engine")."""
    return (
        Not(Range("_valid_from", gt=at)),
        Not(Range("_valid_to", lte=at)),
        Not(Range("_expire_at", lte=at)),
    )


def recall_filter(
    scope: Scope,
    *,
    as_of: datetime | None = None,
    filters: Mapping[str, Any] | None = None,
    statuses: Sequence[Status] | None = None,
    all_projects: bool = False,
    extra: Iterable[Cond] = (),
    include_internal: bool = False,
) -> And:
    """Filter for what ``scope`` may recall (``all_projects`` as in :func:`scope_filter`;
    ``extra`` conditions are added to the conjunction).

    Without ``as_of``: current memory only (status active, not superseded, inside its validity
    window now, not expired). With ``as_of``: what was valid at that instant, superseded
    versions included, deleted records excluded. Internal records (:data:`INTERNAL_RECORDS`)
    are excluded unless ``include_internal=True``.
    """
    conds = scope_filter(scope, all_projects=all_projects) + _internal_part(include_internal)
    if as_of is None:
        now = epoch(utcnow(), 0.0)
        wanted = tuple(s.value for s in statuses) if statuses else (Status.ACTIVE.value,)
        conds += [
            In("status", wanted) if len(wanted) > 1 else Eq("status", wanted[0]),
            IsEmpty("superseded_by"),
            *validity(now),
        ]
    else:
        at = epoch(as_of, 0.0)
        wanted = (
            tuple(s.value for s in statuses)
            if statuses
            else (Status.ACTIVE.value, Status.STALE.value, Status.ARCHIVED.value)
        )
        conds += [In("status", wanted), *validity(at)]
    conds += _user_filters(filters)
    conds += list(extra)
    return And(tuple(conds))


def listing_filter(
    scope: Scope,
    *,
    filters: Mapping[str, Any] | None = None,
    statuses: Iterable[Status] | None = None,
    extra: Iterable[Cond] = (),
    all_projects: bool = False,
    include_internal: bool = False,
) -> And:
    """Filter for listing/counting everything ``scope`` can see, whatever its validity;
    internal records (:data:`INTERNAL_RECORDS`) are excluded unless ``include_internal=True``."""
    conds = scope_filter(scope, all_projects=all_projects) + _internal_part(include_internal)
    if statuses is not None:
        conds.append(In("status", tuple(Status(s).value for s in statuses)))
    conds += _user_filters(filters)
    conds += list(extra)
    return And(tuple(conds))


__all__ = [
    "FILTERABLE_FIELDS",
    "FLOAT_INDEXES",
    "INTERNAL_RECORDS",
    "KEYWORD_INDEXES",
    "TENANT_FIELD",
    "And",
    "Cond",
    "Eq",
    "In",
    "IsEmpty",
    "Not",
    "Or",
    "Range",
    "field_value",
    "listing_filter",
    "recall_filter",
    "scope_filter",
    "user_filter",
    "validity",
]
