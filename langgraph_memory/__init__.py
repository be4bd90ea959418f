"""langgraph-memory: long-term memory for LangGraph agents.

Public API (locked by ``tests/test_public_api.py``)::

    from langgraph_memory import MemoryStore, Scope, create_memory_agent, MemoryContext

    with MemoryStore(path="./memory") as store:
        scope = Scope(user_id="alice")
        store.add("Alice prefers answers in Chinese", scope=scope, kind="preference")
        for hit in store.search("which language should I answer in?", scope):
            print(hit.record.text, hit.explanation.final)

What a turn becomes: ``save_memory`` → :class:`WritePipeline` keeps the (redacted) turn as a
conversation episode (``langgraph_memory.write.conversation``: pure ``build_episode``,
``noise_reason``; stateful ``write_episode``) and extracts gated facts from it (rules extract,
a learned clause classifier decides: ``langgraph_memory.write.classify`` / ``decide`` /
``slots``, all pure);
``WritePipeline.import_conversation`` brings past conversations through the same path. What the
model sees: ``load_memory`` ranks facts and episodes in one hybrid search and renders facts, then
dated excerpts (``langgraph_memory.read.conversation``: pure ``select_hits``,
``expand_neighbours``, ``render_conversation``, ``memory_parts``).

Sub-packages hold the rest: ``langgraph_memory.write`` (write path), ``langgraph_memory.context``
(token budget, compaction, constraints), ``langgraph_memory.eval`` (benchmarks),
``langgraph_memory.graph.middleware`` (``MemoryMiddleware`` for ``langchain.agents.create_agent``;
needs the ``agents`` extra), ``langgraph_memory.graph.tools`` (``manage_memory`` / ``search_memory``
tools scoped by the run context), ``langgraph_memory.graph.toolcalls`` (what ``generate`` and the
middleware share for any chat model: ``tool_choice`` on the first call of a turn, tool calls
written as JSON text, holding the token stream while output checks run),
``langgraph_memory.testing`` (offline model, fake runtime and state, an in-memory store for
tests).

The core install pulls no torch; sentence-transformers embedders need the ``[st]`` extra.
"""

import logging

from .context import (
    CompactionConfig,
    CompactionResult,
    Constraint,
    HandleStore,
    TokenCounter,
    Violation,
    check_output,
    compact_messages,
    create_fetch_memory_tool,
    default_token_counter,
    ensure_constraints,
)
from .core.config import LifecyclePolicy, MemoryConfig, RecallConfig
from .core.records import Evidence, Kind, Layer, MemoryRecord, Source, Status
from .core.scope import Scope
from .core.text import tokenize
from .embeddings import Embedder, SentenceTransformerEmbedder, USEEmbedder, load_embedder
from .errors import (
    ConfigError,
    FilterError,
    IllegalTransition,
    LangGraphMemoryError,
    RecordNotFound,
    RecordValidationError,
    ScopeError,
    StoreUnavailable,
    VersionConflict,
)
from .graph.checkpoint.saver import OwnedCheckpointSaver, create_checkpointer
from .graph.langgraph_store import LangGraphMemoryStore
from .graph.nodes import (
    CompactIfNeeded,
    ConstraintAssert,
    Generate,
    LoadMemory,
    SaveMemory,
    create_compact_if_needed,
    create_constraint_assert,
    create_generate,
    create_load_memory,
    create_save_memory,
)
from .graph.prebuilt import create_memory_agent
from .graph.state import AgentState, MemoryContext
from .lifecycle.audit import AuditLog
from .lifecycle.expiry import sweep
from .lifecycle.forget import forget_user
from .lifecycle.ops import enforce_capacity, touch, transition
from .store import Explanation, KeywordIndex, MemoryStore, RecallResult, SearchHit
from .write import (
    BackgroundWriter,
    Candidate,
    WriteConfig,
    WriteDecision,
    WritePipeline,
    WriteReport,
    record_episode,
)

# A library must not print its warnings in apps that never configured logging.
logging.getLogger("langgraph_memory").addHandler(logging.NullHandler())

__version__ = "0.1.0"

__all__ = [
    "AgentState",
    "AuditLog",
    "BackgroundWriter",
    "Candidate",
    "CompactIfNeeded",
    "CompactionConfig",
    "CompactionResult",
    "ConfigError",
    "Constraint",
    "ConstraintAssert",
    "Embedder",
    "Evidence",
    "Explanation",
    "FilterError",
    "Generate",
    "HandleStore",
    "IllegalTransition",
    "KeywordIndex",
    "Kind",
    "LangGraphMemoryError",
    "LangGraphMemoryStore",
    "Layer",
    "LifecyclePolicy",
    "LoadMemory",
    "MemoryConfig",
    "MemoryContext",
    "MemoryRecord",
    "MemoryStore",
    "OwnedCheckpointSaver",
    "RecallConfig",
    "RecallResult",
    "RecordNotFound",
    "RecordValidationError",
    "SaveMemory",
    "Scope",
    "ScopeError",
    "SearchHit",
    "SentenceTransformerEmbedder",
    "Source",
    "Status",
    "StoreUnavailable",
    "TokenCounter",
    "USEEmbedder",
    "VersionConflict",
    "Violation",
    "WriteConfig",
    "WriteDecision",
    "WritePipeline",
    "WriteReport",
    "__version__",
    "check_output",
    "compact_messages",
    "create_checkpointer",
    "create_compact_if_needed",
    "create_constraint_assert",
    "create_fetch_memory_tool",
    "create_generate",
    "create_load_memory",
    "create_memory_agent",
    "create_save_memory",
    "default_token_counter",
    "enforce_capacity",
    "ensure_constraints",
    "forget_user",
    "load_embedder",
    "record_episode",
    "sweep",
    "tokenize",
    "touch",
    "transition",
]
