"""LoCoMo evidence-recall benchmark: ``python -m langgraph_memory bench locomo``.

Every LoCoMo turn is stored as one memory of its conversation's user (``user_id`` = the
conversation id). For each question with evidence (category 5, adversarial, excluded) we ask
the store for the top-k memories and report:

* ``recall_any@k``: at least one evidence turn is in the top k;
* ``recall_all@k``: every evidence turn is in the top k;

for ``bm25`` (keyword only), ``dense`` (vector only) and ``hybrid`` (the default recall),
per category and overall, with p50/p95 latency per query (query embedding included).

The data set (CC BY-NC 4.0) is read from ``../shared/bench/locomo10.json`` or ``--data``;
it is never copied into the repository.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from tqdm import tqdm

from ..cli import PlainHelpFormatter
from ..core.config import RecallConfig
from ..core.records import Kind, Layer, MemoryRecord, Source
from ..core.scope import Scope
from ..store import MemoryStore
from .common import machine_info, make_console, percentile, print_table, write_json

_REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA_CANDIDATES = (
    _REPO.parent / "shared" / "bench" / "locomo10.json",  # beside a clone of the repository
    Path("../shared/bench/locomo10.json"),  # relative to the working directory
)
"""Where the benchmarks look for LoCoMo when no ``--data`` is given, in this order."""
DATA_NOT_FOUND = (
    "LoCoMo data not found (looked at {where}); download locomo10.json (CC BY-NC 4.0, never "
    "shipped with the package) and pass --data /path/to/locomo10.json"
)


def default_data() -> Path:
    """The first existing :data:`DEFAULT_DATA_CANDIDATES` entry (else the first one, so an
    error names where it was looked for)."""
    return next((p for p in DEFAULT_DATA_CANDIDATES if p.exists()), DEFAULT_DATA_CANDIDATES[0])


def find_data(path: str | Path | None) -> Path:
    """``path`` if given and present, else the default location; raises
    :class:`FileNotFoundError` with :data:`DATA_NOT_FOUND` when there is no data."""
    if path:
        found = Path(path)
        if not found.exists():
            raise FileNotFoundError(DATA_NOT_FOUND.format(where=found))
        return found
    found = default_data()
    if not found.exists():
        where = ", ".join(str(p) for p in DEFAULT_DATA_CANDIDATES)
        raise FileNotFoundError(DATA_NOT_FOUND.format(where=where))
    return found


DEFAULT_DATA = default_data()
CATEGORIES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    6: "knowledge-update",
}
"""Question categories kept (LoCoMo's 1-4; 6 is the long-history set's knowledge updates;
LoCoMo's 5, adversarial, has no evidence to find)."""
MODES = {"bm25": "keyword", "dense": "dense", "hybrid": "hybrid"}
_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")
_NAMESPACE = uuid.UUID("5b4f3c1e-7a34-4e0b-9a2d-6c1f3e8d2a10")


@dataclass(frozen=True)
class Turn:
    """One dialogue turn of a LoCoMo conversation."""

    conversation: str
    dia_id: str
    speaker: str
    text: str
    session: int
    date: str
    caption: str | None = None


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its evidence turn ids."""

    conversation: str
    question: str
    evidence: tuple[str, ...]
    category: int


@dataclass
class Tally:
    """Hits and latencies for one retrieval mode."""

    any_hits: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    all_hits: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    latency_ms: list[float] = field(default_factory=list)


def normalise_dia_id(raw: str) -> list[str]:
    """Evidence strings as canonical ``D<session>:<turn>`` ids (malformed ones repaired:
    ``"D8:6; D9:17"`` → two ids, ``"D:11:26"`` → ``D11:26``, ``"D30:05"`` → ``D30:5``)."""
    return [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE_RE.findall(raw)]


def load_locomo(path: str | Path) -> tuple[list[Turn], list[Question]]:
    """Turns and answerable questions (category 5 and evidence-less ones dropped). Reads
    LoCoMo's list of samples, or an object whose ``samples`` holds that list (the shipped
    synthetic sets, see :mod:`langgraph_memory.eval.recall`)."""
    import json

    data = json.loads(Path(path).read_text())
    if isinstance(data, dict):  # our own sets: {"_meta": ..., "samples": [...]}
        data = data["samples"]
    turns: list[Turn] = []
    questions: list[Question] = []
    for sample in data:
        conv_id = sample["sample_id"]
        conv = sample["conversation"]
        sessions = sorted(
            int(key.split("_")[1])
            for key in conv
            if re.fullmatch(r"session_\d+", key) and isinstance(conv[key], list)
        )
        for n in sessions:
            date = conv.get(f"session_{n}_date_time", "")
            for turn in conv[f"session_{n}"]:
                ids = normalise_dia_id(turn["dia_id"])
                if not ids:
                    continue
                turns.append(
                    Turn(
                        conversation=conv_id,
                        dia_id=ids[0],
                        speaker=turn["speaker"],
                        text=turn["text"],
                        session=n,
                        date=date,
                        caption=turn.get("blip_caption"),
                    )
                )
        for qa in sample["qa"]:
            category = int(qa.get("category", 0))
            if category not in CATEGORIES:
                continue
            evidence = tuple(
                dict.fromkeys(e for raw in qa.get("evidence", []) for e in normalise_dia_id(raw))
            )
            if not evidence:
                continue
            questions.append(Question(conv_id, str(qa["question"]), evidence, category))
    return turns, questions


def turn_text(turn: Turn) -> str:
    """What a turn says, as ``"<speaker>: <text>"`` plus its photo caption when it has one."""
    text = f"{turn.speaker}: {turn.text}"
    if turn.caption:
        text += f" [shares a photo of {turn.caption}]"
    return text


def turn_record(turn: Turn, previous: Turn | None, context: str) -> MemoryRecord:
    """The memory a turn becomes. ``context`` chooses what is indexed beside the turn itself:
    ``none``; ``date`` (the session date); ``neighbor`` (session date + the previous turn of the
    same session, which often holds the question a turn answers)."""
    text = turn_text(turn)
    parts: list[str] = []
    if context in {"date", "neighbor"} and turn.date:
        parts.append(f"(said on {turn.date})")
    if context == "neighbor" and previous is not None and previous.session == turn.session:
        parts.append(f"{previous.speaker}: {previous.text}")
    return MemoryRecord(
        id=str(uuid.uuid5(_NAMESPACE, f"{turn.conversation}/{turn.dia_id}")),
        user_id=turn.conversation,
        text=text,
        context=" ".join(parts) or None,
        layer=Layer.EPISODIC,
        kind=Kind.EVENT,
        source=Source.IMPORT,
        metadata={"dia_id": turn.dia_id, "session": turn.session},
    )


def ingest(
    store: MemoryStore, turns: Sequence[Turn], context: str, progress: bool
) -> dict[str, str]:
    """Store every turn; returns record id -> dia_id."""
    by_conv: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_conv[turn.conversation].append(turn)
    id_to_dia: dict[str, str] = {}
    bar = tqdm(total=len(turns), desc="ingest", disable=not progress, unit="turn")
    for conv_id, conv_turns in by_conv.items():
        records = [
            turn_record(t, conv_turns[i - 1] if i else None, context)
            for i, t in enumerate(conv_turns)
        ]
        for start in range(0, len(records), 256):
            batch = records[start : start + 256]
            store.add_many(batch, scope=Scope(user_id=conv_id))
            bar.update(len(batch))
        id_to_dia.update({r.id: str(r.metadata["dia_id"]) for r in records})
    bar.close()
    return id_to_dia


def evaluate(
    store: MemoryStore,
    questions: Sequence[Question],
    id_to_dia: dict[str, str],
    *,
    modes: Sequence[str],
    ks: Sequence[int],
    progress: bool,
) -> dict[str, dict[int, Tally]]:
    """Run every question in every mode; tallies per mode and k."""
    kmax = max(ks)
    tallies = {mode: {k: Tally() for k in ks} for mode in modes}
    for q in tqdm(questions, desc="queries", disable=not progress, unit="q"):
        scope = Scope(user_id=q.conversation)
        wanted = set(q.evidence)
        for mode in modes:
            t0 = time.perf_counter()
            result = store.search(q.question, scope, k=kmax, mode=MODES[mode])
            elapsed = (time.perf_counter() - t0) * 1e3
            got = [id_to_dia.get(i, "") for i in result.ids]
            for k in ks:
                top = set(got[:k])
                tally = tallies[mode][k]
                tally.any_hits[q.category].append(int(bool(wanted & top)))
                tally.all_hits[q.category].append(int(wanted <= top))
            tallies[mode][ks[0]].latency_ms.append(elapsed)
    return tallies


def summarise(tallies: dict[str, dict[int, Tally]], ks: Sequence[int]) -> dict[str, Any]:
    """Recall per mode, k and category, plus latency percentiles."""
    out: dict[str, Any] = {}
    for mode, per_k in tallies.items():
        entry: dict[str, Any] = {}
        for k, tally in per_k.items():
            cats = sorted(tally.any_hits)
            every_any = [v for c in cats for v in tally.any_hits[c]]
            every_all = [v for c in cats for v in tally.all_hits[c]]
            entry[f"recall_any@{k}"] = sum(every_any) / max(1, len(every_any))
            entry[f"recall_all@{k}"] = sum(every_all) / max(1, len(every_all))
            entry[f"by_category@{k}"] = {
                CATEGORIES[c]: {
                    "n": len(tally.any_hits[c]),
                    "recall_any": sum(tally.any_hits[c]) / len(tally.any_hits[c]),
                    "recall_all": sum(tally.all_hits[c]) / len(tally.all_hits[c]),
                }
                for c in cats
            }
        lat = per_k[ks[0]].latency_ms
        entry["p50_ms"] = percentile(lat, 50)
        entry["p95_ms"] = percentile(lat, 95)
        entry["queries"] = len(lat)
        out[mode] = entry
    return out


def run(
    data: str | Path = DEFAULT_DATA,
    *,
    embedder: str = "use-multilingual",
    modes: Sequence[str] = ("bm25", "dense", "hybrid"),
    ks: Sequence[int] = (5, 10),
    context: str = "neighbor",
    fusion: str | None = None,
    alpha: float = 0.5,
    conversations: int | None = None,
    max_questions: int | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run the benchmark and return the result document (see module docstring)."""
    path = find_data(data)
    turns, questions = load_locomo(path)
    if conversations is not None:
        keep = sorted({t.conversation for t in turns})[:conversations]
        turns = [t for t in turns if t.conversation in keep]
        questions = [q for q in questions if q.conversation in keep]
    if max_questions is not None:
        questions = questions[:max_questions]
    fusion = fusion or RecallConfig().fusion
    recall = RecallConfig.model_validate({"fusion": fusion, "alpha": alpha})
    with tempfile.TemporaryDirectory(prefix="lgm-locomo-") as tmp:
        store = MemoryStore(path=Path(tmp) / "store", embedder=embedder, recall=recall)
        try:
            t0 = time.perf_counter()
            id_to_dia = ingest(store, turns, context, progress)
            ingest_s = time.perf_counter() - t0
            tallies = evaluate(store, questions, id_to_dia, modes=modes, ks=ks, progress=progress)
            embedder_name = store.embedder.name
        finally:
            store.close()
    return {
        "benchmark": "locomo",
        "data": str(path),
        "embedder": embedder_name,
        "context": context,
        "fusion": fusion,
        "alpha": alpha,
        "turns": len(turns),
        "questions": len(questions),
        "ingest_seconds": ingest_s,
        "results": summarise(tallies, ks),
        "machine": machine_info(),
    }


