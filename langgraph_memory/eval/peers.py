"""Side-by-side benchmark against peer memory systems: ``python -m langgraph_memory bench peers``.

One run, the same data and the same embedding model for every system:

* **langgraph-memory** (this package; embedded Qdrant engine + BM25, hybrid recall);
* **LangGraph ``InMemoryStore``** with ``index={"embed": ..., "dims": ...}`` (what LangMem's
  memory tools store into);
* **mem0 OSS** (``mem0ai``): local Qdrant (``QdrantClient(":memory:")``), embedder provider
  ``"langchain"`` wrapping our embedder, ``infer=False`` (no LLM), ``threshold=0.0``,
  telemetry off. If it cannot be imported or started, the result says exactly why.

Sections:

1. **LoCoMo evidence recall** (``recall_any@5/@10``, ``recall_all@5/@10``, per category). Every
   system stores each turn's text (``"<speaker>: <text> [shares a photo of ...]"``). Ours is
   reported twice: with ``context="none"`` (identical indexed text: the fair comparison) and
   with ``context="neighbor"`` (the record's ``context`` field also indexes the previous turn
   of the session and the session date — what ``bench locomo`` uses by default). Ours in
   dense-only mode is listed as a sanity check (same vectors as the peers). Text and query
   vectors are computed once and shared by all systems, so the per-query latency of this
   section excludes embedding for everyone.
2. **Search latency** p50/p95 at 1k/10k/100k memories in one user's scope, query embedding
   included. Bulk fills reuse the real vectors of a pool of sentences
   (:class:`~langgraph_memory.eval.latency.PooledEmbedder`); peers that cannot reach a size
   in reasonable time are capped and the reason is printed.
3. **Write throughput** with real embedding: single writes and, where the system has one, a
   batch API.
4. **Per-turn overhead of our graph**: p50/p95 of the ``load_memory`` and ``save_memory``
   nodes (built with :mod:`langgraph_memory.graph.nodes` factories) inside a compiled LangGraph
   graph with a scripted model (no LLM), at 1k and 100k memories in scope, measured from
   LangGraph's own node callbacks.
5. **Prompt tokens per turn**: LoCoMo conversations replayed through
   :func:`~langgraph_memory.graph.prebuilt.create_memory_agent` (scripted model answering with the
   real other speaker's turns) against full-history prompting, counted with
   :func:`~langgraph_memory.context.tokens.default_token_counter`.

Outputs go to ``--out-dir`` (default ``bench-results/``): ``peers.json`` and PNG plots
(``peers_latency.png``, ``peers_recall.png``, ``peers_tokens.png``). ``--quick`` finishes in
about a minute for CI smoke; the default (full) mode takes tens of minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.metadata
import logging
import os
import random
import tempfile
import time
import uuid
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore
from rich.console import Console
from tqdm import tqdm

from ..cli import PlainHelpFormatter
from ..context.tokens import default_token_counter
from ..core.logsafe import get_logger
from ..core.records import MemoryRecord
from ..core.scope import Scope
from ..embeddings import Embedder, load_embedder
from ..graph.nodes import Generate, LoadMemory, SaveMemory
from ..graph.prebuilt import create_memory_agent
from ..graph.state import AgentState, MemoryContext
from ..read.prompt import DEFAULT_SYSTEM_PROMPT
from ..store import MemoryStore
from ..testing import ScriptedChatModel
from .common import AGENT_TURNS, machine_info, make_console, percentile, print_table, write_json
from .latency import _QUERIES, PooledEmbedder, sentence
from .locomo import CATEGORIES, Question, Tally, Turn, load_locomo, summarise, turn_record
from .locomo import find_data as locomo_data
from .scale import rss_bytes

log = get_logger("eval")

OURS = "langgraph-memory"
OURS_NEIGHBOR = "langgraph-memory (context=neighbor)"
OURS_NONE = "langgraph-memory (context=none)"
OURS_DENSE = "langgraph-memory dense (context=none)"
OURS_OPT = "langgraph-memory, after optimize()"
IMS = "LangGraph InMemoryStore"
MEM0 = "mem0 OSS"
SQLS = "LangGraph SqliteStore"
PEER_KEYS = {"inmemory": IMS, "mem0": MEM0, "sqlite": SQLS}
SQLITE_NO_EXTENSIONS = (
    "this Python's sqlite3 cannot load extensions (sqlite-vec) and pysqlite3 is not installed "
    "(pip install pysqlite3-binary sqlite-vec)"
)
KS = (5, 10)
MACHINE_NOTE = (
    "CPU only; the load average at the start and end of the run says how much else ran "
    "(ratios of the same run are what compare)"
)


# ---------------------------------------------------------------------------- embeddings
class CachedEmbedder:
    """An :class:`Embedder` that embeds each distinct text once and serves repeats from memory,
    so every system of the recall section gets bit-identical vectors for the same text."""

    def __init__(self, real: Embedder) -> None:
        self.real = real
        self.name = real.name
        self.dims = int(real.dims)
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """See :class:`Embedder`."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for start in range(0, len(missing), 256):
            chunk = missing[start : start + 256]
            for text, row in zip(chunk, self.real.encode(chunk), strict=True):
                self._cache[text] = np.asarray(row, dtype=np.float32)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._cache[text]
        return out


