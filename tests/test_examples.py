"""Every example runs offline, and the quickstart notebook executes (nbclient)."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["custom_graph", "prebuilt_agent", "multi_user_service", "real_chat_model"]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", ROOT / "examples" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_offline(
    name: str, tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("LGM_CHAT_MODEL", raising=False)
    rc = _load(name).main(str(tmp_path))
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.strip().endswith("ok")


def test_real_chat_model_example_uses_init_chat_model_when_a_key_is_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: Any
) -> None:
    import langchain.chat_models

    from langgraph_memory.testing import ScriptedChatModel

    seen: list[tuple[str, dict[str, Any]]] = []

    def fake_init_chat_model(spec: str, **kwargs: Any) -> ScriptedChatModel:
        # stands in for the provider's network model; the example's code path is the real one
        seen.append((spec, kwargs))
        return ScriptedChatModel(responder=lambda m, t: "real-path reply")

    monkeypatch.setattr(langchain.chat_models, "init_chat_model", fake_init_chat_model)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    example = _load("real_chat_model")
    assert example.main(str(tmp_path), spec="anthropic:claude-sonnet-4-5") == 0
    assert seen == [("anthropic:claude-sonnet-4-5", {"temperature": 0})]
    assert "[anthropic:claude-sonnet-4-5] real-path reply" in capsys.readouterr().out


def test_quickstart_notebook_executes_and_is_committed_without_outputs() -> None:
    path = ROOT / "notebooks" / "quickstart.ipynb"
    nb = nbformat.read(path, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells and all(not c.outputs and c.execution_count is None for c in code_cells)
    before = set(Path(tempfile.gettempdir()).glob("lgm-quickstart-*"))
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    assert set(Path(tempfile.gettempdir()).glob("lgm-quickstart-*")) == before  # cleaned up
    outputs = "\n".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
        for c in code_cells
        for o in c.outputs
    )
    assert "scripted model (no LLM)" in outputs
    assert "I remember" in outputs and "English" in outputs
    assert not any(o.get("output_type") == "error" for c in code_cells for o in c.outputs)
