"""Every ``python`` block of the README runs as printed, each in a fresh temporary directory
(the blocks use the package's labelled offline model where a chat model is needed)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import MemoryStore

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(
    index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": f"readme_block_{index}"}
    try:
        exec(compile(BLOCKS[index], f"README.md python block {index + 1}", "exec"), namespace)
    finally:  # a block that failed half-way must not keep an embedded store locked
        for value in namespace.values():
            if isinstance(value, MemoryStore):
                value.close()
