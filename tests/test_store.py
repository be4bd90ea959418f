"""MemoryStore behaviour, run on both backends (embedded qdrant-edge and qdrant-client)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from langgraph_memory import MemoryConfig, MemoryRecord, MemoryStore, Scope
from langgraph_memory.core import RecallConfig, Status
from langgraph_memory.errors import (
    ConfigError,
    FilterError,
    RecordNotFound,
    RecordValidationError,
    ScopeError,
    VersionConflict,
)


def test_add_get_round_trip(store: MemoryStore, alice: Scope) -> None:
    rid = store.add(
        "Alice prefers answers in Chinese",
        scope=alice,
        kind="preference",
        subject="alice",
        predicate="answer_language",
        object="Chinese",
        importance=8,
    )
    rec = store.get(rid, scope=alice)
    assert rec.text == "Alice prefers answers in Chinese"
    assert rec.kind == "preference" and rec.importance == 8 and rec.version == 1
    assert rec.user_id == "alice" and rec.language == "en"
    assert store.count(scope=alice) == 1


def test_add_many_returns_ids_in_order_and_is_all_or_nothing(
    store: MemoryStore, alice: Scope
) -> None:
    ids = store.add_many(["one fact", "two facts", "三个事实"], scope=alice)
    assert [store.get(i, scope=alice).text for i in ids] == ["one fact", "two facts", "三个事实"]
    with pytest.raises(RecordValidationError):
        store.add_many(["fine", ""], scope=alice)
    assert store.count(scope=alice) == 3


def test_adding_an_existing_id_is_refused(store: MemoryStore, alice: Scope) -> None:
    rec = MemoryRecord(user_id="alice", text="first")
    store.add(rec, scope=alice)
    with pytest.raises(RecordValidationError, match="cannot be used"):
        store.add(rec.model_copy(update={"text": "second"}), scope=alice)
    assert store.get(rec.id, scope=alice).text == "first"


def test_writes_for_another_user_or_project_are_refused(store: MemoryStore, alice: Scope) -> None:
    with pytest.raises(ScopeError):
        store.add(MemoryRecord(user_id="bob", text="x"), scope=alice)
    with pytest.raises(ScopeError):
        store.add(MemoryRecord(user_id="alice", project_id="p2", text="x"), scope=alice)
    assert store.count(scope=alice) == 0


@pytest.mark.parametrize("bad", [None, "", "   ", 42, {"project_id": "p"}, {"user_id": None}])
def test_missing_or_bad_user_id_is_an_error_never_global(store: MemoryStore, bad: object) -> None:
    store.add("secret", scope=Scope("alice"))
    with pytest.raises(ScopeError) as info:
        store.search("secret", bad)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    with pytest.raises(ScopeError):
        store.add("x", scope=bad)  # type: ignore[arg-type]
    with pytest.raises(ScopeError):
        store.list(scope=bad)  # type: ignore[arg-type]


def test_get_outside_scope_is_not_found(store: MemoryStore, alice: Scope, bob: Scope) -> None:
    rid = store.add("alice only", scope=alice)
    with pytest.raises(RecordNotFound):
        store.get(rid, scope=bob)
    with pytest.raises(RecordNotFound):
        store.get("not-a-uuid", scope=alice)
    assert not store.delete(rid, scope=bob)
    assert store.get(rid, scope=alice).text == "alice only"


def test_update_with_cas(store: MemoryStore, alice: Scope) -> None:
    rid = store.add("likes tea", scope=alice)
    v2 = store.update(rid, scope=alice, expected_version=1, importance=9)
    assert v2.version == 2 and v2.importance == 9
    with pytest.raises(VersionConflict) as info:
        store.update(rid, scope=alice, expected_version=1, importance=1)
    assert info.value.expected == 1 and info.value.actual == 2
    assert store.get(rid, scope=alice).importance == 9
    with pytest.raises(RecordValidationError):
        store.update(rid, scope=alice, user_id="bob")
    with pytest.raises(RecordValidationError):
        store.update(rid, scope=alice, confidence=float("nan"))
    assert store.get(rid, scope=alice).version == 2


def test_update_of_text_reembeds_and_reindexes(store: MemoryStore, alice: Scope) -> None:
    rid = store.add("likes coffee", scope=alice)
    assert store.search("coffee", alice, mode="keyword").ids == [rid]
    store.update(rid, scope=alice, text="likes matcha")
    assert store.search("coffee", alice, mode="keyword").ids == []
    assert store.search("matcha", alice, mode="keyword").ids == [rid]
    assert store.search("matcha", alice, mode="dense").ids[0] == rid


def test_concurrent_cas_has_exactly_one_winner(store: MemoryStore, alice: Scope) -> None:
    import threading

    rid = store.add("counter", scope=alice)
    wins, conflicts = [], []

    def worker(n: int) -> None:
        try:
            store.update(rid, scope=alice, expected_version=1, metadata={"writer": n})
            wins.append(n)
        except VersionConflict:
            conflicts.append(n)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and len(conflicts) == 7
    final = store.get(rid, scope=alice)
    assert final.version == 2 and final.metadata == {"writer": wins[0]}


def test_supersede_keeps_history_and_as_of(store: MemoryStore, alice: Scope) -> None:
    old_id = store.add(
        "Alice prefers answers in Chinese",
        scope=alice,
        kind="preference",
        subject="alice",
        predicate="answer_language",
        object="Chinese",
        valid_from=datetime.now(UTC) - timedelta(days=2),
    )
    before = datetime.now(UTC) - timedelta(days=1)
    new = store.supersede(old_id, "Alice prefers answers in English", scope=alice, object="English")
    assert (
        new.subject == "alice" and new.predicate == "answer_language" and new.kind == "preference"
    )
    old = store.get(old_id, scope=alice)
    assert old.superseded_by == new.id and old.valid_to is not None
    assert old.text == "Alice prefers answers in Chinese"  # nothing overwritten
    history = store.history(scope=alice, subject="alice", predicate="answer_language")
    assert [r.object for r in history] == ["Chinese", "English"]
    now_hits = store.search("which language does Alice prefer", alice).ids
    assert new.id in now_hits and old_id not in now_hits
    past = store.search("which language does Alice prefer", alice, as_of=before).ids
    assert old_id in past and new.id not in past
    with pytest.raises(VersionConflict):
        store.supersede(old_id, "again", scope=alice)


def test_supersede_conflict_leaves_no_new_record(store: MemoryStore, alice: Scope) -> None:
    old_id = store.add("v1", scope=alice, subject="s", predicate="p")
    store.update(old_id, scope=alice, importance=6)  # now version 2
    with pytest.raises(VersionConflict):
        store.supersede(old_id, "v2", scope=alice, expected_version=1)
    assert [r.text for r in store.list(scope=alice, current_only=False)] == ["v1"]
    assert store.get(old_id, scope=alice).superseded_by is None


def test_invalidate_stops_recall_but_keeps_history(store: MemoryStore, alice: Scope) -> None:
    rid = store.add("Alice lives in Paris", scope=alice, subject="alice", predicate="city")
    store.invalidate(rid, scope=alice, reason="user said it was wrong")
    assert rid not in store.search("where does Alice live", alice).ids
    hist = store.history(scope=alice, subject="alice", predicate="city")
    assert hist[0].metadata["invalidated"]["reason"] == "user said it was wrong"


def test_expired_and_future_records_are_not_recalled(store: MemoryStore, alice: Scope) -> None:
    now = datetime.now(UTC)
    live = store.add(
        "parking spot 12 this week", scope=alice, expire_at=now + timedelta(seconds=60)
    )
    dead = store.add("parking spot 7 last week", scope=alice, expire_at=now - timedelta(seconds=1))
    future = store.add(
        "parking spot 3 next month", scope=alice, valid_from=now + timedelta(days=30)
    )
    ids = store.search("parking spot", alice, k=10).ids
    assert live in ids and dead not in ids and future not in ids
    assert store.count(scope=alice) == 1
    assert store.count(scope=alice, current_only=False) == 3
    assert future in store.search("parking spot", alice, k=10, as_of=now + timedelta(days=31)).ids


def test_archived_records_are_not_recalled(store: MemoryStore, alice: Scope) -> None:
    rid = store.add("old hobby: stamp collecting", scope=alice)
    store.update(rid, scope=alice, status=Status.ARCHIVED)
    assert rid not in store.search("stamp collecting", alice).ids
    assert [r.id for r in store.list(scope=alice, current_only=False)] == [rid]


def test_delete_removes_from_vectors_and_keyword_index(store: MemoryStore, alice: Scope) -> None:
    keep = store.add("the wifi password hint is the dog's name", scope=alice)
    gone = store.add("the wifi router is in the attic", scope=alice)
    assert set(store.search("wifi", alice, mode="keyword").ids) == {keep, gone}
    assert store.delete(gone, scope=alice)
    for mode in ("keyword", "dense", "hybrid"):
        assert gone not in store.search("wifi router attic", alice, mode=mode).ids
    assert store.search("wifi", alice, mode="keyword").ids == [keep]
    with pytest.raises(RecordNotFound):
        store.get(gone, scope=alice)


def test_delete_user_removes_everything_of_that_user_only(
    store: MemoryStore, alice: Scope, bob: Scope
) -> None:
    store.add_many(["a1", "a2 tea"], scope=alice)
    store.add("b1 tea", scope=bob)
    store.search("tea", alice)  # loads alice's keyword index
    assert store.delete_user("alice") == 2
    assert store.count(scope=alice, current_only=False) == 0
    assert store.search("tea", alice).ids == []
    assert store.count(scope=bob) == 1


def test_project_and_acl_visibility(store: MemoryStore) -> None:
    user_level = store.add("prefers metric units", scope=Scope("carol"))
    p1 = store.add("apollo uses postgres", scope=Scope("carol", project_id="apollo"))
    p2 = store.add("zeus uses mysql", scope=Scope("carol", project_id="zeus"))
    secret = store.add(
        "apollo budget is confidential", scope=Scope("carol", project_id="apollo"), acl=["finance"]
    )

    def visible(scope: Scope) -> set[str]:
        return {r.id for r in store.list(scope=scope)}

    assert visible(Scope("carol")) == {user_level}
    assert visible(Scope("carol", project_id="apollo")) == {user_level, p1}
    assert visible(Scope("carol", project_id="apollo", acl=("finance",))) == {
        user_level,
        p1,
        secret,
    }
    assert visible(Scope("carol", project_id="zeus", acl=("finance",))) == {user_level, p2}
    hits = store.search("database budget", Scope("carol", project_id="apollo"), k=10).ids
    assert secret not in hits and p2 not in hits


def test_search_filters_and_validation(store: MemoryStore, alice: Scope) -> None:
    pref = store.add("likes jazz", scope=alice, kind="preference")
    fact = store.add("jazz concert on Friday", scope=alice, kind="event", task_id="t1")
    assert store.search("jazz", alice, filters={"kind": "preference"}).ids == [pref]
    assert store.search("jazz", alice, filters={"task_id": "t1"}).ids == [fact]
    assert set(store.search("jazz", alice, filters={"kind": ["preference", "event"]}).ids) == {
        pref,
        fact,
    }
    with pytest.raises(FilterError):
        store.search("jazz", alice, filters={"user_id": "bob"})
    with pytest.raises(FilterError):
        store.search("jazz", alice, filters={"kind": "gossip"})
    with pytest.raises(ConfigError):
        store.search("jazz", alice, k=0)
    with pytest.raises(RecordValidationError):
        store.search(42, alice)  # type: ignore[arg-type]
    assert store.search("   ", alice).hits == []


def test_default_k_is_five_and_hits_are_explained(store: MemoryStore, alice: Scope) -> None:
    store.add_many([f"note {i} about green tea" for i in range(8)], scope=alice)
    result = store.search("green tea", alice)
    assert len(result) == 5 and not result.degraded
    for hit in result:
        e = hit.explanation
        assert e.dense_rank is not None and e.keyword_rank is not None
        assert e.final == pytest.approx(e.fused * e.recency * e.confidence * e.importance)
        assert hit.score == e.final
    assert [h.score for h in result] == sorted((h.score for h in result), reverse=True)


def test_hybrid_finds_what_either_retriever_finds(store: MemoryStore, alice: Scope) -> None:
    exact = store.add("ticket ZX-4471 is blocked on legal review", scope=alice)
    para = store.add("The user adores Japanese green tea", scope=alice)
    store.add_many(["the weather was nice", "bought new shoes", "call the plumber"], scope=alice)
    assert store.search("ZX-4471", alice, k=1).ids == [exact]
    assert store.search("what beverage does the user love", alice, k=1).ids == [para]


def test_chinese_recall(store: MemoryStore, alice: Scope) -> None:
    tea = store.add("用户喜欢喝绿茶，不喜欢咖啡", scope=alice)
    store.add_many(["明天下午三点开会", "孩子周六有钢琴课", "The car needs new tyres"], scope=alice)
    assert store.search("用户爱喝什么茶", alice, k=1).ids == [tea]
    assert store.search("绿茶", alice, k=1, mode="keyword").ids == [tea]


class BrokenEmbedder:
    """An embedder that works for writes, then fails (a model server going away)."""

    name = "use-multilingual-v3"
    dims = 512

    def __init__(self, real) -> None:  # type: ignore[no-untyped-def]
        self.real = real
        self.broken = False

    def encode(self, texts):  # type: ignore[no-untyped-def]
        if self.broken:
            raise RuntimeError("embedding service unavailable")
        return self.real.encode(texts)


def test_embedder_failure_degrades_to_bm25_and_says_so(tmp_path, embedder, caplog) -> None:  # type: ignore[no-untyped-def]
    broken = BrokenEmbedder(embedder)
    with MemoryStore(path=tmp_path / "m", embedder=broken) as store:
        scope = Scope("alice")
        rid = store.add("Alice's locker code is kept at reception", scope=scope)
        broken.broken = True
        with caplog.at_level("WARNING", logger="langgraph_memory.store"):
            result = store.search("locker reception", scope)
        assert result.degraded and "embedding service unavailable" in (result.degraded_reason or "")
        assert result.mode == "keyword"
        assert result.ids == [rid]
        assert any(getattr(r, "event", None) == "degraded" for r in caplog.records)


def test_engine_failure_degrades_to_bm25(store: MemoryStore, alice: Scope, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rid = store.add("the spare key is under the blue pot", scope=alice)
    store.search("spare key", alice)  # (legacy path) keyword index is loaded

    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise ConnectionError("qdrant unreachable")

    real_many = store.backend.query_many

    def dense_fails(queries):  # type: ignore[no-untyped-def]
        if any(q.dense is not None for q in queries):
            raise ConnectionError("dense index unreachable")
        return real_many(queries)

    monkeypatch.setattr(store.backend, "query", boom)
    monkeypatch.setattr(store.backend, "query_many", dense_fails)
    result = store.search("spare key", alice)
    assert result.degraded and result.ids == [rid]
    assert result.mode == "keyword"


def test_engine_down_degrades_without_raising(
    store: MemoryStore, alice: Scope, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    store.add("the spare key is under the blue pot", scope=alice)

    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise ConnectionError("qdrant unreachable")

    monkeypatch.setattr(store.backend, "query_many", boom)
    monkeypatch.setattr(store.backend, "query", boom)
    assert store.backend.keyword_in_engine  # the keyword channel is the engine's: nothing left
    result = store.search("spare key", alice)
    assert result.degraded and result.ids == []
    assert "keyword recall failed" in (result.degraded_reason or "")


def test_reopen_from_disk_keeps_everything(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    scope = Scope("alice")
    with MemoryStore(path=tmp_path / "m", embedder=embedder) as store:
        a = store.add("likes hiking in the alps", scope=scope, importance=7)
        b = store.add("喜欢吃火锅", scope=scope)
        new = store.supersede(a, "likes hiking in the dolomites", scope=scope)
        store.delete(b, scope=scope)
    with MemoryStore(path=tmp_path / "m", embedder=embedder) as store:
        assert store.get(a, scope=scope).superseded_by == new.id
        assert store.search("hiking", scope, mode="keyword").ids == [new.id]
        assert store.search("火锅", scope, mode="keyword").ids == []
        assert store.count(scope=scope, current_only=False) == 2


def test_second_open_of_same_path_fails_clearly(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.errors import StoreUnavailable

    with (
        MemoryStore(path=tmp_path / "m", embedder=embedder),
        pytest.raises(StoreUnavailable, match="already open"),
    ):
        MemoryStore(path=tmp_path / "m", embedder=embedder)


def test_reopen_with_another_embedder_is_a_config_error(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    with MemoryStore(path=tmp_path / "m", embedder=embedder):
        pass

    class Other:
        name = "other-model"
        dims = 384

        def encode(self, texts):  # type: ignore[no-untyped-def]
            return np.zeros((len(texts), 384), dtype=np.float32)

    with pytest.raises(ConfigError, match="cannot be opened"):
        MemoryStore(path=tmp_path / "m", embedder=Other())


def test_store_path_that_is_a_file_is_refused(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ConfigError):
        MemoryStore(path=f, embedder=embedder)


def test_closed_store_refuses_calls(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    store = MemoryStore(path=tmp_path / "m", embedder=embedder)
    store.close()
    store.close()  # idempotent
    with pytest.raises(ConfigError, match="closed"):
        store.search("x", Scope("alice"))
    alice = Scope("alice")
    calls = {
        "add": lambda: store.add("x", scope=alice),
        "add_each": lambda: store.add_each(["x"], scope=alice),
        "delete": lambda: store.delete("0" * 32, scope=alice),
        "explain": lambda: store.explain("x", "0" * 32, alice),
        "flush": store.flush,
        "list": lambda: store.list(scope=alice),
        "count": lambda: store.count(scope=alice, include_internal=True),
        "history": lambda: store.history(scope=alice, subject="s", predicate="p"),
        "alist": lambda: asyncio.run(store.alist(scope=alice)),
    }
    for name, call in calls.items():
        with pytest.raises(ConfigError, match="closed"):
            call()
            pytest.fail(f"{name} ran on a closed store")


def test_async_api(store: MemoryStore, alice: Scope) -> None:
    async def scenario() -> None:
        ids = await asyncio.gather(
            *(store.aadd(f"async fact {i} about tea", scope=alice) for i in range(6))
        )
        assert len(set(ids)) == 6
        results = await asyncio.gather(*(store.asearch("tea", alice, k=3) for _ in range(4)))
        assert all(len(r) == 3 for r in results)
        rec = await store.aupdate(ids[0], scope=alice, expected_version=1, importance=2)
        assert rec.version == 2
        with pytest.raises(VersionConflict):
            await store.aupdate(ids[0], scope=alice, expected_version=1, importance=3)
        assert await store.acount(scope=alice) == 6
        assert await store.adelete(ids[1], scope=alice)
        assert len(await store.alist(scope=alice)) == 5

    asyncio.run(scenario())


def test_memory_version_bumps_on_every_write(store: MemoryStore, alice: Scope) -> None:
    v0 = store.memory_version
    rid = store.add("x", scope=alice)
    store.update(rid, scope=alice, importance=2)
    store.delete(rid, scope=alice)
    assert store.memory_version == v0 + 3


def test_server_backend_sees_other_writers(embedder) -> None:  # type: ignore[no-untyped-def]
    """Two MemoryStore instances (two processes in production) on one Qdrant collection: a
    delete by one never leaves a stale keyword hit in the other; an add by one is found by the
    other's keyword recall."""
    from qdrant_client import QdrantClient

    client = QdrantClient(":memory:")
    first = MemoryStore(client=client, embedder=embedder)
    second = MemoryStore(client=client, embedder=embedder)
    scope = Scope("alice")
    rid = first.add("the boiler service is due in March", scope=scope)
    assert second.search("boiler", scope, mode="keyword").ids == [rid]
    assert first.delete(rid, scope=scope)
    assert second.search("boiler", scope, mode="keyword").ids == []
    new = first.add("the boiler was replaced", scope=scope)
    assert second.search("boiler", scope, mode="keyword").ids == [new]


