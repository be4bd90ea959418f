"""Context benchmark: structure on a small LoCoMo-format file written here, plus the real
LoCoMo data (one conversation) where ../shared/bench is present (always in CI)."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from langgraph_memory.context import HandleStore, compact_messages
from langgraph_memory.eval import context_bench

REAL_LOCOMO = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "locomo10.json"


def tiny_locomo(path: Path, turns: int = 120) -> Path:
    """Two conversations in LoCoMo's format (our own text, not the data set)."""

    def conv(sample_id: str) -> dict:  # type: ignore[type-arg]
        sessions: dict[str, object] = {"speaker_a": "Ann", "speaker_b": "Ben"}
        for s in range(1, 4):
            sessions[f"session_{s}_date_time"] = f"1:00 pm on {s} May, 2023"
            sessions[f"session_{s}"] = [
                {
                    "speaker": "Ann" if i % 2 == 0 else "Ben",
                    "dia_id": f"D{s}:{i + 1}",
                    "text": f"Session {s} turn {i}: " + "we talked about hiking and tea " * 6,
                }
                for i in range(turns // 3)
            ]
        return {
            "sample_id": sample_id,
            "conversation": sessions,
            "qa": [
                {"question": "q1", "answer": "a", "evidence": ["D1:1"], "category": 4},
                {"question": "q2", "answer": "a", "evidence": ["D2:5", "D3:39"], "category": 1},
            ],
        }

    path.write_text(json.dumps([conv("c-1"), conv("c-2")]))
    return path


def test_run_reports_tokens_per_turn_and_evidence(tmp_path: Path) -> None:
    data = tiny_locomo(tmp_path / "tiny.json")
    result = context_bench.run(data, budget_tokens=1200, quick=True, token_error=False)
    assert len(result["conversations"]) == 2
    conv = result["conversations"][0]
    n = conv["turns"]
    assert (
        len(conv["full_tokens"])
        == len(conv["compacted_tokens"])
        == len(conv["trimmed_tokens"])
        == n
    )
    assert conv["full_tokens"][-1] > 3 * 1200  # the full history overflows
    assert max(conv["compacted_tokens"]) <= 1200 and conv["over_budget_turns"] == 0
    assert max(conv["trimmed_tokens"]) <= 1200
    assert conv["compactions"] > 0
    assert conv["evidence_turns"] == 3
    assert sum(conv["evidence"].values()) == 3
    assert conv["reachable"] == 1.0  # everything compacted is behind a handle
    assert conv["trim_in_context_share"] < 1.0  # trimming loses the early evidence
    overall = result["overall"]
    assert overall["turns_over_budget"] == 0 and overall["reachable"] == 1.0


def test_main_writes_json_and_prints_table(tmp_path: Path, capsys: object) -> None:
    data = tiny_locomo(tmp_path / "tiny.json", turns=60)
    out = tmp_path / "out" / "ctx.json"
    code = context_bench.main(
        ["--data", str(data), "--budget", "800", "--quick", "--out", str(out), "--every", "20"]
    )
    assert code == 0
    saved = json.loads(out.read_text())
    assert saved["benchmark"] == "context" and saved["budget_tokens"] == 800
    assert "token_counter_error" in saved and "minilm" in saved["token_counter_error"]["default"]
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "prompt tokens per turn" in printed and "reachable" in printed


def test_classify_evidence_detects_lost_turns() -> None:
    store = HandleStore()
    msgs = [SystemMessage("s", id="s")] + [
        HumanMessage(f"turn {i} " + "filler words " * 30, id=f"D1:{i}") for i in range(40)
    ]
    result = compact_messages(msgs, budget_tokens=600, handle_store=store, scope="u")
    texts = {m.id: str(m.content) for m in msgs if m.id}
    classes = context_bench.classify_evidence(["D1:0", "D1:39"], result.messages, texts, store, "u")
    assert classes["D1:39"] == "in_context"
    assert classes["D1:0"] in {"via_handle", "in_summary_text"}
    store.delete_user("u")  # forget-user: the transcript is gone, so is reachability
    classes = context_bench.classify_evidence(["D1:0"], result.messages, texts, store, "u")
    assert classes["D1:0"] in {"lost", "in_summary_text"}


def test_real_locomo_one_conversation() -> None:
    assert REAL_LOCOMO.exists(), "../shared/bench/locomo10.json is part of the CI checkout"
    result = context_bench.run(REAL_LOCOMO, budget_tokens=4096, conversations=1, token_error=False)
    conv = result["conversations"][0]
    assert conv["turns"] > 300
    assert max(conv["compacted_tokens"]) <= 4096
    assert conv["full_tokens"][-1] > 4 * 4096
    assert conv["reachable"] == 1.0
    assert conv["trim_in_context_share"] < 0.5
