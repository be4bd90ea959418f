"""Forget-user and the background writer's journal: every line of the user leaves the file at
once (processed turns included), queued turns are dropped and counted, a turn being written
is waited for, and a stopped app's journal is purged offline."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from langgraph_memory import BackgroundWriter, MemoryStore, Scope, WritePipeline
from langgraph_memory.write.journal import JournalInUse, OfflineJournal

ALICE, BOB = Scope("alice"), Scope("bob")


@pytest.fixture
def mem(tmp_path: Path, embedder) -> MemoryStore:  # type: ignore[no-untyped-def]
    store = MemoryStore(path=tmp_path / "mem", embedder=embedder)
    yield store  # type: ignore[misc]
    store.close()


def test_processed_turns_leave_the_journal_at_once(mem: MemoryStore, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    writer = BackgroundWriter(WritePipeline(mem), journal)  # compacts only every 1000 lines
    for i in range(3):
        writer.enqueue(f"I like tea number ALJ{i}QQ", scope=ALICE, turn_id=f"a{i}", thread_id="a")
        writer.enqueue(f"I like chess opening BOJ{i}QQ", scope=BOB, turn_id=f"b{i}", thread_id="b")
    assert writer.flush(timeout=60)
    assert "ALJ0QQ" in journal.read_text()  # processed, still in the file (the bug)
    purge = writer.purge_user("alice")
    assert purge == {"queued_turns": 0, "journal_lines": 3}
    text = journal.read_text()
    assert "ALJ" not in text and '"alice"' not in text
    writer.enqueue("I like go BOJ9QQ", scope=BOB, turn_id="b9", thread_id="b")
    assert writer.close(timeout=60)
    assert any("BOJ9QQ" in r.text for r in mem.list(scope=BOB, current_only=False))


def test_queued_turns_are_dropped_and_counted(mem: MemoryStore, tmp_path: Path) -> None:
    from langgraph_memory import forget_user

    journal = tmp_path / "j.jsonl"
    writer = BackgroundWriter(WritePipeline(mem), journal, start=False)
    writer.enqueue("I like alpine skiing ALQ1QQ", scope=ALICE, turn_id="t1", thread_id="a")
    writer.enqueue("I like hiking ALQ2QQ", scope=ALICE, turn_id="t2", thread_id="a")
    writer.enqueue("I like bobsleigh BOQ1QQ", scope=BOB, turn_id="t1", thread_id="b")
    receipt = forget_user("alice", store=mem, background_writer=writer)
    assert receipt["queued_turns"] == 2 and receipt["journal_lines"] == 2
    assert receipt["residue"]["journal_file"] == 0 and receipt["residue"]["queued_turns"] == 0
    writer.start()
    assert writer.close(timeout=60)
    assert mem.count(scope=ALICE, current_only=False) == 0  # never landed
    assert any("BOQ1QQ" in r.text for r in mem.list(scope=BOB, current_only=False))


def test_a_turn_being_written_is_waited_for(mem: MemoryStore, tmp_path: Path) -> None:
    """A turn of the user in the middle of processing must finish before forget deletes,
    or it would land after the deletion."""
    from langgraph_memory import forget_user

    started, release = threading.Event(), threading.Event()
    pipeline = WritePipeline(mem)
    real = pipeline.process_turn

    def slow(text: str, **kwargs):  # type: ignore[no-untyped-def]
        started.set()
        release.wait(30)
        return real(text, **kwargs)

    pipeline.process_turn = slow  # type: ignore[method-assign]
    writer = BackgroundWriter(pipeline, tmp_path / "j.jsonl")
    writer.enqueue("I like slow cooking ALS1QQ", scope=ALICE, turn_id="t1", thread_id="a")
    assert started.wait(30)
    threading.Timer(0.5, release.set).start()
    t0 = time.monotonic()
    receipt = forget_user("alice", store=mem, background_writer=writer)
    assert time.monotonic() - t0 >= 0.4  # it waited for the write ...
    assert receipt["queued_turns"] == 0
    assert mem.count(scope=ALICE, current_only=False) == 0  # ... and then erased it
    assert writer.close(timeout=60)
    assert mem.count(scope=ALICE, current_only=False) == 0


def test_offline_journal_purge_and_lock(mem: MemoryStore, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    writer = BackgroundWriter(WritePipeline(mem), journal, start=False)
    writer.enqueue("I like tea ALO1QQ", scope=ALICE, turn_id="t1", thread_id="a")
    writer.enqueue("I like chess BOO1QQ", scope=BOB, turn_id="t1", thread_id="b")
    with pytest.raises(JournalInUse):
        OfflineJournal(journal)  # a running writer holds it
    writer._closed = True  # the app stops without draining (its journal keeps both turns)
    writer._journal.close()
    writer._lock_file.close()
    offline = OfflineJournal(journal)
    assert offline.purge_user("alice") == {"queued_turns": 1, "journal_lines": 1}
    offline.close()
    assert "ALO1QQ" not in journal.read_text() and "BOO1QQ" in journal.read_text()
    restarted = BackgroundWriter(WritePipeline(mem), journal)  # replays bob's turn only
    assert restarted.close(timeout=60)
    assert any("BOO1QQ" in r.text for r in mem.list(scope=BOB, current_only=False))
    assert mem.count(scope=ALICE, current_only=False) == 0