def test_selective_filter_is_resolved_by_the_engine(store: MemoryStore, alice: Scope) -> None:
    """With a large partition and a narrow filter, keyword recall still returns the filtered
    records (ranked by BM25) and nothing outside the filter."""
    store.add_many(
        [f"general note {i} about the quarterly report" for i in range(2100)], scope=alice
    )
    wanted = store.add_many(
        ["task note: quarterly report draft", "task note: report figures"],
        scope=alice,
        task_id="t9",
    )
    hits = store.search("quarterly report", alice, k=5, filters={"task_id": "t9"}, mode="keyword")
    assert hits.ids == wanted


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("path", "elsewhere"),
        ("url", "http://localhost:6333"),
        ("api_key", "secret"),
        ("collection", "other"),
        ("recall", RecallConfig(k=3)),
        ("embedder", "use-multilingual"),
    ],
)
def test_config_with_a_conflicting_argument_is_refused(
    argument: str,
    value: object,
    tmp_path,
    embedder,  # type: ignore[no-untyped-def]
) -> None:
    """A setting the config already holds is refused by name, not silently dropped."""
    config = MemoryConfig(path=str(tmp_path / "configured"))
    with pytest.raises(ConfigError, match=f"both config= and {argument}") as caught:
        MemoryStore(config=config, **{"embedder": embedder, argument: value})  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)
    assert not (tmp_path / "configured").exists()  # refused before anything was opened


