"""Token counting: CJK-honest default, pluggable counters, error against real tokenizers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from langgraph_memory.context import (
    CalibratedTokenCounter,
    CallableTokenCounter,
    TokenCounter,
    TokenizerTokenCounter,
    as_token_counter,
    default_token_counter,
    message_text,
)
from langgraph_memory.context.token_features import PRESETS
from langgraph_memory.context.token_reference import (
    available_reference_counters,
    benchmark_token_counter,
    load_reference_counter,
)
from langgraph_memory.context.token_samples import EN_SAMPLES, ZH_SAMPLES, all_samples
from langgraph_memory.errors import ConfigError

ZH = "以后都用中文回答我的问题，除非我明确要求用英文。" * 4
EN = "From now on, always answer in English unless I explicitly ask for Chinese. " * 4


def test_default_counter_is_a_token_counter_and_deterministic() -> None:
    counter = default_token_counter()
    assert isinstance(counter, TokenCounter)
    assert counter.count_text("") == 0
    assert counter.count_text("a") == 1 and counter.count_text("hello") == 1
    assert counter.count_text(ZH) == counter.count_text(ZH)
    assert counter.count_messages([]) == 0


def test_default_counter_is_cjk_aware_where_the_langchain_helper_is_not() -> None:
    counter = default_token_counter()
    # roughly one token per Chinese character (cl100k: 1.03 on our sample), not len/4
    n_chars = len(ZH)
    assert 0.9 * n_chars <= counter.count_text(ZH) <= 1.4 * n_chars
    approx = count_tokens_approximately([HumanMessage(ZH)])
    assert approx < 0.4 * counter.count_text(ZH)  # the helper undercounts Chinese ~3x
    # English stays near a word per token
    assert 0.8 * len(EN.split()) <= counter.count_text(EN) <= 1.6 * len(EN.split())


def test_count_messages_includes_tool_calls_and_overhead() -> None:
    counter = default_token_counter()
    call = {"name": "send_email", "args": {"to": "x@example.com", "body": "hello " * 50}, "id": "1"}
    plain = AIMessage(content="ok")
    with_call = AIMessage(content="ok", tool_calls=[call])
    assert counter.count_messages([with_call]) > counter.count_messages([plain]) + 50
    assert "send_email" in message_text(with_call)
    two = counter.count_messages([SystemMessage("s"), HumanMessage("h")])
    assert two > counter.count_text("s") + counter.count_text("h")  # per-message overhead
    tool = ToolMessage(content=[{"type": "text", "text": "block text"}], tool_call_id="1")
    assert "block text" in message_text(tool)


def test_as_token_counter_adapts_callables_tokenizers_and_objects() -> None:
    assert as_token_counter(None) is default_token_counter()
    by_chars = as_token_counter(len)
    assert isinstance(by_chars, CallableTokenCounter)
    assert by_chars.count_text("abcd") == 4
    msgs = as_token_counter(count_tokens_approximately)
    assert msgs.count_messages([HumanMessage("hello world")]) == count_tokens_approximately(
        [HumanMessage("hello world")]
    )

    class Mine:
        def count_text(self, text: str) -> int:
            return 7

        def count_messages(self, messages: object) -> int:
            return 9

    mine = Mine()
    assert as_token_counter(mine) is mine

    class FakeTokenizer:
        def encode(self, text: str) -> list[int]:
            return list(range(len(text.split())))

    fake = as_token_counter(FakeTokenizer())
    assert isinstance(fake, TokenizerTokenCounter)
    assert fake.count_text("a b c") == 3
    with pytest.raises(ConfigError):
        as_token_counter(42)


def test_presets_and_fit() -> None:
    assert set(PRESETS) == {"cl100k", "deepseek", "qwen"}
    qwen = CalibratedTokenCounter.preset("qwen")
    assert qwen.count_text(ZH) < default_token_counter().count_text(ZH)
    with pytest.raises(ConfigError):
        CalibratedTokenCounter.preset("nope")
    # fitting to a reference recovers it: here one token per character
    fitted = CalibratedTokenCounter.fit([*ZH_SAMPLES, *EN_SAMPLES], len)
    for text in ZH_SAMPLES[:5]:
        assert abs(fitted.count_text(text) - len(text)) <= 0.2 * len(text) + 2


def test_minilm_reference_tokenizer_loads_offline_without_truncation() -> None:
    minilm = load_reference_counter("minilm")
    long_text = "hello " * 600
    assert minilm.count_text(long_text) == 600  # the shipped file truncates at 128/256
    assert minilm.count_text("你好世界") == 4  # BERT splits CJK per character
    with pytest.raises(ConfigError):
        load_reference_counter("no-such-tokenizer")


def test_benchmark_reports_error_per_reference_and_language() -> None:
    refs = available_reference_counters()
    assert "minilm" in refs
    report = benchmark_token_counter(default_token_counter(), references=refs)
    assert set(report) == set(refs)
    for langs in report.values():
        assert set(langs) == set(all_samples())
        for row in langs.values():
            assert row["n"] > 0 and row["reference_tokens"] > 0
            assert 0 <= row["undercount_rate"] <= 1
    # the Chinese estimate is within 25% of the BPE references in aggregate, and the
    # default is conservative (never under by more than 5% on the BPE families measured)
    for name in ("cl100k", "deepseek", "qwen"):
        if name in report:
            zh = report[name]["zh"]
            assert zh["aggregate_error"] > -0.05
    if "cl100k" in report:
        assert abs(report["cl100k"]["zh"]["aggregate_error"]) < 0.25
        assert abs(report["cl100k"]["en"]["aggregate_error"]) < 0.25
    # a matching preset is close on its own family
    for name in ("deepseek", "qwen"):
        if name in report:
            tuned = benchmark_token_counter(
                CalibratedTokenCounter.preset(name), references={name: refs[name]}
            )
            assert abs(tuned[name]["zh"]["aggregate_error"]) < 0.2
            assert abs(tuned[name]["en"]["aggregate_error"]) < 0.2


# ------------------------------------------------------------------ feature extraction spec
_SEGMENT = __import__("re").compile(r"[A-Za-z]+|[0-9]+|\s+|.", __import__("re").DOTALL)


def _reference_features(text: str, long_after: int = 6) -> list[float]:
    """The slow, obviously-correct definition the fast regex counter must match."""
    import unicodedata

    from langgraph_memory.context.token_features import _CJK_PUNCT
    from langgraph_memory.core.text import is_cjk

    f = [0.0] * 8
    for piece in _SEGMENT.findall(text):
        first = piece[0]
        if first.isascii() and first.isalpha():
            f[0] += 1
            f[1] += max(0, len(piece) - long_after)
        elif first.isascii() and first.isdigit():
            f[2] += len(piece)
        elif first.isspace():
            f[3] += "\n" in piece
        elif is_cjk(first):
            f[4] += 1
        elif first in _CJK_PUNCT:
            f[5] += 1
        elif unicodedata.category(first)[0] in {"P", "S"}:
            f[6] += 1
        else:
            f[7] += 1
    return f


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.one_of(
            st.characters(codec="utf-8"),
            st.sampled_from(list("ab Z09\n\t\r ，。中文ｶ한😀é$_-\x00\x1c\u3000\u2028")),
        ),
        max_size=80,
    )
)
def test_fast_features_match_the_reference_definition(text: str) -> None:
    from langgraph_memory.context.token_features import features

    assert features(text) == _reference_features(text)


def test_fast_features_match_on_the_samples() -> None:
    from langgraph_memory.context.token_features import features

    for samples in all_samples().values():
        for text in samples:
            assert features(text) == _reference_features(text)
