"""Values that are not the user's: characters of fiction and role-play, someone else's rules,
a quotation's words (also when the stored value is a canonical form), the language of a text to
translate, a past trip's place, another person's habit — and a value said "just this once"
stays this turn's whatever path read it.

Every utterance here is written for these tests (none comes from the dev or held-out sets).
The pure-function tests run without a model; the pipeline tests run the real write path: real
store, real embedder, the shipped clause classifier."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.extract.markers import is_hedged, strip_markers
from langgraph_memory.write.guide_kinds import (
    others_habit,
    sets_up_fiction,
    someone_elses_rule,
    steps_out_of_fiction,
)

from .conftest import current_slots


@pytest.mark.parametrize(
    "clause",
    [
        "Write a poem about a baker who is allergic to flour",
        "In my novel the main character is a vegan pilot from Oslo",
        "Let's role-play: you're a barista and I'm a customer who only drinks soy lattes",
        "写一篇小说，女主是个住在青岛的素食者",
        "我们来模拟面试，你演面试官",
    ],
)
def test_a_setup_of_fiction_or_role_play(clause: str) -> None:
    assert sets_up_fiction(clause)


@pytest.mark.parametrize("clause", ["I love reading stories", "我昨天跟朋友讲了个笑话"])
def test_talk_about_stories_sets_up_nothing(clause: str) -> None:
    assert not sets_up_fiction(clause)


def test_stepping_out_of_the_fiction() -> None:
    assert steps_out_of_fiction("I'm a pilot myself, funnily enough")
    assert steps_out_of_fiction("现实中我自己也是护士")


@pytest.mark.parametrize(
    "text",
    [
        "The gym's rulebook insists members never film other people",
        "物业通知说晚上十点以后不许装修",
        "说明书上写着千万不要用热水洗",
    ],
)
def test_a_rule_of_a_place_or_a_text(text: str) -> None:
    assert someone_elses_rule(text)


def test_another_persons_habit_with_no_word_of_the_users() -> None:
    assert others_habit("我舍友每天都喝两杯冰美式", "冰美式")
    assert not others_habit("我舍友喝冰美式，我只喝热拿铁", "热拿铁")


def test_weighing_options_is_a_hedge_and_pls_is_no_value() -> None:
    assert is_hedged("I'm torn between Kotlin and Swift for the app")
    assert strip_markers("plz 别再发语音了")[0] == "别再发语音了"


# ---------------------------------------------------------------- the write path
@pytest.mark.parametrize(
    "text",
    [
        "Write a short scene: a retired judge who is lactose intolerant lives alone in Galway.",
        "我在写剧本，男主是个对海鲜过敏的厨师，住在厦门。帮我想个开场。",
        "Let's role-play. You're a travel agent and I'm a vegan tourist. Start!",
        "My gym's rulebook insists members never film other people. Kind of strict, right?",
        "房东规定晚上十一点以后不许洗衣服，离谱。",
        '帮我同事润色一下自我介绍："本人纯素食者，现居苏州。"语气自然一点。',
        "Translate this into German for my pen pal, please.",
        "前年夏天我在大理住了两个月，天天晒太阳。",
        "我舍友每天都喝两杯冰美式，我看着都心慌。",
        "Just this once, reply in Korean, I want to practise.",
    ],
)
def test_the_write_path_stores_nothing_of_the_user(mem: MemoryStore, text: str) -> None:
    stored = {pair for pair in current_slots(mem, "none", [text]) if pair[0] != "said"}
    assert stored == set()  # "said": the turn's episode, what was said, is always kept


@pytest.mark.parametrize(
    ("user", "text", "want"),
    [
        ("before", "I'm vegetarian btw. Write me a fable about a fox.", {("diet", "vegetarian")}),
        ("moved", "We moved to Porto last month, the light is amazing.", {("location", "Porto")}),
        (
            "stop",
            "stop summarizing my question back to me, just answer",
            {("must_not", "summarizing my question back to me")},
        ),
    ],
)
def test_the_write_path_keeps_the_users_own(
    mem: MemoryStore, user: str, text: str, want: set[tuple[str, str]]
) -> None:
    assert want <= current_slots(mem, user, [text])
