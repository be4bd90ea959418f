"""Kinds the words fix (issue 12): health limits are constraints, a rule kept as a note is a
rule, "don't call me X" is no name. Pure checks, then the real pipeline (real classifier and
embedder)."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.write.guide_kinds import is_health_limit, settle, states_rule
from langgraph_memory.write.types import Candidate


def _note(text: str, predicate: str = "note", kind: str = "stable_fact") -> Candidate:
    return Candidate(subject="user", predicate=predicate, object=text, text=text, kind=kind)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "日程别排在周三下午，那会儿我固定有课",
        "Any venue or hotel you suggest has to be wheelchair accessible",
        "周报 always 用 bullet points",
        "给我的报表数字一律保留两位小数",
    ],
)
def test_a_rule_for_the_assistant_is_a_rule(text: str) -> None:
    assert states_rule(text)
    # words alone do not make a standing rule of a note (see guide_kinds' docstring)
    assert settle(_note(text)).predicate == "note"


@pytest.mark.parametrize(
    "text",
    [
        "I never drink coffee after 5",
        "I have to finish this report tonight",
        "我只喝茶",
        "Don't you think it's cold today?",
        "My partner hates it when I don't call",
        "maybe never use tabs",
        "My mom always says 'never go to bed angry'",
        "我在网上看到说铸铁锅不能用洗洁精洗",
    ],
)
def test_the_users_own_habit_or_a_question_is_no_rule(text: str) -> None:
    assert not states_rule(text)
    assert settle(_note(text)).kind == "stable_fact"


def test_health_limits_of_anyone_are_constraints() -> None:
    assert is_health_limit("diet") and is_health_limit("son_allergy")
    assert not is_health_limit("dietitian")
    diet = Candidate(subject="user", predicate="diet", object="vegan", text="I went vegan")
    assert settle(diet).kind == "constraint"
    son = Candidate(
        subject="user", predicate="son_allergy", object="peanuts", text="my son: peanuts"
    )
    assert settle(son).kind == "constraint"


def test_a_vetoed_or_retracted_candidate_is_left_as_it_is() -> None:
    diet = Candidate(subject="user", predicate="diet", object="vegan", text="x", vetoed="noise")
    assert settle(diet).kind == "stable_fact"
    rule = _note("日程别排在周三下午").model_copy(update={"retract": True})
    assert settle(rule).predicate == "note"


def test_dont_call_me_is_a_rule_not_a_name() -> None:
    name = Candidate(
        subject="user", predicate="name", object="buddy", text="never call me buddy, it's weird"
    )
    settled = settle(name)
    assert (settled.subject, settled.predicate) == ("assistant", "must_not")
    assert "call me buddy" in settled.object
    real = Candidate(subject="user", predicate="name", object="Tim", text="call me Tim")
    assert settle(real).predicate == "name"


# ---------------------------------------------------------------- through the pipeline
def _written(mem: MemoryStore, text: str) -> set[tuple[str, str, str, str]]:
    WritePipeline(mem).process_turn(text, scope=Scope(user_id="u"), turn_id="t1", thread_id="th")
    return {
        (r.subject or "", r.predicate or "", (r.object or "").casefold(), r.kind.value)
        for r in mem.list(scope=Scope(user_id="u"))
        if r.predicate != "said"
    }


def test_pipeline_dont_call_me_stores_a_rule(mem: MemoryStore) -> None:
    got = _written(mem, "以后别叫我亲了，怪肉麻的")
    assert not any(p == "name" for (_, p, _, _) in got)
    assert any(p == "must_not" and "叫我亲" in o and k == "constraint" for (_, p, o, k) in got)


def test_pipeline_went_vegan_is_a_constraint(mem: MemoryStore) -> None:
    got = _written(mem, "I went vegan two years ago.")
    assert ("user", "diet", "vegan", "constraint") in got


# ---------------------------------------------------------------- narrative turns
STORY = (
    "I have to tell you about my weekend. We drove to the coast and the traffic was awful. "
    "Nothing went as planned, we just kept arguing about the playlist in the car. "
    "Anyway, what's a good podcast for long drives?"
)
STORY_ZH = (
    "我最近在家学着做红烧肉，可是每次做出来颜色都很淡。我是照着网上的菜谱做的，酱油也放得不少。"
    "请问是火候的问题，还是要先炒糖色？"
)
TASK_WITH_RULE = (
    "My team just finished the quarterly report and everyone is exhausted. Our lead wants it "
    "polished by Monday. Whenever you edit documents for me you must keep British spelling. "
    "Can you tighten the intro below?"
)


@pytest.mark.parametrize("text", [STORY, STORY_ZH])
def test_a_story_or_question_gives_no_free_text_note(mem: MemoryStore, text: str) -> None:
    got = _written(mem, text)
    assert not [t for t in got if t[1] in {"note", "prefers", "must", "must_not"}], got


def test_a_rule_addressed_to_the_assistant_in_a_long_task_is_kept(mem: MemoryStore) -> None:
    got = _written(mem, TASK_WITH_RULE)
    assert any(
        s == "assistant" and "british spelling" in o and k == "constraint" for (s, _, o, k) in got
    ), got


def test_a_narrative_note_is_vetoed_with_a_reason_not_dropped(mem: MemoryStore) -> None:
    from langgraph_memory.write import decide

    note = Candidate(
        subject="user", predicate="note", object="we just kept arguing", text="we just kept arguing"
    )
    vetoed = decide._unless_narrative(note)
    assert vetoed.vetoed == decide.NARRATIVE_REASON
    typed = note.model_copy(update={"predicate": "allergy", "object": "peanuts"})
    assert decide._unless_narrative(typed).vetoed is None
    liked = note.model_copy(update={"text": "I love long walks after dinner"})
    assert decide._unless_narrative(liked).vetoed is None


# ---------------------------------------------------------------- quoted words
@pytest.mark.parametrize(
    "text",
    ["Translate 'I am a nurse' into French, please.", "把“我住在北京”翻译成英文"],
)
def test_quoted_words_are_not_the_users_statement(mem: MemoryStore, text: str) -> None:
    got = _written(mem, text)
    assert not [t for t in got if t[1] in {"occupation", "location"}], got


def test_a_quoted_form_of_address_is_still_a_rule(mem: MemoryStore) -> None:
    got = _written(mem, "Don't call me 'champ'. I find it patronising.")
    assert not any(p == "name" for (_, p, _, _) in got), got
    assert any(p == "must_not" and "champ" in o for (_, p, o, _) in got), got


def test_an_apostrophe_quotes_nothing() -> None:
    from langgraph_memory.write.decide import quoted_spans

    assert quoted_spans("I'm from Lyon, it's nice") == []
    assert quoted_spans("Translate 'I am a nurse' into French") == ["I am a nurse"]
