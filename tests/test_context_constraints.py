"""constraint_assert building blocks: presence/re-injection and output checkers."""

from __future__ import annotations

import logging
from typing import Any, TypedDict

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from pydantic import ValidationError

from langgraph_memory.context import (
    CONSTRAINT_BLOCK_END,
    CONSTRAINT_BLOCK_START,
    Constraint,
    Violation,
    check_output,
    constraint_present,
    ensure_constraints,
    format_violations,
    register_checker,
    registered_checkers,
    unregister_checker,
)
from langgraph_memory.errors import ConfigError

ZH_RULE = Constraint(
    id="lang-zh",
    text="以后都用中文回答。",
    source="recalled",
    checker={"type": "required_language", "language": "zh"},
)
NO_BOB = Constraint(
    id="no-bob",
    text="Never email bob@example.com.",
    checker={"type": "forbidden_recipients", "recipients": ["bob@example.com"]},
)
NO_ORCA = Constraint(
    id="no-orca",
    text="Never mention the codename ORCA.",
    checker={"type": "forbidden_terms", "terms": ["ORCA", "逆戟鲸"]},
)


def test_constraint_model_validates() -> None:
    with pytest.raises(ValidationError):
        Constraint(id="x", text="   ")
    with pytest.raises(ValidationError):
        Constraint(id="x", text="t", checker={"terms": ["a"]})  # no type
    with pytest.raises(ValidationError):
        Constraint(id="x", text="t", source="elsewhere")  # type: ignore[arg-type]
    assert Constraint(id="x", text="t").source == "state"


def test_ensure_constraints_reinjects_only_missing_ones(caplog: pytest.LogCaptureFixture) -> None:
    prompt = "You are helpful.\nRule: never   EMAIL bob@example.com."
    with caplog.at_level(logging.WARNING, logger="langgraph_memory.context"):
        text, missing = ensure_constraints(prompt, [NO_BOB, ZH_RULE, NO_BOB])
    assert [c.id for c in missing] == ["lang-zh"]  # NO_BOB present (case/space-insensitive)
    assert text.startswith(prompt)
    assert text.count(CONSTRAINT_BLOCK_START) == 1 and text.endswith(CONSTRAINT_BLOCK_END)
    assert "[lang-zh] 以后都用中文回答。" in text
    assert all(constraint_present(text, c) for c in (NO_BOB, ZH_RULE))
    events = [r for r in caplog.records if getattr(r, "event", None) == "constraints_reinjected"]
    assert len(events) == 1 and events[0].payload["missing_ids"] == ["lang-zh"]
    # idempotent: nothing missing the second time, text unchanged, nothing logged
    caplog.clear()
    again, missing2 = ensure_constraints(text, [NO_BOB, ZH_RULE])
    assert again == text and missing2 == []
    assert not [r for r in caplog.records if getattr(r, "event", None)]


def test_ensure_constraints_on_empty_prompt() -> None:
    text, missing = ensure_constraints("", [NO_ORCA])
    assert text.startswith(CONSTRAINT_BLOCK_START) and len(missing) == 1


def test_forbidden_terms_case_insensitive_and_cjk() -> None:
    assert check_output("All good here.", [NO_ORCA]) == []
    found = check_output("the codename is orca", [NO_ORCA])
    assert found == [
        Violation(constraint_id="no-orca", kind="forbidden_terms", detail=found[0].detail)
    ]
    assert check_output("代号是逆戟鲸", [NO_ORCA])[0].kind == "forbidden_terms"
    whole = Constraint(
        id="w",
        text="no cat",
        checker={"type": "forbidden_terms", "terms": ["cat"], "whole_word": True},
    )
    assert check_output("concatenate", [whole]) == []
    assert len(check_output("a cat.", [whole])) == 1


def test_forbidden_recipients_in_tool_calls_and_text() -> None:
    ok = AIMessage(
        content="",
        tool_calls=[{"name": "send_email", "args": {"to": "alice@example.com"}, "id": "1"}],
    )
    bad = AIMessage(
        content="",
        tool_calls=[
            {"name": "send_email", "args": {"to": ["x@y.z", "Bob@Example.com"]}, "id": "2"}
        ],
    )
    cc = AIMessage(
        content="",
        tool_calls=[
            {"name": "mail", "args": {"email_cc": "bob@example.com", "to": "a@b.c"}, "id": "3"}
        ],
    )
    assert check_output(ok, [NO_BOB]) == []
    assert "tool call" in check_output(bad, [NO_BOB])[0].detail
    assert len(check_output(cc, [NO_BOB])) == 1
    assert len(check_output("I will write to bob@example.com now.", [NO_BOB])) == 1
    # a recipient that merely contains the name is not flagged
    assert check_output("write to notbob@example.community", [NO_BOB]) == []


