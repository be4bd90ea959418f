"""Slot exact-match on the write path (issue 12): values said as additions keep the earlier
ones, a real switch still replaces; obfuscated e-mails, texted numbers and door codes are
redacted before anything is stored.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
Pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.core.redact import Redactor
from langgraph_memory.write.lexicon import adds_value, language_of
from langgraph_memory.write.slots.dispatch import fact_slots
from langgraph_memory.write.slots.triggers import trigger_slots
from langgraph_memory.write.slots.typed import typed_slot

from .conftest import current_slots


# ---------------------------------------------------------------- additions
@pytest.mark.parametrize(
    ("clause", "adds"),
    [
        ("I also drink matcha these days", True),
        ("and oolong too", True),
        ("我还喜欢喝酸奶", True),
        ("也养了一只兔子", True),
        ("另外我也写 Kotlin", True),
        ("I switched from oolong to matcha", False),  # a switch replaces
        ("改成喝酸奶了", False),
        ("还是用日语吧", False),  # 还是: "rather", not "also"
        ("我还在 Initech 上班", False),  # 还在: "still"
        ("I drink matcha", False),
    ],
)
def test_an_additive_marker_without_a_switch_adds(clause: str, adds: bool) -> None:
    assert adds_value(clause) is adds


def test_an_added_drink_keeps_the_earlier_one(mem: MemoryStore) -> None:
    slots = current_slots(mem, "add-drink", ["I like green tea.", "I also drink matcha now"])
    assert {("drink", "green tea"), ("drink", "matcha")} <= slots


def test_an_added_language_keeps_the_earlier_one(mem: MemoryStore) -> None:
    slots = current_slots(mem, "add-lang", ["I write Elixir", "I also write Kotlin"])
    assert {("programming_language", "Elixir"), ("programming_language", "Kotlin")} <= slots


def test_a_switch_still_replaces(mem: MemoryStore) -> None:
    turns = ["I drink green tea", "I switched from green tea to matcha"]
    slots = current_slots(mem, "switch", turns)
    assert ("drink", "matcha") in slots and ("drink", "green tea") not in slots


def test_two_drinks_in_one_turn_are_both_kept(mem: MemoryStore) -> None:
    """ "X, and I also like Y": the second value is extracted too, and neither of the two
    supersedes the other."""
    turns = ["Mostly I run on espresso, and I also like green tea"]
    slots = current_slots(mem, "two-drinks", turns)
    assert {("drink", "espresso"), ("drink", "green tea")} <= slots


def test_an_added_zh_drink_in_a_second_part(mem: MemoryStore) -> None:
    slots = current_slots(mem, "zh-drinks", ["我喜欢喝红茶。", "我喜欢喝红茶，还有奶茶也爱喝"])
    assert {("drink", "红茶"), ("drink", "奶茶")} <= slots


def test_an_added_value_is_recorded_as_one_of_several(mem: MemoryStore) -> None:
    pipeline = WritePipeline(mem)
    scope = Scope(user_id="add-meta")
    pipeline.process_turn("I like green tea.", scope=scope, turn_id="t0", thread_id="th")
    report = pipeline.process_turn("I also drink matcha", scope=scope, turn_id="t1", thread_id="th")
    added = [d for d in report.decisions if d.candidate.object == "matcha"]
    assert added and added[0].action == "inserted" and added[0].candidate.adds
    record = mem.get(added[0].record_id or "", scope=scope)
    assert record.metadata.get("added") is True and record.metadata["multi_valued"] is True


# ---------------------------------------------------------------- PII never stored
@pytest.mark.parametrize(
    ("text", "raw", "kind"),
    [
        ("send the invoice to jdoe#example.com please", "jdoe#example.com", "email"),
        ("mail it to jdoe at example dot com", "jdoe at example dot com", "email"),
        ("write a text to my plumber at 555-0199 about friday", "555-0199", "phone"),
        ("the door code is 7719, ring twice", "7719", "password"),
        ("gate code: 3302#", "3302#", "password"),
        ("楼下门禁码是 5521", "5521", "password"),
        ("pw for the guest wifi is lemon77", "lemon77", "password"),
    ],
)
def test_obfuscated_and_spoken_identifiers_are_redacted(text: str, raw: str, kind: str) -> None:
    result = Redactor().redact(text)
    assert raw not in result.text
    assert kind in result.types


@pytest.mark.parametrize(
    "text",
    [
        "I write C# and read python.org daily",
        "#rustlang is trending",
        "this text is 555-0100 words long",
        "the access code review is on Monday",
    ],
)
def test_no_false_identifiers(text: str) -> None:
    assert Redactor().redact(text).text == text


def test_a_door_code_never_reaches_a_record(mem: MemoryStore) -> None:
    pipeline = WritePipeline(mem)
    scope = Scope(user_id="door")
    pipeline.process_turn("我家门禁码是 8846，记一下", scope=scope, turn_id="t0", thread_id="th")
    stored = [r.model_dump_json() for r in mem.list(scope=scope, include_internal=True)]
    assert not any("8846" in s for s in stored)


# ---------------------------------------------------------------- answer length
@pytest.mark.parametrize(
    ("turn", "want"),
    [
        ("回复短点吧，我在地铁上看", "concise"),
        ("answers 短一点吧, 屏幕太小", "concise"),
        ("gimme the gist, skip the background", "concise"),
        ("two or three sentences is plenty for me from now on", "concise"),
        ("I'd like you to go in depth when you explain things", "detailed"),
        ("讲原理的时候尽量讲细一点", "detailed"),
        ("explain 的时候 detailed 一点", "detailed"),
    ],
)
def test_answer_length_phrases_are_stored(mem: MemoryStore, turn: str, want: str) -> None:
    assert ("response_length", want) in current_slots(mem, "len", [turn])


@pytest.mark.parametrize("turn", ["我说重点吧，我下周去成都", "我说细节你听着"])
def test_the_user_speaking_briefly_is_no_answer_length(mem: MemoryStore, turn: str) -> None:
    assert not any(p == "response_length" for p, _ in current_slots(mem, "len-not", [turn]))


# ---------------------------------------------------------------- current vs past, job places
@pytest.mark.parametrize(
    ("text", "predicate", "want"),
    [
        ("I used to live in Porto, now I'm in Ghent", "location", "Ghent"),
        ("以前在成都，现在在杭州", "location", "杭州"),
        ("我刚 move 到 Calgary，之前在 Ottawa", "location", "Calgary"),
        (
            "I used to work at Initech but now I'm at a startup called Vandelay",
            "employer",
            "Vandelay",
        ),
        ("I'm a nurse in Bristol, mostly nights", "location", "Bristol"),
        ("I teach biology at a school in Utrecht.", "location", "Utrecht"),
        ("I'm a 小学 English teacher in 苏州", "location", "苏州"),
    ],
)
def test_the_current_value_and_the_place_of_a_job(text: str, predicate: str, want: str) -> None:
    values = {s.object for s in trigger_slots(text) if s.predicate == predicate}
    assert values == {want}


def test_a_language_after_a_job_is_no_place() -> None:
    assert not [
        s for s in trigger_slots("I'm a software engineer in Kotlin") if s.predicate == "location"
    ]


def test_a_past_state_alone_is_never_current() -> None:
    assert not [s for s in trigger_slots("以前在成都") if s.predicate == "location"]


def test_a_switch_to_a_tool_named_by_a_common_word() -> None:
    slot = typed_slot("Switched to Arch last spring, Windows kept crashing")
    assert slot is not None and (slot.predicate, slot.object) == ("operating_system", "Arch")


# ---------------------------------------------------------------- timezones, languages spoken
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("我这边是 GMT+9", {("timezone", "GMT+9")}),
        ("I'm based in Lagos, UTC+1", {("timezone", "UTC+1"), ("location", "Lagos")}),
        ("我在东九区", {("timezone", "东九区")}),  # a timezone, not a place
        ("我会说闽南话和客家话", {("speaks", "闽南话"), ("speaks", "客家话")}),
        ("我 speak 韩语 and 法语", {("speaks", "韩语"), ("speaks", "法语")}),
    ],
)
def test_timezones_and_spoken_languages(text: str, want: set[tuple[str, str]]) -> None:
    assert {(s.predicate, s.object) for s in fact_slots(text)} == want


def test_a_dialect_is_an_answer_language() -> None:
    assert language_of("以后用上海话回答我") == "Shanghainese"


def test_a_length_said_as_a_correction_stays_a_correction(mem: MemoryStore) -> None:
    """ "on second thought, detailed 一点更好" after a concise preference: the new length
    replaces the old one (an answer-length rule must not take it as a fresh, pending
    preference)."""
    slots = current_slots(mem, "len-fix", ["回答短一点", "on second thought, detailed 一点更好"])
    assert ("response_length", "detailed") in slots
    assert ("response_length", "concise") not in slots


def test_going_back_to_a_language_is_the_answer_language(mem: MemoryStore) -> None:
    """ "算了还是日语吧": a correction that only picks a language picks the answers' one (the
    clause says nothing of answers, so no answer-word rule reads it)."""
    slots = current_slots(mem, "lang-back", ["以后用英文回答我", "算了还是日语吧，英文看着太累"])
    assert ("answer_language", "Japanese") in slots
    assert ("answer_language", "English") not in slots


@pytest.mark.parametrize(
    ("turn", "want"),
    [
        ("Can you reply in Italian from now on? I want to practise.", "Italian"),
        ("Could you answer in Dutch going forward?", "Dutch"),
    ],
)
def test_a_standing_request_worded_as_a_question(mem: MemoryStore, turn: str, want: str) -> None:
    assert ("answer_language", want) in current_slots(mem, "ask", [turn])


def test_a_plain_question_still_asserts_nothing(mem: MemoryStore) -> None:
    assert not any(
        p == "answer_language" for p, _ in current_slots(mem, "q", ["Can you reply in Italian?"])
    )


def test_a_new_language_alone_is_no_correction(mem: MemoryStore) -> None:
    """ "改用法语" with nothing said before is a new answer preference (the repetition gate
    decides), not a correction that goes back to a language."""
    assert not any(p == "answer_language" for p, _ in current_slots(mem, "new-lang", ["改用法语"]))


# ---------------------------------------------------------------- value boundaries
@pytest.mark.parametrize(
    ("turn", "want"),
    [
        ("我不吃羊肉的，从小就不吃", {"羊肉"}),
        ("I can't eat soy — found out last year", {"soy"}),
        ("我不吃香菜和葱", {"香菜", "葱"}),
    ],
)
def test_a_food_the_user_cannot_eat_is_the_food_alone(
    mem: MemoryStore, turn: str, want: set[str]
) -> None:
    slots = current_slots(mem, "food", [turn])
    assert {o for p, o in slots if p == "dietary_restriction"} == want


# ---------------------------------------------------------------- pets
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("my hamster Nibbles escaped again", {"hamster"}),
        ("my parrot is 30 now", {"parrot"}),
        ("周末带我家 beagle 去公园", {"beagle"}),
        ("I need my dog food delivered", set()),  # dog food, no dog said
        ("the cat is cute", set()),
    ],
)
def test_a_pet_said_as_mine(text: str, want: set[str]) -> None:
    assert {s.object for s in trigger_slots(text) if s.predicate == "pet"} == want


@pytest.mark.parametrize(
    ("text", "predicate", "want"),
    [
        ("人在加拿大温哥华，跟国内差十几个小时", "location", "温哥华"),
        ("我在美国", "location", "美国"),  # a country alone stays
    ],
)
def test_a_city_said_after_its_country(text: str, predicate: str, want: str) -> None:
    assert {s.object for s in trigger_slots(text) if s.predicate == predicate} == {want}


def test_a_hometown_said_with_its_province_is_the_city(mem: MemoryStore) -> None:
    assert ("hometown", "岳阳") in current_slots(mem, "home", ["我老家是湖南岳阳的"])


def test_an_implicit_length_said_twice_is_stored(mem: MemoryStore) -> None:
    """ "太长了" then "回答简洁一点": the labelling guide's repeated implicit preference (the
    repetition gate stores it; no noise veto applies to it)."""
    slots = current_slots(mem, "len-twice", ["太长了", "回答精简一点"])
    assert ("response_length", "concise") in slots


@pytest.mark.parametrize(
    ("text", "predicate", "want"),
    [
        ("I work remotely for Brightline, my team is in Oslo", "employer", "Brightline"),
        ("We moved in May, and I started at Globex a week later", "employer", "Globex"),
        ("I've been at Umbra Labs for three years", "employer", "Umbra Labs"),
        ("我搬到里斯本了，时区按零时区算", "timezone", "零时区"),
    ],
)
def test_employers_and_zones_in_more_words(text: str, predicate: str, want: str) -> None:
    assert {s.object for s in fact_slots(text) if s.predicate == predicate} == {want}


def test_starting_at_a_time_is_no_employer() -> None:
    assert not [s for s in fact_slots("I started at 9am today") if s.predicate == "employer"]


@pytest.mark.parametrize(
    ("text", "predicate", "want"),
    [
        ("Started a new job as a data analyst at Initrode!", "occupation", "data analyst"),
        ("back at the clinic again (I'm a physio there)", "occupation", "physio"),
    ],
)
def test_jobs_in_more_words(text: str, predicate: str, want: str) -> None:
    assert {s.object for s in trigger_slots(text) if s.predicate == predicate} == {want}


def test_a_chatty_word_is_not_part_of_a_name(mem: MemoryStore) -> None:
    assert ("name", "Ingrid") in current_slots(mem, "chatty", ["my name's Ingrid btw"])


def test_a_language_name_in_food_talk_is_a_cuisine() -> None:
    slot = typed_slot("Since we talk food a lot: Korean is my favourite cuisine")
    assert slot is not None and (slot.predicate, slot.object) == ("cuisine", "Korean")
    reply = typed_slot("reply in Korean please")
    assert reply is not None and reply.predicate == "answer_language"


def test_an_apology_is_no_attribute(mem: MemoryStore) -> None:
    """ "sorry 是东莞 not 广州": "sorry" opens the correction; it names no attribute."""
    slots = current_slots(mem, "sorry", ["I live in 广州.", "sorry 是东莞 not 广州"])
    assert ("location", "东莞") in slots and ("location", "广州") not in slots


@pytest.mark.parametrize(
    ("setup", "turn", "predicate", "want", "old"),
    [
        (
            "Our budget is $9,000.",
            "legal trimmed it to $6,500, plan around that",
            "budget",
            "$6,500",
            "$9,000",
        ),
        ("我周报的截止时间是周五。", "改了，周三下班前就要交", "deadline", "周三下班前", "周五"),
    ],
)
def test_a_correction_naming_only_an_amount_or_a_limit_date(
    mem: MemoryStore, setup: str, turn: str, predicate: str, want: str, old: str
) -> None:
    """Needs the clause classifier to read the turn as a correction (it does for these)."""
    slots = current_slots(mem, "qty", [setup, turn])
    assert (predicate, want) in slots and (predicate, old) not in slots


def test_money_spent_is_no_corrected_budget() -> None:
    from langgraph_memory.write.slots.dispatch import slot_for

    assert not [
        s for s in slot_for("correction", "actually it cost $40") if s.predicate == "budget"
    ]
