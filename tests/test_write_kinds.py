"""Kinds on the write path (issue 12): what a turn is stored as — a diet only when the words
describe one, constraints typed ``constraint``, corrections only of what the user named."""

from __future__ import annotations

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.write import WriteReport
from langgraph_memory.write.slots.diet import described_diet


def _turns(mem: MemoryStore, *turns: str, user: str = "u") -> list[WriteReport]:
    pipeline = WritePipeline(mem)
    scope = Scope(user_id=user)
    return [
        pipeline.process_turn(text, scope=scope, turn_id=f"t{i}", thread_id="th")
        for i, text in enumerate(turns)
    ]


def _current(mem: MemoryStore, user: str = "u") -> set[tuple[str, str, str]]:
    return {
        (r.predicate or "", r.object or "", r.kind.value)
        for r in mem.list(scope=Scope(user_id=user))
        if r.predicate != "said"
    }


# ---------------------------------------------------------------- diets
def test_one_meat_and_shellfish_are_not_a_vegetarian_diet() -> None:
    assert described_diet("I don't eat pork or shellfish") is None
    assert described_diet("我不吃猪肉和海鲜") is None
    assert described_diet("no red meat and no fish") is None
    # meat as a whole still describes the diet
    assert described_diet("I don't eat meat or fish") == "vegetarian"
    assert described_diet("我不吃肉，也不吃鱼和海鲜。") == "vegetarian"
    assert described_diet("我只吃鱼，别的肉都不吃") == "pescatarian"


def test_a_listed_restriction_is_one_constraint_per_food(mem: MemoryStore) -> None:
    _turns(mem, "I don't eat pork or shellfish")
    assert _current(mem) == {
        ("dietary_restriction", "pork", "constraint"),
        ("dietary_restriction", "shellfish", "constraint"),
    }


# ---------------------------------------------------------------- kin slots
def test_own_name_correction_never_overwrites_the_wifes_name(mem: MemoryStore) -> None:
    _turns(mem, "my wife's name is Sara", "actually my name is Bob")
    assert {("wife_name", "Sara"), ("name", "Bob")} <= {(p, o) for p, o, _ in _current(mem)}
    _turns(mem, "我老婆叫小美", "我住在北京", "不对，我叫小明", user="zh")
    got = {(p, o) for p, o, _ in _current(mem, "zh")}
    assert ("wife_name", "小美") in got and ("name", "小明") in got


def test_a_withdrawn_value_does_not_send_its_replacement_to_a_kin_slot(
    mem: MemoryStore,
) -> None:
    # the correction withdraws name=Tom; storing Thomas must not move on to wife_name
    _turns(mem, "my wife's name is Sara", "my name is Tom", "sorry, it's Thomas")
    got = {(p, o) for p, o, _ in _current(mem)}
    assert ("wife_name", "Sara") in got and ("name", "Thomas") in got


def test_kin_correction_of_the_previous_turn_or_a_named_relative(mem: MemoryStore) -> None:
    _turns(mem, "My wife's name is Sara.", "typo, it's Sarah with an h")
    assert ("wife_name", "Sarah") in {(p, o) for p, o, _ in _current(mem)}
    _turns(
        mem,
        "My daughter's birthday is June 3rd.",
        "She's turning seven this year.",
        "wait no, her birthday is June 13th, I always mix that up",
        user="d",
    )
    assert ("daughter_birthday", "June 13th") in {(p, o) for p, o, _ in _current(mem, "d")}


# ---------------------------------------------------------------- lifted constraints
def test_how_good_the_users_english_is_lifts_nothing(mem: MemoryStore) -> None:
    (report,) = _turns(mem, "my english is ok")
    assert not any(d.candidate.retract or d.candidate.correction for d in report.decisions)
    _turns(mem, "no emojis please", "my english is ok", user="e")
    assert ("must_not", "emoji", "constraint") in _current(mem, "e")
    # what the assistant may do again is still lifted
    _turns(mem, "no emojis please", "emojis are fine now", user="f")
    assert ("must_not", "emoji", "constraint") not in _current(mem, "f")


