"""The LLM extractor's schema and grounding as small real models meet them: kinds are an enum,
odd confidences and malformed facts cost one fact (logged), never the turn, and a fact is
grounded in the redacted turn by its value, not only by the model's exact quote."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.core import Evidence, Source
from langgraph_memory.write import LLMExtractor, WriteConfig
from langgraph_memory.write.extract.llm import value_in_text
from langgraph_memory.write.extract.llm_schema import LLM_KINDS, ExtractedFact, ExtractionResult
from tests.fakes import FakeStructuredChatModel, fact

EV = Evidence(turn_ids=["t1"])


# ------------------------------------------------------------------ schema
def test_kind_is_an_enum_in_the_schema_and_quote_is_optional() -> None:
    schema = ExtractedFact.model_json_schema()
    assert schema["properties"]["kind"]["enum"] == list(LLM_KINDS)  # a grammar can hold it
    # a grammar from the schema makes a constrained model write a confidence and a quote...
    assert set(schema["required"]) >= {"predicate", "object", "kind", "quote", "confidence"}
    assert "maximum" not in schema["properties"]["confidence"]  # no bounds a grammar can't hold
    # ...but a model that omits them still yields the fact
    bare = ExtractedFact.model_validate({"predicate": "city", "object": "Porto", "kind": "event"})
    assert (bare.subject, bare.quote, bare.confidence) == ("user", "", 0.0)


def test_a_malformed_fact_costs_that_fact_not_the_answer(caplog: Any) -> None:
    good = fact("", "drink", "tea", kind="preference")
    raw = {
        "facts": [
            {"kind": "preference", "object": "x"},  # no predicate
            good,
            "not a fact",
            {**good, "object": ["tea", "coffee"]},  # a value that is not text
            {**good, "predicate": "age", "object": 41, "confidence": 6},  # a number is text
        ]
    }
    with caplog.at_level(logging.INFO, logger="langgraph_memory.write"):
        result = ExtractionResult.model_validate(raw)
    assert [(f.predicate, f.object, f.confidence) for f in result.facts] == [
        ("drink", "tea", 0.95),
        ("age", "41", 0.6),
    ]
    messages = [r.getMessage() for r in caplog.records]
    dropped = [m for m in messages if m.startswith("dropped LLM fact")]
    assert [m.split(":")[0] for m in dropped] == [
        "dropped LLM fact #0",
        "dropped LLM fact #2",
        "dropped LLM fact #3",
    ]
    assert "predicate" in dropped[0] and "object" in dropped[2]
    assert any("confidence '6'" in m and "0.6" in m for m in messages)
    assert ExtractionResult.model_validate({"facts": None}).facts == []


def test_odd_kinds_and_confidences_are_logged_per_fact(caplog: Any) -> None:
    with caplog.at_level(logging.INFO, logger="langgraph_memory.write"):
        result = ExtractionResult.model_validate(
            {
                "facts": [
                    fact("", "city", "Porto", kind="地点", confidence=0.9),
                    fact("", "city", "Porto", kind="stable_fact", confidence=250),
                    fact("", "city", "Porto", kind="stable_fact", confidence="high"),
                ]
            }
        )
    assert [(f.kind, f.confidence) for f in result.facts] == [
        ("other", 0.9),
        ("stable_fact", 1.0),
        ("stable_fact", 0.0),
    ]
    messages = " | ".join(r.getMessage() for r in caplog.records)
    assert "kind '地点'" in messages and "clamped" in messages and "unreadable" in messages


def test_pipeline_keeps_the_good_facts_of_an_answer_with_a_broken_one(mem: MemoryStore) -> None:
    model = FakeStructuredChatModel(
        responder=lambda messages: {
            "facts": [
                {"predicate": "broken"},
                fact("", "staging_cluster_city", "Porto", confidence=10),
            ]
        }
    )
    pipeline = WritePipeline(mem, WriteConfig(llm_mode="always"), llm_extractor=model)
    report = pipeline.process_turn(
        "Our staging cluster lives in a basement in Porto.",
        scope=Scope(user_id="alice"),
        turn_id="t1",
        thread_id="th",
    )
    llm = [d for d in report.decisions if d.candidate.extractor == "llm"]
    assert [(d.action, d.candidate.object) for d in llm] == [("inserted", "Porto")]


# ------------------------------------------------------------------ grounding by value
@pytest.mark.parametrize(
    ("value", "turn"),
    [
        ("Porto", "we moved to porto last year"),
        ("VS Code", "My editor is ＶＳ　Ｃｏｄｅ these days"),  # full-width letters and space
        ("tulip", "I grow tulips on the balcony"),  # simple plural
        ("strawberries", "my kid is allergic to strawberry jam"),
        ("dark  mode", "always use Dark-Mode please"),  # whitespace and punctuation
        ("上海", "我住在上海浦东"),
        ("[EMAIL]", "mail me at [EMAIL]"),
    ],
)
def test_value_in_text_normalises(value: str, turn: str) -> None:
    assert value_in_text(value, turn)


@pytest.mark.parametrize(
    ("value", "turn"),
    [
        ("Port", "we moved to porto"),  # a part of a word is not the word
        ("北京", "我住在上海"),
        ("", "anything"),
        ("dana@example.com", "mail me at [EMAIL]"),  # a redacted value is not in the turn
    ],
)
def test_value_in_text_refuses(value: str, turn: str) -> None:
    assert not value_in_text(value, turn)


def test_facts_without_a_quote_are_grounded_by_their_value() -> None:
    turn = "Hi there. Our staging cluster lives in a basement in Porto. Thanks!"
    model = FakeStructuredChatModel(
        responder=lambda messages: {
            "facts": [
                fact("", "staging_cluster_city", "porto"),  # no quote, value in the turn
                fact("cluster is in Portugal", "country", "Portugal"),  # neither
                fact("lives in a basement", "cluster_room", "basement"),  # valid quote kept
                fact("", "drink", "tea", stated_by_user=False),  # inferred stays the model's
            ]
        }
    )
    found = LLMExtractor(model).extract(turn, evidence=EV)
    assert [(c.predicate, c.source, c.text) for c in found] == [
        ("staging_cluster_city", Source.USER, "Our staging cluster lives in a basement in Porto."),
        ("country", Source.MODEL, "cluster is in Portugal"),
        ("cluster_room", Source.USER, "lives in a basement"),
        ("drink", Source.MODEL, turn),
    ]


def test_grounding_is_against_the_redacted_turn(mem: MemoryStore) -> None:
    """The model sees only the redacted turn; a value it could only have invented (the
    e-mail the user typed) is not grounded and is never stored as the user's."""
    model = FakeStructuredChatModel(
        responder=lambda messages: {
            "facts": [
                fact("", "contact_email", "jane@example.com"),
                fact("", "favourite_flower", "tulip"),
            ]
        }
    )
    pipeline = WritePipeline(mem, WriteConfig(llm_mode="always"), llm_extractor=model)
    report = pipeline.process_turn(
        "Write to jane@example.com. My favourite flowers are tulips.",
        scope=Scope(user_id="alice"),
        turn_id="t1",
        thread_id="th",
    )
    assert all("jane@example.com" not in t for t in model.human_texts)
    llm = {d.candidate.predicate: d for d in report.decisions if d.candidate.extractor == "llm"}
    assert llm["contact_email"].action == "rejected"
    assert llm["contact_email"].candidate.source is Source.MODEL
    assert llm["favourite_flower"].action == "inserted"
    stored = mem.get(str(llm["favourite_flower"].record_id), scope=Scope(user_id="alice"))
    assert stored.text == "My favourite flowers are tulips." and stored.source is Source.USER


