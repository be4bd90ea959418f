"""Write-path benchmark: should-be-written precision/recall, extracted (s, p, o)
precision/recall, and PII leaks.

Runs every utterance of a labelled JSONL set (default ``tests/data/write/dev/rules_dev.jsonl``)
through :class:`~langgraph_memory.write.WritePipeline` on a fresh in-memory store, one user per
utterance (``setup`` turns, when given, are processed first in the same thread). Each line::

    {"id": "w001", "text": "...", "lang": "zh", "category": "preference",
     "should_write": true, "expected": [["user", "drink", "coffee"]],
     "pii": ["email"], "pii_values": ["jane@example.com"],
     "setup": ["..."], "project_id": "p", "confirmed": false, "source": "user"}

* ``should_write``: the final turn changes semantic memory (insert, supersede, reinforce,
  restore or invalidate).
* ``(s, p, o)``: triples of the decisions that stored a value, compared case-insensitively.
* PII leaks: occurrences of any raw ``pii_values`` string (also digits-only) in any stored
  record (current or not, ledger included), in captured log output (messages and structured
  ``extra``) or in the reports returned to the caller. The target is 0.

Metrics for the sets written with the labelling guide (``tests/data/write/README.md``):

* ``kind acc`` — for each expected record of a turn that wrote something, the kind of the
  written record that matches it (else the nearest written one) equals the label; a
  correction counts when the written record is flagged ``correction``.
* ``constraint typed`` — the same, over expected constraints only.
* ``slot EM`` — expected records with a *typed* predicate of the guide (answer_language,
  location, employer…): a written record has that predicate and one of the accepted values
  — as said, or, for the predicates whose value the guide fixes as a canonical word
  (:data:`GUIDE_CANONICAL`), the record's canonical form. ``--by-predicate`` prints it per
  predicate for the dev group, with what failed (no record, wrong predicate, value too long
  or too short, other value, missing).
* ``open value EM`` — expected records with a free attribute (``daughter_birthday``…): a
  written record holds exactly the value (any predicate name).
* ``free-text match`` — must / must_not / likes / dislikes / note: one value contains the
  other.
* ``retracted`` — turns with ``retracts``: the old value is no longer current afterwards.

Without ``--data`` every dev set and every held-out set runs and both groups are also
pooled; held-out sets (``tests/data/write/heldout/``) are measured, never tuned on.

``python -m langgraph_memory bench write [--data PATH ...] [--rules-only] [--by-predicate]
[--out results.json]``

``--extractor llm`` runs every set twice, rules alone and rules + the LLM extractor (per
``--llm-mode``), and prints both side by side. ``--model local`` (default) is the small
local model of :mod:`langgraph_memory.eval.local_llm` (``local:qwen2.5-coder-1.5b`` for the
larger one); any ``provider:model`` string goes to ``init_chat_model``. ``--limit N`` runs at
most N items per group (dev, heldout), spread over the group's sets in file order (a slow
model on a small sample). Measuring on the held-out sets is allowed; tuning on them is not.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cli import PlainHelpFormatter
from .common import machine_info, make_console, print_table, write_json

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "write" / "dev"
DEFAULT_DATA = DATA_DIR / "rules_dev.jsonl"
DEFAULT_SETS = (
    DEFAULT_DATA,
    DATA_DIR / "rules_probe1.jsonl",
    DATA_DIR / "rules_probe2.jsonl",
    DATA_DIR / "rules_probe3.jsonl",
)
"""The development set (written with the rules) and three sets written before being run."""
WRITE_ACTIONS = {"inserted", "superseded", "reinforced", "restored", "invalidated"}
VALUE_ACTIONS = {"inserted", "superseded", "reinforced", "restored"}


class _Capture(logging.Handler):
    """Keeps every log record's message and structured extra as text."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            extra = {k: v for k, v in record.__dict__.items() if k not in _STD_ATTRS}
            self.lines.append(
                record.getMessage() + " " + json.dumps(extra, ensure_ascii=False, default=str)
            )
        except Exception:  # never let the benchmark's capture break the code under test
            self.lines.append(str(record.msg))


