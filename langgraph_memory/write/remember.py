"""What the agent chose to remember (the ``manage_memory`` tool), as a candidate (pure).

The ``(subject, predicate, object)`` come from the generic slots of the clause read as
``kind`` (``note`` with the words when no slot fits); a replacement of a stored record keeps
that record's subject and predicate. The candidate is explicit, ``source=tool``,
``extractor="tool"``, and carries the clause's PII and injection flags for the gates.
"""

from __future__ import annotations

from ..core.records import Evidence, MemoryRecord, Source
from ..core.text import detect_language
from .extract.injection import detect_injection
from .slots.dispatch import slot_for
from .types import Candidate


def agent_candidate(
    clause: str,
    kind: str,
    evidence: Evidence,
    *,
    pii: list[str],
    refused: list[str],
    old: MemoryRecord | None,
) -> Candidate:
    """The candidate of the agent's (redacted) ``clause``; ``old``: the record it replaces."""
    slots = slot_for(kind, clause)
    subject, predicate, obj = (
        (slots[0].subject, slots[0].predicate, slots[0].object)
        if slots
        else ("user", "note", clause)
    )
    multi = bool(slots and slots[0].multi_valued) or not slots
    if old is not None:
        subject, predicate = old.subject or subject, old.predicate or predicate
        multi = False
    return Candidate(
        subject=subject,
        predicate=predicate,
        object=obj or clause,
        text=clause or "-",
        kind=kind,
        confidence=1.0,
        evidence=evidence,
        explicit=True,
        language=detect_language(clause),
        source=Source.TOOL,
        extractor="tool",
        multi_valued=multi,
        pii=pii,
        refused_pii=refused,
        injection=detect_injection(clause),
    )


__all__ = ["agent_candidate"]
