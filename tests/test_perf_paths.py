"""Indexing without optimize(), use bookkeeping off the read path, and batch writes that do
not lose items (issue 16). Real engine, real default embedder; no timing assertions."""

from __future__ import annotations

import numpy as np
import pytest

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.core.records import MAX_TEXT_CHARS
from langgraph_memory.core.text import split_long_text
from langgraph_memory.errors import RecordValidationError
from langgraph_memory.store import edge as edge_module
from langgraph_memory.store.edge import EdgeBackend
from langgraph_memory.store.prepare import CHUNK_CHARS

SEGMENT = 256  # small segments keep the test fast; the engine settings follow the constant


def _points(start: int, n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray, dict]]:  # type: ignore[type-arg]
    import uuid

    vectors = rng.standard_normal((n, 64)).astype(np.float32)
    return [
        (str(uuid.UUID(int=start + i + 1)), vectors[i], {"user_id": "alice", "text": f"t{i}"})
        for i in range(n)
    ]


def test_a_writer_that_never_pauses_indexes_in_steps(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", SEGMENT)
    rng = np.random.default_rng(7)
    backend = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    assert backend.auto_index
    backlog = edge_module.INDEX_BACKLOG_SEGMENTS * SEGMENT
    total = 3 * backlog - 3 * backlog % 100 + 100  # whole writes of 100, past 3 backlogs
    for start in range(0, total, 100):  # writes of 100 points, never optimize()
        backend.upsert(_points(start, 100, rng))
    info = backend.shard_info()
    assert info["points"] == total
    # the unindexed part never grows past the backlog bound: the writes themselves indexed
    assert info["points"] - info["indexed_vectors"] < backlog
    assert info["indexed_vectors"] >= 2 * backlog
    assert backend.index_steps >= 2
    backend.close()
    reopened = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    assert reopened.shard_info()["indexed_vectors"] == info["indexed_vectors"]  # persisted
    reopened.close()


def test_the_background_indexer_indexes_an_idle_store(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", SEGMENT)
    monkeypatch.setattr(edge_module, "INDEX_IDLE_SECONDS", 0.05)
    backend = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    backend.upsert(_points(0, 2 * SEGMENT + 10, np.random.default_rng(4)))
    assert backend.wait_indexed(timeout=300)  # no optimize() call anywhere
    info = backend.shard_info()
    assert info["points"] - info["indexed_vectors"] < SEGMENT
    assert info["segments"] >= 2 and backend.index_steps >= 1
    backend.close()  # stops the indexer thread


def test_auto_index_off_leaves_new_points_unindexed(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", SEGMENT)
    backend = EdgeBackend(tmp_path / "s", 64, "test-embedder", auto_index=False)
    backend.upsert(_points(0, 3 * SEGMENT, np.random.default_rng(1)))
    assert backend.shard_info()["indexed_vectors"] == 0 and backend.index_steps == 0
    backend.close()


def test_one_big_batch_is_indexed_in_bounded_steps(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", SEGMENT)
    backend = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    backend.upsert(_points(0, 8 * SEGMENT, np.random.default_rng(2)))
    info = backend.shard_info()
    assert info["segments"] >= 3  # not one big segment converted in one long step
    assert info["points"] - info["indexed_vectors"] < SEGMENT
    backend.close()


def test_vacuum_keeps_segments_bounded_and_indexed(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", SEGMENT)
    backend = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    points = _points(0, 3 * SEGMENT, np.random.default_rng(3))
    backend.upsert(points)
    backend.erase(ids=[points[0][0]])  # the copy is indexed in steps as it is written
    info = backend.shard_info()
    assert info["points"] == 3 * SEGMENT - 1
    assert info["segments"] >= 2
    assert info["points"] - info["indexed_vectors"] < SEGMENT
    assert backend.auto_index
    backend.close()


# ---------------------------------------------------------------------------- uses
def test_uses_are_coalesced_and_written_on_flush(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    alice = Scope("alice")
    with MemoryStore(tmp_path / "m", embedder=embedder) as store:
        a, b = store.add_many(["I prefer tea", "I live in Lyon"], scope=alice)
        store.record_use([a, b], alice)
        store.record_use([a, "not-an-id"], alice, now="2030-01-01T00:00:00Z")
        assert store.flush_uses() == 2  # two records, three uses
        first, second = store.get(a, scope=alice), store.get(b, scope=alice)
        assert first.access_count == 2 and second.access_count == 1
        assert first.last_accessed_at is not None and first.last_accessed_at.year == 2030
        assert second.last_accessed_at is not None and second.last_accessed_at.year < 2030
        assert store.flush_uses() == 0  # nothing pending any more


def test_close_writes_pending_uses(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    alice = Scope("alice")
    store = MemoryStore(tmp_path / "m", embedder=embedder)
    [a] = store.add_many(["I prefer tea"], scope=alice)
    store.record_use([a], alice)
    store.close()
    with MemoryStore(tmp_path / "m", embedder=embedder) as again:
        record = again.get(a, scope=alice)
        assert record.access_count == 1 and record.last_accessed_at is not None


def test_pending_uses_never_resurrect_forgotten_or_deleted_records(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    alice, bob = Scope("alice"), Scope("bob")
    store = MemoryStore(tmp_path / "m", embedder=embedder)
    a1, a2 = store.add_many(["I prefer tea", "I live in Lyon"], scope=alice)
    [b1, b2] = store.add_many(["I like chess", "I have a cat"], scope=bob)
    store.record_use([a1, a2], alice)
    store.record_use([b1, b2], bob)
    store.delete_user("alice")
    assert store.delete(b2, scope=bob)
    store.close()  # writes what is pending
    with MemoryStore(tmp_path / "m", embedder=embedder) as again:
        assert again.count(scope=alice) == 0
        assert again.get_many([a1, a2], scope=alice) == []
        assert [r.id for r in again.get_many([b1, b2], scope=bob)] == [b1]
        assert again.get(b1, scope=bob).access_count == 1


def test_record_use_on_a_closed_store_is_refused(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.errors import ConfigError

    store = MemoryStore(tmp_path / "m", embedder=embedder)
    store.close()
    with pytest.raises(ConfigError):
        store.record_use(["x"], Scope("alice"))


# ---------------------------------------------------------------------------- batches
def _long_text(chars: int) -> str:
    sentence = "We talked about the garden, the new puppy and the trip to Lyon next spring. "
    text = ""
    n = 0
    while len(text) < chars:
        text += f"Turn {n}: {sentence}"
        n += 1
    return text[:chars]


def test_split_long_text_cuts_at_breaks_within_the_limit() -> None:
    text = _long_text(41_855)
    parts = split_long_text(text, CHUNK_CHARS)
    assert len(parts) == 6 and all(0 < len(p) <= CHUNK_CHARS for p in parts)
    assert all(p.endswith(".") for p in parts[:-1])  # cut after a sentence
    assert " ".join(parts).split() == text.split()  # nothing lost but whitespace
    assert split_long_text("short", 10) == ["short"]
    assert split_long_text("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]  # hard cut


def test_a_very_long_turn_is_stored_as_linked_parts_and_the_batch_survives(
    tmp_path,  # type: ignore[no-untyped-def]
    embedder,
) -> None:
    alice = Scope("alice")
    long = _long_text(41_855)
    assert len(long) > MAX_TEXT_CHARS
    with MemoryStore(tmp_path / "m", embedder=embedder) as store:
        ids = store.add_many(["I prefer tea", long, "I live in Lyon"], scope=alice)
        assert len(ids) == 3
        records = store.list(scope=alice, limit=100)
        parts = sorted(
            (r for r in records if r.metadata.get("chunk_of") == ids[1]),
            key=lambda r: r.metadata["chunk"],
        )
        assert len(parts) == 6 and parts[0].id == ids[1]
        assert {p.metadata["chunks"] for p in parts} == {6}
        assert " ".join(p.text for p in parts).split() == long.split()
        assert {store.get(ids[0], scope=alice).text, store.get(ids[2], scope=alice).text} == {
            "I prefer tea",
            "I live in Lyon",
        }
        hits = store.search("trip to Lyon next spring", alice, k=3)
        assert any(h.record.metadata.get("chunk_of") == ids[1] for h in hits)


def test_empty_text_names_the_item_and_add_each_keeps_the_others(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    alice = Scope("alice")
    with MemoryStore(tmp_path / "m", embedder=embedder) as store:
        with pytest.raises(RecordValidationError, match=r"(?s)record 1 of 3: .*must not be empty"):
            store.add_many(["I prefer tea", "   ", "I live in Lyon"], scope=alice)
        assert store.count(scope=alice) == 0  # all or nothing
        out = store.add_each(["I prefer tea", "   ", "I live in Lyon"], scope=alice)
        assert isinstance(out[1], RecordValidationError) and "record 1 of 3" in str(out[1])
        assert isinstance(out[0], str) and isinstance(out[2], str)
        assert sorted(r.text for r in store.list(scope=alice)) == ["I live in Lyon", "I prefer tea"]


def test_big_batches_embed_in_parallel_in_order(tmp_path, embedder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.store import memory_store
    from langgraph_memory.store.memory_store import EMBED_BATCH

    monkeypatch.setattr(memory_store, "EMBED_THREADS", 2)

    alice = Scope("alice")
    texts = [f"note number {i} about topic {i % 7}" for i in range(EMBED_BATCH * 2 + 5)]
    with MemoryStore(tmp_path / "m", embedder=embedder) as store:
        ids = store.add_many(texts, scope=alice)
        vectors = store.backend.retrieve_vectors([ids[0], ids[-1]])
        expected = embedder.encode([texts[0], texts[-1]])
        assert np.allclose(vectors[ids[0]], expected[0], atol=1e-5)
        assert np.allclose(vectors[ids[-1]], expected[1], atol=1e-5)


# ---------------------------------------------------------------------------- benches
def test_bench_latency_tenants_writes_the_documented_keys(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    from langgraph_memory.eval import latency

    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", SEGMENT)  # steps at a small size
    out = tmp_path / "scale.json"
    argv = ["--tenants", "300x3", "--one-scope", str(3 * SEGMENT), "--ingest", "4"]
    assert latency.main([*argv, "--queries", "5", "--no-progress", "--out", str(out)]) == 0
    scale = json.loads(out.read_text())["scale"]
    tenants, one, ingest = scale["tenants"], scale["one_scope"], scale["ingest"]
    for key in (
        "memories", "users", "fill_records_per_s", "fill_longest_pause_ms", "disk_bytes",
        "disk_bytes_per_record", "reopen_s", "cold_user_p50_ms", "cold_user_p95_ms",
        "warm_p50_ms", "warm_p95_ms", "rss_after_mb", "rss_store_bytes_per_record",
        "peak_rss_mb",
    ):  # fmt: skip
        assert key in tenants, key
    assert tenants["memories"] == 300 and tenants["users"] == 3 and tenants["cold_users"] == 3
    assert tenants["warm_p95_ms"] >= tenants["warm_p50_ms"] > 0 and tenants["disk_bytes"] > 0
    assert one["optimize_called"] is False and one["memories"] == 3 * SEGMENT
    assert one["index_steps"] >= 1 and one["indexed_vectors"] >= 2 * SEGMENT
    assert one["p95_ms"] >= one["p50_ms"] > 0
    # a search ran while the store was filled and indexed, and its wait was measured
    assert one["searches_while_indexing"] >= 1
    assert one["search_while_indexing_max_ms"] >= one["search_while_indexing_p50_ms"] > 0
    assert ingest["sessions"] == 4 and ingest["records_per_s"] > 0
    assert ingest["records_per_s_one_thread"] > 0 and ingest["mean_chars"] > 100


def test_bench_turn_writes_the_documented_keys(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from langgraph_memory.eval import turn_bench

    out = tmp_path / "turn.json"
    assert turn_bench.main(["--records", "30", "--turns", "3", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["records_in_scope"] >= 30 and result["turns"] == 3
    for node in ("load_memory", "generate", "save_memory"):
        assert result["prebuilt"][f"{node}_p95_ms"] >= result["prebuilt"][f"{node}_p50_ms"] > 0
    assert result["prebuilt_background_writer"]["turn_p50_ms"] > 0
    # the turns' own engine round trips are counted (background work left out): a recall
    # with its one listing of standing records, and the write path's reads and writes
    assert (
        result["prebuilt"]["engine_calls_per_turn"]
        > result["prebuilt_background_writer"]["engine_calls_per_turn"]
    )  # with a writer the turn only recalls; the pipeline runs in the writer's thread
    assert 3 <= result["prebuilt_background_writer"]["engine_calls_per_turn"] <= 8
    assert result["prebuilt_background_writer"]["writer_waits_per_turn"] >= 0
    assert len(result["load_average"]) == 3
    mw = result["middleware"]
    assert mw["with_p50_ms"] > 0 and mw["without_p50_ms"] > 0
    assert mw["overhead_p50_ms"] == mw["with_p50_ms"] - mw["without_p50_ms"]
    # CPU per turn (process time over the timed turns), readable on a loaded machine
    assert result["prebuilt"]["turn_cpu_ms"] > 0
    assert result["prebuilt_background_writer"]["turn_cpu_ms"] > 0
    assert mw["with_turn_cpu_ms"] > 0 and mw["without_turn_cpu_ms"] > 0
    assert mw["overhead_turn_cpu_ms"] == mw["with_turn_cpu_ms"] - mw["without_turn_cpu_ms"]
    # recall's query, and one batched call for what the turn writes (issue 16)
    assert 1 <= result["prebuilt"]["model_calls_per_turn"] <= 2
    assert 1 <= mw["model_calls_per_turn"] <= 2


def test_big_batches_are_cut_into_balanced_ordered_parts() -> None:
    from langgraph_memory.store.memory_store import _balanced_parts

    texts = [("x" * (1 + (i * 37) % 900)) + str(i) for i in range(301)]
    for threads in (1, 2, 3, 4):
        parts = _balanced_parts(texts, threads, 64)
        assert [t for part in parts for t in part] == texts  # in order, nothing lost
        assert all(parts) and len(parts) % threads == 0
        assert max(len(p) for p in parts) <= 2 * 64
    parts = _balanced_parts(texts, 2, 64)
    sizes = [sum(map(len, p)) for p in parts]
    assert max(sizes) < 1.3 * min(sizes)  # equal work per part, not equal counts
    # 65 texts, one of them long: two parts of equal characters, not 64 + 1
    skewed = ["y" * 5000] + ["z" * 50] * 64
    first, second = _balanced_parts(skewed, 2, 64)
    assert first == ["y" * 5000] and len(second) == 64


def test_embed_threads_come_from_the_environment(monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.store import memory_store

    monkeypatch.setenv(memory_store.EMBED_THREADS_ENV, "3")
    assert memory_store._embed_threads() == 3
    monkeypatch.setenv(memory_store.EMBED_THREADS_ENV, "zero")
    with caplog.at_level("WARNING", logger="langgraph_memory.store"):
        assert memory_store._embed_threads() >= 1
    assert "LGM_EMBED_THREADS='zero' is not a positive integer" in caplog.text
    monkeypatch.delenv(memory_store.EMBED_THREADS_ENV)
    assert 1 <= memory_store._embed_threads() <= 4
