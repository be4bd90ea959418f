"""``langgraph-memory inspect`` and ``forget``: scoped to one user, receipt, zero residue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langgraph_memory import HandleStore, MemoryStore, Scope, create_checkpointer
from langgraph_memory.cli import main


@pytest.fixture
def app_state(tmp_path: Path, embedder) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """An app's on-disk state for two users: store, checkpoints, externalized payloads."""
    from langgraph.checkpoint.base import empty_checkpoint

    paths = {"store": tmp_path / "store", "cp": tmp_path / "cp.sqlite", "handles": tmp_path / "h"}
    with MemoryStore(path=paths["store"], embedder=embedder) as store:
        for user in ("alice", "bob"):
            store.add(f"{user} prefers tea", scope=Scope(user), kind="preference")
            store.add(f"{user} project fact", scope=Scope(user, project_id="p1"))
    handles = HandleStore(paths["handles"])
    for user in ("alice", "bob"):
        handles.put(Scope(user), f"big tool output of {user}")
    cp = create_checkpointer("sqlite", path=paths["cp"])
    for user in ("alice", "bob"):
        config = {"configurable": {"thread_id": f"{user}-t1", "checkpoint_ns": ""}}
        cp.ownership.assign(f"{user}-t1", user)
        cp.put(config, empty_checkpoint(), {"source": "input", "step": 0}, {})
    cp.close()
    return paths


def test_inspect_shows_only_that_user(app_state, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["inspect", "--user", "alice", "--path", str(app_state["store"]), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["user_id"] == "alice"
    texts = sorted(r["text"] for r in data["records"])
    assert texts == ["alice prefers tea", "alice project fact"]  # every project, no one else
    assert all(r["status"] == "active" and r["current"] for r in data["records"])


def test_inspect_requires_a_user(app_state) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["inspect", "--path", str(app_state["store"])])
    with pytest.raises(ValueError):
        main(["inspect", "--user", " ", "--path", str(app_state["store"])])


def test_forget_removes_everything_of_one_user_with_receipt(app_state, capsys, embedder) -> None:  # type: ignore[no-untyped-def]
    argv = [
        "forget",
        "--user",
        "alice",
        "--path",
        str(app_state["store"]),
        "--checkpoints",
        str(app_state["cp"]),
        "--handles",
        str(app_state["handles"]),
    ]
    assert main(argv) == 0
    receipt = json.loads(capsys.readouterr().out)
    assert (
        receipt["records"] == 2 and receipt["threads"] == ["alice-t1"] and receipt["handles"] == 1
    )
    assert receipt["residue"] == {
        "records": 0,
        "keyword_index": 0,
        "threads": 0,
        "handles": 0,
        "queued_turns": 0,
    }
    # bob is untouched everywhere
    with MemoryStore(path=app_state["store"], embedder=embedder) as store:
        assert store.count(scope=Scope("bob"), current_only=False) == 1
        assert store.count(scope=Scope("bob", project_id="p1")) == 2
        assert store.count(scope=Scope("alice", project_id="p1"), current_only=False) == 0
    cp = create_checkpointer("sqlite", path=app_state["cp"])
    assert cp.ownership.threads("bob") == ["bob-t1"]
    bobs = {"configurable": {"thread_id": "bob-t1", "checkpoint_ns": "", "user_id": "bob"}}
    assert cp.get_tuple(bobs) is not None
    assert cp.get_tuple({"configurable": {"thread_id": "alice-t1", "checkpoint_ns": ""}}) is None
    cp.close()
    assert HandleStore(app_state["handles"]).list(Scope("bob"))


def test_forget_user_drops_queued_background_turns(tmp_path: Path, store) -> None:  # type: ignore[no-untyped-def]
    """A turn acknowledged by the background writer but not yet persisted must not land
    after the user was forgotten."""
    from langgraph_memory import BackgroundWriter, WritePipeline, forget_user

    writer = BackgroundWriter(WritePipeline(store), tmp_path / "journal.jsonl", start=False)
    writer.enqueue(
        "I prefer answers in Chinese", scope=Scope("alice"), turn_id="t1", thread_id="th"
    )
    writer.enqueue("I prefer answers in French", scope=Scope("bob"), turn_id="t1", thread_id="th")
    receipt = forget_user("alice", store=store, background_writer=writer)
    assert receipt["queued_turns"] == 1
    writer.start()
    assert writer.flush(timeout=60)
    writer.close()
    assert store.count(scope=Scope("alice"), filters={"kind": "preference"}) == 0
    assert store.count(scope=Scope("bob"), filters={"kind": "preference"}) == 1
    assert "Chinese" not in (tmp_path / "journal.jsonl").read_text()
