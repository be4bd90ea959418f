"""Forget means gone from disk: markers planted for alice and bob through the compiled graph
(compaction with handles, episodes, a background writer, an audit log) on every store backend
and checkpointer kind; after ``forget_user("alice")`` and closing everything, every byte of
every file is read (the engine's LZ4 pages decompressed): no alice marker is left anywhere,
and every bob marker is still readable through the stores."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from langgraph_memory import (
    BackgroundWriter,
    MemoryContext,
    MemoryStore,
    Scope,
    WritePipeline,
    create_checkpointer,
    create_memory_agent,
    forget_user,
)
from langgraph_memory.context import HandleStore
from langgraph_memory.lifecycle import AuditLog, transition
from langgraph_memory.lifecycle.erasure import Needles, scan_paths
from langgraph_memory.lifecycle.erasure.artifacts import FILE_KEYS
from langgraph_memory.lifecycle.forget import has_residue
from langgraph_memory.testing import ScriptedChatModel

from .test_graph_checkpoint import POSTGRES_DSN, _require_postgres

TURNS = 8
BUDGET = 500
"""Tokens of context: long turns are externalized into handles, history is compacted."""
BACKENDS = ("edge", "server-memory", "server-path")
CHECKPOINTERS = ("memory", "sqlite", "postgres")


def marker(user: str, turn: int, run: str) -> str:
    return f"ZQ{user[:2].upper()}{run}T{turn:02d}MK"


def utterance(user: str, turn: int, run: str) -> str:
    m = marker(user, turn, run)
    if turn % 3 == 2:  # a long paste: compaction externalizes it into a handle
        lines = [f"log line {i} of build {m} finished with status ok" for i in range(60)]
        return f"Here is the build log {m}:\n" + "\n".join(lines)
    if turn % 3 == 1:
        return f"I prefer green tea in the morning, remember the code {m}"
    return f"Yesterday I met the team in Lyon to plan release {m}"


def _store(kind: str, tmp_path: Path, embedder: Any) -> MemoryStore:
    if kind == "edge":
        return MemoryStore(path=tmp_path / "mem", embedder=embedder)
    if kind == "server-path":
        client = QdrantClient(path=str(tmp_path / "qdrant"))
        return MemoryStore(client=client, embedder=embedder)
    return MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)


def _checkpointer(kind: str, tmp_path: Path) -> Any:
    if kind == "sqlite":
        cp = create_checkpointer("sqlite", path=tmp_path / "cp.sqlite")
        # upstream SQLite's default (this machine's build defaults to on): erasure must not
        # depend on it
        cp.inner.conn.execute("PRAGMA secure_delete=OFF")
        return cp
    if kind == "postgres":
        return create_checkpointer("postgres", dsn=_require_postgres())
    return create_checkpointer("memory")


def _postgres_relation_files() -> list[Path]:
    """The heap, TOAST and index files of the checkpoint tables (the test server is local)."""
    import psycopg

    assert POSTGRES_DSN
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as conn:
        data_dir = conn.execute("SHOW data_directory").fetchone()[0]  # type: ignore[index]
        rows = conn.execute(
            "SELECT pg_relation_filepath(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relname IN ("
            "'checkpoints', 'checkpoint_blobs', 'checkpoint_writes', 'lgm_thread_owners') "
            "OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relname IN "
            "('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')) "
            "OR c.oid IN (SELECT indexrelid FROM pg_index i JOIN pg_class t ON t.oid = "
            "i.indrelid WHERE t.relname IN ('checkpoints', 'checkpoint_blobs', "
            "'checkpoint_writes', 'lgm_thread_owners'))"
        ).fetchall()
        conn.execute("CHECKPOINT")  # dirty pages reach the files we read
    files = []
    for (rel,) in rows:
        if rel:
            base = Path(data_dir) / rel
            files += [p for p in base.parent.glob(base.name + "*") if p.is_file()]
    return files


def _store_postgres_uncompressed() -> None:
    """Checkpoint blobs out of line and uncompressed, so a raw read of the table files can
    see the markers (pglz would hide them from a byte scan as LZ4 does in the engine)."""
    import psycopg

    assert POSTGRES_DSN
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as conn:
        for table, column in (
            ("checkpoint_blobs", "blob"),
            ("checkpoints", "checkpoint"),
            ("checkpoint_writes", "blob"),
        ):
            conn.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET STORAGE EXTERNAL")


@pytest.mark.parametrize("cp_kind", CHECKPOINTERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_forget_leaves_no_byte_of_alice_and_all_of_bob(
    backend: str, cp_kind: str, tmp_path: Path, embedder: Any
) -> None:
    run = uuid.uuid4().hex[:4].upper()
    store = _store(backend, tmp_path, embedder)
    checkpointer = _checkpointer(cp_kind, tmp_path)
    if cp_kind == "postgres":
        _store_postgres_uncompressed()
    handles = HandleStore(tmp_path / "handles")
    writer = BackgroundWriter(WritePipeline(store), tmp_path / "journal.jsonl")
    audit = AuditLog(tmp_path / "audit.jsonl")
    agent = create_memory_agent(
        ScriptedChatModel(),  # echoes the user: the markers are in AI messages too
        store=store,
        checkpointer=checkpointer,
        compaction_budget_tokens=BUDGET,
        handle_store=handles,
        write_pipeline=writer,
    )
    alice_id, bob_id = f"alice-{run}", f"bob-{run}"  # the postgres database outlives a run
    users = (alice_id, bob_id)
    threads = {u: [f"{u}-{run}-{k}" for k in range(2)] for u in users}
    for turn in range(TURNS):
        for user in users:
            agent.invoke(
                {"messages": [("user", utterance(user, turn, run))]},
                {"configurable": {"thread_id": threads[user][turn % 2]}},
                context=MemoryContext(user_id=user),
            )
    assert writer.flush(timeout=120)
    for user in users:  # an audited lifecycle move per user
        rec = store.list(scope=Scope(user), limit=1)[0]
        transition(
            store, rec.id, "archived", scope=Scope(user), reason="old", actor="t", audit=audit
        )
    # the write path held the markers of both users: episodes, facts, handles, checkpoints
    marks = {u: [marker(u, t, run) for t in range(TURNS)] for u in users}
    for user in users:
        texts = " ".join(r.text for r in store.list(scope=Scope(user), current_only=False))
        assert sum(m in texts for m in marks[user]) >= TURNS // 2, (user, texts[:300])
    assert handles.handles_of(alice_id) and handles.handles_of(bob_id)
    receipt = forget_user(
        alice_id,
        store=store,
        checkpointer=checkpointer,
        handle_store=handles,
        background_writer=writer,
        audit=audit,
    )
    assert not has_residue(receipt["residue"]), receipt
    assert receipt["records"] > TURNS and receipt["handles"] >= 1
    assert sorted(receipt["threads"]) == sorted(threads[alice_id])
    for key in FILE_KEYS:  # every artifact on disk was read, none silently skipped
        scan = receipt["scan"][key]
        on_disk = not (key == "engine_files" and backend == "server-memory") and not (
            key == "checkpoint_files" and cp_kind != "sqlite"
        )
        if on_disk:
            assert scan["scanned"] and scan["files"] >= 1, (key, scan)
    # bob is intact and readable
    bob = Scope(bob_id)
    assert store.count(scope=bob, current_only=False) >= TURNS
    hit = store.search(f"release {marker('bob', 3, run)}", bob, k=3)
    assert any(marker(bob_id, 3, run) in r.text for r in hit.records), hit.ids
    config = {"configurable": {"thread_id": threads[bob_id][0], "user_id": bob_id}}
    state = agent.get_state(config)
    # the thread's latest turn (never compacted away: how much older history compaction keeps
    # depends on what the background writer had stored by then, i.e. on timing)
    last = max(t for t in range(TURNS) if t % 2 == 0)
    assert any(marker(bob_id, last, run) in str(m.content) for m in state.values["messages"])
    assert handles.handles_of(bob_id)
    writer.close()
    checkpointer.close()
    store.close()

    # every byte of every file the package wrote, after closing
    alice = Needles.of_text(marks[alice_id])
    scan = scan_paths("everything", [tmp_path], alice)
    assert scan.hits == 0, scan.hit_files
    assert scan.files > 3 and scan.decoded_values >= (1 if backend == "edge" else 0)
    if cp_kind == "postgres":
        pg_files = _postgres_relation_files()
        pg = scan_paths("postgres", pg_files, alice)
        assert pg.files >= 3 and pg.hits == 0, pg.hit_files
        assert scan_paths("postgres", pg_files, Needles.of_text(marks[bob_id])).hits > 0
    bob_left = scan_paths("everything", [tmp_path], Needles.of_text(marks[bob_id]))
    assert bob_left.hits > 0


def test_postgres_dsn_is_optional_locally() -> None:
    """Documents where the postgres variant gets its server: .ci/run starts one."""
    assert POSTGRES_DSN or not os.environ.get("CI")
