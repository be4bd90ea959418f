"""The one record type every stored memory uses, and its payload form.

A :class:`MemoryRecord` is data, not chat history: it has a tenant scope, a layer and kind,
an optional ``subject/predicate/object`` triple, provenance (``evidence``, ``source``), a
validity window, a version for optimistic locking and a lifecycle ``status``.

``to_payload``/``from_payload`` convert it one-to-one to the Qdrant payload. The payload also
carries a few derived fields whose names start with ``_`` (epoch-second timestamps and
sentinel values) so that every recall filter can be pushed into the vector engine's query;
``from_payload`` ignores them.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

MAX_TEXT_CHARS = 32_000
"""Longest ``text`` a record may hold; larger payloads belong in externalized storage."""

FAR_FUTURE_EPOCH = 253_402_300_799.0
"""Epoch seconds of 9999-12-31T23:59:59Z: the index value of an open-ended validity window."""

ANY = "*"
"""Index sentinel meaning "no restriction" for ``project_id`` and ``acl``."""

LEDGER_SUBJECT = "__write_ledger__"
"""``subject`` of the write path's bookkeeping records (its turn ledger and pending writes).
They are internal, not memory: the store's listing and recall filters leave them out unless a
reader opts in with ``include_internal=True`` (the write path's ledger reader does)."""

MAX_REASON_CHARS = 1000
"""Longest ``reason`` a lifecycle transition or ``MemoryStore.invalidate`` accepts."""

LEDGER_SUBJECT = "__write_ledger__"
"""``subject`` of the write path's bookkeeping records (the write ledger), never memory."""

MAX_JSON_DEPTH = 32
"""Deepest nesting of containers a free-form value (``metadata``, a BaseStore value) may have.

A mapping or list counts one level (``{"a": {"b": 1}}`` has depth 2). The vector engine
accepts far deeper payloads on write and then cannot read them back (a store reopened after a
value nested ~120 levels deep fails with ``RecursionLimitExceeded``), so deeper values are
refused before anything is written."""

MAX_JSON_ITEMS = 10_000
"""Most keys plus list items (counted over every level) a free-form value may hold."""

MAX_METADATA_BYTES = 64 * 1024
"""Largest serialized size (UTF-8 JSON) of a record's ``metadata``."""


class Layer(StrEnum):
    """Which memory layer a record belongs to.

    ``working``: short-lived notes of the current task (hedges, the write ledger; a one-day
    TTL by default, cleared when the task ends). ``episodic``: what
    happened and what was said (conversation turns, tool failures, task episodes), recalled as
    dated excerpts. ``semantic``: facts, preferences and constraints that passed the write
    gates. ``procedural``: standing rules, injected in full on every turn."""

    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class Kind(StrEnum):
    """What a record states."""

    PREFERENCE = "preference"
    CONSTRAINT = "constraint"
    STABLE_FACT = "stable_fact"
    CORRECTION = "correction"
    EVENT = "event"
    INSTRUCTION = "instruction"


class Status(StrEnum):
    """Lifecycle state. Only ``active`` records are recalled as current memory."""

    ACTIVE = "active"
    STALE = "stale"
    ARCHIVED = "archived"
    DELETED = "deleted"


class Source(StrEnum):
    """Who asserted the memory. Only ``user`` (and ``import``) statements count as user facts."""

    USER = "user"
    TOOL = "tool"
    MODEL = "model"
    IMPORT = "import"


def utcnow() -> datetime:
    """The current time as a timezone-aware UTC datetime."""
    return datetime.now(UTC)


def to_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def coerce_time(value: Any, name: str) -> datetime:
    """An instant argument (``as_of=``, ``at=``, ``now=``) as an aware UTC datetime.

    Accepts a ``datetime`` (naive = UTC), a ``date`` (midnight UTC) and an ISO-8601 string
    (``"2024-01-01"``, ``"2024-01-01T12:00:00Z"``; naive = UTC). Anything else raises
    ``TypeError``; an unparsable string raises ``ValueError``; both name the argument.
    """
    if isinstance(value, datetime):
        return to_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        try:
            return to_utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError as exc:
            raise ValueError(f"{name} must be an ISO-8601 date/time, got {value!r}") from exc
    raise TypeError(
        f"{name} must be a datetime, a date or an ISO-8601 string, got {type(value).__name__}"
    )


def epoch(value: datetime | None, default: float) -> float:
    """Epoch seconds of ``value``, or ``default`` when it is ``None``."""
    return default if value is None else to_utc(value).timestamp()


def _clean_identifier(value: str, field: str) -> str:
    """``value`` checked as an identifier. Never rewritten: leading/trailing whitespace is
    refused rather than stripped, so ``" alice"`` cannot alias ``"alice"``."""
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must be a non-empty string")
    if value != value.strip():
        raise ValueError(f"{field} {value!r} has leading or trailing whitespace")
    if len(value) > 256:
        raise ValueError(f"{field} is longer than 256 characters")
    if _ANY_CONTROL.search(value):
        raise ValueError(f"{field} contains control characters")
    if _SURROGATE.search(value):
        raise ValueError(f"{field} contains lone surrogate code points")
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate code point (one regex scan instead of a Python loop per character: every
record read from the store is validated, so these checks run on every recall)."""
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters except newline (0x0a) and tab (0x09)."""
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f]")
"""Any control character, newline and tab included (identifiers hold none)."""
_CANONICAL_UUID = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""A UUID as ``str(uuid.UUID(...))`` writes it: what every stored id already is, so it is
kept as it is instead of being parsed and printed again."""


def _clean_text(value: str) -> str:
    if _SURROGATE.search(value):
        raise ValueError("text contains lone surrogate code points")
    # Drop control characters except newline and tab; they carry no meaning and break logs.
    return _CONTROL.sub("", value)


def _json_scalar_problem(value: Any) -> str | None:
    """Why ``value`` is not a JSON-safe scalar, or ``None`` when it is one."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):  # the engine silently turns larger integers into floats
        return None if -(2**63) <= value < 2**64 else "an integer outside the 64-bit range"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"non-finite number {value!r}"
    if isinstance(value, str):
        if _SURROGATE.search(value):
            return "a string with lone surrogate code points"
        return None
    return f"a value of type {type(value).__name__} (not JSON)"


