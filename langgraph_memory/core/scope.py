"""Tenant scope: who is reading or writing memory.

Every read and write names a :class:`Scope`. There is no global scope: a missing or empty
``user_id`` raises :class:`~langgraph_memory.errors.ScopeError` (a ``ValueError``).

Visibility rules, applied inside the vector engine's query:

* ``user_id`` is a hard partition: a scope never sees another user's records.
* ``project_id=None`` sees the user's records that belong to no project. ``project_id="p"``
  sees project ``p``'s records *and* the user's project-less records (a preference the user
  stated once applies in every project); it never sees another project's records.
* ``acl`` is the set of labels the reader holds (a bare string is one label: ``acl="hr"``
  means ``("hr",)``). A record with an empty ``acl`` is visible to
  every reader of its user/project; a record with labels is visible only to a reader holding at
  least one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ScopeError
from .records import ANY


def _identifier(value: Any, name: str, *, required: bool) -> str | None:
    """``value`` checked as an identifier; never rewritten (``" alice"`` is refused, not
    stripped, so it cannot alias ``"alice"``)."""
    if value is None:
        if required:
            raise ScopeError(f"{name} is required: memory is never read or written globally")
        return None
    if not isinstance(value, str):
        raise ScopeError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        if required:
            raise ScopeError(f"{name} must be a non-empty string")
        return None
    if value != value.strip():
        raise ScopeError(f"{name} {value!r} has leading or trailing whitespace; pass it exactly")
    if len(value) > 256 or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ScopeError(f"{name} must be at most 256 printable characters")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise ScopeError(f"{name} contains lone surrogate code points")
    if value == ANY:
        raise ScopeError(f"{name} {ANY!r} is reserved")
    return value


def acl_labels(acl: Any) -> tuple[str, ...]:
    """``acl`` as a tuple of labels. A bare string is ONE label (``"hr"`` -> ``("hr",)``, never
    ``("h", "r")``); ``None`` is no label; other values must be a list/tuple/set of strings."""
    if acl is None:
        return ()
    if isinstance(acl, str):
        return (acl,)
    if not isinstance(acl, tuple | list | set | frozenset):
        raise ScopeError(f"acl must be a label or a sequence of labels, got {type(acl).__name__}")
    return tuple(acl)


@dataclass(frozen=True, slots=True)
class Scope:
    """The tenant a memory operation runs for. Validated on construction."""

    user_id: str
    project_id: str | None = None
    acl: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        user = _identifier(self.user_id, "user_id", required=True)
        project = _identifier(self.project_id, "project_id", required=False)
        labels = tuple(
            sorted(
                {
                    str(_identifier(label, "acl label", required=True))
                    for label in acl_labels(self.acl)
                }
            )
        )
        object.__setattr__(self, "user_id", user)
        object.__setattr__(self, "project_id", project)
        object.__setattr__(self, "acl", labels)

    @classmethod
    def of(cls, value: Scope | dict[str, Any] | str | None) -> Scope:
        """Coerce a ``Scope``, a mapping with ``user_id``, or a bare user id into a ``Scope``."""
        if isinstance(value, Scope):
            return value
        if isinstance(value, str):
            return cls(user_id=value)
        if isinstance(value, dict):
            unknown = set(value) - {"user_id", "project_id", "acl"}
            if unknown:
                raise ScopeError(f"unknown scope keys: {sorted(unknown)}")
            return cls(
                user_id=value.get("user_id"),  # type: ignore[arg-type]
                project_id=value.get("project_id"),
                acl=acl_labels(value.get("acl")),
            )
        raise ScopeError("a scope with a user_id is required; got " + type(value).__name__)

    def can_read(self, user_id: str, project_id: str | None, acl: list[str]) -> bool:
        """The visibility rule above, for one record's fields (used by tests and fallbacks)."""
        if user_id != self.user_id:
            return False
        if project_id is not None and project_id != self.project_id:
            return False
        return not acl or bool(set(acl) & set(self.acl))


__all__ = ["Scope", "acl_labels"]
