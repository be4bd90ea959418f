"""``python -m langgraph_memory demo``: runs offline, passes its checks, fails loudly."""

from __future__ import annotations

from typing import Any

import pytest

from langgraph_memory import cli
from langgraph_memory.cli import demo


def test_demo_passes_and_labels_the_scripted_model(tmp_path: Any, capsys: Any) -> None:
    rc = cli.main(["demo", "--no-color", "--path", str(tmp_path / "d")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "scripted model (no LLM)" in out
    assert out.count("PASS") == 4 and "FAIL" not in out
    assert "all checks passed" in out  # how long it takes is measured by benchmarks, not here


def test_demo_exit_code_is_nonzero_when_a_check_fails(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import langgraph_memory.lifecycle.forget as forget

    def forget_nothing(user_id: str, **kwargs: Any) -> dict[str, Any]:
        return {"user_id": user_id, "records": 0, "threads": [], "handles": 0}

    monkeypatch.setattr(forget, "forget_user", forget_nothing)
    rc = demo.main(["--no-color", "--path", str(tmp_path / "d")])
    out = capsys.readouterr().out
    assert rc == 1
    assert "FAIL" in out and "SOME CHECKS FAILED" in out


def test_demo_prints_record_ids_that_look_like_markup(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import itertools
    import re
    import uuid

    counter = itertools.count(1)
    # every id starts with a letter: rich used to swallow "[abcdef12]" as a markup tag
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(f"abcdef{next(counter):026x}"))
    rc = demo.main(["--no-color", "--path", str(tmp_path / "d")])
    out = capsys.readouterr().out
    assert rc == 0, out
    cited = re.findall(r"“[^”]+” \[(abcdef[0-9a-f]{2})\]", out)
    assert cited, out  # the scripted replies cite the recalled records by id
