"""Slot phrasing classes of slotem8 (from dev10's failures): places and timezones said in
fragments or colloquially — "X-based" / "X based" as a part of its own, "Based in X", a part
that is only a timezone token ("…, PST, …", "so UTC+8"), Chinese zone names ("太平洋时间",
"欧洲中部时间"), "人在X" where jieba reads the city as a person's name, "在X长大" / "我从X来的"
(a hometown, not a home), "在 X 读书/读博/生活" (a home), "lived in X for N years now",
"greetings from X — been here N years"; and the look-alikes that are no home of the user's:
trips ("in Paris for a conference", "在上海开会"), someone else's place ("my sister is based
in …"), a greeting alone, "plant-based", a past stay. Pipeline tests: a question's stated part
("我在X，有没有…？"), a bare timezone part of a long sentence, "Greetings from X! Been here N
years." read as one, and "10am Eastern" is no Easter deadline."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.premises import fragments, stated_parts
from langgraph_memory.write.slots.dispatch import fact_slots
from langgraph_memory.write.slots.preference import bare_timezone, timezone_slot
from langgraph_memory.write.slots.triggers import continues_here, here_place, trigger_slots

from .conftest import current_slots


def _facts(text: str) -> set[tuple[str, str]]:
    return {(s.predicate, s.object) for s in fact_slots(text)}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Denver-based, MST, mostly async.", {("location", "Denver"), ("timezone", "MST")}),
        ("Lyon based, CET, hybrid.", {("location", "Lyon"), ("timezone", "CET")}),
        ("Based in Accra, GMT time zone.", {("location", "Accra"), ("timezone", "GMT")}),
        ("EST here, Boston-based.", {("location", "Boston"), ("timezone", "EST")}),
        ("For context, Jakarta-based, WIB.", {("location", "Jakarta"), ("timezone", "WIB")}),
        ("I'm in Perth, so AWST, and that's where I'll stay.", {("timezone", "AWST")}),
        ("人在多伦多，美国东部时间。", {("location", "多伦多"), ("timezone", "美国东部时间")}),
        ("坐标温哥华，太平洋时区。", {("timezone", "太平洋时区")}),
        ("我人在布拉格，用的是欧洲中部时间。", {("timezone", "欧洲中部时间")}),
        ("Ottawa based，EST。", {("location", "Ottawa"), ("timezone", "EST")}),
        ("我小时候在锦州长大，后来搬到了天津。", {("hometown", "锦州"), ("location", "天津")}),
        ("我是从昆明来的，在宁波定居了。", {("hometown", "昆明"), ("location", "宁波")}),
        ("我从 Osaka 来的，现在住在 Sydney。", {("hometown", "Osaka"), ("location", "Sydney")}),
        ("我现在在武汉读书，食堂还不错。", {("location", "武汉")}),
        ("我在 Edinburgh 读博，挺冷的。", {("location", "Edinburgh")}),
        ("老家 Ma'anshan，现在在 Dublin 生活。", {("hometown", "Ma'anshan")}),
        ("I was raised in Fresno, now in Sacramento.", {("hometown", "Fresno")}),
        ("Lived in Rotterdam for 6 years now, still no bike.", {("location", "Rotterdam")}),
        ("Been in Calgary about 5 years now, the winters are fine.", {("location", "Calgary")}),
        ("Hi from Dundee — been here over a decade.", {("location", "Dundee")}),
        ("Greetings from 苏州，在这边住了两年多了。", {("location", "苏州")}),
    ],
)
def test_a_place_or_timezone_said_in_fragments_is_typed(
    text: str, want: set[tuple[str, str]]
) -> None:
    assert want <= _facts(text)


@pytest.mark.parametrize(
    ("home", "not_home"),
    [
        ("Lyon based, CET, hybrid.", "Plant-based, no dairy please."),
        ("Lyon based, CET, hybrid.", "A Lisbon-based startup just hired me."),
        (
            "Hi from Dundee — been here over a decade.",
            "Hi from Bruges! Here for a friend's birthday.",
        ),
        (
            "Lived in Rotterdam for 6 years now.",
            "I lived in Geneva for three years after grad school.",
        ),
        ("我现在在武汉读书，食堂还不错。", "我在郑州上的大学，毕业就走了。"),
        ("我在 Edinburgh 读博，挺冷的。", "我在 MIT 读书。"),
    ],
)
def test_a_place_class_stops_at_its_look_alike(home: str, not_home: str) -> None:
    assert "location" in {s.predicate for s in trigger_slots(home)}
    assert "location" not in {s.predicate for s in trigger_slots(not_home)}


@pytest.mark.parametrize(
    "text",
    [
        "I'm in Rome for a wedding this weekend.",
        "Just landed in Oslo for a three-day summit.",
        "I'm in Madrid next week.",
        "下周在广州开会，帮我订个酒店。",
        "我在厦门出差，明天回去。",
    ],
)
def test_a_trip_is_no_location(text: str) -> None:
    assert "location" not in {s.predicate for s in trigger_slots(text)}


def test_someone_elses_place_is_theirs() -> None:
    assert _facts("My brother is based in Phoenix and loves the heat.") == {
        ("brother_location", "Phoenix")
    }
    assert ("father_hometown", "吉林") in _facts("我爸是在吉林长大的，很能喝酒。")
    assert ("location", "Tampa") in _facts("My parents live in Ohio but I'm in Tampa.")
    assert ("location", "珠海") in _facts("我和老公住在珠海，离海很近。")


def test_a_part_that_is_only_a_timezone_token() -> None:
    assert bare_timezone("Leeds-based, BST, usually free after 4") == "BST"
    assert bare_timezone("I'm in Seoul, so KST, and mornings are best") == "KST"
    assert bare_timezone("The office uses KFC, TGIT") is None  # no timezone however cased
    assert bare_timezone("Can you convert 3pm EST to CET for me?") is None
    slot = timezone_slot("Calgary based, MST")
    assert slot is not None and slot.object == "MST"


def test_a_question_keeps_its_stated_parts() -> None:
    assert stated_parts("我在杭州，有没有适合周末去的古镇") == ["我在杭州"]
    assert stated_parts("现在在 Oslo 读书，你知道哪里能买到豆腐吗") == ["现在在 Oslo 读书"]
    assert stated_parts("如果我搬到厦门，你觉得租房贵吗") == []
    assert stated_parts("What time is it in Tokyo?") == []


def test_a_long_sentence_keeps_its_timezone_fragment() -> None:
    sentence = "Just so you know I'm based in Taipei, so GMT+8, and my mornings are your evenings."
    assert fragments(sentence) == ["so GMT+8"]
    assert fragments("I'm in Taipei and I love it") == []


def test_been_here_after_a_greeting_is_read_with_it() -> None:
    assert continues_here("Hello from Bergen!", "Been here about 7 years now.")
    assert not continues_here("Hello from Bergen!", "Here for a wedding.")
    assert not continues_here("Hello from the airport!", "Been here for 3 hours.")
    slot = here_place("Hello from Bergen! Been here about 7 years now.")
    assert slot is not None and (slot.predicate, slot.object) == ("location", "Bergen")


@pytest.mark.parametrize(
    ("user", "text", "want"),
    [
        (
            "s8a",
            "Cardiff-based, GMT, mostly remote.",
            {("location", "Cardiff"), ("timezone", "GMT")},
        ),
        ("s8b", "人在丹佛，美国山地时间。", {("location", "丹佛"), ("timezone", "美国山地时间")}),
        (
            "s8c",
            "我的生日是 May 9，今年想低调点过。我在南昌，有没有适合 solo 的 day trip idea？",
            {("birthday", "May 9"), ("location", "南昌")},
        ),
        ("s8d", "Hello from Bergen! Been here about 7 years now.", {("location", "Bergen")}),
        (
            "s8e",
            "I keep forgetting to say this and then getting annoyed at your replies: I'm in "
            "Jakarta, so UTC+7, and 'tonight' should mean my night. Anyway, when does the launch "
            "stream start for me if it's 10am Eastern?",
            {("location", "Jakarta"), ("timezone", "UTC+7")},
        ),
        ("s8f", "我从小在锦州长大，后来搬到了天津。", {("hometown", "锦州"), ("location", "天津")}),
    ],
)
def test_the_write_path_stores_places_and_timezones(
    mem: MemoryStore, user: str, text: str, want: set[tuple[str, str]]
) -> None:
    assert want <= current_slots(mem, user, [text])


def test_the_write_path_stores_no_home_for_a_trip(mem: MemoryStore) -> None:
    slots = current_slots(mem, "s8trip", ["I'm in Rome for a wedding this weekend, so excited."])
    assert not {p for p, _ in slots} & {"location", "hometown"}


def test_eastern_time_is_no_easter_deadline(mem: MemoryStore) -> None:
    text = (
        "I keep forgetting to say this and then getting annoyed at your replies: I'm in "
        "Jakarta, so UTC+7, and 'tonight' should mean my night. Anyway, when does the launch "
        "stream start for me if it's 10am Eastern?"
    )
    assert "deadline" not in {p for p, _ in current_slots(mem, "s8easter", [text])}
