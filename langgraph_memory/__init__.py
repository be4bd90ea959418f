"""langgraph-memory: long-term memory for LangGraph agents.

Memory is data, not chat history: records with a tenant scope, provenance, a validity window,
versions and a lifecycle, recalled by a hybrid (vector + keyword) search that filters by tenant
inside the Qdrant engine.

    from langgraph_memory import MemoryStore, Scope, create_memory_agent

    with MemoryStore(path="./memory") as store:
        scope = Scope(user_id="alice")
        store.add("Alice prefers answers in Chinese", scope=scope, kind="preference")
        for hit in store.search("which language should I answer in?", scope):
            print(hit.record.text, hit.explanation.final)

API map
-------
The package root exports exactly the names listed in this section (``tests/test_public_api.py``
reads them from here and compares them with ``__all__``). Every other public name has exactly one
home, the sub-package named after the arrow.

Stateful operations (they hold or change memory):

* ``MemoryStore`` — the store: CRUD with compare-and-set, supersede/history, hybrid search,
  erasure; embedded engine by default, a Qdrant server with ``url=``.
* ``WritePipeline`` — one turn in, gated memories out: redact, keep the turn as an episode,
  extract, classify, gate, resolve against what is stored, write.
* ``BackgroundWriter`` — the same pipeline run after the turn (deferred, durable queue).
* ``forget_user`` — erase a user everywhere (records, keyword index, checkpoints, handles, logs)
  and return a receipt.
* ``create_checkpointer`` — a checkpointer that owns its threads (tenant-checked reads, PII
  redaction at rest).
* ``LangGraphMemoryStore`` — the store behind LangGraph's ``BaseStore`` API.

Graph building blocks (LangGraph nodes and agents):

* ``AgentState``, ``MemoryContext`` — the typed state and the run context (``user_id`` ...).
* ``LoadMemory``, ``Generate``, ``SaveMemory``, ``CompactIfNeeded``, ``ConstraintAssert`` — the
  five nodes, each usable alone with a fake state.
* ``create_memory_agent`` — the prebuilt agent wiring the five nodes.
* ``MemoryMiddleware`` — the same memory for ``langchain.agents.create_agent`` (``[agents]``).

Values (pure data):

* ``Scope`` — who is reading or writing; required everywhere, ``user_id`` is mandatory.
* ``MemoryRecord`` — one memory.
* ``SearchHit`` — a recalled record with the explanation of its score.
* ``MemoryConfig`` — the store's settings (recall, lifecycle, embedder, engine).

Sub-packages (each name importable from one place):

* ``langgraph_memory.errors`` — the error hierarchy (scope/config errors are ``ValueError``).
* ``langgraph_memory.core`` — record enums (``Kind``, ``Layer``, ``Status``, ``Source``),
  ``Evidence``, ``RecallConfig``, ``LifecyclePolicy``, ``tokenize``.
* ``langgraph_memory.embeddings`` — ``Embedder`` protocol, the default and sentence-transformers
  embedders, ``load_embedder``.
* ``langgraph_memory.store`` — ``Explanation``, ``RecallResult``, the keyword index.
* ``langgraph_memory.write`` — write-path values and extractors (``WriteConfig``, ``Candidate``,
  ``WriteDecision``, ``WriteReport``, ``LLMExtractor``, ``record_episode``).
* ``langgraph_memory.read`` — what recall becomes in the prompt (memory block, excerpts).
* ``langgraph_memory.context`` — token budget, compaction, constraints, handles
  (``Constraint``, ``compact_messages``, ``check_output`` ...).
* ``langgraph_memory.lifecycle`` — transitions, sweeps, capacity, the audit log, erasure.
* ``langgraph_memory.graph.tools`` — ``manage_memory`` / ``search_memory`` tools scoped by the
  run context.
* ``langgraph_memory.graph.checkpoint`` — the checkpointer classes behind ``create_checkpointer``.
  (``langgraph_memory.graph`` holds the LangGraph integration behind the root's graph names.)
* ``langgraph_memory.testing`` — offline scripted chat model, fake runtime and state, an
  in-memory store for tests.

The benchmarks (``langgraph_memory.eval``) and the command line (``langgraph_memory.cli``) are
run, not imported: ``python -m langgraph_memory bench ...``.

Layers import downwards only (a test asserts the import graph has no cycle): ``core`` and
``errors`` import nothing else of the package; ``store`` builds on ``core`` and ``embeddings``;
``write``, ``read``, ``context`` and ``lifecycle`` build on ``store``; ``graph`` builds on all of
them; ``cli`` and ``eval`` sit on top.

Names are imported lazily: ``import langgraph_memory`` loads no model, no torch and no LangGraph
graph code until a name is used. The names the 0.1 root exported and this one does not still
work for one release, with a :class:`DeprecationWarning` that names their new home.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time the names load lazily
    from .core.config import MemoryConfig
    from .core.records import MemoryRecord
    from .core.scope import Scope
    from .graph.checkpoint import create_checkpointer
    from .graph.langgraph_store import LangGraphMemoryStore
    from .graph.middleware import MemoryMiddleware
    from .graph.nodes import CompactIfNeeded, ConstraintAssert, Generate, LoadMemory, SaveMemory
    from .graph.prebuilt import create_memory_agent
    from .graph.state import AgentState, MemoryContext
    from .lifecycle.forget import forget_user
    from .store import MemoryStore, SearchHit
    from .write import BackgroundWriter, WritePipeline

# A library must not print its warnings in apps that never configured logging.
logging.getLogger("langgraph_memory").addHandler(logging.NullHandler())

__version__ = "0.2.0"

#: Root name -> the module it is loaded from on first use.
_EXPORTS: dict[str, str] = {
    "AgentState": "langgraph_memory.graph.state",
    "BackgroundWriter": "langgraph_memory.write",
    "CompactIfNeeded": "langgraph_memory.graph.nodes",
    "ConstraintAssert": "langgraph_memory.graph.nodes",
    "Generate": "langgraph_memory.graph.nodes",
    "LangGraphMemoryStore": "langgraph_memory.graph.langgraph_store",
    "LoadMemory": "langgraph_memory.graph.nodes",
    "MemoryConfig": "langgraph_memory.core.config",
    "MemoryContext": "langgraph_memory.graph.state",
    "MemoryMiddleware": "langgraph_memory.graph.middleware",
    "MemoryRecord": "langgraph_memory.core.records",
    "MemoryStore": "langgraph_memory.store",
    "SaveMemory": "langgraph_memory.graph.nodes",
    "Scope": "langgraph_memory.core.scope",
    "SearchHit": "langgraph_memory.store",
    "WritePipeline": "langgraph_memory.write",
    "create_checkpointer": "langgraph_memory.graph.checkpoint",
    "create_memory_agent": "langgraph_memory.graph.prebuilt",
    "forget_user": "langgraph_memory.lifecycle.forget",
}

#: Names the 0.1 root exported that live in one sub-package now -> that sub-package.
#: Reading one from the root warns once and returns the same object (removed in 0.3).
_MOVED: dict[str, str] = {
    **dict.fromkeys(
        (
            "ConfigError",
            "FilterError",
            "IllegalTransition",
            "LangGraphMemoryError",
            "RecordNotFound",
            "RecordValidationError",
            "ScopeError",
            "StoreUnavailable",
            "VersionConflict",
        ),
        "langgraph_memory.errors",
    ),
    **dict.fromkeys(
        ("Evidence", "Kind", "Layer", "LifecyclePolicy", "RecallConfig", "Source", "Status"),
        "langgraph_memory.core",
    ),
    "tokenize": "langgraph_memory.core",
    **dict.fromkeys(
        ("Embedder", "SentenceTransformerEmbedder", "USEEmbedder", "load_embedder"),
        "langgraph_memory.embeddings",
    ),
    **dict.fromkeys(("Explanation", "KeywordIndex", "RecallResult"), "langgraph_memory.store"),
    **dict.fromkeys(
        ("Candidate", "WriteConfig", "WriteDecision", "WriteReport", "record_episode"),
        "langgraph_memory.write",
    ),
    **dict.fromkeys(
        (
            "CompactionConfig",
            "CompactionResult",
            "Constraint",
            "HandleStore",
            "TokenCounter",
            "Violation",
            "check_output",
            "compact_messages",
            "create_fetch_memory_tool",
            "default_token_counter",
            "ensure_constraints",
        ),
        "langgraph_memory.context",
    ),
    **dict.fromkeys(
        ("AuditLog", "enforce_capacity", "sweep", "touch", "transition"),
        "langgraph_memory.lifecycle",
    ),
    "OwnedCheckpointSaver": "langgraph_memory.graph.checkpoint",
    **dict.fromkeys(
        (
            "create_compact_if_needed",
            "create_constraint_assert",
            "create_generate",
            "create_load_memory",
            "create_save_memory",
        ),
        "langgraph_memory.graph.nodes",
    ),
}

__all__ = [
    "AgentState",
    "BackgroundWriter",
    "CompactIfNeeded",
    "ConstraintAssert",
    "Generate",
    "LangGraphMemoryStore",
    "LoadMemory",
    "MemoryConfig",
    "MemoryContext",
    "MemoryMiddleware",
    "MemoryRecord",
    "MemoryStore",
    "SaveMemory",
    "Scope",
    "SearchHit",
    "WritePipeline",
    "__version__",
    "create_checkpointer",
    "create_memory_agent",
    "forget_user",
]


def __getattr__(name: str) -> object:
    """Load a root name on first use (PEP 562); moved 0.1 names warn and still resolve."""
    home = _EXPORTS.get(name)
    if home is not None:
        value = getattr(importlib.import_module(home), name)
        globals()[name] = value  # later reads skip this hook
        return value
    new_home = _MOVED.get(name)
    if new_home is not None:
        warnings.warn(
            f"langgraph_memory.{name} moved: import it from {new_home} "
            "(the root re-export is removed in 0.3)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(new_home), name)
    raise AttributeError(f"module 'langgraph_memory' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
