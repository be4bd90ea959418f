"""Evidence recall on several data sets: ``python -m langgraph_memory bench recall --set ...``.

Sets (every turn is stored as one memory of its conversation's user, as in ``bench locomo``):

* ``locomo-dev``: LoCoMo conversations 0-4 (the only data recall constants may be tuned on);
* ``locomo-heldout``: LoCoMo conversations 5-9;
* ``locomo``: all ten (read from ``--data``, never shipped);
* ``zh``: the shipped synthetic Chinese multi-session dialogue set (``data/zh_dialogue.json``);
* ``longmem``: the shipped synthetic English long multi-session set, LongMemEval-style, with
  knowledge-update questions (``data/longmem_en.json``);
* ``zhlong``: the shipped synthetic Chinese long multi-session set (``data/zh_longmem.json``:
  5 users, 70 sessions, mostly distractors; written by an author who saw neither the code nor
  the other sets);
* ``all``: locomo-dev, locomo-heldout, zh, longmem and zhlong, each reported on its own.

The shipped sets were written by hand before any fusion choice was measured on them and are
held-out data: they are only evaluated on. For each set the bench reports recall_any@k and
recall_all@k (k = 5, 10) for bm25 / dense / hybrid and p50/p95 query latency.

``--study`` also compares fusion methods offline on the same candidates: for each question it
takes each retriever's whole ranking once, then ranks with every method at every candidate
depth using the functions the store itself runs (:mod:`langgraph_memory.store.ranking`).
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from tqdm import tqdm

from ..cli import PlainHelpFormatter
from ..core.config import RecallConfig
from ..core.scope import Scope
from ..store import MemoryStore
from ..store.filters import recall_filter
from ..store.keyword import KeywordIndex
from ..store.ranking import rrf_fusion, weighted_fusion
from .common import machine_info, make_console, print_table, write_json
from .locomo import DEFAULT_DATA, Question, Turn, evaluate, ingest, load_locomo, summarise

DATA_DIR = Path(__file__).resolve().parent / "data"
SHIPPED = {
    "zh": DATA_DIR / "zh_dialogue.json",
    "longmem": DATA_DIR / "longmem_en.json",
    "zhlong": DATA_DIR / "zh_longmem.json",
}
SETS = ("locomo-dev", "locomo-heldout", "locomo", "zh", "longmem", "zhlong")
ALL = ("locomo-dev", "locomo-heldout", "zh", "longmem", "zhlong")
KS = (5, 10)


def load_set(
    name: str, locomo_path: str | Path = DEFAULT_DATA
) -> tuple[list[Turn], list[Question]]:
    """Turns and questions of one named set (see module docstring)."""
    if name in SHIPPED:
        return load_locomo(SHIPPED[name])
    if name not in {"locomo", "locomo-dev", "locomo-heldout"}:
        raise ValueError(f"unknown set {name!r}; choose from {', '.join(SETS)} or all")
    path = Path(locomo_path)
    if not path.exists():
        raise FileNotFoundError(f"LoCoMo data not found at {path}; pass --data")
    turns, questions = load_locomo(path)
    if name != "locomo":
        order = list(dict.fromkeys(t.conversation for t in turns))
        keep = set(order[:5] if name == "locomo-dev" else order[5:])
        turns = [t for t in turns if t.conversation in keep]
        questions = [q for q in questions if q.conversation in keep]
    return turns, questions


def subset(
    turns: list[Turn], questions: list[Question], conversations: int | None, max_q: int | None
) -> tuple[list[Turn], list[Question]]:
    """The first ``conversations`` conversations and at most ``max_q`` of their questions."""
    if conversations is not None:
        keep = set(list(dict.fromkeys(t.conversation for t in turns))[:conversations])
        turns = [t for t in turns if t.conversation in keep]
        questions = [q for q in questions if q.conversation in keep]
    if max_q is not None:
        questions = questions[:max_q]
    return turns, questions


# ---------------------------------------------------------------------- offline fusion study
@dataclass(frozen=True)
class Candidates:
    """Both retrievers' full rankings for one question, and its evidence record ids."""

    dense: list[tuple[str, float]]
    keyword: list[tuple[str, float]]
    keyword_of: Callable[[Sequence[str]], dict[str, float]]
    wanted: frozenset[str]


Ranker = Callable[[Candidates, int], list[str]]


def _top(pairs: list[tuple[str, float]], depth: int) -> dict[str, float]:
    return dict(pairs[:depth])


