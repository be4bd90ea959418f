"""The keyword tokenizer: words for Latin text, characters + bigrams for CJK runs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from langgraph_memory.core import tokenize
from langgraph_memory.core.text import detect_language


def test_latin_words_are_lowercased_words() -> None:
    assert tokenize("Alice PREFERS green-tea, don't you?") == [
        "alice",
        "prefers",
        "green",
        "tea",
        "dont",
        "you",
    ]


def test_chinese_runs_become_characters_and_bigrams() -> None:
    assert tokenize("喜欢绿茶") == ["喜", "欢", "绿", "茶", "喜欢", "欢绿", "绿茶"]


def test_mixed_text_keeps_both_schemes_and_numbers() -> None:
    tokens = tokenize("我用Python 3写代码")
    assert tokens[:4] == ["我", "用", "我用", "python"]
    assert {"我", "用", "我用", "python", "3", "写", "代", "码", "写代", "代码"} <= set(tokens)


def test_query_sharing_a_word_shares_tokens_with_document() -> None:
    doc, query = set(tokenize("用户偏好用中文回答")), set(tokenize("偏好中文"))
    assert {"偏好", "中文"} <= doc & query


def test_japanese_and_korean_are_treated_as_cjk() -> None:
    assert "東京" in tokenize("東京タワー")
    assert "한국" in tokenize("한국어")


def test_fullwidth_forms_are_normalised() -> None:
    assert tokenize("ＡＢＣ１２３") == ["abc123"]


@given(st.text())
def test_tokenizer_never_raises_and_emits_no_empty_tokens(text: str) -> None:
    tokens = tokenize(text)
    assert all(tokens)
    assert all(t == t.lower() for t in tokens)


def test_detect_language() -> None:
    assert detect_language("以后都用中文回答") == "zh"
    assert detect_language("Please answer in English") == "en"
    assert detect_language("1234 !!") == "und"


def test_detect_language_counts_cjk_letters_among_letters() -> None:
    assert detect_language("abcd用") == "zh"  # 1 CJK of 5 letters: a fifth
    assert detect_language("abcde用") == "en"  # 1 of 6
    assert detect_language("用，。！？ abcde") == "en"  # punctuation is not a letter
    assert detect_language("カタカナ and 한국어 text") == "zh"
    assert detect_language("𠀀𠀁 abcdefgh") == "zh"  # extension B counts
    assert detect_language("") == "und"