_STD_ATTRS = set(logging.LogRecord("x", 0, "x", 0, "x", None, None).__dict__) | {
    "message",
    "asctime",
}


def load_set(path: str | Path) -> list[dict[str, Any]]:
    """The labelled utterances of a JSONL file."""
    items = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                items.append(json.loads(line))
    return items


def _norm(triple: Sequence[str]) -> tuple[str, ...]:
    return tuple(re.sub(r"\s+", " ", str(x)).strip().casefold() for x in triple)


TYPED_PREDICATES = frozenset(
    {
        "answer_language", "response_length", "ui_theme", "indentation", "name", "location",
        "hometown", "occupation", "employer", "timezone", "birthday", "diet", "allergy",
        "dietary_restriction", "drink", "cuisine", "editor", "programming_language",
        "operating_system", "database", "test_framework", "pet", "speaks", "budget", "deadline",
    }
)  # fmt: skip
"""Predicates with a name fixed by the labelling guide: slot match needs predicate and value."""
GUIDE_CANONICAL = frozenset(
    {"answer_language", "response_length", "ui_theme", "indentation", "diet"}
)
"""Typed predicates whose value the labelling guide fixes as a canonical word (the language's
English name, ``concise``/``detailed``, ``dark``/``light``, ``tabs``/``spaces``, the diet's
name): a record matches when its canonical form (``metadata["canonical"]``, the lexicon's
form of the value as said) is an accepted value. Every other typed predicate is compared as
said ("川菜" is not "Sichuan", "PST" is not "UTC-8")."""
FREE_TEXT_PREDICATES = frozenset({"must", "must_not", "likes", "dislikes", "note", "prefers"})
"""Predicates whose value is the user's phrase: matched by containment, reported apart."""


def _expected(triple: Sequence[Any], item: dict[str, Any]) -> dict[str, Any]:
    """One expected record: subject, predicate, acceptable values, kind."""
    obj = triple[2]
    values = [obj] if isinstance(obj, str) else list(obj)
    return {
        "subject": _norm([triple[0]])[0],
        "predicate": _norm([triple[1]])[0],
        "values": [_value(v) for v in values],
        "kind": triple[3] if len(triple) > 3 else _item_kind(item),
    }


def _item_kind(item: dict[str, Any]) -> str | None:
    """The labelled kind (older sets: their category when it is a kind, else None)."""
    from ..write.classify import item_kind

    return item_kind(item)


def _value(value: Any) -> str:
    return re.sub(r"[\s,.;:!?，。；：！？~…]+$", "", _norm([str(value)])[0])


def _slot_match(want: dict[str, Any], got: tuple[str, ...]) -> str | None:
    """``"exact"`` / ``"contains"`` when ``got`` (s, p, o) is the expected record, else None."""
    subject, predicate, obj = got
    value = _value(obj)
    if (want["subject"] == "assistant") != (subject == "assistant"):
        return None
    free = want["predicate"] in FREE_TEXT_PREDICATES
    if want["predicate"] in TYPED_PREDICATES and predicate != want["predicate"]:
        return None
    if value in want["values"]:
        return "exact"
    if predicate in GUIDE_CANONICAL:
        from ..write.lexicon import canonical_value

        canonical = canonical_value(predicate, obj)
        if canonical and _value(canonical) in want["values"]:
            return "exact"
    if (free or predicate in FREE_TEXT_PREDICATES) and any(
        v and (v in value or value in v) for v in want["values"]
    ):
        return "contains"
    return None


