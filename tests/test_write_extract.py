"""Extraction: rule patterns (zh + en), normalisation to one (subject, predicate), and the
optional LLM extractor through with_structured_output (tested with a fake model)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.runnables import RunnableLambda

from langgraph_memory import Evidence, MemoryStore, Scope, Source
from langgraph_memory.write import LLMExtractor, RuleExtractor, WriteConfig, WritePipeline
from langgraph_memory.write.extract import ExtractionResult, split_clauses

from .conftest import make_store

EV = Evidence(turn_ids=["t1"])


def _one(text: str) -> tuple[str, str, str, str]:
    found = RuleExtractor().extract(text, evidence=EV)
    assert len(found) == 1, (text, found)
    c = found[0]
    return (c.subject, c.predicate, c.object, c.kind)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (
            [
                "I prefer Chinese",
                "以后都用中文回答",
                "Please answer in Chinese from now on",
                "回答都用中文",
            ],
            ("user", "answer_language", "Chinese", "preference"),
        ),
        (["I'm vegetarian", "我吃素", "我是素食者"], ("user", "diet", "vegetarian", "constraint")),
        (["My name is Li Lei", "call me Li Lei"], ("user", "name", "Li Lei", "stable_fact")),
        (["我叫李雷", "叫我李雷就行", "我的名字是李雷"], ("user", "name", "李雷", "stable_fact")),
        (
            ["My timezone is UTC+8", "我的时区是东八区", "I'm in UTC+8", "我用北京时间"],
            ("user", "timezone", "UTC+8", "stable_fact"),
        ),
        (
            ["I love coffee", "我喜欢喝咖啡", "My favorite drink is coffee"],
            ("user", "drink", "coffee", "preference"),
        ),
        (
            ["don't use emojis", "不要用表情符号", "请不要使用表情"],
            ("assistant", "must_not", "emoji", "constraint"),
        ),
        (
            ["Keep your answers short", "回答要简洁", "I prefer concise answers"],
            ("user", "response_length", "concise", "preference"),
        ),
        (["I'm allergic to peanuts"], ("user", "allergy", "peanuts", "constraint")),
        (["I work at Globex"], ("user", "employer", "Globex", "stable_fact")),
        (["我在上海住", "我住在上海"], ("user", "location", "上海", "stable_fact")),
    ],
)
def test_same_fact_stated_differently_maps_to_one_triple(
    texts: list[str], expected: tuple[str, ...]
) -> None:
    for text in texts:
        assert _one(text) == expected, text


def test_candidate_fields() -> None:
    c = RuleExtractor().extract("记住，以后都用中文回答", evidence=EV, source=Source.USER)[0]
    assert c.explicit and not c.hedged and c.language == "zh" and c.scope_level == "user"
    assert c.text == "记住，以后都用中文回答" and c.evidence == EV and c.extractor == "rule"
    assert c.confidence >= 0.9
    p = RuleExtractor().extract("this project uses PostgreSQL", evidence=EV)[0]
    assert (p.subject, p.predicate, p.object, p.scope_level) == (
        "project",
        "database",
        "PostgreSQL",
        "project",
    )


@pytest.mark.parametrize(
    ("text", "corrects", "obj"),
    [
        ("我的名字不是张三，是李四", "张三", "李四"),
        ("不是Python，是Rust", "Python", "Rust"),
        ("No, it's Rust, not Python", "Python", "Rust"),
        ("my city isn't Paris, it's Lyon", "Paris", "Lyon"),
    ],
)
def test_corrections(text: str, corrects: str, obj: str) -> None:
    (c,) = RuleExtractor().extract(text, evidence=EV)
    assert c.correction and c.kind == "correction" and c.corrects == corrects and c.object == obj


def test_scratch_that_and_actually() -> None:
    (c,) = RuleExtractor().extract("scratch that", evidence=EV)
    assert c.retract and c.kind == "correction"
    (a,) = RuleExtractor().extract("Actually, I prefer English", evidence=EV)
    assert a.correction and a.kind == "preference" and a.object == "English"


def test_remember_without_pattern_keeps_users_words_as_note() -> None:
    (c,) = RuleExtractor().extract("Remember that my flight is on Friday", evidence=EV)
    assert (c.predicate, c.object, c.explicit) == ("note", "my flight is on Friday", True)


def test_clause_splitting_keeps_corrections_together() -> None:
    assert split_clauses("我叫张三。以后用中文回答！") == ["我叫张三", "以后用中文回答"]
    assert split_clauses("不是X，是Y") == ["不是X，是Y"]
    assert split_clauses("I use Python 3.11. I prefer tea") == [
        "I use Python 3.11.",
        "I prefer tea",
    ]


# ---------------------------------------------------------------------- LLM extractor
class FakeStructuredChatModel(GenericFakeChatModel):
    """A fake chat model whose ``with_structured_output`` returns scripted results and records
    the prompts it was sent (the LLM is the only thing faked)."""

    scripted: list[Any] = []  # noqa: RUF012 - a pydantic field, copied per instance
    prompts: list[Any] = []  # noqa: RUF012

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        def respond(messages: Any) -> Any:
            self.prompts.append(messages)
            item = self.scripted.pop(0)
            return schema.model_validate(item) if isinstance(item, dict) else item

        return RunnableLambda(respond)


def _fake(*results: dict[str, Any]) -> FakeStructuredChatModel:
    return FakeStructuredChatModel(messages=iter([]), scripted=list(results), prompts=[])


@pytest.fixture
def mem(tmp_path, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    st = make_store("server", tmp_path, embedder)
    yield st
    st.close()


def test_llm_extractor_converts_and_grounds_facts() -> None:
    model = _fake(
        {
            "facts": [
                {
                    "subject": "user",
                    "predicate": "answer_language",
                    "object": "中文",
                    "kind": "preference",
                    "quote": "my answers should be in Mandarin",
                    "confidence": 0.9,
                    "explicit": True,
                },
                {
                    "subject": "user",
                    "predicate": "mood",
                    "object": "tired",
                    "kind": "stable_fact",
                    "quote": "user seems tired",
                    "confidence": 0.9,
                },
                {
                    "subject": "user",
                    "predicate": "hobby",
                    "object": "chess",
                    "kind": "stable_fact",
                    "quote": "I play chess",
                    "confidence": 0.9,
                    "stated_by_user": False,
                },
            ]
        }
    )
    found = LLMExtractor(model).extract(
        "Honestly, my answers should be in Mandarin. I play chess", evidence=EV
    )
    assert [(c.predicate, c.object, c.source, c.extractor) for c in found] == [
        ("answer_language", "Chinese", Source.USER, "llm"),
        ("mood", "tired", Source.MODEL, "llm"),  # quote not in the turn: model inference
        ("hobby", "chess", Source.MODEL, "llm"),  # marked inferred by the model
    ]


def test_pipeline_uses_llm_for_what_rules_miss_and_redacts_before_it(mem: MemoryStore) -> None:
    model = _fake(
        {
            "facts": [
                {
                    "subject": "user",
                    "predicate": "answer_language",
                    "object": "Chinese",
                    "kind": "preference",
                    "quote": "my answers should be in Mandarin",
                    "confidence": 0.92,
                    "explicit": True,
                },
                {
                    "subject": "user",
                    "predicate": "summary",
                    "object": "user is chatty",
                    "kind": "event",
                    "quote": "my answers should be in Mandarin",
                    "confidence": 0.95,
                },
            ]
        }
    )
    pipeline = WritePipeline(mem, llm_extractor=model)
    scope = Scope(user_id="alice")
    report = pipeline.process_turn(
        "my answers should be in Mandarin, mail me at jane@example.com",
        scope=scope,
        turn_id="t1",
        thread_id="th",
    )
    assert [(d.action, d.candidate.extractor) for d in report.decisions] == [
        ("inserted", "llm"),
        ("rejected", "llm"),
    ]
    assert "kind 'event'" in report.decisions[1].reason  # no free-text summaries
    sent = str(model.prompts)
    assert "jane@example.com" not in sent and "[EMAIL]" in sent
    # rules found something: fallback mode does not call the model
    pipeline.process_turn("I prefer tea", scope=scope, turn_id="t2", thread_id="th")
    assert len(model.prompts) == 1
    # a failing model never loses the rule results
    broken = WritePipeline(mem, WriteConfig(llm_mode="always"), llm_extractor=_fake())
    rep = broken.process_turn("I prefer coffee", scope=scope, turn_id="t3", thread_id="th")
    assert [d.action for d in rep.decisions] == ["superseded"]


async def test_llm_extractor_async() -> None:
    model = _fake({"facts": []})
    assert await LLMExtractor(model).aextract("nothing here", evidence=EV) == []
    assert ExtractionResult().facts == []
