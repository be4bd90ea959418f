"""Forgetting: status machine, audit log, TTL boundaries, decay, capacity eviction, forget-user."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from langgraph_memory import MemoryRecord, MemoryStore, Scope
from langgraph_memory.core import Kind, Layer, LifecyclePolicy, RecallConfig, Status
from langgraph_memory.core.records import utcnow
from langgraph_memory.errors import IllegalTransition, RecordNotFound, VersionConflict
from langgraph_memory.lifecycle import AuditLog, enforce_capacity, sweep, touch, transition
from langgraph_memory.lifecycle.audit import AuditEntry
from langgraph_memory.lifecycle.expiry import end_task
from langgraph_memory.lifecycle.forget import LOGICAL_KEYS, has_residue, verify_forgotten
from langgraph_memory.lifecycle.ops import transitions_of
from langgraph_memory.lifecycle.policy import (
    ALLOWED_TRANSITIONS,
    apply_default_ttl,
    check_transition,
    decay_factor,
    effective_half_life,
    eviction_score,
)
from langgraph_memory.store.ranking import rerank_factors

S = Status
LEGAL = {
    (S.ACTIVE, S.STALE),
    (S.ACTIVE, S.ARCHIVED),
    (S.ACTIVE, S.DELETED),
    (S.STALE, S.ACTIVE),
    (S.STALE, S.ARCHIVED),
    (S.STALE, S.DELETED),
    (S.ARCHIVED, S.ACTIVE),
    (S.ARCHIVED, S.DELETED),
}


# ------------------------------------------------------------------------- status machine
def test_allowed_transitions_table_is_exactly_the_spec() -> None:
    table = {(src, dst) for src, dsts in ALLOWED_TRANSITIONS.items() for dst in dsts}
    assert table == LEGAL
    for src in Status:
        for dst in Status:
            if (src, dst) in LEGAL:
                check_transition(src, dst)
            else:
                with pytest.raises(IllegalTransition) as info:
                    check_transition(src, dst)
                assert isinstance(info.value, ValueError)


def test_every_transition_on_stored_records(store: MemoryStore, alice: Scope) -> None:
    """Each (from, to) pair among stored statuses: legal ones land with metadata and audit,
    illegal ones raise and leave the record and the audit log untouched."""
    audit = AuditLog()
    pairs = [(src, dst) for src in (S.ACTIVE, S.STALE, S.ARCHIVED) for dst in Status]
    ids = store.add_many([f"lifecycle record {i}" for i in range(len(pairs))], scope=alice)
    for rid, (src, _) in zip(ids, pairs, strict=True):
        if src is not S.ACTIVE:
            store.update(rid, scope=alice, status=src)  # set up the starting state directly
    for rid, (src, dst) in zip(ids, pairs, strict=True):
        before = store.get(rid, scope=alice)
        n_audit = len(audit)
        if (src, dst) not in LEGAL:
            with pytest.raises(IllegalTransition):
                transition(store, rid, dst, scope=alice, reason="r", actor="tester", audit=audit)
            assert store.get(rid, scope=alice) == before
            assert len(audit) == n_audit
            continue
        out = transition(
            store, rid, dst, scope=alice, reason=f"to {dst}", actor="tester", audit=audit
        )
        assert out.status is dst
        [entry] = audit.entries(record_id=rid)
        assert (entry.from_status, entry.to_status) == (src.value, dst.value)
        assert entry.reason == f"to {dst}" and entry.actor == "tester"
        if dst is S.DELETED:
            assert entry.event == "deletion"
            with pytest.raises(RecordNotFound):
                store.get(rid, scope=alice)
            with pytest.raises(RecordNotFound):  # deleted -> anything: nothing left to move
                transition(store, rid, S.ACTIVE, scope=alice, reason="r", actor="t", audit=audit)
        else:
            assert entry.event == "transition"
            stored = store.get(rid, scope=alice)
            assert stored.status is dst and stored.version == before.version + 1
            step = stored.metadata["transitions"][-1]
            assert step["from"] == src.value and step["to"] == dst.value
            assert step["reason"] == f"to {dst}" and step["actor"] == "tester" and step["at"]


def test_transition_is_compare_and_set(store: MemoryStore, alice: Scope) -> None:
    audit = AuditLog()
    rid = store.add("cas protected memory", scope=alice)
    store.update(rid, scope=alice, importance=7)  # version 2 now
    with pytest.raises(VersionConflict):
        transition(
            store, rid, S.STALE, scope=alice, reason="r", actor="a", audit=audit, expected_version=1
        )
    assert store.get(rid, scope=alice).status is S.ACTIVE
    assert audit.entries() == []
    with pytest.raises(RecordNotFound):  # another user cannot move it
        transition(store, rid, S.STALE, scope=Scope("bob"), reason="r", actor="a", audit=audit)


def test_only_active_is_recalled_and_archived_stays_in_history(
    store: MemoryStore, alice: Scope
) -> None:
    audit = AuditLog()
    rid = store.add(
        "the user prefers green tea",
        scope=alice,
        kind="preference",
        subject="user",
        predicate="drink",
        object="green tea",
    )
    assert rid in store.search("green tea", alice).ids
    transition(store, rid, S.STALE, scope=alice, reason="unused", actor="a", audit=audit)
    assert rid not in store.search("green tea", alice).ids
    transition(store, rid, S.ARCHIVED, scope=alice, reason="old", actor="a", audit=audit)
    assert rid not in store.search("green tea", alice).ids
    assert [r.id for r in store.history(scope=alice, subject="user", predicate="drink")] == [rid]
    assert rid in [r.id for r in store.list(scope=alice, current_only=False)]
    transition(store, rid, S.ACTIVE, scope=alice, reason="restore", actor="user", audit=audit)
    assert rid in store.search("green tea", alice).ids
    rows = transitions_of(store, "alice")
    assert [(r["from"], r["to"]) for r in rows] == [
        ("active", "stale"),
        ("stale", "archived"),
        ("archived", "active"),
    ]


# ------------------------------------------------------------------------- audit log
def test_audit_log_file_is_append_only_durable_and_text_free(
    store: MemoryStore, alice: Scope, bob: Scope, tmp_path: Path
) -> None:
    path = tmp_path / "audit" / "log.jsonl"
    audit = AuditLog(path)
    # the secret's words are no hex digits and no timestamp: a record id or time in the log
    # can never contain them by chance (a pin like "4321" did, 1 run in ~50)
    secret = "my locker word is quokka-vermilion"
    a = store.add(secret, scope=alice)
    b = store.add("bob likes chess", scope=bob)
    transition(store, a, S.STALE, scope=alice, reason="ttl", actor="sweep", audit=audit)
    transition(store, b, S.DELETED, scope=bob, reason="asked", actor="bob", audit=audit)
    transition(store, a, S.DELETED, scope=alice, reason="asked", actor="alice", audit=audit)
    raw = path.read_text("utf-8")
    assert secret not in raw and "quokka" not in raw and "vermilion" not in raw
    assert "chess" not in raw
    lines = raw.splitlines()
    assert len(lines) == 3 and all("from" in json.loads(line) for line in lines)
    # a fresh reader sees the same entries; a torn last line is ignored
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"user_id": "alice", "ev')
    reopened = AuditLog(path)
    assert [e.event for e in reopened.entries("alice")] == ["transition", "deletion"]
    assert [e.record_id for e in reopened.entries("bob")] == [b]
    assert reopened.entries("alice", events=["deletion"])[0].to_status == "deleted"
    memory_only = AuditLog()
    memory_only.log("forget", user_id="carol", details={"records": 2})
    assert len(memory_only) == 1 and memory_only.entries("alice") == []
    entry = AuditEntry.model_validate({"user_id": "u", "event": "ttl", "from": "active"})
    assert entry.to_json()["from"] == "active"


# ------------------------------------------------------------------------- TTL
def test_default_ttls_per_layer_and_kind() -> None:
    policy = LifecyclePolicy()
    created = utcnow()

    def rec(layer: Layer, kind: Kind = Kind.STABLE_FACT) -> MemoryRecord:
        return MemoryRecord(user_id="u", text="x", layer=layer, kind=kind, created_at=created)

    assert apply_default_ttl(rec(Layer.WORKING), policy).expire_at == created + timedelta(days=1)
    episodic = apply_default_ttl(rec(Layer.EPISODIC, Kind.EVENT), policy)
    assert episodic.expire_at == created + timedelta(days=90)
    assert apply_default_ttl(rec(Layer.SEMANTIC), policy).expire_at is None
    assert apply_default_ttl(rec(Layer.PROCEDURAL, Kind.INSTRUCTION), policy).expire_at is None
    custom = LifecyclePolicy(
        ttl_days_by_layer={Layer.EPISODIC: 7.0}, ttl_days_by_kind={Kind.PREFERENCE: 2.0}
    )
    assert apply_default_ttl(rec(Layer.EPISODIC), custom).expire_at == created + timedelta(days=7)
    pref = apply_default_ttl(rec(Layer.SEMANTIC, Kind.PREFERENCE), custom)
    assert pref.expire_at == created + timedelta(days=2)
    fixed = rec(Layer.WORKING).model_copy(update={"expire_at": created + timedelta(hours=1)})
    assert apply_default_ttl(fixed, policy).expire_at == created + timedelta(hours=1)
    later = created + timedelta(days=3)
    assert apply_default_ttl(rec(Layer.WORKING), policy, now=later).expire_at == later + timedelta(
        days=1
    )


def test_ttl_boundaries_recall_and_sweep(store: MemoryStore, alice: Scope) -> None:
    audit = AuditLog()
    now = utcnow()
    soon = now + timedelta(seconds=30)
    live, gone, forever = store.add_many(
        [
            MemoryRecord(user_id="alice", text="parking spot is level three", expire_at=soon),
            MemoryRecord(
                user_id="alice",
                text="parking spot was level one",
                expire_at=now - timedelta(milliseconds=1),
            ),
            MemoryRecord(user_id="alice", text="parking preference is covered spots"),
        ],
        scope=alice,
    )
    recalled = store.search("parking spot level", alice, k=5).ids
    assert live in recalled and forever in recalled and gone not in recalled
    rec = store.get(live, scope=alice)
    assert rec.is_current(soon - timedelta(microseconds=1)) and not rec.is_current(soon)

    report = sweep(store, "alice", audit=audit, now=soon - timedelta(microseconds=1))
    assert report.staled == [gone] and report.archived == []
    report = sweep(store, alice, audit=audit, now=soon)  # exactly at expiry
    assert report.staled == [live]
    assert store.get(live, scope=alice).status is S.STALE
    assert store.get(forever, scope=alice).status is S.ACTIVE
    ttl_entries = audit.entries("alice", events=["ttl"])
    assert [(e.record_id, e.reason, e.to_status) for e in ttl_entries] == [
        (gone, "ttl", "stale"),
        (live, "ttl", "stale"),
    ]
    policy = LifecyclePolicy(archive_after_days=30)
    gone_staled = soon - timedelta(microseconds=1)
    month = timedelta(days=30)
    tick = timedelta(microseconds=1)

    def archived_at(when: datetime) -> list[str]:
        return sweep(store, "alice", policy=policy, audit=audit, now=when).archived

    assert archived_at(gone_staled + month - tick) == []  # just before
    assert archived_at(gone_staled + month) == [gone]  # just after (exactly 30 days stale)
    assert archived_at(soon + month - tick) == []
    assert archived_at(soon + month) == [live]
    assert store.get(live, scope=alice).status is S.ARCHIVED
    assert sweep(store, "alice", policy=policy, audit=audit, now=soon + timedelta(days=99)) == (
        type(report)()
    )


def test_end_task_expires_working_memory_of_that_task(store: MemoryStore, alice: Scope) -> None:
    audit = AuditLog()
    mine, other, semantic = store.add_many(
        [
            MemoryRecord(user_id="alice", text="draft step 1", layer="working", task_id="t1"),
            MemoryRecord(user_id="alice", text="draft step 2", layer="working", task_id="t2"),
            MemoryRecord(user_id="alice", text="task fact", layer="semantic", task_id="t1"),
        ],
        scope=alice,
    )
    assert end_task(store, alice, "t1", audit=audit) == [mine]
    assert store.get(mine, scope=alice).status is S.STALE
    assert store.get(mine, scope=alice).expire_at is not None
    assert store.get(other, scope=alice).status is S.ACTIVE
    assert store.get(semantic, scope=alice).status is S.ACTIVE
    assert [e.event for e in audit.entries("alice")] == ["ttl"]


# ------------------------------------------------------------------------- decay
def test_effective_half_life_defaults() -> None:
    """By default every kind decays with the global half-life, and importance slows it
    (importance 1..10 lengthens 180 days to 198..360)."""
    default = RecallConfig()
    for kind in (None, "event", "preference"):
        assert effective_half_life(default, kind, 1) == pytest.approx(198.0)
        assert effective_half_life(default, kind, 5) == pytest.approx(270.0)
        assert effective_half_life(default, kind, 10) == pytest.approx(360.0)
    flat = RecallConfig(decay_importance_scale=0.0)
    assert effective_half_life(flat, "event", 10) == 180.0
    now = utcnow()
    args = {
        "created_at": now - timedelta(days=40),
        "last_accessed_at": None,
        "confidence": 0.8,
        "importance": 5,
        "now": now,
        "config": default,
    }
    assert rerank_factors(**args) == rerank_factors(**args, kind="event")  # type: ignore[arg-type]
    tuned = RecallConfig(half_life_days_by_kind={"event": 10.0}, decay_importance_scale=1.0)
    assert effective_half_life(tuned, "event", 10) == pytest.approx(20.0)
    assert effective_half_life(tuned, "event", 1) == pytest.approx(11.0)
    assert effective_half_life(tuned, "preference", 5) == pytest.approx(270.0)
    with pytest.raises(ValueError):
        RecallConfig(half_life_days_by_kind={"event": 0.0})


def test_decay_ordering_by_kind_importance_and_use(store: MemoryStore, alice: Scope) -> None:
    now = utcnow()
    old = now - timedelta(days=60)
    text = "weekly team sync happens on monday"
    event, pref, event_important = store.add_many(
        [
            MemoryRecord(user_id="alice", text=text, kind="event", created_at=old, importance=2),
            MemoryRecord(
                user_id="alice", text=text, kind="preference", created_at=old, importance=2
            ),
            MemoryRecord(user_id="alice", text=text, kind="event", created_at=old, importance=10),
        ],
        scope=alice,
    )
    store.config = store.config.model_copy(
        update={
            "recall": RecallConfig(
                half_life_days_by_kind={"event": 7.0},
                decay_importance_scale=1.0,
                importance_weight=0.0,
                confidence_weight=0.0,
                recency_weight=1.0,
            )
        }
    )
    hits = store.search(text, alice, k=3)
    assert hits.ids == [pref, event_important, event]  # events decay fastest; importance slows
    recency = {h.record.id: h.explanation.recency for h in hits}
    assert recency[pref] > recency[event_important] > recency[event]
    # use re-activates: touching the least important event resets its decay
    [touched] = touch(store, [event], alice, now=now)
    assert touched.access_count == 1 and touched.last_accessed_at == now
    assert store.search(text, alice, k=3).ids[0] == event
    cfg = store.config.recall
    assert decay_factor(touched, now, cfg) == pytest.approx(1.0)
    assert decay_factor(store.get(pref, scope=alice), now, cfg) < 1.0


def test_touch_reactivates_stale_but_not_archived(store: MemoryStore, alice: Scope) -> None:
    audit = AuditLog()
    stale, archived = store.add_many(["stale memory", "archived memory"], scope=alice)
    transition(store, stale, S.STALE, scope=alice, reason="ttl", actor="sweep", audit=audit)
    transition(store, archived, S.ARCHIVED, scope=alice, reason="old", actor="a", audit=audit)
    out = touch(store, [stale, archived, stale, "not-an-id"], alice, audit=audit)
    assert [r.id for r in out] == [stale, archived]
    assert store.get(stale, scope=alice).status is S.ACTIVE
    assert store.get(stale, scope=alice).access_count == 1
    assert store.get(archived, scope=alice).status is S.ARCHIVED
    reactivated = audit.entries("alice", record_id=stale)[-1]
    assert (reactivated.from_status, reactivated.to_status, reactivated.reason) == (
        "stale",
        "active",
        "used",
    )


# ------------------------------------------------------------------------- capacity
def test_capacity_evicts_lowest_recency_confidence_use_first(
    store: MemoryStore, alice: Scope, bob: Scope
) -> None:
    audit = AuditLog()
    now = utcnow()

    def rec(text: str, conf: float, age_days: float = 0.0, uses: int = 0) -> MemoryRecord:
        return MemoryRecord(
            user_id="alice",
            text=text,
            confidence=conf,
            access_count=uses,
            created_at=now - timedelta(days=age_days),
        )

    a, b, c, d, e = store.add_many(
        [
            rec("fresh and certain", 1.0),  # 1.0
            rec("fresh but doubtful", 0.2),  # 0.2
            rec("certain but a year old", 1.0, age_days=360),  # 0.25 (two half-lives)
            rec("doubtful but used often", 0.3, uses=10),  # 0.3 * (1 + ln 11) = 1.02
            rec("fresh, fairly sure", 0.6),  # 0.6
        ],
        scope=alice,
    )
    other_project = store.add("other project memory", scope=Scope("alice", project_id="p"))
    bobs = store.add("bob's doubtful memory", scope=bob, confidence=0.01)
    cfg = store.config.recall
    scores = {rid: eviction_score(store.get(rid, scope=alice), now, cfg) for rid in (a, b, c, d, e)}
    assert scores[b] < scores[c] < scores[e] < scores[a] < scores[d]

    policy = LifecyclePolicy(max_records_per_scope=2)
    evicted = enforce_capacity(store, alice, policy=policy, audit=audit, now=now)
    assert evicted == [b, c, e]
    entries = audit.entries("alice", events=["eviction"])
    assert [x.record_id for x in entries] == [b, c, e]
    assert all(x.to_status == "archived" and "capacity 2" in x.reason for x in entries)
    assert sorted(r.id for r in store.list(scope=alice) if r.project_id is None) == sorted([a, d])
    assert store.get(b, scope=alice).status is S.ARCHIVED
    assert store.get(other_project, scope=Scope("alice", project_id="p")).status is S.ACTIVE
    assert store.get(bobs, scope=bob).status is S.ACTIVE
    assert enforce_capacity(store, alice, policy=policy, audit=audit, now=now) == []
    assert enforce_capacity(store, alice, policy=LifecyclePolicy(), audit=audit) == []


# ------------------------------------------------------------------------- forget-user
def test_forget_user_leaves_zero_residue_across_every_store(
    store: MemoryStore, alice: Scope, bob: Scope, tmp_path: Path
) -> None:
    from langgraph.checkpoint.base import empty_checkpoint

    from langgraph_memory import BackgroundWriter, WritePipeline, create_checkpointer, forget_user
    from langgraph_memory.context import HandleStore

    audit = AuditLog(tmp_path / "audit.jsonl")
    ids = store.add_many(["alice likes jasmine tea", "alice lives in Lyon"], scope=alice)
    store.add("alice project note", scope=Scope("alice", project_id="p1", acl=("team",)))
    transition(store, ids[1], S.ARCHIVED, scope=alice, reason="old", actor="a", audit=audit)
    store.add("bob likes coffee", scope=bob)
    assert store.search("jasmine tea", alice).ids  # loads alice's keyword index
    cp = create_checkpointer("memory")
    threads = {"alice": ["a-1", "a-2"], "bob": ["b-1"]}
    for user, tids in threads.items():
        for tid in tids:
            cp.assign_thread(tid, user)
            for ns in ("", "sub"):
                config = {"configurable": {"thread_id": tid, "checkpoint_ns": ns}}
                cp.put(config, empty_checkpoint(), {"source": "input", "step": 0}, {})
    handles = HandleStore(tmp_path / "handles")
    handles.put(alice, "alice's big tool output")
    handles.put(Scope("alice", project_id="p1"), "another payload")
    handles.put(bob, "bob's big tool output")
    writer = BackgroundWriter(WritePipeline(store), tmp_path / "journal.jsonl", start=False)
    writer.enqueue("I like alpine skiing", scope=alice, turn_id="t9", thread_id="a-1")
    writer.enqueue("I like chess", scope=bob, turn_id="t9", thread_id="b-1")
    stores = {"store": store, "checkpointer": cp, "handle_store": handles}

    before = verify_forgotten(
        "alice", **stores, background_writer=writer, threads=threads["alice"]
    )  # the scanner sees everything that is there
    assert {k: before[k] for k in LOGICAL_KEYS} == {
        "records": 3,
        "keyword_index": 3,
        "threads": 4,
        "handles": 2,  # two payloads (held in memory and as files on disk)
        "queued_turns": 1,
    }
    # the byte scan sees them too: the serialized user id in the handle files and journal
    assert before["handle_files"] == 2 and before["journal_file"] == 1
    assert before["checkpoint_files"] == 0  # the in-memory saver has no files
    if store.managed_paths():  # the embedded engine: its WAL and pages hold alice's payloads
        assert before["engine_files"] > 0
    version = store.memory_version
    receipt = forget_user("alice", **stores, background_writer=writer, audit=audit)
    assert receipt["records"] == 3 and sorted(receipt["threads"]) == ["a-1", "a-2"]
    assert receipt["handles"] == 2 and receipt["queued_turns"] == 1
    assert not has_residue(receipt["residue"]), receipt["residue"]
    assert {k: receipt["residue"][k] for k in LOGICAL_KEYS} == dict.fromkeys(LOGICAL_KEYS, 0)
    assert receipt["elapsed_s"] >= 0 and receipt["memory_version"] > version
    assert store.memory_version > version
    # nothing of alice is recalled or readable any more
    assert store.search("jasmine tea", alice).ids == []
    assert store.count(scope=alice, current_only=False) == 0
    assert cp.get_tuple({"configurable": {"thread_id": "a-1", "checkpoint_ns": ""}}) is None
    # bob is untouched
    assert store.count(scope=bob) == 1 and cp.threads_of("bob") == ["b-1"]
    assert cp.get_tuple(
        {"configurable": {"thread_id": "b-1", "checkpoint_ns": "sub", "user_id": "bob"}}
    )
    assert len(handles.list(bob)) == 1
    assert verify_forgotten("bob", **stores, background_writer=writer)["queued_turns"] == 1
    [forget] = audit.entries("alice", events=["forget"])
    assert forget.details["records"] == 3 and forget.details["residue"]["records"] == 0
    writer.start()
    assert writer.close(timeout=60)
    cp.close()


# ------------------------------------------------------------------------- async + retries
async def test_async_variants_and_touch_retries_on_conflict(
    store: MemoryStore, alice: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_memory.lifecycle.expiry import asweep
    from langgraph_memory.lifecycle.ops import aenforce_capacity, atouch, atransition

    audit = AuditLog()
    now = utcnow()
    keep, expired = store.add_many(
        [
            MemoryRecord(user_id="alice", text="async kept memory"),
            MemoryRecord(user_id="alice", text="async expired memory", expire_at=now),
        ],
        scope=alice,
    )
    report = await asweep(store, alice, audit=audit, now=now)
    assert report.staled == [expired]
    [used] = await atouch(store, [expired], alice, audit=audit, now=now)
    assert used.status is S.ACTIVE and used.access_count == 1
    out = await atransition(
        store, keep, "archived", scope=alice, reason="r", actor="a", audit=audit
    )
    assert out.status is S.ARCHIVED
    extra = store.add("another async memory", scope=alice, confidence=0.1)
    # `expired` is active again but still past its expire_at: not current, so not counted
    evicted = await aenforce_capacity(
        store, alice, policy=LifecyclePolicy(max_records_per_scope=1), audit=audit
    )
    assert evicted == []
    assert [e.event for e in audit.entries("alice")] == ["ttl", "transition", "transition"]

    real_update = store.update
    calls = {"n": 0}

    def flaky_update(*args: object, **kwargs: object) -> MemoryRecord:
        calls["n"] += 1
        if calls["n"] == 1:
            raise VersionConflict(extra, 1, 2)
        return real_update(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "update", flaky_update)
    [touched] = touch(store, [extra], alice, audit=audit)
    assert touched.access_count == 1 and calls["n"] == 2


def test_store_applies_default_ttls_on_write(store: MemoryStore) -> None:
    """Working memory expires after a day and episodic after 90 by default; semantic and
    procedural never; an explicit expire_at wins; lifecycle=None stores records as given."""
    scope = Scope("ttl-user")
    ids = {
        layer: store.add(f"a {layer} note", scope=scope, layer=layer)
        for layer in ("working", "episodic", "semantic", "procedural")
    }
    recs = {layer: store.get(rid, scope=scope) for layer, rid in ids.items()}
    assert recs["working"].expire_at - recs["working"].created_at == timedelta(days=1)  # type: ignore[operator]
    assert recs["episodic"].expire_at - recs["episodic"].created_at == timedelta(days=90)  # type: ignore[operator]
    assert recs["semantic"].expire_at is None and recs["procedural"].expire_at is None
    explicit = utcnow() + timedelta(hours=2)
    rid = store.add("explicit", scope=scope, layer="working", expire_at=explicit)
    assert store.get(rid, scope=scope).expire_at == explicit
    store.lifecycle = None
    rid = store.add("as given", scope=scope, layer="working")
    assert store.get(rid, scope=scope).expire_at is None


def test_store_enforces_the_capacity_cap_on_write(store: MemoryStore) -> None:
    scope = Scope("capped")
    store.lifecycle = LifecyclePolicy(max_records_per_scope=3)
    low = store.add("low value", scope=scope, confidence=0.1)
    keep = store.add_many(["kept one", "kept two"], scope=scope, confidence=0.9)
    newest = store.add("newest", scope=scope, confidence=0.9)
    current = {r.id for r in store.list(scope=scope)}
    assert current == {*keep, newest}
    assert store.get(low, scope=scope).status is Status.ARCHIVED
