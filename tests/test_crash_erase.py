"""Crash safety of erasure on the embedded engine: a child process is killed with SIGKILL at
each step of ``delete_user`` (after the soft delete, after copying the live points into the
new shard, after committing it); after reopening, every record of the other user is there
and readable, the erased user's records are gone from every file, and one shard is left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.lifecycle.erasure import Needles, scan_paths
from langgraph_memory.store.edge_files import META_FILE

from .crash_child import BATCH, OTHER, OTHER_RECORDS, SCOPE, HashEmbedder, erase_marker

ROOT = Path(__file__).resolve().parents[1]
STEPS = ("erase:deleted", "vacuum:copied", "vacuum:committed")


@pytest.mark.parametrize("step", STEPS)
def test_kill_9_mid_erasure_loses_nothing_of_the_others(step: str, tmp_path: Path) -> None:
    path = tmp_path / "mem"
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
    shards = [p.name for p in path.iterdir() if p.is_dir()]
    # after the soft delete only the old shard exists; later, the new one beside it
    assert len(shards) == (1 if step == "erase:deleted" else 2), shards

    with MemoryStore(path=path, embedder=HashEmbedder()) as store:  # the open finishes it
        bob = sorted(r.text for r in store.list(scope=OTHER, current_only=False))
        assert bob == sorted(f"bob fact {i}" for i in range(OTHER_RECORDS))
        assert store.search("bob fact 7", OTHER, k=1).records[0].text == "bob fact 7"
        assert store.count(scope=SCOPE, current_only=False) == 0  # the delete was logged
        meta = json.loads((path / META_FILE).read_text())
        assert not meta["vacuum_pending"]
        assert [p.name for p in path.iterdir() if p.is_dir()] == [meta["shard"]]
        store.add("written after the crash", scope=SCOPE)
    alice = Needles.of_text([erase_marker(i) for i in range(BATCH)])
    scan = scan_paths("engine", [path], alice)
    assert scan.hits == 0, scan.hit_files
    assert scan_paths("engine", [path], Needles.of_text(["bob fact 7"])).hits > 0
