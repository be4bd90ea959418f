"""What a user reads first: ``--help`` of every command, and a bench run without data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from langgraph_memory import cli
from langgraph_memory.eval import cli as bench_cli
from langgraph_memory.eval import locomo

COMMANDS = ["demo", "inspect", "forget", "audit", "train-classifier"]


def _help(argv: list[str], capsys: Any) -> str:
    with pytest.raises(SystemExit) as exit_:
        cli.main([*argv, "--help"])
    assert exit_.value.code == 0
    return str(capsys.readouterr().out)


def test_top_level_help_describes_every_command(capsys: Any) -> None:
    out = _help([], capsys)
    for name, (_, description) in cli._COMMANDS.items():
        assert name in out and description in out


@pytest.mark.parametrize(
    "argv", [[c] for c in COMMANDS] + [["bench", name] for name in sorted(bench_cli.BENCHMARKS)]
)
def test_command_help_has_no_raw_markup(argv: list[str], capsys: Any) -> None:
    out = _help(argv, capsys)
    assert "``" not in out and ":class:" not in out and ":func:" not in out, out


def test_every_admin_option_has_help(capsys: Any) -> None:
    out = _help(["inspect"], capsys)
    flat = " ".join(out.split())
    assert "--api-key API_KEY API key of the Qdrant server" in flat
    assert "--collection COLLECTION collection of the store" in flat


def test_plain_text_drops_rest_markup() -> None:
    doc = """First line with ``code`` and :class:`~langgraph_memory.store.MemoryStore`.

        * ``recall_any@k``: one *evidence* turn
    """
    assert cli.plain_text(doc) == (
        "First line with code and MemoryStore.\n\n* recall_any@k: one evidence turn"
    )


def test_locomo_default_path_resolves_from_the_clone_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    beside_clone = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "locomo10.json"
    assert locomo.DEFAULT_DATA_CANDIDATES[0] == beside_clone
    if beside_clone.exists():
        assert locomo.find_data(None) == beside_clone
    else:
        with pytest.raises(FileNotFoundError, match="--data"):
            locomo.find_data(None)


def test_bench_without_data_is_a_message_not_a_traceback(tmp_path: Path, capsys: Any) -> None:
    rc = bench_cli.main(["locomo", "--data", str(tmp_path / "missing.json"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "LoCoMo data not found" in err and "--data" in err and "Traceback" not in err
