"""Slot phrasing classes of 2026-12-03 (slotem6): relatives' food limits, deadlines with a time
of day, "Home is X", mixed-script and duration jobs, more ways to say a food limit, allergy
severity words, coffees in the plural, a prohibition of long answers."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.write import WritePipeline
from langgraph_memory.write.slots.dispatch import slot_for
from langgraph_memory.write.slots.holder import health_base, health_holder, held_predicate
from langgraph_memory.write.spans import deadline_value


def _facts(slots: list) -> list[tuple[str, str]]:
    return [(s.predicate, s.object) for s in slots]


@pytest.mark.parametrize(
    ("text", "value", "who"),
    [
        ("My son is allergic to peanuts.", "peanuts", "son"),
        ("my dad can't have sugar", "sugar", "father"),
        ("my 6-year-old daughter can't eat dairy", "dairy", "daughter"),
        ("我老婆对虾过敏", "虾", "wife"),
        ("我妈不吃辣", "辣", "mother"),
        ("My wife 不吃牛肉", "牛肉", "wife"),
        ("我爸吃素", "vegetarian", "father"),  # a canonical value not in the words: whole clause
    ],
)
def test_a_relatives_food_limit_names_the_relative(text: str, value: str, who: str) -> None:
    assert health_holder(text, value) == who


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm allergic to shellfish.", "shellfish"),
        ("My mom says I can't eat gluten anymore.", "gluten"),  # the user again, after mom
        ("我儿子对鸡蛋严重过敏。我自己血压高，医生让少吃盐。", "盐"),  # a new sentence, the user
        ("我对花生过敏", "花生"),
        ("my wife and I are both vegan", "vegan"),
    ],
)
def test_the_users_own_food_limit_stays_the_users(text: str, value: str) -> None:
    assert health_holder(text, value) is None
    assert held_predicate("allergy", text, value) == "allergy"


def test_health_base_and_held_predicate() -> None:
    assert health_base("son_allergy") == "allergy"
    assert health_base("mother_dietary_restriction") == "dietary_restriction"
    assert health_base("diet") == "diet"
    assert health_base("daughter_birthday") is None
    assert held_predicate("allergy", "My son is allergic to peanuts", "peanuts") == "son_allergy"
    assert held_predicate("location", "my son lives in Paris", "Paris") == "location"


def test_a_relatives_allergy_is_a_constraint_record_the_prompt_carries(mem: MemoryStore) -> None:
    """The son's allergen is not stored as the user's own allergy, is still a constraint (what
    the read side injects and checks by kind), and is treated like the user's own limit."""
    from langgraph_memory.graph.nodes.load_memory import always_injected
    from langgraph_memory.read.constraints import active_constraints

    p = WritePipeline(mem)
    p.process_turn("My son is allergic to peanuts.", scope=Scope(user_id="rel"), turn_id="t1",
                   thread_id="th")  # fmt: skip
    p.process_turn("I'm allergic to peanuts.", scope=Scope(user_id="own"), turn_id="t1",
                   thread_id="th")  # fmt: skip
    (son,) = [r for r in mem.list(scope=Scope(user_id="rel")) if r.object == "peanuts"]
    (own,) = [r for r in mem.list(scope=Scope(user_id="own")) if r.object == "peanuts"]
    assert (son.subject, son.predicate, son.kind.value) == ("user", "son_allergy", "constraint")
    assert own.predicate == "allergy"
    assert not [r for r in mem.list(scope=Scope(user_id="rel")) if r.predicate == "allergy"]
    # recalled constraint records are checked and asserted by kind, whatever the predicate
    state = {"recalled": [{"id": son.id, "text": son.text, "kind": son.kind.value}]}
    assert [c.id for c in active_constraints(state)] == [son.id]
    assert isinstance(always_injected(son), bool)


def test_a_relatives_food_limit_in_a_correction_is_stored_as_a_constraint() -> None:
    from langgraph_memory.core.records import Kind
    from langgraph_memory.write.fact_record import stored_kind
    from langgraph_memory.write.types import Candidate

    c = Candidate(subject="user", predicate="daughter_allergy", object="牛奶", text="x",
                  kind="correction")  # fmt: skip
    assert stored_kind(c, None) is Kind.CONSTRAINT


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("It's due by Friday noon.", "Friday noon"),
        ("The deck is due by next Tuesday at 5pm.", "next Tuesday at 5pm"),
        ("deadline is June 3 at 17:00", "June 3 at 17:00"),
        ("报告周五中午前要交", "周五中午"),
        ("截止日期是下周三下午三点", "下周三下午三点"),
        ("Due March 3, morning please", "March 3"),  # a new part is no time of the date
        ("The paper is due by Friday, and I am stressed", "Friday"),
    ],
)
def test_a_deadline_keeps_its_time_of_day(text: str, value: str) -> None:
    assert deadline_value(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Home is Shoreditch these days.", "Shoreditch"),
        ("Home is Shoreditch in London these days.", "Shoreditch"),
        ("Home base is Austin.", "Austin"),
        ("Long story short, I ended up in Montreal after grad school and never left.", "Montreal"),
        ("we ended up in Tucson. So that is home now", "Tucson"),
        ("I live in St. Louis now", "St. Louis"),
    ],
)
def test_home_and_ended_up_in_are_the_location(text: str, value: str) -> None:
    assert ("location", value) in _facts(slot_for("stable_fact", text))