# ------------------------------------------------------------------ LLM beside the classifier
@pytest.mark.parametrize(
    "answer",
    [
        {"facts": []},  # nothing found
        {"facts": [fact("", "dark_mode everywhere", "true", kind="preference")]},  # ungrounded
        {"facts": [{"predicate": "broken"}]},  # malformed
    ],
)
def test_an_llm_answer_never_costs_the_turn_the_classifiers_facts(
    mem: MemoryStore, answer: dict[str, Any]
) -> None:
    """``llm_mode="always"`` adds the model's facts; an answer with no grounded fact must
    leave what the rules and the classifier extract (it used to switch their extraction off:
    ``bench write --extractor llm`` lost a fifth of the dev set's writes)."""
    turn = "dark mode everywhere please, light themes hurt my eyes"
    plain = WritePipeline(mem).process_turn(turn, scope=Scope("u1"), turn_id="t1")
    model = FakeStructuredChatModel(responder=lambda messages: answer)
    with_llm = WritePipeline(mem, WriteConfig(llm_mode="always"), llm_extractor=model)
    report = with_llm.process_turn(turn, scope=Scope("u2"), turn_id="t1")
    assert model.calls == 1

    def written(r: Any) -> list[tuple[str, ...]]:
        return [d.candidate.key() for d in r.decisions if d.action == "inserted"]

    assert written(plain) == [("user", "ui_theme", "dark")]
    assert written(report) == written(plain)
    assert all(d.action == "rejected" for d in report.decisions if d.candidate.extractor == "llm")
