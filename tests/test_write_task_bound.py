"""Instructions about the artifact in front of the user stay in working memory; the same
instruction said as a lasting rule is a constraint (en + zh, through the real pipeline)."""

from __future__ import annotations

import logging

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.write import Candidate
from langgraph_memory.write.extract.one_off import (
    is_task_bound,
    names_present_artifact,
    says_durable,
)

TASK_BOUND = [
    "帮我改一下这段代码，不要用全局变量",
    "这个菜不要放太多盐，我爸血压高",
    "把上面的文章改短一点，不要用太多形容词",
    "Make that paragraph shorter, no emojis please.",
]
STANDING = [
    ("以后回复我不要用表情", "must_not"),
    ("每次写邮件都不要用表情", "must_not"),
    ("From now on, don't use emojis in your replies.", "must_not"),
    ("Never use global variables in any code you write for me.", "must_not"),
    ("Never email customers directly.", "must_not"),
]


RULES_BESIDE_A_REQUEST = [
    ("Can you help me draft a reply to Acme? Never email customers directly.", "must_not"),
    ("帮我看看这个报价。以后所有报价都不要发给客户。", "must_not"),
    ("Can you check my schedule? Also, from now on don't book anything before 9am.", "must_not"),
]


def _constraints(store: MemoryStore, scope: Scope) -> list[str]:
    return [r.predicate or "" for r in store.list(scope=scope) if r.kind == "constraint"]


@pytest.mark.parametrize("text", TASK_BOUND)
def test_an_instruction_about_this_artifact_is_not_a_standing_rule(
    mstore: MemoryStore, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    scope = Scope(user_id="u-task")
    with caplog.at_level(logging.INFO, logger="langgraph_memory"):
        report = WritePipeline(mstore).process_turn(text, scope=scope, turn_id="t1")
    assert _constraints(mstore, scope) == []
    kept = [d for d in report.decisions if d.action == "working"]
    assert kept and all("current task only" in d.reason for d in kept), report.decisions
    assert any("current task only" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("text", "predicate"), STANDING + RULES_BESIDE_A_REQUEST)
def test_the_same_instruction_said_as_a_lasting_rule_is_a_constraint(
    mstore: MemoryStore, text: str, predicate: str
) -> None:
    scope = Scope(user_id="u-rule")
    WritePipeline(mstore).process_turn(text, scope=scope, turn_id="t1")
    assert predicate in _constraints(mstore, scope)


def test_a_rule_in_another_sentence_is_not_bound_to_the_task() -> None:
    text = "Fix this function. Also, never put secrets in code."
    rule = Candidate(
        subject="assistant", predicate="must_not", object="put secrets in code",
        text="never put secrets in code", kind="constraint",
    )  # fmt: skip
    assert not is_task_bound(text, rule)
    same_sentence = "Fix this function and never put secrets in it."
    assert is_task_bound(same_sentence, rule.model_copy(update={"text": "never put secrets in it"}))


def test_lasting_limits_and_places_are_never_task_bound() -> None:
    allergy = Candidate(
        subject="user", predicate="allergy", object="peanuts",
        text="I'm allergic to peanuts, so leave them out of this recipe", kind="constraint",
    )  # fmt: skip
    assert not is_task_bound(allergy.text, allergy)
    liked = Candidate(
        subject="user", predicate="likes", object="这个菜", text="这个菜是我最喜欢的",
        kind="preference",
    )  # fmt: skip
    assert not is_task_bound(liked.text, liked)
    assert not names_present_artifact("这个项目不要用MySQL")
    assert not names_present_artifact("In this repo we never use MySQL.")
    assert names_present_artifact("Summarize the text above.")
    assert says_durable("以后都用中文") and says_durable("every time you answer")
    assert not says_durable("不要用全局变量")


CONDITIONS_OF_A_REQUEST = [
    "Can you write a toast for my sister's wedding? Keep it under two minutes. Don't mention it.",
    "我们组下周有个同事要走，大家想送个礼物。你觉得送什么比较好？不要太 generic 的东西。",
    "帮我改一下年终总结吧，今晚就要交。第三段有点啰嗦。其他地方别动太多。",
    "What should I cook tonight for six people? Nothing too fancy.",
]


@pytest.mark.parametrize("text", CONDITIONS_OF_A_REQUEST)
def test_the_conditions_of_a_request_end_with_the_request(mstore: MemoryStore, text: str) -> None:
    """The guide's task-bound instructions: said next to a request or a question, with no word
    that makes them last, they are working memory, not standing rules."""
    scope = Scope(user_id="u-cond")
    WritePipeline(mstore).process_turn(text, scope=scope, turn_id="t1")
    assert not any(
        r.subject == "assistant" and r.kind == "constraint" for r in mstore.list(scope=scope)
    ), [(r.predicate, r.object) for r in mstore.list(scope=scope)]


def test_what_asks_for_something_and_what_makes_a_rule_last() -> None:
    from langgraph_memory.write.extract.one_off import asks_for_something, says_standing

    text = "我们下周聚餐。你觉得去哪家好？不要太贵。"
    assert asks_for_something(text, "你觉得去哪家好")  # the turn's "？" says it is a question
    assert not asks_for_something(text, "不要太贵")
    assert asks_for_something("Please proofread it.", "Please proofread it.")
    assert not asks_for_something("I moved to Berlin.", "I moved to Berlin.")
    assert says_standing("Never email customers") and says_standing("绝对不要发给客户")
    assert not says_standing("Don't mention her ex")
