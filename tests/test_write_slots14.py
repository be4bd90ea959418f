"""Typed values in phrasings the rules missed: jobs the head-noun list lacked ("account
executive", "PhD candidate", "staff SRE"), a job in apposition ("I'm Hannah, 34, a pastry chef
in Montreal"), an organisation described rather than named ("at a regional bank"), deadlines
and budgets as said ("EOD Thursday", "the 15th", "下下周三", "3-4k SGD", "兩萬台幣"), a place
in a parenthesis ("(I'm based in Pune)"), a bare timezone beside a long sentence's durable part.
Every utterance here is written for these tests; the write path runs through ``bench write``'s
pipeline with the real default embedder (no LLM)."""

from __future__ import annotations

import pytest

from langgraph_memory.eval import write_bench
from tests.write_turns import bench_item, written_by_turn


def _written(*texts: str) -> list[set[tuple[str, str, str]]]:
    return [set(got) for got in written_by_turn(*texts)]


JOBS = [
    ("I'm an account executive at Stark Logistics.", "account executive", "stark logistics"),
    ("I'm a PhD candidate at ETH Zurich", "phd candidate", "eth zurich"),
    ("I'm the DevOps lead at Parallax Labs, btw.", "devops lead", "parallax labs"),
]


def test_jobs_the_head_noun_list_lacked() -> None:
    written = _written(*(text for text, _, _ in JOBS))
    for got, (_, job, org) in zip(written, JOBS, strict=True):
        assert ("user", "occupation", job) in got
        assert ("user", "employer", org) in got


def test_an_organisation_described_is_no_employer() -> None:
    (bank,) = _written("I'm a staff SRE at a regional bank")
    assert bank == {("user", "occupation", "staff sre")}


def test_a_job_in_apposition_to_the_user() -> None:
    hannah, zalando, tired = _written(
        "I'm Hannah, 34, a pastry chef in Montreal",
        "Berlin based, ex-Googler, these days a product manager at Zalando.",
        "I'm tired, a long day",
    )
    assert ("user", "occupation", "pastry chef") in hannah
    assert ("user", "location", "montreal") in hannah
    assert ("user", "occupation", "product manager") in zalando
    assert ("user", "employer", "google") not in zalando  # "ex-": a past employer
    assert tired == set()


@pytest.mark.parametrize(
    ("text", "record"),
    [
        ("The migration has a hard deadline of EOD Thursday.", ("deadline", "eod thursday")),
        ("my thesis is due the 15th", ("deadline", "the 15th")),
        ("论文下下周三之前必须交给导师", ("deadline", "下下周三")),
        ("论文截止日期是下个月十五号。", ("deadline", "下个月十五号")),
        (
            "Budget-wise I'm working with around 3-4k SGD for the whole thing.",
            ("budget", "3-4k sgd"),
        ),
        ("預算兩萬台幣左右，想買台筆電。", ("budget", "兩萬台幣")),
    ],
)
def test_deadlines_and_budgets_as_said(text: str, record: tuple[str, str]) -> None:
    (got,) = _written(text)
    assert ("user", *record) in got


def test_a_place_in_a_parenthesis_and_a_bare_timezone() -> None:
    pune, seattle, jakarta = _written(
        "I'm on GMT+5:30 (I'm based in Pune), so 'morning' for me is your late evening.",
        "Please keep in mind I'm in Pacific time (I live in Seattle) when you propose slots.",
        "I keep forgetting to say this and then getting annoyed at your replies: I'm in Jakarta, "
        "so UTC+7, and 'tonight' should mean my night. Anyway, when does the launch stream start "
        "for me if it's 10am Eastern?",
    )
    assert {("user", "location", "pune"), ("user", "timezone", "gmt+5:30")} <= pune
    assert ("user", "location", "seattle") in seattle
    assert {("user", "location", "jakarta"), ("user", "timezone", "utc+7")} <= jakarta


def test_a_relatives_fact_is_not_their_saying() -> None:
    lily, mom, lab = _written(
        "my daughter Lily starts kindergarten in sept, cant believe it",
        "My mom always says never go to bed angry",
        '把这段 lab instructions 翻成中文。"Always wear gloves. Never touch the sample with bare '
        'hands. Label every tube." 明天要贴在实验室门口。',
    )
    assert lily != set()  # "can't believe it" is the user's feeling, not the daughter's view
    assert mom == set()
    assert lab == set()  # a rule inside the text to translate


