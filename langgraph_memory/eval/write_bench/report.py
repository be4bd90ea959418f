"""The tables ``bench write`` prints: one set, every set's summary, per predicate, breakdown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..common import print_table


def _print_result(console: Any, result: dict[str, Any], show_errors: int) -> None:
    from rich.markup import escape

    sw, tr, pii = result["should_write"], result["triples"], result["pii"]
    print_table(
        console,
        f"write gate — {Path(result['data']).name}: {result['n']} utterances "
        f"({result['n_zh']} Chinese), {result['ms_per_utterance']:.1f} ms/utterance",
        ["metric", "precision", "recall", "f1", "tp", "fp", "fn"],
        [
            [name, m["precision"], m["recall"], m["f1"], m["tp"], m["fp"], m["fn"]]
            for name, m in (("should be written", sw), ("extracted (s, p, o)", tr))
        ],
    )
    print_table(
        console,
        "PII",
        ["metric", "value"],
        [
            ["leaks (store + logs + reports)", pii["leaks"]],
            ["utterances with PII", pii["utterances_with_pii"]],
            ["detection recall", pii["detection_recall"]],
            ["false-positive utterances", pii["false_positive_utterances"]],
            ["raw values checked", pii["values_checked"]],
        ],
    )
    print_table(
        console,
        "should-write accuracy by category / language",
        ["group", "n", "accuracy"],
        [
            [k, v["n"], v["accuracy"]]
            for k, v in {**result["by_category"], **result["by_language"]}.items()
        ],
    )
    if show_errors and result["errors"]:
        print_table(
            console,
            f"misclassified or mis-extracted ({len(result['errors'])}, "
            f"first {show_errors}; text redacted)",
            ["id", "category", "text", "expected", "got", "actions"],
            [
                [
                    escape(str(x))
                    for x in (
                        e["id"],
                        e["category"],
                        e["text"][:50],
                        json.dumps(e["expected"], ensure_ascii=False)[:60],
                        json.dumps(e["got"], ensure_ascii=False)[:60],
                        ",".join(e["actions"]),
                    )
                ]
                for e in result["errors"][:show_errors]
            ],
        )


def _print_summary(console: Any, results: dict[str, dict[str, Any]]) -> None:
    print_table(
        console,
        "write path — per set, then pooled: dev (tuned on) and heldout (never tuned on)",
        [
            "set",
            "n",
            "write P",
            "write R",
            "kind acc",
            "constraint typed",
            "slot EM",
            "open value EM",
            "free-text match",
            "retracted",
            "PII leaks",
            "ms/utt",
        ],
        [
            [
                name,
                r["n"],
                r["should_write"]["precision"],
                r["should_write"]["recall"],
                r["slots"]["kind_accuracy"],
                r["slots"]["constraint_typed"],
                r["slots"]["slot_exact_match"],
                r["slots"]["open_value_match"],
                r["slots"]["free_text_match"],
                r["slots"]["retracted"],
                r["pii"]["leaks"],
                r["ms_per_utterance"],
            ]
            for name, r in results.items()
        ],
    )


def _print_by_predicate(console: Any, result: dict[str, Any]) -> None:
    print_table(
        console,
        f"{Path(result['data']).name}: typed slot exact-match by predicate",
        ["predicate", "n", "exact match", "failures"],
        [
            [p, v["n"], v["exact_match"], ", ".join(f"{k} {n}" for k, n in v["failures"].items())]
            for p, v in result["slots_by_predicate"].items()
        ],
    )


def _print_breakdown(console: Any, group: str, result: dict[str, Any]) -> None:
    for field, title in (("by_language_prf", "language"), ("by_kind_prf", "kind")):
        print_table(
            console,
            f"{group}: should-write by {title}",
            [title, "n", "precision", "recall", "accuracy"],
            [
                [k, v["n"], v["precision"], v["recall"], v["accuracy"]]
                for k, v in result[field].items()
            ],
        )