def langchain_embeddings(embedder: Embedder) -> Any:
    """A LangChain ``Embeddings`` over ``embedder`` (what the peers accept).

    Rows are returned as Python lists, as the ``Embeddings`` contract says. For a
    :class:`PooledEmbedder` the list of a pool sentence is built once and shared by every
    ``"<sentence> #<n>"`` text (100k stored vectors would otherwise cost GBs of Python floats
    in ``InMemoryStore``); what the peer computes at search time is unchanged.
    """

    pooled = embedder if isinstance(embedder, PooledEmbedder) else None

    class _Wrapped(Embeddings):
        def __init__(self) -> None:
            self.shared: dict[str, list[float]] = {}

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            out: list[list[float] | None] = [None] * len(texts)
            todo: list[int] = []
            for i, text in enumerate(texts):
                base = text.rsplit(" #", 1)[0] if pooled is not None else None
                if base is not None and base in self.shared:
                    out[i] = self.shared[base]
                else:
                    todo.append(i)
            if todo:
                rows = embedder.encode([texts[i] for i in todo])
                for i, row in zip(todo, rows, strict=True):
                    vec = [float(x) for x in row]
                    out[i] = vec
                    if pooled is not None:
                        base = texts[i].rsplit(" #", 1)[0]
                        if base in pooled._cache:
                            self.shared[base] = vec
            return [v for v in out if v is not None]

        def embed_query(self, text: str) -> list[float]:
            return [float(x) for x in embedder.encode([text])[0]]

    return _Wrapped()


# ---------------------------------------------------------------------------- systems
class System:
    """One memory system under test: bulk and single writes into a user's scope, top-k search
    returning the caller's keys. ``available`` / ``reason`` say whether it could run."""

    name = "system"

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        """Store ``(key, text, context)`` items in ``user``'s scope (fastest API it has)."""
        raise NotImplementedError

    def add_one(self, user: str, key: str, text: str) -> None:
        """Store one item with the system's single-write API."""
        self.add_batch(user, [(key, text, None)])

    def search(self, user: str, query: str, k: int) -> list[str]:
        """Keys of the top ``k`` items of ``user`` for ``query``, best first."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources."""


class OursSystem(System):
    """langgraph-memory ``MemoryStore`` (embedded engine) with a given recall mode."""

    def __init__(self, root: Path, embedder: Embedder, mode: str = "hybrid", name: str = OURS):
        self.name = name
        self.mode = mode
        self.store = MemoryStore(path=root / f"ours-{uuid.uuid4().hex[:8]}", embedder=embedder)
        self.has_batch = True

    def add_records(self, user: str, records: Sequence[MemoryRecord]) -> None:
        """Store ready records (LoCoMo turns)."""
        for start in range(0, len(records), 256):
            self.store.add_many(list(records[start : start + 256]), scope=Scope(user_id=user))

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        records = [
            MemoryRecord(id=key, user_id=user, text=text, context=ctx) for key, text, ctx in items
        ]
        self.add_records(user, records)

    def add_one(self, user: str, key: str, text: str) -> None:
        self.store.add(MemoryRecord(id=key, user_id=user, text=text), scope=Scope(user_id=user))

    def search(self, user: str, query: str, k: int) -> list[str]:
        return list(self.store.search(query, Scope(user_id=user), k=k, mode=self.mode).ids)

    def close(self) -> None:
        self.store.close()


class InMemoryStoreSystem(System):
    """LangGraph ``InMemoryStore(index={"embed": ..., "dims": ..., "fields": ["text"]})``;
    one namespace ``(user, "memories")`` per user, as LangMem lays memories out."""

    name = IMS

    def __init__(self, embedder: Embedder) -> None:
        self.store = InMemoryStore(
            index={
                "embed": langchain_embeddings(embedder),
                "dims": int(embedder.dims),
                "fields": ["text"],
            }
        )
        self.has_batch = True
        self.dup_text_batches = 0

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        texts = [text for _, text, _ in items]
        if len(set(texts)) < len(texts):
            # langgraph 1.2.24: one batch() with two puts of the same indexed text raises
            # "Number of embeddings (n-1) does not match number of indices (n)"; LoCoMo repeats
            # short turns ("Bye!"), so such batches go in one put() at a time.
            self.dup_text_batches += 1
            for key, text, _ in items:
                self.add_one(user, key, text)
            return
        self.store.batch([PutOp((user, "memories"), key, {"text": text}) for key, text, _ in items])

    def add_one(self, user: str, key: str, text: str) -> None:
        self.store.put((user, "memories"), key, {"text": text})

    def search(self, user: str, query: str, k: int) -> list[str]:
        return [item.key for item in self.store.search((user, "memories"), query=query, limit=k)]