def test_organisations_by_name_and_jobs_without_their_lead() -> None:
    ledgerly, nimbus, infosys, xinghe, school, union = _written(
        "I'm a junior data analyst, six months into my first job at a fintech called Ledgerly.",
        "I work for a startup called Nimbus as their first product designer",
        "我的 timezone 是 GMT+5:30, I'm in Bangalore, 在一家叫 Infosys 的公司。",
        "我们公司全称是星河科技有限公司，我负责市场部。",
        "我是一名小学的数学老师",
        "我是协和的主治医生，心内科的。",
    )
    assert {("user", "occupation", "junior data analyst"), ("user", "employer", "ledgerly")} <= (
        ledgerly
    )  # "my first job" is the current one
    assert {("user", "employer", "nimbus"), ("user", "occupation", "product designer")} <= nimbus
    assert ("user", "employer", "infosys") in infosys
    assert ("user", "employer", "星河科技有限公司") in xinghe
    assert school == {("user", "occupation", "数学老师")}  # a kind of school is no employer
    assert union == {("user", "employer", "协和"), ("user", "occupation", "主治医生")}


def test_whose_diet_a_canonical_value_is() -> None:
    (mine,) = _written("以后给我推荐菜谱的时候记住，我吃素，我女儿不吃辣。")
    assert ("user", "diet", "vegetarian") in mine
    assert ("user", "daughter_diet", "vegetarian") not in mine


def test_scratch_that_with_a_contrast_keeps_the_new_value() -> None:
    item = bench_item(
        0,
        "Scratch that, the contractor quote came in and the renovation budget is 25k now, not 20k.",
        ["Our renovation budget is 20k."],
    )
    row = write_bench.run(items=[item])["rows"][0]
    assert [tuple(w[0]) for w in row["written"]] == [("user", "budget", "25k")]
    assert "invalidated" in row["actions"]


def test_languages_said_with_how_well_they_are_spoken() -> None:
    zh, zh2, en, native = _written(
        "我英语挺流利的，日语能看懂一点，粤语是母语。",
        "我会说普通话和上海话，英语一般般。",
        "Native Mandarin, fluent English, basic German.",
        "My native language is Portuguese",
    )
    assert {v for _, p, v in zh if p == "speaks"} == {"英语", "日语", "粤语"}
    assert {v for _, p, v in zh2 if p == "speaks"} == {"普通话", "上海话", "英语"}
    assert {v for _, p, v in en if p == "speaks"} == {"mandarin", "english", "german"}
    assert native == {("user", "speaks", "portuguese")}  # "My native" names no hometown


def test_a_value_beside_a_refused_secret_is_kept_without_it() -> None:
    python, mysql, nurse = _written(
        "My key is sk-live-abcdefghijklmnop1234, and the project is on Python 3.12 btw",
        "我们的 DB 是 MySQL 8.0，连接串 mysql://root:hunter2@10.0.0.5:3306/shop",
        "My password is hunter2pass, I'm a nurse",
    )
    assert ("user", "programming_language", "python 3.12") in python
    assert mysql == {("user", "database", "mysql 8.0")}  # not the "mysql" of the secret's URL
    assert nurse == {("user", "occupation", "nurse")}
    for got in (python, mysql, nurse):
        assert not any("sk-live" in v or "hunter2" in v for _, _, v in got)


def test_a_city_in_latin_letters_is_a_place_not_an_employer() -> None:
    berlin, toronto, bakery, google = _written(
        "我是上海人，but 现在在 Berlin 工作",
        "我在 Toronto 做 accountant。",
        "Hey! I run a small bakery in Asheville with my brother.",
        "我在 Google 工作",
    )
    assert ("user", "location", "berlin") in berlin and ("user", "employer", "berlin") not in berlin
    assert ("user", "location", "toronto") in toronto
    assert ("user", "location", "asheville") in bakery
    assert google == {("user", "employer", "google")}
