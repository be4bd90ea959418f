"""Context benchmark: prompt tokens per turn with compaction vs the full history, on LoCoMo.

Each LoCoMo conversation is replayed turn by turn as an agent's message history (one
speaker as the user, the other as the assistant, the session date in the first turn of a
session, message ids = LoCoMo ``dia_id`` s). After every turn the history is compacted with
:func:`~langgraph_memory.context.compact_messages` under ``--budget`` tokens, and the prompt
size is recorded next to the size of the full, never-compacted history and of a plain
"keep the last messages that fit" trim (LangChain ``trim_messages``-style) baseline.

At the end of each conversation, every QA evidence turn is classified:

* ``in_context``: the turn is still a raw message in the compacted history;
* ``in_summary_text``: its text is quoted in a summary message the model sees;
* ``via_handle``: its raw text is in a transcript or payload behind a handle that the
  context names (a summary's ``transcript_handle`` or one of its
  ``nested_transcript_handles``, or a stub's handle) — reachable with ``fetch_memory``
  (verified by reading the handle store, not assumed from the metadata);
* ``lost``: none of the above.

``reachable = in_context + in_summary_text + via_handle``. The trim baseline can only
have ``in_context`` or ``lost``.

Run ``python -m langgraph_memory bench context [--quick] [--budget 4096] [--out f.json]``.
The data (CC BY-NC 4.0) is read from ``--data`` or ``../shared/bench/locomo10.json``;
it is never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from rich.console import Console

from ..cli import PlainHelpFormatter
from ..context.compaction import META_KEY, CompactionConfig, compact_messages, is_summary
from ..context.handles import HandleStore
from ..context.token_reference import available_reference_counters, benchmark_token_counter
from ..context.tokens import (
    CalibratedTokenCounter,
    TokenCounter,
    as_token_counter,
    default_token_counter,
)
from ..errors import ConfigError
from .common import machine_info, percentile, print_table, write_json
from .locomo import Turn, load_locomo
from .locomo import find_data as locomo_data

SYSTEM_PROMPT = (
    "You are the assistant in a long-running conversation. Answer using the conversation, "
    "its summaries, and fetch_memory(handle) for anything moved out of context."
)


def find_data(path: str | Path | None) -> Path:
    """``path`` if given, else the first existing default location of locomo10.json
    (:func:`langgraph_memory.eval.locomo.find_data`)."""
    try:
        return locomo_data(path)
    except FileNotFoundError as exc:
        raise ConfigError(str(exc)) from exc


def turn_message(turn: Turn, speaker_a: str, first_of_session: bool) -> BaseMessage:
    """The chat message a LoCoMo turn becomes (id = dia_id)."""
    text = turn.text
    if turn.caption:
        text = f"{text} [shares a photo: {turn.caption}]"
    prefix = f"[{turn.date}] " if first_of_session and turn.date else ""
    content = f"{prefix}{turn.speaker}: {text}"
    if turn.speaker == speaker_a:
        return HumanMessage(content=content, id=turn.dia_id)
    return AIMessage(content=content, id=turn.dia_id)


class TrimBaseline:
    """Baseline: the system message plus the most recent messages that fit the budget
    (what ``trim_messages(strategy="last")`` keeps); anything older is gone for good."""

    def __init__(self, system: BaseMessage, budget: int, counter: TokenCounter) -> None:
        self.system = system
        self.budget = budget
        self.counter = counter
        self.base = counter.count_messages([system])
        self.kept: list[tuple[BaseMessage, int]] = []
        self.total = self.base

    def add(self, message: BaseMessage) -> int:
        """Append ``message``, drop the oldest until it fits; return the prompt tokens."""
        cost = self.counter.count_messages([self.system, message]) - self.base
        self.kept.append((message, cost))
        self.total += cost
        while self.kept and self.total > self.budget:
            _, old = self.kept.pop(0)
            self.total -= old
        return self.total

    @property
    def ids(self) -> set[str | None]:
        return {m.id for m, _ in self.kept}


def classify_evidence(
    evidence_ids: Sequence[str],
    messages: Sequence[BaseMessage],
    texts: dict[str, str],
    store: HandleStore,
    scope: str,
) -> dict[str, str]:
    """``{dia_id: in_context | in_summary_text | via_handle | lost}`` (see module doc)."""
    raw = {m.id for m in messages if not (m.additional_kwargs or {}).get(META_KEY)}
    stubbed: dict[str, str | None] = {}
    summary_text = ""
    summarized: dict[str, str | None] = {}
    for m in messages:
        meta = (m.additional_kwargs or {}).get(META_KEY) or {}
        if is_summary(m):
            summary_text += "\n" + str(m.content)
            for mid in meta.get("message_ids", []):
                summarized[mid] = meta.get("transcript_handle")
        elif meta.get("handle") and m.id:
            stubbed[m.id] = meta["handle"]
    # which ids really have their raw text behind a handle the store can still serve
    handle_ids: set[str] = set()
    handles = set(stubbed.values()) | set(summarized.values())
    for m in messages:
        meta = (m.additional_kwargs or {}).get(META_KEY) or {}
        handles.update(meta.get("nested_transcript_handles", []))
    for handle in handles:
        if not handle or not store.contains(scope, handle):
            continue
        meta = store.get_meta(scope, handle)
        if meta.get("kind") == "transcript":
            for row in json.loads(store.get(scope, handle)):
                if is_summary_row(row):
                    continue
                inner = (row.get(META_KEY) or {}).get("handle")
                # a row that was already a stub holds its raw text behind its own handle
                if inner is None or store.contains(scope, inner):
                    handle_ids.add(str(row.get("id")))
        elif meta.get("message_id"):
            handle_ids.add(str(meta["message_id"]))
    result: dict[str, str] = {}
    for dia in evidence_ids:
        if dia in raw:
            result[dia] = "in_context"
            continue
        text = texts.get(dia, "")
        snippet = " ".join(text.split())[:40]
        if dia in summarized and snippet and snippet in " ".join(summary_text.split()):
            result[dia] = "in_summary_text"
        elif dia in handle_ids:
            result[dia] = "via_handle"
        else:
            result[dia] = "lost"
    return result


def is_summary_row(row: dict[str, Any]) -> bool:
    """True for a transcript row that is itself an earlier summary message."""
    return (row.get(META_KEY) or {}).get("kind") == "compaction_summary"


def run(
    data_path: str | Path | None = None,
    *,
    budget_tokens: int = 4096,
    quick: bool = False,
    conversations: int | None = None,
    keep_last_turns: int = 6,
    counter: Any = None,
    summarizer: Any = None,
    token_error: bool = True,
) -> dict[str, Any]:
    """Replay LoCoMo conversations with compaction; return per-turn tokens and evidence reach.

    ``quick`` limits the run to 2 conversations. Returns a JSON-able dict with
    ``conversations`` (per conversation: ``full_tokens``, ``compacted_tokens`` and
    ``trimmed_tokens`` per turn, compaction count and latency, evidence classes), ``overall``
    aggregates, and ``token_counter_error`` (the default counter against every installed
    reference tokenizer, when ``token_error``).
    """
    path = find_data(data_path)
    tc = as_token_counter(counter)
    turns, questions = load_locomo(path)
    by_conv: dict[str, list[Turn]] = {}
    for t in turns:
        by_conv.setdefault(t.conversation, []).append(t)
    conv_ids = list(by_conv)
    limit = 2 if quick else conversations
    if limit is not None:
        conv_ids = conv_ids[:limit]
    cfg = CompactionConfig(keep_last_turns=keep_last_turns, min_keep_turns=1)
    results: list[dict[str, Any]] = []
    for conv in conv_ids:
        conv_turns = by_conv[conv]
        speaker_a = conv_turns[0].speaker
        texts = {t.dia_id: t.text for t in conv_turns}
        store = HandleStore()
        scope = f"bench-{conv}"
        full: list[BaseMessage] = [SystemMessage(SYSTEM_PROMPT, id="system")]
        compacted: list[BaseMessage] = list(full)
        full_tokens: list[int] = []
        compacted_tokens: list[int] = []
        trimmed_tokens: list[int] = []
        latencies: list[float] = []
        compactions = 0
        over_budget_turns = 0
        last_session = None
        trim = TrimBaseline(full[0], budget_tokens, tc)
        base = tc.count_messages(full)
        full_total = base
        for t in conv_turns:
            msg = turn_message(t, speaker_a, t.session != last_session)
            last_session = t.session
            full.append(msg)
            compacted.append(msg)
            started = time.perf_counter()
            res = compact_messages(
                compacted,
                budget_tokens=budget_tokens,
                config=cfg,
                counter=tc,
                summarizer=summarizer,
                handle_store=store,
                scope=scope,
                source_ref={"thread_id": conv},
            )
            if res.changed:
                latencies.append((time.perf_counter() - started) * 1000)
                compactions += 1
                compacted = res.messages
            tokens = res.tokens_after if res.changed else res.tokens_before
            compacted_tokens.append(tokens)
            over_budget_turns += tokens > budget_tokens
            full_total += tc.count_messages([full[0], msg]) - base  # additive counters
            full_tokens.append(full_total)
            trimmed_tokens.append(trim.add(msg))
        evidence = sorted({e for q in questions if q.conversation == conv for e in q.evidence})
        evidence = [e for e in evidence if e in texts]
        classes = classify_evidence(evidence, compacted, texts, store, scope)
        trim_ids = trim.ids
        counts = {
            k: sum(1 for v in classes.values() if v == k)
            for k in ("in_context", "in_summary_text", "via_handle", "lost")
        }
        n = max(1, len(evidence))
        results.append(
            {
                "conversation": conv,
                "turns": len(conv_turns),
                "full_tokens": full_tokens,
                "compacted_tokens": compacted_tokens,
                "trimmed_tokens": trimmed_tokens,
                "compactions": compactions,
                "over_budget_turns": over_budget_turns,
                "compaction_ms_p50": percentile(latencies, 50),
                "compaction_ms_p95": percentile(latencies, 95),
                "evidence_turns": len(evidence),
                "evidence": counts,
                "reachable": (n - counts["lost"]) / n if evidence else 1.0,
                "in_context_share": counts["in_context"] / n,
                "trim_in_context_share": sum(1 for e in evidence if e in trim_ids) / n,
                "handles": len(store.list(scope)),
            }
        )
    overall = _overall(results, budget_tokens)
    report: dict[str, Any] = {
        "benchmark": "context",
        "data": str(path),
        "budget_tokens": budget_tokens,
        "keep_last_turns": keep_last_turns,
        "counter": type(tc).__name__,
        "summarizer": "extractive" if summarizer is None else type(summarizer).__name__,
        "quick": quick,
        "machine": machine_info(),
        "conversations": results,
        "overall": overall,
    }
    if token_error:
        refs = available_reference_counters()
        from ..context.token_samples import all_samples

        # LoCoMo turns of conversations 4+ were not used to fit the presets: held out
        held_out = [t.text for t in turns if t.conversation not in set(list(by_conv)[:3])]
        samples = {**all_samples(), "en_locomo_heldout": tuple(held_out[::5][:600])}
        report["token_counter_error"] = {
            "default": benchmark_token_counter(
                default_token_counter(), references=refs, samples=samples
            ),
            **{
                f"preset:{name}": benchmark_token_counter(
                    CalibratedTokenCounter.preset(name),
                    references={name: refs[name]},
                    samples=samples,
                )
                for name in ("deepseek", "qwen")
                if name in refs
            },
            # LangChain's helper, for comparison (chars / 4: not CJK-aware)
            "count_tokens_approximately": benchmark_token_counter(
                _approx_text_counter, references=refs, samples=samples
            ),
        }
    return report


def _approx_text_counter(text: str) -> int:
    from langchain_core.messages.utils import count_tokens_approximately

    # minus the 3 tokens of per-message overhead it adds, to compare text with text
    return max(0, count_tokens_approximately([HumanMessage(content=text)]) - 3)


def _overall(results: list[dict[str, Any]], budget: int) -> dict[str, Any]:
    full = [x for r in results for x in r["full_tokens"]]
    comp = [x for r in results for x in r["compacted_tokens"]]
    ev = sum(r["evidence_turns"] for r in results) or 1
    lost = sum(r["evidence"]["lost"] for r in results)
    return {
        "turns": len(full),
        "mean_full_tokens": sum(full) / max(1, len(full)),
        "mean_compacted_tokens": sum(comp) / max(1, len(comp)),
        "max_compacted_tokens": max(comp, default=0),
        "final_full_tokens_mean": sum(r["full_tokens"][-1] for r in results) / max(1, len(results)),
        "turns_over_budget": sum(r["over_budget_turns"] for r in results),
        "full_turns_over_budget": sum(1 for x in full if x > budget),
        "compactions": sum(r["compactions"] for r in results),
        "evidence_turns": ev,
        "reachable": (ev - lost) / ev,
        "in_context_share": sum(r["evidence"]["in_context"] for r in results) / ev,
        "in_summary_text_share": sum(r["evidence"]["in_summary_text"] for r in results) / ev,
        "via_handle_share": sum(r["evidence"]["via_handle"] for r in results) / ev,
        "trim_reachable": sum(r["trim_in_context_share"] * r["evidence_turns"] for r in results)
        / ev,
    }


def report(console: Console, result: dict[str, Any], every: int = 50) -> None:
    """Print the per-turn table (every ``every`` turns) and the summary tables."""
    budget = result["budget_tokens"]
    for conv in result["conversations"]:
        rows = []
        n = conv["turns"]
        for i in [*range(0, n, every), n - 1]:
            rows.append(
                (
                    i + 1,
                    conv["full_tokens"][i],
                    conv["compacted_tokens"][i],
                    conv["trimmed_tokens"][i],
                )
            )
        print_table(
            console,
            f"{conv['conversation']}: prompt tokens per turn (budget {budget})",
            ["turn", "full history", "compacted", "trim baseline"],
            rows,
        )
    print_table(
        console,
        "per conversation",
        [
            "conv",
            "turns",
            "full@end",
            "mean full",
            "mean comp",
            "max comp",
            "compactions",
            "p50 ms",
            "evidence",
            "in ctx",
            "summary",
            "handle",
            "lost",
            "reachable",
            "trim reach",
        ],
        [
            (
                c["conversation"],
                c["turns"],
                c["full_tokens"][-1],
                round(sum(c["full_tokens"]) / len(c["full_tokens"])),
                round(sum(c["compacted_tokens"]) / len(c["compacted_tokens"])),
                max(c["compacted_tokens"]),
                c["compactions"],
                c["compaction_ms_p50"],
                c["evidence_turns"],
                c["evidence"]["in_context"],
                c["evidence"]["in_summary_text"],
                c["evidence"]["via_handle"],
                c["evidence"]["lost"],
                c["reachable"],
                c["trim_in_context_share"],
            )
            for c in result["conversations"]
        ],
    )
    o = result["overall"]
    print_table(
        console,
        "overall",
        ["metric", "value"],
        [(k, v) for k, v in o.items()],
    )
    errors = result.get("token_counter_error") or {}
    err_rows: list[tuple[Any, ...]] = []
    for counter_name, refs in errors.items():
        for ref, langs in refs.items():
            for lang, r in langs.items():
                err_rows.append(
                    (
                        counter_name,
                        ref,
                        lang,
                        r["reference_tokens"],
                        r["estimated_tokens"],
                        f"{r['aggregate_error']:+.1%}",
                        f"{r['mape']:.1%}",
                        f"{r['undercount_rate']:.0%}",
                    )
                )
    if err_rows:
        print_table(
            console,
            "token counter error vs real tokenizers (estimate / reference - 1)",
            ["counter", "reference", "lang", "ref tok", "est tok", "agg err", "MAPE", "under"],
            err_rows,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: ``bench context [--data P] [--budget N] [--quick] [--conversations N] [--out F]``."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench context",
        description=__doc__,
    )
    parser.add_argument("--data", default=None, help="path to locomo10.json")
    parser.add_argument("--budget", type=int, default=4096, help="token budget (default 4096)")
    parser.add_argument("--quick", action="store_true", help="2 conversations only")
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--keep-last-turns", type=int, default=6)
    parser.add_argument(
        "--counter",
        default=None,
        choices=["cl100k", "deepseek", "qwen"],
        help="calibrated preset to count with (default: conservative default)",
    )
    parser.add_argument("--every", type=int, default=50, help="print every N-th turn")
    parser.add_argument("--no-token-error", action="store_true")
    parser.add_argument("--out", default=None, help="write the JSON result here")
    ns = parser.parse_args(list(argv) if argv is not None else None)
    counter = CalibratedTokenCounter.preset(ns.counter) if ns.counter else None
    result = run(
        ns.data,
        budget_tokens=ns.budget,
        quick=ns.quick,
        conversations=ns.conversations,
        keep_last_turns=ns.keep_last_turns,
        counter=counter,
        token_error=not ns.no_token_error,
    )
    console = Console(width=max(Console().width, 160))  # the per-conversation table is wide
    report(console, result, every=ns.every)
    written = write_json(ns.out, result)
    if written:
        Console().print(f"wrote {written}")
    return 0


__all__ = ["TrimBaseline", "classify_evidence", "find_data", "main", "report", "run"]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
