"""Security: one nested value must not brick the store.

The embedded engine accepts a payload nested ~120 levels deep and then cannot reopen
(``RecursionLimitExceeded``). Such values — and other non-JSON metadata — are refused at the
record/adapter boundary with a ``ValueError`` naming the problem and its path; nothing is
written, and the store reopens after every refused case.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import LangGraphMemoryStore, MemoryRecord, MemoryStore, Scope
from langgraph_memory.graph.langgraph_store import MAX_VALUE_DEPTH

from .conftest import BACKENDS, make_store, records_checksum


def _nested(levels: int) -> dict[str, Any]:
    v: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        v = {"n": v}
    return v


BAD_METADATA: dict[str, Any] = {
    "deep-120": (_nested(120), "nested more than"),
    "deep-124": (_nested(124), "nested more than"),
    "deep-list": (
        {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
        "nested",
    ),
    "int-key": ({1: "x"}, "non-string key"),
    "nan": ({"score": math.nan}, "non-finite"),
    "inf": ({"a": {"b": [math.inf]}}, "non-finite"),
    "surrogate-value": ({"a": "x\ud800y"}, "surrogate"),
    "surrogate-key": ({"a\udfff": 1}, "surrogate"),
    "set": ({"a": {1, 2}}, "not JSON"),
    "big-int": ({"a": 2**70}, "64-bit range"),
    "bytes": ({"a": b"raw"}, "not JSON"),
    "object": ({"a": object()}, "not JSON"),
    "too-big": ({"a": "x" * 70_000}, "bytes as JSON"),
    "too-many": ({"a": list(range(20_000))}, "keys and items"),
}


@pytest.mark.parametrize("case", sorted(BAD_METADATA))
def test_check_json_value_names_problem_and_path(case: str) -> None:
    from langgraph_memory.core.records import check_json_value

    value, problem = BAD_METADATA[case]
    with pytest.raises(ValueError, match=problem) as err:
        check_json_value(value, "metadata", max_bytes=64 * 1024)
    assert "metadata" in str(err.value)


def test_path_is_named() -> None:
    from langgraph_memory.core.records import MAX_JSON_DEPTH, check_json_value

    with pytest.raises(ValueError, match=r"metadata\.a\.b\[1\] is non-finite"):
        check_json_value({"a": {"b": [1, math.nan]}}, "metadata")
    check_json_value(_nested(MAX_JSON_DEPTH - 1), "metadata")  # at the limit: accepted
    with pytest.raises(ValueError, match=f"more than {MAX_JSON_DEPTH} levels"):
        check_json_value(_nested(MAX_JSON_DEPTH), "metadata")
    # an arbitrarily deep value is refused without a RecursionError
    with pytest.raises(ValueError, match="nested more than"):
        check_json_value(_nested(200_000), "metadata")
    check_json_value(_nested(20_000), "x", max_depth=10**9, max_items=10**9)


def test_record_refuses_deep_metadata() -> None:
    with pytest.raises(ValueError, match="nested more than"):
        MemoryRecord(user_id="alice", text="hi", metadata=_nested(120))
    rec = MemoryRecord(user_id="alice", text="hi")
    with pytest.raises(ValueError, match="nested more than"):
        rec.metadata = _nested(120)


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("case", sorted(BAD_METADATA))
def test_every_write_path_refuses_and_writes_nothing(
    kind: str, case: str, tmp_path: Path, embedder: Any
) -> None:
    value, problem = BAD_METADATA[case]
    store = make_store(kind, tmp_path, embedder)
    alice = Scope("alice")
    try:
        rid = store.add("alice likes tea", scope=alice, metadata={"ok": 1})
        before = records_checksum(store, "alice")
        attempts = [
            lambda: store.add("x", scope=alice, metadata=value),
            lambda: store.add_many(["y", "z"], scope=alice, metadata=value),
            lambda: store.add(MemoryRecord.model_construct(**_raw(value)), scope=alice),
            lambda: store.update(rid, scope=alice, metadata=value),
        ]
        if case not in {"int-key", "surrogate-key"}:  # BaseStore values are dicts of str keys
            lg = LangGraphMemoryStore(store)
            attempts.append(lambda: lg.put(("alice",), "k", {"text": "hi", "payload": value}))
        for attempt in attempts:
            with pytest.raises(ValueError, match=problem):
                attempt()
        assert records_checksum(store, "alice") == before
    finally:
        store.close()
    if kind == "edge":  # the store reopens and reads back
        with MemoryStore(path=tmp_path / "mem", embedder=embedder) as again:
            assert records_checksum(again, "alice") == before


def _raw(metadata: Any) -> dict[str, Any]:
    good = MemoryRecord(user_id="alice", text="constructed")
    return {**good.__dict__, "metadata": metadata}


def test_issue_repro_store_reopens(tmp_path: Path, embedder: Any) -> None:
    d = tmp_path / "mem"
    s = MemoryStore(path=d, embedder=embedder)
    lg = LangGraphMemoryStore(s)
    lg.put(("alice",), "fine", {"text": "hello", "payload": _nested(5)})
    before = records_checksum(s, "alice")
    with pytest.raises(
        ValueError, match=rf"value\.payload(\.n)+ is nested more than {MAX_VALUE_DEPTH}"
    ):
        lg.put(("alice",), "k", {"text": "hi", "payload": _nested(120)})
    assert records_checksum(s, "alice") == before
    s.close()
    with MemoryStore(path=d, embedder=embedder) as again:
        assert records_checksum(again, "alice") == before
        assert LangGraphMemoryStore(again).get(("alice",), "fine") is not None
        assert LangGraphMemoryStore(again).get(("alice",), "k") is None
