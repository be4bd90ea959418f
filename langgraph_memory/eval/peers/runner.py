"""Running the peers benchmark: data selection, every section in turn, the result document."""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...embeddings import Embedder, load_embedder
from ..common import machine_info, write_json
from ..locomo import Question, Turn, load_locomo
from ..locomo import find_data as locomo_data
from ._common import OURS_NEIGHBOR, OURS_NONE, PEER_KEYS, log, machine_note
from .embedding import CachedEmbedder
from .locomo_recall import run_locomo
from .plots import write_plots
from .search_latency import run_latency
from .systems.registry import peer_info
from .tokens import run_tokens
from .writes import run_writes


def find_data(path: str | Path | None) -> Path:
    """``path`` if given, else the first existing default location of locomo10.json
    (:func:`langgraph_memory.eval.locomo.find_data`)."""
    return locomo_data(path)


def _select(
    turns: list[Turn],
    questions: list[Question],
    conversations: int | None,
    turn_limit: int | None,
    max_questions: int | None,
) -> tuple[list[Turn], list[Question]]:
    if conversations is not None:
        keep = sorted({t.conversation for t in turns})[:conversations]
        turns = [t for t in turns if t.conversation in keep]
        questions = [q for q in questions if q.conversation in keep]
    if turn_limit is not None:
        counts: dict[str, int] = defaultdict(int)
        kept: list[Turn] = []
        for t in turns:
            if counts[t.conversation] < turn_limit:
                counts[t.conversation] += 1
                kept.append(t)
        turns = kept
        ids = {(t.conversation, t.dia_id) for t in turns}
        questions = [q for q in questions if all((q.conversation, e) in ids for e in q.evidence)]
    if max_questions is not None:
        questions = questions[:max_questions]
    return turns, questions


@contextlib.contextmanager
def _quiet_peer_logs() -> Iterator[None]:
    """mem0 logs one line per add/search offline (spaCy / fastembed missing): keep them out
    of the table output (the reason is recorded in the result's peer notes)."""
    names = ["mem0", "mem0.memory.main", "mem0.vector_stores.qdrant", "mem0.utils"]
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.ERROR)
    try:
        yield
    finally:
        for n, level in saved.items():
            logging.getLogger(n).setLevel(level)


def run(
    data: str | Path | None = None,
    *,
    quick: bool = False,
    embedder: str | Embedder = "use-multilingual",
    peers: Sequence[str] = ("inmemory", "mem0", "sqlite"),
    conversations: int | None = None,
    turn_limit: int | None = None,
    max_questions: int | None = None,
    sizes: Sequence[int] = (1000, 10_000, 100_000),
    queries: int = 100,
    peer_queries_large: int = 20,
    caps: dict[str, int] | None = None,
    writes: int = 300,
    overhead_sizes: Sequence[int] = (1000, 100_000),
    overhead_turns: int = 40,
    token_conversations: int = 2,
    token_exchanges: int | None = None,
    budget_tokens: int = 4096,
    out_dir: str | Path | None = "bench-results",
    plots: bool = True,
    progress: bool = True,
    optimize_min: int | None = 10_000,
) -> dict[str, Any]:
    """Run every section and return the result document (JSON-able; see module docstring).

    ``peers``: any of ``"inmemory"``, ``"mem0"``. ``caps``: largest latency size per peer key
    (e.g. ``{"mem0": 10_000}``: mem0's one-by-one ``add`` fills only ~60-200 memories/s here).
    ``optimize_min``: also measure ours after ``MemoryStore.optimize()`` at the largest size
    when it is at least this many memories (searches and graph overhead); ``None``: never.
    With ``out_dir``, ``peers.json`` and the PNG plots are written there.
    """
    unknown = [p for p in peers if p not in PEER_KEYS]
    if unknown:
        raise ValueError(f"unknown peers {unknown}; choose from {sorted(PEER_KEYS)}")
    caps = {} if caps is None else dict(caps)
    started = time.perf_counter()
    path = find_data(data)
    all_turns, all_questions = load_locomo(path)
    turns, questions = _select(all_turns, all_questions, conversations, turn_limit, max_questions)
    real = load_embedder(embedder)
    real.encode(["warm up"])
    unavailable: dict[str, str] = {}
    result: dict[str, Any] = {
        "benchmark": "peers",
        "quick": quick,
        "data": str(path),
        "embedder": real.name,
        "dims": int(real.dims),
        "systems": peer_info(peers),
        "notes": [
            "Same data and the same embedding model (vectors) for every system.",
            f"Fair recall comparison: '{OURS_NONE}' indexes exactly the peers' text; "
            f"'{OURS_NEIGHBOR}' also indexes the record's context field (session date + "
            "previous turn of the session).",
            "Latency: one user's scope holds all memories; the query is embedded for real on "
            "every call for every system.",
        ],
        "machine": {
            **machine_info(),
            "note": machine_note(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
        "errors": {},
    }
    out = Path(out_dir) if out_dir is not None else None

    def checkpoint() -> None:
        for key, why in unavailable.items():
            result["systems"][PEER_KEYS[key]]["unavailable"] = why
        result["seconds"] = time.perf_counter() - started
        # rewritten at every checkpoint: after the last one it is the load at the end of the run
        result["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
        if out is not None:
            result["json"] = str(out / "peers.json")
            write_json(out / "peers.json", result)

    def section(name: str, body: Callable[[], Any]) -> None:
        """Run one section; a failure is recorded (and later fails the command), the other
        sections still run, and the JSON is rewritten after every section."""
        t0 = time.perf_counter()
        try:
            result[name] = body()
        except Exception as exc:
            log.exception("bench peers: section %s failed", name)
            result["errors"][name] = f"{type(exc).__name__}: {exc}"
            result[name] = {"error": result["errors"][name]}
        if isinstance(result[name], dict):
            result[name]["seconds"] = time.perf_counter() - t0
        checkpoint()

    with tempfile.TemporaryDirectory(prefix="lgm-peers-") as tmp, _quiet_peer_logs():
        root = Path(tmp)
        section(
            "locomo",
            lambda: run_locomo(
                turns, questions, CachedEmbedder(real), peers, root, progress, unavailable
            ),
        )
        overhead: list[dict[str, Any]] = []

        def latency_section() -> dict[str, Any]:
            latency, cases = run_latency(
                real,
                sizes,
                peers,
                caps,
                queries,
                peer_queries_large,
                overhead_sizes,
                overhead_turns,
                root,
                progress,
                unavailable,
                optimize_min,
            )
            overhead.extend(cases)
            return latency

        section("latency", latency_section)
        result["graph_overhead"] = {
            "graph": "StateGraph(AgentState): load_memory -> generate (ScriptedChatModel, no "
            "LLM) -> save_memory, nodes from langgraph_memory.graph.nodes factories, InMemorySaver",
            "timing": "LangGraph task callbacks per node (includes LangGraph's per-task cost); "
            "the first turn is a discarded warm-up (builds the scope's keyword index)",
            "cases": overhead,
        }
        section("writes", lambda: run_writes(real, peers, writes, root, unavailable))
        token_turns = _select(all_turns, [], token_conversations, None, None)[0]
        section(
            "tokens",
            lambda: run_tokens(
                token_turns,
                token_conversations,
                token_exchanges,
                budget_tokens,
                real,
                root,
                progress,
            ),
        )
    if out is not None:
        try:
            result["plots"] = write_plots(result, out) if plots else {}
        except Exception as exc:
            log.exception("bench peers: plots failed")
            result["errors"]["plots"] = f"{type(exc).__name__}: {exc}"
            result["plots"] = {}
    checkpoint()
    return result
