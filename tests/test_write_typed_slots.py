"""Typed slots that generalise: values found by their grammar or their type (money and dates
as tokens, proper-name chunking, a Chinese district reduced to its city, described diets),
several slots per clause, junk predicates dropped, and PII formats spoken out or national.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
Pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.core.pii_detect import find_pii
from langgraph_memory.write.extract.values import proper_span
from langgraph_memory.write.segment import zh_city, zh_workplace
from langgraph_memory.write.slots.diet import allergy_slots, described_diet
from langgraph_memory.write.slots.dispatch import slot_for
from langgraph_memory.write.slots.shape import meaningful_predicate
from langgraph_memory.write.slots.triggers import trigger_slots
from langgraph_memory.write.spans import budget_value, deadline_value, money_spans

from .conftest import current_slots


# ---------------------------------------------------------------- money and dates as tokens
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The offsite can cost at most $4,800, not $5,200.", "$4,800"),  # not "$4"
        ("I'd like to stay below €950 for the flights", "€950"),
        ("budget's roughly 12k for the kitchen", "12k"),
        ("装修预算不超过八万", "八万"),
        ("这次活动预算3000元以内", "3000元"),
    ],
)
def test_a_budget_is_its_amount_as_one_token(text: str, want: str) -> None:
    assert budget_value(text) == want


def test_money_spent_or_words_counted_is_no_budget() -> None:
    assert budget_value("I spent $300 on shoes yesterday") is None
    assert budget_value("keep it under 200 words") is None
    assert money_spans("it was $1,250.50 in total") == ["$1,250.50"]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The grant proposal is due April 9", "April 9"),
        ("we have to deliver the mockups by next Thursday", "next Thursday"),
        ("论文必须在月底前交", "月底"),
        ("项目11月20号上线", "11月20号"),
    ],
)
def test_a_deadline_is_its_date(text: str, want: str) -> None:
    assert deadline_value(text) == want


def test_a_past_date_or_the_verb_may_is_no_deadline() -> None:
    assert deadline_value("I finished it last Friday") is None
    assert deadline_value("we may ship something else") is None


# ---------------------------------------------------------------- names stop where they stop
@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("Lyon in the autumn", "Lyon"),
        ("Globex as a product owner", "Globex"),
        ("Porto and work", "Porto"),
        ("Trinidad and Tobago", "Trinidad and Tobago"),
        ("St. Mary's hospital", "St. Mary's hospital"),
        ("Hamburg, Germany", "Hamburg"),
        ("lowercase city now", "lowercase city now"),  # typed in lowercase: unchanged
    ],
)
def test_a_proper_name_ends_at_the_first_lowercase_word(value: str, want: str) -> None:
    assert proper_span(value) == want


def test_a_chinese_district_is_reduced_to_its_city_and_an_org_follows_its_city() -> None:
    assert zh_city("广州天河区") == "广州"
    assert zh_city("上海浦东新区") == "上海"
    assert zh_city("朝阳区") == "朝阳区"  # a district said alone stays
    assert zh_workplace("南京的苏宁") == ("employer", "苏宁")
    assert zh_workplace("一家外企") is None  # described, not named


# ---------------------------------------------------------------- described diets
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I never eat meat or seafood", "vegetarian"),
        ("no animal products for me at all", "vegan"),
        ("I'm fine with fish, but no other meat", "pescatarian"),
        ("肉和鱼我都不吃", "vegetarian"),
        ("我不吃肉，但是吃鱼", "pescatarian"),
        ("I don't eat lamb", None),  # one food avoided: a dietary restriction
    ],
)
def test_a_described_diet_gets_its_name(text: str, want: str | None) -> None:
    assert described_diet(text) == want


# ---------------------------------------------------------------- one clause, several slots
def test_a_fact_clause_names_every_typed_value() -> None:
    slots = {(s.predicate, s.object) for s in trigger_slots("我在 Spotify 做 data analyst")}
    assert ("employer", "Spotify") in slots
    got = {(s.predicate, s.object) for s in trigger_slots("去年跳槽到了小红书，做运营")}
    assert ("employer", "小红书") in got
    named = {(s.predicate, s.object) for s in trigger_slots("我是李静，有事找我")}
    assert ("name", "李静") in named
    jobs = {(s.predicate, s.object) for s in trigger_slots("I'm a locksmith, mostly nights")}
    assert ("occupation", "locksmith") in jobs
    assert not [s for s in trigger_slots("I'm a morning person") if s.predicate == "occupation"]


def test_allergens_stop_before_examples_and_qualifiers() -> None:
    assert [s.object for s in allergy_slots("allergic to sesame — tahini, hummus, all of it")] == [
        "sesame"
    ]
    assert [s.object for s in allergy_slots("slight allergy to latex, in case")] == ["latex"]
    assert [s.object for s in allergy_slots("我而且对芒果过敏")] == ["芒果"]


def test_junk_predicates_are_no_attributes() -> None:
    for junk in ("对了我", "以前", "oops", "se", "y", "少打了个_size"):
        assert not meaningful_predicate(junk), junk
    for ok in ("daughter_birthday", "cloud_region", "团队_size", "专业"):
        assert meaningful_predicate(ok), ok
    assert all(s.object != "的" for s in slot_for("preference", "我喜欢的"))


# ---------------------------------------------------------------- PII formats
@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("mail me: sam dot lee at example dot org", "sam dot lee at example dot org", "email"),
        ("reach me via kim_park at example.com", "kim_park at example.com", "email"),
        ("call me on 020 7946 0321 after six", "020 7946 0321", "phone"),
        ("my mobile is 06 11 22 33 44", "06 11 22 33 44", "phone"),
    ],
)
def test_spoken_emails_and_national_phones_are_found(text: str, value: str, kind: str) -> None:
    assert (value, kind) in [(text[a:b], k) for a, b, k in find_pii(text)]


def test_a_name_at_a_domain_without_a_spelled_dot_is_no_email() -> None:
    assert find_pii("I work at acme.com now") == []


# ---------------------------------------------------------------- through the write path
def test_typed_values_reach_the_store_en(mem: MemoryStore) -> None:
    got = current_slots(mem, "u-en", ["We can spend up to $3,200 on the venue, not $3,500."])
    assert ("budget", "$3,200") in got
    got = current_slots(mem, "u-en2", ["I don't eat meat or fish."])
    assert ("diet", "vegetarian") in got


def test_typed_values_reach_the_store_zh(mem: MemoryStore) -> None:
    got = current_slots(mem, "u-zh", ["我住在广州天河区。"])
    assert ("location", "广州") in got


def test_typed_values_reach_the_store_mixed(mem: MemoryStore) -> None:
    got = current_slots(mem, "u-mx", ["我现在在 Airbnb 做 backend engineer。"])
    assert ("employer", "Airbnb") in got


def test_a_spoken_email_never_reaches_the_store(mem: MemoryStore) -> None:
    got = current_slots(mem, "u-pii", ["my email is ana dot ruiz at example dot com, I'm a chef"])
    assert ("occupation", "chef") in got
    assert not any("ruiz" in obj for _, obj in got)
