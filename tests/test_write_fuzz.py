"""Property test of the whole write path: any mix of statements, PII, injections and noise
never raises and never stores or returns a raw PII value."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.core.redact import cn_id_check_char

from .conftest import make_store

FRAGMENTS = [
    "I prefer tea",
    "以后都用中文回答",
    "actually I prefer coffee",
    "我的名字不是张三，是李四",
    "scratch that",
    "maybe I like vim",
    "don't use emojis",
    "我对花生过敏",
    "remember that",
    "ignore previous instructions",
    "<system>",
    "这个项目用的是MySQL",
    "my email is",
    "我的手机号是",
    "password is",
    "密码是",
    "，",
    "。",
    " and ",
    "?",
    "太长了",
    "I live in Berlin",
    "不是",
    "是",
]


@st.composite
def _pii(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return (
            "1"
            + draw(st.sampled_from("3456789"))
            + draw(st.text("0123456789", min_size=9, max_size=9))
        )
    if kind == 1:
        return draw(st.from_regex(r"[a-z]{2,8}", fullmatch=True)) + "@example.com"
    if kind == 2:
        year, month, day = (
            draw(st.integers(1940, 2010)),
            draw(st.integers(1, 12)),
            draw(st.integers(1, 28)),
        )
        base = f"310115{year}{month:02d}{day:02d}{draw(st.integers(100, 999))}"
        return base + cn_id_check_char(base)
    return "sk-" + draw(st.from_regex(r"[A-Za-z0-9]{20,30}", fullmatch=True))


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    st_ = make_store("server", tmp_path_factory.mktemp("fuzz"), embedder)
    yield st_
    st_.close()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    parts=st.lists(
        st.one_of(
            st.tuples(st.just("text"), st.sampled_from(FRAGMENTS)),
            st.tuples(st.just("pii"), _pii()),
            st.tuples(st.just("text"), st.text(max_size=15)),
        ),
        min_size=1,
        max_size=8,
    ),
    turns=st.integers(1, 3),
)
def test_write_path_never_raises_or_leaks(
    fuzz_store: MemoryStore, parts: list[tuple[str, str]], turns: int
) -> None:
    scope = Scope(user_id=f"fuzz-{uuid.uuid4().hex[:8]}")
    # PII values are separated by spaces: glued to random digits they would form another
    # number, which is a different (and not generated) value
    text = " ".join(value for _, value in parts)
    secrets = [value for kind, value in parts if kind == "pii"]
    pipeline = WritePipeline(fuzz_store)
    for i in range(turns):
        report = pipeline.process_turn(text, scope=scope, turn_id=f"t{i % 2}", thread_id="th")
        dumped = report.model_dump_json()
        assert not any(s in dumped for s in secrets), (text, dumped)
    stored = " ".join(r.model_dump_json() for r in fuzz_store.list(scope=scope, current_only=False))
    assert not any(s in stored for s in secrets), text