class SqliteStoreSystem(System):
    """LangGraph ``SqliteStore(conn, index={"embed": ..., "dims": ..., "fields": ["text"]})``
    over a file (vectors in sqlite-vec); one namespace ``(user, "memories")`` per user. The
    connection comes from ``pysqlite3`` when the interpreter's ``sqlite3`` cannot load
    extensions (as here: CPython built without them)."""

    name = SQLS

    def __init__(self, embedder: Embedder, root: Path) -> None:
        import sqlite3

        from langgraph.store.sqlite import SqliteStore

        driver: Any = sqlite3
        if not hasattr(sqlite3.Connection, "enable_load_extension"):
            try:
                import pysqlite3  # type: ignore[import-not-found]
            except ImportError as exc:
                raise RuntimeError(SQLITE_NO_EXTENSIONS) from exc
            driver = pysqlite3
        conn = driver.connect(
            str(root / f"sqlite-{uuid.uuid4().hex[:8]}.db"),
            check_same_thread=False,
            isolation_level=None,
        )
        self.store = SqliteStore(
            conn,
            index={
                "embed": langchain_embeddings(embedder),
                "dims": int(embedder.dims),
                "fields": ["text"],
            },
        )
        self.store.setup()
        self.has_batch = True

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        self.store.batch([PutOp((user, "memories"), key, {"text": text}) for key, text, _ in items])

    def add_one(self, user: str, key: str, text: str) -> None:
        self.store.put((user, "memories"), key, {"text": text})

    def search(self, user: str, query: str, k: int) -> list[str]:
        return [item.key for item in self.store.search((user, "memories"), query=query, limit=k)]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.store.conn.close()


