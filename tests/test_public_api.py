"""The public API is locked: adding or removing a name is a deliberate change to this list."""

from __future__ import annotations

import subprocess
import sys

import langgraph_memory

EXPECTED = {
    "AuditLog",
    "IllegalTransition",
    "LifecyclePolicy",
    "enforce_capacity",
    "sweep",
    "touch",
    "transition",
    "AgentState",
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
    "KeywordIndex",
    "Kind",
    "LangGraphMemoryError",
    "LangGraphMemoryStore",
    "Layer",
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
    "ensure_constraints",
    "forget_user",
    "load_embedder",
    "record_episode",
    "tokenize",
}


def test_all_is_locked() -> None:
    assert set(langgraph_memory.__all__) == EXPECTED
    assert len(langgraph_memory.__all__) == len(EXPECTED)  # no duplicates


def test_every_exported_name_exists() -> None:
    namespace: dict[str, object] = {}
    exec(f"from langgraph_memory import {', '.join(langgraph_memory.__all__)}", namespace)
    for name in langgraph_memory.__all__:
        obj = namespace[name]
        if name == "__version__":
            assert isinstance(obj, str) and obj[0].isdigit(), obj
            continue
        # defined by this package (not a re-export of langgraph's or pydantic's name) ...
        module = getattr(obj, "__module__", None) or type(obj).__module__
        assert module.split(".")[0] == "langgraph_memory", (name, module)
        # ... under the name it is exported as (classes and functions)
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__qualname__")):
            assert getattr(obj, "__name__", name) == name, (name, obj)


def test_config_and_scope_errors_are_value_errors() -> None:
    from langgraph_memory import ConfigError, FilterError, RecordValidationError, ScopeError

    for exc in (ConfigError, ScopeError, FilterError, RecordValidationError):
        assert issubclass(exc, ValueError)
        assert issubclass(exc, langgraph_memory.LangGraphMemoryError)


def test_import_is_light_and_loads_no_model() -> None:
    """Importing the package must not import torch or sentence-transformers (the default
    embedder is numpy-only; models load lazily on first use)."""
    code = (
        "import sys, langgraph_memory; "
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'langchain', 'psycopg') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
