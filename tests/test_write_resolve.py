"""Resolve under concurrency (expected_version, re-read and merge, never last-writer-wins)
and episodic records."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.write import WriteConfig, record_episode
from langgraph_memory.write.episodic import episode_subject

from .conftest import make_store


@pytest.fixture
def mem(tmp_path, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    st = make_store("server", tmp_path, embedder)
    yield st
    st.close()


UNLOCKED = WriteConfig(serialize_writes=False, max_conflict_retries=50)


def _threads(n: int, target: Any) -> None:
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            target(i)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


def test_concurrent_reinforcements_all_count(store: MemoryStore, alice: Scope) -> None:
    WritePipeline(store).process_turn("I prefer tea", scope=alice, turn_id="t0", thread_id="th")
    n = 6
    _threads(
        n,
        lambda i: WritePipeline(store, UNLOCKED).process_turn(
            "我喜欢喝茶", scope=alice, turn_id=f"t{i + 1}", thread_id="th"
        ),
    )
    (rec,) = store.list(scope=alice, filters={"predicate": "drink"})
    assert rec.access_count == n  # no lost update
    assert sorted(rec.evidence.turn_ids) == sorted(["t0", *[f"t{i + 1}" for i in range(n)]])


def test_concurrent_different_values_form_one_chain(mem: MemoryStore, alice: Scope) -> None:
    WritePipeline(mem).process_turn("I prefer vim", scope=alice, turn_id="t0", thread_id="th")
    editors = ["emacs", "VS Code", "PyCharm"]
    _threads(
        len(editors),
        lambda i: WritePipeline(mem, UNLOCKED).process_turn(
            f"I prefer {editors[i]}", scope=alice, turn_id=f"t{i + 1}", thread_id="th"
        ),
    )
    current = mem.list(scope=alice, filters={"predicate": "editor"})
    assert len(current) == 1
    history = mem.history(scope=alice, subject="user", predicate="editor")
    assert sorted(h.object or "" for h in history) == sorted(
        ["vim", *editors]
    )  # every statement kept, none overwritten
    assert sum(1 for h in history if h.superseded_by is None) == 1
    ids = {h.id for h in history}
    assert all(h.superseded_by in ids for h in history if h.superseded_by)


def test_conflict_rereads_and_supersedes_the_winner(mem: MemoryStore, alice: Scope) -> None:
    pipeline = WritePipeline(mem, UNLOCKED)
    pipeline.process_turn("I prefer tea", scope=alice, turn_id="t1", thread_id="th")
    real = mem.supersede
    raced: dict[str, Any] = {}

    def racing_supersede(old_id: str, new: Any, **kw: Any) -> Any:
        if not raced:  # another writer wins between our read and our write
            raced["winner"] = real(old_id, "I prefer coffee", scope=kw["scope"], object="coffee")
        return real(old_id, new, **kw)

    mem.supersede = racing_supersede  # type: ignore[method-assign,assignment]
    report = pipeline.process_turn("I prefer water", scope=alice, turn_id="t2", thread_id="th")
    mem.supersede = real  # type: ignore[method-assign]
    (decision,) = report.decisions
    assert decision.action == "superseded" and decision.previous_id == raced["winner"].id
    assert [h.object for h in mem.history(scope=alice, subject="user", predicate="drink")] == [
        "tea",
        "coffee",
        "water",
    ]


def test_concurrent_inserts_of_one_fact_are_merged(mem: MemoryStore, alice: Scope) -> None:
    _threads(
        4,
        lambda i: WritePipeline(mem, UNLOCKED).process_turn(
            "My timezone is UTC+8", scope=alice, turn_id=f"t{i}", thread_id="th"
        ),
    )
    current = mem.list(scope=alice, filters={"predicate": "timezone"})
    assert len(current) == 1 and current[0].object == "UTC+8"


def test_episode_stored_by_task_id_and_superseded(store: MemoryStore, alice: Scope) -> None:
    first = record_episode(
        store,
        alice,
        "task-42",
        goal="book a flight to Tokyo",
        steps=["search flights", "compare"],
        outcome="in progress",
        failures=[],
        turn_range=("t1", "t5"),
        raw_location="thread th / checkpoint c5",
    )
    assert (first.layer.value, first.kind.value, first.task_id) == ("episodic", "event", "task-42")
    final = record_episode(
        store,
        alice,
        "task-42",
        goal="book a flight to Tokyo",
        steps=["search flights", "compare", {"step": "pay", "card": "4111 1111 1111 1111"}],
        outcome="booked NH 110",
        failures=[{"step": "pay", "why": "card declined, retried with another card"}],
        turn_range=("t1", "t9"),
        raw_location={"thread_id": "th", "checkpoint_id": "c9"},
    )
    current = store.list(scope=alice, filters={"task_id": "task-42", "layer": "episodic"})
    assert [r.id for r in current] == [final.id]
    episode = current[0].metadata["episode"]
    assert episode["outcome"] == "booked NH 110" and episode["turn_range"] == ["t1", "t9"]
    assert episode["failures"][0]["why"].startswith("card declined")
    assert "4111" not in current[0].model_dump_json()  # redacted
    assert [
        h.id
        for h in store.history(scope=alice, subject=episode_subject("task-42"), predicate="episode")
    ] == [first.id, final.id]
    hits = store.search("Tokyo flight outcome", alice, k=3, filters={"task_id": "task-42"})
    assert hits.ids == [final.id]


def test_episode_recorder_every_n_steps_and_finish(mem: MemoryStore, alice: Scope) -> None:
    from langgraph_memory.write import EpisodeRecorder

    rec = EpisodeRecorder(mem, alice, "task-9", goal="migrate the database", every_n_steps=2)
    assert rec.step("dump tables", turn_id="t1") is None
    partial = rec.step("restore", turn_id="t2", failed=True, why="disk full")
    assert partial is not None and partial.metadata["episode"]["outcome"] == "in progress"
    rec.step("free disk", turn_id="t3")
    final = rec.finish("migrated", raw_location="thread th")
    (current,) = mem.list(scope=alice, filters={"task_id": "task-9"})
    assert current.id == final.id
    episode = current.metadata["episode"]
    assert episode["turn_range"] == ["t1", "t3"] and episode["outcome"] == "migrated"
    assert episode["failures"] == [{"step": "restore", "why": "disk full"}]
    assert len(mem.history(scope=alice, subject="task:task-9", predicate="episode")) == 2


# ---------------------------------------------------------------------- correction targets
def test_corrected_value_matches_a_stored_value_with_a_version() -> None:
    from langgraph_memory.write.matching import names_value

    assert names_value("MySQL", "MySQL 8.0")
    assert names_value("mysql", "MySQL")
    assert names_value("Postgres", "PostgreSQL 16")
    assert not names_value("My", "MySQL 8.0")
    assert not names_value("Lyon", "Lille")


def test_a_correction_that_matches_nothing_still_stores_its_value(
    mem: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    caplog.set_level(logging.INFO, logger="langgraph_memory.write")
    scope = Scope(user_id="alice")
    report = WritePipeline(mem).process_turn(
        "Scratch that, we moved to eu-central-1.", scope=scope, turn_id="t1", thread_id="th"
    )
    assert [d.action for d in report.decisions] == ["inserted"]
    assert "nothing" in report.decisions[0].reason
    (rec,) = mem.list(scope=scope, filters={"predicate": "cloud_region"})
    assert (rec.subject, rec.object) == ("user", "eu-central-1")
    assert any("nothing" in r.getMessage() for r in caplog.records)


def test_unstated_owner_follows_the_record_it_corrects(mem: MemoryStore) -> None:
    from langgraph_memory.write import Candidate

    scope = Scope(user_id="alice", project_id="apollo")
    pipeline = WritePipeline(mem)
    pipeline.process_turn(
        "这个项目用的是MySQL", scope=scope, turn_id="t1", thread_id="th", confirmed=True
    )
    bare = Candidate(subject="", predicate="database", object="SQLite", text="数据库换成SQLite了")
    located = pipeline.resolver.locate(bare, scope)
    assert (located.subject, located.scope_level) == ("project", "project")
    alone = pipeline.resolver.locate(bare, Scope(user_id="bob"))
    assert (alone.subject, alone.scope_level) == ("user", "user")


def test_insert_during_an_inflight_supersession_still_forms_one_chain(
    mem: MemoryStore, alice: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic interleaving of the race above: a second writer runs its whole turn in
    the window where the old head is marked superseded and the new one is not yet stored
    (zero current versions), so it inserts a head of its own."""
    from langgraph_memory.store import memory_store as memory_store_module

    WritePipeline(mem).process_turn("I prefer vim", scope=alice, turn_id="t0", thread_id="th")
    ran: list[str] = []

    def interleave(step: str) -> None:
        if step == "supersede:marked" and not ran:
            ran.append(step)
            assert mem.list(scope=alice, filters={"predicate": "editor"}) == []  # the window
            WritePipeline(mem, UNLOCKED).process_turn(
                "I prefer PyCharm", scope=alice, turn_id="t2", thread_id="th"
            )

    monkeypatch.setattr(memory_store_module, "_crash_point", interleave)
    WritePipeline(mem, UNLOCKED).process_turn(
        "I prefer emacs", scope=alice, turn_id="t1", thread_id="th"
    )
    assert ran
    current = mem.list(scope=alice, filters={"predicate": "editor"})
    assert len(current) == 1
    history = mem.history(scope=alice, subject="user", predicate="editor")
    assert sorted(h.object or "" for h in history) == ["PyCharm", "emacs", "vim"]
    assert sum(1 for h in history if h.superseded_by is None) == 1
