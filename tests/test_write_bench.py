"""The labelled write-gate sets and the benchmark over them: zero PII leaks and measured
precision/recall above the thresholds recorded in the README/issue note."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from langgraph_memory.core.redact import Redactor
from langgraph_memory.eval import write_bench
from langgraph_memory.eval.write_bench import drivers, scoring

DATA = Path(__file__).parent / "data" / "write" / "dev"
DEV = DATA / "rules_dev.jsonl"
HOLDOUT = DATA / "rules_probe1.jsonl"
HOLDOUT2 = DATA / "rules_probe2.jsonl"
HOLDOUT3 = DATA / "rules_probe3.jsonl"
SETS = [DEV, HOLDOUT, HOLDOUT2, HOLDOUT3]

# Measured (precision/recall). DEV (253) was written together with the rules: should-write
# 1.00/1.00, triples 0.99/1.00. HOLDOUT and HOLDOUT2 were each written before being run and
# measured once on the frozen code: HOLDOUT should-write 0.98/0.98, triples 0.94/0.94;
# HOLDOUT2 should-write 0.98/0.95, triples 0.88/0.85; HOLDOUT3 (after those fixes)
# should-write 1.00/1.00, triples 0.93/0.93. Bugs they exposed were then fixed, so they are
# no longer blind. The thresholds sit
# below the blind measurements: a regression fails the test.
THRESHOLDS = {
    DEV: {"should_write": 0.95, "triples": 0.92},
    HOLDOUT: {"should_write": 0.93, "triples": 0.88},
    HOLDOUT2: {"should_write": 0.93, "triples": 0.84},
    HOLDOUT3: {"should_write": 0.93, "triples": 0.88},
}

FAKE_PII = [
    re.compile(r"@example\.(?:com|org|net)$"),
    re.compile(r"^(?:\+86 )?1[3-9]\d[- ]?0000[- ]?0000$"),
    re.compile(r"^\+\d{1,2} .*(?:0000|0100)$|^\+1 202-555-01\d\d$"),
    re.compile(r"^010-62000000$"),
    re.compile(r"^(?:\(202\) |202-)555-01\d\d$"),  # 555-0100..0199: reserved fictional
]
TEST_CARDS = {"4111 1111 1111 1111", "4111111111111111", "5555555555554444", "378282246310005"}


def test_dev_set_shape() -> None:
    items = write_bench.load_set(DEV)
    assert len(items) >= 200
    assert sum(1 for i in items if i["lang"] == "zh") / len(items) >= 0.4
    categories = {i["category"] for i in items}
    assert {
        "preference",
        "constraint",
        "correction",
        "hedge",
        "chitchat",
        "pii",
        "injection",
    } <= categories
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        assert isinstance(item["should_write"], bool)
        assert all(len(t) == 3 for t in item["expected"])
        assert not item["expected"] or item["should_write"]


@pytest.mark.parametrize("path", SETS)
def test_pii_values_are_obviously_fake_and_detectable(path: Path) -> None:
    redactor = Redactor()
    for item in write_bench.load_set(path):
        for kind, value in zip(item["pii"], item["pii_values"], strict=False):
            assert value in item["text"]
            if kind == "email":
                assert FAKE_PII[0].search(value), value
            elif kind == "phone":
                assert any(p.search(value) for p in FAKE_PII[1:]), value
            elif kind == "bank_card":
                assert value in TEST_CARDS, value
            assert kind in redactor.detect(item["text"]), (item["id"], kind)


@pytest.mark.parametrize("path", SETS)
def test_benchmark_meets_measured_thresholds_with_zero_leaks(path: Path, embedder: Any) -> None:
    result = write_bench.run(path, embedder=embedder)
    assert result["pii"]["leaks"] == 0, result["pii"]["leak_details"]
    assert result["pii"]["detection_recall"] == 1.0
    assert result["pii"]["log_lines_checked"] > result["n"]  # the leak check saw the logs
    limits = THRESHOLDS[path]
    for metric in ("precision", "recall"):
        assert result["should_write"][metric] >= limits["should_write"], result["errors"]
        assert result["triples"][metric] >= limits["triples"], result["errors"]


def test_cli_main_writes_json(embedder, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    small = tmp_path / "small.jsonl"
    lines = HOLDOUT.read_text(encoding="utf-8").splitlines()[:12]
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "res.json"
    assert write_bench.main(["--data", str(small), "--out", str(out), "--show-errors", "3"]) == 0
    data = json.loads(out.read_text())
    assert data["n"] == 12 and "precision" in data["should_write"]
    assert "should be written" in capsys.readouterr().out


def test_leak_detector_catches_a_leak(embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The leak counter is not vacuous: with redaction turned into a no-op, leaks appear."""
    from langgraph_memory.write import WriteConfig
    from langgraph_memory.write import pipeline as pipeline_module

    small = tmp_path / "pii.jsonl"
    small.write_text(
        json.dumps(
            {
                "id": "x1",
                "text": "I prefer tea, and my email is bob@example.org",
                "lang": "en",
                "category": "pii",
                "should_write": True,
                "expected": [["user", "drink", "tea"]],
                "pii": ["email"],
                "pii_values": ["bob@example.org"],
            }
        )
        + "\n",
        encoding="utf-8",
    )

    class NoRedaction:
        def __init__(self, *a: object, **k: object) -> None:
            pass

        def redact(self, text: str):  # type: ignore[no-untyped-def]
            from langgraph_memory.core.redact import RedactionResult

            return RedactionResult(text=text)

    original = pipeline_module.Redactor
    pipeline_module.Redactor = NoRedaction  # type: ignore[misc,assignment]
    try:
        result = write_bench.run(small, embedder=embedder, config=WriteConfig())
    finally:
        pipeline_module.Redactor = original  # type: ignore[misc]
    assert result["pii"]["leaks"] > 0


