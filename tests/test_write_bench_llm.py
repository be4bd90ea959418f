"""``bench write --extractor llm``: rules and rules + the LLM extractor side by side, on a
sample (``--limit``); the model is faked here (the real one runs in ``-m real_llm`` runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory.errors import ConfigError
from langgraph_memory.eval import local_llm, write_bench
from langgraph_memory.eval.write_bench import cli as write_bench_cli
from langgraph_memory.eval.write_bench import data, drivers
from tests.fakes import FakeStructuredChatModel

DEV = Path(__file__).parent / "data" / "write" / "dev"


def test_limit_spreads_over_the_sets_of_a_group_in_file_order() -> None:
    paths = [str(p) for p in write_bench.dev_sets()]
    chosen = data._limited(paths, 5)
    sizes = [len(items or []) for _, items in chosen]
    assert sum(sizes) == 5 and max(sizes) - min(sizes) <= 1
    first, items = chosen[0]
    assert items == write_bench.load_set(first)[: len(items or [])]
    assert data._limited(paths, None) == [(p, None) for p in paths]
    with pytest.raises(ValueError, match="limit"):
        data._limited(paths, 0)


def test_extractor_llm_reports_both_side_by_side(
    embedder: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = tmp_path / "small.jsonl"
    lines = (DEV / "rules_dev.jsonl").read_text(encoding="utf-8").splitlines()[:10]
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = FakeStructuredChatModel(responder=lambda messages: {"facts": []})
    monkeypatch.setattr(write_bench_cli, "_llm_model", lambda spec: model)
    out = tmp_path / "res.json"
    argv = ["--data", str(small), "--extractor", "llm", "--limit", "6", "--out", str(out)]
    assert write_bench.main(argv) == 0
    data = json.loads(out.read_text())
    assert set(data["groups"]) == {"dev", "dev +llm"}
    assert data["groups"]["dev"]["n"] == data["groups"]["dev +llm"]["n"] == 6
    assert model.calls >= 6  # llm_mode always: the model read every turn of the +llm run
    # an extractor that finds nothing leaves the rules' numbers as they are
    assert data["groups"]["dev"]["should_write"] == data["groups"]["dev +llm"]["should_write"]


def test_local_model_absent_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_llm.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"install\.sh"):
        drivers._llm_model("local")
    with pytest.raises(ConfigError, match="unknown local model"):
        drivers._llm_model("local:gpt-5")
