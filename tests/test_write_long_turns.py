"""Long turns (issue 12): the durable item said inside a question, a task or a story is
written, and the small talk around it is not. Real pipeline, real classifier, real embedder."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.write.classify import KindPrediction, training_examples
from langgraph_memory.write.decide import blend, context_weight
from langgraph_memory.write.premises import parts, too_long_for_a_note


def _written(mem: MemoryStore, text: str, user: str = "u") -> set[tuple[str, str, str]]:
    WritePipeline(mem).process_turn(text, scope=Scope(user_id=user), turn_id="t1", thread_id="th")
    return {
        (r.predicate or "", (r.object or "").casefold(), r.kind.value)
        for r in mem.list(scope=Scope(user_id=user))
        if r.predicate != "said"
    }


# ---------------------------------------------------------------- pure parts
def test_a_premise_is_a_first_person_part_without_its_connective() -> None:
    assert parts("since I'm lactose intolerant now, what can I bake?") == [
        "I'm lactose intolerant now"
    ]
    assert parts(
        "Could you suggest a few books on design systems, given that I'm a product designer?"
    ) == ["I'm a product designer"]
    assert parts("今晚想吃点清淡的，我对花生过敏，有什么推荐吗") == ["我对花生过敏"]
    assert parts("另外我是做后端开发的，平时主要写 Go") == ["我是做后端开发的"]


def test_questions_requests_and_single_part_sentences_have_no_premise() -> None:
    assert parts("what can I bake, and how long does it take?") == []
    assert parts("帮我写一封邮件给客户，说明下周的交付会延期两天") == []
    assert parts("I'm allergic to shellfish") == []  # one part: the sentence itself


def test_a_note_is_never_a_whole_long_sentence() -> None:
    assert not too_long_for_a_note("I prefer short answers with code first")
    assert too_long_for_a_note(
        "Last weekend we drove up to the lake and rented a canoe, and my son caught his first "
        "fish, a tiny perch that he insisted on naming before we let it go"
    )
    assert too_long_for_a_note(
        "前两天在小区里捡到一只受伤的鸟，送去了动物救助站，今天他们打电话说鸟已经恢复得差不多，可以放生了"
    )


# ---------------------------------------------------------------- context weight
def _prediction(**probs: float) -> KindPrediction:
    kind = max(probs, key=lambda k: probs[k])
    return KindPrediction(
        kind=kind, probability=probs[kind], write_probability=0.0, probabilities=probs
    )


def test_the_turn_outvotes_a_sentence_less_the_longer_the_turn() -> None:
    assert context_weight(2) == 0.5
    assert context_weight(5) == pytest.approx(0.2)
    fact = _prediction(stable_fact=0.7, question=0.3)
    turn = _prediction(stable_fact=0.0, question=1.0)
    assert blend(fact, turn, context_weight(2)).kind == "question"  # two sentences: as before
    assert blend(fact, turn, context_weight(5)).kind == "stable_fact"


# ---------------------------------------------------------------- training examples
def test_a_long_turn_trains_on_the_clause_that_holds_its_item() -> None:
    long_turn = {
        "text": "Ugh, what a week. The car broke down on Tuesday. Anyway, I'm allergic to "
        "shellfish. Any dinner ideas?",
        "kind": "constraint",
        "should_write": True,
        "expected": [["user", "allergy", "shellfish", "constraint"]],
    }
    short_turn = {
        "text": "I'm allergic to peanuts.",
        "kind": "constraint",
        "should_write": True,
        "expected": [["user", "allergy", "peanuts", "constraint"]],
    }
    examples = training_examples([long_turn, short_turn])
    assert (0, "Anyway, I'm allergic to shellfish.", "constraint") in examples
    assert (0, long_turn["text"], "constraint") in examples  # the turn's own reading stays
    assert not any("car broke down" in t and t != long_turn["text"] for _, t, _ in examples)
    assert [e for e in examples if e[0] == 1] == [(1, "I'm allergic to peanuts.", "constraint")]


# ---------------------------------------------------------------- the pipeline
def test_an_allergy_inside_a_question_is_written(mem: MemoryStore) -> None:
    got = _written(mem, "今晚想吃点清淡的，我对花生过敏，有什么推荐吗？")
    assert ("allergy", "花生", "constraint") in got


def test_a_restriction_said_as_the_reason_of_a_question_is_written(mem: MemoryStore) -> None:
    got = _written(mem, "since I'm lactose intolerant now, what can I bake?")
    assert any(p == "dietary_restriction" and "lactose" in o for p, o, _ in got)


def test_a_job_said_inside_a_request_is_written(mem: MemoryStore) -> None:
    got = _written(
        mem,
        "Could you suggest a few books on design systems, given that I'm a product designer "
        "at Figment now?",
    )
    assert ("occupation", "product designer", "stable_fact") in got


def test_a_story_around_a_question_writes_no_note(mem: MemoryStore) -> None:
    got = _written(
        mem,
        "Last weekend we drove up to the lake and rented a canoe, and my son caught his first "
        "fish, a tiny perch that he insisted on naming before we let it go. It was a perfect "
        "day. Do you know if perch are common in lakes around here?",
    )
    assert got == set()


# ---------------------------------------------------------------- traditional Chinese
def test_traditional_chinese_is_read_as_simplified_and_stored_as_said(mem: MemoryStore) -> None:
    from langgraph_memory.write.script import as_said, simplified

    assert simplified("我是护士") is None  # nothing to convert
    text = "我是一名護理師，在醫院急診室工作。"
    simple = simplified(text)
    assert simple == "我是一名护理师，在医院急诊室工作。"
    assert as_said("护理师", simple, text) == "護理師"
    assert as_said("Chinese", simple, text) == "Chinese"
    got = _written(mem, text)
    assert ("occupation", "護理師", "stable_fact") in got
    got = _written(mem, "先講一下，我對花生嚴重過敏，吃到一點點都要送急診。", user="v")
    assert ("allergy", "花生", "constraint") in got


def test_a_dash_ends_a_part_so_a_secret_blocks_only_its_own(mem: MemoryStore) -> None:
    from langgraph_memory.write.extract.markers import PART_SPLIT

    assert PART_SPLIT.split("my pin is [PASSWORD] — I'm vegan") == [
        "my pin is [PASSWORD]",
        "I'm vegan",
    ]
    got = _written(mem, "my wifi password is Copper!Kettle5 — I'm vegan, by the way")
    assert ("diet", "vegan", "constraint") in got
    assert not any("Copper" in o or "copper" in o for _, o, _ in got)


# ---------------------------------------------------------------- correction announcements
def test_a_sentence_that_only_announces_a_correction_corrects_nothing(mem: MemoryStore) -> None:
    from langgraph_memory.write.extract.markers import announces_correction

    assert announces_correction("Oops, I was sloppy earlier.")
    assert announces_correction("不好意思，我前面说错了")
    assert not announces_correction("Actually I live in Lyon")
    pipeline = WritePipeline(mem)
    scope = Scope(user_id="u")
    pipeline.process_turn("I live in Austin.", scope=scope, turn_id="t0", thread_id="th")
    report = pipeline.process_turn(
        "Oops, I was sloppy earlier. I don't live in Austin anymore, I moved to Denver.",
        scope=scope,
        turn_id="t1",
        thread_id="th",
    )
    locations = {r.object for r in mem.list(scope=scope) if r.predicate == "location"}
    assert locations == {"Denver"}  # never "I was sloppy earlier"
    # the sentence after the announcement is the correction it announced
    assert any(
        d.candidate is not None and d.candidate.object == "Denver" and d.candidate.correction
        for d in report.decisions
    )


# ---------------------------------------------------------------- not rules, not premises
def test_the_users_own_obligation_is_no_rule_for_the_assistant(mem: MemoryStore) -> None:
    assert _written(mem, "I must finish this before lunch.") == set()
    got = _written(
        mem,
        "I have to vent for a second. My manager scheduled a quick sync at 4:55 on a Friday "
        "and it went until 6. Nothing was decided. I'm so tired.",
        user="v",
    )
    assert not any(p in {"must", "must_not"} for p, _, _ in got)


def test_a_supposition_is_no_premise() -> None:
    assert parts("如果我以后想去日本留学，是读语言学校好还是直接申请研究所") == []
    assert parts("if I ever moved to Spain, would Valencia suit me") == []


def test_keto_is_a_named_diet(mem: MemoryStore) -> None:
    assert ("diet", "keto", "constraint") in _written(
        mem, "I'm on a keto diet for medical reasons."
    )
    assert ("diet", "keto", "constraint") in _written(
        mem, "我最近在吃生酮，碳水基本不碰。", user="v"
    )


# ------------------------------------------------ someone else's rules, tastes, "以后"
def test_someone_elses_rule_in_a_story_is_no_rule_for_the_assistant(mem: MemoryStore) -> None:
    from langgraph_memory.write.guide_kinds import someone_elses_rule, states_rule

    story = (
        "My friend Dana has this habit where she always orders two desserts and makes everyone"
        " try both. Last night she did it at a fancy place. The waiter looked so confused."
    )
    assert _written(mem, story, "u-dana") == set()
    read = (
        "I read an article claiming that you should never wash cast-iron pans with soap. My"
        " grandmother always did and hers lasted decades. Who's right?"
    )
    assert not any(p in {"must", "must_not"} for p, _, _ in _written(mem, read, "u-pan"))
    assert someone_elses_rule("景区规定可多了：不许带自拍杆上栈道")
    assert someone_elses_rule("我闺蜜每次吃火锅都要点两份毛肚")
    assert not someone_elses_rule("Never email customers directly.")
    assert not someone_elses_rule("我妈说以后别给我推荐辣的")  # "以后": from now on, for us
    assert states_rule("My wife is vegetarian so you must never suggest meat")
    assert not states_rule("My friend always orders two desserts")


def test_a_drink_a_story_mentions_is_no_taste(mem: MemoryStore) -> None:
    rant = (
        "今天 so tired，昨晚隔壁 party 到两点，早上还有个 8am 的 call。"
        "现在脑子完全转不动，咖啡都不管用了。不用安慰我，就是说一声 lol。"
    )
    assert _written(mem, rant, "u-tired") == set()


def test_yihou_after_a_verb_means_after_not_from_now_on() -> None:
    from langgraph_memory.write.extract.markers import FROM_NOW_ON

    for said in ("出来以后大家去吃了火锅", "下班以后去健身", "毕业以后就去了北京"):
        assert not FROM_NOW_ON.search(said), said
    for said in (
        "以后回答用中文",
        "我以后不吃辣了",
        "好的，以后都这样",
        "你以后别这样",
        "所以以后都用表格",
    ):
        assert FROM_NOW_ON.search(said), said


def test_quoted_words_with_apostrophes_are_quoted() -> None:
    from langgraph_memory.write.decide import quoted_spans

    assert quoted_spans("The coach kept shouting 'don't stop, never stop' at us.") == [
        "don't stop, never stop"
    ]
    assert quoted_spans("I'm fine, it's ok") == []


def test_a_friends_habit_is_no_liking_of_the_user(mem: MemoryStore) -> None:
    story = (
        "我闺蜜有个习惯，每次吃火锅都要点两份毛肚，然后非要每个人都尝一口。"
        "昨天我们去一家很贵的店，她又这么干，服务员都愣了。最后结账她还要按谁吃得多来分。"
    )
    assert _written(mem, story, "u-friend") == set()


@pytest.mark.parametrize(
    "said",
    [
        "If I ever got a dog I'd name it Pickles",
        "toying with the idea of switching to vim",
        "We may or may not move the DB to Postgres in Q3",
        "要是以后养狗的话我想养只柴犬",
        "有点想换成Rust试试，不过还在犹豫",
        "要不要换成深色主题呢…再看看吧",
    ],
)
def test_undecided_and_supposed_values_are_not_remembered(mem: MemoryStore, said: str) -> None:
    from langgraph_memory.write.extract.markers import is_hedged

    assert is_hedged(said)
    assert _written(mem, said, "u-hedge") == set()


def test_ordinary_words_are_no_hedge() -> None:
    from langgraph_memory.write.extract.markers import is_hedged

    for said in ("I work from home one day a week", "如果可以的话，以后回答用中文", "I use vim."):
        assert not is_hedged(said), said