def test_pipeline_background_and_graph_decide_the_same(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    """The product as users run it: the same turns through the BackgroundWriter and the
    compiled agent reach the same decisions as the pipeline, and a correction's setup turns
    are processed first on every path."""
    items = [
        {"id": "v1", "text": "I'm allergic to sesame", "lang": "en", "kind": "constraint",
         "should_write": True, "expected": [["user", "allergy", "sesame", "constraint"]],
         "category": "health", "pii": [], "pii_values": []},
        {"id": "v2", "text": "haha you're funny", "lang": "en", "kind": "chitchat",
         "should_write": False, "expected": [], "category": "chat", "pii": [], "pii_values": []},
        {"id": "v3", "text": "Sorry, I meant Lille, not Lyon", "lang": "en", "kind": "correction",
         "should_write": True, "expected": [["user", "location", "Lille", "correction"]],
         "retracts": [["user", "location", "Lyon"]], "setup": ["I live in Lyon"],
         "category": "fix", "pii": [], "pii_values": []},
    ]  # fmt: skip
    path = tmp_path / "via.jsonl"
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    results = {via: write_bench.run(path, embedder=embedder, via=via) for via in drivers.VIAS}
    for via, result in results.items():
        assert result["should_write"]["precision"] == 1.0, via
        assert result["should_write"]["recall"] == 1.0, via
        assert result["slots"]["retracted"] == 1.0, via
    assert len({json.dumps(r["errors"], sort_keys=True) for r in results.values()}) == 1
    with pytest.raises(ValueError, match="via"):
        write_bench.run(path, embedder=embedder, via="carrier-pigeon")


def test_slot_metric_compares_canonical_predicates_by_their_canonical_and_others_as_said() -> None:
    """The guide fixes canonical words for answer_language, response_length, ui_theme,
    indentation and diet: "中文" stored as said matches ``Chinese``. Every other typed
    predicate is compared as said: "咖啡" is not ``coffee``, "PST" is not ``UTC-8``."""
    item = {"kind": "preference"}

    def want(predicate: str, value: str) -> dict[str, Any]:
        return scoring._expected(["user", predicate, value, "preference"], item)

    def got(predicate: str, value: str) -> tuple[str, str, str]:
        return ("user", predicate, value)

    assert scoring._slot_match(want("answer_language", "Chinese"), got("answer_language", "中文"))
    assert scoring._slot_match(want("response_length", "concise"), got("response_length", "简洁"))
    assert not scoring._slot_match(want("drink", "coffee"), got("drink", "咖啡"))
    assert not scoring._slot_match(want("timezone", "UTC-8"), got("timezone", "PST"))
    assert not scoring._slot_match(want("location", "Berlin"), got("note", "Berlin"))


def test_slot_breakdown_says_how_each_typed_slot_failed() -> None:
    item = {"kind": "stable_fact"}
    rows = [
        {
            "id": f"r{i}",
            "got": [],
            "expected_items": [scoring._expected(["user", p, v, "stable_fact"], item)],
            "written": [(w, "stable_fact", False)] if w else [],
        }
        for i, (p, v, w) in enumerate(
            [
                ("location", "Berlin", ("user", "location", "Berlin")),
                ("location", "Berlin", ("user", "location", "Berlin last month")),
                ("employer", "Acme", ("user", "note", "Acme")),
                ("occupation", "data engineer", ("user", "occupation", "engineer")),
                ("name", "Tim", None),
            ]
        )
    ]
    table = write_bench.slot_breakdown(rows)
    assert table["location"]["n"] == 2 and table["location"]["exact_match"] == 0.5
    assert table["location"]["failures"] == {"too long": 1}
    assert table["employer"]["failures"] == {"wrong predicate": 1}
    assert table["occupation"]["failures"] == {"too short": 1}
    assert table["name"]["failures"] == {"no record": 1}


def test_a_digit_value_is_not_leaked_by_a_record_ids_uuid_group() -> None:
    from langgraph_memory.eval.write_bench.runner import _occurs

    assert not _occurs("4829", "inserted 1f0c2a9e-77b1-4829-9a3e-0c5d2f1e8b7a for u1")
    assert _occurs("4829", "pin 4829 stored")
    assert _occurs("4829", "code-4829")  # a hyphen outside a UUID still bounds a leak
