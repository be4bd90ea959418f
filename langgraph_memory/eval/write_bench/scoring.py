"""Scoring ``bench write``: expected records against what the write path stored (slot match,
kind, retractions) and the summary metrics of a set."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from ..common import machine_info

WRITE_ACTIONS = {"inserted", "superseded", "reinforced", "restored", "invalidated"}


VALUE_ACTIONS = {"inserted", "superseded", "reinforced", "restored"}


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
    from ...write.classify import item_kind

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
        from ...write.lexicon import canonical_value

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