def test_required_language() -> None:
    assert check_output("好的，我明天上午九点提醒你。", [ZH_RULE]) == []
    assert check_output("Sure, I will remind you at 9.", [ZH_RULE])[0].kind == "required_language"
    # code and URLs do not count against the language
    assert check_output("请运行 `pip install langgraph-memory` 然后重启。", [ZH_RULE]) == []
    en = Constraint(
        id="en", text="English only", checker={"type": "required_language", "language": "english"}
    )
    assert check_output("Fine.", [en]) == []
    assert len(check_output("好的没问题", [en])) == 1
    bad = Constraint(id="b", text="t", checker={"type": "required_language", "language": "fr"})
    with pytest.raises(ConfigError):
        check_output("bonjour", [bad])


def test_max_length_and_required_format() -> None:
    short = Constraint(id="s", text="short", checker={"type": "max_length", "max_chars": 10})
    assert check_output("0123456789", [short]) == []
    assert len(check_output("0123456789x", [short])) == 1
    tokens = Constraint(id="t", text="few tokens", checker={"type": "max_length", "max_tokens": 5})
    assert len(check_output("这是一个非常非常长的中文句子", [tokens])) == 1
    js = Constraint(
        id="j",
        text="json",
        checker={"type": "required_format", "format": "json", "required_keys": ["a"]},
    )
    assert check_output('{"a": 1}', [js]) == []
    assert check_output('```json\n{"a": 1}\n```', [js]) == []
    assert "not valid JSON" in check_output("{a: 1}", [js])[0].detail
    assert "lacks required keys" in check_output('{"b": 1}', [js])[0].detail
    rx = Constraint(
        id="r",
        text="ticket",
        checker={"type": "required_format", "format": "regex", "pattern": r"TICKET-\d+"},
    )
    assert check_output("TICKET-42", [rx]) == []
    assert len(check_output("ticket 42", [rx])) == 1
    with pytest.raises(ConfigError):
        check_output("x", [Constraint(id="m", text="t", checker={"type": "max_length"})])


def test_custom_checkers_registry() -> None:
    def no_exclamation(text: str, spec: Any, constraint: Constraint, message: Any) -> list[str]:
        return ["exclamation mark"] if "!" in text else []

    register_checker("no_exclamation", no_exclamation)
    try:
        assert "no_exclamation" in registered_checkers()
        calm = Constraint(id="calm", text="Stay calm.", checker={"type": "no_exclamation"})
        assert check_output("Hello!", [calm])[0].kind == "no_exclamation"
        with pytest.raises(ConfigError):
            register_checker("no_exclamation", no_exclamation)
        register_checker("no_exclamation", no_exclamation, replace=True)
    finally:
        unregister_checker("no_exclamation")
    unknown = Constraint(id="u", text="t", checker={"type": "no_exclamation"})
    with pytest.raises(ConfigError):
        check_output("Hello!", [unknown])
    # per-call checkers without registering
    assert len(check_output("Hi!", [unknown], checkers={"no_exclamation": no_exclamation})) == 1
    assert check_output("anything", [Constraint(id="p", text="presence only")]) == []


def test_format_violations_names_rules() -> None:
    violations = check_output("ORCA", [NO_ORCA])
    text = format_violations(violations, [NO_ORCA])
    assert "[no-orca] Never mention the codename ORCA." in text


def test_events_stream_inside_a_graph() -> None:
    class S(TypedDict, total=False):
        text: str

    def node(state: S) -> dict[str, Any]:
        text, _ = ensure_constraints("system", [NO_ORCA])
        check_output("ORCA!", [NO_ORCA])
        return {"text": text}

    g = StateGraph(S)
    g.add_node("n", node)
    g.add_edge(START, "n")
    g.add_edge("n", END)
    chunks = list(g.compile().stream({"text": ""}, stream_mode="custom"))
    assert [c["langgraph_memory"] for c in chunks] == [
        "constraints_reinjected",
        "output_violations",
    ]
    assert chunks[1]["violations"][0]["constraint_id"] == "no-orca"


def test_content_blocks_are_checked_as_text() -> None:
    msg = AIMessage(
        content=[{"type": "text", "text": "好的，我来处理。"}, {"type": "text", "text": "稍等。"}],
        tool_calls=[{"name": "lookup", "args": {"query": "English words in args"}, "id": "1"}],
    )
    assert check_output(msg, [ZH_RULE]) == []  # tool-call JSON does not skew the language
    assert len(check_output(msg, [NO_ORCA])) == 0
    leaky = AIMessage(
        content=[{"type": "text", "text": "ok"}],
        tool_calls=[{"name": "post", "args": {"text": "codename ORCA"}, "id": "2"}],
    )
    assert check_output(leaky, [NO_ORCA])[0].kind == "forbidden_terms"  # tool args checked