def test_no_location_from_a_home_that_is_no_place_or_a_hospital() -> None:
    assert "location" not in {s.predicate for s in slot_for("stable_fact", "my home is a mess")}
    found = slot_for("stable_fact", "I ended up in the ER last night")
    assert "location" not in {s.predicate for s in found}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("我是 freelance 翻译", "freelance 翻译"),
        ("我是 freelance 设计师", "freelance 设计师"),
        ("我在一家 hospital 当 pharmacist，每天要核对很多处方", "pharmacist"),
        ("我当了三年护士", "护士"),
        ("我干了十年程序员了", "程序员"),
        ("我做了七年的幼儿园老师，现在想转行做儿童教育产品的运营", "幼儿园老师"),
        ("我在律所当律师助理", "律师助理"),
    ],
)
def test_mixed_script_and_duration_jobs(text: str, value: str) -> None:
    assert ("occupation", value) in _facts(slot_for("stable_fact", text))


def test_xianzai_is_no_workplace() -> None:
    found = _facts(slot_for("stable_fact", "我做了七年的幼儿园老师，现在想转行做运营"))
    assert not [f for f in found if f[0] == "employer"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("我胃不好，吃不了辣", ["辣"]),
        ("我吃不了香菜", ["香菜"]),
        ("我是回族，猪肉是不吃的", ["猪肉"]),
        ("我在控糖，甜的基本不碰了", ["甜的"]),
        ("医生交代以后辛辣的一律不能碰。", ["辛辣的"]),
        ("我有痛风，海鲜和啤酒都不能碰", ["海鲜", "啤酒"]),
        ("牛奶我是一口都不能喝", ["牛奶"]),
        ("I have type 1 diabetes so I can't have sugary drinks", ["sugary drinks"]),
        ("我lactose intolerant，推荐吃的别有dairy", ["lactose"]),
        ("我 can't eat 辣的，肠胃不好", ["辣的"]),
        ("I can't eat pork or shellfish", ["pork", "shellfish"]),
    ],
)
def test_more_ways_to_say_what_the_user_cannot_eat(text: str, values: list[str]) -> None:
    assert _facts(slot_for("constraint", text)) == [("dietary_restriction", v) for v in values]


def test_a_described_diet_is_not_split_into_foods() -> None:
    assert _facts(slot_for("constraint", "I don't eat meat or fish")) == [("diet", "vegetarian")]


def test_no_food_from_eating_too_much() -> None:
    found = _facts(slot_for("constraint", "周末我吃不了那么多"))
    assert not [f for f in found if f[0] == "dietary_restriction"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm a pescatarian and I've got a mild peanut allergy", "peanut"),
        ("I have a bad shellfish allergy", "shellfish"),
        ("Pretty severe sesame allergy here", "sesame"),
    ],
)
def test_how_bad_an_allergy_is_is_not_the_allergen(text: str, value: str) -> None:
    assert ("allergy", value) in _facts(slot_for("constraint", text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I drink oat flat whites every morning.", "oat flat whites"),
        ("Matcha lattes are my go-to drink.", "matcha lattes"),
        ("My drink of choice is iced americanos.", "iced americanos"),
        ("I usually have a cortado after lunch", "cortado"),
    ],
)
def test_coffees_in_the_plural(text: str, value: str) -> None:
    found = [(p, v.casefold()) for p, v in _facts(slot_for("preference", text))]
    assert ("drink", value) in found


@pytest.mark.parametrize("text", ["以后回答别太啰嗦", "回答简短点，别整那么长"])
def test_a_prohibition_of_long_answers_is_their_length(text: str) -> None:
    assert _facts(slot_for("constraint", text)) == [("response_length", "concise")]


def test_a_number_limit_stays_a_rule() -> None:
    (rule,) = slot_for("constraint", "Never write more than 100 words.")
    assert (rule.subject, rule.predicate) == ("assistant", "must_not")


def test_in_laws_are_their_own_relation() -> None:
    from langgraph_memory.write.slots.holder import health_holder

    assert health_holder("My mother-in-law is allergic to shellfish", "shellfish") == (
        "mother_in_law"
    )
    assert health_holder("my father in law cannot eat pork", "pork") == "father_in_law"
    assert health_holder("my mother is vegan", "vegan") == "mother"