# ---------------------------------------------------------------- questions
def test_casual_chinese_questions_assert_nothing(mem: MemoryStore) -> None:
    for i, text in enumerate(
        ["我老婆生日是啥时候", "我有没有说过我喜欢喝茶", "我英语咋样", "我喜欢喝啥",
         "我用的编辑器是啥来着", "我是不是说过我住在上海"]
    ):  # fmt: skip
        (report,) = _turns(mem, text, user=f"q{i}")
        assert not report.wrote, (text, [d.candidate.key() for d in report.decisions])
    # "啥的" (and such) and "没啥" are statements
    (report,) = _turns(mem, "我海鲜过敏，虾蟹啥的都不行", user="s")
    assert report.wrote


# ---------------------------------------------------------------- corrections of nothing
def test_a_correction_that_replaced_nothing_reports_the_kind_it_stored(
    mem: MemoryStore,
) -> None:
    (report,) = _turns(mem, "pescatarian here. fish is fine, no meat")
    written = [d.candidate for d in report.decisions if d.action == "inserted"]
    assert [(c.predicate, c.kind, c.correction) for c in written] == [("diet", "constraint", False)]
    assert ("diet", "pescatarian", "constraint") in _current(mem)
    # a correction of a stored value stays one
    _turns(mem, "I live in Lyon", "it's Lille, not Lyon", user="c")
    assert ("location", "Lille", "stable_fact") in _current(mem, "c")


# ---------------------------------------------------------------- corrections without a marker
def test_two_bare_values_correct_the_one_a_setup_holds(mem: MemoryStore) -> None:
    _turns(mem, "I'm allergic to peanuts", "cashews, not peanuts")
    assert {(p, o) for p, o, _ in _current(mem)} == {("allergy", "cashews")}
    _turns(mem, "我住在杭州", "是苏州不是杭州", user="zh")
    assert {(p, o) for p, o, _ in _current(mem, "zh")} == {("location", "苏州")}
    _turns(mem, "项目截止日期是周四", "是周五不是周四", user="d")
    assert ("deadline", "周五") in {(p, o) for p, o, _ in _current(mem, "d")}


# ---------------------------------------------------------------- things, not the user
def test_a_statement_about_a_thing_corrects_none_of_the_users_facts(mem: MemoryStore) -> None:
    _turns(mem, "I drink coffee", "oh the office plant needs water")
    assert {(p, o) for p, o, _ in _current(mem)} == {("drink", "coffee")}
    _turns(mem, "我住在北京", "不对，办公室的绿萝该浇水了", user="zh")
    assert {(p, o) for p, o, _ in _current(mem, "zh")} == {("location", "北京")}


def test_a_rule_with_not_in_it_is_no_bare_correction(mem: MemoryStore) -> None:
    _turns(mem, "do NOT make stuff up")
    assert ("must_not", "make stuff up", "constraint") in _current(mem)


# ---------------------------------------------------------------- deadlines and budgets
def test_a_stated_deadline_or_budget_is_a_fact_a_limit_is_a_constraint(
    mem: MemoryStore,
) -> None:
    kinds = {}
    for i, text in enumerate(
        ["The project deadline is Friday", "项目截止日期是下周五",
         "My budget is around 3k for the bike.", "预算不超过五千元",
         "My budget is under 500 dollars"]
    ):  # fmt: skip
        (report,) = _turns(mem, text, user=f"b{i}")
        for d in report.decisions:
            kinds[d.candidate.object] = d.candidate.kind
    assert kinds == {
        "Friday": "stable_fact",
        "下周五": "stable_fact",
        "3k": "stable_fact",
        "五千元": "constraint",
        "500 dollars": "constraint",
    }


# ---------------------------------------------------------------- standing wishes
def test_a_standing_wish_said_softly_is_a_preference_a_rule_a_constraint(
    mem: MemoryStore,
) -> None:
    (soft,) = _turns(mem, "我看列表比较清楚，以后回答尽量分点列出来吧", user="s")
    assert [d.candidate.kind for d in soft.decisions if d.action == "inserted"] == ["preference"]
    (rule,) = _turns(mem, "from now on, start every answer with a summary", user="r")
    assert [d.candidate.kind for d in rule.decisions if d.action == "inserted"] == ["constraint"]


def test_a_one_off_request_with_not_is_no_correction(mem: MemoryStore) -> None:
    (report,) = _turns(mem, "Use Python for this script, not bash")
    assert not report.wrote
