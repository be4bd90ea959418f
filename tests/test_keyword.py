"""KeywordIndex: BM25+ identical to rank_bm25 on the live corpus, incremental and filtered."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Plus

from langgraph_memory.core import tokenize
from langgraph_memory.core.text import drop_function_words, query_tokenize
from langgraph_memory.store import KeywordIndex
from langgraph_memory.store.filters import Eq

WORDS = ["tea", "coffee", "hiking", "kyoto", "python", "绿茶", "咖啡", "爬山", "中文", "会议"]

ops = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove"]),
        st.integers(0, 15),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=8),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(ops, st.lists(st.sampled_from([*WORDS, "unknown"]), min_size=1, max_size=4))
def test_scores_equal_a_fresh_rank_bm25_after_any_edit_sequence(
    edits: list[tuple[str, int, list[str]]], query_words: list[str]
) -> None:
    index = KeywordIndex()
    live: dict[str, str] = {}
    for op, n, words in edits:
        doc_id = f"d{n}"
        if op == "add":
            live[doc_id] = " ".join(words)
            index.upsert(doc_id, live[doc_id], {"user_id": "u"})
        else:
            assert index.remove(doc_id) == (doc_id in live)
            live.pop(doc_id, None)
    assert len(index) == len(live)
    query = " ".join(query_words)
    got = {doc_id: score for doc_id, score, _ in index.search(query, 1000)}
    if not live:
        assert got == {}
        return
    reference = BM25Plus([tokenize(t) for t in live.values()])
    expected = dict(zip(live, reference.get_scores(tokenize(query)), strict=True))
    q_tokens = set(tokenize(query))
    matching = {d for d, t in live.items() if q_tokens & set(tokenize(t))}
    assert set(got) == matching  # only documents sharing a term are candidates
    for doc_id, score in got.items():
        assert score == pytest.approx(expected[doc_id], rel=1e-9, abs=1e-9)
    # ranking among candidates equals the reference ranking
    assert sorted(got, key=lambda d: (-got[d], d)) == sorted(
        matching, key=lambda d: (-expected[d], d)
    )


def test_filter_is_applied_before_the_limit() -> None:
    index = KeywordIndex()
    for i in range(20):
        index.upsert(f"other{i}", "green tea green tea", {"user_id": "u", "project": "x"})
    index.upsert("mine", "green tea", {"user_id": "u", "project": "mine"})
    hits = index.search("green tea", 1, Eq("project", "mine"))
    assert [h[0] for h in hits] == ["mine"]


def test_replacing_a_document_replaces_its_terms() -> None:
    index = KeywordIndex()
    index.upsert("a", "likes coffee", {})
    index.upsert("a", "likes tea", {})
    assert index.search("coffee", 5) == []
    assert [h[0] for h in index.search("tea", 5)] == ["a"]
    assert len(index) == 1


def test_removed_documents_are_never_returned_and_slots_are_reused() -> None:
    index = KeywordIndex()
    index.upsert("a", "绿茶", {})
    index.upsert("b", "绿茶 咖啡", {})
    assert index.remove("a")
    assert not index.remove("a")
    assert [h[0] for h in index.search("绿茶", 5)] == ["b"]
    index.upsert("c", "绿茶", {})
    assert len(index.doc_freqs) == 2  # the freed slot was reused
    assert sorted(h[0] for h in index.search("绿茶", 5)) == ["b", "c"]


def test_empty_query_or_index_returns_nothing() -> None:
    index = KeywordIndex()
    assert index.search("tea", 5) == []
    index.upsert("a", "tea", {})
    assert index.search("", 5) == []
    assert index.search("!!!", 5) == []
    assert index.search("tea", 0) == []


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["the", "a", "user", "tea", "kyoto", "绿茶", "rare"]),
            min_size=1,
            max_size=10,
        ),
        min_size=1,
        max_size=60,
    ),
    st.lists(
        st.sampled_from(["the", "a", "user", "tea", "kyoto", "绿茶", "rare"]),
        min_size=1,
        max_size=5,
    ),
    st.integers(1, 6),
    st.integers(0, 3),
)
def test_pruned_top_k_equals_full_ranking(
    docs: list[list[str]], query: list[str], limit: int, parity: int
) -> None:
    """MaxScore pruning may skip long postings, never a document that belongs in the top k,
    also when a filter rejects some of the best documents."""
    index = KeywordIndex()
    for i, words in enumerate(docs):
        index.upsert(f"d{i}", " ".join(words), {"keep": i % 4 != parity})
    where = Eq("keep", True)
    got = index.search(" ".join(query), limit, where)
    full = index.search(" ".join(query), 10_000, where)  # every candidate: no pruning possible
    assert [round(s, 9) for _, s, _ in got] == [round(s, 9) for _, s, _ in full[:limit]]
    assert all(p["keep"] for _, _, p in got)


def test_records_valid_at_no_instant_stay_out_of_the_keyword_index(embedder) -> None:  # type: ignore[no-untyped-def]
    """The write ledger (valid at no instant) must not shift BM25's statistics: hundreds of
    ledger entries once cost 0.05 of LoCoMo evidence recall through the agent."""
    from qdrant_client import QdrantClient

    from langgraph_memory import MemoryStore, Scope, WritePipeline

    store = MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)
    scope = Scope(user_id="u")
    pipeline = WritePipeline(store)
    for i, text in enumerate(["I went hiking with my sister", "we saw a bear", "I prefer tea"]):
        pipeline.process_turn(text, scope=scope, turn_id=f"t{i}", thread_id="th")
    every = store.list(scope=scope, current_only=False, include_internal=True)
    ledger = [r for r in every if r.subject == "__write_ledger__"]
    assert ledger
    index = store._keyword_index("u")
    assert all(r.id not in index for r in ledger)
    assert len(index) == len(every) - len(ledger)
    store._keyword.clear()  # rebuilt from the engine: same contents
    assert all(r.id not in store._keyword_index("u") for r in ledger)
    store.close()


# Short turns sharing only function words with the question, and the one turn that holds its
# content words inside a longer sentence: BM25's length normalisation favours the short ones.
FUNCTION_WORD_TURNS = [
    "what did you do?",
    "I did, did you?",
    "what is it?",
    "where are you?",
    "Last summer we all went to the lake and I painted the sunrise over the water there",
    "我的呢?",
    "你是谁的?",
    "上个周末我们全家一起去湖边画了一幅日出的油画",
]


def test_query_function_words_are_dropped_unless_nothing_is_left() -> None:
    assert query_tokenize("What did I paint at the lake?") == ["paint", "lake"]
    assert query_tokenize("what did I do") == tokenize("what did I do")  # all function words
    assert query_tokenize("I was ill, well, then wed") == ["ill", "well", "wed"]
    assert query_tokenize("") == []
    # a CJK bigram goes only when both characters are function characters
    zh = query_tokenize("我们的会议是什么")
    assert "会议" in zh and "的会" in zh and "会" in zh
    assert not {"我们", "什么", "我", "的", "是"} & set(zh)
    assert drop_function_words(["的", "了"]) == ["的", "了"]


def test_content_word_outranks_function_word_matches() -> None:
    """The legacy in-process index ranks the turn holding the question's content word first,
    English and Chinese, and an all-function-word query still finds documents."""
    index = KeywordIndex()
    for i, text in enumerate(FUNCTION_WORD_TURNS):
        index.upsert(f"t{i}", text, {})
    hits = index.search("what did you do at sunrise, what did you do?", 3)
    assert hits and hits[0][0] == "t4"
    assert (
        index.score_ids("what did you do at sunrise?", ["t0", "t4"])["t4"]
        > index.score_ids("what did you do at sunrise?", ["t0", "t4"])["t0"]
    )
    zh = index.search("你的日出是什么的?", 3)
    assert zh and zh[0][0] == "t7"
    assert {h[0] for h in index.search("what did you do?", 10)} >= {"t0", "t1"}
