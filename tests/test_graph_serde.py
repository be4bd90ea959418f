"""Our types in checkpoints resume without LangGraph's "unregistered type" warning."""

from __future__ import annotations

import logging

import pytest
from langgraph.checkpoint.serde import jsonplus
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import BaseModel

from langgraph_memory import create_checkpointer
from langgraph_memory.context import Constraint
from langgraph_memory.graph.checkpoint import SERDE_TYPES


class _NotOurs(BaseModel):
    value: int = 1


def _roundtrip(obj: object) -> object:
    serde = JsonPlusSerializer()
    return serde.loads_typed(serde.dumps_typed(obj))


def test_resume_of_a_constraint_logs_no_unregistered_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(jsonplus, "_warned_unregistered_types", set())  # as in a new process
    caplog.set_level(logging.WARNING, logger="langgraph.checkpoint.serde.jsonplus")
    constraint = Constraint(id="c1", text="never mention the budget")
    assert _roundtrip(constraint) == constraint
    assert not [r for r in caplog.records if "Constraint" in r.getMessage()]
    _roundtrip(_NotOurs())  # another type still warns: the filter is narrow
    assert [r for r in caplog.records if "_NotOurs" in r.getMessage()]


def test_checkpointers_register_our_types_on_a_strict_allowlist() -> None:
    saver = create_checkpointer("memory")
    saver.inner.serde = JsonPlusSerializer(allowed_msgpack_modules=[])  # strict, nothing extra
    strict = saver.with_allowlist([("tests.test_graph_serde", "_NotOurs")])
    allowed = strict.serde._allowed_msgpack_modules
    assert set(SERDE_TYPES) <= allowed and ("tests.test_graph_serde", "_NotOurs") in allowed
