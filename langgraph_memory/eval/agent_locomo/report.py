"""The tables ``bench agent-locomo`` prints from a result document."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console

from ..common import print_table


def report(console: Console, result: dict[str, Any]) -> None:
    """Print the overall, per-category and per-conversation tables."""
    res = result["results"]
    o = res["overall"]
    cols = [
        "scope",
        "n",
        "prompt any",
        "prompt all",
        "recalled any",
        "recalled all",
        "text any",
        "ranked any",
    ]

    def row(name: str, m: Mapping[str, Any]) -> list[Any]:
        return [
            name,
            m["n"],
            m["evidence_in_prompt_any"],
            m["evidence_in_prompt_all"],
            m["recalled_any"],
            m["recalled_all"],
            m["evidence_text_in_prompt_any"],
            m.get("ranked_any", float("nan")),
        ]

    title = (
        f"LoCoMo through the agent — {len(result['conversations'])} conversation(s), "
        f"{result['turns']} turns, {result['questions']} questions, k={result['k']}, "
        f"model: {result['model']}"
    )
    rows = [row("overall", o)] + [row(c, m) for c, m in res["by_category"].items()]
    rows += [row(f"split: {name}", m) for name, m in res.get("splits", {}).items()]
    print_table(console, title, cols, rows)
    qt, rt = o["memory_tokens_question"], o["memory_tokens_replay"]
    lq, lr = o["latency_ms_question"], o["latency_ms_replay"]
    print_table(
        console,
        "writes, prompt size and latency",
        ["metric", "value"],
        [
            ["records per 100 turns", o["records_per_100_turns"]],
            ["records (current, ledger excluded)", o["records"]],
            ["records by layer", ", ".join(f"{k}={v}" for k, v in o["records_by_layer"].items())],
            ["memory tokens / question prompt, mean", qt["mean"]],
            ["memory tokens / question prompt, p95", qt["p95"]],
            ["records in question prompt, mean", o["prompt_record_ids_mean"]],
            ["records in question prompt, max", o["prompt_record_ids_max"]],
            ["  of which ranked (k slots), mean", o["ranked_records_mean"]],
            ["  of which ranked (k slots), max", o["ranked_records_max"]],
            ["memory tokens / replay prompt, mean", rt["mean"]],
            ["memory tokens / replay prompt, p95", rt["p95"]],
            ["replay turn ms, p50", lr["p50"]],
            ["replay turn ms, p95", lr["p95"]],
            ["question turn ms, p50", lq["p50"]],
            ["question turn ms, p95", lq["p95"]],
            ["state record lists seen", ", ".join(res["state_keys_seen"]) or "-"],
            ["total seconds", result["seconds"]],
        ],
    )
    if len(res["by_conversation"]) > 1:
        print_table(
            console,
            "per conversation",
            ["conversation", "turns", "rec/100 turns", "n", "prompt any", "prompt all", "s"],
            [
                [
                    c,
                    m["turns"],
                    m["records_per_100_turns"],
                    m["n"],
                    m["evidence_in_prompt_any"],
                    m["evidence_in_prompt_all"],
                    m["seconds"],
                ]
                for c, m in res["by_conversation"].items()
            ],
        )
