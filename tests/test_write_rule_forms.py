"""Rules for the assistant in forms the rule table missed: "每次…都要…", an English
"always"/"must" inside a Chinese sentence, and a rule as the last item of a list opened by
"and you must…" / "还有你must…". Every utterance here is written for these tests; the rule
extractor is pure (no model)."""

from __future__ import annotations

import pytest

from langgraph_memory.core.records import Evidence
from langgraph_memory.write.extract.rule_extractor import RuleExtractor


def _rules(text: str) -> set[tuple[str, str]]:
    found = RuleExtractor().extract(text, evidence=Evidence(turn_ids=["t"]))
    return {(c.predicate, c.object) for c in found if c.subject == "assistant"}


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("每次给我推荐书都要附上豆瓣评分。", ("must", "附上豆瓣评分")),
        ("以后每回写邮件都得先写结论", ("must", "先写结论")),
        ("写 commit message 的时候 always 要用英文动词开头", ("must", "英文动词开头")),
        ("会议纪要 always 用表格", ("must", "表格")),
        ("还有你must提醒我带伞。", ("must", "提醒我带伞")),
        (
            "Context: I'm a paralegal in Leeds, and you must always cite the statute",
            ("must", "cite the statute"),
        ),
    ],
)
def test_a_rule_said_in_passing(text: str, rule: tuple[str, str]) -> None:
    assert rule in _rules(text)


@pytest.mark.parametrize(
    "text",
    [
        "他 always 迟到",
        "我 always 熬夜",
        "每次都这样我也很烦",
        "Must have been scary for you both.",
    ],
)
def test_a_habit_or_a_complaint_is_no_rule(text: str) -> None:
    assert _rules(text) == set()
