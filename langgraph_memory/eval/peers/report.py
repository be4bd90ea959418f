"""The peers report: every section of a result document as tables, ratios against ours included."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ..common import print_table
from ._common import OURS, OURS_OPT, section_ok


def _fmt(value: Any) -> Any:
    return float("nan") if value is None else value


def report(console: Console, result: dict[str, Any]) -> None:
    """Print every section as tables, ratios against ours included."""
    for name, info in result["systems"].items():
        if info.get("unavailable"):
            console.print(f"[bold red]{name} did not run:[/] {info['unavailable']}")
    if section_ok(result, "locomo"):
        loc = result["locomo"]
        rows = []
        for name, e in loc["systems"].items():
            if "skipped" in e:
                rows.append([name, "skipped: " + e["skipped"], "", "", "", "", ""])
                continue
            rows.append(
                [
                    name,
                    e["recall_any@5"],
                    e["recall_any@10"],
                    e["recall_all@5"],
                    e["recall_all@10"],
                    e["p50_ms"],
                    e["p95_ms"],
                ]
            )
        print_table(
            console,
            f"LoCoMo evidence recall — {loc['questions']} questions, {loc['turns']} turns, "
            f"{loc['conversations']} conversations, embedder {result['embedder']} (query vectors "
            "cached: latency excludes embedding)",
            ["system", "any@5", "any@10", "all@5", "all@10", "p50 ms", "p95 ms"],
            rows,
        )
        ok = {n: e for n, e in loc["systems"].items() if "skipped" not in e}
        cats = sorted({c for e in ok.values() for c in e["by_category@10"]})
        print_table(
            console,
            "recall_any@10 by category",
            ["system", *cats],
            [
                [n, *[e["by_category@10"].get(c, {}).get("recall_any", float("nan")) for c in cats]]
                for n, e in ok.items()
            ],
        )
        print_table(
            console,
            f"recall ratio vs {loc['fair_baseline']} (same indexed text)",
            ["system", "any@5", "any@10", "all@5", "all@10"],
            [
                [n, r["recall_any@5"], r["recall_any@10"], r["recall_all@5"], r["recall_all@10"]]
                for n, r in loc["ratios_vs_ours_none"].items()
            ],
        )
    if section_ok(result, "latency"):
        lat = result["latency"]
        rows = []
        for name, cases in lat["systems"].items():
            for c in cases:
                if "skipped" in c:
                    rows.append(
                        [name, c["memories"], "", "", "", "", "", "", "skipped: " + c["skipped"]]
                    )
                    continue
                ratio = lat["p95_ratio_vs_ours"].get(name, {}).get(str(c["memories"]))
                rows.append(
                    [
                        name,
                        c["memories"],
                        c["queries"],
                        c["p50_ms"],
                        c["p95_ms"],
                        c.get("first_query_ms", float("nan")),
                        c.get("rss_bytes_per_record", float("nan")),
                        f"optimize {c['optimize_seconds']:.1f} s"
                        if "optimize_seconds" in c
                        else c.get("fill_records_per_s", float("nan")),
                        "" if name in {OURS, OURS_OPT} else _fmt(ratio),
                    ]
                )
        print_table(
            console,
            "search latency in one user's scope (k=5, query embedding included)",
            [
                "system",
                "memories",
                "queries",
                "p50 ms",
                "p95 ms",
                "first query ms",
                "RSS B/record",
                "fill rec/s",
                "p95 × ours",
            ],
            rows,
        )
    if section_ok(result, "writes"):
        w = result["writes"]
        rows = []
        for name, e in w["systems"].items():
            if "skipped" in e:
                rows.append([name, "skipped: " + str(e["skipped"]), "", "", "", ""])
                continue
            r = w["ratios"].get(name, {})
            rows.append(
                [
                    name,
                    e["single_p50_ms"],
                    e["single_p95_ms"],
                    e["single_per_s"],
                    _fmt(e["batch_per_s"]),
                    "" if name == OURS else f"{r.get('single_ours_over_peer', float('nan')):.2f}",
                ]
            )
        print_table(
            console,
            f"write throughput with real embedding ({w['writes']} writes each)",
            ["system", "single p50 ms", "single p95 ms", "single/s", "batch/s", "ours/peer single"],
            rows,
        )
    if result.get("graph_overhead", {}).get("cases"):
        rows = [
            [
                f"{c['memories_in_scope']}" + (" (optimized)" if c.get("optimized") else ""),
                c["turns"],
                c["load_memory_p50_ms"],
                c["load_memory_p95_ms"],
                c["save_memory_p50_ms"],
                c["save_memory_p95_ms"],
                c["generate_p50_ms"],
                c["turn_p50_ms"],
                c["turn_p95_ms"],
            ]
            for c in result["graph_overhead"]["cases"]
        ]
        print_table(
            console,
            "per-turn overhead of our nodes in a compiled graph (scripted model, ms)",
            [
                "memories",
                "turns",
                "load p50",
                "load p95",
                "save p50",
                "save p95",
                "generate p50",
                "turn p50",
                "turn p95",
            ],
            rows,
        )
    if section_ok(result, "tokens"):
        tok = result["tokens"]
        rows = [
            [
                c["conversation"],
                c["turns"],
                c["mean_memory_agent"],
                c["max_memory_agent"],
                c["mean_full_history"],
                c["final_full_history"],
            ]
            for c in tok["conversations"]
        ]
        rows.append(
            [
                "all",
                sum(c["turns"] for c in tok["conversations"]),
                tok["mean_memory_agent"],
                "",
                tok["mean_full_history"],
                "",
            ]
        )
        print_table(
            console,
            f"prompt tokens per turn on LoCoMo: memory agent (budget {tok['budget_tokens']}) "
            f"vs full history — full/agent = {tok['full_over_agent']:.2f}x",
            ["conversation", "turns", "agent mean", "agent max", "full mean", "full final"],
            rows,
        )
    for name, error in (result.get("errors") or {}).items():
        console.print(f"[bold red]section {name} failed:[/] {error}")
    console.print(f"machine: {result['machine']['note']}; total {result['seconds']:.0f} s")
