"""The keyword channel inside the engine: BM25 sparse vectors with per-user IDF.

Real engine (qdrant-edge and qdrant-client local mode), real embedder, rank-bm25's BM25Plus as
the scoring reference.
"""

from __future__ import annotations

import json
import logging
import random

import numpy as np
import pytest
import qdrant_edge as qe
from qdrant_client import QdrantClient
from qdrant_client import models as qm
from rank_bm25 import BM25Plus

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.core import tokenize
from langgraph_memory.store import edge as edge_mod
from langgraph_memory.store.backend import EngineQuery
from langgraph_memory.store.edge_convert import create_indexes
from langgraph_memory.store.filters import Eq
from langgraph_memory.store.keyword import (
    SPARSE_SCHEME,
    SPARSE_VECTOR,
    document_weights,
    query_weights,
    term_id,
)

from .conftest import make_store

EN = [
    "tea",
    "coffee",
    "hiking",
    "kyoto",
    "python",
    "meeting",
    "budget",
    "flight",
    "hotel",
    "dentist",
    "piano",
    "garden",
]
ZH = ["绿茶", "咖啡", "爬山", "京都", "会议", "预算", "航班", "酒店", "牙医", "钢琴", "花园"]


def _corpus() -> list[str]:
    rng = random.Random(7)
    docs = []
    for i in range(120):
        words = ZH if i % 3 == 0 else EN
        n = rng.randint(2, 14)
        sep = "" if words is ZH else " "
        docs.append(sep.join(rng.choice(words) for _ in range(n)))
    return docs