_Path = tuple[Any, str]
"""A path inside a value as a linked list: ``(parent path or None, segment)``."""


def _render(path: _Path | None) -> str:
    """``metadata.a[2].b`` from its links (the first 200 segments, then the last ones)."""
    parts: list[str] = []
    while path is not None:
        path, segment = path
        parts.append(segment)
    parts.reverse()
    if len(parts) > 400:
        parts = [*parts[:200], "...", *parts[-200:]]
    return "".join(parts)


def _check_key(key: Any, path: _Path) -> None:
    if not isinstance(key, str):
        raise ValueError(
            f"{_render(path)} has a non-string key {key!r} ({type(key).__name__}); "
            "keys must be strings"
        )
    if _SURROGATE.search(key):
        raise ValueError(f"{_render(path)} has a key with lone surrogate code points")


def check_json_value(
    value: Any,
    field: str,
    *,
    max_depth: int = MAX_JSON_DEPTH,
    max_items: int = MAX_JSON_ITEMS,
    max_bytes: int | None = None,
) -> None:
    """Raise :class:`ValueError` unless ``value`` is plain JSON the engine stores and reads back.

    Allowed: ``None``, ``bool``, ``int`` in the 64-bit range, finite ``float``, ``str``
    without lone surrogates, and ``dict`` (string keys only) / ``list`` / ``tuple`` of those,
    nested at most ``max_depth``
    containers deep, with at most ``max_items`` keys and items in all, and (when ``max_bytes``
    is given) at most that many bytes as UTF-8 JSON. The message names the problem and the
    path of the offending part (e.g. ``metadata.payload.n[2]``). The walk is iterative, so an
    arbitrarily deep value is refused without a ``RecursionError``.
    """
    # paths are kept as (parent, segment) links and rendered only for an error message
    stack: list[tuple[Any, _Path, int]] = [(value, (None, field), 0)]
    items = 0
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, dict | list | tuple):
            if depth + 1 > max_depth:
                raise ValueError(f"{_render(path)} is nested more than {max_depth} levels deep")
            items += len(node)
            if items > max_items:
                raise ValueError(f"{field} holds more than {max_items} keys and items")
            if isinstance(node, dict):
                for key, child in node.items():
                    _check_key(key, path)
                    stack.append((child, (path, f".{key}"), depth + 1))
            else:
                stack.extend((child, (path, f"[{i}]"), depth + 1) for i, child in enumerate(node))
            continue
        problem = _json_scalar_problem(node)
        if problem is not None:
            raise ValueError(f"{_render(path)} is {problem}; only JSON values can be stored")
    if max_bytes is not None:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
        if size > max_bytes:
            raise ValueError(
                f"{field} is {size} bytes as JSON, more than {max_bytes}; store large payloads "
                "externally and keep a handle in memory"
            )


