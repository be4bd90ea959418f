"""Slot exact-match on the write path, fifth round: compound job titles ("nurse practitioner",
"head of design at Hooli"), named timezones ("Central European Time"), a tool named by a
common word in a list ("Python and Go"), a correction whose new value comes in a sentence of
its own ("not Austin, I live in Dallas"), a spoken language told by its level ("我日语会一点",
"my Spanish is basic"), a Chinese hometown after English words, "叫我 Kevin 就好", "everyone
calls me Mack", birthdays in numeric form or as a year and month, a Chinese job qualified
by another ("自由职业的摄影师"), a cat named with its coat ("two tabby cats"),
foods the user avoids.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
The pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.slots.dispatch import slot_for

from .conftest import current_slots


def _pairs(kind: str, clause: str) -> set[tuple[str, str]]:
    return {(s.predicate, s.object) for s in slot_for(kind, clause)}


# ---------------------------------------------------------------- pure slot functions
@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("I'm a physician assistant", {("occupation", "physician assistant")}),
        ("I'm a lab technician", {("occupation", "lab technician")}),
        (
            "I'm the director of sales at Vandelay",
            {("occupation", "director of sales"), ("employer", "Vandelay")},
        ),
        ("I am the head of research", {("occupation", "head of research")}),
    ],
)
def test_compound_job_titles(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("I'm on Eastern European Time", "Eastern European Time"),
        ("my timezone is India Standard Time", "India Standard Time"),
    ],
)
def test_named_timezones_keep_every_word(clause: str, want: str) -> None:
    assert ("timezone", want) in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    "clause", ["I mostly write Rust and Go", "我平时写Java和Go", "I use Python and Go at work"]
)
def test_a_common_word_tool_in_a_list_is_a_second_value(clause: str) -> None:
    assert ("programming_language", "Go") in _pairs("stable_fact", clause)


def test_and_go_as_a_verb_is_no_language() -> None:
    assert ("programming_language", "Go") not in _pairs(
        "stable_fact", "I use Python and go to the gym after"
    )


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("我韩语会一点", {("speaks", "韩语")}),
        ("我会说粤语，法语也挺流利", {("speaks", "粤语"), ("speaks", "法语")}),
        ("My German is rusty but fine", {("speaks", "German")}),
    ],
)
def test_a_language_told_by_its_level(clause: str, want: set[tuple[str, str]]) -> None:
    assert want <= _pairs("stable_fact", clause)


def test_a_tool_told_by_its_level_is_no_spoken_language() -> None:
    assert not {p for p, _ in _pairs("stable_fact", "my Python is rusty")} & {"speaks"}


@pytest.mark.parametrize(
    ("clause", "want"),
    [("I'm from 成都", "成都"), ("I'm originally from 青岛", "青岛")],
)
def test_a_chinese_hometown_after_english_words(clause: str, want: str) -> None:
    assert ("hometown", want) in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"), [("叫我 Lena 就好", "Lena"), ("叫我阿强就可以", "阿强")]
)
def test_call_me_then_just_that(clause: str, want: str) -> None:
    assert ("name", want) in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"),
    [("Everyone calls me Dot, short for Dorothy", "Dot"), ("Everybody calls me Rafa", "Rafa")],
)
def test_the_name_everyone_calls_the_user(clause: str, want: str) -> None:
    assert ("name", want) in _pairs("stable_fact", clause)


def test_a_nickname_one_person_uses_is_no_name() -> None:
    assert not {p for p, _ in _pairs("stable_fact", "My boss calls me Sunshine")} & {"name"}


@pytest.mark.parametrize(
    ("clause", "want"),
    [
        ("I was born 1988-11-02", "1988-11-02"),
        ("I was born on 7/14/1993", "7/14/1993"),
        ("我是2001年3月出生的", "2001年3月"),
    ],
)
def test_a_birthday_in_numbers_or_a_year_and_month(clause: str, want: str) -> None:
    assert ("birthday", want) in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"), [("我是自由职业的翻译", "翻译"), ("我是兼职的摄影师", "摄影师")]
)
def test_a_chinese_job_qualified_by_another_word(clause: str, want: str) -> None:
    assert ("occupation", want) in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"),
    [("We have three ginger cats", "ginger cat"), ("I've got a persian cat", "persian cat")],
)
def test_a_cat_named_with_its_coat_or_breed(clause: str, want: str) -> None:
    assert ("pet", want) in _pairs("stable_fact", clause)


@pytest.mark.parametrize(
    ("clause", "want"),
    [("I avoid pork", "pork"), ("I steer clear of shellfish", "shellfish")],
)
def test_a_food_the_user_avoids(clause: str, want: str) -> None:
    assert ("dietary_restriction", want) in _pairs("constraint", clause)


def test_avoiding_something_else_is_no_food() -> None:
    assert not {p for p, _ in _pairs("constraint", "I avoid calls before nine")} & {
        "dietary_restriction"
    }


# ---------------------------------------------------------------- the real write path
@pytest.mark.parametrize(
    ("user", "text", "want"),
    [
        (
            "np",
            "I'm a nurse practitioner, mostly paediatrics.",
            {("occupation", "nurse practitioner")},
        ),
        ("ht", "I'm from 杭州 originally.", {("hometown", "杭州")}),
        ("go", "I code mostly in TypeScript and Go.", {("programming_language", "Go")}),
        ("tz", "I'm on Central European Time.", {("timezone", "Central European Time")}),
    ],
)
def test_the_write_path_stores_the_value(
    mem: MemoryStore, user: str, text: str, want: set[tuple[str, str]]
) -> None:
    assert want <= current_slots(mem, user, [text])


def test_a_correction_whose_new_value_is_a_sentence_of_its_own(mem: MemoryStore) -> None:
    slots = current_slots(mem, "corr", ["I live in Leeds.", "Sorry, not Leeds, I live in York."])
    assert ("location", "York") in slots
    assert ("location", "Leeds") not in slots
    assert ("location", "I") not in slots
