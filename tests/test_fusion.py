"""Fusion: the default ("union") reaches a dense-only and a keyword-only relevant memory when
the keyword list is saturated by look-alikes, on both backends; DBSF normalisation; and the
recall bench's data sets and quick path."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.core import RecallConfig
from langgraph_memory.eval import recall
from langgraph_memory.eval.locomo import load_locomo
from langgraph_memory.store.ranking import dbsf, weighted_fusion

DIMS = 8
QUERY = "harbour ferry timetable"
DENSE_ONLY = "the boat to the island leaves at nine"  # no shared word, same meaning
KEYWORD_ONLY = "harbour ferry timetable: harbour ferry timetable changed"  # strong BM25 match


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


class TableEmbedder:
    """Vectors chosen per text: the query and DENSE_ONLY coincide; keyword look-alikes are
    orthogonal to the query; neutral filler sits at cosine 0.3."""

    name = "table"
    dims = DIMS

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for t in texts:
            v = np.zeros(DIMS)
            if t in (QUERY, DENSE_ONLY):
                v[0] = 1.0
            elif "harbour" in t or "ferry" in t:
                v[1], v[2 + len(t) % 5] = 1.0, 0.1
            else:
                v[0], v[7] = 0.3, 0.954
            rows.append(_unit(v))
        return np.stack(rows)


@pytest.fixture(params=["edge", "server"])
def table_store(request, tmp_path):  # type: ignore[no-untyped-def]
    cfg = RecallConfig(candidates=10)
    if request.param == "edge":
        st = MemoryStore(path=tmp_path / "m", embedder=TableEmbedder(), recall=cfg)  # type: ignore[arg-type]
    else:
        st = MemoryStore(client=QdrantClient(":memory:"), embedder=TableEmbedder(), recall=cfg)  # type: ignore[arg-type]
    yield st
    st.close()


def test_union_fusion_reaches_dense_only_and_keyword_only_hits(table_store: MemoryStore) -> None:
    scope = Scope(user_id="u")
    lookalikes = [
        f"note {i}: the harbour cafe by the ferry sells coffee and cake every morning"
        for i in range(30)
    ]
    fillers = [f"unrelated memory number {i} about gardening" for i in range(30)]
    ids = table_store.add_many([DENSE_ONLY, KEYWORD_ONLY, *lookalikes, *fillers], scope=scope)
    dense_only, keyword_only = ids[0], ids[1]
    assert table_store.config.recall.fusion == "union"
    # the keyword list (10 deep) is all look-alikes + KEYWORD_ONLY; DENSE_ONLY is not in it
    kw = table_store.search(QUERY, scope, k=10, mode="keyword").ids
    assert dense_only not in kw and keyword_only == kw[0]
    top = table_store.search(QUERY, scope, k=5)
    assert dense_only in top.ids[:5] and keyword_only in top.ids[:5]
    hit = next(h for h in top if h.record.id == dense_only)
    # scored by both retrievers although only the dense list returned it
    assert hit.explanation.keyword_rank is None and hit.explanation.keyword_score is not None
    assert hit.explanation.fusion == "union"


def test_other_fusions_stay_selectable(table_store: MemoryStore) -> None:
    scope = Scope(user_id="u")
    table_store.add_many([DENSE_ONLY, KEYWORD_ONLY, "gardening notes"], scope=scope)
    for fusion in ("weighted", "dbsf", "rrf"):
        cfg = table_store.config.recall.model_copy(update={"fusion": fusion})
        table_store.config = table_store.config.model_copy(update={"recall": cfg})
        res = table_store.search(QUERY, scope, k=3)
        assert res.hits and {h.explanation.fusion for h in res} == {fusion}


def test_dbsf_normalisation() -> None:
    assert dbsf({}) == {} and dbsf({"a": 2.0, "b": 2.0}) == {"a": 1.0, "b": 1.0}
    out = dbsf({"a": 1.0, "b": 2.0, "c": 3.0})
    assert out["b"] == pytest.approx(0.5) and 0 < out["a"] < out["b"] < out["c"] < 1
    fused = weighted_fusion({"a": 0.9, "b": 0.1}, {"b": 5.0, "c": 1.0}, 0.5, "dbsf")
    assert set(fused) == {"a", "b", "c"}


@pytest.mark.parametrize("name", ["zh", "longmem", "zhlong"])
def test_shipped_sets_load_and_are_consistent(name: str) -> None:
    path = recall.SHIPPED[name]
    meta = json.loads(Path(path).read_text())["_meta"]
    assert meta["synthetic"] is True and meta["written_before_tuning"] is True
    turns, questions = load_locomo(path)
    assert turns and questions
    ids = {(t.conversation, t.dia_id) for t in turns}
    for q in questions:
        assert q.evidence and all((q.conversation, e) in ids for e in q.evidence)
    convs = {t.conversation for t in turns}
    if name == "zh":
        assert len(convs) == 6 and len(questions) >= 80
        assert all(any("\u4e00" <= ch <= "\u9fff" for ch in q.question) for q in questions)
        assert any(q.category == 2 for q in questions) and any(
            len(q.evidence) > 1 for q in questions
        )
    elif name == "zhlong":
        assert len(convs) == 5 and len(questions) == 65
        assert {q.category for q in questions} == {1, 2, 4, 6}
        assert all(max(t.session for t in turns if t.conversation == c) >= 12 for c in convs)
    else:
        assert len(convs) == 5 and len(questions) == 50
        assert any(q.category == 6 for q in questions)  # knowledge updates
        assert all(max(t.session for t in turns if t.conversation == c) >= 15 for c in convs)


def test_load_set_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown set"):
        recall.load_set("nope")


def test_bench_recall_quick(tmp_path: Path) -> None:
    out = tmp_path / "recall.json"
    rc = recall.main(
        [
            "--set",
            "all",
            "--data",
            str(tmp_path / "absent.json"),
            "--quick",
            "--max-questions",
            "12",
            "--study",
            "--depths",
            "50,100",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    data = json.loads(out.read_text())
    sets = {s["set"]: s for s in data["sets"]}
    assert set(sets) == {"zh", "longmem", "zhlong"}  # LoCoMo absent: the shipped sets still run
    for s in sets.values():
        assert s["questions"] == 12 and s["recall"]["fusion"] == "union"
        for mode in ("bm25", "dense", "hybrid"):
            assert 0.0 <= s["results"][mode]["recall_any@10"] <= 1.0
        assert s["results"]["hybrid"]["p95_ms"] >= s["results"]["hybrid"]["p50_ms"]
        assert set(s["study"]["both-scored minmax a=0.5"]) == {"50", "100"}