def report(console: Console, result: dict[str, Any], ks: Sequence[int]) -> None:
    """Print the overall and per-category tables."""
    res = result["results"]
    cols = ["mode"]
    for k in ks:
        cols += [f"any@{k}", f"all@{k}"]
    cols += ["p50 ms", "p95 ms"]
    rows = []
    for mode, entry in res.items():
        row: list[Any] = [mode]
        for k in ks:
            row += [entry[f"recall_any@{k}"], entry[f"recall_all@{k}"]]
        row += [entry["p50_ms"], entry["p95_ms"]]
        rows.append(row)
    title = (
        f"LoCoMo evidence recall — {result['questions']} questions, {result['turns']} turns, "
        f"embedder {result['embedder']}, context={result['context']}, fusion={result['fusion']}"
    )
    print_table(console, title, cols, rows)
    kmax = max(ks)
    cats = sorted({c for e in res.values() for c in e[f"by_category@{kmax}"]})
    crow = []
    for mode, entry in res.items():
        by = entry[f"by_category@{kmax}"]
        crow.append([mode, *[by[c]["recall_any"] if c in by else float("nan") for c in cats]])
    print_table(console, f"recall_any@{kmax} by category", ["mode", *cats], crow)
    if "hybrid" in res and len(res) > 1:
        h = res["hybrid"][f"recall_any@{kmax}"]
        ratios = [
            [m, h / e[f"recall_any@{kmax}"] if e[f"recall_any@{kmax}"] else float("nan")]
            for m, e in res.items()
            if m != "hybrid"
        ]
        print_table(console, f"hybrid / other, recall_any@{kmax}", ["mode", "ratio"], ratios)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench locomo",
        description=__doc__,
    )
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="path to locomo10.json")
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--modes", default="bm25,dense,hybrid")
    parser.add_argument("--context", choices=["none", "date", "neighbor"], default="neighbor")
    parser.add_argument(
        "--fusion", choices=["union", "weighted", "dbsf", "rrf"], default=RecallConfig().fusion
    )
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--conversations", type=int, default=None, help="first N conversations")
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="2 conversations, 150 questions")
    parser.add_argument("--out", default="bench-results/locomo.json")
    parser.add_argument("--no-progress", action="store_true")
    ns = parser.parse_args(argv)
    if ns.quick:
        ns.conversations = ns.conversations or 2
        ns.max_questions = ns.max_questions or 150
    ks = (5, 10)
    result = run(
        ns.data,
        embedder=ns.embedder,
        modes=[m.strip() for m in ns.modes.split(",") if m.strip()],
        ks=ks,
        context=ns.context,
        fusion=ns.fusion,
        alpha=ns.alpha,
        conversations=ns.conversations,
        max_questions=ns.max_questions,
        progress=not ns.no_progress,
    )
    console = make_console()
    report(console, result, ks)
    written = write_json(ns.out, result)
    if written:
        console.print(f"results written to {written}")
    return 0


__all__ = [
    "DATA_NOT_FOUND",
    "DEFAULT_DATA_CANDIDATES",
    "Question",
    "Turn",
    "default_data",
    "find_data",
    "load_locomo",
    "main",
    "normalise_dia_id",
    "run",
    "turn_record",
    "turn_text",
]
