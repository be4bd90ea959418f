"""Crash atomicity of ``MemoryStore.supersede`` on the embedded backend: a real child process
is killed with SIGKILL between the steps of a supersession; after reopening, every chain has
exactly one current version (5 trials by default, 24 behind ``-m slow``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.store.supersession import PENDING_SUPERSEDE

from .crash_child import CHAINS, SCOPE, HashEmbedder

ROOT = Path(__file__).resolve().parents[1]
STEPS = ("supersede:marked", "supersede:written")


def _crash(path: Path, step: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.run(
        [sys.executable, "-m", "tests.crash_child", str(path), step],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stdout, child.stderr)
    assert f"dying {step}" in child.stdout


def _check_one_current_per_chain(path: Path, step: str) -> None:
    with MemoryStore(path=path, embedder=HashEmbedder()) as store:
        for chain in CHAINS:
            current = store.list(scope=SCOPE, filters={"predicate": chain})
            assert len(current) == 1, (step, chain, [r.text for r in current])
            everything = store.list(scope=SCOPE, filters={"predicate": chain}, current_only=False)
            by_id = {r.id: r for r in everything}
            # every superseded_by points at an existing record: no dangling chain link
            assert all(r.superseded_by in by_id for r in everything if r.superseded_by)
        last = store.list(scope=SCOPE, filters={"predicate": CHAINS[-1]})[0]
        expected = "version 2" if step == "supersede:marked" else "version 3"
        assert expected in last.text, (step, last.text)
        # no pending marker survives the repair at open
        assert not list(store.backend.scroll(_pending()))
        assert store.repair_interrupted_writes() == 0


def _pending():  # type: ignore[no-untyped-def]
    from langgraph_memory.store.filters import IsEmpty, Not

    return Not(IsEmpty(PENDING_SUPERSEDE))


def _trials(tmp_path: Path, n: int) -> None:
    for i in range(n):
        step = STEPS[i % len(STEPS)]
        path = tmp_path / f"trial{i}"
        _crash(path, step)
        _check_one_current_per_chain(path, step)


def test_kill_9_mid_supersede_leaves_one_current_version(tmp_path: Path) -> None:
    _trials(tmp_path, 5)


@pytest.mark.slow
def test_kill_9_mid_supersede_many_trials(tmp_path: Path) -> None:
    _trials(tmp_path, 24)


def test_failed_write_of_new_version_restores_the_old(tmp_path: Path) -> None:
    with MemoryStore(path=tmp_path / "m", embedder=HashEmbedder()) as store:
        old_id = store.add("drink tea", scope=SCOPE, subject="user", predicate="drink")

        def broken_add(*args: object, **kwargs: object) -> str:
            raise RuntimeError("disk full")

        store.add = broken_add  # type: ignore[method-assign]
        with pytest.raises(RuntimeError, match="disk full"):
            store.supersede(old_id, "drink coffee", scope=SCOPE)
        [current] = store.list(scope=SCOPE, filters={"predicate": "drink"})
        assert current.id == old_id and current.superseded_by is None
        assert current.valid_to is None
        assert not list(store.backend.scroll(_pending()))


def _indexed_fields(path: Path) -> set[str]:
    with MemoryStore(path=path, embedder=HashEmbedder()) as store:
        backend: Any = store.backend
        return set(backend._shard.info().payload_schema)


def test_the_pending_marker_is_indexed_and_an_old_store_gains_the_index(tmp_path: Path) -> None:
    """The repair at open finds marked records through a payload index (a full payload scan
    took seconds at 100k records); a store created before the index gets it at open and
    its interrupted supersession is still repaired."""
    import qdrant_edge as qe

    from langgraph_memory.store.filters import KEYWORD_INDEXES

    assert PENDING_SUPERSEDE in KEYWORD_INDEXES
    path = tmp_path / "old"
    _crash(path, "supersede:marked")
    shard = qe.EdgeShard.load(str(path / "shard"))
    shard.update(qe.UpdateOperation.delete_field_index(PENDING_SUPERSEDE))
    assert PENDING_SUPERSEDE not in shard.info().payload_schema
    shard.close()
    _check_one_current_per_chain(path, "supersede:marked")  # repaired as before
    assert PENDING_SUPERSEDE in _indexed_fields(path)
