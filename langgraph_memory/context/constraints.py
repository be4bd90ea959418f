"""Constraint safety: every active constraint is in the prompt, and outputs are checked.

This module holds the constraint model (:class:`Constraint`, :class:`Violation`,
:func:`constraint_present`); the prompt side is
:mod:`~langgraph_memory.context.constraint_block`, the output side
:mod:`~langgraph_memory.context.checkers`.

The failure this module exists to prevent: an agent at step 90 breaks a rule it was given
at step 3 because the rule was pushed out of its context, and nobody noticed.

* :func:`ensure_constraints` runs *before* generation. Every active :class:`Constraint`
  must appear (whitespace- and case-insensitively) in the prompt text; the missing ones are
  appended in one marked block (:data:`CONSTRAINT_BLOCK_START` ... :data:`CONSTRAINT_BLOCK_END`)
  and the re-injection is logged on ``langgraph_memory.context``.
* :func:`check_output` runs *after* generation. A constraint may carry a ``checker`` spec
  (``{"type": "forbidden_terms", "terms": [...]}``); the checker of that type flags
  :class:`Violation` s. Built-in types: ``forbidden_terms``, ``forbidden_recipients``,
  ``required_language``, ``max_length``, ``required_format``. Register your own with
  :func:`register_checker`.

Example::

    >>> from langgraph_memory.context import check_output, ensure_constraints
    >>> c = Constraint(id="c1", text="Never mention the codename ORCA.",
    ...                checker={"type": "forbidden_terms", "terms": ["ORCA"]})
    >>> prompt, missing = ensure_constraints("You are a helpful assistant.", [c])
    >>> [m.id for m in missing], "Never mention the codename ORCA." in prompt
    (['c1'], True)
    >>> [v.kind for v in check_output("The codename is orca.", [c])]
    ['forbidden_terms']
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..core.logsafe import scrub_text

__all__ = ["Constraint", "ConstraintSource", "Violation", "constraint_present"]

ConstraintSource = Literal["state", "procedural", "recalled", "user"]


class Constraint(BaseModel):
    """One rule the agent must follow.

    ``id`` identifies it in logs and violations (use the memory record id for recalled
    constraints). ``text`` is what the model reads. ``checker`` optionally names a rule
    check run on outputs, e.g. ``{"type": "required_language", "language": "zh"}``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    source: ConstraintSource = "state"
    checker: dict[str, Any] | None = None

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("constraint text must not be blank")
        return value

    @field_validator("checker")
    @classmethod
    def _checker_has_type(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None and not isinstance(value.get("type"), str):
            raise ValueError('checker must be a mapping with a string "type"')
        return value


class Violation(BaseModel):
    """A generated output broke a constraint: which one, which check, and what was wrong."""

    model_config = ConfigDict(frozen=True)

    constraint_id: str
    kind: str
    detail: str

    def as_event(self) -> dict[str, str]:
        """The violation as logs and stream events carry it: the detail without the values it
        quotes (a forbidden term or recipient is the user's stored value) and without PII."""
        return {
            "constraint_id": self.constraint_id,
            "kind": self.kind,
            "detail": scrub_text(self.detail),
        }


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"\s+", " ", text).strip()


def constraint_present(prompt_text: str, constraint: Constraint) -> bool:
    """True when ``constraint.text`` appears in ``prompt_text``, ignoring case, Unicode width
    and runs of whitespace."""
    return _normalize(constraint.text) in _normalize(prompt_text)
