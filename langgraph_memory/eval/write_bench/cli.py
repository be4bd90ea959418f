"""``python -m langgraph_memory bench write``: the command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...cli import PlainHelpFormatter
from ..common import make_console, write_json
from .data import _group, _limited, dev_sets, heldout_sets
from .drivers import VIAS, _llm_model
from .report import _print_breakdown, _print_by_predicate, _print_result, _print_summary
from .runner import run
from .scoring import summarize

DESCRIPTION = (
    "Write-path benchmark: should-be-written precision/recall, extracted (s, p, o)\n"
    "precision/recall, and PII leaks."
)
"""The first paragraph of the package docstring: the command's ``--help`` description."""


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: print the tables, write JSON with ``--out``. Exit 1 when PII leaked.

    Without ``--data`` every shipped set runs (the development set and the three held-out
    sets); the JSON then holds one result per set under ``"sets"``.
    """
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench write",
        description=DESCRIPTION,
    )
    parser.add_argument(
        "--data", nargs="+", default=None, help="labelled JSONL set(s); default: all shipped"
    )
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    parser.add_argument(
        "--show-errors", type=int, default=15, help="print up to N misclassified utterances"
    )
    parser.add_argument(
        "--via",
        choices=VIAS,
        default="pipeline",
        help="drive turns through the pipeline, a BackgroundWriter, or the compiled agent",
    )
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="without the clause classifier (WriteConfig(use_classifier=False)), for comparison",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="print every set's own tables (and errors)"
    )
    parser.add_argument(
        "--extractor",
        choices=("rules", "llm"),
        default="rules",
        help="llm: also run rules + the LLM extractor and print both side by side",
    )
    parser.add_argument(
        "--model",
        default="local",
        help="the LLM extractor's model: local, local:qwen2.5-coder-1.5b, or provider:model "
        "for init_chat_model (default: local)",
    )
    parser.add_argument(
        "--llm-mode",
        choices=("fallback", "always"),
        default="always",
        help="when the LLM extractor runs: every turn (always, default) or only when the rules "
        "stored nothing (fallback)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="at most N items per group (dev, heldout)"
    )
    parser.add_argument(
        "--by-predicate",
        action="store_true",
        help="print typed-slot exact-match per predicate with its failure kinds (dev group only: "
        "held-out failures are not for reading)",
    )
    ns = parser.parse_args(list(argv) if argv is not None else None)
    from ...embeddings import load_embedder

    paths = ns.data or [str(p) for p in dev_sets() + heldout_sets()]
    sets = _limited(paths, ns.limit)
    embedder = load_embedder(ns.embedder)
    console = make_console()
    from ...write import WriteConfig

    config = WriteConfig(use_classifier=not ns.rules_only)
    variants: list[tuple[str, Any, Any]] = [("", config, None)]
    if ns.extractor == "llm":
        model = _llm_model(ns.model)
        llm_config = WriteConfig(use_classifier=not ns.rules_only, llm_mode=ns.llm_mode)
        variants.append((" +llm", llm_config, model))
    results: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for suffix, variant_config, model in variants:
        for p, items in sets:
            key = Path(p).stem + suffix
            origin[key] = p
            results[key] = run(
                p,
                embedder=embedder,
                config=variant_config,
                via=ns.via,
                items=items,
                llm_extractor=model,
            )
    for result in results.values():
        if ns.verbose or len(results) == 1:
            _print_result(console, result, ns.show_errors)
    groups: dict[str, dict[str, Any]] = {}
    for suffix, _, _ in variants:
        for group in ("dev", "heldout"):
            members = [
                r
                for key, r in results.items()
                if _group(origin[key]) == group and key == Path(origin[key]).stem + suffix
            ]
            if members:
                groups[group + suffix] = summarize(
                    group + suffix,
                    [row for r in members for row in r["rows"]],
                    leaks=[leak for r in members for leak in r["pii"]["leak_details"]],
                    log_lines=sum(r["pii"]["log_lines_checked"] for r in members),
                    records=sum(r["pii"]["records_checked"] for r in members),
                    elapsed=sum(r["elapsed_s"] for r in members),
                )
    if ns.extractor == "llm":  # side by side: the pooled groups, rules then rules + LLM
        order = sorted(groups, key=lambda g: (g.split(" ")[0], g))
        _print_summary(console, {f"{g} (pooled)": groups[g] for g in order})
    else:
        _print_summary(console, {**results, **{f"{g} (pooled)": r for g, r in groups.items()}})
    for group, result in groups.items():
        _print_breakdown(console, group, result)
    if ns.by_predicate:
        dev = groups.get("dev") or next(
            (r for key, r in results.items() if _group(origin[key]) == "dev"), None
        )
        if dev is not None:
            _print_by_predicate(console, dev)
    for result in (*results.values(), *groups.values()):
        result.pop("rows", None)
    payload = next(iter(results.values())) if len(results) == 1 else {"sets": results}
    if groups and len(results) > 1:
        payload["groups"] = groups
    out = write_json(ns.out, payload)
    if out:
        console.print(f"results written to {out}")
    return 1 if any(r["pii"]["leaks"] for r in results.values()) else 0
