"""Section 1 of the peers benchmark: LoCoMo evidence recall of every system on the same turns,
questions and vectors."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ...core.records import MemoryRecord
from ..locomo import Question, Tally, Turn, summarise, turn_record
from ._common import KS, OURS_DENSE, OURS_NEIGHBOR, OURS_NONE, PEER_KEYS, log
from .embedding import CachedEmbedder
from .systems.base import System
from .systems.ours import OursSystem
from .systems.registry import open_peer


def _locomo_records(turns: Sequence[Turn], context: str) -> dict[str, list[MemoryRecord]]:
    by_conv: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_conv[turn.conversation].append(turn)
    return {
        conv: [turn_record(t, ts[i - 1] if i else None, context) for i, t in enumerate(ts)]
        for conv, ts in by_conv.items()
    }


def _evaluate(
    system: System, questions: Sequence[Question], key_to_dia: dict[str, str], progress: bool
) -> dict[int, Tally]:
    kmax = max(KS)
    tallies = {k: Tally() for k in KS}
    for q in tqdm(questions, desc=f"queries {system.name}", disable=not progress, unit="q"):
        wanted = set(q.evidence)
        t0 = time.perf_counter()
        keys = system.search(q.conversation, q.question, kmax)
        tallies[KS[0]].latency_ms.append((time.perf_counter() - t0) * 1e3)
        got = [key_to_dia.get(key, "") for key in keys]
        for k in KS:
            top = set(got[:k])
            tallies[k].any_hits[q.category].append(int(bool(wanted & top)))
            tallies[k].all_hits[q.category].append(int(wanted <= top))
    return tallies


def run_locomo(
    turns: Sequence[Turn],
    questions: Sequence[Question],
    embedder: CachedEmbedder,
    peers: Sequence[str],
    root: Path,
    progress: bool,
    unavailable: dict[str, str],
) -> dict[str, Any]:
    """Recall of every system on the same turns and questions (see module docstring)."""
    none_records = _locomo_records(turns, "none")
    neighbor_records = _locomo_records(turns, "neighbor")
    key_to_dia = {r.id: str(r.metadata["dia_id"]) for rs in none_records.values() for r in rs}
    # embed everything once, so every system gets the same vectors and no system pays for it
    texts = [r.text for rs in none_records.values() for r in rs]
    embedder.encode(texts)
    embedder.encode([q.question for q in questions])
    results: dict[str, Any] = {}

    def measure(system: System, ingest: Callable[[], None], text_note: str) -> None:
        t0 = time.perf_counter()
        ingest()
        ingest_s = time.perf_counter() - t0
        tallies = _evaluate(system, questions, key_to_dia, progress)
        entry = summarise({system.name: tallies}, KS)[system.name]
        entry["ingest_seconds"] = ingest_s
        entry["indexed_text"] = text_note
        results[system.name] = entry

    same_text = "turn text only ('<speaker>: <text> [shares a photo of ...]')"
    ours_none = OursSystem(root, embedder, "hybrid", OURS_NONE)
    try:

        def ingest_none() -> None:
            for conv, records in tqdm(
                none_records.items(), desc="ingest ours", disable=not progress
            ):
                ours_none.add_records(conv, records)

        measure(ours_none, ingest_none, same_text)
        ours_none.mode, ours_none.name = "dense", OURS_DENSE
        tallies = _evaluate(ours_none, questions, key_to_dia, progress)
        entry = summarise({OURS_DENSE: tallies}, KS)[OURS_DENSE]
        entry["indexed_text"] = same_text + "; dense vectors only (sanity check)"
        results[OURS_DENSE] = entry
    finally:
        ours_none.close()
    ours_nb = OursSystem(root, embedder, "hybrid", OURS_NEIGHBOR)
    try:

        def ingest_neighbor() -> None:
            for conv, records in tqdm(
                neighbor_records.items(), desc="ingest ours+ctx", disable=not progress
            ):
                ours_nb.add_records(conv, records)

        measure(
            ours_nb,
            ingest_neighbor,
            "turn text + record.context (session date and previous turn of the session)",
        )
    finally:
        ours_nb.close()
    for key in peers:
        name = PEER_KEYS[key]
        if key in unavailable:
            results[name] = {"skipped": unavailable[key]}
            continue
        system, why = open_peer(key, embedder, root)
        if system is None:
            unavailable[key] = why or "failed to start"
            results[name] = {"skipped": unavailable[key]}
            continue
        try:
            batch = 256 if key == "inmemory" else 64

            def ingest_peer(system: System = system, batch: int = batch) -> None:
                bar = tqdm(total=len(texts), desc=f"ingest {system.name}", disable=not progress)
                for conv, records in none_records.items():
                    items = [(r.id, r.text, None) for r in records]
                    for start in range(0, len(items), batch):
                        system.add_batch(conv, items[start : start + batch])
                        bar.update(len(items[start : start + batch]))
                bar.close()

            measure(system, ingest_peer, same_text)
            dups = getattr(system, "dup_text_batches", 0)
            if dups:
                results[name]["duplicate_text_batches_written_one_by_one"] = dups
        except Exception as exc:
            log.warning("peer %s failed during LoCoMo", key, exc_info=True)
            results[name] = {"skipped": f"failed during the run: {type(exc).__name__}: {exc}"}
        finally:
            system.close()
    base = results[OURS_NONE]
    ratios: dict[str, dict[str, float]] = {}
    for name, entry in results.items():
        if "skipped" in entry or name == OURS_NONE:
            continue
        ratios[name] = {
            metric: (entry[metric] / base[metric]) if base[metric] else float("nan")
            for metric in ("recall_any@5", "recall_any@10", "recall_all@5", "recall_all@10")
        }
    return {
        "conversations": len(none_records),
        "turns": len(texts),
        "questions": len(questions),
        "query_latency_note": "query vectors cached and shared by all systems (embedding excluded)",
        "fair_baseline": OURS_NONE,
        "systems": results,
        "ratios_vs_ours_none": ratios,
    }
