"""Security: malformed inputs are refused with a ValueError/TypeError subclass that names the
problem, and change nothing (a checksum of every stored record is equal before and after).

Every store case runs on both backends (the embedded engine and ``QdrantClient(":memory:")``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest

from langgraph_memory import (
    LangGraphMemoryStore,
    MemoryContext,
    MemoryRecord,
    MemoryStore,
    Scope,
    WritePipeline,
)
from langgraph_memory.errors import ConfigError, RecordValidationError, ScopeError
from langgraph_memory.lifecycle import AuditLog, enforce_capacity, sweep, transition
from langgraph_memory.write import WriteConfig

from .conftest import records_checksum

Case = Callable[[MemoryStore, dict[str, str]], Any]


def _seed(store: MemoryStore) -> dict[str, str]:
    ids = {
        "alice": store.add("alice drinks green tea", scope=Scope("alice")),
        "alice2": store.add("alice lives in Lyon", scope=Scope("alice")),
        "bob": store.add("bob drinks coffee", scope=Scope("bob")),
    }
    LangGraphMemoryStore(store).put(("alice",), "pref", {"text": "alice likes jazz"})
    return ids


def _lg(store: MemoryStore) -> LangGraphMemoryStore:
    return LangGraphMemoryStore(store)


A = Scope("alice")
HUGE = "x" * 5_000_000

CASES: dict[str, tuple[Case, type[BaseException], str]] = {
    "add_many-str": (lambda s, i: s.add_many("hello", scope=A), RecordValidationError, "list"),
    "add_many-dict": (
        lambda s, i: s.add_many({"text": "x"}, scope=A),  # type: ignore[arg-type]
        RecordValidationError,
        "list",
    ),
    "as_of-int": (lambda s, i: s.search("tea", A, as_of=5), TypeError, "as_of"),  # type: ignore[arg-type]
    "as_of-garbage": (lambda s, i: s.search("tea", A, as_of="soon"), ValueError, "as_of"),
    "invalidate-at-int": (
        lambda s, i: s.invalidate(i["alice"], scope=A, reason="r", at=5),  # type: ignore[arg-type]
        TypeError,
        "at",
    ),
    "invalidate-huge-reason": (
        lambda s, i: s.invalidate(i["alice"], scope=A, reason=HUGE),
        RecordValidationError,
        "reason",
    ),
    "invalidate-version-str": (
        lambda s, i: s.invalidate(i["alice"], scope=A, reason="r", expected_version="1"),  # type: ignore[arg-type]
        RecordValidationError,
        "expected_version",
    ),
    "sweep-now-int": (lambda s, i: sweep(s, A, now=5, audit=AuditLog()), TypeError, "now"),  # type: ignore[arg-type]
    "sweep-policy": (
        lambda s, i: sweep(s, A, policy="strict", audit=AuditLog()),  # type: ignore[arg-type]
        ConfigError,
        "policy",
    ),
    "capacity-policy": (
        lambda s, i: enforce_capacity(s, A, policy={"cap": 1}, audit=AuditLog()),  # type: ignore[arg-type]
        ConfigError,
        "policy",
    ),
    "update-version-str": (
        lambda s, i: s.update(i["alice"], scope=A, expected_version="1", text="y"),  # type: ignore[arg-type]
        RecordValidationError,
        "expected_version",
    ),
    "update-version-bool": (
        lambda s, i: s.update(i["alice"], scope=A, expected_version=True, text="y"),
        RecordValidationError,
        "expected_version",
    ),
    "supersede-version-str": (
        lambda s, i: s.supersede(i["alice"], "new", scope=A, expected_version="1"),  # type: ignore[arg-type]
        RecordValidationError,
        "expected_version",
    ),
    "list-limit-negative": (lambda s, i: s.list(scope=A, limit=-1), RecordValidationError, "limit"),
    "adapter-offset": (lambda s, i: _lg(s).search(("alice",), offset=-1), ValueError, "offset"),
    "adapter-limit": (lambda s, i: _lg(s).search(("alice",), limit=-1), ValueError, "limit"),
    "adapter-ttl-negative": (
        lambda s, i: _lg(s).put(("alice",), "k", {"text": "hi"}, ttl=-1),
        ValueError,
        "ttl",
    ),
    "adapter-ttl-huge": (
        lambda s, i: _lg(s).put(("alice",), "k", {"text": "hi"}, ttl=10**20),
        ValueError,
        "ttl",
    ),
    "adapter-ttl-nan": (
        lambda s, i: _lg(s).put(("alice",), "k", {"text": "hi"}, ttl=float("nan")),
        ValueError,
        "ttl",
    ),
    "adapter-key-none": (
        lambda s, i: _lg(s).put(("alice",), None, {"text": "hi"}),  # type: ignore[arg-type]
        TypeError,
        "key",
    ),
    "adapter-get-key-none": (lambda s, i: _lg(s).get(("alice",), None), TypeError, "key"),  # type: ignore[arg-type]
    "adapter-delete-key-none": (lambda s, i: _lg(s).delete(("alice",), None), TypeError, "key"),  # type: ignore[arg-type]
    "adapter-prefix-str": (
        lambda s, i: LangGraphMemoryStore(s, prefix="mem"),  # type: ignore[arg-type]
        TypeError,
        "prefix",
    ),
    "adapter-namespace-str": (
        lambda s, i: _lg(s).put("al", "k", {"text": "hi"}),  # type: ignore[arg-type]
        TypeError,
        "namespace",
    ),
    "config-wrong-type": (
        lambda s, i: MemoryStore(client=object(), config={"path": "x"}),  # type: ignore[arg-type]
        ConfigError,
        "config",
    ),
    "lifecycle-wrong-type": (
        lambda s, i: MemoryStore(client=object(), lifecycle="none"),  # type: ignore[arg-type]
        ConfigError,
        "lifecycle",
    ),
    "pipeline-config-wrong-type": (
        lambda s, i: WritePipeline(s, config={"min_confidence": 0.5}),  # type: ignore[arg-type]
        ConfigError,
        "config",
    ),
    "scope-leading-space": (lambda s, i: s.add("x", scope=" alice"), ScopeError, "whitespace"),
    "scope-trailing-newline": (
        lambda s, i: s.add("x", scope="alice\n"),
        ScopeError,
        "whitespace",
    ),
    "scope-tab": (lambda s, i: s.list(scope={"user_id": "\talice"}), ScopeError, "whitespace"),
    "record-user-space": (
        lambda s, i: s.add(MemoryRecord(user_id="alice ", text="x"), scope=A),
        ValueError,
        "whitespace",
    ),
    "delete-user-space": (lambda s, i: s.delete_user(" alice"), ScopeError, "whitespace"),
    "transition-reason-none": (
        lambda s, i: transition(
            s,
            i["alice"],
            "stale",
            scope=A,
            reason=None,
            actor="t",
            audit=AuditLog(),  # type: ignore[arg-type]
        ),
        TypeError,
        "reason",
    ),
    "transition-reason-huge": (
        lambda s, i: transition(
            s, i["alice"], "stale", scope=A, reason=HUGE, actor="t", audit=AuditLog()
        ),
        ValueError,
        "reason",
    ),
    "transition-actor-none": (
        lambda s, i: transition(
            s,
            i["alice"],
            "stale",
            scope=A,
            reason="r",
            actor=None,
            audit=AuditLog(),  # type: ignore[arg-type]
        ),
        TypeError,
        "actor",
    ),
    "transition-audit-wrong": (
        lambda s, i: transition(s, i["alice"], "stale", scope=A, reason="r", actor="t", audit=[]),  # type: ignore[arg-type]
        TypeError,
        "audit",
    ),
    "transition-delete-reason-none": (
        lambda s, i: transition(
            s,
            i["alice"],
            "deleted",
            scope=A,
            reason=None,
            actor="t",
            audit=AuditLog(),  # type: ignore[arg-type]
        ),
        TypeError,
        "reason",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_and_nothing_changed(store: MemoryStore, case: str) -> None:
    fn, exc, problem = CASES[case]
    ids = _seed(store)
    before = records_checksum(store, "alice", "bob")
    with pytest.raises(exc, match=problem) as err:
        fn(store, ids)
    assert isinstance(err.value, ValueError | TypeError)
    assert records_checksum(store, "alice", "bob") == before


def test_transition_failure_leaves_record_byte_identical(store: MemoryStore) -> None:
    ids = _seed(store)
    audit = AuditLog()
    before = store.get(ids["alice"], scope=A).model_dump_json()
    with pytest.raises(TypeError, match="reason"):
        transition(store, ids["alice"], "stale", scope=A, reason=None, actor="t", audit=audit)  # type: ignore[arg-type]
    assert store.get(ids["alice"], scope=A).model_dump_json() == before
    assert len(audit) == 0


def test_existing_id_error_is_the_same_for_any_owner(store: MemoryStore) -> None:
    ids = _seed(store)
    before = records_checksum(store, "alice", "bob")
    messages = []
    for taken in (ids["bob"], ids["alice2"]):  # another tenant's id, then alice's own
        with pytest.raises(RecordValidationError) as err:
            store.add(MemoryRecord(id=taken, user_id="alice", text="probe"), scope=A)
        messages.append(str(err.value))
        assert taken not in str(err.value)
    assert messages[0] == messages[1]
    assert records_checksum(store, "alice", "bob") == before


def test_times_accept_datetime_date_and_iso(store: MemoryStore) -> None:
    _seed(store)
    now = datetime.now(UTC)
    for as_of in (now, now.replace(tzinfo=None), now.date(), now.isoformat(), "2999-01-01"):
        store.search("tea", A, as_of=as_of)
    rid = store.add("temporary", scope=A)
    rec = store.invalidate(rid, scope=A, reason="moved", at="2030-01-01T00:00:00Z")
    assert rec.valid_to == datetime(2030, 1, 1, tzinfo=UTC)
    assert rid in store.search("temporary", A, as_of=date(2029, 6, 1)).ids
    assert rid not in store.search("temporary", A, as_of="2031-01-01").ids
    sweep(store, A, now="2030-01-01", audit=AuditLog())
    long_reason = "r" * 1000  # MAX_REASON_CHARS: at the limit is accepted
    store.invalidate(store.add("again", scope=A), scope=A, reason=long_reason)


def test_bare_string_acl_is_one_label(store: MemoryStore) -> None:
    assert Scope.of({"user_id": "alice", "acl": "hr"}).acl == ("hr",)
    assert Scope("alice", acl="hr").acl == ("hr",)  # type: ignore[arg-type]
    assert MemoryContext(user_id="alice", acl="hr").acl == ("hr",)  # type: ignore[arg-type]
    assert MemoryContext(user_id="alice", acl="hr").scope.acl == ("hr",)  # type: ignore[arg-type]
    hr = store.add("salary bands are in the hr drive", scope=A, acl=["hr"])
    h = store.add("salary notes for label h", scope=A, acl=["h"])
    seen = {r.id for r in store.list(scope={"user_id": "alice", "acl": "hr"})}
    assert hr in seen and h not in seen


def test_adapter_prefix_and_namespace_tuples_still_work(store: MemoryStore) -> None:
    lg = LangGraphMemoryStore(store, prefix=("mem",))
    lg.put(("mem", "alice"), "k", {"text": "alice likes tea"})
    item = lg.get(("mem", "alice"), "k")
    assert item is not None and item.namespace == ("mem", "alice")
    lg.put(("mem", "alice"), "t", {"text": "short lived"}, ttl=5)


def test_oversized_turn_is_truncated_not_raised(store: MemoryStore) -> None:
    pipeline = WritePipeline(store, WriteConfig(max_turn_chars=2000))
    assert WriteConfig().max_turn_chars == 32_000
    turn = "I prefer green tea. " + "blah " * 200_000
    report = pipeline.process_turn(turn, scope=A, turn_id="t1", thread_id="th")
    assert report.truncated_from == len(turn)
    assert len(report.redacted_text) <= 2000
    small = pipeline.process_turn("I prefer jazz.", scope=A, turn_id="t2", thread_id="th")
    assert small.truncated_from is None