class Mem0System(System):
    """mem0 OSS ``Memory`` with local Qdrant, our embedder through the ``langchain`` provider,
    ``infer=False`` (no LLM call) and ``threshold=0.0`` (no score cut-off)."""

    name = MEM0

    def __init__(self, embedder: Embedder, root: Path) -> None:
        os.environ["MEM0_TELEMETRY"] = "False"  # read when mem0 is imported: no PostHog
        os.environ.setdefault("MEM0_DIR", str(Path(tempfile.gettempdir()) / "lgm-bench-mem0"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from mem0 import Memory
            from qdrant_client import QdrantClient

            self.memory = Memory.from_config(
                {
                    "vector_store": {
                        "provider": "qdrant",
                        "config": {
                            "collection_name": f"bench_{uuid.uuid4().hex[:8]}",
                            "embedding_model_dims": int(embedder.dims),
                            "client": QdrantClient(location=":memory:"),
                        },
                    },
                    "embedder": {
                        "provider": "langchain",
                        "config": {
                            "model": langchain_embeddings(embedder),
                            "embedding_dims": int(embedder.dims),
                        },
                    },
                    # built but never called with infer=False; the default needs a key to build
                    "llm": {"provider": "openai", "config": {"api_key": "sk-unused-offline"}},
                    "history_db_path": str(root / f"mem0-history-{uuid.uuid4().hex[:8]}.db"),
                }
            )
        self.keys: dict[str, str] = {}
        self.has_batch = False

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        messages = [{"role": "user", "content": text} for _, text, _ in items]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = self.memory.add(messages, user_id=user, infer=False)
        added = result.get("results", []) if isinstance(result, dict) else result
        if len(added) != len(items):
            raise RuntimeError(f"mem0 stored {len(added)} of {len(items)} messages")
        for (key, _, _), entry in zip(items, added, strict=True):
            self.keys[str(entry["id"])] = key

    def search(self, user: str, query: str, k: int) -> list[str]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = self.memory.search(query, filters={"user_id": user}, top_k=k, threshold=0.0)
        return [self.keys.get(str(r["id"]), "") for r in result.get("results", [])]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.memory.close()


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def open_peer(key: str, embedder: Embedder, root: Path) -> tuple[System | None, str | None]:
    """Start one peer; ``(system, None)`` or ``(None, why it cannot run)``."""
    try:
        if key == "inmemory":
            return InMemoryStoreSystem(embedder), None
        if key == "sqlite":
            return SqliteStoreSystem(embedder, root), None
        if key == "mem0":
            if _version("mem0ai") is None:
                return None, "mem0ai is not installed (pip install mem0ai)"
            return Mem0System(embedder, root), None
    except Exception as exc:  # report, never fake: the reason goes into the output
        log.warning("peer %s failed to start", key, exc_info=True)
        return None, f"{type(exc).__name__}: {exc}"
    return None, f"unknown peer {key!r}"


def peer_info(peers: Sequence[str]) -> dict[str, Any]:
    """Versions and configuration of every system, for the result document."""
    info: dict[str, Any] = {
        OURS: {
            "version": _version("langgraph-memory"),
            "config": "MemoryStore(path=tmp) — embedded qdrant-edge + BM25, hybrid recall",
        },
        IMS: {
            "version": "langgraph " + str(_version("langgraph")),
            "config": 'InMemoryStore(index={"embed": <same embedder>, "dims": d, '
            '"fields": ["text"]}), namespace (user, "memories"). Bug found: one batch() with '
            "two puts of identical indexed text raises ValueError (embeddings vs indices count); "
            "such batches are written with put() one at a time here.",
            "requested": "inmemory" in peers,
        },
        MEM0: {
            "version": _version("mem0ai"),
            "config": 'Memory.from_config: qdrant QdrantClient(":memory:"), embedder provider '
            '"langchain" (<same embedder>), add(infer=False), search(threshold=0.0); '
            "MEM0_TELEMETRY=False. Offline, mem0's BM25 (needs fastembed + a hub download) and "
            "entity boost (needs a spaCy model download) are off, so it ranks by semantic "
            "score only.",
            "requested": "mem0" in peers,
        },
        SQLS: {
            "version": "langgraph-checkpoint-sqlite "
            + str(_version("langgraph-checkpoint-sqlite"))
            + ", sqlite-vec "
            + str(_version("sqlite-vec")),
            "config": 'SqliteStore(<file>, index={"embed": <same embedder>, "dims": d, '
            '"fields": ["text"]}), namespace (user, "memories"); pysqlite3 connection when '
            "the stdlib sqlite3 cannot load extensions.",
            "requested": "sqlite" in peers,
        },
    }
    return info


# ---------------------------------------------------------------------------- LoCoMo recall
def _locomo_records(turns: Sequence[Turn], context: str) -> dict[str, list[MemoryRecord]]:
    by_conv: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_conv[turn.conversation].append(turn)
    return {
        conv: [turn_record(t, ts[i - 1] if i else None, context) for i, t in enumerate(ts)]
        for conv, ts in by_conv.items()
    }


def _evaluate(
    system: System,
    questions: Sequence[Question],
    key_to_dia: dict[str, str],
    progress: bool,
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


# ---------------------------------------------------------------------------- latency + graph
def _queries(n: int) -> list[str]:
    return [_QUERIES[i % len(_QUERIES)] + ("" if i < len(_QUERIES) else f" {i}") for i in range(n)]


def _fill_to(
    system: System, user: str, have: int, target: int, pool: Sequence[str], progress: bool
) -> float:
    """Grow ``user``'s scope from ``have`` to ``target`` items; returns items/second."""
    rng = random.Random(target)
    batch = 1000 if getattr(system, "has_batch", True) else 100
    bar = tqdm(
        total=target - have, desc=f"fill {system.name} {target}", disable=not progress, unit="rec"
    )
    t0 = time.perf_counter()
    for start in range(have, target, batch):
        items = [
            (str(uuid.uuid4()), f"{rng.choice(pool)} #{i}", None)
            for i in range(start, min(target, start + batch))
        ]
        system.add_batch(user, items)
        bar.update(len(items))
    bar.close()
    return (target - have) / max(1e-9, time.perf_counter() - t0)


def _search_latency(system: System, user: str, queries: Sequence[str], k: int) -> list[float]:
    system.search(user, queries[0] + " warm-up", k)
    out = []
    for q in queries:
        t0 = time.perf_counter()
        system.search(user, q, k)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


class NodeTimer:
    """LangChain callback handler timing LangGraph node tasks by node name (what LangGraph
    itself reports as each task's chain start/end)."""

    def __init__(self, names: Sequence[str]) -> None:
        timer = self
        self.names = set(names)
        self.times: dict[str, list[float]] = defaultdict(list)
        self._open: dict[Any, tuple[str, float]] = {}

        class _Handler(BaseCallbackHandler):
            def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
                name = kw.get("name") or ""
                if name in timer.names:
                    timer._open[kw["run_id"]] = (name, time.perf_counter())

            def on_chain_end(self, outputs: Any, **kw: Any) -> None:
                started = timer._open.pop(kw["run_id"], None)
                if started is not None:
                    timer.times[started[0]].append((time.perf_counter() - started[1]) * 1e3)

            def on_chain_error(self, error: BaseException, **kw: Any) -> None:
                timer._open.pop(kw["run_id"], None)

        self.handler = _Handler()


def graph_overhead(store: MemoryStore, user: str, turns: int, progress: bool) -> dict[str, Any]:
    """p50/p95 of ``load_memory`` / ``save_memory`` in a compiled graph over ``store``."""
    builder = StateGraph(AgentState, context_schema=MemoryContext)
    builder.add_node("load_memory", LoadMemory(store))
    builder.add_node("generate", Generate(ScriptedChatModel(responder=lambda m, t: "OK.")))
    builder.add_node("save_memory", SaveMemory(store=store))
    builder.add_edge(START, "load_memory")
    builder.add_edge("load_memory", "generate")
    builder.add_edge("generate", "save_memory")
    builder.add_edge("save_memory", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    timer = NodeTimer(["load_memory", "generate", "save_memory"])
    context = MemoryContext(user_id=user)
    totals: list[float] = []
    thread = f"overhead-{uuid.uuid4().hex[:6]}"
    writes = 0
    for i in tqdm(range(turns + 1), desc="graph turns", disable=not progress):
        text = AGENT_TURNS[i % len(AGENT_TURNS)] + ("" if i < 8 else f" ({i})")
        t0 = time.perf_counter()
        out = graph.invoke(
            {"messages": [HumanMessage(content=text, id=f"h{i}")]},
            {"configurable": {"thread_id": thread}, "callbacks": [timer.handler]},
            context=context,
        )
        if i == 0:  # warm-up turn: first-call costs (keyword index build) are not per-turn
            timer.times.clear()
            continue
        totals.append((time.perf_counter() - t0) * 1e3)
        writes += sum(1 for w in out.get("memory_writes") or [] if w.get("record_id"))
    entry: dict[str, Any] = {"turns": len(totals), "records_written": writes}
    for name in ("load_memory", "generate", "save_memory"):
        values = timer.times.get(name, [])
        entry[f"{name}_p50_ms"] = percentile(values, 50)
        entry[f"{name}_p95_ms"] = percentile(values, 95)
    entry["turn_p50_ms"] = percentile(totals, 50)
    entry["turn_p95_ms"] = percentile(totals, 95)
    return entry


def run_latency(
    real: Embedder,
    sizes: Sequence[int],
    peers: Sequence[str],
    caps: dict[str, int],
    n_queries: int,
    peer_queries_large: int,
    overhead_sizes: Sequence[int],
    overhead_turns: int,
    root: Path,
    progress: bool,
    unavailable: dict[str, str],
    optimize_min: int | None = 10_000,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Search latency per system and size (one user's scope), and the graph overhead cases."""
    rng = random.Random(1)
    pool = sorted({sentence(rng) for _ in range(6000)})
    pooled = PooledEmbedder(real, pool)
    queries = _queries(n_queries)
    user = "bench-user"
    systems: dict[str, list[dict[str, Any]]] = {}
    overhead: list[dict[str, Any]] = []
    order: list[tuple[str, str]] = [("ours", OURS)] + [(k, PEER_KEYS[k]) for k in peers]
    rss_start_of: dict[str, int] = {}
    for key, name in order:
        cases: list[dict[str, Any]] = []
        systems[name] = cases
        gc.collect()
        rss_start_of[key] = rss_bytes()
        if key in unavailable:
            cases.extend({"memories": n, "skipped": unavailable[key]} for n in sizes)
            continue
        system: System | None
        if key == "ours":
            system = OursSystem(root, pooled)
        else:
            system, why = open_peer(key, pooled, root)
            if system is None:
                unavailable[key] = why or "failed to start"
                cases.extend({"memories": n, "skipped": unavailable[key]} for n in sizes)
                continue
        have = 0
        rss_start = rss_start_of[key]
        try:
            for n in sorted(sizes):
                cap = caps.get(key)
                if cap is not None and n > cap:
                    cases.append(
                        {
                            "memories": n,
                            "skipped": f"capped at {cap} memories (--{key}-max-size): filling "
                            f"{n} through its write API at the rate measured here "
                            f"({cases[-1].get('fill_records_per_s', float('nan')):.0f}/s) would "
                            "take too long for this run"
                            if cases and "fill_records_per_s" in cases[-1]
                            else f"capped at {cap} memories (--{key}-max-size)",
                        }
                    )
                    continue
                rate = _fill_to(system, user, have, n, pool, progress)
                have = n
                nq = (
                    n_queries if key == "ours" or n < 50_000 else min(n_queries, peer_queries_large)
                )
                t0 = time.perf_counter()
                system.search(user, "first query after the fill", 5)
                first_ms = (time.perf_counter() - t0) * 1e3
                lat = _search_latency(system, user, queries[:nq], 5)
                cases.append(
                    {
                        "memories": n,
                        "queries": len(lat),
                        "p50_ms": percentile(lat, 50),
                        "p95_ms": percentile(lat, 95),
                        "first_query_ms": first_ms,
                        "rss_bytes_per_record": (rss_bytes() - rss_start) / n,
                        "fill_records_per_s": rate,
                    }
                )
                if key == "ours" and n in overhead_sizes and isinstance(system, OursSystem):
                    case = graph_overhead(system.store, user, overhead_turns, progress)
                    case["memories_in_scope"] = n
                    case["optimized"] = False
                    overhead.append(case)
            if (
                key == "ours"
                and optimize_min is not None
                and have >= optimize_min
                and isinstance(system, OursSystem)
            ):
                # what a user of a large store does after a bulk import: build the HNSW index
                t0 = time.perf_counter()
                system.store.optimize()
                optimize_s = time.perf_counter() - t0
                lat = _search_latency(system, user, queries, 5)
                systems[OURS_OPT] = [
                    {
                        "memories": have,
                        "queries": len(lat),
                        "p50_ms": percentile(lat, 50),
                        "p95_ms": percentile(lat, 95),
                        "optimize_seconds": optimize_s,
                    }
                ]
                if have in overhead_sizes:
                    case = graph_overhead(system.store, user, overhead_turns, progress)
                    case["memories_in_scope"] = have
                    case["optimized"] = True
                    overhead.append(case)
        except Exception as exc:
            log.warning("system %s failed during the latency run", name, exc_info=True)
            cases.append({"memories": None, "skipped": f"failed: {type(exc).__name__}: {exc}"})
        finally:
            system.close()
    ours = {c["memories"]: c for c in systems[OURS] if "p95_ms" in c}
    ratios: dict[str, dict[str, float]] = {}
    for name, cases in systems.items():
        if name in {OURS, OURS_OPT}:
            continue
        ratios[name] = {
            str(c["memories"]): c["p95_ms"] / ours[c["memories"]]["p95_ms"]
            for c in cases
            if "p95_ms" in c and c["memories"] in ours
        }
    return (
        {
            "k": 5,
            "scope": "all memories belong to one user (the queried scope)",
            "query_embedding": "included (real model call per query)",
            "fill": "pooled real vectors (PooledEmbedder); see write throughput for real embedding",
            "systems": systems,
            "p95_ratio_vs_ours": ratios,
        },
        overhead,
    )


def run_writes(
    real: Embedder,
    peers: Sequence[str],
    n: int,
    root: Path,
    unavailable: dict[str, str],
) -> dict[str, Any]:
    """Write throughput with real embedding: ``n`` single writes and, where there is a batch
    API, ``n`` texts in batches of 100 (distinct texts per system; no cache)."""
    rng = random.Random(3)
    out: dict[str, Any] = {}
    order: list[tuple[str, str]] = [("ours", OURS)] + [(k, PEER_KEYS[k]) for k in peers]
    for idx, (key, name) in enumerate(order):
        if key in unavailable:
            out[name] = {"skipped": unavailable[key]}
            continue
        system: System | None
        if key == "ours":
            system = OursSystem(root, real)
        else:
            system, why = open_peer(key, real, root)
            if system is None:
                out[name] = {"skipped": why}
                continue
        texts = [f"{sentence(rng)} (w{idx}-{i})" for i in range(2 * n)]
        try:
            system.add_one("writer", str(uuid.uuid4()), "warm up write")
            single: list[float] = []
            for text in texts[:n]:
                t0 = time.perf_counter()
                system.add_one("writer", str(uuid.uuid4()), text)
                single.append((time.perf_counter() - t0) * 1e3)
            entry: dict[str, Any] = {
                "single_p50_ms": percentile(single, 50),
                "single_p95_ms": percentile(single, 95),
                "single_per_s": len(single) / (sum(single) / 1e3),
                "batch_per_s": None,
            }
            if getattr(system, "has_batch", False):
                t0 = time.perf_counter()
                rest = texts[n:]
                for start in range(0, len(rest), 100):
                    system.add_batch(
                        "writer", [(str(uuid.uuid4()), t, None) for t in rest[start : start + 100]]
                    )
                entry["batch_per_s"] = len(rest) / (time.perf_counter() - t0)
            else:
                entry["batch_note"] = "no batch write API (add() embeds and inserts one by one)"
            out[name] = entry
        except Exception as exc:
            out[name] = {"skipped": f"failed: {type(exc).__name__}: {exc}"}
        finally:
            system.close()
    base = out.get(OURS, {})
    ratios = {
        name: {
            "single_ours_over_peer": base["single_per_s"] / e["single_per_s"],
            "batch_ours_over_peer": (base["batch_per_s"] / e["batch_per_s"])
            if e.get("batch_per_s")
            else None,
        }
        for name, e in out.items()
        if name != OURS and "single_per_s" in e and "single_per_s" in base
    }
    return {"writes": n, "systems": out, "ratios": ratios}


# ---------------------------------------------------------------------------- tokens per turn
def _exchanges(turns: Sequence[Turn]) -> list[tuple[str, str, str]]:
    """``(message id, human text, reply text)``: speaker A's consecutive turns become one human
    message, speaker B's following turns the scripted reply; a session's first message carries
    the session date, as in ``bench context``."""
    speaker_a = turns[0].speaker
    out: list[tuple[str, str, str]] = []
    human: list[str] = []
    reply: list[str] = []
    hid = ""
    last_session: int | None = None

    def line(t: Turn) -> str:
        nonlocal last_session
        text = f"{t.speaker}: {t.text}" + (f" [shares a photo: {t.caption}]" if t.caption else "")
        if t.session != last_session and t.date:
            text = f"[{t.date}] {text}"
        last_session = t.session
        return text

    for t in turns:
        if t.speaker == speaker_a:
            if reply:
                out.append((hid, "\n".join(human), "\n".join(reply)))
                human, reply = [], []
            if not human:
                hid = t.dia_id
            human.append(line(t))
        elif human:
            reply.append(line(t))
    if human:
        out.append((hid, "\n".join(human), "\n".join(reply)))
    return out


def run_tokens(
    turns: Sequence[Turn],
    conversations: int,
    max_exchanges: int | None,
    budget: int,
    embedder: Embedder,
    root: Path,
    progress: bool,
) -> dict[str, Any]:
    """Prompt tokens per turn: the memory agent vs full-history prompting."""
    counter = default_token_counter()
    by_conv: dict[str, list[Turn]] = defaultdict(list)
    for t in turns:
        by_conv[t.conversation].append(t)
    per_conv: list[dict[str, Any]] = []
    load_ms: list[float] = []
    save_ms: list[float] = []
    for conv in list(by_conv)[:conversations]:
        exchanges = _exchanges(by_conv[conv])[:max_exchanges]
        replies = iter([r for _, _, r in exchanges])
        model = ScriptedChatModel(responder=lambda m, t, it=replies: next(it, ""))
        store = MemoryStore(path=root / f"tokens-{conv}", embedder=embedder)
        timer = NodeTimer(["load_memory", "save_memory"])
        try:
            agent = create_memory_agent(
                model, store=store, checkpointer=InMemorySaver(), compaction_budget_tokens=budget
            )
            system = SystemMessage(DEFAULT_SYSTEM_PROMPT)
            base = counter.count_messages([system])
            full_total = base
            agent_tokens: list[int] = []
            full_tokens: list[int] = []
            for mid, text, reply in tqdm(exchanges, desc=f"tokens {conv}", disable=not progress):
                human = HumanMessage(content=text, id=mid)
                agent.invoke(
                    {"messages": [human]},
                    {"configurable": {"thread_id": conv}, "callbacks": [timer.handler]},
                    context=MemoryContext(user_id=conv, context_budget_tokens=budget),
                )
                prompt: list[BaseMessage] = model.last_prompt
                agent_tokens.append(counter.count_messages(prompt))
                full_total += counter.count_messages([system, human]) - base
                full_tokens.append(full_total)
                full_total += counter.count_messages([system, AIMessage(content=reply)]) - base
            model.calls.clear()
        finally:
            store.close()
        load_ms += timer.times.get("load_memory", [])
        save_ms += timer.times.get("save_memory", [])
        per_conv.append(
            {
                "conversation": conv,
                "turns": len(agent_tokens),
                "memory_agent_tokens": agent_tokens,
                "full_history_tokens": full_tokens,
                "mean_memory_agent": sum(agent_tokens) / max(1, len(agent_tokens)),
                "mean_full_history": sum(full_tokens) / max(1, len(full_tokens)),
                "max_memory_agent": max(agent_tokens, default=0),
                "final_full_history": full_tokens[-1] if full_tokens else 0,
            }
        )
    agent_all = [x for c in per_conv for x in c["memory_agent_tokens"]]
    full_all = [x for c in per_conv for x in c["full_history_tokens"]]
    mean_agent = sum(agent_all) / max(1, len(agent_all))
    mean_full = sum(full_all) / max(1, len(full_all))
    return {
        "budget_tokens": budget,
        "counter": "default_token_counter()",
        "agent": "create_memory_agent(ScriptedChatModel replying with the other speaker's real "
        "turns), InMemorySaver, compaction budget as above, recall k=5",
        "conversations": per_conv,
        "mean_memory_agent": mean_agent,
        "mean_full_history": mean_full,
        "full_over_agent": mean_full / mean_agent if mean_agent else float("nan"),
        "load_memory_p50_ms": percentile(load_ms, 50),
        "load_memory_p95_ms": percentile(load_ms, 95),
        "save_memory_p50_ms": percentile(save_ms, 50),
        "save_memory_p95_ms": percentile(save_ms, 95),
    }


# ---------------------------------------------------------------------------- plots
def write_plots(result: dict[str, Any], out_dir: Path) -> dict[str, str]:
    """PNG plots: latency vs size, recall per system and category, tokens per turn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}

    if _ok(result, "latency"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, cases in result["latency"]["systems"].items():
            pts = [(c["memories"], c["p50_ms"], c["p95_ms"]) for c in cases if "p95_ms" in c]
            if not pts:
                continue
            xs = [p[0] for p in pts]
            (line,) = ax.plot(xs, [p[2] for p in pts], marker="o", label=f"{name} p95")
            ax.plot(xs, [p[1] for p in pts], marker=".", ls="--", color=line.get_color(), alpha=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memories in the queried user's scope")
        ax.set_ylabel("search latency, ms (solid p95, dashed p50)")
        ax.set_title("Search latency vs size (k=5, query embedding included)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out_dir / "peers_latency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["latency"] = str(path)

    if _ok(result, "locomo"):
        systems = {n: e for n, e in result["locomo"]["systems"].items() if "skipped" not in e}
        names = list(systems)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
        metrics = ["recall_any@5", "recall_any@10", "recall_all@5", "recall_all@10"]
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            pos = np.arange(len(metrics)) + i * width
            ax1.bar(pos, [systems[name][m] for m in metrics], width, label=name)
        ax1.set_xticks(np.arange(len(metrics)) + width * (len(names) - 1) / 2, metrics)
        ax1.set_ylim(0, 1)
        ax1.set_title("LoCoMo evidence recall, overall")
        ax1.legend(fontsize=7)
        cats = [
            c
            for c in CATEGORIES.values()
            if any(c in e["by_category@10"] for e in systems.values())
        ]
        for i, name in enumerate(names):
            by = systems[name]["by_category@10"]
            pos = np.arange(len(cats)) + i * width
            ax2.bar(pos, [by.get(c, {}).get("recall_any", 0.0) for c in cats], width, label=name)
        ax2.set_xticks(np.arange(len(cats)) + width * (len(names) - 1) / 2, cats)
        ax2.set_ylim(0, 1)
        ax2.set_title("recall_any@10 by question category")
        fig.tight_layout()
        path = out_dir / "peers_recall.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["recall"] = str(path)

    if _ok(result, "tokens"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for conv in result["tokens"]["conversations"]:
            xs = list(range(1, conv["turns"] + 1))
            (line,) = ax.plot(
                xs,
                conv["full_history_tokens"],
                ls="--",
                label=f"{conv['conversation']} full history",
            )
            ax.plot(
                xs,
                conv["memory_agent_tokens"],
                color=line.get_color(),
                label=f"{conv['conversation']} memory agent",
            )
        ax.axhline(result["tokens"]["budget_tokens"], color="grey", lw=0.8, ls=":", label="budget")
        ax.set_xlabel("turn (user message)")
        ax.set_ylabel("prompt tokens")
        ax.set_title("Prompt tokens per turn on LoCoMo")
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        path = out_dir / "peers_tokens.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written["tokens"] = str(path)
    return written


# ---------------------------------------------------------------------------- run / report
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
            "note": MACHINE_NOTE,
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
        "errors": {},
    }
    out = Path(out_dir) if out_dir is not None else None

    def checkpoint() -> None:
        for key, why in unavailable.items():
            result["systems"][PEER_KEYS[key]]["unavailable"] = why
        result["seconds"] = time.perf_counter() - started
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


def _ok(result: dict[str, Any], section: str) -> bool:
    """Whether ``section`` ran (it may be missing or hold an ``error``)."""
    entry = result.get(section)
    return isinstance(entry, dict) and "error" not in entry


def _fmt(value: Any) -> Any:
    return float("nan") if value is None else value


def report(console: Console, result: dict[str, Any]) -> None:
    """Print every section as tables, ratios against ours included."""
    for name, info in result["systems"].items():
        if info.get("unavailable"):
            console.print(f"[bold red]{name} did not run:[/] {info['unavailable']}")
    if _ok(result, "locomo"):
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
    if _ok(result, "latency"):
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
    if _ok(result, "writes"):
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
    if _ok(result, "tokens"):
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


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory bench peers",
        description=__doc__,
    )
    parser.add_argument("--data", default=None, help="path to locomo10.json")
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument(
        "--peers", default="inmemory,mem0,sqlite", help="comma list: inmemory,mem0,sqlite"
    )
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--turn-limit", type=int, default=None, help="first N turns per conv")
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--peer-queries-large", type=int, default=20, help="peer queries ≥50k")
    parser.add_argument("--mem0-max-size", type=int, default=100_000)
    parser.add_argument("--inmemory-max-size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--overhead-sizes", default="1000,100000")
    parser.add_argument("--overhead-turns", type=int, default=40)
    parser.add_argument("--token-conversations", type=int, default=2)
    parser.add_argument("--token-exchanges", type=int, default=None)
    parser.add_argument("--budget", type=int, default=4096, help="compaction budget (tokens)")
    parser.add_argument("--quick", action="store_true", help="CI smoke: small everything")
    parser.add_argument("--out-dir", default="bench-results")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument(
        "--optimize-min",
        type=int,
        default=10_000,
        help="measure ours after optimize() at the largest size if it has at least this many "
        "memories (0: always; -1: never)",
    )
    parser.add_argument(
        "--from-json", default=None, help="only print the report of an earlier peers.json"
    )
    parser.add_argument("--no-progress", action="store_true")
    ns = parser.parse_args(list(argv) if argv is not None else None)
    if ns.from_json:
        import json

        console = make_console()
        earlier = json.loads(Path(ns.from_json).read_text())
        report(console, earlier)
        return 1 if earlier.get("errors") else 0
    sizes = [int(s) for s in ns.sizes.split(",") if s.strip()]
    overhead_sizes = [int(s) for s in ns.overhead_sizes.split(",") if s.strip()]
    if ns.quick:
        ns.conversations = ns.conversations or 1
        ns.turn_limit = ns.turn_limit or 250
        ns.max_questions = ns.max_questions or 60
        sizes, overhead_sizes = [1000], [1000]
        ns.queries, ns.writes, ns.overhead_turns = 20, 30, 8
        ns.token_conversations, ns.token_exchanges = 1, ns.token_exchanges or 15
        ns.mem0_max_size = min(ns.mem0_max_size, 1000)
    result = run(
        ns.data,
        quick=ns.quick,
        embedder=ns.embedder,
        peers=[p.strip() for p in ns.peers.split(",") if p.strip()],
        conversations=ns.conversations,
        turn_limit=ns.turn_limit,
        max_questions=ns.max_questions,
        sizes=sizes,
        queries=ns.queries,
        peer_queries_large=ns.peer_queries_large,
        caps={"mem0": ns.mem0_max_size, "inmemory": ns.inmemory_max_size},
        writes=ns.writes,
        overhead_sizes=overhead_sizes,
        overhead_turns=ns.overhead_turns,
        token_conversations=ns.token_conversations,
        token_exchanges=ns.token_exchanges,
        budget_tokens=ns.budget,
        out_dir=ns.out_dir,
        plots=not ns.no_plots,
        progress=not ns.no_progress,
        optimize_min=None if ns.optimize_min < 0 else ns.optimize_min,
    )
    console = make_console()
    report(console, result)
    console.print(f"results written to {result.get('json')}; plots: {result.get('plots')}")
    return 1 if result["errors"] else 0


__all__ = [
    "CachedEmbedder",
    "InMemoryStoreSystem",
    "Mem0System",
    "OursSystem",
    "langchain_embeddings",
    "main",
    "report",
    "run",
]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
