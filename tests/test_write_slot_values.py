"""Slot values that generalise past the rules' wording: the current value of an attribute said
with an old one ("now", "used to", "以前…现在"), corrections that name both values in casual
words, holidays as due dates, jobs said with their organisation or as a promotion, labelled
values, values that stop before chatty tails or start at a Chinese word's start, and several
corrections in one turn.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
Pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.matching import names_value
from langgraph_memory.write.slots.dispatch import fact_slots
from langgraph_memory.write.slots.shape import correction_slot
from langgraph_memory.write.slots.triggers import trigger_slots
from langgraph_memory.write.slots.typed import typed_slot
from langgraph_memory.write.spans import budget_value, deadline_value

from .conftest import current_slots


def _pairs(text: str) -> set[tuple[str, str]]:
    return {(s.predicate, s.object) for s in fact_slots(text)}


# ---------------------------------------------------------------- the current value
@pytest.mark.parametrize(
    ("text", "predicate", "want"),
    [
        ("spent a decade on Perl, these days it's mostly Python", "programming_language", "Python"),
        ("used to be a Fedora person, I'm on Debian now", "operating_system", "Debian"),
        ("I quit emacs ages ago", "editor", None),  # a past value only: nothing current
        ("tried Sublime for a month, went back. Vim now", "editor", "vim"),
        ("以前我们用 Oracle，现在统一用 PostgreSQL", "database", "PostgreSQL"),
        ("之前写了很多年 PHP，目前主要写 Go", "programming_language", "Go"),
    ],
)
def test_the_value_said_to_hold_now_is_the_current_one(
    text: str, predicate: str, want: str | None
) -> None:
    slot = typed_slot(text)
    if want is None:
        assert slot is None or slot.predicate != predicate
    else:
        assert slot is not None and (slot.predicate, slot.object.casefold()) == (
            predicate,
            want.casefold(),
        )


def test_a_judged_tool_is_no_answer_length() -> None:
    """ "Java is way too verbose" judges a language; it asks nothing of the answers."""
    from langgraph_memory.write.extract.rules_answer import RULES

    def lengths(text: str) -> list[str]:
        out = []
        for pattern, build in RULES:
            m = pattern.search(text)
            hit = build(m, False) if m else None
            if hit is not None and hit.predicate == "response_length":
                out.append(hit.object)
        return out

    assert lengths("for scripts I'd pick Ruby, Perl is too verbose") == []
    assert lengths("Rust 太啰嗦了") == []
    assert lengths("your answers are too long") == ["concise"]


# ---------------------------------------------------------------- corrections
@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("oh no, it's fish tacos, not burritos", "fish tacos", "burritos"),
        ("I said Porto before but it's actually Braga", "Braga", "Porto"),
        ("改一下，我是在美团不是在饿了么", "美团", "饿了么"),
        ("更正：我是在 Netflix 不是在 Hulu", "Netflix", "Hulu"),
    ],
)
def test_a_correction_names_its_new_and_old_value(text: str, new: str, old: str) -> None:
    slot = correction_slot(text)
    assert slot is not None and (slot.object, slot.corrects) == (new, old)


def test_a_quoted_value_with_a_word_more_names_the_stored_one() -> None:
    assert names_value("light mode", "light")
    assert names_value("MySQL", "MySQL 8.0")
    assert not names_value("dark", "light")


# ---------------------------------------------------------------- dates, money, jobs
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the grant report is due the Monday after Easter", "the Monday after Easter"),
        ("the beta must ship before Halloween", "Halloween"),
        ("the pilot ships in Q4 but the demo is due by Christmas Eve", "Christmas Eve"),
        ("论文元旦前要交", "元旦前"),
        ("活动必须在双11之前上线", "双11之前"),
    ],
)
def test_a_holiday_is_a_due_date(text: str, want: str) -> None:
    assert deadline_value(text) == want


def test_money_in_words_and_mixed_text_is_a_budget() -> None:
    assert budget_value("the budget for the bike is about nine hundred dollars") == (
        "nine hundred dollars"
    )
    assert budget_value("旅行budget大概两万") == "两万"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "I begin at Vandelay next month as their first data engineer",
            {("employer", "Vandelay"), ("occupation", "data engineer")},
        ),
        ("i wrk at Initrode as a sre", {("employer", "Initrode"), ("occupation", "sre")}),
        ("just got promoted to engineering manager!!", {("occupation", "engineering manager")}),
        ("我是顺丰的仓库主管", {("employer", "顺丰"), ("occupation", "仓库主管")}),
        ("在一家叫青柠科技的公司上班", {("employer", "青柠科技")}),
        ("刚升职成了产品总监", {("occupation", "产品总监")}),
        ("上周搬去Melbourne了", {("location", "Melbourne")}),
    ],
)
def test_jobs_and_organisations_by_their_shape(text: str, want: set[tuple[str, str]]) -> None:
    assert want <= {(s.predicate, s.object) for s in trigger_slots(text)}


def test_labelled_values_and_stated_attributes() -> None:
    assert ("occupation", "night nurse") in _pairs("Job: night nurse")
    assert ("editor", "Helix") in _pairs("编辑器是Helix")
    got = _pairs("我现在在 Oslo 上班，company 是 Kahoot，job title 是 QA lead")
    assert ("employer", "Kahoot") in got and ("employer", "Oslo") not in got


def test_values_stop_before_chatty_tails_and_start_at_a_word() -> None:
    assert ("name", "Odile") in _pairs("my name's Odile lol")
    cuisine = typed_slot("我最爱江浙菜，清淡")
    assert cuisine is not None and cuisine.object == "江浙菜"
    drink = typed_slot("我还是喝咖啡")
    assert drink is not None and drink.object == "咖啡"  # "喝" is no part of the drink


# ---------------------------------------------------------------- the real write path
def test_current_values_reach_the_store_en(mem: MemoryStore) -> None:
    got = current_slots(mem, "en", ["I wrote Ruby for years but these days it's mostly Elixir"])
    assert ("programming_language", "Elixir") in got
    assert ("programming_language", "Ruby") not in got


def test_current_values_reach_the_store_zh(mem: MemoryStore) -> None:
    got = current_slots(mem, "zh", ["我以前一直用 MySQL，现在我们主要用 MongoDB"])
    assert ("database", "MongoDB") in got and ("database", "MySQL") not in got


def test_a_casual_correction_hits_the_record_it_names_mixed(mem: MemoryStore) -> None:
    got = current_slots(
        mem, "mixed", ["我在 Google 上班。", "纠正一下，我是在 Amazon 不是在 Google"]
    )
    assert ("employer", "Amazon") in got and ("employer", "Google") not in got


def test_two_corrections_in_one_turn_both_apply(mem: MemoryStore) -> None:
    got = current_slots(
        mem,
        "two",
        [
            "I'm in CET.",
            "that's wrong, I'm on Eastern time. I was in Berlin for a conference when I said"
            " that. back home in Boston now",
        ],
    )
    assert ("timezone", "CET") not in got
    assert ("location", "Boston") in got


def test_each_part_of_a_long_clause_states_its_own_value() -> None:
    from langgraph_memory.write.slot_candidates import part_slots

    zh = {(s.predicate, s.object) for s in part_slots("我做后端的，主要写Kotlin，编辑器是Zed")}
    assert ("editor", "Zed") in zh
    en = {
        (s.predicate, s.object) for s in part_slots("I'm a vet in Perth, and I'm on Atlantic time")
    }
    assert ("timezone", "Atlantic time") in en
    mixed = {(s.predicate, s.object) for s in part_slots("我在Grab做PM，家里有只dog叫Bao")}
    assert ("pet", "dog") in mixed
    assert part_slots("编辑器是Zed") == []  # one part: the clause's own reading


def test_a_long_turn_keeps_every_value_zh(mem: MemoryStore) -> None:
    got = current_slots(mem, "long", ["先说下背景：我是做测试的，主要写Python，编辑器是PyCharm。"])
    assert ("editor", "PyCharm") in got and ("programming_language", "Python") in got


def test_a_restated_old_value_stays_withdrawn(mem: MemoryStore) -> None:
    got = current_slots(
        mem, "re", ["I use nano for everything.", "correction: helix, not nano. why did I say nano"]
    )
    assert ("editor", "nano") not in got


def test_a_lifted_food_leaves_the_described_diet(mem: MemoryStore) -> None:
    got = current_slots(
        mem, "diet", ["I'm vegetarian.", "small update: fish is fine now, still no meat"]
    )
    assert ("diet", "pescatarian") in got and ("diet", "vegetarian") not in got


@pytest.mark.parametrize(
    ("text", "predicate", "want"),
    [
        ("茶只喝乌龙，绿茶太涩", "drink", "乌龙"),
        ("I'd go with Kotlin, Scala is way too complicated", "programming_language", "Kotlin"),
        ("写后端我偏好 Go，PHP 太乱了", "programming_language", "Go"),
    ],
)
def test_a_value_judged_away_is_not_the_users(text: str, predicate: str, want: str) -> None:
    slot = typed_slot(text)
    assert slot is not None and (slot.predicate, slot.object) == (predicate, want)


def test_a_preferred_tool_named_by_a_common_word_and_a_job_said_with_its_verb(
    mem: MemoryStore,
) -> None:
    got = current_slots(mem, "go", ["写服务我偏好 Go，Ruby 太慢了", "我是做跨境物流的"])
    assert ("programming_language", "Go") in got
    assert ("response_length", "concise") not in got
    assert any(p == "occupation" and not o.startswith("做") for p, o in got)


def test_a_language_said_to_be_fine_again_is_the_answer_language(mem: MemoryStore) -> None:
    got = current_slots(
        mem, "lang", ["Please answer in Dutch from now on.", "forget that, English is fine"]
    )
    assert ("answer_language", "English") in got and ("answer_language", "Dutch") not in got


def test_a_job_at_an_organisation_said_as_a_part_and_emoji_tails() -> None:
    assert ("occupation", "staff data engineer") in {
        (s.predicate, s.object)
        for s in trigger_slots("I'm Ana — staff data engineer at Globex, hi")
    }
    assert ("birthday", "4th of May") in _pairs("my birthday is the 4th of May 🎂🎉")
    slot = typed_slot("switched editors, it's Zed now, Sublime got way too slow")
    assert slot is not None and (slot.predicate, slot.object) == ("editor", "Zed")


def test_an_offset_timezone_is_one_value_and_approximate_amounts_are_no_hedge() -> None:
    from langgraph_memory.write.extract.markers import is_hedged

    assert ("timezone", "UTC+8") in _pairs("base在Singapore，timezone是UTC+8")
    assert not is_hedged("budget 大概 40k USD")
    assert is_hedged("我大概会换工作")
    slot = typed_slot("我们 project 从 MongoDB migrate 到 MySQL 8 了")
    assert slot is not None and (slot.predicate, slot.object) == ("database", "MySQL 8")
