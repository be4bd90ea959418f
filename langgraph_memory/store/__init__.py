"""Memory storage: the :class:`MemoryStore` facade, its vector backends and keyword index."""

from .backend import ScoredPayload, VectorBackend
from .keyword import KeywordIndex
from .memory_store import MemoryStore as MemoryStore  # exported from the root
from .memory_store import RecallExplanation, RecallResult
from .memory_store import SearchHit as SearchHit  # exported from the root
from .ranking import Explanation

__all__ = [
    "Explanation",
    "KeywordIndex",
    "RecallExplanation",
    "RecallResult",
    "ScoredPayload",
    "VectorBackend",
]
