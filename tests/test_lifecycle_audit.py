"""The audit log sees every lifecycle change, and the in-memory default does not grow forever.

Issue 14: the audit log was a process-global list that grew without bound, and capacity
evictions after a write and uses written by ``record_use`` could never reach a durable
``AuditLog(path)``. Now the in-memory log is a bounded ring, and ``MemoryStore(audit=...)`` is
the log of every lifecycle change the store makes or any lifecycle operation given no
``audit=``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from langgraph_memory import MemoryStore, Scope, forget_user
from langgraph_memory.core import LifecyclePolicy, Status
from langgraph_memory.core.records import utcnow
from langgraph_memory.errors import ConfigError
from langgraph_memory.lifecycle import AuditLog, sweep, touch, transition
from langgraph_memory.lifecycle.audit import MEMORY_AUDIT_ENTRIES, default_audit_log
from langgraph_memory.lifecycle.forget import ForgetReceipt

from .conftest import BACKENDS


def test_in_memory_audit_log_is_a_bounded_ring() -> None:
    ring = AuditLog(max_entries=3)
    for i in range(5):
        ring.log("transition", user_id="alice", record_id=f"r{i}", reason="r", actor="t")
    assert len(ring) == 3
    assert [e.record_id for e in ring.entries("alice")] == ["r2", "r3", "r4"]  # oldest dropped
    assert ring.pseudonymize_user("alice") == 0  # entries name alice by pseudonym only

    default = AuditLog()
    assert default.max_entries == MEMORY_AUDIT_ENTRIES
    for i in range(MEMORY_AUDIT_ENTRIES + 2):
        default.log("ttl", user_id="bob", record_id=str(i))
    assert len(default) == MEMORY_AUDIT_ENTRIES
    assert default.entries("bob")[0].record_id == "2"
    assert default_audit_log().max_entries == MEMORY_AUDIT_ENTRIES  # the process-wide one too

    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="max_entries"):
            AuditLog(max_entries=bad)  # type: ignore[arg-type]


def test_a_file_backed_log_keeps_every_entry(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", max_entries=2)
    for i in range(4):
        log.log("ttl", user_id="alice", record_id=str(i))
    assert [e.record_id for e in AuditLog(tmp_path / "audit.jsonl").entries("alice")] == [
        "0",
        "1",
        "2",
        "3",
    ]


@pytest.fixture(params=BACKENDS)
def audited(request, tmp_path, embedder) -> Iterator[tuple[MemoryStore, Path]]:  # type: ignore[no-untyped-def]
    """A store with a durable audit log of its own and a capacity cap of 3 per scope."""
    path = tmp_path / "audit.jsonl"
    kwargs = {
        "embedder": embedder,
        "audit": AuditLog(path),
        "lifecycle": LifecyclePolicy(max_records_per_scope=3),
    }
    if request.param == "edge":
        store = MemoryStore(path=tmp_path / "mem", **kwargs)  # type: ignore[arg-type]
    else:
        store = MemoryStore(client=QdrantClient(":memory:"), **kwargs)  # type: ignore[arg-type]
    yield store, path
    store.close()


def test_the_stores_audit_log_sees_every_lifecycle_change(
    audited: tuple[MemoryStore, Path],
) -> None:
    store, path = audited
    alice = Scope("alice")
    default_before = len(default_audit_log().entries("alice"))

    # capacity eviction after a write (no audit= anywhere: the store triggers it itself)
    low = store.add("a low-value note", scope=alice, confidence=0.1)
    one, two, three = store.add_many(["one fact", "two fact", "three fact"], scope=alice)
    assert store.get(low, scope=alice).status is Status.ARCHIVED
    # an explicit transition, then a use written in the background reactivates the record
    transition(store, two, "stale", scope=alice, reason="check", actor="tester")
    store.record_use([two], alice)
    assert store.flush_uses() == 1
    assert store.get(two, scope=alice).status is Status.ACTIVE
    # touch writes at once
    transition(store, three, "stale", scope=alice, reason="check", actor="tester")
    touch(store, [three], alice)
    # a TTL sweep (a working note expires after a day)
    todo = store.add("a working note", scope=Scope("alice", project_id="p2"), layer="working")
    report = sweep(store, "alice", now=utcnow() + timedelta(days=2))
    assert report.staled == [todo]
    # forget-user
    receipt = forget_user("alice", store=store)
    assert receipt["residue"]["audit_log"] == 0  # the store's log file was scanned
    assert list(receipt) == list(ForgetReceipt.__annotations__)  # the documented keys, in order

    entries = AuditLog(path).entries("alice")
    seen = [(e.event, e.record_id, e.to_status, e.reason) for e in entries]
    assert seen[0][:3] == ("eviction", low, "archived")
    assert ("transition", two, "active", "used") in seen  # record_use
    assert ("transition", three, "active", "used") in seen  # touch
    assert ("ttl", todo, "stale", "ttl") in seen
    assert seen[-1][0] == "forget"
    assert {e for e, *_ in seen} == {"eviction", "transition", "ttl", "forget"}
    assert len(default_audit_log().entries("alice")) == default_before  # nothing went astray
    assert one not in {rid for _, rid, *_ in seen}  # untouched records are not audited


def test_an_explicit_audit_wins_and_a_wrong_one_is_refused(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="audit must be a AuditLog"):
        MemoryStore(path=tmp_path / "bad", embedder=embedder, audit="audit.jsonl")  # type: ignore[arg-type]
    own = AuditLog()
    with MemoryStore(path=tmp_path / "mem", embedder=embedder, audit=own) as store:
        rid = store.add("a fact", scope="alice")
        other = AuditLog()
        transition(store, rid, "archived", scope="alice", reason="r", actor="t", audit=other)
        assert [e.record_id for e in other.entries("alice")] == [rid]
        assert own.entries("alice") == []
        with pytest.raises(TypeError, match="audit must be an AuditLog"):
            touch(store, [rid], "alice", audit=[])  # type: ignore[arg-type]
