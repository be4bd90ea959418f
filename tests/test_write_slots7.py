"""Slot phrasing classes of 2026-12-03 (slotem7, from dev9's failures): a town called X,
"here in X", "moved too" (typo), a job at "a <kind> called X", a job with a typo before "at",
stay-at-home parents and Chinese job heads (全职妈妈, 班主任, X师 after 的, a school grade),
relative birthdays, a national cuisine eaten often, "from now on" is no "now", tools named in
two parts, "在 <org>" after a job or a job left, a prohibition of wordiness asks for concise
answers, "住的地方" is no place, pets said as "我的 cat" / "是只橘猫" / "two rabbits, …"."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.write import WritePipeline
from langgraph_memory.write.extract.rule_extractor import RULES
from langgraph_memory.write.slots.dispatch import fact_slots, slot_for
from langgraph_memory.write.slots.typed import typed_slot


def _facts(text: str) -> set[tuple[str, str]]:
    return {(s.predicate, s.object) for s in fact_slots(text)}


@pytest.mark.parametrize(
    ("text", "predicate", "value"),
    [
        ("Grew up in a tiny town called Millbrook, Ohio", "hometown", "Millbrook"),
        ("I grew up in a little village called Ashby, way up north", "hometown", "Ashby"),
        ("We're UTC+5:30 here in Pune, so my mornings are your nights", "location", "Pune"),
        ("Life here in Porto is slow and I love it", "location", "Porto"),
        ("i recently moved too Leeds for uni", "location", "Leeds"),
        ("我是 data scientist at 美团，base 北京", "location", "北京"),
        ("我是 PM，base 上海", "location", "上海"),
        ("im a data enginer at Acme, mostly pipelines", "employer", "Acme"),
        ("I'm a sofware developer at Initech", "employer", "Initech"),
        ("Senior PM at a fintech called Ledgerly, working remote", "employer", "Ledgerly"),
        ("Senior PM at a fintech called Ledgerly, working remote", "occupation", "senior pm"),
        ("CTO at a small agency named Pixelforge", "occupation", "cto"),
        ("I'm a stay-at-home dad to twins", "occupation", "stay-at-home dad"),
        ("I'm a stay-at-home mom of three", "occupation", "stay-at-home mom"),
        ("我是一名全职妈妈，两个孩子都在上小学", "occupation", "全职妈妈"),
        ("我是家庭主妇，平时就在家带孩子", "occupation", "家庭主妇"),
        ("我是自由职业的插画师，平时在家接单", "occupation", "插画师"),
        ("我是自由职业的剪辑师", "occupation", "剪辑师"),
        ("我现在是高三的班主任，天天忙到很晚", "occupation", "班主任"),
        ("我是初二的班主任，这学期特别忙", "occupation", "初二的班主任"),
        ("我是 senior frontend engineer，在 Shopee。", "employer", "Shopee"),
        ("我已经从阿里离职了，现在在美团", "employer", "美团"),
        ("上个月从腾讯辞职了，现在在字节", "employer", "字节"),
        ("My birthday's next Tuesday, not that I'm counting", "birthday", "next Tuesday"),
        ("My birthday is this Friday, finally thirty", "birthday", "this Friday"),
        ("下个月五号是我生日，别忘了哈", "birthday", "下个月五号"),
        ("这周六是我生日，想订个蛋糕", "birthday", "这周六"),
        ("我的 cat 叫橘子，是只橘猫", "pet", "cat"),
        ("two rabbits, Pip and Juniper, basically run my kitchen", "pet", "rabbit"),
        ("We order Thai most Fridays, it's basically a ritual", "cuisine", "Thai"),
    ],
)
def test_a_fact_phrasing_names_its_typed_value(text: str, predicate: str, value: str) -> None:
    assert (predicate, value) in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "我是初二的班主任",  # a school grade is no organisation
        "我是护士，在北京",  # a place after a job is where the user is, not an employer
        "在家接单",  # no job named: "在 X" is no workplace
    ],
)
def test_no_employer_where_the_words_name_none(text: str) -> None:
    assert not any(p == "employer" for p, _ in _facts(text))


def test_a_place_after_a_job_is_a_location() -> None:
    assert ("location", "北京") in _facts("我是护士，在北京")


def test_tools_named_in_two_parts_are_both_held() -> None:
    slots = fact_slots("Work laptop runs Windows 11, my personal one is a Mac.")
    oses = [s for s in slots if s.predicate == "operating_system"]
    assert len(oses) == 2 and all(s.multi_valued for s in oses)


@pytest.mark.parametrize(
    "text",
    ["I used to use vim, now emacs", "I use vim, not emacs", "以前用 MySQL，现在用 MongoDB"],
)
def test_an_old_or_negated_tool_is_no_second_value(text: str) -> None:
    values = [s for s in fact_slots(text) if s.predicate in {"editor", "database"}]
    assert len(values) == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Give me Python examples from now on, I don't really read Java.", "Python"),
        ("Show me Rust snippets from now on, I can't follow C++ at all.", "Rust"),
    ],
)
def test_from_now_on_is_no_later_value(text: str, value: str) -> None:
    typed = typed_slot(text)
    assert typed is not None and typed.object == value and typed.corrects is None


def test_a_later_now_still_sets_the_current_value() -> None:
    typed = typed_slot("wrote Java for ten years, now mostly Kotlin")
    assert typed is not None and typed.object == "Kotlin"


@pytest.mark.parametrize(
    "text", ["we eat Korean like three times a week", "I cook Mexican at least twice a week"]
)
def test_a_national_cuisine_eaten_often_is_the_cuisine(text: str) -> None:
    assert any(s.predicate == "cuisine" for s in slot_for("preference", text))


@pytest.mark.parametrize("text", ["I speak Korean at home", "Korean people are so kind"])
def test_a_nationality_without_eating_is_no_cuisine(text: str) -> None:
    assert not any(s.predicate == "cuisine" for s in fact_slots(text))


def test_a_never_said_of_something_else_is_no_rule() -> None:
    slots = slot_for("constraint", "I cook Mexican at least twice a week, it never gets old")
    assert [(s.predicate, s.object) for s in slots] == [("cuisine", "Mexican")]


def _rule_hit(text: str) -> tuple[str, str] | None:
    for pattern, builder in RULES:
        m = pattern.search(text)
        hit = builder(m, False) if m else None
        if hit is not None and hit.object:
            return hit.predicate, hit.object
    return None


@pytest.mark.parametrize(
    "text", ["别啰嗦", "不要长篇大论", "别说废话", "don't ramble", "don't waffle"]
)
def test_a_prohibition_of_wordiness_is_concise(text: str) -> None:
    assert _rule_hit(text) == ("response_length", "concise")


def test_where_i_live_is_no_place() -> None:
    hit = _rule_hit("深圳是我现在住的地方")
    assert hit is None or hit[1] != "地方"


def test_a_length_said_once_as_an_order_is_explicit(mem: MemoryStore) -> None:
    pipeline = WritePipeline(mem)
    report = pipeline.process_turn(
        "回答简洁一点，别啰嗦。", scope=Scope(user_id="se7"), turn_id="t1", thread_id="th"
    )
    actions = {d.candidate.key(): d.action for d in report.decisions}
    assert actions.get(("user", "response_length", "concise")) == "inserted"
    alone = pipeline.process_turn(
        "回答简洁一点。", scope=Scope(user_id="se7b"), turn_id="t1", thread_id="th"
    )  # said once, as a remark: the repetition gate still decides
    assert all(d.action != "inserted" for d in alone.decisions)


@pytest.mark.parametrize(
    ("text", "predicate", "value"),
    [
        ("just moved to denver last month lol, still surrounded by boxes", "location", "denver"),
        ("recently moved too leeds, loving it", "location", "leeds"),
        ("i moved too Bristol in may", "location", "bristol"),
        ("My birthday's next Tuesday, not that I'm counting", "birthday", "next tuesday"),
        ("my bday's on march 3rd", "birthday", "march 3rd"),
    ],
)
def test_a_rule_reads_a_move_or_birthday_said_casually(
    text: str, predicate: str, value: str
) -> None:
    from langgraph_memory.core import Evidence
    from langgraph_memory.write.extract.rule_extractor import RuleExtractor

    found = RuleExtractor().extract(text, evidence=Evidence(turn_ids=["t1"]))
    assert (predicate, value) in {(c.predicate, c.object.lower()) for c in found}
