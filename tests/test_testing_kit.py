"""The testing kit ships in the package: nodes tested alone, with a store that writes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from langgraph_memory import LoadMemory, SaveMemory, Scope, testing
from langgraph_memory.errors import ScopeError
from tests import fakes


def test_tests_use_the_shipped_kit() -> None:
    for name in ("fake_runtime", "fake_state", "human", "tool_exchange", "EventSink"):
        assert getattr(fakes, name) is getattr(testing, name)


def test_nodes_run_alone_on_the_kit_and_nothing_lands_in_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    with testing.in_memory_store(embedder) as store:
        runtime = testing.fake_runtime("alice", thread_id="t-kit")
        saved = SaveMemory(store=store)(testing.fake_state("I prefer answers in Chinese"), runtime)
        inserted = [w for w in saved["memory_writes"] if w["action"] == "inserted"]
        assert inserted and runtime.stream_writer.named("memory_saved")
        rec = store.get(inserted[0]["record_id"], scope=Scope("alice"))
        assert rec.evidence.thread_id == "t-kit"
        out = LoadMemory(store)(
            testing.fake_state("which language should you use?"), testing.fake_runtime("alice")
        )
        assert f"[{rec.id}]" in out["memory_block"]
        with pytest.raises(ScopeError):
            LoadMemory(store)(testing.fake_state("hi"), testing.fake_runtime(None))
    assert os.listdir(tmp_path) == []  # no ./.langgraph_memory, no lock file, nothing
