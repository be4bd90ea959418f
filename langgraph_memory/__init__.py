"""langgraph-memory: long-term memory for LangGraph agents.

Public API (locked by ``tests/test_public_api.py``)::

    from langgraph_memory import MemoryStore, MemoryRecord, Scope

    with MemoryStore(path="./memory") as store:
        scope = Scope(user_id="alice")
        store.add("Alice prefers answers in Chinese", scope=scope, kind="preference")
        for hit in store.search("which language should I answer in?", scope):
            print(hit.record.text, hit.explanation.final)
"""

from .config import MemoryConfig, RecallConfig
from .embeddings import Embedder, SentenceTransformerEmbedder, USEEmbedder, load_embedder
from .errors import (
    ConfigError,
    FilterError,
    LangGraphMemoryError,
    RecordNotFound,
    RecordValidationError,
    ScopeError,
    StoreUnavailable,
    VersionConflict,
)
from .records import Evidence, Kind, Layer, MemoryRecord, Source, Status
from .scope import Scope
from .store import Explanation, KeywordIndex, MemoryStore, RecallResult, SearchHit
from .text import tokenize

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "Embedder",
    "Evidence",
    "Explanation",
    "FilterError",
    "KeywordIndex",
    "Kind",
    "LangGraphMemoryError",
    "Layer",
    "MemoryConfig",
    "MemoryRecord",
    "MemoryStore",
    "RecallConfig",
    "RecallResult",
    "RecordNotFound",
    "RecordValidationError",
    "Scope",
    "ScopeError",
    "SearchHit",
    "SentenceTransformerEmbedder",
    "Source",
    "Status",
    "StoreUnavailable",
    "USEEmbedder",
    "VersionConflict",
    "__version__",
    "load_embedder",
    "tokenize",
]
