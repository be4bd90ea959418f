"""Slot exact-match on the write path, fourth round: values said before their attribute
("Acme is where I work"), pets and their names, birthdays and hometowns told by being born,
jobs and employers in looser wording, spoken languages, cuisines and tools in lists, Chinese
hometowns and homes said colloquially, a hedge that judges something else, misspelt
attribute names.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
The pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.extract.markers import hedges_value
from langgraph_memory.write.slots.dispatch import slot_for
from langgraph_memory.write.slots.shape import misspelt_attribute
from langgraph_memory.write.spans import deadline_value

from .conftest import current_slots


def _pairs(kind: str, clause: str) -> set[tuple[str, str]]:
    return {(s.predicate, s.object) for s in slot_for(kind, clause)}


# ---------------------------------------------------------------- pure slot functions
@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("Initrode is where I work now", {("employer", "Initrode")}),
        ("Glasgow's where I live, rain and all", {("location", "Glasgow")}),
        ("Utrecht is home these days", {("location", "Utrecht")}),
        ("Bergen is my hometown", {("hometown", "Bergen")}),
        ("字节是我上班的地方", {("employer", "字节")}),
    ],
)
def test_a_value_said_before_its_attribute(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


def test_a_pronoun_before_where_i_live_is_no_place() -> None:
    assert not {p for p, _ in _pairs("stable_fact", "This is where I live")} & {"location"}


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        (
            "we have a hamster named Nugget who never sleeps",
            {("pet", "hamster"), ("pet_name", "Nugget")},
        ),
        ("我养了一只橘猫，叫年年。", {("pet", "橘猫"), ("pet_name", "年年")}),
        ("our beagle Toffee steals socks", {("pet", "beagle"), ("pet_name", "Toffee")}),
        ("I have two rabbits named Bun and Bean", {("pet_name", "Bun"), ("pet_name", "Bean")}),
        ("家里两只布偶，一只叫奶茶一只叫布丁", {("pet_name", "奶茶"), ("pet_name", "布丁")}),
    ],
)
def test_a_pet_and_the_name_given_it(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("I was born on July 9th, a Sunday", {("birthday", "July 9th")}),
        ("my bday falls on the 3rd of May", {("birthday", "3rd of May")}),
        ("Oct 30 is my birthday, plan accordingly", {("birthday", "Oct 30")}),
        ("我是5月20号出生的", {("birthday", "5月20号")}),
        (
            "I was born in Cork but live in Galway now",
            {("hometown", "Cork"), ("location", "Galway")},
        ),
        ("Boston born and raised, now in Denver", {("hometown", "Boston"), ("location", "Denver")}),
    ],
)
def test_born_on_a_day_or_in_a_place(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


def test_someone_elses_birthday_is_not_the_users() -> None:
    assert "birthday" not in {p for p, _ in _pairs("stable_fact", "My son's birthday is May 2.")}


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("I'm finally a product designer, which is wild", ("occupation", "product designer")),
        ("I freelance as an illustrator, mostly book covers", ("occupation", "illustrator")),
        ("I'm employed by Wayne Enterprises, in logistics", ("employer", "Wayne Enterprises")),
        ("My company, Blue Harbor, builds boats.", ("employer", "Blue Harbor")),
        ("本人是一名会计，在一家事务所上班。", ("occupation", "会计")),
        ("我干物流的，天天跑仓库。", ("occupation", "物流")),
    ],
)
def test_jobs_and_employers_in_looser_wording(clause: str, want: tuple[str, str]) -> None:
    assert want in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("我会说上海话，也会一点韩语。", {("speaks", "韩语")}),
        (
            "I can get by in Italian and I'm fluent in Greek",
            {("speaks", "Italian"), ("speaks", "Greek")},
        ),
        ("Dutch is my native language", {("speaks", "Dutch")}),
    ],
)
def test_every_language_the_user_speaks(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


def test_a_language_spoken_read_as_a_preference_is_still_spoken() -> None:
    assert _pairs("preference", "我会讲 German 和 Spanish。") == {
        ("speaks", "German"),
        ("speaks", "Spanish"),
    }


def test_cuisines_in_a_list() -> None:
    assert _pairs("preference", "Greek and Lebanese are my go-to cuisines") == {
        ("cuisine", "Greek"),
        ("cuisine", "Lebanese"),
    }


def test_tools_joined_by_and_are_each_a_value() -> None:
    slots = slot_for("stable_fact", "我们用 MongoDB 和 Redis。")
    assert {(s.predicate, s.object) for s in slots} == {
        ("database", "MongoDB"),
        ("database", "Redis"),
    }
    assert all(s.multi_valued for s in slots)


def test_a_comma_does_not_join_an_old_tool_to_the_new_one() -> None:
    assert _pairs("stable_fact", "刚换了 Mac，Windows 那台卖了") == {("operating_system", "Mac")}


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("我是东北的，长春人，现在在大连。", {("hometown", "长春"), ("location", "大连")}),
        ("我住在宁波北仑，离港口近。", {("location", "宁波")}),
        ("我们家是江西的。", {("hometown", "江西")}),
        ("老家 Chengdu 的。", {("hometown", "Chengdu")}),
        ("现在 based in 东京，之前在大阪。", {("location", "东京")}),
        ("住在 Los Angeles，通勤很远。", {("location", "Los Angeles")}),
        ("老家安徽的，在合肥上的大学。", {("hometown", "安徽")}),
    ],
)
def test_chinese_homes_and_hometowns(clause: str, want: set[tuple[str, str]]) -> None:
    got = _pairs("stable_fact", clause)
    assert want <= got
    assert {p for p, _ in got} & {"location", "hometown"} == {p for p, _ in want}


def test_a_timezone_is_no_hometown() -> None:
    assert "hometown" not in {p for p, _ in _pairs("stable_fact", "我是东八区的")}


@pytest.mark.parametrize(
    ("kind", "clause", "want"),
    [
        ("constraint", "Gluten is a no-go for me, I'm coeliac.", ("dietary_restriction", "gluten")),
        ("constraint", "Shrimp is off the table for me — I'm allergic.", ("allergy", "shrimp")),
        ("constraint", "芒果我一点都不能碰，过敏。", ("allergy", "芒果")),
    ],
)
def test_a_food_said_to_be_off_the_table(kind: str, clause: str, want: tuple[str, str]) -> None:
    assert want in _pairs(kind, clause)


def test_something_else_off_the_table_is_no_food() -> None:
    assert "dietary_restriction" not in {
        p for p, _ in _pairs("constraint", "Meetings before nine are off the table for me.")
    }


def test_a_habit_with_yao_is_the_users_drink_not_a_rule() -> None:
    assert _pairs("constraint", "我每天早上都要喝一杯燕麦拿铁。") == {("drink", "燕麦拿铁")}


def test_misspelt_attribute_names() -> None:
    assert misspelt_attribute("budgt") == "budget"
    assert misspelt_attribute("birthdya") == "birthday"
    assert misspelt_attribute("gadget") is None
    assert _pairs("stable_fact", "My budegt is 900 euros for the whole move.") == {
        ("budget", "900 euros")
    }


def test_a_deadline_with_its_day_of_month() -> None:
    assert deadline_value("The essay is due Thursday the 21st.") == "Thursday the 21st"
    assert deadline_value("It all has to ship by the end of Q2.") == "the end of Q2"


def test_a_hedge_that_judges_something_else() -> None:
    clause = "Working at Hooli as a data engineer, it's okay I guess"
    assert not hedges_value(clause, "Hooli")
    assert hedges_value("I'm a data engineer, I think", "data engineer")
    assert hedges_value("I guess I'm moving to Oslo", "Oslo")


# ---------------------------------------------------------------- the real write path
@pytest.mark.parametrize(
    ("user", "text", "want"),
    [
        ("vf", "Initrode is where I work these days.", {("employer", "Initrode")}),
        ("vf2", "Glasgow's where I live, rain and all.", {("location", "Glasgow")}),
        ("pet", "We have a hamster named Nugget who never sleeps.", {("pet_name", "Nugget")}),
        ("pet2", "我养了一只橘猫，叫年年。", {("pet", "橘猫"), ("pet_name", "年年")}),
        (
            "born",
            "I was born in Cork but live in Galway now.",
            {("hometown", "Cork"), ("location", "Galway")},
        ),
        ("bday", "I was born on July 9th, a Sunday apparently.", {("birthday", "July 9th")}),
        (
            "hedge",
            "Working at Hooli as a data engineer, it's okay I guess.",
            {("employer", "Hooli")},
        ),
        (
            "job",
            "So after a long search I'm finally a product designer at a studio, which is wild.",
            {("occupation", "product designer")},
        ),
        (
            "zh1",
            "我是东北的，长春人，现在在大连打工。",
            {("hometown", "长春"), ("location", "大连")},
        ),
        ("zh2", "我住在青岛崂山，空气不错。", {("location", "青岛")}),
        ("zh3", "本人是一名会计，在一家事务所上班。", {("occupation", "会计")}),
        ("zh4", "我会说上海话，也会一点韩语。", {("speaks", "上海话"), ("speaks", "韩语")}),
        ("mx1", "现在 based in 东京，之前在大阪。", {("location", "东京")}),
        ("mx2", "我的 budget 大概 $1,500。", {("budget", "$1,500")}),
        ("mx3", "我会讲 German 和 Spanish。", {("speaks", "German"), ("speaks", "Spanish")}),
        ("diet", "Gluten is a no-go for me, I'm coeliac.", {("dietary_restriction", "gluten")}),
        (
            "cui",
            "Greek and Lebanese are my go-to cuisines.",
            {("cuisine", "Greek"), ("cuisine", "Lebanese")},
        ),
        ("typo", "My budegt is 900 euros for the whole move.", {("budget", "900 euros")}),
    ],
)
def test_the_write_path_stores_the_value(
    mem: MemoryStore, user: str, text: str, want: set[tuple[str, str]]
) -> None:
    assert want <= current_slots(mem, user, [text])


def test_a_pet_name_correction_replaces_the_old_name(mem: MemoryStore) -> None:
    turns = ["My dog's name is Pickles.", "oops, Pickles is my cousin's dog 😅 mine's called Olive"]
    slots = current_slots(mem, "petfix", turns)
    assert ("pet_name", "Olive") in slots and ("pet_name", "Pickles") not in slots


def test_the_kind_of_person_is_no_hedge(mem: MemoryStore) -> None:
    """ "the kind of person who…" describes; only "kind of" as an adverb hedges."""
    text = "I'm the kind of person who likes everything spelled out, so when you explain, go deep."
    assert ("response_length", "detailed") in current_slots(mem, "kindof", [text])


def test_a_place_read_from_a_preference_clause_is_a_fact(mem: MemoryStore) -> None:
    from langgraph_memory import Scope, WritePipeline

    report = WritePipeline(mem).process_turn(
        "坐标长沙，欢迎来玩。", scope=Scope(user_id="kindfact"), turn_id="t0", thread_id="th"
    )
    kinds = {d.candidate.predicate: d.candidate.kind for d in report.decisions}
    assert kinds.get("location") == "stable_fact"


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("We build it in Elixir with MySQL 8 behind it.", {("database", "MySQL 8")}),
        ("I'm the staff engineer at Quillo these days.", {("occupation", "staff engineer")}),
        ("I'm a 医生, mostly night shifts.", {("occupation", "医生")}),
        ("我在杭州未来科技城上班，公司是做电商的，叫云雀科技。", {("employer", "云雀科技")}),
    ],
)
def test_third_round_phrasings(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


def test_a_drink_that_cannot_be_had() -> None:
    assert ("dietary_restriction", "酒精") in _pairs("constraint", "酒精我喝不了，一喝就脸红。")


def test_a_business_park_is_where_the_user_works_not_who_employs_them(mem: MemoryStore) -> None:
    slots = current_slots(mem, "park", ["我在苏州工业园区上班，离家很近。"])
    assert ("location", "苏州") in slots
    assert not {p for p, _ in slots} & {"employer"}


def test_a_birthday_said_after_small_talk(mem: MemoryStore) -> None:
    text = "说个事，我下周就满二十五了，生日是六月九号。你觉得怎么庆祝好？"
    assert ("birthday", "六月九号") in current_slots(mem, "bday2", [text])


def test_a_sentence_after_actually_is_no_corrected_value(mem: MemoryStore) -> None:
    turns = [
        "Please keep answers short.",
        "Actually I've reconsidered. Longer, detailed answers suit me.",
    ]
    slots = current_slots(mem, "reconsider", turns)
    assert not any(p == "response_length" and "reconsidered" in o for p, o in slots)
    assert ("response_length", "detailed") in slots


def test_a_tool_that_ends_the_sentence(mem: MemoryStore) -> None:
    assert ("programming_language", "Go") in current_slots(
        mem, "gofull", ["At work I mostly write Go."]
    )


def test_what_a_company_does_is_not_its_name() -> None:
    assert _pairs("stable_fact", "我们公司是做游戏发行的，规模不大。") == {
        ("employer_business", "游戏发行")
    }