class Evidence(BaseModel):
    """Where a memory came from: the turns and messages that state it, and their thread."""

    model_config = ConfigDict(extra="forbid")

    turn_ids: list[str] = Field(default_factory=list)
    message_ids: list[str] = Field(default_factory=list)
    thread_id: str | None = None
    checkpoint_id: str | None = None

    def is_empty(self) -> bool:
        """True when no turn or message id backs the memory."""
        return not self.turn_ids and not self.message_ids


_STORED = "stored_payload"
_STORED_CONTEXT = {_STORED: True}
"""Validation context of :meth:`MemoryRecord.from_payload` (a payload read from the store)."""


class MemoryRecord(BaseModel):
    """One stored memory. Validated on construction; invalid input raises ``ValueError``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    user_id: str
    project_id: str | None = None
    acl: list[str] = Field(default_factory=list)
    layer: Layer = Layer.SEMANTIC
    kind: Kind = Kind.STABLE_FACT
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    text: str
    context: str | None = None
    language: str | None = None
    confidence: float = 1.0
    importance: int = 5
    evidence: Evidence = Field(default_factory=Evidence)
    source: Source = Source.USER
    status: Status = Status.ACTIVE
    superseded_by: str | None = None
    version: int = 1
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expire_at: datetime | None = None
    task_id: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    last_accessed_at: datetime | None = None
    access_count: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if type(value) is str and _CANONICAL_UUID.fullmatch(value):
            return value  # str(uuid.UUID(value)) would give it back unchanged
        try:
            return str(uuid.UUID(str(value)))
        except (ValueError, AttributeError, TypeError) as exc:
            raise ValueError(f"id must be a UUID string, got {value!r}") from exc

    @field_validator("user_id")
    @classmethod
    def _valid_user(cls, value: str) -> str:
        return _clean_identifier(value, "user_id")

    @field_validator("project_id", "task_id", "superseded_by")
    @classmethod
    def _valid_optional_identifier(cls, value: str | None) -> str | None:
        return None if value is None else _clean_identifier(value, "identifier")

    @field_validator("acl")
    @classmethod
    def _valid_acl(cls, value: list[str]) -> list[str]:
        labels = sorted({_clean_identifier(label, "acl label") for label in value})
        if ANY in labels:
            raise ValueError(f"acl label {ANY!r} is reserved")
        return labels

    @field_validator("text")
    @classmethod
    def _valid_text(cls, value: str) -> str:
        if not isinstance(value, str):
            raise ValueError("text must be a string")
        cleaned = _clean_text(value).strip()
        if not cleaned:
            raise ValueError("text must not be empty")
        if len(cleaned) > MAX_TEXT_CHARS:
            raise ValueError(
                f"text has {len(cleaned)} characters, more than {MAX_TEXT_CHARS}; "
                "store large payloads externally and keep a handle in memory"
            )
        return cleaned

    @field_validator("context", "subject", "predicate", "object")
    @classmethod
    def _valid_optional_text(cls, value: str | None) -> str | None:
        if value is None:
            return None
        cleaned = _clean_text(value).strip()
        if len(cleaned) > MAX_TEXT_CHARS:
            raise ValueError(f"field has more than {MAX_TEXT_CHARS} characters")
        return cleaned or None

    @field_validator("confidence")
    @classmethod
    def _valid_confidence(cls, value: float) -> float:
        if not math.isfinite(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"confidence must be a finite number in [0, 1], got {value!r}")
        return float(value)

    @field_validator("importance")
    @classmethod
    def _valid_importance(cls, value: int) -> int:
        if not 1 <= value <= 10:
            raise ValueError(f"importance must be in 1..10, got {value!r}")
        return value

    @field_validator("version", "access_count")
    @classmethod
    def _valid_counter(cls, value: int) -> int:
        if value < 0:
            raise ValueError("counters must not be negative")
        return value

    @field_validator(
        "valid_from", "valid_to", "expire_at", "created_at", "updated_at", "last_accessed_at"
    )
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return None if value is None else to_utc(value)

    @field_validator("metadata", mode="before")
    @classmethod
    def _valid_metadata(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, dict):
            raise ValueError(f"metadata must be a dict, got {type(value).__name__}")
        if not (info.context and info.context.get(_STORED)):
            # a stored payload's metadata came out of the engine's JSON as it was checked
            # on its way in (:meth:`from_payload`); everything else is walked here
            check_json_value(value, "metadata", max_bytes=MAX_METADATA_BYTES)
        return value

    @model_validator(mode="after")
    def _window_is_ordered(self) -> MemoryRecord:
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError("valid_to must not be earlier than valid_from")
        return self

    # ------------------------------------------------------------------ payload form
    def to_payload(self) -> dict[str, Any]:
        """The Qdrant payload: every field JSON-encoded, plus ``_``-prefixed index fields."""
        payload = self.model_dump(mode="json")
        payload.update(
            _project=self.project_id or ANY,
            _acl=self.acl or [ANY],
            _valid_from=epoch(self.valid_from or self.created_at, 0.0),
            _valid_to=epoch(self.valid_to, FAR_FUTURE_EPOCH),
            _expire_at=epoch(self.expire_at, FAR_FUTURE_EPOCH),
            _created=epoch(self.created_at, 0.0),
        )
        return payload

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> MemoryRecord:
        """Rebuild a record from :meth:`to_payload` output (index fields are ignored). Every
        field is validated as on construction but ``metadata``'s JSON walk and size check:
        a payload holds what a validated record wrote, as JSON read back from the engine."""
        data = {k: v for k, v in payload.items() if not k.startswith("_")}
        return cls.model_validate(data, context=_STORED_CONTEXT)

    def index_text(self) -> str:
        """The text that recall indexes: the memory itself plus its indexing context."""
        return f"{self.text}\n{self.context}" if self.context else self.text

    def is_current(self, at: datetime | None = None) -> bool:
        """True when the record is active, not superseded, inside its window and not expired.
        A record without ``valid_from`` is valid from its ``created_at`` (when it was said)."""
        now = to_utc(at) if at else utcnow()
        return (
            self.status is Status.ACTIVE
            and self.superseded_by is None
            and (self.valid_from or self.created_at) <= now
            and (self.valid_to is None or now < self.valid_to)
            and (self.expire_at is None or now < self.expire_at)
        )


CONVERSATION_SUBJECT_PREFIX = "thread:"
"""Conversation episodes of one thread share the subject ``thread:<thread_id>``."""

CONVERSATION_PREDICATES = ("said", "replied")
"""Predicates of conversation episodes: a user turn (``said``) or an assistant reply."""


def is_conversation_episode(record: MemoryRecord) -> bool:
    """True for a conversation episode: a kept user turn or assistant reply (see
    :mod:`langgraph_memory.write.conversation`)."""
    return (
        record.layer is Layer.EPISODIC
        and record.predicate in CONVERSATION_PREDICATES
        and (record.subject or "").startswith(CONVERSATION_SUBJECT_PREFIX)
    )


__all__ = [
    "ANY",
    "CONVERSATION_PREDICATES",
    "CONVERSATION_SUBJECT_PREFIX",
    "FAR_FUTURE_EPOCH",
    "LEDGER_SUBJECT",
    "MAX_JSON_DEPTH",
    "MAX_JSON_ITEMS",
    "MAX_METADATA_BYTES",
    "MAX_REASON_CHARS",
    "MAX_TEXT_CHARS",
    "Evidence",
    "Kind",
    "Layer",
    "MemoryRecord",
    "Source",
    "Status",
    "check_json_value",
    "coerce_time",
    "is_conversation_episode",
    "utcnow",
]
