"""Slot phrasing classes of slotem9 (from dev10's failures): jobs said colloquially ("as a
<job> I…", "<job>一枚", "还是做后端"), tools named by a common word or led by their use ("R",
"SAS", "py for scripts, Go for services", "全靠 MATLAB"), a switch with what was switched in
between ("moved the API from X to Y"), a planned switch that keeps the current tool, the drink
the user only drinks, "can't do <food>", 全素 / 鱼素 diets, a diet named as a conclusion ("so I
guess I'm pescatarian"), languages named before the verb that says they are spoken, and tools
of other people."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.core.records import Evidence, Source
from langgraph_memory.write.extract.markers import hedges_value
from langgraph_memory.write.guide_kinds import others_tool
from langgraph_memory.write.slots.diet import diet_or_allergy_slot, restriction_slot
from langgraph_memory.write.slots.dispatch import fact_slots, slot_for
from langgraph_memory.write.slots.preference import speaks_slots
from langgraph_memory.write.slots.triggers import colloquial_job, trigger_slots
from langgraph_memory.write.slots.typed import typed_slot
from langgraph_memory.write.types import Candidate
from tests.conftest import current_slots


def _slots(kind: str, text: str) -> set[tuple[str, str]]:
    return {(s.predicate, s.object) for s in slot_for(kind, text)}


# --- jobs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "job"),
    [
        (
            "Quick context: as a school librarian I order most of our books myself",
            "school librarian",
        ),
        ("As a hospice nurse, I see families at their hardest", "hospice nurse"),
        ("Speaking as a data analyst, dashboards are overrated", "data analyst"),
        ("As an 会计 I do taxes every spring", "会计"),
        ("作为一名高中物理老师，我每周都要出卷子", "高中物理老师"),
        ("作为一个 product designer，我天天画原型", "product designer"),
        ("坐标成都，85后律师一枚", "律师"),
        ("00后护士一名，三班倒", "护士"),
        ("设计师出身，后来一直在带团队", "设计师"),
        ("我去年换了公司，还是做算法，只是方向变了", "算法"),
        ("我主要做客户端开发，偶尔写点脚本", "客户端开发"),
    ],
)
def test_a_colloquial_job_is_the_occupation(text: str, job: str) -> None:
    assert colloquial_job(text) == job
    assert ("occupation", job) in {(s.predicate, s.object) for s in trigger_slots(text)}


@pytest.mark.parametrize(
    "text",
    [
        "As a teacher, what would you do about a student who cheats?",
        "As a rule, I skip breakfast",
        "As a vegetarian, I skip most of the menu",
        "我在做前端页面，卡住了",
        "我还是做测试吧",
    ],
)
def test_no_job_where_the_words_name_none(text: str) -> None:
    assert colloquial_job(text) is None


# --- tools -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("All my survival models are written in R", "R"),
        ("统计分析我一般用 R", "R"),
        ("Our clinical team still does everything in SAS", "SAS"),
        ("图像处理基本全靠 MATLAB", "MATLAB"),
        ("后端全靠 Go，别的都不用", "Go"),
    ],
)
def test_a_tool_named_by_a_common_or_new_word(text: str, value: str) -> None:
    typed = typed_slot(text)
    assert typed is not None
    assert (typed.predicate, typed.object) == ("programming_language", value)


def test_a_language_led_by_its_use_lists_each_one() -> None:
    for kind in ("stable_fact", "preference"):
        slots = _slots(kind, "py for automation, R for the stats — works for me")
        assert {("programming_language", "py"), ("programming_language", "R")} <= slots
    assert typed_slot("Go for it, you deserve a break") is None  # no use of a language


@pytest.mark.parametrize(
    ("text", "predicate", "value"),
    [
        (
            "In March we moved the billing service from MySQL to CockroachDB",
            "database",
            "CockroachDB",
        ),
        ("Our IT team switched everybody from Windows to Ubuntu", "operating_system", "Ubuntu"),
        ("The lead switched us from Jest to Vitest in May", "test_framework", "Vitest"),
        ("去年从 MySQL migrate 整个组到 Postgres 了", "database", "Postgres"),
    ],
)
def test_a_switch_with_what_was_switched_named_between(
    text: str, predicate: str, value: str
) -> None:
    typed = typed_slot(text)
    assert typed is not None
    assert (typed.predicate, typed.object) == (predicate, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The backend is on MySQL; currently we're planning a move to Postgres", "MySQL"),
        ("Our tests run on pytest for now, there's talk of trying unittest again", "pytest"),
        ("数据库是 MongoDB，最近领导打算迁移到 TiDB", "MongoDB"),
        ("单测用的是 Jest，最近想换成 Vitest，还没定", "Jest"),
    ],
)
def test_a_planned_switch_keeps_the_current_tool(text: str, value: str) -> None:
    typed = typed_slot(text)
    assert typed is not None and typed.object == value


def test_another_persons_tool_is_not_the_users() -> None:
    def cand(text: str, value: str) -> Candidate:
        return Candidate(
            subject="user", predicate="programming_language", object=value, text=text,
            kind="stable_fact", confidence=0.9, evidence=Evidence(), source=Source.USER,
        )  # fmt: skip

    assert others_tool(cand("My flatmate swears Haskell is the only real language", "Haskell"))
    assert others_tool(cand("我朋友说 Rust 才是未来，天天安利", "Rust"))
    assert others_tool(cand("My manager does all his reports in Python", "Python"))
    assert not others_tool(cand("My boss lets me write everything in Python", "Python"))
    assert not others_tool(cand("我用的是 Python，公司电脑不让装别的", "Python"))


# --- drinks ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Beer's not for me — I only drink kombucha, mostly ginger", "kombucha"),
        ("I never drink soda, it's sparkling water all day", "sparkling water"),
        ("不喝奶茶，只喝豆浆", "豆浆"),
        ("咖啡不怎么喝，基本只喝红茶", "红茶"),
    ],
)
def test_the_drink_the_user_only_drinks(text: str, value: str) -> None:
    typed = typed_slot(text)
    assert typed is not None and (typed.predicate, typed.object) == ("drink", value)
    assert ("drink", value) in _slots("constraint", text) | _slots("preference", text)


# --- food limits -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I can't do olives, the taste makes me gag", "olives"),
        ("Just so you know for recipes, I can't do raw onion", "raw onion"),
        ("I can't do anything spicy, my stomach won't have it", "spicy"),
        ("酸的我实在不行，吃了胃难受", "酸"),
    ],
)
def test_a_food_the_user_cannot_take(text: str, value: str) -> None:
    limit = restriction_slot(text)
    assert limit is not None and limit.object == value
    for kind in ("stable_fact", "preference", "constraint"):
        assert ("dietary_restriction", value) in _slots(kind, text)


def test_only_food_is_a_limit_the_user_cannot_take() -> None:
    assert getattr(restriction_slot("I can't do cilantro, the taste is soap"), "object", "") == (
        "cilantro"
    )
    for text in ("I can't do Mondays, honestly", "I can't do that tonight", "早起我真的不行"):
        assert restriction_slot(text) is None


# --- diets -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("我吃素三年了，鸡蛋牛奶也都不吃", "vegan"),
        ("我吃素，全素那种", "vegan"),
        ("我是鱼素", "pescatarian"),
        ("现在是海鲜素", "pescatarian"),
        ("蛋奶素，偶尔喝点牛奶", "vegetarian"),
    ],
)
def test_a_chinese_diet_word(text: str, diet: str) -> None:
    slot = diet_or_allergy_slot(text)
    assert slot is not None and (slot.predicate, slot.object) == ("diet", diet)
    eggs = diet_or_allergy_slot("我吃素，鸡蛋还吃")  # eggs eaten: still vegetarian
    assert eggs is not None and eggs.object == "vegetarian"


def test_a_diet_named_as_a_conclusion_is_not_hedged() -> None:
    said = "I gave up red meat and chicken but kept seafood, so I guess I'm pescatarian now"
    assert not hedges_value(said, "pescatarian")
    assert not hedges_value("我不吃肉了，鱼还吃，算是鱼素吧", "鱼素")
    assert hedges_value("I'm pescatarian, I guess", "pescatarian")
    assert hedges_value("I might quit meat, so I guess I'm pescatarian soon", "pescatarian")


# --- spoken languages ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("Italian I already speak, thanks to my grandmother", ["Italian"]),
        ("Dutch I picked up in Utrecht and still use at work", ["Dutch"]),
        ("日语我大学就会说了", ["日语"]),
        ("我 mother tongue 是 Polish，German 工作够用，Czech 还在学", ["Polish", "German"]),
        ("Native Hindi speaker, decent French, learning Korean", ["Hindi", "French"]),
        ("I'm far more comfortable speaking in Portuguese", ["Portuguese"]),
    ],
)
def test_a_language_said_before_its_verb_is_spoken(text: str, spoken: list[str]) -> None:
    assert [s.object for s in speaks_slots(text)] == spoken


def test_a_level_is_spoken_only_where_the_clause_speaks_of_speaking() -> None:
    assert [s.object for s in speaks_slots("母语是粤语，English 也 OK")] == ["粤语", "English"]
    assert speaks_slots("英文也可以") == []  # a language the answers may be in
    assert ("speaks", "Polish") not in {(s.predicate, s.object) for s in fact_slots("Polish is OK")}


# --- through the pipeline --------------------------------------------------------------------


def test_pipeline_reads_colloquial_jobs_and_tools(mem: MemoryStore) -> None:
    slots = current_slots(mem, "s9-job", ["坐标武汉，90后测试工程师一枚。"])
    assert ("occupation", "测试工程师") in slots
    slots = current_slots(mem, "s9-r", ["I'm in epidemiology and run every analysis in R."])
    assert ("programming_language", "R") in slots


def test_pipeline_keeps_the_current_tool_of_a_planned_move(mem: MemoryStore) -> None:
    slots = current_slots(mem, "s9-plan", ["我们组测试框架是 JUnit，最近打算迁到 TestNG。"])
    assert ("test_framework", "JUnit") in slots and ("test_framework", "TestNG") not in slots


def test_pipeline_reads_the_only_drink_and_a_vegan_diet(mem: MemoryStore) -> None:
    slots = current_slots(
        mem, "s9-drink", ["I don't drink coffee; I only drink tea, mostly sencha."]
    )
    assert ("drink", "tea") in slots and ("drink", "coffee") not in slots
    slots = current_slots(mem, "s9-vegan", ["我吃素十年了，全素，蛋奶都不碰。"])
    assert ("diet", "vegan") in slots and ("diet", "vegetarian") not in slots


def test_pipeline_drops_a_coworkers_tool(mem: MemoryStore) -> None:
    slots = current_slots(
        mem, "s9-other", ["My teammate swears Elixir is the best language ever made."]
    )
    assert ("programming_language", "Elixir") not in slots
