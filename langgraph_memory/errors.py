"""Error hierarchy of langgraph-memory.

Every error raised on purpose by this package derives from :class:`LangGraphMemoryError`.
Configuration and scope errors also derive from :class:`ValueError`, so LangGraph's default
``RetryPolicy`` (which does not retry ``ValueError``) fails fast on them instead of retrying a
call that can never succeed.
"""

from __future__ import annotations


class LangGraphMemoryError(Exception):
    """Root of every error this package raises on purpose."""


class ConfigError(LangGraphMemoryError, ValueError):
    """A configuration value is missing, malformed or inconsistent. Fix the configuration."""


class ScopeError(LangGraphMemoryError, ValueError):
    """A read or write was attempted without a valid tenant scope (e.g. no ``user_id``).

    Memory is never read from or written to a global scope: pass a ``Scope`` (or a LangGraph
    ``context=`` with ``user_id``) that names the user the memory belongs to.
    """


class RecordValidationError(LangGraphMemoryError, ValueError):
    """A memory record or one of its fields is invalid; nothing was stored."""


class FilterError(LangGraphMemoryError, ValueError):
    """A search filter names an unknown field or has a value of the wrong type."""


class RecordNotFound(LangGraphMemoryError, KeyError):
    """No record with that id exists in the caller's scope."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else "record not found"


class VersionConflict(LangGraphMemoryError):
    """An update carried an ``expected_version`` that no longer matches the stored record.

    Nothing was written. Re-read the record (``store.get``), merge your change into the
    current version, and retry with its ``version`` as ``expected_version``.
    """

    def __init__(self, record_id: str, expected: int, actual: int | None) -> None:
        self.record_id = record_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"version conflict on record {record_id}: expected version {expected}, "
            f"stored version is {actual}; re-read the record, merge, and retry"
        )


class IllegalTransition(LangGraphMemoryError, ValueError):
    """A lifecycle transition the state machine does not allow (e.g. ``deleted -> active``,
    or a record moved to the status it already has). Nothing was written."""


class StoreUnavailable(LangGraphMemoryError, RuntimeError):
    """The vector engine could not be opened or reached (e.g. its path is locked)."""


__all__ = [
    "ConfigError",
    "FilterError",
    "IllegalTransition",
    "LangGraphMemoryError",
    "RecordNotFound",
    "RecordValidationError",
    "ScopeError",
    "StoreUnavailable",
    "VersionConflict",
]