def _slot_failure(want: dict[str, Any], written: list[Any]) -> str:
    """Why no written record matched the typed ``want``: ``no record`` (the turn wrote
    nothing), ``wrong predicate`` (an accepted value under another predicate or subject),
    ``too long`` / ``too short`` (same predicate, the value contains / is contained in an
    accepted one), ``other value`` (same predicate, another value), ``missing`` (records
    written, none with this predicate or value)."""
    if not written:
        return "no record"
    same = [_value(t[2]) for (t, _, _) in written if t[1] == want["predicate"]]
    for value in same:
        if any(v and v in value for v in want["values"]):
            return "too long"
        if any(value and value in v for v in want["values"]):
            return "too short"
    if same:
        return "other value"
    if any(_value(t[2]) in want["values"] for (t, _, _) in written):
        return "wrong predicate"
    return "missing"


def slot_breakdown(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Typed-predicate slot exact-match per predicate: ``n``, ``ok``, ``exact_match`` and the
    count of each failure (see :func:`_slot_failure`), with up to five failed examples
    (``id``, expected values, what was written) for reading dev failures."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        written = list(r["written"])
        for want in r["expected_items"]:
            if want["predicate"] not in TYPED_PREDICATES:
                continue
            entry = out.setdefault(
                want["predicate"], {"n": 0, "ok": 0, "failures": Counter(), "examples": []}
            )
            entry["n"] += 1
            if any(_slot_match(want, t) == "exact" for (t, _, _) in written):
                entry["ok"] += 1
                continue
            why = _slot_failure(want, written)
            entry["failures"][why] += 1
            if len(entry["examples"]) < 5:
                entry["examples"].append(
                    {"id": r["id"], "why": why, "want": want["values"], "got": r["got"]}
                )
    for entry in out.values():
        entry["exact_match"] = entry["ok"] / entry["n"]
        entry["failures"] = dict(entry["failures"].most_common())
    return dict(sorted(out.items(), key=lambda kv: (kv[1]["exact_match"], -kv[1]["n"])))


def _still_current(store: Any, scope: Any, retracts: Sequence[Any]) -> list[Any]:
    """The retracted records (``[s, p, o]``, or a bare old value) still current in ``scope``."""
    current = [
        _norm((r.subject or "", r.predicate or "", r.object or "")) for r in store.list(scope=scope)
    ]
    out: list[Any] = []
    for t in retracts:
        if isinstance(t, str):
            if any(_value(c[2]) == _value(t) for c in current):
                out.append(t)
        elif any(c[1:] == _norm(t[1:3]) for c in current):
            out.append(list(t))
    return out


def _kind_metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Slot exact-match, kind accuracy on written items, constraint typing, retractions."""
    typed_n = typed_ok = open_n = open_ok = free_n = free_ok = kinds_n = kinds_ok = 0
    cons_n = cons_ok = 0
    for r in rows:
        written = list(r["written"])
        for want in r["expected_items"]:
            match = None
            for i, (triple, kind, corr) in enumerate(written):
                how = _slot_match(want, triple)
                if how:
                    match = (
                        i,
                        how,
                        "correction" if corr and want["kind"] == "correction" else kind,
                    )
                    break
            free = want["predicate"] in FREE_TEXT_PREDICATES
            if free:
                free_n += 1
                free_ok += int(match is not None)
            elif want["predicate"] in TYPED_PREDICATES:
                typed_n += 1
                typed_ok += int(match is not None and match[1] == "exact")
            else:
                open_n += 1
                open_ok += int(match is not None and match[1] == "exact")
            if not written or want["kind"] is None:
                continue
            kind = match[2] if match else None
            if kind is None:  # the nearest written record: same predicate, else any
                same = [(k, c) for (t, k, c) in written if t[1] == want["predicate"]]
                k0, c0 = same[0] if same else (written[0][1], written[0][2])
                kind = "correction" if c0 and want["kind"] == "correction" else k0
            kinds_n += 1
            kinds_ok += int(kind == want["kind"])
            if want["kind"] == "constraint":
                cons_n += 1
                cons_ok += int(kind == "constraint")
    retract_rows = [r for r in rows if r["retracts"]]
    return {
        "slot_exact_match": typed_ok / typed_n if typed_n else 1.0,
        "slot_n": typed_n,
        "open_value_match": open_ok / open_n if open_n else 1.0,
        "open_n": open_n,
        "free_text_match": free_ok / free_n if free_n else 1.0,
        "free_text_n": free_n,
        "kind_accuracy": kinds_ok / kinds_n if kinds_n else 1.0,
        "kind_n": kinds_n,
        "constraint_typed": cons_ok / cons_n if cons_n else 1.0,
        "constraint_n": cons_n,
        "retracted": sum(1 for r in retract_rows if not r["still_current"]) / len(retract_rows)
        if retract_rows
        else 1.0,
        "retract_n": len(retract_rows),
    }


def _group_prf(rows: list[dict[str, Any]], field: str) -> dict[str, dict[str, float]]:
    """Should-write precision/recall per value of ``field`` (``lang`` or ``kind``)."""
    out: dict[str, dict[str, float]] = {}
    for key in sorted({str(r[field]) for r in rows}):
        sub = [r for r in rows if str(r[field]) == key]
        tp = sum(1 for r in sub if r["should_write"] and r["wrote"])
        fp = sum(1 for r in sub if not r["should_write"] and r["wrote"])
        fn = sum(1 for r in sub if r["should_write"] and not r["wrote"])
        ok = sum(1 for r in sub if r["should_write"] == r["wrote"])
        out[key] = {**_prf(tp, fp, fn), "n": len(sub), "accuracy": ok / len(sub)}
    return out


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


def _variants(value: str) -> list[str]:
    out = [value]
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 7 and digits != value:
        out.append(digits)
    return out


VIAS = ("pipeline", "background", "graph")
"""The ways ``bench write`` can drive turns into the write path."""


def _driver(via: str, pipeline: Any, store: Any) -> Any:
    """A function ``(text, scope, turn_id, message_id, source, confirmed) -> WriteReport``
    that sends one turn the ``via`` way and returns the write path's report for it."""
    from ..core.records import Source

    if via not in VIAS:
        raise ValueError(f"via must be one of {VIAS}, got {via!r}")

    def direct(text: str, scope: Any, turn: str, mid: str, source: Any, confirmed: bool) -> Any:
        return pipeline.process_turn(
            text,
            scope=scope,
            turn_id=turn,
            message_id=mid,
            thread_id="bench",
            source=source,
            confirmed=confirmed,
        )

    if via == "pipeline":
        return direct
    if via == "background":
        import tempfile

        from ..write import BackgroundWriter

        journal = Path(tempfile.mkdtemp(prefix="bench-write-")) / "journal.jsonl"
        writer = BackgroundWriter(pipeline, journal_path=journal)

        def queued(text: str, scope: Any, turn: str, mid: str, source: Any, confirmed: bool) -> Any:
            entry = writer.enqueue(
                text,
                scope=scope,
                turn_id=turn,
                message_id=mid,
                thread_id="bench",
                source=source,
                confirmed=confirmed,
            )
            writer.flush()
            return writer.reports[entry]

        return queued
    from langchain_core.messages import HumanMessage

    from ..graph.prebuilt import create_memory_agent
    from ..graph.state import MemoryContext
    from ..testing import ScriptedChatModel

    seen: list[Any] = []

    user_turn = pipeline.process_turn

    def spy(*args: Any, **kwargs: Any) -> Any:
        """The pipeline's ``process_turn`` as the graph calls it; keeps user turns' reports."""
        report = user_turn(*args, **kwargs)
        if str(kwargs.get("source", "user")) in {"user", "Source.USER"}:
            seen.append(report)
        return report

    setattr(pipeline, "process_turn", spy)  # noqa: B010 - this bench's own pipeline instance
    agent = create_memory_agent(
        ScriptedChatModel(responder=lambda messages, tools: "ok"),
        store=store,
        write_pipeline=pipeline,
    )

    def graph(text: str, scope: Any, turn: str, mid: str, source: Any, confirmed: bool) -> Any:
        if source is not Source.USER:
            return direct(text, scope, turn, mid, source, confirmed)
        seen.clear()
        agent.invoke(
            {"messages": [HumanMessage(content=text, id=mid)]},
            {"configurable": {"thread_id": f"bench-{scope.user_id}"}},
            context=MemoryContext(
                user_id=scope.user_id, project_id=scope.project_id, confirmed=confirmed
            ),
        )
        if not seen:
            raise RuntimeError(f"the graph did not send turn {mid} to the write path")
        return seen[-1]

    return graph


def run(
    path: str | Path = DEFAULT_DATA,
    *,
    store: Any = None,
    embedder: Any = None,
    config: Any = None,
    classifier: Any = None,
    items: list[dict[str, Any]] | None = None,
    via: str = "pipeline",
    llm_extractor: Any = None,
) -> dict[str, Any]:
    """Run the benchmark on ``path`` and return the metrics (see module docstring).

    ``store`` defaults to a fresh ``MemoryStore`` over ``QdrantClient(":memory:")`` with
    ``embedder`` (default: the multilingual USE embedder). The store is closed only if this
    function created it. ``classifier`` replaces the shipped clause classifier and ``items``
    the file's utterances (both for cross-validation, see ``train-classifier --cv-bench``).
    ``via``: how the turns reach the write path — ``pipeline`` (``process_turn``),
    ``background`` (a ``BackgroundWriter`` with a journal) or ``graph`` (the compiled
    ``create_memory_agent`` with a scripted model; model-sourced items go to the pipeline).
    ``llm_extractor``: a chat model or ``LLMExtractor`` added to the pipeline (run per
    ``config.llm_mode``).
    """
    from ..core.records import Source
    from ..core.scope import Scope
    from ..write import WriteConfig, WritePipeline

    items = load_set(path) if items is None else items
    own_store = store is None
    if store is None:
        from qdrant_client import QdrantClient

        from ..embeddings import load_embedder
        from ..store import MemoryStore

        store = MemoryStore(
            client=QdrantClient(":memory:"), embedder=embedder or load_embedder("use-multilingual")
        )
    pipeline = WritePipeline(
        store, config or WriteConfig(), classifier=classifier, llm_extractor=llm_extractor
    )
    drive = _driver(via, pipeline, store)
    capture = _Capture()
    root = logging.getLogger("langgraph_memory")
    old_level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    reports_text: list[str] = []
    try:
        for item in items:
            scope = Scope(user_id=f"bench-{item['id']}", project_id=item.get("project_id"))
            confirmed = bool(item.get("confirmed", False))
            for i, setup in enumerate(item.get("setup") or []):
                drive(setup, scope, f"setup{i}", f"{item['id']}-s{i}", Source.USER, confirmed)
            report = drive(
                item["text"],
                scope,
                "main",
                f"{item['id']}-m",
                Source(item.get("source", "user")),
                confirmed,
            )
            reports_text.append(report.model_dump_json())
            got_write = any(d.action in WRITE_ACTIONS for d in report.decisions)
            got = sorted(
                {_norm(d.candidate.key()) for d in report.decisions if d.action in VALUE_ACTIONS}
            )
            written = [
                (_norm(d.candidate.key()), d.candidate.kind, d.candidate.correction)
                for d in report.decisions
                if d.action in VALUE_ACTIONS
            ]
            still = _still_current(store, scope, item.get("retracts") or [])
            rows.append(
                {
                    "id": item["id"],
                    "lang": item.get("lang", "en"),
                    "category": item.get("category", ""),
                    "text": report.redacted_text,
                    "should_write": bool(item["should_write"]),
                    "wrote": got_write,
                    "expected": sorted(_norm(t[:3]) for t in item.get("expected", [])),
                    "expected_items": [_expected(t, item) for t in item.get("expected", [])],
                    "kind": item.get("kind") or item.get("category", ""),
                    "got": got,
                    "written": written,
                    "extractors": [
                        d.candidate.extractor for d in report.decisions if d.action in WRITE_ACTIONS
                    ],
                    "retracts": item.get("retracts") or [],
                    "still_current": still,
                    "actions": [d.action for d in report.decisions],
                    "reasons": [d.reason for d in report.decisions],
                    "pii": sorted(item.get("pii", [])),
                    "pii_found": sorted(report.pii_found),
                    "pii_values": item.get("pii_values", []),
                    "scope": scope,
                }
            )
        elapsed = time.perf_counter() - started
        # ---------------------------------------------------------------- leaks
        stored_text: list[str] = []
        for row in rows:
            for rec in store.list(scope=row["scope"], current_only=False, include_internal=True):
                stored_text.append(rec.model_dump_json())
        haystacks = {
            "store": "\n".join(stored_text),
            "logs": "\n".join(capture.lines),
            "reports": "\n".join(reports_text),
        }
        leaks: list[dict[str, str]] = []
        for row in rows:
            for value in row["pii_values"]:
                for variant in _variants(value):
                    for where, text in haystacks.items():
                        if variant in text:
                            leaks.append(
                                {"id": row["id"], "where": where, "type": ",".join(row["pii"])}
                            )
    finally:
        root.removeHandler(capture)
        root.setLevel(old_level)
        if own_store:
            store.close()

    for row in rows:
        row.pop("scope", None)
    return summarize(
        str(path),
        rows,
        leaks=leaks,
        log_lines=len(capture.lines),
        records=len(stored_text),
        elapsed=elapsed,
    )


def summarize(
    data: str,
    rows: list[dict[str, Any]],
    *,
    leaks: list[dict[str, str]],
    log_lines: int,
    records: int,
    elapsed: float,
) -> dict[str, Any]:
    """The metrics of per-utterance ``rows`` (one set, or several sets pooled)."""
    tp = sum(1 for r in rows if r["should_write"] and r["wrote"])
    fp = sum(1 for r in rows if not r["should_write"] and r["wrote"])
    fn = sum(1 for r in rows if r["should_write"] and not r["wrote"])
    tn = len(rows) - tp - fp - fn
    ttp = tfp = tfn = 0
    for r in rows:
        want: set[tuple[str, ...]] = {tuple(t) for t in r["expected"]}
        have: set[tuple[str, ...]] = {tuple(t) for t in r["got"]}
        ttp += len(want & have)
        tfp += len(have - want)
        tfn += len(want - have)
    pii_rows = [r for r in rows if r["pii"]]
    detected = sum(1 for r in pii_rows if set(r["pii"]) <= set(r["pii_found"]))
    false_pii = sum(1 for r in rows if not r["pii"] and r["pii_found"])
    by_cat: dict[str, Counter[str]] = defaultdict(Counter)
    by_lang: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        ok = r["should_write"] == r["wrote"]
        for table, key in ((by_cat, r["category"]), (by_lang, r["lang"])):
            table[key]["n"] += 1
            table[key]["correct"] += int(ok)
    errors = [
        {
            k: r[k]
            for k in (
                "id",
                "category",
                "text",
                "should_write",
                "wrote",
                "expected",
                "got",
                "actions",
                "reasons",
            )
        }
        for r in rows
        if r["should_write"] != r["wrote"] or r["expected"] != r["got"]
    ]
    return {
        "data": data,
        "n": len(rows),
        "n_zh": sum(1 for r in rows if r["lang"] == "zh"),
        "should_write": {
            **_prf(tp, fp, fn),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "accuracy": (tp + tn) / len(rows) if rows else 1.0,
        },
        "triples": {**_prf(ttp, tfp, tfn), "tp": ttp, "fp": tfp, "fn": tfn},
        "slots": _kind_metrics(rows),
        "slots_by_predicate": slot_breakdown(rows),
        "by_language_prf": _group_prf(rows, "lang"),
        "by_kind_prf": _group_prf(rows, "kind"),
        "pii": {
            "leaks": len(leaks),
            "leak_details": leaks,
            "utterances_with_pii": len(pii_rows),
            "detection_recall": detected / len(pii_rows) if pii_rows else 1.0,
            "false_positive_utterances": false_pii,
            "values_checked": sum(len(r["pii_values"]) for r in rows),
            "log_lines_checked": log_lines,
            "records_checked": records,
        },
        "by_category": {
            k: {"n": v["n"], "accuracy": v["correct"] / v["n"]} for k, v in sorted(by_cat.items())
        },
        "by_language": {
            k: {"n": v["n"], "accuracy": v["correct"] / v["n"]} for k, v in sorted(by_lang.items())
        },
        "errors": errors,
        "rows": rows,
        "elapsed_s": elapsed,
        "ms_per_utterance": 1000 * elapsed / max(1, len(rows)),
        "machine": machine_info(),
    }


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


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: print the tables, write JSON with ``--out``. Exit 1 when PII leaked.

    Without ``--data`` every shipped set runs (the development set and the three held-out
    sets); the JSON then holds one result per set under ``"sets"``.
    """
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench write",
        description=__doc__.split("\n\n")[0],
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
    from ..embeddings import load_embedder

    paths = ns.data or [str(p) for p in dev_sets() + heldout_sets()]
    sets = _limited(paths, ns.limit)
    embedder = load_embedder(ns.embedder)
    console = make_console()
    from ..write import WriteConfig

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


LOCAL_MODEL = "local"


def _llm_model(spec: str) -> Any:
    """The LLM extractor's chat model for ``--model``: ``local`` / ``local:<name>`` (the
    verified local GGUF, see :mod:`langgraph_memory.eval.local_llm`) or a ``provider:model``
    string for ``init_chat_model``."""
    if spec == LOCAL_MODEL or spec.startswith(LOCAL_MODEL + ":"):
        from .local_llm import QWEN_05B, local_chat_model

        name = spec.partition(":")[2]
        return local_chat_model(name or QWEN_05B)
    from langchain.chat_models import init_chat_model

    return init_chat_model(spec)


def _limited(
    paths: Sequence[str], limit: int | None
) -> list[tuple[str, list[dict[str, Any]] | None]]:
    """Each path with the items to run (``None``: all of them). With ``limit``, at most
    ``limit`` items per group (dev, heldout), split as evenly as the sets allow and taken in
    file order; a set left with no item is dropped."""
    if limit is None:
        return [(p, None) for p in paths]
    if limit < 1:
        raise ValueError(f"--limit must be at least 1, got {limit}")
    out: list[tuple[str, list[dict[str, Any]] | None]] = []
    for group in ("dev", "heldout"):
        members = [p for p in paths if _group(p) == group]
        loaded = {p: load_set(p) for p in members}
        quota = dict.fromkeys(members, 0)
        left = limit
        while left and any(quota[p] < len(loaded[p]) for p in members):
            for p in members:
                if left and quota[p] < len(loaded[p]):
                    quota[p] += 1
                    left -= 1
        out.extend((p, loaded[p][: quota[p]]) for p in members if quota[p])
    return out


def _group(path: str | Path) -> str:
    """``heldout`` for a file under a ``heldout`` folder, else ``dev``."""
    return "heldout" if "heldout" in Path(path).resolve().parts else "dev"


def dev_sets() -> list[Path]:
    """The development sets (``tests/data/write/dev/*.jsonl``)."""
    return sorted(DATA_DIR.glob("*.jsonl"))


def heldout_sets() -> list[Path]:
    """The held-out sets (``tests/data/write/heldout/*.jsonl``): measured, never tuned on."""
    return sorted((DATA_DIR.parent / "heldout").glob("*.jsonl"))


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
            [
                p,
                v["n"],
                v["exact_match"],
                ", ".join(f"{k} {n}" for k, n in v["failures"].items()),
            ]
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


__all__ = [
    "DEFAULT_DATA",
    "DEFAULT_SETS",
    "dev_sets",
    "heldout_sets",
    "load_set",
    "main",
    "run",
    "slot_breakdown",
    "summarize",
]
