"""The docstring examples of the context package run (and must pass)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "langgraph_memory.context.compaction",
    "langgraph_memory.context.constraints",
    "langgraph_memory.read.budget",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_context_package_exports_the_team_interface() -> None:
    import langgraph_memory.context as ctx

    required = {
        "TokenCounter",
        "default_token_counter",
        "CompactionConfig",
        "CompactionResult",
        "compact_messages",
        "HandleStore",
        "create_fetch_memory_tool",
        "Constraint",
        "ensure_constraints",
        "check_output",
        "Violation",
    }
    assert required <= set(ctx.__all__)
    assert all(hasattr(ctx, name) for name in ctx.__all__)