def _order(scores: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def rank_weighted(alpha: float, normalise: str) -> Ranker:
    """Each side's own top ``depth``, normalised, convex-combined (a missing side counts 0)."""

    def rank(c: Candidates, depth: int) -> list[str]:
        d, k = _top(c.dense, depth), _top(c.keyword, depth)
        a = alpha if d and k else (1.0 if d else 0.0)
        return _order(weighted_fusion(d, k, a, normalise))

    return rank


def rank_rrf(k: int) -> Ranker:
    """Reciprocal rank fusion of each side's top ``depth``."""

    def rank(c: Candidates, depth: int) -> list[str]:
        return _order(
            rrf_fusion([[d for d, _ in c.dense[:depth]], [d for d, _ in c.keyword[:depth]]], k)
        )

    return rank


def rank_both_scored(alpha: float, normalise: str) -> Ranker:
    """The union of both sides' top ``depth``, every candidate scored by BOTH retrievers (the
    dense cosine of a keyword-only hit, the BM25 score of a dense-only hit), then normalised
    over the union and combined: no candidate is penalised for missing the other list."""

    def rank(c: Candidates, depth: int) -> list[str]:
        ids = list(
            dict.fromkeys([d for d, _ in c.dense[:depth]] + [d for d, _ in c.keyword[:depth]])
        )
        dense_all = dict(c.dense)
        d = {i: dense_all[i] for i in ids if i in dense_all}
        k = c.keyword_of(ids)
        return _order(weighted_fusion(d, k, alpha, normalise))

    return rank


def rank_floor(alpha: float, floor: float) -> Ranker:
    """Scores used as they are: ``alpha * (cos - floor) / (max_cos - floor)`` (clipped at 0)
    ``+ (1 - alpha) * bm25 / max_bm25``, over each side's top ``depth``."""

    def rank(c: Candidates, depth: int) -> list[str]:
        d, k = _top(c.dense, depth), _top(c.keyword, depth)
        dmax = max(d.values(), default=1.0)
        kmax = max(k.values(), default=1.0) or 1.0
        span = max(1e-9, dmax - floor)
        fused = {i: alpha * max(0.0, (s - floor) / span) for i, s in d.items()}
        for i, s in k.items():
            fused[i] = fused.get(i, 0.0) + (1 - alpha) * s / kmax
        return _order(fused)

    return rank


def rankers() -> dict[str, Ranker]:
    """Every method compared (a coarse alpha grid only)."""
    out: dict[str, Ranker] = {
        "bm25": lambda c, depth: [d for d, _ in c.keyword],
        "dense": lambda c, depth: [d for d, _ in c.dense],
    }
    for a in (0.3, 0.5, 0.7):
        out[f"minmax a={a}"] = rank_weighted(a, "weighted")
        out[f"dbsf a={a}"] = rank_weighted(a, "dbsf")
        out[f"both-scored minmax a={a}"] = rank_both_scored(a, "weighted")
        out[f"both-scored dbsf a={a}"] = rank_both_scored(a, "dbsf")
    out["rrf k=60"] = rank_rrf(60)
    out["rrf k=10"] = rank_rrf(10)
    out["floor0.2 a=0.5"] = rank_floor(0.5, 0.2)
    return out


def collect(
    store: MemoryStore, questions: Sequence[Question], rec_of: dict[str, str], progress: bool
) -> list[Candidates]:
    """Each question's full dense and keyword rankings (every record of the user)."""
    out: list[Candidates] = []
    for q in tqdm(questions, desc="candidates", disable=not progress, unit="q"):
        scope = Scope(user_id=q.conversation)
        cond = recall_filter(scope)
        vector = store._embed([q.question])[0]
        dense = [(h.id, h.score) for h in store.backend.query(vector, cond, 5000)]
        index = store._keyword_index(q.conversation)
        keyword = [(d, s) for d, s, _ in index.search(q.question, 5000, cond) or []]
        wanted = frozenset(
            rid for rid, dia in rec_of.items() if dia in set(q.evidence) and rid in index
        )
        out.append(
            Candidates(
                dense,
                keyword,
                functools.partial(_score_ids, index, q.question),
                wanted,
            )
        )
    return out


def _score_ids(index: KeywordIndex, query: str, ids: Sequence[str]) -> dict[str, float]:
    return index.score_ids(query, ids)


def study(
    cands: Sequence[Candidates], depths: Sequence[int]
) -> dict[str, dict[int, dict[str, float]]]:
    """recall_any@5/@10 and recall_all@10 of every method at every depth."""
    result: dict[str, dict[int, dict[str, float]]] = {}
    for name, ranker in rankers().items():
        per_depth: dict[int, dict[str, float]] = {}
        for depth in depths if name not in {"bm25", "dense"} else depths[:1]:
            any5 = any10 = all10 = 0
            for c in cands:
                top = ranker(c, depth)
                any5 += bool(c.wanted & set(top[:5]))
                any10 += bool(c.wanted & set(top[:10]))
                all10 += c.wanted <= set(top[:10])
            n = max(1, len(cands))
            per_depth[depth] = {"any@5": any5 / n, "any@10": any10 / n, "all@10": all10 / n}
        result[name] = per_depth
    return result


# ---------------------------------------------------------------------- end to end
def run_set(
    name: str,
    *,
    data: str | Path = DEFAULT_DATA,
    embedder: str = "use-multilingual",
    context: str = "none",
    recall: RecallConfig | None = None,
    modes: Sequence[str] = ("bm25", "dense", "hybrid"),
    conversations: int | None = None,
    max_questions: int | None = None,
    study_depths: Sequence[int] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Ingest one set, run every question in every mode (and the fusion study if asked)."""
    turns, questions = subset(*load_set(name, data), conversations, max_questions)
    recall = recall or RecallConfig()
    with tempfile.TemporaryDirectory(prefix=f"lgm-recall-{name}-") as tmp:
        store = MemoryStore(path=Path(tmp) / "store", embedder=embedder, recall=recall)
        try:
            t0 = time.perf_counter()
            rec_of = ingest(store, turns, context, progress)
            ingest_s = time.perf_counter() - t0
            store.search("warm up", Scope(user_id=turns[0].conversation), k=1)
            tallies = evaluate(store, questions, rec_of, modes=modes, ks=KS, progress=progress)
            fusion_study = None
            if study_depths:
                fusion_study = study(collect(store, questions, rec_of, progress), study_depths)
            embedder_name = store.embedder.name
        finally:
            store.close()
    out: dict[str, Any] = {
        "set": name,
        "embedder": embedder_name,
        "context": context,
        "recall": recall.model_dump(include={"candidates", "fusion", "alpha", "rrf_k"}),
        "conversations": len({t.conversation for t in turns}),
        "turns": len(turns),
        "questions": len(questions),
        "ingest_seconds": ingest_s,
        "results": summarise(tallies, KS),
    }
    if fusion_study is not None:
        out["study"] = fusion_study
    return out


def report(console: Console, result: dict[str, Any]) -> None:
    """Print the per-mode table (and the study table when present)."""
    cols = ["mode", "any@5", "all@5", "any@10", "all@10", "p50 ms", "p95 ms"]
    rows = [
        [
            m,
            e["recall_any@5"],
            e["recall_all@5"],
            e["recall_any@10"],
            e["recall_all@10"],
            e["p50_ms"],
            e["p95_ms"],
        ]
        for m, e in result["results"].items()
    ]
    r = result["recall"]
    title = (
        f"{result['set']}: {result['questions']} questions, {result['turns']} turns, "
        f"context={result['context']}, fusion={r['fusion']} candidates={r['candidates']}"
    )
    print_table(console, title, cols, rows)
    if "study" in result:
        depths = sorted({d for per in result["study"].values() for d in per})
        srows = []
        for name, per in result["study"].items():
            row: list[Any] = [name]
            for d in depths:
                m = per.get(d)
                row += [f"{m['any@10']:.3f}/{m['all@10']:.3f}" if m else ""]
            srows.append(row)
        print_table(
            console,
            f"{result['set']} fusion study (context={result['context']}): any@10/all@10 by depth",
            ["method", *[f"depth {d}" for d in depths]],
            srows,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench recall",
        description=__doc__,
    )
    parser.add_argument("--set", default="all", choices=[*SETS, "all"])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="path to locomo10.json")
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--modes", default="bm25,dense,hybrid")
    parser.add_argument(
        "--context",
        choices=["none", "date", "neighbor"],
        default="none",
        help="what is indexed beside each turn: none (turn text only), the session date, or "
        "date + previous turn (the store's context field)",
    )
    parser.add_argument("--fusion", default=None, help="override RecallConfig.fusion")
    parser.add_argument("--alpha", type=float, default=None)
    parser.add_argument("--candidates", type=int, default=None)
    parser.add_argument("--conversations", type=int, default=None, help="first N per set")
    parser.add_argument("--max-questions", type=int, default=None, help="first N per set")
    parser.add_argument(
        "--quick", action="store_true", help="2 conversations, 40 questions per set"
    )
    parser.add_argument("--study", action="store_true", help="also compare fusion methods offline")
    parser.add_argument("--depths", default="50,100,200,500", help="candidate depths for --study")
    parser.add_argument("--out", default="bench-results/recall.json")
    parser.add_argument("--progress", action="store_true")
    ns = parser.parse_args(argv)
    if ns.quick:
        ns.conversations = ns.conversations or 2
        ns.max_questions = ns.max_questions or 40
    overrides = {
        key: value
        for key, value in (
            ("fusion", ns.fusion),
            ("alpha", ns.alpha),
            ("candidates", ns.candidates),
        )
        if value is not None
    }
    recall = RecallConfig.model_validate(overrides)
    names: tuple[str, ...] = ALL if ns.set == "all" else (ns.set,)
    if ns.set == "all" and not Path(ns.data).exists():
        names = tuple(SHIPPED)  # LoCoMo is not shipped; the synthetic sets always are
    console = make_console()
    results = []
    for name in names:
        result = run_set(
            name,
            data=ns.data,
            embedder=ns.embedder,
            context=ns.context,
            recall=recall,
            modes=[m.strip() for m in ns.modes.split(",") if m.strip()],
            conversations=ns.conversations,
            max_questions=ns.max_questions,
            study_depths=[int(d) for d in ns.depths.split(",")] if ns.study else None,
            progress=ns.progress,
        )
        report(console, result)
        results.append(result)
    written = write_json(
        ns.out, {"benchmark": "recall", "sets": results, "machine": machine_info()}
    )
    if written:
        console.print(f"results written to {written}")
    return 0


__all__ = ["SETS", "SHIPPED", "load_set", "main", "rankers", "run_set", "study"]
