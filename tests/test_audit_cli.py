"""``langgraph-memory audit --user U``: transitions, evictions and deletions of one user only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langgraph_memory import MemoryRecord, MemoryStore, Scope
from langgraph_memory.cli import main
from langgraph_memory.core import LifecyclePolicy, Status
from langgraph_memory.lifecycle import AuditLog, enforce_capacity, transition

from .conftest import make_store


def test_audit_from_log_lists_only_that_user(tmp_path: Path, embedder, capsys) -> None:  # type: ignore[no-untyped-def]
    log_file = tmp_path / "audit.jsonl"
    audit = AuditLog(log_file)
    alice, bob = Scope("alice"), Scope("bob")
    with make_store("server", tmp_path, embedder) as store:
        a1, a2, a3 = store.add_many(
            [
                MemoryRecord(user_id="alice", text="alice secret diary entry", confidence=0.1),
                MemoryRecord(user_id="alice", text="alice likes hiking"),
                MemoryRecord(user_id="alice", text="alice owns a bike"),
            ],
            scope=alice,
        )
        b1 = store.add("bob secret plan", scope=bob)
        transition(store, a2, Status.STALE, scope=alice, reason="unused", actor="op", audit=audit)
        enforce_capacity(store, alice, policy=LifecyclePolicy(max_records_per_scope=1), audit=audit)
        transition(
            store, a3, Status.DELETED, scope=alice, reason="asked", actor="alice", audit=audit
        )
        transition(store, b1, Status.ARCHIVED, scope=bob, reason="old", actor="op", audit=audit)

    assert main(["audit", "--user", "alice", "--audit-log", str(log_file), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["user_id"] == "alice" and data["source"] == "audit-log"
    events = [(e["event"], e["record_id"], e["from"], e["to"]) for e in data["entries"]]
    assert events == [
        ("transition", a2, "active", "stale"),
        ("eviction", a1, "active", "archived"),
        ("deletion", a3, "active", "deleted"),
    ]
    # the log names users by a keyed hash: the file alone does not say who alice is
    assert {e["user_id"] for e in data["entries"]} == {audit.pseudonym("alice")}
    assert b1 not in out and "secret" not in out and "hiking" not in out
    assert '"alice"' not in log_file.read_text() and '"bob"' not in log_file.read_text()
    assert audit.pseudonym("alice") != audit.pseudonym("bob")
    assert AuditLog(log_file).pseudonym("alice") == audit.pseudonym("alice")  # key persisted

    assert main(["audit", "--user", "bob", "--audit-log", str(log_file)]) == 0
    table = capsys.readouterr().out
    assert "archived" in table and "eviction" not in table and "1 entr" in table

    with pytest.raises(SystemExit):
        main(["audit", "--audit-log", str(log_file)])


def test_audit_from_store_and_forget_entry(tmp_path: Path, embedder, capsys) -> None:  # type: ignore[no-untyped-def]
    path, log_file = tmp_path / "store", tmp_path / "audit.jsonl"
    alice, bob = Scope("alice"), Scope("bob")
    with MemoryStore(path=path, embedder=embedder) as store:
        rid = store.add("alice prefers tea", scope=alice)
        bid = store.add("bob prefers coffee", scope=bob)
        transition(store, rid, Status.ARCHIVED, scope=alice, reason="old", actor="op")
        transition(store, rid, Status.ACTIVE, scope=alice, reason="restore", actor="alice")
        transition(store, bid, Status.STALE, scope=bob, reason="ttl", actor="sweep")

    assert main(["audit", "--user", "alice", "--path", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "store"
    steps = [(e["record_id"], e["from"], e["to"], e["actor"]) for e in data["entries"]]
    assert steps == [(rid, "active", "archived", "op"), (rid, "archived", "active", "alice")]

    argv = ["forget", "--user", "alice", "--path", str(path), "--audit-log", str(log_file)]
    argv += ["--yes", "--json"]
    assert main(argv) == 0
    receipt = json.loads(capsys.readouterr().out)
    assert receipt["records"] == 1 and not any(receipt["residue"].values())
    assert main(["audit", "--user", "alice", "--audit-log", str(log_file), "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["entries"]
    assert entry["event"] == "forget" and entry["details"]["records"] == 1
    assert main(["audit", "--user", "bob", "--path", str(path), "--json"]) == 0
    bob_steps = json.loads(capsys.readouterr().out)["entries"]
    assert [(e["record_id"], e["to"]) for e in bob_steps] == [(bid, "stale")]
