"""Slot values: said as the user said them and bounded where they stop, open attributes, and
corrections that hit the record they name (or the previous turn's).

Every utterance here is written for these tests (none comes from the dev or held-out sets).
The write path runs for real: real store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import logging

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.write.lexicon import canonical_value
from langgraph_memory.write.segment import topic_surface
from langgraph_memory.write.slots.dispatch import fact_slots, slot_for
from langgraph_memory.write.slots.preference import constraint_slot, timezone_slot
from langgraph_memory.write.slots.shape import correction_slot
from langgraph_memory.write.slots.typed import typed_slot


def _facts(slots) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(s.predicate, s.object) for s in slots]


def _current(mem: MemoryStore, scope: Scope, predicate: str) -> list[str]:
    return [r.object or "" for r in mem.list(scope=scope, filters={"predicate": predicate})]


def _run(mem: MemoryStore, user: str, turns: list[str]) -> None:
    pipeline = WritePipeline(mem)
    for i, text in enumerate(turns):
        pipeline.process_turn(text, scope=Scope(user_id=user), turn_id=f"t{i}", thread_id="th")


# ---------------------------------------------------------------- values as said
@pytest.mark.parametrize(
    ("text", "predicate", "canonical", "said"),
    [
        ("My usual is a jasmine green tea", "drink", "tea", "jasmine green tea"),
        ("周末一般喝冰拿铁", "drink", "coffee", "冰拿铁"),
        ("a cappuccino before standup", "drink", "coffee", "cappuccino"),
        ("the prod box runs Debian 12", "operating_system", "Debian", "Debian 12"),
        ("we pinned MariaDB 10.6", "database", "MariaDB", "MariaDB 10.6"),
        ("迁到 Postgres 16 了", "database", "PostgreSQL", "Postgres 16"),  # its name, as said
        ("我还是喝咖啡", "drink", "coffee", "咖啡"),  # as said, the concept beside it
        ("界面我要深色主题", "ui_theme", "dark", "dark"),  # a canonical-valued topic
        ("最爱吃粤菜", "cuisine", "Cantonese", "粤菜"),  # cuisines as said
    ],
)
def test_topic_value_is_said_with_its_canonical_beside(
    text: str, predicate: str, canonical: str, said: str
) -> None:
    value, canon = topic_surface(text, predicate, canonical)
    assert value == said
    assert canon.split(" ")[0] == canonical


def test_the_most_specific_mention_wins_and_a_switch_names_the_old_value() -> None:
    slot = typed_slot("茶我只喝普洱")
    assert slot is not None and (slot.predicate, slot.object) == ("drink", "普洱")
    slot = typed_slot("Went from PyCharm to Helix over the holidays")
    assert slot is not None and (slot.predicate, slot.object, slot.corrects) == (
        "editor",
        "Helix",
        "PyCharm",
    )


def test_canonical_form_of_a_stored_value() -> None:
    assert canonical_value("drink", "冰拿铁") == "coffee"
    assert canonical_value("database", "Postgres 16") == "PostgreSQL 16"
    assert canonical_value("speaks", "普通话") == "Chinese"
    assert canonical_value("pet_name", "Biscuit") is None


def test_record_keeps_the_words_and_the_canonical_and_supersedes_across_forms(
    mem: MemoryStore,
) -> None:
    scope = Scope(user_id="drinker")
    _run(mem, "drinker", ["I love a cold brew in summer", "Actually I prefer tea now"])
    (rec,) = mem.list(scope=scope, filters={"predicate": "drink"})
    assert rec.object == "tea"
    (old,) = [
        r
        for r in mem.history(scope=scope, subject="user", predicate="drink")
        if r.object == "cold brew"
    ]
    assert old.metadata["canonical"] == "coffee" and old.valid_to is not None


# ---------------------------------------------------------------- bounded values
@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Our fallback region is ap-south-1", ("fallback_region", "ap-south-1")),
        ("The backend is FastAPI 0.110, mostly async", ("backend", "FastAPI 0.110")),
        ("My brother has celiac disease, so dinners are tricky", ("brother_has", "celiac disease")),
        ("My niece's school is Oakwood Primary", ("niece_school", "Oakwood Primary")),
        ("Billing runs through Stripe for every region", ("uses", "Stripe")),
        ("我的专业是材料科学，明年毕业", ("major", "材料科学")),
        ("我们的消息队列用的是 Kafka", ("message_queue", "Kafka")),
        ("我家兔子叫年糕，特别能吃", ("pet_name", "年糕")),  # the guide: a pet's name is pet_name
        ("我表姐叫阿雯", ("表姐", "阿雯")),
        ("我们组一共九个人", ("组_size", "九个人")),
        ("儿子今年6岁", ("son_age", "6岁")),
        ("We build with Bazel + Nix", ("build_with", "Nix")),
    ],
)
def test_open_attribute_and_its_bounded_value(text: str, fact: tuple[str, str]) -> None:
    assert fact in _facts(fact_slots(text)), _facts(fact_slots(text))


def test_a_clause_with_no_value_shape_stays_a_note() -> None:
    assert _facts(fact_slots("work has been slow lately")) == [
        ("note", "work has been slow lately")
    ]
    assert _facts(fact_slots("已经不在原来的组了")) == [("note", "已经不在原来的组")]


def test_timezones_languages_and_what_the_user_cannot_eat() -> None:
    assert timezone_slot("fyi I'm on MST") is not None
    assert timezone_slot("我这边是东九区") is not None
    assert timezone_slot("I love the pacific coast") is None
    # dialects are languages spoken (and asked answers in): each is a value
    assert _facts(fact_slots("我会说闽南话和粤语")) == [("speaks", "闽南话"), ("speaks", "粤语")]
    assert _facts(fact_slots("I speak Dutch and a little Swedish")) == [
        ("speaks", "Dutch"),
        ("speaks", "Swedish"),
    ]
    for text, value in [
        ("I can't eat shellfish, it makes me ill", "shellfish"),
        ("医生不让我吃海鲜了", "海鲜"),
        ("I'm dairy-free these days", "dairy"),
    ]:
        slot = constraint_slot(text)
        assert slot is not None and (slot.predicate, slot.object) == (
            "dietary_restriction",
            value,
        ), text
    rule = constraint_slot("no exclamation marks in the release notes please")
    assert rule is not None and rule.predicate == "must_not"


# ---------------------------------------------------------------- corrections
@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("ugh, typo: Graz, not Linz", "Graz", "Linz"),
        ("打错了，是糯米不是米糕", "糯米", "米糕"),
        ("不是江西，是广西", "广西", "江西"),
        ("Not hazelnuts - almonds.", "almonds", "hazelnuts"),
    ],
)
def test_correction_slot_names_new_and_old(text: str, new: str, old: str) -> None:
    slot = correction_slot(text)
    assert slot is not None and (slot.predicate, slot.object, slot.corrects) == ("", new, old)


def test_bare_corrected_value_after_a_switch_word() -> None:
    assert _facts(slot_for("correction", "说错了，改到下周三了")) == [("", "下周三")]


def test_correction_of_a_generic_attribute_hits_its_owners_record(
    mem: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="langgraph_memory.write")
    scope = Scope(user_id="sib")
    _run(mem, "sib", ["My sister's name is Ana.", "typo, it's Anna with two n's"])
    assert _current(mem, scope, "sister_name") == ["Anna"]
    assert _current(mem, scope, "name") == []
    assert any("retracted record" in r.getMessage() for r in caplog.records)


def test_correction_naming_the_old_value_retracts_that_record(mem: MemoryStore) -> None:
    scope = Scope(user_id="dog")
    _run(mem, "dog", ["我家狗叫豆包", "打错了，叫豆豆不是豆包"])
    assert _current(mem, scope, "pet_name") == ["豆豆"]


def test_bare_correction_takes_the_previous_turns_record(mem: MemoryStore) -> None:
    scope = Scope(user_id="gf")
    _run(mem, "gf", ["我女朋友叫小敏", "打错了，是小闵"])
    assert _current(mem, scope, "girlfriend_name") == ["小闵"]


def test_switch_retracts_the_old_drink(mem: MemoryStore) -> None:
    scope = Scope(user_id="tea")
    _run(mem, "tea", ["我喜欢喝红茶", "其实红茶喝多了睡不着，已经换成普洱了"])
    assert _current(mem, scope, "drink") == ["普洱"]


def test_correction_matching_nothing_keeps_the_users_words(mem: MemoryStore) -> None:
    scope = Scope(user_id="none")
    report = WritePipeline(mem).process_turn(
        "不是周二，是周四", scope=scope, turn_id="t1", thread_id="th"
    )
    (decision,) = [d for d in report.decisions if d.action == "inserted"]
    assert decision.candidate.predicate == "note" and "周四" in decision.candidate.object
    assert "nothing matches" in decision.reason


def test_a_liking_stops_before_its_reason_or_comparison() -> None:
    from langgraph_memory.write.slots.model import bound_liking

    assert bound_liking("window seats way more than aisle ones") == "window seats"
    assert bound_liking("async updates — saves everyone a meeting") == "async updates"
    assert bound_liking("jazz") == "jazz"


def test_several_languages_pets_and_a_left_city() -> None:
    from langgraph_memory.core import Evidence
    from langgraph_memory.write.extract.rule_extractor import RuleExtractor

    spoken = RuleExtractor().extract("我会说潮汕话和普通话", evidence=Evidence())
    assert [(c.predicate, c.object) for c in spoken] == [("speaks", "潮汕话"), ("speaks", "普通话")]
    spoken = RuleExtractor().extract("我会说法语和德语", evidence=Evidence())
    assert [(c.predicate, c.object) for c in spoken] == [("speaks", "法语"), ("speaks", "德语")]
    assert ("pet", "rabbit") in _facts(fact_slots("we have three dogs and a rabbit"))
    assert ("location", "杭州") not in _facts(fact_slots("我早就不在杭州了"))


# ---------------------------------------------------------------- typed slots by meaning
@pytest.mark.parametrize(
    ("kind", "text", "want"),
    [
        # en: answer length, theme, tools named by a common word, cuisines, pets, jobs
        ("preference", "Keep replies tight and to the point, I read on my phone", "concise"),
        ("preference", "When you explain things, go deep, I don't mind long reads", "detailed"),
        ("preference", "dark-theme everything for me", "dark"),
        ("stable_fact", "The service itself is written in Go", "Go"),
        ("stable_fact", "i daily-drive arch on my laptop", "Arch"),
        ("preference", "Ethiopian food is my favourite cuisine", "Ethiopian"),
        ("stable_fact", "we adopted a sweet beagle named Pickle", "beagle"),
        ("stable_fact", "I teach middle school biology", "biology teacher"),
        ("stable_fact", "I'm originally from a village outside Cork", "Cork"),
        # zh: jieba-bounded places, hometown/location cues, jobs, pets, answer length
        ("preference", "以后回答别啰嗦，挑重点说", "concise"),
        ("preference", "解释的时候越细越好，我不赶时间", "detailed"),
        ("stable_fact", "老家是山东青岛的", "青岛"),
        ("stable_fact", "来杭州都三年多了", "杭州"),
        ("stable_fact", "去年转行做了产品经理", "产品经理"),
        ("stable_fact", "我家那只萨摩耶特别能吃", "萨摩耶"),
        ("preference", "我最爱吃东北菜", "东北菜"),
        # mixed: an English job or tool inside a Chinese sentence
        ("stable_fact", "我现在在一家 agency 做 UX designer", "UX designer"),
        ("stable_fact", "我们服务端主要写 Go", "Go"),
    ],
)
def test_typed_value_named_in_words_no_rule_lists(kind: str, text: str, want: str) -> None:
    slots = slot_for(kind, text)
    assert any(s.object == want for s in slots), (text, _facts(slots))
    typed = {
        "concise": "response_length",
        "detailed": "response_length",
        "dark": "ui_theme",
    }.get(want)
    if typed:
        assert (typed, want) in _facts(slots)


def test_several_values_in_one_clause_and_where_each_stops() -> None:
    assert _facts(slot_for("constraint", "I'm allergic to walnuts, pecans and kiwi.")) == [
        ("allergy", "walnuts"),
        ("allergy", "pecans"),
        ("allergy", "kiwi"),
    ]
    assert _facts(slot_for("constraint", "我对花生和芒果过敏")) == [
        ("allergy", "花生"),
        ("allergy", "芒果"),
    ]
    corrected = slot_for("constraint", "更正一下，过敏的是桃子，苹果没事")
    assert _facts(corrected) == [("allergy", "桃子")]
    assert _facts(slot_for("stable_fact", "我是成都人，现在住在苏州")) == [
        ("hometown", "成都"),
        ("location", "苏州"),
    ]
    # an obligation naming a tool keeps the rule and gains the tool
    rule = _facts(slot_for("constraint", "以后测试统一用 pytest 写"))
    assert rule[0] == ("test_framework", "pytest") and rule[1][0] == "must"
    # "不碰了" names nothing eaten; a word that is not an answer-length cue stays out
    assert all(p != "dietary_restriction" for p, _ in rule)
    assert typed_slot("We go for long walks on Sundays") is None
    assert typed_slot("a short trip to Lisbon next week") is None


def test_values_as_said_keep_the_canonical_beside_them(mem: MemoryStore) -> None:
    """Timezones and drinks are stored as said (the guide's rule); the canonical form beside
    them still lets another spelling supersede them."""
    alice = Scope(user_id="alice-tz")
    _run(mem, "alice-tz", ["我的时区是东八区", "Actually my timezone is UTC+9 now"])
    assert _current(mem, alice, "timezone") == ["UTC+9"]
    bob = Scope(user_id="bob-tz")
    _run(mem, "bob-tz", ["I'm in PST"])
    (rec,) = mem.list(scope=bob, filters={"predicate": "timezone"})
    assert rec.object == "PST" and rec.metadata.get("canonical") == "UTC-8"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I can't have gluten, sadly", "gluten"),
        ("no shellfish for me thanks", "shellfish"),
        ("my GP put me on a low-sugar diet", "low-sugar"),
        ("花生我一点都不能碰", "花生"),
        ("去年戒了酒", "酒"),
        ("医生让我少油", "油"),
    ],
)
def test_what_the_user_cannot_eat_in_other_words(text: str, value: str) -> None:
    assert ("dietary_restriction", value) in _facts(slot_for("constraint", text)), text


def test_a_limit_that_names_no_food_is_not_a_diet() -> None:
    for text in ("晚上不能吃太多", "I can't have meetings before 10"):
        assert all(p != "dietary_restriction" for p, _ in _facts(slot_for("constraint", text)))


def test_a_name_introduced_and_a_place_based_in() -> None:
    assert ("name", "Priya") in _facts(fact_slots("Hi, this is Priya."))
    assert ("name", "Marco") in _facts(fact_slots("I'm Marco — backend lead here"))
    assert all(p != "name" for p, _ in _facts(fact_slots("I'm Sorry, wrong chat")))
    assert ("location", "Lisbon") in _facts(fact_slots("btw I'm Lisbon-based these days"))


def test_a_language_named_in_a_preference_is_the_answer_language_unless_it_is_about_more() -> None:
    from langgraph_memory.write.slots.preference import preference_slot

    for text, lang in [("还是用日文吧", "Japanese"), ("German is fine from here", "German")]:
        slot = preference_slot(text)
        assert slot is not None and (slot.predicate, slot.object) == ("answer_language", lang)
    for text in ("korean bbq is my absolute fave", "我喜欢看韩剧", "I love French films"):
        slot = preference_slot(text)
        assert slot is None or slot.predicate != "answer_language", text
    bbq = preference_slot("korean bbq is my absolute fave")
    assert bbq is not None and (bbq.predicate, bbq.object) == ("cuisine", "korean bbq")
