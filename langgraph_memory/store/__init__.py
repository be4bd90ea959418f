"""Memory storage: the :class:`MemoryStore` facade, its vector backends and keyword index."""

from .backend import ScoredPayload, VectorBackend
from .keyword import KeywordIndex
from .memory_store import MemoryStore, RecallExplanation, RecallResult, SearchHit
from .ranking import Explanation

__all__ = [
    "Explanation",
    "KeywordIndex",
    "MemoryStore",
    "RecallExplanation",
    "RecallResult",
    "ScoredPayload",
    "SearchHit",
    "VectorBackend",
]