def test_config_names_every_conflicting_argument(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    config = MemoryConfig(path=str(tmp_path / "configured"))
    with pytest.raises(ConfigError, match="both config= and path, collection"):
        MemoryStore(tmp_path / "x", config=config, embedder=embedder, collection="c")


def test_config_combines_with_an_embedder_object_and_lifecycle(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    config = MemoryConfig(path=str(tmp_path / "configured"), collection="mine")
    with MemoryStore(config=config, embedder=embedder, lifecycle=None) as store:
        assert store.embedder.name == embedder.name and store.lifecycle is None
        store.add("kept where the config says", scope="u")
    assert (tmp_path / "configured").exists()


def test_the_write_ledger_is_internal_not_memory(store: MemoryStore, alice: Scope) -> None:
    """Ledger entries never come back from list / count / history / search / inspect; the
    write path still finds its ledger (a repeated turn is recognised)."""
    from langgraph_memory import WritePipeline
    from langgraph_memory.core.records import LEDGER_SUBJECT
    from langgraph_memory.lifecycle.admin import user_records

    pipeline = WritePipeline(store)
    for i, text in enumerate(["I prefer green tea", "my sister lives in Lyon"]):
        pipeline.process_turn(text, scope=alice, turn_id=f"t{i}", thread_id="th")
    every = store.list(scope=alice, current_only=False, include_internal=True)
    ledger = {r.id for r in every if r.subject == LEDGER_SUBJECT}
    assert ledger and len(ledger) < len(every)
    listed = {r.id for r in store.list(scope=alice, current_only=False)}
    assert listed == {r.id for r in every} - ledger
    assert store.count(scope=alice, current_only=False) == len(every) - len(ledger)
    assert store.count(scope=alice, current_only=False, include_internal=True) == len(every)
    entry = next(r for r in every if r.id in ledger)
    assert store.history(scope=alice, subject=LEDGER_SUBJECT, predicate=entry.predicate) == []
    assert store.list(scope=alice, filters={"subject": LEDGER_SUBJECT}, current_only=False) == []
    for query in (entry.text, "green tea", "sister Lyon"):
        for mode in ("hybrid", "keyword", "dense"):
            assert not ledger & set(store.search(query, alice, k=50, mode=mode).ids)
    assert not ledger & {r.id for r in user_records(store, "alice", include_ledger=False)}
    assert ledger <= {r.id for r in user_records(store, "alice", include_ledger=True)}
    again = pipeline.process_turn("I prefer green tea", scope=alice, turn_id="t0", thread_id="th")
    assert again.decisions and all(d.action == "duplicate_turn" for d in again.decisions)
    assert store.count(scope=alice, current_only=False, include_internal=True) == len(every)


def test_async_twins_are_generated_from_the_sync_facade() -> None:
    """The checked-in async module is exactly what the generator writes from the sync
    source, so every twin has its sync method's parameters and says it is a thread hop."""
    import inspect

    from langgraph_memory.store import _generate_async as gen

    source = gen.SYNC_SOURCE.read_text(encoding="utf-8")
    assert gen.render(source) == gen.TARGET.read_text(encoding="utf-8"), (
        "async_store.py is stale: run python -m langgraph_memory.store._generate_async"
    )
    assert gen.main(["--check"]) == 0
    for name in gen.TWINS:
        sync, twin = getattr(MemoryStore, name), getattr(MemoryStore, f"a{name}")
        assert inspect.iscoroutinefunction(twin)
        sync_params = list(inspect.signature(sync).parameters.values())[1:]
        assert list(inspect.signature(twin).parameters.values())[1:] == sync_params, name
        assert "worker thread" in (twin.__doc__ or "")
    # a changed sync signature changes the generated twin (the comparison above can fail)
    anchor = "        include_internal: bool = False,\n    ) -> int:"
    changed = source.replace(anchor, anchor.replace(",\n", ",\n        extra_flag: bool = True,\n"))
    assert changed != source and "extra_flag: bool = True" in gen.render(changed)
