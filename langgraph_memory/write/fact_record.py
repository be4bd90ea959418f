"""A semantic record for an accepted candidate (pure: builds, never stores).

The value is stored as said; ``metadata["canonical"]`` holds the lexicon's form when it
differs. A fact is dated when its turn was said (imported history keeps its time), its
kind follows the candidate (a correction takes the kind of what it corrects), and
constraints rank above preferences and facts through ``importance``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..core.records import Kind, Layer, MemoryRecord, utcnow
from ..core.scope import Scope
from .lexicon import canonical_value
from .matching import project_level
from .slots.holder import health_base
from .types import Candidate


def _dated(said_at: datetime | None) -> dict[str, datetime]:
    """``created_at`` / ``valid_from`` of a new fact: when its turn was said (dated or
    imported history), else now. One clock for a fact and its turn's episode: recency and
    ``as_of`` compare both by when they were said, never a fact by when it was stored."""
    if said_at is None:
        return {"valid_from": utcnow()}
    return {"created_at": said_at, "valid_from": said_at}


def used_at(said_at: datetime | None, last: datetime | None) -> datetime:
    """``last_accessed_at`` after a reinforcing turn: when that turn was said (else now),
    never earlier than the fact's last use so far (``last``)."""
    when = said_at if said_at is not None else utcnow()
    return when if last is None or when > last else last


def stored_kind(candidate: Candidate, target: MemoryRecord | None) -> Kind:
    """The kind a fact of ``candidate`` is stored as: ``target``'s (the record it restores
    or replaces), else the candidate's own; a correction is stored as a constraint (a diet,
    an allergy, a rule for the assistant), a preference or a stable fact (by predicate)."""
    if target is not None:
        return target.kind
    if candidate.kind in {k.value for k in Kind}:
        kind = Kind(candidate.kind)
        if kind is Kind.CORRECTION and candidate.predicate:
            if health_base(candidate.predicate) is not None or (
                candidate.subject == "assistant" and candidate.predicate in {"must", "must_not"}
            ):
                return Kind.CONSTRAINT
            return (
                Kind.PREFERENCE
                if candidate.subject == "user" and candidate.predicate in _PREFERENCE_PREDICATES
                else Kind.STABLE_FACT
            )
        return kind
    return Kind.STABLE_FACT


_IMPORTANCE_BONUS = {"constraint": 2, "correction": 1, "preference": 0, "stable_fact": 0}
"""Constraints rank above preferences and facts in recall (importance is a rerank factor)."""


_PREFERENCE_PREDICATES = {
    "answer_language",
    "response_length",
    "drink",
    "editor",
    "ui_theme",
    "indentation",
    "units",
    "programming_language",
    "operating_system",
    "likes",
    "dislikes",
    "cuisine",
}


def fact_record(
    candidate: Candidate,
    scope: Scope,
    turn_key: str,
    *,
    importance: int,
    kind: Kind | None = None,
    extra_meta: dict[str, Any] | None = None,
    subject: str | None = None,
    predicate: str | None = None,
) -> MemoryRecord:
    """A semantic record for ``candidate`` written by ``turn_key`` (not yet stored);
    ``importance`` is the configured base (``WriteConfig.importance``)."""
    s = subject or candidate.subject
    p = predicate or candidate.predicate
    meta: dict[str, Any] = {
        "turn_keys": [turn_key],
        "extractor": candidate.extractor,
        "explicit": candidate.explicit,
        "scope_level": candidate.scope_level,
        # a value said as an addition is one of several current values of its predicate
        "multi_valued": candidate.multi_valued or candidate.adds,
    }
    if candidate.adds:
        meta["added"] = True
    if candidate.pii:
        meta["pii_redacted"] = list(candidate.pii)
    if candidate.episode_id:
        meta["episode_id"] = candidate.episode_id
    canonical = canonical_value(p, candidate.object) if p else None
    if canonical and canonical != candidate.object:
        meta["canonical"] = canonical  # the value as said is the object; this matches it
    if extra_meta:
        meta.update(extra_meta)
    return MemoryRecord(
        user_id=scope.user_id,
        project_id=project_level(candidate, scope),
        layer=Layer.SEMANTIC,
        kind=kind or stored_kind(candidate, None),
        subject=s,
        predicate=p,
        object=candidate.object,
        text=candidate.text,
        context=f"{s} {p} {candidate.object}",
        language=candidate.language,
        confidence=candidate.confidence,
        importance=min(10, importance + _IMPORTANCE_BONUS.get(candidate.kind, 0)),
        evidence=candidate.evidence,
        source=candidate.source,
        **_dated(candidate.said_at),
        metadata=meta,
    )


__all__ = ["fact_record", "stored_kind", "used_at"]
