"""``langgraph-memory forget``: exit 0 only when no byte of the user is left, 1 on residue,
2 (a message, no traceback, nothing deleted) while a running app holds the store or journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langgraph_memory import BackgroundWriter, MemoryStore, Scope, WritePipeline
from langgraph_memory.cli import main
from langgraph_memory.lifecycle import AuditLog
from langgraph_memory.lifecycle.audit import AuditEntry
from langgraph_memory.store import backend, edge

from .test_admin_cli import app_state  # noqa: F401 - the fixture


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    """The error message of a refused command run with ``--json``."""
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == 2
    return str(data["error"])


def _argv(app_state: dict[str, Path], *extra: str) -> list[str]:  # noqa: F811
    return [
        "forget",
        "--user",
        "alice",
        "--path",
        str(app_state["store"]),
        "--checkpoints",
        str(app_state["cp"]),
        "--handles",
        str(app_state["handles"]),
        "--yes",
        "--json",
        *extra,
    ]


def test_forget_while_the_app_holds_the_store_says_what_to_do(
    app_state: dict[str, Path],  # noqa: F811
    embedder,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
) -> None:
    with MemoryStore(path=app_state["store"], embedder=embedder) as running:
        assert main(_argv(app_state)) == 2
        err = _error(capsys)
        assert "open in another process" in err and "store.forget_user(user_id" in err
        assert "nothing was changed" in err
        plain = [a for a in _argv(app_state) if a != "--json"]
        assert main(plain) == 2
        shown = capsys.readouterr().err
        assert "store.forget_user(user_id" in shown and "Traceback" not in shown
        assert main(["inspect", "--user", "alice", "--path", str(app_state["store"])]) == 2
        assert "open in another process" in capsys.readouterr().err
        # nothing was deleted anywhere
        assert running.count(scope=Scope("alice", project_id="p1"), current_only=False) == 2
    from langgraph_memory import create_checkpointer

    cp = create_checkpointer("sqlite", path=app_state["cp"])
    assert cp.ownership.threads("alice") == ["alice-t1"]
    cp.close()
    # the app's own way
    with MemoryStore(path=app_state["store"], embedder=embedder) as running:
        receipt = running.forget_user("alice")
        assert receipt["records"] == 2 and receipt["residue"]["engine_files"] == 0


def test_forget_exits_1_when_bytes_are_left(
    app_state: dict[str, Path],  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the engine's soft delete only, the records are gone logically but not from the
    files: the receipt says so and the command fails."""
    monkeypatch.setattr(edge.EdgeBackend, "erase", backend.VectorBackend.erase)
    assert main(_argv(app_state)) == 1
    receipt = json.loads(capsys.readouterr().out)
    assert receipt["residue"]["records"] == 0
    assert receipt["residue"]["engine_files"] > 0
    assert receipt["scan"]["engine_files"]["hit_files"]


def test_forget_purges_a_stopped_apps_journal_and_audit_log(
    app_state: dict[str, Path],  # noqa: F811
    embedder,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    journal, audit_file = tmp_path / "journal.jsonl", tmp_path / "audit.jsonl"
    # an audit log written before pseudonyms: the user id in clear
    old = AuditEntry(event="transition", user_id="alice", record_id="r1", actor="alice")
    audit_file.write_text(json.dumps(old.to_json()) + "\n")
    with MemoryStore(path=app_state["store"], embedder=embedder) as store:
        writer = BackgroundWriter(WritePipeline(store), journal, start=False)
        writer.enqueue("I like tea ALCLI1QQ", scope=Scope("alice"), turn_id="t1", thread_id="a")
        writer.enqueue("I like go BOCLI1QQ", scope=Scope("bob"), turn_id="t1", thread_id="b")
        argv = _argv(app_state, "--journal", str(journal), "--audit-log", str(audit_file))
        assert main(argv) == 2  # the store is held: nothing happens
        capsys.readouterr()
        store.close()
        assert main(argv) == 2  # the journal is held by the (stopped-but-open) writer
        assert "held by a running BackgroundWriter" in _error(capsys)
        writer._closed = True  # the app stops without draining its queue
        writer._journal.close()
        writer._lock_file.close()
    assert main(argv) == 0
    receipt = json.loads(capsys.readouterr().out)
    assert receipt["queued_turns"] == 1 and receipt["journal_lines"] == 1
    assert receipt["residue"]["journal_file"] == 0 and receipt["residue"]["audit_log"] == 0
    assert receipt["erasure"]["audit_log"] == {"rewritten_entries": 1}
    assert "ALCLI1QQ" not in journal.read_text() and "BOCLI1QQ" in journal.read_text()
    text = audit_file.read_text()
    assert '"alice"' not in text and len(text.splitlines()) == 2
    entries = AuditLog(audit_file).entries("alice")
    assert [e.event for e in entries] == ["transition", "forget"]
    assert entries[-1].details["records"] == 2 and "residue" in entries[-1].details


def test_forget_refuses_a_missing_journal(
    app_state: dict[str, Path],  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_argv(app_state, "--journal", "/nonexistent/journal.jsonl")) == 2
    assert "no journal file" in _error(capsys)
