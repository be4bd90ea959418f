"""What a recall returns: :class:`SearchHit`, :class:`RecallResult` and
:class:`RecallExplanation` (pure, frozen models; no engine access)."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field

from ..core.records import MemoryRecord
from .ranking import Explanation


class SearchHit(BaseModel):
    """One recalled memory with the reasons it ranked where it did."""

    model_config = ConfigDict(frozen=True)

    record: MemoryRecord
    score: float
    explanation: Explanation


FILTER_REASONS = {
    "status": "its status is {status}, recall wants active",
    "superseded_by": "it was superseded by {superseded_by}",
    "_valid_from": "its validity starts later ({valid_from})",
    "_valid_to": "its validity ended ({valid_to})",
    "_expire_at": "it expired ({expire_at})",
}
"""Why a visible record fails a recall condition, by the condition's payload field."""


class RecallExplanation(BaseModel):
    """Why one record was (not) recalled for a query (:meth:`MemoryStore.explain`).

    ``recalled``: the record is among the top ``k`` for ``query``. ``reason``: one sentence
    (not visible to the scope; filtered out by status / supersession / validity / expiry /
    a caller filter, listed in ``filtered_by``; ranked below ``k``; not a candidate of
    either retriever). ``rank`` (1-based) and ``explanation`` (dense and keyword rank and
    score, fused score, rerank factors) when it was ranked; ``candidates``: how many records
    were ranked.
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    recalled: bool
    reason: str
    k: int
    filtered_by: list[str] = Field(default_factory=list)
    rank: int | None = None
    candidates: int = 0
    explanation: Explanation | None = None


class RecallResult(BaseModel):
    """The outcome of one recall: hits best first, and whether recall ran degraded."""

    model_config = ConfigDict(frozen=True)

    hits: list[SearchHit] = Field(default_factory=list)
    degraded: bool = False
    degraded_reason: str | None = None
    mode: str = "hybrid"
    elapsed_ms: float = 0.0

    def __iter__(self) -> Iterator[SearchHit]:  # type: ignore[override]
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index: int) -> SearchHit:
        return self.hits[index]

    @property
    def records(self) -> list[MemoryRecord]:
        """The recalled records, best first."""
        return [hit.record for hit in self.hits]

    @property
    def ids(self) -> list[str]:
        """The recalled record ids, best first."""
        return [hit.record.id for hit in self.hits]


__all__ = ["FILTER_REASONS", "RecallExplanation", "RecallResult", "SearchHit"]