def _spearman(a: list[float], b: list[float]) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1])


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_engine_scores_rank_like_bm25plus(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    """Top-10 overlap and Spearman (over the documents sharing a query term) between the
    engine's sparse scores and BM25Plus on the same tokens, English and Chinese queries."""
    docs = _corpus()
    scope = Scope("u")
    with make_store(kind, tmp_path, embedder) as store:
        ids = store.add_many(docs, scope=scope)
        reference = BM25Plus([tokenize(d) for d in docs])
        overlaps, rhos = [], []
        for query in [
            "coffee hiking",
            "kyoto hotel flight",
            "piano",
            "咖啡 爬山",
            "京都酒店",
            "牙医",
        ]:
            ref = reference.get_scores(tokenize(query))
            hits = store.backend.query_many(
                [
                    EngineQuery(
                        Eq("user_id", "u"),
                        len(docs),
                        sparse=query_weights(query),
                        idf_corpus=Eq("user_id", "u"),
                        payload=False,
                    )
                ]
            )[0]
            engine = {h.id: h.score for h in hits}
            matching = [i for i, d in enumerate(docs) if set(tokenize(d)) & set(tokenize(query))]
            assert {ids[i] for i in matching} == set(engine)  # same candidate set
            top_ref = {ids[i] for i in np.argsort(-ref, kind="stable")[:10]}
            top_engine = {h.id for h in hits[:10]}
            overlaps.append(len(top_ref & top_engine) / 10)
            rhos.append(_spearman([ref[i] for i in matching], [engine[ids[i]] for i in matching]))
        assert min(overlaps) >= 0.7 and sum(overlaps) / len(overlaps) >= 0.85, overlaps
        assert min(rhos) >= 0.9, rhos


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_idf_is_per_user(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    """A term frequent for alice does not change bob's keyword scores or ranking."""
    alice, bob = Scope("alice"), Scope("bob")
    with make_store(kind, tmp_path, embedder) as store:
        store.add_many(
            [
                "coffee with milk in the morning",
                "green tea in the afternoon",
                "coffee beans from kyoto",
                "a long walk in the park",
            ],
            scope=bob,
        )

        def bob_scores() -> list[tuple[str, float]]:
            hits = store.search("coffee walk", bob, k=10, mode="keyword").hits
            return [(h.record.id, round(h.explanation.keyword_score or 0.0, 6)) for h in hits]

        before = bob_scores()
        store.add_many([f"coffee note {i}" for i in range(40)], scope=alice)
        assert bob_scores() == before
        # and alice's own statistics do see it: "coffee" is common for her, "walk" is rare
        store.add("a walk by the river", scope=alice)
        top = store.search("coffee walk", alice, k=1, mode="keyword").hits[0]
        assert top.record.text == "a walk by the river"


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_keyword_recall_en_zh(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    scope = Scope("alice")
    with make_store(kind, tmp_path, embedder) as store:
        rid_en = store.add("the spare key is under the blue pot", scope=scope)
        rid_zh = store.add("用户偏好用中文回答问题", scope=scope)
        store.add("meeting with the dentist on friday", scope=scope)
        assert store.search("spare key", scope, mode="keyword").ids == [rid_en]
        assert store.search("偏好中文", scope, mode="keyword").ids == [rid_zh]
        hybrid = store.search("where is the spare key", scope)
        assert hybrid.ids[0] == rid_en and hybrid.hits[0].explanation.keyword_rank == 1


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_deleted_updated_superseded_never_keyword_hits(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    alice, bob = Scope("alice"), Scope("bob")
    with make_store(kind, tmp_path, embedder) as store:
        gone = store.add("the zebra parade is on monday", scope=alice)
        changed = store.add("my locker code is walrus", scope=alice)
        old = store.add("favourite fruit is mango", scope=alice)
        store.add("bob also likes the zebra parade", scope=bob)
        store.delete(gone, scope=alice)
        assert store.search("zebra parade", alice, mode="keyword").ids == []
        store.update(changed, scope=alice, text="my locker code is penguin")
        assert store.search("walrus", alice, mode="keyword").ids == []
        assert store.search("penguin", alice, mode="keyword").ids == [changed]
        new = store.supersede(old, "favourite fruit is papaya", scope=alice)
        assert store.search("favourite fruit", alice, mode="keyword").ids == [new.id]
        assert store.search("mango", alice, mode="keyword").ids == []
        assert store.search("mango", alice, mode="keyword", as_of=new.created_at).ids == []
        store.delete_user("alice")
        assert store.search("penguin papaya", alice, mode="keyword").ids == []
        assert len(store.search("zebra parade", bob, mode="keyword").ids) == 1


def test_records_valid_at_no_instant_carry_no_sparse_vector(embedder) -> None:  # type: ignore[no-untyped-def]
    """The write ledger (valid at no instant) stays out of the engine's IDF corpus: its points
    get no sparse vector (hundreds of ledger entries once cost 0.05 of LoCoMo recall)."""
    from langgraph_memory import WritePipeline

    client = QdrantClient(":memory:")
    scope = Scope(user_id="u")
    with MemoryStore(client=client, embedder=embedder) as store:
        pipeline = WritePipeline(store)
        for i, text in enumerate(["I went hiking with my sister", "we saw a bear", "I prefer tea"]):
            pipeline.process_turn(text, scope=scope, turn_id=f"t{i}", thread_id="th")
        records = store.list(scope=scope, current_only=False, include_internal=True)
        ledger = {r.id for r in records if r.subject == "__write_ledger__"}
        assert ledger and len(ledger) < len(records)
        points = client.retrieve("langgraph_memory", [r.id for r in records], with_vectors=True)
        for point in points:
            assert isinstance(point.vector, dict)
            assert (SPARSE_VECTOR in point.vector) == (str(point.id) not in ledger)


def test_term_ids_and_weights() -> None:
    # pinned: stored vectors depend on it (a changed hash needs a new SPARSE_SCHEME)
    assert term_id("coffee") == 0x239868B7
    assert 0 <= term_id("咖啡") < 2**32
    ids, weights = document_weights("Coffee, coffee and 咖啡")
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    assert weights[ids.index(term_id("coffee"))] > weights[ids.index(term_id("and"))]
    assert document_weights("   ...  ") == ([], [])
    q_ids, q_weights = query_weights("tea tea coffee")
    assert dict(zip(q_ids, q_weights, strict=True)) == {term_id("tea"): 2.0, term_id("coffee"): 1.0}


# ---------------------------------------------------------------- old stores


def _old_edge_store(path, embedder, texts: list[str], user: str) -> list[str]:  # type: ignore[no-untyped-def]
    """A store in the layout of the version before the sparse vector: a dense-only shard,
    the same payload indexes, metadata without ``keyword``."""
    from langgraph_memory import MemoryRecord

    path.mkdir(parents=True)
    shard = qe.EdgeShard.create(
        str(path / "shard"),
        qe.EdgeConfig(
            vectors={"dense": qe.EdgeVectorParams(size=embedder.dims, distance=qe.Distance.Cosine)}
        ),
    )
    create_indexes(shard)
    records = [MemoryRecord(user_id=user, text=t) for t in texts]
    vectors = embedder.encode(texts)
    shard.update(
        qe.UpdateOperation.upsert_points(
            [
                qe.Point(r.id, {"dense": v.tolist()}, r.to_payload())
                for r, v in zip(records, vectors, strict=True)
            ]
        )
    )
    shard.close()
    meta = {"dims": embedder.dims, "embedder": embedder.name, "shard": "shard"}
    (path / "langgraph_memory.json").write_text(json.dumps(meta))
    return [r.id for r in records]


def test_old_edge_store_is_migrated_on_open(tmp_path, embedder, caplog) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "old"
    ids = _old_edge_store(
        path, embedder, ["the spare key is under the blue pot", "喜欢吃火锅"], "a"
    )
    with caplog.at_level(logging.WARNING, logger="langgraph_memory.store"):
        store = MemoryStore(path=path, embedder=embedder)
    with store:
        assert any("re-indexing" in r.getMessage() for r in caplog.records)
        meta = json.loads((path / "langgraph_memory.json").read_text())
        assert meta["keyword"] == SPARSE_SCHEME and meta["shard"] != "shard"
        assert not (path / "shard").exists()
        assert store.count(scope=Scope("a"), current_only=False) == 2
        assert store.search("spare key", Scope("a"), mode="keyword").ids == [ids[0]]
        assert store.search("火锅", Scope("a"), mode="keyword").ids == [ids[1]]
        vec = store.backend._shard.retrieve([ids[0]], False, True)[0].vector  # type: ignore[attr-defined]
        assert SPARSE_VECTOR in vec
    with caplog.at_level(logging.WARNING, logger="langgraph_memory.store"):
        caplog.clear()
        MemoryStore(path=path, embedder=embedder).close()  # migrated once: no second rewrite
        assert not any("re-indexing" in r.getMessage() for r in caplog.records)


def test_migration_interrupted_keeps_old_shard_and_reruns(tmp_path, embedder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "old"
    ids = _old_edge_store(path, embedder, ["alpha bravo", "charlie delta"], "a")

    def crash(step: str) -> None:
        if step == "vacuum:copied":
            raise KeyboardInterrupt("killed mid-migration")

    monkeypatch.setattr(edge_mod, "_crash_point", crash)
    with pytest.raises(KeyboardInterrupt):
        MemoryStore(path=path, embedder=embedder)
    meta = json.loads((path / "langgraph_memory.json").read_text())
    assert meta["shard"] == "shard" and "keyword" not in meta  # old shard still current
    monkeypatch.setattr(edge_mod, "_crash_point", lambda step: None)
    with MemoryStore(path=path, embedder=embedder) as store:
        assert sorted(r.id for r in store.list(scope=Scope("a"), current_only=False)) == sorted(ids)
        assert store.search("charlie", Scope("a"), mode="keyword").ids == [ids[1]]


def test_old_server_collection_uses_legacy_keyword_path(embedder, caplog) -> None:  # type: ignore[no-untyped-def]
    client = QdrantClient(":memory:")
    client.create_collection(
        "langgraph_memory",
        vectors_config={"dense": qm.VectorParams(size=embedder.dims, distance=qm.Distance.COSINE)},
        metadata={"embedder": embedder.name},
    )
    with caplog.at_level(logging.WARNING, logger="langgraph_memory.store"):
        store = MemoryStore(client=client, embedder=embedder)
    with store:
        assert not store.backend.keyword_in_engine
        assert any("in-process BM25" in r.getMessage() for r in caplog.records)
        scope = Scope("alice")
        rid = store.add("the spare key is under the blue pot", scope=scope)
        point = client.retrieve("langgraph_memory", [rid], with_vectors=True)[0]
        assert isinstance(point.vector, dict) and SPARSE_VECTOR not in point.vector
        assert store.search("spare key", scope, mode="keyword").ids == [rid]
        assert store.search("where is the spare key", scope).ids[0] == rid


@pytest.mark.parametrize("kind", ["edge", "server", "legacy"])
def test_content_word_outranks_function_words_on_every_backend(kind, tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    """A question of one content word and many function words ranks the turn holding the
    content word first on the engine's sparse query and on the legacy in-process index alike;
    an all-function-word query still returns results."""
    from .test_keyword import FUNCTION_WORD_TURNS

    scope = Scope("alice")
    if kind == "legacy":
        client = QdrantClient(":memory:")
        client.create_collection(
            "langgraph_memory",
            vectors_config={
                "dense": qm.VectorParams(size=embedder.dims, distance=qm.Distance.COSINE)
            },
            metadata={"embedder": embedder.name},
        )
        store = MemoryStore(client=client, embedder=embedder)
        assert not store.backend.keyword_in_engine
    else:
        store = make_store(kind, tmp_path, embedder)
    with store:
        ids = store.add_many(FUNCTION_WORD_TURNS, scope=scope)
        top = store.search(
            "what did you do at sunrise, what did you do?", scope, k=3, mode="keyword"
        )
        assert top.ids[0] == ids[4]
        assert store.search("你的日出是什么的?", scope, k=3, mode="keyword").ids[0] == ids[7]
        assert set(store.search("what did you do?", scope, k=10, mode="keyword").ids) >= {
            ids[0],
            ids[1],
        }
