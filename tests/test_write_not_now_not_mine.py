"""Values that are not the user's current facts: a state that has ended ("I used to live in
Rome", "我以前在北京住过五年"), a game character's, a stranger's ("Some people prefer tabs", "A
customer told me…"), a hypothetical ("要是我搬去成都…"); and what must still be written next to
them (a relative's diet, the user's own tool after a coworker's, the new values after "scratch
that"). Every utterance here is written for these tests; the write path runs through
``bench write``'s pipeline with the real default embedder (no LLM)."""

from __future__ import annotations

import pytest

from langgraph_memory.eval import write_bench
from langgraph_memory.write.past_state import said_of_the_past
from tests.write_turns import bench_item, written_by_turn


def _written(*texts: str) -> list[list[tuple[str, str, str]]]:
    return written_by_turn(*texts)


@pytest.mark.parametrize(
    ("clause", "value", "past"),
    [
        ("I used to live in Rome, back in my twenties.", "Rome", True),
        ("My old laptop ran Ubuntu, but it died last week.", "Ubuntu", True),
        ("之前吃过一年素，后来坚持不下去了", "素", True),
        ("I was vegan for about two years in college, then gave it up.", "vegan", True),
        ("我以前是老师，现在做产品经理", "产品经理", False),
        ("我以前是老师，现在做产品经理", "老师", True),
        ("I've lived in Berlin since 2019", "Berlin", False),
        ("下周五以前交报告", "报告", False),
        ("我以前的电脑是 Windows，现在坏了", "我以前的电脑是 Windows，现在坏了", True),
        (
            "I used to hate coffee but now I drink it",
            "I used to hate coffee but now I drink it",
            False,
        ),
    ],
)
def test_said_of_the_past_judges_the_part_holding_the_value(
    clause: str, value: str, past: bool
) -> None:
    assert said_of_the_past(clause, value) is past


def test_a_state_that_has_ended_writes_nothing() -> None:
    written = _written(
        "I used to live in Rome, back in my twenties.",
        "Back when I worked at Oracle we used Perl for literally everything.",
        "My old laptop ran Ubuntu, but it died last week.",
        "我以前在北京住过五年。",
        "之前吃过一年素，后来坚持不下去了。",
        "I used to be vegetarian，但是后来放弃了。",
    )
    assert written == [[]] * 6


def test_the_current_value_next_to_a_past_one_is_kept() -> None:
    job, berlin, hometown, editor = _written(
        "我以前是老师，现在做产品经理",
        "I've lived in Berlin since 2019",
        "小时候在青岛长大",
        "I use vim, I used to use emacs",
    )
    assert job == [("user", "occupation", "产品经理")]
    assert berlin == [("user", "location", "berlin")]
    assert hometown == [("user", "hometown", "青岛")]
    assert editor == [("user", "editor", "vim")]


def test_a_game_character_is_not_the_user() -> None:
    written = _written(
        "In my D&D campaign I play Thalia, an elven ranger who lives in Silverymoon.",
        "In Stardew my farmer is named Clementine lol",
        "游戏里我那个角色是个剑客，住在长安城，天天喝酒。",
        "我的 Minecraft 角色住在一个 floating island 上，超酷。",
    )
    assert written == [[]] * 4
    (role,) = _written("我在公司的角色是项目经理")
    assert role != []  # 角色 "role" at work is no game


def test_a_strangers_value_is_not_the_users() -> None:
    tabs, intern, linus, own = _written(
        "Some people prefer tabs, some prefer spaces. I honestly don't care either way.",
        "隔壁桌新来的实习生特别爱吃榴莲，整个办公室都是味儿。",
        "Apparently Linus Torvalds writes everything in his own modified MicroEmacs.",
        "Some people hate it but I love vim",
    )
    assert tabs == [] and intern == [] and linus == []
    assert own == [("user", "editor", "vim")]


def test_the_users_people_and_own_tools_are_still_written() -> None:
    mom, son, dad_and_wife, windows = _written(
        "我妈吃素，过年做菜得注意点。",
        "我儿子 is allergic to eggs。",
        "My son — he's 7 — is allergic to tree nuts, and my wife is vegan.",
        "我同事用 Mac，我用 Windows",
    )
    assert mom == [("user", "mother_diet", "vegetarian")]
    assert son == [("user", "son_allergy", "eggs")]
    assert set(dad_and_wife) == {
        ("user", "son_allergy", "tree nuts"),
        ("user", "wife_diet", "vegan"),
    }
    assert windows == [("user", "operating_system", "windows")]


def test_a_hypothetical_is_no_fact_but_a_rule_after_one_is() -> None:
    chengdu, budget, spicy = _written(
        "要是我搬去成都，你觉得房租大概多少？",
        "Let's say 我 budget 是 10k，能买什么 camera？",
        "如果我问你推荐餐厅，记得我不吃辣",
    )
    assert chengdu == [] and budget == []
    assert spicy == [("user", "dietary_restriction", "辣")]


def test_scratch_that_keeps_the_new_values() -> None:
    row = write_bench.run(
        items=[
            bench_item(
                0, "Scratch that, I'm on CET now — moved to Vienna.", ["My timezone is EST."]
            )
        ]
    )["rows"][0]
    written = {tuple(w[0]) for w in row["written"]}
    assert written == {("user", "timezone", "cet"), ("user", "location", "vienna")}
    assert "invalidated" in row["actions"]  # EST withdrawn


def test_colloquial_chinese_and_a_particle_that_asks_nothing() -> None:
    shandong, frontend, hangzhou, partner, nothing_fancy = _written(
        "俺是山东人，现在搁深圳住。",
        "咱是做前端的，在腾讯上班。",
        "搁杭州做电商的，自己开店。",
        "我对象在广州上班，我们异地呢",
        "Can you summarise the notes below in three bullets? Nothing fancy.",
    )
    assert set(shandong) == {("user", "hometown", "山东"), ("user", "location", "深圳")}
    assert set(frontend) == {("user", "occupation", "前端"), ("user", "employer", "腾讯")}
    assert ("user", "location", "杭州") in hangzhou
    assert partner == [("user", "partner_location", "广州")]
    assert nothing_fancy == []


def test_words_that_only_look_like_fiction_a_language_or_a_users_value() -> None:
    hooli, polish, customer, profile, edit, edit_zh, standing = _written(
        "Never mention Hooli in anything you draft for me, long story.",
        "Answer in Polish from now on",
        "客户的 budget 是 3-4k USD, 帮我 draft 一个 proposal。",
        "帮我写一段人物介绍：张医生，协和的主治医生，养了一只叫豆豆的柯基。",
        "Don't change too much, 稍微 polish 一下就好。",
        "别改太多，稍微润色一下就好",
        "From now on, don't change too much when you edit my drafts",
    )
    assert hooli == [("assistant", "must_not", "mention hooli in anything you draft")]
    assert polish == [("user", "answer_language", "polish")]
    assert customer == [] and profile == []  # the customer's budget, a character's job
    assert edit == [] and edit_zh == []  # how far to edit this text: task-bound
    assert [(s, p) for s, p, _ in standing] == [("assistant", "must_not")]


def test_a_fact_after_a_secret_with_no_full_stop() -> None:
    (login,) = _written(
        "Here's my work login so you can see the error: user jchen, password hunter2pass "
        "I'm the DevOps lead at Parallax Labs, btw."
    )
    assert set(login) == {
        ("user", "occupation", "devops lead"),
        ("user", "employer", "parallax labs"),
    }
    assert not any("hunter2pass" in value for _, _, value in login)
