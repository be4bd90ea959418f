"""WritePipeline end to end on the real store fixtures: insert, supersede, reinforce,
corrections, restore, idempotence, pending/confirm, scopes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.core import Source
from langgraph_memory.core.records import utcnow
from langgraph_memory.write import WriteConfig, WriteReport

from .conftest import make_store


@pytest.fixture
def mem(tmp_path, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    """A server-API store (QdrantClient(":memory:")): cheap to create; the tests that matter
    on both backends use the parametrised ``store`` fixture instead."""
    st = make_store("server", tmp_path, embedder)
    yield st
    st.close()


def _actions(report: WriteReport) -> list[str]:
    return [d.action for d in report.decisions]


def _current(store: MemoryStore, scope: Scope, predicate: str) -> list[str]:
    return [r.object or "" for r in store.list(scope=scope, filters={"predicate": predicate})]


def test_english_preference_is_stored_with_evidence(store: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(store)
    report = pipeline.process_turn(
        "I prefer Chinese",
        scope=alice,
        turn_id="t1",
        message_id="m1",
        thread_id="th",
        checkpoint_id="c1",
    )
    assert _actions(report) == ["inserted"]
    rec = store.get(report.written_ids[0], scope=alice)
    assert (rec.subject, rec.predicate, rec.object, rec.kind.value) == (
        "user",
        "answer_language",
        "Chinese",
        "preference",
    )
    assert rec.evidence.turn_ids == ["t1"] and rec.evidence.message_ids == ["m1"]
    assert rec.evidence.thread_id == "th" and rec.evidence.checkpoint_id == "c1"
    assert rec.source is Source.USER and rec.layer.value == "semantic"


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("我喜欢喝咖啡", "drink", "咖啡"),  # as said; the canonical "coffee" beside it
        ("以后都用中文回答", "answer_language", "Chinese"),
        ("Please always reply in English from now on", "answer_language", "English"),
        ("我喜欢深色模式", "ui_theme", "dark"),
    ],
)
def test_chinese_and_english_preferences_map_to_one_predicate(
    mem: MemoryStore, alice: Scope, text: str, predicate: str, obj: str
) -> None:
    report = WritePipeline(mem).process_turn(text, scope=alice, turn_id="t1", thread_id="th")
    assert _actions(report) == ["inserted"], report.decisions
    assert _current(mem, alice, predicate) == [obj]


def test_actually_i_prefer_supersedes_and_keeps_history(store: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(store)
    first = pipeline.process_turn("以后都用中文回答", scope=alice, turn_id="t1", thread_id="th")
    before = utcnow()
    second = pipeline.process_turn(
        "actually I prefer English", scope=alice, turn_id="t2", thread_id="th"
    )
    assert _actions(second) == ["superseded"]
    assert second.decisions[0].previous_id == first.written_ids[0]
    assert _current(store, alice, "answer_language") == ["English"]
    history = store.history(scope=alice, subject="user", predicate="answer_language")
    assert [h.object for h in history] == ["Chinese", "English"]
    assert history[0].superseded_by == history[1].id
    past = store.search("answer language", alice, k=5, as_of=before - timedelta(milliseconds=1))
    assert "Chinese" in [r.object for r in past.records]
    assert "English" not in [r.object for r in past.records]


def test_exact_duplicate_reinforces_instead_of_inserting(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    first = pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    again = pipeline.process_turn("我喜欢喝茶", scope=alice, turn_id="t2", thread_id="th")
    assert _actions(again) == ["reinforced"]
    rec = mem.get(first.written_ids[0], scope=alice)
    assert rec.access_count == 1 and rec.confidence > first.decisions[0].candidate.confidence
    assert rec.evidence.turn_ids == ["t1", "t2"]
    assert mem.count(scope=alice, filters={"predicate": "drink"}) == 1


def test_same_turn_twice_writes_once_even_with_new_pipeline(
    store: MemoryStore, alice: Scope
) -> None:
    WritePipeline(store).process_turn("I prefer Chinese", scope=alice, turn_id="t1", thread_id="th")
    version = store.memory_version
    again = WritePipeline(store).process_turn(
        "I prefer Chinese", scope=alice, turn_id="t1", thread_id="th"
    )
    assert _actions(again) == ["duplicate_turn"]
    assert store.memory_version == version
    assert store.count(scope=alice, filters={"predicate": "answer_language"}) == 1
    # the same words in another thread are a new turn: reinforcement, not a duplicate
    other = WritePipeline(store).process_turn(
        "I prefer Chinese", scope=alice, turn_id="t1", thread_id="th2"
    )
    assert _actions(other) == ["reinforced"]


def test_ledger_is_invisible_to_recall_and_current_listing(
    store: MemoryStore, alice: Scope
) -> None:
    pipeline = WritePipeline(store)
    pipeline.process_turn("Thanks, that was helpful!", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("answer in Chinese please", scope=alice, turn_id="t2", thread_id="th")
    # "Thanks..." is small talk; the other turn is kept as an episode only (no fact yet)
    assert [r.layer.value for r in store.list(scope=alice)] == ["episodic"]
    found = store.search("write ledger entry pending", alice, k=5).hits
    assert all(h.record.subject != "__write_ledger__" for h in found)
    past = store.search("write ledger entry", alice, k=5, as_of=utcnow()).hits
    assert all(h.record.subject != "__write_ledger__" for h in past)


def test_correction_invalidates_the_corrected_record(store: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(store)
    first = pipeline.process_turn("我叫张三", scope=alice, turn_id="t1", thread_id="th")
    fix = pipeline.process_turn(
        "我的名字不是张三，是李四", scope=alice, turn_id="t2", thread_id="th"
    )
    assert _actions(fix) == ["invalidated", "inserted"]
    old = store.get(first.written_ids[0], scope=alice)
    assert old.valid_to is not None and "corrected" in old.metadata["invalidated"]["reason"]
    assert old.metadata["invalidated_by_turn"] == "th:t2"
    assert _current(store, alice, "name") == ["李四"]
    new = store.get(fix.written_ids[0], scope=alice)
    assert new.metadata["corrects"] == old.id


def test_english_correction_without_predicate_finds_the_value(
    mem: MemoryStore, alice: Scope
) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("I work at Initech", scope=alice, turn_id="t1", thread_id="th")
    fix = pipeline.process_turn(
        "No, it's Globex, not Initech", scope=alice, turn_id="t2", thread_id="th"
    )
    assert _actions(fix) == ["invalidated", "inserted"]
    assert _current(mem, alice, "employer") == ["Globex"]


def test_scratch_that_retracts_the_previous_turn(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("Actually I prefer coffee", scope=alice, turn_id="t2", thread_id="th")
    undo = pipeline.process_turn("scratch that", scope=alice, turn_id="t3", thread_id="th")
    assert _actions(undo) == ["invalidated", "restored"]
    assert _current(mem, alice, "drink") == ["tea"]


def test_reasserting_a_superseded_value_restores_it(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    first = pipeline.process_turn("I prefer vim", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("I prefer emacs", scope=alice, turn_id="t2", thread_id="th")
    back = pipeline.process_turn("I prefer vim", scope=alice, turn_id="t3", thread_id="th")
    assert _actions(back) == ["restored"]
    rec = mem.get(back.written_ids[0], scope=alice)
    assert rec.metadata["restored_from"] == first.written_ids[0]
    assert [h.object for h in mem.history(scope=alice, subject="user", predicate="editor")] == [
        "vim",
        "emacs",
        "vim",
    ]


def test_implicit_preference_needs_repetition(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    once = pipeline.process_turn(
        "answer in Chinese please", scope=alice, turn_id="t1", thread_id="th"
    )
    assert _actions(once) == ["pending"] and "implicit" in once.decisions[0].reason
    assert _current(mem, alice, "answer_language") == []
    assert [p.candidate.object for p in pipeline.pending_items(alice)] == ["Chinese"]
    twice = WritePipeline(mem).process_turn(
        "请用中文回答", scope=alice, turn_id="t2", thread_id="th"
    )
    assert _actions(twice) == ["inserted"], twice.decisions
    assert _current(mem, alice, "answer_language") == ["Chinese"]
    assert pipeline.pending_items(alice) == []


def test_project_fact_pending_until_confirmed(mem: MemoryStore) -> None:
    scope = Scope(user_id="alice", project_id="apollo")
    pipeline = WritePipeline(mem)
    report = pipeline.process_turn(
        "This project uses PostgreSQL", scope=scope, turn_id="t1", thread_id="th"
    )
    assert _actions(report) == ["pending"] and "confirmation" in report.decisions[0].reason
    assert mem.count(scope=scope, filters={"predicate": "database"}) == 0
    confirmed = pipeline.confirm(report.decisions[0].pending_id or "", scope=scope)
    assert [d.action for d in confirmed.decisions] == ["inserted"]
    rec = mem.get(confirmed.written_ids[0], scope=scope)
    assert rec.project_id == "apollo" and rec.object == "PostgreSQL"
    # a project fact is not visible outside its project
    assert (
        mem.count(
            scope=Scope(user_id="alice", project_id="other"), filters={"predicate": "database"}
        )
        == 0
    )


def test_confirmed_flag_writes_project_fact_and_confirms_replayed_turn(mem: MemoryStore) -> None:
    scope = Scope(user_id="alice", project_id="apollo")
    pipeline = WritePipeline(mem)
    direct = pipeline.process_turn(
        "我们项目用的是Redis", scope=scope, turn_id="t1", thread_id="th", confirmed=True
    )
    assert _actions(direct) == ["inserted"]
    pipeline.process_turn("this project uses pytest", scope=scope, turn_id="t2", thread_id="th")
    replay = pipeline.process_turn(
        "this project uses pytest", scope=scope, turn_id="t2", thread_id="th", confirmed=True
    )
    assert _actions(replay) == ["inserted"]
    assert mem.count(scope=scope, filters={"predicate": "test_framework"}) == 1


def test_user_level_fact_in_project_scope_is_stored_without_project(mem: MemoryStore) -> None:
    scope = Scope(user_id="alice", project_id="apollo")
    report = WritePipeline(mem).process_turn(
        "I prefer dark mode", scope=scope, turn_id="t1", thread_id="th"
    )
    rec = mem.get(report.written_ids[0], scope=scope)
    assert rec.project_id is None
    assert _current(mem, Scope(user_id="alice"), "ui_theme") == ["dark"]


def test_users_do_not_share_memory(mem: MemoryStore, alice: Scope, bob: Scope) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    report = pipeline.process_turn("I prefer coffee", scope=bob, turn_id="t1", thread_id="th")
    assert _actions(report) == ["inserted"]
    assert _current(mem, alice, "drink") == ["tea"] and _current(mem, bob, "drink") == ["coffee"]


def test_model_and_tool_sources_are_not_user_facts(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    for i, source in enumerate((Source.MODEL, Source.TOOL)):
        report = pipeline.process_turn(
            "The user prefers Python", scope=alice, turn_id=f"t{i}", source=source
        )
        assert report.decisions and all(d.action == "rejected" for d in report.decisions)
        assert "not a user fact" in report.decisions[0].reason
    assert mem.list(scope=alice, filters={"layer": "semantic"}) == []


def test_missing_turn_id_is_rejected_for_lack_of_evidence(mem: MemoryStore, alice: Scope) -> None:
    report = WritePipeline(mem).process_turn("I prefer tea", scope=alice, turn_id=None)
    assert _actions(report) == ["rejected"] and "evidence" in report.decisions[0].reason


def test_every_decision_is_logged_with_reason(
    mem: MemoryStore, alice: Scope, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="langgraph_memory.write"):
        WritePipeline(mem).process_turn(
            "maybe I prefer tea. I prefer Chinese", scope=alice, turn_id="t1", thread_id="th"
        )
    events = [r for r in caplog.records if getattr(r, "event", None) == "write_decision"]
    facts = [r for r in events if r.__dict__["kind"] != "episode"]
    assert sorted(r.__dict__["action"] for r in facts) == ["inserted", "working"]
    assert [r.__dict__["action"] for r in events if r.__dict__["kind"] == "episode"] == ["inserted"]
    assert all(r.__dict__["reason"] for r in events)
    assert all(r.__dict__["user_id"] == "alice" for r in events)


def test_min_confidence_is_configurable(mem: MemoryStore, alice: Scope) -> None:
    strict = WritePipeline(mem, WriteConfig(min_confidence=0.95))
    report = strict.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    assert _actions(report) == ["rejected"] and "below threshold" in report.decisions[0].reason


async def test_async_process_turn(mem: MemoryStore, alice: Scope) -> None:
    report = await WritePipeline(mem).aprocess_turn(
        "我喜欢喝茶", scope=alice, turn_id="t1", thread_id="th"
    )
    assert _actions(report) == ["inserted"]


def test_confirming_a_pending_preference_writes_it_once(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    report = pipeline.process_turn("回答简短一点", scope=alice, turn_id="t1", thread_id="th")
    (pending,) = pipeline.pending_items(alice)
    assert pending.pending_id == report.decisions[0].pending_id
    assert pending.candidate.key() == ("user", "response_length", "concise")
    done = pipeline.confirm(pending.pending_id or "", scope=alice)
    assert [d.action for d in done.decisions] == ["inserted"]
    assert pipeline.pending_items(alice) == []
    again = pipeline.confirm(pending.pending_id or "", scope=alice)
    assert [d.action for d in again.decisions] == ["duplicate_turn"]
    assert _current(mem, alice, "response_length") == ["concise"]


def test_correcting_one_value_of_a_multi_valued_fact(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("我对花生过敏", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("我对海鲜过敏", scope=alice, turn_id="t2", thread_id="th")
    fix = pipeline.process_turn(
        "我不是对花生过敏，是对芒果过敏", scope=alice, turn_id="t3", thread_id="th"
    )
    assert [(d.action, d.candidate.object) for d in fix.decisions] == [
        ("invalidated", "芒果"),
        ("inserted", "芒果"),
    ]
    assert sorted(_current(mem, alice, "allergy")) == ["海鲜", "芒果"]


def test_withdrawing_a_constraint(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("不要用表情符号", scope=alice, turn_id="t1", thread_id="th")
    lifted = pipeline.process_turn("可以用表情了", scope=alice, turn_id="t2", thread_id="th")
    assert [d.action for d in lifted.decisions] == ["invalidated"]
    assert _current(mem, alice, "must_not") == []
    nothing = pipeline.process_turn(
        "you can use markdown now", scope=alice, turn_id="t3", thread_id="th"
    )
    assert [d.action for d in nothing.decisions] == ["rejected"]


def test_scratch_that_after_a_mere_repetition_retracts_nothing(
    mem: MemoryStore, alice: Scope
) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("I love tea", scope=alice, turn_id="t2", thread_id="th")
    undo = pipeline.process_turn("scratch that", scope=alice, turn_id="t3", thread_id="th")
    assert [d.action for d in undo.decisions] == ["rejected"]
    assert _current(mem, alice, "drink") == ["tea"]


def test_correction_within_one_turn(mem: MemoryStore, alice: Scope) -> None:
    report = WritePipeline(mem).process_turn(
        "my name is Bob. No, it's Rob", scope=alice, turn_id="t1", thread_id="th"
    )
    assert [d.action for d in report.decisions] == ["inserted", "invalidated", "inserted"]
    assert _current(mem, alice, "name") == ["Rob"]


def test_several_facts_in_one_chinese_sentence(mem: MemoryStore, alice: Scope) -> None:
    report = WritePipeline(mem).process_turn(
        "我叫李雷，我在上海工作，以后用中文回答", scope=alice, turn_id="t1", thread_id="th"
    )
    assert sorted(d.candidate.key() for d in report.decisions) == [
        ("user", "answer_language", "Chinese"),
        ("user", "location", "上海"),
        ("user", "name", "李雷"),
    ]


def test_replaying_a_retraction_after_a_lost_ledger_entry_is_safe(
    mem: MemoryStore, alice: Scope
) -> None:
    pipeline = WritePipeline(mem)
    pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("I prefer dark mode", scope=alice, turn_id="t2", thread_id="th")
    pipeline.process_turn("scratch that", scope=alice, turn_id="t3", thread_id="th")
    # simulate a crash between the write and its ledger entry: drop the ledger, replay
    for rec in mem.list(scope=alice, current_only=False):
        if rec.subject == "__write_ledger__":
            mem.delete(rec.id, scope=alice)
    replay = WritePipeline(mem).process_turn(
        "scratch that", scope=alice, turn_id="t3", thread_id="th"
    )
    assert [d.action for d in replay.decisions] == ["duplicate_turn"]
    assert _current(mem, alice, "drink") == ["tea"] and _current(mem, alice, "ui_theme") == []


def test_replay_without_ledger_changes_no_memory(mem: MemoryStore, alice: Scope) -> None:
    turns = [
        "I prefer tea",
        "以后都用中文回答",
        "actually I prefer coffee",
        "我叫张三",
        "我的名字不是张三，是李四",
        "don't use emojis",
        "I prefer tea",
    ]
    pipeline = WritePipeline(mem)
    for i, text in enumerate(turns):
        pipeline.process_turn(text, scope=alice, turn_id=f"t{i}", thread_id="th")

    def snapshot() -> list[tuple[str | None, str | None, int, int]]:
        return sorted(
            (r.predicate, r.object, r.version, r.access_count)
            for r in mem.list(scope=alice, current_only=False)
            if r.subject != "__write_ledger__"
        )

    before = snapshot()
    for rec in mem.list(scope=alice, current_only=False):
        if rec.subject == "__write_ledger__":
            mem.delete(rec.id, scope=alice)
    fresh = WritePipeline(mem)
    for i, text in enumerate(turns):
        report = fresh.process_turn(text, scope=alice, turn_id=f"t{i}", thread_id="th")
        assert all(d.action == "duplicate_turn" for d in report.decisions), (text, report.decisions)
    assert snapshot() == before


def test_pasted_document_is_bounded(mem: MemoryStore, alice: Scope) -> None:
    long_clause = "Remember that " + "the quarterly report lists many numbers " * 6
    text = " ".join(f"I like item{i}." for i in range(40)) + " " + long_clause
    report = WritePipeline(mem, WriteConfig(max_candidates=5, max_text_chars=100)).process_turn(
        text, scope=alice, turn_id="t1", thread_id="th"
    )
    assert len(report.decisions) == 5
    assert all(len(d.candidate.text) <= 101 for d in report.decisions)
    big = WritePipeline(mem, WriteConfig(max_text_chars=100)).process_turn(
        long_clause, scope=alice, turn_id="t2", thread_id="th"
    )
    assert [d.action for d in big.decisions] == ["inserted"]
    assert len(mem.get(big.written_ids[0], scope=alice).text) <= 101
    document = WritePipeline(mem).process_turn(
        "Remember that " + "lorem ipsum dolor " * 400, scope=alice, turn_id="t3", thread_id="th"
    )
    # a pasted document is not a semantic fact
    assert [d.action for d in document.decisions] == ["skipped"]


def test_written_facts_are_recalled_across_languages(mem: MemoryStore, alice: Scope) -> None:
    """The record text (the user's words) plus its triple as context make facts findable by
    paraphrased questions in either language."""
    pipeline = WritePipeline(mem)
    for i, text in enumerate(
        [
            "以后都用中文回答",
            "我对花生过敏",
            "My name is Li Lei",
            "I live in Berlin",
            "don't use emojis",
            "我喜欢喝咖啡",
            "My timezone is UTC+8",
            "我在腾讯工作",
        ]
    ):
        pipeline.process_turn(text, scope=alice, turn_id=f"t{i}", thread_id="th")
    for query, predicate in [
        ("which language should I answer in?", "answer_language"),
        ("有什么食物过敏", "allergy"),
        ("what's my name", "name"),
        ("where does the user live", "location"),
        ("can I use emoji", "must_not"),
        ("用户在哪家公司工作", "employer"),
    ]:
        hits = mem.search(query, alice, k=3)
        assert predicate in [h.record.predicate for h in hits], (query, hits.records)


def test_prune_ledger_and_adapter_store(mem: MemoryStore, alice: Scope) -> None:
    from langgraph_memory import LangGraphMemoryStore

    pipeline = WritePipeline(LangGraphMemoryStore(mem))  # the graph's adapter is unwrapped
    assert pipeline.store is mem
    pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    pipeline.process_turn("回答简短一点", scope=alice, turn_id="t2", thread_id="th")

    def ledger() -> list[str]:
        return sorted(
            (r.predicate or "")[:5]
            for r in mem.list(scope=alice, current_only=False, include_internal=True)
            if r.subject == "__write_ledger__"
        )

    assert ledger() == ["pendi", "turn:", "turn:"]
    assert pipeline.prune_ledger(alice, older_than_days=1) == 0
    assert pipeline.prune_ledger(alice, older_than_days=0) == 2  # unresolved pending kept
    assert ledger() == ["pendi"]
    assert [r.object for r in mem.list(scope=alice, filters={"layer": "semantic"})] == ["tea"]
    with pytest.raises(ValueError):
        WritePipeline(object())  # type: ignore[arg-type]


# ---------------------------------------------------------------------- corrections' targets
def _facts(store: MemoryStore, scope: Scope) -> set[tuple[str | None, str | None]]:
    return {
        (r.predicate, r.object)
        for r in store.list(scope=scope, filters={"layer": "semantic"})
        if r.subject != "__write_ledger__"
    }


def _run(pipeline: WritePipeline, scope: Scope, turns: list[tuple[str, str]]) -> WriteReport:
    report: WriteReport | None = None
    for i, (thread, text) in enumerate(turns):
        report = pipeline.process_turn(
            text, scope=scope, turn_id=f"t{i}", thread_id=thread, confirmed=True
        )
    assert report is not None
    return report


def test_scratch_that_targets_the_previous_turn_not_the_newest_record(
    mem: MemoryStore, alice: Scope, caplog: pytest.LogCaptureFixture
) -> None:
    """Probe failure: the retraction hit "I'm vegetarian" (the thread's newest record) while
    the previous turn had stored nothing, and eu-central-1 was never stored."""
    caplog.set_level(logging.INFO, logger="langgraph_memory.write")
    report = _run(
        WritePipeline(mem),
        alice,
        [
            ("th", "I'm vegetarian and I love tea."),
            ("th", "What's the weather like in Berlin today?"),
            ("th", "Actually, scratch that: we moved to eu-central-1 last month."),
        ],
    )
    assert _facts(mem, alice) == {
        ("diet", "vegetarian"),
        ("drink", "tea"),
        ("cloud_region", "eu-central-1"),
    }
    assert "nothing" in " ".join(d.reason for d in report.decisions)
    assert not [r for r in caplog.records if "retracted record" in r.getMessage()]


def test_scratch_that_withdraws_what_the_previous_turn_wrote(
    mem: MemoryStore, alice: Scope, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="langgraph_memory.write")
    pipeline = WritePipeline(mem)
    _run(
        pipeline,
        alice,
        [
            ("th", "I prefer tea"),
            ("other", "I live in Lyon"),
            ("th", "I'm vegetarian."),
            ("th", "Scratch that, we moved to eu-central-1 last month."),
        ],
    )
    assert _facts(mem, alice) == {
        ("drink", "tea"),
        ("location", "Lyon"),
        ("cloud_region", "eu-central-1"),
    }
    (old,) = [r for r in mem.list(scope=alice, current_only=False) if r.predicate == "diet"]
    lines = [r.getMessage() for r in caplog.records if "retract" in r.getMessage()]
    assert any(old.id in line and "diet" in line and "previous turn" in line for line in lines)


def test_correction_naming_the_old_value_hits_that_record(
    mem: MemoryStore, alice: Scope, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="langgraph_memory.write")
    _run(
        WritePipeline(mem),
        alice,
        [
            ("th", "I live in Lyon"),
            ("th", "I prefer tea"),
            ("th", "Sorry, I meant Lille, not Lyon"),
        ],
    )
    assert _facts(mem, alice) == {("location", "Lille"), ("drink", "tea")}
    (old,) = [r for r in mem.list(scope=alice, current_only=False) if r.object == "Lyon"]
    lines = [r.getMessage() for r in caplog.records]
    assert any("named" in line and old.id in line for line in lines)  # said by id ...
    assert not [line for line in lines if "Lyon" in line]  # ... never by the stored value


def test_chinese_database_correction_in_a_project(mem: MemoryStore) -> None:
    scope = Scope(user_id="alice", project_id="apollo")
    _run(
        WritePipeline(mem),
        scope,
        [
            ("th", "我们项目的数据库用的是 MySQL 8.0。"),
            ("th", "不对，数据库已经换成 Postgres 了，不是 MySQL。"),
        ],
    )
    current = mem.list(scope=scope, filters={"predicate": "database"})
    assert [(r.subject, r.object, r.project_id) for r in current] == [
        ("project", "Postgres", "apollo")
    ]
    (old,) = [
        r
        for r in mem.list(scope=scope, current_only=False, filters={"predicate": "database"})
        if r.object == "MySQL 8.0"
    ]
    assert not old.is_current()


def test_a_new_answer_language_supersedes_the_old_one(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem)
    first = pipeline.process_turn(
        "以后回答我都用中文，简洁一点。", scope=alice, turn_id="t1", thread_id="th"
    )
    assert sorted(_actions(first)) == ["inserted", "inserted"]
    second = pipeline.process_turn("以后都用英文回答", scope=alice, turn_id="t2", thread_id="th")
    assert _actions(second) == ["superseded"]
    third = pipeline.process_turn(
        "From now on answer in Italian", scope=alice, turn_id="t3", thread_id="th"
    )
    assert _actions(third) == ["superseded"]
    assert _facts(mem, alice) == {("answer_language", "Italian"), ("response_length", "concise")}
    assert mem.list(scope=alice, filters={"subject": "assistant"}) == []
