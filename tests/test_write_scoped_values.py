"""What a word judges, and whose value it is: a hedge judges its own part of a clause, an
amount's "大概" is no hedge, a rule's reason is not its content, another person's opinion names
no value of the user's, a hypothetical move is no move, a thousands separator is no part break.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
The pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.decide import quoted_spans
from langgraph_memory.write.extract.markers import PART_SPLIT, hedges_value, is_hedged
from langgraph_memory.write.extract.one_off import says_this_turn_only
from langgraph_memory.write.guide_kinds import others_view
from langgraph_memory.write.slots.preference import constraint_slot
from langgraph_memory.write.slots.triggers import birthday_slot
from langgraph_memory.write.spans import budget_value

from .conftest import current_slots


# ---------------------------------------------------------------- pure functions
def test_a_hedge_in_a_joined_statement_leaves_the_other_one_stated() -> None:
    clause = "the report is due on March 3 and I've done maybe half of it"
    assert is_hedged(clause)
    assert not hedges_value(clause, "March 3")
    assert hedges_value("I'll probably move to Leeds and rent a flat", "Leeds")


@pytest.mark.parametrize("clause", ["预算大概在八万左右", "大概是3000块", "大概要花两万"])
def test_about_before_an_amount_is_no_hedge(clause: str) -> None:
    assert not is_hedged(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "要是我换到上海工作的话，通勤会不会很累？",
        "如果我们以后搬去成都，房租贵吗",
        "If we moved to Lisbon, would the kids need Portuguese?",
        "We're thinking Crete for the summer.",
    ],
)
def test_a_hypothetical_or_a_plan_being_weighed_is_a_hedge(clause: str) -> None:
    assert is_hedged(clause)


def test_a_rules_reason_is_not_its_content() -> None:
    slot = constraint_slot("以后回复别用感叹号，我觉得显得很吵")
    assert slot is not None and "我觉得" not in slot.object and "感叹号" in slot.object
    slot = constraint_slot("Never add hashtags, it looks cheap")
    assert slot is not None and slot.object == "never add hashtags"


@pytest.mark.parametrize(
    ("text", "health", "theirs"),
    [
        ("My roommate swears Fedora is the best distro", False, True),
        ("我表哥说 Kotlin 比 Java 香多了，一直劝我转", False, True),
        ("我 manager 觉得 tabs 更好", False, True),
        ("My aunt keeps telling me I should try keto", True, True),
        ("My dentist says I'm allergic to latex", True, False),  # the user's own limit
        ("I switched to Fedora last year", False, False),
    ],
)
def test_another_persons_opinion_or_urging(text: str, health: bool, theirs: bool) -> None:
    assert others_view(text, health=health) is theirs


def test_a_budget_of_an_occasion_called_this_time_is_a_fact() -> None:
    assert not says_this_turn_only("这次搬家预算大概八千块")
    assert not says_this_turn_only("这次 road trip 的 budget 是 $1,200")
    assert says_this_turn_only("这次用繁体字回答")


def test_a_thousands_separator_is_no_part_break() -> None:
    assert PART_SPLIT.split("our budget is $12,500 total, give or take") == [
        "our budget is $12,500 total",
        "give or take",
    ]
    assert budget_value("我们的预算是一万五") == "一万五"


@pytest.mark.parametrize(
    ("clause", "day"),
    [
        ("my bday's coming up on the 2nd of May, any ideas", "2nd of May"),
        ("我生日就在下周三，6月12号，想请朋友吃饭", "6月12号"),
    ],
)
def test_a_birthday_coming_up_is_the_day_said(clause: str, day: str) -> None:
    slot = birthday_slot(clause)
    assert slot is not None and slot.object == day


def test_a_quoted_value_that_runs_past_the_quote_is_still_quoted() -> None:
    assert quoted_spans("Say 'I live in Oslo.' in German") == ["I live in Oslo."]


# ---------------------------------------------------------------- the write path
@pytest.mark.parametrize(
    ("user", "text", "want"),
    [
        (
            "due",
            "Panic mode: the thesis draft is due next Monday and I've written maybe a quarter.",
            {("deadline", "next Monday")},
        ),
        ("reno", "厨房翻新拖了很久。预算大概在六万左右，不含电器。", {("budget", "六万")}),
        ("trip", "这次去云南玩一周，两个人预算一万二左右，帮我排个行程？", {("budget", "一万二")}),
        (
            "sep",
            "Heads up, our wedding budget is about $18,000 all-in. Where do we start?",
            {("budget", "$18,000")},
        ),
    ],
)
def test_the_write_path_keeps_the_value(
    mem: MemoryStore, user: str, text: str, want: set[tuple[str, str]]
) -> None:
    assert want <= current_slots(mem, user, [text])


@pytest.mark.parametrize(
    "text",
    [
        "My flatmate swears Arch is the only real distro and keeps telling me to switch.",
        "我同事说 Vue 比 React 好用多了，天天劝我换。你怎么看？",
        "My brother keeps saying I should go vegetarian for a month.",
        "要是我搬去厦门的话，你觉得住哪里方便？",
        "Translate this for my novel: 'I am a nurse and I live in Quebec.' It's about a character.",
    ],
)
def test_the_write_path_stores_nothing_of_the_user(mem: MemoryStore, text: str) -> None:
    stored = {pair for pair in current_slots(mem, "nothing", [text]) if pair[0] != "said"}
    assert stored == set()  # "said": the turn's episode, what was said, is always kept
