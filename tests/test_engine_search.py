"""Search inside the embedded engine (issue 16): the recall filter's validity conditions, the
union fusion's other-side scores. Real engine, real default embedder; no timing assertions."""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime

import numpy as np

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.store.candidates import engine_candidates
from langgraph_memory.store.edge import EdgeBackend
from langgraph_memory.store.filters import And, Eq, Not, Range, recall_filter, validity

AT = 1_000_000.0
AROUND = (None, 0.0, AT - 1, AT, AT + 1, 9e15)  # missing, far past, around AT, far future


def _plain(payload: dict[str, float]) -> bool:
    """The validity window as plain ranges (a missing bound: the default records write)."""
    start = payload.get("_valid_from", 0.0)
    end = payload.get("_valid_to", 9e15)
    expire = payload.get("_expire_at", 9e15)
    return start <= AT < end and expire > AT


def _payloads() -> list[dict[str, float]]:
    out = []
    for start, end, expire in itertools.product(AROUND, repeat=3):
        fields = {"_valid_from": start, "_valid_to": end, "_expire_at": expire}
        out.append({k: v for k, v in fields.items() if v is not None})
    return out


def test_validity_negations_select_exactly_the_validity_window(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Written as negations (the form the engine evaluates fast), the validity conditions keep
    exactly the points inside the window, in Python and in the engine, bounds included."""
    payloads = _payloads()
    conds = And((Eq("user_id", "alice"), *validity(AT)))
    assert all(isinstance(c, Not) and isinstance(c.child, Range) for c in validity(AT))
    expected = {i for i, p in enumerate(payloads) if _plain(p)}
    assert {i for i, p in enumerate(payloads) if conds.matches({"user_id": "alice", **p})} == (
        expected
    )
    assert 0 < len(expected) < len(payloads)
    backend = EdgeBackend(tmp_path / "s", 8, "test-embedder")
    try:
        rng = np.random.default_rng(0)
        ids = [str(uuid.UUID(int=i + 1)) for i in range(len(payloads))]
        backend.upsert(
            [
                (
                    ids[i],
                    rng.standard_normal(8).astype(np.float32),
                    {"id": ids[i], "user_id": "alice", **p},
                )
                for i, p in enumerate(payloads)
            ]
        )
        found = {ids.index(p["id"]) for p in backend.scroll(conds, len(payloads))}
        assert found == expected
        hits = backend.query(np.ones(8, dtype=np.float32), conds, len(payloads))
        assert {ids.index(h.id) for h in hits} == expected
    finally:
        backend.close()


def test_recall_filter_uses_the_validity_negations() -> None:
    """Current recall and ``as_of`` recall both carry the three negated bounds."""
    now = recall_filter(Scope("alice"))
    past = recall_filter(Scope("alice"), as_of=datetime(2020, 1, 1))
    for cond in (now, past):
        keys = [
            c.child.key for c in cond.children if isinstance(c, Not) and isinstance(c.child, Range)
        ]
        assert keys == ["_valid_from", "_valid_to", "_expire_at"]


def test_union_scores_each_one_sided_candidate_on_the_other_side(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    """Keyword-only candidates get their true cosine, dense-only ones their keyword score
    (0 when they share no term), from the second engine call filtered by id only."""
    alice = Scope("alice")
    texts = [f"note {i}: the {w} is on the shelf" for i, w in enumerate(["teapot", "lamp"] * 20)]
    texts += ["my teapot collection grows", "Paris in spring", "quarterly tax report"]
    with MemoryStore(tmp_path / "m", embedder=embedder) as store:
        store.add_many(texts, scope=alice)
        src = store._recall_sources()
        query = "teapot"
        vector = embedder.encode([query])[0]
        cond = recall_filter(alice)
        dense, keyword, dense_extra, keyword_extra = engine_candidates(
            src, "alice", query, vector, cond, 5, True, []
        )
        dense_ids = {d for d, _, _ in dense}
        kw_ids = {d for d, _, _ in keyword}
        assert kw_ids - dense_ids and dense_ids - kw_ids  # both kinds of one-sided candidates
        assert set(dense_extra) == kw_ids - dense_ids
        assert set(keyword_extra) == dense_ids - kw_ids
        stored = store.backend.retrieve_vectors(list(dense_extra))
        for doc_id, score in dense_extra.items():
            expected = float(stored[doc_id] @ vector / np.linalg.norm(stored[doc_id]))
            assert abs(score - expected / np.linalg.norm(vector)) < 1e-4
        for doc_id, score in keyword_extra.items():
            text = store.get(doc_id, scope=alice).text
            assert (score > 0) == ("teapot" in text)


def test_new_shards_quantize_and_rescore_converted_segments(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A new store records int8 quantization; once segments are converted (no optimize()
    call), dense search still returns the exact top 10 (codes rescored with the originals),
    and a reopen keeps the setting."""
    from langgraph_memory.store import edge as edge_module

    monkeypatch.setattr(edge_module, "AUTO_INDEX_POINTS", 256)
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((3 * 256, 64)).astype(np.float32)
    ids = [str(uuid.UUID(int=i + 1)) for i in range(len(vectors))]
    backend = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    try:
        assert backend.quantization == "int8"
        for start in range(0, len(ids), 128):
            backend.upsert(
                [
                    (ids[i], vectors[i], {"id": ids[i], "user_id": "alice"})
                    for i in range(start, start + 128)
                ]
            )
        info = backend.shard_info()
        assert info["indexed_vectors"] >= 256 and backend.index_steps >= 1
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        where = And((Eq("user_id", "alice"),))
        for q in rng.standard_normal((20, 64)).astype(np.float32):
            exact = [ids[i] for i in np.argsort(-(unit @ q))[:10]]
            assert [h.id for h in backend.query(q, where, 10, with_payload=False)] == exact
    finally:
        backend.close()
    reopened = EdgeBackend(tmp_path / "s", 64, "test-embedder")
    assert reopened.quantization == "int8"
    reopened.close()


def test_a_store_without_quantization_adopts_it_at_its_next_vacuum(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory.store import edge_convert

    monkeypatch.setattr(edge_convert, "QUANTIZATION", None)
    rng = np.random.default_rng(5)
    ids = [str(uuid.UUID(int=i + 1)) for i in range(20)]
    backend = EdgeBackend(tmp_path / "s", 16, "test-embedder")
    backend.upsert(
        [(i, rng.standard_normal(16).astype(np.float32), {"id": i, "user_id": "a"}) for i in ids]
    )
    assert backend.quantization is None
    monkeypatch.setattr(edge_convert, "QUANTIZATION", "int8")
    assert backend.quantization is None  # an open shard keeps what it was created with
    backend.erase(ids=[ids[0]])  # the rewrite gets the current setting
    assert backend.quantization == "int8" and backend.count(And((Eq("user_id", "a"),))) == 19
    backend.close()
    reopened = EdgeBackend(tmp_path / "s", 16, "test-embedder")
    assert reopened.quantization == "int8"
    reopened.close()
