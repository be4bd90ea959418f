"""What a reply that is only code means for each built-in output checker (see
``check_output``'s docstring), and the regeneration it triggers in the generate node."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from langgraph_memory import Generate
from langgraph_memory.context import Constraint, check_output
from langgraph_memory.context.checkers import natural_language_in_code
from langgraph_memory.errors import ConfigError
from tests.fakes import ScriptedChatModel, fake_runtime, fake_state


def _rule(**checker: object) -> Constraint:
    return Constraint(id="r", text="rule", checker=dict(checker))


ZH = _rule(type="required_language", language="zh")
EN = _rule(type="required_language", language="en")
PURE = "```python\ndef add(a, b):\n    return a + b\n```"
EN_COMMENTS = (
    "```python\n# add two numbers and return the sum\ndef add(a, b):\n    return a + b\n```"
)
ZH_COMMENTS = "```python\n# 把两个数相加并返回结果\ndef add(a, b):\n    return a + b\n```"
EN_STRING = '```python\nprint("Hello there, the job is done")\n```'


def _kinds(text: str, rule: Constraint) -> list[str]:
    return [v.detail for v in check_output(text, [rule])]


def test_code_only_reply_with_english_comments_breaks_a_chinese_rule() -> None:
    details = _kinds(EN_COMMENTS, ZH)
    assert len(details) == 1 and details[0].startswith("output is only code")
    assert _kinds(EN_STRING, ZH)  # a user-facing string is natural language too
    assert _kinds("`print('see you later, friend')`", ZH)  # inline code only


def test_code_only_reply_with_chinese_comments_keeps_a_chinese_rule() -> None:
    assert _kinds(ZH_COMMENTS, ZH) == []
    assert _kinds(EN_COMMENTS, EN) == []


def test_pure_code_breaks_the_rule_unless_the_rule_allows_it() -> None:
    for rule in (ZH, EN):
        details = _kinds(PURE, rule)
        assert len(details) == 1 and "no natural language" in details[0]
    allow = _rule(type="required_language", language="zh", code_only="allow")
    assert _kinds(PURE, allow) == [] and _kinds(EN_COMMENTS, allow) == []
    with pytest.raises(ConfigError, match="code_only"):
        check_output(PURE, [_rule(type="required_language", language="zh", code_only="maybe")])


def test_prose_decides_when_there_is_prose_and_an_empty_reply_passes() -> None:
    assert _kinds(f"这是加法函数：\n{EN_COMMENTS}", ZH) == []  # the prose is Chinese
    assert _kinds(f"Here is the function:\n{ZH_COMMENTS}", ZH)  # the prose is English
    call = AIMessage(content="", tool_calls=[{"name": "run", "args": {}, "id": "c1"}])
    assert check_output(call, [ZH]) == []  # a tool call says nothing


def test_natural_language_in_code_ignores_identifiers_and_short_strings() -> None:
    code = '#include <stdio.h>\nint main() { puts("ok"); open("utf-8"); } // 打印结果\n'
    assert natural_language_in_code(code) == "打印结果"
    assert natural_language_in_code('x = "two words"\n"""A docstring."""') == (
        "A docstring.\ntwo words"
    )


def test_other_checkers_treat_code_as_output() -> None:
    leak = "```python\nCODENAME = 'ORCA'\n```"
    assert _kinds(leak, _rule(type="forbidden_terms", terms=["ORCA"]))
    mail = '```python\nsend(to="eve@evil.test")\n```'
    assert _kinds(mail, _rule(type="forbidden_recipients", recipients=["eve@evil.test"]))
    assert _kinds(PURE, _rule(type="max_length", max_chars=20))
    fenced_json = '```json\n{"a": 1}\n```'
    assert _kinds(fenced_json, _rule(type="required_format", format="json")) == []
    assert _kinds(PURE, _rule(type="required_format", format="json"))


def test_generate_regenerates_a_code_only_reply_under_a_chinese_rule() -> None:
    model = ScriptedChatModel(responses=[EN_COMMENTS, f"这是加法函数：\n{EN_COMMENTS}"])
    node = Generate(model)
    runtime = fake_runtime()
    out = node(fake_state("写一个加法函数", constraints=[ZH]), runtime)
    assert len(model.calls) == 2 and out["violations"] == []
    assert out["messages"][0].content.startswith("这是加法函数")
    assert "only code" in model.calls[1][0].content  # the correction told the model why
