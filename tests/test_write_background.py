"""BackgroundWriter: acknowledged = journaled + fsynced; flush/close drain; a crash after
the acknowledgement (os._exit, SIGKILL) loses nothing; replay writes each turn once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import BackgroundWriter, MemoryStore, Scope, WritePipeline
from langgraph_memory.errors import ConfigError

from .conftest import make_store

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def mem(tmp_path, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    st = make_store("server", tmp_path, embedder)
    yield st
    st.close()


# real things people like: a made-up token ("thing0") is no preference, and the clause
# classifier may rightly read it as chit-chat
LIKES = [
    "hiking",
    "jazz",
    "sushi",
    "chess",
    "gardening",
    "opera",
    "pottery",
    "cycling",
    "tennis",
    "baking",
]


def _drinks(store: MemoryStore, scope: Scope) -> list[str]:
    return sorted(r.object or "" for r in store.list(scope=scope, filters={"predicate": "likes"}))


def test_enqueue_flush_and_close_drain(mem: MemoryStore, alice: Scope, tmp_path: Path) -> None:
    writer = BackgroundWriter(WritePipeline(mem), tmp_path / "journal.jsonl")
    ids = [
        writer.enqueue(f"I like item{i}", scope=alice, turn_id=f"t{i}", thread_id="th")
        for i in range(5)
    ]
    assert writer.flush(timeout=60)
    assert writer.outstanding == 0
    assert _drinks(mem, alice) == [f"item{i}" for i in range(5)]
    assert all(writer.reports[i].decisions[0].action == "inserted" for i in ids)
    writer.enqueue("I like item9", scope=alice, turn_id="t9", thread_id="th")
    assert writer.close(timeout=60)
    assert "item9" in _drinks(mem, alice)
    assert (tmp_path / "journal.jsonl").read_text() == ""  # compacted on a clean close
    with pytest.raises(ConfigError):
        writer.enqueue("I like more", scope=alice, turn_id="t10")


def test_journal_holds_only_redacted_text(mem: MemoryStore, alice: Scope, tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    writer = BackgroundWriter(WritePipeline(mem), journal, start=False)
    writer.enqueue(
        "my email is jane.doe@example.com and my password is Hunter2secret",
        scope=alice,
        turn_id="t1",
    )
    raw = journal.read_text()
    assert "jane.doe@example.com" not in raw and "Hunter2secret" not in raw
    assert "[EMAIL]" in raw and "[PASSWORD]" in raw
    assert writer.close(timeout=60)
    # the password placeholder still refuses the clause (and the episode) after the journal
    # round trip
    assert mem.list(scope=alice) == []


def test_enqueue_requires_turn_id_and_journal_is_exclusive(
    mem: MemoryStore, alice: Scope, tmp_path: Path
) -> None:
    writer = BackgroundWriter(WritePipeline(mem), tmp_path / "j.jsonl")
    with pytest.raises(ConfigError):
        writer.enqueue("I like tea", scope=alice, turn_id="")
    with pytest.raises(ConfigError):
        BackgroundWriter(WritePipeline(mem), tmp_path / "j.jsonl")
    writer.close()


def test_unprocessed_entries_are_replayed_once(
    mem: MemoryStore, alice: Scope, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    pipeline = WritePipeline(mem)
    # a writer whose worker never ran: acknowledged entries only in the journal
    stopped = BackgroundWriter(pipeline, journal, start=False)
    for i in range(3):
        stopped.enqueue(f"I like {LIKES[i]}", scope=alice, turn_id=f"t{i}", thread_id="th")
    # simulate the first entry having been persisted before the crash (no done marker)
    pipeline.process_turn(f"I like {LIKES[0]}", scope=alice, turn_id="t0", thread_id="th")
    stopped._journal.close()  # crash: no close(), no drain
    import fcntl

    fcntl.flock(stopped._lock_file.fileno(), fcntl.LOCK_UN)
    # a torn last line (never acknowledged) is skipped
    with open(journal, "a", encoding="utf-8") as fh:
        fh.write('{"op": "enq", "id": "torn", "te')
    again = BackgroundWriter(WritePipeline(mem), journal)
    assert again.flush(timeout=60)
    assert _drinks(mem, alice) == sorted(LIKES[:3])
    assert mem.count(scope=alice, filters={"predicate": "likes"}) == 3
    actions = sorted(r.decisions[0].action for r in again.reports.values())
    assert actions == ["duplicate_turn", "inserted", "inserted"]
    again.close()


def test_failed_entries_are_recorded_not_lost_silently(
    mem: MemoryStore, alice: Scope, tmp_path: Path
) -> None:
    class Broken(WritePipeline):
        def process_turn(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise RuntimeError("store down")

    journal = tmp_path / "j.jsonl"
    writer = BackgroundWriter(Broken(mem), journal, max_retries=2, retry_delay_s=0.001)
    writer.enqueue("I like tea", scope=alice, turn_id="t1", thread_id="th")
    assert writer.flush(timeout=30)
    assert len(writer.failed) == 1 and "store down" in writer.failed[0]["error"]
    ops = [json.loads(line)["op"] for line in journal.read_text().splitlines()]
    assert ops == ["enq", "failed"]
    writer.close()


_CHILD = textwrap.dedent(
    """
    import os, signal, sys, time
    sys.path.insert(0, {repo!r})
    from langgraph_memory import MemoryStore
    from langgraph_memory.embeddings import USEEmbedder
    from langgraph_memory import BackgroundWriter, WritePipeline
    store = MemoryStore(path={store!r}, embedder=USEEmbedder())
    writer = BackgroundWriter(WritePipeline(store), {journal!r}, start={start})
    for i in range(4):
        writer.enqueue(f"I like snack{{i}}", scope="alice", turn_id=f"t{{i}}", thread_id="th")
    print("ACK", flush=True)
    if {mode!r} == "exit":
        os._exit(0)
    time.sleep(60)
    """
)


@pytest.mark.parametrize("mode", ["exit", "sigkill"])
def test_crash_after_acknowledgement_loses_nothing(mode: str, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    store_path, journal = tmp_path / "mem", tmp_path / "journal.jsonl"
    script = _CHILD.format(
        repo=str(REPO), store=str(store_path), journal=str(journal), start=mode == "exit", mode=mode
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.strip() == "ACK", child.stderr.read() if child.stderr else ""
    if mode == "sigkill":
        child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode in (0, -signal.SIGKILL)
    with MemoryStore(path=store_path, embedder=embedder) as store:
        writer = BackgroundWriter(WritePipeline(store), journal)
        assert writer.flush(timeout=60)
        writer.close()
        alice = Scope(user_id="alice")
        assert _drinks(store, alice) == [f"snack{i}" for i in range(4)]
        assert store.count(scope=alice, filters={"predicate": "likes"}) == 4
    # a second restart has nothing left to replay
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and journal.read_text():
        time.sleep(0.05)
    assert journal.read_text() == ""


async def test_writer_is_a_drop_in_pipeline_for_save_memory(
    mem: MemoryStore, alice: Scope, tmp_path: Path
) -> None:
    writer = BackgroundWriter(WritePipeline(mem), tmp_path / "j.jsonl")
    report = await writer.aprocess_turn(
        "以后都用中文回答", scope=alice, turn_id="t1", thread_id="th", message_id="m1"
    )
    assert report.queued and report.decisions == [] and report.turn_key == "th:t1"
    assert await writer.aflush(timeout=60)
    assert writer.reports[report.queued].decisions[0].action == "inserted"
    writer.close()


def test_journal_is_compacted_when_idle(mem: MemoryStore, alice: Scope, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    writer = BackgroundWriter(WritePipeline(mem), journal, compact_every=6)
    for i in range(10):
        writer.enqueue(f"I like {LIKES[i]}", scope=alice, turn_id=f"t{i}", thread_id="th")
        if i % 3 == 2:
            assert writer.flush(timeout=60)
    assert writer.flush(timeout=60)
    lines = journal.read_text().splitlines()
    assert len(lines) < 20  # 10 entries + 10 done markers without compaction
    assert mem.count(scope=alice, filters={"predicate": "likes"}) == 10
    writer.close()


def test_background_writer_behind_a_compiled_save_memory_node(
    mem: MemoryStore, tmp_path: Path
) -> None:
    from langgraph.graph import END, START, StateGraph

    from langgraph_memory import AgentState, MemoryContext, SaveMemory

    writer = BackgroundWriter(WritePipeline(mem), tmp_path / "j.jsonl")
    builder = StateGraph(AgentState, context_schema=MemoryContext)
    builder.add_node("save_memory", SaveMemory(pipeline=writer))
    builder.add_edge(START, "save_memory")
    builder.add_edge("save_memory", END)
    graph = builder.compile()
    state: Any = {"messages": [("user", "以后都用中文回答")]}
    out = graph.invoke(state, context=MemoryContext(user_id="alice"))
    # queued: the graph did not wait for the store, and memory_writes says so
    assert [w["action"] for w in out["memory_writes"]] == ["queued"]
    assert "BackgroundWriter.reports" in out["memory_writes"][0]["reason"]
    assert writer.flush(timeout=60)
    alice = Scope(user_id="alice")
    assert [r.object for r in mem.list(scope=alice, filters={"predicate": "answer_language"})] == [
        "Chinese"
    ]
    writer.close()


def test_forget_user_drops_queued_turns_from_the_journal(
    mem: MemoryStore, alice: Scope, bob: Scope, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    writer = BackgroundWriter(WritePipeline(mem), journal, start=False)
    writer.enqueue("I like alpine skiing", scope=alice, turn_id="t1", thread_id="a")
    writer.enqueue("I like bobsleigh racing", scope=bob, turn_id="t1", thread_id="b")
    writer.enqueue("I like bobcats", scope=bob, turn_id="t2", thread_id="b")
    assert writer.forget_user("bob") == 2
    assert "bobsleigh" not in journal.read_text() and "bobcats" not in journal.read_text()
    assert writer.close(timeout=60)
    assert _drinks(mem, alice) == ["alpine skiing"]
    assert mem.list(scope=bob) == []
